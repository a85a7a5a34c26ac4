/* natter-sideways-scroll.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void natter_sideways_scroll_attach (GtkScrolledWindow *scroller);

G_END_DECLS
