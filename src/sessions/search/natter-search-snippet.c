/* natter-search-snippet.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The words shown around a search match. SQLite's own snippet() cuts at
 * its tokens, and its tokenizer splits "e-mail", "don't" or "file_name"
 * into several: a snippet could start inside a word and mark half of it.
 * Here a word is what a reader sees as one, a run of characters between
 * white space (with the punctuation at its ends, like a closing full
 * stop, outside the mark), and the snippet is cut and marked in those
 * words only. A front end shows a snippet as plain text or as markup.
 */

#define G_LOG_DOMAIN "natter-search"

#include "config.h"

#include <string.h>

#include "natter-plain-text.h"
#include "natter-search-snippet.h"

/* The most characters a snippet shows before its match. */
#define LEAD_CHARS 24

typedef struct
{
  const char *start;   /* into the plain text */
  const char *end;
  const char *core_start;   /* without punctuation at the ends */
  const char *core_end;
  gboolean    marked;
} Word;

/* Splits @highlighted into its text without marks (@plain) and a flag per
 * byte of it saying whether SQLite marked that byte. A run at a time: a
 * search makes hundreds of snippets, each of an excerpt of kilobytes. */
static char *
strip_marks (const char  *highlighted,
             GByteArray **marked)
{
  static const char marks[] = NATTER_SEARCH_MARK_START NATTER_SEARCH_MARK_END;
  gsize length = strlen (highlighted);
  char *plain = g_malloc (length + 1);
  gsize n = 0;
  guint8 inside = 0;

  *marked = g_byte_array_sized_new (length + 1);
  g_byte_array_set_size (*marked, length);
  for (const char *p = highlighted; *p != '\0';)
    {
      gsize run = strcspn (p, marks);

      memcpy (plain + n, p, run);
      memset ((*marked)->data + n, inside, run);
      n += run;
      p += run;
      if (*p != '\0')
        inside = *p++ == NATTER_SEARCH_MARK_START[0];
    }
  plain[n] = '\0';
  g_byte_array_set_size (*marked, n);
  return plain;
}

/* g_unichar_isspace() and g_unichar_isalnum(), without decoding the
 * ASCII that most text is. */
static inline gboolean
is_space (const char *p)
{
  guchar c = (guchar) *p;

  if (c < 0x80)
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
  return g_unichar_isspace (g_utf8_get_char (p));
}

static gboolean
is_word_char (const char *p)
{
  guchar c = (guchar) *p;

  if (c < 0x80)
    return g_ascii_isalnum (c);
  return g_unichar_isalnum (g_utf8_get_char (p));
}

/* The words of @plain, each with whether any of its bytes is marked, up
 * to @n_after words past the first marked one: what a snippet of
 * @n_after words can show, and one more to tell whether there is more.
 * All of them when none is marked. */
static GArray *
split_words (const char *plain,
             GByteArray *marked,
             guint       n_after)
{
  GArray *words = g_array_new (FALSE, TRUE, sizeof (Word));
  const char *p = plain;
  guint first_marked = G_MAXUINT;

  while (*p != '\0')
    {
      Word word = { 0 };

      if (first_marked != G_MAXUINT && words->len > first_marked + n_after)
        break;
      while (*p != '\0' && is_space (p))
        p = g_utf8_next_char (p);
      if (*p == '\0')
        break;
      word.start = p;
      while (*p != '\0' && !is_space (p))
        p = g_utf8_next_char (p);
      word.end = p;
      for (const char *q = word.start; q < word.end; q++)
        if (marked->data[q - plain])
          word.marked = TRUE;
      word.core_start = word.start;
      while (word.core_start < word.end && !is_word_char (word.core_start))
        word.core_start = g_utf8_next_char (word.core_start);
      word.core_end = word.end;
      while (word.core_end > word.core_start && !is_word_char (g_utf8_prev_char (word.core_end)))
        word.core_end = g_utf8_prev_char (word.core_end);
      /* All punctuation ("--", "…"): marked whole, if at all. */
      if (word.core_start == word.core_end)
        {
          word.core_start = word.start;
          word.core_end = word.end;
        }
      if (word.marked && first_marked == G_MAXUINT)
        first_marked = words->len;
      g_array_append_val (words, word);
    }
  return words;
}

/**
 * natter_search_snippet_from_highlight:
 * @highlighted: a text with its matches between
 *   %NATTER_SEARCH_MARK_START and %NATTER_SEARCH_MARK_END, and
 *   %NATTER_SEARCH_MARK_MORE first or last where it is an excerpt of a
 *   longer one (natter_search_excerpt_cut())
 * @n_words: how many words the snippet shows at most (at least 1)
 *
 * Cuts a snippet of @n_words whole words out of @highlighted around its
 * first match (a quarter of them before it, at most 24 characters of
 * them, so that the match shows where a line is cut at its end), with
 * "…" where words were left out (also beyond an excerpt's ends), and
 * marks every word
 * a match is in, from its first to its last letter or digit, however the
 * index split it. Words are separated by white space, which is kept as
 * it was between the words shown.
 *
 * Returns: (transfer full): the snippet, in the #NatterSearchHit form
 */
