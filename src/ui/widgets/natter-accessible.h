/* natter-accessible.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void       natter_accessible_plain_mnemonics  (GtkWidget  *root);
void       natter_accessible_plain_mnemonics_follow (GtkWidget *parent);
void       natter_accessible_plain_mnemonics_in_windows (void);
GtkWidget *natter_accessible_decoration_new   (const char *icon_name);
void       natter_accessible_name_stack_pages (GtkStack   *stack);
void       natter_accessible_name_list_item   (GtkWidget  *child,
                                               const char *name,
                                               const char *description);
void       natter_accessible_name_drop_down   (GtkDropDown *drop_down,
                                               const char  *name);

G_END_DECLS
