/* test-sessions-stop.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Stopping a turn (docs/sessions.md §9.3): every live advance is
 * aborted, a cancel that lost the race to settlement still succeeds,
 * a suspended turn gets its cancel input, and deleting a conversation
 * stops its own turns still under way.
 */

#include "test-sessions.h"

/* docs/sessions.md §9.3 stopTurn */

typedef struct
{
  gboolean  done;
  GError   *error;
} Pending;

static void
pending_permission_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Pending *pending = user_data;
  NatterTurnOutcome *outcome;

  outcome = natter_sessions_respond_to_permission_finish (NATTER_SESSIONS (object), result, &pending->error);
  g_clear_pointer (&outcome, natter_turn_outcome_unref);
  pending->done = TRUE;
}

static void
pending_deliver_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Pending *pending = user_data;
  NatterTurnOutcome *outcome;

  outcome = natter_sessions_deliver_async_tool_result_finish (NATTER_SESSIONS (object), result, &pending->error);
  g_clear_pointer (&outcome, natter_turn_outcome_unref);
  pending->done = TRUE;
}

static guint
count_type (Fixture    *f,
            const char *tid,
            const char *type)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->t.w->turn_repo, tid);

  return natter_test_count_type (events, type);
}

static void
test_stop_aborts_every_live_advance (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  Pending queued = { 0 };

  natter_test_sessions_script (&f->t, NATTER_FAKE_STEP_HOLD, NULL);
  tid = send (f, sid, "hi");
  /* A second invocation queues on the turn lock behind the running one. */
  natter_sessions_respond_to_permission_async (f->t.sessions, tid, "X", "allow", NULL, NULL,
                                               pending_permission_cb, &queued);
  g_assert_cmpuint (natter_sessions_get_n_live_advances (f->t.sessions, tid), ==, 2);
  natter_fake_model_wait_held (f->t.w->fakes->model, 1, TIMEOUT_MS);

  stop (f, tid, "ignored", NULL);
  g_assert_cmpuint (natter_sessions_get_n_live_advances (f->t.sessions, tid), ==, 0);
  natter_test_wait_for_flag (&queued.done, TIMEOUT_MS);
  /* The queued one saw the turn ended when the lock freed. */
  g_assert_error (queued.error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_TURN_ENDED);
  g_clear_error (&queued.error);
  g_assert_cmpuint (count_type (f, tid, "turn_cancelled"), ==, 1);
  natter_test_sessions_wait_status (&f->t, sid, "cancelled");
}

static void
test_stop_keeps_later_advance_tracked (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autoptr(JsonObject) tool_result = object_literal ("{\"output\":\"x\",\"isError\":false}");
  g_autoptr(JsonObject) cancelled = NULL;
  Pending first = { 0 };
  Pending second = { 0 };

  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("B", "ab", "{}") "," NATTER_FAKE_CALL ("D", "ad", "{}")),
          NATTER_FAKE_STEP_HOLD, NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");

  /* Two concurrent invocations: the earlier settles (B still pending),
   * the later starts a model call that holds. */
  natter_sessions_deliver_async_tool_result_async (f->t.sessions, tid, "D", tool_result, NULL,
                                                   pending_deliver_cb, &first);
  natter_sessions_deliver_async_tool_result_async (f->t.sessions, tid, "B", tool_result, NULL,
                                                   pending_deliver_cb, &second);
  natter_test_wait_for_flag (&first.done, TIMEOUT_MS);
  g_assert_no_error (first.error);
  g_assert_cmpuint (natter_sessions_get_n_live_advances (f->t.sessions, tid), ==, 1);
  natter_fake_model_wait_held (f->t.w->fakes->model, 1, TIMEOUT_MS);

  stop (f, tid, "by input", NULL);
  natter_test_wait_for_flag (&second.done, TIMEOUT_MS);
  g_assert_no_error (second.error);
  /* Aborted through its cancellable (a cancel input would have waited
   * behind the held model call), and the stop's reason reaches the
   * turn_cancelled all the same. */
  cancelled = last_of_type (f, tid, "turn_cancelled");
  g_assert_cmpstr (json_object_get_string_member_with_default (cancelled, "reason", NULL), ==, "by input");
  natter_test_sessions_wait_status (&f->t, sid, "cancelled");
}

