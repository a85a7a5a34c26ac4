/* test-turn-reducer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pure turn reducer and derive_turn_status() of docs/runtime.md §4:
 * every invariant, the valid shapes of a turn, atomic batches, live
 * application against full replay, and linear cost. This file holds
 * the valid shapes and main(); the invariants and the linear cost have
 * files of their own, and the event builders test-turn-reducer-events.c.
 */

#include "test-turn-reducer.h"

/* Valid turns */

static void
test_plain_response (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(JsonObject) usage = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) refs = NULL;
  g_autoptr(GError) error = NULL;
  NatterTurnModelCall *call;

  state = reduce_ok (events);
  g_assert_cmpstr (natter_turn_state_get_turn_id (state), ==, TID);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_IDLE);
  g_assert_cmpint (natter_turn_state_get_last_model_call_index (state), ==, -1);
  /* Call 0 with empty inline context is just the input. */
  refs = natter_turn_state_dup_next_request_refs (state, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (refs, ((const char * const[]) { "input", NULL }));
  g_clear_pointer (&state, natter_turn_state_unref);

  request (events, 0, "'input'");
  add (events, "model_step_event", "'modelCallIndex':0,'event':{'type':'text-end'}");
  state = reduce_ok (events);
  g_assert_true (natter_turn_state_has_open_model_call (state));
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_IDLE);
  g_clear_pointer (&state, natter_turn_state_unref);

  respond_text (events, 0, "Hello");
  complete (events);
  state = reduce_ok (events);

  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_COMPLETED);
  g_assert_cmpstr (natter_turn_status_to_string (natter_derive_turn_status (state)), ==, "completed");
  g_assert_false (natter_turn_state_has_open_model_call (state));
  g_assert_cmpuint (natter_turn_state_get_n_model_calls (state), ==, 1);
  g_assert_cmpint (natter_turn_state_get_last_model_call_index (state), ==, 0);
  call = natter_turn_state_get_model_call (state, 0);
  g_assert_cmpuint (natter_turn_model_call_get_index (call), ==, 0);
  g_assert_false (natter_turn_model_call_is_open (call));
  g_assert_cmpstr (natter_turn_model_call_get_finish_reason (call), ==, "stop");
  g_assert_null (natter_turn_model_call_get_error (call));
  g_assert_cmpuint (natter_turn_model_call_get_step_events (call)->len, ==, 1);
  g_assert_cmpuint (natter_turn_model_call_get_n_tool_calls (call), ==, 0);
  g_assert_nonnull (natter_turn_model_call_get_message (call));
  g_assert_cmpint (json_object_get_int_member (natter_turn_model_call_get_usage (call), "totalTokens"),
                   ==, 12);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      natter_turn_model_call_get_request (call), "messages")), ==, 1);
  g_assert_cmpuint (natter_turn_state_get_n_tool_calls (state), ==, 0);
  g_assert_nonnull (natter_turn_state_get_definition (state));
  g_assert_null (natter_turn_state_get_last_suspension (state));
  g_assert_cmpstr (json_object_get_string_member (natter_turn_state_get_terminal_event (state), "type"),
                   ==, "turn_completed");
  text = natter_turn_state_dup_final_text (state);
  g_assert_cmpstr (text, ==, "Done");
  usage = natter_turn_state_dup_usage (state);
  g_assert_cmpint (json_object_get_int_member (usage, "inputTokens"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (usage, "totalTokens"), ==, 12);
  g_assert_false (json_object_has_member (usage, "reasoningTokens"));
  /* A completed turn takes no further model call. */
  g_assert_null (natter_turn_state_dup_next_request_refs (state, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);

  assert_live_equals_replay (events);
}

static void
test_sync_tool_round_trip (void)
{
  g_autoptr(GPtrArray) events = turn_new (ONE_MESSAGE, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(JsonObject) usage = NULL;
  g_auto(GStrv) refs = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) unfinished = NULL;
  NatterTurnToolCall *first;
  NatterTurnToolCall *second;

  /* Inline non-empty context: call 0 is ["context", "input"]. */
  request (events, 0, "'context','input'");
  respond_tools (events, 0, "{'type':'text','text':'Let me look'}," TC ("c1", "read_file") ","
                 TC ("c2", "read_file"));
  invoke (events, "c1", "read_file");
  progress (events, "c1", "sync");
  progress (events, "c1", "sync");
  /* Results may finish in any order; refs follow the model's order. */
  invoke (events, "c2", "read_file");
  result (events, "c2", "read_file", "sync");

  state = reduce_ok (events);
  unfinished = natter_turn_state_get_unfinished_tool_calls (state);
  g_assert_cmpuint (unfinished->len, ==, 1);
  g_assert_cmpstr (natter_turn_tool_call_get_id (unfinished->pdata[0]), ==, "c1");
  g_assert_null (natter_turn_state_dup_next_request_refs (state, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_clear_error (&error);
  g_clear_pointer (&state, natter_turn_state_unref);

  result (events, "c1", "read_file", "sync");
  state = reduce_ok (events);
  refs = natter_turn_state_dup_next_request_refs (state, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (refs, ((const char * const[]) { "assistant:0", "toolResult:c1", "toolResult:c2", NULL }));
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_IDLE);
  g_clear_pointer (&state, natter_turn_state_unref);

  request (events, 1, "'assistant:0','toolResult:c1','toolResult:c2'");
  respond_text (events, 1, "It says out");
  complete (events);
  state = reduce_ok (events);

  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_COMPLETED);
  g_assert_cmpuint (natter_turn_state_get_n_tool_calls (state), ==, 2);
  first = natter_turn_state_get_tool_call (state, 0);
  second = natter_turn_state_lookup_tool_call (state, "c2");
  g_assert_true (natter_turn_model_call_get_tool_call (natter_turn_state_get_model_call (state, 0), 1)
                 == second);
  g_assert_null (natter_turn_state_lookup_tool_call (state, "c3"));
  g_assert_cmpstr (natter_turn_tool_call_get_id (first), ==, "c1");
  g_assert_cmpstr (natter_turn_tool_call_get_name (first), ==, "read_file");
  g_assert_cmpuint (natter_turn_tool_call_get_model_call_index (first), ==, 0);
  g_assert_cmpuint (natter_turn_tool_call_get_order (first), ==, 0);
  g_assert_cmpuint (natter_turn_tool_call_get_order (second), ==, 1);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (natter_turn_tool_call_get_arguments (first)));
  g_assert_null (natter_turn_tool_call_get_permission_required (first));
  g_assert_null (natter_turn_tool_call_get_decision (first));
  g_assert_cmpstr (natter_turn_tool_call_get_execution (first), ==, "sync");
  g_assert_nonnull (natter_turn_tool_call_get_invocation (first));
  g_assert_cmpuint (natter_turn_tool_call_get_progress (first)->len, ==, 2);
  g_assert_cmpuint (natter_turn_tool_call_get_progress (second)->len, ==, 0);
  g_assert_cmpstr (natter_turn_tool_call_get_result_source (first), ==, "sync");
  g_assert_false (json_object_get_boolean_member (natter_turn_tool_call_get_result (first), "isError"));
  g_assert_nonnull (natter_turn_tool_call_get_result_event (first));
  /* Usage adds up per field; fields no call reported stay absent. */
  usage = natter_turn_state_dup_usage (state);
  g_assert_cmpint (json_object_get_int_member (usage, "inputTokens"), ==, 17);
  g_assert_cmpint (json_object_get_int_member (usage, "outputTokens"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (usage, "reasoningTokens"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (usage, "totalTokens"), ==, 12);
  g_assert_false (json_object_has_member (usage, "cachedInputTokens"));

  assert_live_equals_replay (events);
}

static void
test_permission_round_trip (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GPtrArray) pending = NULL;
  NatterTurnToolCall *call;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "read_file"));
  /* c2 needs no permission and runs at once; c1 waits for a human. */
  require (events, "c1", "read_file");
  invoke (events, "c2", "read_file");
  result (events, "c2", "read_file", "sync");
  suspend (events, PENDING_PERMISSION ("c1", "read_file"), "");
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);

  state = reduce_ok (events);
  g_assert_cmpuint (natter_turn_state_get_n_pending_permissions (state), ==, 1);
  g_assert_cmpuint (natter_turn_state_get_n_pending_async_tools (state), ==, 0);
  pending = natter_turn_state_get_pending_permissions (state);
  g_assert_cmpuint (pending->len, ==, 1);
  call = pending->pdata[0];
  g_assert_cmpstr (natter_turn_tool_call_get_id (call), ==, "c1");
  g_assert_true (natter_turn_tool_call_is_awaiting_permission (call));
  g_assert_false (natter_turn_tool_call_is_awaiting_async_result (call));
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (natter_turn_tool_call_get_permission_required (call),
                                                    "request"), "what"), ==, "read_file");
  g_assert_nonnull (natter_turn_state_get_last_suspension (state));
  g_clear_pointer (&pending, g_ptr_array_unref);
  g_clear_pointer (&state, natter_turn_state_unref);

  /* The human's decision advances the same turn; not suspended any more. */
  resolve (events, "c1", "allow", "human");
  assert_status (events, NATTER_TURN_STATUS_IDLE);
  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  request (events, 1, "'assistant:0','toolResult:c1','toolResult:c2'");
  respond_text (events, 1, "ok");
  complete (events);

  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_COMPLETED);
  call = natter_turn_state_lookup_tool_call (state, "c1");
  g_assert_cmpstr (natter_turn_tool_call_get_decision (call), ==, "allow");
  g_assert_cmpstr (json_object_get_string_member (natter_turn_tool_call_get_resolution (call), "source"),
                   ==, "human");
  g_assert_false (natter_turn_tool_call_is_awaiting_permission (call));
  pending = natter_turn_state_get_pending_permissions (state);
  g_assert_cmpuint (pending->len, ==, 0);
  /* The last suspension stays recorded, but is no longer the resting state. */
  g_assert_nonnull (natter_turn_state_get_last_suspension (state));

  assert_live_equals_replay (events);
}

