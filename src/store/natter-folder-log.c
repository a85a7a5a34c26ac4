/* natter-folder-log.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A folder is a log of its own, so that renaming it is one append to one
 * file and touches no conversation: a conversation names its folder by
 * id (`folder_changed`, docs/format.md §3.6) and the folder's log says
 * what it is called (docs/format.md §8). A folder nobody put a conversation in yet
 * exists all the same, and deleting one removes its log only: the
 * conversations that named it are then in no folder, and nothing else
 * changes.
 */

#define G_LOG_DOMAIN "natter-store"

#include <string.h>

#include "natter-folder-log.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-session-schema-private.h"
#include "natter-store-error.h"

static const char * const created_members[] = {
  "type", "folderId", "ts", "schemaVersion", "name", NULL
};
static const char * const renamed_members[] = {
  "type", "folderId", "ts", "name", NULL
};

/**
 * natter_folder_repo_new:
 * @storage_dir: (transfer none): the `storage` directory
 *
 * The repository of folder logs: kind `folders`, first line
 * `folder_created`, events checked by natter_folder_event_validate().
 *
 * Returns: (transfer full): a new repository
 */
NatterJsonlRepo *
natter_folder_repo_new (GFile *storage_dir)
{
  return natter_jsonl_repo_new (storage_dir, "folders", "folder_created", natter_folder_event_validate);
}

static gboolean
require_name (JsonObject  *event,
              GError     **error)
{
  const char *name = natter_json_require_string (event, "name", error);
  g_autofree char *stripped = NULL;

  if (name == NULL)
    return FALSE;
  stripped = g_strstrip (g_strdup (name));
  if (stripped[0] == '\0')
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                           "Field “name” must not be empty");
      return FALSE;
    }
  return TRUE;
}

/**
 * natter_folder_event_validate:
 * @event: (transfer none): one event of a folder log
 * @folder_id: (nullable): the id of the log's file, or %NULL for any
 * @error: return location for a #GError
 *
 * Validates one folder event (docs/format.md §8): `type`, `folderId` (a
 * valid id, equal to @folder_id when given), `ts`; then `folder_created`
 * with `schemaVersion` 1 and `name`, or `folder_renamed` with `name`.
 * Names are strings with something besides white space. Members outside
 * these are refused. Matches #NatterEventValidator.
 *
 * Returns: %TRUE if valid; else %FALSE with
 *   %NATTER_STORE_ERROR_UNKNOWN_TYPE, %NATTER_STORE_ERROR_UNSUPPORTED_VERSION
 *   or %NATTER_STORE_ERROR_SCHEMA
 */
gboolean
natter_folder_event_validate (JsonObject  *event,
                              const char  *folder_id,
                              GError     **error)
{
  const char *type;
  const char *id;

  g_return_val_if_fail (event != NULL, FALSE);

  type = natter_json_require_string (event, "type", error);
  if (type == NULL)
    return FALSE;
  if (!g_str_equal (type, "folder_created") && !g_str_equal (type, "folder_renamed"))
    {
      g_autofree char *shown = g_utf8_make_valid (type, MIN (strlen (type), 64));

      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNKNOWN_TYPE,
                   "Unknown folder event type “%s”", shown);
      return FALSE;
    }
  if ((id = natter_id_require_field (event, "folderId", error)) == NULL)
    return FALSE;
  if (folder_id != NULL && !g_str_equal (id, folder_id))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “folderId” is “%s”, expected “%s”", id, folder_id);
      return FALSE;
    }
  if (natter_json_require_timestamp (event, "ts", error) == NULL)
    return FALSE;

  if (g_str_equal (type, "folder_created"))
    {
      gint64 version = 0;

      if (!natter_json_require_int (event, "schemaVersion", &version, error))
        return FALSE;
      if (version != NATTER_FOLDER_SCHEMA_VERSION)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNSUPPORTED_VERSION,
                       "Folder schema version %" G_GINT64_FORMAT " is not supported (only %d is)",
                       version, NATTER_FOLDER_SCHEMA_VERSION);
          return FALSE;
        }
      return natter_session_schema_check_members (event, created_members, type, error) &&
             require_name (event, error);
    }
  return natter_session_schema_check_members (event, renamed_members, type, error) &&
         require_name (event, error);
}

