/* natter-sessions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session service of session-layer-spec.md §9 on top of the turn
 * runtime: conversations as ordered turns, one active turn per session,
 * each turn's context a reference to the previous one, external inputs
 * routed to their turn, and the index kept write-through (§8.3).
 *
 * Translation from the spec's TypeScript: promises are GTask
 * _async/_finish pairs on the main context; `withLock` is the session
 * repo's keyed lock held in the operation's state; the application bus is
 * this object's signals; an AbortSignal per live advance is a
 * GCancellable per advance. Blocking reads and reductions run in worker
 * threads (the repo's or ours).
 */

#define G_LOG_DOMAIN "natter-sessions"

#include <string.h>

#include "natter-session-index-private.h"
#include "natter-send-options-private.h"
#include "natter-session-schema.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"
#include "natter-turn-reducer.h"

struct _NatterSessions
{
  GObject                  parent_instance;

  NatterJsonlRepo         *session_repo;
  NatterJsonlRepo         *turn_repo;
  NatterTurnRuntime       *runtime;
  NatterTurnEventHub      *hub;
  NatterClock             *clock;
  NatterIdGenerator       *ids;
  NatterSessionIndex      *index;

  /* §9.3: every live advance this service started, per turn. */
  GHashTable              *live;          /* turn id → GPtrArray of Advance */
  GHashTable              *turn_waiters;  /* turn id → GPtrArray of GTask */
  guint                    n_advances;    /* Advance structs alive, settled or not */

  /* flush_async(): session-layer operations still running. */
  guint64                  next_op;
  GHashTable              *ops;           /* op number (guint64*) → itself */
  GPtrArray               *flushes;       /* GTask; task data = target op */

  NatterSessionsFaultFunc  fault;
  gpointer                 fault_data;
};

G_DEFINE_FINAL_TYPE (NatterSessions, natter_sessions, G_TYPE_OBJECT)

enum
{
  SESSION_INDEX_CHANGED,
  TURN_EVENT,
  TURN_DELTA,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
natter_sessions_dispose (GObject *object)
{
  NatterSessions *self = NATTER_SESSIONS (object);

  /* Every live advance holds a reference to the service, so none is
   * left here. */
  g_assert (g_hash_table_size (self->live) == 0);

  G_OBJECT_CLASS (natter_sessions_parent_class)->dispose (object);
}

static void
natter_sessions_finalize (GObject *object)
{
  NatterSessions *self = NATTER_SESSIONS (object);

  g_clear_object (&self->session_repo);
  g_clear_object (&self->turn_repo);
  g_clear_object (&self->runtime);
  g_clear_object (&self->hub);
  g_clear_object (&self->clock);
  g_clear_object (&self->ids);
  g_clear_object (&self->index);
  g_clear_pointer (&self->live, g_hash_table_unref);
  g_clear_pointer (&self->turn_waiters, g_hash_table_unref);
  g_clear_pointer (&self->ops, g_hash_table_unref);
  g_clear_pointer (&self->flushes, g_ptr_array_unref);

  G_OBJECT_CLASS (natter_sessions_parent_class)->finalize (object);
}

static void
natter_sessions_class_init (NatterSessionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = natter_sessions_dispose;
  object_class->finalize = natter_sessions_finalize;

  /**
   * NatterSessions::session-index-changed:
   * @self: the service
   * @session_id: the session whose entry changed (or was removed)
   *
   * The application bus entry of §8.3/§10.2: emitted after every session
   * mutation (the index entry is already updated) and every settled
   * advance of a session turn.
   */
  signals[SESSION_INDEX_CHANGED] =
    g_signal_new ("session-index-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterSessions::turn-event:
   * @self: the service
   * @session_id: (nullable): the turn's session, %NULL for a standalone turn
   * @turn_id: the turn
   * @event: a durable event, emitted after it is written
   * @offset: its 1-based line number in the turn file
   *
   * Durable events of every advance this service started, tagged with
   * their session, in file order (§10). The same events also go out on
   * the runtime's #NatterTurnEventHub untagged.
   */
  signals[TURN_EVENT] =
    g_signal_new ("turn-event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 4,
                  G_TYPE_STRING, G_TYPE_STRING, JSON_TYPE_OBJECT, G_TYPE_UINT64);
  /**
   * NatterSessions::turn-delta:
   * @self: the service
   * @session_id: (nullable): the turn's session
   * @turn_id: the turn
   * @model_call_index: the streaming model call
   * @kind: a #NatterDeltaKind
   * @text: the piece of text; live only, never written
   *
   * Text and reasoning deltas of the advances this service started.
   */
  signals[TURN_DELTA] =
    g_signal_new ("turn-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 5,
                  G_TYPE_STRING, G_TYPE_STRING, G_TYPE_UINT, G_TYPE_INT, G_TYPE_STRING);
}

static void
natter_sessions_init (NatterSessions *self)
{
  self->live = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) g_ptr_array_unref);
  self->turn_waiters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                              (GDestroyNotify) g_ptr_array_unref);
  self->ops = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->flushes = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * natter_sessions_new:
 * @session_repo: the session repository (natter_session_repo_new())
 * @turn_repo: the turn repository the runtime writes
 * @runtime: the turn runtime
 * @hub: the process-wide turn event hub (the runtime's)
 * @clock: the clock for event timestamps
 * @ids: the id generator shared with the runtime (§4.1)
 * @index: the index to keep write-through; load it with
 *   natter_session_index_load_async() at startup
 *
 * Creates the session service (§9). Every dependency is injected; the
 * service holds a reference to each.
 *
 * Returns: (transfer full): a new service
 */
NatterSessions *
natter_sessions_new (NatterJsonlRepo    *session_repo,
                     NatterJsonlRepo    *turn_repo,
                     NatterTurnRuntime  *runtime,
                     NatterTurnEventHub *hub,
                     NatterClock        *clock,
                     NatterIdGenerator  *ids,
                     NatterSessionIndex *index)
{
  NatterSessions *self;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (session_repo), NULL);
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (turn_repo), NULL);
  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (runtime), NULL);
  g_return_val_if_fail (NATTER_IS_TURN_EVENT_HUB (hub), NULL);
  g_return_val_if_fail (NATTER_IS_CLOCK (clock), NULL);
  g_return_val_if_fail (NATTER_IS_ID_GENERATOR (ids), NULL);
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (index), NULL);

  self = g_object_new (NATTER_TYPE_SESSIONS, NULL);
  self->session_repo = g_object_ref (session_repo);
  self->turn_repo = g_object_ref (turn_repo);
  self->runtime = g_object_ref (runtime);
  self->hub = g_object_ref (hub);
  self->clock = g_object_ref (clock);
  self->ids = g_object_ref (ids);
  self->index = g_object_ref (index);
  return self;
}

/**
 * natter_sessions_list_sessions:
 * @self: the service
 *
 * listSessions of §9: the in-memory index, a #GListModel of
 * #NatterSessionIndexEntry. Synchronous; never reads a file.
 *
 * Returns: (transfer none): the index
 */
NatterSessionIndex *
natter_sessions_list_sessions (NatterSessions *self)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);

  return self->index;
}

/**
 * natter_sessions_get_clock:
 * @self: the service
 *
 * The clock that stamps this service's events (createdAt, updatedAt of
 * §8.1), so that whoever shows how long ago something happened measures
 * with the same clock that wrote it (a fake one in tests).
 *
 * Returns: (transfer none): the clock
 */
NatterClock *
natter_sessions_get_clock (NatterSessions *self)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);

  return self->clock;
}

/**
 * natter_sessions_set_fault_func: (skip)
 * @self: the service
 * @func: (nullable): the fault function, or %NULL
 * @user_data: data for @func
 *
 * Test seam: see #NatterSessionsFaultFunc.
 */
void
natter_sessions_set_fault_func (NatterSessions          *self,
                                NatterSessionsFaultFunc  func,
                                gpointer                 user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));

  self->fault = func;
  self->fault_data = user_data;
}

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
static GError *
session_error (GError     *error,
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

/* A latest turn that cannot be read makes the session unusable: a
 * missing file is a dangling reference, which is corruption (§7). */
static GError *
latest_turn_error (GError     *error,
                   const char *session_id,
                   const char *turn_id)
{
  GError *mapped;

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
  g_autoptr(GPtrArray) events = NULL;
  NatterSessionState *state;
  GError *error = NULL;

  events = natter_jsonl_repo_read_sync (self->session_repo, task_data, cancellable, &error);
  state = events != NULL ? natter_session_reduce (events, &error) : NULL;
  if (state == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, state, (GDestroyNotify) natter_session_state_unref);
}

/* Reads and reduces a session; the result is the state, or the raw store
 * error. Turns are read through the runtime (read_turn_async()). */
static void
read_session_async (NatterSessions      *self,
                    const char          *session_id,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, read_session_async);
  g_task_set_task_data (task, g_strdup (session_id), g_free);
  g_task_run_in_thread (task, read_session_thread);
}

