/* natter-turn-execution.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One advance of a turn: the loop of docs/runtime.md §6.
 *
 * The loop is driven by the durable state, not by a program counter:
 * advance_loop() looks at the reduced state and does the next thing (a
 * batch to append, a classifier call, a model step, a suspension, a
 * settlement). Every async step ends by appending a batch; when the
 * append queue drains, the loop runs again. So a fresh advance and a
 * recovery after a crash (docs/runtime.md §10) take exactly the same path.
 *
 * Append gate: every batch is applied to the in-memory state with
 * natter_turn_state_apply_batch() when it is queued, before it is
 * written; the queue writes batches in that same order, one at a time, so
 * file order = memory order = signal order. A batch the reducer refuses is
 * a runtime bug: the advance fails with an infrastructure error and
 * nothing of it reaches the disk.
 *
 * The execution is split by facet over natter-turn-execution-private.h:
 * this file holds the object, settlement, the append queue and the start
 * (lock, read, validate, materialize); natter-turn-loop.c the loop and
 * its steps (model calls, permissions, cancellation), deciding with
 * natter-turn-step.c; natter-turn-tool-runner.c the sync tools.
 */

#define G_LOG_DOMAIN "natter-turn-execution"

#include <string.h>

#include "natter-log-read.h"
#include "natter-json.h"
#include "natter-turn-execution-private.h"
#include "natter-turn-reducer.h"
#include "natter-turn-schema.h"

/* Execution */

G_DEFINE_FINAL_TYPE (NatterTurnExecution, natter_turn_execution, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_SETTLED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

guint _natter_turn_execution_signals[NATTER_TURN_EXECUTION_N_SIGNALS];

static void
batch_free (Batch *batch)
{
  g_ptr_array_unref (batch->events);
  g_free (batch);
}

JsonObject *
_natter_turn_execution_new_event (NatterTurnExecution *self,
                                  GPtrArray           *batch,
                                  const char          *type)
{
  g_autofree char *ts = natter_clock_format_ts (self->runtime->clock);
  JsonNode *node = natter_turn_event_new (type, self->turn_id, ts);

  g_ptr_array_add (batch, node);
  return json_node_get_object (node);
}

GPtrArray *
_natter_turn_execution_new_batch (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
}

JsonNode *
_natter_turn_execution_object_node (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return node;
}

/* Settlement (docs/runtime.md §6 step 6) */

static void
settle (NatterTurnExecution *self,
        NatterTurnOutcome   *outcome,
        GError              *error)
{
  g_autoptr(GPtrArray) waiters = NULL;

  if (self->settled)
    {
      g_clear_error (&error);
      return;
    }

  self->settled = TRUE;
  self->outcome = outcome != NULL ? natter_turn_outcome_ref (outcome) : NULL;
  self->error = error;

  /* Running sync tools see the cancellation; their late results are
   * dropped (the turn no longer listens). */
  g_cancellable_disconnect (self->cancellable, self->cancelled_id);
  self->cancelled_id = 0;

  if (self->processing)
    natter_turn_event_hub_processing_end (self->runtime->hub, self->turn_id);
  g_clear_pointer (&self->guard, natter_lock_guard_release);

  waiters = g_steal_pointer (&self->waiters);
  self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiters->len; i++)
    {
      GTask *task = g_ptr_array_index (waiters, i);

      if (self->error != NULL)
        g_task_return_error (task, g_error_copy (self->error));
      else
        g_task_return_pointer (task, natter_turn_outcome_ref (self->outcome),
                               (GDestroyNotify) natter_turn_outcome_unref);
    }

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SETTLED]);
  g_signal_emit (self, _natter_turn_execution_signals[NATTER_TURN_EXECUTION_SIGNAL_SETTLED], 0);
  /* The hot reference taken at start: the execution may now go. */
  g_object_unref (self);
}

void
_natter_turn_execution_fail (NatterTurnExecution *self,
                             GError              *error)
{
  g_debug ("Advance of turn %s failed: %s", self->turn_id, error->message);
  settle (self, NULL, error);
}

