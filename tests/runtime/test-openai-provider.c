/* test-openai-provider.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OpenAI-compatible provider (docs/runtime.md §12) against a localhost
 * SoupServer that plays a scripted model: one scripted response per
 * request, in order. Every error message, and every log line (through a
 * log writer installed in main()), is checked for the API key.
 */

#include <stdio.h>
#include <string.h>

#include <libsoup/soup.h>

#include "natter-openai-provider.h"
#include "natter-provider-registry.h"
#include "natter-runtime-error.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define API_KEY "sk-test-SECRET-123"
#define WAIT_MS 10000

static gboolean key_logged;
static guint provider_log_lines;

/* ------------------------------------------------------------------ */
/* The scripted server                                                 */
/* ------------------------------------------------------------------ */


/* ------------------------------------------------------------------ */
/* Running the provider                                                */
/* ------------------------------------------------------------------ */

typedef struct
{
  gboolean          done;
  gboolean          ok;
  GError           *error;
  GStrv             models;
  GString          *deltas;
  GPtrArray        *delta_list;
  GCancellable     *cancel_on_first_delta;
  guint             deltas_after_cancel;
} Run;

static void
run_clear (Run *run)
{
  g_clear_error (&run->error);
  g_clear_pointer (&run->models, g_strfreev);
  if (run->deltas != NULL)
    g_string_free (run->deltas, TRUE);
  g_clear_pointer (&run->delta_list, g_ptr_array_unref);
}

static void
assert_no_key (const char *text)
{
  g_assert_null (strstr (text, API_KEY));
}

static void
text_delta_cb (NatterChatStream *stream,
               const char       *delta,
               Run              *run)
{
  if (run->cancel_on_first_delta != NULL && g_cancellable_is_cancelled (run->cancel_on_first_delta))
    run->deltas_after_cancel++;

  g_string_append (run->deltas, delta);
  g_ptr_array_add (run->delta_list, g_strdup (delta));

  if (run->cancel_on_first_delta != NULL)
    g_cancellable_cancel (run->cancel_on_first_delta);
}

static void
stream_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;

  run->ok = natter_openai_provider_stream_finish (NATTER_OPENAI_PROVIDER (source), result, &run->error);
  g_assert_true (run->ok == (run->error == NULL));
  if (run->error != NULL)
    assert_no_key (run->error->message);
  run->done = TRUE;
}

static void
run_stream (NatterOpenaiProvider *provider,
            JsonObject           *composed,
            NatterChatStream     *stream,
            GCancellable         *cancellable,
            Run                  *run)
{
  gulong id;

  run->deltas = g_string_new (NULL);
  run->delta_list = g_ptr_array_new_with_free_func (g_free);
  id = g_signal_connect (stream, "text-delta", G_CALLBACK (text_delta_cb), run);
  natter_openai_provider_stream_async (provider, composed, "test-model", stream, cancellable,
                                       stream_done_cb, run);
  natter_test_wait_for_flag (&run->done, WAIT_MS);
  g_signal_handler_disconnect (stream, id);
}

static void
models_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;

  run->models = natter_openai_provider_list_models_finish (NATTER_OPENAI_PROVIDER (source),
                                                           result, &run->error);
  g_assert_true ((run->models != NULL) == (run->error == NULL));
  if (run->error != NULL)
    assert_no_key (run->error->message);
  run->done = TRUE;
}

static NatterOpenaiProvider *
make_provider (const char *base_url,
               const char *key,
               guint       idle_timeout)
{
  return natter_openai_provider_new ("test", "Test", base_url, key, idle_timeout, 0);
}

static JsonObject *
composed_from (const char *literal)
{
  g_autoptr(JsonNode) node = natter_test_json (literal);

  return json_object_ref (json_node_get_object (node));
}

static JsonObject *
simple_composed (void)
{
  return composed_from ("{\"systemPrompt\":\"Be brief.\","
                        " \"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
                        " \"tools\":[], \"parameters\":{\"temperature\":0.5}}");
}

/* ------------------------------------------------------------------ */
/* Encoding                                                            */
/* ------------------------------------------------------------------ */

