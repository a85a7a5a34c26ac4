/* natter-turn-state.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * #NatterTurnState: the reduced turn of docs/runtime.md §4 as a boxed
 * type, its accessors and the one status derivation. Only the reducer
 * (natter-turn-reducer.c) changes a state; past its creation and its
 * release, everything here only reads it.
 */

#define G_LOG_DOMAIN "natter-turn-reducer"

#include "natter-turn-reducer-private.h"

const char * const natter_turn_usage_fields[N_USAGE] = {
  "inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens",
};

G_DEFINE_BOXED_TYPE (NatterTurnState, natter_turn_state,
                     natter_turn_state_ref, natter_turn_state_unref)

/* Called by the state's array of model calls: a state owns its calls. */
void
natter_turn_model_call_free (NatterTurnModelCall *call)
{
  g_clear_pointer (&call->requested, json_object_unref);
  g_clear_pointer (&call->steps, g_ptr_array_unref);
  g_clear_pointer (&call->completed, json_object_unref);
  g_clear_pointer (&call->failed, json_object_unref);
  g_free (call);
}

/**
 * natter_turn_state_new:
 *
 * Creates the empty state that natter_turn_state_apply() advances, event
 * by event, into the reduced turn of docs/runtime.md §4.
 *
 * Returns: (transfer full): a new state with no events
 */
NatterTurnState *
natter_turn_state_new (void)
{
  NatterTurnState *state = g_new0 (NatterTurnState, 1);

  g_atomic_ref_count_init (&state->ref_count);
  state->model_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_turn_model_call_free);
  state->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_turn_tool_call_free);
  state->tool_calls_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  state->undo = natter_undo_log_new ();
  return state;
}

/**
 * natter_turn_state_ref:
 * @state: a state
 *
 * Returns: (transfer full): @state, with one more reference
 */
NatterTurnState *
natter_turn_state_ref (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NULL);

  g_atomic_ref_count_inc (&state->ref_count);
  return state;
}

/**
 * natter_turn_state_unref:
 * @state: (transfer full): a state
 *
 * Drops one reference; the last one frees the state and every view
 * (#NatterTurnModelCall, #NatterTurnToolCall) obtained from it.
 */
void
natter_turn_state_unref (NatterTurnState *state)
{
  g_return_if_fail (state != NULL);

  if (!g_atomic_ref_count_dec (&state->ref_count))
    return;

  natter_undo_log_free (state->undo);
  g_hash_table_unref (state->tool_calls_by_id);
  /* Tool calls before model calls: nothing points back, but keep the
   * reverse order of creation anyway. */
  g_ptr_array_unref (state->tool_calls);
  g_ptr_array_unref (state->model_calls);
  g_clear_pointer (&state->tools_by_name, g_hash_table_unref);
  g_clear_pointer (&state->definition, json_object_unref);
  g_clear_pointer (&state->last_suspension, json_object_unref);
  g_clear_pointer (&state->terminal, json_object_unref);
  g_clear_pointer (&state->device, json_object_unref);
  g_free (state);
}

/**
 * natter_turn_status_derive:
 * @terminal_type: (nullable): the `type` of the turn's terminal event
 *   (`turn_completed`, `turn_failed` or `turn_cancelled`), or %NULL while
 *   it has none
 * @suspended_with_work: whether the turn's last event is a
 *   `turn_suspended` of which some permission or async tool is still
 *   outstanding
 *
 * derive_turn_status() of docs/runtime.md §4 and docs/sessions.md
 * §8.1, the one derivation used everywhere, from the two facts it reads:
 * the terminal event's kind if there is one; else
 * %NATTER_TURN_STATUS_SUSPENDED when the turn rests with outstanding
 * work; else %NATTER_TURN_STATUS_IDLE (interrupted, or never advanced).
 * "Running" is never durable. natter_derive_turn_status() takes them from
 * a reduced turn, the startup scan's tree-free read
 * (natter_turn_scan_contents()) from the file's lines.
 *
 * Returns: the status
 */
NatterTurnStatus
natter_turn_status_derive (const char *terminal_type,
                           gboolean    suspended_with_work)
{
  if (terminal_type != NULL)
    {
      if (g_str_equal (terminal_type, "turn_completed"))
        return NATTER_TURN_STATUS_COMPLETED;
      if (g_str_equal (terminal_type, "turn_failed"))
        return NATTER_TURN_STATUS_FAILED;
      return NATTER_TURN_STATUS_CANCELLED;
    }
  if (suspended_with_work)
    return NATTER_TURN_STATUS_SUSPENDED;
  return NATTER_TURN_STATUS_IDLE;
}