void
_natter_turn_execution_settle_from_event (NatterTurnExecution *self,
                                          JsonObject          *event)
{
  g_autoptr(NatterTurnOutcome) outcome = natter_turn_outcome_new_from_event (event);

  settle (self, outcome, NULL);
}

/* The append queue */

static void write_next (NatterTurnExecution *self);

/* After a failure or a settlement nothing more is written. */
static void
drop_queued (NatterTurnExecution *self)
{
  Batch *rest;

  while ((rest = g_queue_pop_head (&self->queue)) != NULL)
    {
      if (rest->done != NULL)
        rest->done (self, FALSE, rest->data);
      batch_free (rest);
    }
}

static void
append_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(NatterTurnExecution) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func ((GDestroyNotify) batch_free);

  for (guint i = 0; i < self->n_in_flight; i++)
    g_ptr_array_add (written, g_queue_pop_head (&self->queue));
  self->n_in_flight = 0;

  /* self->writing stays set while listeners and done callbacks run, so a
   * listener that cancels cannot re-enter the loop mid-batch. */
  if (!natter_jsonl_repo_append_finish (NATTER_JSONL_REPO (object), result, &error))
    {
      for (guint i = 0; i < written->len; i++)
        {
          Batch *batch = g_ptr_array_index (written, i);

          if (batch->done != NULL)
            batch->done (self, FALSE, batch->data);
        }
      drop_queued (self);
      self->writing = FALSE;
      _natter_turn_execution_fail (self, g_steal_pointer (&error));
      return;
    }

  /* Durable events go out only now that they are on disk (docs/runtime.md §5),
   * batch by batch in queue order. */
  for (guint i = 0; i < written->len; i++)
    {
      Batch *batch = g_ptr_array_index (written, i);

      for (guint j = 0; j < batch->events->len; j++)
        {
          JsonObject *event = json_node_get_object (g_ptr_array_index (batch->events, j));

          self->n_written++;
          g_signal_emit (self, _natter_turn_execution_signals[NATTER_TURN_EXECUTION_SIGNAL_EVENT], 0, event, self->n_written);
          natter_turn_event_hub_emit_event (self->runtime->hub, self->turn_id, event,
                                            self->n_written);
        }
      if (batch->done != NULL)
        batch->done (self, TRUE, batch->data);
    }
  self->writing = FALSE;

  if (self->settled)
    drop_queued (self);
  else if (!g_queue_is_empty (&self->queue))
    write_next (self);
  else
    _natter_turn_execution_advance_loop (self);
}

static void
write_next (NatterTurnExecution *self)
{
  g_autoptr(GPtrArray) events = NULL;

  if (self->writing || self->settled || g_queue_is_empty (&self->queue))
    return;
  /* Everything queued while the last write ran goes out in one append:
   * the same lines in the same order, with far fewer writes when many
   * sync tools finish at once. Each batch was already through the gate. */
  events = g_ptr_array_new ();
  for (GList *l = self->queue.head; l != NULL; l = l->next)
    {
      Batch *batch = l->data;

      for (guint i = 0; i < batch->events->len; i++)
        g_ptr_array_add (events, g_ptr_array_index (batch->events, i));
    }
  self->n_in_flight = g_queue_get_length (&self->queue);
  self->writing = TRUE;
  /* Appends are never cancelled: the cancellation itself is written. The
   * repo serializes @events before it returns. */
  natter_jsonl_repo_append_async (self->runtime->repo, self->turn_id, events, NULL,
                                  append_cb, g_object_ref (self));
}

/* Queues @events (transfer full) behind the gate. Returns FALSE (and
 * settles with an error) when the reducer refuses them. */
