/* natter-preferences-mcp.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Tool Servers page of Preferences: one row per server of mcp.json
 * with its state (connected and how many tools, not started, the last
 * error, disabled, what the last Test found until the server's own state
 * changes), a switch to enable it, Edit, Test and Remove; and a
 * group to add a server or save the one being edited, as a command line
 * (stdio) with its environment variables or an http(s) URL with its
 * headers (a secret header's value goes to the keyring, mcp.json gets a
 * reference: natter-mcp-secrets.h). Edits rewrite only that server's entry in
 * mcp.json, keeping whatever else the entry or the file holds, and the
 * servers are read again.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-error-words.h"
#include "natter-mcp-config.h"
#include "natter-mcp-error.h"
#include "natter-mcp-manager.h"
#include "natter-mcp-pairs.h"
#include "natter-mcp-secrets.h"
#include "natter-preferences-window-private.h"

typedef struct
{
  NatterPreferencesWindow *window;   /* owns this */
  NatterMcpManager        *manager;
  AdwPreferencesGroup     *group;
  GPtrArray               *rows;      /* AdwActionRow, one per server */
  GHashTable              *widgets;   /* "server\x1ffield" → GtkWidget (borrowed) */
  GHashTable              *tests;     /* server → what its last Test found (a sentence) */
  GtkWidget               *error_row; /* why mcp.json cannot be used now; hidden when it can */
  GtkEditable             *name_entry;
  GtkEditable             *target_entry;
  GtkWidget               *save_button;
  NatterMcpPairs          *env;       /* a command's environment variables */
  NatterMcpPairs          *headers;   /* a URL's headers */
  GtkSpinButton           *timeout_spin;
  guint                    reload_id;
} McpPage;

static void rebuild (McpPage *page);

static void
mcp_page_free (McpPage *page)
{
  g_clear_object (&page->manager);
  g_ptr_array_unref (page->rows);
  g_hash_table_unref (page->widgets);
  g_hash_table_unref (page->tests);
  natter_mcp_pairs_free (page->env);
  natter_mcp_pairs_free (page->headers);
  g_free (page);
}

static McpPage *
get_page (NatterPreferencesWindow *self)
{
  return g_object_get_data (G_OBJECT (self), "natter-mcp-page");
}

static const char *
config_path (McpPage *page)
{
  return natter_mcp_manager_get_config_path (page->manager);
}

static gboolean
reload_idle_cb (gpointer user_data)
{
  NatterPreferencesWindow *window = user_data;
  McpPage *page = get_page (window);

  if (page != NULL)
    page->reload_id = 0;
  if (natter_preferences_window_pending_end (window) && page != NULL)
    {
      /* A test of the old entries says nothing about the new ones. */
      g_hash_table_remove_all (page->tests);
      natter_mcp_manager_reload (page->manager);
      rebuild (page);
      natter_mcp_manager_refresh_async (page->manager, NULL, NULL, NULL);
    }
  return G_SOURCE_REMOVE;
}

/* Reads mcp.json again, starts the enabled servers, shows the rows:
 * from an idle, since the widget that asked is one of the rows. */
static void
reload (McpPage *page)
{
  if (page->reload_id != 0)
    return;
  page->reload_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, reload_idle_cb,
                                     natter_preferences_window_pending_begin (page->window), g_object_unref);
}

static char *
describe_state (McpPage               *page,
                NatterMcpServerConfig *config)
{
  GPtrArray *clients = natter_mcp_manager_get_clients (page->manager);
  const char *tested = g_hash_table_lookup (page->tests, config->name);

  /* Translators: %s says what a test of the disabled server found */
  if (!config->enabled && tested != NULL)
    return g_strdup_printf (_("Disabled; %s"), tested);
  if (!config->enabled)
    return g_strdup (_("Disabled"));
  if (tested != NULL)
    return g_strdup (tested);
  for (guint i = 0; i < clients->len; i++)
    {
      NatterMcpClient *client = g_ptr_array_index (clients, i);
      guint n;

      if (!g_str_equal (natter_mcp_client_get_config (client)->name, config->name))
        continue;
      switch (natter_mcp_client_get_state (client))
        {
        case NATTER_MCP_CLIENT_STATE_READY:
          n = natter_mcp_manager_count_tools (page->manager, config->name);
          return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Connected, %u tool", "Connected, %u tools", n), n);
        case NATTER_MCP_CLIENT_STATE_CONNECTING:
          return g_strdup (_("Starting…"));
        case NATTER_MCP_CLIENT_STATE_FAILED:
          return natter_error_words_local (natter_mcp_client_get_last_error (client));
        case NATTER_MCP_CLIENT_STATE_IDLE:
        default:
          return g_strdup (_("Not started"));
        }
    }
  return g_strdup (_("Not started"));
}