static NatterSessionState *
read_session_finish (GAsyncResult  *result,
                     GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Reads and reduces a turn through the runtime that owns the turn files;
 * @callback's source object is the runtime. */
static void
read_turn_async (NatterSessions      *self,
                 const char          *turn_id,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  natter_turn_runtime_get_turn_state_async (self->runtime, turn_id, cancellable, callback, user_data);
}

static NatterTurnState *
read_turn_finish (GObject       *runtime,
                  GAsyncResult  *result,
                  GError       **error)
{
  return natter_turn_runtime_get_turn_state_finish (NATTER_TURN_RUNTIME (runtime), result, error);
}

/* Operations in flight, for flush_async() */

static guint64
begin_op (NatterSessions *self)
{
  guint64 *op = g_new (guint64, 1);

  *op = ++self->next_op;
  g_hash_table_add (self->ops, op);
  return *op;
}

static gboolean
ops_done_up_to (NatterSessions *self,
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

static void
end_op (NatterSessions *self,
        guint64         op)
{
  g_hash_table_remove (self->ops, &op);

  for (guint i = 0; i < self->flushes->len;)
    {
      GTask *task = g_ptr_array_index (self->flushes, i);
      guint64 target = *(guint64 *) g_task_get_task_data (task);

      if (ops_done_up_to (self, target))
        {
          g_task_return_boolean (task, TRUE);
          g_ptr_array_remove_index (self->flushes, i);
        }
      else
        i++;
    }
}

/* Live advances (§9.3, §10) */

typedef struct
{
  NatterSessions      *self;
  NatterTurnExecution *execution;
  GCancellable        *cancellable;
  char                *session_id;   /* nullable: standalone */
  char                *turn_id;
} Advance;

static void
advance_free (Advance *advance)
{
  advance->self->n_advances--;
  g_clear_object (&advance->execution);
  g_clear_object (&advance->cancellable);
  g_free (advance->session_id);
  g_free (advance->turn_id);
  g_clear_object (&advance->self);
  g_free (advance);
}

static void
advance_event_cb (NatterTurnExecution *execution,
                  JsonObject          *event,
                  guint64              offset,
                  Advance             *advance)
{
  g_signal_emit (advance->self, signals[TURN_EVENT], 0,
                 advance->session_id, advance->turn_id, event, offset);
}

static void
advance_delta_cb (NatterTurnExecution *execution,
                  guint                model_call_index,
                  int                  kind,
                  const char          *text,
                  Advance             *advance)
{
  g_signal_emit (advance->self, signals[TURN_DELTA], 0,
                 advance->session_id, advance->turn_id, model_call_index, kind, text);
}

static void
resolve_turn_waiters (NatterSessions *self,
                      const char     *turn_id)
{
  GPtrArray *waiters = NULL;
  g_autofree char *key = NULL;

  if (!g_hash_table_steal_extended (self->turn_waiters, turn_id, (gpointer *) &key,
                                    (gpointer *) &waiters))
    return;
  for (guint i = 0; i < waiters->len; i++)
    g_task_return_boolean (g_ptr_array_index (waiters, i), TRUE);
  g_ptr_array_unref (waiters);
}

/* Untracks exactly this advance: another advance of the same turn that
 * started later stays tracked (§13.5). */
static void
untrack (NatterSessions *self,
         Advance        *advance)
{
  GPtrArray *list = g_hash_table_lookup (self->live, advance->turn_id);

  if (list == NULL || !g_ptr_array_remove (list, advance))
    return;
  if (list->len == 0)
    {
      g_hash_table_remove (self->live, advance->turn_id);
      resolve_turn_waiters (self, advance->turn_id);
    }
}

static const char *
status_of_outcome (NatterTurnOutcome *outcome)
{
  switch (outcome->kind)
    {
    case NATTER_TURN_OUTCOME_COMPLETED:
      return natter_latest_turn_status_from_turn_status (NATTER_TURN_STATUS_COMPLETED);
    case NATTER_TURN_OUTCOME_SUSPENDED:
      return natter_latest_turn_status_from_turn_status (NATTER_TURN_STATUS_SUSPENDED);
    case NATTER_TURN_OUTCOME_FAILED:
      return natter_latest_turn_status_from_turn_status (NATTER_TURN_STATUS_FAILED);
    case NATTER_TURN_OUTCOME_CANCELLED:
      return natter_latest_turn_status_from_turn_status (NATTER_TURN_STATUS_CANCELLED);
    default:
      g_assert_not_reached ();
    }
}

static void
refreshed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Advance *advance = user_data;
  NatterSessions *self = advance->self;
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) error = NULL;

  state = read_turn_finish (object, result, &error);
  if (state != NULL)
    natter_session_index_set_latest_turn_status (self->index, advance->session_id, advance->turn_id,
                                                 natter_latest_turn_status_from_turn_status (natter_derive_turn_status (state)));
  g_signal_emit (self, signals[SESSION_INDEX_CHANGED], 0, advance->session_id);
  advance_free (advance);
}

static void
advance_outcome_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Advance *advance = user_data;
  NatterSessions *self = advance->self;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;

  outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &error);
  if (advance->session_id == NULL)
    {
      advance_free (advance);
      return;
    }
  if (outcome == NULL)
    {
      /* An infrastructure error says nothing about the turn's state: ask
       * the file, so the index never guesses (§8.3). */
      read_turn_async (self, advance->turn_id, NULL, refreshed_cb, advance);
      return;
    }
  natter_session_index_set_latest_turn_status (self->index, advance->session_id, advance->turn_id,
                                               status_of_outcome (outcome));
  g_signal_emit (self, signals[SESSION_INDEX_CHANGED], 0, advance->session_id);
  advance_free (advance);
}

static void
advance_settled_cb (NatterTurnExecution *execution,
                    Advance             *advance)
{
  g_signal_handlers_disconnect_by_data (execution, advance);
  untrack (advance->self, advance);
  natter_turn_execution_wait_async (execution, NULL, advance_outcome_cb, advance);
}

/* Starts an advance, tracks it for stop_turn() and drains its events
 * into the service's signals (§9.1 step 7, §10.1). */
static NatterTurnExecution *
start_advance (NatterSessions *self,
               const char     *session_id,
               const char     *turn_id,
               JsonObject     *input)
{
  Advance *advance = g_new0 (Advance, 1);
  GPtrArray *list;

  advance->self = g_object_ref (self);
  self->n_advances++;
  advance->cancellable = g_cancellable_new ();
  advance->session_id = g_strdup (session_id);
  advance->turn_id = g_strdup (turn_id);
  advance->execution = natter_turn_runtime_advance_turn (self->runtime, turn_id, input,
                                                         advance->cancellable);

  list = g_hash_table_lookup (self->live, turn_id);
  if (list == NULL)
    {
      list = g_ptr_array_new ();
      g_hash_table_insert (self->live, g_strdup (turn_id), list);
    }
  g_ptr_array_add (list, advance);

  g_signal_connect (advance->execution, "event", G_CALLBACK (advance_event_cb), advance);
  g_signal_connect (advance->execution, "delta", G_CALLBACK (advance_delta_cb), advance);
  g_signal_connect (advance->execution, "settled", G_CALLBACK (advance_settled_cb), advance);
  if (natter_turn_execution_get_settled (advance->execution))
    advance_settled_cb (advance->execution, advance);
  return advance->execution;
}

/**
 * natter_sessions_get_n_live_advances: (skip)
 * @self: the service
 * @turn_id: a turn
 *
 * Returns: how many advances of @turn_id this service is tracking
 */
guint
natter_sessions_get_n_live_advances (NatterSessions *self,
                                     const char     *turn_id)
{
  GPtrArray *list;

  g_return_val_if_fail (NATTER_IS_SESSIONS (self), 0);

  list = g_hash_table_lookup (self->live, turn_id);
  return list != NULL ? list->len : 0;
}

/**
 * natter_sessions_get_n_advances: (skip)
 * @self: the service
 *
 * Returns: how many advances the service still follows, including settled
 *   ones whose index update has not landed yet
 */
guint
natter_sessions_get_n_advances (NatterSessions *self)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), 0);

  return self->n_advances;
}

/**
 * natter_sessions_is_turn_running:
 * @self: the service
 * @turn_id: a turn
 *
 * Whether an advance this service started for @turn_id has not settled
 * yet: the "running" of §9.1 step 2. Ephemeral, never in the index.
 *
 * Returns: %TRUE while a live advance exists
 */
gboolean
natter_sessions_is_turn_running (NatterSessions *self,
                                 const char     *turn_id)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), FALSE);
  g_return_val_if_fail (turn_id != NULL, FALSE);

  return g_hash_table_contains (self->live, turn_id);
}

/* Session-locked operations share one typed state. */

/* The steps an operation takes once it holds the lock and the session is
 * read (§9.1 step 1), and once the latest turn is read (step 2). */
typedef void (*OpStep)       (GTask           *task);
typedef void (*OpLatestStep) (GTask           *task,
                              NatterTurnState *turn);

typedef struct
{
  NatterSessions     *self;
  guint64             op;
  char               *session_id;
  NatterLockGuard    *guard;
  NatterSessionState *state;
  OpStep              on_session;  /* op_lock_and_read() */
  OpLatestStep        on_latest;   /* op_read_latest() */

  /* send_message */
  JsonObject         *input;
  NatterSendOptions  *options;
  char               *turn_id;
  gboolean            fresh_context;  /* the latest turn's context was unreadable */

  /* create_session, set_title */
  char               *title;
  char               *cwd;
  char               *parent_session;
  char               *forked_from_turn_id;
  gboolean            inherit_cwd;
} OpData;

