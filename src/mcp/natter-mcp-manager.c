/* natter-mcp-manager.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tool servers of one running Natter: a client per enabled server of
 * mcp.json, and their tools kept in the tool registry under the names
 * the model sees. A refresh asks every server for its list at once, and
 * each server's tools are offered as soon as its list comes: one slow or
 * hung server holds up no other, and no send. A refresh's callers wait
 * at most %NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS; a server not ready by
 * then goes on starting, offering nothing until it is, and later
 * refreshes do not wait for it again. A server that
 * fails keeps its error in its client and offers no tools, it does not
 * fail the refresh. A server that says its list changed starts a
 * refresh. Once watched, mcp.json is read again whenever it changes on
 * disk: servers whose entry did not change keep running; a file that
 * does not parse keeps the servers of the last one that did.
 */

#define G_LOG_DOMAIN "natter-mcp"

#include "natter-mcp-config.h"
#include "natter-mcp-manager.h"
#include "natter-mcp-tool.h"

struct _NatterMcpManager
{
  GObject             parent_instance;
  char               *config_path;
  NatterToolRegistry *registry;
  char               *config_error;
  GPtrArray          *configs;       /* NatterMcpServerConfig: the last mcp.json that parsed */
  GPtrArray          *clients;       /* NatterMcpClient, enabled servers in file order */
  GPtrArray          *tool_ids;      /* what is registered now */
  JsonArray          *descriptors;   /* their descriptors, in order */
  GHashTable         *lists;         /* client → JsonArray of its last list */
  GHashTable         *list_seqs;     /* client → the request number of that list */
  GHashTable         *waited_since;  /* client → gint64 µs: since when refreshes wait for its first list */
  guint64             next_seq;      /* numbers the list requests */
  guint               generation;    /* bumped by reload */
  guint               default_timeout;  /* s, for servers whose entry names none */
  GFileMonitor       *monitor;       /* mcp.json, once watched */
  NatterMcpSecrets   *secrets;       /* nullable: secret header values */
  guint               debounce_id;   /* a change waiting to be read */
};

/* An editor writes a file in several steps (truncate, write, rename, a
 * backup); the file is read once it has been quiet this long. */
#define WATCH_DEBOUNCE_MS 200

G_DEFINE_FINAL_TYPE (NatterMcpManager, natter_mcp_manager, G_TYPE_OBJECT)

enum {
  SIGNAL_TOOLS_CHANGED,
  SIGNAL_CONFIG_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_DEFAULT_TIMEOUT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Registers every listed tool under its assigned name, replacing what
 * was registered before. */
static void
publish (NatterMcpManager *self)
{
  g_autoptr(GPtrArray) servers = g_ptr_array_new ();
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GPtrArray) owners = g_ptr_array_new ();
  g_autoptr(GPtrArray) entries = g_ptr_array_new ();
  g_auto(GStrv) assigned = NULL;

  for (guint i = 0; i < self->tool_ids->len; i++)
    natter_tool_registry_remove (self->registry, g_ptr_array_index (self->tool_ids, i));
  g_ptr_array_set_size (self->tool_ids, 0);
  g_clear_pointer (&self->descriptors, json_array_unref);
  self->descriptors = json_array_new ();

  for (guint i = 0; i < self->clients->len; i++)
    {
      NatterMcpClient *client = g_ptr_array_index (self->clients, i);
      JsonArray *tools = g_hash_table_lookup (self->lists, client);

      for (guint j = 0; tools != NULL && j < json_array_get_length (tools); j++)
        {
          JsonObject *tool = json_array_get_object_element (tools, j);

          g_ptr_array_add (servers, natter_mcp_client_get_config (client)->name);
          g_ptr_array_add (names, (gpointer) json_object_get_string_member (tool, "name"));
          g_ptr_array_add (owners, client);
          g_ptr_array_add (entries, tool);
        }
    }
  g_ptr_array_add (servers, NULL);
  g_ptr_array_add (names, NULL);
  assigned = natter_mcp_tool_names_assign ((const char * const *) servers->pdata,
                                           (const char * const *) names->pdata);
  for (guint i = 0; i < entries->len; i++)
    {
      g_autoptr(NatterTool) tool = natter_mcp_tool_new (g_ptr_array_index (owners, i),
                                                        g_ptr_array_index (entries, i), assigned[i]);
      JsonNode *node = json_node_new (JSON_NODE_OBJECT);

      natter_tool_registry_add (self->registry, tool);
      g_ptr_array_add (self->tool_ids, g_strdup (natter_tool_get_id (tool)));
      json_node_set_object (node, natter_tool_get_descriptor (tool));
      json_array_add_element (self->descriptors, node);
    }
  g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
}

