/* natter-scrolled-tab.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Gives the focus to the list in @part from outside it, coming in the
 * direction @direction (Tab or Shift+Tab); %FALSE when nothing there
 * takes it. */
typedef gboolean (*NatterScrolledTabEnter) (GtkWidget        *part,
                                            GtkDirectionType  direction,
                                            gpointer          user_data);

gboolean natter_scrolled_tab_focus (GtkWidget              *widget,
                                    GtkDirectionType        direction,
                                    GtkWidget              *part,
                                    NatterScrolledTabEnter  enter,
                                    gpointer                user_data);

G_END_DECLS
