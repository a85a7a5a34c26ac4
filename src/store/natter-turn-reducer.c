/* natter-turn-reducer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * reduce_turn() and derive_turn_status() of turn-runtime.md §4.
 *
 * The state keeps references to the applied event objects rather than
 * copies: events are immutable once applied, and a reference costs nothing.
 *
 * Atomicity: every mutation goes through a small undo log (set a field,
 * append to an array, insert into a hash table). A failed event or batch
 * replays the log backwards; a successful one drops it. A batch therefore
 * costs what it touches, never a copy of the history, so the runtime can
 * use the reducer as its append gate on a turn of any length.
 *
 * Invariants where the spec is loose, decided here (each is also commented
 * where it is enforced):
 * - a mismatched `turnId` is %NATTER_STORE_ERROR_INVARIANT (it is in the
 *   §4 list); the schema is checked with no expected id;
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
 *   human (§8: those get runtime results);
 * - progress needs an invocation and comes from its execution kind;
 * - `turn_suspended` lists exactly the outstanding work, once each;
 * - `turn_failed{code:"model-call-limit"}` needs the budget to be spent.
 */

#define G_LOG_DOMAIN "natter-turn-reducer"

#include "natter-json.h"
#include "natter-turn-reducer.h"
#include "natter-turn-schema.h"

enum
{
  USAGE_INPUT,
  USAGE_OUTPUT,
  USAGE_TOTAL,
  USAGE_REASONING,
  USAGE_CACHED_INPUT,
  N_USAGE
};

static const char * const usage_fields[N_USAGE] = {
  "inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens",
};

struct _NatterTurnModelCall
{
  NatterTurnState *state;        /* not owned: the state owns the call */
  guint            index;
  JsonObject      *requested;    /* model_call_requested */
  GPtrArray       *steps;        /* model_step_event objects */
  JsonObject      *completed;    /* model_call_completed, or NULL */
  JsonObject      *failed;       /* model_call_failed, or NULL */
  int              first_tool_call;
  int              n_tool_calls;
};

struct _NatterTurnToolCall
{
  guint       model_call_index;
  guint       order;
  JsonObject *part;              /* the tool-call content part */
  const char *id;                /* owned by part */
  const char *name;              /* owned by part */
  JsonObject *required;          /* tool_permission_required */
  JsonObject *classified;        /* tool_permission_classified */
  JsonObject *classification_failed;
  JsonObject *resolved;          /* tool_permission_resolved */
  JsonObject *invocation;        /* tool_invocation_requested */
  GPtrArray  *progress;          /* tool_progress objects */
  JsonObject *result;            /* tool_result */
};

struct _NatterTurnState
{
  gatomicrefcount  ref_count;

  JsonObject      *definition;        /* turn_created */
  GHashTable      *tools_by_name;     /* name → descriptor, owned by definition */
  GPtrArray       *model_calls;       /* NatterTurnModelCall, by index */
  GPtrArray       *tool_calls;        /* NatterTurnToolCall, in model order */
  GHashTable      *tool_calls_by_id;  /* id → NatterTurnToolCall */
  JsonObject      *last_suspension;
  JsonObject      *terminal;
  gint64           n_events;
  int              last_event_is_suspension;
  int              n_unfinished;      /* tool calls without a result */
  int              n_pending_permissions;
  int              n_pending_async;
  gint64           usage[N_USAGE];
  int              usage_present;     /* bit i set: usage_fields[i] was reported */

  GArray          *undo;              /* UndoEntry of the event or batch being applied */
};

G_DEFINE_BOXED_TYPE (NatterTurnState, natter_turn_state,
                     natter_turn_state_ref, natter_turn_state_unref)

/* Undo log */

typedef enum
{
  UNDO_INT,
  UNDO_INT64,
  UNDO_POINTER,
  UNDO_APPEND,
  UNDO_HASH_INSERT,
} UndoKind;

typedef struct
{
  UndoKind       kind;
  gpointer       target;
  union
  {
    int          i;
    gint64       i64;
    gpointer     pointer;
  } old;
  GDestroyNotify destroy;
} UndoEntry;

static void
log_entry (NatterTurnState *state,
           UndoEntry        entry)
{
  g_array_append_val (state->undo, entry);
}

