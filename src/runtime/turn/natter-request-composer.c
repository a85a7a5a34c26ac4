/* natter-request-composer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Requests store refs, not messages (docs/runtime.md §3): call 0 is
 * `["context"?, "input"]`, call N adds `["assistant:N-1", toolResult refs…]` to
 * what call N-1 sent, and a re-issue `[]` sends what the failed call sent. The
 * payload of call N is therefore the messages of call N-1 followed by its
 * own refs, resolved against the reduced state. Nothing here does I/O, so
 * an audit can rebuild the wire payload from the file and the
 * materialized context alone.
 */

#define G_LOG_DOMAIN "natter-request-composer"

#include <string.h>

#include "natter-json.h"
#include "natter-request-composer.h"
#include "natter-runtime-error.h"
#include "natter-tool.h"

static void
set_content (JsonObject *message,
             const char *text)
{
  gsize length = strlen (text);
  g_autofree char *cut = NULL;

  if (length <= NATTER_TOOL_OUTPUT_MAX_BYTES + NATTER_TOOL_OUTPUT_NOTE_MAX_BYTES)
    {
      json_object_set_string_member (message, "content", text);
      return;
    }
  cut = natter_tool_output_cut (text, length, NULL);
  json_object_set_string_member (message, "content", cut);
}

/**
 * natter_tool_result_to_message:
 * @tool_result_event: (transfer none): a `tool_result` event
 *
 * The `tool` message the model reads for a result: `{role: "tool",
 * toolCallId, toolName, content}`, where `content` is the output when it
 * is a string and its compact JSON otherwise, cut as
 * natter_tool_output_cut() says when it is longer than
 * %NATTER_TOOL_OUTPUT_MAX_BYTES and the room for a note: a tool that
 * cut its own result is not cut again, and a result stored whole (a turn
 * written before tool servers' results were cut) is sent cut.
 *
 * Part of docs/runtime.md §3 (the `toolResult:` refs) and docs/runtime.md §8.
 *
 * Returns: (transfer full): a message object node
 */
JsonNode *
natter_tool_result_to_message (JsonObject *tool_result_event)
{
  g_autoptr(JsonObject) message = json_object_new ();
  JsonObject *result;
  JsonNode *output;
  JsonNode *node;

  g_return_val_if_fail (tool_result_event != NULL, NULL);

  result = json_object_get_object_member (tool_result_event, "result");
  output = json_object_get_member (result, "output");
  json_object_set_string_member (message, "role", "tool");
  json_object_set_string_member (message, "toolCallId",
                                 json_object_get_string_member (tool_result_event, "toolCallId"));
  json_object_set_string_member (message, "toolName",
                                 json_object_get_string_member (tool_result_event, "toolName"));
  if (JSON_NODE_HOLDS_VALUE (output) && json_node_get_value_type (output) == G_TYPE_STRING)
    set_content (message, json_node_get_string (output));
  else
    {
      g_autofree char *text = natter_json_to_text (output, FALSE, NULL);

      set_content (message, text);
    }

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, message);
  return node;
}

static void
append_object_copy (JsonArray  *to,
                    JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, json_object_ref (object));
  json_array_add_element (to, json_node_copy (node));
  json_node_unref (node);
}

static gboolean
resolve_ref (NatterTurnState  *state,
             const char       *ref,
             JsonArray        *materialized_context,
             JsonArray        *messages,
             GError          **error)
{
  JsonObject *definition = natter_turn_state_get_definition (state);

  if (g_str_equal (ref, "context"))
    {
      natter_json_array_add_copies (messages, materialized_context);
      return TRUE;
    }
  if (g_str_equal (ref, "input"))
    {
      append_object_copy (messages, json_object_get_object_member (definition, "input"));
      return TRUE;
    }
  if (g_str_has_prefix (ref, "assistant:"))
    {
      guint64 index = g_ascii_strtoull (ref + strlen ("assistant:"), NULL, 10);
      NatterTurnModelCall *call = NULL;
      JsonObject *message = NULL;

      if (index < natter_turn_state_get_n_model_calls (state))
        call = natter_turn_state_get_model_call (state, (guint) index);
      if (call != NULL)
        message = natter_turn_model_call_get_message (call);
      if (message == NULL)
        {
          g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                       "Ref “%s” names no completed model call", ref);
          return FALSE;
        }
      append_object_copy (messages, message);
      return TRUE;
    }
  if (g_str_has_prefix (ref, "toolResult:"))
    {
      NatterTurnToolCall *call;
      JsonObject *result = NULL;

      call = natter_turn_state_lookup_tool_call (state, ref + strlen ("toolResult:"));
      if (call != NULL)
        result = natter_turn_tool_call_get_result_event (call);
      if (result == NULL)
        {
          g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                       "Ref “%s” names no tool result", ref);
          return FALSE;
        }
      json_array_add_element (messages, natter_tool_result_to_message (result));
      return TRUE;
    }

  g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
               "Unknown ref “%s”", ref);
  return FALSE;
}

