/* natter-session-grants-queue.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fold of what session schema version 2 added (docs/format.md "Schema
 * version 2"): the file's version, raised only by `schema_upgraded`; the
 * version-2 events, refused while the file is at version 1; the active
 * permission grants (docs/format.md §3.4); and the pending queue
 * of messages, derived by supersession (docs/format.md §3.4). Split into a
 * check that changes nothing and a commit that cannot fail, so that applying an
 * event stays atomic.
 */

#define G_LOG_DOMAIN "natter-session-reducer"

#include "natter-session-grants-queue.h"
#include "natter-session-reducer-private.h"
#include "natter-session-schema-upgrade.h"
#include "natter-store-error.h"

static void
grant_free (NatterSessionGrant *grant)
{
  g_free ((char *) grant->grant_id);
  g_free ((char *) grant->tool_id);
  g_free ((char *) grant->ts);
  g_free (grant);
}

static void
queued_free (NatterSessionQueuedMessage *queued)
{
  g_free ((char *) queued->queue_id);
  g_clear_pointer (&queued->message, json_object_unref);
  g_clear_pointer (&queued->options, json_object_unref);
  g_free ((char *) queued->ts);
  g_free (queued);
}

/* A sealed object the state may keep: the member itself when it is
 * already sealed (every line read from disk is), else a sealed deep copy. */
static JsonObject *
sealed_member (JsonObject *event,
               const char *member)
{
  JsonNode *node = json_object_get_member (event, member);
  g_autoptr(JsonNode) copy = NULL;

  if (json_node_is_immutable (node))
    return json_object_ref (json_node_get_object (node));
  copy = json_node_copy (node);
  json_node_seal (copy);
  return json_object_ref (json_node_get_object (copy));
}

void
natter_session_v2_fold_clear (NatterSessionV2Fold *fold)
{
  g_clear_pointer (&fold->grants, g_ptr_array_unref);
  g_clear_pointer (&fold->queue, g_ptr_array_unref);
  g_clear_pointer (&fold->used_ids, g_hash_table_unref);
}

static void
ensure_tables (NatterSessionV2Fold *fold)
{
  if (fold->grants != NULL)
    return;
  fold->grants = g_ptr_array_new_with_free_func ((GDestroyNotify) grant_free);
  fold->queue = g_ptr_array_new_with_free_func ((GDestroyNotify) queued_free);
  fold->used_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static int
find_grant (NatterSessionV2Fold *fold,
            const char          *grant_id)
{
  for (guint i = 0; fold->grants != NULL && i < fold->grants->len; i++)
    if (g_str_equal (((NatterSessionGrant *) g_ptr_array_index (fold->grants, i))->grant_id, grant_id))
      return (int) i;
  return -1;
}

static int
find_queued (NatterSessionV2Fold *fold,
             const char          *queue_id)
{
  for (guint i = 0; fold->queue != NULL && i < fold->queue->len; i++)
    if (g_str_equal (((NatterSessionQueuedMessage *) g_ptr_array_index (fold->queue, i))->queue_id, queue_id))
      return (int) i;
  return -1;
}

static gboolean
id_is_new (NatterSessionV2Fold  *fold,
           const char           *member,
           const char           *id,
           GError              **error)
{
  if (fold->used_ids == NULL || !g_hash_table_contains (fold->used_ids, id))
    return TRUE;
  g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
               "%s “%s” is used more than once", member, id);
  return FALSE;
}

static gboolean
check_consumed (NatterSessionV2Fold  *fold,
                JsonObject           *event,
                GError              **error)
{
  JsonArray *ids = json_object_get_array_member (event, "consumedQueueIds");
  guint n = json_array_get_length (ids);

  for (guint i = 0; i < n; i++)
    {
      const char *id = json_array_get_string_element (ids, i);

      if (find_queued (fold, id) < 0)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                       "consumedQueueIds names “%s”, which is not a pending queued message", id);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (g_str_equal (json_array_get_string_element (ids, j), id))
          {
            g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                         "consumedQueueIds names “%s” twice", id);
            return FALSE;
          }
    }
  return TRUE;
}

/* The rules of one event that passed natter_session_event_validate(),
 * after session_created; changes nothing. */
