/* natter-mcp-transport.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The part both transports share: dispatch, and turning received text
 * into messages for the client.
 */

#define G_LOG_DOMAIN "natter-mcp"

#include "natter-json.h"
#include "natter-mcp-error.h"
#include "natter-mcp-transport-private.h"

void
natter_mcp_transport_send (NatterMcpTransport *self,
                           JsonNode           *message,
                           gint64              request_id)
{
  if (!self->closed)
    self->send (self, message, request_id);
}

void
natter_mcp_transport_abort_request (NatterMcpTransport *self,
                                    gint64              request_id)
{
  if (!self->closed && self->abort_request != NULL)
    self->abort_request (self, request_id);
}

void
natter_mcp_transport_set_version (NatterMcpTransport *self,
                                  const char         *protocol_version)
{
  if (self->set_version != NULL)
    self->set_version (self, protocol_version);
}

void
natter_mcp_transport_close (NatterMcpTransport *self)
{
  self->closed = TRUE;
  self->close (self);
}

void
natter_mcp_transport_die (NatterMcpTransport *self,
                          GError             *error)
{
  if (self->closed)
    return;
  self->closed = TRUE;
  self->callbacks->closed (error, self->user_data);
}

gboolean
natter_mcp_transport_deliver_text (NatterMcpTransport *self,
                                   const char         *text,
                                   gsize               length,
                                   GError            **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;

  if (!natter_json_parser_load_external (parser, text, (gssize) length, &local_error))
    {
      /* A message nested past the limit is JSON, but never a message
       * anyone may parse: the server is hostile or broken. Anything else
       * that does not parse is not a message at all. */
      if (g_error_matches (local_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_TOO_DEEP))
        g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_PROTOCOL,
                     "The server sent a message nested deeper than %u levels",
                     NATTER_JSON_DOCUMENT_MAX_DEPTH);
      else
        g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_NOT_A_MESSAGE,
                     "The server sent something that is not JSON: %s", local_error->message);
      return FALSE;
    }
  root = json_parser_get_root (parser);
  if (root != NULL && JSON_NODE_HOLDS_ARRAY (root))
    {
      JsonArray *batch = json_node_get_array (root);

      for (guint i = 0; i < json_array_get_length (batch) && !self->closed; i++)
        self->callbacks->message (json_array_get_element (batch, i), self->user_data);
      return TRUE;
    }
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_NOT_A_MESSAGE,
                   "The server sent JSON that is not a JSON-RPC message");
      return FALSE;
    }
  if (!self->closed)
    self->callbacks->message (root, self->user_data);
  return TRUE;
}