static void
remember (McpPage    *page,
          const char *server,
          const char *field,
          GtkWidget  *widget)
{
  g_hash_table_replace (page->widgets, g_strdup_printf ("%s\x1f%s", server, field), widget);
}

static void
show_error (McpPage *page,
            GError  *error)
{
  natter_preferences_window_show_toast (page->window, error->message);
}

static void
enabled_cb (GtkSwitch  *toggle,
            GParamSpec *pspec,
            McpPage    *page)
{
  const char *name = g_object_get_data (G_OBJECT (toggle), "server");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) entry = natter_mcp_config_dup_entry (config_path (page), name, &error);

  if (entry == NULL)
    {
      if (error != NULL)
        show_error (page, error);
      return;
    }
  if (gtk_switch_get_active (toggle))
    json_object_remove_member (entry, "disabled");
  else
    json_object_set_boolean_member (entry, "disabled", TRUE);
  if (!natter_mcp_config_update (config_path (page), name, entry, &error))
    show_error (page, error);
  reload (page);
}

/* The secret keys that @entry's headers refer to. */
static GPtrArray *
secret_keys_of (JsonObject *entry)
{
  GPtrArray *keys = g_ptr_array_new ();
  JsonNode *node = entry != NULL ? json_object_get_member (entry, "headers") : NULL;
  g_autoptr(GList) names = NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return keys;
  names = json_object_get_members (json_node_get_object (node));
  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *key = natter_mcp_header_get_secret_key (json_object_get_member (json_node_get_object (node),
                                                                                  l->data));

      if (key != NULL)
        g_ptr_array_add (keys, (gpointer) key);
    }
  return keys;
}

static void
forgotten_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!natter_secret_store_clear_finish (NATTER_SECRET_STORE (object), result, &error))
    g_debug ("A tool server's secret stays in the keyring: %s", error->message);
  /* NULL: the Preferences window was closed meanwhile. */
  if (user_data == NULL)
    return;
  natter_preferences_window_pending_end (user_data);
  g_object_unref (user_data);
}

/* Removes from the keyring the secrets @old referred to that @new (the
 * entry written instead, or NULL) no longer does: a removed header or
 * server leaves no credential behind. */
static void
forget_secrets (McpPage    *page,
                JsonObject *old,
                JsonObject *new)
{
  g_autoptr(GPtrArray) before = secret_keys_of (old);
  g_autoptr(GPtrArray) after = secret_keys_of (new);

  for (guint i = 0; i < before->len; i++)
    if (!g_ptr_array_find_with_equal_func (after, g_ptr_array_index (before, i), g_str_equal, NULL))
      natter_secret_store_clear_async (natter_services_get_secret_store (page->window->services),
                                       g_ptr_array_index (before, i), NULL, forgotten_cb,
                                       natter_preferences_window_pending_begin (page->window));
}

/* A removed server, while its toast offers Undo: its entry comes back
 * as it was, and its secrets stay in the keyring until the toast goes. */
typedef struct
{
  NatterPreferencesWindow *window;   /* weak */
  NatterSecretStore       *secrets;
  char                    *name;
  JsonObject              *entry;
  gboolean                 undone;
} RemovedServer;

static void
removed_server_free (gpointer data)
{
  RemovedServer *removed = data;

  g_clear_weak_pointer (&removed->window);
  g_clear_object (&removed->secrets);
  g_free (removed->name);
  g_clear_pointer (&removed->entry, json_object_unref);
  g_free (removed);
}

static void
undo_remove_cb (AdwToast      *toast,
                RemovedServer *removed)
{
  McpPage *page = removed->window != NULL ? get_page (removed->window) : NULL;
  g_autoptr(GError) error = NULL;

  if (page == NULL || removed->undone)
    return;
  removed->undone = TRUE;
  if (!natter_mcp_config_update (config_path (page), removed->name, removed->entry, &error))
    show_error (page, error);
  reload (page);
}

/* The toast went without Undo: the secrets the server's headers kept go
 * too, so that a removed server leaves no credential behind. */
