/* test-auto-compact.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Compacting before a send (session-layer-spec.md §12.3): the real
 * services over a temporary data directory and a scripted server whose
 * request paths and bodies the cases assert. natter_auto_compact_async()
 * runs before the send exactly as the window and the CLI run it.
 */

#include "config.h"

#include <string.h>

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "natter-auto-compact.h"
#include "natter-session-error.h"
#include "natter-services.h"
#include "natter-settings.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define WAIT_MS 20000

#define SSE "text/event-stream"
#define JSON "application/json"
#define CHUNK(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" delta "\"}}]}\n\n"
#define FINISH "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
#define USAGE(prompt) "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":" #prompt ",\"completion_tokens\":1}}\n\n"
#define DONE "data: [DONE]\n\n"
#define SAY(text, prompt) \
  { .status = 200, .content_type = SSE, .chunks = NATTER_TEST_CHUNKS (CHUNK (text), FINISH, USAGE (prompt) DONE) }
#define BROKEN { .status = 500, .content_type = JSON, .body = "{\"error\":{\"message\":\"down\"}}" }
#define MODELS(entry) { .status = 200, .content_type = JSON, .body = "{\"object\":\"list\",\"data\":[" entry "]}" }

typedef struct
{
  GFile            *dir;
  GSettings        *gsettings;
  NatterSettings   *settings;
  NatterServices   *services;
  NatterSessions   *sessions;
  NatterTestServer *server;
  char             *session_id;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();

  f->dir = natter_test_make_temp_dir ();
  f->gsettings = g_settings_new_with_backend (APP_ID, backend);
  f->settings = natter_settings_new (f->gsettings);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  if (f->services != NULL)
    {
      g_assert_true (natter_services_flush_blocking (f->services, WAIT_MS));
      g_assert_finalize_object (f->services);
    }
  g_free (f->session_id);
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

static void
result_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_result (GAsyncResult **result)
{
  natter_test_wait_for_pointer ((gpointer *) result, WAIT_MS);
  return *result;
}

/* The services over the scripted server, as provider "test", model "m". */
static void
serve (Fixture                  *f,
       const NatterTestResponse *script,
       guint                     n_script)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  f->server = natter_test_server_new (script, n_script);
  g_settings_set_value (f->gsettings, "providers",
                        g_variant_new_parsed ("[('test', 'Test', %s)]", f->server->base_url));
  g_settings_set_string (f->gsettings, "default-provider", "test");
  g_settings_set_string (f->gsettings, "default-model", "m");
  g_settings_set_boolean (f->gsettings, "auto-title", FALSE);
  f->services = natter_services_new (f->dir, f->settings, no_key, NULL, NULL);
  g_assert_true (natter_services_acquire_writer_lock (f->services, &error));
  g_assert_no_error (error);
  natter_services_load_async (f->services, NULL, result_cb, &result);
  g_assert_true (natter_services_load_finish (f->services, wait_result (&result), &error));
  g_assert_no_error (error);
  f->sessions = natter_services_get_sessions (f->services);
}

#define SERVE(f, ...) \
  G_STMT_START { \
    const NatterTestResponse script_[] = { __VA_ARGS__ }; \
    serve ((f), script_, G_N_ELEMENTS (script_)); \
  } G_STMT_END

/* Sends @text to the fixture's session (made on first use) and waits
 * for its answer. */
static void
say (Fixture    *f,
     const char *text)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) waited = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
  g_autoptr(JsonObject) input = json_object_new ();
  g_autofree char *turn_id = NULL;

  if (f->session_id == NULL)
    {
      natter_sessions_create_session_async (f->sessions, NULL, NULL, NULL, NULL, NULL, result_cb, &result);
      f->session_id = natter_sessions_create_session_finish (f->sessions, wait_result (&result), &error);
      g_assert_no_error (error);
      g_clear_object (&result);
    }
  natter_send_options_set_model (options, "test", "m");
  natter_send_options_set_auto_title (options, FALSE);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_send_message_async (f->sessions, f->session_id, input, options, NULL, result_cb, &result);
  turn_id = natter_sessions_send_message_finish (f->sessions, wait_result (&result), &error);
  g_assert_no_error (error);
  natter_sessions_wait_for_turn_async (f->sessions, turn_id, NULL, result_cb, &waited);
  g_assert_true (natter_sessions_wait_for_turn_finish (f->sessions, wait_result (&waited), &error));
  g_assert_no_error (error);
}

/* What the front ends do before a send. */
static char *
auto_compact (Fixture *f,
              GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_auto_compact_async (f->sessions, natter_services_get_provider_registry (f->services),
                             natter_services_get_settings (f->services), f->session_id, NULL, result_cb, &result);
  return natter_auto_compact_finish (f->sessions, wait_result (&result), error);
}

static const char *
path (Fixture *f,
      guint    index)
{
  g_assert_cmpuint (index, <, f->server->paths->len);
  return g_ptr_array_index (f->server->paths, index);
}

/* Whether request @index starts its conversation with the summary. */
static gboolean
starts_with_summary (Fixture    *f,
                     guint       index,
                     const char *summary)
{
  g_autoptr(JsonNode) node = NULL;
  JsonArray *messages;
  const char *first;

  g_assert_cmpuint (index, <, f->server->bodies->len);
  node = natter_test_json (g_ptr_array_index (f->server->bodies, index));
  messages = json_object_get_array_member (json_node_get_object (node), "messages");
  first = json_object_get_string_member (json_array_get_object_element (messages, 1), "content");
  return strstr (first, summary) != NULL && strstr (first, "context window") != NULL;
}

