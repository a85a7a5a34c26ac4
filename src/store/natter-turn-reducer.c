/* natter-turn-reducer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * reduce_turn() and derive_turn_status() of docs/runtime.md §4.
 *
 * The state keeps references to the applied event objects rather than
 * copies: events are immutable once applied, and a reference costs nothing.
 *
 * Atomicity: every mutation goes through the undo log of
 * natter-undo-log.c, so a failed event or batch leaves the state as it
 * was. The records, their accessors and the diagnostics live in
 * natter-turn-state.c, natter-turn-model-call.c, natter-turn-tool-call.c
 * and natter-turn-state-debug.c; this file holds the rules alone.
 *
 * Invariants where the spec is loose, decided here (each is also commented
 * where it is enforced):
 * - a mismatched `turnId` is %NATTER_STORE_ERROR_INVARIANT (it is in the
 *   docs/runtime.md §4 list); the schema is checked with no expected id;
 * - a model call after a response without tool calls is refused: such a
 *   response ends the turn (recovery appends `turn_completed`);
 * - the number of model calls never exceeds `config.maxModelCalls`;
 * - a classification needs a permission requirement, comes before the
 *   resolution, and happens once per call (recovery reuses it);
 * - a resolution needs a requirement; `source: classifier` with `allow`
 *   needs a classifier `allow` (never run automatically otherwise);
 *   `source: human` needs `humanAvailable`, `human_unavailable` needs its
 *   absence and can only deny;
 * - an invocation names a tool of the agent snapshot with the same
 *   `toolId` and `execution`, and never a `requiresHuman` tool without a
 *   human (docs/runtime.md §8: those get runtime results);
 * - progress needs an invocation and comes from its execution kind;
 * - `turn_suspended` lists exactly the outstanding work, once each;
 * - `turn_failed{code:"model-call-limit"}` needs the budget to be spent.
 */

#define G_LOG_DOMAIN "natter-turn-reducer"

#include "natter-device.h"
#include "natter-json.h"
#include "natter-turn-reducer-private.h"
#include "natter-turn-schema.h"
#include "natter-store-error.h"

/* Helpers over the definition */

/* A turn event that breaks the turn's invariants. */
#define invariant(error, ...) \
  natter_set_error_false ((error), NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT, __VA_ARGS__)

static JsonObject *
get_config (NatterTurnState *state)
{
  return json_object_get_object_member (state->definition, "config");
}

static gint64
get_max_model_calls (NatterTurnState *state)
{
  return json_object_get_int_member (get_config (state), "maxModelCalls");
}

static gboolean
get_human_available (NatterTurnState *state)
{
  return json_object_get_boolean_member (get_config (state), "humanAvailable");
}

/* The refs the next model_call_requested must carry (docs/runtime.md §3), or
 * why there can be no next model call now. */
GPtrArray *
natter_turn_state_expected_request_refs (NatterTurnState  *state,
                                         const char      **out_previous_turn_id,
                                         GError          **error)
{
  g_autoptr(GPtrArray) refs = g_ptr_array_new_with_free_func (g_free);
  NatterTurnModelCall *last = natter_turn_state_last_model_call (state);

  *out_previous_turn_id = NULL;

  if (state->definition == NULL)
    {
      invariant (error, "No model call before turn_created");
      return NULL;
    }
  /* Terminal turns are immutable (docs/runtime.md §9). */
  if (state->terminal != NULL)
    {
      invariant (error, "The turn has ended; no model call can follow");
      return NULL;
    }

  if (last == NULL)
    {
      /* Call 0: ["context"?, "input"], "context" iff inline and non-empty,
       * plus contextRef iff the context is a reference (docs/runtime.md §3,
       * §11). */
      JsonNode *context = json_object_get_member (state->definition, "context");

      if (JSON_NODE_HOLDS_ARRAY (context))
        {
          if (json_array_get_length (json_node_get_array (context)) > 0)
            g_ptr_array_add (refs, g_strdup ("context"));
        }
      else
        {
          *out_previous_turn_id = natter_json_loose_string (json_node_get_object (context),
                                                            "previousTurnId");
        }
      g_ptr_array_add (refs, g_strdup ("input"));
    }
  else if (last->completed == NULL && last->failed == NULL)
    {
      /* Two open model calls. */
      invariant (error, "Model call %u is still open", last->index);
      return NULL;
    }
  else if (last->failed != NULL)
    {
      /* A re-issue after a failed (interrupted) call is [] (docs/runtime.md §3,
       * §10). */
    }
  else if (last->n_tool_calls == 0)
    {
      /* A response without tool calls is final: the turn completes. */
      invariant (error, "Model call %u returned no tool calls; the turn must complete",
                 last->index);
      return NULL;
    }
  else
    {
      /* Call N: ["assistant:N-1", toolResult refs in model order], and only
       * once every call of the batch has a result (docs/runtime.md §3, §8). */
      g_ptr_array_add (refs, g_strdup_printf ("assistant:%u", last->index));
      for (int i = 0; i < last->n_tool_calls; i++)
        {
          NatterTurnToolCall *call = g_ptr_array_index (state->tool_calls,
                                                        last->first_tool_call + i);

          if (call->result == NULL)
            {
              invariant (error, "Tool call “%s” of model call %u has no result yet",
                         call->id, last->index);
              return NULL;
            }
          g_ptr_array_add (refs, g_strconcat ("toolResult:", call->id, NULL));
        }
    }

  /* maxModelCalls counts every primary call, re-issues included
   * (docs/runtime.md §9). */
  if ((gint64) state->model_calls->len >= get_max_model_calls (state))
    {
      invariant (error, "The budget of %" G_GINT64_FORMAT " model calls is spent",
                 get_max_model_calls (state));
      return NULL;
    }

  g_ptr_array_add (refs, NULL);
  return g_steal_pointer (&refs);
}