char *
natter_search_snippet_from_highlight (const char *highlighted,
                                      guint       n_words)
{
  g_autoptr(GByteArray) marked = NULL;
  g_autofree char *plain = NULL;
  g_autoptr(GArray) words = NULL;
  g_autofree char *inner = NULL;
  GString *out = g_string_new (NULL);
  gboolean more_before = FALSE;
  gboolean more_after = FALSE;
  gsize length;
  guint first = 0;
  guint start;
  guint end;

  g_return_val_if_fail (highlighted != NULL, NULL);
  g_return_val_if_fail (n_words > 0, NULL);

  length = strlen (highlighted);
  more_before = g_str_has_prefix (highlighted, NATTER_SEARCH_MARK_MORE);
  more_after = length > (gsize) more_before && g_str_has_suffix (highlighted, NATTER_SEARCH_MARK_MORE);
  inner = g_strndup (highlighted + more_before, length - more_before - more_after);
  plain = strip_marks (inner, &marked);
  words = split_words (plain, marked, n_words);
  if (words->len == 0)
    return g_string_free (out, FALSE);
  while (first < words->len && !g_array_index (words, Word, first).marked)
    first++;
  if (first == words->len)
    first = 0;
  /* A little of what came before the match, the rest after it: a few
   * words, and no more than LEAD_CHARS characters of them, so that the
   * match is near the start of a line that a narrow list cuts at its
   * end. */
  start = first > n_words / 4 ? first - n_words / 4 : 0;
  while (start < first &&
         g_utf8_strlen (g_array_index (words, Word, start).start,
                        g_array_index (words, Word, first).start - g_array_index (words, Word, start).start) > LEAD_CHARS)
    start++;
  end = MIN (start + n_words, words->len);
  /* Near the end of the text: more words before, within the same bound. */
  while (start > 0 && end - start < n_words &&
         g_utf8_strlen (g_array_index (words, Word, start - 1).start,
                        g_array_index (words, Word, first).start - g_array_index (words, Word, start - 1).start) <= LEAD_CHARS)
    start--;

  if (start > 0 || more_before)
    g_string_append (out, "… ");
  for (guint i = start; i < end; i++)
    {
      Word *word = &g_array_index (words, Word, i);

      if (i > start)
        g_string_append_len (out, g_array_index (words, Word, i - 1).end,
                             word->start - g_array_index (words, Word, i - 1).end);
      if (!word->marked)
        {
          g_string_append_len (out, word->start, word->end - word->start);
          continue;
        }
      g_string_append_len (out, word->start, word->core_start - word->start);
      g_string_append (out, NATTER_SEARCH_MARK_START);
      g_string_append_len (out, word->core_start, word->core_end - word->core_start);
      g_string_append (out, NATTER_SEARCH_MARK_END);
      g_string_append_len (out, word->core_end, word->end - word->core_end);
    }
  if (end < words->len || more_after)
    g_string_append (out, " …");
  return g_string_free (out, FALSE);
}

/* Shown */

/* Appends the @length bytes of @text as markup: its control characters
 * as their visible stand-ins (the window shows them as the command line
 * does, README.md "Command line"), then escaped. */
static void
append_escaped (GString    *out,
                const char *text,
                gssize      length)
{
  g_autofree char *piece = g_strndup (text, length);
  g_autofree char *visible = natter_visible_text (piece, NATTER_VISIBLE_KEEP_NONE);
  g_autofree char *escaped = g_markup_escape_text (visible, -1);

  g_string_append (out, escaped);
}

/* Appends @text with every run of white space (a snippet may span lines
 * and tabs) as one space. */
static void
append_collapsed (GString    *out,
                  const char *text,
                  gssize      length,
                  gboolean    escape)
{
  const char *end = text + length;
  const char *run_start = text;

  for (const char *p = text; p < end; p++)
    {
      if (g_ascii_isspace (*p))
        {
          if (escape)
            append_escaped (out, run_start, p - run_start);
          else
            g_string_append_len (out, run_start, p - run_start);
          if (out->len > 0 && out->str[out->len - 1] != ' ')
            g_string_append_c (out, ' ');
          run_start = p + 1;
        }
    }
  if (escape)
    append_escaped (out, run_start, end - run_start);
  else
    g_string_append_len (out, run_start, end - run_start);
}

static char *
convert_snippet (const char *snippet,
                 gboolean    markup)
{
  GString *out = g_string_new (NULL);
  const char *p = snippet;

  while (*p != '\0')
    {
      gsize n = strcspn (p, NATTER_SEARCH_MARK_START NATTER_SEARCH_MARK_END);

      append_collapsed (out, p, n, markup);
      p += n;
      if (*p == '\0')
        break;
      if (markup)
        g_string_append (out, *p == NATTER_SEARCH_MARK_START[0] ? "<b>" : "</b>");
      p++;
    }
  return g_strstrip (g_string_free (out, FALSE));
}

/**
 * natter_search_snippet_to_plain:
 * @snippet: a #NatterSearchHit snippet
 *
 * The snippet as one line of plain text: marks removed, each run of white
 * space (new lines, tabs) one space.
 *
 * Returns: (transfer full): the text
 */
char *
natter_search_snippet_to_plain (const char *snippet)
{
  g_return_val_if_fail (snippet != NULL, NULL);

  return convert_snippet (snippet, FALSE);
}

/**
 * natter_search_snippet_to_markup:
 * @snippet: a #NatterSearchHit snippet
 *
 * The snippet as one line of Pango markup: the text escaped with
 * g_markup_escape_text(), each match in `<b>`, white space collapsed,
 * every other control character shown as its visible stand-in
 * (natter_visible_text()).
 *
 * Returns: (transfer full): the markup
 */
char *
natter_search_snippet_to_markup (const char *snippet)
{
  g_return_val_if_fail (snippet != NULL, NULL);

  return convert_snippet (snippet, TRUE);
}