gboolean
_natter_turn_execution_enqueue (NatterTurnExecution *self,
                                GPtrArray           *events,
                                BatchDone            done,
                                gpointer             data)
{
  g_autoptr(GError) error = NULL;
  Batch *batch;

  if (!natter_turn_state_apply_batch (self->state, events, &error))
    {
      g_ptr_array_unref (events);
      if (done != NULL)
        done (self, FALSE, data);
      _natter_turn_execution_fail (self, g_error_new (NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_APPEND_REJECTED,
                                                      "The append gate refused a batch for turn %s: %s",
                                                      self->turn_id, error->message));
      return FALSE;
    }
  batch = g_new0 (Batch, 1);
  batch->events = events;
  batch->done = done;
  batch->data = data;
  g_queue_push_tail (&self->queue, batch);
  write_next (self);
  return TRUE;
}

/* Tool results */

void
_natter_turn_execution_add_result (NatterTurnExecution *self,
                                   GPtrArray           *batch,
                                   NatterTurnToolCall  *call,
                                   const char          *source,
                                   JsonNode            *output,
                                   gboolean             is_error)
{
  JsonObject *event = _natter_turn_execution_new_event (self, batch, "tool_result");
  g_autoptr(JsonObject) result = json_object_new ();

  json_object_set_string_member (event, "toolCallId", natter_turn_tool_call_get_id (call));
  json_object_set_string_member (event, "toolName", natter_turn_tool_call_get_name (call));
  json_object_set_string_member (event, "source", source);
  json_object_set_member (result, "output", output);
  json_object_set_boolean_member (result, "isError", is_error);
  json_object_set_object_member (event, "result", g_steal_pointer (&result));
}

void
_natter_turn_execution_add_runtime_error (NatterTurnExecution *self,
                                          GPtrArray           *batch,
                                          NatterTurnToolCall  *call,
                                          const char          *message)
{
  _natter_turn_execution_add_result (self, batch, call, "runtime", json_node_init_string (json_node_alloc (), message), TRUE);
}

/* The turn's working directory (`config.cwd`), against which tools
 * resolve relative paths; %NULL when the turn has none. */
const char *
_natter_turn_execution_turn_cwd (NatterTurnExecution *self)
{
  JsonObject *definition = natter_turn_state_get_definition (self->state);
  JsonObject *config = json_object_get_object_member (definition, "config");

  return json_object_get_string_member_with_default (config, "cwd", NULL);
}

/* Start: lock, read, validate the input, materialize (docs/runtime.md §6 steps
 * 1–4) */

static gboolean
kick_cb (gpointer data)
{
  _natter_turn_execution_advance_loop (data);
  return G_SOURCE_REMOVE;
}

static void
cancelled_cb (GCancellable *cancellable,
              gpointer      data)
{
  NatterTurnExecution *self = data;

  g_autoptr(GSource) source = g_idle_source_new ();

  /* May run in any thread, or inside a listener: the loop runs later, on
   * the execution's context, never re-entered. */
  g_source_set_callback (source, kick_cb, g_object_ref (self), g_object_unref);
  g_source_attach (source, self->context);
}

static void
apply_input_and_loop (NatterTurnExecution *self)
{
  if (self->input_events != NULL && self->input_events->len > 0)
    _natter_turn_execution_enqueue (self, g_steal_pointer (&self->input_events), NULL, NULL);
  else
    _natter_turn_execution_advance_loop (self);
}

/* A context that cannot be read (a damaged or missing earlier turn)
 * would stop this turn for ever: every advance would fail the same way
 * and the session could never go on. It fails the turn instead, a
 * terminal `turn_failed` with code `context-unreadable` whose error names
 * the file and line. The session layer refuses every later message of
 * the conversation while that history cannot be read: no turn ever goes
 * on from a shortened one. Only possible while no tool call waits for a
 * result (a turn cannot end with one open); then the advance fails as
 * before. */
