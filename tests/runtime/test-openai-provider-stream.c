/* test-openai-provider-stream.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Streaming a chat completion: answers, usage, tool calls, a JSON body
 * instead of a stream, no key, errors and disconnects mid-stream, the
 * idle timeout, cancellation and what cannot be encoded.
 */

#include "test-openai-provider.h"

/* ------------------------------------------------------------------ */
/* Streaming                                                           */
/* ------------------------------------------------------------------ */

static void
test_stream_answer (void)
{
  static const char *const chunks[] = {
    ": keep-alive\n\n",
    CHUNK ("Hel"),
    CHUNK ("lo, ") CHUNK ("wor"),
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ld\"}}]}\r\n\r\n",
    FINISH ("stop") USAGE,
    DONE,
    NULL,
  };
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = chunks },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  g_autoptr(JsonNode) message = NULL;
  g_autoptr(JsonNode) sent = NULL;
  Run run = { 0 };

  run_stream (provider, composed, stream, NULL, &run);

  g_assert_no_error (run.error);
  g_assert_true (run.ok);
  g_assert_cmpuint (run.delta_list->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (run.delta_list, 0), ==, "Hel");
  g_assert_cmpstr (g_ptr_array_index (run.delta_list, 1), ==, "lo, ");
  g_assert_cmpstr (g_ptr_array_index (run.delta_list, 2), ==, "wor");
  g_assert_cmpstr (g_ptr_array_index (run.delta_list, 3), ==, "ld");
  g_assert_cmpstr (natter_chat_stream_get_text (stream), ==, "Hello, world");
  g_assert_cmpstr (natter_chat_stream_get_finish_reason (stream), ==, "stop");
  g_assert_cmpint (json_object_get_int_member (natter_chat_stream_get_usage (stream), "inputTokens"), ==, 7);
  g_assert_cmpint (json_object_get_int_member (natter_chat_stream_get_usage (stream), "totalTokens"), ==, 10);
  message = natter_chat_stream_build_message (stream);
  natter_test_assert_json_equal (message, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Hello, world\"}]}");

  /* The request the server got: the endpoint, the key in the header
   * only, and exactly the encoded body. */
  g_assert_cmpuint (ts->paths->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (ts->paths, 0), ==, "/v1/chat/completions");
  g_assert_cmpstr (g_ptr_array_index (ts->authorizations, 0), ==, "Bearer " API_KEY);
  assert_no_key (g_ptr_array_index (ts->bodies, 0));
  sent = natter_test_json (g_ptr_array_index (ts->bodies, 0));
  natter_test_assert_json_equal (sent,
    "{\"model\":\"test-model\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
    " {\"role\":\"user\",\"content\":\"Hi\"}],"
    " \"stream\":true,\"stream_options\":{\"include_usage\":true},\"temperature\":0.5}");

  run_clear (&run);
}

/* The body is RFC 8259 JSON whatever the text holds: every control
 * character escaped (json-glib writes U+001F raw), also inside the
 * arguments of a tool call, which a server parses as JSON of its own. */
static void
test_stream_body_is_strict_json (void)
{
  static const char *const chunks[] = { CHUNK ("ok") FINISH ("stop") DONE, NULL };
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = chunks },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, NULL, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = composed_from (
    "{\"systemPrompt\":\"Be \\u001f brief.\","
    " \"messages\":[{\"role\":\"user\",\"content\":\"unit\\u001fseparator \\u0001\\u007f\"},"
    "  {\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"toolCallId\":\"c1\","
    "     \"toolName\":\"find\",\"arguments\":{\"q\\u001f\":\"a\\u001fb\"}}]},"
    "  {\"role\":\"tool\",\"toolCallId\":\"c1\",\"toolName\":\"find\",\"content\":\"x\\u001fy\"}],"
    " \"tools\":[]}");
  g_autoptr(JsonNode) sent = NULL;
  const char *body;
  const char *arguments;
  JsonArray *messages;
  Run run = { 0 };

  run_stream (provider, composed, stream, NULL, &run);
  g_assert_no_error (run.error);

  body = g_ptr_array_index (ts->bodies, 0);
  for (const char *p = body; *p != '\0'; p++)
    g_assert_cmpint ((guchar) *p, >=, 0x20);
  sent = natter_test_json (body);
  messages = json_object_get_array_member (json_node_get_object (sent), "messages");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "content"), ==,
                   "Be \x1f brief.");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 1), "content"), ==,
                   "unit\x1fseparator \x01\x7f");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 3), "content"), ==,
                   "x\x1fy");
  arguments = json_object_get_string_member (json_object_get_object_member (json_array_get_object_element (
    json_object_get_array_member (json_array_get_object_element (messages, 2), "tool_calls"), 0), "function"),
    "arguments");
  g_assert_cmpstr (arguments, ==, "{\"q\\u001f\":\"a\\u001fb\"}");

  run_clear (&run);
}