/* One refresh: the lists it asked for, and the callers waiting for it
 * until every list came or the handshake limit passed. */
typedef struct
{
  NatterMcpManager *self;
  GPtrArray        *waiters;      /* GTask */
  guint             outstanding;  /* lists not come yet */
  guint             deadline_id;
} Round;

static void
round_free (Round *round)
{
  g_assert (round->waiters == NULL && round->deadline_id == 0);
  g_object_unref (round->self);
  g_free (round);
}

/* The callers stop waiting: every list came, or the limit passed. */
static void
round_return (Round *round)
{
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&round->waiters);

  g_clear_handle_id (&round->deadline_id, g_source_remove);
  for (guint i = 0; waiters != NULL && i < waiters->len; i++)
    g_task_return_boolean (g_ptr_array_index (waiters, i), TRUE);
}

static gboolean
deadline_cb (gpointer user_data)
{
  Round *round = user_data;

  round->deadline_id = 0;
  round_return (round);
  return G_SOURCE_REMOVE;
}

typedef struct
{
  NatterMcpManager *self;
  Round            *round;       /* nullable: the round does not wait for this list */
  guint64           seq;
  guint             generation;
} ListCall;

/* Whether a refresh starting at @now waits for @client's list: only
 * during the handshake limit after a refresh first waited for it. A
 * server that never became ready (one that hangs) holds up the first
 * refresh that asks it, never the next: a command forwarded to the
 * window does not wait again for a server the window gave up waiting
 * for. Its list is still taken when it comes. */
static gboolean
waits_for (NatterMcpManager *self,
           NatterMcpClient  *client,
           gint64            now)
{
  gint64 *since = g_hash_table_lookup (self->waited_since, client);

  if (since == NULL)
    {
      since = g_new (gint64, 1);
      *since = now;
      g_hash_table_insert (self->waited_since, client, since);
    }
  return now - *since < NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS * G_USEC_PER_SEC;
}

static void
list_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  ListCall *call = user_data;
  Round *round = call->round;
  g_autoptr(NatterMcpManager) self = call->self;
  NatterMcpClient *client = NATTER_MCP_CLIENT (object);
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(GError) error = NULL;
  guint64 applied = GPOINTER_TO_SIZE (g_hash_table_lookup (self->list_seqs, client));

  tools = natter_mcp_client_list_tools_finish (client, result, &error);
  if (error != NULL)
    g_debug ("tool server %s: %s", natter_mcp_client_get_config (client)->name, error->message);
  /* A list of a client removed since, or older than one already taken
   * (two refreshes cross), changes nothing. */
  if (call->generation == self->generation && call->seq > applied)
    {
      JsonArray *before = g_hash_table_lookup (self->lists, client);

      /* Ready: should it stop and start again, it is waited for anew. */
      if (tools != NULL)
        g_hash_table_remove (self->waited_since, client);

      g_hash_table_replace (self->list_seqs, client, GSIZE_TO_POINTER (call->seq));
      if (tools != before)
        {
          if (tools != NULL)
            g_hash_table_replace (self->lists, client, json_array_ref (tools));
          else
            g_hash_table_remove (self->lists, client);
          publish (self);
        }
    }
  g_free (call);
  if (round != NULL && --round->outstanding == 0)
    {
      round_return (round);
      round_free (round);
    }
}

