/* test-agents.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The agent chooser beside Send (an agent is picked per message):
 * over a temp agents folder with two user agents — "Code Reviewer" with
 * its own model, "Poet" without — and the real agent resolver, it lists
 * Assistant and both by name, sends to the chosen agent (as recorded in
 * the new turn's turn_created), lets an explicit header pick beat the
 * agent's model, remembers the pick per session, opens a session with
 * its last turn's agent, follows the store live and falls back to
 * Assistant, with a toast, when the chosen agent is removed.
 */

#include <string.h>

#include <libsoup/soup.h>

#include "natter-agent-chooser.h"
#include "natter-builtin-agent-resolver.h"
#include "natter-config-agent-resolver.h"
#include "natter-turn-context-resolver.h"
#include "natter-test-server.h"
#include "natter-test-support.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

#define MODELS "{\"object\":\"list\",\"data\":[{\"id\":\"alpha\"},{\"id\":\"beta\"},{\"id\":\"gamma\"}]}"

typedef struct
{
  UiWorld                *u;
  GFile                  *agents_dir;
  NatterAgentStore       *store;
  NatterProviderRegistry *registry;
  NatterTestServer       *models;  /* a localhost /models for the header's picker */
} Fixture;

static void
save_agent (NatterAgentStore *store,
            const char       *literal)
{
  g_autoptr(JsonNode) node = natter_test_json (literal);
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_agent_store_save (store, json_node_get_object (node), &error));
  g_assert_no_error (error);
}

#define REVIEWER "{\"agentId\":\"reviewer\",\"name\":\"Code Reviewer\",\"systemPrompt\":\"Review code.\"," \
                 "\"model\":{\"provider\":\"local\",\"model\":\"beta\"},\"tools\":[]}"
#define POET     "{\"agentId\":\"poet\",\"name\":\"Poet\",\"systemPrompt\":\"Write verse.\",\"tools\":[]}"

/* The UI world, but with the application's resolver (built-in Assistant
 * plus the agents folder) in place of the fake "helper" agent. */
static Fixture *
fixture_new (void)
{
  Fixture *f = g_new0 (Fixture, 1);
  g_autoptr(NatterToolRegistry) tools = natter_fake_tools_new ();
  g_autoptr(NatterBuiltinAgentResolver) builtin = natter_builtin_agent_resolver_new (tools);
  g_autoptr(NatterConfigAgentResolver) resolver = NULL;
  g_autoptr(NatterTurnContextResolver) contexts = NULL;
  f->u = g_new0 (UiWorld, 1);
  f->u->w = natter_test_world_new ();
  f->agents_dir = g_file_get_child (f->u->w->dir, "config-agents");
  f->store = natter_agent_store_new (f->agents_dir);
  save_agent (f->store, REVIEWER);
  save_agent (f->store, POET);

  natter_builtin_agent_resolver_set_default_model (builtin, "local", "alpha");
  resolver = natter_config_agent_resolver_new (builtin, f->store, tools);
  contexts = natter_turn_context_resolver_new (f->u->w->turn_repo);
  g_object_unref (f->u->w->runtime);
  f->u->w->runtime = natter_turn_runtime_new (f->u->w->turn_repo, f->u->w->ids, NATTER_CLOCK (f->u->w->clock),
                                              NATTER_AGENT_RESOLVER (resolver),
                                              NATTER_MODEL_REGISTRY (f->u->w->fakes), tools,
                                              NATTER_CONTEXT_RESOLVER (contexts),
                                              NATTER_PERMISSION_CHECKER (f->u->w->fakes),
                                              NATTER_PERMISSION_CLASSIFIER (f->u->w->fakes),
                                              f->u->w->hub, NULL, 0);
  ui_world_start_service (f->u);

  f->models = natter_test_server_new_models (MODELS);
  f->registry = natter_provider_registry_new (NULL, NULL, NULL);
  natter_provider_registry_add_provider (f->registry, "local", "Local Server", f->models->base_url);
  return f;
}

