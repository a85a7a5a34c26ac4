/* test-markup.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A user's and a server's names are text, never markup: "Tom & Jerry
 * <b>x</b>" as a provider's name, a model's id from the server's
 * /models, an agent's name, a tool server's name, the folder mcp.json is
 * read from, a folder of conversations, a conversation's title and an
 * attached file's name shows as typed wherever Natter shows it, and
 * nothing warns. libadwaita 1.2 reads a row's title and subtitle, a
 * group's description, a status page's description and a toast's title
 * as Pango markup; the UI tests' log writer fails a test on GTK's
 * "Failed to set text … from markup" (natter-ui-test-log.c), so each
 * view opened here is also checked for that.
 */

#include <string.h>

#include <adwaita.h>
#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "config.h"
#include "natter-mcp-manager.h"
#include "natter-mcp-page.h"
#include "natter-memory-secret-store.h"
#include "natter-models-dialog.h"
#include "natter-preferences-window-private.h"
#include "natter-folder-log.h"
#include "natter-model-picker.h"
#include "natter-permissions-list.h"
#include "natter-sessions-grants.h"
#include "natter-sidebar-header-row.h"
#include "natter-test-server.h"
#include "natter-test-support.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

#define NAME "Tom & Jerry <b>x</b>"
/* The same, as a file's name can be (no "/"). */
#define FILE_NAME "Tom & Jerry <b>x"
#define WAIT_MS 20000

static NatterApplication *app;

/* The row's title is @title, and the row shows it as it is. */
static void
assert_row_title (GtkWidget  *row,
                  const char *title)
{
  g_assert_nonnull (row);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, title);
  ui_wait_label (row, title);
}

/* Preferences */

typedef struct
{
  NatterTestServer        *models;  /* the provider's /models: one model, called NAME */
  GFile                   *data_dir;
  GFile                   *temp_dir;
  GFile                   *config_dir;  /* temp_dir/FILE_NAME */
  GSettings               *settings;
  NatterMemorySecretStore *secrets;
  NatterServices          *services;
  NatterPreferencesWindow *window;
} Fixture;

static void
refreshed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_assert_true (natter_mcp_manager_refresh_finish (NATTER_MCP_MANAGER (object), result, NULL));
  *(gboolean *) user_data = TRUE;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "..", "data", "mcp", "fake_mcp_server.py", NULL);
  g_autofree char *mcp = NULL;
  g_autofree char *mcp_path = NULL;
  gboolean refreshed = FALSE;

  g_assert_nonnull (python);
  f->models = natter_test_server_new_models ("{\"object\":\"list\",\"data\":[{\"id\":\"" NAME "\"}]}");
  f->data_dir = natter_test_make_temp_dir ();
  f->temp_dir = natter_test_make_temp_dir ();
  /* Where mcp.json is read from is said in a group's description. */
  f->config_dir = g_file_get_child (f->temp_dir, FILE_NAME);
  g_assert_true (g_file_make_directory (f->config_dir, NULL, &error));
  g_assert_no_error (error);
  g_setenv ("NATTER_CONFIG_DIR", g_file_peek_path (f->config_dir), TRUE);
  mcp = g_strdup_printf ("{\"mcpServers\": {\"%s\": {\"command\": \"%s\", \"args\": [\"%s\"]}}}", NAME, python,
                         script);
  mcp_path = g_build_filename (g_file_peek_path (f->config_dir), "mcp.json", NULL);
  g_assert_true (g_file_set_contents (mcp_path, mcp, -1, &error));
  g_assert_no_error (error);

  f->settings = g_settings_new_with_backend (APP_ID, backend);
  g_settings_set_value (f->settings, "providers",
                        g_variant_new_parsed ("[('local', %s, %s)]", NAME, f->models->base_url));
  g_settings_set_string (f->settings, "default-provider", "local");
  g_settings_set_string (f->settings, "default-model", NAME);
  g_unsetenv ("NATTER_API_KEY");

  f->secrets = natter_memory_secret_store_new ();
  {
    g_autoptr(NatterSettings) settings = natter_settings_new (f->settings);

    f->services = natter_services_new (f->data_dir, settings, NULL, NULL, NULL);
  }
  natter_services_set_secret_store (f->services, NATTER_SECRET_STORE (f->secrets));
  {
    g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"tj\",\"name\":\"" NAME "\","
                                                  "\"systemPrompt\":\"Be " NAME "\",\"tools\":[]}");

    g_assert_true (natter_agent_store_save (natter_services_get_agent_store (f->services),
                                            json_node_get_object (agent), &error));
    g_assert_no_error (error);
  }
  natter_mcp_manager_refresh_async (natter_services_get_mcp_manager (f->services), NULL, refreshed_cb, &refreshed);
  natter_test_wait_for_flag (&refreshed, WAIT_MS);

  f->window = natter_preferences_window_new (NULL, f->services);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 720, 640);
  gtk_window_present (GTK_WINDOW (f->window));
  ui_wait_preferences_idle (f->window);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  ui_destroy_preferences_window (f->window);
  g_clear_object (&f->services);
  g_clear_object (&f->secrets);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&f->settings);
  natter_test_server_free (f->models);
  natter_test_remove_tree (f->data_dir);
  natter_test_remove_tree (f->temp_dir);
  g_clear_object (&f->data_dir);
  g_clear_object (&f->temp_dir);
  g_clear_object (&f->config_dir);
  g_unsetenv ("NATTER_CONFIG_DIR");
}

