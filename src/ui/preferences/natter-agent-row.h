/* natter-agent-row.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define NATTER_TYPE_AGENT_ROW (natter_agent_row_get_type ())

G_DECLARE_FINAL_TYPE (NatterAgentRow, natter_agent_row, NATTER, AGENT_ROW, AdwActionRow)

NatterAgentRow *natter_agent_row_new          (JsonObject     *agent);
const char     *natter_agent_row_get_agent_id (NatterAgentRow *self);
const char     *natter_agent_row_get_problem  (NatterAgentRow *self);
void            natter_agent_row_set_problem  (NatterAgentRow *self,
                                               const char     *problem);
GtkWidget      *natter_agent_row_get_part     (NatterAgentRow *self,
                                               const char     *part);

G_END_DECLS