static void
fixture_free (Fixture *f)
{
  ui_world_free (f->u);
  g_clear_object (&f->registry);
  g_assert_finalize_object (f->store);
  g_clear_object (&f->agents_dir);
  natter_test_server_free (f->models);
  g_free (f);
}

static NatterWindow *
fixture_window (Fixture *f)
{
  NatterWindow *window = natter_window_new (app, f->u->sessions, f->u->w->hub);

  natter_window_set_agent_store (window, f->store);
  natter_window_set_model_provider (window, f->registry, "local", "alpha");
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, window);
  return window;
}

static NatterAgentChooser *
chooser_of (NatterWindow *window)
{
  return natter_composer_get_agent_chooser (natter_window_get_composer (window));
}

static void
assert_names (NatterAgentChooser *chooser,
              const char * const *expected)
{
  g_auto(GStrv) names = natter_agent_chooser_dup_names (chooser);
  g_autofree char *joined = g_strjoinv (", ", names);
  g_autofree char *expected_joined = g_strjoinv (", ", (GStrv) expected);

  g_assert_cmpstr (joined, ==, expected_joined);
}

/* Sends @text through the session service to @agent_id, as a message
 * sent earlier (by this window or another) did. */
static char *
send_to_agent (UiWorld    *u,
               const char *session_id,
               const char *agent_id,
               const char *text)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) config = natter_test_send_options (agent_id, NULL, NULL);
  char *turn_id;

  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  natter_sessions_send_message_async (u->sessions, session_id, input, config, NULL, ui_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  ui_wait_turn (u, turn_id);
  return turn_id;
}

typedef struct
{
  NatterSessionIndexEntry *entry;
  guint                    count;
} TurnCount;

static gboolean
has_turns (gpointer data)
{
  TurnCount *t = data;

  return natter_session_index_entry_get_turn_count (t->entry) >= t->count;
}

/* Sends @text from the window's composer and returns the new turn's
 * turn_created, once the turn has settled. */
static JsonObject *
send_from_window (Fixture      *f,
                  NatterWindow *window,
                  const char   *session_id,
                  const char   *text)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (f->u->index, session_id);
  TurnCount t = { entry, natter_session_index_entry_get_turn_count (entry) + 1 };
  g_autoptr(GPtrArray) events = NULL;
  const char *turn_id;

  natter_fake_clock_advance (f->u->w->clock, 60 * G_USEC_PER_SEC);
  natter_composer_set_text (natter_window_get_composer (window), text);
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  ui_wait_until (has_turns, &t);
  turn_id = natter_session_index_entry_get_latest_turn_id (entry);
  ui_wait_turn (f->u, turn_id);
  events = ui_get_turn (f->u, turn_id);
  return json_object_ref (ui_find_event (events, "turn_created", NULL));
}

static const char *
requested_agent (JsonObject *created)
{
  return json_object_get_string_member (json_object_get_object_member (json_object_get_object_member (created, "agent"),
                                                                       "requested"), "agentId");
}

static JsonObject *
requested_model (JsonObject *created)
{
  JsonObject *requested = json_object_get_object_member (json_object_get_object_member (created, "agent"),
                                                         "requested");
  JsonObject *overrides;

  /* The per-turn override is written where the reference format has it,
   * never at the old top-level place. */
  g_assert_false (json_object_has_member (requested, "model"));
  if (!json_object_has_member (requested, "overrides"))
    return NULL;
  overrides = json_object_get_object_member (requested, "overrides");
  return json_object_has_member (overrides, "model") ? json_object_get_object_member (overrides, "model") : NULL;
}

static const char *
resolved_string (JsonObject *created,
                 const char *member)
{
  return json_object_get_string_member (json_object_get_object_member (json_object_get_object_member (created, "agent"),
                                                                       "resolved"), member);
}

