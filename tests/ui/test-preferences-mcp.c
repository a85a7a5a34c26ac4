/* test-preferences-mcp.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Tool Servers page of Preferences, driven as a user would: the
 * servers of mcp.json with their states, the switch that disables one
 * (the rest of its entry kept), adding, editing, testing and removing a
 * server. The server is the fake MCP server of tests/data/mcp.
 */

#include <string.h>

#include <adwaita.h>
#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "config.h"
#include "natter-mcp-manager.h"
#include "natter-memory-secret-store.h"
#include "natter-preferences-window-private.h"
#include "natter-test-support.h"
#include "natter-ui-test-world.h"

#define WAIT_MS 20000

typedef struct
{
  GFile                   *data_dir;
  GFile                   *config_dir;
  char                    *config;
  char                    *python;
  char                    *script;
  GSettings               *settings;
  NatterServices          *services;
  NatterMemorySecretStore *secrets;
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

static gboolean
all_listed (gpointer data)
{
  NatterMcpManager *manager = data;
  GPtrArray *clients = natter_mcp_manager_get_clients (manager);

  for (guint i = 0; i < clients->len; i++)
    if (natter_mcp_manager_get_server_tools (manager, g_ptr_array_index (clients, i)) == NULL)
      return FALSE;
  return TRUE;
}

/* Starts the enabled servers and waits until each one's tools are
 * listed: the refresh itself stops waiting after the handshake limit,
 * which a main loop held up by the window's first frame (under ASan)
 * can outlast between a server's "ready" and its list. */
static void
refresh (Fixture *f)
{
  NatterMcpManager *manager = natter_services_get_mcp_manager (f->services);
  gboolean done = FALSE;

  natter_mcp_manager_refresh_async (manager, NULL, refreshed_cb, &done);
  natter_test_wait_for_flag (&done, WAIT_MS);
  ui_wait_until (all_listed, manager);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();
  g_autoptr(NatterSettings) settings = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  f->data_dir = natter_test_make_temp_dir ();
  f->config_dir = natter_test_make_temp_dir ();
  g_setenv ("NATTER_CONFIG_DIR", g_file_peek_path (f->config_dir), TRUE);
  f->config = g_build_filename (g_file_peek_path (f->config_dir), "mcp.json", NULL);
  f->python = g_find_program_in_path ("python3");
  f->script = g_test_build_filename (G_TEST_DIST, "..", "data", "mcp", "fake_mcp_server.py", NULL);
  text = g_strdup_printf ("{\"mcpServers\": {"
                          " \"fake\": {\"command\": \"%s\", \"args\": [\"%s\"], \"note\": \"kept\"},"
                          " \"off\": {\"command\": \"%s\", \"args\": [\"%s\"], \"disabled\": true}}}",
                          f->python, f->script, f->python, f->script);
  g_file_set_contents (f->config, text, -1, &error);
  g_assert_no_error (error);

  f->settings = g_settings_new_with_backend (APP_ID, backend);
  settings = natter_settings_new (f->settings);
  f->services = natter_services_new (f->data_dir, settings, NULL, NULL, NULL);
  f->secrets = natter_memory_secret_store_new ();
  natter_services_set_secret_store (f->services, NATTER_SECRET_STORE (f->secrets));
  f->window = natter_preferences_window_new (NULL, f->services);
  gtk_window_present (GTK_WINDOW (f->window));
  /* NULL: the servers are started as the window would; else the test
   * starts them itself. */
  if (data == NULL)
    refresh (f);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  gpointer weak = f->window;

  g_object_add_weak_pointer (G_OBJECT (f->window), &weak);
  gtk_window_destroy (GTK_WINDOW (f->window));
  while (weak != NULL && natter_preferences_window_get_n_pending (weak) > 0)
    g_main_context_iteration (NULL, TRUE);
  for (int i = 0; i < 100 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_clear_object (&f->services);
  g_clear_object (&f->secrets);
  g_clear_object (&f->settings);
  natter_test_remove_tree (f->data_dir);
  natter_test_remove_tree (f->config_dir);
  g_clear_object (&f->data_dir);
  g_clear_object (&f->config_dir);
  g_free (f->config);
  g_free (f->python);
  g_free (f->script);
  g_unsetenv ("NATTER_CONFIG_DIR");
}

static gboolean
no_pending (gpointer data)
{
  return natter_preferences_window_get_n_pending (data) == 0;
}

static const char *
subtitle (Fixture    *f,
          const char *server)
{
  GtkWidget *row = natter_preferences_window_get_mcp_widget (f->window, server, "row");

  g_assert_nonnull (row);
  return adw_action_row_get_subtitle (ADW_ACTION_ROW (row));
}

static JsonObject *
entry_on_disk (Fixture    *f,
               const char *server)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *servers;

  json_parser_load_from_file (parser, f->config, &error);
  g_assert_no_error (error);
  servers = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "mcpServers");
  if (!json_object_has_member (servers, server))
    return NULL;
  return json_object_ref (json_object_get_object_member (servers, server));
}