static gboolean
fail_unreadable_context (NatterTurnExecution *self,
                         const GError        *error)
{
  g_autoptr(GPtrArray) unfinished = natter_turn_state_get_unfinished_tool_calls (self->state);
  guint n_calls = natter_turn_state_get_n_model_calls (self->state);
  NatterTurnModelCall *last = n_calls > 0 ? natter_turn_state_get_model_call (self->state, n_calls - 1) : NULL;
  GPtrArray *batch;
  JsonObject *event;

  if (unfinished->len > 0)
    return FALSE;

  batch = _natter_turn_execution_new_batch ();
  /* An interrupted call is closed first, as the reducer requires
   * (docs/runtime.md §9). */
  if (last != NULL && natter_turn_model_call_get_message (last) == NULL &&
      natter_turn_model_call_get_error (last) == NULL)
    {
      event = _natter_turn_execution_new_event (self, batch, "model_call_failed");
      json_object_set_int_member (event, "modelCallIndex", natter_turn_model_call_get_index (last));
      json_object_set_string_member (event, "error", error->message);
    }
  event = _natter_turn_execution_new_event (self, batch, "turn_failed");
  json_object_set_string_member (event, "error", error->message);
  json_object_set_string_member (event, "code", NATTER_TURN_FAILED_CONTEXT_UNREADABLE);
  json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (self->state));
  _natter_turn_execution_enqueue (self, batch, NULL, NULL);
  return TRUE;
}

static void
context_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(NatterTurnExecution) self = user_data;
  g_autoptr(GError) error = NULL;

  self->materialized = natter_context_resolver_materialize_finish (NATTER_CONTEXT_RESOLVER (object),
                                                                   result, &error);
  if (self->materialized == NULL)
    {
      if (g_error_matches (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT) &&
          !self->settled && fail_unreadable_context (self, error))
        return;
      _natter_turn_execution_fail (self, g_steal_pointer (&error));
      return;
    }
  apply_input_and_loop (self);
}

static gboolean
materialize_live (NatterTurnExecution  *self,
                  GError              **error)
{
  JsonObject *definition = natter_turn_state_get_definition (self->state);
  JsonObject *resolved = json_object_get_object_member (json_object_get_object_member (definition, "agent"),
                                                        "resolved");
  JsonArray *tools = json_object_get_array_member (resolved, "tools");

  self->model = natter_model_registry_resolve (self->runtime->models,
                                               json_object_get_object_member (resolved, "model"),
                                               error);
  if (self->model == NULL)
    return FALSE;

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *descriptor = json_array_get_object_element (tools, i);
      const char *tool_id = json_object_get_string_member (descriptor, "toolId");
      NatterTool *tool = natter_tool_registry_lookup (self->runtime->tools, tool_id);

      if (tool == NULL ||
          g_strcmp0 (json_object_get_string_member (natter_tool_get_descriptor (tool), "execution"),
                     json_object_get_string_member (descriptor, "execution")) != 0)
        {
          g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_TOOL_NOT_FOUND,
                       tool == NULL ? "No implementation of tool “%s”"
                                    : "Tool “%s” no longer runs the way the turn recorded",
                       tool_id);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
invalid_input (GError     **error,
               const char  *message,
               const char  *id)
{
  g_autofree char *text = g_strdup (message);
  char *hole = strstr (text, "%s");

  /* One “%s” stands for the tool call id. */
  *hole = '\0';
  g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_INPUT,
               "%s%s%s", text, id, hole + 2);
  return FALSE;
}

/* docs/runtime.md §5: one input per advance, only for work that is pending.
 * Builds the events it stands for, without applying them. */
