/* natter-turn-schema.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One validator per event type of docs/runtime.md §3. The validators check
 * shapes only (fields, types, enums, message and ref grammar); everything
 * that depends on earlier events is the reducer's job
 * (natter-turn-reducer.c).
 *
 * Decisions where the spec is loose, so that every reader agrees:
 *
 * - Unknown extra members are tolerated everywhere except in `usage`.
 * - `config.cwd`, when present, is a normalized absolute path
 * - `config.parameters`, when present, is an object: the generation
 *   parameters sent with every model call of the turn
 *   (natter_session_cwd_validate()). `config.messageParameters`, when
 *   present, is what natter_generation_parameters_to_object() makes.
 *   Additive fields then need no version bump, and the reducer only relies
 *   on the members checked here. `usage` is closed because the spec says
 *   "token counts only".
 * - `error` (model_call_failed, tool_permission_classification_failed,
 *   turn_failed) is a human-readable string.
 * - `sessionId` and every `previousTurnId` must match the strict id
 *   pattern, like the `turnId` of every line: ids are built into paths.
 * - `agent.requested` is any object (its shape belongs to the agent
 *   registry); `agent.resolved` must carry what a later advance needs to
 *   rebuild the call: `model {provider, model}`, `systemPrompt` and
 *   `tools`. Tool names are unique within a snapshot, since the name is
 *   what the model calls.
 * - A tool-call part's `arguments` is an object or a string: a string is
 *   the provider's raw text that did not parse as an object, kept so that
 *   an unusable call stays auditable (docs/runtime.md §8).
 * - `tool_invocation_requested.input` is an object (the parsed arguments).
 *   `request`, `progress` and `result.output` are any JSON value;
 *   `metadata` is an object when present.
 * - `model_step_event.event` is an object; its inner shape is the
 *   provider bridge's business and never drives the reducer. Natter
 *   writes none today; files from before kept a stopped stream's answer
 *   as `event: {type: "partial_response", model, message}`, which still
 *   reads (natter_turn_model_call_get_partial()).
 * - `model_call_failed.partial`, when present, is the assistant message
 *   streamed before the call stopped or broke: an added field of a known
 *   event, so readers that ignore unknown fields still read the turn.
 * - `agent.requested` is `{agentId, overrides?: {model?}}` as written
 *   today; files from before hold the override at `requested.model`.
 *   Neither is checked further (see below).
 * - `finishReason` is any string (providers disagree on the vocabulary).
 * - `model_call_completed.firstTokenTs` and `model_call_failed.firstTokenTs`,
 *   when present, are timestamps: when the call's first text or reasoning
 *   arrived. Added fields of known events, like `partial`; the speed of a
 *   call is read from them and the events' `ts`.
 * - `device`, on any event, is `{id, name}`: the device that runs the
 *   turn from that event on (docs/format.md §4.5). An added field too:
 *   readers that do not know it read the turn as before.
 */

#define G_LOG_DOMAIN "natter-turn-schema"

#include <string.h>

#include "natter-blob-store.h"
#include "natter-clock.h"
#include "natter-device.h"
#include "natter-generation-parameters.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-session-schema.h"
#include "natter-turn-schema.h"

typedef gboolean (*EventValidator) (JsonObject  *event,
                                    GError     **error);

static gboolean
optional_object (JsonObject  *object,
                 const char  *member,
                 JsonObject **out_value,
                 GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (out_value != NULL)
    *out_value = NULL;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “%s” must be an object when present", member);
      return FALSE;
    }
  if (out_value != NULL)
    *out_value = json_node_get_object (node);
  return TRUE;
}

static gboolean
require_any_object (JsonObject  *object,
                    const char  *member,
                    GError     **error)
{
  return natter_json_require_object (object, member, error) != NULL;
}