static void
remove_dismissed_cb (AdwToast      *toast,
                     RemovedServer *removed)
{
  McpPage *page = removed->window != NULL ? get_page (removed->window) : NULL;
  g_autoptr(GPtrArray) keys = NULL;

  if (removed->undone)
    return;
  if (page != NULL)
    {
      forget_secrets (page, removed->entry, NULL);
      return;
    }
  keys = secret_keys_of (removed->entry);
  for (guint i = 0; i < keys->len; i++)
    natter_secret_store_clear_async (removed->secrets, g_ptr_array_index (keys, i), NULL, forgotten_cb, NULL);
}

static void
remove_cb (GtkButton *button,
           McpPage   *page)
{
  g_autofree char *name = g_strdup (g_object_get_data (G_OBJECT (button), "server"));
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  g_autoptr(JsonObject) old = natter_mcp_config_dup_entry (config_path (page), name, NULL);
  RemovedServer *removed;
  AdwToast *toast;

  if (!natter_mcp_config_update (config_path (page), name, NULL, &error))
    {
      show_error (page, error);
      return;
    }
  message = g_strdup_printf (_("Removed the tool server “%s”"), name);
  if (old == NULL)
    {
      natter_preferences_window_show_toast (page->window, message);
      reload (page);
      return;
    }
  removed = g_new0 (RemovedServer, 1);
  g_set_weak_pointer (&removed->window, page->window);
  removed->secrets = g_object_ref (natter_services_get_secret_store (page->window->services));
  removed->name = g_steal_pointer (&name);
  removed->entry = g_steal_pointer (&old);
  toast = natter_preferences_window_show_undo_toast (page->window, message);
  g_object_set_data_full (G_OBJECT (toast), "removed", removed, removed_server_free);
  g_signal_connect (toast, "button-clicked", G_CALLBACK (undo_remove_cb), removed);
  g_signal_connect (toast, "dismissed", G_CALLBACK (remove_dismissed_cb), removed);
  reload (page);
}

/* Shows @map (an entry's `env` or `headers`) as rows; a stored secret's
 * value is not read back, the row only says it is kept. */
static void
fill_pairs (NatterMcpPairs *pairs,
            JsonObject     *map)
{
  g_autoptr(GList) names = map != NULL ? json_object_get_members (map) : NULL;

  natter_mcp_pairs_clear (pairs);
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *value = json_object_get_member (map, l->data);
      const char *key = natter_mcp_header_get_secret_key (value);

      natter_mcp_pairs_add (pairs, l->data, key == NULL ? json_node_get_string (value) : NULL, key);
    }
}

static void
edit_cb (GtkButton *button,
         McpPage   *page)
{
  NatterMcpServerConfig *config = g_object_get_data (G_OBJECT (button), "config");
  g_autoptr(GString) target = g_string_new (NULL);

  if (config->url != NULL)
    g_string_append (target, config->url);
  else
    {
      g_autofree char *command = g_shell_quote (config->command);

      g_string_append (target, command);
      for (guint i = 0; config->args[i] != NULL; i++)
        {
          g_autofree char *arg = g_shell_quote (config->args[i]);

          g_string_append_printf (target, " %s", arg);
        }
    }
  gtk_editable_set_text (page->name_entry, config->name);
  gtk_editable_set_text (page->target_entry, target->str);
  fill_pairs (page->env, config->env);
  fill_pairs (page->headers, config->headers);
}

typedef struct
{
  McpPage   *page;
  GtkWidget *row;
  char      *server;
  gboolean   enabled;
} TestCall;

/* Shows the server's state again in its row, if it still has one. */
static void
update_row (McpPage    *page,
            const char *server)
{
  g_autofree char *key = g_strdup_printf ("%s\x1f%s", server, "row");
  GtkWidget *row = g_hash_table_lookup (page->widgets, key);
  g_autofree char *state = NULL;

  if (row == NULL)
    return;
  state = describe_state (page, g_object_get_data (G_OBJECT (row), "config"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), state);
}

/* What a test found, as the row says it. */
static char *
describe_test (TestCall  *call,
               JsonArray *tools,
               GError    *error)
{
  guint n;

  if (tools == NULL)
    {
      g_autofree char *why = natter_error_words_local (error->message);

      if (call->enabled)
        return g_steal_pointer (&why);
      /* Translators: %s is why the test of a disabled tool server failed */
      return g_strdup_printf (_("the test failed: %s"), why);
    }
  n = json_array_get_length (tools);
  if (call->enabled)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Connected, %u tool", "Connected, %u tools", n), n);
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "the test connected, %u tool", "the test connected, %u tools",
                                       n), n);
}

