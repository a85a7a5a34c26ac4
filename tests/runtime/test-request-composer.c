/* test-request-composer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The request composer and the closed transcript (docs/runtime.md §3, §11).
 */

#include "natter-request-composer.h"
#include "natter-runtime-error.h"
#include "natter-tool.h"
#include "natter-test-support.h"

#define TURN "2026-11-30T09-14-03Z-0000042-000"
#define PREV "2026-11-30T09-14-02Z-0000041-000"
#define HEAD "\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:03.000Z\""

#define CREATED(context) \
  "{\"type\":\"turn_created\"," HEAD ",\"schemaVersion\":1,\"sessionId\":null," \
  "\"agent\":{\"requested\":{\"agentId\":\"a\"},\"resolved\":{\"agentId\":\"a\"," \
  "\"systemPrompt\":\"Be brief.\",\"model\":{\"provider\":\"p\",\"model\":\"m\"}," \
  "\"tools\":[{\"toolId\":\"t.echo\",\"name\":\"echo\",\"description\":\"d\"," \
  "\"inputSchema\":{},\"execution\":\"sync\",\"requiresHuman\":false}]}}," \
  "\"context\":" context ",\"input\":{\"role\":\"user\",\"content\":\"hi\"}," \
  "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":5}}"

static NatterTurnState *
reduce (const char *first,
        ...)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  NatterTurnState *state;
  va_list args;

  va_start (args, first);
  for (const char *line = first; line != NULL; line = va_arg (args, const char *))
    g_ptr_array_add (events, natter_test_json (line));
  va_end (args);

  state = natter_turn_reduce (events, &error);
  g_assert_no_error (error);
  return state;
}

static void
assert_json (JsonObject *object,
             const char *expected)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) want = natter_test_json (expected);
  g_autofree char *got = NULL;
  g_autofree char *want_text = NULL;

  json_node_set_object (node, object);
  got = json_to_string (node, FALSE);
  want_text = json_to_string (want, FALSE);
  g_assert_cmpstr (got, ==, want_text);
}

static const char *tools_json =
  "[{\"toolId\":\"t.echo\",\"name\":\"echo\",\"description\":\"d\",\"inputSchema\":{},"
  "\"execution\":\"sync\",\"requiresHuman\":false}]";

static void
test_call_zero_inline (void)
{
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(JsonNode) context = natter_test_json ("[{\"role\":\"user\",\"content\":\"before\"},"
                                                  "{\"role\":\"assistant\",\"content\":\"ok\"}]");
  g_autoptr(JsonObject) payload = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;

  state = reduce (CREATED ("[{\"role\":\"user\",\"content\":\"before\"},"
                           "{\"role\":\"assistant\",\"content\":\"ok\"}]"),
                  "{\"type\":\"model_call_requested\"," HEAD ",\"modelCallIndex\":0,"
                  "\"request\":{\"messages\":[\"context\",\"input\"],\"parameters\":{\"temperature\":0}}}",
                  NULL);
  payload = natter_compose_request (state, 0, json_node_get_array (context), &error);
  g_assert_no_error (error);
  expected = g_strdup_printf ("{\"systemPrompt\":\"Be brief.\",\"messages\":["
                              "{\"role\":\"user\",\"content\":\"before\"},"
                              "{\"role\":\"assistant\",\"content\":\"ok\"},"
                              "{\"role\":\"user\",\"content\":\"hi\"}],"
                              "\"tools\":%s,\"parameters\":{\"temperature\":0}}", tools_json);
  assert_json (payload, expected);
}

