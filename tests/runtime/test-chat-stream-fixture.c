/* test-chat-stream-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-chat-stream share: feeding a stream chunk by
 * chunk and reading what it assembled.
 */

#include "test-chat-stream.h"

void
outcome_free (Outcome *outcome)
{
  g_clear_error (&outcome->error);
  g_string_free (outcome->text_deltas, TRUE);
  g_string_free (outcome->reasoning_deltas, TRUE);
  g_assert_finalize_object (outcome->stream);
  g_free (outcome);
}

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

gboolean
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

Outcome *
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

Outcome *
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

void
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

void
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

Outcome *
run_text (const char *sse)
{
  return run_whole (sse, strlen (sse));
}
