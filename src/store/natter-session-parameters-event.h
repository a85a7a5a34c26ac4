/* natter-session-parameters-event.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session events of schema version 3 (docs/format.md §3.5): what a
 * conversation keeps about itself: its generation parameters.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-generation-parameters.h"

G_BEGIN_DECLS

gboolean  natter_session_event_is_v3_type             (const char                       *type);

JsonNode *natter_session_event_new_parameters_changed (const char                       *session_id,
                                                       const char                       *ts,
                                                       const NatterGenerationParameters *parameters);

G_END_DECLS
