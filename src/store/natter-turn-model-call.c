/* natter-turn-model-call.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * #NatterTurnModelCall: one model call of a reduced turn, a borrowed view
 * owned by its #NatterTurnState, and its accessors, the speed of its
 * answer included.
 */

#define G_LOG_DOMAIN "natter-turn-reducer"

#include "natter-clock.h"
#include "natter-turn-reducer-private.h"
#include "natter-turn-schema.h"

/**
 * natter_turn_model_call_get_index:
 * @call: a model call
 *
 * Returns: its `modelCallIndex`
 */
guint
natter_turn_model_call_get_index (NatterTurnModelCall *call)
{
  g_return_val_if_fail (call != NULL, 0);

  return call->index;
}

/**
 * natter_turn_model_call_get_request:
 * @call: a model call
 *
 * Returns: (transfer none): the `request` of its `model_call_requested`
 */
JsonObject *
natter_turn_model_call_get_request (NatterTurnModelCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return json_object_get_object_member (call->requested, "request");
}

/**
 * natter_turn_model_call_get_step_events:
 * @call: a model call
 *
 * Returns: (transfer none) (element-type JsonObject): its
 *   `model_step_event` events, in order
 */
GPtrArray *
natter_turn_model_call_get_step_events (NatterTurnModelCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->steps;
}

/**
 * natter_turn_model_call_is_open:
 * @call: a model call
 *
 * Returns: whether it has neither completed nor failed
 */
gboolean
natter_turn_model_call_is_open (NatterTurnModelCall *call)
{
  g_return_val_if_fail (call != NULL, FALSE);

  return call->completed == NULL && call->failed == NULL;
}

/**
 * natter_turn_model_call_get_message:
 * @call: a model call
 *
 * Returns: (transfer none) (nullable): the assistant message of its
 *   response, or %NULL unless it completed
 */
JsonObject *
natter_turn_model_call_get_message (NatterTurnModelCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return natter_json_loose_object (call->completed, "message");
}

/**
 * natter_turn_model_call_get_finish_reason:
 * @call: a model call
 *
 * Returns: (transfer none) (nullable): its `finishReason`, or %NULL unless
 *   it completed
 */
const char *
natter_turn_model_call_get_finish_reason (NatterTurnModelCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return natter_json_loose_string (call->completed, "finishReason");
}

/**
 * natter_turn_model_call_get_usage:
 * @call: a model call
 *
 * Returns: (transfer none) (nullable): its `usage` in tokens, or %NULL
 *   unless it completed
 */
JsonObject *
natter_turn_model_call_get_usage (NatterTurnModelCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return natter_json_loose_object (call->completed, "usage");
}

/**
 * natter_turn_model_call_get_error:
 * @call: a model call
 *
 * Returns: (transfer none) (nullable): the `error` of its
 *   `model_call_failed`, or %NULL unless it failed
 */
const char *
natter_turn_model_call_get_error (NatterTurnModelCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return natter_json_loose_string (call->failed, "error");
}

/**
 * natter_turn_model_call_was_stopped:
 * @call: a model call
 *
 * Whether the call ended because it was stopped (its `model_call_failed`
 * says `cancelled`: the person's Stop, a deleted conversation), not
 * broken by a failure: what had streamed is then shown as stopped
 * mid-answer rather than cut off.
 *
 * Returns: %TRUE for a call stopped
 */
gboolean
natter_turn_model_call_was_stopped (NatterTurnModelCall *call)
{
  g_return_val_if_fail (call != NULL, FALSE);

  return g_strcmp0 (natter_turn_model_call_get_error (call), "cancelled") == 0;
}

/**
 * natter_turn_model_call_get_partial:
 * @call: a model call
 *
 * The answer that had streamed when the call stopped (a cancellation) or
 * broke (a provider or stream failure), as kept in the file: the
 * `partial` assistant message of its `model_call_failed`. Files written
 * before that field existed kept it as a `model_step_event` whose `event`
 * is `{type: "partial_response", message}`; such a file reads the same,
 * the last of them winning. Not rewritten either way.
 *
 * Returns: (transfer none) (nullable): the partial assistant message, or
 *   %NULL unless the call failed with part of an answer
 */
JsonObject *
natter_turn_model_call_get_partial (NatterTurnModelCall *call)
{
  JsonNode *node;

  g_return_val_if_fail (call != NULL, NULL);

  if (call->failed == NULL)
    return NULL;
  node = json_object_get_member (call->failed, "partial");
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    return json_node_get_object (node);

  for (guint i = call->steps->len; i > 0; i--)
    {
      JsonObject *step = json_object_get_object_member (g_ptr_array_index (call->steps, i - 1),
                                                        "event");
      JsonNode *message = json_object_get_member (step, "message");

      /* The step event's inner shape was never checked on read: only a
       * well-formed assistant message counts. */
      if (g_strcmp0 (natter_json_loose_string (step, "type"), "partial_response") == 0 &&
          message != NULL && natter_turn_assistant_message_validate (message, NULL))
        return json_node_get_object (message);
    }
  return NULL;
}

/**
 * natter_turn_model_call_get_n_tool_calls:
 * @call: a model call
 *
 * Returns: the number of tool calls in its response (0 unless completed)
 */
guint
natter_turn_model_call_get_n_tool_calls (NatterTurnModelCall *call)
{
  g_return_val_if_fail (call != NULL, 0);

  return call->n_tool_calls;
}