/* usage: token counts only, each optional (docs/runtime.md §3). */
static gboolean
validate_usage_object (JsonObject  *usage,
                       GError     **error)
{
  static const char * const fields[] = {
    "inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens", NULL
  };
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  json_object_iter_init (&iter, usage);
  while (json_object_iter_next (&iter, &name, &member))
    {
      if (!g_strv_contains (fields, name))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Field “usage” has the unknown member “%s”", name);
          return FALSE;
        }
      if (!natter_json_require_int_at_least (usage, name, 0, NULL, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
require_usage (JsonObject  *object,
               GError     **error)
{
  JsonObject *usage = natter_json_require_object (object, "usage", error);

  return usage != NULL && validate_usage_object (usage, error);
}

static gboolean
require_model_call_index (JsonObject  *event,
                          GError     **error)
{
  return natter_json_require_int_at_least (event, "modelCallIndex", 0, NULL, error);
}

/* Messages (docs/runtime.md §3) */

typedef enum
{
  ROLE_USER      = 1 << 0,
  ROLE_ASSISTANT = 1 << 1,
  ROLE_TOOL      = 1 << 2,
} Roles;

static gboolean
validate_content_parts (JsonArray   *parts,
                        Roles        role,
                        GError     **error)
{
  static const char * const user_parts[] = { "text", "attachment", NATTER_TURN_BLOB_PART_TYPE, NULL };
  static const char * const assistant_parts[] = { "text", "reasoning", "tool-call", NULL };
  guint n = json_array_get_length (parts);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      JsonObject *part;
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Content part %u is not an object", i);
          return FALSE;
        }
      part = json_node_get_object (node);
      type = natter_json_require_enum (part, "type",
                                       role == ROLE_USER ? user_parts : assistant_parts,
                                       error);
      if (type == NULL)
        goto fail;

      if (g_str_equal (type, "text") || g_str_equal (type, "reasoning"))
        {
          if (natter_json_require_string (part, "text", error) == NULL)
            goto fail;
        }
      else if (g_str_equal (type, NATTER_TURN_BLOB_PART_TYPE))
        {
          if (!natter_blob_part_validate (part, error))
            goto fail;
        }
      else if (g_str_equal (type, "attachment"))
        {
          JsonNode *size = json_object_get_member (part, "size");

          if (natter_json_require_string (part, "path", error) == NULL ||
              natter_json_require_string (part, "filename", error) == NULL ||
              natter_json_require_string (part, "mimeType", error) == NULL)
            goto fail;
          if (size != NULL && !natter_json_require_int_at_least (part, "size", 0, NULL, error))
            goto fail;
        }
      else /* tool-call */
        {
          JsonNode *arguments;

          if (!natter_json_require_nonempty_string (part, "toolCallId", error) ||
              !natter_json_require_nonempty_string (part, "toolName", error))
            goto fail;
          arguments = natter_json_require_member (part, "arguments", error);
          if (arguments == NULL)
            goto fail;
          if (!JSON_NODE_HOLDS_OBJECT (arguments) &&
              !(JSON_NODE_HOLDS_VALUE (arguments) &&
                json_node_get_value_type (arguments) == G_TYPE_STRING))
            {
              g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                                   "Field “arguments” must be an object or a string");
              goto fail;
            }
        }
      continue;

    fail:
      g_prefix_error (error, "Content part %u: ", i);
      return FALSE;
    }
  return TRUE;
}

static gboolean
validate_message (JsonNode    *node,
                  Roles        allowed,
                  GError     **error)
{
  static const char * const roles[] = { "user", "assistant", "tool", "system", NULL };
  JsonObject *message;
  const char *role;
  JsonNode *content;
  Roles which;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                           "A message must be an object");
      return FALSE;
    }
  message = json_node_get_object (node);
  role = natter_json_require_enum (message, "role", roles, error);
  if (role == NULL)
    return FALSE;

  if (g_str_equal (role, "user"))
    which = ROLE_USER;
  else if (g_str_equal (role, "assistant"))
    which = ROLE_ASSISTANT;
  else if (g_str_equal (role, "tool"))
    which = ROLE_TOOL;
  else
    which = 0;

  /* System prompts live only in the agent snapshot (docs/runtime.md §3,
   * §11). */
  if ((which & allowed) == 0)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "A “%s” message is not allowed here", role);
      return FALSE;
    }

  content = natter_json_require_member (message, "content", error);
  if (content == NULL)
    return FALSE;

  if (which == ROLE_TOOL)
    {
      if (!natter_json_require_nonempty_string (message, "toolCallId", error) ||
          !natter_json_require_nonempty_string (message, "toolName", error))
        return FALSE;
      if (natter_json_require_string (message, "content", error) == NULL)
        return FALSE;
      return TRUE;
    }

  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    return TRUE;
  if (JSON_NODE_HOLDS_ARRAY (content))
    return validate_content_parts (json_node_get_array (content), which, error);

  g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Field “content” must be a string or an array of parts");
  return FALSE;
}

