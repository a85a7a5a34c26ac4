/* natter-test-services.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-test-services.h"
#include "natter-test-support.h"

/**
 * natter_test_services_set_up:
 * @f: the fixture
 * @data: unused (a GTestFixtureFunc)
 *
 * A temporary data directory and settings over a memory backend; the
 * services come with natter_test_services_serve(), so that a test can
 * change settings or write files first.
 */
void
natter_test_services_set_up (NatterTestServices *f,
                             gconstpointer       data)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();

  f->dir = natter_test_make_temp_dir ();
  f->gsettings = g_settings_new_with_backend (APP_ID, backend);
  f->settings = natter_settings_new (f->gsettings);
}

/**
 * natter_test_services_set_up_without_titles:
 * @f: the fixture
 * @data: unused (a GTestFixtureFunc)
 *
 * natter_test_services_set_up() with the `auto-title` setting off, for
 * the tests that script every model call and are not about titles: no
 * conversation's first answer is followed by a title request.
 */
void
natter_test_services_set_up_without_titles (NatterTestServices *f,
                                            gconstpointer       data)
{
  natter_test_services_set_up (f, data);
  g_settings_set_boolean (f->gsettings, "auto-title", FALSE);
}

/* Waits for what the services still do, then checks nothing holds them. */
static void
drop_services (NatterTestServices *f)
{
  if (f->services == NULL)
    return;
  g_assert_true (natter_services_flush_blocking (f->services, NATTER_TEST_SERVICES_WAIT_MS));
  f->sessions = NULL;
  g_assert_finalize_object (g_steal_pointer (&f->services));
}

void
natter_test_services_tear_down (NatterTestServices *f,
                                gconstpointer       data)
{
  drop_services (f);
  g_clear_pointer (&f->server, natter_test_server_free);
  g_clear_object (&f->settings);
  g_clear_object (&f->gsettings);
  natter_test_remove_tree (f->dir);
  g_clear_object (&f->dir);
}

static char *
no_key (const char *provider,
        gpointer    user_data)
{
  return NULL;
}

/**
 * natter_test_services_wait_result:
 * @slot: where a GAsyncReadyCallback stores its result
 *
 * Iterates the main context until *@slot is set; fails the test after
 * %NATTER_TEST_SERVICES_WAIT_MS.
 *
 * Returns: (transfer none): *@slot
 */
GAsyncResult *
natter_test_services_wait_result (GAsyncResult **slot)
{
  natter_test_wait_for_pointer ((gpointer *) slot, NATTER_TEST_SERVICES_WAIT_MS);
  return *slot;
}

static void
load (NatterTestServices *f)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  f->services = natter_services_new (f->dir, f->settings, no_key, NULL, NULL);
  if (!f->without_writer_lock)
    {
      g_assert_true (natter_services_acquire_writer_lock (f->services, &error));
      g_assert_no_error (error);
    }
  natter_services_load_async (f->services, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_services_load_finish (f->services, natter_test_services_wait_result (&result), &error));
  g_assert_no_error (error);
  f->sessions = natter_services_get_sessions (f->services);
}

/**
 * natter_test_services_serve:
 * @f: the fixture
 * @expected_path: (nullable): the path every request must have, or %NULL
 * @script: the server's responses, in the order requests arrive
 * @n_script: how many
 *
 * Starts the scripted server, makes it provider "test" (the default, with
 * model "m"), and loads the services over the data directory.
 */
void
natter_test_services_serve (NatterTestServices       *f,
                            const char               *expected_path,
                            const NatterTestResponse *script,
                            guint                     n_script)
{
  f->server = natter_test_server_new (script, n_script);
  f->server->expected_path = expected_path;
  g_settings_set_value (f->gsettings, "providers",
                        g_variant_new_parsed ("[('test', 'Test', %s)]", f->server->base_url));
  g_settings_set_string (f->gsettings, "default-provider", "test");
  g_settings_set_string (f->gsettings, "default-model", "m");
  load (f);
}