static gboolean
validate_input (NatterTurnExecution  *self,
                GError              **error)
{
  const char *type = json_object_get_string_member_with_default (self->input, "type", "");
  const char *id = json_object_get_string_member_with_default (self->input, "toolCallId", "");
  NatterTurnToolCall *call = natter_turn_state_lookup_tool_call (self->state, id);
  GPtrArray *batch;
  JsonObject *event;

  if (g_str_equal (type, "cancel"))
    {
      self->cancel_requested = TRUE;
      self->cancel_reason = g_strdup (json_object_get_string_member_with_default (self->input, "reason", NULL));
      return TRUE;
    }

  batch = self->input_events = _natter_turn_execution_new_batch ();
  if (g_str_equal (type, "permission_decision"))
    {
      const char *decision = json_object_get_string_member_with_default (self->input, "decision", "");

      if (call == NULL || !natter_turn_tool_call_is_awaiting_permission (call))
        return invalid_input (error, "Tool call “%s” is not awaiting permission", id);
      if (!g_str_equal (decision, "allow") && !g_str_equal (decision, "deny"))
        return invalid_input (error, "A decision for “%s” must be allow or deny", id);
      event = _natter_turn_execution_new_event (self, batch, "tool_permission_resolved");
      json_object_set_string_member (event, "toolCallId", id);
      json_object_set_string_member (event, "decision", decision);
      json_object_set_string_member (event, "source", "human");
      if (json_object_has_member (self->input, "metadata"))
        json_object_set_member (event, "metadata",
                                json_node_copy (json_object_get_member (self->input, "metadata")));
      return TRUE;
    }
  if (g_str_equal (type, "async_tool_progress") || g_str_equal (type, "async_tool_result"))
    {
      if (call == NULL || !natter_turn_tool_call_is_awaiting_async_result (call))
        return invalid_input (error, "Tool call “%s” is not awaiting an async result", id);
      if (g_str_equal (type, "async_tool_progress"))
        {
          if (!json_object_has_member (self->input, "progress"))
            return invalid_input (error, "Progress for “%s” has no progress", id);
          event = _natter_turn_execution_new_event (self, batch, "tool_progress");
          json_object_set_string_member (event, "toolCallId", id);
          json_object_set_string_member (event, "source", "async");
          json_object_set_member (event, "progress",
                                  json_node_copy (json_object_get_member (self->input, "progress")));
        }
      else
        {
          JsonNode *result = json_object_get_member (self->input, "result");

          if (result == NULL || !JSON_NODE_HOLDS_OBJECT (result))
            return invalid_input (error, "The result for “%s” is not an object", id);
          event = _natter_turn_execution_new_event (self, batch, "tool_result");
          json_object_set_string_member (event, "toolCallId", id);
          json_object_set_string_member (event, "toolName", natter_turn_tool_call_get_name (call));
          json_object_set_string_member (event, "source", "async");
          json_object_set_member (event, "result", json_node_copy (result));
        }
      /* The schema is checked now, so a bad input leaves the file as is. */
      if (!natter_turn_event_validate (event, self->turn_id, error))
        {
          GError *inner = *error;

          *error = NULL;
          invalid_input (error, "Invalid input for “%s”", id);
          g_prefix_error (error, "%s: ", inner->message);
          g_error_free (inner);
          return FALSE;
        }
      return TRUE;
    }
  g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_INPUT,
               "Unknown input type “%s”", type);
  return FALSE;
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(NatterTurnExecution) self = user_data;
  g_autoptr(GPtrArray) events = NULL;
  GError *error = NULL;
  JsonObject *definition;
  JsonNode *context;

  self->state = natter_turn_reduce_file_finish (NATTER_JSONL_REPO (object), result, &events, &error);
  if (self->state == NULL)
    {
      _natter_turn_execution_fail (self, error);
      return;
    }
  self->n_written = events->len;

  /* Terminal: return its outcome, write nothing; late inputs are
   * rejected (docs/runtime.md §6 step 2, §9). */
  if (natter_turn_state_get_terminal_event (self->state) != NULL)
    {
      if (self->input != NULL)
        _natter_turn_execution_fail (self, g_error_new (NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_TURN_ENDED,
                                                        "Turn %s has ended", self->turn_id));
      else
        _natter_turn_execution_settle_from_event (self, natter_turn_state_get_terminal_event (self->state));
      return;
    }

  if (self->input != NULL && !validate_input (self, &error))
    {
      _natter_turn_execution_fail (self, error);
      return;
    }
  /* A cancel needs no model, tool or context: a turn whose provider is
   * gone can still be cancelled (docs/runtime.md §6 step 3), by input or
   * cancellable. */
  if (self->cancel_requested || g_cancellable_is_cancelled (self->cancellable))
    {
      _natter_turn_execution_advance_loop (self);
      return;
    }

  if (!materialize_live (self, &error))
    {
      _natter_turn_execution_fail (self, error);
      return;
    }
  definition = natter_turn_state_get_definition (self->state);
  context = json_object_get_member (definition, "context");
  if (JSON_NODE_HOLDS_ARRAY (context))
    {
      self->materialized = json_array_ref (json_node_get_array (context));
      apply_input_and_loop (self);
      return;
    }
  natter_context_resolver_materialize_async (self->runtime->contexts,
                                             json_object_get_string_member (json_node_get_object (context),
                                                                            "previousTurnId"),
                                             self->cancellable, context_cb, g_object_ref (self));
}

