/* natter-agents-page.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-agent-editor.h"
#include "natter-agent-row.h"
#include "natter-services.h"

G_BEGIN_DECLS

#define NATTER_TYPE_AGENTS_PAGE (natter_agents_page_get_type ())

G_DECLARE_FINAL_TYPE (NatterAgentsPage, natter_agents_page, NATTER, AGENTS_PAGE, AdwPreferencesPage)

void               natter_agents_page_set_services  (NatterAgentsPage *self,
                                                     NatterServices   *services);
GtkWidget         *natter_agents_page_get_part      (NatterAgentsPage *self,
                                                     const char       *name);
NatterAgentRow    *natter_agents_page_get_row       (NatterAgentsPage *self,
                                                     const char       *agent_id);
NatterAgentEditor *natter_agents_page_get_editor    (NatterAgentsPage *self);
guint              natter_agents_page_get_n_pending (NatterAgentsPage *self);

G_END_DECLS
