/* test-chat-stream.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chat-completion assembler (docs/runtime.md §3, §12), and every
 * real-world case in tests/data/sse (the bytes OpenAI-compatible servers
 * send, one file each) read through the SSE parser whole, split at every
 * byte, and byte by byte.
 *
 * How a NAME.expect.json is read:
 * - `error` present: the run must fail with a NATTER_PROVIDER_ERROR whose
 *   message contains it; the other fields are then checked only if present
 *   (partial results are kept, so they can be stated).
 * - `error` absent: the run must succeed; `text` and `reasoning` absent
 *   mean "", `toolCalls` absent means none, `usage` absent means no usage
 *   reported, and `finishReason` is required.
 * - A tool call has `name`, either `id` or `idGenerated: true` (then the
 *   minted id is non-empty and identical in every feeding mode), and either
 *   `arguments` (compared structurally) or `malformed: true` (no parsed
 *   arguments; the raw text kept; `arguments`, if given, is the raw text).
 * - `contentType` "application/json" (or a NAME.json input) is fed with
 *   natter_chat_stream_feed_json_body(); anything else through the SSE
 *   parser.
 * - Unknown members fail the test, so that a new expectation is never
 *   silently ignored.
 *
 * This file holds the recorded streams of tests/data/sse, the shapes a
 * message is assembled from, and main(); failing streams have a file of
 * their own.
 */

#include "test-chat-stream.h"

static void
test_finish_reasons (void)
{
  {
    /* [DONE] without a finish reason is a complete stream. */
    g_autoptr(Outcome) outcome = run_text (CHUNK ("{\"content\":\"a\"}", "null") "data: [DONE]\n\n");

    g_assert_no_error (outcome->error);
    g_assert_null (natter_chat_stream_get_server_finish_reason (outcome->stream));
    g_assert_cmpstr (natter_chat_stream_get_finish_reason (outcome->stream), ==, "stop");
  }
  {
    /* A claimed tool_calls without any call has nothing to run. */
    g_autoptr(Outcome) outcome = run_text (CHUNK ("{\"content\":\"a\"}", "\"tool_calls\""));

    g_assert_no_error (outcome->error);
    g_assert_cmpstr (natter_chat_stream_get_server_finish_reason (outcome->stream), ==, "tool_calls");
    g_assert_cmpstr (natter_chat_stream_get_finish_reason (outcome->stream), ==, "stop");
  }
  {
    /* The last reason sent wins; choices other than 0 are ignored. */
    g_autoptr(Outcome) outcome =
      run_text (CHUNK ("{\"content\":\"a\"}", "\"stop\"")
                CHUNK ("{}", "\"length\"")
                "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"b\"},"
                "\"finish_reason\":\"content_filter\"}]}\n\n");

    g_assert_no_error (outcome->error);
    g_assert_cmpstr (natter_chat_stream_get_text (outcome->stream), ==, "a");
    g_assert_cmpstr (natter_chat_stream_get_finish_reason (outcome->stream), ==, "length");
  }
}

static void
test_reasoning_fields (void)
{
  g_autoptr(Outcome) outcome =
    run_text (CHUNK ("{\"reasoning\":\"a\"}", "null")
              CHUNK ("{\"reasoning_content\":\"b\",\"reasoning\":\"B\"}", "null")
              CHUNK ("{\"reasoning_content\":\"\",\"reasoning\":\"c\"}", "null")
              CHUNK ("{\"reasoning_content\":null,\"reasoning\":null,\"content\":\"x\"}", "\"stop\""));

  g_assert_no_error (outcome->error);
  g_assert_cmpstr (natter_chat_stream_get_reasoning (outcome->stream), ==, "abc");
  g_assert_cmpstr (outcome->reasoning_deltas->str, ==, "abc");
  g_assert_cmpstr (natter_chat_stream_get_text (outcome->stream), ==, "x");
}

