/* test-openai-provider.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OpenAI-compatible provider (docs/runtime.md §12) against a localhost
 * SoupServer that plays a scripted model: one scripted response per
 * request, in order. Every error message, and every log line (through a
 * log writer installed in main()), is checked for the API key.
 *
 * This file encodes requests, lists models, and holds main(); streaming and
 * HTTP failures have files of their own.
 */

#include "test-openai-provider.h"

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
  g_test_add_func ("/openai-provider/models/list", test_list_models);
  g_test_add_func ("/openai-provider/registry/first-model", test_registry_first_model);
  g_test_add_func ("/openai-provider/object/finalizes", test_provider_finalizes);
  g_test_add_func ("/openai-provider/logging/key-never-logged", test_key_never_logged);

  openai_provider_add_stream_tests ();
  openai_provider_add_http_tests ();

  return g_test_run ();
}
