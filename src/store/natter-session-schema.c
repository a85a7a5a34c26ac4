/* natter-session-schema.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-session-schema"

#include <string.h>

#include "natter-id.h"
#include "natter-json.h"
#include "natter-session-parameters-event.h"
#include "natter-session-placement-event.h"
#include "natter-session-schema.h"
#include "natter-session-schema-private.h"
#include "natter-store-error.h"

/* Validation is strict in both directions: every required field must be
 * there with the right type, and no member outside the schema may be
 * present. A member this version does not know would otherwise be read,
 * ignored by the reducer and silently dropped by any rewrite, which is the
 * lossy behaviour the spec forbids (docs/sessions.md §6.2: additions arrive as
 * a schema version bump, not as stray fields). */

static const char * const created_members[] = {
  "type", "sessionId", "ts", "schemaVersion", "title", "cwd",
  "parentSession", "forkedFromTurnId", NULL
};
static const char * const turn_appended_members[] = {
  "type", "sessionId", "ts", "turnId", "sessionSeq", "agentId", "model",
  "consumedQueueIds", NULL
};
static const char * const title_changed_members[] = {
  "type", "sessionId", "ts", "title", NULL
};
static const char * const model_members[] = {
  "provider", "model", NULL
};

static gboolean
validate_created (JsonObject  *event,
                  GError     **error)
{
  const char *cwd = NULL;
  const char *parent = NULL;
  const char *forked_from = NULL;
  gint64 version = 0;

  /* The version comes first so that a file from a newer Natter fails as
   * UNSUPPORTED_VERSION rather than on one of its new fields. */
  if (!natter_json_require_int (event, "schemaVersion", &version, error))
    return FALSE;
  /* Every version ever written keeps reading: files are never rewritten. */
  if (version < 1 || version > NATTER_SESSION_SCHEMA_VERSION)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNSUPPORTED_VERSION,
                   "Session schema version %" G_GINT64_FORMAT " is not supported "
                   "(only 1 to %d are)", version, NATTER_SESSION_SCHEMA_VERSION);
      return FALSE;
    }

  if (!natter_session_schema_check_members (event, created_members, "session_created", error))
    return FALSE;
  if (!natter_json_optional_string (event, "title", NULL, error))
    return FALSE;

  if (!natter_json_optional_string (event, "cwd", &cwd, error))
    return FALSE;
  if (cwd != NULL && !natter_session_cwd_validate (cwd, error))
    return FALSE;

  if (!natter_json_optional_string (event, "parentSession", &parent, error))
    return FALSE;
  if (parent != NULL && !natter_id_validate_field ("parentSession", parent, error))
    return FALSE;

  if (!natter_json_optional_string (event, "forkedFromTurnId", &forked_from, error))
    return FALSE;
  if (forked_from != NULL)
    {
      /* A fork point is meaningless without the session it was taken from. */
      if (parent == NULL)
        {
          g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                               "Field “forkedFromTurnId” requires “parentSession”");
          return FALSE;
        }
      if (!natter_id_validate_field ("forkedFromTurnId", forked_from, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
validate_turn_appended (JsonObject  *event,
                        GError     **error)
{
  JsonObject *model;
  gint64 seq = 0;

  if (!natter_session_schema_check_members (event, turn_appended_members, "turn_appended", error))
    return FALSE;
  if (natter_id_require_field (event, "turnId", error) == NULL)
    return FALSE;

  if (!natter_json_require_int (event, "sessionSeq", &seq, error))
    return FALSE;
  if (seq < 1)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “sessionSeq” must be at least 1, not %" G_GINT64_FORMAT, seq);
      return FALSE;
    }

  if (!natter_json_require_nonempty_string (event, "agentId", error))
    return FALSE;

  /* The model descriptor of docs/runtime.md §12: {provider, model}. */
  model = natter_json_require_object (event, "model", error);
  if (model == NULL)
    return FALSE;
  if (!natter_session_schema_check_members (model, model_members, "The model descriptor", error) ||
      !natter_json_require_nonempty_string (model, "provider", error) ||
      !natter_json_require_nonempty_string (model, "model", error))
    {
      g_prefix_error (error, "Field “model”: ");
      return FALSE;
    }

  /* Schema version 2: the queued messages this turn was made of. */
  if (json_object_has_member (event, "consumedQueueIds") &&
      !natter_session_schema_validate_queue_ids (event, error))
    return FALSE;

  return TRUE;
}

static gboolean
validate_title_changed (JsonObject  *event,
                        GError     **error)
{
  if (!natter_session_schema_check_members (event, title_changed_members, "title_changed", error))
    return FALSE;
  return natter_json_require_string (event, "title", error) != NULL;
}

/**
 * natter_session_event_validate:
 * @event: (transfer none): one session event
 * @session_id: (nullable): the id of the session file the event belongs to,
 *   or %NULL to accept any valid id (the reducer compares ids itself)
 * @error: return location for a #GError
 *
 * Validates one session event field by field (docs/sessions.md §6.2
 * and docs/format.md §3.1). Every event needs `type`, `sessionId` (a valid id,
 * equal to
 * @session_id when given) and an ISO-8601 UTC `ts`. Per type:
 *
 * - `session_created`: `schemaVersion` 1 to %NATTER_SESSION_SCHEMA_VERSION; optional `title`
 *   (string), `cwd` (natter_session_cwd_validate()), `parentSession` (a
 *   valid id) and `forkedFromTurnId` (a valid id, only with
 *   `parentSession`);
 * - `turn_appended`: `turnId` (a valid id), `sessionSeq` (an integer ≥ 1),
 *   `agentId` (a non-empty string), `model` (`{provider, model}`, both
 *   non-empty strings);
 * - `title_changed`: `title` (a string);
 * - the events of schema version 2 and `turn_appended.consumedQueueIds`,
 *   as docs/format.md describes them (natter-session-schema-upgrade.c);
 * - the events of schema version 3 (natter-session-parameters-event.c);
 * - the events of schema version 4 (natter-session-placement-event.c).
 *
 * Whether a version-2 event may appear at its place in a file (the file
 * must be at version 2 by then) is the reducer's rule, not this
 * line-by-line check.
 *
 * Members outside the schema are refused. This function matches
 * #NatterEventValidator, so it is what the session repository runs on every
 * line it reads or appends.
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_UNKNOWN_TYPE
 *   (a `type` this version does not know),
 *   %NATTER_STORE_ERROR_UNSUPPORTED_VERSION (`schemaVersion` other than 1
 *   to 4)
 *   or %NATTER_STORE_ERROR_SCHEMA (anything else).
 */
gboolean
natter_session_event_validate (JsonObject  *event,
                               const char  *session_id,
                               GError     **error)
{
  const char *type;
  const char *event_session_id = NULL;

  g_return_val_if_fail (event != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  type = natter_json_require_string (event, "type", error);
  if (type == NULL)
    return FALSE;
  if (!g_str_equal (type, "session_created") &&
      !g_str_equal (type, "turn_appended") &&
      !g_str_equal (type, "title_changed") &&
      /* Schema version 2 (natter-session-schema-upgrade.c). */
      !g_str_equal (type, "schema_upgraded") &&
      !g_str_equal (type, "permission_grant_added") &&
      !g_str_equal (type, "permission_grant_removed") &&
      !g_str_equal (type, "message_queued") &&
      !g_str_equal (type, "queued_message_replaced") &&
      !g_str_equal (type, "queued_message_removed") &&
      !g_str_equal (type, "conversation_compacted") &&
      /* Schema version 3 (natter-session-parameters-event.c). */
      !g_str_equal (type, "parameters_changed") &&
      /* Schema version 4 (natter-session-placement-event.c). */
      !g_str_equal (type, "pin_changed") &&
      !g_str_equal (type, "folder_changed"))
    {
      g_autofree char *shown = g_utf8_make_valid (type, MIN (strlen (type), 64));

      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNKNOWN_TYPE,
                   "Unknown session event type “%s”", shown);
      return FALSE;
    }

  if ((event_session_id = natter_id_require_field (event, "sessionId", error)) == NULL)
    return FALSE;
  if (session_id != NULL && !g_str_equal (event_session_id, session_id))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “sessionId” is “%s”, expected “%s”",
                   event_session_id, session_id);
      return FALSE;
    }

  if (natter_json_require_timestamp (event, "ts", error) == NULL)
    return FALSE;

  if (g_str_equal (type, "session_created"))
    return validate_created (event, error);
  if (g_str_equal (type, "turn_appended"))
    return validate_turn_appended (event, error);
  if (g_str_equal (type, "title_changed"))
    return validate_title_changed (event, error);
  if (natter_session_event_is_v3_type (type))
    return natter_session_schema_validate_v3 (type, event, error);
  if (natter_session_event_is_v4_type (type))
    return natter_session_schema_validate_v4 (type, event, error);
  return natter_session_schema_validate_v2 (type, event, error);
}

