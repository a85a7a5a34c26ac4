/* natter-search-rank-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The FTS5 auxiliary function the search query ranks by and learns each
 * matching row's match offsets from (natter-search-rank.c), for
 * natter-search-db.c only.
 */

#pragma once

#include <glib.h>
#include <sqlite3.h>

G_BEGIN_DECLS

/* One matching row as natter_match() saw it. */
typedef struct
{
  sqlite3_int64 rowid;
  double        score;    /* bm25()'s, negated: higher is better */
  int           column;   /* the column that matched more often (0: the message when even) */
  guint         first;    /* its matched tokens: NatterSearchMatches.tokens[first, first + n_tokens) */
  guint         n_tokens;
} NatterSearchMatch;

/* What natter_match() fills, bound to its second argument with
 * sqlite3_bind_pointer() and the type NATTER_SEARCH_MATCHES_POINTER. */
typedef struct
{
  GArray *rows;    /* NatterSearchMatch, in the order FTS5 gave them */
  GArray *tokens;  /* int token indexes, sorted within each row */
  GArray *answer;  /* scratch: the current row's tokens in the answer */
  /* Per phrase of the query, in its order: the rows of the whole table
   * that hold it (counted up to half the table), or -1 where not known
   * yet; natter_match() counts the unknown ones and fills them in, so that
   * the caller can keep them until the table changes. NULL, or
   * @n_counts not the query's number of phrases: all are counted. */
  gint64 *counts;
  guint   n_counts;
  /* Per phrase of the query, in its order: the word of the query (the
   * index into @counts) it stands for. A typed word that is the prefix
   * of a few terms of the table is searched as those terms, each a
   * phrase of its own (natter-search-db.c); natter_match() ranks them as
   * the one prefix they stand for, as bm25() ranks the prefix. NULL, or
   * @n_phrases not the query's number of phrases: each phrase is a word
   * of its own. */
  const guint *words;
  guint        n_phrases;
} NatterSearchMatches;

#define NATTER_SEARCH_MATCHES_POINTER "natter_search_matches"

int natter_search_rank_register (fts5_api *api);

G_END_DECLS
