/* test-types.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every public GObject type of the UI can be made with the least its
 * constructor needs and is finalized when its last reference goes (a
 * widget once unparented, a window once destroyed), and every writable
 * widget property notifies once per change and never for an equal value.
 */

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "natter-action-box.h"
#include "natter-agent-chooser.h"
#include "natter-ask-human-card.h"
#include "natter-branch-row.h"
#include "natter-code-block.h"
#include "natter-attachment-chip.h"
#include "natter-composer.h"
#include "natter-conversation-view.h"
#include "natter-markdown-view.h"
#include "natter-memory-secret-store.h"
#include "natter-model-picker.h"
#include "natter-permission-card.h"
#include "natter-permissions-list.h"
#include "natter-queue-view.h"
#include "natter-preferences-window-private.h"
#include "natter-services.h"
#include "natter-session-row.h"
#include "natter-sidebar.h"
#include "natter-timeline-model.h"
#include "natter-tool-call-card.h"
#include "natter-turn-item.h"
#include "natter-turn-row.h"
#include "natter-version-switcher.h"
#include "natter-ui-test-world.h"

#define APP_ID "io.github.natter.Natter"

static NatterApplication *app;

typedef struct
{
  UiWorld *u;
} Fixture;

typedef GObject *(*MakeFunc) (Fixture *f);

typedef struct
{
  const char *name;
  MakeFunc    make;
} TypeCase;

/* A widget's constructor returns a floating reference: the test owns it
 * as a parent would. */
static GObject *
own (GtkWidget *widget)
{
  return g_object_ref_sink (G_OBJECT (widget));
}

static GObject *
make_markdown_view (Fixture *f)
{
  return own (natter_markdown_view_new ());
}

/* A tool call as the reducer folds it from a real turn of the fake
 * agent: "sa" runs and answers. */
