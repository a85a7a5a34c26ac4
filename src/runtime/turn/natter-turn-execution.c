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
 * The execution is split by what each part is for, over
 * natter-turn-execution-private.h, and calls run one way:
 * natter-turn-execution-start.c starts an advance (lock, read, validate,
 * materialize) and hands it to natter-turn-loop.c, the loop with its
 * steps (model calls, permissions, cancellation, sync tools) and the
 * append queue that runs it again when it drains, deciding with
 * natter-turn-step.c; both build their events and settle through this
 * file, which holds the object, its events and settlement.
 */

#define G_LOG_DOMAIN "natter-turn-execution"

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

JsonObject *
_natter_turn_execution_new_event (NatterTurnExecution *self,
                                  GPtrArray           *batch,
                                  const char          *type)
{
  g_autofree char *ts = natter_clock_format_ts (self->runtime->clock);
  JsonNode *node = natter_turn_event_new (type, self->turn_id, ts);

  /* The first event of an advance that continues another device's turn
   * says it runs here from now on (docs/format.md §4.5). */
  if (self->stamp_device && self->runtime->device != NULL)
    {
      json_object_set_object_member (json_node_get_object (node), NATTER_DEVICE_MEMBER,
                                     natter_device_to_member (self->runtime->device));
      self->stamp_device = FALSE;
    }
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
  /* An open call's words stay kept as they are: the recovery reads them. */
  _natter_turn_execution_cancel_keep (self);
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

/* Streamed words kept (docs/format.md §11) */

/* Drops the keeping of the streamed words that was due. */
void
_natter_turn_execution_cancel_keep (NatterTurnExecution *self)
{
  if (self->keep_source == NULL)
    return;
  g_source_destroy (self->keep_source);
  g_clear_pointer (&self->keep_source, g_source_unref);
}

/* Sets on @event, the `model_call_failed` that closes a call a killed
 * process left open, the words that process kept of it as its
 * `partial`. Words that cannot be read are told in the log and their
 * file stays: they may be all that is left of the answer. */
void
_natter_turn_execution_add_kept_partial (NatterTurnExecution *self,
                                         JsonObject          *event)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) partial = NULL;

  if (self->runtime->keep == NULL || json_object_has_member (event, "partial"))
    return;
  partial = natter_stream_keep_load_sync (self->runtime->keep, self->turn_id,
                                          (guint) json_object_get_int_member (event, "modelCallIndex"), &error);
  if (partial != NULL)
    {
      json_object_set_member (event, "partial", g_steal_pointer (&partial));
      self->keep_on_disk = TRUE;
    }
  else if (error != NULL)
    {
      self->keep_unreadable = TRUE;
      g_message ("%s", error->message);
    }
}

/* GObject */

static void
natter_turn_execution_finalize (GObject *object)
{
  NatterTurnExecution *self = NATTER_TURN_EXECUTION (object);

  g_assert (g_queue_is_empty (&self->queue));
  _natter_turn_execution_cancel_keep (self);
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
 * natter_turn_execution_get_streamed:
 * @self: a #NatterTurnExecution
 * @model_call_index: (out) (optional): the streaming model call
 * @text: (out) (optional) (transfer none): its text so far
 * @reasoning: (out) (optional) (transfer none): its reasoning so far
 *
 * What the model call now streaming has sent so far: the deltas already
 * emitted, joined. A view that starts to show the turn mid-answer begins
 * from this, then adds the deltas that follow; the deltas themselves are
 * never written (docs/runtime.md §3), and a view made after they went by
 * would otherwise show the answer from the middle until its call ends.
 * The strings stay valid until the next delta or the call's end, on the
 * main context.
 *
 * Part of the execution of docs/runtime.md §5.
 *
 * Returns: %TRUE while a model call streams; %FALSE (and nothing set)
 *   otherwise
 */
gboolean
natter_turn_execution_get_streamed (NatterTurnExecution  *self,
                                    guint                *model_call_index,
                                    const char          **text,
                                    const char          **reasoning)
{
  g_return_val_if_fail (NATTER_IS_TURN_EXECUTION (self), FALSE);

  if (!self->streaming || self->settled || self->state == NULL ||
      natter_turn_state_get_n_model_calls (self->state) == 0)
    return FALSE;
  if (model_call_index != NULL)
    *model_call_index = natter_turn_state_get_n_model_calls (self->state) - 1;
  if (text != NULL)
    *text = self->partial_text->str;
  if (reasoning != NULL)
    *reasoning = self->partial_reasoning->str;
  return TRUE;
}

/**
 * natter_turn_execution_set_cancel_reason:
 * @self: a #NatterTurnExecution
 * @reason: (nullable): why the turn is to be cancelled, in words for a
 *   person (stored, not translated)
 *
 * The `reason` of the `turn_cancelled` this advance writes should its
 * #GCancellable be cancelled (docs/format.md §4.2): a cancel input says
 * why itself, a cancellable cannot. Call on the main context before
 * cancelling; a reason given by an earlier call stays, as the first stop
 * is the one carried out, and a cancel input's own reason is recorded
 * over it.
 */
void
natter_turn_execution_set_cancel_reason (NatterTurnExecution *self,
                                         const char          *reason)
{
  g_return_if_fail (NATTER_IS_TURN_EXECUTION (self));

  if (self->cancel_reason == NULL)
    self->cancel_reason = g_strdup (reason);
}

/**
 * natter_turn_execution_get_outcome:
 * @self: a #NatterTurnExecution
 *
 * The outcome, for whoever hears of the settling synchronously (the
 * #NatterTurnExecution::settled signal) and must know at once how the
 * advance left the turn.
 *
 * Returns: (transfer none) (nullable): the outcome once settled; %NULL
 *   before, or when the advance settled with an error
 */
NatterTurnOutcome *
natter_turn_execution_get_outcome (NatterTurnExecution *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_EXECUTION (self), NULL);

  return self->outcome;
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
