/* natter-sessions-copies.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Going on from another device's copy of a conversation (docs/format.md
 * §9.1). A conflict copy a synchroniser kept is read as a version of its
 * conversation and is never written: neither it nor the log beside it
 * may change, or the two devices would each write their own answer to
 * the same conflict. A person who goes on from it gets a new ordinary
 * version instead, made the way an edit makes one: a new session file
 * with the copy's `parentSession` and `forkedFromTurnId` and, as its own
 * turns, the copy's own turns, referenced and not copied. The message
 * is then sent there like any other. Two devices that both go on from
 * the copy each make their own new file, as two devices that go on with
 * any version do: nothing conflicts.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-session-index-internal.h"
#include "natter-session-schema.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"
#include "natter-sync-conflict-name.h"

typedef struct
{
  NatterSessionsOp    base;           /* base.session_id: the new version's id */
  char               *copy;           /* the conflict copy's name */
  NatterSessionState *version;        /* the copy, read as a version */
  GPtrArray          *events;         /* what the new file holds, in order */
  char               *latest_status;  /* the new version's latest turn's */
} ContinueData;

NATTER_SESSIONS_DEFINE_OP (ContinueData, continue_data)

static void
continue_data_clear (ContinueData *data)
{
  g_free (data->copy);
  g_clear_pointer (&data->version, natter_session_state_unref);
  g_clear_pointer (&data->events, g_ptr_array_unref);
  g_free (data->latest_status);
}

static void
appended_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ContinueData *data = continue_data_get (task);
  NatterSessions *self = data->base.self;
  GError *error = NULL;

  if (data->events->len > 1 && !natter_jsonl_repo_append_finish (NATTER_JSONL_REPO (object), result, &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  natter_session_index_update_from_state (self->index, data->base.state, data->latest_status);
  natter_sessions_op_finish (task);
  g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0,
                 data->base.session_id);
  g_task_return_pointer (task, g_strdup (data->base.session_id), g_free);
}

static void
created_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ContinueData *data = continue_data_get (task);
  g_autoptr(GPtrArray) turns = NULL;
  GError *error = NULL;

  if (!natter_jsonl_repo_create_finish (NATTER_JSONL_REPO (object), result, &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  if (data->events->len == 1)
    {
      appended_cb (object, result, g_steal_pointer (&task));
      return;
    }
  /* The copy's turns, in one write after the first line. */
  turns = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  for (guint i = 1; i < data->events->len; i++)
    g_ptr_array_add (turns, json_node_ref (g_ptr_array_index (data->events, i)));
  natter_jsonl_repo_append_async (data->base.self->session_repo, data->base.session_id, turns, NULL, appended_cb,
                                  g_steal_pointer (&task));
}

/* The new version: where the copy branches off, its title, and the
 * copy's own turns as its own. */
static void
write_version (GTask *task)
{
  ContinueData *data = continue_data_get (task);
  NatterSessions *self = data->base.self;
  NatterSessionState *version = data->version;
  g_autofree char *ts = natter_clock_format_ts (self->clock);
  GError *error = NULL;

  if (natter_sessions_op_check_cancelled (task))
    return;
  data->events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_ptr_array_add (data->events,
                   natter_session_event_new_created (data->base.session_id, ts,
                                                     natter_session_state_get_title (version),
                                                     natter_session_state_get_cwd (version),
                                                     natter_session_state_get_parent_session (version),
                                                     natter_session_state_get_forked_from_turn_id (version)));
  for (guint i = 0; i < natter_session_state_get_n_turns (version); i++)
    {
      const NatterSessionTurn *turn = natter_session_state_get_turn (version, i);

      g_ptr_array_add (data->events,
                       natter_session_event_new_turn_appended (data->base.session_id, ts, turn->turn_id,
                                                               (gint64) i + 1, turn->agent_id, turn->model));
    }
  data->base.state = natter_session_state_new ();
  for (guint i = 0; i < data->events->len; i++)
    if (!natter_session_state_apply (data->base.state, json_node_get_object (g_ptr_array_index (data->events, i)),
                                     &error))
      {
        natter_sessions_op_return_error (task, error);
        return;
      }
  natter_jsonl_repo_create_async (self->session_repo, data->base.session_id, g_ptr_array_index (data->events, 0),
                                  g_task_get_cancellable (task), created_cb, g_object_ref (task));
}

static void
latest_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ContinueData *data = continue_data_get (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->version);
  g_autoptr(NatterTurnState) turn = NULL;
  GError *error = NULL;

  turn = natter_sessions_read_turn_finish (object, result, &error);
  if (turn == NULL)
    {
      natter_sessions_op_return_error (task, natter_sessions_latest_turn_error (error, data->copy, latest));
      return;
    }
  /* The message would follow the copy's last answer: one that has not
   * ended is not a place to go on from, as in any conversation
   * (docs/sessions.md §9.1). */
  if (natter_sessions_is_turn_running (data->base.self, latest) || natter_turn_state_get_terminal_event (turn) == NULL)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
                                                          "The last answer of %s has not ended, so nothing can "
                                                          "follow it yet", data->copy));
      return;
    }
  data->latest_status = g_strdup (natter_latest_turn_status_from_turn_status (natter_derive_turn_status (turn)));
  write_version (task);
}