/* Groq reports the real usage only in `x_groq` of the final chunk, after
 * a partial standard `usage`: the extension's report wins. */
static void
test_stream_vendor_usage (void)
{
  static const char *const chunks[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}],\"usage\":{\"prompt_tokens\":7}}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],"
    "\"x_groq\":{\"id\":\"req_1\",\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2,\"total_tokens\":9}}}\n\n",
    DONE,
    NULL,
  };
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = chunks },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  g_autoptr(JsonNode) usage = NULL;
  Run run = { 0 };

  run_stream (provider, composed, stream, NULL, &run);

  g_assert_no_error (run.error);
  g_assert_true (run.ok);
  usage = json_node_init_object (json_node_alloc (), natter_chat_stream_get_usage (stream));
  natter_test_assert_json_equal (usage, "{\"inputTokens\":7,\"outputTokens\":2,\"totalTokens\":9}");
  run_clear (&run);
}

static void
test_stream_tool_round_trip (void)
{
  static const char *const first[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_w1\","
      "\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"ci\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
      "\"function\":{\"arguments\":\"ty\\\":\\\"Paris\\\"}\"}}]}}]}\n\n",
    FINISH ("tool_calls"),
    DONE,
    NULL,
  };
  static const char *const second[] = {
    CHUNK ("It is 18 C in Paris."),
    FINISH ("stop"),
    DONE,
    NULL,
  };
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = first },
    { .status = 200, .content_type = "text/event-stream", .chunks = second },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) step0 = natter_chat_stream_new ("t-0");
  g_autoptr(NatterChatStream) step1 = natter_chat_stream_new ("t-1");
  g_autoptr(JsonObject) composed = composed_from (
    "{\"systemPrompt\":\"Use tools.\","
    " \"messages\":[{\"role\":\"user\",\"content\":\"Weather in Paris?\"}],"
    " \"tools\":[{\"toolId\":\"w\",\"name\":\"weather\",\"description\":\"Weather\","
    "   \"inputSchema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}},"
    "   \"execution\":\"sync\",\"requiresHuman\":false}]}");
  const NatterChatToolCall *call;
  JsonArray *messages;
  JsonObject *tool_message;
  g_autoptr(JsonNode) sent = NULL;
  Run run0 = { 0 };
  Run run1 = { 0 };

  run_stream (provider, composed, step0, NULL, &run0);
  g_assert_no_error (run0.error);
  g_assert_cmpstr (natter_chat_stream_get_finish_reason (step0), ==, "tool_calls");
  g_assert_cmpuint (natter_chat_stream_get_n_tool_calls (step0), ==, 1);
  call = natter_chat_stream_get_tool_call (step0, 0);
  g_assert_cmpstr (call->id, ==, "call_w1");
  g_assert_cmpstr (call->name, ==, "weather");
  g_assert_false (call->malformed);

  /* The runtime appends the assistant message and the tool result. */
  messages = json_object_get_array_member (composed, "messages");
  json_array_add_element (messages, natter_chat_stream_build_message (step0));
  tool_message = json_object_new ();
  json_object_set_string_member (tool_message, "role", "tool");
  json_object_set_string_member (tool_message, "toolCallId", "call_w1");
  json_object_set_string_member (tool_message, "toolName", "weather");
  json_object_set_string_member (tool_message, "content", "{\"celsius\":18}");
  json_array_add_object_element (messages, tool_message);

  run_stream (provider, composed, step1, NULL, &run1);
  g_assert_no_error (run1.error);
  g_assert_cmpstr (natter_chat_stream_get_text (step1), ==, "It is 18 C in Paris.");

  g_assert_cmpuint (ts->bodies->len, ==, 2);
  for (guint i = 0; i < ts->bodies->len; i++)
    {
      assert_no_key (g_ptr_array_index (ts->bodies, i));
      g_assert_cmpstr (g_ptr_array_index (ts->authorizations, i), ==, "Bearer " API_KEY);
    }
  sent = natter_test_json (g_ptr_array_index (ts->bodies, 1));
  natter_test_assert_json_equal (sent,
    "{\"model\":\"test-model\",\"messages\":["
    "  {\"role\":\"system\",\"content\":\"Use tools.\"},"
    "  {\"role\":\"user\",\"content\":\"Weather in Paris?\"},"
    "  {\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_w1\",\"type\":\"function\","
    "     \"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},"
    "  {\"role\":\"tool\",\"tool_call_id\":\"call_w1\",\"content\":\"{\\\"celsius\\\":18}\"}],"
    " \"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"weather\",\"description\":\"Weather\","
    "     \"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}],"
    " \"stream\":true,\"stream_options\":{\"include_usage\":true}}");

  run_clear (&run0);
  run_clear (&run1);
}

