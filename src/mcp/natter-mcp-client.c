/* natter-mcp-client.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Model Context Protocol client for one tool server (MCP 2025-11-25,
 * also speaking 2025-06-18): JSON-RPC 2.0 requests with their ids,
 * timeouts and cancellation, the handshake (`initialize`, then
 * `notifications/initialized`) done on first use, `tools/list` followed
 * through its pages and cached until the server says the list changed,
 * and `tools/call`. A server that stops fails the requests in flight;
 * the next request starts it again.
 *
 * The errors of the client and its transports are not translated: a
 * failed `tools/call` becomes the tool's result, stored in the turn and
 * sent to the model, and neither may depend on the language of the UI
 * that happened to run it.
 */

#define G_LOG_DOMAIN "natter-mcp"

#include "config.h"

#include "natter-mcp-client-private.h"
#include "natter-mcp-error.h"
#include "natter-mcp-secrets.h"
#include "natter-mcp-transport-private.h"

/* The protocol versions Natter speaks, newest first; the first is the
 * one it asks for (Lifecycle, Version Negotiation). */
static const char * const supported_versions[] = { "2025-11-25", "2025-06-18", NULL };

struct _NatterMcpClient
{
  GObject                 parent_instance;

  NatterMcpServerConfig  *config;
  NatterMcpTransport     *transport;
  NatterMcpClientState    state;
  char                   *last_error;
  char                   *protocol_version;
  guint                   timeout;
  guint                   handshake_timeout; /* s for `initialize`; 0: the timeout */
  gint64                  next_id;
  GHashTable             *pending;   /* id → Pending */
  GPtrArray              *waiters;   /* GTask of a request waiting for the handshake */
  JsonArray              *tools;     /* the cached list, or NULL */
  guint                   generation; /* bumped when the list changes */
  NatterMcpSecrets       *secrets;    /* nullable: where secret header values are read */
};

G_DEFINE_FINAL_TYPE (NatterMcpClient, natter_mcp_client, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_STATE,
  PROP_LAST_ERROR,
  PROP_PROTOCOL_VERSION,
  PROP_TIMEOUT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_TOOLS_CHANGED,
  SIGNAL_NOTIFICATION,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* What a request task carries until it is sent. */
typedef struct
{
  char       *method;
  JsonObject *params;   /* nullable */
  guint       timeout;  /* s; 0: the client's */
} RequestData;

static void
request_data_free (RequestData *data)
{
  g_free (data->method);
  g_clear_pointer (&data->params, json_object_unref);
  g_free (data);
}

/* A request on the wire. */
typedef struct
{
  NatterMcpClient *client;
  gint64           id;
  char            *method;
  GTask           *task;    /* returns a JsonNode, the result */
  guint            timeout; /* s */
  GSource         *timeout_source;
  GSource         *cancel_source;
} Pending;

static void
pending_free (Pending *pending)
{
  if (pending->timeout_source != NULL)
    {
      g_source_destroy (pending->timeout_source);
      g_source_unref (pending->timeout_source);
    }
  if (pending->cancel_source != NULL)
    {
      g_source_destroy (pending->cancel_source);
      g_source_unref (pending->cancel_source);
    }
  g_clear_object (&pending->task);
  g_free (pending->method);
  g_free (pending);
}

/* Removes request @id from the table; NULL when it is not in flight
 * (answered, timed out or cancelled already). */
static Pending *
pending_take (NatterMcpClient *self,
              gint64           id)
{
  Pending *pending = NULL;
  gpointer key = NULL;

  if (!g_hash_table_steal_extended (self->pending, &id, &key, (gpointer *) &pending))
    return NULL;
  return pending;
}

static void
pending_fail (Pending *pending,
              GError  *error)
{
  g_task_return_error (pending->task, error);
  pending_free (pending);
}

static void
set_state (NatterMcpClient      *self,
           NatterMcpClientState  state,
           const char           *last_error)
{
  if (self->state != state)
    {
      self->state = state;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
    }
  if (last_error != NULL && g_strcmp0 (self->last_error, last_error) != 0)
    {
      g_free (self->last_error);
      self->last_error = g_strdup (last_error);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAST_ERROR]);
    }
}