/**
 * natter_compose_request:
 * @state: the reduced turn, holding `model_call_requested` of
 *   @model_call_index
 * @model_call_index: the model call to compose
 * @materialized_context: (transfer none) (nullable): the context messages:
 *   the inline context, or the closed transcript of the referenced turn
 *   (docs/runtime.md §11)
 * @error: return location for a #GError
 *
 * Composes the exact payload of one model call (docs/runtime.md §3): the
 * snapshot's system prompt and tools, the messages its refs (and those of
 * every earlier call) resolve to, and the request's parameters. Pure.
 *
 * Returns: (transfer full) (nullable): `{systemPrompt, messages, tools,
 *   parameters}`, or %NULL with %NATTER_RUNTIME_ERROR_INVALID_ARGUMENT when
 *   the call does not exist or a ref resolves to nothing
 */
JsonObject *
natter_compose_request (NatterTurnState  *state,
                        guint             model_call_index,
                        JsonArray        *materialized_context,
                        GError          **error)
{
  g_autoptr(JsonObject) payload = NULL;
  g_autoptr(JsonArray) messages = NULL;
  JsonObject *definition;
  JsonObject *resolved;
  JsonObject *request = NULL;
  JsonNode *tools;

  g_return_val_if_fail (state != NULL, NULL);

  definition = natter_turn_state_get_definition (state);
  if (definition == NULL || model_call_index >= natter_turn_state_get_n_model_calls (state))
    {
      g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                   "Model call %u was never requested", model_call_index);
      return NULL;
    }
  resolved = json_object_get_object_member (json_object_get_object_member (definition, "agent"),
                                            "resolved");

  messages = json_array_new ();
  for (guint i = 0; i <= model_call_index; i++)
    {
      NatterTurnModelCall *call = natter_turn_state_get_model_call (state, i);
      JsonArray *refs;

      request = natter_turn_model_call_get_request (call);
      refs = json_object_get_array_member (request, "messages");
      /* A referenced context has no ref of its own: it is the prefix of
       * call 0, named by contextRef. */
      if (i == 0 && json_object_has_member (request, "contextRef"))
        natter_json_array_add_copies (messages, materialized_context);
      for (guint j = 0; j < json_array_get_length (refs); j++)
        if (!resolve_ref (state, json_array_get_string_element (refs, j),
                          materialized_context, messages, error))
          return NULL;
    }

  payload = json_object_new ();
  json_object_set_string_member (payload, "systemPrompt",
                                 json_object_get_string_member (resolved, "systemPrompt"));
  json_object_set_array_member (payload, "messages", g_steal_pointer (&messages));
  tools = json_node_copy (json_object_get_member (resolved, "tools"));
  json_object_set_member (payload, "tools", tools);
  json_object_set_member (payload, "parameters",
                          json_node_copy (json_object_get_member (request, "parameters")));
  return g_steal_pointer (&payload);
}

/**
 * natter_build_closed_transcript:
 * @state: a reduced turn
 * @materialized_context: (transfer none) (nullable): the turn's own
 *   materialized context
 * @error: return location for a #GError
 *
 * The closed transcript of a turn (docs/runtime.md §11): its materialized
 * context, its input, then every assistant message it received, each
 * followed by the results of its tool calls in the model's order
 * (synthetic results of failed or cancelled work included). Failed model
 * calls left no message and add nothing. Pure.
 *
 * Returns: (transfer full) (nullable): the messages, or %NULL with
 *   %NATTER_RUNTIME_ERROR_CONTEXT when a tool call has no result (the turn
 *   is not closed)
 */
JsonArray *
natter_build_closed_transcript (NatterTurnState  *state,
                                JsonArray        *materialized_context,
                                GError          **error)
{
  g_autoptr(JsonArray) messages = json_array_new ();
  JsonObject *definition;

  g_return_val_if_fail (state != NULL, NULL);

  definition = natter_turn_state_get_definition (state);
  natter_json_array_add_copies (messages, materialized_context);
  append_object_copy (messages, json_object_get_object_member (definition, "input"));

  for (guint i = 0; i < natter_turn_state_get_n_model_calls (state); i++)
    {
      NatterTurnModelCall *call = natter_turn_state_get_model_call (state, i);
      JsonObject *message = natter_turn_model_call_get_message (call);

      if (message == NULL)
        continue;
      append_object_copy (messages, message);
      for (guint j = 0; j < natter_turn_model_call_get_n_tool_calls (call); j++)
        {
          NatterTurnToolCall *tool_call = natter_turn_model_call_get_tool_call (call, j);
          JsonObject *result = natter_turn_tool_call_get_result_event (tool_call);

          if (result == NULL)
            {
              g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT,
                           "Turn “%s” is not closed: tool call “%s” has no result",
                           natter_turn_state_get_turn_id (state),
                           natter_turn_tool_call_get_id (tool_call));
              return NULL;
            }
          json_array_add_element (messages, natter_tool_result_to_message (result));
        }
    }
  return g_steal_pointer (&messages);
}
