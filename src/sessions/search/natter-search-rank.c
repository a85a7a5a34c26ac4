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
 *   (xInst()); the same lists give the tokens an excerpt marks;
 * - a typed word the caller searched as the few terms it begins
 *   (NatterSearchMatches.words, natter-search-db.c), one phrase each, is
 *   ranked as the prefix phrase bm25() sees: its frequency in a row is
 *   the sum of its terms', and its rows are those that hold any of them,
 *   each counted once.
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
  int     n_words;
  double  average_length;  /* tokens per row, both columns */
  int    *words;           /* per phrase: the word it stands for */
  double *idf;             /* per word; all 1.0 for one word */
  double *frequency;       /* per word: scratch for one row */
} RankData;

typedef struct
{
  sqlite3_int64  n_hits;
  sqlite3_int64  n_rows;
  /* The rows seen, when a word is several phrases: a bit per rowid
   * below n_bits, those beyond (few: rowids follow the turns indexed) in
   * a set. */
  guint8        *bits;
  sqlite3_int64  n_bits;
  GHashTable    *beyond;
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

/* Whether @rowid is seen for the first time. */
static gboolean
first_seen (Count         *count,
            sqlite3_int64  rowid)
{
  /* Rowids are those of the turns table: a bitmap a few times the
   * table's size holds them all but after many deletions. */
  sqlite3_int64 limit = 8 * (count->n_rows + 65536);
  gboolean first;

  if (rowid < 0 || rowid >= limit)
    {
      sqlite3_int64 *key = g_memdup2 (&rowid, sizeof rowid);

      if (count->beyond == NULL)
        count->beyond = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      return g_hash_table_add (count->beyond, key);
    }
  if (rowid >= count->n_bits)
    {
      sqlite3_int64 n_bits = MIN (MAX (2 * count->n_bits, (rowid + 1024) & ~(sqlite3_int64) 7), limit);

      count->bits = g_realloc (count->bits, (gsize) n_bits / 8 + 1);
      memset (count->bits + count->n_bits / 8, 0, (gsize) (n_bits - count->n_bits) / 8 + 1);
      count->n_bits = n_bits;
    }
  first = (count->bits[rowid / 8] & (1u << (rowid % 8))) == 0;
  count->bits[rowid / 8] |= 1u << (rowid % 8);
  return first;
}

/* count_cb() for a word that is several phrases (terms): a row that
 * holds two of them counts once, as for the prefix they stand for. */
static int
count_distinct_cb (const Fts5ExtensionApi *api,
                   Fts5Context            *fts,
                   void                   *data)
{
  Count *count = data;

  if (first_seen (count, api->xRowid (fts)))
    count->n_hits++;
  return 2 * count->n_hits >= count->n_rows ? SQLITE_DONE : SQLITE_OK;
}

/* The rows of the whole table that hold word @word of @data, up to half
 * the table: those of its phrase, or of any of its phrases. */
static int
count_word (const Fts5ExtensionApi *api,
            Fts5Context            *fts,
            RankData               *data,
            int                     word,
            Count                  *count)
{
  int n_of_word = 0;
  int last = -1;
  int rc = SQLITE_OK;

  for (int i = 0; i < data->n_phrases; i++)
    if (data->words[i] == word)
      {
        n_of_word++;
        last = i;
      }
  if (n_of_word == 1)
    return api->xQueryPhrase (fts, last, count, count_cb);
  for (int i = 0; rc == SQLITE_OK && i < data->n_phrases && 2 * count->n_hits < count->n_rows; i++)
    if (data->words[i] == word)
      rc = api->xQueryPhrase (fts, i, count, count_distinct_cb);
  g_free (count->bits);
  g_clear_pointer (&count->beyond, g_hash_table_unref);
  return rc;
}

/* @data's words: @matches' when they fit the query, else one per phrase. */
static int
set_words (RankData            *data,
           NatterSearchMatches *matches)
{
  gboolean grouped = matches->words != NULL && matches->n_phrases == (guint) data->n_phrases;

  data->n_words = 0;
  for (int i = 0; i < data->n_phrases; i++)
    {
      data->words[i] = grouped ? (int) matches->words[i] : i;
      /* Words are numbered in the order of their phrases. */
      if (data->words[i] != data->n_words - 1 && data->words[i] != data->n_words)
        return SQLITE_ERROR;
      data->n_words = data->words[i] + 1;
    }
  return SQLITE_OK;
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
  gsize n;
  gboolean known;
  int rc;

  if (data != NULL)
    {
      *out = data;
      return SQLITE_OK;
    }
  n = (gsize) MAX (api->xPhraseCount (fts), 1);
  data = sqlite3_malloc64 (sizeof (RankData) + (2 * sizeof (double) + sizeof (int)) * n);
  if (data == NULL)
    return SQLITE_NOMEM;
  data->n_phrases = api->xPhraseCount (fts);
  data->idf = (double *) (data + 1);
  data->frequency = data->idf + n;
  data->words = (int *) (data->frequency + n);
  rc = set_words (data, matches);
  if (rc == SQLITE_OK)
    rc = api->xRowCount (fts, &n_rows);
  if (rc == SQLITE_OK)
    rc = api->xColumnTotalSize (fts, -1, &n_tokens);
  data->average_length = n_rows > 0 ? (double) n_tokens / (double) n_rows : 1.0;
  known = matches->counts != NULL && matches->n_counts == (guint) data->n_words;
  for (int w = 0; rc == SQLITE_OK && w < data->n_words; w++)
    {
      Count count = { 0, n_rows, NULL, 0, NULL };
      double idf;

      if (data->n_words == 1)
        {
          data->idf[w] = 1.0;
          break;
        }
      /* As bm25(): the rows that hold the word, in the whole table; an
       * IDF of nothing or less weighs almost nothing, never negatively. */
      if (known && matches->counts[w] >= 0)
        count.n_hits = matches->counts[w];
      else
        rc = count_word (api, fts, data, w, &count);
      if (known && rc == SQLITE_OK)
        matches->counts[w] = count.n_hits;
      idf = log ((n_rows - count.n_hits + 0.5) / (count.n_hits + 0.5));
      data->idf[w] = idf <= 0.0 ? 1e-6 : idf;
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
  for (int w = 0; data != NULL && w < data->n_words; w++)
    data->frequency[w] = 0;
  for (int i = 0; rc == SQLITE_OK && i < data->n_phrases; i++)
    {
      int size = api->xPhraseSize (fts, i);
      Fts5PhraseIter iter;
      int column;
      int offset;

      rc = api->xPhraseFirst (fts, i, &iter, &column, &offset);
      for (; rc == SQLITE_OK && column >= 0; api->xPhraseNext (fts, &iter, &column, &offset))
        {
          data->frequency[data->words[i]]++;
          if (column < 2)
            {
              counts[column]++;
              append_phrase (column == 0 ? matches->tokens : matches->answer, offset, size);
            }
        }
    }
  /* A word's frequency is that of all its phrases: the instances of the
   * prefix they stand for. */
  for (int w = 0; rc == SQLITE_OK && w < data->n_words; w++)
    match.score += data->idf[w] * (data->frequency[w] * (K1 + 1.0)) /
                   (data->frequency[w] + K1 * (1.0 - B + B * length / data->average_length));
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