static void
test_content_parts (void)
{
  /* Mistral's reasoning models stream content as parts. */
  g_autoptr(Outcome) outcome =
    run_text (CHUNK ("{\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"hmm\"}]}]}", "null")
              CHUNK ("{\"content\":[{\"type\":\"text\",\"text\":\"yes\"},{\"type\":\"image\"}]}", "\"stop\""));

  g_assert_no_error (outcome->error);
  g_assert_cmpstr (natter_chat_stream_get_reasoning (outcome->stream), ==, "hmm");
  g_assert_cmpstr (natter_chat_stream_get_text (outcome->stream), ==, "yes");
}

static void
test_tool_call_arguments (void)
{
  g_autoptr(Outcome) outcome =
    run_text (TOOL ("{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"bad\",\"arguments\":\"{\\\"x\\\":\"}}")
              TOOL ("{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"arr\",\"arguments\":\"[1]\"}}")
              TOOL ("{\"index\":2,\"id\":\"c\",\"function\":{\"name\":\"twice\",\"arguments\":\"\\\"{\\\\\\\"y\\\\\\\":2}\\\"\"}}")
              TOOL ("{\"index\":3,\"id\":\"d\",\"function\":{\"name\":\"obj\",\"arguments\":{\"z\":3}}}")
              TOOL ("{\"index\":4,\"id\":\"e\",\"function\":{\"name\":\"ws\",\"arguments\":\" \\n \"}}")
              TOOL ("{\"index\":5,\"id\":\"f\",\"function\":{\"name\":\"nul\",\"arguments\":\"{\\\"s\\\":\\\"\\\\u0000\\\"}\"}}")
              STOP);
  g_autoptr(JsonNode) message = NULL;
  g_autoptr(JsonNode) expected = NULL;
  const NatterChatToolCall *call;

  g_assert_no_error (outcome->error);
  g_assert_cmpuint (natter_chat_stream_get_n_tool_calls (outcome->stream), ==, 6);
  g_assert_cmpstr (natter_chat_stream_get_finish_reason (outcome->stream), ==, "tool_calls");

  /* Unparseable: kept raw, flagged, never parsed. */
  call = natter_chat_stream_get_tool_call (outcome->stream, 0);
  g_assert_true (call->malformed);
  g_assert_null (call->parsed_arguments);
  g_assert_cmpstr (call->arguments, ==, "{\"x\":");
  /* Valid JSON but not an object: not tool input either. */
  call = natter_chat_stream_get_tool_call (outcome->stream, 1);
  g_assert_true (call->malformed);
  g_assert_cmpstr (call->arguments, ==, "[1]");
  /* Encoded twice: unwrapped, the raw text kept as sent. */
  call = natter_chat_stream_get_tool_call (outcome->stream, 2);
  g_assert_false (call->malformed);
  g_assert_cmpstr (call->arguments, ==, "\"{\\\"y\\\":2}\"");
  /* Sent as an object rather than text. */
  call = natter_chat_stream_get_tool_call (outcome->stream, 3);
  g_assert_false (call->malformed);
  g_assert_cmpstr (call->arguments, ==, "{\"z\":3}");
  /* Only whitespace is no arguments. */
  call = natter_chat_stream_get_tool_call (outcome->stream, 4);
  g_assert_false (call->malformed);
  /* Parseable but not storable in a turn file. */
  call = natter_chat_stream_get_tool_call (outcome->stream, 5);
  g_assert_true (call->malformed);

  message = natter_chat_stream_build_message (outcome->stream);
  expected = natter_test_json (
    "{\"role\":\"assistant\",\"content\":["
    "{\"type\":\"tool-call\",\"toolCallId\":\"a\",\"toolName\":\"bad\",\"arguments\":\"{\\\"x\\\":\"},"
    "{\"type\":\"tool-call\",\"toolCallId\":\"b\",\"toolName\":\"arr\",\"arguments\":\"[1]\"},"
    "{\"type\":\"tool-call\",\"toolCallId\":\"c\",\"toolName\":\"twice\",\"arguments\":{\"y\":2}},"
    "{\"type\":\"tool-call\",\"toolCallId\":\"d\",\"toolName\":\"obj\",\"arguments\":{\"z\":3}},"
    "{\"type\":\"tool-call\",\"toolCallId\":\"e\",\"toolName\":\"ws\",\"arguments\":{}},"
    "{\"type\":\"tool-call\",\"toolCallId\":\"f\",\"toolName\":\"nul\",\"arguments\":\"{\\\"s\\\":\\\"\\\\u0000\\\"}\"}"
    "]}");
  g_assert_true (json_node_equal (message, expected));
}