static void
op_data_free (OpData *data)
{
  g_clear_pointer (&data->guard, natter_lock_guard_release);
  if (data->op != 0)
    end_op (data->self, data->op);
  g_clear_pointer (&data->state, natter_session_state_unref);
  g_clear_pointer (&data->input, json_object_unref);
  g_clear_pointer (&data->options, natter_send_options_free);
  g_free (data->session_id);
  g_free (data->turn_id);
  g_free (data->title);
  g_free (data->cwd);
  g_free (data->parent_session);
  g_free (data->forked_from_turn_id);
  g_clear_object (&data->self);
  g_free (data);
}

static GTask *
op_task_new (NatterSessions      *self,
             const char          *session_id,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data,
             gpointer             source_tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  OpData *data = g_new0 (OpData, 1);

  g_task_set_source_tag (task, source_tag);
  data->self = g_object_ref (self);
  data->op = begin_op (self);
  data->session_id = g_strdup (session_id);
  g_task_set_task_data (task, data, (GDestroyNotify) op_data_free);
  return task;
}

/* Ends the operation before the caller hears of it: the lock is free and
 * a flush no longer waits once the callback runs. */
static void
op_finish (GTask *task)
{
  OpData *data = g_task_get_task_data (task);

  g_clear_pointer (&data->guard, natter_lock_guard_release);
  if (data->op != 0)
    {
      end_op (data->self, data->op);
      data->op = 0;
    }
}

static void
op_return_error (GTask  *task,
                 GError *error)
{
  op_finish (task);
  g_task_return_error (task, error);
}

static gboolean
op_check_cancelled (GTask *task)
{
  GError *error = NULL;

  if (!g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &error))
    return FALSE;
  op_return_error (task, error);
  return TRUE;
}

static gboolean
op_fault (GTask              *task,
          NatterSessionsStep  step)
{
  OpData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (data->self->fault == NULL ||
      data->self->fault (step, data->session_id, data->self->fault_data, &error))
    return FALSE;
  g_assert (error != NULL);
  op_return_error (task, error);
  return TRUE;
}

static void
op_lock (GTask               *task,
         GAsyncReadyCallback  callback)
{
  OpData *data = g_task_get_task_data (task);

  natter_jsonl_repo_lock_async (data->self->session_repo, data->session_id,
                                g_task_get_cancellable (task), callback, task);
}

static gboolean
op_lock_finish (GTask        *task,
                GAsyncResult *result)
{
  OpData *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->guard = natter_jsonl_repo_lock_finish (data->self->session_repo, result, &error);
  if (data->guard == NULL)
    {
      op_return_error (task, error);
      return FALSE;
    }
  return TRUE;
}

/* Reads and reduces the operation's session under its lock. */
static gboolean
op_read_session_finish (GTask        *task,
                        GAsyncResult *result)
{
  OpData *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->state = read_session_finish (result, &error);
  if (data->state == NULL)
    {
      op_return_error (task, session_error (error, data->session_id));
      return FALSE;
    }
  return TRUE;
}

static void
op_session_read_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);

  if (op_read_session_finish (task, result))
    data->on_session (task);
}

static void
op_locked_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);

  if (!op_lock_finish (task, result))
    return;
  read_session_async (data->self, data->session_id, g_task_get_cancellable (task),
                      op_session_read_cb, g_object_ref (task));
}

/* Takes the session lock, reads and reduces the session file (not the
 * index: an errored or foreign session fails here rather than get events
 * glued to a corrupt log), then runs @on_session; a failure on the way
 * returns the error. Takes over @task's reference. */
static void
op_lock_and_read (GTask  *task,
                  OpStep  on_session)
{
  OpData *data = g_task_get_task_data (task);

  data->on_session = on_session;
  op_lock (task, op_locked_cb);
}

static void
op_latest_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);
  g_autoptr(NatterTurnState) turn = NULL;
  GError *error = NULL;

  turn = read_turn_finish (object, result, &error);
  if (turn == NULL)
    {
      op_return_error (task, latest_turn_error (error, data->session_id,
                                                natter_session_state_get_latest_turn_id (data->state)));
      return;
    }
  data->on_latest (task, turn);
}

/* Reads and reduces the session's latest turn (there must be one), then
 * runs @on_latest with it; a turn that cannot be read returns the error. */
static void
op_read_latest (GTask        *task,
                OpLatestStep  on_latest)
{
  OpData *data = g_task_get_task_data (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->state);

  g_assert (latest != NULL);
  data->on_latest = on_latest;
  read_turn_async (data->self, latest, g_task_get_cancellable (task),
                   op_latest_read_cb, g_object_ref (task));
}

/* Appends under the lock, then applies the same events to the state, so
 * the index entry is derived from exactly what is on disk. */
static gboolean
apply_appended (OpData     *data,
                GPtrArray  *events,
                GError    **error)
{
  for (guint i = 0; i < events->len; i++)
    if (!natter_session_state_apply (data->state, json_node_get_object (g_ptr_array_index (events, i)),
                                     error))
      return FALSE;
  return TRUE;
}

static JsonNode *
object_node (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return node;
}

/* create_session / fork */

static void
created_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);
  NatterSessions *self = data->self;
  GError *error = NULL;

  if (!natter_jsonl_repo_create_finish (NATTER_JSONL_REPO (object), result, &error))
    {
      op_return_error (task, error);
      return;
    }
  natter_session_index_update_from_state (self->index, data->state, NATTER_LATEST_TURN_STATUS_NONE);
  op_finish (task);
  g_signal_emit (self, signals[SESSION_INDEX_CHANGED], 0, data->session_id);
  g_task_return_pointer (task, g_strdup (data->session_id), g_free);
}

static void
create_write (GTask *task)
{
  OpData *data = g_task_get_task_data (task);
  NatterSessions *self = data->self;
  g_autofree char *ts = natter_clock_format_ts (self->clock);
  g_autoptr(JsonNode) event = NULL;
  GError *error = NULL;

  event = natter_session_event_new_created (data->session_id, ts, data->title, data->cwd,
                                            data->parent_session, data->forked_from_turn_id);
  data->state = natter_session_state_new ();
  if (!natter_session_state_apply (data->state, json_node_get_object (event), &error))
    {
      g_prefix_error (&error, "Invalid session: ");
      error->domain = NATTER_SESSION_ERROR;
      error->code = NATTER_SESSION_ERROR_INVALID_ARGUMENT;
      op_return_error (task, error);
      return;
    }
  natter_jsonl_repo_create_async (self->session_repo, data->session_id, event,
                                  g_task_get_cancellable (task), created_cb, g_object_ref (task));
}

static void
fork_turn_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);
  g_autoptr(NatterTurnState) turn = NULL;
  GError *error = NULL;
  NatterTurnStatus status;

  turn = read_turn_finish (object, result, &error);
  if (turn == NULL)
    {
      op_return_error (task, latest_turn_error (error, data->parent_session, data->forked_from_turn_id));
      return;
    }
  status = natter_derive_turn_status (turn);
  if (natter_sessions_is_turn_running (data->self, data->forked_from_turn_id) ||
      natter_turn_state_get_terminal_event (turn) == NULL)
    {
      op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
                                          "Cannot fork from turn %s: it is %s, not settled",
                                          data->forked_from_turn_id,
                                          natter_sessions_is_turn_running (data->self, data->forked_from_turn_id)
                                          ? "running" : natter_turn_status_to_string (status)));
      return;
    }
  if (op_check_cancelled (task))
    return;
  create_write (task);
}

static void
parent_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);
  g_autoptr(NatterSessionState) parent = NULL;
  GError *error = NULL;

  parent = read_session_finish (result, &error);
  if (parent == NULL)
    {
      op_return_error (task, session_error (error, data->parent_session));
      return;
    }
  if (data->inherit_cwd && data->cwd == NULL)
    data->cwd = g_strdup (natter_session_state_get_cwd (parent));
  if (data->forked_from_turn_id == NULL && data->inherit_cwd)
    data->forked_from_turn_id = g_strdup (natter_session_state_get_latest_turn_id (parent));
  if (data->forked_from_turn_id == NULL)
    {
      if (data->inherit_cwd)
        {
          op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                              "Session %s has no turn to fork from", data->parent_session));
          return;
        }
      create_write (task);
      return;
    }
  if (natter_session_state_find_turn (parent, data->forked_from_turn_id) == NULL)
    {
      op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND,
                                          "Session %s has no turn %s", data->parent_session,
                                          data->forked_from_turn_id));
      return;
    }
  read_turn_async (data->self, data->forked_from_turn_id, g_task_get_cancellable (task),
                   fork_turn_read_cb, g_object_ref (task));
}

static void
create_session_start (NatterSessions      *self,
                      const char          *title,
                      const char          *cwd,
                      const char          *parent_session,
                      const char          *forked_from_turn_id,
                      gboolean             is_fork,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data,
                      gpointer             source_tag)
{
  g_autofree char *session_id = natter_id_generator_next (self->ids);
  g_autoptr(GTask) task = op_task_new (self, session_id, cancellable, callback, user_data, source_tag);
  OpData *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->title = g_strdup (title);
  data->cwd = g_strdup (cwd);
  data->parent_session = g_strdup (parent_session);
  data->forked_from_turn_id = g_strdup (forked_from_turn_id);
  data->inherit_cwd = is_fork;

  if (cwd != NULL && !natter_session_cwd_validate (cwd, &error))
    {
      error->domain = NATTER_SESSION_ERROR;
      error->code = NATTER_SESSION_ERROR_INVALID_ARGUMENT;
      op_return_error (task, error);
      return;
    }
  if (forked_from_turn_id != NULL && parent_session == NULL)
    {
      op_return_error (task, g_error_new_literal (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                  "A fork point needs the session it was taken from"));
      return;
    }
  if (parent_session == NULL)
    {
      create_write (task);
      return;
    }
  read_session_async (self, parent_session, cancellable, parent_read_cb, g_object_ref (task));
}

