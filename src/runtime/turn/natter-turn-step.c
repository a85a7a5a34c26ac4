/* natter-turn-step.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The decisions of the turn loop (docs/runtime.md §6 step 5), as pure
 * functions of the reduced turn: what to do next, and what to do with
 * each unfinished tool call. natter-turn-loop.c carries them out;
 * keeping them apart lets them be tested by table, without a model,
 * tools or a file.
 */

#define G_LOG_DOMAIN "natter-turn-runtime"

#include "natter-turn-schema.h"
#include "natter-turn-step.h"
#include "natter-plain-text.h"
#include "natter-json.h"

static JsonObject *
turn_config (NatterTurnState *state)
{
  return json_object_get_object_member (natter_turn_state_get_definition (state), "config");
}

/**
 * natter_turn_step_find_tool:
 * @state: a reduced turn
 * @name: a tool name
 *
 * Returns: (transfer none) (nullable): the descriptor of the resolved
 *   agent's tool called @name, or %NULL if the agent has none
 */
JsonObject *
natter_turn_step_find_tool (NatterTurnState *state,
                            const char      *name)
{
  JsonObject *resolved = json_object_get_object_member (json_object_get_object_member (natter_turn_state_get_definition (state),
                                                                                       "agent"),
                                                        "resolved");
  JsonArray *tools = json_object_get_array_member (resolved, "tools");

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);

      if (g_str_equal (json_object_get_string_member (tool, "name"), name))
        return tool;
    }
  return NULL;
}

/**
 * natter_turn_step_next:
 * @state: a reduced turn
 * @cancelled: whether cancellation was asked for
 *
 * The first decision of the loop: a settled turn settles, a cancelled
 * one is closed, a suspended one rests, an open model call is closed
 * (docs/runtime.md §10); otherwise the tool calls come next.
 *
 * Returns: %NATTER_TURN_STEP_SETTLE, %NATTER_TURN_STEP_CANCEL,
 *   %NATTER_TURN_STEP_REST, %NATTER_TURN_STEP_CLOSE_OPEN_CALL or
 *   %NATTER_TURN_STEP_RESOLVE_TOOL_CALLS
 */
NatterTurnStep
natter_turn_step_next (NatterTurnState *state,
                       gboolean         cancelled)
{
  g_return_val_if_fail (state != NULL, NATTER_TURN_STEP_SETTLE);

  if (natter_turn_state_get_terminal_event (state) != NULL)
    return NATTER_TURN_STEP_SETTLE;
  if (cancelled)
    return NATTER_TURN_STEP_CANCEL;
  if (natter_derive_turn_status (state) == NATTER_TURN_STATUS_SUSPENDED)
    return NATTER_TURN_STEP_REST;
  if (natter_turn_state_has_open_model_call (state))
    return NATTER_TURN_STEP_CLOSE_OPEN_CALL;
  return NATTER_TURN_STEP_RESOLVE_TOOL_CALLS;
}

/* A call whose permission is required and not resolved. With
 * auto-permission the classifier answers first; an allow from it, or no
 * human to ask, resolves the call; otherwise the human decides. */
static NatterToolCallStep
step_for_required_permission (NatterTurnToolCall *call,
                              gboolean            auto_permission,
                              gboolean            human_available)
{
  JsonObject *classified = natter_turn_tool_call_get_classification (call);

  if (auto_permission)
    {
      if (classified == NULL && natter_turn_tool_call_get_classification_failure (call) == NULL)
        return NATTER_TOOL_CALL_STEP_CLASSIFY;
      if (classified != NULL &&
          g_str_equal (json_object_get_string_member (classified, "decision"), "allow"))
        return NATTER_TOOL_CALL_STEP_DECIDE_WITHOUT_HUMAN;
    }
  return human_available ? NATTER_TOOL_CALL_STEP_NONE : NATTER_TOOL_CALL_STEP_DECIDE_WITHOUT_HUMAN;
}

/**
 * natter_turn_step_for_tool_call:
 * @state: a reduced turn
 * @call: one of its unfinished tool calls
 * @running: whether this execution runs @call's sync tool right now
 *
 * What the loop does with @call, from the turn's `autoPermission` and
 * `humanAvailable` and how far the call got: an invocation in flight is
 * never repeated (docs/runtime.md §10), a resolution is carried out, a required
 * permission goes to the classifier or waits for a human (docs/runtime.md §7),
 * and a new call is checked for a known tool, usable arguments and a human if
 * it needs one (docs/runtime.md §8) before the permission checker sees it.
 *
 * Returns: the step for @call
 */
NatterToolCallStep
natter_turn_step_for_tool_call (NatterTurnState    *state,
                                NatterTurnToolCall *call,
                                gboolean            running)
{
  JsonObject *config = turn_config (state);
  JsonObject *invocation = natter_turn_tool_call_get_invocation (call);
  JsonObject *resolution = natter_turn_tool_call_get_resolution (call);
  JsonObject *descriptor;

  if (running)
    return NATTER_TOOL_CALL_STEP_NONE;
  if (invocation != NULL)
    return g_str_equal (json_object_get_string_member (invocation, "execution"), "sync")
           ? NATTER_TOOL_CALL_STEP_INTERRUPTED
           : NATTER_TOOL_CALL_STEP_NONE;   /* async: stays pending */
  if (resolution != NULL)
    return g_str_equal (json_object_get_string_member (resolution, "decision"), "allow")
           ? NATTER_TOOL_CALL_STEP_INVOKE
           : NATTER_TOOL_CALL_STEP_DENIED;
  if (natter_turn_tool_call_get_permission_required (call) != NULL)
    return step_for_required_permission (call, json_object_get_boolean_member (config, "autoPermission"),
                                         json_object_get_boolean_member (config, "humanAvailable"));

  descriptor = natter_turn_step_find_tool (state, natter_turn_tool_call_get_name (call));
  if (descriptor == NULL)
    return NATTER_TOOL_CALL_STEP_UNKNOWN_TOOL;
  if (!JSON_NODE_HOLDS_OBJECT (natter_turn_tool_call_get_arguments (call)))
    return NATTER_TOOL_CALL_STEP_BAD_ARGUMENTS;
  if (json_object_get_boolean_member (descriptor, "requiresHuman") &&
      !json_object_get_boolean_member (config, "humanAvailable"))
    return NATTER_TOOL_CALL_STEP_NO_HUMAN;
  return NATTER_TOOL_CALL_STEP_CHECK_PERMISSION;
}