static void
start_round (NatterMcpManager *self,
             GTask            *waiter)
{
  Round *round = g_new0 (Round, 1);
  gint64 now = g_get_monotonic_time ();

  round->self = g_object_ref (self);
  round->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  if (waiter != NULL)
    g_ptr_array_add (round->waiters, g_object_ref (waiter));
  round->outstanding = 1;   /* held until every list is asked for */
  /* Not g_timeout_add_seconds(): it may fire up to a quarter of a
   * second early (it rounds to a whole second shared by all such
   * timers), and a refresh asked for right after this round gave up
   * would then still be within the limit of waits_for() and wait for
   * the same hung server all over again. */
  round->deadline_id = g_timeout_add (NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS * 1000, deadline_cb, round);
  for (guint i = 0; i < self->clients->len; i++)
    {
      NatterMcpClient *client = g_ptr_array_index (self->clients, i);
      ListCall *call = g_new0 (ListCall, 1);

      call->self = g_object_ref (self);
      call->seq = ++self->next_seq;
      call->generation = self->generation;
      if (waits_for (self, client, now))
        {
          call->round = round;
          round->outstanding++;
        }
      natter_mcp_client_list_tools_async (client, NULL, list_cb, call);
    }
  if (--round->outstanding == 0)
    {
      round_return (round);
      round_free (round);
    }
}

/**
 * natter_mcp_manager_refresh_async:
 * @self: the manager
 * @cancellable: (nullable): stops waiting (the refresh goes on)
 * @callback: called when every enabled server answered or failed, or
 *   after %NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS, whichever comes first;
 *   at once for a server an earlier refresh already waited for that
 *   long without its becoming ready
 * @user_data: its data
 *
 * Asks every enabled server for its tools at once (starting the ones
 * that are not running) and registers each server's tools as soon as
 * its list comes. A server still starting when @callback runs goes on
 * starting: its tools are offered once it is ready
 * (#NatterMcpManager::tools-changed), and
 * natter_mcp_manager_get_server_tools() says which are listed.
 */
void
natter_mcp_manager_refresh_async (NatterMcpManager    *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NATTER_IS_MCP_MANAGER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_mcp_manager_refresh_async);
  start_round (self, task);
}

/**
 * natter_mcp_manager_refresh_finish:
 * @self: the manager
 * @result: the result
 * @error: return location for %G_IO_ERROR_CANCELLED
 *
 * Returns: %TRUE once every server's tools are registered or the
 *   handshake limit passed
 */
gboolean
natter_mcp_manager_refresh_finish (NatterMcpManager  *self,
                                   GAsyncResult      *result,
                                   GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
client_tools_changed_cb (NatterMcpClient  *client,
                         NatterMcpManager *self)
{
  natter_mcp_manager_refresh_async (self, NULL, NULL, NULL);
}

/* Returns whether the client's tools were offered. */
static gboolean
forget_client (NatterMcpManager *self,
               NatterMcpClient  *client)
{
  gboolean listed;

  /* Stopping a client fails its requests at once; the refresh that
   * hears it must already see the client gone. */
  listed = g_hash_table_remove (self->lists, client);
  g_hash_table_remove (self->list_seqs, client);
  g_hash_table_remove (self->waited_since, client);
  g_signal_handlers_disconnect_by_data (client, self);
  natter_mcp_client_stop (client);
  return listed;
}

static void
drop_clients (NatterMcpManager *self)
{
  g_autoptr(GPtrArray) clients = g_steal_pointer (&self->clients);

  self->clients = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < clients->len; i++)
    forget_client (self, g_ptr_array_index (clients, i));
}

/* The running client of a server whose entry is still @config, taken
 * out of @old; NULL when the entry is new or changed. */
static NatterMcpClient *
take_unchanged (GPtrArray             *old,
                NatterMcpServerConfig *config)
{
  for (guint i = 0; i < old->len; i++)
    {
      NatterMcpClient *client = g_ptr_array_index (old, i);

      if (natter_mcp_server_config_equal (natter_mcp_client_get_config (client), config))
        return g_ptr_array_steal_index (old, i);
    }
  return NULL;
}