static void
lock_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(NatterTurnExecution) self = user_data;
  GError *error = NULL;

  self->guard = natter_jsonl_repo_lock_finish (NATTER_JSONL_REPO (object), result, &error);
  if (self->guard == NULL)
    {
      _natter_turn_execution_fail (self, error);
      return;
    }
  self->processing = TRUE;
  natter_turn_event_hub_processing_start (self->runtime->hub, self->turn_id);
  natter_turn_reduce_file_async (self->runtime->repo, self->turn_id, NULL, read_cb,
                                g_object_ref (self));
}

NatterTurnExecution *
_natter_turn_execution_start (NatterTurnRuntime *runtime,
                              const char        *turn_id,
                              JsonObject        *input,
                              GCancellable      *cancellable)
{
  NatterTurnExecution *self = g_object_new (NATTER_TYPE_TURN_EXECUTION, NULL);

  self->runtime = g_object_ref (runtime);
  self->turn_id = g_strdup (turn_id);
  self->input = input != NULL ? json_object_ref (input) : NULL;
  self->cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  self->context = g_main_context_ref_thread_default ();

  /* Hot: the execution keeps itself alive until it settles. */
  g_object_ref (self);
  self->cancelled_id = g_cancellable_connect (self->cancellable, G_CALLBACK (cancelled_cb),
                                              self, NULL);
  /* The lock is awaited without the cancellable: a cancellation is work
   * to write, not a reason to skip the turn. */
  natter_jsonl_repo_lock_async (runtime->repo, turn_id, NULL, lock_cb, g_object_ref (self));
  return self;
}

/* GObject */

static void
natter_turn_execution_finalize (GObject *object)
{
  NatterTurnExecution *self = NATTER_TURN_EXECUTION (object);

  g_assert (g_queue_is_empty (&self->queue));
  g_clear_object (&self->runtime);
  g_clear_pointer (&self->turn_id, g_free);
  g_clear_pointer (&self->input, json_object_unref);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->guard, natter_lock_guard_release);
  g_clear_pointer (&self->state, natter_turn_state_unref);
  g_clear_pointer (&self->input_events, g_ptr_array_unref);
  g_clear_pointer (&self->materialized, json_array_unref);
  g_clear_pointer (&self->classifying_calls, json_array_unref);
  g_clear_object (&self->model);
  g_clear_pointer (&self->running, g_hash_table_unref);
  g_clear_pointer (&self->cancel_reason, g_free);
  g_string_free (self->partial_text, TRUE);
  g_string_free (self->partial_reasoning, TRUE);
  g_clear_pointer (&self->outcome, natter_turn_outcome_unref);
  g_clear_error (&self->error);
  g_clear_pointer (&self->waiters, g_ptr_array_unref);

  G_OBJECT_CLASS (natter_turn_execution_parent_class)->finalize (object);
}