static void
tested_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  TestCall *call = user_data;
  g_autoptr(NatterMcpClient) client = NATTER_MCP_CLIENT (object);
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  NatterPreferencesWindow *window = call->page->window;

  tools = natter_mcp_client_list_tools_finish (client, result, &error);
  natter_mcp_client_stop (client);
  if (natter_preferences_window_pending_end (window))
    {
      g_hash_table_replace (call->page->tests, g_strdup (call->server), describe_test (call, tools, error));
      update_row (call->page, call->server);
      if (tools == NULL)
        message = g_strdup (error->message);
      else
        message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Test passed: %u tool", "Test passed: %u tools",
                                                json_array_get_length (tools)),
                                   json_array_get_length (tools));
      natter_preferences_window_show_toast (window, message);
    }
  g_object_unref (call->row);
  g_free (call->server);
  g_free (call);
  g_object_unref (window);
}

static void
test_cb (GtkButton *button,
         McpPage   *page)
{
  NatterMcpServerConfig *config = g_object_get_data (G_OBJECT (button), "config");
  NatterMcpClient *client = natter_mcp_manager_new_client (page->manager, config);
  TestCall *call = g_new0 (TestCall, 1);

  /* A client of its own: the test starts the server even when it is
   * disabled, and never disturbs the one the conversations use. */
  call->page = page;
  call->row = g_object_ref (GTK_WIDGET (button));
  call->server = g_strdup (config->name);
  call->enabled = config->enabled;
  g_hash_table_replace (page->tests, g_strdup (config->name),
                        g_strdup (config->enabled ? _("Testing…") : _("testing…")));
  update_row (page, config->name);
  natter_preferences_window_pending_begin (page->window);
  natter_mcp_client_set_timeout (client, TEST_TIMEOUT_SECONDS);
  natter_mcp_client_list_tools_async (client, NULL, tested_cb, call);
}

/* The row's actions are icons with their names as tooltips: three
 * worded buttons and the switch left a 360 px row no room for the
 * server's name and state, which wrapped a letter a line. */
static GtkWidget *
flat_button (const char *label,
             const char *icon_name)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon_name);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  gtk_widget_add_css_class (button, "flat");
  return button;
}

static GtkWidget *
server_row (McpPage               *page,
            NatterMcpServerConfig *config)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();
  GtkWidget *edit = flat_button (_("Edit"), "document-edit-symbolic");
  GtkWidget *test = flat_button (_("Test"), "emblem-system-symbolic");
  GtkWidget *remove = flat_button (_("Remove"), "user-trash-symbolic");
  g_autofree char *state = describe_state (page, config);

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), config->name);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), state);
  g_object_set_data_full (G_OBJECT (row), "config", natter_mcp_server_config_ref (config),
                          (GDestroyNotify) natter_mcp_server_config_unref);
  gtk_switch_set_active (GTK_SWITCH (toggle), config->enabled);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Enabled"), -1);
  /* Each row's controls say which server they act on, not only "Edit". */
  for (GtkWidget **control = (GtkWidget *[]) { toggle, edit, test, remove, NULL }; *control != NULL; control++)
    gtk_accessible_update_property (GTK_ACCESSIBLE (*control), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, config->name, -1);
  g_object_set_data_full (G_OBJECT (toggle), "server", g_strdup (config->name), g_free);
  g_object_set_data_full (G_OBJECT (remove), "server", g_strdup (config->name), g_free);
  g_object_set_data_full (G_OBJECT (edit), "config", natter_mcp_server_config_ref (config),
                          (GDestroyNotify) natter_mcp_server_config_unref);
  g_object_set_data_full (G_OBJECT (test), "config", natter_mcp_server_config_ref (config),
                          (GDestroyNotify) natter_mcp_server_config_unref);
  g_signal_connect (toggle, "notify::active", G_CALLBACK (enabled_cb), page);
  g_signal_connect (edit, "clicked", G_CALLBACK (edit_cb), page);
  g_signal_connect (test, "clicked", G_CALLBACK (test_cb), page);
  g_signal_connect (remove, "clicked", G_CALLBACK (remove_cb), page);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), edit);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), test);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), remove);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  remember (page, config->name, "row", row);
  remember (page, config->name, "switch", toggle);
  remember (page, config->name, "edit", edit);
  remember (page, config->name, "test", test);
  remember (page, config->name, "remove", remove);
  return row;
}

