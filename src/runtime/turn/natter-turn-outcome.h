/* natter-turn-outcome.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * NatterTurnOutcomeKind:
 * @NATTER_TURN_OUTCOME_COMPLETED: `turn_completed`
 * @NATTER_TURN_OUTCOME_SUSPENDED: `turn_suspended` with outstanding work
 * @NATTER_TURN_OUTCOME_FAILED: `turn_failed`
 * @NATTER_TURN_OUTCOME_CANCELLED: `turn_cancelled`
 *
 * The kind of an advance's outcome (docs/runtime.md §5).
 */
typedef enum
{
  NATTER_TURN_OUTCOME_COMPLETED,
  NATTER_TURN_OUTCOME_SUSPENDED,
  NATTER_TURN_OUTCOME_FAILED,
  NATTER_TURN_OUTCOME_CANCELLED,
} NatterTurnOutcomeKind;

/**
 * NatterTurnOutcome:
 * @kind: the kind
 * @output: (nullable): completed: the final assistant message
 * @finish_reason: (nullable): completed: the finish reason
 * @usage: the turn's total usage
 * @pending_permissions: (nullable): suspended: `[{toolCallId, toolName, request}]`
 * @pending_async_tools: (nullable): suspended: `[{toolCallId, toolId, toolName, input}]`
 * @error: (nullable): failed: the message
 * @code: (nullable): failed: the code, e.g. `model-call-limit`
 * @reason: (nullable): cancelled: the reason
 *
 * The outcome of one advance, read from the durable event that ended it.
 * Reference counted and immutable.
 */
typedef struct
{
  NatterTurnOutcomeKind  kind;
  JsonObject            *output;
  const char            *finish_reason;
  JsonObject            *usage;
  JsonArray             *pending_permissions;
  JsonArray             *pending_async_tools;
  const char            *error;
  const char            *code;
  const char            *reason;
} NatterTurnOutcome;

#define NATTER_TYPE_TURN_OUTCOME (natter_turn_outcome_get_type ())

GType              natter_turn_outcome_get_type (void) G_GNUC_CONST;
NatterTurnOutcome *natter_turn_outcome_new_from_event (JsonObject        *event);
NatterTurnOutcome *natter_turn_outcome_ref      (NatterTurnOutcome *outcome);
void               natter_turn_outcome_unref    (NatterTurnOutcome *outcome);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterTurnOutcome, natter_turn_outcome_unref)

G_END_DECLS
