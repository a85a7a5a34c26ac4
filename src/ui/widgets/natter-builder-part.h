/* natter-builder-part.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

GtkWidget *natter_builder_part (GtkBuilder *builder,
                                const char *ui_file,
                                const char *id);

G_END_DECLS
