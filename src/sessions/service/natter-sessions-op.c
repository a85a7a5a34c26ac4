/* natter-sessions-op.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The machinery under every session-locked operation of the session
 * service (docs/sessions.md §9.1 steps 1–2): the errors a read
 * becomes, reads and reductions in worker threads, the operations in
 * flight that flush_async() waits for, and taking the session lock,
 * reading the session and its latest turn.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-log-read.h"
#include "natter-session-grants-queue.h"
#include "natter-session-index-internal.h"
#include "natter-session-schema.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"
#include "natter-sync-conflict-name.h"

/* Errors */

static gboolean
is_corruption (const GError *error)
{
  return error->domain == NATTER_STORE_ERROR &&
         (error->code == NATTER_STORE_ERROR_CORRUPT ||
          error->code == NATTER_STORE_ERROR_MALFORMED ||
          error->code == NATTER_STORE_ERROR_NOT_LOSSLESS ||
          error->code == NATTER_STORE_ERROR_SCHEMA ||
          error->code == NATTER_STORE_ERROR_UNKNOWN_TYPE ||
          error->code == NATTER_STORE_ERROR_UNSUPPORTED_VERSION ||
          error->code == NATTER_STORE_ERROR_INVARIANT);
}

/* Store errors about a session file become session errors; I/O errors
 * and everything else pass through. */
GError *
natter_sessions_session_error (GError     *error,
                               const char *session_id)
{
  GError *mapped;

  if (error->domain != NATTER_STORE_ERROR)
    return error;
  if (error->code == NATTER_STORE_ERROR_NOT_FOUND)
    mapped = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND,
                          "No session %s", session_id);
  else if (error->code == NATTER_STORE_ERROR_INVALID_ID)
    mapped = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                          "%s", error->message);
  else if (is_corruption (error))
    mapped = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT,
                          "Session %s is corrupt: %s", session_id, error->message);
  else
    return error;
  g_error_free (error);
  return mapped;
}

/**
 * natter_sessions_history_error: (skip)
 * @error: (transfer full): why a turn of a history could not be read
 * @session_id: the session whose history it is
 * @turn_id: (nullable): the turn that was read, when known
 *
 * A turn of the history a message or a branch would continue that cannot
 * be read, damaged or missing (docs/sessions.md §2), is
 * %NATTER_SESSION_ERROR_HISTORY_DAMAGED, with the store's text (the file
 * and line); I/O errors and everything else pass through.
 *
 * Returns: (transfer full): the error to return
 */
GError *
natter_sessions_history_error (GError     *error,
                               const char *session_id,
                               const char *turn_id)
{
  GError *mapped;

  if (g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
    return natter_sessions_arriving_error (error, session_id, turn_id);
  if (!is_corruption (error) && !g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND))
    return error;
  if (turn_id != NULL)
    mapped = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED,
                          "The history of session %s cannot be read: turn %s: %s", session_id, turn_id,
                          error->message);
  else
    mapped = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED,
                          "The history of session %s cannot be read, so nothing was sent: %s", session_id,
                          error->message);
  g_error_free (error);
  return mapped;
}

/**
 * natter_sessions_end_lost_error: (skip)
 * @self: the service
 * @turn_id: an earlier turn of a history whose file has no terminal event
 *
 * An earlier turn that never ended lost its last lines (docs/runtime.md
 * §11): its answer would be missing from the history built on it, so
 * whatever reads it as history refuses it with this store error, never
 * a shorter history. The store's own words, naming the file, and
 * %NATTER_STORE_ERROR_NOT_ARRIVED in a folder a synchroniser shares
 * (docs/format.md §9.3); natter_sessions_history_error() maps either.
 *
 * Returns: (transfer full): %NATTER_STORE_ERROR_CORRUPT or
 *   %NATTER_STORE_ERROR_NOT_ARRIVED
 */
GError *
natter_sessions_end_lost_error (NatterSessions *self,
                                const char     *turn_id)
{
  if (self->turn_repo != NULL)
    return natter_jsonl_repo_end_lost_error (self->turn_repo, turn_id);
  return g_error_new (NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                      "turn %s: the file ends before the turn does (its last lines are lost), yet the conversation "
                      "goes on after it", turn_id);
}

