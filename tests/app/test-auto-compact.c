/* test-auto-compact.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Compacting before a send (docs/sessions.md §5): the real
 * services over a temporary data directory and a scripted server whose
 * request paths and bodies the cases assert. natter_auto_compact_async()
 * runs before the send exactly as the window and the CLI run it.
 */

#include "config.h"

#include <string.h>

#include "natter-auto-compact.h"
#include "natter-session-error.h"
#include "natter-test-services.h"
#include "natter-test-support.h"

#define JSON "application/json"
#define SAY NATTER_TEST_SAY_USING
#define BROKEN NATTER_TEST_BROKEN
#define MODELS(entry) { .status = 200, .content_type = JSON, .body = "{\"object\":\"list\",\"data\":[" entry "]}" }

typedef struct
{
  NatterTestServices base;
  char              *session_id;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  natter_test_services_set_up_without_titles (&f->base, data);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_free (f->session_id);
  natter_test_services_tear_down (&f->base, data);
}

static void
result_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* The services over the scripted server (any path: the window is asked
 * too), without automatic titles. */
#define SERVE(f, ...) \
  G_STMT_START { \
    g_settings_set_boolean ((f)->base.gsettings, "auto-title", FALSE); \
    NATTER_TEST_SERVE (&(f)->base, NULL, __VA_ARGS__); \
  } G_STMT_END

/* Sends @text to the fixture's session (made on first use) and waits
 * for its answer. */
static void
say (Fixture    *f,
     const char *text)
{
  g_autofree char *turn_id = NULL;

  if (f->session_id == NULL)
    f->session_id = natter_test_services_create_session (&f->base);
  turn_id = natter_test_services_send (&f->base, f->session_id, text);
  natter_test_services_wait_turn (&f->base, turn_id);
}

/* What the front ends do before a send. */
static char *
auto_compact (Fixture *f,
              GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_auto_compact_async (f->base.sessions, natter_services_get_provider_registry (f->base.services),
                             natter_services_get_settings (f->base.services), f->session_id, NULL, result_cb, &result);
  return natter_auto_compact_finish (f->base.sessions, natter_test_services_wait_result (&result), error);
}

static const char *
path (Fixture *f,
      guint    index)
{
  g_assert_cmpuint (index, <, f->base.server->paths->len);
  return g_ptr_array_index (f->base.server->paths, index);
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

  g_assert_cmpuint (index, <, f->base.server->bodies->len);
  node = natter_test_json (g_ptr_array_index (f->base.server->bodies, index));
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
  g_assert_cmpuint (f->base.server->paths->len, ==, 5);
  g_assert_true (strstr (g_ptr_array_index (f->base.server->bodies, 4), "Summarize the conversation below") != NULL);

  say (f, "Q4");
  g_assert_true (starts_with_summary (f, 5, "Plan B was chosen."));
  g_assert_null (strstr (g_ptr_array_index (f->base.server->bodies, 5), "Q1"));

  /* Compacted and nothing sent since the next call: the window is
   * known (kept per model), and 100 tokens is far below it. */
  g_clear_pointer (&compaction_id, g_free);
  compaction_id = auto_compact (f, &error);
  g_assert_no_error (error);
  g_assert_null (compaction_id);
  g_assert_cmpuint (f->base.server->paths->len, ==, 6);
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
  g_assert_cmpuint (f->base.server->paths->len, ==, 4);
  say (f, "Q4");
  g_assert_false (starts_with_summary (f, 4, "A1"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->base.server->bodies, 4), "Q1"));
}

/* The user's window for "test/m" wins: the server is not even asked,
 * and 850 tokens of the user's 1,000 compacts. */
static void
test_user_window_wins (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *compaction_id = NULL;
  g_autoptr(GError) error = NULL;

  g_settings_set_value (f->base.gsettings, "context-windows", g_variant_new_parsed ("{'test/m': 1000, 'test/x': 5}"));
  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 850), SAY ("Summary.", 5));
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");

  compaction_id = auto_compact (f, &error);
  g_assert_no_error (error);
  g_assert_nonnull (compaction_id);
  g_assert_cmpuint (f->base.server->paths->len, ==, 4);
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
  show = natter_test_json (g_ptr_array_index (f->base.server->bodies, 4));
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

  g_settings_set_value (f->base.gsettings, "context-windows", g_variant_new_parsed ("{'test/m': 1000}"));
  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 900), BROKEN, SAY ("A4", 950));
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");

  compaction_id = auto_compact (f, &error);
  g_assert_null (compaction_id);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_str_has_prefix (error->message, "The summary could not be made: "));
  g_assert_nonnull (strstr (g_ptr_array_index (f->base.server->bodies, 3), "Summarize the conversation below"));
  say (f, "Q4");
  g_assert_cmpuint (f->base.server->paths->len, ==, 5);
  g_assert_nonnull (strstr (g_ptr_array_index (f->base.server->bodies, 4), "Q1"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->base.server->bodies, 4), "Q4"));
}

