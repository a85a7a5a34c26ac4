/* natter-mcp-page.c
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
 * servers are read again. The page calls nothing of the window that
 * holds it: it shows its toasts through ::add-toast. The page's widgets
 * are declared in natter-mcp-page.ui; this file keeps what they do.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-error-words.h"
#include "natter-mcp-config.h"
#include "natter-mcp-error.h"
#include "natter-mcp-manager.h"
#include "natter-mcp-page.h"
#include "natter-mcp-pairs.h"
#include "natter-mcp-secrets.h"
#include "natter-mcp-server-row.h"
#include "natter-preferences-toast.h"

struct _NatterMcpPage
{
  AdwPreferencesPage       parent_instance;

  NatterServices          *services;
  NatterMcpManager        *manager;
  GCancellable            *cancellable; /* cancelled when the page goes */
  guint                    n_pending;   /* reloads, tests, keyring calls */
  GHashTable              *rows;      /* server → NatterMcpServerRow (borrowed) */
  GHashTable              *tests;     /* server → what its last Test found (a sentence) */
  guint                    reload_id;

  /* Template widgets */
  AdwPreferencesGroup     *servers_group;
  GtkWidget               *error_row; /* why mcp.json cannot be used now; hidden when it can */
  GtkEditable             *name_entry;
  GtkEditable             *target_entry;
  GtkWidget               *save_button;
  NatterMcpPairs          *env;       /* a command's environment variables */
  NatterMcpPairs          *headers;   /* a URL's headers */
  GtkSpinButton           *timeout_spin;
};

G_DEFINE_FINAL_TYPE (NatterMcpPage, natter_mcp_page, ADW_TYPE_PREFERENCES_PAGE)

typedef NatterMcpPage McpPage;

/* A test of a server waits at most this long for it. */
#define TEST_TIMEOUT_SECONDS 15

enum
{
  ADD_TOAST,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void rebuild (McpPage *page);

/* Toasts, shown by the window that holds the page */
static void
show_toast (McpPage    *page,
            const char *text)
{
  g_autoptr(AdwToast) toast = natter_preferences_toast_new (text);

  g_signal_emit (page, signals[ADD_TOAST], 0, toast);
}

/* Work under way holds a reference on the page (the one returned);
 * pending_end() says whether the page is still in use. */
static McpPage *
pending_begin (McpPage *page)
{
  page->n_pending++;
  return g_object_ref (page);
}

static gboolean
pending_end (McpPage *page)
{
  g_assert (page->n_pending > 0);
  page->n_pending--;
  return !g_cancellable_is_cancelled (page->cancellable);
}

static const char *
config_path (McpPage *page)
{
  return natter_mcp_manager_get_config_path (page->manager);
}

static gboolean
reload_idle_cb (gpointer user_data)
{
  McpPage *page = user_data;

  page->reload_id = 0;
  if (pending_end (page))
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
  page->reload_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, reload_idle_cb, pending_begin (page), g_object_unref);
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
          /* Ready comes one answer before the list (and a refresh may
           * stop waiting in between): until the list is there, and
           * ::tools-changed shows the rows again, "0 tools" would be
           * untrue. */
          if (natter_mcp_manager_get_server_tools (page->manager, client) == NULL)
            return g_strdup (_("Connected, tools not listed yet"));
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
show_error (McpPage *page,
            GError  *error)
{
  show_toast (page, error->message);
}

static void
enabled_cb (NatterMcpServerRow *row,
            gboolean            enabled,
            McpPage            *page)
{
  const char *name = natter_mcp_server_row_get_config (row)->name;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) entry = natter_mcp_config_dup_entry (config_path (page), name, &error);

  if (entry == NULL)
    {
      if (error != NULL)
        show_error (page, error);
      return;
    }
  if (enabled)
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
  /* NULL: the page was gone meanwhile. */
  if (user_data == NULL)
    return;
  pending_end (user_data);
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
      natter_secret_store_clear_async (natter_services_get_secret_store (page->services),
                                       g_ptr_array_index (before, i), NULL, forgotten_cb, pending_begin (page));
}

/* A removed server, while its toast offers Undo: its entry comes back
 * as it was, and its secrets stay in the keyring until the toast goes. */