/**
 * natter_sessions_arriving_error: (skip)
 * @error: (transfer full): %NATTER_STORE_ERROR_NOT_ARRIVED about a turn
 *   or an attachment
 * @session_id: the session that names it
 * @turn_id: (nullable): the turn, when it is one and known
 *
 * A turn the session names that has not arrived from another device yet
 * (docs/format.md §9.3) holds back what would build on it, with
 * %NATTER_SESSION_ERROR_ARRIVING: not damage, and the same request
 * succeeds once the file is there.
 *
 * Returns: (transfer full): the error to return
 */
GError *
natter_sessions_arriving_error (GError     *error,
                                const char *session_id,
                                const char *turn_id)
{
  GError *mapped;

  if (turn_id != NULL)
    mapped = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_ARRIVING,
                          "Turn %s of session %s has not arrived from another device yet: %s", turn_id, session_id,
                          error->message);
  else
    mapped = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_ARRIVING,
                          "Part of session %s has not arrived from another device yet: %s", session_id,
                          error->message);
  g_error_free (error);
  return mapped;
}

/**
 * natter_sessions_read_only_error: (skip)
 * @session_id: a conflict copy's name (docs/format.md §9)
 *
 * The refusal of a write to another device's copy of a conversation.
 *
 * Returns: (transfer full): %NATTER_SESSION_ERROR_READ_ONLY
 */
GError *
natter_sessions_read_only_error (const char *session_id)
{
  return g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_READ_ONLY,
                      "%s is another device’s copy of the conversation, kept when both devices changed it at once; "
                      "it is read only", session_id);
}

/**
 * natter_sessions_get_write_refusal:
 * @self: the service
 *
 * Why this process writes no conversation: set when it could not take
 * the data directory's single-writer lock (docs/sessions.md §8.3,
 * natter_services_acquire_writer_lock()), which made its repositories
 * read only (natter_jsonl_repo_refuse_writes()). Every write of the
 * service then fails with a copy of it, %NATTER_SESSION_ERROR_LOCKED
 * with the lock's message, and nothing is written; reads go on. A
 * front end shows it and offers no write.
 *
 * Returns: (transfer none) (nullable): the refusal, or %NULL when this
 *   process may write; it lives as long as @self
 */
const GError *
natter_sessions_get_write_refusal (NatterSessions *self)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);

  return natter_jsonl_repo_get_write_refusal (self->session_repo);
}

/**
 * natter_sessions_op_refuse_write: (skip)
 * @task: an operation's task (natter_sessions_op_task_new()) about to
 *   write
 *
 * The check at the start of every writing operation that takes no
 * session lock (the ones that do are refused by natter_sessions_op_lock()):
 * in a process that writes nothing (natter_sessions_get_write_refusal()),
 * returns the refusal through @task before anything is read, asked of a
 * model or written. The caller then drops its reference and stops.
 *
 * Returns: %TRUE when @task was refused
 */
gboolean
natter_sessions_op_refuse_write (GTask *task)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  const GError *refusal = natter_sessions_get_write_refusal (data->self);

  if (refusal == NULL)
    return FALSE;
  natter_sessions_op_return_error (task, g_error_copy (refusal));
  return TRUE;
}

/* A latest turn that cannot be read makes the session unusable: a
 * missing file is a dangling reference, which is corruption
 * (docs/sessions.md §7) — unless a synchroniser is still bringing it
 * (docs/format.md §9.3). */
GError *
natter_sessions_latest_turn_error (GError     *error,
                                   const char *session_id,
                                   const char *turn_id)
{
  GError *mapped;

  if (g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
    return natter_sessions_arriving_error (error, session_id, turn_id);
  if (error->domain != NATTER_STORE_ERROR || error->code == NATTER_STORE_ERROR_IO)
    return error;
  if (error->code == NATTER_STORE_ERROR_NOT_FOUND)
    mapped = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT,
                          "Session %s is damaged: it refers to turn %s, but %s",
                          session_id, turn_id, error->message);
  else
    mapped = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT,
                          "Session %s: latest turn %s: %s", session_id, turn_id, error->message);
  g_error_free (error);
  return mapped;
}

/* Reading and reducing in a worker thread */

