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

G_END_DECLS