static void
test_denied_without_human (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, NO_HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  NatterTurnToolCall *call;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "ask_human"));
  require (events, "c1", "read_file");
  /* No human: deny → runtime error result, and ask_human fails at once. */
  resolve (events, "c1", "deny", "human_unavailable");
  result (events, "c1", "read_file", "runtime");
  result (events, "c2", "ask_human", "runtime");
  request (events, 1, "'assistant:0','toolResult:c1','toolResult:c2'");
  respond_text (events, 1, "I could not");
  complete (events);

  state = reduce_ok (events);
  call = natter_turn_state_lookup_tool_call (state, "c1");
  g_assert_cmpstr (natter_turn_tool_call_get_decision (call), ==, "deny");
  g_assert_null (natter_turn_tool_call_get_invocation (call));
  g_assert_cmpstr (natter_turn_tool_call_get_result_source (call), ==, "runtime");
  assert_live_equals_replay (events);
}

static void
test_classifier (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, AUTO_HUMAN);
  g_autoptr(NatterTurnState) state = NULL;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "read_file") "," TC ("c3", "read_file"));
  require (events, "c1", "read_file");
  require (events, "c2", "read_file");
  require (events, "c3", "read_file");
  classify (events, "c1", "allow");
  add (events, "tool_permission_classification_failed", "'toolCallIds':['c2','c3'],'error':'timeout'");
  resolve (events, "c1", "allow", "classifier");
  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  suspend (events, PENDING_PERMISSION ("c2", "read_file") "," PENDING_PERMISSION ("c3", "read_file"), "");
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);
  resolve (events, "c2", "deny", "human");
  result (events, "c2", "read_file", "runtime");
  suspend (events, PENDING_PERMISSION ("c3", "read_file"), "");
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);

  state = reduce_ok (events);
  g_assert_cmpstr (json_object_get_string_member (
                     natter_turn_tool_call_get_classification (natter_turn_state_lookup_tool_call (state, "c1")),
                     "decision"), ==, "allow");
  g_assert_nonnull (natter_turn_tool_call_get_classification_failure (
                      natter_turn_state_lookup_tool_call (state, "c3")));
  assert_live_equals_replay (events);
}