static void
set_int (NatterTurnState *state,
         int             *target,
         int              value)
{
  log_entry (state, (UndoEntry) { .kind = UNDO_INT, .target = target, .old.i = *target });
  *target = value;
}

static void
set_int64 (NatterTurnState *state,
           gint64          *target,
           gint64           value)
{
  log_entry (state, (UndoEntry) { .kind = UNDO_INT64, .target = target, .old.i64 = *target });
  *target = value;
}

/* Takes ownership of @value; the old value lives in the log until commit. */
static void
set_pointer (NatterTurnState *state,
             gpointer        *target,
             gpointer         value,
             GDestroyNotify   destroy)
{
  log_entry (state, (UndoEntry) {
    .kind = UNDO_POINTER, .target = target, .old.pointer = *target, .destroy = destroy
  });
  *target = value;
}

static void
set_object (NatterTurnState  *state,
            JsonObject      **target,
            JsonObject       *value)
{
  set_pointer (state, (gpointer *) target, json_object_ref (value),
               (GDestroyNotify) json_object_unref);
}

/* Takes ownership of @item; @array must free its elements. */
static void
append (NatterTurnState *state,
        GPtrArray       *array,
        gpointer         item)
{
  g_ptr_array_add (array, item);
  log_entry (state, (UndoEntry) { .kind = UNDO_APPEND, .target = array });
}

static void
hash_insert (NatterTurnState *state,
             GHashTable      *table,
             gpointer         key,
             gpointer         value)
{
  g_hash_table_insert (table, key, value);
  log_entry (state, (UndoEntry) { .kind = UNDO_HASH_INSERT, .target = table, .old.pointer = key });
}

static void
undo_commit (NatterTurnState *state)
{
  for (guint i = 0; i < state->undo->len; i++)
    {
      UndoEntry *entry = &g_array_index (state->undo, UndoEntry, i);

      if (entry->kind == UNDO_POINTER && entry->old.pointer != NULL)
        entry->destroy (entry->old.pointer);
    }
  g_array_set_size (state->undo, 0);
}

/* Backwards, so that a field of an entry appended in the same batch is
 * restored before the entry itself goes. */
static void
undo_rollback (NatterTurnState *state)
{
  for (guint i = state->undo->len; i > 0; i--)
    {
      UndoEntry *entry = &g_array_index (state->undo, UndoEntry, i - 1);

      switch (entry->kind)
        {
        case UNDO_INT:
          *(int *) entry->target = entry->old.i;
          break;
        case UNDO_INT64:
          *(gint64 *) entry->target = entry->old.i64;
          break;
        case UNDO_POINTER:
          {
            gpointer *target = entry->target;

            if (*target != NULL)
              entry->destroy (*target);
            *target = entry->old.pointer;
          }
          break;
        case UNDO_APPEND:
          {
            GPtrArray *array = entry->target;

            g_ptr_array_remove_index (array, array->len - 1);
          }
          break;
        case UNDO_HASH_INSERT:
          g_hash_table_remove (entry->target, entry->old.pointer);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  g_array_set_size (state->undo, 0);
}

/* Entries */

static void
model_call_free (NatterTurnModelCall *call)
{
  g_clear_pointer (&call->requested, json_object_unref);
  g_clear_pointer (&call->steps, g_ptr_array_unref);
  g_clear_pointer (&call->completed, json_object_unref);
  g_clear_pointer (&call->failed, json_object_unref);
  g_free (call);
}

static void
tool_call_free (NatterTurnToolCall *call)
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
 * natter_turn_state_new:
 *
 * Creates the empty state that natter_turn_state_apply() advances, event
 * by event, into the reduced turn of turn-runtime.md §4.
 *
 * Returns: (transfer full): a new state with no events
 */
NatterTurnState *
natter_turn_state_new (void)
{
  NatterTurnState *state = g_new0 (NatterTurnState, 1);

  g_atomic_ref_count_init (&state->ref_count);
  state->model_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) model_call_free);
  state->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) tool_call_free);
  state->tool_calls_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  state->undo = g_array_new (FALSE, FALSE, sizeof (UndoEntry));
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

  g_assert (state->undo->len == 0);
  g_array_unref (state->undo);
  g_hash_table_unref (state->tool_calls_by_id);
  /* Tool calls before model calls: nothing points back, but keep the
   * reverse order of creation anyway. */
  g_ptr_array_unref (state->tool_calls);
  g_ptr_array_unref (state->model_calls);
  g_clear_pointer (&state->tools_by_name, g_hash_table_unref);
  g_clear_pointer (&state->definition, json_object_unref);
  g_clear_pointer (&state->last_suspension, json_object_unref);
  g_clear_pointer (&state->terminal, json_object_unref);
  g_free (state);
}

