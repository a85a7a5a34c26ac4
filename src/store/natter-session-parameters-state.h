/* natter-session-parameters-state.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What session schema version 3 adds to the state reduceSession folds:
 * what a conversation keeps about itself (docs/format.md §3.5).
 */

#pragma once

#include "natter-generation-parameters.h"
#include "natter-session-reducer.h"

G_BEGIN_DECLS

const NatterGenerationParameters *natter_session_state_get_parameters (NatterSessionState *self);

G_END_DECLS
