/* test-provider-e2e.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OpenAI-compatible provider end to end THROUGH the turn runtime
 * (docs/runtime.md §3, §5, §9, §12): a localhost SoupServer plays a
 * scripted model, the real NatterProviderRegistry resolves the turn's
 * model descriptor, and the real runtime writes the turn file in a
 * temporary directory. Every test ends by scanning every request body,
 * every file on disk and every log line for the API key.
 *
 * This file runs answered turns and holds main(); failures and the
 * registry have files of their own.
 */

#include "test-provider-e2e.h"

/* ------------------------------------------------------------------ */
/* Scenarios                                                           */
/* ------------------------------------------------------------------ */

/* (1) */
static void
test_streamed_answer (Fixture       *f,
                      gconstpointer  data)
{
  const NatterTestResponse with_reasoning = {
    .status = 200, .content_type = SSE,
    .chunks = NATTER_TEST_CHUNKS (REASONING ("Think"), CHUNK ("Hel") CHUNK ("lo"), CHUNK (" world"), FINISH ("stop") USAGE DONE),
  };
  g_autofree char *turn_id = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) body = NULL;
  Run run = { 0 };

  serve (f, &with_reasoning, 1);
  turn_id = create_turn (f);
  advance (f, turn_id, NULL, &run);

  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpstr (run.outcome->finish_reason, ==, "stop");
  assert_object_equal (run.outcome->output,
                     "{\"role\":\"assistant\",\"content\":[{\"type\":\"reasoning\",\"text\":\"Think\"},"
                     "{\"type\":\"text\",\"text\":\"Hello world\"}]}");
  g_assert_cmpint (json_object_get_int_member (run.outcome->usage, "inputTokens"), ==, 7);
  g_assert_cmpint (json_object_get_int_member (run.outcome->usage, "outputTokens"), ==, 3);

  /* Deltas arrived live, in order, through the execution. */
  g_assert_cmpuint (run.deltas->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 0), ==, "0:reasoning:Think");
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 1), ==, "0:text:Hel");
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 2), ==, "0:text:lo");
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 3), ==, "0:text: world");

  /* ...and never reached the file. */
  assert_types (f, turn_id, "model_call_requested model_call_completed turn_completed");
  text = file_text (f, turn_id);
  g_assert_null (strstr (text, "delta"));
  g_assert_null (strstr (text, "\"Hel\""));

  /* The request: model, system prompt + input, tools, streaming. */
  body = request_body (f, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "e2e-model");
  g_assert_true (json_object_get_boolean_member (body, "stream"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (body, "tools")), ==, 2);
  assert_messages (f, 0, "[" SYSTEM_MESSAGE "," USER_MESSAGE ("Say ping") "]");
  run_clear (&run);
}

/* Generation parameters from the turn reach the wire with every call and
 * are recorded in the durable request (issue: "generation parameters from
 * the turn"). */
static void
test_generation_parameters (Fixture       *f,
                            gconstpointer  data)
{
  const NatterTestResponse answer = {
    .status = 200, .content_type = SSE,
    .chunks = NATTER_TEST_CHUNKS (CHUNK ("pong") FINISH ("stop") DONE),
  };
  g_autofree char *turn_id = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) body = NULL;
  Run run = { 0 };

  serve (f, &answer, 1);
  turn_id = create_turn_with_parameters (f, "{\"temperature\":0.25,\"max_tokens\":64}");
  advance (f, turn_id, NULL, &run);
  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  body = request_body (f, 0);
  g_assert_cmpfloat (json_object_get_double_member (body, "temperature"), ==, 0.25);
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 64);
  g_assert_true (json_object_get_boolean_member (body, "stream"));

  text = file_text (f, turn_id);
  g_assert_nonnull (strstr (text, "\"parameters\":{\"temperature\":0.25,\"max_tokens\":64}"));
  run_clear (&run);
}

/* (2) */
static void
test_tool_round_trip (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *result;
  Run run = { 0 };

  SERVE (f, ECHO_CALL, ANSWER);
  turn_id = create_turn (f);
  advance (f, turn_id, NULL, &run);

  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_invocation_requested tool_result "
                "model_call_requested model_call_completed turn_completed");
  events = read_events (f, turn_id);
  result = find_event (events, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (result, "toolCallId"), ==, "call_1");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "result"), "output"),
                   ==, "echo:ping");

  /* The second request carries the whole materialized context. */
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  assert_messages (f, 1, "[" SYSTEM_MESSAGE "," USER_MESSAGE ("Say ping") ","
                         ECHO_CALL_MESSAGE ("call_1") "," TOOL_MESSAGE ("call_1", "echo:ping") "]");
  g_assert_cmpuint (run.deltas->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 0), ==, "1:text:Hel");
  run_clear (&run);
}