/* Whether an assistant message says anything: a text part with more
 * than white space. A stream that ended without a word (only
 * `data: [DONE]`, or reasoning alone) is an empty answer, not a
 * completed one (docs/runtime.md §6). */
static gboolean
has_text (JsonObject *message)
{
  g_autofree char *text = natter_json_content_text (json_object_get_member (message, "content"), "");

  return !natter_text_is_blank (text);
}

/**
 * natter_turn_step_after_tools:
 * @state: a reduced turn whose tool calls gave nothing to write
 * @n_running: how many sync tools this execution runs right now
 *
 * The rest of the batch's decision: running tools finish first, pending
 * inputs suspend the turn, an answer without tool calls completes it (one
 * without any text fails it: an empty answer), the
 * `maxModelCalls` budget stops it, and otherwise the model is called.
 *
 * Returns: %NATTER_TURN_STEP_WAIT_FOR_TOOLS, %NATTER_TURN_STEP_SUSPEND,
 *   %NATTER_TURN_STEP_COMPLETE, %NATTER_TURN_STEP_EMPTY_ANSWER,
 *   %NATTER_TURN_STEP_MODEL_CALL_LIMIT or
 *   %NATTER_TURN_STEP_CALL_MODEL
 */
NatterTurnStep
natter_turn_step_after_tools (NatterTurnState *state,
                              guint            n_running)
{
  gint last_index;
  NatterTurnModelCall *last;

  g_return_val_if_fail (state != NULL, NATTER_TURN_STEP_WAIT_FOR_TOOLS);

  if (n_running > 0)
    return NATTER_TURN_STEP_WAIT_FOR_TOOLS;
  if (natter_turn_state_get_n_pending_permissions (state) +
      natter_turn_state_get_n_pending_async_tools (state) > 0)
    return NATTER_TURN_STEP_SUSPEND;

  last_index = natter_turn_state_get_last_model_call_index (state);
  last = last_index >= 0 ? natter_turn_state_get_model_call (state, last_index) : NULL;
  if (last != NULL && natter_turn_model_call_get_message (last) != NULL &&
      natter_turn_model_call_get_n_tool_calls (last) == 0)
    return has_text (natter_turn_model_call_get_message (last)) ? NATTER_TURN_STEP_COMPLETE
                                                                 : NATTER_TURN_STEP_EMPTY_ANSWER;
  if ((gint64) natter_turn_state_get_n_model_calls (state) >=
      json_object_get_int_member (turn_config (state), "maxModelCalls"))
    return NATTER_TURN_STEP_MODEL_CALL_LIMIT;
  return NATTER_TURN_STEP_CALL_MODEL;
}

/**
 * natter_turn_step_dup_cancellation:
 * @state: a reduced turn that has not ended
 * @ts: the timestamp of the events
 * @reason: (nullable): why, for `turn_cancelled.reason`
 *
 * The events that stop @state for good (docs/runtime.md §9): the open
 * model call fails as `cancelled`, every unfinished tool call gets the
 * runtime's error result `cancelled`, and `turn_cancelled` ends the turn
 * with its usage so far. What a stop writes, and what an import writes
 * for a turn whose outside work it does not bring (docs/format.md §7.1).
 *
 * Returns: (transfer full) (element-type JsonNode): the events, in order
 */
GPtrArray *
natter_turn_step_dup_cancellation (NatterTurnState *state,
                                   const char      *ts,
                                   const char      *reason)
{
  g_autoptr(GPtrArray) unfinished = natter_turn_state_get_unfinished_tool_calls (state);
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  const char *turn_id = natter_turn_state_get_turn_id (state);
  JsonNode *node;
  JsonObject *event;

  if (natter_turn_state_has_open_model_call (state))
    {
      node = natter_turn_event_new ("model_call_failed", turn_id, ts);
      event = json_node_get_object (node);
      json_object_set_int_member (event, "modelCallIndex", natter_turn_state_get_n_model_calls (state) - 1);
      json_object_set_string_member (event, "error", "cancelled");
      g_ptr_array_add (events, node);
    }
  for (guint i = 0; i < unfinished->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (unfinished, i);
      JsonObject *result = json_object_new ();

      node = natter_turn_event_new ("tool_result", turn_id, ts);
      event = json_node_get_object (node);
      json_object_set_string_member (event, "toolCallId", natter_turn_tool_call_get_id (call));
      json_object_set_string_member (event, "toolName", natter_turn_tool_call_get_name (call));
      json_object_set_string_member (event, "source", "runtime");
      json_object_set_string_member (result, "output", "cancelled");
      json_object_set_boolean_member (result, "isError", TRUE);
      json_object_set_object_member (event, "result", result);
      g_ptr_array_add (events, node);
    }
  node = natter_turn_event_new ("turn_cancelled", turn_id, ts);
  event = json_node_get_object (node);
  if (reason != NULL)
    json_object_set_string_member (event, "reason", reason);
  json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (state));
  g_ptr_array_add (events, node);
  return events;
}