static void
click (Fixture    *f,
       const char *server,
       const char *field)
{
  GtkWidget *button = natter_preferences_window_get_mcp_widget (f->window, server, field);

  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
}

static void
test_states_and_switch (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(JsonObject) entry = NULL;
  GtkWidget *toggle;

  g_assert_cmpstr (subtitle (f, "fake"), ==, "Connected, 6 tools");
  g_assert_cmpstr (subtitle (f, "off"), ==, "Disabled");
  toggle = natter_preferences_window_get_mcp_widget (f->window, "off", "switch");
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (toggle)));

  /* Switching "fake" off writes "disabled" and keeps the rest. */
  toggle = natter_preferences_window_get_mcp_widget (f->window, "fake", "switch");
  gtk_switch_set_active (GTK_SWITCH (toggle), FALSE);
  ui_wait_until (no_pending, f->window);
  entry = entry_on_disk (f, "fake");
  g_assert_true (json_object_get_boolean_member (entry, "disabled"));
  g_assert_cmpstr (json_object_get_string_member (entry, "note"), ==, "kept");
  g_assert_cmpstr (subtitle (f, "fake"), ==, "Disabled");
  g_assert_cmpuint (natter_mcp_manager_get_clients (natter_services_get_mcp_manager (f->services))->len, ==, 0);
}

static void
ready_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(JsonNode) answer = natter_mcp_client_request_finish (NATTER_MCP_CLIENT (object), result, NULL);

  *(gboolean *) user_data = TRUE;
}

/* A server is ready one answer before its tools are listed: the row
 * does not call that "0 tools", and shows the count once the list
 * comes. The handshake is done here with a request other than the list,
 * which holds that moment as long as the test needs. */
static void
test_ready_before_listed (Fixture       *f,
                          gconstpointer  data)
{
  NatterMcpManager *manager = natter_services_get_mcp_manager (f->services);
  NatterMcpClient *client = natter_mcp_manager_find_client (manager, "fake");
  gboolean answered = FALSE;

  g_assert_nonnull (client);
  g_assert_cmpstr (subtitle (f, "fake"), ==, "Not started");
  natter_mcp_client_request_async (client, "ping", NULL, NULL, ready_cb, &answered);
  natter_test_wait_for_flag (&answered, WAIT_MS);
  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_READY);
  g_assert_null (natter_mcp_manager_get_server_tools (manager, client));
  g_assert_cmpstr (subtitle (f, "fake"), ==, "Connected, tools not listed yet");

  refresh (f);
  g_assert_cmpstr (subtitle (f, "fake"), ==, "Connected, 6 tools");
}

