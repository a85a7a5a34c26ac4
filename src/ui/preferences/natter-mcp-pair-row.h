/* natter-mcp-pair-row.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define NATTER_TYPE_MCP_PAIR_ROW (natter_mcp_pair_row_get_type ())

G_DECLARE_FINAL_TYPE (NatterMcpPairRow, natter_mcp_pair_row, NATTER, MCP_PAIR_ROW, AdwPreferencesRow)

NatterMcpPairRow *natter_mcp_pair_row_new            (const char       *name,
                                                      const char       *value,
                                                      const char       *stored_key,
                                                      gboolean          with_secret);
const char       *natter_mcp_pair_row_get_name       (NatterMcpPairRow *self);
const char       *natter_mcp_pair_row_get_value      (NatterMcpPairRow *self);
gboolean          natter_mcp_pair_row_get_secret     (NatterMcpPairRow *self);
const char       *natter_mcp_pair_row_get_stored_key (NatterMcpPairRow *self);
void              natter_mcp_pair_row_focus_name     (NatterMcpPairRow *self);
GtkWidget        *natter_mcp_pair_row_get_part       (NatterMcpPairRow *self,
                                                      const char       *part);

G_END_DECLS
