/* natter-agent-resolver.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-agent-resolver"

#include "natter-agent-resolver.h"
#include "natter-runtime-error.h"

G_DEFINE_INTERFACE (NatterAgentResolver, natter_agent_resolver, G_TYPE_OBJECT)

static void
natter_agent_resolver_default_init (NatterAgentResolverInterface *iface)
{
}

/**
 * natter_agent_resolver_resolve:
 * @self: a #NatterAgentResolver
 * @requested: (transfer none): `{agentId, model?}`
 * @error: return location for a #GError
 *
 * Implements the agent lookup of docs/runtime.md §1; a failure makes
 * create_turn fail with no file created (docs/runtime.md §5).
 *
 * Returns: (transfer full) (nullable): the agent preset, or %NULL with
 *   %NATTER_RUNTIME_ERROR_AGENT
 */
JsonObject *
natter_agent_resolver_resolve (NatterAgentResolver  *self,
                               JsonObject           *requested,
                               GError              **error)
{
  JsonObject *agent;

  g_return_val_if_fail (NATTER_IS_AGENT_RESOLVER (self), NULL);
  g_return_val_if_fail (requested != NULL, NULL);

  agent = NATTER_AGENT_RESOLVER_GET_IFACE (self)->resolve (self, requested, error);
  if (agent == NULL && error != NULL && *error == NULL)
    g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT,
                 "Unknown agent “%s”",
                 json_object_get_string_member_with_default (requested, "agentId", ""));
  return agent;
}
