/* test-cli.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The `natter` command line, end to end: every case runs the
 * REAL built binary ($NATTER_BIN) as a child process against a localhost
 * SoupServer in this process that plays a scripted OpenAI-compatible
 * model. The child has no display and no session bus, so each invocation
 * is its own primary instance (the display-free NatterCliApplication),
 * builds NatterServices over a temporary data directory, takes the
 * single-writer lock, runs one command and exits. The test's main loop
 * keeps serving HTTP while it waits for the child.
 *
 * This file runs the conversations themselves (ask, send, permissions,
 * tool servers, questions, stop, resume, retry) and holds main(); the other
 * scenarios have files of their own (test-cli-organise.c, -titles.c,
 * -archive.c), the shared parts test-cli-fixture.c.
 */

#include "test-cli.h"

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

static void
test_ask_completed (Fixture       *f,
                    gconstpointer  data)
{
  g_auto(NatterTestRun) r;

  script (f, &ANSWER, NULL);
  RUN (f, &r, "ask", "--base-url", f->server->base_url, "--model", "m1", "Say", "hello");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "Hello world\n");
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "\"model\":\"m1\""));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "Say hello"));

  /* A standalone turn is in no session. */
  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
}

static void
test_ask_unreachable (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());

  RUN (f, &r, "ask", "--base-url", url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "natter: Could not reach "));
  g_assert_nonnull (strstr (r.err, "127.0.0.1"));
  /* One line. */
  g_assert_cmpint (strchr (r.err, '\n') - r.err, ==, (int) strlen (r.err) - 1);
}

/* Providers set by hand, none chosen as the default: the first message
 * goes to the first of them, never to an Ollama the person did not ask
 * for. */
static void
test_send_first_listed_provider (Fixture       *f,
                                 gconstpointer  data)
{
  g_auto(NatterTestRun) r;

  use_own_provider_listed (f);
  script (f, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "Say", "hello");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "\"model\":\"m1\""));
}

/* Two providers of the person's own, the default one down: --provider
 * sends to the other by its id, in a new conversation and with --model;
 * with --base-url as well it is refused before anything is sent, and an
 * id of no provider says so plainly. */
static void
test_send_named_provider (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GFile) dir = g_file_resolve_relative_path (f->dir, "glib-2.0/settings");
  g_autoptr(GFile) keyfile = g_file_get_child (dir, "keyfile");
  g_autofree char *text = g_strdup_printf ("[io/github/natter/Natter]\n"
                                           "providers=[('down', 'Down', 'http://127.0.0.1:%u/v1'), "
                                           "('mine', 'Mine', '%s')]\n"
                                           "default-provider='down'\n",
                                           natter_test_closed_port (), f->server->base_url);
  g_auto(NatterTestRun) r;
  g_auto(NatterTestRun) both;
  g_auto(NatterTestRun) unknown;
  g_autofree char *session_id = NULL;

  g_assert_cmpint (g_mkdir_with_parents (g_file_peek_path (dir), 0700), ==, 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (keyfile), text, -1, NULL));
  f->own_provider = TRUE;
  script (f, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--provider", "mine", "--model", "m2", "Say", "hello");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "\"model\":\"m2\""));
  parse_ids (r.out, &session_id, NULL);

  RUN (f, &both, "send", "--provider", "mine", "--base-url", f->server->base_url, "Again");
  g_assert_cmpint (both.status, ==, 2);
  g_assert_nonnull (strstr (both.err, "not both"));
  RUN (f, &unknown, "send", "--provider", "nobody", "Again");
  g_assert_cmpint (unknown.status, ==, 1);
  g_assert_nonnull (strstr (unknown.err, "nobody"));
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
}

static void
test_send_list_show (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *entry;
  JsonObject *shown;
  JsonObject *turn;
  g_autoptr(GList) members = NULL;
  const char *names[] = { "createdAt", "lastAgentId", "lastModel", "latestTurnId", "latestTurnStatus",
                          "pinned", "sessionId", "title", "turnCount", "updatedAt" };
  guint i = 0;

  script (f, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "hello");
  expected = g_strdup_printf ("session %s\nturn %s\n\nHello world\n", session_id, turn_id);
  g_assert_cmpstr (r.out, ==, expected);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, session_id));
  g_assert_true (g_str_has_suffix (r.out, "\thello\n"));
  g_assert_nonnull (strstr (r.out, "\tcompleted\t"));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions", "--json");
  g_assert_cmpint (r.status, ==, 0);
  json = json_from_string (r.out, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (json)), ==, 1);
  entry = json_array_get_object_element (json_node_get_array (json), 0);
  /* Exactly the spec's SessionIndexEntry field names
   * (docs/sessions.md §8.1), and whether the conversation is pinned
   * (docs/sessions.md §16; `folder` only when it is in one). */
  members = json_object_get_members (entry);
  members = g_list_sort (members, (GCompareFunc) strcmp);
  g_assert_cmpuint (g_list_length (members), ==, G_N_ELEMENTS (names));
  for (GList *l = members; l != NULL; l = l->next)
    g_assert_cmpstr (l->data, ==, names[i++]);
  g_assert_cmpstr (json_object_get_string_member (entry, "sessionId"), ==, session_id);
  g_assert_cmpstr (json_object_get_string_member (entry, "latestTurnId"), ==, turn_id);
  g_assert_cmpstr (json_object_get_string_member (entry, "latestTurnStatus"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (entry, "lastAgentId"), ==, "assistant");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (entry, "lastModel"), "provider"),
                   ==, f->server->base_url);
  g_assert_cmpint (json_object_get_int_member (entry, "turnCount"), ==, 1);
  g_clear_pointer (&json, json_node_unref);

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "user: hello\n"));
  g_assert_nonnull (strstr (r.out, "assistant: Hello world\n"));
  g_assert_nonnull (strstr (r.out, " completed "));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id, "--json");
  g_assert_cmpint (r.status, ==, 0);
  json = json_from_string (r.out, &error);
  g_assert_no_error (error);
  shown = json_node_get_object (json);
  g_assert_cmpstr (json_object_get_string_member (shown, "sessionId"), ==, session_id);
  turn = json_array_get_object_element (json_object_get_array_member (shown, "turns"), 0);
  g_assert_cmpstr (json_object_get_string_member (turn, "turnId"), ==, turn_id);
  g_assert_cmpstr (json_object_get_string_member (turn, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (turn, "input"), ==, "hello");
  g_assert_cmpstr (json_object_get_string_member (turn, "answer"), ==, "Hello world");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (turn, "toolCalls")), ==, 0);
  /* Its speed, as the turn file lets it be read (docs/format.md §4.2):
   * the text streamed, so the time to its first token is known; the
   * server reported no usage, so no tokens per second is made up. The
   * exact figures under a fake clock are test-speed's. */
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (turn, "timeToFirstTokenMs")), ==, G_TYPE_INT64);
  g_assert_cmpint (json_object_get_int_member (turn, "timeToFirstTokenMs"), >=, 0);
  g_assert_false (json_object_has_member (turn, "tokensPerSecond"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (turn, "modelCalls")), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (
                     json_object_get_array_member (turn, "modelCalls"), 0), "timeToFirstTokenMs"), ==,
                   json_object_get_int_member (turn, "timeToFirstTokenMs"));

  /* A second message continues the session with the same model and
   * without repeating an option; its context is the first turn. */
  g_ptr_array_add (f->server->script, (gpointer) &ANSWER);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "and", "again");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "and again"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "Hello world"));
}

