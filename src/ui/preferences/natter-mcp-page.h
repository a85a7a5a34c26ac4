/* natter-mcp-page.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-services.h"

G_BEGIN_DECLS

#define NATTER_TYPE_MCP_PAGE (natter_mcp_page_get_type ())

G_DECLARE_FINAL_TYPE (NatterMcpPage, natter_mcp_page, NATTER, MCP_PAGE, AdwPreferencesPage)

NatterMcpPage *natter_mcp_page_new           (NatterServices *services);
void           natter_mcp_page_rebuild       (NatterMcpPage  *self);
GtkWidget     *natter_mcp_page_get_widget    (NatterMcpPage  *self,
                                              const char     *server,
                                              const char     *field);
guint          natter_mcp_page_get_n_pending (NatterMcpPage  *self);

G_END_DECLS
