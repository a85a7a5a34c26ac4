/* natter-search-excerpt.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The part of a matching turn a snippet is cut from, as an FTS5
 * auxiliary function, `natter_excerpt(turn_text)`. SQLite's highlight()
 * returned the whole column marked, and built it by appending each piece
 * to a copy of all that came before: a 20 MB message with a common word
 * in it took minutes and a gigabyte. Here the matches come from FTS5
 * itself (the phrase instances of the row), the text is tokenized once
 * and only as far as the first match and a little after it, and only a
 * window around that match is returned, marked: time linear in the text
 * before the match, memory and output bounded.
 */

#define G_LOG_DOMAIN "natter-search"

#include "config.h"

#include <string.h>

#include "natter-search-db.h"
#include "natter-search-excerpt-private.h"

/* The window around the first match, in bytes of text: enough for the
 * few words a snippet shows before it and many after, however long the
 * words. */
#define BEFORE_BYTES 1024
#define AFTER_BYTES  4096
/* How far a window edge moves to reach white space rather than cut a
 * word. */
#define EDGE_BYTES   256

typedef struct
{
  gint64 start;   /* byte offsets into the column */
  gint64 end;
} Span;

typedef struct
{
  GArray    *matched;   /* int token index, sorted, one per matched token */
  guint      next;      /* the next one to find */
  int        token;     /* index of the token being looked at */
  int        text_length;
  gint64     window_end;  /* -1 until the first match is found */
  GArray    *spans;     /* Span of each matched token in the window */
} Walk;

static int
token_cb (void       *data,
          int         flags,
          const char *token,
          int         token_length,
          int         start,
          int         end)
{
  Walk *walk = data;
  int index;

  /* A token at the same place as the one before (a synonym) has no
   * index of its own; unicode61 makes none. */
  if ((flags & FTS5_TOKEN_COLOCATED) != 0)
    return SQLITE_OK;
  index = walk->token++;
  if (walk->window_end >= 0 && start > walk->window_end)
    return SQLITE_DONE;
  while (walk->next < walk->matched->len && g_array_index (walk->matched, int, walk->next) < index)
    walk->next++;
  if (walk->next < walk->matched->len && g_array_index (walk->matched, int, walk->next) == index)
    {
      Span span = { start, end };

      if (walk->window_end < 0)
        walk->window_end = MIN ((gint64) end + AFTER_BYTES + EDGE_BYTES, walk->text_length);
      g_array_append_val (walk->spans, span);
    }
  return SQLITE_OK;
}

static int
compare_ints (gconstpointer a,
              gconstpointer b)
{
  int x = *(const int *) a;
  int y = *(const int *) b;

  return x < y ? -1 : x > y;
}

/* @from moved to just after white space within EDGE_BYTES, backwards
 * (@forwards FALSE: for the start of the window) or forwards, else to a
 * character boundary. */
static gint64
edge (const char *text,
      gint64      length,
      gint64      from,
      gboolean    forwards)
{
  gint64 limit = forwards ? MIN (from + EDGE_BYTES, length) : MAX (from - EDGE_BYTES, 0);

  if (from <= 0 || from >= length)
    return CLAMP (from, 0, length);
  for (gint64 i = from; forwards ? i < limit : i > limit; i += forwards ? 1 : -1)
    if (g_ascii_isspace (text[i - 1]))
      return i;
  while (from > 0 && ((guchar) text[from] & 0xC0) == 0x80)
    from--;
  return from;
}

static void
excerpt_function (const Fts5ExtensionApi  *api,
                  Fts5Context             *fts,
                  sqlite3_context         *context,
                  int                      n_values,
                  sqlite3_value          **values)
{
  g_autoptr(GArray) matched = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GString) out = g_string_new (NULL);
  Walk walk = { 0 };
  int counts[2] = { 0, 0 };
  int n_instances = 0;
  const char *text = NULL;
  int length = 0;
  int column;
  gint64 start;
  gint64 end;
  gint64 at;
  gsize n;
  int rc;

  rc = api->xInstCount (fts, &n_instances);
  for (int i = 0; rc == SQLITE_OK && i < n_instances; i++)
    {
      int phrase, col, offset;

      rc = api->xInst (fts, i, &phrase, &col, &offset);
      if (rc == SQLITE_OK && col >= 0 && col < 2)
        counts[col]++;
    }
  /* The column that matched more often; the message when even. */
  column = counts[1] > counts[0] ? 1 : 0;
  for (int i = 0; rc == SQLITE_OK && i < n_instances; i++)
    {
      int phrase, col, offset;

      rc = api->xInst (fts, i, &phrase, &col, &offset);
      if (rc != SQLITE_OK || col != column)
        continue;
      for (int t = 0; t < api->xPhraseSize (fts, phrase); t++)
        {
          int index = offset + t;

          g_array_append_val (matched, index);
        }
    }
  if (rc == SQLITE_OK)
    rc = api->xColumnText (fts, column, &text, &length);
  if (rc != SQLITE_OK)
    {
      sqlite3_result_error_code (context, rc);
      return;
    }
  if (text == NULL)
    text = "";
  g_array_sort (matched, compare_ints);

  walk.matched = matched;
  walk.text_length = length;
  walk.window_end = -1;
  walk.spans = spans;
  rc = api->xTokenize (fts, text, length, &walk, token_cb);
  if (rc != SQLITE_OK && rc != SQLITE_DONE)
    {
      sqlite3_result_error_code (context, rc);
      return;
    }

  at = spans->len > 0 ? g_array_index (spans, Span, 0).start : 0;
  start = edge (text, length, at - BEFORE_BYTES, FALSE);
  end = edge (text, length, (spans->len > 0 ? g_array_index (spans, Span, 0).end : 0) + AFTER_BYTES, TRUE);
  if (start > 0)
    g_string_append (out, NATTER_SEARCH_MARK_MORE);
  at = start;
  for (guint i = 0; i < spans->len; i++)
    {
      Span *span = &g_array_index (spans, Span, i);

      if (span->start < at || span->end > end)
        continue;
      g_string_append_len (out, text + at, span->start - at);
      g_string_append (out, NATTER_SEARCH_MARK_START);
      g_string_append_len (out, text + span->start, span->end - span->start);
      g_string_append (out, NATTER_SEARCH_MARK_END);
      at = span->end;
    }
  g_string_append_len (out, text + at, end - at);
  if (end < length)
    g_string_append (out, NATTER_SEARCH_MARK_MORE);
  n = out->len;
  sqlite3_result_text64 (context, g_string_free (g_steal_pointer (&out), FALSE), n, g_free, SQLITE_UTF8);
}

/**
 * natter_search_excerpt_register:
 * @api: the FTS5 API of a connection
 *
 * Makes `natter_excerpt(turn_text)` known to FTS5 on its connection: for
 * a row that matched, the text of its column that matched more often (the
 * message when even), cut to a window around its first match (a
 * kilobyte before it, four after, at white space where there is some
 * near), every matched token between %NATTER_SEARCH_MARK_START and
 * %NATTER_SEARCH_MARK_END, and %NATTER_SEARCH_MARK_MORE at an end where
 * the text goes on. What natter_search_snippet_from_highlight() reads.
 *
 * Returns: %SQLITE_OK, or the SQLite error that kept it from being made
 */
int
natter_search_excerpt_register (fts5_api *api)
{
  return api->xCreateFunction (api, "natter_excerpt", NULL, excerpt_function, NULL);
}
