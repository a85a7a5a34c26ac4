/* natter-text-direction.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

GtkTextDirection natter_text_direction_of           (const char *text);
void             natter_label_follow_text_direction (GtkLabel   *label);

G_END_DECLS
