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
 */

#include <string.h>

#include "natter-chat-stream.h"
#include "natter-json.h"
#include "natter-sse-parser.h"
#include "natter-test-support.h"

#define CASE_SEED "turn1-0"

typedef struct
{
  NatterChatStream *stream;
  GError           *error;
  GString          *text_deltas;
  GString          *reasoning_deltas;
} Outcome;

static void
outcome_free (Outcome *outcome)
{
  g_clear_error (&outcome->error);
  g_string_free (outcome->text_deltas, TRUE);
  g_string_free (outcome->reasoning_deltas, TRUE);
  g_assert_finalize_object (outcome->stream);
  g_free (outcome);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Outcome, outcome_free)

static void
text_delta_cb (NatterChatStream *stream,
               const char       *delta,
               GString          *collected)
{
  g_assert_cmpuint (strlen (delta), >, 0);
  g_string_append (collected, delta);
}

static void
reasoning_delta_cb (NatterChatStream *stream,
                    const char       *delta,
                    GString          *collected)
{
  g_assert_cmpuint (strlen (delta), >, 0);
  g_string_append (collected, delta);
}

static Outcome *
outcome_new (void)
{
  Outcome *outcome = g_new0 (Outcome, 1);

  outcome->stream = natter_chat_stream_new (CASE_SEED);
  outcome->text_deltas = g_string_new (NULL);
  outcome->reasoning_deltas = g_string_new (NULL);
  g_signal_connect (outcome->stream, "text-delta",
                    G_CALLBACK (text_delta_cb), outcome->text_deltas);
  g_signal_connect (outcome->stream, "reasoning-delta",
                    G_CALLBACK (reasoning_delta_cb), outcome->reasoning_deltas);
  return outcome;
}

static gboolean
sse_event_cb (const char  *event_name,
              const char  *data,
              gsize        data_len,
              gpointer     user_data,
              GError     **error)
{
  return natter_chat_stream_feed_sse_event (user_data, event_name, data, data_len, error);
}

/* Reads @input the way the provider will: the parser's verdict on a
 * partial event at the end is only informative, the stream's is final. */
static void
read_sse (Outcome    *outcome,
          const char *input,
          gsize       len,
          const gsize *cuts,
          gsize       n_cuts)
{
  g_autoptr(NatterSseParser) parser = natter_sse_parser_new (0, sse_event_cb, outcome->stream, NULL);
  g_autoptr(GError) parser_error = NULL;
  gsize start = 0;

  for (gsize i = 0; i <= n_cuts && outcome->error == NULL; i++)
    {
      gsize end = i < n_cuts ? cuts[i] : len;

      natter_sse_parser_feed (parser, (const guint8 *) input + start, end - start, &outcome->error);
      start = end;
    }

  if (outcome->error == NULL && !natter_sse_parser_finish (parser, &parser_error))
    g_test_message ("parser: %s", parser_error->message);

  if (outcome->error == NULL)
    natter_chat_stream_finish (outcome->stream, &outcome->error);
  else
    g_assert_false (natter_chat_stream_finish (outcome->stream, NULL));
}

static Outcome *
run_whole (const char *input,
           gsize       len)
{
  Outcome *outcome = outcome_new ();

  read_sse (outcome, input, len, NULL, 0);
  return outcome;
}

static Outcome *
run_split (const char *input,
           gsize       len,
           gsize       split)
{
  Outcome *outcome = outcome_new ();

  read_sse (outcome, input, len, &split, 1);
  return outcome;
}

static Outcome *
run_bytewise (const char *input,
              gsize       len)
{
  Outcome *outcome = outcome_new ();
  g_autofree gsize *cuts = g_new (gsize, len + 1);

  for (gsize i = 0; i < len; i++)
    cuts[i] = i;
  read_sse (outcome, input, len, cuts, len);
  return outcome;
}

static Outcome *
run_json_body (const char *input,
               gsize       len)
{
  Outcome *outcome = outcome_new ();

  if (natter_chat_stream_feed_json_body (outcome->stream, input, len, &outcome->error))
    natter_chat_stream_finish (outcome->stream, &outcome->error);
  else
    g_assert_false (natter_chat_stream_finish (outcome->stream, NULL));
  return outcome;
}

/* Cases */

typedef enum
{
  MODE_WHOLE,
  MODE_SPLIT_EVERY_BYTE,
  MODE_BYTE_AT_A_TIME,
  MODE_JSON_BODY,
} Mode;

typedef struct
{
  char *name;
  char *input_path;
  char *expect_path;
  Mode  mode;
} Case;