static gboolean
require_message (JsonObject  *object,
                 const char  *member,
                 Roles        allowed,
                 GError     **error)
{
  JsonNode *node = natter_json_require_member (object, member, error);

  if (node == NULL)
    return FALSE;
  if (!validate_message (node, allowed, error))
    {
      g_prefix_error (error, "Field “%s”: ", member);
      return FALSE;
    }
  return TRUE;
}

/* turn_created (docs/runtime.md §1, §3, §11) */

static gboolean
validate_tool_descriptor (JsonObject  *tool,
                          GError     **error)
{
  static const char * const executions[] = { "sync", "async", NULL };

  return natter_json_require_nonempty_string (tool, "toolId", error) &&
         natter_json_require_nonempty_string (tool, "name", error) &&
         natter_json_require_string (tool, "description", error) != NULL &&
         require_any_object (tool, "inputSchema", error) &&
         natter_json_require_enum (tool, "execution", executions, error) != NULL &&
         natter_json_require_boolean (tool, "requiresHuman", NULL, error);
}

static gboolean
validate_resolved_agent (JsonObject  *resolved,
                         GError     **error)
{
  g_autoptr(GHashTable) names = NULL;
  JsonObject *model;
  JsonArray *tools;
  guint n;

  model = natter_json_require_object (resolved, "model", error);
  if (model == NULL)
    return FALSE;
  if (!natter_json_require_nonempty_string (model, "provider", error) ||
      !natter_json_require_nonempty_string (model, "model", error))
    {
      g_prefix_error (error, "Field “model”: ");
      return FALSE;
    }
  if (natter_json_require_string (resolved, "systemPrompt", error) == NULL)
    return FALSE;
  tools = natter_json_require_array (resolved, "tools", error);
  if (tools == NULL)
    return FALSE;

  names = g_hash_table_new (g_str_hash, g_str_equal);
  n = json_array_get_length (tools);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (tools, i);
      JsonObject *tool;
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Tool %u is not an object", i);
          return FALSE;
        }
      tool = json_node_get_object (node);
      if (!validate_tool_descriptor (tool, error))
        {
          g_prefix_error (error, "Tool %u: ", i);
          return FALSE;
        }
      name = json_object_get_string_member (tool, "name");
      if (!g_hash_table_add (names, (gpointer) name))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Tool %u repeats the tool name “%s”", i, name);
          return FALSE;
        }
    }
  return TRUE;
}

/* The `config` of `turn_created`. */
static gboolean
validate_config (JsonObject  *config,
                 GError     **error)
{
  if (!natter_json_require_boolean (config, "autoPermission", NULL, error) ||
      !natter_json_require_boolean (config, "humanAvailable", NULL, error) ||
      !natter_json_require_int_at_least (config, "maxModelCalls", 1, NULL, error))
    {
      g_prefix_error (error, "Field “config”: ");
      return FALSE;
    }
  if (json_object_has_member (config, "parameters") &&
      natter_json_require_object (config, "parameters", error) == NULL)
    {
      g_prefix_error (error, "Field “config”: ");
      return FALSE;
    }
  if (json_object_has_member (config, "messageParameters"))
    {
      JsonObject *own = natter_json_require_object (config, "messageParameters", error);
      g_autoptr(NatterGenerationParameters) parsed = own != NULL ? natter_generation_parameters_new_from_object (own, error)
                                                                 : NULL;

      if (parsed == NULL)
        {
          g_prefix_error (error, "Field “config.messageParameters”: ");
          return FALSE;
        }
    }
  /* Optional: the session's working directory for path-taking tools
   * (docs/runtime.md §8), held to the same rule as a session's cwd. */
  if (json_object_has_member (config, "cwd") &&
      (natter_json_require_string (config, "cwd", error) == NULL ||
       !natter_session_cwd_validate (json_object_get_string_member (config, "cwd"), error)))
    {
      g_prefix_error (error, "Field “config”: ");
      return FALSE;
    }
  return TRUE;
}