static void
untracked_waited_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Pending *pending = user_data;
  NatterTurnOutcome *outcome;

  outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &pending->error);
  g_clear_pointer (&outcome, natter_turn_outcome_unref);
  pending->done = TRUE;
}

typedef struct
{
  Fixture    *f;
  const char *tid;
  gboolean    done;
  GError     *error;
} StopCall;

static void
stop_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  StopCall *call = user_data;

  natter_sessions_stop_turn_finish (NATTER_SESSIONS (object), result, &call->error);
  call->done = TRUE;
}

static void
test_stop_lost_race_is_success (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autoptr(NatterTurnExecution) foreign = NULL;
  const char *tid;
  Pending pending = { 0 };
  StopCall call = { 0 };

  /* A turn advanced by someone else (not tracked by the service). */
  send_crashing_at (f, sid, "hi", NATTER_SESSIONS_STEP_APPEND);
  tid = natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (f->t.index, sid));
  natter_test_sessions_script (&f->t, NATTER_FAKE_STEP_HOLD, NULL);
  foreign = natter_turn_runtime_advance_turn (f->t.w->runtime, tid, NULL, NULL);
  natter_turn_execution_wait_async (foreign, NULL, untracked_waited_cb, &pending);
  natter_fake_model_wait_held (f->t.w->fakes->model, 1, TIMEOUT_MS);

  /* The cancel input queues on the turn lock; the turn completes first. */
  natter_sessions_stop_turn_async (f->t.sessions, tid, "user", NULL, stop_done_cb, &call);
  natter_fake_model_release (f->t.w->fakes->model);
  natter_test_wait_for_flag (&call.done, TIMEOUT_MS);
  g_assert_no_error (call.error);
  natter_test_wait_for_flag (&pending.done, TIMEOUT_MS);
  g_assert_no_error (pending.error);
  g_assert_cmpuint (count_type (f, tid, "turn_completed"), ==, 1);
  g_assert_cmpuint (count_type (f, tid, "turn_cancelled"), ==, 0);
  natter_test_sessions_wait_status (&f->t, sid, "completed");
}

static void
test_stop_rejection_surfaces (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *ghost = natter_id_generator_next (f->t.w->ids);
  g_autoptr(GError) error = NULL;

  stop (f, ghost, NULL, &error);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
}

static void
test_stop_suspended_with_input (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autoptr(JsonObject) cancelled = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("B", "ab", "{}")), NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");
  natter_test_sessions_wait_until (&f->t, no_live_advance, tid);
  stop (f, tid, "user", NULL);
  cancelled = last_of_type (f, tid, "turn_cancelled");
  g_assert_cmpstr (json_object_get_string_member (cancelled, "reason"), ==, "user");
  natter_test_sessions_wait_status (&f->t, sid, "cancelled");
}

/* A stop issued at a given moment of a turn that asks for permission:
 * once, the first time that moment comes. */
typedef struct
{
  StopCall call;
  gboolean issued;
} StopAt;

static void
stop_now (StopAt     *at,
          const char *turn_id)
{
  /* The test's conversation has this one turn. */
  if (at->issued)
    return;
  at->issued = TRUE;
  at->call.tid = g_intern_string (turn_id);
  natter_sessions_stop_turn_async (at->call.f->t.sessions, turn_id, "user", NULL, stop_done_cb, &at->call);
}

static void
stop_at_suspension_cb (NatterSessions *sessions,
                       const char     *session_id,
                       const char     *turn_id,
                       JsonObject     *event,
                       guint64         offset,
                       StopAt         *at)
{
  if (g_strcmp0 (json_object_get_string_member (event, "type"), "turn_suspended") == 0)
    stop_now (at, turn_id);
}

static void
stop_at_processing_end_cb (NatterTurnEventHub *hub,
                           const char         *turn_id,
                           StopAt             *at)
{
  /* Only while the service still counts the advance as live: the moment
   * between its settling and its untracking. */
  if (natter_sessions_is_turn_running (at->call.f->t.sessions, turn_id))
    stop_now (at, turn_id);
}

/* Sends a message whose answer asks for permission, with @at's stop
 * issued when @signal says so, and checks that the one stop ended the
 * turn, as Stop does with the turn waiting: the reason kept, no further
 * model call. */