static void
test_add_edit_test_remove (Fixture       *f,
                           gconstpointer  data)
{
  GtkEditable *name = GTK_EDITABLE (natter_preferences_window_get_mcp_widget (f->window, NULL, "name"));
  GtkEditable *target = GTK_EDITABLE (natter_preferences_window_get_mcp_widget (f->window, NULL, "target"));
  g_autoptr(JsonObject) web = NULL;
  g_autoptr(JsonObject) gone = NULL;
  g_autoptr(JsonObject) before = NULL;
  g_autoptr(JsonObject) back = NULL;
  g_autofree char *expected_target = NULL;
  g_autofree char *quoted_python = g_shell_quote (f->python);
  g_autofree char *quoted_script = g_shell_quote (f->script);

  gtk_editable_set_text (name, "web");
  gtk_editable_set_text (target, "https://example.com/mcp");
  g_signal_emit_by_name (natter_preferences_window_get_mcp_widget (f->window, NULL, "save"), "clicked");
  ui_wait_until (no_pending, f->window);
  web = entry_on_disk (f, "web");
  g_assert_nonnull (web);
  g_assert_cmpstr (json_object_get_string_member (web, "url"), ==, "https://example.com/mcp");
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Saved the tool server “web”");
  g_assert_nonnull (natter_preferences_window_get_mcp_widget (f->window, "web", "row"));
  g_assert_cmpstr (gtk_editable_get_text (name), ==, "");

  /* A command line that does not parse is said, and nothing written. */
  gtk_editable_set_text (name, "broken");
  gtk_editable_set_text (target, "python3 'unclosed");
  g_signal_emit_by_name (natter_preferences_window_get_mcp_widget (f->window, NULL, "save"), "clicked");
  g_assert_null (entry_on_disk (f, "broken"));
  g_assert_nonnull (natter_preferences_window_get_last_toast (f->window));

  click (f, "off", "edit");
  expected_target = g_strdup_printf ("%s %s", quoted_python, quoted_script);
  g_assert_cmpstr (gtk_editable_get_text (name), ==, "off");
  g_assert_cmpstr (gtk_editable_get_text (target), ==, expected_target);

  /* Test starts even a disabled server, on the side. */
  click (f, "off", "test");
  ui_wait_until (no_pending, f->window);
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Test passed: 6 tools");

  before = entry_on_disk (f, "web");
  g_assert_nonnull (before);
  click (f, "web", "remove");
  ui_wait_until (no_pending, f->window);
  gone = entry_on_disk (f, "web");
  g_assert_null (gone);
  g_assert_null (natter_preferences_window_get_mcp_widget (f->window, "web", "row"));
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Removed the tool server “web”");

  /* Undo brings it back as it was, its row too. */
  g_signal_emit_by_name (natter_preferences_window_get_undo_toast (f->window), "button-clicked");
  ui_wait_until (no_pending, f->window);
  back = entry_on_disk (f, "web");
  g_assert_nonnull (back);
  g_assert_true (json_object_equal (before, back));
  g_assert_nonnull (natter_preferences_window_get_mcp_widget (f->window, "web", "row"));
}

/* Test shows what it found in the server's row, not only in a toast:
 * connected with its tool count, or the error; a disabled server stays
 * marked disabled. A later change of the server's real state replaces
 * the test's word. */
static void
test_test_updates_row (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(JsonObject) off = NULL;
  g_autoptr(GError) error = NULL;
  const char *state;

  g_assert_cmpstr (subtitle (f, "off"), ==, "Disabled");
  click (f, "off", "test");
  g_assert_cmpstr (subtitle (f, "off"), ==, "Disabled; testing…");
  ui_wait_until (no_pending, f->window);
  g_assert_cmpstr (subtitle (f, "off"), ==, "Disabled; the test connected, 6 tools");

  /* The entry now names a program that does not exist. */
  off = entry_on_disk (f, "off");
  json_object_set_string_member (off, "command", "/nonexistent/natter-no-server");
  g_assert_true (natter_mcp_config_update (f->config, "off", off, &error));
  g_assert_no_error (error);
  natter_preferences_window_rebuild_mcp (f->window);
  click (f, "off", "test");
  ui_wait_until (no_pending, f->window);
  state = subtitle (f, "off");
  g_assert_cmpstr (state, ==, "Disabled; the test failed: Cannot start tool server “off” with "
                             "“/nonexistent/natter-no-server”: there is no such program");

  /* An enabled server: the row says what the test found. */
  g_assert_cmpstr (subtitle (f, "fake"), ==, "Connected, 6 tools");
  click (f, "fake", "test");
  g_assert_cmpstr (subtitle (f, "fake"), ==, "Testing…");
  ui_wait_until (no_pending, f->window);
  g_assert_cmpstr (subtitle (f, "fake"), ==, "Connected, 6 tools");

  /* The running client stopping is newer news than the test. */
  natter_mcp_client_stop (g_ptr_array_index (natter_mcp_manager_get_clients (natter_services_get_mcp_manager (
                                                                                 f->services)), 0));
  g_assert_cmpstr (subtitle (f, "fake"), ==, "Not started");
}