static gboolean
validate_turn_created (JsonObject  *event,
                       GError     **error)
{
  JsonNode *session_id;
  JsonNode *context;
  JsonObject *agent;
  JsonObject *resolved;
  JsonObject *config;

  /* schemaVersion was checked first by natter_turn_event_validate(). */

  session_id = natter_json_require_member (event, "sessionId", error);
  if (session_id == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_NULL (session_id) && natter_id_require_field (event, "sessionId", error) == NULL)
    return FALSE;

  agent = natter_json_require_object (event, "agent", error);
  if (agent == NULL)
    return FALSE;
  if (!require_any_object (agent, "requested", error))
    {
      g_prefix_error (error, "Field “agent”: ");
      return FALSE;
    }
  resolved = natter_json_require_object (agent, "resolved", error);
  if (resolved == NULL || !validate_resolved_agent (resolved, error))
    {
      g_prefix_error (error, "Field “agent”: ");
      return FALSE;
    }

  context = natter_json_require_member (event, "context", error);
  if (context == NULL)
    return FALSE;
  if (JSON_NODE_HOLDS_ARRAY (context))
    {
      JsonArray *messages = json_node_get_array (context);
      guint n = json_array_get_length (messages);

      for (guint i = 0; i < n; i++)
        if (!validate_message (json_array_get_element (messages, i),
                               ROLE_USER | ROLE_ASSISTANT | ROLE_TOOL, error))
          {
            g_prefix_error (error, "Field “context”, message %u: ", i);
            return FALSE;
          }
    }
  else if (JSON_NODE_HOLDS_OBJECT (context))
    {
      if (natter_id_require_field (json_node_get_object (context), "previousTurnId", error) == NULL)
        {
          g_prefix_error (error, "Field “context”: ");
          return FALSE;
        }
    }
  else
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                           "Field “context” must be an array of messages or {previousTurnId}");
      return FALSE;
    }

  if (!require_message (event, "input", ROLE_USER, error))
    return FALSE;

  config = natter_json_require_object (event, "config", error);
  return config != NULL && validate_config (config, error);
}

/* Model calls */

/**
 * natter_turn_is_request_ref:
 * @ref: (nullable): a candidate request message ref
 *
 * Whether @ref follows the ref grammar of docs/runtime.md §3: `context`,
 * `input`, `assistant:<N>` (N a decimal model call index without leading
 * zeros) or `toolResult:<toolCallId>` (a non-empty id).
 *
 * Returns: %TRUE if it does.
 */
gboolean
natter_turn_is_request_ref (const char *ref)
{
  if (ref == NULL)
    return FALSE;
  if (g_str_equal (ref, "context") || g_str_equal (ref, "input"))
    return TRUE;
  if (g_str_has_prefix (ref, "assistant:"))
    {
      const char *digits = ref + strlen ("assistant:");
      gsize n = strlen (digits);

      /* Ten digits at most keeps the index within a gint64 comfortably. */
      if (n == 0 || n > 10 || (digits[0] == '0' && n > 1))
        return FALSE;
      for (gsize i = 0; i < n; i++)
        if (!g_ascii_isdigit (digits[i]))
          return FALSE;
      return TRUE;
    }
  if (g_str_has_prefix (ref, "toolResult:"))
    return ref[strlen ("toolResult:")] != '\0';
  return FALSE;
}

static gboolean
validate_model_call_requested (JsonObject  *event,
                               GError     **error)
{
  JsonObject *request;
  JsonObject *context_ref;
  JsonArray *messages;
  guint n;

  if (!require_model_call_index (event, error))
    return FALSE;
  request = natter_json_require_object (event, "request", error);
  if (request == NULL)
    return FALSE;

  if (!optional_object (request, "contextRef", &context_ref, error) ||
      (context_ref != NULL && natter_id_require_field (context_ref, "previousTurnId", error) == NULL) ||
      !require_any_object (request, "parameters", error))
    goto fail;

  messages = natter_json_require_array (request, "messages", error);
  if (messages == NULL)
    goto fail;
  n = json_array_get_length (messages);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *ref = json_array_get_element (messages, i);

      if (!JSON_NODE_HOLDS_VALUE (ref) || json_node_get_value_type (ref) != G_TYPE_STRING ||
          !natter_turn_is_request_ref (json_node_get_string (ref)))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Message ref %u is not a valid ref", i);
          goto fail;
        }
    }
  return TRUE;

fail:
  g_prefix_error (error, "Field “request”: ");
  return FALSE;
}

static gboolean
validate_model_step_event (JsonObject  *event,
                           GError     **error)
{
  return require_model_call_index (event, error) &&
         require_any_object (event, "event", error);
}