static void
stop_while_suspending (Fixture    *f,
                       gpointer    instance,
                       const char *signal,
                       GCallback   handler,
                       const char *reason)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autoptr(JsonObject) cancelled = NULL;
  StopAt at = { { f, NULL, FALSE, NULL }, FALSE };
  gulong id;

  g_hash_table_add (f->t.w->fakes->needs_permission, g_strdup ("sa"));
  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("A", "sa", "{}")),
                               NATTER_FAKE_TEXT_STEP, NULL);
  id = g_signal_connect (instance, signal, handler, &at);
  tid = send (f, sid, "read it");
  natter_test_wait_for_flag (&at.call.done, TIMEOUT_MS);
  g_signal_handler_disconnect (instance, id);
  g_assert_true (at.issued);
  g_assert_cmpstr (at.call.tid, ==, tid);
  g_assert_no_error (at.call.error);

  /* Ended by the time the stop reports. */
  g_assert_cmpuint (count_type (f, tid, "turn_suspended"), ==, 1);
  g_assert_cmpuint (count_type (f, tid, "turn_cancelled"), ==, 1);
  natter_test_sessions_wait_until (&f->t, no_live_advance, tid);
  natter_test_sessions_wait_status (&f->t, sid, "cancelled");
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->t.w->fakes->model), ==, 1);
  cancelled = last_of_type (f, tid, "turn_cancelled");
  g_assert_cmpstr (json_object_get_string_member_with_default (cancelled, "reason", NULL), ==, reason);
}

/* A stop issued as the suspension is written (its event is out, the loop
 * has not yet settled): the advance sees its cancellation and ends the
 * turn itself. */
static void
test_stop_as_suspension_is_written (Fixture       *f,
                                    gconstpointer  data)
{
  /* Ended through the advance's cancellable, which carries the stop's
   * reason as a cancel input does: the turn says why either way. */
  stop_while_suspending (f, f->t.sessions, "turn-event", G_CALLBACK (stop_at_suspension_cb), "user");
}

/* A stop issued once the advance has settled suspended but before the
 * service untracked it (the hub's processing-end comes in between): its
 * cancellation comes too late for the advance, and the stop ends the
 * waiting turn with a cancel input, in one call. */
static void
test_stop_as_advance_settles_suspended (Fixture       *f,
                                        gconstpointer  data)
{
  stop_while_suspending (f, f->t.w->hub, "turn-processing-end", G_CALLBACK (stop_at_processing_end_cb), "user");
}

/* docs/sessions.md §9.4: deleting a conversation stops its turns */

static void
test_delete_stops_streaming_turn (Fixture       *f,
                                  gconstpointer  data)
{
  NatterFakeModel *model = f->t.w->fakes->model;
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autoptr(JsonObject) failed = NULL;
  const char *text = NULL;
  const char *reasoning = NULL;
  guint index = G_MAXUINT;

  /* A second step would answer a further model call: there must be none. */
  natter_test_sessions_script (&f->t, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "hi");
  natter_fake_model_wait_held (model, 1, TIMEOUT_MS);
  natter_fake_model_stream_text (model, "Half an ");
  natter_fake_model_stream_text (model, "ans");
  /* What streamed so far, for a view that begins to show the turn now. */
  g_assert_true (natter_sessions_get_streamed (f->t.sessions, tid, &index, &text, &reasoning));
  g_assert_cmpuint (index, ==, 0);
  g_assert_cmpstr (text, ==, "Half an ans");
  g_assert_cmpstr (reasoning, ==, "");

  g_assert_true (delete_session (f, sid, NULL));
  g_assert_false (natter_sessions_get_streamed (f->t.sessions, tid, NULL, NULL, NULL));
  /* Stopped by the time the delete reports: the request is cancelled. */
  g_assert_cmpuint (natter_fake_model_get_n_held (model), ==, 0);
  g_assert_cmpuint (natter_sessions_get_n_live_advances (f->t.sessions, tid), ==, 0);
  natter_test_sessions_wait_idle (&f->t);
  natter_test_drain_main_context ();
  g_assert_cmpuint (natter_fake_model_get_n_requests (model), ==, 1);
  /* Ended as Stop ends it, what had arrived kept, and nothing after. */
  assert_types (f->t.w->turn_repo, tid, "turn_created model_call_requested model_call_failed turn_cancelled");
  failed = last_of_type (f, tid, "model_call_failed");
  g_assert_true (json_object_has_member (failed, "partial"));
  g_assert_null (natter_session_index_lookup (f->t.index, sid));
}

