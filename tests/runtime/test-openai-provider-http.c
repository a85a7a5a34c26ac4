/* test-openai-provider-http.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * HTTP failures in plain words (status, Retry-After, the token-limit
 * parameter a model refuses) and transport failures (nothing listening,
 * a bad address).
 */

#include "test-openai-provider.h"

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

void
openai_provider_add_http_tests (void)
{
  g_test_add_func ("/openai-provider/http/errors", test_http_errors);
  g_test_add_func ("/openai-provider/http/retry-after-date", test_http_retry_after_date);
  g_test_add_func ("/openai-provider/http/token-limit-name", test_token_limit_name);
  g_test_add_func ("/openai-provider/http/token-limit-name-other-refusals",
                   test_token_limit_name_other_refusals);
  g_test_add_func ("/openai-provider/transport/unreachable", test_unreachable);
  g_test_add_func ("/openai-provider/transport/bad-url", test_bad_url);
}