/* The running client's state changed: that is newer than any test. */
static void
client_state_cb (NatterMcpClient         *client,
                 GParamSpec              *pspec,
                 NatterPreferencesWindow *window)
{
  McpPage *page = get_page (window);
  const char *server = natter_mcp_client_get_config (client)->name;

  if (page == NULL)
    return;
  g_hash_table_remove (page->tests, server);
  update_row (page, server);
}

static void
watch_clients (McpPage *page)
{
  GPtrArray *clients = natter_mcp_manager_get_clients (page->manager);

  for (guint i = 0; i < clients->len; i++)
    {
      NatterMcpClient *client = g_ptr_array_index (clients, i);

      if (g_signal_handler_find (client, G_SIGNAL_MATCH_FUNC | G_SIGNAL_MATCH_DATA, 0, 0, NULL,
                                 client_state_cb, page->window) != 0)
        continue;
      g_signal_connect_object (client, "notify::state", G_CALLBACK (client_state_cb), page->window, 0);
      g_signal_connect_object (client, "notify::last-error", G_CALLBACK (client_state_cb), page->window, 0);
    }
}

static void
rebuild (McpPage *page)
{
  g_autoptr(GPtrArray) configs = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < page->rows->len; i++)
    adw_preferences_group_remove (page->group, g_ptr_array_index (page->rows, i));
  g_ptr_array_set_size (page->rows, 0);
  g_hash_table_remove_all (page->widgets);
  watch_clients (page);

  /* A file that does not parse (being edited by hand, say) is said above
   * the servers of the last one that did, which the manager keeps
   * running, even when the page opens after the mistake. */
  configs = natter_mcp_config_load (config_path (page), &error);
  gtk_widget_set_visible (page->error_row, configs == NULL);
  if (configs == NULL)
    {
      adw_action_row_set_subtitle (ADW_ACTION_ROW (page->error_row), error->message);
      configs = g_ptr_array_ref (natter_mcp_manager_get_configs (page->manager));
    }
  for (guint i = 0; i < configs->len; i++)
    {
      GtkWidget *row = server_row (page, g_ptr_array_index (configs, i));

      adw_preferences_group_add (page->group, row);
      g_ptr_array_add (page->rows, row);
    }
}

/* The entry for what the Target field says: an http(s) URL, or a
 * command line split as a shell would. */
static gboolean
fill_entry (JsonObject  *entry,
            const char  *target,
            GError     **error)
{
  g_auto(GStrv) argv = NULL;
  JsonArray *args;

  json_object_remove_member (entry, "command");
  json_object_remove_member (entry, "args");
  json_object_remove_member (entry, "url");
  json_object_remove_member (entry, "type");
  if (g_str_has_prefix (target, "http://") || g_str_has_prefix (target, "https://"))
    {
      json_object_set_string_member (entry, "url", target);
      return TRUE;
    }
  if (!g_shell_parse_argv (target, NULL, &argv, error))
    return FALSE;
  json_object_set_string_member (entry, "command", argv[0]);
  args = json_array_new ();
  for (guint i = 1; argv[i] != NULL; i++)
    json_array_add_string_element (args, argv[i]);
  json_object_set_array_member (entry, "args", args);
  return TRUE;
}

/* A save waiting for its secrets to be stored: mcp.json is written only
 * once the keyring has every value its references name. */
typedef struct
{
  McpPage    *page;
  NatterPreferencesWindow *window;   /* a pending reference */
  char       *name;
  JsonObject *entry;
  JsonObject *old;       /* nullable: the entry before */
  guint       storing;
  gboolean    storing_done;  /* secrets were stored */
  GError     *error;
  GError     *keyring_error;  /* the keyring refused a secret: nothing saved */
} SaveOp;

static void
save_op_free (SaveOp *op)
{
  g_free (op->name);
  json_object_unref (op->entry);
  g_clear_pointer (&op->old, json_object_unref);
  g_clear_error (&op->error);
  g_clear_error (&op->keyring_error);
  g_free (op);
}

/* The keyring refused a secret header's value: a toast would cut the
 * reason (the Secret Service's own words are long) and go away, so a
 * dialog says it whole, with what the person can do. The typed rows
 * stay, to save again. */
