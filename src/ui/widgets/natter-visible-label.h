/* natter-visible-label.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void  natter_label_set_visible_text (GtkLabel   *label,
                                     const char *text);
char *natter_visible_markup         (const char *text);

/* How much of a long message a label shows (natter_label_set_visible_preview()). */
#define NATTER_PREVIEW_MAX_CHARS 3000
#define NATTER_PREVIEW_MAX_LINES 40

gboolean natter_label_set_visible_preview (GtkLabel   *label,
                                           const char *text);

G_END_DECLS
