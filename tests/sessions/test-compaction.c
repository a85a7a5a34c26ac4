/* test-compaction.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Compaction (docs/sessions.md §5) end to end: the real services
 * over a temporary data directory, the built-in agent, and a scripted
 * OpenAI-compatible server on loopback whose request bodies the cases
 * assert: what the summarizer is asked, and exactly which messages the
 * next turn sends. Also the event itself in the reducer.
 */

#include "config.h"

#include <string.h>

#include "natter-id.h"
#include "natter-provider-error.h"
#include "natter-session-grants-queue.h"
#include "natter-session-schema.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"
#include "natter-test-services.h"
#include "natter-test-support.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-reducer.h"

#define SAY NATTER_TEST_SAY
#define BROKEN NATTER_TEST_BROKEN
#define SERVE(f, ...) NATTER_TEST_SERVE ((f), "/v1/chat/completions", __VA_ARGS__)

typedef NatterTestServices Fixture;

/* Sends @text with automatic titles off and waits for its turn, then
 * for everything the services still do. */
static char *
say (Fixture    *f,
     const char *session_id,
     const char *text)
{
  char *turn_id = natter_test_services_send (f, session_id, text);

  natter_test_services_settle (f, turn_id);
  return turn_id;
}

static char *
compact (Fixture    *f,
         const char *session_id,
         guint       keep,
         GError    **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_compact_async (f->sessions, session_id, keep, NULL, natter_test_result_cb, &result);
  return natter_sessions_compact_finish (f->sessions, natter_test_services_wait_result (&result), error);
}

static char *
fork_at (Fixture    *f,
         const char *session_id,
         const char *turn_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *fork_id;

  natter_sessions_fork_async (f->sessions, session_id, turn_id, NULL, NULL, natter_test_result_cb, &result);
  fork_id = natter_sessions_fork_finish (f->sessions, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  return fork_id;
}

/* The messages of request @index after the system prompt, one
 * "role: content" line each; the summary message is shown as
 * "summary: <its text after the mark>". */
static char *
sent_messages (Fixture *f,
               guint    index)
{
  g_autoptr(JsonObject) body = natter_test_services_request_body (f, index);
  JsonArray *messages = json_object_get_array_member (body, "messages");
  GString *out = g_string_new (NULL);

  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "role"), ==, "system");
  for (guint i = 1; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *content = json_object_get_string_member (message, "content");
      const char *summary = strstr (content, "fit the context window):\n\n");

      if (summary != NULL)
        g_string_append_printf (out, "summary: %s\n", summary + strlen ("fit the context window):\n\n"));
      else
        g_string_append_printf (out, "%s: %s\n", json_object_get_string_member (message, "role"), content);
    }
  return g_string_free (out, FALSE);
}

/* Three turns, compacted keeping two: the summarizer is asked about the
 * first turn only, with the prompt that keeps what matters; the event
 * names the second turn; the next request carries exactly the summary
 * and the kept turns, and the one after it refers back to that. */