/* The read_file call needs permission: send suspends and prints what it
 * waits for; a new message is refused; allow continues the turn with the
 * endpoint recorded in the turn, no option repeated. */
static void
test_permission_allow (Fixture       *f,
                       gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *waiting = NULL;
  g_autofree char *expected = NULL;

  script (f, &f->server->read_step, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "read", "my", "notes");
  waiting = g_strdup_printf ("session %s\nturn %s\nwaiting: permission call_1 read_file ", session_id, turn_id);
  g_assert_true (g_str_has_prefix (r.out, waiting));
  g_assert_nonnull (strstr (r.out, "notes.txt"));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_nonnull (strstr (r.out, "\tsuspended\t"));

  /* Turn not settled. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "hurry");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "natter: The latest turn "));
  g_assert_nonnull (strstr (r.err, "suspended"));

  natter_test_run_clear (&r);
  RUN (f, &r, "allow", turn_id, "call_1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  expected = g_strdup_printf ("session %s\nturn %s\n\nHello world\n", session_id, turn_id);
  g_assert_cmpstr (r.out, ==, expected);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  /* The same model, and the tool really ran. */
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "\"model\":\"m1\""));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "plum"));

  /* A second decision for the same call is the runtime's error. */
  natter_test_run_clear (&r);
  RUN (f, &r, "allow", turn_id, "call_1");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: "));
}

