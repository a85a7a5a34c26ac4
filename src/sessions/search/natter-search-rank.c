/* natter-search-rank.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How well a matching turn matches, as an FTS5 auxiliary function,
 * `natter_rank(turn_text)`: SQLite's bm25() (the same formula, k1 = 1.2,
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
 * - the frequency of each phrase in a row is counted on its own position
 *   list (xPhraseFirst()), not from the row's instances merged and sorted
 *   (xInst()), which only the excerpt needs, for the rows shown.
 */

#define G_LOG_DOMAIN "natter-search"

#include "config.h"

#include <math.h>
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
           RankData               **out)
{
  RankData *data = api->xGetAuxdata (fts, 0);
  sqlite3_int64 n_rows = 0;
  sqlite3_int64 n_tokens = 0;
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
      rc = api->xQueryPhrase (fts, i, &count, count_cb);
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

static void
rank_function (const Fts5ExtensionApi  *api,
               Fts5Context             *fts,
               sqlite3_context         *context,
               int                      n_values,
               sqlite3_value          **values)
{
  RankData *data = NULL;
  double score = 0.0;
  int length = 0;
  int rc;

  rc = rank_data (api, fts, &data);
  if (rc == SQLITE_OK)
    rc = api->xColumnSize (fts, -1, &length);
  for (int i = 0; rc == SQLITE_OK && i < data->n_phrases; i++)
    {
      Fts5PhraseIter iter;
      int column;
      int offset;
      double frequency = 0;

      rc = api->xPhraseFirst (fts, i, &iter, &column, &offset);
      for (; rc == SQLITE_OK && column >= 0; api->xPhraseNext (fts, &iter, &column, &offset))
        frequency++;
      score += data->idf[i] * (frequency * (K1 + 1.0)) /
               (frequency + K1 * (1.0 - B + B * length / data->average_length));
    }
  if (rc != SQLITE_OK)
    {
      sqlite3_result_error_code (context, rc);
      return;
    }
  /* Lower is better, as bm25()'s, so that ORDER BY rank puts it first. */
  sqlite3_result_double (context, -score);
}

/**
 * natter_search_rank_register:
 * @api: the FTS5 API of a connection
 *
 * Makes `natter_rank(turn_text)` known to FTS5 on its connection: the
 * rank of a matching row, in bm25()'s order (lower is better); see the
 * top of this file. A query ranks by it with `rank MATCH 'natter_rank()'`.
 *
 * Returns: %SQLITE_OK, or the SQLite error that kept it from being made
 */
int
natter_search_rank_register (fts5_api *api)
{
  return api->xCreateFunction (api, "natter_rank", NULL, rank_function, NULL);
}
