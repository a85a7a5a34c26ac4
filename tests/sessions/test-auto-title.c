/* test-auto-title.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Automatic titles (docs/sessions.md §13) end to end: the real
 * services over a temporary data directory, the built-in agent, and a
 * scripted OpenAI-compatible server on loopback whose request bodies the
 * cases assert. What is checked is what lands in the session file.
 */

#include "config.h"

#include <string.h>

#include "natter-send-pipeline.h"
#include "natter-session-families.h"
#include "natter-sessions-private.h"
#include "natter-test-services.h"
#include "natter-test-support.h"

#define WAIT_MS NATTER_TEST_SERVICES_WAIT_MS

#define SSE NATTER_TEST_SSE
#define CHUNK NATTER_TEST_SSE_CHUNK
#define SAY NATTER_TEST_SAY
#define ANSWER SAY ("Hello world")
#define TITLE SAY ("\\\"Greeting the World.\\\"")
#define BROKEN NATTER_TEST_BROKEN
#define TOOL_CALL(id, name, args) \
  { .status = 200, .content_type = SSE, \
    .chunks = NATTER_TEST_CHUNKS ("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0," \
                                  "\"id\":\"" id "\",\"type\":\"function\",\"function\":{\"name\":\"" name "\"," \
                                  "\"arguments\":\"" args "\"}}]}}]}\n\n", \
                                  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" \
                                  NATTER_TEST_SSE_DONE) }
/* read_file needs permission; ask_human needs an answer. */
#define READ_CALL TOOL_CALL ("call_1", "read_file", "{\\\"path\\\":\\\"notes.txt\\\"}")
#define ASK_CALL TOOL_CALL ("call_1", "ask_human", "{\\\"question\\\":\\\"Which city?\\\"}")
#define SERVE(f, ...) NATTER_TEST_SERVE ((f), "/v1/chat/completions", __VA_ARGS__)

typedef NatterTestServices Fixture;

/* The titles of the session file's title_changed events, "|"-joined. */
static char *
titles_on_disk (Fixture    *f,
                const char *session_id)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) titles = g_string_new (NULL);

  events = natter_jsonl_repo_read_sync (natter_services_get_session_repo (f->services), session_id, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i));

      if (g_str_equal (json_object_get_string_member (event, "type"), "title_changed"))
        g_string_append_printf (titles, "%s%s", titles->len > 0 ? "|" : "",
                                json_object_get_string_member (event, "title"));
    }
  return g_string_free (g_steal_pointer (&titles), FALSE);
}

static void
set_title (Fixture    *f,
           const char *session_id,
           const char *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_title_async (f->sessions, session_id, title, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_title_finish (f->sessions, natter_test_services_wait_result (&result), &error));
  g_assert_no_error (error);
}

/* After the first answer, one request to the same model with a small
 * answer limit, quoting the first message and answer; its answer, made
 * a title, is appended once. The second turn asks for nothing. */
static void
test_titled_once (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *titles = NULL;
  g_autoptr(JsonObject) body = NULL;
  g_autofree char *long_text = NULL;
  g_autofree char *filler = g_strnfill (1500, 'x');
  JsonArray *messages;
  const char *asked;

  SERVE (f, ANSWER, TITLE, ANSWER);
  session_id = natter_test_services_create_session (f);
  long_text = g_strdup_printf ("Plan a trip to Lisbon %s END", filler);
  first = natter_test_services_send (f, session_id, long_text);
  natter_test_services_settle (f, first);

  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  /* The conversation's own request offers the agent's tools; the title
   * request offers none, so the model can only answer in words. */
  {
    g_autoptr(JsonObject) answer_body = natter_test_services_request_body (f, 0);

    g_assert_true (json_object_has_member (answer_body, "tools"));
  }
  body = natter_test_services_request_body (f, 1);
  g_assert_false (json_object_has_member (body, "tools"));
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "m");
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 64);
  messages = json_object_get_array_member (body, "messages");
  asked = json_object_get_string_member (json_array_get_object_element (messages,
                                                                        json_array_get_length (messages) - 1),
                                         "content");
  g_assert_true (g_str_has_prefix (asked, "Write a title for the conversation below: at most 6 words"));
  g_assert_nonnull (strstr (asked, "User: Plan a trip to Lisbon xxx"));
  g_assert_nonnull (strstr (asked, "…\n\nAssistant: Hello world"));
  g_assert_null (strstr (asked, "END"));

  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "Plan a trip to Lisbon xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…|Greeting the World");
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (
                     natter_services_get_index (f->services), session_id)), ==, "Greeting the World");

  second = natter_test_services_send (f, session_id, "and again");
  natter_test_services_settle (f, second);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_clear_pointer (&titles, g_free);
  titles = titles_on_disk (f, session_id);
  g_assert_true (g_str_has_suffix (titles, "|Greeting the World"));
  g_assert_null (strstr (titles, "and again"));
}