static gboolean
has_row (gpointer data)
{
  Fixture *f = data;

  return natter_preferences_window_get_mcp_widget (f->window, "extra", "row") != NULL
         && g_strcmp0 (subtitle (f, "extra"), "Connected, 6 tools") == 0;
}

static gboolean
error_shown (gpointer data)
{
  Fixture *f = data;

  return gtk_widget_get_visible (natter_preferences_window_get_mcp_widget (f->window, NULL, "config-error"));
}

static gboolean
error_hidden (gpointer data)
{
  return !error_shown (data);
}

static gboolean
extra_gone (gpointer data)
{
  Fixture *f = data;

  return natter_preferences_window_get_mcp_widget (f->window, "extra", "row") == NULL;
}

/* mcp.json edited elsewhere while the page is open: a new server shows
 * (and starts), a mistake is said in words above the servers from
 * before, and the fixed file is taken up. */
static void
test_file_changed_elsewhere (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *with_extra = g_strdup_printf ("{\"mcpServers\": {"
                                                 " \"fake\": {\"command\": \"%s\", \"args\": [\"%s\"]},"
                                                 " \"extra\": {\"command\": \"%s\", \"args\": [\"%s\"]}}}",
                                                 f->python, f->script, f->python, f->script);
  g_autofree char *without = g_strdup_printf ("{\"mcpServers\": {"
                                              " \"fake\": {\"command\": \"%s\", \"args\": [\"%s\"]}}}",
                                              f->python, f->script);
  GtkWidget *error_row = natter_preferences_window_get_mcp_widget (f->window, NULL, "config-error");

  g_assert_false (gtk_widget_get_visible (error_row));
  g_file_set_contents (f->config, with_extra, -1, &error);
  g_assert_no_error (error);
  ui_wait_until (has_row, f);
  g_assert_nonnull (natter_preferences_window_get_mcp_widget (f->window, "fake", "row"));
  g_assert_null (natter_preferences_window_get_mcp_widget (f->window, "off", "row"));

  g_file_set_contents (f->config, "{\"mcpServers\": {\"fake\": {\"command\": 3}}}", -1, &error);
  g_assert_no_error (error);
  ui_wait_until (error_shown, f);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (error_row)), ==,
                   "mcp.json has a mistake; the servers below are those from before it");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (error_row)),
                            "Tool server “fake”: “command” must be a non-empty text"));
  g_assert_nonnull (natter_preferences_window_get_mcp_widget (f->window, "extra", "row"));
  g_assert_cmpuint (natter_mcp_manager_get_clients (natter_services_get_mcp_manager (f->services))->len, ==, 2);

  g_file_set_contents (f->config, without, -1, &error);
  g_assert_no_error (error);
  ui_wait_until (error_hidden, f);
  ui_wait_until (extra_gone, f);
  g_assert_nonnull (natter_preferences_window_get_mcp_widget (f->window, "fake", "row"));
}

static GtkWidget *
pair_widget (Fixture    *f,
             const char *field)
{
  GtkWidget *widget = natter_preferences_window_get_mcp_widget (f->window, NULL, field);

  g_assert_nonnull (widget);
  return widget;
}

static void
set_text (Fixture    *f,
          const char *field,
          const char *text)
{
  gtk_editable_set_text (GTK_EDITABLE (pair_widget (f, field)), text);
}

