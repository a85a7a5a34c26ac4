/* natter-plain-text.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two rules about plain text every layer shares: when it is blank, and
 * how text a model, a server or an old file supplied is made safe to show: a
 * control character written to a terminal is an instruction to it (ESC
 * starts an escape sequence, BEL rings), and in a label it is a tofu box.
 * The one rule (README.md "Command line", docs/format.md "title_changed"):
 * every C0 control character, DEL and every C1 control character is
 * shown as a visible stand-in, except newlines and tabs where the caller
 * keeps them. C0 and DEL become their Unicode control pictures (ESC is
 * "␛", BEL "␇", a newline "␤"), C1 ones, which have no picture, the
 * escape "\u009B". In one line (a title, a name, a snippet, a column
 * of a listing) the bidirectional embeddings, overrides and isolates
 * are shown as such escapes too ("\u202E"): each reorders everything
 * after it to the end of its paragraph, so a title "photo" RLO "gnp.exe"
 * would read "photoexe.png" and one column could turn the rest of its
 * line around. So are the Unicode line and paragraph separators
 * (U+2028, U+2029): they break a label's line as a newline does (a
 * folder named "Work" U+2028 "Home" showed as "Wo…"), and the second
 * ends a bidirectional paragraph. A title or a folder name given with
 * one is refused as one with a newline. A message body keeps them, as right-to-left writing may
 * need them there; the marks (LRM, RLM, ALM) reorder nothing and always
 * stay. What is shown follows the rule; what is copied or exported (a
 * code block's Copy, `--json`) keeps the exact text.
 */

#define G_LOG_DOMAIN "natter-store"

#include "natter-plain-text.h"

#include <string.h>

static gboolean
is_control (gunichar c)
{
  return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

/* LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI. */
static gboolean
is_bidi_control (gunichar c)
{
  return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* LINE SEPARATOR, PARAGRAPH SEPARATOR: line breaks that are not control
 * characters. */
static gboolean
is_line_separator (gunichar c)
{
  return c == 0x2028 || c == 0x2029;
}

/**
 * natter_text_has_control:
 * @text: (nullable): UTF-8 text (invalid bytes count as no control)
 *
 * Whether @text holds a C0 control character (newline and tab
 * included), DEL, a C1 control character or a Unicode line or paragraph
 * separator (U+2028, U+2029): whether it is not one line of plain text.
 *
 * Returns: %TRUE when it does
 */
gboolean
natter_text_has_control (const char *text)
{
  g_autofree char *valid = NULL;

  if (text == NULL)
    return FALSE;
  valid = g_utf8_make_valid (text, -1);
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    if (is_control (g_utf8_get_char (p)) || is_line_separator (g_utf8_get_char (p)))
      return TRUE;
  return FALSE;
}

/**
 * natter_visible_text:
 * @text: (nullable): UTF-8 text; invalid sequences become U+FFFD first
 * @keep: the control characters that stay as they are
 *
 * @text with every control character outside @keep replaced by its
 * visible stand-in, and, unless @keep has
 * %NATTER_VISIBLE_KEEP_NEWLINE (one line), every bidirectional
 * embedding, override and isolate and every line or paragraph
 * separator too (see the file comment). Text
 * without them comes back unchanged.
 *
 * Returns: (transfer full): the visible text ("" for %NULL)
 */
char *
natter_visible_text (const char        *text,
                     NatterVisibleKeep  keep)
{
  g_autofree char *valid = NULL;
  GString *out;

  if (text == NULL)
    return g_strdup ("");
  valid = g_utf8_make_valid (text, -1);
  out = g_string_sized_new (strlen (valid));
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if ((is_bidi_control (c) || is_line_separator (c)) && !(keep & NATTER_VISIBLE_KEEP_NEWLINE))
        g_string_append_printf (out, "\\u%04X", c);
      else if (!is_control (c) ||
               (c == '\n' && (keep & NATTER_VISIBLE_KEEP_NEWLINE)) ||
               (c == '\t' && (keep & NATTER_VISIBLE_KEEP_TAB)))
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      else if (c == '\n')
        g_string_append_unichar (out, 0x2424);   /* SYMBOL FOR NEWLINE */
      else if (c < 0x20)
        g_string_append_unichar (out, 0x2400 + c);
      else if (c == 0x7f)
        g_string_append_unichar (out, 0x2421);
      else
        g_string_append_printf (out, "\\u%04X", c);
    }
  return g_string_free (out, FALSE);
}

/* Letters that are drawn as nothing though they are not format
 * characters: the Hangul fillers (a syllable's empty parts, and a
 * common way to forge an empty name elsewhere), the combining grapheme
 * joiner, the variation selectors, and the Braille blank. */
static gboolean
is_blank_letter (gunichar c)
{
  return c == 0x115F || c == 0x1160 || c == 0x3164 || c == 0xFFA0 ||
         c == 0x034F || c == 0x2800 ||
         (c >= 0x180B && c <= 0x180F) ||
         (c >= 0xFE00 && c <= 0xFE0F) ||
         (c >= 0xE0100 && c <= 0xE01EF);
}

/**
 * natter_text_is_blank:
 * @text: (nullable): UTF-8 text (the words of a message, an answer)
 *
 * The one rule for text that says nothing: empty, or only white space
 * (Unicode's, not only ASCII's) and invisible format characters (zero
 * width space and joiners, word joiner, byte order mark, direction
 * marks: Unicode's category Cf) and the few letters drawn as nothing
 * (Hangul fillers, variation selectors, the Braille blank), which show
 * nothing on their own. The
 * window's Send stays off for such words and `natter send` refuses
 * them, rather than start a conversation of spaces; a title or folder
 * name of nothing more is no name; an answer of nothing more is an
 * empty answer (docs/runtime.md §6).
 *
 * Returns: %TRUE when @text has no character but white space and
 *   format characters
 */
gboolean
natter_text_is_blank (const char *text)
{
  if (text == NULL)
    return TRUE;
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (!g_unichar_isspace (c) && g_unichar_type (c) != G_UNICODE_FORMAT && !is_blank_letter (c))
        return FALSE;
    }
  return TRUE;
}
