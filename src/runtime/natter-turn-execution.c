/* natter-turn-execution.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One advance of a turn: the loop of turn-runtime.md §6.
 *
 * The loop is driven by the durable state, not by a program counter:
 * advance_loop() looks at the reduced state and does the next thing (a
 * batch to append, a classifier call, a model step, a suspension, a
 * settlement). Every async step ends by appending a batch; when the
 * append queue drains, the loop runs again. So a fresh advance and a
 * recovery after a crash (§10) take exactly the same path.
 *
 * Append gate: every batch is applied to the in-memory state with
 * natter_turn_state_apply_batch() when it is queued, before it is
 * written; the queue writes batches in that same order, one at a time, so
 * file order = memory order = signal order. A batch the reducer refuses is
 * a runtime bug: the advance fails with an infrastructure error and
 * nothing of it reaches the disk.
 *
 * Sync tools run in g_task_run_in_thread(). Their inputs are deep copies
 * and their results come back as new objects, so no JSON object is shared
 * between threads (json-glib's reference counts are not atomic).
 */

#define G_LOG_DOMAIN "natter-turn-execution"

#include <string.h>

#include "natter-json.h"
#include "natter-request-composer.h"
#include "natter-turn-reducer.h"
#include "natter-turn-runtime-private.h"
#include "natter-turn-schema.h"
#include "natter-turn-step.h"

/* Outcome */

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
 * Part of the execution of turn-runtime.md §5.
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
 * Part of the execution of turn-runtime.md §5.
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
 * Part of the execution of turn-runtime.md §5.
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

/* Execution */

typedef void (*BatchDone) (NatterTurnExecution *self,
                           gboolean             written,
                           gpointer             data);

typedef struct
{
  GPtrArray *events;    /* JsonNode */
  BatchDone  done;
  gpointer   data;
} Batch;

struct _NatterTurnExecution
{
  GObject            parent_instance;

  NatterTurnRuntime *runtime;
  char              *turn_id;
  JsonObject        *input;
  GCancellable      *cancellable;
  gulong             cancelled_id;
  GMainContext      *context;

  NatterLockGuard   *guard;
  gboolean           processing;
  NatterTurnState   *state;
  guint64            n_written;       /* lines in the file */
  GPtrArray         *input_events;    /* the validated input, applied after materialization */
  JsonArray         *materialized;    /* the context messages */
  NatterModel       *model;

  GQueue             queue;           /* Batch, not yet written */
  guint              n_in_flight;     /* batches at the head of the queue being written */
  gboolean           writing;
  gboolean           streaming;
  gboolean           classifying;
  JsonArray         *classifying_calls; /* what the classifier was asked */
  GHashTable        *running;         /* toolCallId → GCancellable of running sync tools */
  gboolean           cancel_requested;
  char              *cancel_reason;
  /* What the open model call streamed so far, as shown live: kept on its
   * model_call_failed when it stops early, so the answer being read is
   * not lost. */
  GString           *partial_text;
  GString           *partial_reasoning;

  gboolean           settled;
  NatterTurnOutcome *outcome;
  GError            *error;
  GPtrArray         *waiters;         /* GTask */
};

G_DEFINE_FINAL_TYPE (NatterTurnExecution, natter_turn_execution, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_SETTLED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  EVENT,
  DELTA,
  SETTLED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void advance_loop (NatterTurnExecution *self);

static void
batch_free (Batch *batch)
{
  g_ptr_array_unref (batch->events);
  g_free (batch);
}

static JsonObject *
new_event (NatterTurnExecution *self,
           GPtrArray           *batch,
           const char          *type)
{
  g_autofree char *ts = natter_clock_format_ts (self->runtime->clock);
  JsonNode *node = natter_turn_event_new (type, self->turn_id, ts);

  g_ptr_array_add (batch, node);
  return json_node_get_object (node);
}

static GPtrArray *
new_batch (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
}

static JsonNode *
object_node (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return node;
}

/* Settlement (§6 step 6) */

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
  g_signal_emit (self, signals[SETTLED], 0);
  /* The hot reference taken at start: the execution may now go. */
  g_object_unref (self);
}

static void
fail (NatterTurnExecution *self,
      GError              *error)
{
  g_debug ("Advance of turn %s failed: %s", self->turn_id, error->message);
  settle (self, NULL, error);
}