/* `firstTokenTs`, when present: when the call's first text or reasoning
 * arrived, a timestamp like `ts` (an added field, no version bump). */
static gboolean
optional_first_token_ts (JsonObject  *event,
                         GError     **error)
{
  return !json_object_has_member (event, "firstTokenTs") ||
         natter_json_require_timestamp (event, "firstTokenTs", error) != NULL;
}

static gboolean
validate_model_call_completed (JsonObject  *event,
                               GError     **error)
{
  return require_model_call_index (event, error) &&
         require_message (event, "message", ROLE_ASSISTANT, error) &&
         natter_json_require_string (event, "finishReason", error) != NULL &&
         require_usage (event, error) &&
         optional_first_token_ts (event, error);
}

static gboolean
validate_model_call_failed (JsonObject  *event,
                            GError     **error)
{
  if (!require_model_call_index (event, error) ||
      natter_json_require_string (event, "error", error) == NULL)
    return FALSE;
  /* The answer streamed before the stop or failure, kept for the reader. */
  if (json_object_has_member (event, "partial") &&
      !require_message (event, "partial", ROLE_ASSISTANT, error))
    return FALSE;
  return optional_first_token_ts (event, error);
}

/* Permissions (docs/runtime.md §7) */

static gboolean
validate_tool_permission_required (JsonObject  *event,
                                   GError     **error)
{
  return natter_json_require_nonempty_string (event, "toolCallId", error) &&
         natter_json_require_nonempty_string (event, "toolName", error) &&
         natter_json_require_member (event, "request", error) != NULL &&
         natter_json_optional_string (event, "checkerError", NULL, error);
}

static gboolean
validate_tool_permission_classified (JsonObject  *event,
                                     GError     **error)
{
  static const char * const decisions[] = { "allow", "deny", "defer", NULL };

  return natter_json_require_nonempty_string (event, "toolCallId", error) &&
         natter_json_require_enum (event, "decision", decisions, error) != NULL &&
         natter_json_require_string (event, "reason", error) != NULL;
}

static gboolean
validate_tool_permission_classification_failed (JsonObject  *event,
                                                GError     **error)
{
  return natter_json_require_string_list (event, "toolCallIds", TRUE, error) != NULL &&
         natter_json_require_string (event, "error", error) != NULL;
}

static gboolean
validate_tool_permission_resolved (JsonObject  *event,
                                   GError     **error)
{
  static const char * const decisions[] = { "allow", "deny", NULL };
  static const char * const sources[] = { "classifier", "human", "human_unavailable", NULL };

  return natter_json_require_nonempty_string (event, "toolCallId", error) &&
         natter_json_require_enum (event, "decision", decisions, error) != NULL &&
         natter_json_require_enum (event, "source", sources, error) != NULL &&
         natter_json_optional_string (event, "reason", NULL, error) &&
         optional_object (event, "metadata", NULL, error);
}

/* Tools (docs/runtime.md §8) */

static gboolean
validate_tool_invocation_requested (JsonObject  *event,
                                    GError     **error)
{
  static const char * const executions[] = { "sync", "async", NULL };

  return natter_json_require_nonempty_string (event, "toolCallId", error) &&
         natter_json_require_nonempty_string (event, "toolId", error) &&
         natter_json_require_nonempty_string (event, "toolName", error) &&
         natter_json_require_enum (event, "execution", executions, error) != NULL &&
         require_any_object (event, "input", error);
}

static gboolean
validate_tool_progress (JsonObject  *event,
                        GError     **error)
{
  static const char * const sources[] = { "sync", "async", NULL };

  return natter_json_require_nonempty_string (event, "toolCallId", error) &&
         natter_json_require_enum (event, "source", sources, error) != NULL &&
         natter_json_require_member (event, "progress", error) != NULL;
}

static gboolean
validate_tool_result (JsonObject  *event,
                      GError     **error)
{
  static const char * const sources[] = { "sync", "async", "runtime", NULL };
  JsonObject *result;

  if (!natter_json_require_nonempty_string (event, "toolCallId", error) ||
      !natter_json_require_nonempty_string (event, "toolName", error) ||
      natter_json_require_enum (event, "source", sources, error) == NULL)
    return FALSE;
  result = natter_json_require_object (event, "result", error);
  if (result == NULL)
    return FALSE;
  if (natter_json_require_member (result, "output", error) == NULL ||
      !natter_json_require_boolean (result, "isError", NULL, error) ||
      !optional_object (result, "metadata", NULL, error))
    {
      g_prefix_error (error, "Field “result”: ");
      return FALSE;
    }
  return TRUE;
}