/* (3) */
static void
test_previous_turn_context (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *context = NULL;
  Run run1 = { 0 };
  Run run2 = { 0 };

  SERVE (f, ECHO_CALL, ANSWER, ANSWER);
  first = create_turn (f);
  advance (f, first, NULL, &run1);
  g_assert_cmpint (run1.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  context = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", first);
  second = create_turn_full (f, "{\"agentId\":\"helper\"}", context, "And again?");
  advance (f, second, NULL, &run2);
  g_assert_cmpint (run2.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  /* The previous turn's closed transcript, then the new input. */
  assert_messages (f, 2, "[" SYSTEM_MESSAGE "," USER_MESSAGE ("Say ping") ","
                         ECHO_CALL_MESSAGE ("call_1") "," TOOL_MESSAGE ("call_1", "echo:ping") ","
                         "{\"role\":\"assistant\",\"content\":\"Hello world\"},"
                         USER_MESSAGE ("And again?") "]");
  run_clear (&run1);
  run_clear (&run2);
}

/* (8) A server that echoes the key back in its error must not get it
 * into the turn: the tear-down scans bodies, files, errors and logs. */
static void
test_key_never_leaks (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *ok_turn = NULL;
  g_autofree char *failed_turn = NULL;
  g_autofree char *text = NULL;
  Run run1 = { 0 };
  Run run2 = { 0 };

  SERVE (f, ECHO_CALL, ANSWER,
         { .status = 401, .content_type = "application/json",
           .body = "{\"error\":{\"message\":\"Incorrect API key provided: " API_KEY "\"}}" });
  ok_turn = create_turn (f);
  advance (f, ok_turn, NULL, &run1);
  g_assert_cmpint (run1.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  failed_turn = create_turn (f);
  advance (f, failed_turn, NULL, &run2);
  g_assert_cmpint (run2.outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_cmpstr (run2.outcome->error, ==,
                   "E2E Model refused the API key (HTTP 401 Unauthorized): Incorrect API key provided: "
                   "[redacted] — check the key in the provider settings");
  text = file_text (f, failed_turn);
  g_assert_null (strstr (text, API_KEY));

  /* Sent in the header of every call, and looked up for each advance. */
  g_assert_cmpuint (f->server->authorizations->len, ==, 3);
  g_assert_cmpuint (f->keys.n_lookups, ==, 2);
  /* The log check in the tear-down did see the provider's lines. */
  g_assert_cmpuint (natter_log_lines, >, 0);
  run_clear (&run1);
  run_clear (&run2);
}

/* (9) */
static void
test_ad_hoc_endpoint (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *agent = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonObject) second = NULL;
  JsonObject *model;
  JsonObject *requested;
  Run run1 = { 0 };
  Run run2 = { 0 };

  SERVE (f, { .status = 200, .content_type = SSE,
              .chunks = NATTER_TEST_CHUNKS (TOOL_START ("call_g", "guarded"), FINISH ("tool_calls") DONE) },
         ANSWER);

  /* The per-turn override names the endpoint itself, as --base-url. */
  agent = g_strdup_printf ("{\"agentId\":\"helper\",\"model\":{\"provider\":\"%s\",\"model\":\"adhoc-model\"}}",
                           f->server->base_url);
  turn_id = create_turn_full (f, agent, NULL, "Do the guarded thing");
  advance (f, turn_id, NULL, &run1);
  g_assert_cmpint (run1.outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (run1.outcome->pending_permissions), ==, 1);

  /* The turn names its endpoint; nothing else is needed to go on. */
  events = read_events (f, turn_id);
  model = json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (event_at (events, 0),
                                                                                                         "agent"),
                                                                        "resolved"),
                                         "model");
  g_assert_cmpstr (json_object_get_string_member (model, "provider"), ==, f->server->base_url);
  g_assert_cmpstr (json_object_get_string_member (model, "model"), ==, "adhoc-model");
  /* The request keeps the override where the reference format has it. */
  requested = json_object_get_object_member (json_object_get_object_member (event_at (events, 0), "agent"),
                                             "requested");
  g_assert_false (json_object_has_member (requested, "model"));
  g_assert_cmpstr (json_object_get_string_member (requested, "agentId"), ==, "helper");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_object_get_object_member (requested,
                                                                                                                 "overrides"),
                                                                                 "model"),
                                                  "model"),
                   ==, "adhoc-model");

  /* A later process: a fresh registry that configures nothing. */
  drop_runtime (f);
  make_runtime (f);
  advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"call_g\",\"decision\":\"allow\"}", &run2);
  g_assert_cmpint (run2.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_permission_required turn_suspended "
                "tool_permission_resolved tool_invocation_requested tool_result "
                "model_call_requested model_call_completed turn_completed");

  /* The key was looked up again, for the endpoint, at each advance. */
  g_assert_cmpuint (f->keys.n_lookups, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->keys.providers, 0), ==, f->server->base_url);
  g_assert_cmpstr (g_ptr_array_index (f->keys.providers, 1), ==, f->server->base_url);

  second = request_body (f, 1);
  g_assert_cmpstr (json_object_get_string_member (second, "model"), ==, "adhoc-model");
  g_assert_cmpstr (run2.outcome->error, ==, NULL);
  run_clear (&run1);
  run_clear (&run2);
}

