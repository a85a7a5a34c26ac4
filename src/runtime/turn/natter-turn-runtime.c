/* natter-turn-runtime.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The turn runtime's service object (docs/runtime.md §5): creates turns,
 * starts advances (natter-turn-loop.c holds the loop of
 * docs/runtime.md §6) and reads turns. Every dependency is injected at
 * construction.
 */

#define G_LOG_DOMAIN "natter-turn-runtime"

#include "natter-attachment-content.h"
#include "natter-json.h"
#include "natter-log-read.h"
#include "natter-session-schema.h"
#include "natter-turn-reducer.h"
#include "natter-turn-runtime-private.h"
#include "natter-turn-schema.h"

G_DEFINE_FINAL_TYPE (NatterTurnRuntime, natter_turn_runtime, G_TYPE_OBJECT)

static void
natter_turn_runtime_finalize (GObject *object)
{
  NatterTurnRuntime *self = NATTER_TURN_RUNTIME (object);

  g_clear_object (&self->repo);
  g_clear_object (&self->ids);
  g_clear_object (&self->clock);
  g_clear_object (&self->agents);
  g_clear_object (&self->models);
  g_clear_object (&self->tools);
  g_clear_object (&self->contexts);
  g_clear_object (&self->checker);
  g_clear_object (&self->grants);
  g_clear_object (&self->classifier);
  g_clear_object (&self->hub);
  g_clear_object (&self->blobs);
  g_clear_object (&self->keep);
  g_clear_object (&self->device);
  g_clear_pointer (&self->default_model, json_object_unref);

  G_OBJECT_CLASS (natter_turn_runtime_parent_class)->finalize (object);
}

static void
natter_turn_runtime_class_init (NatterTurnRuntimeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_turn_runtime_finalize;
}

static void
natter_turn_runtime_init (NatterTurnRuntime *self)
{
}

/**
 * natter_turn_runtime_get_tools:
 * @self: the runtime
 *
 * Returns: (transfer none): the live tools the runtime's turns may call
 */
NatterToolRegistry *
natter_turn_runtime_get_tools (NatterTurnRuntime *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (self), NULL);

  return self->tools;
}

/**
 * natter_turn_runtime_set_permission_grants:
 * @self: the runtime
 * @grants: (nullable): the session-keyed grants view, or %NULL for none
 *
 * Sets what the runtime consults when the permission checker requires a
 * decision for a call of a session's turn (docs/sessions.md §12):
 * a call covered by an active grant runs without asking, and its
 * `tool_invocation_requested` records the grant's id (`grantId`). Calls
 * of a tool that needs a human (`requiresHuman`, ask_human) are never
 * looked up.
 */
void
natter_turn_runtime_set_permission_grants (NatterTurnRuntime      *self,
                                           NatterPermissionGrants *grants)
{
  g_return_if_fail (NATTER_IS_TURN_RUNTIME (self));
  g_return_if_fail (grants == NULL || NATTER_IS_PERMISSION_GRANTS (grants));

  g_set_object (&self->grants, grants);
}

/**
 * natter_turn_runtime_new:
 * @turn_repo: the turn repository (natter_turn_repo_new())
 * @ids: the id generator shared with the session layer
 * @clock: the clock for event timestamps
 * @agents: resolves agent presets
 * @models: resolves `{provider, model}` to live models
 * @tools: the live tools
 * @contexts: materializes `{previousTurnId}` contexts
 * @checker: the permission checker
 * @classifier: (nullable): the permission classifier; without one an
 *   `autoPermission` turn records every classification as failed (defer)
 * @hub: the process-wide turn event bus
 * @default_model: (nullable): the application default `{provider, model}`
 * @max_model_calls: the default `maxModelCalls`; 0 for
 *   %NATTER_DEFAULT_MAX_MODEL_CALLS
 *
 * The service of docs/runtime.md §5, with every dependency injected.
 *
 * Returns: (transfer full): a runtime holding references to all of them
 */