static const char *
get_text (Fixture    *f,
          const char *field)
{
  return gtk_editable_get_text (GTK_EDITABLE (pair_widget (f, field)));
}

static gboolean
secret_on (Fixture    *f,
           const char *field)
{
  return gtk_check_button_get_active (GTK_CHECK_BUTTON (pair_widget (f, field)));
}

static gboolean
web_connected (gpointer data)
{
  Fixture *f = data;

  return natter_preferences_window_get_mcp_widget (f->window, "web", "row") != NULL
         && g_strcmp0 (subtitle (f, "web"), "Connected, 6 tools") == 0;
}

/* Starts the fake server over HTTP, refusing any request without
 * @header (NAME:VALUE); returns its port. */
static char *
start_http_server (Fixture      *f,
                   GSubprocess **process,
                   const char   *header)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GError) error = NULL;
  char *port;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  *process = g_subprocess_launcher_spawn (launcher, &error, f->python, f->script, "--http", "--require-header",
                                          header, NULL);
  g_assert_no_error (error);
  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (*process));
  port = g_data_input_stream_read_line (lines, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (port);
  return port;
}

/* The message dialog shown over @window, if any. */
static AdwMessageDialog *
message_dialog_over (GtkWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (toplevel) && gtk_window_get_transient_for (toplevel) == window)
        return ADW_MESSAGE_DIALOG (toplevel);
    }
  return NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  Fixture *f = data;

  return message_dialog_over (GTK_WINDOW (f->window)) != NULL;
}

/* Without a keyring, saving a secret header says so whole, in a dialog
 * (a toast cut the reason short), and how to go on; nothing is written
 * and the rows stay as typed, so the save can be done again. */
static void
test_secret_without_keyring (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  AdwMessageDialog *dialog;
  const char *body;

  g_file_get_contents (f->config, &before, NULL, NULL);
  natter_memory_secret_store_set_failing (f->secrets, TRUE);
  gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_mcp_widget (f->window, NULL, "name")), "web");
  gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_mcp_widget (f->window, NULL, "target")),
                         "https://tools.example/mcp");
  g_signal_emit_by_name (pair_widget (f, "header:add"), "clicked");
  set_text (f, "header:0:name", "Authorization");
  g_assert_true (secret_on (f, "header:0:secret"));
  set_text (f, "header:0:value", "Bearer s3cret-v4lue");
  g_signal_emit_by_name (natter_preferences_window_get_mcp_widget (f->window, NULL, "save"), "clicked");
  ui_wait_until (no_pending, f->window);
  ui_wait_until (dialog_shown, f);

  dialog = message_dialog_over (GTK_WINDOW (f->window));
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Server Not Saved");
  body = adw_message_dialog_get_body (dialog);
  g_assert_true (g_str_has_prefix (body, "The value of a secret header could not be kept in the keyring, so "
                                         "nothing was saved. "));
  g_assert_true (g_str_has_suffix (body, "Details: The secret store is not available"));
  g_assert_null (strstr (body, "s3cret"));
  /* No toast cut it short, nothing was written, the rows wait. */
  g_assert_null (natter_preferences_window_get_last_toast (f->window));
  g_file_get_contents (f->config, &after, NULL, NULL);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpstr (get_text (f, "header:0:value"), ==, "Bearer s3cret-v4lue");

  adw_message_dialog_response (dialog, "close");
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* Headers of a URL server: an Authorization header is secret by itself,
 * its value goes to the keyring and mcp.json refers to it; the server
 * gets the value (the fake refuses any request without it). Edit shows
 * the rows again without the secret; a removed header leaves the file,
 * a removed server its secret. */