/* Makes the clients those of @configs' enabled servers, in file order;
 * a server whose entry is unchanged keeps its client (and its calls in
 * flight), the others are stopped. */
static void
apply_configs (NatterMcpManager *self,
               GPtrArray        *configs)
{
  g_autoptr(GPtrArray) old = g_steal_pointer (&self->clients);
  gboolean unlisted = FALSE;

  self->clients = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < configs->len; i++)
    {
      NatterMcpServerConfig *config = g_ptr_array_index (configs, i);
      NatterMcpClient *client;

      if (!config->enabled)
        continue;
      client = take_unchanged (old, config);
      if (client == NULL)
        {
          client = natter_mcp_manager_new_client (self, config);
          g_signal_connect (client, "tools-changed", G_CALLBACK (client_tools_changed_cb), self);
        }
      g_ptr_array_add (self->clients, client);
    }
  for (guint i = 0; i < old->len; i++)
    unlisted |= forget_client (self, g_ptr_array_index (old, i));
  /* The tools of a server that is gone are offered no longer. */
  if (unlisted)
    publish (self);
}

/**
 * natter_mcp_manager_new_client:
 * @self: the manager
 * @config: a server
 *
 * A client for @config set up as the manager's own are (the default
 * timeout unless the entry names one, the secrets of
 * natter_mcp_manager_set_secrets()) but not managed: for checking a
 * server (Test, `natter mcp`) without disturbing the running one.
 *
 * Returns: (transfer full): the client
 */
NatterMcpClient *
natter_mcp_manager_new_client (NatterMcpManager      *self,
                               NatterMcpServerConfig *config)
{
  NatterMcpClient *client;

  g_return_val_if_fail (NATTER_IS_MCP_MANAGER (self), NULL);
  g_return_val_if_fail (config != NULL, NULL);

  client = natter_mcp_client_new (config);
  if (config->timeout_seconds == 0)
    natter_mcp_client_set_timeout (client, self->default_timeout);
  natter_mcp_client_set_secrets (client, self->secrets);
  return client;
}

/**
 * natter_mcp_manager_set_secrets:
 * @self: the manager
 * @secrets: (nullable): where secret header values are read
 *
 * Gives every client, running or made later, @secrets
 * (natter_mcp_client_set_secrets()).
 */
void
natter_mcp_manager_set_secrets (NatterMcpManager *self,
                                NatterMcpSecrets *secrets)
{
  g_return_if_fail (NATTER_IS_MCP_MANAGER (self));

  if (secrets != NULL)
    natter_mcp_secrets_ref (secrets);
  g_clear_pointer (&self->secrets, natter_mcp_secrets_unref);
  self->secrets = secrets;
  for (guint i = 0; i < self->clients->len; i++)
    natter_mcp_client_set_secrets (g_ptr_array_index (self->clients, i), secrets);
}

/**
 * natter_mcp_manager_reload:
 * @self: the manager
 *
 * Reads mcp.json again and makes a client for each enabled server; a
 * server whose entry did not change keeps its running client, the
 * others are stopped. A file that cannot be read or does not parse
 * keeps the servers from before and puts its error in
 * natter_mcp_manager_get_config_error() (at the first read, that is no
 * servers). The tools are registered by the next refresh.
 */
void
natter_mcp_manager_reload (NatterMcpManager *self)
{
  g_autoptr(GPtrArray) configs = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (NATTER_IS_MCP_MANAGER (self));

  g_clear_pointer (&self->config_error, g_free);
  configs = natter_mcp_config_load (self->config_path, &error);
  if (configs == NULL)
    {
      /* Whoever shows the servers shows this too. */
      self->config_error = g_strdup (error->message);
      /* Said where it matters (Preferences, `natter mcp list`, the
       * commands that use the servers), never as a log line: on a
       * command line that would reach the user's standard error beside
       * the command's own. */
      g_debug ("%s", error->message);
      return;
    }
  self->generation++;
  g_clear_pointer (&self->configs, g_ptr_array_unref);
  self->configs = g_ptr_array_ref (configs);
  apply_configs (self, configs);
}