NatterTurnRuntime *
natter_turn_runtime_new (NatterJsonlRepo            *turn_repo,
                         NatterIdGenerator          *ids,
                         NatterClock                *clock,
                         NatterAgentResolver        *agents,
                         NatterModelRegistry        *models,
                         NatterToolRegistry         *tools,
                         NatterContextResolver      *contexts,
                         NatterPermissionChecker    *checker,
                         NatterPermissionClassifier *classifier,
                         NatterTurnEventHub         *hub,
                         JsonObject                 *default_model,
                         guint                       max_model_calls)
{
  NatterTurnRuntime *self;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (turn_repo), NULL);
  g_return_val_if_fail (NATTER_IS_ID_GENERATOR (ids), NULL);
  g_return_val_if_fail (NATTER_IS_CLOCK (clock), NULL);
  g_return_val_if_fail (NATTER_IS_AGENT_RESOLVER (agents), NULL);
  g_return_val_if_fail (NATTER_IS_MODEL_REGISTRY (models), NULL);
  g_return_val_if_fail (NATTER_IS_TOOL_REGISTRY (tools), NULL);
  g_return_val_if_fail (NATTER_IS_CONTEXT_RESOLVER (contexts), NULL);
  g_return_val_if_fail (NATTER_IS_PERMISSION_CHECKER (checker), NULL);
  g_return_val_if_fail (classifier == NULL || NATTER_IS_PERMISSION_CLASSIFIER (classifier), NULL);
  g_return_val_if_fail (NATTER_IS_TURN_EVENT_HUB (hub), NULL);

  self = g_object_new (NATTER_TYPE_TURN_RUNTIME, NULL);
  self->repo = g_object_ref (turn_repo);
  self->ids = g_object_ref (ids);
  self->clock = g_object_ref (clock);
  self->agents = g_object_ref (agents);
  self->models = g_object_ref (models);
  self->tools = g_object_ref (tools);
  self->contexts = g_object_ref (contexts);
  self->checker = g_object_ref (checker);
  self->classifier = classifier != NULL ? g_object_ref (classifier) : NULL;
  self->hub = g_object_ref (hub);
  self->default_model = default_model != NULL ? json_object_ref (default_model) : NULL;
  self->max_model_calls = max_model_calls > 0 ? max_model_calls : NATTER_DEFAULT_MAX_MODEL_CALLS;
  return self;
}

/**
 * natter_turn_runtime_set_blob_store:
 * @self: a #NatterTurnRuntime
 * @blobs: (nullable): the store of attachments
 *
 * Where the attachments that turns reference are stored
 * (docs/format.md §1). Without one, a turn with an attachment cannot be
 * created or advanced (%NATTER_RUNTIME_ERROR_INVALID_ARGUMENT).
 */
void
natter_turn_runtime_set_blob_store (NatterTurnRuntime *self,
                                    NatterBlobStore   *blobs)
{
  g_return_if_fail (NATTER_IS_TURN_RUNTIME (self));
  g_return_if_fail (blobs == NULL || NATTER_IS_BLOB_STORE (blobs));

  g_set_object (&self->blobs, blobs);
}

/**
 * natter_turn_runtime_get_blob_store:
 * @self: a #NatterTurnRuntime
 *
 * Returns: (transfer none) (nullable): the store of attachments
 *   (natter_turn_runtime_set_blob_store())
 */
NatterBlobStore *
natter_turn_runtime_get_blob_store (NatterTurnRuntime *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (self), NULL);
  return self->blobs;
}

/**
 * natter_turn_runtime_set_stream_keep:
 * @self: a #NatterTurnRuntime
 * @keep: (nullable): where the words of a streaming answer are kept
 *
 * Keeps the words of every answer while it streams, at most half a
 * second behind, and gives them to the recovery of a call a killed
 * process left open (docs/format.md §11, docs/runtime.md §10). Without
 * one, such a call's words are lost with the process.
 */
