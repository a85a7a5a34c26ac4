/* natter-session-schema-upgrade.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session events of schema version 2: their field-by-field
 * validation (called by natter_session_event_validate()), which version a
 * given event needs, and their builders. Where such an event may appear is
 * the reducer's rule (natter-session-grants-queue.c).
 */

#define G_LOG_DOMAIN "natter-session-schema"

#include "natter-id.h"
#include "natter-json.h"
#include "natter-session-parameters-event.h"
#include "natter-session-placement-event.h"
#include "natter-session-schema.h"
#include "natter-session-schema-private.h"
#include "natter-session-schema-upgrade.h"
#include "natter-store-error.h"
#include "natter-turn-schema.h"

static const char * const upgraded_members[] = {
  "type", "sessionId", "ts", "schemaVersion", NULL
};
static const char * const grant_added_members[] = {
  "type", "sessionId", "ts", "grantId", "toolId", NULL
};
static const char * const grant_removed_members[] = {
  "type", "sessionId", "ts", "grantId", NULL
};
static const char * const queued_members[] = {
  "type", "sessionId", "ts", "queueId", "message", "options", NULL
};
static const char * const replaced_members[] = {
  "type", "sessionId", "ts", "queueId", "message", NULL
};
static const char * const removed_members[] = {
  "type", "sessionId", "ts", "queueId", NULL
};
static const char * const compacted_members[] = {
  "type", "sessionId", "ts", "compactionId", "summary", "firstKeptTurnId", NULL
};
static const char * const options_members[] = {
  "agentId", "model", "autoPermission", "maxModelCalls", NULL
};
static const char * const model_members[] = {
  "provider", "model", NULL
};

static gboolean
validate_upgraded (JsonObject  *event,
                   GError     **error)
{
  gint64 version = 0;

  if (!natter_json_require_int (event, "schemaVersion", &version, error))
    return FALSE;
  /* A file raised to a version this Natter does not know is from a newer
   * Natter: the same verdict as such a session_created. */
  if (version < 2 || version > NATTER_SESSION_SCHEMA_VERSION)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNSUPPORTED_VERSION,
                   "Session schema version %" G_GINT64_FORMAT " is not supported "
                   "(an upgrade goes to 2 up to %d)", version, NATTER_SESSION_SCHEMA_VERSION);
      return FALSE;
    }
  return natter_session_schema_check_members (event, upgraded_members, "schema_upgraded", error);
}

static gboolean
require_message (JsonObject  *event,
                 GError     **error)
{
  if (!natter_turn_user_message_validate (json_object_get_member (event, "message"), error))
    {
      g_prefix_error (error, "Field “message”: ");
      return FALSE;
    }
  return TRUE;
}

/* The send options a queued message becomes a turn with:
 * {agentId, model?: {provider, model}, autoPermission, maxModelCalls? ≥ 1}. */
static gboolean
validate_options (JsonObject  *event,
                  GError     **error)
{
  JsonObject *options = natter_json_require_object (event, "options", error);
  gboolean auto_permission;
  gint64 max_calls = 0;

  if (options == NULL)
    return FALSE;
  if (!natter_session_schema_check_members (options, options_members, "The send options", error) ||
      !natter_json_require_nonempty_string (options, "agentId", error) ||
      !natter_json_require_boolean (options, "autoPermission", &auto_permission, error))
    goto fail;
  if (json_object_has_member (options, "maxModelCalls") &&
      !natter_json_require_int (options, "maxModelCalls", &max_calls, error))
    goto fail;
  if (json_object_has_member (options, "maxModelCalls") && max_calls < 1)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “maxModelCalls” must be at least 1, not %" G_GINT64_FORMAT, max_calls);
      goto fail;
    }
  if (json_object_has_member (options, "model"))
    {
      JsonObject *model = natter_json_require_object (options, "model", error);

      if (model == NULL ||
          !natter_session_schema_check_members (model, model_members, "The model descriptor", error) ||
          !natter_json_require_nonempty_string (model, "provider", error) ||
          !natter_json_require_nonempty_string (model, "model", error))
        goto fail;
    }
  return TRUE;

