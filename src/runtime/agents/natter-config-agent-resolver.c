/* natter-config-agent-resolver.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The application's agent resolver (docs/runtime.md §1): the
 * built-in "assistant" and the user's agents from the configuration
 * folder (NatterAgentStore). An agent file is read at every resolve, so
 * an edit in Preferences applies to the next message; the turn freezes
 * what it got. A user agent without a model gets the built-in agent's,
 * i.e. the default model from the settings.
 */

#define G_LOG_DOMAIN "natter-config-agent-resolver"

#include "natter-config-agent-resolver.h"
#include "natter-runtime-error.h"

struct _NatterConfigAgentResolver
{
  GObject                     parent_instance;
  NatterBuiltinAgentResolver *builtin;
  NatterAgentStore           *store;
  NatterToolRegistry         *tools;
};

static void agent_resolver_iface_init (NatterAgentResolverInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterConfigAgentResolver, natter_config_agent_resolver, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_AGENT_RESOLVER, agent_resolver_iface_init))

/* The tools of the tool servers an agent lists (`mcp:<server>/…`, as the
 * built-in resolver offers them). A server that offers none now — not
 * configured, disabled, not running — stops the turn from starting, as a
 * missing tool does. */
static gboolean
add_server_tools (NatterConfigAgentResolver  *self,
                  const char                 *agent_id,
                  JsonArray                  *servers,
                  JsonArray                  *descriptors,
                  GError                    **error)
{
  JsonArray *offered = natter_builtin_agent_resolver_get_extra_tools (self->builtin);

  for (guint i = 0; i < json_array_get_length (servers); i++)
    {
      const char *server = json_array_get_string_element (servers, i);
      g_autofree char *prefix = g_strdup_printf ("mcp:%s/", server);
      guint found = 0;

      for (guint j = 0; offered != NULL && j < json_array_get_length (offered); j++)
        {
          JsonNode *node = json_array_get_element (offered, j);

          if (g_str_has_prefix (json_object_get_string_member (json_node_get_object (node), "toolId"), prefix))
            {
              json_array_add_element (descriptors, json_node_copy (node));
              found++;
            }
        }
      if (found == 0)
        {
          g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT,
                       "The agent “%s” uses the tool server “%s”, which offers no tools now "
                       "(it is not configured, disabled, or not running)", agent_id, server);
          return FALSE;
        }
    }
  return TRUE;
}

static JsonObject *
natter_config_agent_resolver_resolve (NatterAgentResolver  *resolver,
                                      JsonObject           *requested,
                                      GError              **error)
{
  NatterConfigAgentResolver *self = NATTER_CONFIG_AGENT_RESOLVER (resolver);
  const char *agent_id = json_object_get_string_member_with_default (requested, "agentId", NULL);
  g_autoptr(JsonObject) stored = NULL;
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonArray) descriptors = NULL;
  JsonArray *tools;

  if (agent_id == NULL || g_str_equal (agent_id, NATTER_BUILTIN_AGENT_ID))
    return natter_agent_resolver_resolve (NATTER_AGENT_RESOLVER (self->builtin), requested, error);

  stored = natter_agent_store_load (self->store, agent_id, &local_error);
  if (stored == NULL)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
          g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT))
        g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT,
                     "Unknown agent “%s”", agent_id);
      else
        g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT,
                     "The agent “%s” cannot be used: %s", agent_id, local_error->message);
      return NULL;
    }

  /* Every tool must exist now: a turn must not start with a tool list
   * that silently lost a member. */
  descriptors = json_array_new ();
  tools = json_object_get_array_member (stored, "tools");
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      const char *tool_id = json_array_get_string_element (tools, i);
      NatterTool *tool = natter_tool_registry_lookup (self->tools, tool_id);
      JsonNode *node;

      if (tool == NULL)
        {
          g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT,
                       "The agent “%s” uses the unknown tool “%s”", agent_id, tool_id);
          return NULL;
        }
      node = json_node_init_object (json_node_alloc (), natter_tool_get_descriptor (tool));
      json_array_add_element (descriptors, json_node_copy (node));
      json_node_unref (node);
    }

  agent = json_object_new ();
  json_object_set_string_member (agent, "agentId", agent_id);
  json_object_set_string_member (agent, "systemPrompt",
                                 json_object_get_string_member (stored, "systemPrompt"));
  if (json_object_has_member (stored, "model"))
    {
      JsonObject *model = json_object_get_object_member (stored, "model");
      JsonObject *copy = json_object_new ();

      json_object_set_string_member (copy, "provider", json_object_get_string_member (model, "provider"));
      json_object_set_string_member (copy, "model", json_object_get_string_member (model, "model"));
      json_object_set_object_member (agent, "model", copy);
    }
  else
    {
      JsonObject *model = natter_builtin_agent_resolver_dup_default_model (self->builtin);

      if (model != NULL)
        json_object_set_object_member (agent, "model", model);
    }
  if (json_object_has_member (stored, "toolServers")
      && !add_server_tools (self, agent_id, json_object_get_array_member (stored, "toolServers"), descriptors,
                            error))
    return NULL;
  json_object_set_array_member (agent, "tools", g_steal_pointer (&descriptors));
  return g_steal_pointer (&agent);
}

static void
agent_resolver_iface_init (NatterAgentResolverInterface *iface)
{
  iface->resolve = natter_config_agent_resolver_resolve;
}

static void
natter_config_agent_resolver_finalize (GObject *object)
{
  NatterConfigAgentResolver *self = NATTER_CONFIG_AGENT_RESOLVER (object);

  g_clear_object (&self->builtin);
  g_clear_object (&self->store);
  g_clear_object (&self->tools);
  G_OBJECT_CLASS (natter_config_agent_resolver_parent_class)->finalize (object);
}

static void
natter_config_agent_resolver_class_init (NatterConfigAgentResolverClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_config_agent_resolver_finalize;
}

static void
natter_config_agent_resolver_init (NatterConfigAgentResolver *self)
{
}

/**
 * natter_config_agent_resolver_new:
 * @builtin: the resolver of the built-in agent, which also holds the
 *   default model
 * @store: the user's agents
 * @tools: the tools an agent may name
 *
 * Creates the resolver of docs/runtime.md §1 for both kinds of agent:
 * `assistant` (or no id) goes to @builtin; any other id is read from
 * @store and answered as `{agentId, systemPrompt, model?, tools:
 * [descriptor…]}`. Fails with %NATTER_RUNTIME_ERROR_AGENT for an unknown
 * agent, an agent file that does not validate (the message says why) and
 * an agent naming a tool @tools does not have.
 *
 * Returns: (transfer full): the resolver
 */
NatterConfigAgentResolver *
natter_config_agent_resolver_new (NatterBuiltinAgentResolver *builtin,
                                  NatterAgentStore           *store,
                                  NatterToolRegistry         *tools)
{
  NatterConfigAgentResolver *self;

  g_return_val_if_fail (NATTER_IS_BUILTIN_AGENT_RESOLVER (builtin), NULL);
  g_return_val_if_fail (NATTER_IS_AGENT_STORE (store), NULL);
  g_return_val_if_fail (NATTER_IS_TOOL_REGISTRY (tools), NULL);

  self = g_object_new (NATTER_TYPE_CONFIG_AGENT_RESOLVER, NULL);
  self->builtin = g_object_ref (builtin);
  self->store = g_object_ref (store);
  self->tools = g_object_ref (tools);
  return self;
}