void
natter_turn_runtime_set_stream_keep (NatterTurnRuntime *self,
                                     NatterStreamKeep  *keep)
{
  g_return_if_fail (NATTER_IS_TURN_RUNTIME (self));
  g_return_if_fail (keep == NULL || NATTER_IS_STREAM_KEEP (keep));

  g_set_object (&self->keep, keep);
}

/**
 * natter_turn_runtime_get_stream_keep:
 * @self: a #NatterTurnRuntime
 *
 * Returns: (transfer none) (nullable): where streaming words are kept
 *   (natter_turn_runtime_set_stream_keep())
 */
NatterStreamKeep *
natter_turn_runtime_get_stream_keep (NatterTurnRuntime *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (self), NULL);
  return self->keep;
}

/**
 * natter_turn_runtime_set_device:
 * @self: a #NatterTurnRuntime
 * @device: (nullable): the device this process runs on
 *
 * Which device this is (docs/format.md §4.5). Every turn created from
 * then on records it, and a turn another device runs is never advanced
 * here, unless taken over (natter_turn_runtime_take_over_turn()).
 * Without one, every turn counts as this device's.
 */
void
natter_turn_runtime_set_device (NatterTurnRuntime *self,
                                NatterDevice      *device)
{
  g_return_if_fail (NATTER_IS_TURN_RUNTIME (self));
  g_return_if_fail (device == NULL || NATTER_IS_DEVICE (device));

  g_set_object (&self->device, device);
}

/**
 * natter_turn_runtime_get_device:
 * @self: a #NatterTurnRuntime
 *
 * Returns: (transfer none) (nullable): this device
 *   (natter_turn_runtime_set_device())
 */
NatterDevice *
natter_turn_runtime_get_device (NatterTurnRuntime *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (self), NULL);
  return self->device;
}

static JsonNode *
object_node (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return node;
}

/* The per-turn model override of a requested agent: `overrides.model`, or
 * the older `model` that callers (and files) may still use. */
static JsonObject *
requested_model_override (JsonObject *requested_agent)
{
  JsonObject *overrides = natter_json_loose_object (requested_agent, "overrides");
  JsonObject *model = natter_json_loose_object (overrides, "model");

  return model != NULL ? model : natter_json_loose_object (requested_agent, "model");
}

/* Reads `overrides.tools` of @requested_agent into @no_tools: an empty
 * list asks for no tools, for a turn that wants only text (a summary, a
 * title) and whose model must not answer with a tool call. Only the empty
 * list is taken, since the runtime never offers a tool the agent does not
 * have: anything else fails with NATTER_RUNTIME_ERROR_INVALID_ARGUMENT. */
static gboolean
read_tools_override (JsonObject  *requested_agent,
                     gboolean    *no_tools,
                     GError     **error)
{
  JsonObject *overrides = natter_json_loose_object (requested_agent, "overrides");
  JsonNode *tools = overrides != NULL ? json_object_get_member (overrides, "tools") : NULL;

  *no_tools = tools != NULL;
  if (tools != NULL &&
      (!JSON_NODE_HOLDS_ARRAY (tools) || json_array_get_length (json_node_get_array (tools)) > 0))
    {
      g_set_error_literal (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                           "agent.overrides.tools can only be an empty list");
      return FALSE;
    }
  return TRUE;
}

/* Sets `tools` of @resolved: the agent's, or none when asked. */
static gboolean
resolve_tools (JsonObject  *resolved,
               JsonObject  *agent,
               JsonObject  *requested_agent,
               GError     **error)
{
  gboolean no_tools;

  if (!read_tools_override (requested_agent, &no_tools, error))
    return FALSE;
  if (!no_tools && json_object_has_member (agent, "tools"))
    json_object_set_member (resolved, "tools", json_node_copy (json_object_get_member (agent, "tools")));
  else
    json_object_set_array_member (resolved, "tools", json_array_new ());
  return TRUE;
}