/**
 * natter_test_services_serve_server:
 * @f: the fixture
 * @server: (transfer full): a server, such as a responder
 *   (natter_test_server_new_responder())
 *
 * Like natter_test_services_serve(), with a server the caller made.
 */
void
natter_test_services_serve_server (NatterTestServices *f,
                                   NatterTestServer   *server)
{
  f->server = server;
  g_settings_set_value (f->gsettings, "providers",
                        g_variant_new_parsed ("[('test', 'Test', %s)]", f->server->base_url));
  g_settings_set_string (f->gsettings, "default-provider", "test");
  g_settings_set_string (f->gsettings, "default-model", "m");
  load (f);
}

/**
 * natter_test_services_drop:
 * @f: the fixture, served
 *
 * Waits for what the services still do and drops them, asserting that
 * nothing else holds them: the process that used the data directory is
 * gone. natter_test_services_load() starts a new one.
 */
void
natter_test_services_drop (NatterTestServices *f)
{
  g_assert_nonnull (f->services);
  drop_services (f);
}

/**
 * natter_test_services_load:
 * @f: the fixture, served and dropped
 *
 * Loads new services over the data directory and the server.
 */
void
natter_test_services_load (NatterTestServices *f)
{
  g_assert_null (f->services);
  load (f);
}

/**
 * natter_test_services_reload:
 * @f: the fixture, served
 *
 * Drops the services and loads new ones over the same data directory and
 * server: what a new process of the app finds, with nothing cached.
 */
void
natter_test_services_reload (NatterTestServices *f)
{
  g_assert_nonnull (f->services);
  drop_services (f);
  load (f);
}

char *
natter_test_services_create_session (NatterTestServices *f)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *session_id;

  natter_sessions_create_session_async (f->sessions, NULL, NULL, NULL, NULL, NULL, natter_test_result_cb, &result);
  session_id = natter_sessions_create_session_finish (f->sessions, natter_test_services_wait_result (&result),
                                                      &error);
  g_assert_no_error (error);
  return session_id;
}

/**
 * natter_test_services_send:
 * @f: the fixture
 * @session_id: the session
 * @text: the user's message
 *
 * Automatic titles follow the `auto-title` setting (see
 * natter_test_services_set_up_without_titles()).
 *
 * Sends @text as the built-in "assistant" agent on test/m.
 *
 * Returns: (transfer full): the new turn's id, at once (the turn runs on)
 */
char *
natter_test_services_send (NatterTestServices *f,
                           const char         *session_id,
                           const char         *text)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
  g_autoptr(JsonObject) input = json_object_new ();
  char *turn_id;

  natter_send_options_set_model (options, "test", "m");
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_send_message_async (f->sessions, session_id, input, options, NULL, natter_test_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (f->sessions, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  return turn_id;
}

/* Waits until @turn_id has settled. */
void
natter_test_services_wait_turn (NatterTestServices *f,
                                const char         *turn_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_wait_for_turn_async (f->sessions, turn_id, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_wait_for_turn_finish (f->sessions, natter_test_services_wait_result (&result),
                                                       &error));
  g_assert_no_error (error);
}

/* Waits for the turn, then for everything the services still do (a
 * title request among it). */
void
natter_test_services_settle (NatterTestServices *f,
                             const char         *turn_id)
{
  natter_test_services_wait_turn (f, turn_id);
  g_assert_true (natter_services_flush_blocking (f->services, NATTER_TEST_SERVICES_WAIT_MS));
}

/* Returns: (transfer full): the body of the server's request @index. */
JsonObject *
natter_test_services_request_body (NatterTestServices *f,
                                   guint               index)
{
  g_autoptr(JsonNode) node = NULL;

  g_assert_cmpuint (index, <, f->server->bodies->len);
  node = natter_test_json (g_ptr_array_index (f->server->bodies, index));
  return json_object_ref (json_node_get_object (node));
}

/* Returns: (transfer full) (nullable): the last event of @type in the
 * session file of @session_id. */
JsonObject *
natter_test_services_last_event (NatterTestServices *f,
                                 const char         *session_id,
                                 const char         *type)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *found = NULL;

  events = natter_jsonl_repo_read_sync (natter_services_get_session_repo (f->services), session_id, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i));

      if (g_str_equal (json_object_get_string_member (event, "type"), type))
        found = event;
    }
  return found != NULL ? json_object_ref (found) : NULL;
}