static void
show_keyring_failure (McpPage      *page,
                      const GError *error)
{
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (page->window),
                                                                         _("Server Not Saved"), NULL));

  adw_message_dialog_format_body (dialog,
                                  _("The value of a secret header could not be kept in the keyring, so nothing "
                                    "was saved. Make sure a keyring such as GNOME Keyring is running, then save "
                                    "again; or turn Secret off for the header to keep its value in mcp.json."
                                    "\n\nDetails: %s"),
                                  error->message);
  adw_message_dialog_add_response (dialog, "close", _("_Close"));
  adw_message_dialog_set_default_response (dialog, "close");
  adw_message_dialog_set_close_response (dialog, "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
save_finish (SaveOp *op)
{
  McpPage *page = op->page;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  GPtrArray *clients = natter_mcp_manager_get_clients (page->manager);

  if (op->keyring_error != NULL)
    {
      show_keyring_failure (page, op->keyring_error);
      return;
    }
  if (op->error != NULL || !natter_mcp_config_update (config_path (page), op->name, op->entry, &error))
    {
      show_error (page, op->error != NULL ? op->error : error);
      return;
    }
  forget_secrets (page, op->old, op->entry);
  /* A new secret value under the same reference leaves the entry as it
   * was: the running server is stopped so the next call connects with
   * the new value. */
  for (guint i = 0; op->storing_done && i < clients->len; i++)
    if (g_str_equal (natter_mcp_client_get_config (g_ptr_array_index (clients, i))->name, op->name))
      natter_mcp_client_stop (g_ptr_array_index (clients, i));
  message = g_strdup_printf (_("Saved the tool server “%s”"), op->name);
  natter_preferences_window_show_toast (page->window, message);
  gtk_editable_set_text (page->name_entry, "");
  gtk_editable_set_text (page->target_entry, "");
  natter_mcp_pairs_clear (page->env);
  natter_mcp_pairs_clear (page->headers);
  reload (page);
}

static void
secret_stored_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  SaveOp *op = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_secret_store_store_finish (NATTER_SECRET_STORE (object), result, &error) && op->keyring_error == NULL)
    op->keyring_error = g_steal_pointer (&error);
  if (--op->storing == 0)
    {
      NatterPreferencesWindow *window = op->window;

      op->storing_done = TRUE;
      if (natter_preferences_window_pending_end (window))
        save_finish (op);
      save_op_free (op);
      g_object_unref (window);
    }
}

/* Writes the rows into @op's entry: `env` for a command, `headers` for a
 * URL (a secret one as a reference, its typed value sent to the
 * keyring). FALSE with @error when the rows do not fit the server. */
static gboolean
fill_pairs_into (SaveOp     *op,
                 GPtrArray  *env,
                 GPtrArray  *headers,
                 GPtrArray  *to_store,
                 GError    **error)
{
  gboolean stdio = json_object_has_member (op->entry, "command");
  JsonObject *map;

  if (stdio && headers->len > 0)
    {
      g_set_error_literal (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                           _("Headers are for a server reached by URL; a command gets environment variables"));
      return FALSE;
    }
  if (!stdio && env->len > 0)
    {
      g_set_error_literal (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                           _("Environment variables are for a server started by a command; a URL gets headers"));
      return FALSE;
    }
  json_object_remove_member (op->entry, "env");
  json_object_remove_member (op->entry, "headers");
  map = json_object_new ();
  for (guint i = 0; i < env->len; i++)
    {
      NatterMcpPair *pair = g_ptr_array_index (env, i);

      json_object_set_string_member (map, pair->name, pair->value);
    }
  for (guint i = 0; i < headers->len; i++)
    {
      NatterMcpPair *pair = g_ptr_array_index (headers, i);
      JsonObject *reference;

      if (!pair->secret)
        {
          json_object_set_string_member (map, pair->name, pair->value);
          continue;
        }
      reference = json_object_new ();
      if (*pair->value == '\0')
        json_object_set_string_member (reference, "secret", pair->stored_key);
      else
        {
          g_autofree char *key = natter_mcp_header_secret_key_for (op->name, pair->name);

          json_object_set_string_member (reference, "secret", key);
          g_ptr_array_add (to_store, pair);
        }
      json_object_set_object_member (map, pair->name, reference);
    }
  if (json_object_get_size (map) > 0)
    json_object_set_object_member (op->entry, stdio ? "env" : "headers", map);
  else
    json_object_unref (map);
  return TRUE;
}