/* Helpers over the definition */

static gboolean
invariant (GError     **error,
           const char  *format,
           ...) G_GNUC_PRINTF (2, 3);

static gboolean
invariant (GError     **error,
           const char  *format,
           ...)
{
  va_list args;

  if (error == NULL)
    return FALSE;
  va_start (args, format);
  *error = g_error_new_valist (NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT, format, args);
  va_end (args);
  return FALSE;
}

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

static const char *
get_string (JsonObject *object,
            const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static NatterTurnModelCall *
last_model_call (NatterTurnState *state)
{
  if (state->model_calls->len == 0)
    return NULL;
  return g_ptr_array_index (state->model_calls, state->model_calls->len - 1);
}

static gboolean
is_awaiting_permission (NatterTurnToolCall *call)
{
  return call->required != NULL && call->resolved == NULL && call->result == NULL;
}

static gboolean
is_awaiting_async_result (NatterTurnToolCall *call)
{
  return call->invocation != NULL && call->result == NULL &&
         g_strcmp0 (get_string (call->invocation, "execution"), "async") == 0;
}

/* The refs the next model_call_requested must carry (§3), or why there
 * can be no next model call now. */
static GPtrArray *
expected_request_refs (NatterTurnState  *state,
                       const char      **out_previous_turn_id,
                       GError          **error)
{
  g_autoptr(GPtrArray) refs = g_ptr_array_new_with_free_func (g_free);
  NatterTurnModelCall *last = last_model_call (state);

  *out_previous_turn_id = NULL;

  if (state->definition == NULL)
    {
      invariant (error, "No model call before turn_created");
      return NULL;
    }
  /* Terminal turns are immutable (§9). */
  if (state->terminal != NULL)
    {
      invariant (error, "The turn has ended; no model call can follow");
      return NULL;
    }

  if (last == NULL)
    {
      /* Call 0: ["context"?, "input"], "context" iff inline and non-empty,
       * plus contextRef iff the context is a reference (§3, §11). */
      JsonNode *context = json_object_get_member (state->definition, "context");

      if (JSON_NODE_HOLDS_ARRAY (context))
        {
          if (json_array_get_length (json_node_get_array (context)) > 0)
            g_ptr_array_add (refs, g_strdup ("context"));
        }
      else
        {
          *out_previous_turn_id = get_string (json_node_get_object (context), "previousTurnId");
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
      /* A re-issue after a failed (interrupted) call is [] (§3, §10). */
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
       * once every call of the batch has a result (§3, §8). */
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

  /* maxModelCalls counts every primary call, re-issues included (§9). */
  if ((gint64) state->model_calls->len >= get_max_model_calls (state))
    {
      invariant (error, "The budget of %" G_GINT64_FORMAT " model calls is spent",
                 get_max_model_calls (state));
      return NULL;
    }

  g_ptr_array_add (refs, NULL);
  return g_steal_pointer (&refs);
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

  set_object (state, &state->definition, event);
  set_pointer (state, (gpointer *) &state->tools_by_name, g_steal_pointer (&tools_by_name),
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
  expected = expected_request_refs (state, &previous_turn_id, error);
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
       g_strcmp0 (get_string (json_node_get_object (context_ref), "previousTurnId"),
                  previous_turn_id) != 0))
    return invariant (error, "Model call %" G_GINT64_FORMAT " must carry contextRef {previousTurnId: “%s”}",
                      index, previous_turn_id);

  call = g_new0 (NatterTurnModelCall, 1);
  call->state = state;
  call->index = (guint) index;
  call->requested = json_object_ref (event);
  call->steps = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  append (state, state->model_calls, call);
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
  append (state, call->steps, json_object_ref (event));
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

      if (!json_object_has_member (usage, usage_fields[i]))
        continue;
      value = json_object_get_int_member (usage, usage_fields[i]);
      /* Counts are non-negative (schema); a sum past 2^63 is not a turn. */
      if (value > G_MAXINT64 - state->usage[i])
        return invariant (error, "The turn's %s overflow", usage_fields[i]);
      set_int64 (state, &state->usage[i], state->usage[i] + value);
      if ((state->usage_present & (1 << i)) == 0)
        set_int (state, &state->usage_present, state->usage_present | (1 << i));
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
              tool_call_free (tool_call);
              return FALSE;
            }
          append (state, state->tool_calls, tool_call);
          hash_insert (state, state->tool_calls_by_id, (gpointer) tool_call->id, tool_call);
        }
    }

  if (!add_usage (state, json_object_get_object_member (event, "usage"), error))
    return FALSE;

  set_int (state, &call->first_tool_call, first);
  set_int (state, &call->n_tool_calls, count);
  set_int (state, &state->n_unfinished, state->n_unfinished + count);
  set_object (state, &call->completed, event);
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
  set_object (state, &call->failed, event);
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
  /* A result is terminal for its call (§3). */
  if (call->result != NULL)
    {
      invariant (error, "%s for tool call “%s” after its result", what, id);
      return NULL;
    }
  return call;
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

  call = find_unfinished_tool_call (state, json_object_get_string_member (event, "toolCallId"),
                                    "A permission requirement", error);
  if (call == NULL || !check_tool_name (call, event, error))
    return FALSE;
  /* Asked once per call, and never after the tool already ran. */
  if (call->required != NULL)
    return invariant (error, "Tool call “%s” requires permission twice", call->id);
  if (call->invocation != NULL)
    return invariant (error, "Tool call “%s” requires permission after its invocation", call->id);

  set_object (state, &call->required, event);
  set_int (state, &state->n_pending_permissions, state->n_pending_permissions + 1);
  return TRUE;
}