static const char *
resolved_model (JsonObject *created)
{
  JsonObject *resolved = json_object_get_object_member (json_object_get_object_member (created, "agent"),
                                                        "resolved");

  return json_object_get_string_member (json_object_get_object_member (resolved, "model"), "model");
}

/* Assistant and both agents, by name, in the chooser beside Send, which
 * Tab reaches from the message. */
static void
test_agents_listed (void)
{
  Fixture *f = fixture_new ();
  g_autofree char *session_id = ui_create_session (f->u, "Listed");
  NatterWindow *window = fixture_window (f);
  NatterAgentChooser *chooser = chooser_of (window);
  static const char * const names[] = { "Assistant", "Code Reviewer", "Poet", NULL };
  GtkWidget *focus;

  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_is_mapped, chooser);
  assert_names (chooser, names);
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, NATTER_BUILTIN_AGENT_ID);

  /* Tab from the message goes to the chooser, then to Send. */
  natter_composer_set_text (natter_window_get_composer (window), "Hi");
  gtk_widget_grab_focus (GTK_WIDGET (natter_window_get_composer (window)));
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (focus);
  g_assert_true (gtk_widget_is_ancestor (focus, GTK_WIDGET (chooser)));

  ui_destroy_window (window);
  fixture_free (f);
}

/* The pick goes into agent.agentId; an agent with its own model sends no
 * override and the header shows that model; an explicit header pick
 * wins over it. */
static void
test_agents_send (void)
{
  Fixture *f = fixture_new ();
  g_autofree char *session_id = ui_create_session (f->u, "Send");
  NatterWindow *window = NULL;
  NatterAgentChooser *chooser;
  NatterModelPicker *picker;
  g_autoptr(JsonObject) created = NULL;

  natter_fake_model_script (f->u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  window = fixture_window (f);
  chooser = chooser_of (window);
  picker = natter_window_get_model_picker (window);
  g_assert_true (natter_window_open_session (window, session_id));
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "alpha");

  /* Poet names no model: the session's (here the default) is used. */
  natter_agent_chooser_choose (chooser, "poet");
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, "poet");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "alpha");
  created = send_from_window (f, window, session_id, "A poem, please");
  g_assert_cmpstr (requested_agent (created), ==, "poet");
  g_assert_cmpstr (resolved_string (created, "agentId"), ==, "poet");
  g_assert_cmpstr (resolved_string (created, "systemPrompt"), ==, "Write verse.");
  g_assert_cmpstr (resolved_model (created), ==, "alpha");
  g_clear_pointer (&created, json_object_unref);

  /* Code Reviewer names its own model: the header shows it, and the
   * message carries no override, so the resolver uses it. */
  natter_agent_chooser_choose (chooser, "reviewer");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "beta");
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "local");
  created = send_from_window (f, window, session_id, "Review this");
  g_assert_cmpstr (requested_agent (created), ==, "reviewer");
  g_assert_null (requested_model (created));
  g_assert_cmpstr (resolved_string (created, "systemPrompt"), ==, "Review code.");
  g_assert_cmpstr (resolved_model (created), ==, "beta");
  g_clear_pointer (&created, json_object_unref);

  /* An explicit pick in the header wins over the agent's model. */
  natter_model_picker_choose (picker, "gamma");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "gamma");
  created = send_from_window (f, window, session_id, "Again, on gamma");
  g_assert_cmpstr (requested_agent (created), ==, "reviewer");
  g_assert_nonnull (requested_model (created));
  g_assert_cmpstr (json_object_get_string_member (requested_model (created), "model"), ==, "gamma");
  g_assert_cmpstr (resolved_model (created), ==, "gamma");
  g_clear_pointer (&created, json_object_unref);

  /* Back to Assistant: its own system prompt, the picked model. */
  natter_agent_chooser_choose (chooser, NATTER_BUILTIN_AGENT_ID);
  created = send_from_window (f, window, session_id, "Plain");
  g_assert_cmpstr (requested_agent (created), ==, NATTER_BUILTIN_AGENT_ID);
  g_assert_cmpstr (resolved_string (created, "agentId"), ==, NATTER_BUILTIN_AGENT_ID);
  g_assert_cmpstr (resolved_model (created), ==, "gamma");

  ui_destroy_window (window);
  fixture_free (f);
}

