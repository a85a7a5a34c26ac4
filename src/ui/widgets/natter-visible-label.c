/* natter-visible-label.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Text from a model, a tool, a server or an old file shown in a label:
 * its control characters as the stand-ins the command line prints
 * (natter_visible_text()), not as boxes of hex digits. Only what is
 * shown changes: what is stored, sent and copied with a Copy button
 * stays as it was written.
 */

#include "config.h"

#include "natter-plain-text.h"
#include "natter-visible-label.h"

/**
 * natter_label_set_visible_text:
 * @label: a label that shows plain text (never markup)
 * @text: (nullable): the text; %NULL shows nothing
 *
 * Sets @text on @label with each control character other than newline
 * and tab shown as its visible stand-in: the control picture for C0
 * and DEL (ESC as `␛`), the `\u009B` escape for C1. Selecting and
 * copying from the label gives what it shows.
 */
void
natter_label_set_visible_text (GtkLabel   *label,
                               const char *text)
{
  g_autofree char *visible = NULL;

  g_return_if_fail (GTK_IS_LABEL (label));

  visible = natter_visible_text (text != NULL ? text : "", NATTER_VISIBLE_KEEP_NEWLINE | NATTER_VISIBLE_KEEP_TAB);
  gtk_label_set_text (label, visible);
}

/**
 * natter_visible_markup:
 * @text: plain text from a model, a tool or a file
 *
 * @text for a label's markup: its control characters other than newline
 * and tab as their stand-ins (natter_label_set_visible_text()), then
 * escaped, so that nothing of it is read as markup.
 *
 * Returns: (transfer full): the markup
 */
char *
natter_visible_markup (const char *text)
{
  g_autofree char *visible = NULL;

  g_return_val_if_fail (text != NULL, NULL);

  visible = natter_visible_text (text, NATTER_VISIBLE_KEEP_NEWLINE | NATTER_VISIBLE_KEEP_TAB);
  return g_markup_escape_text (visible, -1);
}