/**
 * natter_session_event_new_created:
 * @session_id: the new session's id
 * @ts: an ISO-8601 UTC timestamp
 * @title: (nullable): the initial title
 * @cwd: (nullable): the session's absolute, normalized working directory
 * @parent_session: (nullable): the session this one descends from
 * @forked_from_turn_id: (nullable): for a fork, the last turn of
 *   @parent_session that the fork keeps; only with @parent_session
 *
 * Builds a `session_created` event at `schemaVersion` 1
 * (docs/format.md §3.1; dsh-session.md header fields): every file
 * starts at the lowest version, which every reader of version 1 reads,
 * and is raised by `schema_upgraded` right before its first event of a
 * later version (natter_session_events_raise(); docs/format.md §3.3).
 * Absent optional fields are omitted, never written as null. It does not
 * validate: the repository runs natter_session_event_validate() on create.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_created (const char *session_id,
                                  const char *ts,
                                  const char *title,
                                  const char *cwd,
                                  const char *parent_session,
                                  const char *forked_from_turn_id)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL, NULL);
  g_return_val_if_fail (ts != NULL, NULL);

  object = natter_session_event_begin ("session_created", session_id, ts);
  json_object_set_int_member (object, "schemaVersion", 1);
  if (title != NULL)
    json_object_set_string_member (object, "title", title);
  if (cwd != NULL)
    json_object_set_string_member (object, "cwd", cwd);
  if (parent_session != NULL)
    json_object_set_string_member (object, "parentSession", parent_session);
  if (forked_from_turn_id != NULL)
    json_object_set_string_member (object, "forkedFromTurnId", forked_from_turn_id);
  return natter_session_event_wrap (object);
}

/**
 * natter_session_event_new_turn_appended:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @turn_id: the id of the (already created) turn
 * @session_seq: the 1-based position of the turn in the session
 * @agent_id: the agent the turn runs, denormalized from the turn
 * @model: (transfer none): the resolved `{provider, model}` descriptor,
 *   denormalized from the turn
 *
 * Builds a `turn_appended` event (docs/format.md §3.1). The event
 * holds a new reference to @model, so @model must not be modified
 * afterwards. It does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_turn_appended (const char *session_id,
                                        const char *ts,
                                        const char *turn_id,
                                        gint64      session_seq,
                                        const char *agent_id,
                                        JsonObject *model)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL, NULL);
  g_return_val_if_fail (ts != NULL, NULL);
  g_return_val_if_fail (turn_id != NULL, NULL);
  g_return_val_if_fail (agent_id != NULL, NULL);
  g_return_val_if_fail (model != NULL, NULL);

  object = natter_session_event_begin ("turn_appended", session_id, ts);
  json_object_set_string_member (object, "turnId", turn_id);
  json_object_set_int_member (object, "sessionSeq", session_seq);
  json_object_set_string_member (object, "agentId", agent_id);
  json_object_set_object_member (object, "model", json_object_ref (model));
  return natter_session_event_wrap (object);
}

/**
 * natter_session_event_new_title_changed:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @title: the new title
 *
 * Builds a `title_changed` event (docs/format.md §3.1). It does not
 * validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_title_changed (const char *session_id,
                                        const char *ts,
                                        const char *title)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL, NULL);
  g_return_val_if_fail (ts != NULL, NULL);
  g_return_val_if_fail (title != NULL, NULL);

  object = natter_session_event_begin ("title_changed", session_id, ts);
  json_object_set_string_member (object, "title", title);
  return natter_session_event_wrap (object);
}