static void
test_permission_deny (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *turn;
  JsonObject *call;

  script (f, &f->server->read_step, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "read", "my", "notes");

  natter_test_run_clear (&r);
  RUN (f, &r, "deny", turn_id, "call_1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_null (strstr (g_ptr_array_index (f->server->bodies, 1), "plum"));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id, "--json");
  json = json_from_string (r.out, &error);
  g_assert_no_error (error);
  turn = json_array_get_object_element (json_object_get_array_member (json_node_get_object (json), "turns"), 0);
  call = json_array_get_object_element (json_object_get_array_member (turn, "toolCalls"), 0);
  g_assert_cmpstr (json_object_get_string_member (call, "toolCallId"), ==, "call_1");
  g_assert_cmpstr (json_object_get_string_member (call, "toolName"), ==, "read_file");
  g_assert_cmpstr (json_object_get_string_member (call, "status"), ==, "denied");
}

static void
test_ask_human_answer (Fixture       *f,
                       gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;

  script (f, &ASK_COLOUR, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "paint", "it");
  g_assert_true (g_str_has_suffix (r.out, "\nwaiting: question call_1 Which colour?\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "answer", turn_id, "call_1", "deep", "blue");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "deep blue"));
}

static void
test_stop (Fixture       *f,
           gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;

  script (f, &f->server->read_step, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "read", "my", "notes");

  natter_test_run_clear (&r);
  RUN (f, &r, "stop", turn_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\ncancelled\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_nonnull (strstr (r.out, "\tcancelled\t"));
}

/* A process killed mid-stream leaves its turn idle; `resume` re-issues the
 * interrupted call against the endpoint recorded in the turn. */

static void
test_resume_idle (Fixture       *f,
                  gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;

  script (f, &HANG, &ANSWER, NULL);
  session_id = send_killed_mid_answer (f, "--no-auto-title");

  natter_test_run_clear (&r);
  RUN (f, &r, "resume", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);

  /* Only an idle turn can be resumed. */
  natter_test_run_clear (&r);
  RUN (f, &r, "resume", session_id);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: "));
}

/* The id of the only turn of @session_id. */
static char *
only_turn (Fixture    *f,
           const char *session_id)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autoptr(JsonNode) shown = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *turns;

  RUN (f, &r, "show", session_id, "--json");
  g_assert_cmpint (r.status, ==, 0);
  shown = json_from_string (r.out, &error);
  g_assert_no_error (error);
  turns = json_object_get_array_member (json_node_get_object (shown), "turns");
  g_assert_cmpuint (json_array_get_length (turns), ==, 1);
  return g_strdup (json_object_get_string_member (json_array_get_object_element (turns, 0), "turnId"));
}

/* The `model_call_failed` line of @turn_id's file that closed call 0. */
static JsonObject *
closing_of_first_call (Fixture    *f,
                       const char *turn_id)
{
  g_autofree char *path = turn_file_path (f, turn_id);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "\"model_call_failed\"") != NULL)
      {
        g_autoptr(JsonNode) line = json_from_string (lines[i], &error);

        g_assert_no_error (error);
        g_assert_cmpint (json_object_get_int_member (json_node_get_object (line), "modelCallIndex"), ==, 0);
        return json_object_ref (json_node_get_object (line));
      }
  g_assert_not_reached ();
}

/* What a killed process had streamed is not lost (docs/format.md §11):
 * kept on disk while it streamed, it becomes the interrupted call's
 * partial answer when the turn is resumed, before the call is asked
 * again; the kept file goes once the log holds the words. */
static void
test_resume_keeps_streamed_words (Fixture       *f,
                                  gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(JsonObject) closing = NULL;
  g_autoptr(GPtrArray) kept = NULL;
  g_autofree char *words = NULL;

  script (f, &HANG, &ANSWER, NULL);
  session_id = send_killed_after_words_kept (f, "--no-auto-title");
  turn_id = only_turn (f, session_id);

  /* A turn's id where the session's belongs is said as such. */
  RUN (f, &r, "resume", turn_id);
  g_assert_cmpint (r.status, ==, 1);
  {
    g_autofree char *said = g_strdup_printf ("natter: %s is a turn, not a session: give its conversation", turn_id);

    g_assert_true (g_str_has_prefix (r.err, said));
  }
  natter_test_run_clear (&r);

  /* Shown before anything is chosen, as the window shows them. */
  RUN (f, &r, "show", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_nonnull (strstr (r.out, "\nassistant (interrupted mid-answer): Hel\n"));
  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id, "--json");
  {
    g_autoptr(JsonNode) shown = json_from_string (r.out, NULL);
    JsonObject *turn = json_array_get_object_element (json_object_get_array_member (json_node_get_object (shown),
                                                                                    "turns"), 0);

    g_assert_cmpstr (json_object_get_string_member (turn, "status"), ==, "idle");
    g_assert_cmpstr (json_object_get_string_member (turn, "partialAnswer"), ==, "Hel");
    g_assert_cmpstr (json_object_get_string_member (turn, "partialEnd"), ==, "interrupted");
  }
  natter_test_run_clear (&r);

  RUN (f, &r, "resume", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  natter_test_run_clear (&r);

  /* Shown after, cut off, above the answer asked again. */
  RUN (f, &r, "show", session_id);
  g_assert_nonnull (strstr (r.out, "\nassistant (cut off mid-answer): Hel\nassistant: Hello world\n"));
  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id, "--json");
  {
    g_autoptr(JsonNode) shown = json_from_string (r.out, NULL);
    JsonObject *turn = json_array_get_object_element (json_object_get_array_member (json_node_get_object (shown),
                                                                                    "turns"), 0);
    JsonArray *partials = json_object_get_array_member (turn, "partialAnswers");

    g_assert_cmpstr (json_object_get_string_member (turn, "answer"), ==, "Hello world");
    g_assert_false (json_object_has_member (turn, "partialAnswer"));
    g_assert_cmpuint (json_array_get_length (partials), ==, 1);
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (partials, 0), "text"), ==, "Hel");
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (partials, 0), "end"), ==,
                     "cut-off");
  }

  closing = closing_of_first_call (f, turn_id);
  g_assert_cmpstr (json_object_get_string_member (closing, "error"), ==, "interrupted");
  words = natter_json_content_text (json_object_get_member (json_object_get_object_member (closing, "partial"),
                                                            "content"), "");
  g_assert_cmpstr (words, ==, "Hel");
  kept = natter_test_list_files (f->dir, "streams");
  g_assert_cmpuint (kept->len, ==, 0);
  /* The words are history of the turn, never sent back to the model. */
  g_assert_null (strstr (g_ptr_array_index (f->server->bodies, 1), "Hel"));
}

/* Kept words that cannot be read are not lost to a resume or a stop of
 * the turn: the command says so in one line naming the file, closes the
 * call without them (with @error), and leaves their file as it is, also
 * while an answer asked again streams. */
static void
unreadable_kept_words (Fixture    *f,
                       const char *command,
                       const char *contents,
                       const char *error)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *kept = NULL;
  g_autofree char *after = NULL;
  g_autoptr(JsonObject) closing = NULL;
  gboolean resume = g_str_equal (command, "resume");

  script (f, &HANG, &ANSWER, NULL);
  session_id = send_killed_after_words_kept (f, "--no-auto-title");
  turn_id = only_turn (f, session_id);
  kept = g_strdup_printf ("%s/streams/%s.json", g_file_peek_path (f->dir), turn_id);
  g_assert_true (g_file_set_contents (kept, contents, -1, NULL));

  /* show says so too, and shows the rest. */
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.err, "natter: The words kept in"));
  g_assert_nonnull (strstr (r.out, "\nuser: hello\n"));
  g_assert_null (strstr (r.out, "assistant"));
  natter_test_run_clear (&r);

  RUN (f, &r, command, resume ? session_id : turn_id);
  g_assert_cmpint (r.status, ==, 0);
  if (resume)
    g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_true (g_str_has_prefix (r.err, "natter: The words kept in"));
  g_assert_nonnull (strstr (r.err, kept));
  g_assert_true (g_str_has_suffix (r.err, resume ? ". The conversation goes on without the words that had "
                                            "arrived; the file is left as it is, so the words of the answer asked "
                                            "for now are not kept as they come in case this command is killed\n"
                                          : ". The conversation goes on without the words that had arrived; "
                                            "the file is left as it is\n"));
  g_assert_cmpuint (strchr (r.err, '\n') - r.err, ==, strlen (r.err) - 1);
  closing = closing_of_first_call (f, turn_id);
  g_assert_cmpstr (json_object_get_string_member (closing, "error"), ==, error);
  g_assert_false (json_object_has_member (closing, "partial"));
  g_assert_true (g_file_get_contents (kept, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, contents);
}