static void
settle_from_event (NatterTurnExecution *self,
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
      fail (self, g_steal_pointer (&error));
      return;
    }

  /* Durable events go out only now that they are on disk (§5), batch by
   * batch in queue order. */
  for (guint i = 0; i < written->len; i++)
    {
      Batch *batch = g_ptr_array_index (written, i);

      for (guint j = 0; j < batch->events->len; j++)
        {
          JsonObject *event = json_node_get_object (g_ptr_array_index (batch->events, j));

          self->n_written++;
          g_signal_emit (self, signals[EVENT], 0, event, self->n_written);
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
    advance_loop (self);
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
static gboolean
enqueue (NatterTurnExecution *self,
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
      fail (self, g_error_new (NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_APPEND_REJECTED,
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

static void
add_result (NatterTurnExecution *self,
            GPtrArray           *batch,
            NatterTurnToolCall  *call,
            const char          *source,
            JsonNode            *output,
            gboolean             is_error)
{
  JsonObject *event = new_event (self, batch, "tool_result");
  g_autoptr(JsonObject) result = json_object_new ();

  json_object_set_string_member (event, "toolCallId", natter_turn_tool_call_get_id (call));
  json_object_set_string_member (event, "toolName", natter_turn_tool_call_get_name (call));
  json_object_set_string_member (event, "source", source);
  json_object_set_member (result, "output", output);
  json_object_set_boolean_member (result, "isError", is_error);
  json_object_set_object_member (event, "result", g_steal_pointer (&result));
}

static void
add_runtime_error (NatterTurnExecution *self,
                   GPtrArray           *batch,
                   NatterTurnToolCall  *call,
                   const char          *message)
{
  add_result (self, batch, call, "runtime", json_node_init_string (json_node_alloc (), message), TRUE);
}

/* The turn's working directory (`config.cwd`), against which tools
 * resolve relative paths; %NULL when the turn has none. */
static const char *
turn_cwd (NatterTurnExecution *self)
{
  JsonObject *definition = natter_turn_state_get_definition (self->state);
  JsonObject *config = json_object_get_object_member (definition, "config");

  return json_object_get_string_member_with_default (config, "cwd", NULL);
}

/* Sync tools (§8) */

typedef struct
{
  NatterTurnExecution *self;      /* owned */
  char                *call_id;
  NatterTool          *tool;      /* owned */
  JsonObject          *input;     /* a private copy for the worker */
  char                *cwd;       /* config.cwd, nullable */
  GMutex               mutex;
  GCond                cond;
} ToolRun;

static void
tool_run_free (ToolRun *run)
{
  g_clear_object (&run->self);
  g_free (run->call_id);
  g_clear_object (&run->tool);
  g_clear_pointer (&run->input, json_object_unref);
  g_free (run->cwd);
  g_mutex_clear (&run->mutex);
  g_cond_clear (&run->cond);
  g_free (run);
}

typedef struct
{
  ToolRun  *run;
  char     *progress_line;   /* serialized in the worker */
  gboolean  done;
} Progress;

static void
progress_written (NatterTurnExecution *self,
                  gboolean             written,
                  gpointer             data)
{
  Progress *progress = data;

  g_mutex_lock (&progress->run->mutex);
  progress->done = TRUE;
  g_cond_broadcast (&progress->run->cond);
  g_mutex_unlock (&progress->run->mutex);
}

static gboolean
progress_on_main (gpointer data)
{
  Progress *progress = data;
  NatterTurnExecution *self = progress->run->self;
  NatterTurnToolCall *call = natter_turn_state_lookup_tool_call (self->state, progress->run->call_id);
  g_autoptr(JsonNode) value = NULL;
  GPtrArray *batch;
  JsonObject *event;

  value = natter_json_from_line (progress->progress_line, -1, NULL);
  /* After a cancel or a failure the call is closed: drop the report. */
  if (self->settled || value == NULL || call == NULL ||
      natter_turn_tool_call_get_result_event (call) != NULL)
    {
      progress_written (self, FALSE, progress);
      return G_SOURCE_REMOVE;
    }
  batch = new_batch ();
  event = new_event (self, batch, "tool_progress");
  json_object_set_string_member (event, "toolCallId", progress->run->call_id);
  json_object_set_string_member (event, "source", "sync");
  json_object_set_member (event, "progress", g_steal_pointer (&value));
  enqueue (self, batch, progress_written, progress);
  return G_SOURCE_REMOVE;
}

/* Called in the worker: returns once tool_progress is on disk (§8). */
static void
report_progress (JsonNode *progress,
                 gpointer  user_data)
{
  ToolRun *run = user_data;
  Progress item = { run, NULL, FALSE };

  item.progress_line = natter_json_to_line (progress, NULL, NULL);
  if (item.progress_line == NULL)
    return;
  g_main_context_invoke (run->self->context, progress_on_main, &item);
  g_mutex_lock (&run->mutex);
  while (!item.done)
    g_cond_wait (&run->cond, &run->mutex);
  g_mutex_unlock (&run->mutex);
  g_free (item.progress_line);
}

static void
tool_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ToolRun *run = task_data;
  GError *error = NULL;
  JsonObject *result;

  result = natter_tool_run_in (run->tool, run->input, run->cwd, report_progress, run, cancellable,
                               &error);
  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) json_object_unref);
}

static void
tool_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  ToolRun *run = g_task_get_task_data (G_TASK (result));
  /* The worker thread may drop the task (and free @run) after this
   * callback; every reference @run holds is released here, on the main
   * context, so the execution never finalizes in a worker. */
  g_autoptr(NatterTurnExecution) self = g_steal_pointer (&run->self);
  g_autoptr(JsonObject) value = NULL;
  g_autoptr(GError) error = NULL;
  NatterTurnToolCall *call;
  GPtrArray *batch;

  g_clear_object (&run->tool);
  g_clear_pointer (&run->input, json_object_unref);
  value = g_task_propagate_pointer (G_TASK (result), &error);
  g_hash_table_remove (self->running, run->call_id);
  call = natter_turn_state_lookup_tool_call (self->state, run->call_id);
  if (self->settled || call == NULL || natter_turn_tool_call_get_result_event (call) != NULL)
    return;
  /* A cancelled turn gives the call its runtime "cancelled" result. */
  if (self->cancel_requested || g_cancellable_is_cancelled (self->cancellable))
    {
      advance_loop (self);
      return;
    }

  batch = new_batch ();
  if (value != NULL && json_object_has_member (value, "output") &&
      json_object_has_member (value, "isError") &&
      JSON_NODE_HOLDS_VALUE (json_object_get_member (value, "isError")))
    {
      JsonObject *event = new_event (self, batch, "tool_result");

      json_object_set_string_member (event, "toolCallId", run->call_id);
      json_object_set_string_member (event, "toolName", natter_turn_tool_call_get_name (call));
      json_object_set_string_member (event, "source", "sync");
      json_object_set_object_member (event, "result", g_steal_pointer (&value));
    }
  else
    {
      /* A tool that fails (or answers nonsense) gives an error result the
       * model can read; it never fails the turn (§8). */
      add_result (self, batch, call, "sync",
                  json_node_init_string (json_node_alloc (),
                                         error != NULL ? error->message
                                                       : "The tool returned no valid result"),
                  TRUE);
    }
  enqueue (self, batch, NULL, NULL);
}

static void
start_tools (NatterTurnExecution *self,
             gboolean             written,
             gpointer             data)
{
  g_autoptr(GPtrArray) ids = data;

  if (!written || self->settled)
    return;
  for (guint i = 0; i < ids->len; i++)
    {
      const char *id = g_ptr_array_index (ids, i);
      NatterTurnToolCall *call = natter_turn_state_lookup_tool_call (self->state, id);
      JsonObject *invocation = natter_turn_tool_call_get_invocation (call);
      g_autofree char *line = NULL;
      g_autoptr(JsonNode) input = NULL;
      g_autoptr(GTask) task = NULL;
      ToolRun *run;

      line = natter_json_to_line (json_object_get_member (invocation, "input"), NULL, NULL);
      input = natter_json_from_line (line, -1, NULL);

      run = g_new0 (ToolRun, 1);
      run->self = g_object_ref (self);
      run->call_id = g_strdup (id);
      run->tool = g_object_ref (natter_tool_registry_lookup (self->runtime->tools,
                                                             json_object_get_string_member (invocation, "toolId")));
      run->input = json_object_ref (json_node_get_object (input));
      run->cwd = g_strdup (turn_cwd (self));
      g_mutex_init (&run->mutex);
      g_cond_init (&run->cond);

      g_hash_table_add (self->running, g_strdup (id));
      task = g_task_new (NULL, self->cancellable, tool_done_cb, NULL);
      g_task_set_source_tag (task, start_tools);
      g_task_set_task_data (task, run, (GDestroyNotify) tool_run_free);
      /* The result is always delivered, even after a cancellation, so the
       * worker's data outlives it. */
      g_task_set_check_cancellable (task, FALSE);
      g_task_run_in_thread (task, tool_thread);
    }
}

/* Model step (§6 step 5) */

static void
sink_text_delta (const char *delta,
                 gpointer    user_data)
{
  NatterTurnExecution *self = user_data;
  guint index = natter_turn_state_get_n_model_calls (self->state) - 1;

  g_string_append (self->partial_text, delta);
  g_signal_emit (self, signals[DELTA], 0, index, (int) NATTER_DELTA_TEXT, delta);
  natter_turn_event_hub_emit_delta (self->runtime->hub, self->turn_id, index, NATTER_DELTA_TEXT, delta);
}

static void
sink_reasoning_delta (const char *delta,
                      gpointer    user_data)
{
  NatterTurnExecution *self = user_data;
  guint index = natter_turn_state_get_n_model_calls (self->state) - 1;

  g_string_append (self->partial_reasoning, delta);
  g_signal_emit (self, signals[DELTA], 0, index, (int) NATTER_DELTA_REASONING, delta);
  natter_turn_event_hub_emit_delta (self->runtime->hub, self->turn_id, index,
                                    NATTER_DELTA_REASONING, delta);
}

static void
sink_step_event (JsonObject *step,
                 gpointer    user_data)
{
  NatterTurnExecution *self = user_data;
  GPtrArray *batch;
  JsonObject *event;

  if (self->settled)
    return;
  batch = new_batch ();
  event = new_event (self, batch, "model_step_event");
  json_object_set_int_member (event, "modelCallIndex",
                              natter_turn_state_get_n_model_calls (self->state) - 1);
  json_object_set_member (event, "event", object_node (step));
  enqueue (self, batch, NULL, NULL);
}

static const NatterModelStepSink sink = {
  sink_text_delta,
  sink_reasoning_delta,
  sink_step_event,
};

/* The answer streamed before a stop or a failure, as an assistant message
 * (reasoning first, as in a response), or NULL when nothing arrived. */
static JsonNode *
build_partial (NatterTurnExecution *self)
{
  g_autoptr(JsonObject) message = NULL;
  JsonArray *content;

  if (self->partial_text->len == 0 && self->partial_reasoning->len == 0)
    return NULL;

  message = json_object_new ();
  content = json_array_new ();
  json_object_set_string_member (message, "role", "assistant");
  json_object_set_array_member (message, "content", content);
  if (self->partial_reasoning->len > 0)
    {
      JsonObject *part = json_object_new ();

      json_object_set_string_member (part, "type", "reasoning");
      json_object_set_string_member (part, "text", self->partial_reasoning->str);
      json_array_add_object_element (content, part);
    }
  if (self->partial_text->len > 0)
    {
      JsonObject *part = json_object_new ();

      json_object_set_string_member (part, "type", "text");
      json_object_set_string_member (part, "text", self->partial_text->str);
      json_array_add_object_element (content, part);
    }
  return object_node (message);
}

static void
model_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(NatterTurnExecution) self = user_data;
  g_autoptr(NatterModelStepResult) step = NULL;
  g_autoptr(GError) error = NULL;
  guint index = natter_turn_state_get_n_model_calls (self->state) - 1;
  GPtrArray *batch;
  JsonObject *event;
  g_autoptr(JsonNode) partial = NULL;

  self->streaming = FALSE;
  step = natter_model_stream_step_finish (NATTER_MODEL (object), result, &error);
  if (self->settled)
    return;
  if (step == NULL)
    partial = build_partial (self);

  batch = new_batch ();
  if (step != NULL)
    {
      event = new_event (self, batch, "model_call_completed");
      json_object_set_int_member (event, "modelCallIndex", index);
      json_object_set_member (event, "message", json_node_ref (step->message));
      json_object_set_string_member (event, "finishReason", step->finish_reason);
      json_object_set_object_member (event, "usage", json_object_ref (step->usage));
    }
  else if (self->cancel_requested || g_cancellable_is_cancelled (self->cancellable))
    {
      /* The loop appends the rest of the cancellation (§9). */
      self->cancel_requested = TRUE;
      event = new_event (self, batch, "model_call_failed");
      json_object_set_int_member (event, "modelCallIndex", index);
      json_object_set_string_member (event, "error", "cancelled");
      if (partial != NULL)
        json_object_set_member (event, "partial", g_steal_pointer (&partial));
    }
  else
    {
      /* No automatic retry (§9). */
      event = new_event (self, batch, "model_call_failed");
      json_object_set_int_member (event, "modelCallIndex", index);
      json_object_set_string_member (event, "error", error->message);
      if (partial != NULL)
        json_object_set_member (event, "partial", g_steal_pointer (&partial));
      event = new_event (self, batch, "turn_failed");
      json_object_set_string_member (event, "error", error->message);
      json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (self->state));
    }
  enqueue (self, batch, NULL, NULL);
}

