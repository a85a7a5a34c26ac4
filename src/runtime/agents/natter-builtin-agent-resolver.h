/* natter-builtin-agent-resolver.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-agent-resolver.h"
#include "natter-tool-registry.h"

G_BEGIN_DECLS

/**
 * NATTER_BUILTIN_AGENT_ID:
 *
 * The id of the one agent Natter ships: a general assistant with the
 * built-in tools.
 */
#define NATTER_BUILTIN_AGENT_ID "assistant"

#define NATTER_TYPE_BUILTIN_AGENT_RESOLVER (natter_builtin_agent_resolver_get_type ())

G_DECLARE_FINAL_TYPE (NatterBuiltinAgentResolver, natter_builtin_agent_resolver, NATTER, BUILTIN_AGENT_RESOLVER, GObject)

NatterBuiltinAgentResolver *natter_builtin_agent_resolver_new               (NatterToolRegistry         *tools);
void                        natter_builtin_agent_resolver_set_default_model (NatterBuiltinAgentResolver *self,
                                                                             const char                 *provider,
                                                                             const char                 *model);
JsonObject                 *natter_builtin_agent_resolver_dup_default_model (NatterBuiltinAgentResolver *self);
void                        natter_builtin_agent_resolver_set_extra_tools   (NatterBuiltinAgentResolver *self,
                                                                             JsonArray                  *descriptors);
JsonArray                  *natter_builtin_agent_resolver_get_extra_tools   (NatterBuiltinAgentResolver *self);

G_END_DECLS