static void
copy_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ContinueData *data = continue_data_get (task);
  const char *latest;
  GError *error = NULL;

  data->version = natter_sessions_read_session_finish (result, &error);
  if (data->version == NULL)
    {
      natter_sessions_op_return_error (task, natter_sessions_session_error (error, data->copy));
      return;
    }
  /* A copy of a turn file is a version whose one turn is the copy
   * itself (docs/format.md §9.2): it has no turn id another session
   * could name. */
  for (guint i = 0; i < natter_session_state_get_n_turns (data->version); i++)
    if (!natter_id_validate (natter_session_state_get_turn (data->version, i)->turn_id, NULL))
      {
        natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_READ_ONLY,
                                                            "%s is another device’s copy of one answer; it is read "
                                                            "only, and a conversation cannot go on from it",
                                                            data->copy));
        return;
      }
  latest = natter_session_state_get_latest_turn_id (data->version);
  if (latest == NULL)
    {
      data->latest_status = g_strdup (NATTER_LATEST_TURN_STATUS_NONE);
      write_version (task);
      return;
    }
  natter_sessions_read_turn_async (data->base.self, latest, g_task_get_cancellable (task), latest_read_cb,
                                   g_object_ref (task));
}

/**
 * natter_sessions_continue_copy_async:
 * @self: the service
 * @copy: a conflict copy of a session file (docs/format.md §9), by its
 *   name
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Makes a new ordinary version of the conversation that goes on from
 * the version @copy is read as (docs/format.md §9.1): a new session
 * file whose `session_created` has the copy's `parentSession`,
 * `forkedFromTurnId`, title and `cwd`, followed by a `turn_appended`
 * for each of the copy's own turns, referenced as a fork references
 * its parent's. A message sent there (natter_sessions_send_message_async())
 * has the copy's history before it, and nothing is ever written to the
 * copy or to the log beside it. Adds the index entry and emits
 * #NatterSessions::session-index-changed.
 */
void
natter_sessions_continue_copy_async (NatterSessions      *self,
                                     const char          *copy,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autofree char *session_id = NULL;
  g_autoptr(GTask) task = NULL;
  ContinueData *data;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (copy != NULL);

  session_id = natter_id_generator_next (self->ids);
  task = continue_data_task_new (self, session_id, cancellable, callback, user_data,
                                 natter_sessions_continue_copy_async);
  data = continue_data_get (task);
  data->copy = g_strdup (copy);
  if (natter_sessions_op_refuse_write (task))
    return;
  if (!natter_sync_conflict_is_candidate (copy))
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                          "%s is no copy of a conversation", copy));
      return;
    }
  natter_sessions_read_session_async (self, copy, cancellable, copy_read_cb, g_steal_pointer (&task));
}

/**
 * natter_sessions_continue_copy_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new version's session id; or
 *   %NULL with %NATTER_SESSION_ERROR_INVALID_ARGUMENT (not a copy's
 *   name), %NATTER_SESSION_ERROR_NOT_FOUND or
 *   %NATTER_SESSION_ERROR_CORRUPT (the copy cannot be read),
 *   %NATTER_SESSION_ERROR_READ_ONLY (a copy of a turn file, which has
 *   no turn to go on from), %NATTER_SESSION_ERROR_TURN_NOT_SETTLED (its
 *   last answer has not ended), %NATTER_SESSION_ERROR_ARRIVING (its last
 *   turn has not arrived yet), or the repo's %NATTER_STORE_ERROR
 */
char *
natter_sessions_continue_copy_finish (NatterSessions  *self,
                                      GAsyncResult    *result,
                                      GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_continue_copy_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