/* Suspension and terminal events */

static gboolean
validate_pending_list (JsonObject  *event,
                       const char  *member,
                       gboolean     async_tools,
                       GError     **error)
{
  JsonArray *list = natter_json_require_array (event, member, error);
  guint n;

  if (list == NULL)
    return FALSE;
  n = json_array_get_length (list);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (list, i);
      JsonObject *entry;
      gboolean ok;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Field “%s”: element %u is not an object", member, i);
          return FALSE;
        }
      entry = json_node_get_object (node);
      if (async_tools)
        ok = natter_json_require_nonempty_string (entry, "toolCallId", error) &&
             natter_json_require_nonempty_string (entry, "toolId", error) &&
             natter_json_require_nonempty_string (entry, "toolName", error) &&
             require_any_object (entry, "input", error);
      else
        ok = natter_json_require_nonempty_string (entry, "toolCallId", error) &&
             natter_json_require_nonempty_string (entry, "toolName", error) &&
             natter_json_require_member (entry, "request", error) != NULL;
      if (!ok)
        {
          g_prefix_error (error, "Field “%s”, element %u: ", member, i);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
validate_turn_suspended (JsonObject  *event,
                         GError     **error)
{
  return validate_pending_list (event, "pendingPermissions", FALSE, error) &&
         validate_pending_list (event, "pendingAsyncTools", TRUE, error) &&
         require_usage (event, error);
}

static gboolean
validate_turn_completed (JsonObject  *event,
                         GError     **error)
{
  return require_message (event, "output", ROLE_ASSISTANT, error) &&
         natter_json_require_string (event, "finishReason", error) != NULL &&
         require_usage (event, error);
}

static gboolean
validate_turn_failed (JsonObject  *event,
                      GError     **error)
{
  /* Only "model-call-limit" is defined, but the code is open-ended
   * (docs/runtime.md §3): an older reader must not call a newer failure
   * corrupt. */
  return natter_json_require_string (event, "error", error) != NULL &&
         natter_json_optional_string (event, "code", NULL, error) &&
         require_usage (event, error);
}

static gboolean
validate_turn_cancelled (JsonObject  *event,
                         GError     **error)
{
  return natter_json_optional_string (event, "reason", NULL, error) &&
         require_usage (event, error);
}

static const struct
{
  const char *type;
  EventValidator validate;
} validators[] = {
  { "turn_created", validate_turn_created },
  { "model_call_requested", validate_model_call_requested },
  { "model_step_event", validate_model_step_event },
  { "model_call_completed", validate_model_call_completed },
  { "model_call_failed", validate_model_call_failed },
  { "tool_permission_required", validate_tool_permission_required },
  { "tool_permission_classified", validate_tool_permission_classified },
  { "tool_permission_classification_failed", validate_tool_permission_classification_failed },
  { "tool_permission_resolved", validate_tool_permission_resolved },
  { "tool_invocation_requested", validate_tool_invocation_requested },
  { "tool_progress", validate_tool_progress },
  { "tool_result", validate_tool_result },
  { "turn_suspended", validate_turn_suspended },
  { "turn_completed", validate_turn_completed },
  { "turn_failed", validate_turn_failed },
  { "turn_cancelled", validate_turn_cancelled },
};

/**
 * natter_turn_event_validate:
 * @event: (transfer none): one parsed turn event
 * @turn_id: (nullable): the id of the turn the event must belong to, or
 *   %NULL to accept any well-formed id (the reducer compares ids itself)
 * @error: return location for a #GError
 *
 * Validates one durable turn event field by field against the table of
 * docs/runtime.md §3: the `type` is known, `turnId` is a well-formed id
 * (equal to @turn_id when given), `ts` is an ISO-8601 UTC timestamp, and
 * every field of that type has its type, enum values, message shape and
 * ref grammar. Checks that depend on other events belong to the reducer.
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR and
 *   %NATTER_STORE_ERROR_UNKNOWN_TYPE (unknown `type`),
 *   %NATTER_STORE_ERROR_UNSUPPORTED_VERSION (`turn_created` with an
 *   integer `schemaVersion` other than 1 or 2) or %NATTER_STORE_ERROR_SCHEMA
 *   (anything else, including a `turnId` other than @turn_id).
 */
gboolean
natter_turn_event_validate (JsonObject  *event,
                            const char  *turn_id,
                            GError     **error)
{
  const char *type;
  const char *event_turn_id;
  EventValidator validate = NULL;

  g_return_val_if_fail (event != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  type = natter_json_require_string (event, "type", error);
  if (type == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (validators); i++)
    if (g_str_equal (validators[i].type, type))
      validate = validators[i].validate;
  if (validate == NULL)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNKNOWN_TYPE,
                   "Unknown turn event type “%s”", type);
      return FALSE;
    }

  /* The version comes before every other field: a newer version may have
   * reshaped them, and must fail as a version, not as a schema error. */
  if (validate == validate_turn_created)
    {
      gint64 version;

      if (!natter_json_require_int (event, "schemaVersion", &version, error))
        return FALSE;
      if (version < NATTER_TURN_SCHEMA_VERSION || version > NATTER_TURN_SCHEMA_VERSION_MAX)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNSUPPORTED_VERSION,
                       "Unsupported turn schema version %" G_GINT64_FORMAT, version);
          return FALSE;
        }
    }

  if (natter_id_require_field (event, "turnId", error) == NULL)
    goto fail;
  event_turn_id = json_object_get_string_member (event, "turnId");
  if (turn_id != NULL && !g_str_equal (turn_id, event_turn_id))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "The event belongs to turn “%s”, not “%s”", event_turn_id, turn_id);
      goto fail;
    }
  if (natter_json_require_timestamp (event, "ts", error) == NULL)
    goto fail;
  /* Any event may say which device runs the turn from then on. */
  if (!natter_device_member_validate (event, error))
    goto fail;
  if (!validate (event, error) ||
      (validate == validate_turn_created && !natter_turn_created_check_blob_version (event, error)))
    goto fail;
  return TRUE;