static void
test_tool_call_ids (void)
{
  g_autoptr(Outcome) outcome =
    run_text (/* No id at all: minted from the seed and the position. */
              TOOL ("{\"index\":0,\"function\":{\"name\":\"a\",\"arguments\":\"\"}}")
              /* Set once: null, empty and repeated values are ignored. */
              TOOL ("{\"index\":1,\"id\":\"x\",\"function\":{\"name\":\"b\"}}")
              TOOL ("{\"index\":1,\"id\":null,\"function\":{\"name\":\"\",\"arguments\":\"{}\"}}")
              TOOL ("{\"index\":1,\"id\":\"x\",\"function\":{\"name\":\"b\"}}")
              TOOL ("{\"index\":0,\"id\":\"\",\"function\":{\"name\":null}}")
              /* A server reusing index 1 with a new id means a new call. */
              TOOL ("{\"index\":1,\"id\":\"y\",\"function\":{\"name\":\"c\",\"arguments\":\"{}\"}}")
              /* An id already taken by an earlier call is replaced. */
              TOOL ("{\"index\":2,\"id\":\"x\",\"function\":{\"name\":\"d\",\"arguments\":\"{}\"}}")
              STOP);
  static const struct { const char *id; gboolean generated; const char *name; } want[] = {
    { "call_" CASE_SEED "_0", TRUE, "a" },
    { "x", FALSE, "b" },
    { "y", FALSE, "c" },
    { "call_" CASE_SEED "_3", TRUE, "d" },
  };

  g_assert_no_error (outcome->error);
  g_assert_cmpuint (natter_chat_stream_get_n_tool_calls (outcome->stream), ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      const NatterChatToolCall *call = natter_chat_stream_get_tool_call (outcome->stream, i);

      g_assert_cmpstr (call->id, ==, want[i].id);
      g_assert_cmpint (call->id_generated, ==, want[i].generated);
      g_assert_cmpstr (call->name, ==, want[i].name);
      g_assert_false (call->malformed);
    }
}

static void
test_tool_calls_without_index (void)
{
  g_autoptr(Outcome) outcome =
    run_text (/* Whole calls without index or id, one per chunk. */
              TOOL ("{\"function\":{\"name\":\"a\",\"arguments\":\"{\\\"n\\\":1}\"}}")
              TOOL ("{\"function\":{\"name\":\"b\",\"arguments\":\"{\"}}")
              /* A bare fragment continues the last call. */
              TOOL ("{\"function\":{\"arguments\":\"}\"}}")
              /* By id: a known id continues its call. */
              TOOL ("{\"id\":\"k\",\"function\":{\"name\":\"c\",\"arguments\":\"{\\\"m\\\":\"}}")
              TOOL ("{\"id\":\"k\",\"function\":{\"arguments\":\"2}\"}}")
              STOP);
  const NatterChatToolCall *call;
  g_autoptr(JsonNode) m2 = natter_test_json ("{\"m\":2}");

  g_assert_no_error (outcome->error);
  g_assert_cmpuint (natter_chat_stream_get_n_tool_calls (outcome->stream), ==, 3);
  call = natter_chat_stream_get_tool_call (outcome->stream, 0);
  g_assert_cmpstr (call->name, ==, "a");
  g_assert_cmpstr (call->id, ==, "call_" CASE_SEED "_0");
  call = natter_chat_stream_get_tool_call (outcome->stream, 1);
  g_assert_cmpstr (call->name, ==, "b");
  g_assert_cmpstr (call->arguments, ==, "{}");
  call = natter_chat_stream_get_tool_call (outcome->stream, 2);
  g_assert_cmpstr (call->id, ==, "k");
  g_assert_true (json_node_equal (call->parsed_arguments, m2));
}

