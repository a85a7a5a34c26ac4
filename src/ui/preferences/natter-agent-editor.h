/* natter-agent-editor.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-services.h"

G_BEGIN_DECLS

#define NATTER_TYPE_AGENT_EDITOR (natter_agent_editor_get_type ())

G_DECLARE_FINAL_TYPE (NatterAgentEditor, natter_agent_editor, NATTER, AGENT_EDITOR, GtkBox)

NatterAgentEditor *natter_agent_editor_new          (NatterServices     *services,
                                                     JsonObject         *agent,
                                                     const char * const *provider_ids,
                                                     const char * const *provider_names);
const char        *natter_agent_editor_get_agent_id (NatterAgentEditor  *self);
gboolean           natter_agent_editor_get_loading  (NatterAgentEditor  *self);
JsonObject        *natter_agent_editor_build_agent  (NatterAgentEditor  *self,
                                                     GError            **error);
void               natter_agent_editor_focus        (NatterAgentEditor  *self);
GtkWidget         *natter_agent_editor_get_part     (NatterAgentEditor  *self,
                                                     const char         *part);

const char        *natter_agent_tool_label          (const char         *tool_id);

G_END_DECLS
