/* natter-send-options.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How one message is to be sent: the agent, an optional model that
 * overrides the agent's, whether tool calls run without asking, the
 * model-call limit and the generation parameters (temperature, top-p,
 * token limit, seed, an added system instruction). The window, the command line and the tests fill one
 * in; the session layer turns it into the JSON of the spec once
 * (natter-send-options-private.h), so the wire shape lives in one file.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-send-options-private.h"

struct _NatterSendOptions
{
  char     *agent_id;         /* NULL: not chosen yet */
  char     *provider;         /* both set or both NULL */
  char     *model;
  gboolean  auto_permission;
  guint     max_model_calls;  /* 0: the runtime's default */
  NatterGenerationParameters *parameters;  /* never NULL; empty: none */
  gboolean  no_tools;
};

G_DEFINE_BOXED_TYPE (NatterSendOptions, natter_send_options,
                     natter_send_options_copy, natter_send_options_free)

/**
 * natter_send_options_new:
 * @agent_id: (nullable): the agent that answers (`agent.agentId` of
 *   docs/sessions.md §9, SendMessageConfig); %NULL while it is not chosen
 *   yet, as in a front end's message request (natter-message-request.c),
 *   which leaves it to the conversation
 *
 * Options with no model override (the agent's model, else the default,
 * decides: docs/runtime.md §1), `autoPermission` off and the runtime's
 * default model-call limit. Options reach the session layer only with an
 * agent: natter_send_options_set_agent_id() names one.
 *
 * Returns: (transfer full): new options; free with natter_send_options_free()
 */
NatterSendOptions *
natter_send_options_new (const char *agent_id)
{
  NatterSendOptions *self;

  g_return_val_if_fail (agent_id == NULL || agent_id[0] != '\0', NULL);

  self = g_new0 (NatterSendOptions, 1);
  self->agent_id = g_strdup (agent_id);
  self->parameters = natter_generation_parameters_new ();
  return self;
}

/**
 * natter_send_options_copy:
 * @self: options
 *
 * Returns: (transfer full): an independent copy of @self
 */
NatterSendOptions *
natter_send_options_copy (const NatterSendOptions *self)
{
  NatterSendOptions *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = natter_send_options_new (self->agent_id);
  natter_send_options_set_model (copy, self->provider, self->model);
  copy->auto_permission = self->auto_permission;
  copy->max_model_calls = self->max_model_calls;
  natter_send_options_set_parameters (copy, self->parameters);
  copy->no_tools = self->no_tools;
  return copy;
}

/**
 * natter_send_options_free:
 * @self: (transfer full) (nullable): options
 */
void
natter_send_options_free (NatterSendOptions *self)
{
  if (self == NULL)
    return;
  g_free (self->agent_id);
  g_free (self->provider);
  g_free (self->model);
  natter_generation_parameters_free (self->parameters);
  g_free (self);
}

/**
 * natter_send_options_set_agent_id:
 * @self: options
 * @agent_id: (nullable): the agent that answers (`agent.agentId` of
 *   docs/sessions.md §9); %NULL for not chosen yet
 *
 * Names the agent once it is chosen: a front end resolves the one its
 * request left to the conversation before it sends.
 */
void
natter_send_options_set_agent_id (NatterSendOptions *self,
                                  const char        *agent_id)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (agent_id == NULL || agent_id[0] != '\0');

  g_free (self->agent_id);
  self->agent_id = g_strdup (agent_id);
}

/**
 * natter_send_options_get_agent_id:
 * @self: options
 *
 * Returns: (transfer none) (nullable): the agent's id, or %NULL while it
 *   is not chosen
 */
const char *
natter_send_options_get_agent_id (const NatterSendOptions *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->agent_id;
}

/**
 * natter_send_options_set_model:
 * @self: options
 * @provider: (nullable): the provider id (a configured provider or an
 *   endpoint URL); %NULL with @model %NULL removes the override
 * @model: (nullable): the model name on that provider
 *
 * Sets the per-turn model that wins over the agent's own (docs/runtime.md
 * §1); the turn keeps it at `agent.requested.overrides.model`. The two go
 * together: both set or both %NULL.
 */
void
natter_send_options_set_model (NatterSendOptions *self,
                               const char        *provider,
                               const char        *model)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail ((provider == NULL) == (model == NULL));

  g_free (self->provider);
  g_free (self->model);
  self->provider = g_strdup (provider);
  self->model = g_strdup (model);
}