/**
 * natter_derive_turn_status:
 * @state: a reduced turn
 *
 * derive_turn_status() of docs/runtime.md §4 and docs/sessions.md
 * §8.1, the one derivation used everywhere: the terminal event's kind if
 * there is one; else %NATTER_TURN_STATUS_SUSPENDED when the last event is
 * a `turn_suspended` and some permission or async tool it lists is still
 * outstanding; else %NATTER_TURN_STATUS_IDLE (interrupted, or never
 * advanced). "Running" is never durable. The derivation itself is
 * natter_turn_status_derive(), which the tree-free scan shares.
 *
 * Returns: the status
 */
NatterTurnStatus
natter_derive_turn_status (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NATTER_TURN_STATUS_IDLE);

  /* The suspension lists exactly the outstanding work (enforced on apply),
   * so "resting state with outstanding work" is: it was the last event and
   * its snapshot is not empty. */
  return natter_turn_status_derive (state->terminal != NULL
                                    ? json_object_get_string_member (state->terminal, "type")
                                    : NULL,
                                    state->last_event_is_suspension &&
                                    state->n_pending_permissions + state->n_pending_async > 0);
}

/**
 * natter_turn_status_to_string:
 * @status: a status
 *
 * Returns: (transfer none): the spec's name of @status: `completed`,
 *   `failed`, `cancelled`, `suspended` or `idle` (docs/sessions.md
 *   §8.1 `latestTurnStatus`)
 */
const char *
natter_turn_status_to_string (NatterTurnStatus status)
{
  switch (status)
    {
    case NATTER_TURN_STATUS_COMPLETED:
      return "completed";
    case NATTER_TURN_STATUS_FAILED:
      return "failed";
    case NATTER_TURN_STATUS_CANCELLED:
      return "cancelled";
    case NATTER_TURN_STATUS_SUSPENDED:
      return "suspended";
    case NATTER_TURN_STATUS_IDLE:
      return "idle";
    default:
      g_return_val_if_reached ("idle");
    }
}

/* Accessors: the turn */

/**
 * natter_turn_state_get_turn_id:
 * @state: a state
 *
 * Returns: (transfer none) (nullable): the turn id, or %NULL before
 *   `turn_created`
 */
const char *
natter_turn_state_get_turn_id (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NULL);

  return natter_json_loose_string (state->definition, "turnId");
}

/**
 * natter_turn_state_get_definition:
 * @state: a state
 *
 * Returns: (transfer none) (nullable): the `turn_created` event (the
 *   immutable definition: agent snapshot, context, input, config)
 */
JsonObject *
natter_turn_state_get_definition (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NULL);

  return state->definition;
}

/**
 * natter_turn_definition_is_imported:
 * @definition: a `turn_created` event (or the definition of a reduced
 *   turn)
 *
 * Whether the turn was brought in from a file or another program rather
 * than asked of a model here: its `config` holds the member `imported`
 * (docs/format.md §7.3). What such a turn names as its agent, provider
 * and endpoint is a record of where it came from, never where the next
 * message goes. Any value of the member counts, so a damaged mark errs
 * on the side of treating the turn as imported.
 *
 * Returns: %TRUE for an imported turn
 */
gboolean
natter_turn_definition_is_imported (JsonObject *definition)
{
  JsonNode *config;

  g_return_val_if_fail (definition != NULL, FALSE);

  config = json_object_get_member (definition, "config");
  return config != NULL && JSON_NODE_HOLDS_OBJECT (config) &&
         json_object_has_member (json_node_get_object (config), "imported");
}

/**
 * natter_turn_definition_get_previous_turn_id:
 * @definition: (transfer none): a turn's `turn_created` event (its
 *   definition, natter_turn_state_get_definition())
 *
 * The earlier turn whose closed transcript the turn's context refers to
 * (`context: {previousTurnId}`, docs/format.md §4.2): the next link of
 * the reference chain. Pure.
 *
 * Returns: (transfer none) (nullable): its id, owned by @definition; %NULL
 *   where the context is inline (the chain starts there)
 */
const char *
natter_turn_definition_get_previous_turn_id (JsonObject *definition)
{
  JsonNode *context;

  g_return_val_if_fail (definition != NULL, NULL);

  context = json_object_get_member (definition, "context");
  if (context == NULL || !JSON_NODE_HOLDS_OBJECT (context))
    return NULL;
  return json_object_get_string_member_with_default (json_node_get_object (context), "previousTurnId", NULL);
}

