/* test-turn-runtime-cancel.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Cancelling a turn while it is suspended, during a model call or a
 * sync tool, or before it starts; async tools reporting progress and
 * failing.
 */

#include "test-turn-runtime.h"

static void
test_cancel_while_suspended (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) cancelled = NULL;
  g_autoptr(GError) error = NULL;

  script (f, TOOL_STEP (CALL ("B", "ab", "{}")), NULL);
  first = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);

  /* The provider is gone, yet the turn can still be cancelled. */
  g_clear_object (&f->world->model);
  cancelled = advance (f, turn_id, "{\"type\":\"cancel\",\"reason\":\"user\"}", NULL);
  g_assert_cmpint (cancelled->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  g_assert_cmpstr (cancelled->reason, ==, "user");
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "turn_suspended tool_result turn_cancelled");

  /* Late inputs are rejected afterwards. */
  g_assert_null (advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"B\","
                          "\"result\":{\"output\":\"b\",\"isError\":false}}", &error));
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_TURN_ENDED);
}

static void
test_cancel_during_model_call (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  NatterTestWait wait = { 0 };

  script (f, "HANG", NULL);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, cancellable);
  g_signal_connect (execution, "event", G_CALLBACK (cancel_on_event_cb), cancellable);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  outcome = wait.outcome;
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  assert_types (f, turn_id, "model_call_requested model_call_failed turn_cancelled");
}

static void
test_cancel_during_sync_tool (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  NatterTurnExecution *execution = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *result;
  NatterTestWait wait = { 0 };

  /* t.slow runs until its cancellable fires: the turn is cancelled while
   * the worker is inside the tool. */
  script (f, TOOL_STEP (CALL ("S", "slow", "{}")), NULL);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, cancellable);
  g_signal_connect (execution, "event", G_CALLBACK (cancel_on_invocation_cb), cancellable);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  outcome = wait.outcome;
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  /* A sync tool's worker holds the execution until it has returned. */
  natter_test_wait_finalized (g_steal_pointer (&execution), 10000);

  /* The worker's late answer is dropped: one runtime "cancelled" result. */
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "tool_result turn_cancelled");
  events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);
  g_assert_no_error (error);
  result = json_node_get_object (g_ptr_array_index (events, 4));
  g_assert_cmpstr (json_object_get_string_member (result, "source"), ==, "runtime");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "result"),
                                                  "output"), ==, "cancelled");
}

static void
test_cancel_before_start (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  NatterTestWait wait = { 0 };

  /* Cancelled before the lock is even taken, with the provider gone:
   * the cancellation is still written, nothing is materialized. */
  g_clear_object (&f->world->model);
  g_cancellable_cancel (cancellable);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, cancellable);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  outcome = wait.outcome;
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  assert_types (f, turn_id, "turn_cancelled");
}

static void
test_async_progress (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) progress = NULL;
  g_autoptr(NatterTurnOutcome) last = NULL;

  script (f, TOOL_STEP (CALL ("B", "ab", "{}")), TEXT_STEP, NULL);
  first = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);

  /* Progress is recorded; the call stays pending and the turn suspended. */
  progress = advance (f, turn_id, "{\"type\":\"async_tool_progress\",\"toolCallId\":\"B\","
                      "\"progress\":{\"percent\":50}}", NULL);
  g_assert_cmpint (progress->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (progress->pending_async_tools), ==, 1);
  last = advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"B\","
                  "\"result\":{\"output\":\"b\",\"isError\":false}}", NULL);
  g_assert_cmpint (last->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "turn_suspended tool_progress turn_suspended tool_result "
                            "model_call_requested model_call_completed turn_completed");
}

static void
test_async_failure (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) last = NULL;
  JsonArray *messages;

  script (f, TOOL_STEP (CALL ("B", "ab", "{}")), TEXT_STEP, NULL);
  first = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);

  /* A failed async tool is a result the model reads, not a failed turn. */
  last = advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"B\","
                  "\"result\":{\"output\":\"disk on fire\",\"isError\":true}}", NULL);
  g_assert_cmpint (last->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "turn_suspended tool_result model_call_requested model_call_completed "
                            "turn_completed");
  messages = json_object_get_array_member (natter_fake_model_get_request (f->world->model, 1), "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "content"),
                   ==, "disk on fire");
}

void
turn_runtime_add_cancel_tests (void)
{
  ADD ("cancel-while-suspended", test_cancel_while_suspended, NULL);
  ADD ("cancel-provider-gone", test_cancel_while_suspended, NULL);
  ADD ("cancel-during-model-call", test_cancel_during_model_call, NULL);
  ADD ("cancel-during-sync-tool", test_cancel_during_sync_tool, NULL);
  ADD ("cancel-before-start", test_cancel_before_start, NULL);
  ADD ("async-progress", test_async_progress, NULL);
  ADD ("async-failure", test_async_failure, NULL);
}