/**
 * natter_turn_state_dup_next_request_refs:
 * @state: a state
 * @out_previous_turn_id: (out) (optional) (transfer full) (nullable): the
 *   `contextRef.previousTurnId` the next request must carry, or %NULL for
 *   none
 * @error: return location for a #GError
 *
 * The `request.messages` the next `model_call_requested` must carry
 * (docs/runtime.md §3): `["context"?, "input"]` for call 0,
 * `["assistant:N-1", "toolResult:<id>"…]` after a response with tool
 * calls, `[]` after a failed call.
 *
 * Returns: (transfer full) (nullable): the refs, or %NULL with
 *   %NATTER_STORE_ERROR_INVARIANT when no model call may follow now (open
 *   call, missing tool results, final response, spent budget, ended turn)
 */
GStrv
natter_turn_state_dup_next_request_refs (NatterTurnState  *state,
                                         char            **out_previous_turn_id,
                                         GError          **error)
{
  const char *previous_turn_id = NULL;
  GPtrArray *refs;

  g_return_val_if_fail (state != NULL, NULL);

  if (out_previous_turn_id != NULL)
    *out_previous_turn_id = NULL;
  refs = natter_turn_state_expected_request_refs (state, &previous_turn_id, error);
  if (refs == NULL)
    return NULL;
  if (out_previous_turn_id != NULL)
    *out_previous_turn_id = g_strdup (previous_turn_id);
  return (GStrv) g_ptr_array_free (refs, FALSE);
}

/* Event handlers. Each checks its invariants, then mutates through the
 * undo log; a failure after a mutation is rolled back by the caller. */

static gboolean
apply_turn_created (NatterTurnState  *state,
                    JsonObject       *event,
                    GError          **error)
{
  g_autoptr(GHashTable) tools_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  JsonObject *resolved;
  JsonArray *tools;

  resolved = json_object_get_object_member (json_object_get_object_member (event, "agent"),
                                            "resolved");
  tools = json_object_get_array_member (resolved, "tools");
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);

      g_hash_table_insert (tools_by_name,
                           (gpointer) json_object_get_string_member (tool, "name"), tool);
    }

  natter_undo_log_set_object (state->undo, &state->definition, event);
  natter_undo_log_set_pointer (state->undo, (gpointer *) &state->tools_by_name,
                               g_steal_pointer (&tools_by_name),
                               (GDestroyNotify) g_hash_table_unref);
  return TRUE;
}

