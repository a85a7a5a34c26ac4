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
 * direction from its text instead, decided as Pango decides a
 * paragraph's base direction, by FriBidi (the library Pango uses for
 * it; Pango's own function, pango_find_base_dir(), is deprecated).
 */

#define G_LOG_DOMAIN "natter-text-direction"

#include "config.h"

#include <fribidi.h>

#include "natter-text-direction.h"

/* How far into a text its direction is looked for: a text is read as it
 * changes (an answer as it streams), and a paragraph's first letter is
 * near its start. */
#define DIRECTION_SCAN_CHARS 1024

/**
 * natter_text_direction_of:
 * @text: (nullable): UTF-8 text
 *
 * The base direction of @text as the Unicode bidirectional algorithm
 * gives it (fribidi_get_par_direction()): that of its first strongly
 * directional character (a letter, or a directional mark; digits,
 * punctuation, spaces and symbols have none), looked for in its first
 * 1,024 characters.
 *
 * Returns: %GTK_TEXT_DIR_RTL or %GTK_TEXT_DIR_LTR, or
 *   %GTK_TEXT_DIR_NONE when @text has no strongly directional character
 */
GtkTextDirection
natter_text_direction_of (const char *text)
{
  g_autofree gunichar *chars = NULL;
  g_autofree FriBidiCharType *types = NULL;
  const char *end;
  glong n;

  if (text == NULL || text[0] == '\0')
    return GTK_TEXT_DIR_NONE;
  end = text;
  for (guint i = 0; i < DIRECTION_SCAN_CHARS && *end != '\0'; i++)
    end = g_utf8_next_char (end);
  chars = g_utf8_to_ucs4_fast (text, end - text, &n);
  types = g_new (FriBidiCharType, n);
  fribidi_get_bidi_types (chars, n, types);
  switch (fribidi_get_par_direction (types, n))
    {
    case FRIBIDI_PAR_RTL:
      return GTK_TEXT_DIR_RTL;
    case FRIBIDI_PAR_LTR:
      return GTK_TEXT_DIR_LTR;
    default:
      return GTK_TEXT_DIR_NONE;
    }
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