fail:
  g_prefix_error (error, "Field “options”: ");
  return FALSE;
}

/**
 * natter_session_schema_validate_queue_ids: (skip)
 * @event: a `turn_appended` event with `consumedQueueIds`
 * @error: return location for a #GError
 *
 * `consumedQueueIds` is a non-empty array of ids.
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA
 */
gboolean
natter_session_schema_validate_queue_ids (JsonObject  *event,
                                          GError     **error)
{
  JsonArray *ids = natter_json_require_string_list (event, "consumedQueueIds", FALSE, error);

  if (ids == NULL)
    return FALSE;
  for (guint i = 0; i < json_array_get_length (ids); i++)
    if (!natter_id_validate_field ("consumedQueueIds", json_array_get_string_element (ids, i), error))
      return FALSE;
  return TRUE;
}

/**
 * natter_session_schema_validate_v2: (skip)
 * @type: the event's type, one of the version-2 types
 * @event: the event, whose `type`, `sessionId` and `ts` were checked
 * @error: return location for a #GError
 *
 * The per-type half of natter_session_event_validate() for the events of
 * schema version 2.
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA or
 *   (`schema_upgraded` to an unknown version)
 *   %NATTER_STORE_ERROR_UNSUPPORTED_VERSION
 */
gboolean
natter_session_schema_validate_v2 (const char  *type,
                                   JsonObject  *event,
                                   GError     **error)
{
  if (g_str_equal (type, "schema_upgraded"))
    return validate_upgraded (event, error);
  if (g_str_equal (type, "permission_grant_added"))
    return natter_session_schema_check_members (event, grant_added_members, type, error) &&
           natter_id_require_field (event, "grantId", error) != NULL &&
           natter_json_require_nonempty_string (event, "toolId", error) != NULL;
  if (g_str_equal (type, "permission_grant_removed"))
    return natter_session_schema_check_members (event, grant_removed_members, type, error) &&
           natter_id_require_field (event, "grantId", error) != NULL;
  if (g_str_equal (type, "message_queued"))
    return natter_session_schema_check_members (event, queued_members, type, error) &&
           natter_id_require_field (event, "queueId", error) != NULL &&
           require_message (event, error) &&
           validate_options (event, error);
  if (g_str_equal (type, "queued_message_replaced"))
    return natter_session_schema_check_members (event, replaced_members, type, error) &&
           natter_id_require_field (event, "queueId", error) != NULL &&
           require_message (event, error);
  if (g_str_equal (type, "conversation_compacted"))
    return natter_session_schema_check_members (event, compacted_members, type, error) &&
           natter_id_require_field (event, "compactionId", error) != NULL &&
           natter_json_require_nonempty_string (event, "summary", error) != NULL &&
           natter_id_require_field (event, "firstKeptTurnId", error) != NULL;
  g_assert (g_str_equal (type, "queued_message_removed"));
  return natter_session_schema_check_members (event, removed_members, type, error) &&
         natter_id_require_field (event, "queueId", error) != NULL;
}

/**
 * natter_session_event_get_required_version:
 * @event: (transfer none): a valid session event
 *
 * The session schema version a file must be at for @event to appear in
 * it (docs/format.md §3.3, §3.5 and §3.6): 4 for the version-4 event
 * types, 3 for the version-3 event types, 2
 * for the version-2 event types and for a `turn_appended` with
 * `consumedQueueIds`, else 1. For
 * `schema_upgraded` it is the version the event raises the file to, less
 * one: the marker itself belongs to the older version.
 *
 * Returns: 1 to 4
 */
gint64
natter_session_event_get_required_version (JsonObject *event)
{
  const char *type;

  g_return_val_if_fail (event != NULL, 1);

  type = json_object_get_string_member_with_default (event, "type", "");
  if (g_str_equal (type, "schema_upgraded"))
    return json_object_get_int_member_with_default (event, "schemaVersion", 2) - 1;
  if (natter_session_event_is_v4_type (type))
    return 4;
  if (natter_session_event_is_v3_type (type))
    return 3;
  if (g_str_equal (type, "permission_grant_added") ||
      g_str_equal (type, "permission_grant_removed") ||
      g_str_equal (type, "message_queued") ||
      g_str_equal (type, "queued_message_replaced") ||
      g_str_equal (type, "queued_message_removed") ||
      g_str_equal (type, "conversation_compacted"))
    return 2;
  if (g_str_equal (type, "turn_appended") && json_object_has_member (event, "consumedQueueIds"))
    return 2;
  return 1;
}

