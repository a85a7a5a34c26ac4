/* natter-turn-schema.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The durable turn events of docs/runtime.md §3, validated field by field.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NATTER_TURN_SCHEMA_VERSION:
 *
 * The `schemaVersion` of a turn without stored attachments, and the
 * oldest one a `turn_created` event may carry.
 */
#define NATTER_TURN_SCHEMA_VERSION 1

/**
 * NATTER_TURN_SCHEMA_VERSION_MAX:
 *
 * The newest turn `schemaVersion`: 2, the version a turn whose messages
 * carry stored attachments (`blob` parts) is written with, so that a
 * reader that does not know them fails on the version instead of
 * dropping them (docs/format.md §6).
 */
#define NATTER_TURN_SCHEMA_VERSION_MAX 2

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