static gboolean
check_classifiable (NatterTurnToolCall  *call,
                    GError             **error)
{
  /* The classifier only sees calls that require permission (§7). */
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

  call = find_unfinished_tool_call (state, json_object_get_string_member (event, "toolCallId"),
                                    "A classification", error);
  if (call == NULL || !check_classifiable (call, error))
    return FALSE;
  set_object (state, &call->classified, event);
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
      set_object (state, &call->classification_failed, event);
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

  call = find_unfinished_tool_call (state, json_object_get_string_member (event, "toolCallId"),
                                    "A permission resolution", error);
  if (call == NULL)
    return FALSE;
  /* Only a call that required permission gets a decision. */
  if (call->required == NULL)
    return invariant (error, "Tool call “%s” is resolved but requires no permission", call->id);
  /* One effective decision per call: a second one would conflict. */
  if (call->resolved != NULL)
    return invariant (error, "Tool call “%s” already has an effective decision", call->id);
  /* The classifier can only allow what it classified as allow (§7: never
   * run automatically without it). */
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

  set_object (state, &call->resolved, event);
  set_int (state, &state->n_pending_permissions, state->n_pending_permissions - 1);
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

  call = find_unfinished_tool_call (state, json_object_get_string_member (event, "toolCallId"),
                                    "An invocation", error);
  if (call == NULL || !check_tool_name (call, event, error))
    return FALSE;
  /* A side effect is requested once (§10: never re-run). */
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
   * unknown tools get runtime results instead (§8). */
  tool = g_hash_table_lookup (state->tools_by_name, call->name);
  if (tool == NULL)
    return invariant (error, "Tool call “%s” invokes “%s”, which is not in the agent snapshot",
                      call->id, call->name);
  if (!g_str_equal (json_object_get_string_member (tool, "toolId"),
                    json_object_get_string_member (event, "toolId")) ||
      !g_str_equal (json_object_get_string_member (tool, "execution"), execution))
    return invariant (error, "Tool call “%s” invokes “%s” unlike the agent snapshot describes it",
                      call->id, call->name);
  /* Without a human, requiresHuman tools get an immediate error result (§8). */
  if (json_object_get_boolean_member (tool, "requiresHuman") && !get_human_available (state))
    return invariant (error, "Tool call “%s” invokes a tool that needs a human in a turn without one",
                      call->id);

  set_object (state, &call->invocation, event);
  if (g_str_equal (execution, "async"))
    set_int (state, &state->n_pending_async, state->n_pending_async + 1);
  return TRUE;
}

