/* natter-builtin-agent-resolver.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The application's agent resolver (docs/runtime.md §1): one preset,
 * "assistant", with a system prompt and the built-in tools. Its model is
 * the user's default `{provider, model}` from the settings; a per-turn
 * override in the request wins over it (the runtime applies the
 * precedence, this object only answers with the preset).
 */

#define G_LOG_DOMAIN "natter-builtin-agent-resolver"

#include "natter-builtin-agent-resolver.h"
#include "natter-builtin-tools.h"
#include "natter-json.h"
#include "natter-runtime-error.h"

#define SYSTEM_PROMPT \
  "You are Natter, a helpful assistant running on the user's computer. " \
  "Answer clearly and concisely. You can read files and list directories " \
  "(the user approves each use), tell the current time, and ask the user " \
  "a question with ask_human when you need information only they have. " \
  "Never claim to have done something you did not do."

struct _NatterBuiltinAgentResolver
{
  GObject             parent_instance;
  NatterToolRegistry *tools;
  char               *provider;
  char               *model;
  JsonArray          *extra_tools;   /* nullable */
};

static void agent_resolver_iface_init (NatterAgentResolverInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterBuiltinAgentResolver, natter_builtin_agent_resolver, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_AGENT_RESOLVER, agent_resolver_iface_init))

static JsonObject *
natter_builtin_agent_resolver_resolve (NatterAgentResolver  *resolver,
                                       JsonObject           *requested,
                                       GError              **error)
{
  NatterBuiltinAgentResolver *self = NATTER_BUILTIN_AGENT_RESOLVER (resolver);
  const char *agent_id = json_object_get_string_member_with_default (requested, "agentId", NULL);
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(JsonObject) model = NULL;
  JsonArray *tools;

  if (g_strcmp0 (agent_id, NATTER_BUILTIN_AGENT_ID) != 0)
    {
      g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT,
                   "Unknown agent “%s”; the only agent is “%s”",
                   agent_id != NULL ? agent_id : "", NATTER_BUILTIN_AGENT_ID);
      return NULL;
    }

  agent = json_object_new ();
  json_object_set_string_member (agent, "agentId", NATTER_BUILTIN_AGENT_ID);
  json_object_set_string_member (agent, "systemPrompt", SYSTEM_PROMPT);
  model = natter_builtin_agent_resolver_dup_default_model (self);
  if (model != NULL)
    json_object_set_object_member (agent, "model", g_steal_pointer (&model));
  tools = natter_builtin_tools_descriptors (self->tools);
  natter_json_array_add_copies (tools, self->extra_tools);
  json_object_set_array_member (agent, "tools", tools);
  return g_steal_pointer (&agent);
}

static void
agent_resolver_iface_init (NatterAgentResolverInterface *iface)
{
  iface->resolve = natter_builtin_agent_resolver_resolve;
}

static void
natter_builtin_agent_resolver_finalize (GObject *object)
{
  NatterBuiltinAgentResolver *self = NATTER_BUILTIN_AGENT_RESOLVER (object);

  g_clear_object (&self->tools);
  g_clear_pointer (&self->provider, g_free);
  g_clear_pointer (&self->model, g_free);
  g_clear_pointer (&self->extra_tools, json_array_unref);
  G_OBJECT_CLASS (natter_builtin_agent_resolver_parent_class)->finalize (object);
}

static void
natter_builtin_agent_resolver_class_init (NatterBuiltinAgentResolverClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_builtin_agent_resolver_finalize;
}

static void
natter_builtin_agent_resolver_init (NatterBuiltinAgentResolver *self)
{
}

/**
 * natter_builtin_agent_resolver_new:
 * @tools: the registry holding the built-in tools
 *   (natter_builtin_tools_register())
 *
 * Creates the resolver of the built-in agent %NATTER_BUILTIN_AGENT_ID
 * (docs/runtime.md §1): a system prompt and the descriptors of the
 * built-in tools found in @tools. It has no model until
 * natter_builtin_agent_resolver_set_default_model() gives it one.
 *
 * Returns: (transfer full): the resolver
 */
NatterBuiltinAgentResolver *
natter_builtin_agent_resolver_new (NatterToolRegistry *tools)
{
  NatterBuiltinAgentResolver *self;

  g_return_val_if_fail (NATTER_IS_TOOL_REGISTRY (tools), NULL);

  self = g_object_new (NATTER_TYPE_BUILTIN_AGENT_RESOLVER, NULL);
  self->tools = g_object_ref (tools);
  return self;
}

/**
 * natter_builtin_agent_resolver_set_default_model:
 * @self: the resolver
 * @provider: (nullable): a configured provider's id or an endpoint URL
 * @model: (nullable): the model name
 *
 * Sets the agent's model, the one a turn gets when its request names
 * none. With either part %NULL or empty the agent has no model, and the
 * runtime falls back to its application default (or refuses the turn).
 * Turns already created keep the model frozen in their snapshot.
 */
void
natter_builtin_agent_resolver_set_default_model (NatterBuiltinAgentResolver *self,
                                                 const char                 *provider,
                                                 const char                 *model)
{
  g_return_if_fail (NATTER_IS_BUILTIN_AGENT_RESOLVER (self));

  g_free (self->provider);
  self->provider = g_strdup (provider);
  g_free (self->model);
  self->model = g_strdup (model);
}

/**
 * natter_builtin_agent_resolver_dup_default_model:
 * @self: the resolver
 *
 * Returns: (transfer full) (nullable): the agent's model `{provider,
 *   model}`, or %NULL when it has none
 */
JsonObject *
natter_builtin_agent_resolver_dup_default_model (NatterBuiltinAgentResolver *self)
{
  JsonObject *model;

  g_return_val_if_fail (NATTER_IS_BUILTIN_AGENT_RESOLVER (self), NULL);

  if (self->provider == NULL || self->provider[0] == '\0' ||
      self->model == NULL || self->model[0] == '\0')
    return NULL;
  model = json_object_new ();
  json_object_set_string_member (model, "provider", self->provider);
  json_object_set_string_member (model, "model", self->model);
  return model;
}

/**
 * natter_builtin_agent_resolver_set_extra_tools:
 * @self: the resolver
 * @descriptors: (nullable): tool descriptors offered after the built-in
 *   tools (those of the enabled tool servers), or %NULL for none
 *
 * Turns created afterwards snapshot these tools too (docs/runtime.md
 * §1); their implementations must be in the tool registry.
 */
void
natter_builtin_agent_resolver_set_extra_tools (NatterBuiltinAgentResolver *self,
                                               JsonArray                  *descriptors)
{
  g_return_if_fail (NATTER_IS_BUILTIN_AGENT_RESOLVER (self));

  g_clear_pointer (&self->extra_tools, json_array_unref);
  if (descriptors != NULL)
    self->extra_tools = json_array_ref (descriptors);
}

/**
 * natter_builtin_agent_resolver_get_extra_tools:
 * @self: the resolver
 *
 * Returns: (transfer none) (nullable): the descriptors of
 *   natter_builtin_agent_resolver_set_extra_tools()
 */
JsonArray *
natter_builtin_agent_resolver_get_extra_tools (NatterBuiltinAgentResolver *self)
{
  g_return_val_if_fail (NATTER_IS_BUILTIN_AGENT_RESOLVER (self), NULL);
  return self->extra_tools;
}