typedef struct
{
  McpPage                 *page;     /* weak */
  NatterSecretStore       *secrets;
  char                    *name;
  JsonObject              *entry;
  gboolean                 undone;
} RemovedServer;

static void
removed_server_free (gpointer data)
{
  RemovedServer *removed = data;

  g_clear_weak_pointer (&removed->page);
  g_clear_object (&removed->secrets);
  g_free (removed->name);
  g_clear_pointer (&removed->entry, json_object_unref);
  g_free (removed);
}

static void
undo_remove_cb (AdwToast      *toast,
                RemovedServer *removed)
{
  McpPage *page = removed->page;
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
  McpPage *page = removed->page;
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
remove_cb (NatterMcpServerRow *row,
           McpPage            *page)
{
  g_autofree char *name = g_strdup (natter_mcp_server_row_get_config (row)->name);
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  g_autoptr(JsonObject) old = natter_mcp_config_dup_entry (config_path (page), name, NULL);
  g_autoptr(AdwToast) toast = NULL;
  RemovedServer *removed;

  if (!natter_mcp_config_update (config_path (page), name, NULL, &error))
    {
      show_error (page, error);
      return;
    }
  message = g_strdup_printf (_("Removed the tool server “%s”"), name);
  if (old == NULL)
    {
      show_toast (page, message);
      reload (page);
      return;
    }
  removed = g_new0 (RemovedServer, 1);
  g_set_weak_pointer (&removed->page, page);
  removed->secrets = g_object_ref (natter_services_get_secret_store (page->services));
  removed->name = g_steal_pointer (&name);
  removed->entry = g_steal_pointer (&old);
  toast = natter_preferences_toast_new_undo (message);
  g_object_set_data_full (G_OBJECT (toast), "removed", removed, removed_server_free);
  g_signal_connect (toast, "button-clicked", G_CALLBACK (undo_remove_cb), removed);
  g_signal_connect (toast, "dismissed", G_CALLBACK (remove_dismissed_cb), removed);
  g_signal_emit (page, signals[ADD_TOAST], 0, toast);
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
edit_cb (NatterMcpServerRow *row,
         McpPage            *page)
{
  NatterMcpServerConfig *config = natter_mcp_server_row_get_config (row);
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
  McpPage                 *page;     /* a pending reference */
  char                    *server;
  gboolean                 enabled;
} TestCall;

/* Shows the server's state again in its row, if it still has one. */
static void
update_row (McpPage    *page,
            const char *server)
{
  NatterMcpServerRow *row = g_hash_table_lookup (page->rows, server);
  g_autofree char *state = NULL;

  if (row == NULL)
    return;
  state = describe_state (page, natter_mcp_server_row_get_config (row));
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
  McpPage *page = call->page;

  tools = natter_mcp_client_list_tools_finish (client, result, &error);
  natter_mcp_client_stop (client);
  if (pending_end (page))
    {
      g_hash_table_replace (call->page->tests, g_strdup (call->server), describe_test (call, tools, error));
      update_row (call->page, call->server);
      if (tools == NULL)
        message = g_strdup (error->message);
      else
        message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Test passed: %u tool", "Test passed: %u tools",
                                                json_array_get_length (tools)),
                                   json_array_get_length (tools));
      show_toast (page, message);
    }
  g_free (call->server);
  g_free (call);
  g_object_unref (page);
}

static void
test_cb (NatterMcpServerRow *row,
         McpPage            *page)
{
  NatterMcpServerConfig *config = natter_mcp_server_row_get_config (row);
  NatterMcpClient *client = natter_mcp_manager_new_client (page->manager, config);
  TestCall *call = g_new0 (TestCall, 1);

  /* A client of its own: the test starts the server even when it is
   * disabled, and never disturbs the one the conversations use. */
  call->server = g_strdup (config->name);
  call->enabled = config->enabled;
  g_hash_table_replace (page->tests, g_strdup (config->name),
                        g_strdup (config->enabled ? _("Testing…") : _("testing…")));
  update_row (page, config->name);
  call->page = pending_begin (page);
  natter_mcp_client_set_timeout (client, TEST_TIMEOUT_SECONDS);
  natter_mcp_client_list_tools_async (client, NULL, tested_cb, call);
}