static void
read_session_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  NatterSessions *self = source_object;
  NatterSessionState *state;
  GError *error = NULL;

  g_atomic_int_inc (&self->n_session_reads);
  state = natter_session_reduce_file_sync (self->session_repo, task_data, NULL, cancellable, &error);
  if (state == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, state, (GDestroyNotify) natter_session_state_unref);
}

/* Reads and reduces a session; the result is the state, or the raw store
 * error. Turns are read through the runtime (natter_sessions_read_turn_async()). */
void
natter_sessions_read_session_async (NatterSessions      *self,
                                    const char          *session_id,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, natter_sessions_read_session_async);
  g_task_set_task_data (task, g_strdup (session_id), g_free);
  g_task_run_in_thread (task, read_session_thread);
}

NatterSessionState *
natter_sessions_read_session_finish (GAsyncResult  *result,
                                     GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Shared getSession reads: every request for a session made before its
 * read begins joins it. The read begins in an idle of the requests' main
 * context, so it begins after each of them and misses no write that
 * finished before one was made. It reads without a cancellable: one
 * requester giving up must not fail the others; a cancelled requester
 * still gets G_IO_ERROR_CANCELLED from its own task. */

typedef struct
{
  NatterSessions *self;
  char           *session_id;
  GMainContext   *context;
  GPtrArray      *tasks;       /* GTask, owned */
} SharedRead;

static void
shared_read_free (SharedRead *shared)
{
  g_object_unref (shared->self);
  g_free (shared->session_id);
  g_main_context_unref (shared->context);
  g_ptr_array_unref (shared->tasks);
  g_free (shared);
}

static void
shared_read_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  SharedRead *shared = user_data;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;

  state = natter_sessions_read_session_finish (result, &error);
  if (state == NULL)
    error = natter_sessions_session_error (g_steal_pointer (&error), shared->session_id);
  for (guint i = 0; i < shared->tasks->len; i++)
    {
      GTask *task = g_ptr_array_index (shared->tasks, i);

      /* The state is never changed once reduced: every requester holds
       * a reference to the same one. */
      if (state != NULL)
        g_task_return_pointer (task, natter_session_state_ref (state),
                               (GDestroyNotify) natter_session_state_unref);
      else
        g_task_return_error (task, g_error_copy (error));
    }
  shared_read_free (shared);
}

static gboolean
begin_shared_read (gpointer user_data)
{
  SharedRead *shared = user_data;

  /* From now on a request would miss writes made after the read began. */
  if (g_hash_table_lookup (shared->self->shared_reads, shared->session_id) == shared)
    g_hash_table_remove (shared->self->shared_reads, shared->session_id);
  natter_sessions_read_session_async (shared->self, shared->session_id, NULL, shared_read_cb, shared);
  return G_SOURCE_REMOVE;
}

/* How long each shared read waits before it begins, in milliseconds:
 * NATTER_TEST_READ_DELAY_MS, for tests/stress-ui.sh, which plays a slow
 * disk or a starved machine this way (a view must never take a read
 * that has not arrived for one that never will). 0, the default, begins
 * it in the next idle. */
static guint
read_delay_ms (void)
{
  static gsize once = 0;
  static guint delay;

  if (g_once_init_enter (&once))
    {
      const char *value = g_getenv ("NATTER_TEST_READ_DELAY_MS");

      delay = value != NULL ? (guint) MIN (g_ascii_strtoull (value, NULL, 10), 10000) : 0;
      g_once_init_leave (&once, 1);
    }
  return delay;
}

/* Returns @task (transfer full: it is returned to when the read ends)
 * with the state of @session_id, mapped to session errors as getSession
 * (docs/sessions.md §9) says; joins a read of it that has not begun yet. */
void
natter_sessions_join_session_read (NatterSessions *self,
                                   const char     *session_id,
                                   GTask          *task)
{
  SharedRead *shared = g_hash_table_lookup (self->shared_reads, session_id);
  GMainContext *context = g_task_get_context (task);

  if (shared == NULL || shared->context != context)
    {
      g_autoptr(GSource) idle = read_delay_ms () > 0 ? g_timeout_source_new (read_delay_ms ()) : g_idle_source_new ();

      shared = g_new0 (SharedRead, 1);
      shared->self = g_object_ref (self);
      shared->session_id = g_strdup (session_id);
      shared->context = g_main_context_ref (context);
      shared->tasks = g_ptr_array_new_with_free_func (g_object_unref);
      g_hash_table_replace (self->shared_reads, shared->session_id, shared);
      g_source_set_priority (idle, G_PRIORITY_DEFAULT);
      g_source_set_callback (idle, begin_shared_read, shared, NULL);
      g_source_set_static_name (idle, "[natter] shared session read");
      g_source_attach (idle, context);
    }
  g_ptr_array_add (shared->tasks, task);
}

