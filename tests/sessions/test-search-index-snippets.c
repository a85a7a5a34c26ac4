/* test-search-index-snippets.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The snippet a hit shows: whole words marked whole around the first
 * match, made from SQLite's highlight(); and the right hit and snippet in
 * a 20 MB message.
 */

#include "test-search-index.h"

/* The first hit's snippet for @query, as plain text and as markup. */
static void
first_snippet (Fixture     *f,
               const char  *query,
               char       **plain,
               char       **markup)
{
  g_autoptr(GPtrArray) hits = natter_search_index_search_sync (f->search, query, 10, NULL, NULL, NULL);

  g_assert_nonnull (hits);
  g_assert_cmpuint (hits->len, >=, 1);
  *plain = natter_search_snippet_to_plain (((NatterSearchHit *) hits->pdata[0])->snippet);
  *markup = natter_search_snippet_to_markup (((NatterSearchHit *) hits->pdata[0])->snippet);
}

/* Every word @snippet shows (but the "…" of words left out) is a whole
 * word of @text. */
static void
assert_whole_words (const char *snippet,
                    const char *text)
{
  g_auto(GStrv) words = g_strsplit (snippet, " ", -1);
  g_auto(GStrv) original = g_strsplit (text, " ", -1);

  for (guint i = 0; words[i] != NULL; i++)
    {
      if (g_str_equal (words[i], "…"))
        continue;
      if (!g_strv_contains ((const char * const *) original, words[i]))
        g_error ("\"%s\" in the snippet \"%s\" is not a whole word of the text", words[i], snippet);
    }
}

void
test_snippets_keep_words_whole (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autoptr(GString) long_text = g_string_new (NULL);
  g_autofree char *plain = NULL;
  g_autofree char *markup = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *t3 = NULL;

  /* Words the index splits in several ("e-mail", "don't", "bob@...")
   * are marked whole, wherever the match is in them; punctuation at a
   * word's ends stays outside the mark; what the user wrote is escaped. */
  t1 = exchange (f, sid, "Please resend the e-mail, I don't have it", "Sent to <bob@example.org> & co.");
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (long_text, "%sfirst-%u half-%u", i > 0 ? " " : "", i, i);
  g_string_append (long_text, " needle-eye pointed-end and thread-count well-known");
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (long_text, " after-%u x-%u", i, i);
  t2 = exchange (f, sid, "A long one", long_text->str);
  t3 = exchange (f, sid, "Short", "The quick brown fox");
  start_search (f);
  wait_indexed (f);

  first_snippet (f, "mail", &plain, &markup);
  g_assert_cmpstr (markup, ==, "Please resend the <b>e-mail</b>, I don&apos;t have it");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&markup, g_free);
  first_snippet (f, "don", &plain, &markup);
  /* At most 24 characters before the match: a narrow list shows it. */
  g_assert_cmpstr (markup, ==, "… resend the e-mail, I <b>don&apos;t</b> have it");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&markup, g_free);
  first_snippet (f, "example", &plain, &markup);
  g_assert_cmpstr (markup, ==, "Sent to &lt;<b>bob@example.org</b>&gt; &amp; co.");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&markup, g_free);

  /* A match deep in a long answer: the snippet is cut between words,
   * says where words were left out, and marks the match whole. */
  for (guint i = 0; i < 3; i++)
    {
      const char *query[] = { "eye", "end", "known" };
      const char *marked[] = { "<b>needle-eye</b>", "<b>pointed-end</b>", "<b>well-known</b>" };

      g_auto(GStrv) shown = NULL;

      first_snippet (f, query[i], &plain, &markup);
      shown = g_strsplit (plain, " ", -1);
      assert_whole_words (plain, long_text->str);
      g_assert_true (g_str_has_prefix (plain, "… "));
      g_assert_true (g_str_has_suffix (plain, " …"));
      g_assert_cmpuint (g_strv_length (shown), ==, 16 + 2);
      g_assert_nonnull (strstr (markup, marked[i]));
      g_clear_pointer (&plain, g_free);
      g_clear_pointer (&markup, g_free);
    }

  /* A short text is shown whole, without "…". */
  first_snippet (f, "quick", &plain, &markup);
  g_assert_cmpstr (markup, ==, "The <b>quick</b> brown fox");
}

