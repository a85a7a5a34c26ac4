/* natter-mcp-transport-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the MCP client asks of a transport (natter-mcp-stdio.c,
 * natter-mcp-http.c): send one JSON-RPC message, hand over every message
 * that arrives, say when the connection is gone. Not installed, not used
 * outside src/mcp.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-mcp-config.h"

G_BEGIN_DECLS

typedef struct _NatterMcpTransport NatterMcpTransport;

/* The client's side. Called on the main context, never from inside
 * natter_mcp_transport_send(). */
typedef struct
{
  /* One message (a response, a notification, a server's request). */
  void (*message)     (JsonNode     *message,
                       gpointer      user_data);
  /* The transport is dead (process exited, session gone): every request
   * in flight has lost its answer. The transport sends nothing more. */
  void (*closed)      (const GError *error,
                       gpointer      user_data);
  /* HTTP only: the exchange that carried request @id ended with @error,
   * or without its answer (@error NULL). */
  void (*request_end) (gint64        id,
                       const GError *error,
                       gpointer      user_data);
} NatterMcpTransportCallbacks;

struct _NatterMcpTransport
{
  const NatterMcpTransportCallbacks *callbacks;
  gpointer                           user_data;
  gboolean                           closed;   /* no callback after this */

  void (*send)          (NatterMcpTransport *self,
                         JsonNode           *message,
                         gint64              request_id);
  void (*abort_request) (NatterMcpTransport *self,
                         gint64              request_id);
  void (*set_version)   (NatterMcpTransport *self,
                         const char         *protocol_version);
  void (*close)         (NatterMcpTransport *self);
};

NatterMcpTransport *natter_mcp_stdio_transport_start (NatterMcpServerConfig              *config,
                                                      const NatterMcpTransportCallbacks  *callbacks,
                                                      gpointer                            user_data,
                                                      GError                            **error);
NatterMcpTransport *natter_mcp_http_transport_start  (NatterMcpServerConfig              *config,
                                                      JsonObject                         *headers,
                                                      const NatterMcpTransportCallbacks  *callbacks,
                                                      gpointer                            user_data,
                                                      GError                            **error);

/* Sends @message (a request when @request_id >= 0). */
void natter_mcp_transport_send          (NatterMcpTransport *self,
                                         JsonNode           *message,
                                         gint64              request_id);
void natter_mcp_transport_abort_request (NatterMcpTransport *self,
                                         gint64              request_id);
void natter_mcp_transport_set_version   (NatterMcpTransport *self,
                                         const char         *protocol_version);
/* Stops the transport for good (the child is killed) and drops the
 * client's reference; no callback comes afterwards. */
void natter_mcp_transport_close         (NatterMcpTransport *self);

/* Delivers @line (one JSON-RPC message or batch) to the client. FALSE
 * with @error when it is not JSON. */
gboolean natter_mcp_transport_deliver_text (NatterMcpTransport *self,
                                            const char         *text,
                                            gsize               length,
                                            GError            **error);
/* Tells the client the transport is dead, once. */
void     natter_mcp_transport_die          (NatterMcpTransport *self,
                                            GError             *error);

G_END_DECLS