static void
start_model_call (NatterTurnExecution *self,
                  gboolean             written,
                  gpointer             data)
{
  g_autoptr(JsonObject) request = NULL;
  g_autoptr(GError) error = NULL;
  guint index;

  if (!written || self->settled)
    return;
  /* Cancelled before the call started: the loop closes the request. */
  if (self->cancel_requested || g_cancellable_is_cancelled (self->cancellable))
    return;
  index = natter_turn_state_get_n_model_calls (self->state) - 1;
  request = natter_compose_request (self->state, index, self->materialized, &error);
  if (request == NULL)
    {
      fail (self, g_steal_pointer (&error));
      return;
    }
  self->streaming = TRUE;
  g_string_truncate (self->partial_text, 0);
  g_string_truncate (self->partial_reasoning, 0);
  natter_model_stream_step_async (self->model, request, &sink, self, self->cancellable,
                                  model_cb, g_object_ref (self));
}

/* Permissions (§7) */

static void
classify_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(NatterTurnExecution) self = user_data;
  g_autoptr(JsonArray) answers = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) asked = g_steal_pointer (&self->classifying_calls);
  g_autoptr(JsonArray) failed_ids = json_array_new ();
  GPtrArray *batch;

  self->classifying = FALSE;
  answers = natter_permission_classifier_classify_finish (NATTER_PERMISSION_CLASSIFIER (object),
                                                          result, &error);
  if (self->settled)
    return;

  batch = new_batch ();
  for (guint i = 0; i < json_array_get_length (asked); i++)
    {
      const char *id = json_object_get_string_member (json_array_get_object_element (asked, i),
                                                      "toolCallId");
      JsonObject *answer = NULL;

      for (guint j = 0; answers != NULL && j < json_array_get_length (answers); j++)
        {
          JsonObject *candidate = json_array_get_object_element (answers, j);
          const char *decision = json_object_get_string_member_with_default (candidate, "decision", "");

          if (candidate != NULL &&
              g_strcmp0 (json_object_get_string_member_with_default (candidate, "toolCallId", NULL), id) == 0 &&
              (g_str_equal (decision, "allow") || g_str_equal (decision, "deny") ||
               g_str_equal (decision, "defer")))
            answer = candidate;
        }
      if (answer != NULL)
        {
          JsonObject *event = new_event (self, batch, "tool_permission_classified");

          json_object_set_string_member (event, "toolCallId", id);
          json_object_set_string_member (event, "decision",
                                         json_object_get_string_member (answer, "decision"));
          json_object_set_string_member (event, "reason",
                                         json_object_get_string_member_with_default (answer, "reason", ""));
        }
      else
        {
          /* A failure or a missing decision counts as defer (§7). */
          json_array_add_string_element (failed_ids, id);
        }
    }
  if (json_array_get_length (failed_ids) > 0)
    {
      JsonObject *event = new_event (self, batch, "tool_permission_classification_failed");

      json_object_set_array_member (event, "toolCallIds", json_array_ref (failed_ids));
      json_object_set_string_member (event, "error",
                                     error != NULL ? error->message : "The classifier gave no decision");
    }
  enqueue (self, batch, NULL, NULL);
}

