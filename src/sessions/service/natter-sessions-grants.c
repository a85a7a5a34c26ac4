/* natter-sessions-grants.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Session permission grants (docs/sessions.md §12; docs/format.md
 * §3.3): adding and revoking them under the session lock through the one
 * writer of version-2 events, and "Always Allow", which answers a waiting
 * permission question and adds the grant for its tool. A grant is blanket
 * per tool and belongs to one session; a tool that needs a human
 * (ask_human) can never be granted.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-session-grants-queue.h"
#include "natter-session-index-internal.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-grants.h"
#include "natter-sessions-private.h"
#include "natter-tool-registry.h"
#include "natter-turn-step.h"

/* Whether @descriptor's tool may be granted: a question for the person is
 * never answered in advance. */
static gboolean
check_grantable (JsonObject  *descriptor,
                 const char  *shown,
                 GError     **error)
{
  if (!json_object_get_boolean_member_with_default (descriptor, "requiresHuman", FALSE))
    return TRUE;
  g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
               "%s can never be always allowed: each of its questions is for you to answer", shown);
  return FALSE;
}

/* add_grant */

typedef struct
{
  NatterSessionsOp  base;
  char             *tool_id;
  char             *grant_id;   /* the result */
} GrantData;

NATTER_SESSIONS_DEFINE_OP (GrantData, grant_data)

static void
grant_data_clear (GrantData *data)
{
  g_free (data->tool_id);
  g_free (data->grant_id);
}

static void
index_changed (NatterSessionsOp *data)
{
  natter_session_index_update_from_state (data->self->index, data->state, NULL);
  g_signal_emit (data->self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0,
                 data->session_id);
}

static void
grant_appended_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GrantData *data = grant_data_get (task);

  if (!natter_sessions_op_appended (task, result))
    return;
  natter_sessions_op_finish (task);
  index_changed (&data->base);
  g_task_return_pointer (task, g_steal_pointer (&data->grant_id), g_free);
}

static void
grant_session_read (GTask *task)
{
  GrantData *data = grant_data_get (task);
  const NatterSessionGrant *existing;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *ts = NULL;

  if (natter_sessions_op_check_cancelled (task))
    return;
  /* A tool is granted once: asking again is answered with that grant. */
  existing = natter_session_state_find_grant_for_tool (data->base.state, data->tool_id);
  if (existing != NULL)
    {
      natter_sessions_op_finish (task);
      g_task_return_pointer (task, g_strdup (existing->grant_id), g_free);
      return;
    }
  data->grant_id = natter_id_generator_next (data->base.self->ids);
  ts = natter_clock_format_ts (data->base.self->clock);
  events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_ptr_array_add (events, natter_session_event_new_grant_added (data->base.session_id, ts,
                                                                  data->grant_id, data->tool_id));
  natter_sessions_op_append_v2_async (task, events, grant_appended_cb);
}

static void
add_grant_for_tool_id (NatterSessions      *self,
                       const char          *session_id,
                       const char          *tool_id,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  GTask *task = grant_data_task_new (self, session_id, cancellable, callback, user_data,
                                     natter_sessions_add_grant_async);

  grant_data_get (task)->tool_id = g_strdup (tool_id);
  natter_sessions_op_lock_and_read (task, grant_session_read);
}

/**
 * natter_sessions_add_grant_async:
 * @self: the service
 * @session_id: the session
 * @tool: the tool to allow: its registry id (`natter.read_file`,
 *   `mcp:files/read`) or the name the model sees (`read_file`,
 *   `mcp__files__read`); a tool server's tools are in the registry once
 *   natter_mcp_manager_refresh_async() has listed them
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Allows every call of @tool in @session_id from now on, without asking
 * (docs/sessions.md §12): appends `permission_grant_added` under
 * the session lock (a version-1 file is raised first, docs/format.md
 * §3.3), updates the index entry and emits
 * #NatterSessions::session-index-changed. When the tool is already
 * granted, nothing is written and that grant is the result. Other
 * sessions, and branches of this one, are not affected.
 */