/* The system prompt the turn runs with: the agent's own, then an
 * instruction the person added for the conversation or the message
 * (`overrides.systemInstruction`), after a blank line. The snapshot holds
 * the whole prompt, so every reader rebuilds the request the model got,
 * while `agent.requested` still says what was added (docs/format.md
 * §4.2). Anything but a non-empty string there is a caller error. */
static char *
dup_system_prompt (JsonObject  *agent,
                   JsonObject  *requested_agent,
                   GError     **error)
{
  const char *own = json_object_get_string_member_with_default (agent, "systemPrompt", "");
  JsonObject *overrides = natter_json_loose_object (requested_agent, "overrides");
  JsonNode *added = overrides != NULL ? json_object_get_member (overrides, "systemInstruction") : NULL;
  const char *instruction;

  if (added == NULL)
    return g_strdup (own);
  if (!JSON_NODE_HOLDS_VALUE (added) || json_node_get_value_type (added) != G_TYPE_STRING ||
      json_node_get_string (added)[0] == '\0')
    {
      g_set_error_literal (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                           "agent.overrides.systemInstruction must be a non-empty string");
      return NULL;
    }
  instruction = json_node_get_string (added);
  if (own[0] == '\0')
    return g_strdup (instruction);
  return g_strconcat (own, "\n\n", instruction, NULL);
}

/* Sets the snapshot's `systemPrompt` (dup_system_prompt()). */
static gboolean
resolve_system_prompt (JsonObject  *resolved,
                       JsonObject  *agent,
                       JsonObject  *requested_agent,
                       GError     **error)
{
  g_autofree char *system_prompt = dup_system_prompt (agent, requested_agent, error);

  if (system_prompt == NULL)
    return FALSE;
  json_object_set_string_member (resolved, "systemPrompt", system_prompt);
  return TRUE;
}

/* The request as the file keeps it: the override at `overrides.model`,
 * where the reference format has it, never at the top level. */
static JsonObject *
requested_for_file (JsonObject *requested_agent,
                    JsonObject *override)
{
  JsonObject *written = json_object_new ();
  JsonObject *given = natter_json_loose_object (requested_agent, "overrides");
  JsonObject *overrides;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  json_object_iter_init (&iter, requested_agent);
  while (json_object_iter_next (&iter, &name, &member))
    if (!g_str_equal (name, "model") && !(g_str_equal (name, "overrides") && given != NULL))
      json_object_set_member (written, name, json_node_copy (member));
  if (override == NULL && given == NULL)
    return written;

  /* A new object: a copied node would share the caller's. */
  overrides = json_object_new ();
  if (given != NULL)
    {
      json_object_iter_init (&iter, given);
      while (json_object_iter_next (&iter, &name, &member))
        json_object_set_member (overrides, name, json_node_copy (member));
    }
  if (override != NULL)
    json_object_set_object_member (overrides, "model", json_object_ref (override));
  json_object_set_object_member (written, "overrides", overrides);
  return written;
}

/* Where a turn created here runs, for the devices the store is shared
 * with (docs/format.md §4.5). */
static void
stamp_device (NatterTurnRuntime *self,
              JsonObject        *created)
{
  if (self->device != NULL)
    json_object_set_object_member (created, NATTER_DEVICE_MEMBER, natter_device_to_member (self->device));
}

/* Copies the optional object member @name of the caller's @config to the
 * turn's @full_config. */
static gboolean
copy_object_member (JsonObject  *config,
                    JsonObject  *full_config,
                    const char  *name,
                    GError     **error)
{
  JsonNode *node = json_object_get_member (config, name);

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT, "config.%s must be an object",
                   name);
      return FALSE;
    }
  json_object_set_member (full_config, name, json_node_copy (node));
  return TRUE;
}