/* Shows the page of @type (a #AdwPreferencesPage), named @name unless
 * %NULL. */
static void
show_page (Fixture    *f,
           GType       type,
           const char *name)
{
  AdwPreferencesPage *page = NULL;

  /* The pages of the window's stack, shown or not. */
  for (GtkWidget *w = gtk_widget_get_first_child (GTK_WIDGET (f->window)); w != NULL && page == NULL;)
    {
      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type) &&
          (name == NULL || g_strcmp0 (adw_preferences_page_get_name (ADW_PREFERENCES_PAGE (w)), name) == 0))
        page = ADW_PREFERENCES_PAGE (w);
      else if (gtk_widget_get_first_child (w) != NULL)
        w = gtk_widget_get_first_child (w);
      else
        {
          while (w != NULL && gtk_widget_get_next_sibling (w) == NULL)
            w = gtk_widget_get_parent (w);
          if (w != NULL)
            w = gtk_widget_get_next_sibling (w);
        }
    }
  g_assert_nonnull (page);
  adw_preferences_window_set_visible_page (ADW_PREFERENCES_WINDOW (f->window), page);
  ui_wait_preferences_idle (f->window);
}

static gboolean
models_listed (gpointer data)
{
  NatterModelsDialog *dialog = (NatterModelsDialog *) ui_find_toplevel (NATTER_TYPE_MODELS_DIALOG);

  return dialog != NULL && g_strcmp0 (natter_models_dialog_get_state (dialog), "models") == 0;
}

/* Each page of Preferences that names the provider, its model, the
 * agent or the tool server shows the name as it is; so do the models
 * dialog, the agent editor and the toast that says a provider went. */
