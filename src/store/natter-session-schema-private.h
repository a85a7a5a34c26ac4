/* natter-session-schema-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What natter-session-schema.c shares with the validators of the events
 * that session schema version 2 added (natter-session-schema-upgrade.c).
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

gboolean natter_session_schema_check_members   (JsonObject          *object,
                                                const char * const  *allowed,
                                                const char          *what,
                                                GError             **error);
gboolean natter_session_schema_validate_v2     (const char          *type,
                                                JsonObject          *event,
                                                GError             **error);
gboolean natter_session_schema_validate_v3     (const char          *type,
                                                JsonObject          *event,
                                                GError             **error);
JsonObject *natter_session_event_begin          (const char          *type,
                                                const char          *session_id,
                                                const char          *ts);
JsonNode   *natter_session_event_wrap           (JsonObject          *object);
gboolean natter_session_schema_validate_queue_ids (JsonObject       *event,
                                                   GError          **error);

G_END_DECLS
