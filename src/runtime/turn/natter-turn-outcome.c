/* natter-turn-outcome.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * NatterTurnOutcome: how an advance settled (docs/runtime.md §6 step 6),
 * read from the event that settled it.
 */

#define G_LOG_DOMAIN "natter-turn-execution"

#include "natter-turn-outcome.h"

typedef struct
{
  NatterTurnOutcome  public;
  gatomicrefcount    ref_count;
  JsonObject        *event;
} Outcome;

G_DEFINE_BOXED_TYPE (NatterTurnOutcome, natter_turn_outcome,
                     natter_turn_outcome_ref, natter_turn_outcome_unref)

static JsonArray *
get_array_or_null (JsonObject *object,
                   const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

/**
 * natter_turn_outcome_new_from_event:
 * @event: (transfer none): a `turn_completed`, `turn_failed`,
 *   `turn_cancelled` or `turn_suspended` event
 *
 * Part of the execution of docs/runtime.md §5.
 *
 * Returns: (transfer full) (nullable): the outcome the event stands for,
 *   or %NULL for any other event type
 */
NatterTurnOutcome *
natter_turn_outcome_new_from_event (JsonObject *event)
{
  const char *type = json_object_get_string_member_with_default (event, "type", "");
  Outcome *outcome;

  outcome = g_new0 (Outcome, 1);
  g_atomic_ref_count_init (&outcome->ref_count);
  outcome->event = json_object_ref (event);
  if (g_str_equal (type, "turn_completed"))
    outcome->public.kind = NATTER_TURN_OUTCOME_COMPLETED;
  else if (g_str_equal (type, "turn_suspended"))
    outcome->public.kind = NATTER_TURN_OUTCOME_SUSPENDED;
  else if (g_str_equal (type, "turn_failed"))
    outcome->public.kind = NATTER_TURN_OUTCOME_FAILED;
  else if (g_str_equal (type, "turn_cancelled"))
    outcome->public.kind = NATTER_TURN_OUTCOME_CANCELLED;
  else
    {
      json_object_unref (outcome->event);
      g_free (outcome);
      return NULL;
    }

  if (json_object_has_member (event, "output"))
    outcome->public.output = json_object_get_object_member (event, "output");
  outcome->public.finish_reason = json_object_get_string_member_with_default (event, "finishReason", NULL);
  outcome->public.usage = json_object_get_object_member (event, "usage");
  outcome->public.pending_permissions = get_array_or_null (event, "pendingPermissions");
  outcome->public.pending_async_tools = get_array_or_null (event, "pendingAsyncTools");
  outcome->public.error = json_object_get_string_member_with_default (event, "error", NULL);
  outcome->public.code = json_object_get_string_member_with_default (event, "code", NULL);
  outcome->public.reason = json_object_get_string_member_with_default (event, "reason", NULL);
  return &outcome->public;
}

/**
 * natter_turn_outcome_ref:
 * @outcome: an outcome
 *
 * Part of the execution of docs/runtime.md §5.
 *
 * Returns: (transfer full): @outcome
 */
NatterTurnOutcome *
natter_turn_outcome_ref (NatterTurnOutcome *outcome)
{
  g_atomic_ref_count_inc (&((Outcome *) outcome)->ref_count);
  return outcome;
}

/**
 * natter_turn_outcome_unref:
 * @outcome: an outcome
 *
 * Drops a reference.
 *
 * Part of the execution of docs/runtime.md §5.
 */
void
natter_turn_outcome_unref (NatterTurnOutcome *outcome)
{
  Outcome *self = (Outcome *) outcome;

  if (g_atomic_ref_count_dec (&self->ref_count))
    {
      json_object_unref (self->event);
      g_free (self);
    }
}
