/* natter-timeline-tab.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void     natter_timeline_tab_attach (GtkListView      *list);
gboolean natter_timeline_tab_enter  (GtkListView      *list,
                                     GtkDirectionType  direction);

G_END_DECLS