/* Appends the effective decision that follows from a required permission
 * without a human answer, or returns FALSE when the call waits (for the
 * classifier or a human). */
static gboolean
decide_without_human (NatterTurnExecution *self,
                      GPtrArray           *batch,
                      NatterTurnToolCall  *call,
                      gboolean             auto_permission,
                      gboolean             human_available,
                      gboolean            *out_allowed)
{
  JsonObject *classified = natter_turn_tool_call_get_classification (call);
  JsonObject *event;
  const char *decision = NULL;

  *out_allowed = FALSE;
  if (auto_permission)
    {
      if (classified != NULL)
        decision = json_object_get_string_member (classified, "decision");
      else if (natter_turn_tool_call_get_classification_failure (call) != NULL)
        decision = "defer";
      else
        return FALSE;   /* not classified yet */

      if (g_str_equal (decision, "allow"))
        {
          event = new_event (self, batch, "tool_permission_resolved");
          json_object_set_string_member (event, "toolCallId", natter_turn_tool_call_get_id (call));
          json_object_set_string_member (event, "decision", "allow");
          json_object_set_string_member (event, "source", "classifier");
          json_object_set_string_member (event, "reason",
                                         json_object_get_string_member (classified, "reason"));
          *out_allowed = TRUE;
          return TRUE;
        }
    }
  if (human_available)
    return FALSE;       /* ask the human: the call stays pending */

  event = new_event (self, batch, "tool_permission_resolved");
  json_object_set_string_member (event, "toolCallId", natter_turn_tool_call_get_id (call));
  json_object_set_string_member (event, "decision", "deny");
  if (classified != NULL && g_strcmp0 (decision, "deny") == 0)
    {
      json_object_set_string_member (event, "source", "classifier");
      json_object_set_string_member (event, "reason",
                                     json_object_get_string_member (classified, "reason"));
    }
  else
    {
      json_object_set_string_member (event, "source", "human_unavailable");
    }
  add_runtime_error (self, batch, call, "Permission denied");
  return TRUE;
}

