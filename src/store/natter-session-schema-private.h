/* natter-session-schema-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the validators of each session schema version share: the member
 * check and the event head of natter-session-event-base.c, and the
 * per-version validators natter-session-schema.c dispatches to
 * (natter-session-schema-upgrade.c, natter-session-parameters-event.c).
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
gboolean natter_session_schema_validate_v4     (const char          *type,
                                                JsonObject          *event,
                                                GError             **error);
JsonObject *natter_session_event_begin          (const char          *type,
                                                const char          *session_id,
                                                const char          *ts);
JsonNode   *natter_session_event_wrap           (JsonObject          *object);
gboolean natter_session_schema_validate_queue_ids (JsonObject       *event,
                                                   GError          **error);

G_END_DECLS
