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

/* The length in bytes of @text's beginning that a preview shows: at most
 * NATTER_PREVIEW_MAX_CHARS characters and NATTER_PREVIEW_MAX_LINES lines,
 * ended at a line break or a space when one is near the limit, so that
 * no word is cut. */
static gsize
preview_length (const char *text)
{
  const char *p = text;
  const char *last_break = NULL;
  guint chars = 0;
  guint lines = 1;

  while (*p != '\0')
    {
      if (chars == NATTER_PREVIEW_MAX_CHARS || (*p == '\n' && lines == NATTER_PREVIEW_MAX_LINES))
        {
          /* A break in the last fifth ends it there rather than mid-word. */
          if (last_break != NULL && g_utf8_pointer_to_offset (last_break, p) < NATTER_PREVIEW_MAX_CHARS / 5)
            return (gsize) (last_break - text);
          return (gsize) (p - text);
        }
      if (*p == '\n')
        lines++;
      if (*p == '\n' || *p == ' ')
        last_break = p;
      p = g_utf8_next_char (p);
      chars++;
    }
  return (gsize) (p - text);
}

/**
 * natter_label_set_visible_preview:
 * @label: a label that shows plain text (never markup)
 * @text: (nullable): the text; %NULL shows nothing
 *
 * Like natter_label_set_visible_text(), for a text that may be very long
 * (a message a person pasted a whole file into): @label shows only its
 * beginning, at most %NATTER_PREVIEW_MAX_CHARS characters and
 * %NATTER_PREVIEW_MAX_LINES lines, followed by "…". A wrapping label lays
 * all its text out each time it is measured, and a list measures its
 * rows often: a few hundred kilobytes in one label hold the window for
 * minutes. Whoever shows a preview offers the whole text another way.
 *
 * Returns: %TRUE when @label shows only the beginning of @text
 */
gboolean
natter_label_set_visible_preview (GtkLabel   *label,
                                  const char *text)
{
  g_autofree char *head = NULL;
  g_autofree char *beginning = NULL;
  gsize length;

  g_return_val_if_fail (GTK_IS_LABEL (label), FALSE);

  if (text == NULL)
    text = "";
  length = preview_length (text);
  if (text[length] == '\0')
    {
      natter_label_set_visible_text (label, text);
      return FALSE;
    }
  /* Where the text goes on, unseen. */
  head = g_strndup (text, length);
  beginning = g_strconcat (g_strchomp (head), "…", NULL);
  natter_label_set_visible_text (label, beginning);
  return TRUE;
}