static JsonNode *
make_message (const char *method,
              JsonObject *params,
              gint64      id)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "jsonrpc");
  json_builder_add_string_value (builder, "2.0");
  if (id >= 0)
    {
      json_builder_set_member_name (builder, "id");
      json_builder_add_int_value (builder, id);
    }
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, method);
  if (params != NULL)
    {
      JsonNode *node = json_node_new (JSON_NODE_OBJECT);

      json_node_set_object (node, params);
      json_builder_set_member_name (builder, "params");
      json_builder_add_value (builder, node);
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static void
send_notification (NatterMcpClient *self,
                   const char      *method,
                   JsonObject      *params)
{
  g_autoptr(JsonNode) message = make_message (method, params, -1);

  if (self->transport != NULL)
    natter_mcp_transport_send (self->transport, message, -1);
}

/* Gives up on a request in flight: the server is told to stop working on
 * it (Cancellation), and an answer that still comes is ignored. */
static void
abandon (NatterMcpClient *self,
         Pending         *pending,
         const char      *reason,
         GError          *error)
{
  g_autoptr(JsonObject) params = json_object_new ();

  json_object_set_int_member (params, "requestId", pending->id);
  json_object_set_string_member (params, "reason", reason);
  send_notification (self, "notifications/cancelled", params);
  if (self->transport != NULL)
    natter_mcp_transport_abort_request (self->transport, pending->id);
  pending_fail (pending, error);
}

static gboolean
timeout_cb (gpointer user_data)
{
  Pending *pending = user_data;
  NatterMcpClient *self = pending->client;

  pending = pending_take (self, pending->id);
  if (pending != NULL)
    abandon (self, pending, "timeout",
             g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_TIMEOUT,
                          "Tool server “%s” did not answer “%s” within %u s",
                          self->config->name, pending->method, pending->timeout));
  return G_SOURCE_REMOVE;
}

static gboolean
cancelled_cb (GCancellable *cancellable,
              gpointer      user_data)
{
  Pending *pending = user_data;
  NatterMcpClient *self = pending->client;

  pending = pending_take (self, pending->id);
  if (pending != NULL)
    abandon (self, pending, "stopped by the user",
             g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED, "The call to tool server “%s” was stopped",
                          self->config->name));
  return G_SOURCE_REMOVE;
}

/* Puts @task's request on the wire; its answer completes @task. */
static void
send_request (NatterMcpClient *self,
              GTask           *task)
{
  RequestData *data = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  g_autoptr(JsonNode) message = NULL;
  Pending *pending;

  if (g_task_return_error_if_cancelled (task))
    return;
  pending = g_new0 (Pending, 1);
  pending->client = self;
  pending->id = self->next_id++;
  pending->method = g_strdup (data->method);
  pending->task = g_object_ref (task);
  pending->timeout = data->timeout > 0 ? data->timeout : self->timeout;
  pending->timeout_source = g_timeout_source_new_seconds (pending->timeout);
  g_source_set_callback (pending->timeout_source, timeout_cb, pending, NULL);
  g_source_attach (pending->timeout_source, g_main_context_get_thread_default ());
  if (cancellable != NULL)
    {
      pending->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (pending->cancel_source, G_SOURCE_FUNC (cancelled_cb), pending, NULL);
      g_source_attach (pending->cancel_source, g_main_context_get_thread_default ());
    }
  g_hash_table_insert (self->pending, &pending->id, pending);
  message = make_message (data->method, data->params, pending->id);
  natter_mcp_transport_send (self->transport, message, pending->id);
}

/* Fails every request in flight and every one waiting for the
 * handshake with (a copy of) @error. */
