/* natter-agent-chooser.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-agent-store.h"

G_BEGIN_DECLS

#define NATTER_TYPE_AGENT_CHOOSER (natter_agent_chooser_get_type ())

G_DECLARE_FINAL_TYPE (NatterAgentChooser, natter_agent_chooser, NATTER, AGENT_CHOOSER, GtkWidget)

GtkWidget        *natter_agent_chooser_new             (void);
NatterAgentStore *natter_agent_chooser_get_store       (NatterAgentChooser *self);
void              natter_agent_chooser_set_store       (NatterAgentChooser *self,
                                                        NatterAgentStore   *store);
const char       *natter_agent_chooser_get_agent_id    (NatterAgentChooser *self);
gboolean          natter_agent_chooser_set_agent_id    (NatterAgentChooser *self,
                                                        const char         *agent_id);
gboolean          natter_agent_chooser_has_agent       (NatterAgentChooser *self,
                                                        const char         *agent_id);
const char       *natter_agent_chooser_get_agent_name  (NatterAgentChooser *self,
                                                        const char         *agent_id);
JsonObject       *natter_agent_chooser_get_agent_model (NatterAgentChooser *self,
                                                        const char         *agent_id);
GStrv             natter_agent_chooser_dup_names       (NatterAgentChooser *self);
gboolean          natter_agent_chooser_get_compact     (NatterAgentChooser *self);
void              natter_agent_chooser_popup           (NatterAgentChooser *self);
void              natter_agent_chooser_popdown         (NatterAgentChooser *self);
void              natter_agent_chooser_choose          (NatterAgentChooser *self,
                                                        const char         *agent_id);

G_END_DECLS
