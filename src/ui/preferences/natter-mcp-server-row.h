/* natter-mcp-server-row.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-mcp-config.h"

G_BEGIN_DECLS

#define NATTER_TYPE_MCP_SERVER_ROW (natter_mcp_server_row_get_type ())

G_DECLARE_FINAL_TYPE (NatterMcpServerRow, natter_mcp_server_row, NATTER, MCP_SERVER_ROW, AdwActionRow)

NatterMcpServerRow    *natter_mcp_server_row_new        (NatterMcpServerConfig *config,
                                                         const char            *state);
NatterMcpServerConfig *natter_mcp_server_row_get_config (NatterMcpServerRow    *self);
GtkWidget             *natter_mcp_server_row_get_part   (NatterMcpServerRow    *self,
                                                         const char            *part);

G_END_DECLS
