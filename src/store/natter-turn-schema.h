/* natter-turn-schema.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The durable turn events of turn-runtime.md §3, validated field by field.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NATTER_TURN_SCHEMA_VERSION:
 *
 * The only `schemaVersion` a `turn_created` event may carry.
 */
#define NATTER_TURN_SCHEMA_VERSION 1

gboolean  natter_turn_event_validate   (JsonObject  *event,
                                        const char  *turn_id,
                                        GError     **error);
gboolean  natter_turn_is_request_ref   (const char  *ref);
gboolean  natter_turn_assistant_message_validate (JsonNode  *message,
                                                  GError   **error);
gboolean  natter_turn_user_message_validate (JsonNode  *message,
                                             GError   **error);
JsonNode *natter_turn_event_new        (const char  *type,
                                        const char  *turn_id,
                                        const char  *ts);

G_END_DECLS