/* Reads and reduces a turn through the runtime that owns the turn files;
 * @callback's source object is the runtime. */
void
natter_sessions_read_turn_async (NatterSessions      *self,
                                 const char          *turn_id,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  natter_turn_runtime_get_turn_state_async (self->runtime, turn_id, cancellable, callback, user_data);
}

NatterTurnState *
natter_sessions_read_turn_finish (GObject       *runtime,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return natter_turn_runtime_get_turn_state_finish (NATTER_TURN_RUNTIME (runtime), result, error);
}

/* Operations in flight, for flush_async() */

guint64
natter_sessions_begin_op (NatterSessions *self)
{
  guint64 *op = g_new (guint64, 1);

  *op = ++self->next_op;
  g_hash_table_add (self->ops, op);
  return *op;
}

gboolean
natter_sessions_ops_done_up_to (NatterSessions *self,
                                guint64         target)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->ops);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (*(guint64 *) key <= target)
      return FALSE;
  return TRUE;
}

void
natter_sessions_end_op (NatterSessions *self,
                        guint64         op)
{
  g_hash_table_remove (self->ops, &op);

  for (guint i = 0; i < self->flushes->len;)
    {
      GTask *task = g_ptr_array_index (self->flushes, i);
      guint64 target = *(guint64 *) g_task_get_task_data (task);

      if (natter_sessions_ops_done_up_to (self, target))
        {
          g_task_return_boolean (task, TRUE);
          g_ptr_array_remove_index (self->flushes, i);
        }
      else
        i++;
    }
}

/* What the session file's queue holds, as the operations saw it. One
 * process writes a data directory (the single-writer rule of
 * docs/sessions.md §8.3) and every write of the queue (queueing,
 * removing, the turn that consumes a message) is an operation's append,
 * so the length an operation last read or wrote under the lock is the
 * file's until the next operation. A read without the lock (getSession)
 * is not taken in: it may have begun before a write it would then undo.
 * An unknown length is read, as before. */

static void
remember_queue (NatterSessionsOp *data)
{
  g_hash_table_insert (data->self->queue_lengths, g_strdup (data->session_id),
                       GUINT_TO_POINTER (natter_session_state_get_n_queued (data->state) + 1));
}

/* Whether @session_id's queue was empty when its file was last read or
 * written under its lock: a promotion then has nothing to do. */
gboolean
natter_sessions_knows_nothing_queued (NatterSessions *self,
                                      const char     *session_id)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->queue_lengths, session_id)) == 1;
}

/* Forgets what @session_id's queue held: the next promotion reads it. */
void
natter_sessions_forget_queue (NatterSessions *self,
                              const char     *session_id)
{
  g_hash_table_remove (self->queue_lengths, session_id);
}

/**
 * natter_sessions_get_n_session_reads: (skip)
 * @self: the service
 *
 * Returns: how many times the service has read and reduced a session
 *   file, for the tests and benchmarks of what an operation reads
 */
guint
natter_sessions_get_n_session_reads (NatterSessions *self)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), 0);

  return (guint) g_atomic_int_get (&self->n_session_reads);
}

/* The session-locked operations. Each has its own task data, which
 * starts with a NatterSessionsOp (NATTER_SESSIONS_DEFINE_OP). */

static void
op_data_free (NatterSessionsOp *data)
{
  if (data->clear != NULL)
    data->clear (data);
  g_clear_pointer (&data->guard, natter_lock_guard_release);
  if (data->op != 0)
    natter_sessions_end_op (data->self, data->op);
  g_clear_pointer (&data->state, natter_session_state_unref);
  g_clear_pointer (&data->appending, g_ptr_array_unref);
  g_free (data->session_id);
  g_clear_object (&data->self);
  g_free (data);
}

/* A task for an operation on @session_id whose task data is @size bytes
 * (zeroed), a NatterSessionsOp followed by the operation's own members,
 * which @clear frees. Counts as in flight for flush_async() until
 * natter_sessions_op_finish(). */