static void
test_encode_full_context (void)
{
  g_autoptr(NatterOpenaiProvider) provider = make_provider ("http://127.0.0.1:1/v1", API_KEY, 0);
  g_autoptr(JsonObject) composed = composed_from (
    "{\"systemPrompt\":\"You are terse.\","
    " \"messages\":["
    "  {\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Look\"},"
    "     {\"type\":\"attachment\",\"path\":\"/tmp/a.png\",\"filename\":\"a.png\",\"mimeType\":\"image/png\"}]},"
    "  {\"role\":\"assistant\",\"content\":[{\"type\":\"reasoning\",\"text\":\"hmm\"},"
    "     {\"type\":\"text\",\"text\":\"Checking.\"},"
    "     {\"type\":\"tool-call\",\"toolCallId\":\"c1\",\"toolName\":\"weather\",\"arguments\":{\"city\":\"Paris\"}},"
    "     {\"type\":\"tool-call\",\"toolCallId\":\"c2\",\"toolName\":\"weather\",\"arguments\":\"{city: Par\"}]},"
    "  {\"role\":\"tool\",\"toolCallId\":\"c1\",\"toolName\":\"weather\",\"content\":\"18 C\"},"
    "  {\"role\":\"tool\",\"toolCallId\":\"c2\",\"toolName\":\"weather\",\"content\":\"bad arguments\"},"
    "  {\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"toolCallId\":\"c3\",\"toolName\":\"noop\",\"arguments\":{}}]},"
    "  {\"role\":\"tool\",\"toolCallId\":\"c3\",\"toolName\":\"noop\",\"content\":\"\"},"
    "  {\"role\":\"assistant\",\"content\":\"Done.\"}],"
    " \"tools\":[{\"toolId\":\"w\",\"name\":\"weather\",\"description\":\"Weather\","
    "   \"inputSchema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}},"
    "   \"execution\":\"sync\",\"requiresHuman\":false},"
    "   {\"toolId\":\"n\",\"name\":\"noop\",\"description\":\"Nothing\",\"execution\":\"async\",\"requiresHuman\":false}],"
    " \"parameters\":{\"temperature\":0.2,\"top_p\":0.9,\"max_tokens\":100,\"seed\":7,\"stream\":false,\"model\":\"x\"}}");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) body = natter_openai_provider_encode_request (provider, composed, "llama3", &error);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  natter_test_assert_json_equal (body,
    "{\"model\":\"llama3\","
    " \"messages\":["
    "  {\"role\":\"system\",\"content\":\"You are terse.\"},"
    "  {\"role\":\"user\",\"content\":\"Look\\n\\n[attachment: a.png]\"},"
    "  {\"role\":\"assistant\",\"content\":\"Checking.\",\"tool_calls\":["
    "     {\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}},"
    "     {\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"{city: Par\"}}]},"
    "  {\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"18 C\"},"
    "  {\"role\":\"tool\",\"tool_call_id\":\"c2\",\"content\":\"bad arguments\"},"
    "  {\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
    "     {\"id\":\"c3\",\"type\":\"function\",\"function\":{\"name\":\"noop\",\"arguments\":\"{}\"}}]},"
    "  {\"role\":\"tool\",\"tool_call_id\":\"c3\",\"content\":\"\"},"
    "  {\"role\":\"assistant\",\"content\":\"Done.\"}],"
    " \"tools\":["
    "  {\"type\":\"function\",\"function\":{\"name\":\"weather\",\"description\":\"Weather\","
    "     \"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}},"
    "  {\"type\":\"function\",\"function\":{\"name\":\"noop\",\"description\":\"Nothing\","
    "     \"parameters\":{\"type\":\"object\",\"properties\":{}}}}],"
    " \"stream\":true,\"stream_options\":{\"include_usage\":true},"
    " \"temperature\":0.2,\"top_p\":0.9,\"max_tokens\":100,\"seed\":7}");

  /* The system prompt comes first and the key is nowhere in a body. */
  text = json_to_string (body, FALSE);
  g_assert_true (g_str_has_prefix (text, "{\"model\":\"llama3\",\"messages\":[{\"role\":\"system\""));
  assert_no_key (text);
}

