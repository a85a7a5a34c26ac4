/* natter-agent-resolver.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define NATTER_TYPE_AGENT_RESOLVER (natter_agent_resolver_get_type ())

G_DECLARE_INTERFACE (NatterAgentResolver, natter_agent_resolver, NATTER, AGENT_RESOLVER, GObject)

/**
 * NatterAgentResolverInterface:
 * @resolve: the agent preset for a request `{agentId, model?}`
 *
 * Looks an agent preset up (docs/runtime.md §1). The answer is
 * `{agentId, systemPrompt, model?: {provider, model}, tools: [descriptor…]}`;
 * the runtime applies the model precedence (per-turn override > agent's
 * model > application default) and freezes the result in `turn_created`.
 */
struct _NatterAgentResolverInterface
{
  GTypeInterface parent_iface;

  JsonObject *(*resolve) (NatterAgentResolver  *self,
                          JsonObject           *requested,
                          GError              **error);
};

JsonObject *natter_agent_resolver_resolve (NatterAgentResolver  *self,
                                           JsonObject           *requested,
                                           GError              **error);

G_END_DECLS