/* Renamed while the first answer is on its way: the user's title stays. */
static void
test_rename_before_answer (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, ANSWER, TITLE);
  session_id = natter_test_services_create_session (f);
  turn_id = natter_test_services_send (f, session_id, "hello");
  set_title (f, session_id, "Mine");
  natter_test_services_settle (f, turn_id);

  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "hello|Mine");
}

static void
rename_on_completion_cb (NatterSessions *sessions,
                         const char     *session_id,
                         const char     *turn_id,
                         JsonObject     *event,
                         guint64         offset,
                         gboolean       *renamed)
{
  if (g_str_equal (json_object_get_string_member (event, "type"), "turn_completed"))
    {
      natter_sessions_set_title_async (sessions, session_id, "Mine after", NULL, NULL, NULL);
      *renamed = TRUE;
    }
}

/* Renamed once the answer is there, while the title may be asked for:
 * the title written under the lock checks again, and the user wins. */
static void
test_rename_after_answer (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *titles = NULL;
  gboolean renamed = FALSE;
  gulong handler;

  SERVE (f, ANSWER, TITLE);
  session_id = natter_test_services_create_session (f);
  handler = g_signal_connect (f->sessions, "turn-event", G_CALLBACK (rename_on_completion_cb), &renamed);
  turn_id = natter_test_services_send (f, session_id, "hello");
  natter_test_services_settle (f, turn_id);
  g_signal_handler_disconnect (f->sessions, handler);
  g_assert_true (renamed);

  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "hello|Mine after");
}

/* A title given at creation is the user's: nothing is asked. */
static void
test_created_with_title (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, ANSWER);
  natter_sessions_create_session_async (f->sessions, "Given", NULL, NULL, NULL, NULL, natter_test_result_cb, &result);
  session_id = natter_sessions_create_session_finish (f->sessions, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  turn_id = natter_test_services_send (f, session_id, "hello");
  natter_test_services_settle (f, turn_id);

  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "");
}

/* The `auto-title` setting off: nothing is asked, whatever the sender's
 * options say. */
static void
test_off (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *titles = NULL;

  g_settings_set_boolean (f->gsettings, "auto-title", FALSE);
  SERVE (f, ANSWER);
  session_id = natter_test_services_create_session (f);
  turn_id = natter_test_services_send (f, session_id, "hello");
  natter_test_services_settle (f, turn_id);

  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "hello");
}

/* Drives the main loop until the scripted server has had @n requests. */
static void
wait_for_requests (Fixture *f,
                   guint    n)
{
  natter_test_wait_for_count (&f->server->bodies->len, n, WAIT_MS);
}

static void
count_index_changes_cb (NatterSessions *sessions,
                        const char     *session_id,
                        guint          *n)
{
  (*n)++;
}

/* The server fails the title request: the derived title stays, nothing
 * is reported, and the next message goes out as usual. */
static void
test_failure_is_silent (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *second = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, ANSWER, BROKEN, ANSWER);
  session_id = natter_test_services_create_session (f);
  turn_id = natter_test_services_send (f, session_id, "hello");
  natter_test_services_settle (f, turn_id);

  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "hello");

  second = natter_test_services_send (f, session_id, "again");
  natter_test_services_settle (f, second);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_clear_pointer (&titles, g_free);
  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "hello");
}

