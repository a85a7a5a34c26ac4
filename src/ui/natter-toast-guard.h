/* natter-toast-guard.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

void     natter_toast_guard_attach     (AdwToastOverlay *overlay);
void     natter_toast_guard_dismiss    (AdwToastOverlay *overlay,
                                        AdwToast        *toast);
void     natter_toast_guard_add        (AdwToastOverlay *overlay,
                                        AdwToast        *toast);
gboolean natter_toast_guard_is_settled (AdwToastOverlay *overlay);

G_END_DECLS