static GtkWidget *
server_row (McpPage               *page,
            NatterMcpServerConfig *config)
{
  g_autofree char *state = describe_state (page, config);
  NatterMcpServerRow *row = natter_mcp_server_row_new (config, state);

  g_signal_connect (row, "enable", G_CALLBACK (enabled_cb), page);
  g_signal_connect (row, "edit", G_CALLBACK (edit_cb), page);
  g_signal_connect (row, "test", G_CALLBACK (test_cb), page);
  g_signal_connect (row, "remove", G_CALLBACK (remove_cb), page);
  g_hash_table_replace (page->rows, g_strdup (config->name), row);
  return GTK_WIDGET (row);
}

/* The running client's state changed: that is newer than any test. */
static void
client_state_cb (NatterMcpClient *client,
                 GParamSpec      *pspec,
                 McpPage         *page)
{
  const char *server = natter_mcp_client_get_config (client)->name;

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
                                 client_state_cb, page) != 0)
        continue;
      g_signal_connect_object (client, "notify::state", G_CALLBACK (client_state_cb), page, 0);
      g_signal_connect_object (client, "notify::last-error", G_CALLBACK (client_state_cb), page, 0);
    }
}

static void
rebuild (McpPage *page)
{
  g_autoptr(GPtrArray) configs = NULL;
  g_autoptr(GError) error = NULL;

  GHashTableIter iter;
  gpointer row;

  g_hash_table_iter_init (&iter, page->rows);
  while (g_hash_table_iter_next (&iter, NULL, &row))
    adw_preferences_group_remove (page->servers_group, row);
  g_hash_table_remove_all (page->rows);
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
    adw_preferences_group_add (page->servers_group, server_row (page, g_ptr_array_index (configs, i)));
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
  McpPage    *page;      /* a pending reference while secrets are stored */
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
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (page));
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root)
                                                                                             : NULL,
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
  show_toast (page, message);
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
      McpPage *page = op->page;

      op->storing_done = TRUE;
      if (pending_end (page))
        save_finish (op);
      save_op_free (op);
      g_object_unref (page);
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
save_clicked_cb (McpPage *page)
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
      show_toast (page, _("A tool server needs a name and a command or URL"));
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
  pending_begin (page);
  op->storing = to_store->len;
  for (guint i = 0; i < to_store->len; i++)
    {
      NatterMcpPair *pair = g_ptr_array_index (to_store, i);
      g_autofree char *key = natter_mcp_header_secret_key_for (op->name, pair->name);

      natter_secret_store_store_async (natter_services_get_secret_store (page->services), key, pair->value,
                                       NULL, secret_stored_cb, op);
    }
}

static void
config_changed_cb (McpPage *page)
{
  /* A test of the old entries says nothing about the new ones. */
  g_hash_table_remove_all (page->tests);
  rebuild (page);
}

static void
natter_mcp_page_dispose (GObject *object)
{
  NatterMcpPage *self = NATTER_MCP_PAGE (object);

  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  g_cancellable_cancel (self->cancellable);
  g_hash_table_remove_all (self->rows);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_MCP_PAGE);
  G_OBJECT_CLASS (natter_mcp_page_parent_class)->dispose (object);
}

static void
natter_mcp_page_finalize (GObject *object)
{
  NatterMcpPage *self = NATTER_MCP_PAGE (object);

  g_clear_object (&self->manager);
  g_clear_object (&self->services);
  g_clear_object (&self->cancellable);
  g_hash_table_unref (self->rows);
  g_hash_table_unref (self->tests);
  G_OBJECT_CLASS (natter_mcp_page_parent_class)->finalize (object);
}

static void
natter_mcp_page_class_init (NatterMcpPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_mcp_page_dispose;
  object_class->finalize = natter_mcp_page_finalize;

  /**
   * NatterMcpPage::add-toast:
   * @self: the page
   * @toast: (transfer none): the toast (natter-preferences-toast.h)
   *
   * The page has something to say; the window that holds it shows
   * @toast.
   */
  signals[ADD_TOAST] = g_signal_new ("add-toast", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                     NULL, G_TYPE_NONE, 1, ADW_TYPE_TOAST);

  g_type_ensure (NATTER_TYPE_MCP_PAIRS);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-mcp-page.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPage, servers_group);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPage, error_row);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPage, name_entry);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPage, target_entry);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPage, save_button);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPage, env);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPage, headers);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPage, timeout_spin);
  gtk_widget_class_bind_template_callback (widget_class, save_clicked_cb);
}