static void
add_invocation (NatterTurnExecution *self,
                GPtrArray           *batch,
                GPtrArray           *to_start,
                NatterTurnToolCall  *call,
                JsonObject          *descriptor)
{
  JsonObject *event = new_event (self, batch, "tool_invocation_requested");
  const char *execution = json_object_get_string_member (descriptor, "execution");

  json_object_set_string_member (event, "toolCallId", natter_turn_tool_call_get_id (call));
  json_object_set_string_member (event, "toolId", json_object_get_string_member (descriptor, "toolId"));
  json_object_set_string_member (event, "toolName", natter_turn_tool_call_get_name (call));
  json_object_set_string_member (event, "execution", execution);
  json_object_set_member (event, "input", json_node_copy (natter_turn_tool_call_get_arguments (call)));
  if (g_str_equal (execution, "sync"))
    g_ptr_array_add (to_start, g_strdup (natter_turn_tool_call_get_id (call)));
}

/* Cancellation (§9) */

static void
append_cancellation (NatterTurnExecution *self)
{
  g_autoptr(GPtrArray) unfinished = natter_turn_state_get_unfinished_tool_calls (self->state);
  GPtrArray *batch = new_batch ();
  JsonObject *event;

  if (natter_turn_state_has_open_model_call (self->state))
    {
      event = new_event (self, batch, "model_call_failed");
      json_object_set_int_member (event, "modelCallIndex",
                                  natter_turn_state_get_n_model_calls (self->state) - 1);
      json_object_set_string_member (event, "error", "cancelled");
    }
  for (guint i = 0; i < unfinished->len; i++)
    add_runtime_error (self, batch, g_ptr_array_index (unfinished, i), "cancelled");
  event = new_event (self, batch, "turn_cancelled");
  if (self->cancel_reason != NULL)
    json_object_set_string_member (event, "reason", self->cancel_reason);
  json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (self->state));
  enqueue (self, batch, NULL, NULL);
}

/* The loop (§6 step 5) */

/* The classifier's view of a call that needs permission. */
static JsonObject *
classification_entry (NatterTurnToolCall *call)
{
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "toolCallId", natter_turn_tool_call_get_id (call));
  json_object_set_string_member (entry, "toolName", natter_turn_tool_call_get_name (call));
  json_object_set_member (entry, "input", json_node_copy (natter_turn_tool_call_get_arguments (call)));
  json_object_set_member (entry, "request",
                          json_node_copy (json_object_get_member (natter_turn_tool_call_get_permission_required (call),
                                                                  "request")));
  return entry;
}

/* A new, usable call: it runs at once unless the permission checker
 * requires a decision, which is then asked for (§7). */
static void
check_permission (NatterTurnExecution *self,
                  GPtrArray           *batch,
                  GPtrArray           *to_start,
                  NatterTurnToolCall  *call,
                  JsonObject          *descriptor)
{
  g_autoptr(JsonNode) request = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *arguments = natter_turn_tool_call_get_arguments (call);
  gboolean required = TRUE;
  JsonObject *event;

  natter_permission_checker_check_in (self->runtime->checker, descriptor,
                                      json_node_get_object (arguments), turn_cwd (self),
                                      &required, &request, &error);
  if (!required)
    {
      add_invocation (self, batch, to_start, call, descriptor);
      return;
    }
  event = new_event (self, batch, "tool_permission_required");
  json_object_set_string_member (event, "toolCallId", natter_turn_tool_call_get_id (call));
  json_object_set_string_member (event, "toolName", natter_turn_tool_call_get_name (call));
  if (request == NULL)
    {
      /* Fail closed with something a human can judge. */
      g_autoptr(JsonObject) fallback = json_object_new ();

      json_object_set_string_member (fallback, "toolName", natter_turn_tool_call_get_name (call));
      json_object_set_member (fallback, "input", json_node_copy (arguments));
      request = object_node (fallback);
    }
  json_object_set_member (event, "request", g_steal_pointer (&request));
  if (error != NULL)
    json_object_set_string_member (event, "checkerError", error->message);
}

/* Carries out natter_turn_step_for_tool_call() for one unfinished call:
 * events go to @batch, sync tools to start to @to_start, calls for the
 * classifier to @to_classify. */
