/* test-chat-stream-errors.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A stream that goes wrong: error objects and truncation keep the text
 * that had arrived, error shapes and bounded messages, bad chunks,
 * hostile nesting, events that are ignored, an event over the size
 * limit.
 */

#include "test-chat-stream.h"

static void
test_error_object_keeps_partial_text (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "sse",
                                                 "12-error-mid-stream.sse", NULL);
  g_autofree char *input = NULL;
  g_autoptr(Outcome) outcome = NULL;
  g_autoptr(GError) again = NULL;
  gsize len;

  input = natter_test_read_file (path, &len);
  outcome = run_whole (input, len);

  g_assert_error (outcome->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR);
  g_assert_cmpstr (outcome->error->message, ==,
                   "The provider reported an error: Provider disconnected (code 502)");
  g_assert_cmpstr (natter_chat_stream_get_text (outcome->stream), ==, "Par");

  /* Sticky: nothing more is taken after a failure. */
  g_assert_false (natter_chat_stream_finish (outcome->stream, &again));
  g_assert_error (again, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR);
}

static void
test_truncated_keeps_partial_text (void)
{
  g_autoptr(Outcome) outcome = run_text (CHUNK ("{\"content\":\"Half a sen\"}", "null")
                                         "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1}}\n\n");

  g_assert_error (outcome->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM);
  g_assert_nonnull (strstr (outcome->error->message, "truncated stream"));
  g_assert_cmpstr (natter_chat_stream_get_text (outcome->stream), ==, "Half a sen");
  g_assert_null (natter_chat_stream_get_finish_reason (outcome->stream));
}

static void
test_error_shapes (void)
{
  static const struct {
    const char *sse;
    const char *message;
  } cases[] = {
    { "data: {\"error\":\"boom\"}\n\n", "The provider reported an error: boom" },
    { "data: {\"error\":{\"message\":\"slow down\",\"code\":\"rate_limit\"}}\n\n",
      "The provider reported an error: slow down (code rate_limit)" },
    { "event: error\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n",
      "The provider reported an error: overloaded" },
    { "event: error\ndata: {\"message\":\"bare\"}\n\n", "The provider reported an error: bare" },
    { "event: error\ndata: upstream went away\n\n",
      "The provider reported an error: upstream went away" },
    { "event: error\ndata:\n\n", "The provider reported an error: no details given" },
    { CHUNK ("{\"content\":\"x\"}", "\"error\""),
      "The provider reported an error: the response ended with finish reason \"error\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *sse = g_strconcat (CHUNK ("{\"content\":\"a\"}", "null"), cases[i].sse,
                                          CHUNK ("{\"content\":\"never\"}", "\"stop\""), NULL);
      g_autoptr(Outcome) outcome = run_text (sse);

      g_assert_error (outcome->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR);
      g_assert_cmpstr (outcome->error->message, ==, cases[i].message);
      g_assert_true (g_str_has_prefix (natter_chat_stream_get_text (outcome->stream), "a"));
      g_assert_null (strstr (natter_chat_stream_get_text (outcome->stream), "never"));
    }
}

static void
test_error_message_bounded (void)
{
  g_autoptr(GString) sse = g_string_new ("event: error\ndata: ");
  g_autoptr(Outcome) outcome = NULL;

  for (guint i = 0; i < 5000; i++)
    g_string_append (sse, "\xc3\xa9");
  g_string_append (sse, "\xff\n\n");

  outcome = run_text (sse->str);
  g_assert_error (outcome->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR);
  g_assert_true (g_utf8_validate (outcome->error->message, -1, NULL));
  g_assert_cmpuint (g_utf8_strlen (outcome->error->message, -1), <, 1100);
}

static void
test_bad_chunks (void)
{
  static const char *bad[] = {
    "data: {\"choices\": [\n\n",
    "data: [1, 2]\n\n",
    "data: \"text\"\n\n",
    "data: {\"a\":\"\xff\"}\n\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *sse = g_strconcat (CHUNK ("{\"content\":\"ok\"}", "null"), bad[i], NULL);
      g_autoptr(Outcome) outcome = run_text (sse);

      g_assert_error (outcome->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE);
      g_assert_true (g_utf8_validate (outcome->error->message, -1, NULL));
      g_assert_cmpstr (natter_chat_stream_get_text (outcome->stream), ==, "ok");
    }
}

