/* natter-preferences-window.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-services.h"

G_BEGIN_DECLS

#define NATTER_TYPE_PREFERENCES_WINDOW (natter_preferences_window_get_type ())

G_DECLARE_FINAL_TYPE (NatterPreferencesWindow, natter_preferences_window, NATTER, PREFERENCES_WINDOW, AdwPreferencesWindow)

NatterPreferencesWindow *natter_preferences_window_new          (GtkWindow               *parent,
                                                                 NatterServices          *services);
NatterServices          *natter_preferences_window_get_services (NatterPreferencesWindow *self);

G_END_DECLS
