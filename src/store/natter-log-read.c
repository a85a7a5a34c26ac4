/* natter-log-read.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A log read from disk and folded into its state in one pass: the
 * repository's strict read (natter-jsonl-file.c) folds each event as its
 * line is read, so an event out of order (a grant id used twice, a queued
 * message consumed that was never queued) is refused like a malformed
 * line, with the file and the line (docs/format.md §2). The reducers stay
 * pure functions of their events; this is where they meet the files.
 */

#define G_LOG_DOMAIN "natter-log-read"

#include "natter-log-read.h"
#include "natter-session-reducer-private.h"
#include "natter-store-error.h"
#include "natter-sync-conflict.h"

/* Reads the log @id and folds each event into @state as its line is
 * read; the events go to @out_events when it is not %NULL. */
static gboolean
read_and_fold (NatterJsonlRepo  *repo,
               const char       *id,
               NatterEventFold   fold,
               gpointer          state,
               GPtrArray       **out_events,
               GCancellable     *cancellable,
               GError          **error)
{
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_fold_sync (repo, id, fold, state, cancellable, error);

  if (events == NULL)
    return FALSE;
  if (out_events != NULL)
    *out_events = g_steal_pointer (&events);
  return TRUE;
}

static gboolean
fold_session_event (JsonObject  *event,
                    gpointer     user_data,
                    GError     **error)
{
  /* The session repository ran natter_session_event_validate() on the
   * line, so the fold skips that second check, as
   * natter_session_reduce_validated() does. */
  return natter_session_state_apply_valid (user_data, event, error);
}

/**
 * natter_session_reduce_file_sync:
 * @repo: the session repository (natter_session_repo_new())
 * @session_id: the session
 * @out_events: (out) (optional) (transfer full) (element-type JsonNode):
 *   the events, as natter_jsonl_repo_read_sync() returns them
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads a session file and reduces it (docs/format.md §3.2) in one
 * pass. @session_id may also be a conflict copy's name, read as the
 * version of its conversation it is (natter_sync_conflict_reduce_sync(),
 * docs/format.md §9); such a version has no lines of its own to give in
 * @out_events. Blocks.
 *
 * Returns: (transfer full) (nullable): the state; else %NULL with the
 *   read's %NATTER_STORE_ERROR (INVALID_ID, NOT_FOUND, IO, CORRUPT) or
 *   the reducer's (INVARIANT, SCHEMA, UNKNOWN_TYPE, UNSUPPORTED_VERSION),
 *   any of them about a line as `<path>:<line>: <reason>`; INVALID_ID
 *   too for a conflict copy's lines asked for in @out_events; or
 *   %G_IO_ERROR_CANCELLED.
 */
NatterSessionState *
natter_session_reduce_file_sync (NatterJsonlRepo  *repo,
                                 const char       *session_id,
                                 GPtrArray       **out_events,
                                 GCancellable     *cancellable,
                                 GError          **error)
{
  g_autoptr(NatterSessionState) state = natter_session_state_new ();

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (repo), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (session_id != NULL && natter_sync_conflict_is_candidate (session_id))
    {
      if (out_events != NULL)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID,
                       "%s is another device’s copy of a conversation, read as a version of it; it has no log "
                       "of its own", session_id);
          return NULL;
        }
      return natter_sync_conflict_reduce_sync (repo, session_id, cancellable, error);
    }

  if (!read_and_fold (repo, session_id, fold_session_event, state, out_events, cancellable, error))
    return NULL;
  /* The repository refuses a file without its first line. */
  g_assert (natter_session_state_get_definition (state) != NULL);
  return g_steal_pointer (&state);
}

static gboolean
fold_turn_event (JsonObject  *event,
                 gpointer     user_data,
                 GError     **error)
{
  return natter_turn_state_apply (user_data, event, error);
}

/**
 * natter_turn_reduce_file_sync:
 * @repo: the turn repository (natter_turn_repo_new())
 * @turn_id: the turn
 * @out_events: (out) (optional) (transfer full) (element-type JsonNode):
 *   the events, as natter_jsonl_repo_read_sync() returns them
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads a turn file and reduces it (docs/runtime.md §4) in one pass.
 * Blocks.
 *
 * Returns: (transfer full) (nullable): the state; else %NULL with the
 *   errors of natter_session_reduce_file_sync()
 */
NatterTurnState *
natter_turn_reduce_file_sync (NatterJsonlRepo  *repo,
                              const char       *turn_id,
                              GPtrArray       **out_events,
                              GCancellable     *cancellable,
                              GError          **error)
{
  g_autoptr(NatterTurnState) state = natter_turn_state_new ();

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (repo), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!read_and_fold (repo, turn_id, fold_turn_event, state, out_events, cancellable, error))
    return NULL;
  return g_steal_pointer (&state);
}

typedef struct
{
  NatterTurnState *state;
  GPtrArray       *events;
} TurnRead;

static void
turn_read_free (TurnRead *read)
{
  g_clear_pointer (&read->state, natter_turn_state_unref);
  g_clear_pointer (&read->events, g_ptr_array_unref);
  g_free (read);
}

static void
turn_read_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  TurnRead *read = g_new0 (TurnRead, 1);
  GError *error = NULL;

  read->state = natter_turn_reduce_file_sync (source_object, task_data, &read->events, cancellable, &error);
  if (read->state == NULL)
    {
      turn_read_free (read);
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, read, (GDestroyNotify) turn_read_free);
}

/**
 * natter_turn_reduce_file_async:
 * @repo: the turn repository (natter_turn_repo_new())
 * @turn_id: the turn
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * natter_turn_reduce_file_sync() in a worker thread: every reader of a
 * whole turn file gets an error that names the file and the line, for a
 * line out of order as for a malformed one (docs/format.md §2).
 */
void
natter_turn_reduce_file_async (NatterJsonlRepo     *repo,
                               const char          *turn_id,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (repo));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (repo, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_turn_reduce_file_async);
  g_task_set_task_data (task, g_strdup (turn_id), g_free);
  g_task_run_in_thread (task, turn_read_thread);
}

/**
 * natter_turn_reduce_file_finish:
 * @repo: the repository
 * @result: the #GAsyncResult
 * @out_events: (out) (optional) (transfer full) (element-type JsonNode):
 *   the events
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the state, or %NULL with the errors
 *   of natter_turn_reduce_file_sync()
 */
NatterTurnState *
natter_turn_reduce_file_finish (NatterJsonlRepo  *repo,
                                GAsyncResult     *result,
                                GPtrArray       **out_events,
                                GError          **error)
{
  TurnRead *read;
  NatterTurnState *state;

  g_return_val_if_fail (g_task_is_valid (result, repo), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_turn_reduce_file_async, NULL);

  read = g_task_propagate_pointer (G_TASK (result), error);
  if (read == NULL)
    return NULL;
  state = g_steal_pointer (&read->state);
  if (out_events != NULL)
    *out_events = g_steal_pointer (&read->events);
  turn_read_free (read);
  return state;
}
