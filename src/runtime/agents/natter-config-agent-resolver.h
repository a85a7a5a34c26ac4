/* natter-config-agent-resolver.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-agent-resolver.h"
#include "natter-agent-store.h"
#include "natter-builtin-agent-resolver.h"
#include "natter-tool-registry.h"

G_BEGIN_DECLS

#define NATTER_TYPE_CONFIG_AGENT_RESOLVER (natter_config_agent_resolver_get_type ())

G_DECLARE_FINAL_TYPE (NatterConfigAgentResolver, natter_config_agent_resolver, NATTER, CONFIG_AGENT_RESOLVER, GObject)

NatterConfigAgentResolver *natter_config_agent_resolver_new (NatterBuiltinAgentResolver *builtin,
                                                             NatterAgentStore           *store,
                                                             NatterToolRegistry         *tools);

G_END_DECLS
