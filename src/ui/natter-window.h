/* natter-window.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-application.h"

G_BEGIN_DECLS

#define NATTER_TYPE_WINDOW (natter_window_get_type ())

G_DECLARE_FINAL_TYPE (NatterWindow, natter_window, NATTER, WINDOW, AdwApplicationWindow)

NatterWindow *natter_window_new (NatterApplication *application);

G_END_DECLS