static void
resolve_tool_call (NatterTurnExecution *self,
                   GPtrArray           *batch,
                   GPtrArray           *to_start,
                   JsonArray           *to_classify,
                   NatterTurnToolCall  *call)
{
  JsonObject *config = json_object_get_object_member (natter_turn_state_get_definition (self->state), "config");
  const char *name = natter_turn_tool_call_get_name (call);
  JsonObject *descriptor = natter_turn_step_find_tool (self->state, name);
  gboolean allowed = FALSE;

  switch (natter_turn_step_for_tool_call (self->state, call,
                                          g_hash_table_contains (self->running, natter_turn_tool_call_get_id (call))))
    {
    case NATTER_TOOL_CALL_STEP_NONE:
      break;
    case NATTER_TOOL_CALL_STEP_INTERRUPTED:
      /* §10: never re-run a side effect whose outcome is unknown. */
      add_runtime_error (self, batch, call, "interrupted; outcome unknown; not retried");
      break;
    case NATTER_TOOL_CALL_STEP_INVOKE:
      add_invocation (self, batch, to_start, call, descriptor);
      break;
    case NATTER_TOOL_CALL_STEP_DENIED:
      add_runtime_error (self, batch, call, "Permission denied");
      break;
    case NATTER_TOOL_CALL_STEP_CLASSIFY:
      json_array_add_object_element (to_classify, classification_entry (call));
      break;
    case NATTER_TOOL_CALL_STEP_DECIDE_WITHOUT_HUMAN:
      if (decide_without_human (self, batch, call, json_object_get_boolean_member (config, "autoPermission"),
                                json_object_get_boolean_member (config, "humanAvailable"), &allowed) &&
          allowed)
        add_invocation (self, batch, to_start, call, descriptor);
      break;
    /* Unknown tools and unusable calls become results the model can
     * read (§8). */
    case NATTER_TOOL_CALL_STEP_UNKNOWN_TOOL:
      {
        g_autofree char *message = g_strdup_printf ("Unknown tool “%s”", name);

        add_runtime_error (self, batch, call, message);
      }
      break;
    case NATTER_TOOL_CALL_STEP_BAD_ARGUMENTS:
      add_runtime_error (self, batch, call, "The tool call's arguments are not a JSON object");
      break;
    case NATTER_TOOL_CALL_STEP_NO_HUMAN:
      add_runtime_error (self, batch, call, "human input is unavailable for this turn");
      break;
    case NATTER_TOOL_CALL_STEP_CHECK_PERMISSION:
      check_permission (self, batch, to_start, call, descriptor);
      break;
    default:
      g_assert_not_reached ();
    }
}

/* Sends @to_classify to the permission classifier, or records that there
 * is none to ask. */
static void
classify (NatterTurnExecution *self,
          JsonArray           *to_classify)
{
  if (self->runtime->classifier == NULL)
    {
      GPtrArray *batch = new_batch ();
      JsonArray *ids = json_array_new ();
      JsonObject *event;

      for (guint i = 0; i < json_array_get_length (to_classify); i++)
        json_array_add_string_element (ids,
                                       json_object_get_string_member (json_array_get_object_element (to_classify, i),
                                                                      "toolCallId"));
      event = new_event (self, batch, "tool_permission_classification_failed");
      json_object_set_array_member (event, "toolCallIds", ids);
      json_object_set_string_member (event, "error", "No permission classifier is configured");
      enqueue (self, batch, NULL, NULL);
      return;
    }
  self->classifying = TRUE;
  self->classifying_calls = json_array_ref (to_classify);
  natter_permission_classifier_classify_in_async (self->runtime->classifier, self->model,
                                                  to_classify, self->cancellable,
                                                  classify_cb, g_object_ref (self));
}

/* Goes through the unfinished tool calls; %TRUE when that gave something
 * to write or to classify, which calls back into the loop when done. */
static gboolean
resolve_tool_calls (NatterTurnExecution *self)
{
  g_autoptr(GPtrArray) unfinished = natter_turn_state_get_unfinished_tool_calls (self->state);
  g_autoptr(GPtrArray) to_start = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonArray) to_classify = json_array_new ();
  g_autoptr(GPtrArray) batch = new_batch ();

  for (guint i = 0; i < unfinished->len; i++)
    resolve_tool_call (self, batch, to_start, to_classify, g_ptr_array_index (unfinished, i));

  if (batch->len > 0)
    {
      enqueue (self, g_steal_pointer (&batch), start_tools, g_steal_pointer (&to_start));
      return TRUE;
    }
  if (json_array_get_length (to_classify) > 0)
    {
      classify (self, to_classify);
      return TRUE;
    }
  return FALSE;
}

/* §10: a request without a result was interrupted; close it, then the
 * loop re-issues it as the next index with refs []. */
static void
close_open_call (NatterTurnExecution *self)
{
  GPtrArray *batch = new_batch ();
  JsonObject *event = new_event (self, batch, "model_call_failed");

  json_object_set_int_member (event, "modelCallIndex", natter_turn_state_get_n_model_calls (self->state) - 1);
  json_object_set_string_member (event, "error", "interrupted");
  enqueue (self, batch, NULL, NULL);
}

