/* natter-mcp-client.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-mcp-config.h"
#include "natter-mcp-secrets.h"

G_BEGIN_DECLS

/**
 * NATTER_MCP_DEFAULT_TIMEOUT_SECONDS:
 *
 * How long a request waits for its answer unless configured otherwise.
 */
#define NATTER_MCP_DEFAULT_TIMEOUT_SECONDS 60

/**
 * NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS:
 *
 * How long anyone waits for a server to start (its handshake and its
 * list of tools) before going on without it: the command line's
 * `natter send` and `natter mcp`, and natter_mcp_manager_refresh_async().
 * A server not ready by then offers no tools until it is.
 */
#define NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS 5

/**
 * NatterMcpClientState:
 * @NATTER_MCP_CLIENT_STATE_IDLE: not connected (never, or since the
 *   server stopped); the next request starts it
 * @NATTER_MCP_CLIENT_STATE_CONNECTING: the handshake is under way
 * @NATTER_MCP_CLIENT_STATE_READY: initialized; requests go through
 * @NATTER_MCP_CLIENT_STATE_FAILED: the last attempt failed (see
 *   #NatterMcpClient:last-error); the next request tries again
 *
 * Where the conversation with one server stands.
 */
typedef enum
{
  NATTER_MCP_CLIENT_STATE_IDLE,
  NATTER_MCP_CLIENT_STATE_CONNECTING,
  NATTER_MCP_CLIENT_STATE_READY,
  NATTER_MCP_CLIENT_STATE_FAILED,
} NatterMcpClientState;

#define NATTER_TYPE_MCP_CLIENT (natter_mcp_client_get_type ())

G_DECLARE_FINAL_TYPE (NatterMcpClient, natter_mcp_client, NATTER, MCP_CLIENT, GObject)

NatterMcpClient       *natter_mcp_client_new                  (NatterMcpServerConfig *config);
NatterMcpServerConfig *natter_mcp_client_get_config           (NatterMcpClient       *self);
NatterMcpClientState   natter_mcp_client_get_state            (NatterMcpClient       *self);
const char            *natter_mcp_client_get_last_error       (NatterMcpClient       *self);
const char            *natter_mcp_client_get_protocol_version (NatterMcpClient       *self);
guint                  natter_mcp_client_get_timeout          (NatterMcpClient       *self);
void                   natter_mcp_client_set_timeout          (NatterMcpClient       *self,
                                                               guint                  seconds);
void                   natter_mcp_client_set_handshake_timeout (NatterMcpClient   *self,
                                                                guint              seconds);
void                   natter_mcp_client_set_secrets          (NatterMcpClient       *self,
                                                               NatterMcpSecrets      *secrets);

void                   natter_mcp_client_list_tools_async     (NatterMcpClient       *self,
                                                               GCancellable          *cancellable,
                                                               GAsyncReadyCallback    callback,
                                                               gpointer               user_data);
JsonArray             *natter_mcp_client_list_tools_finish    (NatterMcpClient       *self,
                                                               GAsyncResult          *result,
                                                               GError               **error);
void                   natter_mcp_client_call_tool_async      (NatterMcpClient       *self,
                                                               const char            *tool,
                                                               JsonObject            *arguments,
                                                               GCancellable          *cancellable,
                                                               GAsyncReadyCallback    callback,
                                                               gpointer               user_data);
JsonObject            *natter_mcp_client_call_tool_finish     (NatterMcpClient       *self,
                                                               GAsyncResult          *result,
                                                               GError               **error);
void                   natter_mcp_client_request_async        (NatterMcpClient       *self,
                                                               const char            *method,
                                                               JsonObject            *params,
                                                               GCancellable          *cancellable,
                                                               GAsyncReadyCallback    callback,
                                                               gpointer               user_data);
JsonNode              *natter_mcp_client_request_finish       (NatterMcpClient       *self,
                                                               GAsyncResult          *result,
                                                               GError               **error);
void                   natter_mcp_client_stop                 (NatterMcpClient       *self);

G_END_DECLS