/**
 * natter_send_options_set_model_descriptor:
 * @self: options
 * @descriptor: (transfer none): a model descriptor `{provider, model}`
 *   with both members (docs/runtime.md §1), such as a turn's resolved
 *   model
 *
 * natter_send_options_set_model() with the provider and the model that
 * @descriptor names.
 */
void
natter_send_options_set_model_descriptor (NatterSendOptions *self,
                                          JsonObject        *descriptor)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (descriptor != NULL);

  natter_send_options_set_model (self, json_object_get_string_member (descriptor, "provider"),
                                 json_object_get_string_member (descriptor, "model"));
}

/**
 * natter_send_options_has_model:
 * @self: options
 *
 * Returns: whether a model override is set
 */
gboolean
natter_send_options_has_model (const NatterSendOptions *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->provider != NULL;
}

/**
 * natter_send_options_get_provider:
 * @self: options
 *
 * Returns: (transfer none) (nullable): the override's provider, or %NULL
 */
const char *
natter_send_options_get_provider (const NatterSendOptions *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->provider;
}

/**
 * natter_send_options_get_model:
 * @self: options
 *
 * Returns: (transfer none) (nullable): the override's model name, or %NULL
 */
const char *
natter_send_options_get_model (const NatterSendOptions *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->model;
}

/**
 * natter_send_options_set_auto_permission:
 * @self: options
 * @auto_permission: whether tool calls that would ask run without asking
 *
 * The turn's `autoPermission` (docs/runtime.md §5); off by default.
 */
void
natter_send_options_set_auto_permission (NatterSendOptions *self,
                                         gboolean           auto_permission)
{
  g_return_if_fail (self != NULL);

  self->auto_permission = !!auto_permission;
}

/**
 * natter_send_options_get_auto_permission:
 * @self: options
 *
 * Returns: the turn's `autoPermission`
 */
gboolean
natter_send_options_get_auto_permission (const NatterSendOptions *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->auto_permission;
}

/**
 * natter_send_options_set_max_model_calls:
 * @self: options
 * @max_model_calls: how many model calls the turn may make; 0 leaves it
 *   to the runtime's default (%NATTER_DEFAULT_MAX_MODEL_CALLS unless the
 *   services were set up with another)
 *
 * The turn's `maxModelCalls` (docs/runtime.md §5).
 */
void
natter_send_options_set_max_model_calls (NatterSendOptions *self,
                                         guint              max_model_calls)
{
  g_return_if_fail (self != NULL);

  self->max_model_calls = max_model_calls;
}

/**
 * natter_send_options_get_max_model_calls:
 * @self: options
 *
 * Returns: the model-call limit, or 0 for the runtime's default
 */
guint
natter_send_options_get_max_model_calls (const NatterSendOptions *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->max_model_calls;
}

/**
 * natter_send_options_set_max_tokens:
 * @self: options
 * @max_tokens: the most tokens one model call may answer with; 0 sends
 *   no limit (the server's default)
 *
 * The turn's `config.parameters.max_tokens` (docs/runtime.md §3): short
 * helper turns such as titles and summaries bound their answer with it.
 * The same member as that of natter_send_options_set_parameters().
 */
void
natter_send_options_set_max_tokens (NatterSendOptions *self,
                                    guint              max_tokens)
{
  g_return_if_fail (self != NULL);

  self->parameters->max_tokens = max_tokens;
}

/**
 * natter_send_options_get_max_tokens:
 * @self: options
 *
 * Returns: the answer limit in tokens, or 0 for none
 */
guint
natter_send_options_get_max_tokens (const NatterSendOptions *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return (guint) MIN (self->parameters->max_tokens, G_MAXUINT);
}

/**
 * natter_send_options_set_parameters:
 * @self: options
 * @parameters: (nullable): the message's own generation parameters;
 *   %NULL sets none
 *
 * Sets what this message asks of the model beside the conversation's
 * kept parameters, which the session layer adds under these when it
 * makes the turn (docs/sessions.md §15). The sampling members go to the
 * turn's `config.parameters`, the system instruction to its agent
 * snapshot (docs/format.md §4.2). A copy is kept.
 */
void
natter_send_options_set_parameters (NatterSendOptions                *self,
                                    const NatterGenerationParameters *parameters)
{
  g_return_if_fail (self != NULL);

  natter_generation_parameters_free (self->parameters);
  self->parameters = parameters != NULL ? natter_generation_parameters_copy (parameters)
                                        : natter_generation_parameters_new ();
}