static void
test_encode_minimal (void)
{
  g_autoptr(NatterOpenaiProvider) provider = make_provider ("http://127.0.0.1:1/v1", NULL, 0);
  g_autoptr(JsonObject) composed = composed_from (
    "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"},"
    "  {\"role\":\"assistant\",\"content\":[]}], \"tools\":[]}");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) body = natter_openai_provider_encode_request (provider, composed, "m", &error);

  g_assert_no_error (error);
  /* No system message, no `tools`, no empty `tool_calls`. */
  natter_test_assert_json_equal (body,
    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"},"
    " {\"role\":\"assistant\",\"content\":\"\"}],"
    " \"stream\":true,\"stream_options\":{\"include_usage\":true}}");
}

static void
test_encode_rejects (void)
{
  g_autoptr(NatterOpenaiProvider) provider = make_provider ("http://127.0.0.1:1/v1", NULL, 0);
  const char *cases[] = {
    "{\"messages\":[{\"role\":\"system\",\"content\":\"x\"}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"url\":\"x\"}]}]}",
    "{\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"toolName\":\"x\"}]}]}",
    "{\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}",
    "{\"messages\":{}}",
    "{\"messages\":[], \"tools\":[{\"description\":\"no name\"}]}",
    "{\"messages\":[], \"parameters\":[1]}",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) composed = composed_from (cases[i]);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) body = natter_openai_provider_encode_request (provider, composed, "m", &error);

      g_test_message ("case %s", cases[i]);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_null (body);
    }
}

/* ------------------------------------------------------------------ */
/* Streaming                                                           */
/* ------------------------------------------------------------------ */

#define CHUNK(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" delta "\"}}]}\n\n"
#define FINISH(reason) "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" reason "\"}]}\n\n"
#define USAGE "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3,\"total_tokens\":10}}\n\n"
#define DONE "data: [DONE]\n\n"

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

typedef struct
{
  NatterTestResponse response;
  const char        *key;
  int                code;
  const char        *message;  /* exact, or NULL to check a prefix */
  const char        *prefix;
} ErrorCase;

