/* test-turn-runtime-events.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What listeners see and what the file holds: live state equals a
 * replay, deltas are never written, slow and absent listeners, the
 * previous turn as context, and what is refused before anything is
 * written.
 */

#include "test-turn-runtime.h"

static void
test_live_equals_replay (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GPtrArray) start = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) replay = NULL;
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) last = NULL;
  g_autoptr(GError) error = NULL;
  Live live = { 0 };

  g_hash_table_add (f->world->needs_permission, g_strdup ("sc"));
  script (f, "+" TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("B", "ab", "{}") "," CALL ("C", "sc", "{}")),
          "+" TEXT_STEP, NULL);

  start = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);
  g_assert_no_error (error);
  live.live = natter_turn_reduce (start, &error);
  g_assert_no_error (error);
  live.next_offset = 2;

  first = advance_live (f, turn_id, NULL, &live);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_clear_pointer (&first, natter_turn_outcome_unref);
  first = advance_live (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"C\","
                        "\"decision\":\"allow\"}", &live);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  last = advance_live (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"B\","
                       "\"result\":{\"output\":\"b\",\"isError\":false}}", &live);
  g_assert_cmpint (last->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (live.next_offset, ==, events->len + 1);
  replay = natter_turn_reduce (events, &error);
  g_assert_no_error (error);
  g_assert_true (natter_turn_state_equal (live.live, replay));
  natter_turn_state_unref (live.live);
}

static void
test_deltas_never_written (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *contents = NULL;
  Deltas deltas = { g_string_new (NULL), g_string_new (NULL), 0 };
  gulong hub_id;
  NatterTestWait wait = { 0 };

  script (f, "+" TEXT_STEP, NULL);
  hub_id = g_signal_connect (f->hub, "delta", G_CALLBACK (hub_delta_cb), &deltas);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, NULL);
  g_signal_connect (execution, "delta", G_CALLBACK (execution_delta_cb), &deltas);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  outcome = wait.outcome;
  g_signal_handler_disconnect (f->hub, hub_id);

  /* The listeners had every delta... */
  g_assert_cmpstr (deltas.text->str, ==, "delta");
  g_assert_cmpstr (deltas.reasoning->str, ==, "hm");
  g_assert_cmpuint (deltas.n_hub, ==, 3);
  /* ...the file has none, only the normalized step event. */
  assert_types (f, turn_id, "model_call_requested model_step_event model_call_completed turn_completed");
  contents = file_contents (f, turn_id);
  g_assert_null (strstr (contents, "_delta"));
  g_assert_null (strstr (contents, "\"hm\""));
  g_assert_null (strstr (contents, "\"del\""));
  g_string_free (deltas.text, TRUE);
  g_string_free (deltas.reasoning, TRUE);
}

static void
test_slow_listener (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *joined = NULL;
  g_autofree char *types = NULL;
  SlowConsumer consumer = { 0 };
  gulong id;

  consumer.turn_id = turn_id;
  consumer.last_offset = 1;   /* the consumer read turn_created itself */
  consumer.processed = g_ptr_array_new_with_free_func (g_free);
  g_queue_init (&consumer.queue);
  id = g_signal_connect (f->hub, "event", G_CALLBACK (slow_hub_event_cb), &consumer);

  script (f, TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("C", "sc", "{}")), TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpuint (consumer.processed->len, ==, 0);
  g_assert_cmpuint (consumer.queue.length, ==, 11);

  g_idle_add_full (G_PRIORITY_LOW, slow_drain_one, &consumer, NULL);
  natter_test_wait_for_flag (&consumer.done, 5000);
  g_signal_handler_disconnect (f->hub, id);
  g_ptr_array_add (consumer.processed, NULL);
  joined = g_strjoinv (" ", (char **) consumer.processed->pdata);
  types = types_on_disk (f, turn_id);
  g_assert_cmpstr (joined, ==, types);
  g_ptr_array_unref (consumer.processed);
}