static void
case_free (gpointer data)
{
  Case *c = data;

  g_free (c->name);
  g_free (c->input_path);
  g_free (c->expect_path);
  g_free (c);
}

static void
assert_only_members (JsonObject         *object,
                     const char * const *allowed)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (allowed, l->data))
      g_error ("unknown member \"%s\" in an expectation", (const char *) l->data);
}

static const char *
expect_string (JsonObject *expect,
               const char *member,
               const char *fallback)
{
  if (!json_object_has_member (expect, member))
    return fallback;
  return json_object_get_string_member (expect, member);
}

static void
check_tool_calls (Outcome    *outcome,
                  JsonArray  *expected,
                  GPtrArray  *reference_ids)
{
  NatterChatStream *stream = outcome->stream;
  guint n = expected != NULL ? json_array_get_length (expected) : 0;
  static const char * const allowed[] = {
    "id", "idGenerated", "name", "arguments", "malformed", NULL
  };

  g_assert_cmpuint (natter_chat_stream_get_n_tool_calls (stream), ==, n);

  for (guint i = 0; i < n; i++)
    {
      JsonObject *want = json_array_get_object_element (expected, i);
      const NatterChatToolCall *call = natter_chat_stream_get_tool_call (stream, i);
      gboolean malformed = json_object_has_member (want, "malformed")
                           && json_object_get_boolean_member (want, "malformed");

      assert_only_members (want, allowed);

      g_assert_cmpstr (call->name, ==, json_object_get_string_member (want, "name"));

      if (json_object_has_member (want, "idGenerated")
          && json_object_get_boolean_member (want, "idGenerated"))
        {
          g_assert_false (json_object_has_member (want, "id"));
          g_assert_true (call->id_generated);
          g_assert_nonnull (call->id);
          g_assert_cmpuint (strlen (call->id), >, 0);
        }
      else
        {
          g_assert_false (call->id_generated);
          g_assert_cmpstr (call->id, ==, json_object_get_string_member (want, "id"));
        }

      /* Every feeding mode must give the very same ids. */
      if (reference_ids != NULL)
        g_assert_cmpstr (call->id, ==, g_ptr_array_index (reference_ids, i));

      g_assert_nonnull (call->arguments);
      if (malformed)
        {
          g_assert_true (call->malformed);
          g_assert_null (call->parsed_arguments);
          if (json_object_has_member (want, "arguments"))
            g_assert_cmpstr (call->arguments, ==,
                             json_object_get_string_member (want, "arguments"));
        }
      else
        {
          g_assert_false (call->malformed);
          g_assert_nonnull (call->parsed_arguments);
          g_assert_true (json_node_equal (call->parsed_arguments,
                                          json_object_get_member (want, "arguments")));
        }
    }
}

/* The turn-schema message must hold exactly what the accessors say. */
static void
check_message (Outcome *outcome)
{
  NatterChatStream *stream = outcome->stream;
  g_autoptr(JsonNode) message = natter_chat_stream_build_message (stream);
  JsonObject *object = json_node_get_object (message);
  JsonArray *content = json_object_get_array_member (object, "content");
  guint next = 0;

  g_assert_cmpstr (json_object_get_string_member (object, "role"), ==, "assistant");

  if (*natter_chat_stream_get_reasoning (stream) != '\0')
    {
      JsonObject *part = json_array_get_object_element (content, next++);

      g_assert_cmpstr (json_object_get_string_member (part, "type"), ==, "reasoning");
      g_assert_cmpstr (json_object_get_string_member (part, "text"), ==,
                       natter_chat_stream_get_reasoning (stream));
    }
  if (*natter_chat_stream_get_text (stream) != '\0')
    {
      JsonObject *part = json_array_get_object_element (content, next++);

      g_assert_cmpstr (json_object_get_string_member (part, "type"), ==, "text");
      g_assert_cmpstr (json_object_get_string_member (part, "text"), ==,
                       natter_chat_stream_get_text (stream));
    }
  for (guint i = 0; i < natter_chat_stream_get_n_tool_calls (stream); i++)
    {
      const NatterChatToolCall *call = natter_chat_stream_get_tool_call (stream, i);
      JsonObject *part = json_array_get_object_element (content, next++);
      JsonNode *arguments = json_object_get_member (part, "arguments");

      g_assert_cmpstr (json_object_get_string_member (part, "type"), ==, "tool-call");
      g_assert_cmpstr (json_object_get_string_member (part, "toolCallId"), ==, call->id);
      g_assert_cmpstr (json_object_get_string_member (part, "toolName"), ==, call->name);
      if (call->malformed)
        g_assert_cmpstr (json_node_get_string (arguments), ==, call->arguments);
      else
        g_assert_true (json_node_equal (arguments, call->parsed_arguments));
    }
  g_assert_cmpuint (json_array_get_length (content), ==, next);
}

