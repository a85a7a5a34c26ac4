/* natter-mcp-client-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The client's list cache, shared by natter-mcp-client.c and
 * natter-mcp-client-tools.c. Not used outside src/mcp.
 */

#pragma once

#include "natter-mcp-client.h"

G_BEGIN_DECLS

JsonArray *_natter_mcp_client_get_cached_tools (NatterMcpClient *self);
guint      _natter_mcp_client_get_generation   (NatterMcpClient *self);
void       _natter_mcp_client_cache_tools      (NatterMcpClient *self,
                                                JsonArray       *tools,
                                                guint            generation);

G_END_DECLS