static void
save_cb (GtkButton *button,
         McpPage   *page)
{
  g_autofree char *name = g_strstrip (g_strdup (gtk_editable_get_text (page->name_entry)));
  g_autofree char *target = g_strstrip (g_strdup (gtk_editable_get_text (page->target_entry)));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) env = NULL;
  g_autoptr(GPtrArray) headers = NULL;
  g_autoptr(GPtrArray) to_store = g_ptr_array_new ();
  SaveOp *op;

  if (*name == '\0' || *target == '\0')
    {
      natter_preferences_window_show_toast (page->window, _("A tool server needs a name and a command or URL"));
      return;
    }
  op = g_new0 (SaveOp, 1);
  op->page = page;
  op->name = g_steal_pointer (&name);
  /* Read twice: the entry is edited, the old one compared afterwards. */
  op->old = natter_mcp_config_dup_entry (config_path (page), op->name, &error);
  if (error == NULL)
    op->entry = natter_mcp_config_dup_entry (config_path (page), op->name, &error);
  if (op->entry == NULL)
    op->entry = json_object_new ();
  if (error != NULL || !fill_entry (op->entry, target, &error)
      || (env = natter_mcp_pairs_collect (page->env, &error)) == NULL
      || (headers = natter_mcp_pairs_collect (page->headers, &error)) == NULL
      || !fill_pairs_into (op, env, headers, to_store, &error))
    {
      show_error (page, error);
      save_op_free (op);
      return;
    }
  if (to_store->len == 0)
    {
      save_finish (op);
      save_op_free (op);
      return;
    }
  op->window = natter_preferences_window_pending_begin (page->window);
  op->storing = to_store->len;
  for (guint i = 0; i < to_store->len; i++)
    {
      NatterMcpPair *pair = g_ptr_array_index (to_store, i);
      g_autofree char *key = natter_mcp_header_secret_key_for (op->name, pair->name);

      natter_secret_store_store_async (natter_services_get_secret_store (page->window->services), key, pair->value,
                                       NULL, secret_stored_cb, op);
    }
}

static AdwPreferencesGroup *
add_group (McpPage *page)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  GtkWidget *name = adw_entry_row_new ();
  GtkWidget *target = adw_entry_row_new ();

  adw_preferences_group_set_title (group, _("Add or Edit a Server"));
  adw_preferences_group_set_description (group, _("A command line starts a server on this computer; an http:// "
                                                  "or https:// URL reaches one over the network."));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (name), _("Name"));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (target), _("Command or URL"));
  page->name_entry = GTK_EDITABLE (name);
  page->target_entry = GTK_EDITABLE (target);
  page->save_button = gtk_button_new_with_label (_("Save Server"));
  gtk_widget_set_halign (page->save_button, GTK_ALIGN_END);
  gtk_widget_set_margin_top (page->save_button, 12);
  gtk_widget_add_css_class (page->save_button, "suggested-action");
  g_signal_connect (page->save_button, "clicked", G_CALLBACK (save_cb), page);
  adw_preferences_group_add (group, name);
  adw_preferences_group_add (group, target);
  return group;
}

/* How long a call waits, for every server whose mcp.json entry names no
 * timeout of its own. AdwSpinRow is newer than libadwaita 1.2, so a spin
 * button sits at the end of an action row. */
static AdwPreferencesGroup *
timeout_group (McpPage *page)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (1, 3600, 1);

  adw_preferences_group_set_title (group, _("Calls"));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Call Timeout"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                               _("Seconds a call waits for the server’s answer. A server’s own “timeout” "
                                 "in mcp.json wins."));
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Call timeout in seconds"), -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  adw_preferences_group_add (group, row);
  /* The adjustment's double and the setting's uint convert both ways;
   * the bounds are the key's range. */
  g_object_bind_property (natter_services_get_settings (page->window->services), "mcp-timeout",
                          gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (spin)), "value",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  page->timeout_spin = GTK_SPIN_BUTTON (spin);
  return group;
}

static void
config_changed_cb (NatterPreferencesWindow *self)
{
  McpPage *page = get_page (self);

  if (page == NULL)
    return;
  /* A test of the old entries says nothing about the new ones. */
  g_hash_table_remove_all (page->tests);
  rebuild (page);
}

/**
 * natter_preferences_window_add_mcp_page:
 * @self: the window
 *
 * Adds the Tool Servers page; its rows follow the servers' states.
 */