static void
test_preferences (Fixture       *f,
                  gconstpointer  data)
{
  GtkWidget *row;

  /* Providers: the row's title, the default model's combo. */
  show_page (f, ADW_TYPE_PREFERENCES_PAGE, "providers");
  assert_row_title (natter_preferences_window_get_provider_widget (f->window, "local", "expander"), NAME);
  ui_save_window (GTK_WIDGET (f->window), "markup-providers.png");
  ui_save_screen ("markup-providers-screen.png");

  /* Its models, listed from the server. */
  g_signal_emit_by_name (natter_preferences_window_get_provider_widget (f->window, "local", "models"), "clicked");
  ui_wait_until (models_listed, NULL);
  {
    GtkWindow *dialog = ui_find_toplevel (NATTER_TYPE_MODELS_DIALOG);
    GtkWidget *list = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (dialog), NATTER_TYPE_MODELS_DIALOG,
                                                                 "model_list"));
    g_autoptr(GPtrArray) rows = ui_find_all (list, ADW_TYPE_ACTION_ROW);

    g_assert_cmpuint (rows->len, ==, 1);
    assert_row_title (g_ptr_array_index (rows, 0), NAME);
    /* The header's subtitle names the provider. */
    ui_wait_label (ui_find_first (dialog, ADW_TYPE_WINDOW_TITLE), NAME);
    gtk_window_destroy (dialog);
  }

  /* General: the default model, and the context window row naming it. */
  show_page (f, ADW_TYPE_PREFERENCES_PAGE, "general");
  row = natter_preferences_window_get_widget (f->window, "model");
  ui_wait_label (row, NAME);
  ui_wait_label (natter_preferences_window_get_widget (f->window, "provider"), NAME);
  assert_row_title (natter_preferences_window_get_widget (f->window, "context-window-row"),
                    "Context Window of “" NAME "”");

  /* Agents: the row, and the editor's tool server row and models. */
  show_page (f, ADW_TYPE_PREFERENCES_PAGE, "agents");
  assert_row_title (natter_preferences_window_get_agent_widget (f->window, "tj", "row"), NAME);
  g_signal_emit_by_name (natter_preferences_window_get_agent_widget (f->window, "tj", "edit"), "clicked");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (natter_preferences_window_get_editor_widget (f->window,
                                                                                                    "name"))),
                   ==, NAME);
  ui_wait_label (f->window, "Tool server “" NAME "”");
  adw_combo_row_set_selected (ADW_COMBO_ROW (natter_preferences_window_get_editor_widget (f->window,
                                                                                          "model-provider")), 1);
  ui_wait_preferences_idle (f->window);
  ui_wait_label (natter_preferences_window_get_editor_widget (f->window, "model-provider"), NAME);
  ui_wait_label (natter_preferences_window_get_editor_widget (f->window, "model-list"), NAME);
  adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (f->window));
  ui_wait_preferences_idle (f->window);

  /* Tool servers: the server's row, and where mcp.json is. */
  show_page (f, NATTER_TYPE_MCP_PAGE, NULL);
  assert_row_title (natter_preferences_window_get_mcp_widget (f->window, NAME, "row"), NAME);
  {
    g_autofree char *path = g_build_filename (g_file_peek_path (f->config_dir), "mcp.json", NULL);
    g_autofree char *description = g_strdup_printf ("Every call of a server’s tool asks first. Read from %s.", path);

    ui_wait_label (f->window, description);
  }

  /* Removing the provider says so in a toast, which is markup. */
  show_page (f, ADW_TYPE_PREFERENCES_PAGE, "providers");
  g_signal_emit_by_name (natter_preferences_window_get_provider_widget (f->window, "local", "remove"), "clicked");
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Removed “" NAME "”");
  ui_wait_label (f->window, "Removed “" NAME "”");
  g_signal_emit_by_name (natter_preferences_window_get_undo_toast (f->window), "button-clicked");
  ui_wait_preferences_idle (f->window);
  assert_row_title (natter_preferences_window_get_provider_widget (f->window, "local", "expander"), NAME);
}

/* The window */

static gboolean
picker_listed (gpointer picker)
{
  return g_strcmp0 (natter_model_picker_get_state (picker), "models") == 0;
}

static char *
describe_picker (gpointer picker)
{
  return g_strdup_printf ("the model picker is in the state “%s”", natter_model_picker_get_state (picker));
}

/* The tool called NAME, which no turn here calls. */
static JsonObject *
never_run (JsonObject              *descriptor,
           JsonObject              *input,
           NatterToolProgressFunc   progress,
           gpointer                 progress_data,
           GCancellable            *cancellable,
           gpointer                 run_data,
           GError                 **error)
{
  g_assert_not_reached ();
}