static void
test_unseeded_ids (void)
{
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new (NULL);
  static const char sse[] = TOOL ("{\"index\":0,\"function\":{\"name\":\"a\"}}");
  const char *data = sse + strlen ("data: ");

  g_assert_true (natter_chat_stream_feed_sse_data (stream, data, strlen (data), NULL));
  g_assert_true (natter_chat_stream_feed_sse_data (stream, "[DONE]", 6, NULL));
  g_assert_true (natter_chat_stream_finish (stream, NULL));
  g_assert_cmpstr (natter_chat_stream_get_tool_call (stream, 0)->id, ==, "call_0");
}

static void
test_usage (void)
{
  g_autoptr(Outcome) outcome =
    run_text (CHUNK ("{\"content\":\"a\"}", "\"stop\"")
              "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n\n"
              "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20.0,"
              "\"total_tokens\":30,\"completion_tokens_details\":{\"reasoning_tokens\":5},"
              "\"prompt_tokens_details\":{\"cached_tokens\":4},\"queue_time\":0.1}}\n\n"
              /* Nothing countable: the last real report stays. */
              "data: {\"choices\":[],\"usage\":{\"total_tokens\":-1,\"x\":1}}\n\n");
  g_autoptr(JsonNode) got = NULL;
  g_autoptr(JsonNode) want = natter_test_json (
    "{\"inputTokens\":10,\"outputTokens\":20,\"totalTokens\":30,"
    "\"reasoningTokens\":5,\"cachedInputTokens\":4}");

  g_assert_no_error (outcome->error);
  got = json_node_init_object (json_node_alloc (), natter_chat_stream_get_usage (outcome->stream));
  g_assert_true (json_node_equal (got, want));
}

static void
test_build_message (void)
{
  g_autoptr(Outcome) outcome =
    run_text (CHUNK ("{\"reasoning_content\":\"Let me look.\"}", "null")
              CHUNK ("{\"content\":\"Checking \xc3\xa9.\"}", "null")
              TOOL ("{\"index\":0,\"id\":\"t\",\"function\":{\"name\":\"ls\",\"arguments\":\"{\\\"d\\\":\\\"/\\\"}\"}}")
              STOP);
  g_autoptr(JsonNode) message = NULL;
  g_autoptr(JsonNode) expected = natter_test_json (
    "{\"role\":\"assistant\",\"content\":["
    "{\"type\":\"reasoning\",\"text\":\"Let me look.\"},"
    "{\"type\":\"text\",\"text\":\"Checking \xc3\xa9.\"},"
    "{\"type\":\"tool-call\",\"toolCallId\":\"t\",\"toolName\":\"ls\",\"arguments\":{\"d\":\"/\"}}]}");

  g_assert_no_error (outcome->error);
  message = natter_chat_stream_build_message (outcome->stream);
  g_assert_true (json_node_equal (message, expected));
  g_assert_true (natter_json_check_lossless (message, NULL));
}

static void
test_empty_message (void)
{
  g_autoptr(Outcome) outcome = run_text (CHUNK ("{\"content\":\"\"}", "\"stop\""));
  g_autoptr(JsonNode) message = natter_chat_stream_build_message (outcome->stream);
  g_autoptr(JsonNode) expected = natter_test_json ("{\"role\":\"assistant\",\"content\":[]}");

  g_assert_no_error (outcome->error);
  g_assert_true (json_node_equal (message, expected));
}

