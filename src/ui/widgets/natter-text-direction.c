/* natter-text-direction.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A paragraph written in Arabic or Hebrew reads from the right, so it
 * starts at the right edge, whatever the language of the window. GTK
 * 4.8 lays out such text right to left inside a label, but places the
 * label's lines by the widget's direction, which comes from the
 * window's language: an Arabic answer in an English window started at
 * the left. A label that shows what a person or a model wrote takes its
 * direction from its text instead, as Pango decides a paragraph's base
 * direction: by its first strongly directional character. Pango's own
 * function for that (pango_find_base_dir()) is deprecated, so the
 * scripts are looked up here.
 */

#define G_LOG_DOMAIN "natter-text-direction"

#include "config.h"

#include "natter-text-direction.h"

/* The scripts written from right to left that Unicode has letters of. */
static gboolean
is_rtl_script (GUnicodeScript script)
{
  switch (script)
    {
    case G_UNICODE_SCRIPT_ARABIC:
    case G_UNICODE_SCRIPT_HEBREW:
    case G_UNICODE_SCRIPT_SYRIAC:
    case G_UNICODE_SCRIPT_THAANA:
    case G_UNICODE_SCRIPT_NKO:
    case G_UNICODE_SCRIPT_SAMARITAN:
    case G_UNICODE_SCRIPT_MANDAIC:
    case G_UNICODE_SCRIPT_ADLAM:
    case G_UNICODE_SCRIPT_HANIFI_ROHINGYA:
    case G_UNICODE_SCRIPT_MENDE_KIKAKUI:
    case G_UNICODE_SCRIPT_IMPERIAL_ARAMAIC:
    case G_UNICODE_SCRIPT_PHOENICIAN:
    case G_UNICODE_SCRIPT_AVESTAN:
    case G_UNICODE_SCRIPT_NABATAEAN:
    case G_UNICODE_SCRIPT_PALMYRENE:
    case G_UNICODE_SCRIPT_OLD_SOUTH_ARABIAN:
    case G_UNICODE_SCRIPT_OLD_NORTH_ARABIAN:
    case G_UNICODE_SCRIPT_KHAROSHTHI:
    case G_UNICODE_SCRIPT_YEZIDI:
      return TRUE;
    default:
      return FALSE;
    }
}

/**
 * natter_text_direction_of:
 * @text: (nullable): UTF-8 text
 *
 * The base direction of @text's first paragraph: that of its first
 * strongly directional character (a letter of a script; digits,
 * punctuation, spaces and symbols have none), as the Unicode
 * bidirectional algorithm and Pango decide it. The right-to-left marks
 * count as well.
 *
 * Returns: %GTK_TEXT_DIR_RTL or %GTK_TEXT_DIR_LTR, or
 *   %GTK_TEXT_DIR_NONE when @text has no strongly directional character
 */
GtkTextDirection
natter_text_direction_of (const char *text)
{
  if (text == NULL)
    return GTK_TEXT_DIR_NONE;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      GUnicodeScript script;

      /* RIGHT-TO-LEFT MARK, ARABIC LETTER MARK; LEFT-TO-RIGHT MARK. */
      if (c == 0x200F || c == 0x061C)
        return GTK_TEXT_DIR_RTL;
      if (c == 0x200E)
        return GTK_TEXT_DIR_LTR;
      if (!g_unichar_isalpha (c))
        continue;
      script = g_unichar_get_script (c);
      if (script == G_UNICODE_SCRIPT_COMMON || script == G_UNICODE_SCRIPT_INHERITED)
        continue;
      return is_rtl_script (script) ? GTK_TEXT_DIR_RTL : GTK_TEXT_DIR_LTR;
    }
  return GTK_TEXT_DIR_NONE;
}

/**
 * natter_label_follow_text_direction:
 * @label: a label that shows what someone wrote
 *
 * Gives @label the direction of the text it shows now
 * (natter_text_direction_of()), so that its lines start where that text
 * starts: at the right for Arabic or Hebrew, with an xalign of 0. A
 * label without strongly directional text goes as the window does.
 * Called again whenever the text changes.
 */
void
natter_label_follow_text_direction (GtkLabel *label)
{
  g_return_if_fail (GTK_IS_LABEL (label));

  gtk_widget_set_direction (GTK_WIDGET (label), natter_text_direction_of (gtk_label_get_text (label)));
}