/**
 * natter_turn_state_is_imported:
 * @state: a state
 *
 * natter_turn_definition_is_imported() for the reduced turn.
 *
 * Returns: %TRUE for an imported turn
 */
gboolean
natter_turn_state_is_imported (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, FALSE);

  return state->definition != NULL && natter_turn_definition_is_imported (state->definition);
}

/**
 * natter_turn_state_get_device_id:
 * @state: a state
 *
 * The device that runs the turn (docs/format.md §4.5): the `device` of
 * the last event that has one.
 *
 * Returns: (transfer none) (nullable): its id, or %NULL for a turn that
 *   records no device (written before devices were recorded)
 */
const char *
natter_turn_state_get_device_id (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NULL);

  return state->device != NULL ? json_object_get_string_member (state->device, "id") : NULL;
}

/**
 * natter_turn_state_get_device_name:
 * @state: a state
 *
 * Returns: (transfer none) (nullable): the name of the device of
 *   natter_turn_state_get_device_id(), as that device wrote it (text
 *   from another machine: escape it before markup)
 */
const char *
natter_turn_state_get_device_name (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NULL);

  return state->device != NULL ? json_object_get_string_member (state->device, "name") : NULL;
}

/**
 * natter_turn_state_get_n_events:
 * @state: a state
 *
 * Returns: how many events were applied (the line count of the file)
 */
guint64
natter_turn_state_get_n_events (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, 0);

  return state->n_events;
}

/**
 * natter_turn_state_get_last_suspension:
 * @state: a state
 *
 * Returns: (transfer none) (nullable): the last `turn_suspended` event,
 *   even if work went on after it (see natter_derive_turn_status())
 */
JsonObject *
natter_turn_state_get_last_suspension (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NULL);

  return state->last_suspension;
}

/**
 * natter_turn_state_get_terminal_event:
 * @state: a state
 *
 * Returns: (transfer none) (nullable): the `turn_completed`, `turn_failed`
 *   or `turn_cancelled` event, or %NULL if the turn has not ended
 */
JsonObject *
natter_turn_state_get_terminal_event (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NULL);

  return state->terminal;
}

/**
 * natter_turn_state_dup_usage:
 * @state: a state
 *
 * The aggregate usage of the turn: the sum of the `usage` of every
 * `model_call_completed`, in tokens. A field is present iff some call
 * reported it. This is what the runtime writes as the turn total.
 *
 * Returns: (transfer full): a new usage object
 */
JsonObject *
natter_turn_state_dup_usage (NatterTurnState *state)
{
  JsonObject *usage;

  g_return_val_if_fail (state != NULL, NULL);

  usage = json_object_new ();
  for (guint i = 0; i < N_USAGE; i++)
    if (state->usage_present & (1 << i))
      json_object_set_int_member (usage, natter_turn_usage_fields[i], state->usage[i]);
  return usage;
}

/**
 * natter_turn_state_dup_final_text:
 * @state: a state
 *
 * The text of the final answer: the text parts (not the reasoning) of the
 * `output` of `turn_completed`, concatenated.
 *
 * Returns: (transfer full) (nullable): the text, or %NULL unless the turn
 *   completed
 */
char *
natter_turn_state_dup_final_text (NatterTurnState *state)
{
  JsonObject *output;

  g_return_val_if_fail (state != NULL, NULL);

  if (state->terminal == NULL ||
      !g_str_equal (json_object_get_string_member (state->terminal, "type"), "turn_completed"))
    return NULL;

  output = json_object_get_object_member (state->terminal, "output");
  return natter_json_content_text (json_object_get_member (output, "content"), "");
}

/* Accessors: model calls */

/**
 * natter_turn_state_get_n_model_calls:
 * @state: a state
 *
 * Returns: the number of model calls requested so far
 */
guint
natter_turn_state_get_n_model_calls (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, 0);

  return state->model_calls->len;
}

/**
 * natter_turn_state_get_model_call:
 * @state: a state
 * @index: a `modelCallIndex`
 *
 * Returns: (transfer none): the model call, owned by @state
 */
NatterTurnModelCall *
natter_turn_state_get_model_call (NatterTurnState *state,
                                  guint            index)
{
  g_return_val_if_fail (state != NULL, NULL);
  g_return_val_if_fail (index < state->model_calls->len, NULL);

  return g_ptr_array_index (state->model_calls, index);
}

/**
 * natter_turn_state_get_last_model_call_index:
 * @state: a state
 *
 * Returns: the index of the last model call, or -1 if there is none
 */
gint
natter_turn_state_get_last_model_call_index (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, -1);

  return (gint) state->model_calls->len - 1;
}

