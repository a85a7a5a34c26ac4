/* test-turn-runtime.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The loop of docs/runtime.md §6–§10 against a fake model, fake tools and
 * a real repository in a temporary directory. Each scenario asserts the
 * exact event types written to disk and the outcome.
 *
 * This file runs turns through tools and permissions and holds main();
 * cancellation, crash recovery and events have files of their own.
 */

#include "test-turn-runtime.h"

/* The caller learns the agent and model a turn resolved from create
 * itself, and they are exactly what the turn file says. */
static void
test_create_returns_resolution (Fixture       *f,
                                gconstpointer  data)
{
  g_autoptr(NatterTurnCreated) plain = create_turn_record (f, "{\"agentId\":\"helper\"}");
  g_autoptr(NatterTurnCreated) overridden =
    create_turn_record (f, "{\"agentId\":\"helper\",\"overrides\":{\"model\":{\"provider\":\"q\",\"model\":\"n\"}}}");
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *resolved;

  g_assert_cmpstr (natter_turn_created_get_agent_id (plain), ==, "helper");
  g_assert_cmpstr (natter_turn_created_get_provider (plain), ==, "p");
  g_assert_cmpstr (natter_turn_created_get_model (plain), ==, "m");
  /* A per-turn override wins over the agent's own model. */
  g_assert_cmpstr (natter_turn_created_get_agent_id (overridden), ==, "helper");
  g_assert_cmpstr (natter_turn_created_get_provider (overridden), ==, "q");
  g_assert_cmpstr (natter_turn_created_get_model (overridden), ==, "n");
  g_assert_cmpstr (natter_turn_created_get_turn_id (plain), !=, natter_turn_created_get_turn_id (overridden));

  events = natter_jsonl_repo_read_sync (f->repo, natter_turn_created_get_turn_id (overridden),
                                        NULL, NULL);
  g_assert_nonnull (events);
  resolved = json_object_get_object_member (json_object_get_object_member (json_node_get_object (g_ptr_array_index (events, 0)),
                                                                           "agent"),
                                            "resolved");
  g_assert_cmpstr (json_object_get_string_member (resolved, "agentId"), ==, "helper");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (resolved, "model"), "provider"), ==, "q");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (resolved, "model"), "model"), ==, "n");
  g_assert_true (json_object_equal (natter_turn_created_get_event (overridden),
                                    json_node_get_object (g_ptr_array_index (events, 0))));
}

/* `overrides.tools: []` offers the model no tools (a summary, a title);
 * any other tool list is refused, not half applied. */
static void
test_create_without_tools (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(NatterTurnCreated) plain = create_turn_record (f, "{\"agentId\":\"helper\"}");
  g_autoptr(NatterTurnCreated) bare = create_turn_record (f, "{\"agentId\":\"helper\",\"overrides\":{\"tools\":[]}}");
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"helper\",\"overrides\":{\"tools\":[\"sa\"]}}");
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\":\"user\",\"content\":\"hi\"}");
  g_autoptr(JsonNode) config = natter_test_json ("{\"humanAvailable\":true}");
  GError *error = NULL;

  g_assert_cmpuint (json_array_get_length (resolved_tools (plain)), >, 0);
  g_assert_cmpuint (json_array_get_length (resolved_tools (bare)), ==, 0);

  natter_turn_runtime_create_turn_async (f->runtime, json_node_get_object (agent), NULL, NULL,
                                         json_node_get_object (input), json_node_get_object (config),
                                         NULL, created_error_cb, &error);
  natter_test_wait_for_pointer ((gpointer *) &error, 5000);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
}

static void
test_plain_response (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(NatterTurnOutcome) again = NULL;

  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpstr (outcome->finish_reason, ==, "stop");
  g_assert_cmpstr (json_object_get_string_member (outcome->output, "content"), ==, "done");
  /* Deltas never reach the file. */
  assert_types (f, turn_id, "model_call_requested model_call_completed turn_completed");

  /* A terminal turn returns its outcome and writes nothing. */
  again = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (again->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed turn_completed");
}

static void
test_provider_failure (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  script (f, "ERROR", NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_cmpstr (outcome->error, ==, "provider p: HTTP 500");
  assert_types (f, turn_id, "model_call_requested model_call_failed turn_failed");
}

static void
test_sync_tool_round_trip (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  JsonArray *messages;

  script (f, TOOL_STEP (CALL ("c1", "sa", "{}")), TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_invocation_requested "
                "tool_progress tool_result model_call_requested model_call_completed turn_completed");
  messages = json_object_get_array_member (natter_fake_model_get_request (f->world->model, 1), "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "content"),
                   ==, "t.a");
}

static void
test_sync_tool_throws (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  JsonArray *messages;

  script (f, TOOL_STEP (CALL ("c1", "fail", "{}") "," CALL ("c2", "nosuch", "{}") "," CALL ("c3", "sa", "\"{bad\"")),
          TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_invocation_requested "
                "tool_result tool_result tool_result model_call_requested model_call_completed turn_completed");
  messages = json_object_get_array_member (natter_fake_model_get_request (f->world->model, 1), "messages");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "content"),
                   ==, "tool exploded");
}