void
test_snippet_from_highlight (void)
{
  struct
  {
    const char *highlighted;
    guint       n_words;
    const char *snippet;
  } cases[] = {
    /* SQLite marks a token; the snippet marks the word it is in. */
    { "an e-\002mail\003.", 16, "an \002e-mail\003." },
    { "\002don\003't", 16, "\002don't\003" },
    /* Two marks in a word make one. */
    { "\002a\003-\002b\003 c", 16, "\002a-b\003 c" },
    /* White space between the words kept, none added at the ends. */
    { "one\ntwo  \002three\003", 16, "one\ntwo  \002three\003" },
    /* Cut around the first match, a quarter of the words before it. */
    { "a b c d e f g h \002i\003 j k l m n o p", 4, "… h \002i\003 j k …" },
    { "\002a\003 b c d e", 2, "\002a\003 b …" },
    { "a b c d \002e\003", 2, "… d \002e\003" },
    /* Never more than 24 characters before the match, however few the
     * words: the match shows where a line is cut at its end. */
    { "Unfortunately, internationalisation considerations complicated \002geese\003 again", 16,
      "… complicated \002geese\003 again" },
    { "Extraordinarily \002long\003", 16, "Extraordinarily \002long\003" },
    /* Punctuation alone is a word, marked whole. */
    { "x \002--\003 y", 16, "x \002--\003 y" },
    /* An excerpt of a longer text says so at the ends it was cut. */
    { "\004a b \002c\003 d\004", 16, "… a b \002c\003 d …" },
    { "a \002b\003 c\004", 16, "a \002b\003 c …" },
    { "", 16, "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *snippet = natter_search_snippet_from_highlight (cases[i].highlighted, cases[i].n_words);

      g_assert_cmpstr (snippet, ==, cases[i].snippet);
    }
}

/* One 20 MB message, a common word in it 800,000 times and a rare one
 * near its end: the right hit, with the words around the first match,
 * for both. SQLite's highlight() took minutes on it (its cost grew with
 * the square of the matches); the test is bounded only by the suite's
 * timeout. */
void
test_huge_message (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *other = natter_test_sessions_create (&f->t);
  g_autoptr(GString) huge = g_string_new ("Once upon a time ");
  g_autofree char *plain = NULL;
  g_autofree char *markup = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *hit = NULL;

  while (huge->len < 20000000)
    g_string_append (huge, "the cat sat on the mat. ");
  g_string_insert (huge, huge->len - 1000, "a pelicanneedle here ");
  t1 = exchange (f, sid, huge->str, "Noted.");
  t2 = exchange (f, other, "Nothing about cats", "Nor here.");
  hit = hit_line (sid, t1);
  start_search (f);
  wait_indexed (f);

  assert_search (f, "pelicanneedle", hit);
  first_snippet (f, "pelicanneedle", &plain, &markup);
  g_assert_cmpstr (plain, ==, "… mat. the cat a pelicanneedle here sat on the mat. the cat sat on the mat. …");
  g_assert_nonnull (strstr (markup, "a <b>pelicanneedle</b> here"));
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&markup, g_free);

  first_snippet (f, "cat", &plain, &markup);
  g_assert_cmpstr (markup, ==, "… upon a time the <b>cat</b> sat on the mat. the <b>cat</b> sat on the mat. the …");
  g_clear_pointer (&plain, g_free);
  plain = search (f, "cat");
  g_assert_true (g_str_has_prefix (plain, hit));
}

/* The window shows a snippet's control characters as visible stand-ins,
 * as it does in an answer (README.md "Command line"): ESC, BEL and the
 * rest are never markup's tofu boxes; the plain text, which the command
 * line makes visible itself, keeps them. */
void
test_snippet_markup_controls_visible (void)
{
  const char *snippet = "ctrl \x01 esc \x1b[31m" NATTER_SEARCH_MARK_START "red" NATTER_SEARCH_MARK_END
                        "\x1b[0m & <i>\x7f\xc2\x9b";
  g_autofree char *markup = natter_search_snippet_to_markup (snippet);
  g_autofree char *plain = natter_search_snippet_to_plain (snippet);

  g_assert_cmpstr (markup, ==,
                   "ctrl \xe2\x90\x81 esc \xe2\x90\x9b[31m<b>red</b>\xe2\x90\x9b[0m &amp; &lt;i&gt;\xe2\x90\xa1\\u009B");
  g_assert_cmpstr (plain, ==, "ctrl \x01 esc \x1b[31mred\x1b[0m & <i>\x7f\xc2\x9b");
}