static gboolean
apply_model_call_requested (NatterTurnState  *state,
                            JsonObject       *event,
                            GError          **error)
{
  g_autoptr(GPtrArray) expected = NULL;
  const char *previous_turn_id;
  gint64 index = json_object_get_int_member (event, "modelCallIndex");
  JsonObject *request = json_object_get_object_member (event, "request");
  JsonArray *messages = json_object_get_array_member (request, "messages");
  JsonNode *context_ref = json_object_get_member (request, "contextRef");
  NatterTurnModelCall *call;
  guint n;

  /* Indexes are 0, 1, 2… in order, never reused. */
  if (index != (gint64) state->model_calls->len)
    return invariant (error, "modelCallIndex %" G_GINT64_FORMAT " is out of order (expected %u)",
                      index, state->model_calls->len);

  /* No second open call, no call before every tool result, no call past
   * the budget or after a final response. */
  expected = natter_turn_state_expected_request_refs (state, &previous_turn_id, error);
  if (expected == NULL)
    return FALSE;

  /* The refs must match the transcript exactly, in the model's order
   * (expected is NULL-terminated). */
  n = json_array_get_length (messages);
  if (n != expected->len - 1)
    return invariant (error, "Model call %" G_GINT64_FORMAT " has %u message refs, expected %u",
                      index, n, expected->len - 1);
  for (guint i = 0; i < n; i++)
    if (!g_str_equal (json_array_get_string_element (messages, i),
                      g_ptr_array_index (expected, i)))
      return invariant (error, "Message ref %u of model call %" G_GINT64_FORMAT " is “%s”, expected “%s”",
                        i, index, json_array_get_string_element (messages, i),
                        (const char *) g_ptr_array_index (expected, i));

  /* contextRef iff call 0 of a turn whose context is a reference, and the
   * same reference. */
  if (previous_turn_id == NULL && context_ref != NULL)
    return invariant (error, "Model call %" G_GINT64_FORMAT " must not carry a contextRef", index);
  if (previous_turn_id != NULL &&
      (context_ref == NULL ||
       g_strcmp0 (natter_json_loose_string (json_node_get_object (context_ref), "previousTurnId"),
                  previous_turn_id) != 0))
    return invariant (error, "Model call %" G_GINT64_FORMAT " must carry contextRef {previousTurnId: “%s”}",
                      index, previous_turn_id);

  call = g_new0 (NatterTurnModelCall, 1);
  call->state = state;
  call->index = (guint) index;
  call->requested = json_object_ref (event);
  call->steps = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  natter_undo_log_append (state->undo, state->model_calls, call);
  return TRUE;
}

/* The open call named by @event, for step events, completions and
 * failures. */
static NatterTurnModelCall *
find_open_model_call (NatterTurnState  *state,
                      JsonObject       *event,
                      const char       *what,
                      GError          **error)
{
  gint64 index = json_object_get_int_member (event, "modelCallIndex");
  NatterTurnModelCall *call;

  /* No completion, failure or step without its request. */
  if (index >= (gint64) state->model_calls->len)
    {
      invariant (error, "%s for model call %" G_GINT64_FORMAT ", which was never requested",
                 what, index);
      return NULL;
    }
  call = g_ptr_array_index (state->model_calls, index);
  /* A call is closed once: never completed or failed twice, no steps after. */
  if (call->completed != NULL || call->failed != NULL)
    {
      invariant (error, "%s for model call %" G_GINT64_FORMAT ", which is already %s",
                 what, index, call->completed != NULL ? "completed" : "failed");
      return NULL;
    }
  return call;
}

static gboolean
apply_model_step_event (NatterTurnState  *state,
                        JsonObject       *event,
                        GError          **error)
{
  NatterTurnModelCall *call = find_open_model_call (state, event, "A step event", error);

  if (call == NULL)
    return FALSE;
  natter_undo_log_append (state->undo, call->steps, json_object_ref (event));
  return TRUE;
}

static gboolean
add_usage (NatterTurnState  *state,
           JsonObject       *usage,
           GError          **error)
{
  for (guint i = 0; i < N_USAGE; i++)
    {
      gint64 value;

      if (!json_object_has_member (usage, natter_turn_usage_fields[i]))
        continue;
      value = json_object_get_int_member (usage, natter_turn_usage_fields[i]);
      /* Counts are non-negative (schema); a sum past 2^63 is not a turn. */
      if (value > G_MAXINT64 - state->usage[i])
        return invariant (error, "The turn's %s overflow", natter_turn_usage_fields[i]);
      natter_undo_log_set_int64 (state->undo, &state->usage[i], state->usage[i] + value);
      if ((state->usage_present & (1 << i)) == 0)
        natter_undo_log_set_int (state->undo, &state->usage_present,
                                 state->usage_present | (1 << i));
    }
  return TRUE;
}

static gboolean
apply_model_call_completed (NatterTurnState  *state,
                            JsonObject       *event,
                            GError          **error)
{
  NatterTurnModelCall *call = find_open_model_call (state, event, "A completion", error);
  JsonObject *message;
  JsonNode *content;
  int first = state->tool_calls->len;
  int count = 0;

  if (call == NULL)
    return FALSE;

  message = json_object_get_object_member (event, "message");
  content = json_object_get_member (message, "content");
  if (JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonObject *part = json_array_get_object_element (parts, i);
          NatterTurnToolCall *tool_call;

          if (!g_str_equal (json_object_get_string_member (part, "type"), "tool-call"))
            continue;

          tool_call = g_new0 (NatterTurnToolCall, 1);
          tool_call->model_call_index = call->index;
          tool_call->order = count++;
          tool_call->part = json_object_ref (part);
          tool_call->id = json_object_get_string_member (part, "toolCallId");
          tool_call->name = json_object_get_string_member (part, "toolName");
          tool_call->progress = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

          /* Tool-call ids are unique within a response and across the turn:
           * results and refs are keyed by them. */
          if (g_hash_table_contains (state->tool_calls_by_id, tool_call->id))
            {
              invariant (error, "Tool call id “%s” is used twice in the turn", tool_call->id);
              natter_turn_tool_call_free (tool_call);
              return FALSE;
            }
          natter_undo_log_append (state->undo, state->tool_calls, tool_call);
          natter_undo_log_hash_insert (state->undo, state->tool_calls_by_id,
                                       (gpointer) tool_call->id, tool_call);
        }
    }

  if (!add_usage (state, json_object_get_object_member (event, "usage"), error))
    return FALSE;

  natter_undo_log_set_int (state->undo, &call->first_tool_call, first);
  natter_undo_log_set_int (state->undo, &call->n_tool_calls, count);
  natter_undo_log_set_int (state->undo, &state->n_unfinished, state->n_unfinished + count);
  natter_undo_log_set_object (state->undo, &call->completed, event);
  return TRUE;
}