static void
natter_mcp_page_init (NatterMcpPage *self)
{
  self->rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->tests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->cancellable = g_cancellable_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_mcp_page_new:
 * @services: the services whose tool servers, keyring and settings it
 *   edits
 *
 * The Tool Servers page; its rows follow the servers' states.
 *
 * Returns: (transfer floating): the page
 */
NatterMcpPage *
natter_mcp_page_new (NatterServices *services)
{
  NatterMcpPage *self;
  g_autofree char *description = NULL;

  g_return_val_if_fail (NATTER_IS_SERVICES (services), NULL);

  self = g_object_new (NATTER_TYPE_MCP_PAGE, NULL);
  self->services = g_object_ref (services);
  self->manager = g_object_ref (natter_services_get_mcp_manager (services));
  /* Translators: %s is the path of mcp.json */
  description = g_markup_printf_escaped (_("Every call of a server’s tool asks first. Read from %s."),
                                         config_path (self));
  /* A group's description is markup; a path may hold "&". */
  adw_preferences_group_set_description (self->servers_group, description);
  /* The adjustment's double and the setting's uint convert both ways. */
  g_object_bind_property (natter_services_get_settings (services), "mcp-timeout",
                          gtk_spin_button_get_adjustment (self->timeout_spin), "value",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);

  g_signal_connect_object (self->manager, "tools-changed", G_CALLBACK (rebuild), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->manager, "config-changed", G_CALLBACK (config_changed_cb), self, G_CONNECT_SWAPPED);
  /* A server added to mcp.json by hand (or by another client) shows up
   * here, and its tools in the conversations, without a restart. */
  natter_mcp_manager_watch (self->manager);
  rebuild (self);
  return self;
}

/**
 * natter_mcp_page_rebuild:
 * @self: the page
 *
 * Shows the servers of mcp.json again, with their current states.
 */
void
natter_mcp_page_rebuild (NatterMcpPage *self)
{
  rebuild (self);
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

/**
 * natter_mcp_page_get_widget:
 * @self: the page
 * @server: (nullable): a server's name
 * @field: with @server, its "row", "switch", "edit", "test" or
 *   "remove"; without, "name", "target", "save", "timeout",
 *   "config-error", or "env:…"/"header:…" of the pairs
 *
 * For tests, which drive the page as a person would.
 *
 * Returns: (transfer none) (nullable): the widget
 */
GtkWidget *
natter_mcp_page_get_widget (NatterMcpPage *self,
                            const char    *server,
                            const char    *field)
{
  NatterMcpServerRow *row;

  if (server == NULL)
    {
      if (g_str_equal (field, "name"))
        return GTK_WIDGET (self->name_entry);
      if (g_str_equal (field, "target"))
        return GTK_WIDGET (self->target_entry);
      if (g_str_equal (field, "save"))
        return self->save_button;
      if (g_str_equal (field, "timeout"))
        return GTK_WIDGET (self->timeout_spin);
      if (g_str_equal (field, "config-error"))
        return self->error_row;
      if (g_str_has_prefix (field, "env:") || g_str_has_prefix (field, "header:"))
        return pairs_widget (g_str_has_prefix (field, "env:") ? self->env : self->headers,
                             strchr (field, ':') + 1);
      return NULL;
    }
  row = g_hash_table_lookup (self->rows, server);
  if (row == NULL)
    return NULL;
  if (g_str_equal (field, "row"))
    return GTK_WIDGET (row);
  return natter_mcp_server_row_get_part (row, field);
}

/**
 * natter_mcp_page_get_n_pending:
 * @self: the page
 *
 * Returns: how many reloads, server tests and keyring calls are under
 *   way, for tests
 */
guint
natter_mcp_page_get_n_pending (NatterMcpPage *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_PAGE (self), 0);
  return self->n_pending;
}