static void
test_absent_listener (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  NatterTurnExecution *execution;
  gboolean ended = FALSE;
  gpointer weak;
  gulong id;

  /* Nobody connects and the caller drops the execution at once: it is
   * hot, so the turn still runs to its end and then goes away. */
  script (f, TOOL_STEP (CALL ("A", "sa", "{}")), TEXT_STEP, NULL);
  id = g_signal_connect (f->hub, "turn-processing-end", G_CALLBACK (processing_end_cb), &ended);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, NULL);
  weak = execution;
  g_object_add_weak_pointer (G_OBJECT (execution), &weak);
  g_object_unref (execution);
  g_assert_nonnull (weak);
  natter_test_wait_for_flag (&ended, 10000);
  g_signal_handler_disconnect (f->hub, id);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "tool_progress tool_result model_call_requested model_call_completed "
                            "turn_completed");
  while (weak != NULL)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_previous_turn_context (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *first = create_turn (f, FALSE, TRUE, 0);
  g_autofree char *second = NULL;
  g_autofree char *context = NULL;
  g_autoptr(NatterTurnOutcome) one = NULL;
  g_autoptr(NatterTurnOutcome) two = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *request;
  JsonArray *messages;

  script (f, TOOL_STEP (CALL ("A", "sa", "{}")), TEXT_STEP, TEXT_STEP, NULL);
  one = advance (f, first, NULL, NULL);
  g_assert_cmpint (one->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  context = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", first);
  second = create_turn_with_context (f, context);
  two = advance (f, second, NULL, NULL);
  g_assert_cmpint (two->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  /* The file stores a reference; the wire carries the closed transcript
   * of the first turn, then the new input. */
  events = natter_jsonl_repo_read_sync (f->repo, second, NULL, &error);
  g_assert_no_error (error);
  request = json_object_get_object_member (json_node_get_object (g_ptr_array_index (events, 1)),
                                           "request");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (request, "contextRef"),
                                                  "previousTurnId"), ==, first);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (request, "messages")), ==, 1);

  messages = json_object_get_array_member (natter_fake_model_get_request (f->world->model, 2), "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "role"), ==, "user");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 1), "role"), ==, "assistant");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "role"), ==, "tool");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 3), "content"), ==, "done");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 4), "content"), ==, "hi");
}

static void
test_missing_model_appends_nothing (Fixture       *f,
                                    gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GError) error = NULL;

  g_clear_object (&f->world->model);
  g_assert_null (advance (f, turn_id, NULL, &error));
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND);
  assert_types (f, turn_id, "");
}

static void
test_get_turn_read_only (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GPtrArray) events = NULL;

  natter_turn_runtime_get_turn_async (f->runtime, turn_id, NULL, got_turn_cb, &events);
  natter_test_wait_for_pointer ((gpointer *) &events, 5000);
  g_assert_cmpuint (events->len, ==, 1);
  assert_types (f, turn_id, "");
}

static void
test_unknown_agent_creates_nothing (Fixture       *f,
                                    gconstpointer  data)
{
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"nobody\"}");
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\":\"user\",\"content\":\"hi\"}");
  g_autoptr(JsonNode) config = natter_test_json ("{\"humanAvailable\":true}");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;

  natter_turn_runtime_create_turn_async (f->runtime, json_node_get_object (agent), NULL, NULL,
                                         json_node_get_object (input), json_node_get_object (config),
                                         NULL, NULL, NULL);
  /* Runs synchronously up to the resolver; nothing was created. */
  natter_test_drain_main_context ();
  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 0);
}

void
turn_runtime_add_events_tests (void)
{
  ADD ("live-equals-replay", test_live_equals_replay, NULL);
  ADD ("deltas-never-written", test_deltas_never_written, NULL);
  ADD ("slow-listener", test_slow_listener, NULL);
  ADD ("absent-listener", test_absent_listener, NULL);
  ADD ("previous-turn-context", test_previous_turn_context, NULL);
  ADD ("missing-model-appends-nothing", test_missing_model_appends_nothing, NULL);
  ADD ("get-turn-read-only", test_get_turn_read_only, NULL);
  ADD ("unknown-agent-creates-nothing", test_unknown_agent_creates_nothing, NULL);
}