static gboolean
apply_model_call_failed (NatterTurnState  *state,
                         JsonObject       *event,
                         GError          **error)
{
  NatterTurnModelCall *call = find_open_model_call (state, event, "A failure", error);

  if (call == NULL)
    return FALSE;
  natter_undo_log_set_object (state->undo, &call->failed, event);
  return TRUE;
}

/* Tool-call records name a known call that is not finished yet. */
static NatterTurnToolCall *
find_unfinished_tool_call (NatterTurnState  *state,
                           const char       *id,
                           const char       *what,
                           GError          **error)
{
  NatterTurnToolCall *call = g_hash_table_lookup (state->tool_calls_by_id, id);

  /* No record for a call the model never made. */
  if (call == NULL)
    {
      invariant (error, "%s for unknown tool call “%s”", what, id);
      return NULL;
    }
  /* A result is terminal for its call (docs/runtime.md §3). */
  if (call->result != NULL)
    {
      invariant (error, "%s for tool call “%s” after its result", what, id);
      return NULL;
    }
  return call;
}

/* find_unfinished_tool_call() of the call an event names by its
 * `toolCallId`. */
static NatterTurnToolCall *
find_event_tool_call (NatterTurnState  *state,
                      JsonObject       *event,
                      const char       *what,
                      GError          **error)
{
  return find_unfinished_tool_call (state, json_object_get_string_member (event, "toolCallId"), what, error);
}

static gboolean
check_tool_name (NatterTurnToolCall  *call,
                 JsonObject          *event,
                 GError             **error)
{
  const char *name = json_object_get_string_member (event, "toolName");

  /* Records repeat the name the model used; a different one is another call. */
  if (!g_str_equal (name, call->name))
    return invariant (error, "Tool call “%s” is “%s”, not “%s”", call->id, call->name, name);
  return TRUE;
}

static gboolean
apply_tool_permission_required (NatterTurnState  *state,
                                JsonObject       *event,
                                GError          **error)
{
  NatterTurnToolCall *call;

  call = find_event_tool_call (state, event, "A permission requirement", error);
  if (call == NULL || !check_tool_name (call, event, error))
    return FALSE;
  /* Asked once per call, and never after the tool already ran. */
  if (call->required != NULL)
    return invariant (error, "Tool call “%s” requires permission twice", call->id);
  if (call->invocation != NULL)
    return invariant (error, "Tool call “%s” requires permission after its invocation", call->id);

  natter_undo_log_set_object (state->undo, &call->required, event);
  natter_undo_log_set_int (state->undo, &state->n_pending_permissions,
                           state->n_pending_permissions + 1);
  return TRUE;
}

static gboolean
check_classifiable (NatterTurnToolCall  *call,
                    GError             **error)
{
  /* The classifier only sees calls that require permission
   * (docs/runtime.md §7). */
  if (call->required == NULL)
    return invariant (error, "Tool call “%s” is classified but requires no permission", call->id);
  /* Its opinion feeds the decision, so it comes before it. */
  if (call->resolved != NULL)
    return invariant (error, "Tool call “%s” is classified after its resolution", call->id);
  /* One classifier outcome per call; recovery reuses it. */
  if (call->classified != NULL || call->classification_failed != NULL)
    return invariant (error, "Tool call “%s” is classified twice", call->id);
  return TRUE;
}

static gboolean
apply_tool_permission_classified (NatterTurnState  *state,
                                  JsonObject       *event,
                                  GError          **error)
{
  NatterTurnToolCall *call;

  call = find_event_tool_call (state, event, "A classification", error);
  if (call == NULL || !check_classifiable (call, error))
    return FALSE;
  natter_undo_log_set_object (state->undo, &call->classified, event);
  return TRUE;
}

