/* natter-found-words.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search index finds a word of the query as the start of a word of a
 * turn, whatever their case and accents (docs/sessions.md §8.4: FTS5's
 * unicode61 tokenizer, diacritics removed). A conversation opened from
 * a search result is scrolled to the first such place in the turn found,
 * and marks it: this finds it in the labels the turn shows, by the same
 * rule, character by character, so that the place found is a range of
 * the label's own text.
 */

#define G_LOG_DOMAIN "natter-found-words"

#include "config.h"

#include <string.h>

#include "natter-found-words.h"

/* @c as the index compares it: decomposed, its marks (accents) dropped,
 * case folded (transfer full). */
static char *
fold_char (gunichar c)
{
  char utf8[8];
  int n = g_unichar_to_utf8 (c, utf8);
  g_autofree char *decomposed = g_utf8_normalize (utf8, n, G_NORMALIZE_NFD);
  g_autoptr(GString) bare = g_string_new (NULL);

  for (const char *p = decomposed; p != NULL && *p != '\0'; p = g_utf8_next_char (p))
    if (!g_unichar_ismark (g_utf8_get_char (p)))
      g_string_append_unichar (bare, g_utf8_get_char (p));
  return g_utf8_casefold (bare->str, -1);
}

static char *
fold (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      g_autofree char *one = fold_char (g_utf8_get_char (p));

      g_string_append (out, one);
    }
  return g_string_free (out, FALSE);
}

/* The words of @query the index matches by (letters and digits between
 * anything else), folded; none for a query of punctuation only. */
static GPtrArray *
query_words (const char *query)
{
  GPtrArray *words = g_ptr_array_new_with_free_func (g_free);
  GString *word = g_string_new (NULL);

  for (const char *p = query;; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c != 0 && g_unichar_isalnum (c))
        {
          g_string_append_unichar (word, c);
          continue;
        }
      if (word->len > 0)
        g_ptr_array_add (words, fold (word->str));
      g_string_truncate (word, 0);
      if (c == 0)
        break;
    }
  g_string_free (word, TRUE);
  return words;
}

/* Whether @words has one that the text at @p begins with; @end is then
 * the offset after its last character, counted from @at. */
static gboolean
word_at (const char *p,
         int         at,
         GPtrArray  *words,
         int        *end)
{
  for (guint i = 0; i < words->len; i++)
    {
      const char *word = g_ptr_array_index (words, i);
      gsize want = strlen (word);
      g_autoptr(GString) seen = g_string_new (NULL);
      const char *q = p;
      int n = 0;

      while (seen->len < want && *q != '\0' && g_unichar_isalnum (g_utf8_get_char (q)))
        {
          g_autofree char *one = fold_char (g_utf8_get_char (q));

          g_string_append (seen, one);
          q = g_utf8_next_char (q);
          n++;
        }
      if (seen->len >= want && strncmp (seen->str, word, want) == 0)
        {
          *end = at + n;
          return TRUE;
        }
    }
  return FALSE;
}

static gboolean
find_words (const char *text,
            GPtrArray  *words,
            int        *start,
            int        *end)
{
  gboolean after_word = FALSE;
  int at = 0;

  if (words->len == 0)
    return FALSE;
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p), at++)
    {
      gboolean alnum = g_unichar_isalnum (g_utf8_get_char (p));

      if (alnum && !after_word && word_at (p, at, words, end))
        {
          *start = at;
          return TRUE;
        }
      after_word = alnum;
    }
  return FALSE;
}

/**
 * natter_found_words_find:
 * @text: text, valid UTF-8
 * @query: what was searched for
 * @start: (out): where the first word found starts, in characters
 * @end: (out): where it ends, in characters
 *
 * Finds the first place in @text where a word of @query begins a word,
 * as the search index matches it (case and accents aside).
 *
 * Returns: whether a word of @query was found
 */
gboolean
natter_found_words_find (const char *text,
                         const char *query,
                         int        *start,
                         int        *end)
{
  g_autoptr(GPtrArray) words = NULL;

  g_return_val_if_fail (text != NULL && query != NULL, FALSE);

  words = query_words (query);
  return find_words (text, words, start, end);
}

static GtkLabel *
find_in (GtkWidget  *widget,
         GPtrArray  *words,
         int        *start,
         int        *end)
{
  if (!gtk_widget_get_visible (widget))
    return NULL;
  if (GTK_IS_LABEL (widget) && find_words (gtk_label_get_text (GTK_LABEL (widget)), words, start, end))
    return GTK_LABEL (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_in (child, words, start, end);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/**
 * natter_found_words_find_label:
 * @root: a widget, such as a turn's row
 * @query: what was searched for
 * @start: (out): where the word found starts in the label's text, in
 *   characters
 * @end: (out): where it ends, in characters
 *
 * Finds the first label shown under @root, in the order they are laid
 * out, whose text has a word of @query (natter_found_words_find()).
 *
 * Returns: (transfer none) (nullable): the label, or %NULL
 */
GtkLabel *
natter_found_words_find_label (GtkWidget  *root,
                               const char *query,
                               int        *start,
                               int        *end)
{
  g_autoptr(GPtrArray) words = NULL;

  g_return_val_if_fail (GTK_IS_WIDGET (root), NULL);
  g_return_val_if_fail (query != NULL, NULL);

  words = query_words (query);
  if (words->len == 0)
    return NULL;
  return find_in (root, words, start, end);
}