GTask *
natter_sessions_op_task_new (NatterSessions      *self,
                             const char          *session_id,
                             gsize                size,
                             GDestroyNotify       clear,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data,
                             gpointer             source_tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  NatterSessionsOp *data;

  g_assert (size >= sizeof (NatterSessionsOp));
  data = g_malloc0 (size);
  g_task_set_source_tag (task, source_tag);
  data->self = g_object_ref (self);
  data->op = natter_sessions_begin_op (self);
  data->session_id = g_strdup (session_id);
  data->clear = clear;
  g_task_set_task_data (task, data, (GDestroyNotify) op_data_free);
  return task;
}

/* Ends the operation before the caller hears of it: the lock is free and
 * a flush no longer waits once the callback runs. */
void
natter_sessions_op_finish (GTask *task)
{
  NatterSessionsOp *data = g_task_get_task_data (task);

  g_clear_pointer (&data->guard, natter_lock_guard_release);
  if (data->op != 0)
    {
      natter_sessions_end_op (data->self, data->op);
      data->op = 0;
    }
}

/* After a write under the lock: brings the session's index entry up to
 * the state the write left (natter_session_index_update_from_state()
 * with the status it had), ends the operation as
 * natter_sessions_op_finish() does, and only then emits
 * #NatterSessions::session-index-changed, so a handler finds the lock
 * free. The caller still returns the task's value. */
void
natter_sessions_op_publish (GTask *task)
{
  NatterSessionsOp *data = g_task_get_task_data (task);

  natter_session_index_update_from_state (data->self->index, data->state, NULL);
  natter_sessions_op_finish (task);
  g_signal_emit (data->self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0,
                 data->session_id);
}

static void
title_appended_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionsOp *data = g_task_get_task_data (task);
  g_autoptr(GPtrArray) appended = g_steal_pointer (&data->appending);
  GError *error = NULL;

  if (!natter_jsonl_repo_append_finish (NATTER_JSONL_REPO (object), result, &error) ||
      !natter_sessions_op_apply_appended (data, appended, &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  natter_sessions_op_publish (task);
  g_task_return_boolean (task, TRUE);
}

/* Under the operation's lock, with data->state read: appends
 * `title_changed` with @title (docs/format.md §3.1), folds it into the
 * state and publishes it (natter_sessions_op_publish()); @task then
 * returns %TRUE, or the repository's error. Both a person's rename and
 * an automatic title (docs/sessions.md §13) write it so. */
void
natter_sessions_op_write_title (GTask      *task,
                                const char *title)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  g_autofree char *ts = natter_clock_format_ts (data->self->clock);

  g_assert (data->guard != NULL && data->state != NULL && data->appending == NULL);

  data->appending = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_ptr_array_add (data->appending, natter_session_event_new_title_changed (data->session_id, ts, title));
  natter_jsonl_repo_append_async (data->self->session_repo, data->session_id, data->appending, NULL,
                                  title_appended_cb, g_object_ref (task));
}

void
natter_sessions_op_return_error (GTask  *task,
                                 GError *error)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  g_autofree char *damaged = NULL;

  /* Said before the error returns, so that a caller that searches next
   * already finds the index looking at the files again. */
  if (data->session_id != NULL &&
      (g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED) ||
       g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT)))
    damaged = g_strdup (data->session_id);
  natter_sessions_op_finish (task);
  if (damaged != NULL)
    g_signal_emit (data->self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_DAMAGE_FOUND], 0, damaged);
  g_task_return_error (task, error);
}

gboolean
natter_sessions_op_check_cancelled (GTask *task)
{
  GError *error = NULL;

  if (!g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &error))
    return FALSE;
  natter_sessions_op_return_error (task, error);
  return TRUE;
}

gboolean
natter_sessions_op_fault (GTask              *task,
                          NatterSessionsStep  step)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (data->self->fault == NULL ||
      data->self->fault (step, data->session_id, data->self->fault_data, &error))
    return FALSE;
  g_assert (error != NULL);
  natter_sessions_op_return_error (task, error);
  return TRUE;
}

/* Takes the session lock for a write, then runs @callback; takes over
 * @task's reference. Every operation that writes an existing session
 * file comes here first: in a process that writes nothing
 * (natter_sessions_get_write_refusal()) it ends here, with the refusal,
 * before it reads or asks anything. */