static void
test_ignored_events (void)
{
  /* Keep-alives, whitespace data, other event types, and anything after
   * [DONE] are not content. */
  g_autoptr(Outcome) outcome =
    run_text ("data:\n\ndata:  \r\n\r\nevent: ping\ndata: {\"x\":1}\n\n"
              "event: message\n" CHUNK ("{\"content\":\"a\"}", "\"stop\"")
              "data: [DONE]\n\n"
              CHUNK ("{\"content\":\"late\"}", "null")
              "data: not json at all\n\n");

  g_assert_no_error (outcome->error);
  g_assert_cmpstr (natter_chat_stream_get_text (outcome->stream), ==, "a");
  g_assert_true (natter_chat_stream_get_done (outcome->stream));
}

static void
test_oversize_event_fails_stream (void)
{
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("s");
  g_autoptr(NatterSseParser) parser = natter_sse_parser_new (64, sse_event_cb, stream, NULL);
  g_autoptr(GError) error = NULL;
  static const char sse[] = CHUNK ("{\"content\":\"a\"}", "null")
                            CHUNK ("{\"content\":\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"}", "\"stop\"");

  g_assert_false (natter_sse_parser_feed (parser, (const guint8 *) sse, sizeof sse - 1, &error));
  g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE);
}

/* A provider's event, its whole JSON body, or a tool call's arguments
 * nested 100,000 deep: refused with a clear error (the arguments kept
 * raw, never run), the text before it kept. json-glib's recursive parser
 * crashed the process on them. */
static void
test_hostile_nesting (void)
{
  g_autofree char *open = g_strnfill (100000, '[');
  g_autofree char *close = g_strnfill (100000, ']');
  g_autofree char *sse = g_strdup_printf ("%sdata: %s%s\n\n", CHUNK ("{\"content\":\"ok\"}", "null"), open, close);
  g_autofree char *body = g_strdup_printf ("{\"choices\":%s%s}", open, close);
  g_autofree char *arguments = g_strdup_printf ("%s%s", open, close);
  g_autofree char *tool = g_strdup_printf ("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
                                           "\"id\":\"a\",\"function\":{\"name\":\"deep\",\"arguments\":\"%s\"}}]}}]}"
                                           "\n\n%s", arguments, STOP);
  g_autoptr(Outcome) streamed = run_text (sse);
  g_autoptr(Outcome) whole = run_json_body (body, strlen (body));
  g_autoptr(Outcome) called = run_text (tool);
  const NatterChatToolCall *call;

  g_assert_error (streamed->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE);
  g_assert_nonnull (strstr (streamed->error->message, "deeper than 520 levels"));
  g_assert_cmpstr (natter_chat_stream_get_text (streamed->stream), ==, "ok");
  g_assert_error (whole->error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE);

  g_assert_no_error (called->error);
  call = natter_chat_stream_get_tool_call (called->stream, 0);
  g_assert_true (call->malformed);
  g_assert_null (call->parsed_arguments);
  g_assert_cmpstr (call->arguments, ==, arguments);
}

void
chat_stream_add_errors_tests (void)
{
  g_test_add_func ("/chat-stream/error-object-keeps-partial-text", test_error_object_keeps_partial_text);
  g_test_add_func ("/chat-stream/truncated-keeps-partial-text", test_truncated_keeps_partial_text);
  g_test_add_func ("/chat-stream/error-shapes", test_error_shapes);
  g_test_add_func ("/chat-stream/error-message-bounded", test_error_message_bounded);
  g_test_add_func ("/chat-stream/bad-chunks", test_bad_chunks);
  g_test_add_func ("/chat-stream/hostile-nesting", test_hostile_nesting);
  g_test_add_func ("/chat-stream/ignored-events", test_ignored_events);
  g_test_add_func ("/chat-stream/oversize-event-fails-stream", test_oversize_event_fails_stream);
}