static void
test_stream_json_body (void)
{
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "application/json",
      .body = "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
              "\"message\":{\"role\":\"assistant\",\"content\":\"Whole answer\"},\"finish_reason\":\"stop\"}],"
              "\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":2,\"total_tokens\":4}}" },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  Run run = { 0 };

  run_stream (provider, composed, stream, NULL, &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.deltas->str, ==, "Whole answer");
  g_assert_cmpstr (natter_chat_stream_get_finish_reason (stream), ==, "stop");
  g_assert_cmpint (json_object_get_int_member (natter_chat_stream_get_usage (stream), "totalTokens"), ==, 4);
  run_clear (&run);
}

static void
test_stream_no_key (void)
{
  static const char *const chunks[] = { CHUNK ("ok") FINISH ("stop") DONE, NULL };
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = chunks },
    { .status = 200, .content_type = "text/event-stream", .chunks = chunks },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(JsonObject) composed = simple_composed ();
  const char *keys[] = { NULL, "" };

  /* A local server such as Ollama needs no key, and gets no header: an
   * empty key must not become "Bearer ". */
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, keys[i], 30);
      g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
      Run run = { 0 };

      run_stream (provider, composed, stream, NULL, &run);
      g_assert_no_error (run.error);
      g_assert_cmpstr (natter_chat_stream_get_text (stream), ==, "ok");
      g_assert_cmpstr (g_ptr_array_index (ts->authorizations, i), ==, "");
      run_clear (&run);
    }
}

static void
test_stream_unexpected_type (void)
{
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "text/html", .body = "<html>hello</html>" },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  Run run = { 0 };

  run_stream (provider, composed, stream, NULL, &run);
  g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE);
  g_assert_cmpstr (run.error->message, ==, "Test answered with “text/html” content instead of a chat completion");
  run_clear (&run);
}

static void
test_stream_error_mid_stream (void)
{
  static const char *const object_chunks[] = {
    CHUNK ("Partial"),
    "data: {\"error\":{\"message\":\"out of memory\",\"code\":500}}\n\n",
    NULL,
  };
  static const char *const event_chunks[] = {
    CHUNK ("Partial"),
    "event: error\ndata: {\"message\":\"overloaded\"}\n\n",
    NULL,
  };
  static const NatterTestResponse object_script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = object_chunks },
  };
  static const NatterTestResponse event_script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = event_chunks },
  };
  /* Servers that report the failure outside `data:` chunks: an `error`
   * field line, a bare JSON object line, and an "error" event cut off by
   * a dropped connection, whose reason must not read "connection lost". */
  static const char *const field_chunks[] = {
    CHUNK ("Partial"),
    "error: {\"message\":\"context length exceeded\"}\n\n",
    NULL,
  };
  static const char *const bare_chunks[] = {
    CHUNK ("Partial"),
    "{\"error\":{\"message\":\"context length exceeded\",\"code\":\"context_length_exceeded\"}}\n",
    NULL,
  };
  static const char *const cut_event_chunks[] = {
    CHUNK ("Partial"),
    "event: error\ndata: {\"error\":{\"message\":\"context length exceeded\"}}\n",
    NULL,
  };
  static const char *const cut_bare_chunks[] = {
    CHUNK ("Partial"),
    "{\"error\":{\"message\":\"context length exceeded\"}}",
    NULL,
  };
  static const NatterTestResponse field_script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = field_chunks },
  };
  static const NatterTestResponse bare_script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = bare_chunks },
  };
  static const NatterTestResponse cut_event_script[] = {
    { .disconnect = TRUE, .chunks = cut_event_chunks },
  };
  static const NatterTestResponse cut_bare_script[] = {
    { .disconnect = TRUE, .chunks = cut_bare_chunks },
  };
  const NatterTestResponse *scripts[] = {
    object_script, event_script, field_script, bare_script, cut_event_script, cut_bare_script,
  };
  const char *expected[] = {
    "out of memory", "overloaded", "context length exceeded", "context length exceeded",
    "context length exceeded", "context length exceeded",
  };
  g_autoptr(JsonObject) composed = simple_composed ();

  for (gsize i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      g_autoptr(NatterTestServer) ts = natter_test_server_new (scripts[i], 1);
      g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
      g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
      Run run = { 0 };

      run_stream (provider, composed, stream, NULL, &run);
      g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR);
      g_assert_true (g_str_has_prefix (run.error->message, "Test reported an error: "));
      g_assert_nonnull (strstr (run.error->message, expected[i]));
      g_assert_null (strstr (run.error->message, "lost"));
      g_assert_cmpstr (natter_chat_stream_get_text (stream), ==, "Partial");
      run_clear (&run);
    }
}