static void
test_async_tool_suspended (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GPtrArray) pending = NULL;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "fetch"));
  invoke (events, "c1", "fetch");
  suspend (events, "", PENDING_FETCH ("c1"));
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);

  state = reduce_ok (events);
  pending = natter_turn_state_get_pending_async_tools (state);
  g_assert_cmpuint (pending->len, ==, 1);
  g_assert_true (natter_turn_tool_call_is_awaiting_async_result (pending->pdata[0]));
  g_assert_cmpstr (natter_turn_tool_call_get_execution (pending->pdata[0]), ==, "async");
  g_clear_pointer (&state, natter_turn_state_unref);

  /* Async progress is an external input: the advance suspends again. */
  progress (events, "c1", "async");
  assert_status (events, NATTER_TURN_STATUS_IDLE);
  suspend (events, "", PENDING_FETCH ("c1"));
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);
  result (events, "c1", "fetch", "async");
  assert_status (events, NATTER_TURN_STATUS_IDLE);
  request (events, 1, "'assistant:0','toolResult:c1'");
  respond_text (events, 1, "fetched");
  complete (events);
  assert_status (events, NATTER_TURN_STATUS_COMPLETED);
  assert_live_equals_replay (events);
}

static void
test_failed_model_call_limit (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, ONE_CALL);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file"));
  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");

  /* The batch is finished but the budget is spent. */
  state = reduce_ok (events);
  g_assert_null (natter_turn_state_dup_next_request_refs (state, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_clear_pointer (&state, natter_turn_state_unref);

  fail_turn (events, "model-call-limit");
  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_FAILED);
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_FAILED), ==, "failed");
  g_assert_cmpstr (json_object_get_string_member (natter_turn_state_get_terminal_event (state), "code"),
                   ==, "model-call-limit");
  text = natter_turn_state_dup_final_text (state);
  g_assert_null (text);
  assert_live_equals_replay (events);
}

