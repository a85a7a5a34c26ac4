/* natter-request-composer.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one pure function that turns a turn file into the exact provider
 * payload of a model call (docs/runtime.md §3), and the closed transcript
 * of a turn (docs/runtime.md §11).
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-turn-reducer.h"

G_BEGIN_DECLS

JsonObject *natter_compose_request          (NatterTurnState  *state,
                                             guint             model_call_index,
                                             JsonArray        *materialized_context,
                                             GError          **error);
JsonNode   *natter_tool_result_to_message   (JsonObject       *tool_result_event);
JsonArray  *natter_build_closed_transcript  (NatterTurnState  *state,
                                             JsonArray        *materialized_context,
                                             GError          **error);

G_END_DECLS