/* vLLM's max_model_len: 850 prompt tokens of 1,000 is past 80%, so the
 * first two turns are summarized before Q4 goes, and Q4's request is the
 * summary plus the kept turns. */
static void
test_above_window (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *compaction_id = NULL;
  g_autoptr(GError) error = NULL;

  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 850),
         MODELS ("{\"id\":\"other\",\"max_model_len\":99999},{\"id\":\"m\",\"max_model_len\":1000}"),
         SAY ("Plan B was chosen.", 5), SAY ("A4", 100));
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");

  compaction_id = auto_compact (f, &error);
  g_assert_no_error (error);
  g_assert_nonnull (compaction_id);
  g_assert_cmpstr (path (f, 3), ==, "/v1/models");
  g_assert_cmpuint (f->server->paths->len, ==, 5);
  g_assert_true (strstr (g_ptr_array_index (f->server->bodies, 4), "Summarize the conversation below") != NULL);

  say (f, "Q4");
  g_assert_true (starts_with_summary (f, 5, "Plan B was chosen."));
  g_assert_null (strstr (g_ptr_array_index (f->server->bodies, 5), "Q1"));

  /* Compacted and nothing sent since the next call: the window is
   * known (kept per model), and 100 tokens is far below it. */
  g_clear_pointer (&compaction_id, g_free);
  compaction_id = auto_compact (f, &error);
  g_assert_no_error (error);
  g_assert_null (compaction_id);
  g_assert_cmpuint (f->server->paths->len, ==, 6);
}

/* 800 of 1,000 is not past 80%: the window is asked, nothing else. */
static void
test_below_window (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *compaction_id = NULL;
  g_autoptr(GError) error = NULL;

  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 800),
         MODELS ("{\"id\":\"m\",\"context_length\":1000}"), SAY ("A4", 810));
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");

  compaction_id = auto_compact (f, &error);
  g_assert_no_error (error);
  g_assert_null (compaction_id);
  g_assert_cmpuint (f->server->paths->len, ==, 4);
  say (f, "Q4");
  g_assert_false (starts_with_summary (f, 4, "A1"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 4), "Q1"));
}

/* The user's window for "test/m" wins: the server is not even asked,
 * and 850 tokens of the user's 1,000 compacts. */
static void
test_user_window_wins (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *compaction_id = NULL;
  g_autoptr(GError) error = NULL;

  g_settings_set_value (f->gsettings, "context-windows", g_variant_new_parsed ("{'test/m': 1000, 'test/x': 5}"));
  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 850), SAY ("Summary.", 5));
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");

  compaction_id = auto_compact (f, &error);
  g_assert_no_error (error);
  g_assert_nonnull (compaction_id);
  g_assert_cmpuint (f->server->paths->len, ==, 4);
  g_assert_cmpstr (path (f, 3), ==, "/v1/chat/completions");
}

/* Ollama: no window in /v1/models, so /api/show beside /v1 is asked and
 * its model_info "<architecture>.context_length" counts. */
static void
test_ollama_show (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *compaction_id = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) show = NULL;

  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 3500), MODELS ("{\"id\":\"m\"}"),
         { .status = 200, .content_type = JSON,
           .body = "{\"model_info\":{\"general.architecture\":\"llama\",\"llama.context_length\":4096}}" },
         SAY ("Summary.", 5));
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");

  compaction_id = auto_compact (f, &error);
  g_assert_no_error (error);
  g_assert_nonnull (compaction_id);
  g_assert_cmpstr (path (f, 3), ==, "/v1/models");
  g_assert_cmpstr (path (f, 4), ==, "/api/show");
  show = natter_test_json (g_ptr_array_index (f->server->bodies, 4));
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (show), "model"), ==, "m");
}

/* The summary request fails: the error says why, nothing is written,
 * and the message still goes out with the whole history. */
static void
test_summary_fails (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *compaction_id = NULL;
  g_autoptr(GError) error = NULL;

  g_settings_set_value (f->gsettings, "context-windows", g_variant_new_parsed ("{'test/m': 1000}"));
  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 900), BROKEN, SAY ("A4", 950));
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");

  compaction_id = auto_compact (f, &error);
  g_assert_null (compaction_id);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_str_has_prefix (error->message, "The summary could not be made: "));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 3), "Summarize the conversation below"));
  say (f, "Q4");
  g_assert_cmpuint (f->server->paths->len, ==, 5);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 4), "Q1"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 4), "Q4"));
}

/* The setting off: nothing is asked however full the window. */
static void
test_setting_off (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *compaction_id = NULL;
  g_autoptr(GError) error = NULL;

  g_settings_set_value (f->gsettings, "context-windows", g_variant_new_parsed ("{'test/m': 1000}"));
  g_settings_set_boolean (f->gsettings, "auto-compact", FALSE);
  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 990));
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");

  compaction_id = auto_compact (f, &error);
  g_assert_no_error (error);
  g_assert_null (compaction_id);
  g_assert_cmpuint (f->server->paths->len, ==, 3);
}

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  ADD ("/auto-compact/above-window", test_above_window);
  ADD ("/auto-compact/below-window", test_below_window);
  ADD ("/auto-compact/user-window-wins", test_user_window_wins);
  ADD ("/auto-compact/ollama-show", test_ollama_show);
  ADD ("/auto-compact/summary-fails", test_summary_fails);
  ADD ("/auto-compact/setting-off", test_setting_off);
  return g_test_run ();
}
