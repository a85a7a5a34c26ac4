/* natter-math-scan.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Finds the TeX formulas in Markdown as pandoc's tex_math_dollars and
 * KaTeX's auto-render read them (docs/math.md §2), and takes each out of
 * the text before the Markdown parser runs, leaving a placeholder of
 * private-use characters that the parser and Pango markup escaping pass
 * through untouched. Code (fenced and indented blocks, code spans) is
 * never math; a formula never spans a blank line.
 */

#define G_LOG_DOMAIN "natter-math"

#include "config.h"

#include <string.h>

#include "natter-math-scan.h"

/* U+E000 opens an inline placeholder, U+E002 a display one, U+E001
 * closes either; the formula's index is between, in decimal. */
#define OPEN_INLINE "\xEE\x80\x80"
#define OPEN_DISPLAY "\xEE\x80\x82"
#define CLOSE "\xEE\x80\x81"
#define MARK_LEN 3

/**
 * natter_math_formula_free:
 * @formula: (transfer full) (nullable): a formula
 *
 * Frees @formula.
 */
void
natter_math_formula_free (NatterMathFormula *formula)
{
  if (formula == NULL)
    return;
  g_free (formula->tex);
  g_free (formula->source);
  g_free (formula);
}

/* Copies @text, turning the characters placeholders are made of (and
 * U+FFFC, which stands for a typeset formula in a label) into U+FFFD:
 * an answer can then never forge a placeholder. */
static void
append_sanitized (GString    *out,
                  const char *text,
                  gsize       len)
{
  gsize start = 0;

  for (gsize i = 0; i + 2 < len; i++)
    {
      guchar a = (guchar) text[i], b = (guchar) text[i + 1], c = (guchar) text[i + 2];
      gboolean pua = a == 0xEE && b == 0x80 && c >= 0x80 && c <= 0x82;
      gboolean obj = a == 0xEF && b == 0xBF && c == 0xBC;

      if (!pua && !obj)
        continue;
      g_string_append_len (out, text + start, i - start);
      g_string_append (out, "\xEF\xBF\xBD");
      i += 2;
      start = i + 1;
    }
  g_string_append_len (out, text + start, len - start);
}

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static gboolean
is_blank (const char *text,
          gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (!is_space (text[i]))
      return FALSE;
  return TRUE;
}

/* Where the closing @close (one or two bytes) of a formula starts at or
 * after @from, skipping backslash pairs (`\$` inside a formula is a
 * dollar of its own), or -1. For a single `$`, the closer must follow
 * something other than white space and be followed by no digit, and a
 * backtick ends the search: TeX has no use for one, and "$5 or `$x$`"
 * is a price and a code span, not a formula. */
static gssize
find_closer (const char *s,
             gsize       n,
             gsize       from,
             const char *close)
{
  gsize close_len = strlen (close);
  gboolean dollar = g_str_equal (close, "$");

  for (gsize j = from; j < n; j++)
    {
      if (s[j] == '\\' && !(close[0] == '\\' && j + 1 < n && s[j + 1] == close[1]))
        {
          j++;
          continue;
        }
      if (dollar && s[j] == '`')
        return -1;
      if (j + close_len > n || memcmp (s + j, close, close_len) != 0)
        continue;
      if (dollar && (is_space (s[j - 1]) || (j + 1 < n && g_ascii_isdigit (s[j + 1]))))
        continue;
      return (gssize) j;
    }
  return -1;
}

/* The end of the code span opened by the run of backticks at @i, or of
 * that run when nothing closes it (the backticks are then literal). */
static gsize
skip_code_span (const char *s,
                gsize       n,
                gsize       i)
{
  gsize k = 0, j;

  while (i + k < n && s[i + k] == '`')
    k++;
  for (j = i + k; j < n;)
    {
      gsize run = 0;

      if (s[j] != '`')
        {
          j++;
          continue;
        }
      while (j + run < n && s[j + run] == '`')
        run++;
      if (run == k)
        return j + run;
      j += run;
    }
  return i + k;
}

static void
add_formula (GString    *out,
             GPtrArray  *formulas,
             const char *s,
             gsize       start,
             gsize       tex_start,
             gsize       tex_end,
             gsize       end,
             gboolean    display)
{
  NatterMathFormula *formula = g_new0 (NatterMathFormula, 1);

  formula->tex = g_strndup (s + tex_start, tex_end - tex_start);
  formula->source = g_strndup (s + start, end - start);
  formula->display = display;
  g_string_append_printf (out, "%s%u%s", display ? OPEN_DISPLAY : OPEN_INLINE, formulas->len, CLOSE);
  g_ptr_array_add (formulas, formula);
}