static gboolean
debounced_cb (gpointer user_data)
{
  /* Stopping the clients of removed servers ends their refreshes, which
   * may hold the last references but this one. */
  g_autoptr(NatterMcpManager) self = g_object_ref (user_data);

  self->debounce_id = 0;
  natter_mcp_manager_reload (self);
  g_signal_emit (self, signals[SIGNAL_CONFIG_CHANGED], 0);
  if (self->config_error == NULL)
    natter_mcp_manager_refresh_async (self, NULL, NULL, NULL);
  return G_SOURCE_REMOVE;
}

static void
config_file_changed_cb (GFileMonitor      *monitor,
                        GFile             *file,
                        GFile             *other,
                        GFileMonitorEvent  event,
                        NatterMcpManager  *self)
{
  if (event == G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED || event == G_FILE_MONITOR_EVENT_PRE_UNMOUNT
      || event == G_FILE_MONITOR_EVENT_UNMOUNTED)
    return;
  g_clear_handle_id (&self->debounce_id, g_source_remove);
  self->debounce_id = g_timeout_add (WATCH_DEBOUNCE_MS, debounced_cb, self);
}

/**
 * natter_mcp_manager_watch:
 * @self: the manager
 *
 * Follows mcp.json from now on (calling again changes nothing): once a
 * change has settled (a fifth of a second without another), the file is
 * read again as natter_mcp_manager_reload() says,
 * #NatterMcpManager::config-changed is emitted, and, when it parsed, the
 * tools are listed again. The running window calls this; a command-line
 * run does not need it. A file that cannot be watched is only logged:
 * the servers still work, the file is read at the next start.
 */
void
natter_mcp_manager_watch (NatterMcpManager *self)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (NATTER_IS_MCP_MANAGER (self));

  if (self->monitor != NULL)
    return;
  file = g_file_new_for_path (self->config_path);
  self->monitor = g_file_monitor_file (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->monitor == NULL)
    {
      g_debug ("Cannot follow changes of %s: %s", self->config_path, error->message);
      return;
    }
  g_signal_connect (self->monitor, "changed", G_CALLBACK (config_file_changed_cb), self);
}

/**
 * natter_mcp_manager_get_config_error:
 * @self: the manager
 *
 * Returns: (nullable): why mcp.json could not be used
 */
const char *
natter_mcp_manager_get_config_error (NatterMcpManager *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_MANAGER (self), NULL);
  return self->config_error;
}

/**
 * natter_mcp_manager_get_config_path:
 * @self: the manager
 *
 * Returns: the mcp.json it reads
 */
const char *
natter_mcp_manager_get_config_path (NatterMcpManager *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_MANAGER (self), NULL);
  return self->config_path;
}

/**
 * natter_mcp_manager_get_configs:
 * @self: the manager
 *
 * The servers it runs, disabled ones included: those of the last
 * mcp.json that parsed. When the file now has a mistake
 * (natter_mcp_manager_get_config_error()), these are the servers from
 * before it, which keep running.
 *
 * Returns: (transfer none) (element-type NatterMcpServerConfig): the
 *   servers in file order
 */
GPtrArray *
natter_mcp_manager_get_configs (NatterMcpManager *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_MANAGER (self), NULL);
  return self->configs;
}

/**
 * natter_mcp_manager_get_server_tools:
 * @self: the manager
 * @client: one of natter_mcp_manager_get_clients()
 *
 * Returns: (transfer none) (nullable): the tools of @client's server
 *   that are offered, or %NULL while it is not ready (starting, or its
 *   last attempt failed without a list from before)
 */
JsonArray *
natter_mcp_manager_get_server_tools (NatterMcpManager *self,
                                     NatterMcpClient  *client)
{
  g_return_val_if_fail (NATTER_IS_MCP_MANAGER (self), NULL);
  g_return_val_if_fail (NATTER_IS_MCP_CLIENT (client), NULL);
  return g_hash_table_lookup (self->lists, client);
}