/* Resolves the agent and builds turn_created; nothing touches the disk. */
static JsonNode *
build_turn_created (NatterTurnRuntime  *self,
                    const char         *turn_id,
                    JsonObject         *requested_agent,
                    const char         *session_id,
                    JsonNode           *context,
                    JsonObject         *input,
                    JsonObject         *config,
                    GError            **error)
{
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(JsonObject) resolved = json_object_new ();
  g_autoptr(JsonObject) agent_pair = json_object_new ();
  g_autoptr(JsonObject) full_config = json_object_new ();
  g_autoptr(NatterTurnState) state = natter_turn_state_new ();
  g_autofree char *ts = natter_clock_format_ts (self->clock);
  JsonObject *model = NULL;
  JsonObject *override;
  JsonNode *event;
  JsonObject *object;

  agent = natter_agent_resolver_resolve (self->agents, requested_agent, error);
  if (agent == NULL)
    return NULL;

  /* Model precedence (docs/runtime.md §1): per-turn override > agent's model >
   * default. */
  override = requested_model_override (requested_agent);
  if (override != NULL)
    model = override;
  else if (json_object_has_member (agent, "model") &&
           JSON_NODE_HOLDS_OBJECT (json_object_get_member (agent, "model")))
    model = json_object_get_object_member (agent, "model");
  else
    model = self->default_model;
  if (model == NULL)
    {
      g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT,
                   "Agent “%s” has no model and there is no default model",
                   json_object_get_string_member_with_default (requested_agent, "agentId", ""));
      return NULL;
    }
  /* A turn no provider serves (one deleted) could never make a call. */
  if (!natter_model_registry_check (self->models, model, error))
    return NULL;

  json_object_set_string_member (resolved, "agentId",
                                 json_object_get_string_member_with_default (agent, "agentId",
                                   json_object_get_string_member_with_default (requested_agent,
                                                                               "agentId", "")));
  json_object_set_member (resolved, "model", object_node (model));
  if (!resolve_system_prompt (resolved, agent, requested_agent, error) ||
      !resolve_tools (resolved, agent, requested_agent, error))
    return NULL;

  json_object_set_object_member (agent_pair, "requested",
                                 requested_for_file (requested_agent, override));
  json_object_set_object_member (agent_pair, "resolved", g_steal_pointer (&resolved));

  /* autoPermission defaults to false, maxModelCalls to the setting;
   * humanAvailable is required (docs/runtime.md §5). */
  if (config == NULL || !json_object_has_member (config, "humanAvailable"))
    {
      g_set_error_literal (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                           "config.humanAvailable is required");
      return NULL;
    }
  json_object_set_boolean_member (full_config, "autoPermission",
                                  json_object_get_boolean_member_with_default (config, "autoPermission", FALSE));
  json_object_set_member (full_config, "humanAvailable",
                          json_node_copy (json_object_get_member (config, "humanAvailable")));
  /* The session's working directory, for tools that take paths
   * (docs/runtime.md §8). */
  if (json_object_has_member (config, "cwd"))
    {
      JsonNode *cwd = json_object_get_member (config, "cwd");

      if (!JSON_NODE_HOLDS_VALUE (cwd) || json_node_get_value_type (cwd) != G_TYPE_STRING ||
          !natter_session_cwd_validate (json_node_get_string (cwd), NULL))
        {
          g_set_error_literal (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                               "config.cwd must be an absolute path");
          return NULL;
        }
      json_object_set_string_member (full_config, "cwd", json_node_get_string (cwd));
    }
  /* The request parameters, and which of them the message had of its
   * own, kept for sending it again: the model calls read only
   * `parameters`. */
  if (!copy_object_member (config, full_config, "parameters", error) ||
      !copy_object_member (config, full_config, "messageParameters", error))
    return NULL;
  json_object_set_member (full_config, "maxModelCalls",
                          json_object_has_member (config, "maxModelCalls")
                          ? json_node_copy (json_object_get_member (config, "maxModelCalls"))
                          : json_node_init_int (json_node_alloc (), self->max_model_calls));

  event = natter_turn_event_new ("turn_created", turn_id, ts);
  object = json_node_get_object (event);
  /* Version 2 only when attachments make it necessary: every other turn
   * stays readable by readers of version 1 (docs/format.md §6). */
  json_object_set_int_member (object, "schemaVersion",
                              natter_attachments_in_turn (input, context)
                              ? NATTER_TURN_SCHEMA_VERSION_MAX : NATTER_TURN_SCHEMA_VERSION);
  if (session_id != NULL)
    json_object_set_string_member (object, "sessionId", session_id);
  else
    json_object_set_null_member (object, "sessionId");
  json_object_set_object_member (object, "agent", g_steal_pointer (&agent_pair));
  if (context != NULL)
    json_object_set_member (object, "context", json_node_copy (context));
  else
    json_object_set_array_member (object, "context", json_array_new ());
  json_object_set_member (object, "input", object_node (input));
  json_object_set_object_member (object, "config", g_steal_pointer (&full_config));
  stamp_device (self, object);

  /* The reducer checks the whole definition before anything is created. */
  if (!natter_turn_state_apply (state, object, error))
    {
      json_node_unref (event);
      return NULL;
    }
  return event;
}