static gboolean
apply_tool_permission_classification_failed (NatterTurnState  *state,
                                             JsonObject       *event,
                                             GError          **error)
{
  JsonArray *ids = json_object_get_array_member (event, "toolCallIds");

  for (guint i = 0; i < json_array_get_length (ids); i++)
    {
      NatterTurnToolCall *call;

      /* A repeated id finds its own mark from earlier in the list. */
      call = find_unfinished_tool_call (state, json_array_get_string_element (ids, i),
                                        "A classification failure", error);
      if (call == NULL || !check_classifiable (call, error))
        return FALSE;
      natter_undo_log_set_object (state->undo, &call->classification_failed, event);
    }
  return TRUE;
}

static gboolean
apply_tool_permission_resolved (NatterTurnState  *state,
                                JsonObject       *event,
                                GError          **error)
{
  const char *decision = json_object_get_string_member (event, "decision");
  const char *source = json_object_get_string_member (event, "source");
  NatterTurnToolCall *call;

  call = find_event_tool_call (state, event, "A permission resolution", error);
  if (call == NULL)
    return FALSE;
  /* Only a call that required permission gets a decision. */
  if (call->required == NULL)
    return invariant (error, "Tool call “%s” is resolved but requires no permission", call->id);
  /* One effective decision per call: a second one would conflict. */
  if (call->resolved != NULL)
    return invariant (error, "Tool call “%s” already has an effective decision", call->id);
  /* The classifier can only allow what it classified as allow
   * (docs/runtime.md §7: never run automatically without it). */
  if (g_str_equal (source, "classifier") &&
      (call->classified == NULL ||
       (g_str_equal (decision, "allow") &&
        !g_str_equal (json_object_get_string_member (call->classified, "decision"), "allow"))))
    return invariant (error, "Tool call “%s” is resolved by a classifier that did not decide so",
                      call->id);
  /* A human decides only where one is available… */
  if (g_str_equal (source, "human") && !get_human_available (state))
    return invariant (error, "Tool call “%s” is resolved by a human in a turn without one",
                      call->id);
  /* …and the lack of one can only deny. */
  if (g_str_equal (source, "human_unavailable") &&
      (get_human_available (state) || !g_str_equal (decision, "deny")))
    return invariant (error, "Tool call “%s”: human_unavailable must deny, in a turn without a human",
                      call->id);

  natter_undo_log_set_object (state->undo, &call->resolved, event);
  natter_undo_log_set_int (state->undo, &state->n_pending_permissions,
                           state->n_pending_permissions - 1);
  return TRUE;
}

static gboolean
apply_tool_invocation_requested (NatterTurnState  *state,
                                 JsonObject       *event,
                                 GError          **error)
{
  const char *execution = json_object_get_string_member (event, "execution");
  NatterTurnToolCall *call;
  JsonObject *tool;

  call = find_event_tool_call (state, event, "An invocation", error);
  if (call == NULL || !check_tool_name (call, event, error))
    return FALSE;
  /* A side effect is requested once (docs/runtime.md §10: never re-run). */
  if (call->invocation != NULL)
    return invariant (error, "Tool call “%s” is invoked twice", call->id);
  /* A call that needs permission runs only once allowed. */
  if (call->required != NULL && call->resolved == NULL)
    return invariant (error, "Tool call “%s” is invoked before its permission is resolved",
                      call->id);
  if (call->resolved != NULL &&
      !g_str_equal (json_object_get_string_member (call->resolved, "decision"), "allow"))
    return invariant (error, "Tool call “%s” is invoked although it was denied", call->id);

  /* Only tools of the snapshot run, as the snapshot describes them;
   * unknown tools get runtime results instead (docs/runtime.md §8). */
  tool = g_hash_table_lookup (state->tools_by_name, call->name);
  if (tool == NULL)
    return invariant (error, "Tool call “%s” invokes “%s”, which is not in the agent snapshot",
                      call->id, call->name);
  if (!g_str_equal (json_object_get_string_member (tool, "toolId"),
                    json_object_get_string_member (event, "toolId")) ||
      !g_str_equal (json_object_get_string_member (tool, "execution"), execution))
    return invariant (error, "Tool call “%s” invokes “%s” unlike the agent snapshot describes it",
                      call->id, call->name);
  /* Without a human, requiresHuman tools get an immediate error result
   * (docs/runtime.md §8). */
  if (json_object_get_boolean_member (tool, "requiresHuman") && !get_human_available (state))
    return invariant (error, "Tool call “%s” invokes a tool that needs a human in a turn without one",
                      call->id);

  natter_undo_log_set_object (state->undo, &call->invocation, event);
  if (g_str_equal (execution, "async"))
    natter_undo_log_set_int (state->undo, &state->n_pending_async, state->n_pending_async + 1);
  return TRUE;
}