static void
fail_all (NatterMcpClient *self,
          const GError    *error)
{
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&self->waiters);
  GHashTableIter iter;
  gpointer value;
  GList *all = NULL;

  self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      all = g_list_prepend (all, value);
      g_hash_table_iter_steal (&iter);
    }
  for (GList *l = all; l != NULL; l = l->next)
    pending_fail (l->data, g_error_copy (error));
  g_list_free (all);
  for (guint i = 0; i < waiters->len; i++)
    g_task_return_error (g_ptr_array_index (waiters, i), g_error_copy (error));
}

static void
drop_transport (NatterMcpClient *self)
{
  NatterMcpTransport *transport = g_steal_pointer (&self->transport);

  if (transport != NULL)
    natter_mcp_transport_close (transport);
  g_clear_pointer (&self->protocol_version, g_free);
}

/* The connection is over (it failed, the server stopped): everything in
 * flight fails; the next request starts a new connection. */
static void
disconnect_with_error (NatterMcpClient *self,
                       const GError    *error)
{
  drop_transport (self);
  g_clear_pointer (&self->tools, json_array_unref);
  set_state (self, NATTER_MCP_CLIENT_STATE_FAILED, error->message);
  fail_all (self, error);
}

static void handle_message (JsonNode *message, gpointer user_data);
static void handle_closed (const GError *error, gpointer user_data);
static void handle_request_end (gint64 id, const GError *error, gpointer user_data);

static const NatterMcpTransportCallbacks transport_callbacks = {
  handle_message,
  handle_closed,
  handle_request_end,
};

static void
handle_closed (const GError *error,
               gpointer      user_data)
{
  disconnect_with_error (NATTER_MCP_CLIENT (user_data), error);
}

static void
handle_request_end (gint64        id,
                    const GError *error,
                    gpointer      user_data)
{
  NatterMcpClient *self = user_data;
  Pending *pending = pending_take (self, id);

  if (pending == NULL)
    return;
  if (error != NULL)
    pending_fail (pending, g_error_copy (error));
  else
    pending_fail (pending, g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_CLOSED,
                                        "Tool server “%s” ended its answer to “%s” without a result",
                                        self->config->name, pending->method));
}

static void
handle_response (NatterMcpClient *self,
                 JsonObject      *message)
{
  JsonNode *id_node = json_object_get_member (message, "id");
  JsonNode *error_node = json_object_get_member (message, "error");
  JsonNode *result = json_object_get_member (message, "result");
  Pending *pending;

  if (!JSON_NODE_HOLDS_VALUE (id_node) || json_node_get_value_type (id_node) != G_TYPE_INT64)
    return;  /* not an id Natter sent */
  pending = pending_take (self, json_node_get_int (id_node));
  if (pending == NULL)
    return;  /* a late answer to a request given up on */
  if (error_node != NULL && JSON_NODE_HOLDS_OBJECT (error_node))
    {
      JsonObject *error = json_node_get_object (error_node);
      const char *text = json_object_get_string_member_with_default (error, "message", "");

      pending_fail (pending, g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_REMOTE,
                                          "Tool server “%s” refused “%s”: %s (code %d)",
                                          self->config->name, pending->method, text,
                                          (int) json_object_get_int_member_with_default (error, "code", 0)));
      return;
    }
  if (result == NULL)
    {
      pending_fail (pending, g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_PROTOCOL,
                                          "Tool server “%s” answered “%s” with neither result nor error",
                                          self->config->name, pending->method));
      return;
    }
  g_task_return_pointer (pending->task, json_node_copy (result), (GDestroyNotify) json_node_unref);
  pending_free (pending);
}

/* A request from the server: Natter answers `ping` and declines the
 * rest, since it offers the server no capabilities. */
static void
handle_server_request (NatterMcpClient *self,
                       JsonObject      *message,
                       const char      *method)
{
  g_autoptr(JsonObject) reply = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (reply, "jsonrpc", "2.0");
  json_object_set_member (reply, "id", json_node_copy (json_object_get_member (message, "id")));
  if (g_str_equal (method, "ping"))
    json_object_set_object_member (reply, "result", json_object_new ());
  else
    {
      JsonObject *error = json_object_new ();

      json_object_set_int_member (error, "code", -32601);
      json_object_set_string_member (error, "message", "Method not found");
      json_object_set_object_member (reply, "error", error);
    }
  json_node_set_object (node, reply);
  if (self->transport != NULL)
    natter_mcp_transport_send (self->transport, node, -1);
}