static void
test_call_zero_reference (void)
{
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(JsonNode) transcript = natter_test_json ("[{\"role\":\"user\",\"content\":\"q0\"},"
                                                     "{\"role\":\"assistant\",\"content\":\"a0\"}]");
  g_autoptr(JsonObject) payload = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;

  state = reduce (CREATED ("{\"previousTurnId\":\"" PREV "\"}"),
                  "{\"type\":\"model_call_requested\"," HEAD ",\"modelCallIndex\":0,"
                  "\"request\":{\"contextRef\":{\"previousTurnId\":\"" PREV "\"},"
                  "\"messages\":[\"input\"],\"parameters\":{}}}",
                  NULL);
  payload = natter_compose_request (state, 0, json_node_get_array (transcript), &error);
  g_assert_no_error (error);
  expected = g_strdup_printf ("{\"systemPrompt\":\"Be brief.\",\"messages\":["
                              "{\"role\":\"user\",\"content\":\"q0\"},"
                              "{\"role\":\"assistant\",\"content\":\"a0\"},"
                              "{\"role\":\"user\",\"content\":\"hi\"}],"
                              "\"tools\":%s,\"parameters\":{}}", tools_json);
  assert_json (payload, expected);
}

#define CALLS_1_2 \
  "{\"type\":\"model_call_requested\"," HEAD ",\"modelCallIndex\":0," \
  "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}", \
  "{\"type\":\"model_call_completed\"," HEAD ",\"modelCallIndex\":0,\"finishReason\":\"tool_calls\"," \
  "\"usage\":{},\"message\":{\"role\":\"assistant\",\"content\":[" \
  "{\"type\":\"tool-call\",\"toolCallId\":\"c1\",\"toolName\":\"echo\",\"arguments\":{\"x\":1}}," \
  "{\"type\":\"tool-call\",\"toolCallId\":\"c2\",\"toolName\":\"echo\",\"arguments\":{\"x\":2}}]}}", \
  "{\"type\":\"tool_result\"," HEAD ",\"toolCallId\":\"c2\",\"toolName\":\"echo\",\"source\":\"runtime\"," \
  "\"result\":{\"output\":{\"n\":2},\"isError\":true}}", \
  "{\"type\":\"tool_result\"," HEAD ",\"toolCallId\":\"c1\",\"toolName\":\"echo\",\"source\":\"runtime\"," \
  "\"result\":{\"output\":\"one\",\"isError\":false}}", \
  "{\"type\":\"model_call_requested\"," HEAD ",\"modelCallIndex\":1," \
  "\"request\":{\"messages\":[\"assistant:0\",\"toolResult:c1\",\"toolResult:c2\"],\"parameters\":{}}}"

#define CALL_N_MESSAGES \
  "{\"role\":\"user\",\"content\":\"hi\"}," \
  "{\"role\":\"assistant\",\"content\":[" \
  "{\"type\":\"tool-call\",\"toolCallId\":\"c1\",\"toolName\":\"echo\",\"arguments\":{\"x\":1}}," \
  "{\"type\":\"tool-call\",\"toolCallId\":\"c2\",\"toolName\":\"echo\",\"arguments\":{\"x\":2}}]}," \
  "{\"role\":\"tool\",\"toolCallId\":\"c1\",\"toolName\":\"echo\",\"content\":\"one\"}," \
  "{\"role\":\"tool\",\"toolCallId\":\"c2\",\"toolName\":\"echo\",\"content\":\"{\\\"n\\\":2}\"}"

static void
test_call_n_tool_results_in_model_order (void)
{
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(JsonObject) payload = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;

  /* c2 finished first; the model still reads c1 then c2. */
  state = reduce (CREATED ("[]"), CALLS_1_2, NULL);
  payload = natter_compose_request (state, 1, NULL, &error);
  g_assert_no_error (error);
  expected = g_strdup_printf ("{\"systemPrompt\":\"Be brief.\",\"messages\":[" CALL_N_MESSAGES "],"
                              "\"tools\":%s,\"parameters\":{}}", tools_json);
  assert_json (payload, expected);
}

static void
test_reissue_repeats_failed_call (void)
{
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(JsonObject) payload = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;

  state = reduce (CREATED ("[]"), CALLS_1_2,
                  "{\"type\":\"model_call_failed\"," HEAD ",\"modelCallIndex\":1,\"error\":\"interrupted\"}",
                  "{\"type\":\"model_call_requested\"," HEAD ",\"modelCallIndex\":2,"
                  "\"request\":{\"messages\":[],\"parameters\":{}}}",
                  NULL);
  payload = natter_compose_request (state, 2, NULL, &error);
  g_assert_no_error (error);
  expected = g_strdup_printf ("{\"systemPrompt\":\"Be brief.\",\"messages\":[" CALL_N_MESSAGES "],"
                              "\"tools\":%s,\"parameters\":{}}", tools_json);
  assert_json (payload, expected);

  g_clear_pointer (&payload, json_object_unref);
  payload = natter_compose_request (state, 3, NULL, &error);
  g_assert_null (payload);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT);
}