/**
 * natter_session_events_raise:
 * @events: (element-type JsonNode) (inout): session events about to be
 *   written to one file, in this order
 * @version: the file's schema version before the first of @events (1 for
 *   a log that starts with its `session_created`, which is at 1)
 * @ts: (nullable): the `ts` of each `schema_upgraded` added; %NULL for
 *   the `ts` of the event it precedes
 *
 * Inserts `schema_upgraded` into @events right before each event that
 * needs a higher version than the file has reached by then
 * (natter_session_event_get_required_version()), one per version raised,
 * each with the `sessionId` of that event: the one rule by which a file
 * moves to a later version (docs/format.md §3.3). @events then reduces
 * from @version on.
 *
 * Returns: the file's version after @events
 */
gint64
natter_session_events_raise (GPtrArray  *events,
                             gint64      version,
                             const char *ts)
{
  g_return_val_if_fail (events != NULL, version);

  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i));
      gint64 needed = natter_session_event_get_required_version (event);
      const char *session_id = json_object_get_string_member_with_default (event, "sessionId", "");
      const char *upgrade_ts = ts != NULL ? ts : json_object_get_string_member_with_default (event, "ts", "");

      for (; version < needed; version++, i++)
        g_ptr_array_insert (events, (gint) i, natter_session_event_new_schema_upgraded (session_id, upgrade_ts,
                                                                                        version + 1));
      if (g_str_equal (json_object_get_string_member_with_default (event, "type", ""), "schema_upgraded"))
        version = MAX (version, json_object_get_int_member_with_default (event, "schemaVersion", version));
    }
  return version;
}