static void
handle_message (JsonNode *node,
                gpointer  user_data)
{
  NatterMcpClient *self = user_data;
  JsonObject *message;
  const char *method;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;
  message = json_node_get_object (node);
  method = json_object_get_string_member_with_default (message, "method", NULL);
  if (method == NULL)
    handle_response (self, message);
  else if (json_object_has_member (message, "id"))
    handle_server_request (self, message, method);
  else if (g_str_equal (method, "notifications/tools/list_changed"))
    {
      g_clear_pointer (&self->tools, json_array_unref);
      self->generation++;
      g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
    }
  else
    {
      /* Logging, progress: not acted on, but whoever listens hears it. */
      JsonNode *params = json_object_get_member (message, "params");

      g_signal_emit (self, signals[SIGNAL_NOTIFICATION], 0, method,
                     params != NULL && JSON_NODE_HOLDS_OBJECT (params) ? json_node_get_object (params) : NULL);
    }
}

static void
initialized_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  NatterMcpClient *self = NATTER_MCP_CLIENT (object);
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) waiters = NULL;
  const char *version = NULL;

  answer = g_task_propagate_pointer (G_TASK (result), &error);
  if (answer == NULL)
    {
      if (!g_error_matches (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CLOSED) || self->transport != NULL)
        disconnect_with_error (self, error);
      return;
    }
  if (JSON_NODE_HOLDS_OBJECT (answer))
    version = json_object_get_string_member_with_default (json_node_get_object (answer), "protocolVersion", NULL);
  if (version == NULL || !g_strv_contains ((const char * const *) supported_versions, version))
    {
      error = g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_PROTOCOL,
                           "Tool server “%s” speaks protocol version “%s”; Natter speaks %s and %s",
                           self->config->name, version != NULL ? version : "(none)",
                           supported_versions[0], supported_versions[1]);
      disconnect_with_error (self, error);
      return;
    }
  self->protocol_version = g_strdup (version);
  natter_mcp_transport_set_version (self->transport, version);
  send_notification (self, "notifications/initialized", NULL);
  set_state (self, NATTER_MCP_CLIENT_STATE_READY, NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROTOCOL_VERSION]);

  waiters = g_steal_pointer (&self->waiters);
  self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiters->len && self->transport != NULL; i++)
    send_request (self, g_ptr_array_index (waiters, i));
}

static JsonObject *
initialize_params (void)
{
  JsonObject *params = json_object_new ();
  JsonObject *info = json_object_new ();

  json_object_set_string_member (info, "name", "natter");
  json_object_set_string_member (info, "title", "Natter");
  json_object_set_string_member (info, "version", PACKAGE_VERSION);
  json_object_set_string_member (params, "protocolVersion", supported_versions[0]);
  json_object_set_object_member (params, "capabilities", json_object_new ());
  json_object_set_object_member (params, "clientInfo", info);
  return params;
}

/* Starts the server and the handshake; the waiters go on when it is
 * done. */
static void
connect_server (NatterMcpClient *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GTask) task = NULL;
  RequestData *data;

  if (self->config->kind == NATTER_MCP_TRANSPORT_STDIO)
    self->transport = natter_mcp_stdio_transport_start (self->config, &transport_callbacks, self, &error);
  else
    {
      /* Secret values are read at each connection, so one replaced in
       * the keyring is used from the next start on. */
      g_autoptr(JsonObject) headers = natter_mcp_secrets_resolve_headers (self->secrets, self->config, &error);

      if (headers != NULL)
        self->transport = natter_mcp_http_transport_start (self->config, headers, &transport_callbacks, self,
                                                           &error);
    }
  if (self->transport == NULL)
    {
      disconnect_with_error (self, error);
      return;
    }
  set_state (self, NATTER_MCP_CLIENT_STATE_CONNECTING, NULL);
  task = g_task_new (self, NULL, initialized_cb, NULL);
  g_task_set_source_tag (task, connect_server);
  data = g_new0 (RequestData, 1);
  data->method = g_strdup ("initialize");
  data->params = initialize_params ();
  data->timeout = self->handshake_timeout;
  g_task_set_task_data (task, data, (GDestroyNotify) request_data_free);
  send_request (self, task);
}