/**
 * natter_turn_state_has_open_model_call:
 * @state: a state
 *
 * Returns: whether the last model call was requested but neither
 *   completed nor failed (a crash left it open: docs/runtime.md §10)
 */
gboolean
natter_turn_state_has_open_model_call (NatterTurnState *state)
{
  NatterTurnModelCall *last;

  g_return_val_if_fail (state != NULL, FALSE);

  last = natter_turn_state_last_model_call (state);
  return last != NULL && last->completed == NULL && last->failed == NULL;
}

/* Accessors: tool calls */

/**
 * natter_turn_state_get_n_tool_calls:
 * @state: a state
 *
 * Returns: the number of tool calls across all responses
 */
guint
natter_turn_state_get_n_tool_calls (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, 0);

  return state->tool_calls->len;
}

/**
 * natter_turn_state_get_tool_call:
 * @state: a state
 * @index: the position among all tool calls, in model order
 *
 * Returns: (transfer none): the tool call, owned by @state
 */
NatterTurnToolCall *
natter_turn_state_get_tool_call (NatterTurnState *state,
                                 guint            index)
{
  g_return_val_if_fail (state != NULL, NULL);
  g_return_val_if_fail (index < state->tool_calls->len, NULL);

  return g_ptr_array_index (state->tool_calls, index);
}

/**
 * natter_turn_state_lookup_tool_call:
 * @state: a state
 * @tool_call_id: a `toolCallId`
 *
 * Returns: (transfer none) (nullable): the tool call, or %NULL if the
 *   model never made it
 */
NatterTurnToolCall *
natter_turn_state_lookup_tool_call (NatterTurnState *state,
                                    const char      *tool_call_id)
{
  g_return_val_if_fail (state != NULL, NULL);
  g_return_val_if_fail (tool_call_id != NULL, NULL);

  return g_hash_table_lookup (state->tool_calls_by_id, tool_call_id);
}

typedef gboolean (*ToolCallFilter) (NatterTurnToolCall *call);

static gboolean
is_unfinished (NatterTurnToolCall *call)
{
  return call->result == NULL;
}

/* Unfinished calls only exist in the last response: the next model call
 * waits for every result. */
static GPtrArray *
filter_last_response (NatterTurnState *state,
                      ToolCallFilter   filter)
{
  GPtrArray *calls = g_ptr_array_new ();
  NatterTurnModelCall *last = natter_turn_state_last_model_call (state);

  if (state->n_unfinished == 0 || last == NULL)
    return calls;
  for (int i = 0; i < last->n_tool_calls; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (state->tool_calls, last->first_tool_call + i);

      if (filter (call))
        g_ptr_array_add (calls, call);
    }
  return calls;
}

/**
 * natter_turn_state_get_unfinished_tool_calls:
 * @state: a state
 *
 * The tool calls without a result, in model order: what recovery
 * (docs/runtime.md §10) continues with.
 *
 * Returns: (transfer container) (element-type NatterTurnToolCall): the calls
 */
GPtrArray *
natter_turn_state_get_unfinished_tool_calls (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NULL);

  return filter_last_response (state, is_unfinished);
}

/**
 * natter_turn_state_get_pending_permissions:
 * @state: a state
 *
 * The tool calls that require permission and have no decision and no
 * result yet, in model order (what a prompt shows).
 *
 * Returns: (transfer container) (element-type NatterTurnToolCall): the calls
 */
GPtrArray *
natter_turn_state_get_pending_permissions (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NULL);

  return filter_last_response (state, natter_turn_tool_call_awaits_permission);
}

/**
 * natter_turn_state_get_pending_async_tools:
 * @state: a state
 *
 * The async tool calls that were exposed and have no result yet, in model
 * order.
 *
 * Returns: (transfer container) (element-type NatterTurnToolCall): the calls
 */
GPtrArray *
natter_turn_state_get_pending_async_tools (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, NULL);

  return filter_last_response (state, natter_turn_tool_call_awaits_async_result);
}

/**
 * natter_turn_state_get_n_pending_permissions:
 * @state: a state
 *
 * Returns: the length of natter_turn_state_get_pending_permissions(), in
 *   constant time
 */
guint
natter_turn_state_get_n_pending_permissions (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, 0);

  return state->n_pending_permissions;
}

/**
 * natter_turn_state_get_n_pending_async_tools:
 * @state: a state
 *
 * Returns: the length of natter_turn_state_get_pending_async_tools(), in
 *   constant time
 */
guint
natter_turn_state_get_n_pending_async_tools (NatterTurnState *state)
{
  g_return_val_if_fail (state != NULL, 0);

  return state->n_pending_async;
}