static void
create_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_jsonl_repo_create_finish (NATTER_JSONL_REPO (object), result, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task,
                           natter_turn_created_new_from_event (json_node_get_object (g_task_get_task_data (task))),
                           (GDestroyNotify) natter_turn_created_unref);
}

/**
 * natter_turn_runtime_create_turn_async:
 * @self: a #NatterTurnRuntime
 * @requested_agent: (transfer none): `{agentId, overrides?: {model?,
 *   tools?, systemInstruction?}}`; the model override `{provider, model}`
 *   is also taken at `model` (the older shape) and is written at
 *   `agent.requested.overrides.model`; `systemInstruction` (a non-empty
 *   string) is added to the agent's system prompt in the snapshot, after
 *   a blank line (docs/format.md §4.2)
 * @session_id: (nullable): the session, or %NULL for a standalone turn
 * @context: (transfer none) (nullable): `[]`/inline messages or
 *   `{previousTurnId}`; %NULL is `[]`
 * @input: (transfer none): the user message
 * @config: (transfer none): `{humanAvailable, autoPermission?, maxModelCalls?,
 *   cwd?, parameters?}`; `cwd` is the session's absolute working directory,
 *   stored in the turn so tools resolve relative paths against it
 *   (docs/runtime.md §8); `parameters` are the generation parameters
 *   (`temperature`, `top_p`, `max_tokens`, …) every model call of the turn
 *   sends (docs/runtime.md §3, §12)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * create_turn of docs/runtime.md §5: resolves the agent into the
 * immutable snapshot, checks that its model resolves in the model
 * registry (a provider that is configured, or an endpoint URL), and
 * writes `turn_created`. On any failure no file is created.
 */