/**
 * natter_mcp_client_request_async:
 * @self: a client
 * @method: a JSON-RPC method, e.g. `tools/list`
 * @params: (nullable): its parameters
 * @cancellable: (nullable): cancelling sends `notifications/cancelled`
 *   and fails the request with %G_IO_ERROR_CANCELLED
 * @callback: called with the answer
 * @user_data: its data
 *
 * Sends one request, starting the server and doing the handshake first
 * when it is not running (MCP 2025-11-25, Lifecycle). The answer must
 * come within #NatterMcpClient:timeout seconds, or the request is
 * cancelled at the server and fails with %NATTER_MCP_ERROR_TIMEOUT.
 */
void
natter_mcp_client_request_async (NatterMcpClient     *self,
                                 const char          *method,
                                 JsonObject          *params,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  RequestData *data;

  g_return_if_fail (NATTER_IS_MCP_CLIENT (self));
  g_return_if_fail (method != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_mcp_client_request_async);
  data = g_new0 (RequestData, 1);
  data->method = g_strdup (method);
  data->params = params != NULL ? json_object_ref (params) : NULL;
  g_task_set_task_data (task, data, (GDestroyNotify) request_data_free);

  if (self->state == NATTER_MCP_CLIENT_STATE_READY)
    {
      send_request (self, task);
      return;
    }
  g_ptr_array_add (self->waiters, g_object_ref (task));
  if (self->state != NATTER_MCP_CLIENT_STATE_CONNECTING)
    connect_server (self);
}

/**
 * natter_mcp_client_request_finish:
 * @self: a client
 * @result: the result
 * @error: return location for a %NATTER_MCP_ERROR or %G_IO_ERROR_CANCELLED
 *
 * Returns: (transfer full) (nullable): the request's `result`
 */
JsonNode *
natter_mcp_client_request_finish (NatterMcpClient  *self,
                                  GAsyncResult     *result,
                                  GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The list cache, for natter-mcp-client-tools.c. */

JsonArray *
_natter_mcp_client_get_cached_tools (NatterMcpClient *self)
{
  return self->state == NATTER_MCP_CLIENT_STATE_READY ? self->tools : NULL;
}

guint
_natter_mcp_client_get_generation (NatterMcpClient *self)
{
  return self->generation;
}

void
_natter_mcp_client_cache_tools (NatterMcpClient *self,
                                JsonArray       *tools,
                                guint            generation)
{
  /* A list asked for before the server said it changed is not kept. */
  if (generation != self->generation || self->state != NATTER_MCP_CLIENT_STATE_READY)
    return;
  g_clear_pointer (&self->tools, json_array_unref);
  self->tools = json_array_ref (tools);
}

/**
 * natter_mcp_client_stop:
 * @self: a client
 *
 * Stops the server (a stdio server's process is killed); requests in
 * flight fail with %NATTER_MCP_ERROR_CLOSED. The next request starts it
 * again.
 */
void
natter_mcp_client_stop (NatterMcpClient *self)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (NATTER_IS_MCP_CLIENT (self));

  drop_transport (self);
  g_clear_pointer (&self->tools, json_array_unref);
  set_state (self, NATTER_MCP_CLIENT_STATE_IDLE, NULL);
  error = g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_CLOSED, "Tool server “%s” was stopped",
                       self->config->name);
  fail_all (self, error);
}

/**
 * natter_mcp_client_new:
 * @config: the server
 *
 * A client for @config; nothing starts until the first request.
 *
 * Returns: (transfer full): the client
 */