static void
suspend (NatterTurnExecution *self)
{
  g_autoptr(GPtrArray) permissions = natter_turn_state_get_pending_permissions (self->state);
  g_autoptr(GPtrArray) async_tools = natter_turn_state_get_pending_async_tools (self->state);
  GPtrArray *batch = new_batch ();
  JsonObject *event = new_event (self, batch, "turn_suspended");
  JsonArray *list = json_array_new ();

  for (guint i = 0; i < permissions->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (permissions, i);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "toolCallId", natter_turn_tool_call_get_id (call));
      json_object_set_string_member (entry, "toolName", natter_turn_tool_call_get_name (call));
      json_object_set_member (entry, "request",
                              json_node_copy (json_object_get_member (natter_turn_tool_call_get_permission_required (call),
                                                                      "request")));
      json_array_add_object_element (list, entry);
    }
  json_object_set_array_member (event, "pendingPermissions", list);
  list = json_array_new ();
  for (guint i = 0; i < async_tools->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (async_tools, i);
      JsonObject *invocation = natter_turn_tool_call_get_invocation (call);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "toolCallId", natter_turn_tool_call_get_id (call));
      json_object_set_string_member (entry, "toolId", json_object_get_string_member (invocation, "toolId"));
      json_object_set_string_member (entry, "toolName", natter_turn_tool_call_get_name (call));
      json_object_set_member (entry, "input", json_node_copy (json_object_get_member (invocation, "input")));
      json_array_add_object_element (list, entry);
    }
  json_object_set_array_member (event, "pendingAsyncTools", list);
  json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (self->state));
  enqueue (self, batch, NULL, NULL);
}

/* The last model call answered without tool calls: that is the output. */
static void
complete (NatterTurnExecution *self)
{
  NatterTurnModelCall *last = natter_turn_state_get_model_call (self->state,
                                                                natter_turn_state_get_last_model_call_index (self->state));
  GPtrArray *batch = new_batch ();
  JsonObject *event = new_event (self, batch, "turn_completed");

  json_object_set_member (event, "output", object_node (natter_turn_model_call_get_message (last)));
  json_object_set_string_member (event, "finishReason", natter_turn_model_call_get_finish_reason (last));
  json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (self->state));
  enqueue (self, batch, NULL, NULL);
}

static void
fail_at_limit (NatterTurnExecution *self)
{
  JsonObject *config = json_object_get_object_member (natter_turn_state_get_definition (self->state), "config");
  gint64 max_calls = json_object_get_int_member (config, "maxModelCalls");
  g_autofree char *message = g_strdup_printf ("The turn reached its limit of %" G_GINT64_FORMAT " model calls",
                                              max_calls);
  GPtrArray *batch = new_batch ();
  JsonObject *event = new_event (self, batch, "turn_failed");

  json_object_set_string_member (event, "error", message);
  json_object_set_string_member (event, "code", "model-call-limit");
  json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (self->state));
  enqueue (self, batch, NULL, NULL);
}

/* Writes `model_call_requested`, then calls the model: the durable intent
 * is on disk before the model is touched (§6). */
static void
request_model_call (NatterTurnExecution *self)
{
  JsonObject *config = json_object_get_object_member (natter_turn_state_get_definition (self->state), "config");
  JsonNode *parameters = json_object_get_member (config, "parameters");
  g_auto(GStrv) refs = NULL;
  g_autofree char *previous_turn_id = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *batch;
  JsonObject *event;
  JsonObject *request;
  JsonArray *messages;

  refs = natter_turn_state_dup_next_request_refs (self->state, &previous_turn_id, &error);
  if (refs == NULL)
    {
      fail (self, g_steal_pointer (&error));
      return;
    }
  batch = new_batch ();
  event = new_event (self, batch, "model_call_requested");
  json_object_set_int_member (event, "modelCallIndex", natter_turn_state_get_n_model_calls (self->state));
  request = json_object_new ();
  if (previous_turn_id != NULL)
    {
      JsonObject *context_ref = json_object_new ();

      json_object_set_string_member (context_ref, "previousTurnId", previous_turn_id);
      json_object_set_object_member (request, "contextRef", context_ref);
    }
  messages = json_array_new ();
  for (guint i = 0; refs[i] != NULL; i++)
    json_array_add_string_element (messages, refs[i]);
  json_object_set_array_member (request, "messages", messages);
  /* The turn's generation parameters go with every call, in the durable
   * request, so an audit rebuilds the exact wire payload (§3). */
  json_object_set_member (request, "parameters",
                          parameters != NULL ? json_node_copy (parameters)
                                             : json_node_init_object (json_node_alloc (), json_object_new ()));
  json_object_set_object_member (event, "request", request);
  enqueue (self, batch, start_model_call, NULL);
}

/* One turn of the loop: natter-turn-step.c decides, the step functions
 * above write. */
static void
advance_loop (NatterTurnExecution *self)
{
  /* Whatever is in flight calls back into the loop when it is done. */
  if (self->settled || self->writing || !g_queue_is_empty (&self->queue) ||
      self->streaming || self->classifying)
    return;
  /* A cancellation kick before the turn was read (still queued on the
   * turn lock, or reading): read_cb enters the loop itself and sees the
   * cancelled cancellable then (session-layer-spec.md §9.3). */
  if (self->state == NULL)
    return;

  switch (natter_turn_step_next (self->state,
                                 self->cancel_requested || g_cancellable_is_cancelled (self->cancellable)))
    {
    case NATTER_TURN_STEP_SETTLE:
      settle_from_event (self, natter_turn_state_get_terminal_event (self->state));
      return;
    case NATTER_TURN_STEP_CANCEL:
      append_cancellation (self);
      return;
    case NATTER_TURN_STEP_REST:
      settle_from_event (self, natter_turn_state_get_last_suspension (self->state));
      return;
    case NATTER_TURN_STEP_CLOSE_OPEN_CALL:
      close_open_call (self);
      return;
    case NATTER_TURN_STEP_RESOLVE_TOOL_CALLS:
      break;
    default:
      g_assert_not_reached ();
    }

  if (resolve_tool_calls (self))
    return;

  /* The batch is complete: wait, rest, finish, stop at the budget, or
   * call the model. */
  switch (natter_turn_step_after_tools (self->state, g_hash_table_size (self->running)))
    {
    case NATTER_TURN_STEP_WAIT_FOR_TOOLS:
      return;
    case NATTER_TURN_STEP_SUSPEND:
      suspend (self);
      return;
    case NATTER_TURN_STEP_COMPLETE:
      complete (self);
      return;
    case NATTER_TURN_STEP_MODEL_CALL_LIMIT:
      fail_at_limit (self);
      return;
    case NATTER_TURN_STEP_CALL_MODEL:
      request_model_call (self);
      return;
    default:
      g_assert_not_reached ();
    }
}