/**
 * natter_mcp_manager_find_client:
 * @self: the manager
 * @server: a server's name in mcp.json
 *
 * Returns: (transfer none) (nullable): the client of @server when it is
 *   enabled
 */
NatterMcpClient *
natter_mcp_manager_find_client (NatterMcpManager *self,
                                const char       *server)
{
  g_return_val_if_fail (NATTER_IS_MCP_MANAGER (self), NULL);
  g_return_val_if_fail (server != NULL, NULL);

  for (guint i = 0; i < self->clients->len; i++)
    {
      NatterMcpClient *client = g_ptr_array_index (self->clients, i);

      if (g_str_equal (natter_mcp_client_get_config (client)->name, server))
        return client;
    }
  return NULL;
}

/**
 * natter_mcp_manager_get_clients:
 * @self: the manager
 *
 * Returns: (transfer none) (element-type NatterMcpClient): a client per
 *   enabled server, in the order of mcp.json
 */
GPtrArray *
natter_mcp_manager_get_clients (NatterMcpManager *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_MANAGER (self), NULL);
  return self->clients;
}

/**
 * natter_mcp_manager_get_descriptors:
 * @self: the manager
 *
 * Returns: (transfer none): the descriptors of every registered tool of
 *   every enabled server, as the last refresh found them
 */
JsonArray *
natter_mcp_manager_get_descriptors (NatterMcpManager *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_MANAGER (self), NULL);
  return self->descriptors;
}

/**
 * natter_mcp_manager_count_tools:
 * @self: the manager
 * @server: a server's name in mcp.json
 *
 * Returns: how many of the registered tools (natter_mcp_manager_get_descriptors())
 *   are @server's: their tool ids are `mcp:SERVER/TOOL`
 */
guint
natter_mcp_manager_count_tools (NatterMcpManager *self,
                                const char       *server)
{
  g_autofree char *prefix = NULL;
  guint n = 0;

  g_return_val_if_fail (NATTER_IS_MCP_MANAGER (self), 0);
  g_return_val_if_fail (server != NULL, 0);

  prefix = g_strdup_printf ("mcp:%s/", server);
  for (guint i = 0; self->descriptors != NULL && i < json_array_get_length (self->descriptors); i++)
    {
      JsonObject *descriptor = json_array_get_object_element (self->descriptors, i);

      n += g_str_has_prefix (json_object_get_string_member (descriptor, "toolId"), prefix);
    }
  return n;
}

/**
 * natter_mcp_manager_get_default_timeout:
 * @self: the manager
 *
 * Returns: how long a call waits for its answer, in seconds, on a server
 *   whose mcp.json entry has no `timeout`
 */
guint
natter_mcp_manager_get_default_timeout (NatterMcpManager *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_MANAGER (self), NATTER_MCP_DEFAULT_TIMEOUT_SECONDS);
  return self->default_timeout;
}

/**
 * natter_mcp_manager_set_default_timeout:
 * @self: the manager
 * @seconds: at least 1
 *
 * Sets how long a call waits for its answer on every server whose
 * mcp.json entry has no `timeout` of its own (the entry's value wins: a
 * person who wrote it for one slow server meant it). Running clients take
 * it for their next request; a request already waiting keeps its timer.
 */
void
natter_mcp_manager_set_default_timeout (NatterMcpManager *self,
                                        guint             seconds)
{
  g_return_if_fail (NATTER_IS_MCP_MANAGER (self));
  g_return_if_fail (seconds > 0);

  if (self->default_timeout == seconds)
    return;
  self->default_timeout = seconds;
  for (guint i = 0; i < self->clients->len; i++)
    {
      NatterMcpClient *client = g_ptr_array_index (self->clients, i);

      if (natter_mcp_client_get_config (client)->timeout_seconds == 0)
        natter_mcp_client_set_timeout (client, seconds);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEFAULT_TIMEOUT]);
}