void
natter_sessions_add_grant_async (NatterSessions      *self,
                                 const char          *session_id,
                                 const char          *tool,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  NatterTool *found;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL && tool != NULL);

  found = natter_tool_registry_lookup_id_or_name (natter_turn_runtime_get_tools (self->runtime), tool);
  if (found == NULL)
    error = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                         "There is no tool “%s”", tool);
  else
    check_grantable (natter_tool_get_descriptor (found), tool, &error);
  if (error != NULL)
    {
      g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

      g_task_set_source_tag (task, natter_sessions_add_grant_async);
      g_task_return_error (task, error);
      return;
    }
  add_grant_for_tool_id (self, session_id, natter_tool_get_id (found), cancellable, callback, user_data);
}

/**
 * natter_sessions_add_grant_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the id of the active grant; or
 *   %NULL with %NATTER_SESSION_ERROR_INVALID_ARGUMENT (no such tool, or a
 *   tool that needs a human such as ask_human),
 *   %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_CORRUPT or a
 *   %NATTER_STORE_ERROR from the append
 */
char *
natter_sessions_add_grant_finish (NatterSessions  *self,
                                  GAsyncResult    *result,
                                  GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_add_grant_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* remove_grant */

typedef struct
{
  NatterSessionsOp  base;
  char             *grant_id;
} RevokeData;

NATTER_SESSIONS_DEFINE_OP (RevokeData, revoke_data)

static void
revoke_data_clear (RevokeData *data)
{
  g_free (data->grant_id);
}

static void
revoke_appended_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  if (!natter_sessions_op_appended (task, result))
    return;
  natter_sessions_op_finish (task);
  index_changed (g_task_get_task_data (task));
  g_task_return_boolean (task, TRUE);
}

static void
revoke_session_read (GTask *task)
{
  RevokeData *data = revoke_data_get (task);
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *ts = NULL;

  if (natter_sessions_op_check_cancelled (task))
    return;
  if (natter_session_state_find_grant (data->base.state, data->grant_id) == NULL)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND,
                                                          "Session %s has no active grant %s",
                                                          data->base.session_id, data->grant_id));
      return;
    }
  ts = natter_clock_format_ts (data->base.self->clock);
  events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_ptr_array_add (events, natter_session_event_new_grant_removed (data->base.session_id, ts, data->grant_id));
  natter_sessions_op_append_v2_async (task, events, revoke_appended_cb);
}

/**
 * natter_sessions_remove_grant_async:
 * @self: the service
 * @session_id: the session
 * @grant_id: one of its active grants
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Revokes a grant (docs/sessions.md §12): appends
 * `permission_grant_removed` under the session lock; the next call of its
 * tool asks again. Updates the index entry and emits
 * #NatterSessions::session-index-changed.
 */
void
natter_sessions_remove_grant_async (NatterSessions      *self,
                                    const char          *session_id,
                                    const char          *grant_id,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL && grant_id != NULL);

  task = revoke_data_task_new (self, session_id, cancellable, callback, user_data,
                               natter_sessions_remove_grant_async);
  revoke_data_get (task)->grant_id = g_strdup (grant_id);
  natter_sessions_op_lock_and_read (task, revoke_session_read);
}

/**
 * natter_sessions_remove_grant_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success; else %FALSE with
 *   %NATTER_SESSION_ERROR_NOT_FOUND (no such session, or no such active
 *   grant), %NATTER_SESSION_ERROR_CORRUPT or a %NATTER_STORE_ERROR
 */