static void
test_closed_transcript (void)
{
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(JsonArray) transcript = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  state = reduce (CREATED ("[]"), CALLS_1_2,
                  "{\"type\":\"model_call_completed\"," HEAD ",\"modelCallIndex\":1,\"finishReason\":\"stop\","
                  "\"usage\":{},\"message\":{\"role\":\"assistant\",\"content\":\"done\"}}",
                  "{\"type\":\"turn_completed\"," HEAD ",\"finishReason\":\"stop\",\"usage\":{},"
                  "\"output\":{\"role\":\"assistant\",\"content\":\"done\"}}",
                  NULL);
  transcript = natter_build_closed_transcript (state, NULL, &error);
  g_assert_no_error (error);
  json_node_set_array (node, transcript);
  text = json_to_string (node, FALSE);
  g_assert_cmpstr (text, ==, "[" CALL_N_MESSAGES ",{\"role\":\"assistant\",\"content\":\"done\"}]");
}

/* The model reads at most 256 KiB of a tool's result, and is told when
 * and how much was cut: a result stored whole (tool servers' results
 * were, in older turn files, alongside two more copies) is cut when it
 * is sent, at a character boundary; one a tool cut itself, within the
 * limit and a note, is sent as it is. */
static void
test_tool_result_cut (void)
{
  g_autoptr(JsonObject) event = json_object_new ();
  g_autoptr(JsonNode) message = NULL;
  g_autoptr(JsonNode) again = NULL;
  JsonObject *result = json_object_new ();
  g_autoptr(GString) whole = g_string_new (NULL);
  g_autofree char *note = NULL;
  g_autofree char *own = NULL;
  const char *content;

  /* Five million bytes of two-byte characters, misaligned by one. */
  g_string_append_c (whole, 'x');
  while (whole->len < 5000000)
    g_string_append (whole, "é");
  json_object_set_string_member (event, "toolCallId", "c1");
  json_object_set_string_member (event, "toolName", "mcp__files__read");
  json_object_set_string_member (result, "output", whole->str);
  json_object_set_boolean_member (result, "isError", FALSE);
  json_object_set_object_member (event, "result", result);

  message = natter_tool_result_to_message (event);
  content = json_object_get_string_member (json_node_get_object (message), "content");
  note = g_strdup_printf ("\n[truncated: %d of %" G_GSIZE_FORMAT " bytes shown]", NATTER_TOOL_OUTPUT_MAX_BYTES - 1,
                          whole->len);
  g_assert_true (g_str_has_suffix (content, note));
  g_assert_cmpuint (strlen (content), ==, NATTER_TOOL_OUTPUT_MAX_BYTES - 1 + strlen (note));
  g_assert_true (g_utf8_validate (content, -1, NULL));
  g_assert_cmpint (strncmp (content, whole->str, NATTER_TOOL_OUTPUT_MAX_BYTES - 1), ==, 0);

  own = natter_tool_output_cut (whole->str, whole->len, NULL);
  json_object_set_string_member (result, "output", own);
  again = natter_tool_result_to_message (event);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (again), "content"), ==, own);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/request-composer/call-zero-inline", test_call_zero_inline);
  g_test_add_func ("/request-composer/call-zero-reference", test_call_zero_reference);
  g_test_add_func ("/request-composer/call-n-tool-results-in-model-order",
                   test_call_n_tool_results_in_model_order);
  g_test_add_func ("/request-composer/reissue-repeats-failed-call", test_reissue_repeats_failed_call);
  g_test_add_func ("/request-composer/closed-transcript", test_closed_transcript);
  g_test_add_func ("/request-composer/tool-result-cut", test_tool_result_cut);

  return g_test_run ();
}