/* A model that refuses `max_tokens` (OpenAI's reasoning models) still
 * names the conversation: the title request goes again with
 * `max_completion_tokens`, and the next one to that model goes with it at
 * once. */
static void
test_server_refuses_max_tokens (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *other = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *titles = NULL;
  g_autoptr(JsonObject) refused = NULL;
  g_autoptr(JsonObject) again = NULL;
  g_autoptr(JsonObject) next = NULL;

  SERVE (f, ANSWER, NATTER_TEST_REFUSE_MAX_TOKENS, TITLE, ANSWER, TITLE);
  session_id = natter_test_services_create_session (f);
  turn_id = natter_test_services_send (f, session_id, "hello");
  natter_test_services_settle (f, turn_id);

  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  refused = natter_test_services_request_body (f, 1);
  again = natter_test_services_request_body (f, 2);
  g_assert_cmpint (json_object_get_int_member (refused, "max_tokens"), ==, 64);
  g_assert_false (json_object_has_member (again, "max_tokens"));
  g_assert_cmpint (json_object_get_int_member (again, "max_completion_tokens"), ==, 64);
  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "hello|Greeting the World");

  g_clear_pointer (&turn_id, g_free);
  other = natter_test_services_create_session (f);
  turn_id = natter_test_services_send (f, other, "hi");
  natter_test_services_settle (f, turn_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 5);
  next = natter_test_services_request_body (f, 4);
  g_assert_cmpint (json_object_get_int_member (next, "max_completion_tokens"), ==, 64);
}

/* The title request does not hold the session: a second message sent
 * as soon as the first answer is there goes out while the title is
 * still being asked for. */
static void
test_next_message_not_delayed (Fixture       *f,
                               gconstpointer  data)
{
  const NatterTestResponse hanging_title = {
    .status = 200, .content_type = SSE, .chunks = NATTER_TEST_CHUNKS (CHUNK ("Slow")), .keep_open = TRUE
  };
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *titles = NULL;
  guint n_changes = 0;

  SERVE (f, ANSWER, hanging_title, ANSWER);
  session_id = natter_test_services_create_session (f);
  first = natter_test_services_send (f, session_id, "hello");
  natter_sessions_wait_for_turn_async (f->sessions, first, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_wait_for_turn_finish (f->sessions, natter_test_services_wait_result (&result), NULL));

  /* The server answers in the order requests arrive: the second message
   * goes once the title request has arrived (and hangs), so that it is
   * the title request that waits. */
  wait_for_requests (f, 2);
  g_signal_connect (f->sessions, "session-index-changed", G_CALLBACK (count_index_changes_cb), &n_changes);
  second = natter_test_services_send (f, session_id, "again");
  g_clear_object (&result);
  natter_sessions_wait_for_turn_async (f->sessions, second, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_wait_for_turn_finish (f->sessions, natter_test_services_wait_result (&result), NULL));
  g_signal_handlers_disconnect_by_func (f->sessions, count_index_changes_cb, &n_changes);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "Write a title"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "again"));

  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "hello");
  /* The hanging request ends with the server; the flush in the tear-down
   * then finds nothing left to wait for. */
  g_clear_pointer (&f->server, natter_test_server_free);
}

static char *
send_first (Fixture    *f,
            const char *text)
{
  g_autofree char *session_id = natter_test_services_create_session (f);
  char *turn_id = natter_test_services_send (f, session_id, text);

  natter_test_services_wait_turn (f, turn_id);
  return turn_id;
}

static const char *
session_of (Fixture    *f,
            const char *turn_id)
{
  return natter_session_index_lookup_session_for_turn (natter_services_get_index (f->services), turn_id);
}

static void
allow (Fixture    *f,
       const char *turn_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_respond_to_permission_async (f->sessions, turn_id, "call_1", "allow", NULL, NULL, natter_test_result_cb,
                                               &result);
  outcome = natter_sessions_respond_to_permission_finish (f->sessions, natter_test_services_wait_result (&result),
                                                          &error);
  g_assert_no_error (error);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_true (natter_services_flush_blocking (f->services, WAIT_MS));
}