static NatterTurnToolCall *
make_tool_call (Fixture          *f,
                NatterTurnState **state)
{
  g_autofree char *session_id = ui_create_session (f->u, "Tools");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;

  natter_fake_model_script (f->u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")),
                            NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (f->u, session_id, "Use a tool");
  ui_wait_turn (f->u, turn_id);
  events = ui_get_turn (f->u, turn_id);
  *state = natter_turn_reduce (events, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (natter_turn_state_get_n_tool_calls (*state), ==, 1);
  return natter_turn_state_get_tool_call (*state, 0);
}

static GObject *
make_tool_call_card (Fixture *f)
{
  g_autoptr(NatterTurnState) state = NULL;
  NatterTurnToolCall *call = make_tool_call (f, &state);

  return own (natter_tool_call_card_new (call));
}

static GObject *
make_turn_row (Fixture *f)
{
  return own (natter_turn_row_new (f->u->sessions, NULL));
}

static GObject *
make_code_block (Fixture *f)
{
  return own (natter_code_block_new ("c", "int x;\n"));
}

static GObject *
make_time_ticker (Fixture *f)
{
  return G_OBJECT (natter_time_ticker_new (NATTER_CLOCK (f->u->w->clock)));
}

static GObject *
make_session_row (Fixture *f)
{
  g_autoptr(NatterTimeTicker) ticker = natter_time_ticker_new (NATTER_CLOCK (f->u->w->clock));

  return own (natter_session_row_new (f->u->sessions, f->u->w->hub, ticker));
}

static GObject *
make_sidebar (Fixture *f)
{
  g_autoptr(NatterTimeTicker) ticker = natter_time_ticker_new (NATTER_CLOCK (f->u->w->clock));
  GtkWidget *sidebar = natter_sidebar_new ();

  natter_sidebar_set_services (NATTER_SIDEBAR (sidebar), f->u->sessions, f->u->w->hub, ticker);
  return own (sidebar);
}

static GObject *
make_ask_human_card (Fixture *f)
{
  return own (natter_ask_human_card_new (f->u->sessions, "t", "c1", "Which one?"));
}

static GObject *
make_permission_card (Fixture *f)
{
  g_autoptr(JsonNode) request = natter_test_json ("{}");
  g_autoptr(JsonNode) arguments = natter_test_json ("{}");

  return own (natter_permission_card_new (f->u->sessions, "t", "c1", "sa", request, arguments));
}

static GObject *
make_agent_chooser (Fixture *f)
{
  return own (natter_agent_chooser_new ());
}

static GObject *
make_turn_item (Fixture *f)
{
  return G_OBJECT (natter_turn_item_new (f->u->sessions, "t", 1));
}

static GObject *
make_branch_row (Fixture *f)
{
  return own (natter_branch_row_new ());
}

static GObject *
make_composer (Fixture *f)
{
  return own (natter_composer_new ());
}

static GObject *
make_timeline_marker (Fixture *f)
{
  /* Only the timeline makes markers; none of its properties is needed. */
  return g_object_new (NATTER_TYPE_TIMELINE_MARKER, NULL);
}

static gboolean
timeline_model_loaded (gpointer data)
{
  return natter_timeline_model_get_loaded (data);
}

static GObject *
make_timeline_model (Fixture *f)
{
  g_autofree char *session_id = ui_create_session (f->u, "Timeline");
  NatterTimelineModel *timeline = natter_timeline_model_new (f->u->sessions, f->u->w->hub, session_id);

  ui_wait_until (timeline_model_loaded, timeline);
  return G_OBJECT (timeline);
}

/* With a conversation in it: the view lets go of its timeline, rows and
 * frame-clock handler as it goes. */
static GObject *
make_conversation_view (Fixture *f)
{
  GtkWidget *view = natter_conversation_view_new ();
  g_autoptr(NatterTimelineModel) timeline = NATTER_TIMELINE_MODEL (make_timeline_model (f));

  natter_conversation_view_set_sessions (NATTER_CONVERSATION_VIEW (view), f->u->sessions);
  natter_conversation_view_set_timeline (NATTER_CONVERSATION_VIEW (view), timeline);
  return own (view);
}

/* Following the sessions service but no conversation: a conversation's
 * read holds the view until it returns, as every widget's async read does. */
static GObject *
make_queue_view (Fixture *f)
{
  GtkWidget *view = g_object_new (NATTER_TYPE_QUEUE_VIEW, NULL);

  natter_queue_view_set_session (NATTER_QUEUE_VIEW (view), f->u->sessions, NULL);
  return own (view);
}

static gboolean
permissions_list_loaded (gpointer data)
{
  return natter_permissions_list_is_loaded (data);
}

/* Its first read done: a read in flight holds the list until it returns. */
static GObject *
make_permissions_list (Fixture *f)
{
  g_autofree char *session_id = ui_create_session (f->u, "Permissions");
  GtkWidget *list = natter_permissions_list_new (f->u->sessions, session_id);

  ui_wait_until (permissions_list_loaded, list);
  return own (list);
}

static GObject *
make_version_switcher (Fixture *f)
{
  return own (natter_version_switcher_new ());
}

static GObject *
make_attachment_chip (Fixture *f)
{
  return own (natter_attachment_chip_new ("notes.txt", "text/plain", 12, NULL, TRUE));
}

static GObject *
make_model_picker (Fixture *f)
{
  return own (natter_model_picker_new ());
}

/* With words and an action, whose children it unparents as it goes. */
static GObject *
make_action_box (Fixture *f)
{
  GtkWidget *box = natter_action_box_new ();

  gtk_widget_set_parent (gtk_label_new ("Stopped"), box);
  gtk_widget_set_parent (gtk_button_new_with_label ("Continue"), box);
  return own (box);
}

static GObject *
make_application (Fixture *f)
{
  return G_OBJECT (natter_application_new (natter_cli_get_commands ()));
}

static const TypeCase type_cases[] = {
  { "NatterMarkdownView", make_markdown_view },
  { "NatterToolCallCard", make_tool_call_card },
  { "NatterTurnRow", make_turn_row },
  { "NatterCodeBlock", make_code_block },
  { "NatterTimeTicker", make_time_ticker },
  { "NatterSessionRow", make_session_row },
  { "NatterSidebar", make_sidebar },
  { "NatterAskHumanCard", make_ask_human_card },
  { "NatterPermissionCard", make_permission_card },
  { "NatterAgentChooser", make_agent_chooser },
  { "NatterTurnItem", make_turn_item },
  { "NatterBranchRow", make_branch_row },
  { "NatterComposer", make_composer },
  { "NatterTimelineMarker", make_timeline_marker },
  { "NatterTimelineModel", make_timeline_model },
  { "NatterModelPicker", make_model_picker },
  { "NatterConversationView", make_conversation_view },
  { "NatterQueueView", make_queue_view },
  { "NatterPermissionsList", make_permissions_list },
  { "NatterVersionSwitcher", make_version_switcher },
  { "NatterAttachmentChip", make_attachment_chip },
  { "NatterActionBox", make_action_box },
  { "NatterApplication", make_application },
};

static void
test_new_finalize (gconstpointer data)
{
  const TypeCase *type_case = data;
  Fixture f = { ui_world_new () };
  GObject *object = type_case->make (&f);

  g_assert_nonnull (object);
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (object), ==, type_case->name);
  ui_settle ();
  g_assert_finalize_object (object);
  ui_world_free (f.u);
}

/* Windows belong to GTK's list of toplevels until destroyed. */
static void
assert_window_finalized (GtkWindow *window)
{
  g_object_ref (window);
  gtk_window_destroy (window);
  ui_settle ();
  g_assert_finalize_object (window);
}

static void
test_window_new_finalize (void)
{
  UiWorld *u = ui_world_new ();
  NatterWindow *window = natter_window_new (app, u->sessions, u->w->hub);

  g_assert_true (NATTER_IS_WINDOW (window));
  ui_settle ();
  assert_window_finalized (GTK_WINDOW (window));
  ui_world_free (u);
}

static gboolean
preferences_idle (gpointer data)
{
  return natter_preferences_window_get_n_pending (data) == 0;
}

static void
test_preferences_window_new_finalize (void)
{
  g_autoptr(GFile) data_dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) config_dir = natter_test_make_temp_dir ();
  g_autofree char *config = g_file_get_path (config_dir);
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(NatterSettings) natter_settings = NULL;
  g_autoptr(NatterMemorySecretStore) secrets = natter_memory_secret_store_new ();
  g_autoptr(NatterServices) services = NULL;
  NatterPreferencesWindow *window;

  /* Never the user's agents folder. */
  g_setenv ("NATTER_CONFIG_DIR", config, TRUE);
  settings = g_settings_new_with_backend (APP_ID, backend);
  natter_settings = natter_settings_new (settings);
  services = natter_services_new (data_dir, natter_settings, NULL, NULL, NULL);
  natter_services_set_secret_store (services, NATTER_SECRET_STORE (secrets));

  window = natter_preferences_window_new (NULL, services);
  g_assert_true (NATTER_IS_PREFERENCES_WINDOW (window));
  /* What it asks the services for holds it until answered. */
  ui_wait_until (preferences_idle, window);
  assert_window_finalized (GTK_WINDOW (window));

  g_clear_object (&services);
  natter_test_remove_tree (data_dir);
  natter_test_remove_tree (config_dir);
  g_unsetenv ("NATTER_CONFIG_DIR");
}

