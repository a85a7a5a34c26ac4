/* natter-turn-state-debug.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Comparison and diagnostics of #NatterTurnState: a dump of everything the
 * state holds, for tests and debugging, and the equality built on it.
 */

#define G_LOG_DOMAIN "natter-turn-reducer"

#include "natter-turn-reducer-private.h"

static void
add_int (JsonBuilder *builder,
         const char  *member,
         gint64       value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_int_value (builder, value);
}

static void
add_boolean (JsonBuilder *builder,
             const char  *member,
             gboolean     value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_boolean_value (builder, value);
}

static void
add_object (JsonBuilder *builder,
            const char  *member,
            JsonObject  *object)
{
  JsonNode *node = json_node_alloc ();

  json_builder_set_member_name (builder, member);
  if (object != NULL)
    json_node_init_object (node, object);
  else
    json_node_init_null (node);
  json_builder_add_value (builder, node);
}

static void
add_objects (JsonBuilder *builder,
             const char  *member,
             GPtrArray   *objects)
{
  json_builder_set_member_name (builder, member);
  json_builder_begin_array (builder);
  for (guint i = 0; i < objects->len; i++)
    json_builder_add_value (builder,
                            json_node_init_object (json_node_alloc (),
                                                   g_ptr_array_index (objects, i)));
  json_builder_end_array (builder);
}

/**
 * natter_turn_state_to_debug_json:
 * @state: a state
 *
 * Dumps everything the state holds (every event it kept, every counter)
 * as one JSON value. The format is for tests and debugging only; it is
 * not stable and is never stored.
 *
 * Returns: (transfer full): the dump
 */
JsonNode *
natter_turn_state_to_debug_json (NatterTurnState *state)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonObject) usage = NULL;

  g_return_val_if_fail (state != NULL, NULL);

  json_builder_begin_object (builder);
  add_int (builder, "nEvents", state->n_events);
  add_object (builder, "definition", state->definition);

  json_builder_set_member_name (builder, "modelCalls");
  json_builder_begin_array (builder);
  for (guint i = 0; i < state->model_calls->len; i++)
    {
      NatterTurnModelCall *call = g_ptr_array_index (state->model_calls, i);

      json_builder_begin_object (builder);
      add_int (builder, "index", call->index);
      add_object (builder, "requested", call->requested);
      add_objects (builder, "steps", call->steps);
      add_object (builder, "completed", call->completed);
      add_object (builder, "failed", call->failed);
      add_int (builder, "firstToolCall", call->first_tool_call);
      add_int (builder, "nToolCalls", call->n_tool_calls);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "toolCalls");
  json_builder_begin_array (builder);
  for (guint i = 0; i < state->tool_calls->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (state->tool_calls, i);

      json_builder_begin_object (builder);
      add_int (builder, "modelCallIndex", call->model_call_index);
      add_int (builder, "order", call->order);
      add_boolean (builder, "indexed", g_hash_table_lookup (state->tool_calls_by_id, call->id) == call);
      add_object (builder, "part", call->part);
      add_object (builder, "required", call->required);
      add_object (builder, "classified", call->classified);
      add_object (builder, "classificationFailed", call->classification_failed);
      add_object (builder, "resolved", call->resolved);
      add_object (builder, "invocation", call->invocation);
      add_objects (builder, "progress", call->progress);
      add_object (builder, "result", call->result);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  add_int (builder, "nIndexedToolCalls", g_hash_table_size (state->tool_calls_by_id));
  add_int (builder, "nSnapshotTools",
           state->tools_by_name != NULL ? (gint64) g_hash_table_size (state->tools_by_name) : -1);
  add_object (builder, "lastSuspension", state->last_suspension);
  add_object (builder, "terminal", state->terminal);
  add_boolean (builder, "lastEventIsSuspension", state->last_event_is_suspension);
  add_int (builder, "nUnfinished", state->n_unfinished);
  add_int (builder, "nPendingPermissions", state->n_pending_permissions);
  add_int (builder, "nPendingAsync", state->n_pending_async);
  usage = natter_turn_state_dup_usage (state);
  add_object (builder, "usage", usage);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder,
                                 natter_turn_status_to_string (natter_derive_turn_status (state)));
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/**
 * natter_turn_state_equal:
 * @a: a state
 * @b: another state
 *
 * Whether two states hold the same reduced turn (equal debug dumps, see
 * natter_turn_state_to_debug_json()): e.g. a state advanced live, event by
 * event, against a full replay of the same file.
 *
 * Returns: %TRUE if equal
 */
gboolean
natter_turn_state_equal (NatterTurnState *a,
                         NatterTurnState *b)
{
  g_autoptr(JsonNode) dump_a = NULL;
  g_autoptr(JsonNode) dump_b = NULL;
  g_autofree char *text_a = NULL;
  g_autofree char *text_b = NULL;

  g_return_val_if_fail (a != NULL, FALSE);
  g_return_val_if_fail (b != NULL, FALSE);

  dump_a = natter_turn_state_to_debug_json (a);
  dump_b = natter_turn_state_to_debug_json (b);
  text_a = json_to_string (dump_a, FALSE);
  text_b = json_to_string (dump_b, FALSE);
  return g_str_equal (text_a, text_b);
}
