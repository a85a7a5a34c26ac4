/* test-math-scan.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Finding the TeX formulas of an answer's Markdown (docs/math.md §2):
 * the four delimiters, and what is not math — code spans and blocks,
 * escaped dollars, prices, a formula left open, one across a blank line.
 * Each case shows the text with each formula written as {i:TeX} (inline)
 * or {d:TeX} (display) where its placeholder was.
 */

#include <string.h>

#include "natter-math-scan.h"

static char *
protect_readable (const char *text)
{
  g_autoptr(GPtrArray) formulas = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_math_formula_free);
  g_autofree char *protected = natter_math_protect (text, strlen (text), formulas);
  GString *out = g_string_new (NULL);
  const char *p = protected, *at, *after;
  guint index, seen = 0;
  gboolean display;

  while ((at = natter_math_next_placeholder (p, &index, &display, &after)) != NULL)
    {
      NatterMathFormula *formula;

      g_assert_cmpuint (index, ==, seen++);
      g_assert_cmpuint (index, <, formulas->len);
      formula = g_ptr_array_index (formulas, index);
      g_assert_cmpint (formula->display, ==, display);
      g_assert_nonnull (strstr (formula->source, formula->tex));
      g_string_append_len (out, p, at - p);
      g_string_append_printf (out, "{%c:%s}", display ? 'd' : 'i', formula->tex);
      p = after;
    }
  g_assert_cmpuint (seen, ==, formulas->len);
  g_string_append (out, p);
  return g_string_free (out, FALSE);
}

static void
check (const char *text,
       const char *expected)
{
  g_autofree char *got = protect_readable (text);

  g_assert_cmpstr (got, ==, expected);
}

static void
test_delimiters (void)
{
  check ("a $x^2$ b", "a {i:x^2} b");
  check ("a \\(\\frac{1}{2}\\) b", "a {i:\\frac{1}{2}} b");
  check ("$$\\sum_{i=1}^n i$$", "{d:\\sum_{i=1}^n i}");
  check ("see\n\\[\na_1 = b\n\\]\nhere", "see\n{d:\na_1 = b\n}\nhere");
  check ("$a$ and $b$", "{i:a} and {i:b}");
}

static void
test_not_math (void)
{
  /* Prices: the second dollar follows a space, so nothing closes. */
  check ("costs $5 and $10 now", "costs $5 and $10 now");
  check ("$5 and $10, or `$x$`", "$5 and $10, or `$x$`");
  /* A closer followed by a digit is no closer. */
  check ("from $3 to 4$5", "from $3 to 4$5");
  /* An opener followed by white space is no opener. */
  check ("a $ b$ c", "a $ b$ c");
  check ("pay \\$5 or \\$6", "pay \\$5 or \\$6");
  check ("`$x$` and ``a $b` c$``", "`$x$` and ``a $b` c$``");
  check ("```\n$x$\n```\n$y$", "```\n$x$\n```\n{i:y}");
  check ("~~~tex\n\\[x\\]\n~~~", "~~~tex\n\\[x\\]\n~~~");
  check ("text\n\n    $x$ is code\n\n$y$", "text\n\n    $x$ is code\n\n{i:y}");
  check ("$$ $$ and $ $", "$$ $$ and $ $");
}

static void
test_unterminated (void)
{
  check ("open $x + y and more", "open $x + y and more");
  /* Their backslash kept for cmark, which would take it for an escape. */
  check ("open \\(x and \\[y", "open \\\\(x and \\\\[y");
  check ("$$a\n\nb$$", "$$a\n\nb$$");
  check ("$a\nb$", "{i:a\nb}");
}

static void
test_braces_and_escapes (void)
{
  /* The closer is found past nested braces and escaped dollars. */
  check ("$\\text{a \\$ b}_{x_{y}}$ end", "{i:\\text{a \\$ b}_{x_{y}}} end");
  check ("$$\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}$$",
         "{d:\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}}");
  check ("- item $a_1$\n\n    more $b$", "- item {i:a_1}\n\n    more {i:b}");
}

static void
test_no_forged_placeholder (void)
{
  g_autoptr(GPtrArray) formulas = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_math_formula_free);
  g_autofree char *out = natter_math_protect ("\xEE\x80\x80" "7" "\xEE\x80\x81 \xEF\xBF\xBC", 11, formulas);
  guint index;
  gboolean display;
  const char *after;

  g_assert_cmpuint (formulas->len, ==, 0);
  g_assert_null (natter_math_next_placeholder (out, &index, &display, &after));
  g_assert_cmpstr (out, ==, "\xEF\xBF\xBD" "7" "\xEF\xBF\xBD \xEF\xBF\xBD");

  /* A code block is shown as written, private-use characters and all. */
  check ("```\n\xEE\x80\x80 icon\n```", "```\n\xEE\x80\x80 icon\n```");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/math-scan/delimiters", test_delimiters);
  g_test_add_func ("/math-scan/not-math", test_not_math);
  g_test_add_func ("/math-scan/unterminated", test_unterminated);
  g_test_add_func ("/math-scan/braces-and-escapes", test_braces_and_escapes);
  g_test_add_func ("/math-scan/no-forged-placeholder", test_no_forged_placeholder);

  return g_test_run ();
}