static void
test_mixed_sync_async (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(NatterTurnOutcome) middle = NULL;
  g_autoptr(NatterTurnOutcome) last = NULL;
  JsonArray *messages;

  script (f, TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("B", "ab", "{}") "," CALL ("C", "sc", "{}") "," CALL ("D", "ad", "{}")),
          TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (outcome->pending_async_tools), ==, 2);
  g_assert_cmpuint (json_array_get_length (outcome->pending_permissions), ==, 0);

  /* Results arrive in reverse. */
  middle = advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"D\","
                    "\"result\":{\"output\":\"d\",\"isError\":false}}", NULL);
  g_assert_cmpint (middle->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (middle->pending_async_tools), ==, 1);
  last = advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"B\","
                  "\"result\":{\"output\":\"b\",\"isError\":false}}", NULL);
  g_assert_cmpint (last->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  /* The next request holds the results in the model's order. */
  messages = json_object_get_array_member (natter_fake_model_get_request (f->world->model, 1), "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 6);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "toolCallId"), ==, "A");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 3), "toolCallId"), ==, "B");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 4), "toolCallId"), ==, "C");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 5), "toolCallId"), ==, "D");
}

static void
test_human_permission (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) second = NULL;
  g_autoptr(NatterTurnOutcome) third = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  g_hash_table_add (f->world->needs_permission, g_strdup ("sc"));
  script (f, TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("C", "sc", "{}")), TEXT_STEP, NULL);
  first = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (first->pending_permissions), ==, 2);

  /* An input for a call that is not pending leaves the file as it is. */
  before = types_on_disk (f, turn_id);
  g_assert_null (advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"X\","
                          "\"decision\":\"allow\"}", &error));
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_INPUT);
  after = types_on_disk (f, turn_id);
  g_assert_cmpstr (before, ==, after);

  /* One approval runs its tool at once; the other stays pending. */
  second = advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"A\","
                    "\"decision\":\"allow\"}", NULL);
  g_assert_cmpint (second->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (second->pending_permissions), ==, 1);
  third = advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"C\","
                   "\"decision\":\"deny\"}", NULL);
  g_assert_cmpint (third->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed "
                "tool_permission_required tool_permission_required turn_suspended "
                "tool_permission_resolved tool_invocation_requested tool_progress tool_result turn_suspended "
                "tool_permission_resolved tool_result "
                "model_call_requested model_call_completed turn_completed");
}

static void
test_no_human_denies (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, FALSE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  script (f, TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("Q", "ask_human", "{}")), TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_permission_required tool_result "
                "tool_permission_resolved tool_result "
                "model_call_requested model_call_completed turn_completed");
}