/**
 * natter_session_event_new_schema_upgraded:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @schema_version: the version the file is raised to
 *
 * Builds a `schema_upgraded` event. Only the session layer's one writer
 * of version-2 events appends it (docs/format.md "Schema version 2"). It
 * does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_schema_upgraded (const char *session_id,
                                          const char *ts,
                                          gint64      schema_version)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL && ts != NULL, NULL);

  object = natter_session_event_begin ("schema_upgraded", session_id, ts);
  json_object_set_int_member (object, "schemaVersion", schema_version);
  return natter_session_event_wrap (object);
}

/**
 * natter_session_event_new_grant_added:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @grant_id: the new grant's id (an id of the id generator)
 * @tool_id: the tool every call of which the grant allows
 *
 * Builds a `permission_grant_added` event (docs/format.md §3.3).
 * It does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_grant_added (const char *session_id,
                                      const char *ts,
                                      const char *grant_id,
                                      const char *tool_id)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL && ts != NULL, NULL);
  g_return_val_if_fail (grant_id != NULL && tool_id != NULL, NULL);

  object = natter_session_event_begin ("permission_grant_added", session_id, ts);
  json_object_set_string_member (object, "grantId", grant_id);
  json_object_set_string_member (object, "toolId", tool_id);
  return natter_session_event_wrap (object);
}

/**
 * natter_session_event_new_grant_removed:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @grant_id: the active grant to revoke
 *
 * Builds a `permission_grant_removed` event (docs/format.md
 * §3.3). It does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_grant_removed (const char *session_id,
                                        const char *ts,
                                        const char *grant_id)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL && ts != NULL && grant_id != NULL, NULL);

  object = natter_session_event_begin ("permission_grant_removed", session_id, ts);
  json_object_set_string_member (object, "grantId", grant_id);
  return natter_session_event_wrap (object);
}

/**
 * natter_session_event_new_message_queued:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @queue_id: the queued message's id (an id of the id generator)
 * @message: (transfer none): the user message
 * @options: (transfer none): the send options it will become a turn with
 *
 * Builds a `message_queued` event (docs/format.md §3.3). The event
 * holds new references to @message and @options, which must not be
 * modified afterwards. It does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_message_queued (const char *session_id,
                                         const char *ts,
                                         const char *queue_id,
                                         JsonObject *message,
                                         JsonObject *options)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL && ts != NULL && queue_id != NULL, NULL);
  g_return_val_if_fail (message != NULL && options != NULL, NULL);

  object = natter_session_event_begin ("message_queued", session_id, ts);
  json_object_set_string_member (object, "queueId", queue_id);
  json_object_set_object_member (object, "message", json_object_ref (message));
  json_object_set_object_member (object, "options", json_object_ref (options));
  return natter_session_event_wrap (object);
}

/**
 * natter_session_event_new_queued_message_replaced:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @queue_id: the pending queued message
 * @message: (transfer none): its new text, as a user message
 *
 * Builds a `queued_message_replaced` event (an edit; docs/format.md §3.3). The
 * event holds a new reference to @message. It does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_queued_message_replaced (const char *session_id,
                                                  const char *ts,
                                                  const char *queue_id,
                                                  JsonObject *message)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL && ts != NULL && queue_id != NULL, NULL);
  g_return_val_if_fail (message != NULL, NULL);

  object = natter_session_event_begin ("queued_message_replaced", session_id, ts);
  json_object_set_string_member (object, "queueId", queue_id);
  json_object_set_object_member (object, "message", json_object_ref (message));
  return natter_session_event_wrap (object);
}

/**
 * natter_session_event_new_queued_message_removed:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @queue_id: the pending queued message
 *
 * Builds a `queued_message_removed` event (a cancel; docs/format.md §3.3). It
 * does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_queued_message_removed (const char *session_id,
                                                 const char *ts,
                                                 const char *queue_id)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL && ts != NULL && queue_id != NULL, NULL);

  object = natter_session_event_begin ("queued_message_removed", session_id, ts);
  json_object_set_string_member (object, "queueId", queue_id);
  return natter_session_event_wrap (object);
}

/**
 * natter_session_event_set_consumed_queue_ids:
 * @turn_appended: a `turn_appended` event being built
 * @queue_ids: (array zero-terminated=1): the pending queued messages the
 *   turn was made of, at least one
 *
 * Adds `consumedQueueIds` (schema version 2): the turn promotes these
 * queued messages, which leave the queue.
 */
void
natter_session_event_set_consumed_queue_ids (JsonNode           *turn_appended,
                                             const char * const *queue_ids)
{
  JsonArray *array;

  g_return_if_fail (turn_appended != NULL && JSON_NODE_HOLDS_OBJECT (turn_appended));
  g_return_if_fail (queue_ids != NULL && queue_ids[0] != NULL);

  array = json_array_new ();
  for (guint i = 0; queue_ids[i] != NULL; i++)
    json_array_add_string_element (array, queue_ids[i]);
  json_object_set_array_member (json_node_get_object (turn_appended), "consumedQueueIds", array);
}

/**
 * natter_session_event_new_conversation_compacted:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @compaction_id: a new id
 * @summary: the summary of the conversation before @first_kept_turn_id;
 *   not empty
 * @first_kept_turn_id: the first turn the next turn's context keeps whole
 *
 * Builds a `conversation_compacted` event (docs/sessions.md §5,
 * docs/format.md "Schema version 2"): the next turn's context is the
 * summary, then the transcript from @first_kept_turn_id on. Nothing is
 * deleted. Write it with the session layer's version-2 writer.
 *
 * Returns: (transfer full): the event
 */
JsonNode *
natter_session_event_new_conversation_compacted (const char *session_id,
                                                 const char *ts,
                                                 const char *compaction_id,
                                                 const char *summary,
                                                 const char *first_kept_turn_id)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL && ts != NULL && compaction_id != NULL, NULL);
  g_return_val_if_fail (summary != NULL && first_kept_turn_id != NULL, NULL);

  object = natter_session_event_begin ("conversation_compacted", session_id, ts);
  json_object_set_string_member (object, "compactionId", compaction_id);
  json_object_set_string_member (object, "summary", summary);
  json_object_set_string_member (object, "firstKeptTurnId", first_kept_turn_id);
  return natter_session_event_wrap (object);
}