/* The title belongs to the conversation, not to the process that sent
 * its first message: the first answer arrives through "allow" in a later
 * process (the app was restarted while the turn waited), and the title
 * is asked for then, once. */
static void
test_after_allow_in_a_later_process (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *turn_id = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, READ_CALL, ANSWER, TITLE);
  turn_id = send_first (f, "Read my notes");
  session_id = g_strdup (session_of (f, turn_id));
  g_assert_cmpuint (f->server->bodies->len, ==, 1);

  natter_test_services_reload (f);
  allow (f, turn_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "Write a title"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "Read my notes"));
  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "Read my notes|Greeting the World");
}

/* The same through the answer to a question the model asked. */
static void
test_after_answer_in_a_later_process (Fixture       *f,
                                      gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, ASK_CALL, ANSWER, TITLE);
  turn_id = send_first (f, "Plan a trip");
  session_id = g_strdup (session_of (f, turn_id));

  natter_test_services_reload (f);
  natter_sessions_respond_to_ask_human_async (f->sessions, turn_id, "call_1", "Lisbon", NULL, natter_test_result_cb, &result);
  outcome = natter_sessions_respond_to_ask_human_finish (f->sessions, natter_test_services_wait_result (&result),
                                                         &error);
  g_assert_no_error (error);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_true (natter_services_flush_blocking (f->services, WAIT_MS));

  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "Plan a trip|Greeting the World");
}

/* A first answer cut off by a crash and finished by "resume" in the next
 * process is named too. */
static void
test_after_resume (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *resumed = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *titles = NULL;

  session_id = natter_test_services_write_interrupted (f, "Tell me a story", &turn_id);
  SERVE (f, ANSWER, TITLE);
  natter_sessions_resume_turn_async (f->sessions, session_id, NULL, natter_test_result_cb, &result);
  resumed = natter_sessions_resume_turn_finish (f->sessions, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (resumed, ==, turn_id);
  natter_test_services_settle (f, turn_id);

  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "Tell me a story|Greeting the World");
}

/* The first answer that completes names the conversation, though it
 * came with the second message (the first failed); later answers ask
 * nothing. */
static void
test_first_completed_answer (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, BROKEN, ANSWER, TITLE, ANSWER);
  session_id = natter_test_services_create_session (f);
  first = natter_test_services_send (f, session_id, "hello");
  natter_test_services_settle (f, first);
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  second = natter_test_services_send (f, session_id, "hello again");
  natter_test_services_settle (f, second);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "User: hello again"));
  third = natter_test_services_send (f, session_id, "and more");
  natter_test_services_settle (f, third);
  g_assert_cmpuint (f->server->bodies->len, ==, 4);

  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "hello|Greeting the World");
}

/* A conversation whose first message was queued (and sent by the queue)
 * is named like any other. */
static void
test_first_message_queued (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
  g_autoptr(JsonObject) input = json_object_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *queue_id = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, ANSWER, TITLE);
  session_id = natter_test_services_create_session (f);
  natter_send_options_set_model (options, "test", "m");
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "Queued first");
  natter_sessions_queue_message_async (f->sessions, session_id, input, options, FALSE, NULL, natter_test_result_cb, &result);
  queue_id = natter_sessions_queue_message_finish (f->sessions, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  wait_for_requests (f, 2);
  g_assert_true (natter_services_flush_blocking (f->services, WAIT_MS));

  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "Queued first|Greeting the World");
}