static void
test_failed_provider (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;

  request (events, 0, "'input'");
  add (events, "model_call_failed", "'modelCallIndex':0,'error':'ollama: HTTP 500'");
  fail_turn (events, NULL);

  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_FAILED);
  g_assert_cmpstr (natter_turn_model_call_get_error (natter_turn_state_get_model_call (state, 0)), ==,
                   "ollama: HTTP 500");
  g_assert_null (natter_turn_model_call_get_message (natter_turn_state_get_model_call (state, 0)));
  g_assert_null (natter_turn_model_call_get_partial (natter_turn_state_get_model_call (state, 0)));
  assert_live_equals_replay (events);
}

/* Lines exactly as older Natter wrote them: the model override at
 * `agent.requested.model`, and a stopped stream's answer as a
 * `partial_response` step event. They must keep reading, unrewritten. */
static const char *const old_shape_lines[] = {
  "{\"type\":\"turn_created\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"schemaVersion\":1,"
  "\"sessionId\":\"" OTHER_TID "\",\"agent\":{\"requested\":{\"agentId\":\"assistant\","
  "\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"}},\"resolved\":{\"agentId\":\"assistant\","
  "\"systemPrompt\":\"Be brief.\",\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"},\"tools\":[]}},"
  "\"context\":[],\"input\":{\"role\":\"user\",\"content\":\"Tell me a story\"},"
  "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}",
  "{\"type\":\"model_call_requested\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
  "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}",
  "{\"type\":\"model_step_event\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
  "\"event\":{\"type\":\"partial_response\",\"model\":\"llama3\",\"message\":{\"role\":\"assistant\","
  "\"content\":[{\"type\":\"text\",\"text\":\"Once upon a\"}]}}}",
  "{\"type\":\"model_call_failed\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
  "\"error\":\"The connection was lost mid-answer (11 characters of the answer had arrived; they are kept)\"}",
  "{\"type\":\"turn_failed\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"error\":\"The connection was lost\","
  "\"usage\":{}}",
};

static GPtrArray *
parse_lines (const char *const *lines,
             guint               n_lines)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (guint i = 0; i < n_lines; i++)
    {
      g_autoptr(GError) error = NULL;
      JsonNode *node = natter_test_json (lines[i]);

      natter_turn_event_validate (json_node_get_object (node), TID, &error);
      g_assert_no_error (error);
      g_ptr_array_add (events, node);
    }
  return events;
}

static void
test_compat_old_partial_and_requested_model (void)
{
  g_autoptr(GPtrArray) events = parse_lines (old_shape_lines, G_N_ELEMENTS (old_shape_lines));
  g_autoptr(NatterTurnState) state = reduce_ok (events);
  NatterTurnModelCall *call = natter_turn_state_get_model_call (state, 0);
  JsonObject *requested;
  JsonObject *partial;

  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_FAILED);
  partial = natter_turn_model_call_get_partial (call);
  g_assert_nonnull (partial);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (partial,
                                                                                                             "content"),
                                                                               0),
                                                  "text"),
                   ==, "Once upon a");
  requested = json_object_get_object_member (json_object_get_object_member (natter_turn_state_get_definition (state),
                                                                            "agent"),
                                             "requested");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (requested, "model"), "model"),
                   ==, "llama3");
  assert_live_equals_replay (events);
}

/* Today's shape: the partial answer is a field of the model_call_failed
 * that settles the call, here by a stop. */