/**
 * natter_turn_model_call_get_tool_call:
 * @call: a model call
 * @order: the position of the tool call in the response
 *
 * Returns: (transfer none): the tool call, owned by the state
 */
NatterTurnToolCall *
natter_turn_model_call_get_tool_call (NatterTurnModelCall *call,
                                      guint                order)
{
  g_return_val_if_fail (call != NULL, NULL);
  g_return_val_if_fail (order < (guint) call->n_tool_calls, NULL);

  return g_ptr_array_index (call->state->tool_calls, call->first_tool_call + order);
}

/* Speed (docs/format.md §4.2, `firstTokenTs`) */

static gboolean
event_time (JsonObject *event,
            const char *member,
            gint64     *out_us)
{
  return event != NULL && natter_parse_ts (natter_json_loose_string (event, member), out_us);
}

/**
 * natter_turn_model_call_get_time_to_first_token_ms:
 * @call: a model call
 *
 * How long the person waited for the first piece of the answer: from the
 * call's `model_call_requested` to the `firstTokenTs` its closing event
 * recorded (when its first text or reasoning arrived).
 *
 * Returns: milliseconds, ≥ 0; -1 when the call recorded no first token
 *   (still open, an answer of tool calls only, or a file from before the
 *   field existed)
 */
gint64
natter_turn_model_call_get_time_to_first_token_ms (NatterTurnModelCall *call)
{
  JsonObject *closing;
  gint64 requested_us, first_us;

  g_return_val_if_fail (call != NULL, -1);

  closing = call->completed != NULL ? call->completed : call->failed;
  if (!event_time (call->requested, "ts", &requested_us) || !event_time (closing, "firstTokenTs", &first_us))
    return -1;
  return MAX (first_us - requested_us, 0) / 1000;
}

/* The shortest time an answer's speed is measured over. Below it the
 * figure is the timing's noise, not the model's: an answer a buffering
 * proxy passed on all at once, or one read in a burst after the main loop
 * was busy, "came" in a millisecond or two, which said thousands of
 * tokens a second. */
#define MIN_GENERATION_MS 100

/* The answer's tokens and how long they took to come, from the first
 * one to the end of the call; FALSE when unknown or too quick to time. */
static gboolean
generation (NatterTurnModelCall *call,
            gint64              *out_tokens,
            gint64              *out_ms)
{
  JsonObject *usage = natter_turn_model_call_get_usage (call);
  gint64 first_us, end_us;

  if (usage == NULL || !json_object_has_member (usage, "outputTokens") ||
      !event_time (call->completed, "firstTokenTs", &first_us) || !event_time (call->completed, "ts", &end_us))
    return FALSE;
  *out_tokens = json_object_get_int_member (usage, "outputTokens");
  *out_ms = (end_us - first_us) / 1000;
  return *out_tokens > 0 && *out_ms >= MIN_GENERATION_MS;
}

/**
 * natter_turn_model_call_get_tokens_per_second:
 * @call: a model call
 *
 * How fast the answer came once it began: the call's `outputTokens`
 * divided by the time from its `firstTokenTs` to its
 * `model_call_completed`. The wait before the first token is not in it
 * (natter_turn_model_call_get_time_to_first_token_ms() is that).
 *
 * Returns: tokens per second, > 0; -1 when unknown (the call did not
 *   complete, the server reported no output tokens, no first token was
 *   recorded, or the answer came within a tenth of a second: too quick
 *   to time)
 */
double
natter_turn_model_call_get_tokens_per_second (NatterTurnModelCall *call)
{
  gint64 tokens, ms;

  g_return_val_if_fail (call != NULL, -1);

  if (!generation (call, &tokens, &ms))
    return -1;
  return (double) tokens * 1000.0 / (double) ms;
}

/**
 * natter_turn_state_get_speed:
 * @state: a turn
 * @out_time_to_first_token_ms: (out) (optional): the first model call's
 *   time to its first token, or -1
 * @out_tokens_per_second: (out) (optional): the answer's speed over all
 *   its calls — every output token of the calls whose speed is known,
 *   over the time they took — or -1
 *
 * The speed figures of a whole answer (a turn), as its usage line shows
 * them: what the person waited before anything appeared, and how fast
 * the words came.
 *
 * Returns: whether either figure is known
 */
gboolean
natter_turn_state_get_speed (NatterTurnState *state,
                             gint64          *out_time_to_first_token_ms,
                             double          *out_tokens_per_second)
{
  gint64 first = -1;
  gint64 tokens = 0, ms = 0;
  double speed = -1;
  guint n;

  g_return_val_if_fail (state != NULL, FALSE);

  n = natter_turn_state_get_n_model_calls (state);
  if (n > 0)
    first = natter_turn_model_call_get_time_to_first_token_ms (natter_turn_state_get_model_call (state, 0));
  for (guint i = 0; i < n; i++)
    {
      gint64 call_tokens, call_ms;

      if (generation (natter_turn_state_get_model_call (state, i), &call_tokens, &call_ms))
        {
          tokens += call_tokens;
          ms += call_ms;
        }
    }
  if (ms > 0)
    speed = (double) tokens * 1000.0 / (double) ms;
  if (out_time_to_first_token_ms != NULL)
    *out_time_to_first_token_ms = first;
  if (out_tokens_per_second != NULL)
    *out_tokens_per_second = speed;
  return first >= 0 || speed > 0;
}