static void
test_resume_unreadable_kept_words (Fixture       *f,
                                   gconstpointer  data)
{
  unreadable_kept_words (f, "resume", "{\"turnId\": \"cut", "interrupted");
}

static void
test_stop_unreadable_kept_words (Fixture       *f,
                                 gconstpointer  data)
{
  unreadable_kept_words (f, "stop", "[]", "cancelled");
}

/* Stopping the turn a killed process left keeps its words too, as a
 * stop of a live answer does: shown, marked as stopped. */
static void
test_stop_keeps_streamed_words (Fixture       *f,
                                gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(JsonObject) closing = NULL;
  g_autoptr(JsonNode) shown = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *turn;

  script (f, &HANG, NULL);
  session_id = send_killed_after_words_kept (f, "--no-auto-title");
  turn_id = only_turn (f, session_id);

  RUN (f, &r, "stop", turn_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  closing = closing_of_first_call (f, turn_id);
  g_assert_cmpstr (json_object_get_string_member (closing, "error"), ==, "cancelled");
  g_assert_true (json_object_has_member (closing, "partial"));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id, "--json");
  shown = json_from_string (r.out, &error);
  g_assert_no_error (error);
  turn = json_array_get_object_element (json_object_get_array_member (json_node_get_object (shown), "turns"), 0);
  g_assert_cmpstr (json_object_get_string_member (turn, "partialAnswer"), ==, "Hel");
  g_assert_cmpstr (json_object_get_string_member (turn, "partialEnd"), ==, "stopped");
}

/* The turn left by a killed send becomes another device's once this
 * data folder says it is another device: its answer is being written
 * there (docs/format.md §4.5). The script must hang at the first
 * model call. Returns the session, and in @name the
 * name the turn records for its device. */
static char *
send_answered_elsewhere (Fixture  *f,
                         char    **name)
{
  g_autofree char *device_path = g_build_filename (g_file_peek_path (f->dir), "device", NULL);
  g_autoptr(GKeyFile) device = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  char *session_id;

  session_id = send_killed_mid_answer (f, "--no-auto-title");
  g_assert_true (g_key_file_load_from_file (device, device_path, G_KEY_FILE_KEEP_COMMENTS, &error));
  g_assert_no_error (error);
  *name = g_key_file_get_string (device, "Device", "Name", NULL);
  g_assert_nonnull (*name);
  g_key_file_set_string (device, "Device", "Id", "0b5e8f7e-6a3d-4c61-9d1e-2f4a7c9b3e10");
  g_assert_true (g_key_file_save_to_file (device, device_path, &error));
  g_assert_no_error (error);
  return session_id;
}

/* A turn another device is answering is listed as running there, not
 * as idle like one a crash cut short (docs/format.md §4.5). */
static void
test_sessions_elsewhere (Fixture       *f,
                         gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *line = NULL;
  g_autoptr(JsonNode) listed = NULL;
  JsonObject *entry;

  script (f, &HANG, NULL);
  session_id = send_answered_elsewhere (f, &name);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  line = g_strdup_printf ("%s\telsewhere\t", session_id);
  g_assert_true (g_str_has_prefix (r.out, line));
  g_free (line);
  line = g_strdup_printf ("\ton %s\n", name);
  g_assert_true (g_str_has_suffix (r.out, line));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions", "--json");
  g_assert_cmpint (r.status, ==, 0);
  listed = json_from_string (r.out, &error);
  g_assert_no_error (error);
  entry = json_array_get_object_element (json_node_get_array (listed), 0);
  g_assert_cmpstr (json_object_get_string_member (entry, "latestTurnStatus"), ==, "idle");
  g_assert_true (json_object_get_boolean_member_with_default (entry, "latestTurnElsewhere", FALSE));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (entry, "latestTurnDevice"),
                                                  "name"), ==, name);
}

/* While another device writes the answer, the session file is that
 * device's: it appends to it as the answer ends (docs/format.md §4.5).
 * A new title is refused as a message is, naming the device, with
 * nothing written; once the answer has ended it is taken. */
static void
test_title_elsewhere (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *name = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *said = NULL;
  g_autofree char *title = NULL;

  script (f, &HANG, &ANSWER, NULL);
  session_id = send_answered_elsewhere (f, &name);
  before = session_file_contents (f, session_id);

  natter_test_run_clear (&r);
  RUN (f, &r, "title", session_id, "Renamed here");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  said = g_strdup_printf ("natter: The answer is being written on another device (“%s”); the conversation can be "
                          "renamed here once it has ended\n", name);
  g_assert_cmpstr (r.err, ==, said);
  after = session_file_contents (f, session_id);
  g_assert_cmpstr (after, ==, before);

  /* The same rule as a message's: `send` is refused for the same reason. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "And then?");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "The answer is being written on another device"));
  g_assert_nonnull (strstr (r.err, name));

  /* Continued here, the answer ends here, and the title can change. */
  natter_test_run_clear (&r);
  RUN (f, &r, "resume", "--here", session_id);
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "title", session_id, "Renamed here");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "Renamed here");
}

/* `natter sync` on a fresh data folder writes the ignore patterns Natter
 * keeps there itself, and says so: the state after the write, never the
 * one before it (docs/sync.md). */