static void
check_outcome (Outcome    *outcome,
               JsonObject *expect,
               GPtrArray  *reference_ids)
{
  NatterChatStream *stream = outcome->stream;
  static const char * const allowed[] = {
    "text", "reasoning", "toolCalls", "finishReason", "usage", "error", "contentType", NULL
  };
  gboolean expect_error = json_object_has_member (expect, "error");

  assert_only_members (expect, allowed);

  if (expect_error)
    {
      g_assert_nonnull (outcome->error);
      g_assert_true (outcome->error->domain == NATTER_PROVIDER_ERROR);
      if (strstr (outcome->error->message, json_object_get_string_member (expect, "error")) == NULL)
        g_error ("error \"%s\" does not contain \"%s\"", outcome->error->message,
                 json_object_get_string_member (expect, "error"));
    }
  else
    g_assert_no_error (outcome->error);

  /* The live deltas add up to the final text, also when it failed. */
  g_assert_cmpstr (outcome->text_deltas->str, ==, natter_chat_stream_get_text (stream));
  g_assert_cmpstr (outcome->reasoning_deltas->str, ==, natter_chat_stream_get_reasoning (stream));

  if (!expect_error || json_object_has_member (expect, "text"))
    g_assert_cmpstr (natter_chat_stream_get_text (stream), ==, expect_string (expect, "text", ""));
  if (!expect_error || json_object_has_member (expect, "reasoning"))
    g_assert_cmpstr (natter_chat_stream_get_reasoning (stream), ==,
                     expect_string (expect, "reasoning", ""));
  if (!expect_error || json_object_has_member (expect, "toolCalls"))
    check_tool_calls (outcome,
                      json_object_has_member (expect, "toolCalls")
                      ? json_object_get_array_member (expect, "toolCalls") : NULL,
                      reference_ids);
  if (!expect_error || json_object_has_member (expect, "finishReason"))
    {
      g_assert_true (json_object_has_member (expect, "finishReason"));
      g_assert_cmpstr (natter_chat_stream_get_finish_reason (stream), ==,
                       json_object_get_string_member (expect, "finishReason"));
    }
  if (!expect_error || json_object_has_member (expect, "usage"))
    {
      JsonObject *usage = natter_chat_stream_get_usage (stream);

      if (json_object_has_member (expect, "usage"))
        {
          g_autoptr(JsonNode) got = NULL;

          g_assert_nonnull (usage);
          got = json_node_init_object (json_node_alloc (), usage);
          g_assert_true (json_node_equal (got, json_object_get_member (expect, "usage")));
        }
      else
        g_assert_null (usage);
    }

  check_message (outcome);
}

static GPtrArray *
collect_ids (Outcome *outcome)
{
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < natter_chat_stream_get_n_tool_calls (outcome->stream); i++)
    g_ptr_array_add (ids, g_strdup (natter_chat_stream_get_tool_call (outcome->stream, i)->id));
  return ids;
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *input = NULL;
  g_autofree char *expect_text = NULL;
  g_autoptr(JsonNode) expect_node = NULL;
  g_autoptr(GPtrArray) reference_ids = NULL;
  JsonObject *expect;
  gsize len;

  input = natter_test_read_file (c->input_path, &len);
  expect_text = natter_test_read_file (c->expect_path, NULL);
  expect_node = natter_test_json (expect_text);
  expect = json_node_get_object (expect_node);

  if (c->mode == MODE_JSON_BODY)
    {
      g_autoptr(Outcome) outcome = run_json_body (input, len);

      check_outcome (outcome, expect, NULL);
      return;
    }

  /* The whole-input run is the reference for minted ids. */
  {
    g_autoptr(Outcome) outcome = run_whole (input, len);

    check_outcome (outcome, expect, NULL);
    reference_ids = collect_ids (outcome);
  }

  if (c->mode == MODE_SPLIT_EVERY_BYTE)
    {
      for (gsize split = 0; split <= len; split++)
        {
          g_autoptr(Outcome) outcome = run_split (input, len, split);

          check_outcome (outcome, expect, reference_ids);
        }
    }
  else if (c->mode == MODE_BYTE_AT_A_TIME)
    {
      g_autoptr(Outcome) outcome = run_bytewise (input, len);

      check_outcome (outcome, expect, reference_ids);
    }
}