static void
test_delete_stops_suspended_turn (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autofree char *types = NULL;

  /* `sa` asks for permission: the turn waits for the person. */
  g_hash_table_add (f->t.w->fakes->needs_permission, g_strdup ("sa"));
  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("A", "sa", "{}")),
                               NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "read it");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");
  natter_test_sessions_wait_until (&f->t, no_live_advance, tid);

  g_assert_true (delete_session (f, sid, NULL));
  natter_test_sessions_wait_idle (&f->t);
  types = types_of (f->t.w->turn_repo, tid);
  g_assert_true (strstr (types, "tool_permission_required turn_suspended") != NULL);
  g_assert_true (g_str_has_suffix (types, " turn_cancelled"));
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->t.w->fakes->model), ==, 1);
}

static void
test_delete_stops_interrupted_turn (Fixture       *f,
                                    gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;

  /* Appended, never advanced: what a crash leaves, which a resume would
   * send to the model. */
  send_crashing_at (f, sid, "hi", NATTER_SESSIONS_STEP_APPEND);
  tid = g_strdup (natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (f->t.index, sid)));
  natter_test_sessions_wait_status (&f->t, sid, "idle");

  g_assert_true (delete_session (f, sid, NULL));
  natter_test_sessions_wait_idle (&f->t);
  assert_types (f->t.w->turn_repo, tid, "turn_created turn_cancelled");
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->t.w->fakes->model), ==, 0);
}

static void
test_delete_keeps_branch_turns (Fixture       *f,
                                gconstpointer  data)
{
  NatterFakeModel *model = f->t.w->fakes->model;
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *first = NULL;
  g_autofree char *branch = NULL;
  g_autofree char *own = NULL;
  g_autofree char *theirs = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_STEP_HOLD, NULL);
  first = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  branch = fork_session (f, sid, first, &error);
  g_assert_no_error (error);
  own = send (f, sid, "go on");
  theirs = send (f, branch, "go elsewhere");
  natter_fake_model_wait_held (model, 2, TIMEOUT_MS);

  g_assert_true (delete_session (f, sid, NULL));
  g_assert_cmpuint (natter_sessions_get_n_live_advances (f->t.sessions, own), ==, 0);
  g_assert_cmpuint (natter_sessions_get_n_live_advances (f->t.sessions, theirs), ==, 1);
  g_assert_cmpuint (natter_fake_model_get_n_held (model), ==, 1);
  natter_fake_model_release (model);
  natter_test_sessions_wait_status (&f->t, branch, "completed");
  g_assert_cmpuint (count_type (f, own, "turn_cancelled"), ==, 1);
  g_assert_cmpuint (count_type (f, theirs, "turn_completed"), ==, 1);
}


void
sessions_add_stop_tests (void)
{
  ADD ("stop/aborts-every-live-advance", test_stop_aborts_every_live_advance, NULL);
  ADD ("stop/earlier-settle-keeps-later-tracked", test_stop_keeps_later_advance_tracked, NULL);
  ADD ("stop/cancel-that-lost-the-race-succeeds", test_stop_lost_race_is_success, NULL);
  ADD ("stop/non-terminal-rejection-surfaces", test_stop_rejection_surfaces, NULL);
  ADD ("stop/suspended-turn-gets-cancel-input", test_stop_suspended_with_input, NULL);
  ADD ("stop/as-suspension-is-written", test_stop_as_suspension_is_written, NULL);
  ADD ("stop/as-advance-settles-suspended", test_stop_as_advance_settles_suspended, NULL);
  ADD ("stop/delete-stops-streaming-turn", test_delete_stops_streaming_turn, NULL);
  ADD ("stop/delete-stops-suspended-turn", test_delete_stops_suspended_turn, NULL);
  ADD ("stop/delete-stops-interrupted-turn", test_delete_stops_interrupted_turn, NULL);
  ADD ("stop/delete-keeps-branch-turns", test_delete_keeps_branch_turns, NULL);
}