static JsonNode *
new_event (const char *type,
           const char *folder_id,
           const char *ts,
           const char *name,
           gint64      schema_version)
{
  JsonObject *object = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (object, "type", type);
  json_object_set_string_member (object, "folderId", folder_id);
  json_object_set_string_member (object, "ts", ts);
  if (schema_version > 0)
    json_object_set_int_member (object, "schemaVersion", schema_version);
  json_object_set_string_member (object, "name", name);
  json_node_take_object (node, object);
  return node;
}

/**
 * natter_folder_event_new_created:
 * @folder_id: the new folder's id
 * @ts: an ISO-8601 UTC timestamp
 * @name: its name, not blank
 *
 * Builds `folder_created` (docs/format.md §8). It does not validate:
 * the repository does on create.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_folder_event_new_created (const char *folder_id,
                                 const char *ts,
                                 const char *name)
{
  g_return_val_if_fail (folder_id != NULL && ts != NULL && name != NULL, NULL);

  return new_event ("folder_created", folder_id, ts, name, NATTER_FOLDER_SCHEMA_VERSION);
}

/**
 * natter_folder_event_new_renamed:
 * @folder_id: the folder's id
 * @ts: an ISO-8601 UTC timestamp
 * @name: its new name, not blank
 *
 * Builds `folder_renamed` (docs/format.md §8). It does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_folder_event_new_renamed (const char *folder_id,
                                 const char *ts,
                                 const char *name)
{
  g_return_val_if_fail (folder_id != NULL && ts != NULL && name != NULL, NULL);

  return new_event ("folder_renamed", folder_id, ts, name, 0);
}

/* An event's `ts` in microseconds since the epoch; the schema checked
 * that it is a timestamp. */
static gint64
event_time (JsonObject *event)
{
  g_autoptr(GDateTime) when = g_date_time_new_from_iso8601 (json_object_get_string_member (event, "ts"), NULL);

  if (when == NULL)
    return G_MININT64;
  return g_date_time_to_unix (when) * G_USEC_PER_SEC + g_date_time_get_microsecond (when);
}

/**
 * natter_folder_reduce_name:
 * @events: (element-type JsonNode): a folder's events as the folder
 *   repository read them (validated, `folder_created` first and only
 *   there)
 *
 * Returns: (transfer full): the folder's name: that of its last event
 */
char *
natter_folder_reduce_name (GPtrArray *events)
{
  g_return_val_if_fail (events != NULL && events->len > 0, NULL);

  return g_strdup (json_object_get_string_member (json_node_get_object (g_ptr_array_index (events,
                                                                                           events->len - 1)),
                                                  "name"));
}

/**
 * natter_folder_reduce_name_with_copies:
 * @events: (element-type JsonNode): a folder's events as the folder
 *   repository read them
 * @copies: (element-type GPtrArray): the events of each conflict copy of
 *   the folder's log (docs/format.md §9.4), read the same way
 *
 * The name of a folder renamed on two devices at once: the name given
 * last, by the `ts` of the event that gave it, among the log and its
 * copies; the log's where two were given at the same instant. Every
 * device reads the same files and so the same name, and nothing is
 * written.
 *
 * Returns: (transfer full): the folder's name
 */
char *
natter_folder_reduce_name_with_copies (GPtrArray *events,
                                       GPtrArray *copies)
{
  JsonObject *last;
  gint64 last_time;

  g_return_val_if_fail (events != NULL && events->len > 0, NULL);
  g_return_val_if_fail (copies != NULL, NULL);

  last = json_node_get_object (g_ptr_array_index (events, events->len - 1));
  last_time = event_time (last);
  for (guint c = 0; c < copies->len; c++)
    {
      GPtrArray *copy = g_ptr_array_index (copies, c);
      JsonObject *candidate = json_node_get_object (g_ptr_array_index (copy, copy->len - 1));
      gint64 when = event_time (candidate);

      if (when > last_time)
        {
          last = candidate;
          last_time = when;
        }
    }
  return g_strdup (json_object_get_string_member (last, "name"));
}