static void
test_compact_then_send (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *t3 = NULL;
  g_autofree char *t4 = NULL;
  g_autofree char *t5 = NULL;
  g_autofree char *compaction_id = NULL;
  g_autofree char *sent = NULL;
  g_autoptr(JsonObject) body = NULL;
  g_autoptr(JsonObject) event = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *messages;
  const char *asked;

  SERVE (f, SAY ("A1"), SAY ("A2"), SAY ("A3"), SAY ("We chose plan B for main.c."), SAY ("A4"), SAY ("A5"));
  session_id = natter_test_services_create_session (f);
  t1 = say (f, session_id, "Q1 about main.c");
  t2 = say (f, session_id, "Q2");
  t3 = say (f, session_id, "Q3");

  compaction_id = compact (f, session_id, 2, &error);
  g_assert_no_error (error);
  g_assert_true (natter_id_validate (compaction_id, NULL));

  /* The summarizer: the same model, a bounded answer, the transcript
   * before the kept turns and nothing of them. */
  g_assert_cmpuint (f->server->bodies->len, ==, 4);
  /* The conversation's requests offer the agent's tools; the summary
   * request offers none, so its one model call cannot be a tool call. */
  {
    g_autoptr(JsonObject) answer_body = natter_test_services_request_body (f, 2);

    g_assert_true (json_object_has_member (answer_body, "tools"));
  }
  body = natter_test_services_request_body (f, 3);
  g_assert_false (json_object_has_member (body, "tools"));
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "m");
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 2048);
  messages = json_object_get_array_member (body, "messages");
  asked = json_object_get_string_member (json_array_get_object_element (messages, json_array_get_length (messages) - 1),
                                         "content");
  g_assert_true (g_str_has_prefix (asked, "Summarize the conversation below"));
  g_assert_nonnull (strstr (asked, "decision"));
  g_assert_nonnull (strstr (asked, "file names"));
  g_assert_nonnull (strstr (asked, "code identifiers"));
  g_assert_nonnull (strstr (asked, "questions that are still open"));
  g_assert_nonnull (strstr (asked, "\nUser: Q1 about main.c\n\nAssistant: A1\n"));
  g_assert_null (strstr (asked, "Q2"));
  g_assert_null (strstr (asked, "A3"));

  event = natter_test_services_last_event (f, session_id, "conversation_compacted");
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "compactionId"), ==, compaction_id);
  g_assert_cmpstr (json_object_get_string_member (event, "summary"), ==, "We chose plan B for main.c.");
  g_assert_cmpstr (json_object_get_string_member (event, "firstKeptTurnId"), ==, t2);

  t4 = say (f, session_id, "Q4");
  sent = sent_messages (f, 4);
  g_assert_cmpstr (sent, ==,
                   "summary: We chose plan B for main.c.\n"
                   "user: Q2\nassistant: A2\n"
                   "user: Q3\nassistant: A3\n"
                   "user: Q4\n");
  /* The summary message is marked in the turn file; the model sees only
   * role and content. */
  g_assert_null (strstr (g_ptr_array_index (f->server->bodies, 4), "compactionId"));

  t5 = say (f, session_id, "Q5");
  g_clear_pointer (&sent, g_free);
  sent = sent_messages (f, 5);
  g_assert_cmpstr (sent, ==,
                   "summary: We chose plan B for main.c.\n"
                   "user: Q2\nassistant: A2\n"
                   "user: Q3\nassistant: A3\n"
                   "user: Q4\nassistant: A4\n"
                   "user: Q5\n");
}

/* A kept turn whose file is damaged after the compaction: the next
 * message continues a history that cannot be read, and is refused as any
 * such message is (docs/sessions.md §2), with the file named; nothing is
 * asked of the model and no turn is made. So too when the kept turn's
 * file lost its last lines at a line's end (@data set): each line reads
 * but the turn never ended, and its answer would be missing from the
 * history the first message after the compaction carries inline. */