/* With the setting off, nothing is asked, whoever brings the answer. */
static void
test_setting_off_after_allow (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *turn_id = NULL;
  g_autofree char *titles = NULL;

  g_settings_set_boolean (f->gsettings, "auto-title", FALSE);
  SERVE (f, READ_CALL, ANSWER);
  turn_id = send_first (f, "Read my notes");
  natter_test_services_reload (f);
  allow (f, turn_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  titles = titles_on_disk (f, session_of (f, turn_id));
  g_assert_cmpstr (titles, ==, "Read my notes");
}

/* Renamed while the first answer waited for permission: the title the
 * user typed stays, and nothing is asked. */
static void
test_renamed_before_allow (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *turn_id = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, READ_CALL, ANSWER);
  turn_id = send_first (f, "Read my notes");
  session_id = g_strdup (session_of (f, turn_id));
  set_title (f, session_id, "Mine");
  natter_test_services_reload (f);
  allow (f, turn_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  titles = titles_on_disk (f, session_id);
  g_assert_cmpstr (titles, ==, "Read my notes|Mine");
}

/* Sends @request (taken) through the send pipeline, as the window and
 * `natter send` do, and waits for its turn and what follows it (a title
 * request among it). */
static NatterSendResult *
pipeline_send (Fixture              *f,
               NatterMessageRequest *request)
{
  g_autoptr(NatterMessageRequest) owned = request;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterSendPipeline *pipeline = natter_services_get_send_pipeline (f->services);
  NatterSendResult *sent;

  natter_send_pipeline_send_async (pipeline, owned, NULL, natter_test_result_cb, &result);
  sent = natter_send_pipeline_send_finish (pipeline, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (sent->turn_id);
  natter_test_services_settle (f, sent->turn_id);
  return sent;
}

/* The title the lists show for @session_id's conversation: its head
 * version's. */
static const char *
conversation_title (Fixture    *f,
                    const char *session_id)
{
  NatterSessionIndex *index = natter_services_get_index (f->services);
  g_autoptr(NatterSessionFamilies) families = natter_session_families_new (G_LIST_MODEL (index));
  const char *head = natter_session_families_get_head (families, session_id);

  g_assert_nonnull (head);
  return natter_session_index_entry_get_title (natter_session_index_lookup (index, head));
}

/* A first message that fails, tried again and failing again, then
 * answered on the third try: the version that answered is created with
 * the conversation's title (docs/sessions.md §3), which is still the
 * default its first message derived, so it is named once. */
static void
test_version_of_failed_first_message (Fixture       *f,
                                      gconstpointer  data)
{
  g_autoptr(NatterSendResult) first = NULL;
  g_autoptr(NatterSendResult) retry1 = NULL;
  g_autoptr(NatterSendResult) retry2 = NULL;
  g_autofree char *titles = NULL;
  g_autofree char *version_titles = NULL;

  SERVE (f, BROKEN, BROKEN, ANSWER, TITLE);
  first = pipeline_send (f, natter_message_request_new ("hello"));
  retry1 = pipeline_send (f, natter_message_request_new_again (first->turn_id));
  g_assert_true (retry1->created);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  retry2 = pipeline_send (f, natter_message_request_new_again (retry1->turn_id));
  g_assert_true (retry2->created);

  g_assert_cmpuint (f->server->bodies->len, ==, 4);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 3), "User: hello"));
  version_titles = titles_on_disk (f, retry2->session_id);
  g_assert_cmpstr (version_titles, ==, "Greeting the World");
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (
                     natter_services_get_index (f->services), retry2->session_id)), ==, "Greeting the World");
  g_assert_cmpstr (conversation_title (f, first->session_id), ==, "Greeting the World");
  /* The tries before keep what they had. */
  titles = titles_on_disk (f, first->session_id);
  g_assert_cmpstr (titles, ==, "hello");
  g_clear_pointer (&titles, g_free);
  titles = titles_on_disk (f, retry1->session_id);
  g_assert_cmpstr (titles, ==, "");
}

/* A renamed conversation's failed first message tried again: the new
 * version carries the user's title, which is never replaced. */
static void
test_version_of_renamed (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(NatterSendResult) first = NULL;
  g_autoptr(NatterSendResult) retry = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, BROKEN, ANSWER, TITLE);
  first = pipeline_send (f, natter_message_request_new ("hello"));
  set_title (f, first->session_id, "Mine");
  retry = pipeline_send (f, natter_message_request_new_again (first->turn_id));

  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  titles = titles_on_disk (f, retry->session_id);
  g_assert_cmpstr (titles, ==, "");
  g_assert_cmpstr (conversation_title (f, first->session_id), ==, "Mine");
}