/* Each session keeps its pick while the app runs, like its draft. */
static void
test_agents_per_session (void)
{
  Fixture *f = fixture_new ();
  g_autofree char *first = ui_create_session (f->u, "First");
  g_autofree char *second = ui_create_session (f->u, "Second");
  NatterWindow *window = fixture_window (f);
  NatterAgentChooser *chooser = chooser_of (window);
  NatterModelPicker *picker = natter_window_get_model_picker (window);

  g_assert_true (natter_window_open_session (window, first));
  natter_agent_chooser_choose (chooser, "poet");
  g_assert_true (natter_window_open_session (window, second));
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, NATTER_BUILTIN_AGENT_ID);
  natter_agent_chooser_choose (chooser, "reviewer");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "beta");

  g_assert_true (natter_window_open_session (window, first));
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, "poet");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "alpha");
  g_assert_true (natter_window_open_session (window, second));
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, "reviewer");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "beta");
  g_assert_null (natter_window_get_last_agent_toast (window));

  ui_destroy_window (window);
  fixture_free (f);
}

/* A session opens with the agent of its last turn. */
static void
test_agents_last_turn (void)
{
  Fixture *f = fixture_new ();
  g_autofree char *session_id = ui_create_session (f->u, "Verse");
  g_autofree char *fresh = ui_create_session (f->u, "Fresh");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  NatterAgentChooser *chooser;

  natter_fake_model_script (f->u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = send_to_agent (f->u, session_id, "poet", "A haiku");
  g_assert_cmpstr (natter_session_index_entry_get_last_agent_id (natter_session_index_lookup (f->u->index,
                                                                                              session_id)),
                   ==, "poet");

  window = fixture_window (f);
  chooser = chooser_of (window);
  g_assert_true (natter_window_open_session (window, fresh));
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, NATTER_BUILTIN_AGENT_ID);
  g_assert_true (natter_window_open_session (window, session_id));
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, "poet");
  g_assert_null (natter_window_get_last_agent_toast (window));

  ui_destroy_window (window);
  fixture_free (f);
}

static gboolean
window_has_session (gpointer data)
{
  return natter_window_get_session_id (data) != NULL;
}

typedef struct
{
  NatterWindow *window;
  UiWorld      *u;
  const char   *not;
} OtherSession;

/* The window shows another session than @not, its one turn settled. */
static gboolean
other_session_answered (gpointer data)
{
  OtherSession *o = data;
  const char *open = natter_window_get_session_id (o->window);
  NatterSessionIndexEntry *entry = open != NULL ? natter_session_index_lookup (o->u->index, open) : NULL;

  return entry != NULL && g_strcmp0 (open, o->not) != 0 && natter_session_index_entry_get_turn_count (entry) == 1 &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0 &&
         ui_no_advances (o->u);
}

/* A conversation imported from ChatGPT names an agent ("imported") and a
 * provider ("chatgpt") nobody here has: it opens with Assistant on the
 * person's own model, without a word about a missing agent, and goes on
 * there; so does another try at one of its answers. */