/* The formula that opens at @i, if one does: its delimiters and where
 * it ends. */
static gboolean
match_formula (const char *s,
               gsize       n,
               gsize       i,
               gsize      *tex_start,
               gsize      *tex_end,
               gsize      *end,
               gboolean   *display)
{
  const char *close;
  gssize at;

  if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '(' || s[i + 1] == '['))
    {
      *display = s[i + 1] == '[';
      close = *display ? "\\]" : "\\)";
      *tex_start = i + 2;
    }
  else if (s[i] == '$' && i + 1 < n && s[i + 1] == '$')
    {
      *display = TRUE;
      close = "$$";
      *tex_start = i + 2;
    }
  else if (s[i] == '$' && i + 1 < n && !is_space (s[i + 1]))
    {
      *display = FALSE;
      close = "$";
      *tex_start = i + 1;
    }
  else
    {
      return FALSE;
    }

  at = find_closer (s, n, *tex_start, close);
  if (at < 0 || is_blank (s + *tex_start, (gsize) at - *tex_start))
    return FALSE;
  *tex_end = (gsize) at;
  *end = (gsize) at + strlen (close);
  return TRUE;
}

/* One run of lines with no blank line and no code block in it: the
 * text formulas may be found in. */
static void
scan_run (GString    *out,
          GPtrArray  *formulas,
          const char *s,
          gsize       n)
{
  gsize i = 0, copied = 0;

  while (i < n)
    {
      gsize tex_start, tex_end, end;
      gboolean display;

      if (s[i] == '`')
        {
          i = skip_code_span (s, n, i);
          continue;
        }
      if (match_formula (s, n, i, &tex_start, &tex_end, &end, &display))
        {
          append_sanitized (out, s + copied, i - copied);
          add_formula (out, formulas, s, i, tex_start, tex_end, end, display);
          i = copied = end;
          continue;
        }
      /* A `\[` or `\(` nothing closes (yet: a formula being streamed)
       * stays text as written; to cmark it would be an escaped bracket,
       * shown without its backslash. */
      if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '[' || s[i + 1] == '('))
        {
          append_sanitized (out, s + copied, i - copied);
          g_string_append (out, "\\\\");
          copied = i + 1;
        }
      /* Any other backslash pair is an escape: `\$` is a dollar. */
      i += s[i] == '\\' ? 2 : 1;
    }
  append_sanitized (out, s + copied, n - copied);
}

