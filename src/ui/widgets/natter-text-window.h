/* natter-text-window.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

GtkWindow *natter_text_window_new (GtkWindow  *parent,
                                   const char *title,
                                   const char *text);

G_END_DECLS
