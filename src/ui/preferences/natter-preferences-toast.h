/* natter-preferences-toast.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

AdwToast   *natter_preferences_toast_new      (const char *text);
AdwToast   *natter_preferences_toast_new_undo (const char *text);
void        natter_preferences_toast_set_text (AdwToast   *toast,
                                               const char *text);
const char *natter_preferences_toast_get_text (AdwToast   *toast);

G_END_DECLS