/**
 * natter_sessions_create_session_async:
 * @self: the service
 * @title: (nullable): an explicit title; a set title is never replaced
 *   by the derived default (§9.1 step 6). Any string, "" included.
 * @cwd: (nullable): the session header's absolute, normalized working
 *   directory (dsh `SessionHeader.cwd`)
 * @parent_session: (nullable): the session this one descends from
 * @forked_from_turn_id: (nullable): a settled turn of @parent_session;
 *   the new session's first turn continues from it (its context is
 *   `{previousTurnId}` instead of `[]`)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * createSession of §9: writes `session_created` (schemaVersion 1) to a
 * new session file, adds the index entry (`none`) and emits
 * #NatterSessions::session-index-changed. With @parent_session and no
 * @cwd, the parent's `cwd` is not inherited (use natter_sessions_fork_async()).
 */
void
natter_sessions_create_session_async (NatterSessions      *self,
                                      const char          *title,
                                      const char          *cwd,
                                      const char          *parent_session,
                                      const char          *forked_from_turn_id,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));

  create_session_start (self, title, cwd, parent_session, forked_from_turn_id, FALSE,
                        cancellable, callback, user_data, natter_sessions_create_session_async);
}

/**
 * natter_sessions_create_session_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new session id; or %NULL with
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT (bad `cwd`, a fork point
 *   without a parent), %NATTER_SESSION_ERROR_NOT_FOUND (no such parent or
 *   no such turn in it), %NATTER_SESSION_ERROR_TURN_NOT_SETTLED (the fork
 *   point is not terminal), %NATTER_SESSION_ERROR_CORRUPT, or the repo's
 *   %NATTER_STORE_ERROR
 */
char *
natter_sessions_create_session_finish (NatterSessions  *self,
                                       GAsyncResult    *result,
                                       GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_create_session_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_sessions_fork_async:
 * @self: the service
 * @session_id: the session to fork
 * @turn_id: (nullable): the settled turn to continue from; %NULL for the
 *   session's latest turn
 * @title: (nullable): the new session's title; %NULL to derive one from
 *   its first message
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Forks a session (dsh-session.md "Replay/fork", without copying any
 * event): a new session with `parentSession` = @session_id,
 * `forkedFromTurnId` = the turn and the parent's `cwd`. Its first
 * natter_sessions_send_message_async() uses `{previousTurnId: turn}` as
 * context, so the model sees the parent's history up to that turn and the
 * parent is never touched.
 */
void
natter_sessions_fork_async (NatterSessions      *self,
                            const char          *session_id,
                            const char          *turn_id,
                            const char          *title,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  create_session_start (self, title, NULL, session_id, turn_id, TRUE,
                        cancellable, callback, user_data, natter_sessions_fork_async);
}

/**
 * natter_sessions_fork_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new session's id; or %NULL
 *   with the errors of natter_sessions_create_session_finish(), or
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT if the session has no turns
 */
char *
natter_sessions_fork_finish (NatterSessions  *self,
                             GAsyncResult    *result,
                             GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_fork_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Damage: what a damaged session still tells, and a copy of it */

/**
 * natter_session_damage_free:
 * @damage: (transfer full) (nullable): a damage report
 *
 * Frees @damage.
 */
void
natter_session_damage_free (NatterSessionDamage *damage)
{
  if (damage == NULL)
    return;
  g_free (damage->title);
  g_clear_object (&damage->file);
  g_free (damage->reason);
  g_free (damage);
}

G_DEFINE_BOXED_TYPE (NatterSessionDamage, natter_session_damage, natter_session_damage_copy,
                     natter_session_damage_free)

/**
 * natter_session_damage_copy:
 * @damage: a damage report
 *
 * Returns: (transfer full): a copy of @damage
 */
NatterSessionDamage *
natter_session_damage_copy (const NatterSessionDamage *damage)
{
  NatterSessionDamage *copy = g_new0 (NatterSessionDamage, 1);

  copy->title = g_strdup (damage->title);
  copy->file = damage->file != NULL ? g_object_ref (damage->file) : NULL;
  copy->line = damage->line;
  copy->reason = g_strdup (damage->reason);
  copy->n_turns = damage->n_turns;
  copy->can_copy = damage->can_copy;
  return copy;
}

/* The first problem of the log @id in @repo: %FALSE with @line and
 * @reason set (line 0: the file as a whole; @missing when it does not
 * exist), or %TRUE when it reads and folds whole. Folds the readable
 * prefix into @state when it is a session log (@state not %NULL). */
static gboolean
check_log (NatterJsonlRepo     *repo,
           const char          *id,
           NatterSessionState  *state,
           guint               *line,
           char               **reason,
           gboolean            *missing,
           GCancellable        *cancellable)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) turn = NULL;
  g_autoptr(GError) error = NULL;

  *missing = FALSE;
  events = natter_jsonl_repo_read_prefix_sync (repo, id, line, reason, cancellable, &error);
  if (events == NULL)
    {
      *line = 0;
      *missing = g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
      *reason = g_strdup (*missing ? "the file is missing" : error->message);
      return FALSE;
    }
  if (state == NULL)
    turn = natter_turn_state_new ();
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i));
      gboolean applied = state != NULL ? natter_session_state_apply (state, event, &error)
                                       : natter_turn_state_apply (turn, event, &error);

      if (!applied)
        {
          g_free (*reason);
          *line = i + 1;
          *reason = g_strdup (error->message);
          return FALSE;
        }
    }
  return *line == 0;
}

/* Finds where @session_id is damaged: its session log's first bad line,
 * else its latest turn's log (what the index reads, §8.2). Returns the
 * readable prefix in @out_state. Blocks. */
static NatterSessionDamage *
inspect_sync (NatterJsonlRepo     *session_repo,
              NatterJsonlRepo     *turn_repo,
              const char          *session_id,
              NatterSessionState **out_state,
              GCancellable        *cancellable,
              GError             **error)
{
  g_autoptr(NatterSessionState) state = natter_session_state_new ();
  NatterSessionDamage *damage;
  const char *latest;
  gboolean missing;

  if (!natter_id_validate (session_id, error))
    return NULL;
  damage = g_new0 (NatterSessionDamage, 1);
  damage->file = natter_jsonl_repo_get_file (session_repo, session_id, NULL);
  if (!check_log (session_repo, session_id, state, &damage->line, &damage->reason, &missing, cancellable) &&
      missing)
    {
      natter_session_damage_free (damage);
      g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND,
                   "No session %s", session_id);
      return NULL;
    }
  damage->can_copy = natter_session_state_get_definition (state) != NULL;
  damage->title = g_strdup (damage->can_copy ? natter_session_state_get_title (state) : NULL);
  damage->n_turns = damage->can_copy ? natter_session_state_get_n_turns (state) : 0;

  latest = damage->can_copy ? natter_session_state_get_latest_turn_id (state) : NULL;
  if (damage->reason == NULL && latest != NULL)
    {
      guint line = 0;
      char *reason = NULL;

      if (!check_log (turn_repo, latest, NULL, &line, &reason, &missing, cancellable))
        {
          /* The copy leaves out the turn that cannot be read. */
          g_clear_object (&damage->file);
          damage->file = natter_jsonl_repo_get_file (turn_repo, latest, NULL);
          damage->line = line;
          damage->reason = reason;
          damage->n_turns--;
        }
    }
  if (out_state != NULL)
    *out_state = g_steal_pointer (&state);
  return damage;
}

typedef struct
{
  NatterJsonlRepo    *session_repo;
  NatterJsonlRepo    *turn_repo;
  char               *session_id;
  char               *new_id;
  char               *ts;
  NatterSessionState *copy;           /* recover: the new session */
  char               *latest_status;  /* recover: its latest turn's */
} DamageData;

static void
damage_data_free (DamageData *data)
{
  g_clear_object (&data->session_repo);
  g_clear_object (&data->turn_repo);
  g_free (data->session_id);
  g_free (data->new_id);
  g_free (data->ts);
  g_clear_pointer (&data->copy, natter_session_state_unref);
  g_free (data->latest_status);
  g_free (data);
}

static DamageData *
damage_data_new (NatterSessions *self,
                 const char     *session_id)
{
  DamageData *data = g_new0 (DamageData, 1);

  data->session_repo = g_object_ref (self->session_repo);
  data->turn_repo = g_object_ref (self->turn_repo);
  data->session_id = g_strdup (session_id);
  return data;
}

static void
inspect_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  DamageData *data = task_data;
  NatterSessionDamage *damage;
  GError *error = NULL;

  damage = inspect_sync (data->session_repo, data->turn_repo, data->session_id, NULL, cancellable, &error);
  if (damage == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, damage, (GDestroyNotify) natter_session_damage_free);
}

/**
 * natter_sessions_inspect_damage_async:
 * @self: the service
 * @session_id: a session, usually one the index lists with an error
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Finds what is left of a damaged session and where the damage is: the
 * first line of its session log that cannot be read (or that breaks a
 * rule of §6), else its latest turn's log, the one the index reads
 * (§8.2). Reads only; nothing is written, nothing repaired (§4.2).
 */