static gboolean
apply_tool_progress (NatterTurnState  *state,
                     JsonObject       *event,
                     GError          **error)
{
  NatterTurnToolCall *call;

  /* No progress after a result (in find_unfinished_tool_call()). */
  call = find_event_tool_call (state, event, "Progress", error);
  if (call == NULL)
    return FALSE;
  /* Progress comes from a running tool, reported by its own kind. */
  if (call->invocation == NULL)
    return invariant (error, "Progress for tool call “%s” before its invocation", call->id);
  if (!g_str_equal (json_object_get_string_member (event, "source"),
                    json_object_get_string_member (call->invocation, "execution")))
    return invariant (error, "Progress for tool call “%s” from the wrong source", call->id);

  natter_undo_log_append (state->undo, call->progress, json_object_ref (event));
  return TRUE;
}

static gboolean
apply_tool_result (NatterTurnState  *state,
                   JsonObject       *event,
                   GError          **error)
{
  const char *source = json_object_get_string_member (event, "source");
  NatterTurnToolCall *call;

  /* Two results for one call are refused in find_unfinished_tool_call(). */
  call = find_event_tool_call (state, event, "A result", error);
  if (call == NULL || !check_tool_name (call, event, error))
    return FALSE;
  /* sync/async results come from an invocation of that kind: no async
   * result for a sync tool, nor for a call that never ran. `runtime`
   * results (denial, unknown tool, interruption, cancel) need none. */
  if (!g_str_equal (source, "runtime"))
    {
      if (call->invocation == NULL)
        return invariant (error, "A %s result for tool call “%s”, which was never invoked",
                          source, call->id);
      if (!g_str_equal (source, json_object_get_string_member (call->invocation, "execution")))
        return invariant (error, "A %s result for tool call “%s”, a %s tool",
                          source, call->id,
                          json_object_get_string_member (call->invocation, "execution"));
    }

  if (natter_turn_tool_call_awaits_permission (call))
    natter_undo_log_set_int (state->undo, &state->n_pending_permissions,
                             state->n_pending_permissions - 1);
  if (natter_turn_tool_call_awaits_async_result (call))
    natter_undo_log_set_int (state->undo, &state->n_pending_async, state->n_pending_async - 1);
  natter_undo_log_set_int (state->undo, &state->n_unfinished, state->n_unfinished - 1);
  natter_undo_log_set_object (state->undo, &call->result, event);
  return TRUE;
}

static gboolean
check_pending_list (NatterTurnState  *state,
                    JsonArray        *list,
                    gboolean          async_tools,
                    GError          **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  const char *what = async_tools ? "pendingAsyncTools" : "pendingPermissions";
  guint n = json_array_get_length (list);
  int expected = async_tools ? state->n_pending_async : state->n_pending_permissions;

  for (guint i = 0; i < n; i++)
    {
      JsonObject *entry = json_array_get_object_element (list, i);
      const char *id = json_object_get_string_member (entry, "toolCallId");
      NatterTurnToolCall *call = g_hash_table_lookup (state->tool_calls_by_id, id);

      if (call == NULL)
        return invariant (error, "%s lists unknown tool call “%s”", what, id);
      if (!g_hash_table_add (seen, (gpointer) id))
        return invariant (error, "%s lists tool call “%s” twice", what, id);
      if (!check_tool_name (call, entry, error))
        return FALSE;
      if (async_tools
          ? (!natter_turn_tool_call_awaits_async_result (call) ||
             !g_str_equal (json_object_get_string_member (entry, "toolId"),
                           json_object_get_string_member (call->invocation, "toolId")))
          : !natter_turn_tool_call_awaits_permission (call))
        return invariant (error, "%s lists tool call “%s”, which is not awaiting that", what, id);
    }
  /* Each listed call is outstanding and listed once, so equal counts mean
   * the snapshot is complete (docs/runtime.md §3: full snapshot of outstanding
   * work). */
  if ((int) n != expected)
    return invariant (error, "%s lists %u calls, but %d are outstanding", what, n, expected);
  return TRUE;
}

static gboolean
apply_turn_suspended (NatterTurnState  *state,
                      JsonObject       *event,
                      GError          **error)
{
  NatterTurnModelCall *last = natter_turn_state_last_model_call (state);

  /* A turn rests only between model calls. */
  if (last != NULL && last->completed == NULL && last->failed == NULL)
    return invariant (error, "Suspension while model call %u is open", last->index);
  if (!check_pending_list (state, json_object_get_array_member (event, "pendingPermissions"),
                           FALSE, error) ||
      !check_pending_list (state, json_object_get_array_member (event, "pendingAsyncTools"),
                           TRUE, error))
    return FALSE;

  natter_undo_log_set_object (state->undo, &state->last_suspension, event);
  return TRUE;
}

