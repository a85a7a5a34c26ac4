/* natter-window-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Test seams of the main window.
 */

#pragma once

#include "natter-composer.h"
#include "natter-model-picker.h"
#include "natter-window.h"

G_BEGIN_DECLS

void            natter_window_dismiss_pending_deletes (NatterWindow *self);
guint           natter_window_get_n_pending_deletes   (NatterWindow *self);
NatterComposer *natter_window_get_composer            (NatterWindow *self);
GtkWidget      *natter_window_get_session_list        (NatterWindow *self);
GtkWidget      *natter_window_get_timeline_list       (NatterWindow *self);
GtkAdjustment  *natter_window_get_timeline_adjustment (NatterWindow *self);
const char     *natter_window_get_visible_page        (NatterWindow *self);
NatterModelPicker *natter_window_get_model_picker     (NatterWindow *self);
const char     *natter_window_get_last_agent_toast    (NatterWindow *self);
GtkWidget      *natter_window_get_error_bar           (NatterWindow *self);
GtkWidget      *natter_window_get_toast_overlay       (NatterWindow *self);

G_END_DECLS