void
natter_sessions_inspect_damage_async (NatterSessions      *self,
                                      const char          *session_id,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_inspect_damage_async);
  g_task_set_task_data (task, damage_data_new (self, session_id), (GDestroyNotify) damage_data_free);
  g_task_run_in_thread (task, inspect_thread);
}

/**
 * natter_sessions_inspect_damage_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the damage report; its `reason`
 *   is %NULL when nothing is damaged after all. %NULL with
 *   %NATTER_SESSION_ERROR_NOT_FOUND (no such session file) or the id's
 *   %NATTER_STORE_ERROR_INVALID_ID
 */
NatterSessionDamage *
natter_sessions_inspect_damage_finish (NatterSessions  *self,
                                       GAsyncResult    *result,
                                       GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_inspect_damage_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
recover_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  DamageData *data = task_data;
  g_autoptr(NatterSessionState) prefix = NULL;
  g_autoptr(NatterSessionState) copy = natter_session_state_new ();
  g_autoptr(NatterSessionDamage) damage = NULL;
  g_autoptr(GPtrArray) rest = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(JsonNode) created = NULL;
  JsonObject *definition;
  const char *title;
  GError *error = NULL;

  damage = inspect_sync (data->session_repo, data->turn_repo, data->session_id, &prefix, cancellable, &error);
  if (damage == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (!damage->can_copy)
    {
      g_autofree char *path = g_file_get_path (damage->file);

      g_task_return_new_error (task, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT,
                               "Nothing of session %s can be read: %s: %s",
                               data->session_id, path, damage->reason);
      return;
    }

  /* The same lineage, title and folder; the turns are referenced, not
   * copied: turns are found only by reference (§7) and a settled turn
   * never changes, so the copy can share them, as a fork shares its
   * parent's. */
  definition = natter_session_state_get_definition (prefix);
  created = natter_session_event_new_created (data->new_id, data->ts,
                                              json_object_get_string_member_with_default (definition, "title", NULL),
                                              natter_session_state_get_cwd (prefix),
                                              natter_session_state_get_parent_session (prefix),
                                              natter_session_state_get_forked_from_turn_id (prefix));
  for (guint i = 0; i < damage->n_turns; i++)
    {
      const NatterSessionTurn *turn = natter_session_state_get_turn (prefix, i);

      g_ptr_array_add (rest, natter_session_event_new_turn_appended (data->new_id, data->ts, turn->turn_id,
                                                                     (gint64) i + 1, turn->agent_id,
                                                                     turn->model));
    }
  title = natter_session_state_get_title (prefix);
  if (title != NULL &&
      g_strcmp0 (title, json_object_get_string_member_with_default (definition, "title", NULL)) != 0)
    g_ptr_array_add (rest, natter_session_event_new_title_changed (data->new_id, data->ts, title));

  if (!natter_session_state_apply (copy, json_node_get_object (created), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  for (guint i = 0; i < rest->len; i++)
    if (!natter_session_state_apply (copy, json_node_get_object (g_ptr_array_index (rest, i)), &error))
      {
        g_task_return_error (task, error);
        return;
      }

  /* The damaged log is only ever read; the copy is a new file. */
  if (!natter_jsonl_repo_create_sync (data->session_repo, data->new_id, created, cancellable, &error) ||
      (rest->len > 0 && !natter_jsonl_repo_append_sync (data->session_repo, data->new_id, rest, cancellable, &error)))
    {
      g_task_return_error (task, error);
      return;
    }

  data->latest_status = g_strdup (NATTER_LATEST_TURN_STATUS_NONE);
  if (natter_session_state_get_latest_turn_id (copy) != NULL)
    {
      g_autoptr(GPtrArray) events = NULL;
      g_autoptr(NatterTurnState) turn = NULL;
      g_autoptr(GError) turn_error = NULL;

      events = natter_jsonl_repo_read_sync (data->turn_repo, natter_session_state_get_latest_turn_id (copy),
                                            cancellable, &turn_error);
      if (events != NULL)
        turn = natter_turn_reduce (events, &turn_error);
      g_free (data->latest_status);
      data->latest_status = g_strdup (turn != NULL
                                      ? natter_latest_turn_status_from_turn_status (natter_derive_turn_status (turn))
                                      : "idle");
    }
  data->copy = g_steal_pointer (&copy);
  g_task_return_boolean (task, TRUE);
}

static void
recovered_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);
  DamageData *damage_data = g_task_get_task_data (G_TASK (result));
  NatterSessions *self = data->self;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      op_return_error (task, error);
      return;
    }
  natter_session_index_update_from_state (self->index, damage_data->copy, damage_data->latest_status);
  op_finish (task);
  g_signal_emit (self, signals[SESSION_INDEX_CHANGED], 0, damage_data->new_id);
  g_task_return_pointer (task, g_strdup (damage_data->new_id), g_free);
}

/**
 * natter_sessions_recover_async:
 * @self: the service
 * @session_id: a damaged session
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Copies the readable part of a damaged session to a new session, the
 * way out of a log that can no longer be used (§4.2: reads never repair
 * or skip). The new session has the damaged one's title, folder and
 * lineage, and as its turns the turns of the readable prefix
 * (natter_sessions_inspect_damage_async()), referenced like a fork's:
 * without the turn whose log is damaged, when that is the latest turn's.
 * The damaged session's files are only read, never modified.
 */
void
natter_sessions_recover_async (NatterSessions      *self,
                               const char          *session_id,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) thread = NULL;
  DamageData *data;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  task = op_task_new (self, session_id, cancellable, callback, user_data, natter_sessions_recover_async);
  data = damage_data_new (self, session_id);
  data->new_id = natter_id_generator_next (self->ids);
  data->ts = natter_clock_format_ts (self->clock);
  thread = g_task_new (self, cancellable, recovered_cb, g_object_ref (task));
  g_task_set_task_data (thread, data, (GDestroyNotify) damage_data_free);
  g_task_run_in_thread (thread, recover_thread);
}

/**
 * natter_sessions_recover_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new session's id; %NULL with
 *   %NATTER_SESSION_ERROR_NOT_FOUND (no such session),
 *   %NATTER_SESSION_ERROR_CORRUPT (not even its first line can be read),
 *   or a %NATTER_STORE_ERROR from writing the copy
 */
char *
natter_sessions_recover_finish (NatterSessions  *self,
                                GAsyncResult    *result,
                                GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_recover_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* get_session, get_turn */

static void
get_session_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionState *state;
  GError *error = NULL;

  state = read_session_finish (result, &error);
  if (state == NULL)
    g_task_return_error (task, session_error (error, g_task_get_task_data (task)));
  else
    g_task_return_pointer (task, state, (GDestroyNotify) natter_session_state_unref);
}

/**
 * natter_sessions_get_session_async:
 * @self: the service
 * @session_id: the session
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * getSession of §9: reads and reduces the session file (in a worker
 * thread). Read-only; takes no lock.
 */
void
natter_sessions_get_session_async (NatterSessions      *self,
                                   const char          *session_id,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_get_session_async);
  g_task_set_task_data (task, g_strdup (session_id), g_free);
  read_session_async (self, session_id, cancellable, get_session_cb, task);
}

/**
 * natter_sessions_get_session_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the session's state; or %NULL
 *   with %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_CORRUPT,
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT (not an id) or an I/O
 *   %NATTER_STORE_ERROR
 */
NatterSessionState *
natter_sessions_get_session_finish (NatterSessions  *self,
                                    GAsyncResult    *result,
                                    GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_get_session_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
get_turn_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GPtrArray *events;
  GError *error = NULL;

  events = natter_turn_runtime_get_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  if (events == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, events, (GDestroyNotify) g_ptr_array_unref);
}

/**
 * natter_sessions_get_turn_async:
 * @self: the service
 * @turn_id: the turn
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * getTurn of §9: a passthrough to natter_turn_runtime_get_turn_async().
 */
void
natter_sessions_get_turn_async (NatterSessions      *self,
                                const char          *turn_id,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_get_turn_async);
  natter_turn_runtime_get_turn_async (self->runtime, turn_id, cancellable, get_turn_cb, task);
}

/**
 * natter_sessions_get_turn_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (element-type JsonNode) (nullable): the turn's
 *   events; or %NULL with the runtime's errors (%NATTER_STORE_ERROR)
 */
GPtrArray *
natter_sessions_get_turn_finish (NatterSessions  *self,
                                 GAsyncResult    *result,
                                 GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_get_turn_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* send_message (§9.1) */

/**
 * natter_derive_session_title:
 * @message: (transfer none): a user message `{role, content}`; content a
 *   string or an array of parts (`{type: "text", text}` ones count)
 *
 * The default title of §9.1 step 6: the first non-empty line of the
 * message's text, whitespace-trimmed, cut to
 * %NATTER_SESSION_TITLE_MAX_CHARS characters with "…" when longer.
 *
 * Returns: (transfer full) (nullable): the title, or %NULL if the message
 *   has no text
 */
char *
natter_derive_session_title (JsonObject *message)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *valid = NULL;
  JsonNode *content;
  char **lines;
  char *title = NULL;

  g_return_val_if_fail (message != NULL, NULL);

  content = json_object_get_member (message, "content");
  if (content != NULL && JSON_NODE_HOLDS_VALUE (content) &&
      json_node_get_value_type (content) == G_TYPE_STRING)
    g_string_append (text, json_node_get_string (content));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *part = json_array_get_element (parts, i);
          JsonObject *object;

          if (!JSON_NODE_HOLDS_OBJECT (part))
            continue;
          object = json_node_get_object (part);
          if (g_strcmp0 (json_object_get_string_member_with_default (object, "type", NULL), "text") == 0)
            g_string_append_printf (text, "%s\n",
                                    json_object_get_string_member_with_default (object, "text", ""));
        }
    }

  valid = g_utf8_make_valid (text->str, text->len);
  lines = g_strsplit_set (valid, "\r\n", -1);
  for (guint i = 0; lines[i] != NULL && title == NULL; i++)
    {
      char *line = g_strstrip (lines[i]);

      if (*line == '\0')
        continue;
      if (g_utf8_strlen (line, -1) <= NATTER_SESSION_TITLE_MAX_CHARS)
        title = g_strdup (line);
      else
        {
          g_autofree char *cut = g_utf8_substring (line, 0, NATTER_SESSION_TITLE_MAX_CHARS);

          title = g_strconcat (g_strchomp (cut), "…", NULL);
        }
    }
  g_strfreev (lines);
  return title;
}

