/* natter-search-rank.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How well a matching turn matches and where, as an FTS5 auxiliary
 * function, `natter_match(turn_text, ?)`, called once per matching row
 * in the one pass of a query over its newest matches: the rank is
 * SQLite's bm25() (the same formula, k1 = 1.2,
 * b = 0.75, every column weighing 1), at a fraction of its cost on this
 * index. bm25() weighs each phrase of the query by its rarity (IDF), which
 * it learns by walking every row the phrase matches in the whole table,
 * once per query: for a short prefix in 200,000 turns, most of a query's
 * time. Here:
 *
 * - a query of one phrase is ranked without it: its IDF multiplies every
 *   row's score by the same positive number, so the order is bm25()'s
 *   exactly;
 * - a phrase's rows are counted only up to half the table, where bm25()
 *   gives every count the same smallest IDF;
 * - a count the caller already knows (NatterSearchMatches.counts: the
 *   same phrase in an earlier query on the same table, as when a second
 *   word is typed after the first) is not counted again;
 * - the frequency of each phrase in a row is counted on its own position
 *   list (xPhraseFirst()), not from the row's instances merged and sorted
 *   (xInst()); the same lists give the tokens an excerpt marks.
 *
 * The rows are kept in C, not ordered by SQLite: the query walks the
 * newest matches once (ORDER BY rowid DESC, which FTS5 does without a
 * sort), rather than once to find the bound on the newest and again to
 * rank, each walk expanding every prefix of the query anew.
 */

#define G_LOG_DOMAIN "natter-search"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "natter-search-rank-private.h"

/* bm25()'s constants (SQLite's fts5_aux.c). */
#define K1 1.2
#define B  0.75

/* What is the same for every row of one query. */
typedef struct
{
  int     n_phrases;
  double  average_length;  /* tokens per row, both columns */
  double *idf;             /* per phrase; all 1.0 for one phrase */
} RankData;

typedef struct
{
  sqlite3_int64 n_hits;
  sqlite3_int64 n_rows;
} Count;

/* Counts the rows of a phrase, up to half the table: from there on its
 * IDF is bm25()'s floor whatever the count, so the walk stops. */
static int
count_cb (const Fts5ExtensionApi *api,
          Fts5Context            *fts,
          void                   *data)
{
  Count *count = data;

  count->n_hits++;
  return 2 * count->n_hits >= count->n_rows ? SQLITE_DONE : SQLITE_OK;
}

static int
rank_data (const Fts5ExtensionApi  *api,
           Fts5Context             *fts,
           NatterSearchMatches     *matches,
           RankData               **out)
{
  RankData *data = api->xGetAuxdata (fts, 0);
  sqlite3_int64 n_rows = 0;
  sqlite3_int64 n_tokens = 0;
  gboolean known;
  int rc;

  if (data != NULL)
    {
      *out = data;
      return SQLITE_OK;
    }
  data = sqlite3_malloc64 (sizeof (RankData) + sizeof (double) * (gsize) MAX (api->xPhraseCount (fts), 1));
  if (data == NULL)
    return SQLITE_NOMEM;
  data->n_phrases = api->xPhraseCount (fts);
  data->idf = (double *) (data + 1);
  rc = api->xRowCount (fts, &n_rows);
  if (rc == SQLITE_OK)
    rc = api->xColumnTotalSize (fts, -1, &n_tokens);
  data->average_length = n_rows > 0 ? (double) n_tokens / (double) n_rows : 1.0;
  known = matches->counts != NULL && matches->n_counts == (guint) data->n_phrases;
  for (int i = 0; rc == SQLITE_OK && i < data->n_phrases; i++)
    {
      Count count = { 0, n_rows };
      double idf;

      if (data->n_phrases == 1)
        {
          data->idf[i] = 1.0;
          break;
        }
      /* As bm25(): the rows that hold the phrase, in the whole table; an
       * IDF of nothing or less weighs almost nothing, never negatively. */
      if (known && matches->counts[i] >= 0)
        count.n_hits = matches->counts[i];
      else
        rc = api->xQueryPhrase (fts, i, &count, count_cb);
      if (known && rc == SQLITE_OK)
        matches->counts[i] = count.n_hits;
      idf = log ((n_rows - count.n_hits + 0.5) / (count.n_hits + 0.5));
      data->idf[i] = idf <= 0.0 ? 1e-6 : idf;
    }
  if (rc == SQLITE_OK)
    rc = api->xSetAuxdata (fts, data, sqlite3_free);
  else
    sqlite3_free (data);
  *out = rc == SQLITE_OK ? data : NULL;
  return rc;
}