void
natter_turn_runtime_create_turn_async (NatterTurnRuntime   *self,
                                       JsonObject          *requested_agent,
                                       const char          *session_id,
                                       JsonNode            *context,
                                       JsonObject          *input,
                                       JsonObject          *config,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonNode) event = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;

  g_return_if_fail (NATTER_IS_TURN_RUNTIME (self));
  g_return_if_fail (requested_agent != NULL);
  g_return_if_fail (input != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_turn_runtime_create_turn_async);

  /* A turn never references a blob that is not on disk (the ordering
   * rule of docs/sessions.md §7 applied to attachments). */
  if (!natter_attachments_check_stored (self->blobs, input, context, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  turn_id = natter_id_generator_next (self->ids);
  event = build_turn_created (self, turn_id, requested_agent, session_id, context, input,
                              config, &error);
  if (event == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_set_task_data (task, json_node_ref (event), (GDestroyNotify) json_node_unref);
  natter_jsonl_repo_create_async (self->repo, turn_id, event, cancellable, create_cb,
                                  g_object_ref (task));
}

/**
 * natter_turn_runtime_create_turn_finish:
 * @self: a #NatterTurnRuntime
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Part of docs/runtime.md §5.
 *
 * Returns: (transfer full) (nullable): what was written — the new turn's
 *   id and the agent and model it resolved — or %NULL with
 *   %NATTER_RUNTIME_ERROR_AGENT, %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND (no
 *   provider serves the model, e.g. an unknown provider id: the message
 *   names it), %NATTER_RUNTIME_ERROR_INVALID_ARGUMENT, a
 *   %NATTER_STORE_ERROR (an invalid definition, or the repo's error)
 */
NatterTurnCreated *
natter_turn_runtime_create_turn_finish (NatterTurnRuntime  *self,
                                        GAsyncResult       *result,
                                        GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_turn_runtime_advance_turn:
 * @self: a #NatterTurnRuntime
 * @turn_id: the turn
 * @input: (transfer none) (nullable): one external input
 *   (`{type: "permission_decision"|"async_tool_progress"|"async_tool_result"|"cancel", …}`)
 *   or %NULL to advance/recover
 * @cancellable: (nullable): cancels the turn (not just the wait)
 *
 * advance_turn of docs/runtime.md §5, §6. Returns at once; the work has
 * started and runs whether or not anyone connects to the execution.
 *
 * Returns: (transfer full): the hot execution
 */
NatterTurnExecution *
natter_turn_runtime_advance_turn (NatterTurnRuntime *self,
                                  const char        *turn_id,
                                  JsonObject        *input,
                                  GCancellable      *cancellable)
{
  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (self), NULL);
  g_return_val_if_fail (turn_id != NULL, NULL);

  return _natter_turn_execution_start (self, turn_id, input, FALSE, cancellable);
}

/**
 * natter_turn_runtime_take_over_turn:
 * @self: a #NatterTurnRuntime
 * @turn_id: the turn
 * @cancellable: (nullable): cancels the turn (not just the wait)
 *
 * Resumes a turn that another device runs, on this one
 * (docs/format.md §4.5): the advance natter_turn_runtime_advance_turn()
 * makes without input, except that a turn recording another device is
 * not refused: its first event records this device, from which on the
 * turn runs here and the other device no longer advances it. Only ever
 * an explicit, confirmed request of the person: were the other device
 * still running the turn, both would write its file. A turn that is
 * this device's already is simply resumed.
 *
 * Returns: (transfer full): the hot execution
 */
NatterTurnExecution *
natter_turn_runtime_take_over_turn (NatterTurnRuntime *self,
                                    const char        *turn_id,
                                    GCancellable      *cancellable)
{
  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (self), NULL);
  g_return_val_if_fail (turn_id != NULL, NULL);

  return _natter_turn_execution_start (self, turn_id, NULL, TRUE, cancellable);
}

static void
get_turn_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  GError *error = NULL;

  state = natter_turn_reduce_file_finish (NATTER_JSONL_REPO (object), result, &events, &error);
  if (state == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_steal_pointer (&events), (GDestroyNotify) g_ptr_array_unref);
}

/**
 * natter_turn_runtime_get_turn_async:
 * @self: a #NatterTurnRuntime
 * @turn_id: the turn
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * get_turn of docs/runtime.md §5: reads and validates the turn (schema
 * and reducer). Strictly read-only: takes no lock, writes nothing.
 */
void
natter_turn_runtime_get_turn_async (NatterTurnRuntime   *self,
                                    const char          *turn_id,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_TURN_RUNTIME (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_turn_runtime_get_turn_async);
  natter_turn_reduce_file_async (self->repo, turn_id, cancellable, get_turn_cb, task);
}

/**
 * natter_turn_runtime_get_turn_finish:
 * @self: a #NatterTurnRuntime
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Part of docs/runtime.md §5.
 *
 * Returns: (transfer full) (element-type JsonNode) (nullable): the events,
 *   or %NULL with a %NATTER_STORE_ERROR (NOT_FOUND, CORRUPT, INVARIANT, …)
 */