static void
send_appended_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);
  NatterSessions *self = data->self;
  GPtrArray *events = g_object_get_data (G_OBJECT (task), "events");
  GError *error = NULL;

  if (!natter_jsonl_repo_append_finish (NATTER_JSONL_REPO (object), result, &error) ||
      !apply_appended (data, events, &error))
    {
      op_return_error (task, error);
      return;
    }
  /* Write-through in the same path as the append (§8.3). The new turn
   * is idle until its advance settles. */
  natter_session_index_update_from_state (self->index, data->state,
                                          natter_latest_turn_status_from_turn_status (NATTER_TURN_STATUS_IDLE));
  g_signal_emit (self, signals[SESSION_INDEX_CHANGED], 0, data->session_id);

  if (op_fault (task, NATTER_SESSIONS_STEP_APPEND))
    return;

  /* Step 7: the session already references the turn (§7). Not tied to
   * the caller's cancellable: the turn is the user's now. */
  start_advance (self, data->session_id, data->turn_id, NULL);

  if (op_fault (task, NATTER_SESSIONS_STEP_ADVANCE))
    return;

  /* Step 8 */
  op_finish (task);
  g_task_return_pointer (task, g_strdup (data->turn_id), g_free);
}

/* Steps 5 and 6: the session records the agent and exactly the
 * {provider, model} the runtime resolved for the turn (§5). */
static void
send_append (GTask             *task,
             NatterTurnCreated *created)
{
  OpData *data = g_task_get_task_data (task);
  NatterSessions *self = data->self;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonObject) model = json_object_new ();
  g_autofree char *ts = natter_clock_format_ts (self->clock);
  g_autofree char *title = NULL;

  json_object_set_string_member (model, "provider", natter_turn_created_get_provider (created));
  json_object_set_string_member (model, "model", natter_turn_created_get_model (created));
  events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_ptr_array_add (events, natter_session_event_new_turn_appended (data->session_id, ts, data->turn_id,
                                                                   natter_session_state_get_next_session_seq (data->state),
                                                                   natter_turn_created_get_agent_id (created),
                                                                   model));
  /* Step 6, in the same append as step 5 so that no crash can separate a
   * first turn from its default title. Never over a title the user set
   * (also a set empty title). */
  if (natter_session_state_get_title (data->state) == NULL &&
      (title = natter_derive_session_title (data->input)) != NULL)
    g_ptr_array_add (events, natter_session_event_new_title_changed (data->session_id, ts, title));

  g_object_set_data_full (G_OBJECT (task), "events", g_ptr_array_ref (events),
                          (GDestroyNotify) g_ptr_array_unref);
  /* Appends are awaited, not fsynced (§4.2). */
  natter_jsonl_repo_append_async (self->session_repo, data->session_id, events, NULL,
                                  send_appended_cb, g_object_ref (task));
}

static void
send_turn_created_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);
  g_autoptr(NatterTurnCreated) created = NULL;
  GError *error = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  if (created == NULL)
    {
      op_return_error (task, error);
      return;
    }
  data->turn_id = g_strdup (natter_turn_created_get_turn_id (created));
  /* Between step 4 and step 5 a crash leaves a benign orphan (§7). */
  if (op_fault (task, NATTER_SESSIONS_STEP_CREATE_TURN))
    return;
  send_append (task, created);
}

static void
send_create_turn (GTask *task)
{
  OpData *data = g_task_get_task_data (task);
  NatterSessions *self = data->self;
  g_autoptr(JsonNode) context = NULL;
  g_autoptr(JsonObject) config = NULL;
  g_autoptr(JsonObject) requested_agent = NULL;
  const char *previous = natter_session_state_get_latest_turn_id (data->state);

  if (op_check_cancelled (task))
    return;

  /* Step 3: `[]` for the first turn, else a reference; a fork's first
   * turn refers to its fork point. */
  if (previous == NULL)
    previous = natter_session_state_get_forked_from_turn_id (data->state);
  /* After a turn that failed because its history could not be read, a
   * reference would reach the same damage again: the conversation goes
   * on from an empty context instead (the damaged file stays as it is). */
  if (previous == NULL || data->fresh_context)
    {
      context = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (context, json_array_new ());
    }
  else
    {
      JsonObject *reference = json_object_new ();

      json_object_set_string_member (reference, "previousTurnId", previous);
      context = json_node_init_object (json_node_alloc (), reference);
      json_object_unref (reference);
    }

  /* Step 4: the send options land on the turn; a session turn always
   * has a human, and tools resolve relative paths against the session's
   * directory. */
  requested_agent = natter_send_options_to_requested_agent (data->options);
  config = natter_send_options_to_turn_config (data->options, TRUE, natter_session_state_get_cwd (data->state));

  natter_turn_runtime_create_turn_async (self->runtime, requested_agent, data->session_id, context,
                                         data->input, config, NULL, send_turn_created_cb,
                                         g_object_ref (task));
}

static GError *
not_settled (const char *session_id,
             const char *turn_id,
             const char *status)
{
  return g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
                      "The latest turn %s of session %s is %s; wait for it to settle or stop it",
                      turn_id, session_id, status);
}

static void
send_latest_read (GTask           *task,
                  NatterTurnState *turn)
{
  OpData *data = g_task_get_task_data (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->state);

  /* Step 2: no implicit queueing, steering or ask-human routing. */
  if (natter_sessions_is_turn_running (data->self, latest))
    {
      op_return_error (task, not_settled (data->session_id, latest, "running"));
      return;
    }
  if (natter_turn_state_get_terminal_event (turn) == NULL)
    {
      op_return_error (task, not_settled (data->session_id, latest,
                                          natter_turn_status_to_string (natter_derive_turn_status (turn))));
      return;
    }
  if (op_fault (task, NATTER_SESSIONS_STEP_CHECK_LATEST))
    return;
  {
    JsonObject *terminal = natter_turn_state_get_terminal_event (turn);

    data->fresh_context =
      g_strcmp0 (json_object_get_string_member_with_default (terminal, "type", NULL), "turn_failed") == 0 &&
      g_strcmp0 (json_object_get_string_member_with_default (terminal, "code", NULL),
                 NATTER_TURN_FAILED_CONTEXT_UNREADABLE) == 0;
  }
  send_create_turn (task);
}

static void
send_session_read (GTask *task)
{
  OpData *data = g_task_get_task_data (task);
  const char *latest;

  if (op_fault (task, NATTER_SESSIONS_STEP_READ_SESSION))
    return;

  latest = natter_session_state_get_latest_turn_id (data->state);
  if (latest == NULL)
    {
      send_create_turn (task);
      return;
    }
  /* A live advance is "running" whatever the file says. */
  if (natter_sessions_is_turn_running (data->self, latest))
    {
      op_return_error (task, not_settled (data->session_id, latest, "running"));
      return;
    }
  op_read_latest (task, send_latest_read);
}

/**
 * natter_sessions_send_message_async:
 * @self: the service
 * @session_id: the session
 * @input: (transfer none): the user message, `{role: "user", content}`
 * @options: (transfer none): the SendMessageConfig of §9: the agent, an
 *   optional model override, autoPermission and maxModelCalls
 * @cancellable: (nullable): cancels up to the turn's creation; never the
 *   turn (use natter_sessions_stop_turn_async())
 * @callback: called on the main context once the turn runs
 * @user_data: data for @callback
 *
 * sendMessage of §9.1, all under the session lock: (1) read and reduce
 * the session; (2) refuse if the latest turn is not terminal — running
 * (a live advance of this service), suspended or idle; (3) context `[]`
 * for the first turn (a fork's fork point as `{previousTurnId}`), else
 * `{previousTurnId: latest}`; (4) create the turn with the config and
 * `humanAvailable: true`; (5) append `turn_appended` with the next
 * `sessionSeq` and the turn's resolved agent id and `{provider, model}`;
 * (6) in the same append, a `title_changed` from the truncated first
 * message if the session has no title; (7) start the advance, tracked and
 * forwarded (#NatterSessions::turn-event); (8) return the turn id at once.
 * The index entry is updated and #NatterSessions::session-index-changed
 * emitted after step 6 and again when the advance settles.
 */
