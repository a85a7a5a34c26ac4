/* natter-search-excerpt.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The part of a matching turn a snippet is cut from. SQLite's
 * highlight() returned the whole column marked, and built it by appending
 * each piece to a copy of all that came before: a 20 MB message with a
 * common word in it took minutes and a gigabyte. Here the matches come
 * from FTS5 itself (the token indexes natter_match() found,
 * natter-search-rank.c), the text is tokenized once, with the table's own
 * tokenizer, and only as far as the first match and a little after it,
 * and only a window around that match is returned, marked: time linear in
 * the text before the match, memory and output bounded. It is cut only
 * for the hits shown, after the query has ranked its matches.
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

struct _NatterSearchTokenizer
{
  fts5_tokenizer  methods;
  Fts5Tokenizer  *tokenizer;
};

typedef struct
{
  const int *matched;   /* token indexes, sorted, one per matched token */
  guint      n_matched;
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
  while (walk->next < walk->n_matched && walk->matched[walk->next] < index)
    walk->next++;
  if (walk->next < walk->n_matched && walk->matched[walk->next] == index)
    {
      Span span = { start, end };

      if (walk->window_end < 0)
        walk->window_end = MIN ((gint64) end + AFTER_BYTES + EDGE_BYTES, walk->text_length);
      g_array_append_val (walk->spans, span);
    }
  return SQLITE_OK;
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

/**
 * natter_search_tokenizer_new:
 * @api: the FTS5 API of a connection
 * @name: a tokenizer FTS5 knows, e.g. "unicode61"
 * @args: (array length=n_args): its arguments, as in a table's
 *   `tokenize=` option after the name
 * @n_args: how many
 * @rc: (out): %SQLITE_OK, or the SQLite error that kept it from being made
 *
 * A tokenizer that splits a text as a table declared with it does, so
 * that token indexes FTS5 reports for that table find their words.
 *
 * Returns: (transfer full) (nullable): the tokenizer, for
 *   natter_search_tokenizer_free(); %NULL with @rc set
 */
NatterSearchTokenizer *
natter_search_tokenizer_new (fts5_api    *api,
                             const char  *name,
                             const char **args,
                             int          n_args,
                             int         *rc)
{
  g_autofree NatterSearchTokenizer *tokenizer = g_new0 (NatterSearchTokenizer, 1);
  void *user_data = NULL;

  *rc = api->xFindTokenizer (api, name, &user_data, &tokenizer->methods);
  if (*rc == SQLITE_OK)
    *rc = tokenizer->methods.xCreate (user_data, (const char **) args, n_args, &tokenizer->tokenizer);
  return *rc == SQLITE_OK ? g_steal_pointer (&tokenizer) : NULL;
}

/**
 * natter_search_tokenizer_free:
 * @tokenizer: (transfer full) (nullable): a tokenizer
 */
void
natter_search_tokenizer_free (NatterSearchTokenizer *tokenizer)
{
  if (tokenizer == NULL)
    return;
  tokenizer->methods.xDelete (tokenizer->tokenizer);
  g_free (tokenizer);
}

static int
only_token_cb (void       *data,
               int         flags,
               const char *token,
               int         token_length,
               int         start,
               int         end)
{
  GString **only = data;

  if ((flags & FTS5_TOKEN_COLOCATED) != 0)
    return SQLITE_OK;
  if (*only != NULL)
    {
      g_string_free (g_steal_pointer (only), TRUE);
      return SQLITE_DONE;
    }
  *only = g_string_new_len (token, token_length);
  return SQLITE_OK;
}

/**
 * natter_search_tokenizer_only_token:
 * @tokenizer: a table's tokenizer
 * @text: a word of a query, UTF-8, NUL-terminated
 * @rc: (out): %SQLITE_OK, or the tokenizer's error
 *
 * The one token @text is as a term of a query on the table, as the
 * table's index holds it (case and accents folded), when it is exactly
 * one: a word with a hyphen or an apostrophe in it is a phrase of two.
 *
 * Returns: (transfer full) (nullable): the token; %NULL when @text is
 *   not one token (no error) or with @rc set
 */
char *
natter_search_tokenizer_only_token (NatterSearchTokenizer *tokenizer,
                                    const char            *text,
                                    int                   *rc)
{
  GString *only = NULL;

  *rc = tokenizer->methods.xTokenize (tokenizer->tokenizer, &only, FTS5_TOKENIZE_QUERY | FTS5_TOKENIZE_PREFIX,
                                      text, (int) strlen (text), only_token_cb);
  if (*rc == SQLITE_DONE)
    *rc = SQLITE_OK;
  if (*rc != SQLITE_OK && only != NULL)
    g_string_free (g_steal_pointer (&only), TRUE);
  return only != NULL ? g_string_free (only, FALSE) : NULL;
}

/**
 * natter_search_excerpt_cut:
 * @tokenizer: the tokenizer of the table @matched was found in
 * @text: (array length=length): the text of a matching column, UTF-8
 * @length: its length in bytes
 * @matched: (array length=n_matched): the indexes of the tokens the query
 *   matched in it, sorted
 * @n_matched: how many
 * @rc: (out): %SQLITE_OK, or the tokenizer's error
 *
 * Cuts a window around the first matched token of @text (a kilobyte
 * before it, four after, at white space where there is some near),
 * every matched token in it between %NATTER_SEARCH_MARK_START and
 * %NATTER_SEARCH_MARK_END, and %NATTER_SEARCH_MARK_MORE at an end where
 * the text goes on: what natter_search_snippet_from_highlight() reads.
 * Without a match, the start of the text.
 *
 * Returns: (transfer full) (nullable): the excerpt; %NULL with @rc set
 */
char *
natter_search_excerpt_cut (NatterSearchTokenizer *tokenizer,
                           const char            *text,
                           int                    length,
                           const int             *matched,
                           guint                  n_matched,
                           int                   *rc)
{
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GString) out = g_string_new (NULL);
  Walk walk = { 0 };
  gint64 start;
  gint64 end;
  gint64 at;

  if (text == NULL)
    text = "";
  walk.matched = matched;
  walk.n_matched = n_matched;
  walk.text_length = length;
  walk.window_end = -1;
  walk.spans = spans;
  *rc = n_matched == 0 ? SQLITE_OK
                       : tokenizer->methods.xTokenize (tokenizer->tokenizer, &walk, FTS5_TOKENIZE_DOCUMENT,
                                                       text, length, token_cb);
  if (*rc == SQLITE_DONE)
    *rc = SQLITE_OK;
  if (*rc != SQLITE_OK)
    return NULL;

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
  return g_string_free (g_steal_pointer (&out), FALSE);
}