void
natter_sessions_op_lock (GTask               *task,
                         GAsyncReadyCallback  callback)
{
  NatterSessionsOp *data = g_task_get_task_data (task);

  if (natter_sessions_op_refuse_write (task))
    {
      g_object_unref (task);
      return;
    }
  natter_jsonl_repo_lock_async (data->self->session_repo, data->session_id,
                                g_task_get_cancellable (task), callback, task);
}

gboolean
natter_sessions_op_lock_finish (GTask        *task,
                                GAsyncResult *result)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->guard = natter_jsonl_repo_lock_finish (data->self->session_repo, result, &error);
  if (data->guard == NULL)
    {
      natter_sessions_op_return_error (task, error);
      return FALSE;
    }
  return TRUE;
}

/* Reads and reduces the operation's session under its lock. */
static gboolean
op_read_session_finish (GTask        *task,
                        GAsyncResult *result)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->state = natter_sessions_read_session_finish (result, &error);
  if (data->state == NULL)
    {
      natter_sessions_op_return_error (task, natter_sessions_session_error (error, data->session_id));
      return FALSE;
    }
  natter_session_grant_view_update (data->self->grants, data->state);
  remember_queue (data);
  return TRUE;
}

static void
op_session_read_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionsOp *data = g_task_get_task_data (task);

  if (op_read_session_finish (task, result))
    data->on_session (task);
}

static void
op_locked_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionsOp *data = g_task_get_task_data (task);

  if (!natter_sessions_op_lock_finish (task, result))
    return;
  natter_sessions_read_session_async (data->self, data->session_id, g_task_get_cancellable (task),
                                      op_session_read_cb, g_object_ref (task));
}

/* Takes the session lock, reads and reduces the session file (not the
 * index: an errored or foreign session fails here rather than get events
 * glued to a corrupt log), then runs @on_session; a failure on the way
 * returns the error. Takes over @task's reference. */
void
natter_sessions_op_lock_and_read (GTask  *task,
                                  NatterSessionsOpStep  on_session)
{
  NatterSessionsOp *data = g_task_get_task_data (task);

  if (natter_sessions_op_refuse_write (task))
    {
      g_object_unref (task);
      return;
    }
  /* Another device's copy is read as a version and never written
   * (docs/format.md §9): every operation here writes to the file. */
  if (natter_sync_conflict_is_candidate (data->session_id))
    {
      natter_sessions_op_return_error (task, natter_sessions_read_only_error (data->session_id));
      g_object_unref (task);
      return;
    }
  data->on_session = on_session;
  natter_sessions_op_lock (task, op_locked_cb);
}

static void
op_latest_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionsOp *data = g_task_get_task_data (task);
  g_autoptr(NatterTurnState) turn = NULL;
  GError *error = NULL;

  turn = natter_sessions_read_turn_finish (object, result, &error);
  if (turn == NULL)
    {
      natter_sessions_op_return_error (task, natter_sessions_latest_turn_error (error, data->session_id,
                                                                                natter_session_state_get_latest_turn_id (data->state)));
      return;
    }
  data->on_latest (task, turn);
}

/* Reads and reduces the session's latest turn (there must be one), then
 * runs @on_latest with it; a turn that cannot be read returns the error. */
void
natter_sessions_op_read_latest (GTask        *task,
                                NatterSessionsOpLatestStep  on_latest)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->state);

  g_assert (latest != NULL);
  data->on_latest = on_latest;
  natter_sessions_read_turn_async (data->self, latest, g_task_get_cancellable (task),
                                   op_latest_read_cb, g_object_ref (task));
}

/* Appends under the lock, then applies the same events to the state, so
 * the index entry is derived from exactly what is on disk. */
gboolean
natter_sessions_op_apply_appended (NatterSessionsOp  *data,
                                   GPtrArray         *events,
                                   GError           **error)
{
  for (guint i = 0; i < events->len; i++)
    if (!natter_session_state_apply (data->state, json_node_get_object (g_ptr_array_index (events, i)),
                                     error))
      {
        /* The state no longer says what the file holds. */
        natter_sessions_forget_queue (data->self, data->session_id);
        return FALSE;
      }
  remember_queue (data);
  return TRUE;
}