void
natter_sessions_send_message_async (NatterSessions      *self,
                                    const char          *session_id,
                                    JsonObject          *input,
                                    const NatterSendOptions *options,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  OpData *data;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);
  g_return_if_fail (input != NULL);
  g_return_if_fail (options != NULL);

  task = op_task_new (self, session_id, cancellable, callback, user_data,
                      natter_sessions_send_message_async);
  data = g_task_get_task_data (task);
  data->input = json_object_ref (input);
  data->options = natter_send_options_copy (options);
  op_lock_and_read (g_steal_pointer (&task), send_session_read);
}

/**
 * natter_sessions_send_message_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new turn's id; or %NULL with
 *   %NATTER_SESSION_ERROR_TURN_NOT_SETTLED, %NATTER_SESSION_ERROR_NOT_FOUND,
 *   %NATTER_SESSION_ERROR_CORRUPT, %NATTER_SESSION_ERROR_INVALID_ARGUMENT,
 *   the runtime's create_turn errors (%NATTER_RUNTIME_ERROR_AGENT, …), a
 *   %NATTER_STORE_ERROR from an append, or %G_IO_ERROR_CANCELLED
 */
char *
natter_sessions_send_message_finish (NatterSessions  *self,
                                     GAsyncResult    *result,
                                     GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_send_message_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* External inputs (§9.2) */

static void
input_waited_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterTurnOutcome *outcome;
  GError *error = NULL;

  outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &error);
  if (outcome == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, outcome, (GDestroyNotify) natter_turn_outcome_unref);
}

/* One advance with one input; the runtime validates and its errors pass
 * through. */
static void
advance_with_input (NatterSessions      *self,
                    const char          *turn_id,
                    JsonObject          *input,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data,
                    gpointer             source_tag)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  NatterTurnExecution *execution;
  const char *session_id = natter_session_index_lookup_session_for_turn (self->index, turn_id);

  g_task_set_source_tag (task, source_tag);
  execution = start_advance (self, session_id, turn_id, input);
  natter_turn_execution_wait_async (execution, cancellable, input_waited_cb, g_steal_pointer (&task));
}

static NatterTurnOutcome *
outcome_finish (NatterSessions  *self,
                GAsyncResult    *result,
                gpointer         source_tag,
                GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_sessions_respond_to_permission_async:
 * @self: the service
 * @turn_id: the suspended turn
 * @tool_call_id: the call awaiting permission
 * @decision: `allow` or `deny`
 * @metadata: (nullable) (transfer none): recorded with the decision
 * @cancellable: (nullable): cancels the wait, not the advance
 * @callback: called on the main context when the advance settles
 * @user_data: data for @callback
 *
 * respondToPermission of §9.2: one advance of @turn_id with a
 * `permission_decision` input.
 */
void
natter_sessions_respond_to_permission_async (NatterSessions      *self,
                                             const char          *turn_id,
                                             const char          *tool_call_id,
                                             const char          *decision,
                                             JsonNode            *metadata,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data)
{
  g_autoptr(JsonObject) input = json_object_new ();

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL && tool_call_id != NULL && decision != NULL);

  json_object_set_string_member (input, "type", "permission_decision");
  json_object_set_string_member (input, "toolCallId", tool_call_id);
  json_object_set_string_member (input, "decision", decision);
  if (metadata != NULL)
    json_object_set_member (input, "metadata", json_node_copy (metadata));
  advance_with_input (self, turn_id, input, cancellable, callback, user_data,
                      natter_sessions_respond_to_permission_async);
}

/**
 * natter_sessions_respond_to_permission_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the advance's outcome; or %NULL
 *   with the runtime's rejection passed through
 *   (%NATTER_RUNTIME_ERROR_INVALID_INPUT for an unknown or resolved call,
 *   %NATTER_RUNTIME_ERROR_TURN_ENDED for a terminal turn,
 *   %NATTER_STORE_ERROR_NOT_FOUND, …)
 */
NatterTurnOutcome *
natter_sessions_respond_to_permission_finish (NatterSessions  *self,
                                              GAsyncResult    *result,
                                              GError         **error)
{
  return outcome_finish (self, result, natter_sessions_respond_to_permission_async, error);
}

/**
 * natter_sessions_respond_to_ask_human_async:
 * @self: the service
 * @turn_id: the suspended turn
 * @tool_call_id: the pending `ask_human` call
 * @answer: the human's answer
 * @cancellable: (nullable): cancels the wait, not the advance
 * @callback: called on the main context when the advance settles
 * @user_data: data for @callback
 *
 * respondToAskHuman of §9.2: the dedicated endpoint for the ask-human
 * tool, a thin wrapper over an `async_tool_result` input whose result is
 * `{output: answer, isError: false}`. natter_sessions_send_message_async()
 * never routes here (§9.1 step 2).
 */
void
natter_sessions_respond_to_ask_human_async (NatterSessions      *self,
                                            const char          *turn_id,
                                            const char          *tool_call_id,
                                            const char          *answer,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data)
{
  g_autoptr(JsonObject) input = json_object_new ();
  JsonObject *tool_result = json_object_new ();

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL && tool_call_id != NULL && answer != NULL);

  json_object_set_string_member (tool_result, "output", answer);
  json_object_set_boolean_member (tool_result, "isError", FALSE);
  json_object_set_string_member (input, "type", "async_tool_result");
  json_object_set_string_member (input, "toolCallId", tool_call_id);
  json_object_set_object_member (input, "result", tool_result);
  advance_with_input (self, turn_id, input, cancellable, callback, user_data,
                      natter_sessions_respond_to_ask_human_async);
}

/**
 * natter_sessions_respond_to_ask_human_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the advance's outcome; or %NULL
 *   with the runtime's rejection passed through
 */
NatterTurnOutcome *
natter_sessions_respond_to_ask_human_finish (NatterSessions  *self,
                                             GAsyncResult    *result,
                                             GError         **error)
{
  return outcome_finish (self, result, natter_sessions_respond_to_ask_human_async, error);
}

/**
 * natter_sessions_deliver_async_tool_result_async:
 * @self: the service
 * @turn_id: the suspended turn
 * @tool_call_id: the async call
 * @result: (transfer none): ToolResultData `{output, isError}`
 * @cancellable: (nullable): cancels the wait, not the advance
 * @callback: called on the main context when the advance settles
 * @user_data: data for @callback
 *
 * deliverAsyncToolResult of §9.2: one advance with an
 * `async_tool_result` input.
 */
void
natter_sessions_deliver_async_tool_result_async (NatterSessions      *self,
                                                 const char          *turn_id,
                                                 const char          *tool_call_id,
                                                 JsonObject          *result,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data)
{
  g_autoptr(JsonObject) input = json_object_new ();

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL && tool_call_id != NULL && result != NULL);

  json_object_set_string_member (input, "type", "async_tool_result");
  json_object_set_string_member (input, "toolCallId", tool_call_id);
  json_object_set_member (input, "result", object_node (result));
  advance_with_input (self, turn_id, input, cancellable, callback, user_data,
                      natter_sessions_deliver_async_tool_result_async);
}

/**
 * natter_sessions_deliver_async_tool_result_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the advance's outcome; or %NULL
 *   with the runtime's rejection passed through
 */
NatterTurnOutcome *
natter_sessions_deliver_async_tool_result_finish (NatterSessions  *self,
                                                  GAsyncResult    *result,
                                                  GError         **error)
{
  return outcome_finish (self, result, natter_sessions_deliver_async_tool_result_async, error);
}

/* stop_turn, wait_for_turn (§9.3) */

static void
add_turn_waiter (NatterSessions *self,
                 const char     *turn_id,
                 GTask          *task)
{
  GPtrArray *waiters = g_hash_table_lookup (self->turn_waiters, turn_id);

  if (waiters == NULL)
    {
      waiters = g_ptr_array_new_with_free_func (g_object_unref);
      g_hash_table_insert (self->turn_waiters, g_strdup (turn_id), waiters);
    }
  g_ptr_array_add (waiters, task);
}

static void
stop_cancel_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  GError *error = NULL;

  outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &error);
  /* A cancel that found the turn already terminal lost the race with a
   * settle: the turn is stopped all the same. */
  if (outcome == NULL && g_error_matches (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_TURN_ENDED))
    g_clear_error (&error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * natter_sessions_stop_turn_async:
 * @self: the service
 * @turn_id: the turn
 * @reason: (nullable): recorded on `turn_cancelled` when a cancel input
 *   is used
 * @cancellable: (nullable): cancels the wait only
 * @callback: called on the main context once the turn is stopped
 * @user_data: data for @callback
 *
 * stopTurn of §9.3. If this service has live advances of @turn_id (one
 * running, others queued on the turn lock), cancels every one of their
 * #GCancellables and completes when all have settled; the queued ones see
 * their cancellation when the lock frees. Otherwise advances the turn
 * with a `cancel` input. A cancel that loses the race with a concurrent
 * settle (the turn is terminal when it applies) counts as success.
 */
void
natter_sessions_stop_turn_async (NatterSessions      *self,
                                 const char          *turn_id,
                                 const char          *reason,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) input = NULL;
  GPtrArray *live;
  NatterTurnExecution *execution;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_stop_turn_async);

  live = g_hash_table_lookup (self->live, turn_id);
  if (live != NULL)
    {
      /* A copy: a cancellation may settle an advance synchronously. */
      g_autoptr(GPtrArray) advances = g_ptr_array_copy (live, NULL, NULL);

      add_turn_waiter (self, turn_id, g_steal_pointer (&task));
      for (guint i = 0; i < advances->len; i++)
        g_cancellable_cancel (((Advance *) g_ptr_array_index (advances, i))->cancellable);
      return;
    }

  input = json_object_new ();
  json_object_set_string_member (input, "type", "cancel");
  if (reason != NULL)
    json_object_set_string_member (input, "reason", reason);
  execution = start_advance (self, natter_session_index_lookup_session_for_turn (self->index, turn_id),
                             turn_id, input);
  natter_turn_execution_wait_async (execution, NULL, stop_cancel_cb, g_steal_pointer (&task));
}