/* A folder, a conversation in it, a file it was sent, the provider and
 * model the header's picker lists and a tool always allowed, each called
 * NAME: the sidebar, the timeline, the picker, the permissions dialog
 * and the toast of the folder's deletion show it as it is. */
static void
test_window (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NAME);
  g_autoptr(NatterBlobStore) blobs = natter_blob_store_new (u->w->storage);
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  g_autoptr(GFile) file = g_file_get_child (u->w->dir, FILE_NAME ".txt");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *folder_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *grant_id = NULL;
  NatterTestServer *models = natter_test_server_new_models ("{\"object\":\"list\",\"data\":[{\"id\":\"" NAME "\"}]}");
  NatterModelPicker *picker;
  NatterWindow *window;
  GtkWidget *header = NULL;

  natter_turn_runtime_set_blob_store (u->w->runtime, blobs);
  g_assert_true (g_file_replace_contents (file, "the word is plum", 16, NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL,
                                          &error));
  g_assert_no_error (error);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send_with_files (u, blobs, session_id, "What is in it?", NULL, file, NULL);
  ui_wait_turn (u, turn_id);

  folder_id = ui_create_folder (folders, NAME);
  natter_test_tools_add (natter_turn_runtime_get_tools (u->w->runtime),
                         "{\"toolId\":\"t.markup\",\"name\":\"" NAME "\",\"description\":\"" NAME "\","
                         "\"inputSchema\":{\"type\":\"object\"},\"execution\":\"sync\",\"requiresHuman\":false}",
                         never_run, NULL);
  natter_sessions_add_grant_async (u->sessions, session_id, "t.markup", NULL, ui_result_cb, &result);
  grant_id = natter_sessions_add_grant_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);

  window = ui_window_new (app, u);
  natter_window_set_blob_store (window, blobs);
  natter_window_set_folders (window, folders);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.move-to-folder", "(ss)", "", folder_id));

  /* The sidebar: the folder's header and the conversation's row. */
  ui_wait_label (natter_window_get_session_list (window), NAME);
  {
    g_autoptr(GPtrArray) headers = NULL;

    headers = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SIDEBAR_HEADER_ROW);
    for (guint i = 0; i < headers->len; i++)
      if (ui_label_shown (g_ptr_array_index (headers, i), NAME))
        header = g_ptr_array_index (headers, i);
    g_assert_nonnull (header);
  }
  g_assert_nonnull (ui_find_session_row (window, session_id));
  ui_wait_label (ui_find_session_row (window, session_id), NAME);

  /* The timeline: the file's name on its chip. */
  ui_wait_label (natter_window_get_timeline_list (window), FILE_NAME ".txt");

  /* The permissions dialog: the tool always allowed. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.permissions", NULL));
  ui_wait_until (ui_permissions_list_shows, GUINT_TO_POINTER (1));
  ui_wait_label (ui_find_permissions_list (), NAME);
  gtk_window_destroy (GTK_WINDOW (gtk_widget_get_ancestor (GTK_WIDGET (ui_find_permissions_list ()), GTK_TYPE_WINDOW)));
  ui_settle ();

  /* Deleting the folder says so in a toast, which is markup. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-folder", "s", folder_id));
  ui_wait_label (natter_window_get_toast_overlay (window), "Folder “" NAME "” deleted; its conversations stay");

  /* The header's model picker, in a new chat (the conversation's own
   * model is the fake one): the provider's model. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL));
  ui_settle ();
  natter_provider_registry_add_provider (registry, "local", NAME, models->base_url);
  natter_window_set_model_provider (window, registry, "local", NAME);
  picker = natter_window_get_model_picker (window);
  ui_wait_until_full (picker_listed, describe_picker, picker);
  natter_model_picker_popup (picker);
  ui_wait_label (picker, NAME);
  natter_model_picker_popdown (picker);

  ui_destroy_window (window);
  natter_test_server_free (models);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);
  g_test_add ("/markup/preferences", Fixture, NULL, fixture_set_up, test_preferences, fixture_tear_down);
  g_test_add_func ("/markup/window", test_window);
  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
