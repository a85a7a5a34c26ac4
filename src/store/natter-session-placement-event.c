/* natter-session-placement-event.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session events of schema version 4: their validation (called by
 * natter_session_event_validate()) and their builders. Each states the
 * whole of what it changes — whether the conversation is pinned, which
 * folder it is in — so the last one of a kind is all a reader needs and
 * no event depends on another (the fold is in
 * natter-session-placement-fold.c). A folder is named by its id: what it
 * is called lives in the folder's own log (natter-folder-log.c), so a
 * rename touches no conversation.
 */

#define G_LOG_DOMAIN "natter-session-schema"

#include "natter-id.h"
#include "natter-json.h"
#include "natter-session-placement-event.h"
#include "natter-session-schema-private.h"
#include "natter-store-error.h"

static const char * const pin_changed_members[] = {
  "type", "sessionId", "ts", "pinned", NULL
};
static const char * const folder_changed_members[] = {
  "type", "sessionId", "ts", "folderId", NULL
};

/**
 * natter_session_event_is_v4_type:
 * @type: a session event type
 *
 * Returns: whether @type is one of the event types session schema
 *   version 4 added (docs/format.md §3.6)
 */
gboolean
natter_session_event_is_v4_type (const char *type)
{
  g_return_val_if_fail (type != NULL, FALSE);

  return g_str_equal (type, "pin_changed") || g_str_equal (type, "folder_changed");
}

static gboolean
validate_pin_changed (JsonObject  *event,
                      GError     **error)
{
  gboolean pinned;

  return natter_session_schema_check_members (event, pin_changed_members, "pin_changed", error) &&
         natter_json_require_boolean (event, "pinned", &pinned, error);
}

static gboolean
validate_folder_changed (JsonObject  *event,
                         GError     **error)
{
  const char *folder_id = NULL;

  if (!natter_session_schema_check_members (event, folder_changed_members, "folder_changed", error) ||
      !natter_json_optional_string (event, "folderId", &folder_id, error))
    return FALSE;
  return folder_id == NULL || natter_id_validate_field ("folderId", folder_id, error);
}

/**
 * natter_session_schema_validate_v4: (skip)
 * @type: the event's type, one of natter_session_event_is_v4_type()
 * @event: the event, whose `type`, `sessionId` and `ts` were checked
 * @error: return location for a #GError
 *
 * The per-type half of natter_session_event_validate() for the events of
 * schema version 4 (docs/format.md §3.6).
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA
 */
gboolean
natter_session_schema_validate_v4 (const char  *type,
                                   JsonObject  *event,
                                   GError     **error)
{
  if (g_str_equal (type, "pin_changed"))
    return validate_pin_changed (event, error);
  g_assert (g_str_equal (type, "folder_changed"));
  return validate_folder_changed (event, error);
}

/**
 * natter_session_event_new_pin_changed:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @pinned: whether the conversation is pinned from now on
 *
 * Builds a `pin_changed` event (docs/format.md §3.6). Write it with the
 * session layer's writer of later-version events, which raises the file
 * first. It does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_pin_changed (const char *session_id,
                                      const char *ts,
                                      gboolean    pinned)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL && ts != NULL, NULL);

  object = natter_session_event_begin ("pin_changed", session_id, ts);
  json_object_set_boolean_member (object, "pinned", pinned);
  return natter_session_event_wrap (object);
}

/**
 * natter_session_event_new_folder_changed:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @folder_id: (nullable): the id of the folder the conversation is in
 *   from now on, or %NULL for none
 *
 * Builds a `folder_changed` event (docs/format.md §3.6). Write it like
 * natter_session_event_new_pin_changed(). It does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_folder_changed (const char *session_id,
                                         const char *ts,
                                         const char *folder_id)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL && ts != NULL, NULL);

  object = natter_session_event_begin ("folder_changed", session_id, ts);
  if (folder_id != NULL)
    json_object_set_string_member (object, "folderId", folder_id);
  return natter_session_event_wrap (object);
}