static void
test_case_missing_input (gconstpointer data)
{
  const Case *c = data;

  g_error ("%s has no NAME.sse or NAME.json input", c->expect_path);
}

static gboolean
is_json_content_type (const char *expect_path)
{
  g_autofree char *text = natter_test_read_file (expect_path, NULL);
  g_autoptr(JsonNode) node = natter_test_json (text);
  JsonObject *object = json_node_get_object (node);

  return json_object_has_member (object, "contentType")
         && g_str_has_prefix (json_object_get_string_member (object, "contentType"),
                              "application/json");
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
add_case_tests (GPtrArray *keep_alive)
{
  g_autofree char *dir_path = g_test_build_filename (G_TEST_DIST, "data", "sse", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, &error);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *entry;

  g_assert_no_error (error);

  while ((entry = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (entry, ".expect.json"))
      g_ptr_array_add (names, g_strndup (entry, strlen (entry) - strlen (".expect.json")));

  /* There is no point in a suite that finds no cases. */
  g_assert_cmpuint (names->len, >, 0);
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *expect_path = g_strdup_printf ("%s/%s.expect.json", dir_path, name);
      g_autofree char *sse_path = g_strdup_printf ("%s/%s.sse", dir_path, name);
      g_autofree char *json_path = g_strdup_printf ("%s/%s.json", dir_path, name);
      static const struct { Mode mode; const char *suffix; } sse_modes[] = {
        { MODE_WHOLE, "whole" },
        { MODE_SPLIT_EVERY_BYTE, "split-every-byte" },
        { MODE_BYTE_AT_A_TIME, "byte-at-a-time" },
      };
      gboolean is_json = g_file_test (json_path, G_FILE_TEST_EXISTS)
                         && (!g_file_test (sse_path, G_FILE_TEST_EXISTS)
                             || is_json_content_type (expect_path));

      if (!is_json && !g_file_test (sse_path, G_FILE_TEST_EXISTS))
        {
          Case *c = g_new0 (Case, 1);
          g_autofree char *path = g_strdup_printf ("/sse-cases/%s/missing-input", name);

          c->name = g_strdup (name);
          c->expect_path = g_strdup (expect_path);
          g_ptr_array_add (keep_alive, c);
          g_test_add_data_func (path, c, test_case_missing_input);
          continue;
        }

      for (guint m = 0; m < (is_json ? 1 : G_N_ELEMENTS (sse_modes)); m++)
        {
          Case *c = g_new0 (Case, 1);
          g_autofree char *path = NULL;

          c->name = g_strdup (name);
          c->expect_path = g_strdup (expect_path);
          c->input_path = g_strdup (is_json ? json_path : sse_path);
          c->mode = is_json ? MODE_JSON_BODY : sse_modes[m].mode;
          path = g_strdup_printf ("/sse-cases/%s/%s", name,
                                  is_json ? "json-body" : sse_modes[m].suffix);
          g_ptr_array_add (keep_alive, c);
          g_test_add_data_func (path, c, test_case);
        }
    }
}

/* Unit tests of the assembler's own rules */

static Outcome *
run_text (const char *sse)
{
  return run_whole (sse, strlen (sse));
}

#define CHUNK(delta_json, finish_json) \
  "data: {\"choices\":[{\"index\":0,\"delta\":" delta_json ",\"finish_reason\":" finish_json "}]}\n\n"

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

#define TOOL(fragment) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[" fragment "]},\"finish_reason\":null}]}\n\n"
#define STOP CHUNK ("{}", "\"stop\"")

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

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) cases = g_ptr_array_new_with_free_func (case_free);

  g_test_init (&argc, &argv, NULL);

  add_case_tests (cases);

  g_test_add_func ("/chat-stream/error-object-keeps-partial-text", test_error_object_keeps_partial_text);
  g_test_add_func ("/chat-stream/truncated-keeps-partial-text", test_truncated_keeps_partial_text);
  g_test_add_func ("/chat-stream/error-shapes", test_error_shapes);
  g_test_add_func ("/chat-stream/error-message-bounded", test_error_message_bounded);
  g_test_add_func ("/chat-stream/bad-chunks", test_bad_chunks);
  g_test_add_func ("/chat-stream/hostile-nesting", test_hostile_nesting);
  g_test_add_func ("/chat-stream/ignored-events", test_ignored_events);
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
  g_test_add_func ("/chat-stream/oversize-event-fails-stream", test_oversize_event_fails_stream);

  return g_test_run ();
}