static gboolean
apply_tool_progress (NatterTurnState  *state,
                     JsonObject       *event,
                     GError          **error)
{
  NatterTurnToolCall *call;

  /* No progress after a result (in find_unfinished_tool_call()). */
  call = find_unfinished_tool_call (state, json_object_get_string_member (event, "toolCallId"),
                                    "Progress", error);
  if (call == NULL)
    return FALSE;
  /* Progress comes from a running tool, reported by its own kind. */
  if (call->invocation == NULL)
    return invariant (error, "Progress for tool call “%s” before its invocation", call->id);
  if (!g_str_equal (json_object_get_string_member (event, "source"),
                    json_object_get_string_member (call->invocation, "execution")))
    return invariant (error, "Progress for tool call “%s” from the wrong source", call->id);

  append (state, call->progress, json_object_ref (event));
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
  call = find_unfinished_tool_call (state, json_object_get_string_member (event, "toolCallId"),
                                    "A result", error);
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

  if (is_awaiting_permission (call))
    set_int (state, &state->n_pending_permissions, state->n_pending_permissions - 1);
  if (is_awaiting_async_result (call))
    set_int (state, &state->n_pending_async, state->n_pending_async - 1);
  set_int (state, &state->n_unfinished, state->n_unfinished - 1);
  set_object (state, &call->result, event);
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
          ? (!is_awaiting_async_result (call) ||
             !g_str_equal (json_object_get_string_member (entry, "toolId"),
                           json_object_get_string_member (call->invocation, "toolId")))
          : !is_awaiting_permission (call))
        return invariant (error, "%s lists tool call “%s”, which is not awaiting that", what, id);
    }
  /* Each listed call is outstanding and listed once, so equal counts mean
   * the snapshot is complete (§3: full snapshot of outstanding work). */
  if ((int) n != expected)
    return invariant (error, "%s lists %u calls, but %d are outstanding", what, n, expected);
  return TRUE;
}

static gboolean
apply_turn_suspended (NatterTurnState  *state,
                      JsonObject       *event,
                      GError          **error)
{
  NatterTurnModelCall *last = last_model_call (state);

  /* A turn rests only between model calls. */
  if (last != NULL && last->completed == NULL && last->failed == NULL)
    return invariant (error, "Suspension while model call %u is open", last->index);
  if (!check_pending_list (state, json_object_get_array_member (event, "pendingPermissions"),
                           FALSE, error) ||
      !check_pending_list (state, json_object_get_array_member (event, "pendingAsyncTools"),
                           TRUE, error))
    return FALSE;

  set_object (state, &state->last_suspension, event);
  return TRUE;
}

static gboolean
apply_terminal (NatterTurnState  *state,
                JsonObject       *event,
                GError          **error)
{
  const char *type = json_object_get_string_member (event, "type");
  NatterTurnModelCall *last = last_model_call (state);

  /* An open model call is closed by model_call_failed first (§9). */
  if (last != NULL && last->completed == NULL && last->failed == NULL)
    return invariant (error, "%s while model call %u is open", type, last->index);
  /* Every call has a result before the end (§9: synthetic ones on cancel). */
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
      const char *code = get_string (event, "code");

      /* model-call-limit means the budget is spent (§9). */
      if (g_strcmp0 (code, "model-call-limit") == 0 &&
          (gint64) state->model_calls->len < get_max_model_calls (state))
        return invariant (error, "model-call-limit after %u of %" G_GINT64_FORMAT " model calls",
                          state->model_calls->len, get_max_model_calls (state));
    }

  set_object (state, &state->terminal, event);
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

  set_int64 (state, &state->n_events, state->n_events + 1);
  set_int (state, &state->last_event_is_suspension, g_str_equal (type, "turn_suspended"));
  return TRUE;
}