gboolean
natter_sessions_remove_grant_finish (NatterSessions  *self,
                                     GAsyncResult    *result,
                                     GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_remove_grant_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* allow_always */

typedef struct
{
  char      *turn_id;
  char      *tool_call_id;
  char      *grant_id;
  GPtrArray *to_allow;   /* the waiting calls of the granted tool, the chosen one first */
  guint      next;
  NatterTurnOutcome *outcome;   /* of the last answer that was taken */
} AlwaysData;

static void
always_data_free (AlwaysData *data)
{
  g_free (data->turn_id);
  g_free (data->tool_call_id);
  g_free (data->grant_id);
  g_clear_pointer (&data->to_allow, g_ptr_array_unref);
  g_clear_pointer (&data->outcome, natter_turn_outcome_unref);
  g_free (data);
}

static void allow_next (GTask *task);

static void
allowed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AlwaysData *data = g_task_get_task_data (task);
  NatterTurnOutcome *outcome;
  GError *error = NULL;

  outcome = natter_sessions_respond_to_permission_finish (NATTER_SESSIONS (object), result, &error);
  /* The first answer is the one asked for; a later call of the same tool
   * may have been answered meanwhile, which is not an error. */
  if (outcome == NULL && data->next == 1)
    {
      g_task_return_error (task, error);
      return;
    }
  g_clear_error (&error);
  if (outcome != NULL)
    {
      g_clear_pointer (&data->outcome, natter_turn_outcome_unref);
      data->outcome = outcome;
    }
  if (data->next < data->to_allow->len)
    {
      allow_next (g_steal_pointer (&task));
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&data->outcome), (GDestroyNotify) natter_turn_outcome_unref);
}

/* Answers the next waiting call with `allow`, recording the grant. */
static void
allow_next (GTask *task)
{
  AlwaysData *data = g_task_get_task_data (task);
  g_autoptr(JsonNode) metadata = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonObject) object = json_object_new ();
  const char *call_id = g_ptr_array_index (data->to_allow, data->next++);

  json_object_set_string_member (object, "grantId", data->grant_id);
  json_node_set_object (metadata, object);
  natter_sessions_respond_to_permission_async (g_task_get_source_object (task), data->turn_id, call_id,
                                               "allow", metadata, g_task_get_cancellable (task),
                                               allowed_cb, task);
}

static void
always_granted_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AlwaysData *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->grant_id = natter_sessions_add_grant_finish (NATTER_SESSIONS (object), result, &error);
  if (data->grant_id == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  allow_next (g_steal_pointer (&task));
}

/* The waiting calls the grant of @tool_id answers: @chosen first, then
 * every other call of the same tool that waits for permission. */
static GPtrArray *
calls_to_allow (NatterTurnState *turn,
                const char      *chosen,
                const char      *tool_id)
{
  g_autoptr(GPtrArray) pending = natter_turn_state_get_pending_permissions (turn);
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (ids, g_strdup (chosen));
  for (guint i = 0; i < pending->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (pending, i);
      JsonObject *descriptor = natter_turn_step_find_tool (turn, natter_turn_tool_call_get_name (call));

      if (descriptor != NULL && !g_str_equal (natter_turn_tool_call_get_id (call), chosen) &&
          g_strcmp0 (json_object_get_string_member_with_default (descriptor, "toolId", NULL), tool_id) == 0)
        g_ptr_array_add (ids, g_strdup (natter_turn_tool_call_get_id (call)));
    }
  return ids;
}