/* Start: lock, read, validate the input, materialize (§6 steps 1–4) */

static gboolean
kick_cb (gpointer data)
{
  advance_loop (data);
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
    enqueue (self, g_steal_pointer (&self->input_events), NULL, NULL);
  else
    advance_loop (self);
}

/* A context that cannot be read (a damaged or missing earlier turn)
 * would stop this turn for ever: every advance would fail the same way
 * and the session could never go on. It fails the turn instead, a
 * terminal `turn_failed` with code `context-unreadable` whose error names
 * the file and line; the session layer gives the next turn a fresh
 * context. Only possible while no tool call waits for a result (a turn
 * cannot end with one open); then the advance fails as before. */
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

  batch = new_batch ();
  /* An interrupted call is closed first, as the reducer requires (§9). */
  if (last != NULL && natter_turn_model_call_get_message (last) == NULL &&
      natter_turn_model_call_get_error (last) == NULL)
    {
      event = new_event (self, batch, "model_call_failed");
      json_object_set_int_member (event, "modelCallIndex", natter_turn_model_call_get_index (last));
      json_object_set_string_member (event, "error", error->message);
    }
  event = new_event (self, batch, "turn_failed");
  json_object_set_string_member (event, "error", error->message);
  json_object_set_string_member (event, "code", NATTER_TURN_FAILED_CONTEXT_UNREADABLE);
  json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (self->state));
  enqueue (self, batch, NULL, NULL);
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
      fail (self, g_steal_pointer (&error));
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

/* §5: one input per advance, only for work that is pending. Builds the
 * events it stands for, without applying them. */
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

  batch = self->input_events = new_batch ();
  if (g_str_equal (type, "permission_decision"))
    {
      const char *decision = json_object_get_string_member_with_default (self->input, "decision", "");

      if (call == NULL || !natter_turn_tool_call_is_awaiting_permission (call))
        return invalid_input (error, "Tool call “%s” is not awaiting permission", id);
      if (!g_str_equal (decision, "allow") && !g_str_equal (decision, "deny"))
        return invalid_input (error, "A decision for “%s” must be allow or deny", id);
      event = new_event (self, batch, "tool_permission_resolved");
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
          event = new_event (self, batch, "tool_progress");
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
          event = new_event (self, batch, "tool_result");
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

  events = natter_jsonl_repo_read_finish (NATTER_JSONL_REPO (object), result, &error);
  if (events != NULL)
    self->state = natter_turn_reduce (events, &error);
  if (self->state == NULL)
    {
      fail (self, error);
      return;
    }
  self->n_written = events->len;

  /* Terminal: return its outcome, write nothing; late inputs are
   * rejected (§6 step 2, §9). */
  if (natter_turn_state_get_terminal_event (self->state) != NULL)
    {
      if (self->input != NULL)
        fail (self, g_error_new (NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_TURN_ENDED,
                                 "Turn %s has ended", self->turn_id));
      else
        settle_from_event (self, natter_turn_state_get_terminal_event (self->state));
      return;
    }

  if (self->input != NULL && !validate_input (self, &error))
    {
      fail (self, error);
      return;
    }
  /* A cancel needs no model, tool or context: a turn whose provider is
   * gone can still be cancelled (§6 step 3), by input or cancellable. */
  if (self->cancel_requested || g_cancellable_is_cancelled (self->cancellable))
    {
      advance_loop (self);
      return;
    }

  if (!materialize_live (self, &error))
    {
      fail (self, error);
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
      fail (self, error);
      return;
    }
  self->processing = TRUE;
  natter_turn_event_hub_processing_start (self->runtime->hub, self->turn_id);
  natter_jsonl_repo_read_async (self->runtime->repo, self->turn_id, NULL, read_cb,
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
  signals[EVENT] = g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                 JSON_TYPE_OBJECT, G_TYPE_UINT64);
  /**
   * NatterTurnExecution::delta:
   * @self: the execution
   * @model_call_index: the streaming call
   * @kind: a #NatterDeltaKind
   * @text: the piece of text (never written)
   */
  signals[DELTA] = g_signal_new ("delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                                 G_TYPE_UINT, G_TYPE_INT, G_TYPE_STRING);
  /**
   * NatterTurnExecution::settled:
   * @self: the execution
   *
   * The advance has its outcome; the lock is released.
   */
  signals[SETTLED] = g_signal_new ("settled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
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
 * Part of the execution of turn-runtime.md §5.
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
 * Part of the execution of turn-runtime.md §5.
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
 * Waits for the advance's outcome (turn-runtime.md §5).
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
 * Part of the execution of turn-runtime.md §5.
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