static void
test_damaged_kept_turn (Fixture       *f,
                        gconstpointer  data)
{
  gboolean end_lost = GPOINTER_TO_INT (data);
  g_autofree char *session_id = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *t3 = NULL;
  g_autofree char *compaction_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GError) error = NULL;

  SERVE (f, SAY ("A1"), SAY ("A2"), SAY ("A3"), SAY ("The summary."));
  session_id = natter_test_services_create_session (f);
  t1 = say (f, session_id, "Q1");
  t2 = say (f, session_id, "Q2");
  t3 = say (f, session_id, "Q3");
  compaction_id = compact (f, session_id, 2, &error);
  g_assert_no_error (error);

  file = natter_jsonl_repo_get_file (natter_services_get_turn_repo (f->services), t2, NULL);
  path = g_file_get_path (file);
  if (end_lost)
    {
      g_autofree char *contents = NULL;

      g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
      *(strchr (contents, '\n') + 1) = '\0';
      g_assert_true (g_file_set_contents (path, contents, -1, NULL));
    }
  else
    {
      out = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (g_output_stream_write_all (G_OUTPUT_STREAM (out), "{\"type\":\"tool_res", 17, NULL, NULL, &error));
      g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error));
    }
  natter_test_services_reload (f);

  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
    g_autoptr(JsonObject) input = json_object_new ();

    natter_send_options_set_model (options, "test", "m");
    json_object_set_string_member (input, "role", "user");
    json_object_set_string_member (input, "content", "Q4");
    natter_sessions_send_message_async (f->sessions, session_id, input, options, NULL, natter_test_result_cb, &result);
    turn_id = natter_sessions_send_message_finish (f->sessions, natter_test_services_wait_result (&result), &error);
  }
  g_assert_null (turn_id);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_cmpuint (f->server->bodies->len, ==, 4);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (
                     natter_session_index_lookup (natter_sessions_list_sessions (f->sessions), session_id)), ==, t3);
}

/* Nothing before the kept turns, a missing session: clear errors, and
 * nothing is asked or written. */
static void
test_compact_refused (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *id = NULL;
  g_autoptr(JsonObject) event = NULL;
  g_autoptr(GError) error = NULL;

  SERVE (f, SAY ("A1"));
  session_id = natter_test_services_create_session (f);
  id = compact (f, session_id, 2, &error);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_assert_null (id);
  g_clear_error (&error);

  t1 = say (f, session_id, "Q1");
  id = compact (f, session_id, 1, &error);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "no turns before the last 1"));
  g_assert_null (id);
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  event = natter_test_services_last_event (f, session_id, "conversation_compacted");
  g_assert_null (event);
}

/* A failed summary request writes nothing and says why. */
static void
test_compact_summary_fails (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *id = NULL;
  g_autoptr(JsonObject) event = NULL;
  g_autoptr(GError) error = NULL;

  SERVE (f, SAY ("A1"), SAY ("A2"), BROKEN);
  session_id = natter_test_services_create_session (f);
  t1 = say (f, session_id, "Q1");
  t2 = say (f, session_id, "Q2");
  id = compact (f, session_id, 1, &error);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_str_has_prefix (error->message, "The summary could not be made: "));
  g_assert_null (id);
  event = natter_test_services_last_event (f, session_id, "conversation_compacted");
  g_assert_null (event);
}

/* A model that refuses `max_tokens` still summarizes: the request goes
 * again with `max_completion_tokens`. */