static void
test_headers_and_secrets (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GSubprocess) server = NULL;
  g_autofree char *port = start_http_server (f, &server, "Authorization:Bearer s3cret-v4lue");
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%s/mcp", port);
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) web = NULL;
  g_autoptr(JsonObject) edited = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *headers;

  gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_mcp_widget (f->window, NULL, "name")), "web");
  gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_mcp_widget (f->window, NULL, "target")), url);
  g_signal_emit_by_name (pair_widget (f, "header:add"), "clicked");
  set_text (f, "header:0:name", "Authorization");
  g_assert_true (secret_on (f, "header:0:secret"));
  g_assert_false (gtk_entry_get_visibility (GTK_ENTRY (pair_widget (f, "header:0:value"))));
  set_text (f, "header:0:value", "Bearer s3cret-v4lue");
  g_signal_emit_by_name (pair_widget (f, "header:add"), "clicked");
  set_text (f, "header:1:name", "X-Plain");
  g_assert_false (secret_on (f, "header:1:secret"));
  set_text (f, "header:1:value", "1");
  g_signal_emit_by_name (natter_preferences_window_get_mcp_widget (f->window, NULL, "save"), "clicked");
  ui_wait_until (no_pending, f->window);
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Saved the tool server “web”");

  g_file_get_contents (f->config, &text, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (strstr (text, "s3cret"));
  web = entry_on_disk (f, "web");
  headers = json_object_get_object_member (web, "headers");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (headers, "Authorization"),
                                                  "secret"), ==, "mcp-header:web/Authorization");
  g_assert_cmpstr (json_object_get_string_member (headers, "X-Plain"), ==, "1");
  g_assert_cmpstr (natter_memory_secret_store_peek (f->secrets, "mcp-header:web/Authorization"), ==,
                   "Bearer s3cret-v4lue");
  g_assert_null (natter_preferences_window_get_mcp_widget (f->window, NULL, "header:0:name"));
  /* The running server got the value from the keyring. */
  ui_wait_until (web_connected, f);

  click (f, "web", "edit");
  g_assert_cmpstr (get_text (f, "header:0:name"), ==, "Authorization");
  g_assert_cmpstr (get_text (f, "header:0:value"), ==, "");
  g_assert_true (secret_on (f, "header:0:secret"));
  g_assert_cmpstr (get_text (f, "header:1:name"), ==, "X-Plain");
  g_assert_cmpstr (get_text (f, "header:1:value"), ==, "1");
  g_signal_emit_by_name (pair_widget (f, "header:1:remove"), "clicked");
  g_assert_null (natter_preferences_window_get_mcp_widget (f->window, NULL, "header:1:name"));
  g_signal_emit_by_name (natter_preferences_window_get_mcp_widget (f->window, NULL, "save"), "clicked");
  ui_wait_until (no_pending, f->window);
  edited = entry_on_disk (f, "web");
  headers = json_object_get_object_member (edited, "headers");
  g_assert_false (json_object_has_member (headers, "X-Plain"));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (headers, "Authorization"),
                                                  "secret"), ==, "mcp-header:web/Authorization");
  g_assert_cmpstr (natter_memory_secret_store_peek (f->secrets, "mcp-header:web/Authorization"), ==,
                   "Bearer s3cret-v4lue");

  click (f, "web", "remove");
  ui_wait_until (no_pending, f->window);
  /* Kept while Undo is offered, gone with the toast. */
  g_assert_nonnull (natter_memory_secret_store_peek (f->secrets, "mcp-header:web/Authorization"));
  adw_toast_dismiss (natter_preferences_window_get_undo_toast (f->window));
  ui_wait_until (no_pending, f->window);
  g_assert_null (natter_memory_secret_store_peek (f->secrets, "mcp-header:web/Authorization"));
  g_subprocess_force_exit (server);
}

/* Environment variables of a command server, written and shown again;
 * rows that do not fit the server are refused in words. */