/**
 * natter_turn_state_apply:
 * @state: a state
 * @event: (transfer none): the next event of the turn; the state keeps a
 *   reference, so it must not be modified afterwards
 * @error: return location for a #GError
 *
 * Reduces one more event into @state (turn-runtime.md §4). The event is
 * validated with natter_turn_event_validate() and checked against every
 * invariant of §4. Applying is atomic: on error @state is unchanged.
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
      undo_rollback (state);
      return FALSE;
    }
  undo_commit (state);
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
 * (turn-runtime.md §4): a batch is reduced against the in-memory history
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
    {
      JsonNode *node = g_ptr_array_index (events, i);

      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Event %u of %u is not an object", i + 1, events->len);
          undo_rollback (state);
          return FALSE;
        }
      if (!apply_one (state, json_node_get_object (node), error))
        {
          g_prefix_error (error, "Event %u of %u: ", i + 1, events->len);
          undo_rollback (state);
          return FALSE;
        }
    }
  undo_commit (state);
  return TRUE;
}

/**
 * natter_turn_reduce:
 * @events: (element-type JsonNode) (transfer none): the object nodes of a
 *   whole turn, in file order
 * @error: return location for a #GError
 *
 * reduce_turn() of turn-runtime.md §4: a pure function from the event list
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
      JsonNode *node = g_ptr_array_index (events, i);

      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Event %u is not an object", i + 1);
          return NULL;
        }
      if (!natter_turn_state_apply (state, json_node_get_object (node), error))
        {
          g_prefix_error (error, "Event %u: ", i + 1);
          return NULL;
        }
    }
  return g_steal_pointer (&state);
}

/**
 * natter_derive_turn_status:
 * @state: a reduced turn
 *
 * derive_turn_status() of turn-runtime.md §4 and session-layer-spec.md
 * §8.1, the one derivation used everywhere: the terminal event's kind if
 * there is one; else %NATTER_TURN_STATUS_SUSPENDED when the last event is
 * a `turn_suspended` and some permission or async tool it lists is still
 * outstanding; else %NATTER_TURN_STATUS_IDLE (interrupted, or never
 * advanced). "Running" is never durable.
 *
 * Returns: the status
 */
NatterTurnStatus
natter_derive_turn_status (NatterTurnState *state)
{
  const char *type;

  g_return_val_if_fail (state != NULL, NATTER_TURN_STATUS_IDLE);

  if (state->terminal != NULL)
    {
      type = json_object_get_string_member (state->terminal, "type");
      if (g_str_equal (type, "turn_completed"))
        return NATTER_TURN_STATUS_COMPLETED;
      if (g_str_equal (type, "turn_failed"))
        return NATTER_TURN_STATUS_FAILED;
      return NATTER_TURN_STATUS_CANCELLED;
    }
  /* The suspension lists exactly the outstanding work (enforced on apply),
   * so "resting state with outstanding work" is: it was the last event and
   * its snapshot is not empty. */
  if (state->last_event_is_suspension &&
      state->n_pending_permissions + state->n_pending_async > 0)
    return NATTER_TURN_STATUS_SUSPENDED;
  return NATTER_TURN_STATUS_IDLE;
}

/**
 * natter_turn_status_to_string:
 * @status: a status
 *
 * Returns: (transfer none): the spec's name of @status: `completed`,
 *   `failed`, `cancelled`, `suspended` or `idle` (session-layer-spec.md
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

  return get_string (state->definition, "turnId");
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
      json_object_set_int_member (usage, usage_fields[i], state->usage[i]);
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
  JsonNode *content;
  GString *text;
  JsonArray *parts;

  g_return_val_if_fail (state != NULL, NULL);

  if (state->terminal == NULL ||
      !g_str_equal (json_object_get_string_member (state->terminal, "type"), "turn_completed"))
    return NULL;

  output = json_object_get_object_member (state->terminal, "output");
  content = json_object_get_member (output, "content");
  if (JSON_NODE_HOLDS_VALUE (content))
    return g_strdup (json_node_get_string (content));

  text = g_string_new (NULL);
  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonObject *part = json_array_get_object_element (parts, i);

      if (g_str_equal (json_object_get_string_member (part, "type"), "text"))
        g_string_append (text, json_object_get_string_member (part, "text"));
    }
  return g_string_free (text, FALSE);
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
 * (turn-runtime.md §3): `["context"?, "input"]` for call 0,
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
  refs = expected_request_refs (state, &previous_turn_id, error);
  if (refs == NULL)
    return NULL;
  if (out_previous_turn_id != NULL)
    *out_previous_turn_id = g_strdup (previous_turn_id);
  return (GStrv) g_ptr_array_free (refs, FALSE);
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
 *   completed nor failed (a crash left it open: §10)
 */