static void
test_stream_disconnect (void)
{
  static const char *const chunks[] = { CHUNK ("Half an ") CHUNK ("answer"), NULL };
  static const NatterTestResponse script[] = {
    { .disconnect = TRUE, .chunks = chunks },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  g_autofree char *prefix = g_strdup_printf ("The connection to Test at %.*s was lost mid-answer",
                                             (int) (strlen (ts->base_url) - strlen ("/v1")),
                                             ts->base_url);
  Run run = { 0 };

  run_stream (provider, composed, stream, NULL, &run);
  g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM);
  g_assert_true (g_str_has_prefix (run.error->message, prefix));
  g_assert_cmpstr (natter_chat_stream_get_text (stream), ==, "Half an answer");
  run_clear (&run);
}

static void
test_stream_idle_timeout (void)
{
  static const char *const chunks[] = { CHUNK ("Hel"), NULL };
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = chunks, .keep_open = TRUE },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 1);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  g_autofree char *expected = g_strdup_printf ("Test at %.*s stopped sending for 1 s",
                                               (int) (strlen (ts->base_url) - strlen ("/v1")),
                                               ts->base_url);
  Run run = { 0 };

  run_stream (provider, composed, stream, NULL, &run);
  g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_TIMEOUT);
  g_assert_cmpstr (run.error->message, ==, expected);
  g_assert_cmpstr (natter_chat_stream_get_text (stream), ==, "Hel");
  run_clear (&run);
}

static void
test_stream_cancel (void)
{
  /* Three events in one chunk: the cancel in the first delta's handler
   * must stop the other two, already in the same read. */
  static const char *const chunks[] = { CHUNK ("one") CHUNK ("two") CHUNK ("three"), NULL };
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "text/event-stream", .chunks = chunks, .keep_open = TRUE },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Run run = { 0 };

  run.cancel_on_first_delta = cancellable;
  run_stream (provider, composed, stream, cancellable, &run);
  g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_CANCELLED);
  g_assert_cmpstr (run.error->message, ==, "The request to Test was cancelled");
  g_assert_cmpuint (run.deltas_after_cancel, ==, 0);
  g_assert_cmpstr (run.deltas->str, ==, "one");
  g_assert_cmpstr (natter_chat_stream_get_text (stream), ==, "one");
  run_clear (&run);
}

static void
test_stream_cancel_before_send (void)
{
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "text/event-stream", .body = CHUNK ("no") FINISH ("stop") },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Run run = { 0 };

  g_cancellable_cancel (cancellable);
  run_stream (provider, composed, stream, cancellable, &run);
  g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_CANCELLED);
  g_assert_cmpuint (run.delta_list->len, ==, 0);
  run_clear (&run);
}

/* A composed request that cannot be encoded fails the stream before any
 * HTTP request, with the encoder's error, and leaves the stream empty. */
static void
test_stream_unencodable (void)
{
  static const NatterTestResponse script[] = {
    { .status = 200, .content_type = "application/json", .body = "{}" },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = composed_from ("{\"messages\":[{\"role\":\"system\","
                                                  " \"content\":\"Hi\"}]}");
  Run run = { 0 };

  run_stream (provider, composed, stream, NULL, &run);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (run.error->message, "message 0 has an unknown role"));
  g_assert_cmpuint (ts->paths->len, ==, 0);
  g_assert_cmpstr (run.deltas->str, ==, "");
  run_clear (&run);
}

void
openai_provider_add_stream_tests (void)
{
  g_test_add_func ("/openai-provider/stream/answer", test_stream_answer);
  g_test_add_func ("/openai-provider/stream/vendor-usage", test_stream_vendor_usage);
  g_test_add_func ("/openai-provider/stream/body-is-strict-json", test_stream_body_is_strict_json);
  g_test_add_func ("/openai-provider/stream/tool-round-trip", test_stream_tool_round_trip);
  g_test_add_func ("/openai-provider/stream/json-body", test_stream_json_body);
  g_test_add_func ("/openai-provider/stream/no-key", test_stream_no_key);
  g_test_add_func ("/openai-provider/stream/unexpected-type", test_stream_unexpected_type);
  g_test_add_func ("/openai-provider/stream/error-mid-stream", test_stream_error_mid_stream);
  g_test_add_func ("/openai-provider/stream/disconnect", test_stream_disconnect);
  g_test_add_func ("/openai-provider/stream/idle-timeout", test_stream_idle_timeout);
  g_test_add_func ("/openai-provider/stream/cancel", test_stream_cancel);
  g_test_add_func ("/openai-provider/stream/cancel-before-send", test_stream_cancel_before_send);
  g_test_add_func ("/openai-provider/stream/unencodable", test_stream_unencodable);
}
