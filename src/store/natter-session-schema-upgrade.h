/* natter-session-schema-upgrade.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session events of schema version 2 (docs/format.md "Schema version
 * 2"; docs/format.md §3.3): the upgrade marker,
 * permission grants and queued messages.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-types.h"

G_BEGIN_DECLS

gint64    natter_session_event_get_required_version     (JsonObject  *event);
gint64    natter_session_events_raise                   (GPtrArray   *events,
                                                         gint64       version,
                                                         const char  *ts);

JsonNode *natter_session_event_new_schema_upgraded      (const char  *session_id,
                                                         const char  *ts,
                                                         gint64       schema_version);
JsonNode *natter_session_event_new_grant_added          (const char  *session_id,
                                                         const char  *ts,
                                                         const char  *grant_id,
                                                         const char  *tool_id);
JsonNode *natter_session_event_new_grant_removed        (const char  *session_id,
                                                         const char  *ts,
                                                         const char  *grant_id);
JsonNode *natter_session_event_new_message_queued       (const char  *session_id,
                                                         const char  *ts,
                                                         const char  *queue_id,
                                                         JsonObject  *message,
                                                         JsonObject  *options);
JsonNode *natter_session_event_new_queued_message_replaced (const char  *session_id,
                                                            const char  *ts,
                                                            const char  *queue_id,
                                                            JsonObject  *message);
JsonNode *natter_session_event_new_queued_message_removed  (const char  *session_id,
                                                            const char  *ts,
                                                            const char  *queue_id);
JsonNode *natter_session_event_new_conversation_compacted (const char  *session_id,
                                                           const char  *ts,
                                                           const char  *compaction_id,
                                                           const char  *summary,
                                                           const char  *first_kept_turn_id);
void      natter_session_event_set_consumed_queue_ids   (JsonNode           *turn_appended,
                                                         const char * const *queue_ids);

G_END_DECLS