static void
test_classifier_batch (Fixture       *f,
                       gconstpointer  data)
{
  gboolean human = GPOINTER_TO_INT (data);
  g_autofree char *turn_id = create_turn (f, TRUE, human, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  g_hash_table_add (f->world->needs_permission, g_strdup ("sc"));
  g_hash_table_add (f->world->needs_permission, g_strdup ("ab"));
  f->world->classifier_answer = g_strdup ("[{\"toolCallId\":\"A\",\"decision\":\"allow\",\"reason\":\"safe\"},"
                                          "{\"toolCallId\":\"C\",\"decision\":\"deny\",\"reason\":\"no\"},"
                                          "{\"toolCallId\":\"B\",\"decision\":\"defer\",\"reason\":\"?\"}]");
  script (f, TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("B", "ab", "{}") "," CALL ("C", "sc", "{}")),
          TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  if (human)
    {
      g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
      g_assert_cmpuint (json_array_get_length (outcome->pending_permissions), ==, 2);
      assert_types (f, turn_id,
                    "model_call_requested model_call_completed "
                    "tool_permission_required tool_permission_required tool_permission_required "
                    "tool_permission_classified tool_permission_classified tool_permission_classified "
                    "tool_permission_resolved tool_invocation_requested "
                    "tool_progress tool_result turn_suspended");
    }
  else
    {
      g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
      assert_types (f, turn_id,
                    "model_call_requested model_call_completed "
                    "tool_permission_required tool_permission_required tool_permission_required "
                    "tool_permission_classified tool_permission_classified tool_permission_classified "
                    "tool_permission_resolved tool_invocation_requested "
                    "tool_permission_resolved tool_result tool_permission_resolved tool_result "
                    "tool_progress tool_result "
                    "model_call_requested model_call_completed turn_completed");
    }
}

static void
test_classifier_failure (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, TRUE, FALSE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  script (f, TOOL_STEP (CALL ("A", "sa", "{}")), TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_permission_required "
                "tool_permission_classification_failed tool_permission_resolved tool_result "
                "model_call_requested model_call_completed turn_completed");
}

static void
test_checker_failure_fails_closed (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *required;

  f->world->checker_fails = TRUE;
  script (f, TOOL_STEP (CALL ("A", "sa", "{}")), NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_permission_required turn_suspended");
  events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);
  g_assert_no_error (error);
  required = json_node_get_object (g_ptr_array_index (events, 3));
  g_assert_cmpstr (json_object_get_string_member (required, "checkerError"), ==, "checker broke");
}

static void
test_model_call_limit (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 10);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GString) expected = g_string_new (NULL);

  for (guint i = 0; i < 10; i++)
    {
      g_autofree char *step = g_strdup_printf (TOOL_STEP (CALL ("c%u", "sa", "{}")), i);

      script (f, step, NULL);
      g_string_append (expected, "model_call_requested model_call_completed tool_invocation_requested "
                                 "tool_progress tool_result ");
    }
  g_string_append (expected, "turn_failed");
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_cmpstr (outcome->code, ==, "model-call-limit");
  g_assert_cmpstr (outcome->error, ==, "The turn reached its limit of 10 model calls");
  assert_types (f, turn_id, expected->str);
}

static void
test_model_call_limit_answer (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 10);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GString) expected = g_string_new (NULL);

  /* Nine tool rounds, then a tool-free answer on call 10: completed. */
  for (guint i = 0; i < 9; i++)
    {
      g_autofree char *step = g_strdup_printf (TOOL_STEP (CALL ("c%u", "sa", "{}")), i);

      script (f, step, NULL);
      g_string_append (expected, "model_call_requested model_call_completed tool_invocation_requested "
                                 "tool_progress tool_result ");
    }
  script (f, TEXT_STEP, NULL);
  g_string_append (expected, "model_call_requested model_call_completed turn_completed");
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->world->model), ==, 10);
  assert_types (f, turn_id, expected->str);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  ADD ("plain-response", test_plain_response, NULL);
  ADD ("create-returns-resolution", test_create_returns_resolution, NULL);
  ADD ("create-without-tools", test_create_without_tools, NULL);
  ADD ("provider-failure", test_provider_failure, NULL);
  ADD ("sync-tool-round-trip", test_sync_tool_round_trip, NULL);
  ADD ("sync-tool-throws", test_sync_tool_throws, NULL);
  ADD ("mixed-sync-async", test_mixed_sync_async, NULL);
  ADD ("human-permission-partial", test_human_permission, NULL);
  ADD ("no-human-denies", test_no_human_denies, NULL);
  ADD ("classifier-batch-with-human", test_classifier_batch, GINT_TO_POINTER (TRUE));
  ADD ("classifier-batch-without-human", test_classifier_batch, GINT_TO_POINTER (FALSE));
  ADD ("classifier-failure", test_classifier_failure, NULL);
  ADD ("checker-failure-fails-closed", test_checker_failure_fails_closed, NULL);
  ADD ("model-call-limit-tools-on-last-call", test_model_call_limit, NULL);
  ADD ("model-call-limit-answer-on-last-call", test_model_call_limit_answer, NULL);

  turn_runtime_add_cancel_tests ();
  turn_runtime_add_recovery_tests ();
  turn_runtime_add_events_tests ();

  return g_test_run ();
}