static void
test_sync_fresh (Fixture       *f,
                 gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *ignore = g_build_filename (g_file_peek_path (f->dir), ".stignore", NULL);
  g_autofree char *line = g_strdup_printf ("\nignore-file %s written\n", ignore);
  g_autofree char *again = g_strdup_printf ("\nignore-file %s current\n", ignore);
  g_autofree char *contents = NULL;

  g_assert_false (g_file_test (ignore, G_FILE_TEST_EXISTS));
  RUN (f, &r, "sync");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, line));
  g_assert_true (g_file_get_contents (ignore, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "// BEGIN Natter"));

  natter_test_run_clear (&r);
  RUN (f, &r, "sync");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, again));
}

/* A failed message tried again from the command line is a new version
 * of it, as in the window: `natter retry TURN` sends it once more, and
 * the model receives it once. */
static void
test_retry_failed (Fixture       *f,
                   gconstpointer  data)
{
  static const Step DOWN = { "data: {\"error\":{\"message\":\"The server is overloaded\"}}\n\n", FALSE };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *failed_id = NULL;
  g_autofree char *version_id = NULL;
  g_autofree char *hint = NULL;
  const char *body;

  script (f, &ANSWER, &DOWN, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "first");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "second");
  g_assert_cmpint (r.status, ==, 1);
  parse_ids (r.out, NULL, &failed_id);
  hint = g_strdup_printf ("(“natter retry %s” sends the message again)\n", failed_id);
  g_assert_true (g_str_has_suffix (r.err, hint));

  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &version_id, NULL, "retry", failed_id);
  g_assert_cmpstr (version_id, !=, session_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  body = g_ptr_array_index (f->server->bodies, 2);
  g_assert_nonnull (strstr (body, "\"first\""));
  g_assert_nonnull (strstr (body, "\"second\""));
  g_assert_null (strstr (strstr (body, "\"second\"") + 1, "\"second\""));

  /* The failed try stays in its version. */
  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_nonnull (strstr (r.out, "\tfailed\t"));
  g_assert_nonnull (strstr (r.out, "\tcompleted\t"));
}

/* A message sent with parameters of its own goes again with them, as the
 * window's Try Again sends it (one pipeline): over the conversation's
 * settings as they are at the retry, which the message's own still win. */
static void
test_retry_keeps_message_parameters (Fixture       *f,
                                     gconstpointer  data)
{
  static const Step DOWN = { "data: {\"error\":{\"message\":\"The server is overloaded\"}}\n\n", FALSE };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *failed_id = NULL;
  g_autoptr(JsonObject) failed = NULL;
  g_autoptr(JsonObject) again = NULL;

  script (f, &ANSWER, &DOWN, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, NULL, NEW_SESSION (f), "first");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--temperature", "0.2", "--seed", "7", "second");
  g_assert_cmpint (r.status, ==, 1);
  parse_ids (r.out, NULL, &failed_id);
  failed = request_body (f, 1);
  g_assert_cmpfloat (json_object_get_double_member (failed, "temperature"), ==, 0.2);

  /* The conversation's own settings change before the retry. */
  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--temperature", "1.5", "--top-p", "0.5");
  g_assert_cmpint (r.status, ==, 0);

  natter_test_run_clear (&r);
  RUN (f, &r, "retry", failed_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  again = request_body (f, 2);
  g_assert_cmpfloat (json_object_get_double_member (again, "temperature"), ==, 0.2);
  g_assert_cmpint (json_object_get_int_member (again, "seed"), ==, 7);
  g_assert_cmpfloat (json_object_get_double_member (again, "top_p"), ==, 0.5);
}

/* Two exchanges sent with the CLI, the first turn's file then torn:
 * the session's id, both turns' and the torn file's path (all transfer
 * full). */
static void
two_turns_first_torn (Fixture  *f,
                      char    **session_id,
                      char    **first_id,
                      char    **second_id,
                      char    **path)
{
  g_auto(NatterTestRun) r = { 0 };

  script (f, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, session_id, first_id, NEW_SESSION (f), "first");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, NULL, second_id, "send", "--session", *session_id, "second");
  *path = turn_file_path (f, *first_id);
  append_to_turn_file (f, *first_id, "{\"type\":\"turn_comp");
}

/* @r was refused for the damage in @path, with @hint, the way out, as
 * its last line. */
static void
assert_refused_for_damage (NatterTestRun *r,
                           const char    *path,
                           const char    *hint)
{
  g_assert_cmpint (r->status, ==, 1);
  g_assert_cmpstr (r->out, ==, "");
  g_assert_nonnull (strstr (r->err, path));
  g_assert_true (g_str_has_suffix (r->err, hint));
}

/* An earlier turn's file damaged: `send` is refused, naming the file and
 * the way out, and nothing is sent; recover copies the part before. */
static void
test_send_damaged_history (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *second_id = NULL;
  g_autofree char *path = NULL;
  g_autofree char *hint = NULL;

  two_turns_first_torn (f, &session_id, &turn_id, &second_id, &path);
  RUN (f, &r, "send", "--session", session_id, "third");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "natter: The history of session "));
  g_assert_nonnull (strstr (r.err, path));
  hint = g_strdup_printf ("natter recover %s\n", session_id);
  g_assert_true (g_str_has_suffix (r.err, hint));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);

  /* Reading it fails as plainly, with the same way out. */
  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  assert_refused_for_damage (&r, path, hint);
  natter_test_run_clear (&r);
  RUN (f, &r, "export", session_id);
  assert_refused_for_damage (&r, path, hint);

  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id);
  g_assert_cmpint (r.status, ==, 0);
}

/* Messages queued in a conversation whose answer was then torn: `natter
 * recover` makes a copy that still holds them queued (`natter queue`
 * lists them there), so the person's words are not stranded in a
 * conversation nothing can be sent in. */