/* (10) A server that answers tool calls without streaming (as the
 * mock-llm package does), and repeats its tool call id every time. */
static void
test_json_body_tool_calls (Fixture       *f,
                           gconstpointer  data)
{
#define JSON_TOOL_CALL \
  "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":" \
  "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\"," \
  "\"function\":{\"name\":\"echo\",\"arguments\":\"{\\\"text\\\":\\\"ping\\\"}\"}}]}," \
  "\"finish_reason\":\"tool_calls\"}]}"
  g_autofree char *turn_id = NULL;
  g_autoptr(JsonObject) last = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonArray *messages;
  const char *renamed;
  Run run = { 0 };

  SERVE (f,
         { .status = 200, .content_type = "application/json", .body = JSON_TOOL_CALL },
         { .status = 200, .content_type = "application/json", .body = JSON_TOOL_CALL },
         { .status = 200, .content_type = "application/json",
           .body = "{\"id\":\"chatcmpl-3\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                   "\"message\":{\"role\":\"assistant\",\"content\":\"pong\"},\"finish_reason\":\"stop\"}],"
                   "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1,\"total_tokens\":6}}" });
  turn_id = create_turn (f);
  advance (f, turn_id, NULL, &run);

  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_object_equal (run.outcome->output,
                     "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"pong\"}]}");
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_invocation_requested tool_result "
                "model_call_requested model_call_completed tool_invocation_requested tool_result "
                "model_call_requested model_call_completed turn_completed");

  /* The repeated id was renamed, so each call keeps its own result. */
  events = read_events (f, turn_id);
  last = request_body (f, 2);
  messages = json_object_get_array_member (last, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 6);
  renamed = json_object_get_string_member (json_array_get_object_element (messages, 5), "tool_call_id");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 3), "tool_call_id"),
                   ==, "call_1");
  g_assert_cmpstr (renamed, !=, "call_1");
  g_assert_true (g_str_has_prefix (renamed, "call_"));
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_object_get_array_member (json_array_get_object_element (messages, 4), "tool_calls"), 0),
                     "id"),
                   ==, renamed);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 5), "content"),
                   ==, "echo:ping");
  run_clear (&run);
#undef JSON_TOOL_CALL
}

int
main (int   argc,
      char *argv[])
{
  /* Every debug line reaches the writer, so the key check sees them. */
  g_setenv ("G_MESSAGES_DEBUG", "all", TRUE);
  g_log_set_writer_func (log_writer, NULL, NULL);

  g_test_init (&argc, &argv, NULL);

  ADD ("streamed-answer", test_streamed_answer);
  ADD ("generation-parameters", test_generation_parameters);
  ADD ("tool-round-trip", test_tool_round_trip);
  ADD ("previous-turn-context", test_previous_turn_context);
  ADD ("key-never-leaks", test_key_never_leaks);
  ADD ("ad-hoc-endpoint", test_ad_hoc_endpoint);
  ADD ("json-body-tool-calls", test_json_body_tool_calls);

  provider_e2e_add_failures_tests ();
  provider_e2e_add_registry_tests ();

  return g_test_run ();
}