static void
write_log (NatterJsonlRepo *repo,
           const char      *id,
           GString         *text)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (repo, id, NULL);
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (g_file_peek_path (parent), 0700), ==, 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (file), text->str, (gssize) text->len, &error));
  g_assert_no_error (error);
}

/* One completed turn of the built-in agent on test/m: asked "Question
 * @n.", answered "Answer @n."; its context is @previous's transcript, or
 * empty for the first turn (docs/runtime.md §11). */
static void
write_turn (NatterJsonlRepo *repo,
            const char      *ts,
            const char      *turn_id,
            const char      *session_id,
            const char      *previous,
            guint            n)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *context = previous != NULL ? g_strdup_printf ("{\"previousTurnId\":\"%s\"}", previous)
                                              : g_strdup ("[]");
  g_autofree char *context_ref = previous != NULL
                                 ? g_strdup_printf ("\"contextRef\":{\"previousTurnId\":\"%s\"},", previous)
                                 : g_strdup ("");

  g_string_append_printf (text,
    "{\"type\":\"turn_created\",\"turnId\":\"%s\",\"ts\":\"%s\",\"schemaVersion\":1,\"sessionId\":\"%s\","
    "\"agent\":{\"requested\":{\"agentId\":\"assistant\"},\"resolved\":{\"agentId\":\"assistant\","
    "\"model\":{\"provider\":\"test\",\"model\":\"m\"},\"systemPrompt\":\"Be brief.\",\"tools\":[]}},"
    "\"context\":%s,\"input\":{\"role\":\"user\",\"content\":\"Question %u.\"},"
    "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}\n",
    turn_id, ts, session_id, context, n);
  g_string_append_printf (text,
    "{\"type\":\"model_call_requested\",\"turnId\":\"%s\",\"ts\":\"%s\",\"modelCallIndex\":0,"
    "\"request\":{%s\"messages\":[\"input\"],\"parameters\":{}}}\n"
    "{\"type\":\"model_call_completed\",\"turnId\":\"%s\",\"ts\":\"%s\",\"modelCallIndex\":0,"
    "\"finishReason\":\"stop\",\"usage\":{\"inputTokens\":100,\"outputTokens\":10},"
    "\"message\":{\"role\":\"assistant\",\"content\":\"Answer %u.\"}}\n"
    "{\"type\":\"turn_completed\",\"turnId\":\"%s\",\"ts\":\"%s\",\"finishReason\":\"stop\","
    "\"output\":{\"role\":\"assistant\",\"content\":\"Answer %u.\"},"
    "\"usage\":{\"inputTokens\":100,\"outputTokens\":10}}\n",
    turn_id, ts, context_ref, turn_id, ts, n, turn_id, ts, n);
  write_log (repo, turn_id, text);
}

/* Now, as a `ts` (docs/format.md §1). */
static char *
now_ts (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *seconds = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", seconds, g_date_time_get_microsecond (now) / 1000);
}

/**
 * natter_test_services_write_chain:
 * @f: the fixture, before natter_test_services_serve() (the services
 *   index what is on disk when they load)
 * @n_turns: how many completed turns
 * @out_turn_ids: (nullable): gets the turn ids (char *), oldest first
 *
 * Writes, in the store's layout and schema version 1, one session whose
 * conversation is @n_turns completed turns, each referring to the one
 * before: what @n_turns sends would leave, written in a fraction of the
 * time (the files go straight to disk, not through the runtime).
 *
 * Returns: (transfer full): the session id
 */