gboolean
natter_session_v2_fold_check (NatterSessionV2Fold  *fold,
                              JsonObject           *event,
                              const char           *type,
                              GError              **error)
{
  gint64 required = natter_session_event_get_required_version (event);

  if (g_str_equal (type, "schema_upgraded"))
    {
      /* One step at a time, from the file's own version: never in a file
       * created at the newest version, never twice. */
      if (required != fold->schema_version)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                       "schema_upgraded to version %" G_GINT64_FORMAT " in a file at version %"
                       G_GINT64_FORMAT, required + 1, fold->schema_version);
          return FALSE;
        }
      return TRUE;
    }
  if (required > fold->schema_version)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "%s%s needs session schema version %" G_GINT64_FORMAT "; the file is at version %"
                   G_GINT64_FORMAT, type,
                   g_str_equal (type, "turn_appended") ? " with consumedQueueIds" : "",
                   required, fold->schema_version);
      return FALSE;
    }

  if (g_str_equal (type, "permission_grant_added"))
    return id_is_new (fold, "grantId", json_object_get_string_member (event, "grantId"), error);
  if (g_str_equal (type, "message_queued"))
    return id_is_new (fold, "queueId", json_object_get_string_member (event, "queueId"), error);
  if (g_str_equal (type, "conversation_compacted"))
    return id_is_new (fold, "compactionId", json_object_get_string_member (event, "compactionId"), error);
  if (g_str_equal (type, "permission_grant_removed"))
    {
      const char *id = json_object_get_string_member (event, "grantId");

      if (find_grant (fold, id) >= 0)
        return TRUE;
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                   "permission_grant_removed names “%s”, which is not an active grant", id);
      return FALSE;
    }
  if (g_str_equal (type, "queued_message_replaced") || g_str_equal (type, "queued_message_removed"))
    {
      const char *id = json_object_get_string_member (event, "queueId");

      if (find_queued (fold, id) >= 0)
        return TRUE;
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                   "%s names “%s”, which is not a pending queued message", type, id);
      return FALSE;
    }
  if (g_str_equal (type, "turn_appended") && json_object_has_member (event, "consumedQueueIds"))
    return check_consumed (fold, event, error);
  return TRUE;
}

static void
commit_consumed (NatterSessionV2Fold *fold,
                 JsonObject          *event)
{
  JsonArray *ids = json_object_get_array_member (event, "consumedQueueIds");

  for (guint i = 0; i < json_array_get_length (ids); i++)
    g_ptr_array_remove_index (fold->queue, find_queued (fold, json_array_get_string_element (ids, i)));
}

/* Folds an event that passed natter_session_v2_fold_check() (or is the
 * session_created the reducer accepted). */
void
natter_session_v2_fold_commit (NatterSessionV2Fold *fold,
                               JsonObject          *event,
                               const char          *type)
{
  if (g_str_equal (type, "session_created") || g_str_equal (type, "schema_upgraded"))
    {
      fold->schema_version = json_object_get_int_member (event, "schemaVersion");
      return;
    }
  ensure_tables (fold);
  if (g_str_equal (type, "permission_grant_added"))
    {
      NatterSessionGrant *grant = g_new0 (NatterSessionGrant, 1);

      grant->grant_id = g_strdup (json_object_get_string_member (event, "grantId"));
      grant->tool_id = g_strdup (json_object_get_string_member (event, "toolId"));
      grant->ts = g_strdup (json_object_get_string_member (event, "ts"));
      g_hash_table_add (fold->used_ids, g_strdup (grant->grant_id));
      g_ptr_array_add (fold->grants, grant);
    }
  else if (g_str_equal (type, "permission_grant_removed"))
    g_ptr_array_remove_index (fold->grants, find_grant (fold, json_object_get_string_member (event, "grantId")));
  else if (g_str_equal (type, "message_queued"))
    {
      NatterSessionQueuedMessage *queued = g_new0 (NatterSessionQueuedMessage, 1);

      queued->queue_id = g_strdup (json_object_get_string_member (event, "queueId"));
      queued->message = sealed_member (event, "message");
      queued->options = sealed_member (event, "options");
      queued->ts = g_strdup (json_object_get_string_member (event, "ts"));
      g_hash_table_add (fold->used_ids, g_strdup (queued->queue_id));
      g_ptr_array_add (fold->queue, queued);
    }
  else if (g_str_equal (type, "queued_message_replaced"))
    {
      NatterSessionQueuedMessage *queued =
        g_ptr_array_index (fold->queue, find_queued (fold, json_object_get_string_member (event, "queueId")));

      g_clear_pointer (&queued->message, json_object_unref);
      queued->message = sealed_member (event, "message");
    }
  else if (g_str_equal (type, "conversation_compacted"))
    g_hash_table_add (fold->used_ids, g_strdup (json_object_get_string_member (event, "compactionId")));
  else if (g_str_equal (type, "queued_message_removed"))
    g_ptr_array_remove_index (fold->queue, find_queued (fold, json_object_get_string_member (event, "queueId")));
  else if (g_str_equal (type, "turn_appended") && json_object_has_member (event, "consumedQueueIds"))
    commit_consumed (fold, event);
}