static void
test_recover_keeps_queue (Fixture       *f,
                          gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *queue_id = NULL;
  g_autofree char *copy_id = NULL;
  g_autofree char *listed = NULL;

  script (f, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, NULL, NEW_SESSION (f), "first");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, NULL, &turn_id, "send", "--session", session_id, "second");
  queue_id = natter_test_store_queued (f->dir, session_id, "waiting words", f->server->base_url, "m1");

  append_to_turn_file (f, turn_id, "{\"type\":\"turn_comp");

  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  copy_id = natter_test_session_of (r.out);

  natter_test_run_clear (&r);
  RUN (f, &r, "queue", copy_id);
  g_assert_cmpint (r.status, ==, 0);
  listed = g_strdup_printf ("%s\t", queue_id);
  g_assert_true (g_str_has_prefix (r.out, listed));
  g_assert_nonnull (strstr (r.out, "\twaiting words\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
}

/* `natter recover` says in plain words which message the copy left
 * out and gives its words to send again (a control character in them
 * as its stand-in, its lines kept); `--json` gives the same to a script,
 * the words as they were written. */
static void
test_recover_prints_left_out_message (Fixture       *f,
                                      gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *second_id = NULL;
  g_autofree char *path = NULL;
  g_autofree char *note = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;
  JsonObject *left_out;

  script (f, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &first_id, NEW_SESSION (f), "first");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, NULL, &second_id, "send", "--session", session_id, "second line one\nline \033two");
  path = turn_file_path (f, second_id);
  append_to_turn_file (f, second_id, "{\"type\":\"turn_comp");

  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  g_assert_nonnull (strchr (r.out, '\n'));
  g_assert_cmpstr (strchr (r.out, '\n'), ==, "\n");
  note = g_strdup_printf ("The copy ends where the session cannot be read: %s:", path);
  g_assert_true (g_str_has_prefix (r.err, note));
  g_assert_true (g_str_has_suffix (r.err, "Message 2 is not in the copy. Its words, not sent — send them again in "
                                          "the new session if you want them:\nsecond line one\nline \u241btwo\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id, "--json");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  root = json_from_string (r.out, &error);
  g_assert_no_error (error);
  object = json_node_get_object (root);
  g_assert_true (natter_id_validate (json_object_get_string_member (object, "sessionId"), NULL));
  g_assert_cmpint (json_object_get_int_member (object, "turnCount"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "damage"), "file"), ==,
                   path);
  g_assert_nonnull (json_object_get_string_member (json_object_get_object_member (object, "damage"), "reason"));
  left_out = json_object_get_object_member (object, "leftOut");
  g_assert_nonnull (left_out);
  g_assert_cmpint (json_object_get_int_member (left_out, "position"), ==, 2);
  g_assert_true (json_object_get_boolean_member (left_out, "readable"));
  g_assert_cmpstr (json_object_get_string_member (left_out, "message"), ==, "second line one\nline \033two");
}

/* The first message's file torn in its first line: nothing could be
 * copied, and not even that message's words can be read; `recover`
 * says both rather than print a copy's id alone. */
static void
test_recover_unreadable_first_message (Fixture       *f,
                                       gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *path = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *left_out;

  script (f, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &first_id, NEW_SESSION (f), "first");
  path = turn_file_path (f, first_id);
  g_assert_true (g_file_set_contents (path, "{\"type\":\"turn_cr", -1, NULL));

  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "Nothing could be copied: the damage is in the first message. "
                                   "The new session holds no message.\n"));
  g_assert_true (g_str_has_suffix (r.err, "Message 1 is not in the copy, and its words cannot be read either.\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id, "--json");
  g_assert_cmpint (r.status, ==, 0);
  root = json_from_string (r.out, NULL);
  g_assert_nonnull (root);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "turnCount"), ==, 0);
  left_out = json_object_get_object_member (json_node_get_object (root), "leftOut");
  g_assert_cmpint (json_object_get_int_member (left_out, "position"), ==, 1);
  g_assert_false (json_object_get_boolean_member (left_out, "readable"));
  g_assert_false (json_object_has_member (left_out, "message"));
}

/* The latest turn's file damaged: `send` is refused as when an earlier
 * one is, naming the file and the same way out, and nothing is sent. */
static void
test_send_damaged_latest_turn (Fixture       *f,
                               gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *path = NULL;
  g_autofree char *hint = NULL;

  script (f, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "first");

  path = turn_file_path (f, turn_id);
  append_to_turn_file (f, turn_id, "{\"type\":\"turn_comp");

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "second");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, path));
  hint = g_strdup_printf ("natter recover %s\n", session_id);
  g_assert_true (g_str_has_suffix (r.err, hint));
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
}

/* `retry` refused because the history cannot be read gives the way out
 * a refused `send` gives, whether or not --session names the
 * conversation, and so does `compact`; nothing is sent. */
static void
test_retry_damaged_history (Fixture       *f,
                            gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *second_id = NULL;
  g_autofree char *path = NULL;
  g_autofree char *hint = NULL;

  two_turns_first_torn (f, &session_id, &first_id, &second_id, &path);
  hint = g_strdup_printf ("natter recover %s\n", session_id);
  /* The damaged turn itself, tried again. */
  RUN (f, &r, "retry", first_id);
  assert_refused_for_damage (&r, path, hint);
  natter_test_run_clear (&r);
  RUN (f, &r, "retry", "--session", session_id, first_id);
  assert_refused_for_damage (&r, path, hint);
  natter_test_run_clear (&r);
  RUN (f, &r, "retry", second_id);
  assert_refused_for_damage (&r, path, hint);

  natter_test_run_clear (&r);
  RUN (f, &r, "retry", "--session", session_id, second_id);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, path));
  g_assert_true (g_str_has_suffix (r.err, hint));

  /* Nor is it summarized. */
  natter_test_run_clear (&r);
  RUN (f, &r, "compact", session_id, "--keep", "1");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, path));
  g_assert_true (g_str_has_suffix (r.err, hint));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
}