static void
test_agents_imported_chatgpt (void)
{
  Fixture *f = fixture_new ();
  g_autofree char *text = natter_test_chatgpt_fixture_subset (1, 2, 3, 7, 0);
  g_autoptr(GFile) file = g_file_get_child (f->u->w->dir, "conversations.json");
  g_autoptr(JsonObject) created = NULL;
  g_autoptr(GPtrArray) again = NULL;
  g_autofree char *trip = NULL;
  g_autofree char *first_turn = NULL;
  NatterWindow *window = fixture_window (f);
  NatterAgentChooser *chooser = chooser_of (window);
  NatterModelPicker *picker = natter_window_get_model_picker (window);
  NatterSessionIndexEntry *entry;
  JsonObject *retried;
  OtherSession o;

  g_assert_true (g_file_replace_contents (file, text, strlen (text), NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL,
                                          NULL));
  _natter_window_import_from (window, file, "chatgpt");
  ui_wait_until (window_has_session, window);
  ui_wait_until (ui_timeline_loaded, window);
  trip = g_strdup (natter_window_get_session_id (window));
  entry = natter_session_index_lookup (f->u->index, trip);
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, NATTER_BUILTIN_AGENT_ID);
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "local");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "alpha");
  g_assert_null (natter_window_get_last_agent_toast (window));
  g_assert_true (natter_session_index_entry_get_latest_turn_imported (entry));

  natter_fake_model_script (f->u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  {
    g_autoptr(NatterSessionState) state = ui_get_session (f->u, trip);

    first_turn = g_strdup (natter_session_state_get_turn (state, 0)->turn_id);
  }
  created = send_from_window (f, window, trip, "And the weather?");
  g_assert_cmpstr (requested_agent (created), ==, NATTER_BUILTIN_AGENT_ID);
  g_assert_cmpstr (resolved_model (created), ==, "alpha");
  g_assert_null (natter_window_get_last_agent_toast (window));

  /* Another try at the imported first answer: a new version, on the
   * person's own model too. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.try-again", "s", first_turn));
  o = (OtherSession) { window, f->u, trip };
  ui_wait_until (other_session_answered, &o);
  again = ui_get_turn (f->u, natter_session_index_entry_get_latest_turn_id (
                         natter_session_index_lookup (f->u->index, natter_window_get_session_id (window))));
  retried = ui_find_event (again, "turn_created", NULL);
  g_assert_cmpstr (requested_agent (retried), ==, NATTER_BUILTIN_AGENT_ID);
  g_assert_cmpstr (resolved_model (retried), ==, "alpha");
  g_assert_null (natter_window_get_last_agent_toast (window));

  ui_destroy_window (window);
  fixture_free (f);
}

static gboolean
translator_gone (gpointer data)
{
  return !natter_agent_chooser_has_agent (data, "translator");
}

/* The chooser follows the store live; a chosen agent that is removed,
 * and a session whose last turn used it, fall back to Assistant with a
 * toast, and the next message goes to Assistant. */
static void
test_agents_removed (void)
{
  Fixture *f = fixture_new ();
  g_autofree char *first = ui_create_session (f->u, "First verse");
  g_autofree char *second = ui_create_session (f->u, "Second verse");
  g_autofree char *turn_a = NULL;
  g_autofree char *turn_b = NULL;
  static const char * const added[] = { "Assistant", "Code Reviewer", "Poet", "Translator", NULL };
  static const char * const renamed[] = { "Assistant", "Poet", "Strict Reviewer", "Translator", NULL };
  static const char * const removed[] = { "Assistant", "Strict Reviewer", "Translator", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) created = NULL;
  NatterWindow *window;
  NatterAgentChooser *chooser;

  natter_fake_model_script (f->u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TEXT_STEP, NULL);
  turn_a = send_to_agent (f->u, first, "poet", "One");
  turn_b = send_to_agent (f->u, second, "poet", "Two");

  window = fixture_window (f);
  chooser = chooser_of (window);
  g_assert_true (natter_window_open_session (window, first));
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, "poet");

  /* Added and renamed in the store (as Preferences saves them). */
  save_agent (f->store, "{\"agentId\":\"translator\",\"name\":\"Translator\",\"systemPrompt\":\"\",\"tools\":[]}");
  assert_names (chooser, added);
  save_agent (f->store, "{\"agentId\":\"reviewer\",\"name\":\"Strict Reviewer\",\"systemPrompt\":\"Be strict.\","
                        "\"tools\":[]}");
  assert_names (chooser, renamed);
  g_assert_null (natter_window_get_last_agent_toast (window));

  /* Removed while chosen. */
  g_assert_true (natter_agent_store_delete (f->store, "poet", &error));
  g_assert_no_error (error);
  assert_names (chooser, removed);
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, NATTER_BUILTIN_AGENT_ID);
  g_assert_cmpstr (natter_window_get_last_agent_toast (window), ==,
                   "The agent “Poet” was removed: messages go to Assistant");
  created = send_from_window (f, window, first, "Still there?");
  g_assert_cmpstr (requested_agent (created), ==, NATTER_BUILTIN_AGENT_ID);

  /* A session whose last turn used it opens on Assistant, and says so. */
  g_assert_true (natter_window_open_session (window, second));
  g_assert_cmpstr (natter_agent_chooser_get_agent_id (chooser), ==, NATTER_BUILTIN_AGENT_ID);
  g_assert_cmpstr (natter_window_get_last_agent_toast (window), ==,
                   "The agent “poet” is gone: messages go to Assistant");

  /* The folder's own changes (a file removed by hand) arrive too. */
  {
    g_autoptr(GFile) file = g_file_get_child (f->agents_dir, "translator.json");
    static const char * const by_hand[] = { "Assistant", "Strict Reviewer", NULL };

    g_assert_true (g_file_delete (file, NULL, &error));
    g_assert_no_error (error);
    ui_wait_until (translator_gone, chooser);
    assert_names (chooser, by_hand);
  }

  ui_destroy_window (window);
  fixture_free (f);
}