static void
test_env (Fixture       *f,
          gconstpointer  data)
{
  g_autoptr(JsonObject) saved = NULL;
  g_autofree char *command = g_strdup_printf ("%s %s", f->python, f->script);

  gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_mcp_widget (f->window, NULL, "name")), "local");
  gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_mcp_widget (f->window, NULL, "target")),
                         command);
  g_signal_emit_by_name (pair_widget (f, "header:add"), "clicked");
  set_text (f, "header:0:name", "X-Nope");
  set_text (f, "header:0:value", "1");
  g_signal_emit_by_name (natter_preferences_window_get_mcp_widget (f->window, NULL, "save"), "clicked");
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==,
                   "Headers are for a server reached by URL; a command gets environment variables");
  g_assert_null (entry_on_disk (f, "local"));
  g_signal_emit_by_name (pair_widget (f, "header:0:remove"), "clicked");

  g_signal_emit_by_name (pair_widget (f, "env:add"), "clicked");
  g_assert_null (natter_preferences_window_get_mcp_widget (f->window, NULL, "env:0:secret"));
  set_text (f, "env:0:name", "FOO");
  g_signal_emit_by_name (natter_preferences_window_get_mcp_widget (f->window, NULL, "save"), "clicked");
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Environment Variables: “FOO” has no value");
  set_text (f, "env:0:value", "bar baz");
  g_signal_emit_by_name (natter_preferences_window_get_mcp_widget (f->window, NULL, "save"), "clicked");
  ui_wait_until (no_pending, f->window);
  saved = entry_on_disk (f, "local");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (saved, "env"), "FOO"), ==,
                   "bar baz");
  g_assert_null (natter_preferences_window_get_mcp_widget (f->window, NULL, "env:0:name"));

  click (f, "local", "edit");
  g_assert_cmpstr (get_text (f, "env:0:name"), ==, "FOO");
  g_assert_cmpstr (get_text (f, "env:0:value"), ==, "bar baz");
  {
    /* The editor's fields, a variable's name and value among them, are
     * said by name. */
    g_autoptr(GPtrArray) cycle = ui_tab_cycle (f->window, NULL);

    ui_assert_tab_stops_named (cycle, "the tool server editor");
  }
}

/* The agent editor lists the enabled servers; a ticked one is written
 * to the agent's file and kept when it is edited again. */
static void
test_agent_servers (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(JsonObject) saved = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *servers;

  g_signal_emit_by_name (natter_preferences_window_get_widget (f->window, "add-agent"), "activated");
  gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_editor_widget (f->window, "name")), "Shots");
  g_assert_null (natter_preferences_window_get_editor_widget (f->window, "server:off"));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (natter_preferences_window_get_editor_widget (f->window,
                                                                                              "server:fake")),
                               TRUE);
  g_signal_emit_by_name (natter_preferences_window_get_editor_widget (f->window, "save"), "clicked");
  saved = natter_agent_store_load (natter_services_get_agent_store (f->services), "shots", &error);
  g_assert_no_error (error);
  servers = json_object_get_array_member (saved, "toolServers");
  g_assert_cmpuint (json_array_get_length (servers), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (servers, 0), ==, "fake");

  g_signal_emit_by_name (natter_preferences_window_get_agent_widget (f->window, "shots", "edit"), "clicked");
  g_assert_true (gtk_check_button_get_active (
    GTK_CHECK_BUTTON (natter_preferences_window_get_editor_widget (f->window, "server:fake"))));
}

/* The call timeout is a setting on the page: 60 s until changed, the
 * spin button writes the key and the running clients take it; the key
 * changed elsewhere shows in the spin button. */
static void
test_call_timeout (Fixture       *f,
                   gconstpointer  data)
{
  GtkWidget *spin = natter_preferences_window_get_mcp_widget (f->window, NULL, "timeout");
  GtkWidget *row;
  NatterMcpClient *client;

  g_assert_true (GTK_IS_SPIN_BUTTON (spin));
  g_assert_true (gtk_widget_is_visible (spin));
  row = gtk_widget_get_ancestor (spin, ADW_TYPE_ACTION_ROW);
  g_assert_nonnull (row);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Call Timeout");
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (spin)), ==, 60);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 90);
  g_assert_cmpuint (g_settings_get_uint (f->settings, "mcp-timeout"), ==, 90);
  client = g_ptr_array_index (natter_mcp_manager_get_clients (natter_services_get_mcp_manager (f->services)), 0);
  g_assert_cmpstr (natter_mcp_client_get_config (client)->name, ==, "fake");
  g_assert_cmpuint (natter_mcp_client_get_timeout (client), ==, 90);

  g_settings_set_uint (f->settings, "mcp-timeout", 30);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (spin)), ==, 30);
  g_assert_cmpuint (natter_mcp_client_get_timeout (client), ==, 30);
}

