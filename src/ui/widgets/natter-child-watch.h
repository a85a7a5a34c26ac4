/* natter-child-watch.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/**
 * NatterChildAddedFunc:
 * @parent: the widget watched
 * @child: a child just added to it
 * @user_data: the data given to natter_child_watch_add()
 *
 * Called for each child added to a watched widget.
 */
typedef void (*NatterChildAddedFunc) (GtkWidget *parent,
                                      GtkWidget *child,
                                      gpointer   user_data);

void natter_child_watch_add (GtkWidget            *parent,
                             NatterChildAddedFunc  func,
                             gpointer              user_data);

G_END_DECLS