void
natter_preferences_window_add_mcp_page (NatterPreferencesWindow *self)
{
  McpPage *page = g_new0 (McpPage, 1);
  AdwPreferencesPage *prefs_page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  g_autofree char *description = NULL;

  page->window = self;
  page->manager = g_object_ref (natter_services_get_mcp_manager (self->services));
  page->rows = g_ptr_array_new ();
  page->widgets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  page->tests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  page->error_row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (page->error_row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (page->error_row),
                                 _("mcp.json has a mistake; the servers below are those from before it"));
  adw_action_row_add_prefix (ADW_ACTION_ROW (page->error_row), gtk_image_new_from_icon_name ("dialog-warning-symbolic"));
  gtk_widget_add_css_class (page->error_row, "error");
  gtk_widget_set_visible (page->error_row, FALSE);
  g_object_set_data_full (G_OBJECT (self), "natter-mcp-page", page, (GDestroyNotify) mcp_page_free);

  adw_preferences_page_set_title (prefs_page, _("Tool Servers"));
  adw_preferences_page_set_icon_name (prefs_page, "network-server-symbolic");
  page->group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (page->group, _("Tool Servers (MCP)"));
  /* Translators: %s is the path of mcp.json */
  description = g_strdup_printf (_("Every call of a server’s tool asks first. Read from %s."), config_path (page));
  adw_preferences_group_set_description (page->group, description);
  adw_preferences_group_add (page->group, page->error_row);
  adw_preferences_page_add (prefs_page, page->group);
  adw_preferences_page_add (prefs_page, add_group (page));
  page->env = natter_mcp_pairs_new (_("Environment Variables"),
                                    _("Given to a server started by a command."), _("Add Variable"), FALSE);
  page->headers = natter_mcp_pairs_new (_("Headers"),
                                        _("Sent to a server reached by URL. A secret value is kept in the "
                                          "keyring; mcp.json only refers to it."), _("Add Header"), TRUE);
  adw_preferences_page_add (prefs_page, natter_mcp_pairs_get_group (page->env));
  adw_preferences_page_add (prefs_page, natter_mcp_pairs_get_group (page->headers));
  {
    AdwPreferencesGroup *save = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());

    adw_preferences_group_add (save, page->save_button);
    adw_preferences_page_add (prefs_page, save);
  }
  adw_preferences_page_add (prefs_page, timeout_group (page));
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (self), prefs_page);

  g_signal_connect_object (page->manager, "tools-changed", G_CALLBACK (natter_preferences_window_rebuild_mcp), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (page->manager, "config-changed", G_CALLBACK (config_changed_cb), self, G_CONNECT_SWAPPED);
  /* A server added to mcp.json by hand (or by another client) shows up
   * here, and its tools in the conversations, without a restart. */
  natter_mcp_manager_watch (page->manager);
  rebuild (page);
}

/**
 * natter_preferences_window_rebuild_mcp:
 * @self: the window
 *
 * Shows the servers of mcp.json again, with their current states.
 */
void
natter_preferences_window_rebuild_mcp (NatterPreferencesWindow *self)
{
  McpPage *page = get_page (self);

  if (page != NULL)
    rebuild (page);
}

/* "add", or "N:FIELD" for row N. */
static GtkWidget *
pairs_widget (NatterMcpPairs *pairs,
              const char     *what)
{
  char *end = NULL;
  guint64 index;

  if (g_str_equal (what, "add"))
    return natter_mcp_pairs_get_widget (pairs, G_MAXUINT, "add");
  index = g_ascii_strtoull (what, &end, 10);
  if (end == what || *end != ':' || index >= G_MAXUINT)
    return NULL;
  return natter_mcp_pairs_get_widget (pairs, (guint) index, end + 1);
}

GtkWidget *
natter_preferences_window_get_mcp_widget (NatterPreferencesWindow *self,
                                          const char              *server,
                                          const char              *field)
{
  McpPage *page = get_page (self);
  g_autofree char *key = NULL;

  if (server == NULL)
    {
      if (g_str_equal (field, "name"))
        return GTK_WIDGET (page->name_entry);
      if (g_str_equal (field, "target"))
        return GTK_WIDGET (page->target_entry);
      if (g_str_equal (field, "save"))
        return page->save_button;
      if (g_str_equal (field, "timeout"))
        return GTK_WIDGET (page->timeout_spin);
      if (g_str_equal (field, "config-error"))
        return page->error_row;
      if (g_str_has_prefix (field, "env:") || g_str_has_prefix (field, "header:"))
        return pairs_widget (g_str_has_prefix (field, "env:") ? page->env : page->headers,
                             strchr (field, ':') + 1);
      return NULL;
    }
  key = g_strdup_printf ("%s\x1f%s", server, field);
  return g_hash_table_lookup (page->widgets, key);
}