static void
natter_turn_execution_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  NatterTurnExecution *self = NATTER_TURN_EXECUTION (object);

  switch (prop_id)
    {
    case PROP_SETTLED:
      g_value_set_boolean (value, self->settled);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_turn_execution_class_init (NatterTurnExecutionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_turn_execution_finalize;
  object_class->get_property = natter_turn_execution_get_property;

  /**
   * NatterTurnExecution:settled:
   *
   * Whether the advance has its outcome (or its error).
   */
  properties[PROP_SETTLED] = g_param_spec_boolean ("settled", NULL, NULL, FALSE,
                                                   G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY |
                                                   G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterTurnExecution::event:
   * @self: the execution
   * @event: a durable event, emitted only after it is written
   * @offset: its 1-based line number in the turn file
   */
  _natter_turn_execution_signals[NATTER_TURN_EXECUTION_SIGNAL_EVENT] = g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                 JSON_TYPE_OBJECT, G_TYPE_UINT64);
  /**
   * NatterTurnExecution::delta:
   * @self: the execution
   * @model_call_index: the streaming call
   * @kind: a #NatterDeltaKind
   * @text: the piece of text (never written)
   */
  _natter_turn_execution_signals[NATTER_TURN_EXECUTION_SIGNAL_DELTA] = g_signal_new ("delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                                 G_TYPE_UINT, G_TYPE_INT, G_TYPE_STRING);
  /**
   * NatterTurnExecution::settled:
   * @self: the execution
   *
   * The advance has its outcome; the lock is released.
   */
  _natter_turn_execution_signals[NATTER_TURN_EXECUTION_SIGNAL_SETTLED] = g_signal_new ("settled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
natter_turn_execution_init (NatterTurnExecution *self)
{
  g_queue_init (&self->queue);
  self->running = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  self->partial_text = g_string_new (NULL);
  self->partial_reasoning = g_string_new (NULL);
}

/**
 * natter_turn_execution_get_turn_id:
 * @self: a #NatterTurnExecution
 *
 * Part of the execution of docs/runtime.md §5.
 *
 * Returns: (transfer none): the turn being advanced
 */
const char *
natter_turn_execution_get_turn_id (NatterTurnExecution *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_EXECUTION (self), NULL);

  return self->turn_id;
}

/**
 * natter_turn_execution_get_settled:
 * @self: a #NatterTurnExecution
 *
 * Part of the execution of docs/runtime.md §5.
 *
 * Returns: whether the outcome is known
 */
gboolean
natter_turn_execution_get_settled (NatterTurnExecution *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_EXECUTION (self), FALSE);

  return self->settled;
}

/**
 * natter_turn_execution_wait_async:
 * @self: a #NatterTurnExecution
 * @cancellable: (nullable): cancels the wait only, not the turn
 * @callback: called on the caller's main context once settled
 * @user_data: data for @callback
 *
 * Waits for the advance's outcome (docs/runtime.md §5).
 */
void
natter_turn_execution_wait_async (NatterTurnExecution *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_TURN_EXECUTION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_turn_execution_wait_async);
  if (!self->settled)
    {
      g_ptr_array_add (self->waiters, task);
      return;
    }
  if (self->error != NULL)
    g_task_return_error (task, g_error_copy (self->error));
  else
    g_task_return_pointer (task, natter_turn_outcome_ref (self->outcome),
                           (GDestroyNotify) natter_turn_outcome_unref);
  g_object_unref (task);
}

/**
 * natter_turn_execution_wait_finish:
 * @self: a #NatterTurnExecution
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Part of the execution of docs/runtime.md §5.
 *
 * Returns: (transfer full) (nullable): the outcome; or %NULL with an
 *   infrastructure error: %NATTER_STORE_ERROR (corrupt file, repo
 *   failure), %NATTER_RUNTIME_ERROR (missing model/tool, invalid input,
 *   ended turn, context), in which case nothing false was appended
 */
NatterTurnOutcome *
natter_turn_execution_wait_finish (NatterTurnExecution  *self,
                                   GAsyncResult         *result,
                                   GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