GPtrArray *
natter_turn_runtime_get_turn_finish (NatterTurnRuntime  *self,
                                     GAsyncResult       *result,
                                     GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
get_turn_state_thread (GTask        *task,
                       gpointer      source_object,
                       gpointer      task_data,
                       GCancellable *cancellable)
{
  NatterTurnRuntime *self = source_object;
  NatterTurnState *state;
  GError *error = NULL;

  state = natter_turn_reduce_file_sync (self->repo, task_data, NULL, cancellable, &error);
  if (state == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, state, (GDestroyNotify) natter_turn_state_unref);
}

/**
 * natter_turn_runtime_get_turn_state_async:
 * @self: a #NatterTurnRuntime
 * @turn_id: the turn
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Like natter_turn_runtime_get_turn_async(), but hands back the reduced
 * state: the file is read and reduced in a worker thread, so a caller
 * that wants a turn's status or terminal event never reduces a long turn
 * on the main context. Strictly read-only.
 */
void
natter_turn_runtime_get_turn_state_async (NatterTurnRuntime   *self,
                                          const char          *turn_id,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NATTER_IS_TURN_RUNTIME (self));
  g_return_if_fail (turn_id != NULL);

  self->n_state_reads++;
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_turn_runtime_get_turn_state_async);
  g_task_set_task_data (task, g_strdup (turn_id), g_free);
  g_task_run_in_thread (task, get_turn_state_thread);
}

/**
 * natter_turn_runtime_get_turn_state_finish:
 * @self: a #NatterTurnRuntime
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Part of docs/runtime.md §5.
 *
 * Returns: (transfer full) (nullable): the reduced turn, or %NULL with a
 *   %NATTER_STORE_ERROR (NOT_FOUND, CORRUPT, INVARIANT, …) or
 *   %G_IO_ERROR_CANCELLED
 */
NatterTurnState *
natter_turn_runtime_get_turn_state_finish (NatterTurnRuntime  *self,
                                           GAsyncResult       *result,
                                           GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_turn_runtime_get_turn_state_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_turn_runtime_check_model:
 * @self: a #NatterTurnRuntime
 * @state: a turn, as reduced from its file
 * @error: return location for a #GError
 *
 * Whether a provider still serves the model @state was created with
 * (natter_model_registry_check(): no key is looked up). An advance of a
 * turn whose provider is gone fails before writing anything
 * (docs/runtime.md §5), so whoever starts one on a person's behalf (a
 * resume) asks first, and can say why instead of starting nothing.
 *
 * Returns: %TRUE if the model may be resolved, or %FALSE with
 *   %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND naming the provider
 */
gboolean
natter_turn_runtime_check_model (NatterTurnRuntime  *self,
                                 NatterTurnState    *state,
                                 GError            **error)
{
  JsonObject *resolved;
  JsonObject *model;

  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (self), FALSE);
  g_return_val_if_fail (state != NULL, FALSE);

  resolved = natter_json_loose_object (natter_json_loose_object (natter_turn_state_get_definition (state), "agent"),
                                       "resolved");
  model = natter_json_loose_object (resolved, "model");
  if (model == NULL)
    return TRUE;
  return natter_model_registry_check (self->models, model, error);
}

/**
 * natter_turn_runtime_get_context_resolver:
 * @self: a #NatterTurnRuntime
 *
 * The resolver that materializes `{previousTurnId}` contexts
 * (docs/runtime.md §11), for callers that need a conversation's history
 * as messages (the summarizer of docs/sessions.md §5).
 *
 * Returns: (transfer none): the runtime's context resolver
 */
NatterContextResolver *
natter_turn_runtime_get_context_resolver (NatterTurnRuntime *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (self), NULL);

  return self->contexts;
}

/**
 * natter_turn_runtime_get_n_state_reads: (skip)
 * @self: a #NatterTurnRuntime
 *
 * A benchmark seam: how many turn files natter_turn_runtime_get_turn_state_async()
 * was asked to read (the session layer's reads of turns it does not run).
 *
 * Returns: the number of calls so far
 */
guint
natter_turn_runtime_get_n_state_reads (NatterTurnRuntime *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (self), 0);

  return self->n_state_reads;
}