static gsize
indent_columns (const char *line,
                gsize       len)
{
  gsize cols = 0;

  for (gsize i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
    cols += line[i] == '\t' ? 4 - cols % 4 : 1;
  return cols;
}

/* Whether @line opens (or closes) a code fence: ``` or ~~~ after any
 * indentation; sets the fence's character and length. */
static gboolean
is_fence (const char *line,
          gsize       len,
          char       *fence_char,
          gsize      *fence_len)
{
  gsize i = 0, k = 0;

  while (i < len && (line[i] == ' ' || line[i] == '\t'))
    i++;
  if (i >= len || (line[i] != '`' && line[i] != '~'))
    return FALSE;
  while (i + k < len && line[i + k] == line[i])
    k++;
  if (k < 3)
    return FALSE;
  *fence_char = line[i];
  *fence_len = k;
  return TRUE;
}

static gboolean
is_list_item (const char *line,
              gsize       len)
{
  gsize i = 0;

  while (i < len && line[i] == ' ')
    i++;
  if (i >= 4 || i >= len)
    return FALSE;
  if (line[i] == '-' || line[i] == '*' || line[i] == '+')
    return i + 1 == len || line[i + 1] == ' ' || line[i + 1] == '\t';
  while (i < len && g_ascii_isdigit (line[i]))
    i++;
  return i < len && (line[i] == '.' || line[i] == ')');
}

typedef struct
{
  GString   *out;
  GPtrArray *formulas;
  const char *text;
  gsize      run_start;   /* start of the lines formulas may span */
  gboolean   in_run;
} ScanState;

static void
end_run (ScanState *st,
         gsize      at)
{
  if (st->in_run)
    scan_run (st->out, st->formulas, st->text + st->run_start, at - st->run_start);
  st->in_run = FALSE;
}

/**
 * natter_math_protect:
 * @text: Markdown, valid UTF-8
 * @len: its length in bytes
 * @formulas: (element-type NatterMathFormula): receives each formula
 *   found, in order; the caller gives it natter_math_formula_free() as
 *   its free function
 *
 * Replaces each TeX formula of @text by a placeholder that names its
 * index in @formulas (natter_math_next_placeholder() finds them), by the
 * rules of docs/math.md §2: `$…$` (an opening `$` not followed by white
 * space, a closing one not preceded by white space nor followed by a
 * digit, so "$5 and $10" stays text), `\(…\)`, `$$…$$` and `\[…\]`;
 * `\$` is a dollar; nothing in code is math; a formula never spans a
 * blank line and one left open stays text. Outside code blocks, the
 * characters that could forge a placeholder become U+FFFD.
 *
 * Returns: (transfer full): the text with placeholders
 */
char *
natter_math_protect (const char *text,
                     gsize       len,
                     GPtrArray  *formulas)
{
  ScanState st = { g_string_sized_new (len + 16), formulas, text, 0, FALSE };
  gboolean in_fence = FALSE, in_indented = FALSE, prev_blank = TRUE, list_seen = FALSE;
  char fence_char = 0;
  gsize fence_len = 0, pos = 0;

  g_return_val_if_fail (text != NULL || len == 0, NULL);
  g_return_val_if_fail (formulas != NULL, NULL);

  while (pos < len)
    {
      const char *nl = memchr (text + pos, '\n', len - pos);
      gsize end = nl != NULL ? (gsize) (nl - text) : len;
      gsize next = nl != NULL ? end + 1 : len;
      const char *line = text + pos;
      gsize line_len = end - pos;
      gboolean blank = is_blank (line, line_len);
      char c;
      gsize k;
      gboolean code;

      if (in_fence)
        {
          code = TRUE;
          if (is_fence (line, line_len, &c, &k) && c == fence_char && k >= fence_len)
            in_fence = FALSE;
        }
      else if (is_fence (line, line_len, &fence_char, &fence_len))
        {
          code = in_fence = TRUE;
        }
      else
        {
          /* An indented code block starts after a blank line, never
           * inside a list, where indentation is the item's. */
          if (!blank && indent_columns (line, line_len) >= 4)
            in_indented = in_indented || (prev_blank && !list_seen);
          else if (!blank)
            in_indented = FALSE;
          code = in_indented && !blank;
          list_seen = list_seen || (!code && is_list_item (line, line_len));
        }

      if (code || blank)
        {
          /* A code block's text is shown as it is: no placeholder is
           * ever looked for in it. */
          end_run (&st, pos);
          g_string_append_len (st.out, line, next - pos);
        }
      else if (!st.in_run)
        {
          st.in_run = TRUE;
          st.run_start = pos;
        }
      prev_blank = blank;
      pos = next;
    }
  end_run (&st, len);
  return g_string_free (st.out, FALSE);
}

/**
 * natter_math_next_placeholder:
 * @text: text that went through natter_math_protect(), possibly
 *   escaped for Pango markup since (escaping leaves placeholders alone)
 * @index: (out): the formula's index
 * @display: (out): whether the placeholder is a display formula's
 * @after: (out): where the text after the placeholder starts
 *
 * Finds the first placeholder in @text.
 *
 * Returns: (transfer none) (nullable): where it starts, or %NULL
 */
const char *
natter_math_next_placeholder (const char  *text,
                              guint       *index,
                              gboolean    *display,
                              const char **after)
{
  for (const char *p = strstr (text, "\xEE\x80"); p != NULL; p = strstr (p + 1, "\xEE\x80"))
    {
      const char *digits = p + MARK_LEN;
      char *num_end;
      guint64 value;

      if ((guchar) p[2] != 0x80 && (guchar) p[2] != 0x82)
        continue;
      if (!g_ascii_isdigit (*digits))
        continue;
      value = g_ascii_strtoull (digits, &num_end, 10);
      if (strncmp (num_end, CLOSE, MARK_LEN) != 0 || value > G_MAXUINT)
        continue;
      *index = (guint) value;
      *display = (guchar) p[2] == 0x82;
      *after = num_end + MARK_LEN;
      return p;
    }
  return NULL;
}