static int
compare_ints (gconstpointer a,
              gconstpointer b)
{
  int x = *(const int *) a;
  int y = *(const int *) b;

  return x < y ? -1 : x > y;
}

static void
append_phrase (GArray *tokens,
               int     offset,
               int     size)
{
  for (int t = 0; t < size; t++)
    {
      int index = offset + t;

      g_array_append_val (tokens, index);
    }
}

static void
match_function (const Fts5ExtensionApi  *api,
                Fts5Context             *fts,
                sqlite3_context         *context,
                int                      n_values,
                sqlite3_value          **values)
{
  NatterSearchMatches *matches = n_values == 1 ? sqlite3_value_pointer (values[0], NATTER_SEARCH_MATCHES_POINTER)
                                               : NULL;
  NatterSearchMatch match = { 0 };
  RankData *data = NULL;
  int counts[2] = { 0, 0 };
  int length = 0;
  int rc;

  if (matches == NULL)
    {
      sqlite3_result_error (context, "natter_match() needs the matches to fill", -1);
      return;
    }
  rc = rank_data (api, fts, matches, &data);
  if (rc == SQLITE_OK)
    rc = api->xColumnSize (fts, -1, &length);
  /* The message's tokens go on the row's list, the answer's aside, until
   * it is known which column matched more. */
  match.first = matches->tokens->len;
  g_array_set_size (matches->answer, 0);
  for (int i = 0; rc == SQLITE_OK && i < data->n_phrases; i++)
    {
      int size = api->xPhraseSize (fts, i);
      Fts5PhraseIter iter;
      int column;
      int offset;
      double frequency = 0;

      rc = api->xPhraseFirst (fts, i, &iter, &column, &offset);
      for (; rc == SQLITE_OK && column >= 0; api->xPhraseNext (fts, &iter, &column, &offset))
        {
          frequency++;
          if (column < 2)
            {
              counts[column]++;
              append_phrase (column == 0 ? matches->tokens : matches->answer, offset, size);
            }
        }
      match.score += data->idf[i] * (frequency * (K1 + 1.0)) /
                     (frequency + K1 * (1.0 - B + B * length / data->average_length));
    }
  /* The column that matched more often; the message when even. */
  match.column = counts[1] > counts[0] ? 1 : 0;
  if (match.column == 1)
    {
      g_array_set_size (matches->tokens, match.first);
      g_array_append_vals (matches->tokens, matches->answer->data, matches->answer->len);
    }
  if (rc != SQLITE_OK)
    {
      sqlite3_result_error_code (context, rc);
      return;
    }
  match.n_tokens = matches->tokens->len - match.first;
  /* Phrases come one after another: their tokens interleave. */
  if (data->n_phrases > 1)
    qsort (&g_array_index (matches->tokens, int, match.first), match.n_tokens, sizeof (int), compare_ints);
  match.rowid = api->xRowid (fts);
  g_array_append_val (matches->rows, match);
  sqlite3_result_null (context);
}

/**
 * natter_search_rank_register:
 * @api: the FTS5 API of a connection
 *
 * Makes `natter_match(turn_text, ?)` known to FTS5 on its connection: for
 * each matching row it is called on, it adds the row to the
 * #NatterSearchMatches bound to its second argument (sqlite3_bind_pointer(),
 * type %NATTER_SEARCH_MATCHES_POINTER): its rank, bm25()'s (see the top
 * of this file), and the tokens the query matched in the column that
 * matched more often, from which natter_search_excerpt_cut() cuts its
 * excerpt. It returns NULL.
 *
 * Returns: %SQLITE_OK, or the SQLite error that kept it from being made
 */
int
natter_search_rank_register (fts5_api *api)
{
  return api->xCreateFunction (api, "natter_match", NULL, match_function, NULL);
}
