/* natter-sidebar-header-row.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "natter-sidebar-sections.h"

G_BEGIN_DECLS

#define NATTER_TYPE_SIDEBAR_HEADER_ROW (natter_sidebar_header_row_get_type ())

G_DECLARE_FINAL_TYPE (NatterSidebarHeaderRow, natter_sidebar_header_row, NATTER, SIDEBAR_HEADER_ROW, GtkWidget)

GtkWidget           *natter_sidebar_header_row_new         (void);
void                 natter_sidebar_header_row_set_header  (NatterSidebarHeaderRow *self,
                                                            NatterSidebarHeader    *header);
NatterSidebarHeader *natter_sidebar_header_row_get_header  (NatterSidebarHeaderRow *self);
GtkDropTarget       *natter_sidebar_header_row_get_drop_target (NatterSidebarHeaderRow *self);
GtkWidget           *natter_sidebar_header_row_get_expander (NatterSidebarHeaderRow *self);
GtkWidget           *natter_sidebar_header_row_get_menu_button (NatterSidebarHeaderRow *self);

G_END_DECLS