/* mcp.json broken while Natter runs, before the page is opened — here
 * nested 100,000 deep, which crashed the window when it read it: the
 * page lists the servers that still run (those of the last file that
 * parsed, disabled ones too), with the file's mistake above them. */
static void
test_opened_after_mistake (Fixture       *f,
                           gconstpointer  data)
{
  NatterMcpManager *manager = natter_services_get_mcp_manager (f->services);
  g_autofree char *open = g_strnfill (100000, '[');
  g_autofree char *close = g_strnfill (100000, ']');
  g_autofree char *deep = NULL;
  g_autoptr(GError) error = NULL;
  gpointer weak = f->window;
  GtkWidget *error_row;

  g_object_add_weak_pointer (G_OBJECT (f->window), &weak);
  gtk_window_destroy (GTK_WINDOW (f->window));
  while (weak != NULL && natter_preferences_window_get_n_pending (weak) > 0)
    g_main_context_iteration (NULL, TRUE);
  deep = g_strdup_printf ("{\"mcpServers\": %s%s}", open, close);
  g_file_set_contents (f->config, deep, -1, &error);
  g_assert_no_error (error);
  /* What the running application's watch of the file does. */
  natter_mcp_manager_reload (manager);
  g_assert_cmpuint (natter_mcp_manager_get_clients (manager)->len, ==, 1);

  f->window = natter_preferences_window_new (NULL, f->services);
  gtk_window_present (GTK_WINDOW (f->window));
  error_row = natter_preferences_window_get_mcp_widget (f->window, NULL, "config-error");
  g_assert_true (gtk_widget_get_visible (error_row));
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (error_row)),
                            "is not valid JSON: 1:535: the JSON nests deeper than 520 levels"));
  g_assert_cmpstr (subtitle (f, "fake"), ==, "Connected, 6 tools");
  g_assert_cmpstr (subtitle (f, "off"), ==, "Disabled");
}

int
main (int   argc,
      char *argv[])
{
  ui_test_init (&argc, &argv);
  /* Subpages come and go at once, as with reduced motion. */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  g_test_add ("/preferences/mcp/states-and-switch", Fixture, NULL, fixture_set_up, test_states_and_switch,
              fixture_tear_down);
  g_test_add ("/preferences/mcp/ready-before-listed", Fixture, "started by the test", fixture_set_up,
              test_ready_before_listed, fixture_tear_down);
  g_test_add ("/preferences/mcp/add-edit-test-remove", Fixture, NULL, fixture_set_up, test_add_edit_test_remove,
              fixture_tear_down);
  g_test_add ("/preferences/mcp/test-updates-row", Fixture, NULL, fixture_set_up, test_test_updates_row,
              fixture_tear_down);
  g_test_add ("/preferences/mcp/file-changed-elsewhere", Fixture, NULL, fixture_set_up,
              test_file_changed_elsewhere, fixture_tear_down);
  g_test_add ("/preferences/mcp/opened-after-mistake", Fixture, NULL, fixture_set_up, test_opened_after_mistake,
              fixture_tear_down);
  g_test_add ("/preferences/mcp/headers-and-secrets", Fixture, NULL, fixture_set_up, test_headers_and_secrets,
              fixture_tear_down);
  g_test_add ("/preferences/mcp/secret-without-keyring", Fixture, NULL, fixture_set_up, test_secret_without_keyring,
              fixture_tear_down);
  g_test_add ("/preferences/mcp/env", Fixture, NULL, fixture_set_up, test_env, fixture_tear_down);
  g_test_add ("/preferences/mcp/call-timeout", Fixture, NULL, fixture_set_up, test_call_timeout, fixture_tear_down);
  g_test_add ("/preferences/mcp/agent-servers", Fixture, NULL, fixture_set_up, test_agent_servers,
              fixture_tear_down);
  return g_test_run ();
}