static void
test_feed_chunk_directly (void)
{
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("s");
  g_autoptr(JsonNode) chunk = natter_test_json (
    "{\"choices\":[{\"delta\":{\"content\":\"h\"}},"
    "{\"index\":null,\"delta\":{\"content\":\"i\"},\"finish_reason\":\"stop\"}]}");
  g_autoptr(GError) error = NULL;

  /* A choice without an index, or with a null one, is choice 0. */
  g_assert_true (natter_chat_stream_feed_chunk (stream, json_node_get_object (chunk), &error));
  g_assert_no_error (error);
  g_assert_false (natter_chat_stream_get_done (stream));
  g_assert_true (natter_chat_stream_finish (stream, &error));
  g_assert_cmpstr (natter_chat_stream_get_text (stream), ==, "hi");
  g_assert_cmpstr (natter_chat_stream_get_finish_reason (stream), ==, "stop");
}

static void
test_json_body (void)
{
  {
    g_autoptr(Outcome) outcome = run_json_body (
      "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello\","
      "\"reasoning_content\":\"think\",\"reasoning\":\"think\"},\"finish_reason\":\"stop\"}]}", 0);

    /* Length 0 is an empty body, not a NUL-terminated one. */
    g_assert_error (outcome->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE);
  }
  {
    static const char body[] =
      "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello\","
      "\"reasoning_content\":\"think\",\"reasoning\":\"think\"},\"finish_reason\":\"stop\"}]}";
    g_autoptr(Outcome) outcome = run_json_body (body, sizeof body - 1);

    g_assert_no_error (outcome->error);
    g_assert_cmpstr (natter_chat_stream_get_text (outcome->stream), ==, "Hello");
    g_assert_cmpstr (outcome->text_deltas->str, ==, "Hello");
    g_assert_cmpstr (natter_chat_stream_get_reasoning (outcome->stream), ==, "think");
    g_assert_cmpstr (natter_chat_stream_get_finish_reason (outcome->stream), ==, "stop");
    g_assert_true (natter_chat_stream_get_done (outcome->stream));
  }
  {
    static const char body[] = "{\"error\":{\"message\":\"model not found\",\"code\":404}}";
    g_autoptr(Outcome) outcome = run_json_body (body, sizeof body - 1);

    g_assert_error (outcome->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR);
    g_assert_nonnull (strstr (outcome->error->message, "model not found (code 404)"));
  }
  {
    static const char body[] = "{\"object\":\"chat.completion\"}";
    g_autoptr(Outcome) outcome = run_json_body (body, sizeof body - 1);

    g_assert_error (outcome->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE);
  }
  {
    static const char body[] = "<html>502 Bad Gateway</html>";
    g_autoptr(Outcome) outcome = run_json_body (body, sizeof body - 1);

    g_assert_error (outcome->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE);
    g_assert_nonnull (strstr (outcome->error->message, "502 Bad Gateway"));
  }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) cases = g_ptr_array_new_with_free_func (case_free);

  g_test_init (&argc, &argv, NULL);

  add_case_tests (cases);

  g_test_add_func ("/chat-stream/finish-reasons", test_finish_reasons);
  g_test_add_func ("/chat-stream/reasoning-fields", test_reasoning_fields);
  g_test_add_func ("/chat-stream/content-parts", test_content_parts);
  g_test_add_func ("/chat-stream/tool-call-arguments", test_tool_call_arguments);
  g_test_add_func ("/chat-stream/tool-call-ids", test_tool_call_ids);
  g_test_add_func ("/chat-stream/tool-calls-without-index", test_tool_calls_without_index);
  g_test_add_func ("/chat-stream/unseeded-ids", test_unseeded_ids);
  g_test_add_func ("/chat-stream/usage", test_usage);
  g_test_add_func ("/chat-stream/build-message", test_build_message);
  g_test_add_func ("/chat-stream/empty-message", test_empty_message);
  g_test_add_func ("/chat-stream/feed-chunk-directly", test_feed_chunk_directly);
  g_test_add_func ("/chat-stream/json-body", test_json_body);

  chat_stream_add_errors_tests ();

  return g_test_run ();
}