gboolean
natter_turn_state_has_open_model_call (NatterTurnState *state)
{
  NatterTurnModelCall *last;

  g_return_val_if_fail (state != NULL, FALSE);

  last = last_model_call (state);
  return last != NULL && last->completed == NULL && last->failed == NULL;
}

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

  return call->completed != NULL ? json_object_get_object_member (call->completed, "message")
                                 : NULL;
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

  return get_string (call->completed, "finishReason");
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

  return call->completed != NULL ? json_object_get_object_member (call->completed, "usage")
                                 : NULL;
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

  return get_string (call->failed, "error");
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
      if (g_strcmp0 (get_string (step, "type"), "partial_response") == 0 &&
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
  NatterTurnModelCall *last = last_model_call (state);

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
 * The tool calls without a result, in model order: what recovery (§10)
 * continues with.
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

  return filter_last_response (state, is_awaiting_permission);
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

  return filter_last_response (state, is_awaiting_async_result);
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

  return get_string (call->resolved, "decision");
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

  return get_string (call->invocation, "execution");
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

  return call->result != NULL ? json_object_get_object_member (call->result, "result") : NULL;
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

  return get_string (call->result, "source");
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

  return is_awaiting_permission (call);
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

  return is_awaiting_async_result (call);
}

/* Diagnostics */

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
  json_builder_set_member_name (builder, "nEvents");
  json_builder_add_int_value (builder, state->n_events);
  add_object (builder, "definition", state->definition);

  json_builder_set_member_name (builder, "modelCalls");
  json_builder_begin_array (builder);
  for (guint i = 0; i < state->model_calls->len; i++)
    {
      NatterTurnModelCall *call = g_ptr_array_index (state->model_calls, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "index");
      json_builder_add_int_value (builder, call->index);
      add_object (builder, "requested", call->requested);
      add_objects (builder, "steps", call->steps);
      add_object (builder, "completed", call->completed);
      add_object (builder, "failed", call->failed);
      json_builder_set_member_name (builder, "firstToolCall");
      json_builder_add_int_value (builder, call->first_tool_call);
      json_builder_set_member_name (builder, "nToolCalls");
      json_builder_add_int_value (builder, call->n_tool_calls);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "toolCalls");
  json_builder_begin_array (builder);
  for (guint i = 0; i < state->tool_calls->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (state->tool_calls, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "modelCallIndex");
      json_builder_add_int_value (builder, call->model_call_index);
      json_builder_set_member_name (builder, "order");
      json_builder_add_int_value (builder, call->order);
      json_builder_set_member_name (builder, "indexed");
      json_builder_add_boolean_value (builder,
                                      g_hash_table_lookup (state->tool_calls_by_id, call->id) == call);
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

  json_builder_set_member_name (builder, "nIndexedToolCalls");
  json_builder_add_int_value (builder, g_hash_table_size (state->tool_calls_by_id));
  json_builder_set_member_name (builder, "nSnapshotTools");
  json_builder_add_int_value (builder, state->tools_by_name != NULL
                                       ? (gint64) g_hash_table_size (state->tools_by_name) : -1);
  add_object (builder, "lastSuspension", state->last_suspension);
  add_object (builder, "terminal", state->terminal);
  json_builder_set_member_name (builder, "lastEventIsSuspension");
  json_builder_add_boolean_value (builder, state->last_event_is_suspension);
  json_builder_set_member_name (builder, "nUnfinished");
  json_builder_add_int_value (builder, state->n_unfinished);
  json_builder_set_member_name (builder, "nPendingPermissions");
  json_builder_add_int_value (builder, state->n_pending_permissions);
  json_builder_set_member_name (builder, "nPendingAsync");
  json_builder_add_int_value (builder, state->n_pending_async);
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
