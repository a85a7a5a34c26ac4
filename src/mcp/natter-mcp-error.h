/* natter-mcp-error.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * NATTER_MCP_ERROR:
 *
 * The error domain of the Model Context Protocol client (`src/mcp/`):
 * the tool-server configuration and the conversation with one server.
 * Codes are #NatterMcpError. Messages name the server and say what
 * happened in plain words; they never contain a header value.
 */
#define NATTER_MCP_ERROR (natter_mcp_error_quark ())

/**
 * NatterMcpError:
 * @NATTER_MCP_ERROR_CONFIG: `mcp.json` cannot be read or does not have
 *   the `mcpServers` shape.
 * @NATTER_MCP_ERROR_NO_SUCH_SERVER: no server of that name is configured.
 * @NATTER_MCP_ERROR_START: the server could not be started or reached.
 * @NATTER_MCP_ERROR_CLOSED: the server exited or closed the connection
 *   before it answered.
 * @NATTER_MCP_ERROR_TIMEOUT: the server did not answer within the call
 *   timeout; the request was cancelled at the server.
 * @NATTER_MCP_ERROR_PROTOCOL: the server sent something that is not the
 *   Model Context Protocol (bad JSON-RPC, an unknown protocol version, a
 *   malformed result).
 * @NATTER_MCP_ERROR_REMOTE: the server answered with a JSON-RPC error;
 *   the message is the server's.
 * @NATTER_MCP_ERROR_HTTP: the HTTP server answered with an error status.
 * @NATTER_MCP_ERROR_NOT_A_MESSAGE: a line or body that is not a
 *   JSON-RPC message at all (not JSON, or JSON of another shape). A
 *   stdio server's such line is logged and skipped, as the official SDKs
 *   do; an HTTP answer that is one fails its request.
 *
 * Error codes of %NATTER_MCP_ERROR.
 */
typedef enum
{
  NATTER_MCP_ERROR_CONFIG,
  NATTER_MCP_ERROR_NO_SUCH_SERVER,
  NATTER_MCP_ERROR_START,
  NATTER_MCP_ERROR_CLOSED,
  NATTER_MCP_ERROR_TIMEOUT,
  NATTER_MCP_ERROR_PROTOCOL,
  NATTER_MCP_ERROR_REMOTE,
  NATTER_MCP_ERROR_HTTP,
  NATTER_MCP_ERROR_NOT_A_MESSAGE,
} NatterMcpError;

GQuark natter_mcp_error_quark (void);

G_END_DECLS