static void
test_partial_on_failed_call (void)
{
  static const char *const lines[] = {
    "{\"type\":\"model_call_requested\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}",
    "{\"type\":\"model_call_failed\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"error\":\"cancelled\",\"partial\":{\"role\":\"assistant\",\"content\":[{\"type\":\"reasoning\","
    "\"text\":\"hm\"},{\"type\":\"text\",\"text\":\"Once upon\"}]}}",
    "{\"type\":\"turn_cancelled\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"usage\":{}}",
  };
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(GPtrArray) tail = parse_lines (lines, G_N_ELEMENTS (lines));
  g_autoptr(NatterTurnState) state = NULL;
  JsonObject *partial;

  for (guint i = 0; i < tail->len; i++)
    g_ptr_array_add (events, json_node_ref (g_ptr_array_index (tail, i)));
  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_CANCELLED);
  partial = natter_turn_model_call_get_partial (natter_turn_state_get_model_call (state, 0));
  g_assert_nonnull (partial);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (partial, "content")), ==, 2);
  assert_live_equals_replay (events);
}

static void
test_cancelled (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "fetch"));
  require (events, "c1", "read_file");
  invoke (events, "c2", "fetch");
  suspend (events, PENDING_PERMISSION ("c1", "read_file"), PENDING_FETCH ("c2"));
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);
  /* Cancel: every unresolved call gets a runtime "cancelled" result. */
  result (events, "c1", "read_file", "runtime");
  result (events, "c2", "fetch", "runtime");
  cancel (events);
  assert_status (events, NATTER_TURN_STATUS_CANCELLED);
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_CANCELLED), ==, "cancelled");
  assert_live_equals_replay (events);
}

static void
test_cancelled_open_model_call (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  cancel (events);
  assert_status (events, NATTER_TURN_STATUS_CANCELLED);
}

static void
test_crash_reissue (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_auto(GStrv) refs = NULL;
  g_autoptr(GError) error = NULL;

  request (events, 0, "'input'");
  /* A crash left call 0 open: idle, with an open model call. */
  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_IDLE);
  g_assert_true (natter_turn_state_has_open_model_call (state));
  g_assert_null (natter_turn_state_dup_next_request_refs (state, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_clear_error (&error);
  g_clear_pointer (&state, natter_turn_state_unref);

  /* Recovery closes it and re-issues the next index with []. */
  fail_call (events, 0);
  state = reduce_ok (events);
  refs = natter_turn_state_dup_next_request_refs (state, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (refs), ==, 0);
  g_clear_pointer (&state, natter_turn_state_unref);

  request (events, 1, "");
  respond_text (events, 1, "Hello again");
  complete (events);
  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_COMPLETED);
  g_assert_cmpstr (natter_turn_model_call_get_error (natter_turn_state_get_model_call (state, 0)), ==,
                   "interrupted");
  assert_live_equals_replay (events);
}

static void
test_context_reference (void)
{
  g_autoptr(GPtrArray) events = turn_new (REFERENCE, HUMAN);
  g_autoptr(NatterTurnState) state = reduce_ok (events);
  g_autofree char *previous = NULL;
  g_auto(GStrv) refs = NULL;
  g_autoptr(GError) error = NULL;

  refs = natter_turn_state_dup_next_request_refs (state, &previous, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (refs, ((const char * const[]) { "input", NULL }));
  g_assert_cmpstr (previous, ==, PREV_TID);

  add (events, "model_call_requested",
       "'modelCallIndex':0,'request':{'contextRef':{'previousTurnId':'" PREV_TID "'},"
       "'messages':['input'],'parameters':{}}");
  respond_text (events, 0, "Continuing");
  complete (events);
  assert_status (events, NATTER_TURN_STATUS_COMPLETED);
}

static void
test_status_strings (void)
{
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_COMPLETED), ==, "completed");
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_FAILED), ==, "failed");
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_CANCELLED), ==, "cancelled");
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_SUSPENDED), ==, "suspended");
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_IDLE), ==, "idle");
}

static void
test_boxed_ref (void)
{
  NatterTurnState *state = natter_turn_state_new ();
  NatterTurnState *copy;

  g_assert_true (G_TYPE_IS_BOXED (NATTER_TYPE_TURN_STATE));
  copy = g_boxed_copy (NATTER_TYPE_TURN_STATE, state);
  g_assert_true (copy == state);
  g_boxed_free (NATTER_TYPE_TURN_STATE, copy);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_IDLE);
  g_assert_null (natter_turn_state_get_turn_id (state));
  natter_turn_state_unref (state);
}

/* Atomicity */

