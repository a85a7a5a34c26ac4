/* natter-sessions-append.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one writer of session events that need schema version 2
 * (docs/format.md "Schema version 2"). A file created at version 1 is
 * never rewritten: it is raised by appending `schema_upgraded` right
 * before its first version-2 event, in the same write, under the session
 * lock. Nothing else in Natter writes `schema_upgraded`.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-session-grants-queue.h"
#include "natter-session-index-internal.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-private.h"

/* Under the operation's lock, with data->state read: appends @events
 * (version-2 events, possibly beside version-1 ones) to the session file
 * in one write, with `schema_upgraded` right before the first of them
 * that needs a later version than the file is at. Then @callback runs
 * with @task as its user data (a new reference) and calls
 * natter_sessions_op_append_v2_finish(). */
void
natter_sessions_op_append_v2_async (GTask               *task,
                                    GPtrArray           *events,
                                    GAsyncReadyCallback  callback)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  g_autofree char *ts = natter_clock_format_ts (data->self->clock);
  GPtrArray *all;

  g_assert (data->guard != NULL && data->state != NULL && data->appending == NULL);

  all = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  for (guint i = 0; i < events->len; i++)
    g_ptr_array_add (all, json_node_ref (g_ptr_array_index (events, i)));
  natter_session_events_raise (all, natter_session_state_get_schema_version (data->state), ts);
  data->appending = all;

  natter_jsonl_repo_append_async (data->self->session_repo, data->session_id, all, NULL,
                                  callback, g_object_ref (task));
}

/* Finishes natter_sessions_op_append_v2_async() and folds what was
 * written (the upgrade too) into data->state, so the state and the index
 * entry derived from it are exactly what is on disk. On error, nothing
 * was applied; the error is the repository's (%NATTER_STORE_ERROR). */
gboolean
natter_sessions_op_append_v2_finish (GTask         *task,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  g_autoptr(GPtrArray) appended = g_steal_pointer (&data->appending);

  if (!natter_jsonl_repo_append_finish (data->self->session_repo, result, error) ||
      !natter_sessions_op_apply_appended (data, appended, error))
    return FALSE;
  natter_session_grant_view_update (data->self->grants, data->state);
  return TRUE;
}

/* natter_sessions_op_append_v2_finish() for a callback that has nothing
 * to add to a failed write: on error, @task returns it
 * (natter_sessions_op_return_error()) and this returns %FALSE. */
gboolean
natter_sessions_op_appended (GTask        *task,
                             GAsyncResult *result)
{
  GError *error = NULL;

  if (!natter_sessions_op_append_v2_finish (task, result, &error))
    {
      natter_sessions_op_return_error (task, error);
      return FALSE;
    }
  return TRUE;
}

/* append_events: the generic locked operation over the writer above */

typedef struct
{
  NatterSessionsOp  base;
  GPtrArray        *events;
} AppendData;

NATTER_SESSIONS_DEFINE_OP (AppendData, append_data)

static void
append_data_clear (AppendData *data)
{
  g_clear_pointer (&data->events, g_ptr_array_unref);
}

static void
events_appended_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  if (!natter_sessions_op_appended (task, result))
    return;
  natter_sessions_op_publish (task);
  g_task_return_boolean (task, TRUE);
}

static void
append_session_read (GTask *task)
{
  AppendData *data = append_data_get (task);

  if (natter_sessions_op_check_cancelled (task))
    return;
  natter_sessions_op_append_v2_async (task, data->events, events_appended_cb);
}

/* Appends @events (built by the caller, each with this session's id) to
 * the session under its lock through natter_sessions_op_append_v2_async(),
 * so a version-1 file is raised first; then updates the index entry and
 * emits ::session-index-changed. For operations whose events need no
 * check against the state read under the lock. */
void
natter_sessions_append_events_async (NatterSessions      *self,
                                     const char          *session_id,
                                     GPtrArray           *events,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL && events != NULL);

  task = append_data_task_new (self, session_id, cancellable, callback, user_data,
                               natter_sessions_append_events_async);
  append_data_get (task)->events = g_ptr_array_ref (events);
  natter_sessions_op_lock_and_read (task, append_session_read);
}

gboolean
natter_sessions_append_events_finish (NatterSessions  *self,
                                      GAsyncResult    *result,
                                      GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_append_events_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