/* Notifications: what bindings and the window's handlers rely on. */

static void
test_composer_notify (void)
{
  g_autoptr(GObject) composer = own (natter_composer_new ());

  natter_test_property_notify_boolean (composer, "running");
  natter_test_property_notify_string (composer, "blocked-reason", NULL, "The turn waits for you.");
  natter_test_property_notify_string (composer, "blocked-reason", "One reason", "Another reason");
}

static void
test_sidebar_notify (void)
{
  g_autoptr(GObject) sidebar = own (natter_sidebar_new ());

  natter_test_property_notify_boolean (sidebar, "search-mode");
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *n)
{
  (*n)++;
}

/* Following the bottom is read-only: a revealed turn ends it, a message
 * sent (stick_to_bottom) takes it up again; each change notifies once. */
static void
test_conversation_view_notify (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Reveal");
  g_autofree char *turn_id = NULL;
  NatterTimelineModel *timeline;
  GtkWidget *view = g_object_ref_sink (natter_conversation_view_new ());
  NatterConversationView *conversation = NATTER_CONVERSATION_VIEW (view);
  guint n = 0;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, session_id, "Hello");

  ui_wait_turn (u, turn_id);
  timeline = natter_timeline_model_new (u->sessions, u->w->hub, session_id);
  ui_wait_until (timeline_model_loaded, timeline);
  natter_conversation_view_set_sessions (conversation, u->sessions);
  natter_conversation_view_set_timeline (conversation, timeline);
  g_assert_true (natter_conversation_view_get_sticks_to_bottom (conversation));
  g_signal_connect (view, "notify::sticks-to-bottom", G_CALLBACK (count_notify_cb), &n);

  natter_conversation_view_reveal_turn (conversation, turn_id);
  g_assert_false (natter_conversation_view_get_sticks_to_bottom (conversation));
  g_assert_cmpuint (n, ==, 1);
  natter_conversation_view_reveal_turn (conversation, turn_id);
  g_assert_cmpuint (n, ==, 1);
  natter_conversation_view_stick_to_bottom (conversation);
  g_assert_true (natter_conversation_view_get_sticks_to_bottom (conversation));
  g_assert_cmpuint (n, ==, 2);
  natter_conversation_view_stick_to_bottom (conversation);
  g_assert_cmpuint (n, ==, 2);

  natter_conversation_view_set_timeline (conversation, NULL);
  g_assert_null (natter_conversation_view_get_timeline (conversation));
  g_object_unref (timeline);
  g_assert_finalize_object (view);
  ui_world_free (u);
}