static gboolean
apply_terminal (NatterTurnState  *state,
                JsonObject       *event,
                GError          **error)
{
  const char *type = json_object_get_string_member (event, "type");
  NatterTurnModelCall *last = natter_turn_state_last_model_call (state);

  /* An open model call is closed by model_call_failed first
   * (docs/runtime.md §9). */
  if (last != NULL && last->completed == NULL && last->failed == NULL)
    return invariant (error, "%s while model call %u is open", type, last->index);
  /* Every call has a result before the end (docs/runtime.md §9: synthetic ones
   * on cancel). */
  if (state->n_unfinished > 0)
    return invariant (error, "%s while %d tool calls lack results", type, state->n_unfinished);

  if (g_str_equal (type, "turn_completed"))
    {
      /* Completion follows a final response: completed, without tool calls. */
      if (last == NULL || last->completed == NULL)
        return invariant (error, "turn_completed without a completed model call");
      if (last->n_tool_calls > 0)
        return invariant (error, "turn_completed although model call %u has tool calls",
                          last->index);
    }
  else if (g_str_equal (type, "turn_failed"))
    {
      const char *code = natter_json_loose_string (event, "code");

      /* model-call-limit means the budget is spent (docs/runtime.md §9). */
      if (g_strcmp0 (code, "model-call-limit") == 0 &&
          (gint64) state->model_calls->len < get_max_model_calls (state))
        return invariant (error, "model-call-limit after %u of %" G_GINT64_FORMAT " model calls",
                          state->model_calls->len, get_max_model_calls (state));
    }

  natter_undo_log_set_object (state->undo, &state->terminal, event);
  return TRUE;
}

static const struct
{
  const char *type;
  gboolean (*apply) (NatterTurnState *state, JsonObject *event, GError **error);
} handlers[] = {
  { "turn_created", apply_turn_created },
  { "model_call_requested", apply_model_call_requested },
  { "model_step_event", apply_model_step_event },
  { "model_call_completed", apply_model_call_completed },
  { "model_call_failed", apply_model_call_failed },
  { "tool_permission_required", apply_tool_permission_required },
  { "tool_permission_classified", apply_tool_permission_classified },
  { "tool_permission_classification_failed", apply_tool_permission_classification_failed },
  { "tool_permission_resolved", apply_tool_permission_resolved },
  { "tool_invocation_requested", apply_tool_invocation_requested },
  { "tool_progress", apply_tool_progress },
  { "tool_result", apply_tool_result },
  { "turn_suspended", apply_turn_suspended },
  { "turn_completed", apply_terminal },
  { "turn_failed", apply_terminal },
  { "turn_cancelled", apply_terminal },
};

/* Applies one event through the undo log, without committing. */
static gboolean
apply_one (NatterTurnState  *state,
           JsonObject       *event,
           GError          **error)
{
  const char *type;
  const char *turn_id;

  /* Unknown types and versions fail with the schema's own codes. */
  if (!natter_turn_event_validate (event, NULL, error))
    return FALSE;
  type = json_object_get_string_member (event, "type");
  turn_id = json_object_get_string_member (event, "turnId");

  if (state->definition == NULL)
    {
      /* turn_created is the first event. */
      if (!g_str_equal (type, "turn_created"))
        return invariant (error, "The first event is %s, not turn_created", type);
    }
  else
    {
      /* Nothing follows a terminal event, not even another one. */
      if (state->terminal != NULL)
        return invariant (error, "%s after the terminal %s", type,
                          json_object_get_string_member (state->terminal, "type"));
      /* turn_created is the only definition. */
      if (g_str_equal (type, "turn_created"))
        return invariant (error, "A second turn_created");
      /* Every event belongs to the turn that turn_created defined. */
      if (!g_str_equal (turn_id, natter_turn_state_get_turn_id (state)))
        return invariant (error, "The event belongs to turn “%s”, not “%s”",
                          turn_id, natter_turn_state_get_turn_id (state));
    }

  for (guint i = 0; i < G_N_ELEMENTS (handlers); i++)
    if (g_str_equal (handlers[i].type, type))
      {
        if (!handlers[i].apply (state, event, error))
          return FALSE;
        break;
      }

  /* Which device runs the turn: the last event that says so
   * (docs/format.md §4.5). */
  if (json_object_has_member (event, NATTER_DEVICE_MEMBER))
    natter_undo_log_set_object (state->undo, &state->device,
                                json_object_get_object_member (event, NATTER_DEVICE_MEMBER));
  natter_undo_log_set_int64 (state->undo, &state->n_events, state->n_events + 1);
  natter_undo_log_set_int (state->undo, &state->last_event_is_suspension,
                           g_str_equal (type, "turn_suspended"));
  return TRUE;
}

