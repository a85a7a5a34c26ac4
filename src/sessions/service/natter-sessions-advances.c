/* natter-sessions-advances.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The advances the session service starts (docs/sessions.md §9.3,
 * §10): each is tracked per turn for stop_turn(), its events are
 * forwarded as the service's signals, and its settling updates the index.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"

/* Live advances (docs/sessions.md §9.3, §10) */

static void
advance_free (NatterSessionsAdvance *advance)
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
                  NatterSessionsAdvance             *advance)
{
  if (g_strcmp0 (json_object_get_string_member_with_default (event, "type", NULL), "turn_completed") == 0)
    advance->completed = TRUE;
  g_signal_emit (advance->self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_TURN_EVENT], 0,
                 advance->session_id, advance->turn_id, event, offset);
}

static void
advance_delta_cb (NatterTurnExecution *execution,
                  guint                model_call_index,
                  int                  kind,
                  const char          *text,
                  NatterSessionsAdvance             *advance)
{
  g_signal_emit (advance->self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_TURN_DELTA], 0,
                 advance->session_id, advance->turn_id, model_call_index, kind, text);
}

/* The turn's last live advance settled, leaving it @resting (waiting for
 * a permission, an answer or a tool's result) or not. A waiter with
 * something to do about a resting turn (a stop whose cancellation came
 * too late for that advance: it had settled already, and was still being
 * untracked) does it now; every other waiter is told at once. */
static void
resolve_turn_waiters (NatterSessions *self,
                      const char     *turn_id,
                      gboolean        resting)
{
  GPtrArray *waiters = NULL;
  g_autofree char *key = NULL;

  if (!g_hash_table_steal_extended (self->turn_waiters, turn_id, (gpointer *) &key,
                                    (gpointer *) &waiters))
    return;
  for (guint i = 0; i < waiters->len; i++)
    {
      NatterSessionsTurnWaiter *waiter = g_ptr_array_index (waiters, i);

      if (resting && waiter->resting != NULL)
        waiter->resting (self, turn_id, g_object_ref (waiter->task));
      else
        g_task_return_boolean (waiter->task, TRUE);
    }
  g_ptr_array_unref (waiters);
}

/* Untracks exactly this advance: another advance of the same turn that
 * started later stays tracked (docs/sessions.md §9.3). */
static void
untrack (NatterSessions *self,
         NatterSessionsAdvance        *advance)
{
  GPtrArray *list = g_hash_table_lookup (self->live, advance->turn_id);
  NatterTurnOutcome *outcome;

  if (list == NULL || !g_ptr_array_remove (list, advance))
    return;
  if (list->len == 0)
    {
      g_hash_table_remove (self->live, advance->turn_id);
      outcome = natter_turn_execution_get_outcome (advance->execution);
      resolve_turn_waiters (self, advance->turn_id,
                            outcome != NULL && outcome->kind == NATTER_TURN_OUTCOME_SUSPENDED);
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
  NatterSessionsAdvance *advance = user_data;
  NatterSessions *self = advance->self;
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) error = NULL;

  state = natter_sessions_read_turn_finish (object, result, &error);
  if (state != NULL)
    natter_session_index_set_latest_turn_status (self->index, advance->session_id, advance->turn_id,
                                                 natter_latest_turn_status_from_turn_status (natter_derive_turn_status (state)));
  g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0, advance->session_id);
  advance_free (advance);
}

static void
advance_outcome_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  NatterSessionsAdvance *advance = user_data;
  NatterSessions *self = advance->self;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;

  outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &error);
  if (advance->title_op != 0)
    {
      /* Takes over the operation that kept a flush waiting for the title. */
      if (outcome != NULL && outcome->kind == NATTER_TURN_OUTCOME_COMPLETED)
        natter_sessions_title_completed (self, advance->session_id, advance->turn_id, advance->title_op);
      else
        natter_sessions_end_op (self, advance->title_op);
      advance->title_op = 0;
    }
  if (advance->session_id == NULL)
    {
      advance_free (advance);
      return;
    }
  if (outcome == NULL)
    {
      /* An infrastructure error says nothing about the turn's state: ask
       * the file, so the index never guesses (docs/sessions.md §8.3). */
      natter_sessions_read_turn_async (self, advance->turn_id, NULL, refreshed_cb, advance);
      return;
    }
  natter_session_index_set_latest_turn_status (self->index, advance->session_id, advance->turn_id,
                                               status_of_outcome (outcome));
  g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0, advance->session_id);
  advance_free (advance);
}