/* A recovered copy holds turns first sent in the damaged session:
 * `natter retry TURN` finds the conversations that hold the turn,
 * refuses to choose between two of them (naming both, and --session),
 * goes on in the one --session names, and in the only one left once
 * the damaged session is deleted. */
static void
test_retry_in_recovered_copy (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *second_id = NULL;
  g_autofree char *copy_id = NULL;
  g_autofree char *version_id = NULL;
  g_autofree char *other_id = NULL;

  script (f, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &first_id, NEW_SESSION (f), "first");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, NULL, &second_id, "send", "--session", session_id, "second");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "third");
  g_assert_cmpint (r.status, ==, 0);

  append_to_turn_file (f, second_id, "{\"type\":\"turn_comp");
  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  copy_id = natter_test_session_of (r.out);

  /* Both hold the first turn: nothing is guessed, nothing sent. */
  natter_test_run_clear (&r);
  RUN (f, &r, "retry", first_id);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, session_id));
  g_assert_nonnull (strstr (r.err, copy_id));
  g_assert_nonnull (strstr (r.err, "--session"));
  g_assert_cmpuint (f->server->bodies->len, ==, 3);

  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &version_id, NULL, "retry", "--session", copy_id, first_id);
  g_assert_cmpstr (version_id, !=, copy_id);
  g_assert_cmpstr (version_id, !=, session_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 4);

  /* The damaged session deleted: the copy is the one that holds it. */
  natter_test_run_clear (&r);
  RUN (f, &r, "delete", session_id);
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &other_id, NULL, "retry", first_id);
  g_assert_cmpstr (other_id, !=, version_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 5);
}

/* The conversation @id is listed as a version of in `natter sessions
 * --json`, "" for none. */
static char *
listed_version_of (Fixture    *f,
                   const char *id)
{
  g_autoptr(JsonObject) entry = listed_entry (f, id);

  return g_strdup (json_object_get_string_member_with_default (entry, "versionOf", ""));
}

/* The temperature the last model call was sent with. */
static double
last_temperature (Fixture *f)
{
  g_autoptr(JsonNode) body = natter_test_json (g_ptr_array_index (f->server->bodies, f->server->bodies->len - 1));

  return json_object_get_double_member_with_default (json_node_get_object (body), "temperature", -1);
}

/* Tried again (or edited) in a recovered copy, a message makes a version
 * of the copy, the conversation the person goes on with, and it is sent
 * with what the copy keeps: the first message as well as a later one,
 * though both turns were first sent in the damaged conversation, which
 * names them too. */
static void
test_retry_versions_of_recovered_copy (Fixture       *f,
                                       gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *second_id = NULL;
  g_autofree char *third_id = NULL;
  g_autofree char *copy_id = NULL;
  g_autofree char *of_first = NULL;
  g_autofree char *of_second = NULL;
  g_autofree char *listed = NULL;

  script (f, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &first_id, NEW_SESSION (f), "first");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, NULL, &second_id, "send", "--session", session_id, "second");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, NULL, &third_id, "send", "--session", session_id, "third");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "fourth");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--temperature", "0.25");
  g_assert_cmpint (r.status, ==, 0);

  append_to_turn_file (f, third_id, "{\"type\":\"turn_comp");
  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id);
  g_assert_cmpint (r.status, ==, 0);
  copy_id = natter_test_session_of (r.out);
  natter_test_run_clear (&r);
  RUN (f, &r, "params", copy_id, "--temperature", "0.75");
  g_assert_cmpint (r.status, ==, 0);

  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &of_second, NULL, "retry", "--session", copy_id, second_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 5);
  g_assert_cmpfloat (last_temperature (f), ==, 0.75);
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &of_first, NULL, "retry", "--session", copy_id, first_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 6);
  g_assert_cmpfloat (last_temperature (f), ==, 0.75);

  listed = listed_version_of (f, of_second);
  g_assert_cmpstr (listed, ==, copy_id);
  g_free (listed);
  listed = listed_version_of (f, of_first);
  g_assert_cmpstr (listed, ==, copy_id);
  g_free (listed);
  listed = listed_version_of (f, copy_id);
  g_assert_cmpstr (listed, ==, "");
}

/* `sessions --json` writes its array an entry at a time; what it prints
 * is still one document, spelled exactly as the whole array would be,
 * across the pieces it is written in (1,000 titled sessions are several),
 * a damaged session's entry included, and with no session at all. */