NatterMcpClient *
natter_mcp_client_new (NatterMcpServerConfig *config)
{
  NatterMcpClient *self;

  g_return_val_if_fail (config != NULL, NULL);

  self = g_object_new (NATTER_TYPE_MCP_CLIENT, NULL);
  self->config = natter_mcp_server_config_ref (config);
  if (config->timeout_seconds > 0)
    self->timeout = config->timeout_seconds;
  return self;
}

/**
 * natter_mcp_client_set_secrets:
 * @self: a client
 * @secrets: (nullable): where the values of secret headers are read
 *
 * Without it, an HTTP server whose mcp.json entry has a secret header
 * (`{"secret": KEY}`) cannot be reached: the connection fails with
 * %NATTER_MCP_ERROR_START naming the header. Takes effect at the next
 * connection.
 */
void
natter_mcp_client_set_secrets (NatterMcpClient  *self,
                               NatterMcpSecrets *secrets)
{
  g_return_if_fail (NATTER_IS_MCP_CLIENT (self));

  if (secrets != NULL)
    natter_mcp_secrets_ref (secrets);
  g_clear_pointer (&self->secrets, natter_mcp_secrets_unref);
  self->secrets = secrets;
}

/**
 * natter_mcp_client_get_config:
 * @self: a client
 *
 * Returns: (transfer none): its server
 */
NatterMcpServerConfig *
natter_mcp_client_get_config (NatterMcpClient *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_CLIENT (self), NULL);
  return self->config;
}

/**
 * natter_mcp_client_get_state:
 * @self: a client
 *
 * Returns: where the conversation stands
 */
NatterMcpClientState
natter_mcp_client_get_state (NatterMcpClient *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_CLIENT (self), NATTER_MCP_CLIENT_STATE_IDLE);
  return self->state;
}

/**
 * natter_mcp_client_get_last_error:
 * @self: a client
 *
 * Returns: (nullable): why the last connection failed or ended
 */
const char *
natter_mcp_client_get_last_error (NatterMcpClient *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_CLIENT (self), NULL);
  return self->last_error;
}

/**
 * natter_mcp_client_get_protocol_version:
 * @self: a client
 *
 * Returns: (nullable): the version agreed in the handshake, while ready
 */
const char *
natter_mcp_client_get_protocol_version (NatterMcpClient *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_CLIENT (self), NULL);
  return self->protocol_version;
}

/**
 * natter_mcp_client_get_timeout:
 * @self: a client
 *
 * Returns: how long a request waits for its answer, in seconds
 */
guint
natter_mcp_client_get_timeout (NatterMcpClient *self)
{
  g_return_val_if_fail (NATTER_IS_MCP_CLIENT (self), 0);
  return self->timeout;
}

/**
 * natter_mcp_client_set_handshake_timeout:
 * @self: a client
 * @seconds: how long the next handshakes wait for the server's answer
 *   to `initialize`; 0 for #NatterMcpClient:timeout
 *
 * For a caller that waits for the server to start and should not wait
 * long (the command line, a test of the server): a server that has not
 * answered `initialize` within @seconds is stopped, and what waited for
 * it fails with %NATTER_MCP_ERROR_TIMEOUT naming the limit
 * (%NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS is the usual one). The
 * manager's own clients keep the call timeout: a server that starts
 * slowly (a package being downloaded) becomes ready in the background.
 */
void
natter_mcp_client_set_handshake_timeout (NatterMcpClient *self,
                                         guint            seconds)
{
  g_return_if_fail (NATTER_IS_MCP_CLIENT (self));

  self->handshake_timeout = seconds;
}

/**
 * natter_mcp_client_set_timeout:
 * @self: a client
 * @seconds: how long later requests wait for their answer, at least 1
 */
void
natter_mcp_client_set_timeout (NatterMcpClient *self,
                               guint            seconds)
{
  g_return_if_fail (NATTER_IS_MCP_CLIENT (self));
  g_return_if_fail (seconds > 0);

  if (self->timeout == seconds)
    return;
  self->timeout = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TIMEOUT]);
}