static void
always_turn_read_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessions *self = g_task_get_source_object (task);
  AlwaysData *data = g_task_get_task_data (task);
  g_autoptr(NatterTurnState) turn = NULL;
  NatterTurnToolCall *call;
  JsonObject *descriptor = NULL;
  const char *session_id;
  const char *tool_id;
  GCancellable *cancellable;
  GError *error = NULL;

  turn = natter_sessions_read_turn_finish (object, result, &error);
  if (turn == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  session_id = json_object_get_string_member_with_default (natter_turn_state_get_definition (turn),
                                                           "sessionId", NULL);
  call = natter_turn_state_lookup_tool_call (turn, data->tool_call_id);
  if (call != NULL)
    descriptor = natter_turn_step_find_tool (turn, natter_turn_tool_call_get_name (call));
  if (session_id == NULL)
    error = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                         "Turn %s is not part of a conversation, and only a conversation keeps grants",
                         data->turn_id);
  else if (call == NULL || !natter_turn_tool_call_is_awaiting_permission (call) || descriptor == NULL)
    error = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                         "Tool call %s of turn %s is not waiting for permission",
                         data->tool_call_id, data->turn_id);
  else
    check_grantable (descriptor, natter_turn_tool_call_get_name (call), &error);
  if (error != NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  tool_id = json_object_get_string_member (descriptor, "toolId");
  data->to_allow = calls_to_allow (turn, data->tool_call_id, tool_id);
  cancellable = g_task_get_cancellable (task);
  add_grant_for_tool_id (self, session_id, tool_id, cancellable, always_granted_cb, g_steal_pointer (&task));
}

/**
 * natter_sessions_allow_always_async:
 * @self: the service
 * @turn_id: a suspended turn of a session
 * @tool_call_id: its call that waits for permission
 * @cancellable: (nullable): cancels the wait, not the advance
 * @callback: called on the main context when the answers have settled
 * @user_data: data for @callback
 *
 * "Always Allow in This Conversation": adds the session's grant for the
 * call's tool (natter_sessions_add_grant_async()), then allows the call,
 * and every other call of that tool waiting in the turn, with
 * natter_sessions_respond_to_permission_async(); each
 * `tool_permission_resolved` carries `metadata: {grantId}`. Later calls of
 * the tool in this session run without asking.
 */
void
natter_sessions_allow_always_async (NatterSessions      *self,
                                    const char          *turn_id,
                                    const char          *tool_call_id,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task;
  AlwaysData *data;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL && tool_call_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_allow_always_async);
  data = g_new0 (AlwaysData, 1);
  data->turn_id = g_strdup (turn_id);
  data->tool_call_id = g_strdup (tool_call_id);
  g_task_set_task_data (task, data, (GDestroyNotify) always_data_free);
  natter_sessions_read_turn_async (self, turn_id, cancellable, always_turn_read_cb, task);
}

/**
 * natter_sessions_allow_always_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @out_grant_id: (out) (optional) (transfer full): the grant's id
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the outcome of the last answer's
 *   advance; or %NULL with %NATTER_SESSION_ERROR_INVALID_ARGUMENT (a
 *   standalone turn, a call not waiting for permission, a tool that needs
 *   a human), the errors of natter_sessions_add_grant_finish(), or the
 *   runtime's errors of the first answer
 */
NatterTurnOutcome *
natter_sessions_allow_always_finish (NatterSessions  *self,
                                     GAsyncResult    *result,
                                     char           **out_grant_id,
                                     GError         **error)
{
  NatterTurnOutcome *outcome;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_allow_always_async, NULL);

  outcome = g_task_propagate_pointer (G_TASK (result), error);
  if (outcome != NULL && out_grant_id != NULL)
    *out_grant_id = g_strdup (((AlwaysData *) g_task_get_task_data (G_TASK (result)))->grant_id);
  return outcome;
}

/**
 * natter_sessions_dup_tool_name:
 * @self: the service
 * @tool_id: a tool's registry id, as a grant names it
 *
 * The name the model sees for @tool_id (what permission cards show), so a
 * grant can be listed in the same words.
 *
 * Returns: (transfer full): the tool's name, or @tool_id itself for a tool
 *   that is no longer there
 */
char *
natter_sessions_dup_tool_name (NatterSessions *self,
                               const char     *tool_id)
{
  NatterTool *tool;

  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);
  g_return_val_if_fail (tool_id != NULL, NULL);

  tool = natter_tool_registry_lookup (natter_turn_runtime_get_tools (self->runtime), tool_id);
  if (tool == NULL)
    return g_strdup (tool_id);
  return g_strdup (json_object_get_string_member_with_default (natter_tool_get_descriptor (tool), "name", tool_id));
}