static void
test_sessions_json_streamed (Fixture       *f,
                             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autoptr(GFile) storage = g_file_get_child (f->dir, "storage");
  g_autoptr(NatterJsonlRepo) repo = natter_session_repo_new (storage);
  g_autoptr(NatterFakeClock) clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NATTER_CLOCK (clock));
  g_autofree char *damaged = NULL;
  g_autofree char *whole = NULL;
  g_autoptr(JsonNode) printed = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *entries;
  guint n_errors = 0;

  RUN (f, &r, "sessions", "--json");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "[]\n");

  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *id = natter_id_generator_next (ids);
      g_autofree char *line = g_strdup_printf ("{\"type\":\"session_created\",\"sessionId\":\"%s\","
                                               "\"ts\":\"2026-11-01T10:00:00.000Z\",\"schemaVersion\":1,"
                                               "\"title\":\"Conversation %u about \\\"quotes\\\" and "
                                               "new\\nlines, long enough to take some room\"}", id, i);
      g_autoptr(JsonNode) event = natter_test_json (line);

      g_assert_true (natter_jsonl_repo_create_sync (repo, id, event, NULL, &error));
      g_assert_no_error (error);
      if (i == 123)
        damaged = g_steal_pointer (&id);
    }
  {
    g_autoptr(GFile) file = natter_jsonl_repo_get_file (repo, damaged, NULL);

    natter_test_append_file (g_file_peek_path (file), "{\"type\":\"nonsense\"");
  }

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions", "--json");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpuint (strlen (r.out), >, 4 * 64 * 1024);
  printed = json_from_string (r.out, &error);
  g_assert_no_error (error);
  entries = json_node_get_array (printed);
  g_assert_cmpuint (json_array_get_length (entries), ==, 1000);
  for (guint i = 0; i < 1000; i++)
    {
      JsonObject *entry = json_array_get_object_element (entries, i);

      if (json_object_has_member (entry, "error"))
        {
          g_assert_cmpstr (json_object_get_string_member (entry, "sessionId"), ==, damaged);
          n_errors++;
        }
      else
        g_assert_nonnull (strstr (json_object_get_string_member (entry, "title"), "\"quotes\" and new\nlines"));
    }
  g_assert_cmpuint (n_errors, ==, 1);
  whole = natter_json_to_text (printed, TRUE, NULL);
  g_assert_true (g_str_has_suffix (r.out, "\n"));
  g_assert_cmpuint (strlen (r.out), ==, strlen (whole) + 1);
  g_assert_true (strncmp (r.out, whole, strlen (whole)) == 0);
}

/* A tool server's tool is offered by `send` and runs once allowed. */
static void
test_send_mcp_tool (Fixture       *f,
                    gconstpointer  data)
{
  static const Step MCP_ECHO = {
    TOOL_CALL ("call_1", "mcp__fake__echo", "{\\\"message\\\":\\\"hi\\\"}") FINISH ("tool_calls") DONE, FALSE
  };
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script_path = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  g_autofree char *config_dir = g_build_filename (g_file_peek_path (f->dir), "natter", NULL);
  g_autofree char *config = g_build_filename (config_dir, "mcp.json", NULL);
  g_autofree char *text = g_strdup_printf ("{\"mcpServers\": {\"fake\": {\"command\": \"%s\", \"args\": [\"%s\"]}}}",
                                           python, script_path);
  g_auto(NatterTestRun) r;
  g_auto(NatterTestRun) allowed;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *waiting = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (config_dir, 0700), ==, 0);
  g_file_set_contents (config, text, -1, &error);
  g_assert_no_error (error);
  script (f, &MCP_ECHO, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "echo", "hi");
  waiting = g_strdup_printf ("session %s\nturn %s\nwaiting: permission call_1 mcp__fake__echo ", session_id, turn_id);
  g_assert_true (g_str_has_prefix (r.out, waiting));
  /* The model was offered the tool, with the server's description. */
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "\"name\":\"mcp__fake__echo\""));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "Says the message back"));

  RUN (f, &allowed, "allow", turn_id, "call_1");
  g_assert_cmpstr (allowed.err, ==, "");
  g_assert_cmpint (allowed.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "echo: hi"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("NATTER_BIN") == NULL || g_getenv ("NATTER_SCHEMA_DIR") == NULL)
    {
      g_test_skip ("NATTER_BIN is not set: the binary is only built with -Dui=true");
      return g_test_run ();
    }

  ADD ("/cli/ask/completed", test_ask_completed);
  ADD ("/cli/ask/provider-unreachable", test_ask_unreachable);
  ADD ("/cli/send/new-session-list-show", test_send_list_show);
  ADD ("/cli/send/first-listed-provider", test_send_first_listed_provider);
  ADD ("/cli/send/named-provider", test_send_named_provider);
  ADD ("/cli/sessions/json-streamed", test_sessions_json_streamed);
  ADD ("/cli/send/permission-allow", test_permission_allow);
  ADD ("/cli/send/permission-deny", test_permission_deny);
  ADD ("/cli/send/mcp-tool", test_send_mcp_tool);
  ADD ("/cli/send/ask-human-answer", test_ask_human_answer);
  ADD ("/cli/stop", test_stop);
  ADD ("/cli/resume-idle", test_resume_idle);
  ADD ("/cli/resume-keeps-streamed-words", test_resume_keeps_streamed_words);
  ADD ("/cli/stop-keeps-streamed-words", test_stop_keeps_streamed_words);
  ADD ("/cli/resume-unreadable-kept-words", test_resume_unreadable_kept_words);
  ADD ("/cli/stop-unreadable-kept-words", test_stop_unreadable_kept_words);
  ADD ("/cli/sessions/elsewhere", test_sessions_elsewhere);
  ADD ("/cli/title/elsewhere", test_title_elsewhere);
  ADD ("/cli/sync/fresh-folder-written", test_sync_fresh);
  ADD ("/cli/retry/failed-message-once", test_retry_failed);
  ADD ("/cli/retry/damaged-history", test_retry_damaged_history);
  ADD ("/cli/retry/recovered-copy", test_retry_in_recovered_copy);
  ADD ("/cli/retry/recovered-copy-versions", test_retry_versions_of_recovered_copy);
  ADD ("/cli/retry/message-parameters", test_retry_keeps_message_parameters);
  ADD ("/cli/send/damaged-history-refused", test_send_damaged_history);
  ADD ("/cli/send/damaged-latest-turn-refused", test_send_damaged_latest_turn);
  ADD ("/cli/recover/keeps-queued-messages", test_recover_keeps_queue);
  ADD ("/cli/recover/prints-left-out-message", test_recover_prints_left_out_message);
  ADD ("/cli/recover/unreadable-first-message", test_recover_unreadable_first_message);

  cli_add_organise_tests ();
  cli_add_titles_tests ();
  cli_add_archive_tests ();
  cli_add_control_tests ();

  return g_test_run ();
}