static void
natter_mcp_client_dispose (GObject *object)
{
  NatterMcpClient *self = NATTER_MCP_CLIENT (object);

  if (self->transport != NULL || g_hash_table_size (self->pending) > 0 || self->waiters->len > 0)
    natter_mcp_client_stop (self);
  G_OBJECT_CLASS (natter_mcp_client_parent_class)->dispose (object);
}

static void
natter_mcp_client_finalize (GObject *object)
{
  NatterMcpClient *self = NATTER_MCP_CLIENT (object);

  g_clear_pointer (&self->config, natter_mcp_server_config_unref);
  g_clear_pointer (&self->secrets, natter_mcp_secrets_unref);
  g_free (self->last_error);
  g_free (self->protocol_version);
  g_hash_table_unref (self->pending);
  g_ptr_array_unref (self->waiters);
  g_clear_pointer (&self->tools, json_array_unref);
  G_OBJECT_CLASS (natter_mcp_client_parent_class)->finalize (object);
}

static void
natter_mcp_client_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  NatterMcpClient *self = NATTER_MCP_CLIENT (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_int (value, self->state);
      break;
    case PROP_LAST_ERROR:
      g_value_set_string (value, self->last_error);
      break;
    case PROP_PROTOCOL_VERSION:
      g_value_set_string (value, self->protocol_version);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint (value, self->timeout);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_mcp_client_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  NatterMcpClient *self = NATTER_MCP_CLIENT (object);

  switch (prop_id)
    {
    case PROP_TIMEOUT:
      natter_mcp_client_set_timeout (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_mcp_client_class_init (NatterMcpClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = natter_mcp_client_dispose;
  object_class->finalize = natter_mcp_client_finalize;
  object_class->get_property = natter_mcp_client_get_property;
  object_class->set_property = natter_mcp_client_set_property;

  /**
   * NatterMcpClient:state:
   *
   * A #NatterMcpClientState, as an int.
   */
  properties[PROP_STATE] =
    g_param_spec_int ("state", NULL, NULL, NATTER_MCP_CLIENT_STATE_IDLE, NATTER_MCP_CLIENT_STATE_FAILED,
                      NATTER_MCP_CLIENT_STATE_IDLE,
                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterMcpClient:last-error:
   *
   * Why the last connection failed or ended, or %NULL.
   */
  properties[PROP_LAST_ERROR] =
    g_param_spec_string ("last-error", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterMcpClient:protocol-version:
   *
   * The protocol version agreed with the server, while connected.
   */
  properties[PROP_PROTOCOL_VERSION] =
    g_param_spec_string ("protocol-version", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterMcpClient:timeout:
   *
   * How long a request waits for its answer, in seconds.
   */
  properties[PROP_TIMEOUT] =
    g_param_spec_uint ("timeout", NULL, NULL, 1, G_MAXUINT, NATTER_MCP_DEFAULT_TIMEOUT_SECONDS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterMcpClient::tools-changed:
   *
   * The server said its list of tools changed
   * (`notifications/tools/list_changed`); the next
   * natter_mcp_client_list_tools_async() asks it again.
   */
  signals[SIGNAL_TOOLS_CHANGED] =
    g_signal_new ("tools-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * NatterMcpClient::notification:
   * @self: the client
   * @method: the notification's method, e.g. `notifications/message`
   * @params: (nullable): its params object
   *
   * A notification from the server that the client does not act on
   * itself (logging, progress).
   */
  signals[SIGNAL_NOTIFICATION] =
    g_signal_new ("notification", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, JSON_TYPE_OBJECT);
}

static void
natter_mcp_client_init (NatterMcpClient *self)
{
  self->timeout = NATTER_MCP_DEFAULT_TIMEOUT_SECONDS;
  self->next_id = 1;
  self->pending = g_hash_table_new (g_int64_hash, g_int64_equal);
  self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
}
