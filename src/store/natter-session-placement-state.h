/* natter-session-placement-state.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What session schema version 4 adds to the state reduceSession folds:
 * where the conversation is placed in the list (docs/format.md §3.6).
 */

#pragma once

#include "natter-session-reducer.h"

G_BEGIN_DECLS

gboolean    natter_session_state_get_pinned    (NatterSessionState *self);
const char *natter_session_state_get_folder_id (NatterSessionState *self);

G_END_DECLS