/**
 * natter_send_options_get_parameters:
 * @self: options
 *
 * Returns: (transfer none): the message's own generation parameters
 *   (empty when none are set)
 */
const NatterGenerationParameters *
natter_send_options_get_parameters (const NatterSendOptions *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->parameters;
}

/**
 * natter_send_options_set_no_tools:
 * @self: options
 * @no_tools: whether the turn offers the model no tools at all
 *
 * A turn that only wants text back (a summary for compaction,
 * docs/sessions.md §5, a title, docs/sessions.md §13) sends an empty tool list,
 * so the model cannot answer with a tool call. Written as
 * `agent.requested.overrides.tools: []` (docs/runtime.md §1).
 */
void
natter_send_options_set_no_tools (NatterSendOptions *self,
                                  gboolean           no_tools)
{
  g_return_if_fail (self != NULL);

  self->no_tools = !!no_tools;
}

/**
 * natter_send_options_get_no_tools:
 * @self: options
 *
 * Returns: whether the turn offers the model no tools
 */
gboolean
natter_send_options_get_no_tools (const NatterSendOptions *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->no_tools;
}

/* `{agentId, model?: {provider, model}}`: the agent and model override
 * that a requested agent and a queued message's options both begin with. */
static JsonObject *
agent_and_model (const NatterSendOptions *self)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "agentId", self->agent_id);
  if (self->provider != NULL)
    {
      JsonObject *model = json_object_new ();

      json_object_set_string_member (model, "provider", self->provider);
      json_object_set_string_member (model, "model", self->model);
      json_object_set_object_member (object, "model", model);
    }
  return object;
}

/* The RequestedAgent of the spec: `{agentId, model?: {provider, model}}`;
 * the runtime writes the model at `overrides.model`. An added system
 * instruction goes at `overrides.systemInstruction`, which the runtime
 * adds to the agent's prompt in the snapshot (docs/format.md §4.2). */
JsonObject *
natter_send_options_to_requested_agent (const NatterSendOptions *self)
{
  JsonObject *agent;
  JsonObject *overrides = NULL;

  g_return_val_if_fail (self->agent_id != NULL, NULL);

  agent = agent_and_model (self);
  if (self->no_tools || self->parameters->system_instruction != NULL)
    {
      overrides = json_object_new ();
      json_object_set_object_member (agent, "overrides", overrides);
    }
  if (self->no_tools)
    json_object_set_array_member (overrides, "tools", json_array_new ());
  if (self->parameters->system_instruction != NULL)
    json_object_set_string_member (overrides, "systemInstruction", self->parameters->system_instruction);
  return agent;
}

/**
 * natter_send_options_to_queued_options:
 * @self: options
 *
 * The `options` member of a `message_queued` event (docs/format.md,
 * `message_queued`): the agent and model override, `autoPermission`, and
 * `maxModelCalls` when one is set; the turn the message becomes is
 * created with them. An added system instruction or "no tools" is not
 * part of it.
 *
 * Returns: (transfer full): a new object
 */
JsonObject *
natter_send_options_to_queued_options (const NatterSendOptions *self)
{
  JsonObject *object = agent_and_model (self);

  json_object_set_boolean_member (object, "autoPermission", self->auto_permission);
  if (self->max_model_calls > 0)
    json_object_set_int_member (object, "maxModelCalls", self->max_model_calls);
  return object;
}

/* The config create_turn takes (docs/runtime.md §5): a session turn
 * always has a human, a headless one never (docs/sessions.md §11). @cwd is the
 * session's working directory, if it has one. */
JsonObject *
natter_send_options_to_turn_config (const NatterSendOptions *self,
                                    gboolean                 human_available,
                                    const char              *cwd)
{
  JsonObject *config = json_object_new ();

  json_object_set_boolean_member (config, "humanAvailable", human_available);
  if (cwd != NULL)
    json_object_set_string_member (config, "cwd", cwd);
  json_object_set_boolean_member (config, "autoPermission", self->auto_permission);
  if (self->max_model_calls > 0)
    json_object_set_int_member (config, "maxModelCalls", self->max_model_calls);
  /* Only what was set: the model's defaults stay the model's. */
  {
    JsonObject *parameters = natter_generation_parameters_to_json (self->parameters);

    if (json_object_get_size (parameters) > 0)
      json_object_set_object_member (config, "parameters", parameters);
    else
      json_object_unref (parameters);
  }
  return config;
}