/**
 * natter_sessions_stop_turn_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the turn is stopped (or had already ended); else
 *   %FALSE with the runtime's error (%NATTER_STORE_ERROR_NOT_FOUND,
 *   %NATTER_STORE_ERROR_CORRUPT, …)
 */
gboolean
natter_sessions_stop_turn_finish (NatterSessions  *self,
                                  GAsyncResult    *result,
                                  GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_stop_turn_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * natter_sessions_wait_for_turn_async:
 * @self: the service
 * @turn_id: the turn
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Completes once this service has no live advance of @turn_id (at once if
 * it has none); the index entry is updated by then only for advances that
 * already delivered their outcome. For the CLI ("send and wait") and
 * tests; the UI follows events instead.
 */
void
natter_sessions_wait_for_turn_async (NatterSessions      *self,
                                     const char          *turn_id,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_wait_for_turn_async);
  if (!g_hash_table_contains (self->live, turn_id))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  add_turn_waiter (self, turn_id, g_steal_pointer (&task));
}

/**
 * natter_sessions_wait_for_turn_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE
 */
gboolean
natter_sessions_wait_for_turn_finish (NatterSessions  *self,
                                      GAsyncResult    *result,
                                      GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_wait_for_turn_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* resume_turn (§9.3) */

static void
resume_latest_read (GTask           *task,
                    NatterTurnState *turn)
{
  OpData *data = g_task_get_task_data (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->state);
  NatterTurnStatus status;

  status = natter_derive_turn_status (turn);
  if (natter_sessions_is_turn_running (data->self, latest) || status != NATTER_TURN_STATUS_IDLE)
    {
      op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                          "The latest turn %s is %s, not idle; only an interrupted "
                                          "turn can be resumed", latest,
                                          natter_sessions_is_turn_running (data->self, latest)
                                          ? "running" : natter_turn_status_to_string (status)));
      return;
    }
  start_advance (data->self, data->session_id, latest, NULL);
  op_finish (task);
  g_task_return_pointer (task, g_strdup (latest), g_free);
}

static void
resume_session_read (GTask *task)
{
  OpData *data = g_task_get_task_data (task);

  if (natter_session_state_get_latest_turn_id (data->state) == NULL)
    {
      op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                          "Session %s has no turn to resume", data->session_id));
      return;
    }
  op_read_latest (task, resume_latest_read);
}

/**
 * natter_sessions_resume_turn_async:
 * @self: the service
 * @session_id: the session
 * @cancellable: (nullable): cancels up to the advance's start
 * @callback: called on the main context once the advance runs
 * @user_data: data for @callback
 *
 * resumeTurn of §9.3: re-enters the latest turn with no input, the turn
 * runtime's recovery entry point, for a turn left `idle` by a crash. Only
 * ever an explicit user action: recovery re-issues interrupted model
 * calls. Like send_message it returns once the advance has started.
 */
void
natter_sessions_resume_turn_async (NatterSessions      *self,
                                   const char          *session_id,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  op_lock_and_read (op_task_new (self, session_id, cancellable, callback, user_data,
                                 natter_sessions_resume_turn_async),
                    resume_session_read);
}

/**
 * natter_sessions_resume_turn_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the resumed turn's id; or %NULL
 *   with %NATTER_SESSION_ERROR_INVALID_ARGUMENT (no turns, or the latest
 *   turn is running, suspended or terminal), %NATTER_SESSION_ERROR_NOT_FOUND
 *   or %NATTER_SESSION_ERROR_CORRUPT
 */
char *
natter_sessions_resume_turn_finish (NatterSessions  *self,
                                    GAsyncResult    *result,
                                    GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_resume_turn_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* set_title */

static void
title_appended_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);
  GPtrArray *events = g_object_get_data (G_OBJECT (task), "events");
  GError *error = NULL;

  if (!natter_jsonl_repo_append_finish (NATTER_JSONL_REPO (object), result, &error) ||
      !apply_appended (data, events, &error))
    {
      op_return_error (task, error);
      return;
    }
  natter_session_index_update_from_state (data->self->index, data->state, NULL);
  op_finish (task);
  g_signal_emit (data->self, signals[SESSION_INDEX_CHANGED], 0, data->session_id);
  g_task_return_boolean (task, TRUE);
}

static void
title_session_read (GTask *task)
{
  OpData *data = g_task_get_task_data (task);
  g_autofree char *ts = NULL;
  GPtrArray *events;

  if (op_check_cancelled (task))
    return;
  ts = natter_clock_format_ts (data->self->clock);
  events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_ptr_array_add (events, natter_session_event_new_title_changed (data->session_id, ts, data->title));
  g_object_set_data_full (G_OBJECT (task), "events", events, (GDestroyNotify) g_ptr_array_unref);
  natter_jsonl_repo_append_async (data->self->session_repo, data->session_id, events, NULL,
                                  title_appended_cb, g_object_ref (task));
}

/**
 * natter_sessions_set_title_async:
 * @self: the service
 * @session_id: the session
 * @title: the new title, any string ("" included)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * setTitle of §9: appends `title_changed` under the session lock, updates
 * the index entry and emits #NatterSessions::session-index-changed. A set
 * title is never replaced by the default one.
 */
void
natter_sessions_set_title_async (NatterSessions      *self,
                                 const char          *session_id,
                                 const char          *title,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);
  g_return_if_fail (title != NULL);

  task = op_task_new (self, session_id, cancellable, callback, user_data,
                      natter_sessions_set_title_async);
  ((OpData *) g_task_get_task_data (task))->title = g_strdup (title);
  op_lock_and_read (task, title_session_read);
}

/**
 * natter_sessions_set_title_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success; else %FALSE with
 *   %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_CORRUPT or a
 *   %NATTER_STORE_ERROR from the append
 */
gboolean
natter_sessions_set_title_finish (NatterSessions  *self,
                                  GAsyncResult    *result,
                                  GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_set_title_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* delete_session (§9.4) */

static void
deleted_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (!natter_jsonl_repo_delete_finish (NATTER_JSONL_REPO (object), result, &error))
    {
      /* A file already gone still takes its stale entry with it. */
      if (natter_session_index_remove (data->self->index, data->session_id))
        g_signal_emit (data->self, signals[SESSION_INDEX_CHANGED], 0, data->session_id);
      op_return_error (task, session_error (error, data->session_id));
      return;
    }
  natter_session_index_remove (data->self->index, data->session_id);
  op_finish (task);
  g_signal_emit (data->self, signals[SESSION_INDEX_CHANGED], 0, data->session_id);
  g_task_return_boolean (task, TRUE);
}

static void
delete_locked_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OpData *data = g_task_get_task_data (task);

  if (!op_lock_finish (task, result) || op_check_cancelled (task))
    return;
  natter_jsonl_repo_delete_async (data->self->session_repo, data->session_id, NULL, deleted_cb,
                                  g_object_ref (task));
}

/**
 * natter_sessions_delete_session_async:
 * @self: the service
 * @session_id: the session
 * @cancellable: (nullable): cancels before the file is removed
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * deleteSession of §9.4: removes the session file only — never a turn
 * file, which stays as an inert orphan — and the index entry, then emits
 * #NatterSessions::session-index-changed. Works on a corrupt session too.
 * A turn of the session that is still running is not stopped.
 */
void
natter_sessions_delete_session_async (NatterSessions      *self,
                                      const char          *session_id,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  op_lock (op_task_new (self, session_id, cancellable, callback, user_data,
                        natter_sessions_delete_session_async),
           delete_locked_cb);
}

/**
 * natter_sessions_delete_session_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once deleted; else %FALSE with
 *   %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_INVALID_ARGUMENT
 *   (not an id) or an I/O %NATTER_STORE_ERROR
 */
gboolean
natter_sessions_delete_session_finish (NatterSessions  *self,
                                       GAsyncResult    *result,
                                       GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_delete_session_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* flush (dsh `session/flush`) */

/**
 * natter_sessions_flush_async:
 * @self: the service
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * The awaited durability checkpoint of dsh-session.md: completes once
 * every session-layer operation begun before the call (create, fork,
 * send_message up to its return, set_title, delete, resume) has finished,
 * so all of their session-file appends have been written (awaited, not
 * fsynced, §4.2). Turn files need no flush: a running advance writes each
 * event before it announces it, so what was announced is on disk; a flush
 * never waits for a model. Operations begun after the call are not
 * waited for, so a busy service cannot starve a flush.
 */
void
natter_sessions_flush_async (NatterSessions      *self,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  guint64 *target;

  g_return_if_fail (NATTER_IS_SESSIONS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_flush_async);
  target = g_new (guint64, 1);
  *target = self->next_op;
  g_task_set_task_data (task, target, g_free);
  if (ops_done_up_to (self, *target))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_ptr_array_add (self->flushes, g_steal_pointer (&task));
}

/**
 * natter_sessions_flush_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE
 */
gboolean
natter_sessions_flush_finish (NatterSessions  *self,
                              GAsyncResult    *result,
                              GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_flush_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