static void
test_http_errors (void)
{
  static const ErrorCase cases[] = {
    { { .status = 404, .content_type = "application/json",
        .body = "{\"error\":{\"message\":\"model \\\"x\\\" not found\",\"type\":\"invalid_request_error\"}}" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP, "Test returned HTTP 404 Not Found: model \"x\" not found" },
    { { .status = 500, .content_type = "application/json", .body = "{\"error\":\"llama runner crashed\"}" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP, "Test returned HTTP 500 Internal Server Error: llama runner crashed" },
    { { .status = 400, .content_type = "application/json", .body = "{\"message\":\"context too long\"}" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP, "Test returned HTTP 400 Bad Request: context too long" },
    { { .status = 422, .content_type = "application/json", .body = "{\"detail\":\"bad temperature\"}" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP, "Test returned HTTP 422 Unprocessable Entity: bad temperature" },
    { { .status = 422, .content_type = "application/json",
        .body = "{\"detail\":[{\"loc\":[\"body\",\"model\"],\"msg\":\"field required\"}]}" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP,
      "Test returned HTTP 422 Unprocessable Entity: [{\"loc\":[\"body\",\"model\"],\"msg\":\"field required\"}]" },
    { { .status = 503, .content_type = "text/plain", .body = "  upstream\n  down \n" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP, "Test returned HTTP 503 Service Unavailable: upstream down" },
    { { .status = 502, .content_type = "text/html", .body = "<html><body>Bad gateway</body></html>" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP, "Test returned HTTP 502 Bad Gateway" },
    { { .status = 500, .content_type = "application/json", .body = "" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP, "Test returned HTTP 500 Internal Server Error" },
    /* A server that echoes the key back must not put it in the message. */
    { { .status = 401, .content_type = "application/json",
        .body = "{\"error\":{\"message\":\"Incorrect API key provided: " API_KEY "\",\"code\":\"invalid_api_key\"}}" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP,
      "Test refused the API key (HTTP 401 Unauthorized): Incorrect API key provided: [redacted] "
      "— check the key in the provider settings" },
    { { .status = 403, .content_type = "application/json", .body = "{\"error\":\"forbidden\"}" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP,
      "Test refused the API key (HTTP 403 Forbidden): forbidden — check the key in the provider settings" },
    { { .status = 401, .content_type = "application/json", .body = "{\"error\":\"missing key\"}" },
      NULL, NATTER_PROVIDER_ERROR_HTTP,
      "Test needs an API key (HTTP 401 Unauthorized): missing key — set one in the provider settings" },
    { { .status = 429, .content_type = "application/json", .body = "{\"error\":{\"message\":\"slow down\"}}",
        .retry_after = "30" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP,
      "Test is limiting requests (HTTP 429 Too Many Requests): slow down; try again in 30 s" },
    { { .status = 429, .content_type = "application/json", .body = "{}" },
      API_KEY, NATTER_PROVIDER_ERROR_HTTP,
      "Test is limiting requests (HTTP 429 Too Many Requests): {}; try again later" },
  };
  g_autoptr(JsonObject) composed = simple_composed ();

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(NatterTestServer) ts = natter_test_server_new (&cases[i].response, 1);
      g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, cases[i].key, 30);
      g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
      Run run = { 0 };

      g_test_message ("case %" G_GSIZE_FORMAT, i);
      run_stream (provider, composed, stream, NULL, &run);
      g_assert_error (run.error, NATTER_PROVIDER_ERROR, cases[i].code);
      g_assert_cmpstr (run.error->message, ==, cases[i].message);
      run_clear (&run);
    }
}

static JsonObject *
limited_composed (void)
{
  return composed_from ("{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
                        " \"parameters\":{\"max_tokens\":64}}");
}

/* The token limit goes as `max_tokens`, which every compatible server
 * reads (some ignore the newer name); a server that refuses it gets the
 * same request once more as `max_completion_tokens`, the deltas start
 * from nothing, and the model keeps that name. */
static void
test_token_limit_name (void)
{
  static const char *const answer[] = { CHUNK ("Koala facts") FINISH ("stop") DONE, NULL };
  static const NatterTestResponse script[] = {
    NATTER_TEST_REFUSE_MAX_TOKENS,
    { .status = 200, .content_type = "text/event-stream", .chunks = answer },
    { .status = 200, .content_type = "text/event-stream", .chunks = answer },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(JsonObject) composed = limited_composed ();

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
      Run run = { 0 };

      run_stream (provider, composed, stream, NULL, &run);
      g_assert_no_error (run.error);
      g_assert_true (run.ok);
      g_assert_cmpstr (natter_chat_stream_get_text (stream), ==, "Koala facts");
      g_assert_cmpuint (run.delta_list->len, ==, 1);
      run_clear (&run);
    }

  g_assert_cmpuint (ts->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (ts->bodies, 0), "\"max_tokens\":64"));
  g_assert_null (strstr (g_ptr_array_index (ts->bodies, 0), "max_completion_tokens"));
  for (guint i = 1; i < 3; i++)
    {
      g_assert_nonnull (strstr (g_ptr_array_index (ts->bodies, i), "\"max_completion_tokens\":64"));
      g_assert_null (strstr (g_ptr_array_index (ts->bodies, i), "\"max_tokens\""));
    }
}

/* Only the refusal of the limit's name is tried again, and only once. */
static void
test_token_limit_name_other_refusals (void)
{
  static const NatterTestResponse twice[] = {
    NATTER_TEST_REFUSE_MAX_TOKENS,
    { .status = 400, .content_type = "application/json",
      .body = "{\"error\":{\"message\":\"Unsupported parameter: 'max_completion_tokens'\","
              "\"param\":\"max_completion_tokens\",\"code\":\"unsupported_parameter\"}}" },
  };
  static const NatterTestResponse other[] = {
    { .status = 400, .content_type = "application/json",
      .body = "{\"error\":{\"message\":\"Unsupported parameter: 'temperature'\",\"param\":\"temperature\"}}" },
  };
  g_autoptr(JsonObject) limited = limited_composed ();
  g_autoptr(JsonObject) plain = simple_composed ();

  {
    g_autoptr(NatterTestServer) ts = natter_test_server_new (twice, G_N_ELEMENTS (twice));
    g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
    g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
    Run run = { 0 };

    run_stream (provider, limited, stream, NULL, &run);
    g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_HTTP);
    g_assert_nonnull (strstr (run.error->message, "max_completion_tokens"));
    g_assert_cmpuint (ts->bodies->len, ==, 2);
    run_clear (&run);
  }
  {
    g_autoptr(NatterTestServer) ts = natter_test_server_new (other, G_N_ELEMENTS (other));
    g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
    g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
    Run run = { 0 };

    run_stream (provider, limited, stream, NULL, &run);
    g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_HTTP);
    g_assert_cmpuint (ts->bodies->len, ==, 1);
    run_clear (&run);
  }
  {
    /* Without a limit there is nothing to send again. */
    g_autoptr(NatterTestServer) ts = natter_test_server_new (twice, 1);
    g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
    g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
    Run run = { 0 };

    run_stream (provider, plain, stream, NULL, &run);
    g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_HTTP);
    g_assert_cmpuint (ts->bodies->len, ==, 1);
    run_clear (&run);
  }
}

static void
test_http_retry_after_date (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autoptr(GDateTime) later = g_date_time_add_seconds (now, 120);
  g_autofree char *date = soup_date_time_to_string (later, SOUP_DATE_HTTP);
  NatterTestResponse script[] = {
    { .status = 429, .content_type = "application/json", .body = "{\"error\":\"busy\"}",
      .retry_after = date },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  const char *in;
  guint seconds = 0;
  Run run = { 0 };

  run_stream (provider, composed, stream, NULL, &run);
  g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_HTTP);
  in = strstr (run.error->message, "; try again in ");
  g_assert_nonnull (in);
  g_assert_cmpint (sscanf (in, "; try again in %u s", &seconds), ==, 1);
  g_assert_cmpuint (seconds, >=, 110);
  g_assert_cmpuint (seconds, <=, 120);
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


static void
test_unreachable (void)
{
  guint16 port = natter_test_closed_port ();
  g_autofree char *base_url = g_strdup_printf ("http://127.0.0.1:%u/v1", port);
  g_autofree char *expected = g_strdup_printf ("Could not reach Test at http://127.0.0.1:%u — is it running?", port);
  g_autoptr(NatterOpenaiProvider) provider = make_provider (base_url, API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  Run run = { 0 };
  Run models = { 0 };

  run_stream (provider, composed, stream, NULL, &run);
  g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_UNREACHABLE);
  g_assert_cmpstr (run.error->message, ==, expected);

  natter_openai_provider_list_models_async (provider, NULL, models_done_cb, &models);
  natter_test_wait_for_flag (&models.done, WAIT_MS);
  g_assert_error (models.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_UNREACHABLE);
  g_assert_cmpstr (models.error->message, ==, expected);

  run_clear (&run);
  run_clear (&models);
}

static void
test_bad_url (void)
{
  g_autoptr(NatterOpenaiProvider) provider = make_provider ("ftp://example.invalid/v1", API_KEY, 30);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("t-0");
  g_autoptr(JsonObject) composed = simple_composed ();
  Run run = { 0 };

  run_stream (provider, composed, stream, NULL, &run);
  g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_UNREACHABLE);
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

static void
test_list_models (void)
{
  static const NatterTestResponse openai[] = {
    { .status = 200, .content_type = "application/json",
      .body = "{\"object\":\"list\",\"data\":[{\"id\":\"llama3\",\"object\":\"model\"},{\"id\":\"qwen2\"}]}" },
  };
  static const NatterTestResponse ollama[] = {
    { .status = 200, .content_type = "application/json",
      .body = "{\"models\":[{\"name\":\"mistral:latest\"},{\"model\":\"phi3\"},{\"size\":1}]}" },
  };
  static const NatterTestResponse broken[] = {
    { .status = 200, .content_type = "application/json", .body = "{\"items\":[]}" },
  };
  static const NatterTestResponse denied[] = {
    { .status = 401, .content_type = "application/json", .body = "{\"error\":\"no\"}" },
  };
  const NatterTestResponse *scripts[] = { openai, ollama, broken, denied };

  for (gsize i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      g_autoptr(NatterTestServer) ts = natter_test_server_new (scripts[i], 1);
      g_autoptr(NatterOpenaiProvider) provider = make_provider (ts->base_url, API_KEY, 30);
      Run run = { 0 };

      natter_openai_provider_list_models_async (provider, NULL, models_done_cb, &run);
      natter_test_wait_for_flag (&run.done, WAIT_MS);
      g_assert_cmpstr (g_ptr_array_index (ts->paths, 0), ==, "/v1/models");
      g_assert_cmpstr (g_ptr_array_index (ts->authorizations, 0), ==, "Bearer " API_KEY);

      switch (i)
        {
        case 0:
          g_assert_no_error (run.error);
          g_assert_cmpstrv (run.models, ((const char *[]) { "llama3", "qwen2", NULL }));
          break;
        case 1:
          g_assert_no_error (run.error);
          g_assert_cmpstrv (run.models, ((const char *[]) { "mistral:latest", "phi3", NULL }));
          break;
        case 2:
          g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE);
          break;
        default:
          g_assert_error (run.error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_HTTP);
          g_assert_true (g_str_has_prefix (run.error->message, "Test refused the API key"));
        }
      run_clear (&run);
    }
}

static void
test_provider_finalizes (void)
{
  NatterOpenaiProvider *provider = make_provider ("http://localhost:11434/v1/", "", 0);

  g_assert_cmpstr (natter_openai_provider_get_base_url (provider), ==, "http://localhost:11434/v1");
  g_assert_cmpstr (natter_openai_provider_get_id (provider), ==, "test");
  g_assert_cmpstr (natter_openai_provider_get_display_name (provider), ==, "Test");
  g_assert_finalize_object (provider);
}

/* Runs last (its suite is added last): every test above made the
 * provider log; none of its lines may carry the key. */
static void
test_key_never_logged (void)
{
  g_assert_cmpuint (provider_log_lines, >, 0);
  g_assert_false (key_logged);
}

static GLogWriterOutput
log_writer (GLogLevelFlags   log_level,
            const GLogField *fields,
            gsize            n_fields,
            gpointer         user_data)
{
  gboolean ours = FALSE;

  for (gsize i = 0; i < n_fields; i++)
    {
      if (fields[i].length >= 0)
        continue;
      if (strcmp (fields[i].key, "MESSAGE") == 0 && strstr (fields[i].value, API_KEY) != NULL)
        key_logged = TRUE;
      if (strcmp (fields[i].key, "GLIB_DOMAIN") == 0
          && strcmp (fields[i].value, "natter-openai-provider") == 0)
        ours = TRUE;
    }
  if (ours)
    provider_log_lines++;

  /* Debug lines are only inspected, not printed, to keep the TAP output
   * readable. */
  if (log_level & G_LOG_LEVEL_DEBUG)
    return G_LOG_WRITER_HANDLED;
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

typedef struct
{
  gboolean    done;
  JsonObject *descriptor;
  GError     *error;
} Resolved;

static void
resolved_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Resolved *resolved = user_data;

  resolved->descriptor = natter_provider_registry_resolve_model_finish (NATTER_PROVIDER_REGISTRY (source),
                                                                        result, &resolved->error);
  g_assert_true ((resolved->descriptor != NULL) == (resolved->error == NULL));
  resolved->done = TRUE;
}

static void
resolve (NatterProviderRegistry *registry,
         const char             *provider,
         const char             *model,
         Resolved               *resolved)
{
  natter_provider_registry_resolve_model_async (registry, provider, model, NULL, resolved_cb, resolved);
  natter_test_wait_for_flag (&resolved->done, WAIT_MS);
}

static void
resolved_clear (Resolved *resolved)
{
  g_clear_pointer (&resolved->descriptor, json_object_unref);
  g_clear_error (&resolved->error);
  resolved->done = FALSE;
}

/* "No model named" means the provider's first model, for every caller
 * (the window and the command line share this one resolution). */
static void
test_registry_first_model (void)
{
  static const NatterTestResponse listed[] = {
    { .status = 200, .content_type = "application/json",
      .body = "{\"object\":\"list\",\"data\":[{\"id\":\"llama3\"},{\"id\":\"qwen2\"}]}" },
    { .status = 200, .content_type = "application/json",
      .body = "{\"object\":\"list\",\"data\":[{\"id\":\"llama3\"},{\"id\":\"qwen2\"}]}" },
  };
  static const NatterTestResponse empty[] = {
    { .status = 200, .content_type = "application/json", .body = "{\"object\":\"list\",\"data\":[]}" },
  };
  g_autoptr(NatterTestServer) ts = natter_test_server_new (listed, G_N_ELEMENTS (listed));
  g_autoptr(NatterTestServer) none = natter_test_server_new (empty, 1);
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  Resolved resolved = { 0 };

  natter_provider_registry_add_provider (registry, "local", "Local", ts->base_url);
  natter_provider_registry_add_provider (registry, "none", "Empty", none->base_url);

  resolve (registry, "local", NULL, &resolved);
  g_assert_no_error (resolved.error);
  g_assert_cmpstr (json_object_get_string_member (resolved.descriptor, "provider"), ==, "local");
  g_assert_cmpstr (json_object_get_string_member (resolved.descriptor, "model"), ==, "llama3");
  g_assert_cmpuint (ts->paths->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (ts->paths, 0), ==, "/v1/models");
  resolved_clear (&resolved);

  /* An empty name is no name; a named model needs no request. */
  resolve (registry, "local", "", &resolved);
  g_assert_cmpstr (json_object_get_string_member (resolved.descriptor, "model"), ==, "llama3");
  resolved_clear (&resolved);
  resolve (registry, "local", "qwen2", &resolved);
  g_assert_cmpstr (json_object_get_string_member (resolved.descriptor, "model"), ==, "qwen2");
  g_assert_cmpuint (ts->paths->len, ==, 2);
  resolved_clear (&resolved);

  resolve (registry, "none", NULL, &resolved);
  g_assert_error (resolved.error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND);
  g_assert_cmpstr (resolved.error->message, ==, "Empty offers no model; name one explicitly");
  resolved_clear (&resolved);

  resolve (registry, "gone", NULL, &resolved);
  g_assert_error (resolved.error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND);
  resolved_clear (&resolved);
}

int
main (int   argc,
      char *argv[])
{
  /* Every debug line reaches the writer, so the key check sees them. */
  g_setenv ("G_MESSAGES_DEBUG", "all", TRUE);
  g_log_set_writer_func (log_writer, NULL, NULL);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/openai-provider/encode/full-context", test_encode_full_context);
  g_test_add_func ("/openai-provider/encode/minimal", test_encode_minimal);
  g_test_add_func ("/openai-provider/encode/rejects", test_encode_rejects);
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
  g_test_add_func ("/openai-provider/http/errors", test_http_errors);
  g_test_add_func ("/openai-provider/http/retry-after-date", test_http_retry_after_date);
  g_test_add_func ("/openai-provider/http/token-limit-name", test_token_limit_name);
  g_test_add_func ("/openai-provider/http/token-limit-name-other-refusals",
                   test_token_limit_name_other_refusals);
  g_test_add_func ("/openai-provider/transport/unreachable", test_unreachable);
  g_test_add_func ("/openai-provider/transport/bad-url", test_bad_url);
  g_test_add_func ("/openai-provider/stream/unencodable", test_stream_unencodable);
  g_test_add_func ("/openai-provider/models/list", test_list_models);
  g_test_add_func ("/openai-provider/registry/first-model", test_registry_first_model);
  g_test_add_func ("/openai-provider/object/finalizes", test_provider_finalizes);
  g_test_add_func ("/openai-provider/logging/key-never-logged", test_key_never_logged);

  return g_test_run ();
}
