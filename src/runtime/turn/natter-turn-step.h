/* natter-turn-step.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-turn-reducer.h"

G_BEGIN_DECLS

/**
 * NatterTurnStep:
 * @NATTER_TURN_STEP_SETTLE: the turn has its terminal event: settle from it
 * @NATTER_TURN_STEP_CANCEL: cancellation was asked for: close what is
 *   open and append `turn_cancelled`
 * @NATTER_TURN_STEP_REST: the turn is suspended: settle from its last
 *   `turn_suspended` until an input arrives
 * @NATTER_TURN_STEP_CLOSE_OPEN_CALL: a model call has no result (a crash
 *   or lost stream): close it as interrupted, then call again
 * @NATTER_TURN_STEP_RESOLVE_TOOL_CALLS: go through the unfinished tool
 *   calls (natter_turn_step_for_tool_call()); when none of them gives
 *   anything to write, natter_turn_step_after_tools() says what follows
 * @NATTER_TURN_STEP_WAIT_FOR_TOOLS: sync tools are still running
 * @NATTER_TURN_STEP_SUSPEND: permissions or async tools are pending:
 *   append `turn_suspended`
 * @NATTER_TURN_STEP_COMPLETE: the last model call answered without tool
 *   calls: append `turn_completed`
 * @NATTER_TURN_STEP_EMPTY_ANSWER: the last model call answered with
 *   neither tool calls nor any text: append `turn_failed` with code
 *   `empty-answer`
 * @NATTER_TURN_STEP_MODEL_CALL_LIMIT: `maxModelCalls` is used up: append
 *   `turn_failed` with code `model-call-limit`
 * @NATTER_TURN_STEP_CALL_MODEL: append `model_call_requested` and call the
 *   model
 *
 * What the loop of docs/runtime.md §6 step 5 does next.
 */
typedef enum
{
  NATTER_TURN_STEP_SETTLE,
  NATTER_TURN_STEP_CANCEL,
  NATTER_TURN_STEP_REST,
  NATTER_TURN_STEP_CLOSE_OPEN_CALL,
  NATTER_TURN_STEP_RESOLVE_TOOL_CALLS,
  NATTER_TURN_STEP_WAIT_FOR_TOOLS,
  NATTER_TURN_STEP_SUSPEND,
  NATTER_TURN_STEP_COMPLETE,
  NATTER_TURN_STEP_EMPTY_ANSWER,
  NATTER_TURN_STEP_MODEL_CALL_LIMIT,
  NATTER_TURN_STEP_CALL_MODEL,
} NatterTurnStep;

/**
 * NatterToolCallStep:
 * @NATTER_TOOL_CALL_STEP_NONE: nothing to do now: the call runs, its async
 *   tool is pending, or it waits for a human's decision
 * @NATTER_TOOL_CALL_STEP_INTERRUPTED: a sync invocation without a result:
 *   its outcome is unknown and it is never re-run; it gets an error result
 * @NATTER_TOOL_CALL_STEP_INVOKE: allowed: request the invocation
 * @NATTER_TOOL_CALL_STEP_DENIED: denied: it gets a "Permission denied" result
 * @NATTER_TOOL_CALL_STEP_CLASSIFY: auto-permission and not classified yet:
 *   ask the permission classifier
 * @NATTER_TOOL_CALL_STEP_DECIDE_WITHOUT_HUMAN: a required permission the
 *   classifier has answered, or that no human can answer: resolve it
 * @NATTER_TOOL_CALL_STEP_UNKNOWN_TOOL: the agent has no such tool
 * @NATTER_TOOL_CALL_STEP_BAD_ARGUMENTS: the arguments are not a JSON object
 * @NATTER_TOOL_CALL_STEP_NO_HUMAN: the tool needs a human and the turn has none
 * @NATTER_TOOL_CALL_STEP_CHECK_PERMISSION: a new, usable call: ask the
 *   permission checker whether it may run
 *
 * What the loop does with one unfinished tool call (docs/runtime.md §7, §8,
 * §10).
 */
typedef enum
{
  NATTER_TOOL_CALL_STEP_NONE,
  NATTER_TOOL_CALL_STEP_INTERRUPTED,
  NATTER_TOOL_CALL_STEP_INVOKE,
  NATTER_TOOL_CALL_STEP_DENIED,
  NATTER_TOOL_CALL_STEP_CLASSIFY,
  NATTER_TOOL_CALL_STEP_DECIDE_WITHOUT_HUMAN,
  NATTER_TOOL_CALL_STEP_UNKNOWN_TOOL,
  NATTER_TOOL_CALL_STEP_BAD_ARGUMENTS,
  NATTER_TOOL_CALL_STEP_NO_HUMAN,
  NATTER_TOOL_CALL_STEP_CHECK_PERMISSION,
} NatterToolCallStep;

NatterTurnStep      natter_turn_step_next           (NatterTurnState    *state,
                                                     gboolean            cancelled);
NatterToolCallStep  natter_turn_step_for_tool_call  (NatterTurnState    *state,
                                                     NatterTurnToolCall *call,
                                                     gboolean            running);
NatterTurnStep      natter_turn_step_after_tools    (NatterTurnState    *state,
                                                     guint               n_running);
JsonObject         *natter_turn_step_find_tool      (NatterTurnState    *state,
                                                     const char         *name);
GPtrArray          *natter_turn_step_dup_cancellation (NatterTurnState  *state,
                                                       const char       *ts,
                                                       const char       *reason);

G_END_DECLS
