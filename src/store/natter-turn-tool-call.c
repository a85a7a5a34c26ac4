/* natter-turn-tool-call.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * #NatterTurnToolCall: one tool call of a reduced turn, a borrowed view
 * owned by its #NatterTurnState, and its accessors.
 */

#define G_LOG_DOMAIN "natter-turn-reducer"

#include "natter-turn-reducer-private.h"

/* Called by the state's array of tool calls. */
void
natter_turn_tool_call_free (NatterTurnToolCall *call)
{
  g_clear_pointer (&call->part, json_object_unref);
  g_clear_pointer (&call->required, json_object_unref);
  g_clear_pointer (&call->classified, json_object_unref);
  g_clear_pointer (&call->classification_failed, json_object_unref);
  g_clear_pointer (&call->resolved, json_object_unref);
  g_clear_pointer (&call->invocation, json_object_unref);
  g_clear_pointer (&call->progress, g_ptr_array_unref);
  g_clear_pointer (&call->result, json_object_unref);
  g_free (call);
}

/**
 * natter_turn_tool_call_get_model_call_index:
 * @call: a tool call
 *
 * Returns: the index of the model call whose response made it
 */
guint
natter_turn_tool_call_get_model_call_index (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, 0);

  return call->model_call_index;
}

/**
 * natter_turn_tool_call_get_order:
 * @call: a tool call
 *
 * Returns: its position among the tool calls of its response (the order
 *   results go back to the model in)
 */
guint
natter_turn_tool_call_get_order (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, 0);

  return call->order;
}

/**
 * natter_turn_tool_call_get_id:
 * @call: a tool call
 *
 * Returns: (transfer none): its `toolCallId`
 */
const char *
natter_turn_tool_call_get_id (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->id;
}

/**
 * natter_turn_tool_call_get_name:
 * @call: a tool call
 *
 * Returns: (transfer none): its `toolName`, as the model called it
 */
const char *
natter_turn_tool_call_get_name (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->name;
}

/**
 * natter_turn_tool_call_get_arguments:
 * @call: a tool call
 *
 * Returns: (transfer none): its `arguments`: an object, or the raw string
 *   when the model's text was not a JSON object
 */
JsonNode *
natter_turn_tool_call_get_arguments (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return json_object_get_member (call->part, "arguments");
}

/**
 * natter_turn_tool_call_get_permission_required:
 * @call: a tool call
 *
 * Returns: (transfer none) (nullable): its `tool_permission_required`
 *   event (with `request` and `checkerError?`), or %NULL if it needs no
 *   permission
 */
JsonObject *
natter_turn_tool_call_get_permission_required (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->required;
}

/**
 * natter_turn_tool_call_get_classification:
 * @call: a tool call
 *
 * Returns: (transfer none) (nullable): its `tool_permission_classified`
 *   event (`decision`, `reason`)
 */
JsonObject *
natter_turn_tool_call_get_classification (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->classified;
}

/**
 * natter_turn_tool_call_get_classification_failure:
 * @call: a tool call
 *
 * Returns: (transfer none) (nullable): the
 *   `tool_permission_classification_failed` event that names it
 */
JsonObject *
natter_turn_tool_call_get_classification_failure (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->classification_failed;
}

/**
 * natter_turn_tool_call_get_resolution:
 * @call: a tool call
 *
 * Returns: (transfer none) (nullable): its `tool_permission_resolved`
 *   event (`decision`, `source`, `reason?`, `metadata?`)
 */
JsonObject *
natter_turn_tool_call_get_resolution (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->resolved;
}

/**
 * natter_turn_tool_call_get_decision:
 * @call: a tool call
 *
 * Returns: (transfer none) (nullable): the effective decision, `allow` or
 *   `deny`, or %NULL if unresolved or never required
 */
const char *
natter_turn_tool_call_get_decision (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return natter_json_loose_string (call->resolved, "decision");
}

/**
 * natter_turn_tool_call_get_invocation:
 * @call: a tool call
 *
 * Returns: (transfer none) (nullable): its `tool_invocation_requested`
 *   event (`toolId`, `execution`, `input`)
 */
JsonObject *
natter_turn_tool_call_get_invocation (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->invocation;
}

/**
 * natter_turn_tool_call_get_execution:
 * @call: a tool call
 *
 * Returns: (transfer none) (nullable): `sync` or `async` once invoked
 */
const char *
natter_turn_tool_call_get_execution (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return natter_json_loose_string (call->invocation, "execution");
}

/**
 * natter_turn_tool_call_get_progress:
 * @call: a tool call
 *
 * Returns: (transfer none) (element-type JsonObject): its `tool_progress`
 *   events, in order
 */
GPtrArray *
natter_turn_tool_call_get_progress (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->progress;
}

/**
 * natter_turn_tool_call_get_result_event:
 * @call: a tool call
 *
 * Returns: (transfer none) (nullable): its `tool_result` event
 */
JsonObject *
natter_turn_tool_call_get_result_event (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->result;
}

/**
 * natter_turn_tool_call_get_result:
 * @call: a tool call
 *
 * Returns: (transfer none) (nullable): its `result` (`output`, `isError`,
 *   `metadata?`)
 */
JsonObject *
natter_turn_tool_call_get_result (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return natter_json_loose_object (call->result, "result");
}

/**
 * natter_turn_tool_call_get_result_source:
 * @call: a tool call
 *
 * Returns: (transfer none) (nullable): `sync`, `async` or `runtime`
 */
const char *
natter_turn_tool_call_get_result_source (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return natter_json_loose_string (call->result, "source");
}

/**
 * natter_turn_tool_call_is_awaiting_permission:
 * @call: a tool call
 *
 * Returns: whether it requires permission and has neither a decision nor
 *   a result
 */
gboolean
natter_turn_tool_call_is_awaiting_permission (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, FALSE);

  return natter_turn_tool_call_awaits_permission (call);
}

/**
 * natter_turn_tool_call_is_awaiting_async_result:
 * @call: a tool call
 *
 * Returns: whether it is an exposed async invocation without a result
 */
gboolean
natter_turn_tool_call_is_awaiting_async_result (NatterTurnToolCall *call)
{
  g_return_val_if_fail (call != NULL, FALSE);

  return natter_turn_tool_call_awaits_async_result (call);
}
