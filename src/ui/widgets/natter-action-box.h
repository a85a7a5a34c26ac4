/* natter-action-box.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NATTER_TYPE_ACTION_BOX (natter_action_box_get_type ())

G_DECLARE_FINAL_TYPE (NatterActionBox, natter_action_box, NATTER, ACTION_BOX, GtkWidget)

GtkWidget *natter_action_box_new              (void);
gboolean   natter_action_box_get_action_below (NatterActionBox *self);

G_END_DECLS