static void
advance_settled_cb (NatterTurnExecution *execution,
                    NatterSessionsAdvance             *advance)
{
  g_signal_handlers_disconnect_by_data (execution, advance);
  /* An answer this advance completed may be its session's first, which
   * names the conversation (docs/sessions.md §13), whichever front end or
   * process sent the message. The operation begins before the turn's waiters
   * hear of it: whoever flushes after that (the command line, before it exits)
   * also waits for the title. */
  if (advance->session_id != NULL && advance->completed && advance->self->auto_title)
    advance->title_op = natter_sessions_begin_op (advance->self);
  /* The process that completes a turn promotes the queue (FIFO, one turn
   * per queued message) under the session lock; the promotion reads the
   * settled turn and does nothing unless it is still the latest and
   * completed. Only the advance that completed it: one that found the
   * turn over already (a Stop pressed as the answer ended) changed
   * nothing, and a queue held back when the turn completed stays as the
   * hold's release left it. Its operation begins here, before untrack()
   * tells the turn's waiters, so that a waiter that flushes (a command
   * line about to exit) waits for it. It looks at the turn only once it
   * holds the lock, after this returns. */
  if (advance->session_id != NULL && advance->settled != NULL && advance->completed)
    advance->settled (advance->self, advance->session_id);
  untrack (advance->self, advance);
  natter_turn_execution_wait_async (execution, NULL, advance_outcome_cb, advance);
}

/* Starts an advance, tracks it for stop_turn() and drains its events
 * into the service's signals (docs/sessions.md §9.1 step 7, §10.1).
 * @settled is what the session does once the advance settles, before
 * the turn's waiters hear of it: the promotion of its queue, which
 * sends the next turn. The caller passes it in, so that the advances
 * never call up into the operations that start them. */
static NatterTurnExecution *
start_tracked (NatterSessions            *self,
               const char                *session_id,
               const char                *turn_id,
               JsonObject                *input,
               gboolean                   take_over,
               NatterSessionsSettledFunc  settled)
{
  NatterSessionsAdvance *advance = g_new0 (NatterSessionsAdvance, 1);
  GPtrArray *list;

  advance->self = g_object_ref (self);
  self->n_advances++;
  advance->cancellable = g_cancellable_new ();
  advance->session_id = g_strdup (session_id);
  advance->turn_id = g_strdup (turn_id);
  advance->settled = settled;
  advance->execution = take_over
                       ? natter_turn_runtime_take_over_turn (self->runtime, turn_id, advance->cancellable)
                       : natter_turn_runtime_advance_turn (self->runtime, turn_id, input, advance->cancellable);

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

NatterTurnExecution *
natter_sessions_start_advance (NatterSessions            *self,
                               const char                *session_id,
                               const char                *turn_id,
                               JsonObject                *input,
                               NatterSessionsSettledFunc  settled)
{
  return start_tracked (self, session_id, turn_id, input, FALSE, settled);
}

/* natter_sessions_start_advance() of a turn another device ran, which
 * the person asked to continue here (docs/format.md §4.5). */
NatterTurnExecution *
natter_sessions_start_take_over (NatterSessions            *self,
                                 const char                *session_id,
                                 const char                *turn_id,
                                 NatterSessionsSettledFunc  settled)
{
  return start_tracked (self, session_id, turn_id, NULL, TRUE, settled);
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
 * yet: the "running" of docs/sessions.md §9.1 step 2. Ephemeral, never in the
 * index.
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

/**
 * natter_sessions_get_streamed:
 * @self: the service
 * @turn_id: a turn
 * @model_call_index: (out) (optional): the streaming model call
 * @text: (out) (optional) (transfer none): its text so far
 * @reasoning: (out) (optional) (transfer none): its reasoning so far
 *
 * What the model call of @turn_id streaming now in an advance of this
 * service has sent so far (natter_turn_execution_get_streamed()): a
 * view that begins to show the turn mid-answer starts from it, and the
 * hub's deltas go on from there (docs/sessions.md §10.3). Ephemeral,
 * like the deltas; valid until the next one, on the main context.
 *
 * Returns: %TRUE while one of its model calls streams here
 */
gboolean
natter_sessions_get_streamed (NatterSessions  *self,
                              const char      *turn_id,
                              guint           *model_call_index,
                              const char     **text,
                              const char     **reasoning)
{
  GPtrArray *list;

  g_return_val_if_fail (NATTER_IS_SESSIONS (self), FALSE);
  g_return_val_if_fail (turn_id != NULL, FALSE);

  list = g_hash_table_lookup (self->live, turn_id);
  /* The latest advance is the one that streams: one that started earlier
   * is settling. */
  for (guint i = list != NULL ? list->len : 0; i > 0; i--)
    {
      NatterSessionsAdvance *advance = g_ptr_array_index (list, i - 1);

      if (natter_turn_execution_get_streamed (advance->execution, model_call_index, text, reasoning))
        return TRUE;
    }
  return FALSE;
}