/* A first message sent with its title kept (`natter send
 * --no-auto-title`) gives its versions a title given at creation, even
 * though it reads like the derived one: they are never named either. */
static void
test_version_of_untitled_by_request (Fixture       *f,
                                     gconstpointer  data)
{
  NatterMessageRequest *request = natter_message_request_new ("hello");
  g_autoptr(NatterSendResult) first = NULL;
  g_autoptr(NatterSendResult) retry = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, BROKEN, ANSWER, TITLE);
  natter_message_request_set_auto_title (request, FALSE);
  first = pipeline_send (f, request);
  retry = pipeline_send (f, natter_message_request_new_again (first->turn_id));

  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  titles = titles_on_disk (f, retry->session_id);
  g_assert_cmpstr (titles, ==, "");
  g_assert_cmpstr (conversation_title (f, first->session_id), ==, "hello");
}

/* Another answer to a first message that was answered (and named) is
 * made with the model's title: nothing is asked again. */
static void
test_version_of_answered (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(NatterSendResult) first = NULL;
  g_autoptr(NatterSendResult) retry = NULL;
  g_autofree char *titles = NULL;

  SERVE (f, ANSWER, TITLE, ANSWER, TITLE);
  first = pipeline_send (f, natter_message_request_new ("hello"));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  retry = pipeline_send (f, natter_message_request_new_again (first->turn_id));

  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  titles = titles_on_disk (f, retry->session_id);
  g_assert_cmpstr (titles, ==, "");
  g_assert_cmpstr (conversation_title (f, first->session_id), ==, "Greeting the World");
}

static void
test_title_from_answer (void)
{
  const struct { const char *answer; const char *title; } cases[] = {
    { "Greeting the World", "Greeting the World" },
    { "\"Greeting the World.\"", "Greeting the World" },
    { "Title: **Trip to Lisbon**", "Trip to Lisbon" },
    { "\n\n  «Voyage à Lisbonne»  \nmore", "Voyage à Lisbonne" },
    { "one two three four five six seven eight", "one two three four five six" },
    { "# Heading", "Heading" },
    { "", NULL },
    { "  \"\"  \n", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *title = natter_title_from_answer (cases[i].answer);

      g_assert_cmpstr (title, ==, cases[i].title);
    }
  g_assert_null (natter_title_from_answer (NULL));
}

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, natter_test_services_set_up, func, natter_test_services_tear_down)

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  ADD ("/auto-title/titled-once", test_titled_once);
  ADD ("/auto-title/rename-before-answer", test_rename_before_answer);
  ADD ("/auto-title/rename-after-answer", test_rename_after_answer);
  ADD ("/auto-title/created-with-title", test_created_with_title);
  ADD ("/auto-title/off", test_off);
  ADD ("/auto-title/failure-is-silent", test_failure_is_silent);
  ADD ("/auto-title/server-refuses-max-tokens", test_server_refuses_max_tokens);
  ADD ("/auto-title/next-message-not-delayed", test_next_message_not_delayed);
  ADD ("/auto-title/after-allow-in-a-later-process", test_after_allow_in_a_later_process);
  ADD ("/auto-title/after-answer-in-a-later-process", test_after_answer_in_a_later_process);
  ADD ("/auto-title/after-resume", test_after_resume);
  ADD ("/auto-title/first-completed-answer", test_first_completed_answer);
  ADD ("/auto-title/first-message-queued", test_first_message_queued);
  ADD ("/auto-title/setting-off-after-allow", test_setting_off_after_allow);
  ADD ("/auto-title/renamed-before-allow", test_renamed_before_allow);
  ADD ("/auto-title/version-of-failed-first-message", test_version_of_failed_first_message);
  ADD ("/auto-title/version-of-renamed", test_version_of_renamed);
  ADD ("/auto-title/version-of-untitled-by-request", test_version_of_untitled_by_request);
  ADD ("/auto-title/version-of-answered", test_version_of_answered);
  g_test_add_func ("/auto-title/title-from-answer", test_title_from_answer);
  return g_test_run ();
}