static void
test_compact_server_refuses_max_tokens (Fixture       *f,
                                        gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *id = NULL;
  g_autoptr(JsonObject) event = NULL;
  g_autoptr(JsonObject) again = NULL;
  g_autoptr(GError) error = NULL;

  SERVE (f, SAY ("A1"), SAY ("A2"), NATTER_TEST_REFUSE_MAX_TOKENS, SAY ("We chose plan B."));
  session_id = natter_test_services_create_session (f);
  t1 = say (f, session_id, "Q1");
  t2 = say (f, session_id, "Q2");
  id = compact (f, session_id, 1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (id);
  again = natter_test_services_request_body (f, 3);
  g_assert_false (json_object_has_member (again, "max_tokens"));
  g_assert_true (json_object_has_member (again, "max_completion_tokens"));
  event = natter_test_services_last_event (f, session_id, "conversation_compacted");
  g_assert_cmpstr (json_object_get_string_member (event, "summary"), ==, "We chose plan B.");
}

/* A branch taken after the compaction, at a turn it covers, keeps it: its
 * first turn sends the summary and the kept turns, not the summarized
 * ones. A branch taken before the first kept turn keeps the whole
 * history. */
static void
test_fork_keeps_compaction (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *t3 = NULL;
  g_autofree char *compaction_id = NULL;
  g_autofree char *branch = NULL;
  g_autofree char *early = NULL;
  g_autofree char *b1 = NULL;
  g_autofree char *e1 = NULL;
  g_autofree char *sent = NULL;
  g_autoptr(JsonObject) copied = NULL;
  g_autoptr(JsonObject) none = NULL;
  g_autoptr(GError) error = NULL;

  SERVE (f, SAY ("A1"), SAY ("A2"), SAY ("A3"), SAY ("S"), SAY ("B1"), SAY ("E1"));
  session_id = natter_test_services_create_session (f);
  t1 = say (f, session_id, "Q1");
  t2 = say (f, session_id, "Q2");
  t3 = say (f, session_id, "Q3");
  compaction_id = compact (f, session_id, 1, &error);
  g_assert_no_error (error);

  branch = fork_at (f, session_id, t3);
  copied = natter_test_services_last_event (f, branch, "conversation_compacted");
  g_assert_nonnull (copied);
  g_assert_cmpstr (json_object_get_string_member (copied, "compactionId"), !=, compaction_id);
  g_assert_cmpstr (json_object_get_string_member (copied, "summary"), ==, "S");
  g_assert_cmpstr (json_object_get_string_member (copied, "firstKeptTurnId"), ==, t3);
  b1 = say (f, branch, "B-Q");
  sent = sent_messages (f, 4);
  g_assert_cmpstr (sent, ==, "summary: S\nuser: Q3\nassistant: A3\nuser: B-Q\n");

  early = fork_at (f, session_id, t2);
  none = natter_test_services_last_event (f, early, "conversation_compacted");
  g_assert_null (none);
  e1 = say (f, early, "E-Q");
  g_clear_pointer (&sent, g_free);
  sent = sent_messages (f, 5);
  g_assert_cmpstr (sent, ==, "user: Q1\nassistant: A1\nuser: Q2\nassistant: A2\nuser: E-Q\n");
}

/* A compaction is inherited only by a branch whose history can hold its
 * first kept turn: a version of the first message (a parent and no fork
 * point) inherits no turns and gets none, and a branch at a turn before
 * the first kept one gets none without reading the turns before its fork
 * point, so an earlier turn that cannot be read does not refuse it. */
static void
test_fork_before_kept_turn (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *t3 = NULL;
  g_autofree char *compaction_id = NULL;
  g_autofree char *version = NULL;
  g_autofree char *early = NULL;
  g_autoptr(JsonObject) none = NULL;
  g_autoptr(JsonObject) none_early = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  SERVE (f, SAY ("A1"), SAY ("A2"), SAY ("A3"), SAY ("S"));
  session_id = natter_test_services_create_session (f);
  t1 = say (f, session_id, "Q1");
  t2 = say (f, session_id, "Q2");
  t3 = say (f, session_id, "Q3");
  compaction_id = compact (f, session_id, 1, &error);
  g_assert_no_error (error);

  natter_sessions_create_session_async (f->sessions, "Q1", NULL, session_id, NULL, NULL, natter_test_result_cb, &result);
  version = natter_sessions_create_session_finish (f->sessions, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  none = natter_test_services_last_event (f, version, "conversation_compacted");
  g_assert_null (none);

  file = natter_jsonl_repo_get_file (natter_services_get_turn_repo (f->services), t1, NULL);
  path = g_file_get_path (file);
  natter_test_append_file (path, "{\"type\":\"tool_res");
  natter_test_services_reload (f);
  early = fork_at (f, session_id, t2);
  none_early = natter_test_services_last_event (f, early, "conversation_compacted");
  g_assert_null (none_early);
}

/* The event in the reducer: version 2 only, reduced to the last one and
 * pending until the next turn; its id is never reused. */
static void
test_event_reduces (void)
{
  const char *sid = "2026-11-30T10-00-00Z-0000001-000";
  const char *t1 = "2026-11-30T10-00-01Z-0000002-000";
  const char *c1 = "2026-11-30T10-00-02Z-0000003-000";
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(JsonNode) created = NULL;
  g_autoptr(JsonObject) model = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  JsonNode *compacted;

  json_object_set_string_member (model, "provider", "p");
  json_object_set_string_member (model, "model", "m");
  created = natter_test_json ("{\"type\":\"session_created\",\"sessionId\":\"2026-11-30T10-00-00Z-0000001-000\","
                              "\"ts\":\"2026-11-30T10:00:00.000Z\",\"schemaVersion\":1}");
  g_ptr_array_add (events, json_node_ref (created));
  g_ptr_array_add (events, natter_session_event_new_turn_appended (sid, "2026-11-30T10:00:01.000Z", t1, 1, "a", model));
  compacted = natter_session_event_new_conversation_compacted (sid, "2026-11-30T10:00:02.000Z", c1, "Summary", t1);
  line = json_to_string (compacted, FALSE);
  g_assert_cmpstr (line, ==, "{\"type\":\"conversation_compacted\",\"sessionId\":\"2026-11-30T10-00-00Z-0000001-000\","
                             "\"ts\":\"2026-11-30T10:00:02.000Z\",\"compactionId\":\"2026-11-30T10-00-02Z-0000003-000\","
                             "\"summary\":\"Summary\",\"firstKeptTurnId\":\"2026-11-30T10-00-01Z-0000002-000\"}");
  g_ptr_array_add (events, compacted);

  /* At version 1 it is a schema error naming the version. */
  state = natter_session_reduce (events, &error);
  g_assert_null (state);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
  g_assert_nonnull (strstr (error->message, "conversation_compacted needs session schema version 2"));
  g_clear_error (&error);

  /* Raised first, it reduces. */
  g_ptr_array_insert (events, 2, natter_session_event_new_schema_upgraded (sid, "2026-11-30T10:00:02.000Z", 2));
  state = natter_session_reduce (events, &error);
  g_assert_no_error (error);
  g_assert_true (natter_session_state_get_compaction_pending (state));
  g_assert_cmpstr (json_object_get_string_member (natter_session_state_get_compaction (state), "summary"), ==,
                   "Summary");
  g_assert_cmpstr (json_object_get_string_member (natter_session_state_get_compaction (state), "firstKeptTurnId"),
                   ==, t1);
  g_clear_pointer (&state, natter_session_state_unref);

  /* The same id twice is refused; an empty summary too. */
  g_ptr_array_add (events, natter_session_event_new_conversation_compacted (sid, "2026-11-30T10:00:03.000Z", c1, "Again", t1));
  state = natter_session_reduce (events, &error);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_assert_null (state);
  g_clear_error (&error);
  g_ptr_array_remove_index (events, events->len - 1);
  {
    g_autoptr(JsonNode) empty = natter_session_event_new_conversation_compacted (sid, "2026-11-30T10:00:03.000Z",
                                                                                 "2026-11-30T10-00-03Z-0000004-000",
                                                                                 "", t1);

    g_assert_false (natter_session_event_validate (json_node_get_object (empty), sid, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
    g_clear_error (&error);
  }

  /* The next turn uses it: no longer pending, still known. */
  g_ptr_array_add (events, natter_session_event_new_turn_appended (sid, "2026-11-30T10:00:04.000Z",
                                                                   "2026-11-30T10-00-04Z-0000005-000", 2, "a", model));
  state = natter_session_reduce (events, &error);
  g_assert_no_error (error);
  g_assert_false (natter_session_state_get_compaction_pending (state));
  g_assert_nonnull (natter_session_state_get_compaction (state));
}

/* Each server's way of saying the conversation is too long, as the
 * provider words the failed call; and what is not an overflow. */
static void
test_overflow_wordings (void)
{
  const char *overflows[] = {
    /* OpenAI: the message, and the code the provider adds. */
    "E2E: The server refused the request (HTTP 400): This model's maximum context length is 8192 tokens. "
    "However, your messages resulted in 9000 tokens. [context_length_exceeded]",
    "HTTP 400: Too long [context_length_exceeded]",
    /* llama.cpp */
    "HTTP 400: request (4476 tokens) exceeds the available context size (4096 tokens) [exceed_context_size_error]",
    /* vLLM */
    "HTTP 400: This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
    "HTTP 400: The prompt (total length 25938) is too long to fit into the model (context length 4096).",
    /* Ollama */
    "HTTP 500: the input length exceeds the context length",
    "HTTP 400: prompt too long; exceeded max context length by 120 tokens",
    /* LM Studio */
    "HTTP 400: Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded "
    "with context length of only 4096 tokens, which is not enough.",
    "HTTP 400: The number of tokens to keep from the initial prompt is greater than the context length.",
    "HTTP 400: Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)",
  };
  const char *others[] = {
    "HTTP 401: Incorrect API key provided",
    "Could not reach 127.0.0.1:1",
    "HTTP 429: Rate limit reached",
    "",
  };

  for (guint i = 0; i < G_N_ELEMENTS (overflows); i++)
    g_assert_true (natter_error_is_context_overflow (overflows[i]));
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    g_assert_false (natter_error_is_context_overflow (others[i]));
  g_assert_false (natter_error_is_context_overflow (NULL));
}

/* A server that answers with OpenAI's overflow code: the failed turn's
 * error carries it, so the window and the command line recognize it. */
static void
test_overflow_from_server (Fixture       *f,
                           gconstpointer  data)
{
  const NatterTestResponse overflow = {
    .status = 400, .content_type = "application/json",
    .body = "{\"error\":{\"message\":\"Please reduce the length of the messages.\","
            "\"type\":\"invalid_request_error\",\"code\":\"context_length_exceeded\"}}"
  };
  const NatterTestResponse llama = {
    .status = 400, .content_type = "application/json",
    .body = "{\"error\":{\"code\":400,\"message\":\"request (4476 tokens) exceeds the available context size "
            "(4096 tokens)\",\"type\":\"exceed_context_size_error\"}}"
  };
  g_autofree char *session_id = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  const char *turns[2];

  natter_test_services_serve (f, "/v1/chat/completions", (NatterTestResponse[]) { overflow, llama }, 2);
  session_id = natter_test_services_create_session (f);
  t1 = say (f, session_id, "Q1");
  t2 = say (f, session_id, "Q2");
  turns[0] = t1;
  turns[1] = t2;
  for (guint i = 0; i < G_N_ELEMENTS (turns); i++)
    {
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(NatterTurnState) state = NULL;
      JsonObject *terminal;

      natter_turn_runtime_get_turn_state_async (natter_services_get_runtime (f->services), turns[i], NULL,
                                                natter_test_result_cb, &result);
      state = natter_turn_runtime_get_turn_state_finish (natter_services_get_runtime (f->services),
                                                         natter_test_services_wait_result (&result), &error);
      g_assert_no_error (error);
      terminal = natter_turn_state_get_terminal_event (state);
      g_assert_cmpstr (json_object_get_string_member (terminal, "type"), ==, "turn_failed");
      g_assert_true (natter_error_is_context_overflow (json_object_get_string_member (terminal, "error")));
    }
}

/* Moves the turn files of @turn_ids [0, @n) out of the store, so that a
 * later read of any of them fails. */
static void
hide_turns (Fixture   *f,
            GPtrArray *turn_ids,
            guint      n)
{
  g_autoptr(GFile) hidden = g_file_get_child (f->dir, "hidden");
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_make_directory (hidden, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      const char *id = g_ptr_array_index (turn_ids, i);
      g_autoptr(GFile) file = natter_jsonl_repo_get_file (natter_services_get_turn_repo (f->services), id, NULL);
      g_autoptr(GFile) moved = g_file_get_child (hidden, id);

      g_assert_true (g_file_move (file, moved, G_FILE_COPY_NONE, NULL, NULL, NULL, &error));
      g_assert_no_error (error);
    }
}

/* Compacting a 1,000-turn session: keeping the last 2 turns, the event
 * names the 999th; the summarizer reads the 998 before it; and the next
 * message, sent by a new process, carries exactly the summary, the two
 * kept turns and itself, and needs no more than those 2 turn files (the
 * 998 others are moved away first, and the context resolver reads at
 * most 2). */
static void
test_compact_1000_turns (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GPtrArray) turns = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *session_id = NULL;
  g_autofree char *compaction_id = NULL;
  g_autofree char *next = NULL;
  g_autofree char *sent = NULL;
  g_autoptr(JsonObject) event = NULL;
  g_autoptr(JsonObject) body = NULL;
  g_autoptr(GError) error = NULL;
  NatterTurnContextResolver *resolver;
  JsonArray *messages;
  const char *asked;
  guint reads;

  session_id = natter_test_services_write_chain (f, 1000, turns);
  SERVE (f, SAY ("Summary of 998 turns."), SAY ("Answer 1001."));

  compaction_id = compact (f, session_id, 2, &error);
  g_assert_no_error (error);
  event = natter_test_services_last_event (f, session_id, "conversation_compacted");
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "compactionId"), ==, compaction_id);
  g_assert_cmpstr (json_object_get_string_member (event, "firstKeptTurnId"), ==, g_ptr_array_index (turns, 998));
  body = natter_test_services_request_body (f, 0);
  messages = json_object_get_array_member (body, "messages");
  asked = json_object_get_string_member (json_array_get_object_element (messages, json_array_get_length (messages) - 1),
                                         "content");
  g_assert_nonnull (strstr (asked, "\nUser: Question 1.\n\nAssistant: Answer 1.\n"));
  g_assert_nonnull (strstr (asked, "\nUser: Question 998.\n\nAssistant: Answer 998.\n"));
  g_assert_null (strstr (asked, "Question 999."));

  natter_test_services_reload (f);
  hide_turns (f, turns, 998);
  resolver = NATTER_TURN_CONTEXT_RESOLVER (natter_turn_runtime_get_context_resolver (
                                             natter_services_get_runtime (f->services)));
  reads = natter_turn_context_resolver_get_n_reads (resolver);
  next = say (f, session_id, "Question 1001.");
  g_assert_cmpuint (natter_turn_context_resolver_get_n_reads (resolver) - reads, <=, 2);

  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  sent = sent_messages (f, 1);
  g_assert_cmpstr (sent, ==,
                   "summary: Summary of 998 turns.\n"
                   "user: Question 999.\nassistant: Answer 999.\n"
                   "user: Question 1000.\nassistant: Answer 1000.\n"
                   "user: Question 1001.\n");
}

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, natter_test_services_set_up_without_titles, func, natter_test_services_tear_down)

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  ADD ("/compaction/compact-then-send", test_compact_then_send);
  ADD ("/compaction/refused", test_compact_refused);
  ADD ("/compaction/summary-fails", test_compact_summary_fails);
  ADD ("/compaction/server-refuses-max-tokens", test_compact_server_refuses_max_tokens);
  ADD ("/compaction/fork-keeps-compaction", test_fork_keeps_compaction);
  ADD ("/compaction/fork-before-the-kept-turn-inherits-none", test_fork_before_kept_turn);
  ADD ("/compaction/damaged-kept-turn-refuses-the-message", test_damaged_kept_turn);
  g_test_add ("/compaction/kept-turn-that-lost-its-end-refuses-the-message", Fixture, GINT_TO_POINTER (TRUE),
              natter_test_services_set_up_without_titles, test_damaged_kept_turn, natter_test_services_tear_down);
  g_test_add_func ("/compaction/event-reduces", test_event_reduces);
  g_test_add_func ("/compaction/overflow-wordings", test_overflow_wordings);
  ADD ("/compaction/overflow-from-server", test_overflow_from_server);
  ADD ("/compaction/compacting-a-1000-turn-session", test_compact_1000_turns);
  return g_test_run ();
}