fail:
  g_prefix_error (error, "Invalid %s event: ", type);
  return FALSE;
}

/**
 * natter_turn_assistant_message_validate:
 * @message: (transfer none): a JSON node
 * @error: return location for a #GError
 *
 * Checks that @message is an assistant message as docs/runtime.md §3
 * defines it (`{role: "assistant", content}` with a string content or
 * text, reasoning and tool-call parts). For readers of a message whose
 * event does not check its shape: the `message` of an older
 * `partial_response` step event.
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA
 */
gboolean
natter_turn_assistant_message_validate (JsonNode  *message,
                                        GError   **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return validate_message (message, ROLE_ASSISTANT, error);
}

/**
 * natter_turn_user_message_validate:
 * @message: (transfer none) (nullable): a candidate user message
 * @error: return location for a #GError
 *
 * Checks @message against the user message shape of docs/runtime.md §3
 * (that of `turn_created.input`), for a queued message of a session log.
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA
 */
gboolean
natter_turn_user_message_validate (JsonNode  *message,
                                   GError   **error)
{
  return validate_message (message, ROLE_USER, error);
}

/**
 * natter_turn_event_new:
 * @type: the event type, one of docs/runtime.md §3
 * @turn_id: the turn id
 * @ts: (nullable): the ISO-8601 UTC timestamp, or %NULL for the current
 *   system clock (callers with an injected #NatterClock pass
 *   natter_clock_format_ts())
 *
 * Builds the common head of a turn event, `{type, turnId, ts}`, so that
 * the caller only adds the fields of its type. No validation happens here.
 *
 * Returns: (transfer full): a new object node
 */
JsonNode *
natter_turn_event_new (const char *type,
                       const char *turn_id,
                       const char *ts)
{
  g_autoptr(JsonObject) object = NULL;
  JsonNode *node;

  g_return_val_if_fail (type != NULL, NULL);
  g_return_val_if_fail (turn_id != NULL, NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "type", type);
  json_object_set_string_member (object, "turnId", turn_id);
  if (ts != NULL)
    {
      json_object_set_string_member (object, "ts", ts);
    }
  else
    {
      g_autoptr(NatterClock) clock = natter_clock_get_system ();
      g_autofree char *stamp = natter_clock_format_ts (clock);

      json_object_set_string_member (object, "ts", stamp);
    }

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, object);
  return node;
}
