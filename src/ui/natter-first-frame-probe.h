/* natter-first-frame-probe.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void natter_first_frame_probe_attach (GtkApplication *application);

G_END_DECLS