/**
 * natter_session_state_get_schema_version:
 * @self: a #NatterSessionState
 *
 * The session file's schema version: its `session_created.schemaVersion`,
 * raised by each `schema_upgraded` (docs/format.md "Schema version 2").
 *
 * Returns: 1 or 2; 0 before `session_created` was applied
 */
gint64
natter_session_state_get_schema_version (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->v2.schema_version;
}

/**
 * natter_session_state_get_n_grants:
 * @self: a #NatterSessionState
 *
 * Returns: the number of active permission grants (docs/format.md §3.4)
 */
guint
natter_session_state_get_n_grants (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->v2.grants != NULL ? self->v2.grants->len : 0;
}

/**
 * natter_session_state_get_grant:
 * @self: a #NatterSessionState
 * @index: 0-based, in the order the grants were added
 *
 * Returns: (transfer none): the active grant; valid until @self is freed
 *   or has another event applied
 */
const NatterSessionGrant *
natter_session_state_get_grant (NatterSessionState *self,
                                guint               index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < natter_session_state_get_n_grants (self), NULL);

  return g_ptr_array_index (self->v2.grants, index);
}

/**
 * natter_session_state_find_grant:
 * @self: a #NatterSessionState
 * @grant_id: a grant id
 *
 * Returns: (transfer none) (nullable): the active grant with that id, or
 *   %NULL (never added, or revoked); valid as for
 *   natter_session_state_get_grant()
 */
const NatterSessionGrant *
natter_session_state_find_grant (NatterSessionState *self,
                                 const char         *grant_id)
{
  int i;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (grant_id != NULL, NULL);

  i = find_grant (&self->v2, grant_id);
  return i >= 0 ? g_ptr_array_index (self->v2.grants, i) : NULL;
}

/**
 * natter_session_state_find_grant_for_tool:
 * @self: a #NatterSessionState
 * @tool_id: a tool's registry id
 *
 * The grant that allows calls of @tool_id in this session, if any: grants
 * are blanket per tool (docs/format.md §3.4). With several, the oldest.
 *
 * Returns: (transfer none) (nullable): the grant, or %NULL; valid as for
 *   natter_session_state_get_grant()
 */
const NatterSessionGrant *
natter_session_state_find_grant_for_tool (NatterSessionState *self,
                                          const char         *tool_id)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (tool_id != NULL, NULL);

  for (guint i = 0; i < natter_session_state_get_n_grants (self); i++)
    {
      const NatterSessionGrant *grant = g_ptr_array_index (self->v2.grants, i);

      if (g_str_equal (grant->tool_id, tool_id))
        return grant;
    }
  return NULL;
}

/**
 * natter_session_state_get_n_queued:
 * @self: a #NatterSessionState
 *
 * Returns: the number of pending queued messages (docs/format.md §3.4)
 */
guint
natter_session_state_get_n_queued (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->v2.queue != NULL ? self->v2.queue->len : 0;
}

/**
 * natter_session_state_get_queued:
 * @self: a #NatterSessionState
 * @index: 0-based; 0 is the oldest, the next to be promoted
 *
 * Returns: (transfer none): the pending queued message; valid until @self
 *   is freed or has another event applied
 */
const NatterSessionQueuedMessage *
natter_session_state_get_queued (NatterSessionState *self,
                                 guint               index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < natter_session_state_get_n_queued (self), NULL);

  return g_ptr_array_index (self->v2.queue, index);
}

/**
 * natter_session_state_find_queued:
 * @self: a #NatterSessionState
 * @queue_id: a queue id
 *
 * Returns: (transfer none) (nullable): the pending queued message with
 *   that id, or %NULL (never queued, removed or promoted); valid as for
 *   natter_session_state_get_queued()
 */
const NatterSessionQueuedMessage *
natter_session_state_find_queued (NatterSessionState *self,
                                  const char         *queue_id)
{
  int i;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (queue_id != NULL, NULL);

  i = find_queued (&self->v2, queue_id);
  return i >= 0 ? g_ptr_array_index (self->v2.queue, i) : NULL;
}