static void
test_failed_batch_leaves_state_unchanged (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(GPtrArray) batch = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GPtrArray) good = NULL;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "fetch") "," TC ("c2", "read_file"));
  invoke (events, "c1", "fetch");
  suspend (events, "", PENDING_FETCH ("c1"));
  state = reduce_ok (events);
  before = dump (state);

  /* A batch that touches everything: results, counters, a new model call,
   * new tool calls, usage, step events… then one illegal event. */
  g_ptr_array_remove_index (batch, 0);
  progress (batch, "c1", "async");
  result (batch, "c1", "fetch", "async");
  require (batch, "c2", "read_file");
  resolve (batch, "c2", "allow", "human");
  invoke (batch, "c2", "read_file");
  progress (batch, "c2", "sync");
  result (batch, "c2", "read_file", "sync");
  request (batch, 1, "'assistant:0','toolResult:c1','toolResult:c2'");
  add (batch, "model_step_event", "'modelCallIndex':1,'event':{'type':'finish'}");
  respond_tools (batch, 1, TC ("c3", "read_file"));
  invoke (batch, "c3", "read_file");
  result (batch, "c3", "read_file", "sync");
  result (batch, "c3", "read_file", "sync");

  g_assert_false (natter_turn_state_apply_batch (state, batch, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_clear_error (&error);
  after = dump (state);
  g_assert_cmpstr (before, ==, after);
  g_assert_null (natter_turn_state_lookup_tool_call (state, "c3"));
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_SUSPENDED);

  /* A schema failure mid-batch rolls back too. */
  {
    g_autoptr(GPtrArray) bad = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

    g_ptr_array_add (bad, json_node_ref (batch->pdata[0]));
    g_ptr_array_add (bad, fixture ("{'type':'tool_result','turnId':'" TID "','ts':'" TS "'}"));
    g_assert_false (natter_turn_state_apply_batch (state, bad, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
    g_clear_error (&error);
    g_clear_pointer (&after, g_free);
    after = dump (state);
    g_assert_cmpstr (before, ==, after);
  }

  /* The state is still usable: the legal prefix applies, and equals a replay. */
  good = g_ptr_array_new ();
  for (guint i = 0; i + 1 < batch->len; i++)
    {
      g_ptr_array_add (good, batch->pdata[i]);
      g_ptr_array_add (events, json_node_ref (batch->pdata[i]));
    }
  g_assert_true (natter_turn_state_apply_batch (state, good, &error));
  g_assert_no_error (error);
  {
    g_autoptr(NatterTurnState) replay = reduce_ok (events);

    g_assert_true (natter_turn_state_equal (state, replay));
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/turn-reducer/valid/plain-response", test_plain_response);
  g_test_add_func ("/turn-reducer/valid/sync-tool-round-trip", test_sync_tool_round_trip);
  g_test_add_func ("/turn-reducer/valid/permission-round-trip", test_permission_round_trip);
  g_test_add_func ("/turn-reducer/valid/denied-without-human", test_denied_without_human);
  g_test_add_func ("/turn-reducer/valid/classifier", test_classifier);
  g_test_add_func ("/turn-reducer/valid/async-tool-suspended", test_async_tool_suspended);
  g_test_add_func ("/turn-reducer/valid/failed-model-call-limit", test_failed_model_call_limit);
  g_test_add_func ("/turn-reducer/valid/failed-provider", test_failed_provider);
  g_test_add_func ("/turn-reducer/valid/cancelled", test_cancelled);
  g_test_add_func ("/turn-reducer/valid/partial-on-failed-call", test_partial_on_failed_call);
  g_test_add_func ("/turn-reducer/compat/old-partial-and-requested-model",
                   test_compat_old_partial_and_requested_model);
  g_test_add_func ("/turn-reducer/valid/cancelled-open-model-call", test_cancelled_open_model_call);
  g_test_add_func ("/turn-reducer/valid/crash-reissue", test_crash_reissue);
  g_test_add_func ("/turn-reducer/valid/context-reference", test_context_reference);
  g_test_add_func ("/turn-reducer/status-strings", test_status_strings);
  g_test_add_func ("/turn-reducer/boxed-ref", test_boxed_ref);
  g_test_add_func ("/turn-reducer/atomic/failed-batch-leaves-state-unchanged",
                   test_failed_batch_leaves_state_unchanged);

  turn_reducer_add_invariant_tests ();
  turn_reducer_add_linear_tests ();

  return g_test_run ();
}