static void
natter_mcp_manager_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  NatterMcpManager *self = NATTER_MCP_MANAGER (object);

  switch (prop_id)
    {
    case PROP_DEFAULT_TIMEOUT: g_value_set_uint (value, self->default_timeout); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_mcp_manager_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  NatterMcpManager *self = NATTER_MCP_MANAGER (object);

  switch (prop_id)
    {
    case PROP_DEFAULT_TIMEOUT: natter_mcp_manager_set_default_timeout (self, g_value_get_uint (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_mcp_manager_dispose (GObject *object)
{
  NatterMcpManager *self = NATTER_MCP_MANAGER (object);

  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  g_clear_handle_id (&self->debounce_id, g_source_remove);
  drop_clients (self);
  G_OBJECT_CLASS (natter_mcp_manager_parent_class)->dispose (object);
}

static void
natter_mcp_manager_finalize (GObject *object)
{
  NatterMcpManager *self = NATTER_MCP_MANAGER (object);

  g_free (self->config_path);
  g_clear_object (&self->registry);
  g_free (self->config_error);
  g_clear_pointer (&self->secrets, natter_mcp_secrets_unref);
  g_ptr_array_unref (self->clients);
  g_ptr_array_unref (self->tool_ids);
  g_clear_pointer (&self->descriptors, json_array_unref);
  g_hash_table_unref (self->lists);
  g_hash_table_unref (self->list_seqs);
  g_hash_table_unref (self->waited_since);
  g_ptr_array_unref (self->configs);
  G_OBJECT_CLASS (natter_mcp_manager_parent_class)->finalize (object);
}

static void
natter_mcp_manager_class_init (NatterMcpManagerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = natter_mcp_manager_dispose;
  object_class->finalize = natter_mcp_manager_finalize;
  object_class->get_property = natter_mcp_manager_get_property;
  object_class->set_property = natter_mcp_manager_set_property;

  /**
   * NatterMcpManager:default-timeout:
   *
   * How long a call waits for its answer, in seconds, on a server whose
   * mcp.json entry has no `timeout` (the `mcp-timeout` setting).
   */
  properties[PROP_DEFAULT_TIMEOUT] =
    g_param_spec_uint ("default-timeout", NULL, NULL, 1, G_MAXUINT, NATTER_MCP_DEFAULT_TIMEOUT_SECONDS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterMcpManager::tools-changed:
   *
   * A refresh registered the tools anew; natter_mcp_manager_get_descriptors()
   * has the new list.
   */
  signals[SIGNAL_TOOLS_CHANGED] =
    g_signal_new ("tools-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * NatterMcpManager::config-changed:
   *
   * A watched mcp.json changed and was read again: the clients are
   * those of the new file, or, when it did not parse, those from before
   * with natter_mcp_manager_get_config_error() saying why.
   */
  signals[SIGNAL_CONFIG_CHANGED] =
    g_signal_new ("config-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
natter_mcp_manager_init (NatterMcpManager *self)
{
  self->clients = g_ptr_array_new_with_free_func (g_object_unref);
  self->tool_ids = g_ptr_array_new_with_free_func (g_free);
  self->descriptors = json_array_new ();
  self->lists = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) json_array_unref);
  self->list_seqs = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->waited_since = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  self->configs = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_mcp_server_config_unref);
  self->default_timeout = NATTER_MCP_DEFAULT_TIMEOUT_SECONDS;
}

/**
 * natter_mcp_manager_new:
 * @config_path: mcp.json (natter_mcp_config_default_path())
 * @registry: the tool registry the servers' tools are added to
 *
 * A manager with the servers of @config_path read (natter_mcp_manager_reload());
 * nothing starts until natter_mcp_manager_refresh_async().
 *
 * Returns: (transfer full): the manager
 */
NatterMcpManager *
natter_mcp_manager_new (const char         *config_path,
                        NatterToolRegistry *registry)
{
  NatterMcpManager *self;

  g_return_val_if_fail (config_path != NULL, NULL);
  g_return_val_if_fail (NATTER_IS_TOOL_REGISTRY (registry), NULL);

  self = g_object_new (NATTER_TYPE_MCP_MANAGER, NULL);
  self->config_path = g_strdup (config_path);
  self->registry = g_object_ref (registry);
  natter_mcp_manager_reload (self);
  return self;
}