/* The composer with the chooser closed and open, in light and dark
 * style, as the screen shows it (the popover is a surface of its own;
 * Xvfb has no compositor, so its shadow is drawn on black). */
static void
test_agents_screenshots (void)
{
  Fixture *f = fixture_new ();
  g_autofree char *session_id = ui_create_session (f->u, "Screenshots");
  const AdwColorScheme schemes[] = { ADW_COLOR_SCHEME_FORCE_LIGHT, ADW_COLOR_SCHEME_FORCE_DARK };
  const char *suffixes[] = { "light", "dark" };
  AdwStyleManager *style = adw_style_manager_get_default ();
  NatterWindow *window = fixture_window (f);
  NatterAgentChooser *chooser = chooser_of (window);

  g_assert_true (natter_window_open_session (window, session_id));
  natter_agent_chooser_choose (chooser, "reviewer");
  natter_composer_set_text (natter_window_get_composer (window), "Is this loop off by one?");
  if (!ui_can_save_screen ())
    {
      ui_destroy_window (window);
      fixture_free (f);
      g_test_skip ("No X display or ImageMagick import to take the screenshots with");
      return;
    }
  for (guint i = 0; i < 2 * G_N_ELEMENTS (schemes); i++)
    {
      gboolean open = i >= G_N_ELEMENTS (schemes);
      g_autofree char *name = g_strdup_printf ("agent-chooser%s-%s.png", open ? "-open" : "",
                                               suffixes[i % G_N_ELEMENTS (schemes)]);

      if (open)
        natter_agent_chooser_popup (chooser);
      adw_style_manager_set_color_scheme (style, schemes[i % G_N_ELEMENTS (schemes)]);
      g_assert_true (ui_save_screen (name));
    }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  natter_agent_chooser_popdown (chooser);
  ui_settle ();

  ui_destroy_window (window);
  fixture_free (f);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/agents/listed", test_agents_listed);
  g_test_add_func ("/agents/send", test_agents_send);
  g_test_add_func ("/agents/per-session", test_agents_per_session);
  g_test_add_func ("/agents/last-turn", test_agents_last_turn);
  g_test_add_func ("/agents/removed", test_agents_removed);
  g_test_add_func ("/agents/imported-chatgpt", test_agents_imported_chatgpt);
  g_test_add_func ("/agents/screenshots", test_agents_screenshots);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