/* The setting off: nothing is asked however full the window. */
static void
test_setting_off (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *compaction_id = NULL;
  g_autoptr(GError) error = NULL;

  g_settings_set_value (f->base.gsettings, "context-windows", g_variant_new_parsed ("{'test/m': 1000}"));
  g_settings_set_boolean (f->base.gsettings, "auto-compact", FALSE);
  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 990));
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");

  compaction_id = auto_compact (f, &error);
  g_assert_no_error (error);
  g_assert_null (compaction_id);
  g_assert_cmpuint (f->base.server->paths->len, ==, 3);
}

/* One or two turns: nothing lies before the 2 kept turns, so however
 * full the window, nothing is tried and nothing is to be told. */
static void
test_nothing_to_compact (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  g_settings_set_value (f->base.gsettings, "context-windows", g_variant_new_parsed ("{'test/m': 1000}"));
  SERVE (f, SAY ("A1", 950), SAY ("A2", 990), SAY ("A3", 10));
  say (f, "Q1");
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *compaction_id = auto_compact (f, &error);

      g_assert_no_error (error);
      g_assert_null (compaction_id);
    }
  say (f, "Q2");
  {
    g_autofree char *compaction_id = auto_compact (f, &error);

    g_assert_no_error (error);
    g_assert_null (compaction_id);
  }
  say (f, "Q3");
  g_assert_cmpuint (f->base.server->paths->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->base.server->bodies, 2), "Q1"));
}

/* The summary keeps failing: the first failure is told, the next sends
 * still try (the server may be back) but say nothing more; another
 * session's failure is its own, told once too. */
static void
test_failure_told_once (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *first_session = NULL;
  g_autoptr(GError) error = NULL;

  g_settings_set_value (f->base.gsettings, "context-windows", g_variant_new_parsed ("{'test/m': 1000}"));
  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 900), BROKEN, SAY ("A4", 950), BROKEN, SAY ("A5", 950),
         SAY ("B1", 10), SAY ("B2", 10), SAY ("B3", 900), BROKEN);
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");
  {
    g_autofree char *compaction_id = auto_compact (f, &error);

    g_assert_null (compaction_id);
    g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
  }
  say (f, "Q4");
  {
    g_autofree char *compaction_id = auto_compact (f, &error);

    g_assert_no_error (error);
    g_assert_null (compaction_id);
  }
  g_assert_nonnull (strstr (g_ptr_array_index (f->base.server->bodies, 5), "Summarize the conversation below"));
  say (f, "Q5");

  first_session = g_steal_pointer (&f->session_id);
  say (f, "R1");
  say (f, "R2");
  say (f, "R3");
  {
    g_autofree char *compaction_id = auto_compact (f, &error);

    g_assert_null (compaction_id);
    g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
  }
  g_assert_cmpuint (f->base.server->paths->len, ==, 11);
}

/* The window set for one model (as Preferences sets it) is kept beside
 * the others, 0 forgets it, and auto-compact uses it without asking the
 * server. */
static void
test_window_set_for_model (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *compaction_id = NULL;
  g_autoptr(GVariant) windows = NULL;
  g_autoptr(GError) error = NULL;
  gint32 value = 0;

  g_settings_set_value (f->base.gsettings, "context-windows", g_variant_new_parsed ("{'other/x': 5}"));
  natter_settings_set_context_window (f->base.settings, "test", "gone", 64);
  natter_settings_set_context_window (f->base.settings, "test", "m", 2000);
  natter_settings_set_context_window (f->base.settings, "test", "m", 1000);
  natter_settings_set_context_window (f->base.settings, "test", "gone", 0);
  windows = g_settings_get_value (f->base.gsettings, "context-windows");
  g_assert_cmpuint (g_variant_n_children (windows), ==, 2);
  g_assert_true (g_variant_lookup (windows, "other/x", "i", &value));
  g_assert_cmpint (value, ==, 5);
  g_assert_true (g_variant_lookup (windows, "test/m", "i", &value));
  g_assert_cmpint (value, ==, 1000);
  g_assert_cmpuint (natter_settings_get_context_window (f->base.settings, "test", "m"), ==, 1000);

  SERVE (f, SAY ("A1", 10), SAY ("A2", 10), SAY ("A3", 850), SAY ("Summary.", 5));
  say (f, "Q1");
  say (f, "Q2");
  say (f, "Q3");
  compaction_id = auto_compact (f, &error);
  g_assert_no_error (error);
  g_assert_nonnull (compaction_id);
  g_assert_cmpuint (f->base.server->paths->len, ==, 4);
  g_assert_cmpstr (path (f, 3), ==, "/v1/chat/completions");
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
  ADD ("/auto-compact/nothing-to-compact", test_nothing_to_compact);
  ADD ("/auto-compact/failure-told-once", test_failure_told_once);
  ADD ("/auto-compact/window-set-for-model", test_window_set_for_model);
  return g_test_run ();
}
