/* natter-mcp-tool.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-mcp-client.h"
#include "natter-tool.h"

G_BEGIN_DECLS

/**
 * NATTER_MCP_TOOL_NAME_MAX:
 *
 * The longest function name the model is offered: 64, what
 * OpenAI-compatible servers accept.
 */
#define NATTER_MCP_TOOL_NAME_MAX 64

#define NATTER_TYPE_MCP_TOOL (natter_mcp_tool_get_type ())

G_DECLARE_FINAL_TYPE (NatterMcpTool, natter_mcp_tool, NATTER, MCP_TOOL, GObject)

NatterTool *natter_mcp_tool_new          (NatterMcpClient     *client,
                                          JsonObject          *server_tool,
                                          const char          *model_name);
char       *natter_mcp_tool_id           (const char          *server,
                                          const char          *tool);
char       *natter_mcp_tool_name         (const char          *server,
                                          const char          *tool);
GStrv       natter_mcp_tool_names_assign (const char * const  *servers,
                                          const char * const  *tools);
JsonObject *natter_mcp_tool_map_result   (const char          *server,
                                          const char          *tool,
                                          JsonObject          *answer);

G_END_DECLS