static void
test_model_picker_notify (void)
{
  g_autoptr(GObject) picker = own (natter_model_picker_new ());

  natter_test_property_notify_string (picker, "model", "model-a", "model-b");
  natter_test_property_notify_string (picker, "model", NULL, "model-a");
}

static void
test_agent_chooser_notify (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) agents_dir = g_file_get_child (dir, "agents");
  g_autoptr(NatterAgentStore) store = natter_agent_store_new (agents_dir);
  g_autoptr(JsonNode) tutor = natter_test_json ("{\"agentId\":\"tutor\",\"name\":\"Tutor\","
                                                "\"systemPrompt\":\"Teach.\",\"tools\":[]}");
  g_autoptr(GObject) chooser = own (natter_agent_chooser_new ());
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_agent_store_save (store, json_node_get_object (tutor), &error));
  g_assert_no_error (error);
  natter_agent_chooser_set_store (NATTER_AGENT_CHOOSER (chooser), store);
  /* The default is the built-in Assistant; only listed agents are taken. */
  natter_test_property_notify_string (chooser, "agent-id", NATTER_BUILTIN_AGENT_ID, "tutor");

  natter_agent_chooser_set_store (NATTER_AGENT_CHOOSER (chooser), NULL);
  g_clear_object (&store);
  natter_test_remove_tree (dir);
}

static void
test_turn_item_notify (void)
{
  UiWorld *u = ui_world_new ();
  NatterTurnItem *item = natter_turn_item_new (u->sessions, "t", 1);

  natter_test_setter_notify (item, "running", natter_turn_item_set_running, FALSE, TRUE);
  natter_test_setter_notify (item, "latest", natter_turn_item_set_latest, FALSE, TRUE);
  g_assert_finalize_object (item);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  for (guint i = 0; i < G_N_ELEMENTS (type_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/types/new-finalize/%s", type_cases[i].name);

      g_test_add_data_func (path, &type_cases[i], test_new_finalize);
    }
  g_test_add_func ("/types/new-finalize/NatterWindow", test_window_new_finalize);
  g_test_add_func ("/types/new-finalize/NatterPreferencesWindow", test_preferences_window_new_finalize);
  g_test_add_func ("/types/notify/composer", test_composer_notify);
  g_test_add_func ("/types/notify/model-picker", test_model_picker_notify);
  g_test_add_func ("/types/notify/sidebar", test_sidebar_notify);
  g_test_add_func ("/types/notify/conversation-view", test_conversation_view_notify);
  g_test_add_func ("/types/notify/agent-chooser", test_agent_chooser_notify);
  g_test_add_func ("/types/notify/turn-item", test_turn_item_notify);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