char *
natter_test_services_write_chain (NatterTestServices *f,
                                  guint               n_turns,
                                  GPtrArray          *out_turn_ids)
{
  g_autoptr(GFile) storage = g_file_get_child (f->dir, "storage");
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NULL);
  g_autofree char *ts = now_ts ();
  g_autoptr(GString) session = g_string_new (NULL);
  g_autofree char *previous = NULL;
  char *session_id;

  g_assert_null (f->services);
  session_id = natter_id_generator_next (ids);
  g_string_append_printf (session, "{\"type\":\"session_created\",\"sessionId\":\"%s\",\"ts\":\"%s\","
                          "\"schemaVersion\":1}\n", session_id, ts);
  for (guint n = 1; n <= n_turns; n++)
    {
      char *turn_id = natter_id_generator_next (ids);

      write_turn (turns, ts, turn_id, session_id, previous, n);
      g_string_append_printf (session, "{\"type\":\"turn_appended\",\"sessionId\":\"%s\",\"ts\":\"%s\","
                              "\"turnId\":\"%s\",\"sessionSeq\":%u,\"agentId\":\"assistant\","
                              "\"model\":{\"provider\":\"test\",\"model\":\"m\"}}\n",
                              session_id, ts, turn_id, n);
      if (out_turn_ids != NULL)
        g_ptr_array_add (out_turn_ids, g_strdup (turn_id));
      g_free (previous);
      previous = turn_id;
    }
  write_log (sessions, session_id, session);
  return session_id;
}

/**
 * natter_test_services_write_interrupted:
 * @f: the fixture, before natter_test_services_serve()
 * @text: the first message
 * @out_turn_id: (out) (optional): gets the turn's id
 *
 * Writes what a process killed while the model answered a new
 * conversation's first message leaves: a session created without a title,
 * the turn appended with the title derived from @text, and the turn
 * created with its model call requested and nothing after (it is idle;
 * natter_sessions_resume_turn_async() goes on with it).
 *
 * Returns: (transfer full): the session id
 */
char *
natter_test_services_write_interrupted (NatterTestServices  *f,
                                        const char          *text,
                                        char               **out_turn_id)
{
  g_autoptr(GFile) storage = g_file_get_child (f->dir, "storage");
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NULL);
  g_autofree char *ts = now_ts ();
  g_autoptr(GString) session = g_string_new (NULL);
  g_autoptr(GString) turn = g_string_new (NULL);
  g_autofree char *turn_id = NULL;
  char *session_id;

  g_assert_null (f->services);
  session_id = natter_id_generator_next (ids);
  turn_id = natter_id_generator_next (ids);
  g_string_append_printf (turn,
    "{\"type\":\"turn_created\",\"turnId\":\"%s\",\"ts\":\"%s\",\"schemaVersion\":1,\"sessionId\":\"%s\","
    "\"agent\":{\"requested\":{\"agentId\":\"assistant\"},\"resolved\":{\"agentId\":\"assistant\","
    "\"model\":{\"provider\":\"test\",\"model\":\"m\"},\"systemPrompt\":\"Be brief.\",\"tools\":[]}},"
    "\"context\":[],\"input\":{\"role\":\"user\",\"content\":\"%s\"},"
    "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}\n"
    "{\"type\":\"model_call_requested\",\"turnId\":\"%s\",\"ts\":\"%s\",\"modelCallIndex\":0,"
    "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}\n",
    turn_id, ts, session_id, text, turn_id, ts);
  write_log (turns, turn_id, turn);
  g_string_append_printf (session,
    "{\"type\":\"session_created\",\"sessionId\":\"%s\",\"ts\":\"%s\",\"schemaVersion\":2}\n"
    "{\"type\":\"turn_appended\",\"sessionId\":\"%s\",\"ts\":\"%s\",\"turnId\":\"%s\",\"sessionSeq\":1,"
    "\"agentId\":\"assistant\",\"model\":{\"provider\":\"test\",\"model\":\"m\"}}\n"
    "{\"type\":\"title_changed\",\"sessionId\":\"%s\",\"ts\":\"%s\",\"title\":\"%s\"}\n",
    session_id, ts, session_id, ts, turn_id, session_id, ts, text);
  write_log (sessions, session_id, session);
  if (out_turn_id != NULL)
    *out_turn_id = g_steal_pointer (&turn_id);
  return session_id;
}