/* apply_one() of one node of a list, at 1-based @position: the error
 * names the position, and @total too unless it is 0. Not committed. */
static gboolean
apply_node (NatterTurnState  *state,
            JsonNode         *node,
            guint             position,
            guint             total,
            GError          **error)
{
  g_autofree char *where = NULL;
  gboolean is_object = node != NULL && JSON_NODE_HOLDS_OBJECT (node);

  if (is_object && apply_one (state, json_node_get_object (node), error))
    return TRUE;
  where = total > 0 ? g_strdup_printf ("Event %u of %u", position, total)
                    : g_strdup_printf ("Event %u", position);
  if (!is_object)
    g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA, "%s is not an object", where);
  else
    g_prefix_error (error, "%s: ", where);
  return FALSE;
}

/**
 * natter_turn_state_apply:
 * @state: a state
 * @event: (transfer none): the next event of the turn; the state keeps a
 *   reference, so it must not be modified afterwards
 * @error: return location for a #GError
 *
 * Reduces one more event into @state (docs/runtime.md §4). The event is
 * validated with natter_turn_event_validate() and checked against every
 * invariant of docs/runtime.md §4. Applying is atomic: on error @state is
 * unchanged.
 *
 * Returns: %TRUE if applied; else %FALSE with %NATTER_STORE_ERROR and
 *   %NATTER_STORE_ERROR_SCHEMA, %NATTER_STORE_ERROR_UNKNOWN_TYPE or
 *   %NATTER_STORE_ERROR_UNSUPPORTED_VERSION (a malformed event) or
 *   %NATTER_STORE_ERROR_INVARIANT (a well-formed event that cannot follow
 *   the history).
 */
gboolean
natter_turn_state_apply (NatterTurnState  *state,
                         JsonObject       *event,
                         GError          **error)
{
  g_return_val_if_fail (state != NULL, FALSE);
  g_return_val_if_fail (event != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!apply_one (state, event, error))
    {
      natter_undo_log_rollback (state->undo);
      return FALSE;
    }
  natter_undo_log_commit (state->undo);
  return TRUE;
}

/**
 * natter_turn_state_apply_batch:
 * @state: a state
 * @events: (element-type JsonNode) (transfer none): object nodes, the next
 *   events of the turn in order; the state keeps references to them
 * @error: return location for a #GError
 *
 * Reduces a batch of events into @state, all or nothing: on error @state
 * is exactly as before the call. This is the runtime's append gate
 * (docs/runtime.md §4): a batch is reduced against the in-memory history
 * before it is written. The cost is linear in the batch, independent of
 * the history's length.
 *
 * Returns: %TRUE if every event applied; else %FALSE with the error of
 *   natter_turn_state_apply(), prefixed with the event's position in the
 *   batch (%NATTER_STORE_ERROR_SCHEMA for a node that is not an object).
 */
gboolean
natter_turn_state_apply_batch (NatterTurnState  *state,
                               GPtrArray        *events,
                               GError          **error)
{
  g_return_val_if_fail (state != NULL, FALSE);
  g_return_val_if_fail (events != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (guint i = 0; i < events->len; i++)
    if (!apply_node (state, g_ptr_array_index (events, i), i + 1, events->len, error))
      {
        natter_undo_log_rollback (state->undo);
        return FALSE;
      }
  natter_undo_log_commit (state->undo);
  return TRUE;
}

/**
 * natter_turn_reduce:
 * @events: (element-type JsonNode) (transfer none): the object nodes of a
 *   whole turn, in file order
 * @error: return location for a #GError
 *
 * reduce_turn() of docs/runtime.md §4: a pure function from the event list
 * to the reduced state, linear in the number of events. Used unchanged by
 * the runtime, the CLI and the UI.
 *
 * Returns: (transfer full) (nullable): the state, or %NULL with the error
 *   of natter_turn_state_apply() prefixed with the 1-based event number.
 *   An empty list reduces to %NULL with %NATTER_STORE_ERROR_INVARIANT
 *   (turn_created is missing).
 */
NatterTurnState *
natter_turn_reduce (GPtrArray  *events,
                    GError    **error)
{
  g_autoptr(NatterTurnState) state = NULL;

  g_return_val_if_fail (events != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* A turn without its definition is not a turn. */
  if (events->len == 0)
    {
      invariant (error, "The turn has no turn_created event");
      return NULL;
    }

  state = natter_turn_state_new ();
  for (guint i = 0; i < events->len; i++)
    {
      /* Committed one event at a time: the undo log stays small however
       * long the turn. */
      if (!apply_node (state, g_ptr_array_index (events, i), i + 1, 0, error))
        {
          natter_undo_log_rollback (state->undo);
          return NULL;
        }
      natter_undo_log_commit (state->undo);
    }
  return g_steal_pointer (&state);
}
