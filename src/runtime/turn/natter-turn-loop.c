/* natter-turn-loop.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The loop of docs/runtime.md §6 step 5 and its steps: natter-turn-step.c
 * decides from the reduced turn what comes next, and the functions here
 * write it: model calls and their streams, permission decisions and the
 * classifier, the sync tools, cancellation, suspension and the end of
 * the turn. Every step ends by appending a batch through the append
 * queue here, and when the queue drains the loop runs again, so the
 * queue and the loop are one file.
 *
 * The sync tools (docs/runtime.md §8) run in g_task_run_in_thread();
 * their inputs are deep copies and their results come back as new
 * objects, so no JSON object is shared between threads (json-glib's
 * reference counts are not atomic). Progress is written on the main
 * context before the tool goes on.
 */

#define G_LOG_DOMAIN "natter-turn-execution"

#include <string.h>

#include "natter-attachment-content.h"
#include "natter-json.h"
#include "natter-request-composer.h"
#include "natter-turn-execution-private.h"
#include "natter-turn-reducer.h"
#include "natter-turn-schema.h"
#include "natter-turn-step.h"

static void
batch_free (Batch *batch)
{
  g_ptr_array_unref (batch->events);
  g_free (batch);
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
          const char *type = json_object_get_string_member (event, "type");

          /* The log holds the call's words now: what was kept of them
           * goes (docs/format.md §11). */
          if (self->keep_on_disk && !self->keep_unreadable &&
              (g_str_equal (type, "model_call_completed") || g_str_equal (type, "model_call_failed")))
            {
              natter_stream_keep_forget (self->runtime->keep, self->turn_id);
              self->keep_on_disk = FALSE;
            }
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

/* Model step (docs/runtime.md §6 step 5) */

static void
note_first_token (NatterTurnExecution *self)
{
  if (self->first_token_us == 0)
    self->first_token_us = natter_clock_now_us (self->runtime->clock);
}

static JsonNode *build_partial (NatterTurnExecution *self);

/* How long the streamed words may be ahead of what is kept of them on
 * disk (docs/format.md §11): what a kill loses at most. */
#define KEEP_INTERVAL_MS 500

static gboolean
keep_cb (gpointer user_data)
{
  NatterTurnExecution *self = user_data;
  g_autoptr(JsonNode) partial = NULL;

  g_clear_pointer (&self->keep_source, g_source_unref);
  if (self->streaming && !self->settled && (partial = build_partial (self)) != NULL)
    {
      natter_stream_keep_save (self->runtime->keep, self->turn_id,
                               natter_turn_state_get_n_model_calls (self->state) - 1, partial);
      self->keep_on_disk = TRUE;
    }
  return G_SOURCE_REMOVE;
}

/* Keeps the streamed words on disk soon, unless that is due already:
 * one write per interval however fast the pieces come. */
static void
schedule_keep (NatterTurnExecution *self)
{
  /* An unreadable file of an earlier process is never written over:
   * this turn's later words go unkept rather than lose it. */
  if (self->runtime->keep == NULL || self->keep_source != NULL || self->keep_unreadable)
    return;
  self->keep_source = g_timeout_source_new (KEEP_INTERVAL_MS);
  g_source_set_callback (self->keep_source, keep_cb, self, NULL);
  g_source_set_static_name (self->keep_source, "[natter] keep streamed words");
  g_source_attach (self->keep_source, self->context);
}

/* A piece of the open model call's live text or reasoning: kept in
 * @partial, so that a stop or a failure keeps what arrived
 * (build_partial()), kept on disk a moment later against a kill
 * (schedule_keep()), and announced. */
static void
sink_delta (NatterTurnExecution *self,
            GString             *partial,
            NatterDeltaKind      kind,
            const char          *delta)
{
  guint index = natter_turn_state_get_n_model_calls (self->state) - 1;

  note_first_token (self);
  g_string_append (partial, delta);
  schedule_keep (self);
  g_signal_emit (self, _natter_turn_execution_signals[NATTER_TURN_EXECUTION_SIGNAL_DELTA], 0, index, (int) kind, delta);
  natter_turn_event_hub_emit_delta (self->runtime->hub, self->turn_id, index, kind, delta);
}

static void
sink_text_delta (const char *delta,
                 gpointer    user_data)
{
  NatterTurnExecution *self = user_data;

  sink_delta (self, self->partial_text, NATTER_DELTA_TEXT, delta);
}

static void
sink_reasoning_delta (const char *delta,
                      gpointer    user_data)
{
  NatterTurnExecution *self = user_data;

  sink_delta (self, self->partial_reasoning, NATTER_DELTA_REASONING, delta);
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
  batch = _natter_turn_execution_new_batch ();
  event = _natter_turn_execution_new_event (self, batch, "model_step_event");
  json_object_set_int_member (event, "modelCallIndex",
                              natter_turn_state_get_n_model_calls (self->state) - 1);
  json_object_set_member (event, "event", _natter_turn_execution_object_node (step));
  _natter_turn_execution_enqueue (self, batch, NULL, NULL);
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
  return _natter_turn_execution_object_node (message);
}

/* Closes the open model call with its answer (@step) or its @error;
 * @code is the `turn_failed.code` of a failure, or %NULL. */
static void
finish_model_call (NatterTurnExecution   *self,
                   NatterModelStepResult *step,
                   GError                *error,
                   const char            *code)
{
  guint index = natter_turn_state_get_n_model_calls (self->state) - 1;
  GPtrArray *batch;
  JsonObject *event;
  g_autoptr(JsonNode) partial = NULL;

  /* The event about to be written holds the words from now on. */
  _natter_turn_execution_cancel_keep (self);
  if (step == NULL)
    partial = build_partial (self);

  batch = _natter_turn_execution_new_batch ();
  if (step != NULL)
    {
      event = _natter_turn_execution_new_event (self, batch, "model_call_completed");
      json_object_set_int_member (event, "modelCallIndex", index);
      json_object_set_member (event, "message", json_node_ref (step->message));
      json_object_set_string_member (event, "finishReason", step->finish_reason);
      json_object_set_object_member (event, "usage", json_object_ref (step->usage));
    }
  else if (self->cancel_requested || g_cancellable_is_cancelled (self->cancellable))
    {
      /* The loop appends the rest of the cancellation (docs/runtime.md §9). */
      self->cancel_requested = TRUE;
      event = _natter_turn_execution_new_event (self, batch, "model_call_failed");
      json_object_set_int_member (event, "modelCallIndex", index);
      json_object_set_string_member (event, "error", "cancelled");
      if (partial != NULL)
        json_object_set_member (event, "partial", g_steal_pointer (&partial));
    }
  else
    {
      /* No automatic retry (docs/runtime.md §9). */
      event = _natter_turn_execution_new_event (self, batch, "model_call_failed");
      json_object_set_int_member (event, "modelCallIndex", index);
      json_object_set_string_member (event, "error", error->message);
      if (partial != NULL)
        json_object_set_member (event, "partial", g_steal_pointer (&partial));
      event = _natter_turn_execution_new_event (self, batch, "turn_failed");
      json_object_set_string_member (event, "error", error->message);
      if (code != NULL)
        json_object_set_string_member (event, "code", code);
      json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (self->state));
    }
  /* When the answer began, beside the call's own end (its `ts`): the
   * time to the first token and the tokens per second are read from
   * these (natter_turn_model_call_get_time_to_first_token_ms()). */
  if (self->first_token_us > 0)
    {
      JsonObject *closing = json_node_get_object (g_ptr_array_index (batch, 0));
      g_autofree char *first_token_ts = natter_format_ts (self->first_token_us);

      json_object_set_string_member (closing, "firstTokenTs", first_token_ts);
    }
  _natter_turn_execution_enqueue (self, batch, NULL, NULL);
}

static void
model_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(NatterTurnExecution) self = user_data;
  g_autoptr(NatterModelStepResult) step = NULL;
  g_autoptr(GError) error = NULL;

  self->streaming = FALSE;
  step = natter_model_stream_step_finish (NATTER_MODEL (object), result, &error);
  if (self->settled)
    return;
  finish_model_call (self, step, error, NULL);
}

static void
attachments_expanded_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(NatterTurnExecution) self = user_data;
  g_autoptr(JsonObject) request = NULL;
  g_autoptr(GError) error = NULL;

  request = natter_attachments_expand_finish (result, &error);
  if (self->settled)
    return;
  if (request == NULL)
    {
      /* The call fails like any failed call, and the turn with it: the
       * reason names the attachment and its file, and is kept in the
       * turn so every front end shows which one. The user's message
       * stays; nothing is sent without the attachment. */
      self->streaming = FALSE;
      finish_model_call (self, NULL, error, "attachment-unreadable");
      return;
    }
  natter_model_stream_step_async (self->model, request, &sink, self, self->cancellable,
                                  model_cb, g_object_ref (self));
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
      _natter_turn_execution_fail (self, g_steal_pointer (&error));
      return;
    }
  self->streaming = TRUE;
  g_string_truncate (self->partial_text, 0);
  g_string_truncate (self->partial_reasoning, 0);
  self->first_token_us = 0;
  /* Attachments are read from their blobs for each request, off the main
   * thread; a missing or damaged one fails the call (model_cb) with the
   * file it names, never sends the message without it. */
  if (natter_messages_have_blob_parts (json_object_get_array_member (request, "messages")))
    {
      natter_attachments_expand_async (self->runtime->blobs, request, self->cancellable,
                                       attachments_expanded_cb, g_object_ref (self));
      return;
    }
  natter_model_stream_step_async (self->model, request, &sink, self, self->cancellable,
                                  model_cb, g_object_ref (self));
}

/* Permissions (docs/runtime.md §7) */

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

  batch = _natter_turn_execution_new_batch ();
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
          JsonObject *event = _natter_turn_execution_new_event (self, batch, "tool_permission_classified");

          json_object_set_string_member (event, "toolCallId", id);
          json_object_set_string_member (event, "decision",
                                         json_object_get_string_member (answer, "decision"));
          json_object_set_string_member (event, "reason",
                                         json_object_get_string_member_with_default (answer, "reason", ""));
        }
      else
        {
          /* A failure or a missing decision counts as defer
           * (docs/runtime.md §7). */
          json_array_add_string_element (failed_ids, id);
        }
    }
  if (json_array_get_length (failed_ids) > 0)
    {
      JsonObject *event = _natter_turn_execution_new_event (self, batch, "tool_permission_classification_failed");

      json_object_set_array_member (event, "toolCallIds", json_array_ref (failed_ids));
      json_object_set_string_member (event, "error",
                                     error != NULL ? error->message : "The classifier gave no decision");
    }
  _natter_turn_execution_enqueue (self, batch, NULL, NULL);
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
          event = _natter_turn_execution_new_event (self, batch, "tool_permission_resolved");
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

  event = _natter_turn_execution_new_event (self, batch, "tool_permission_resolved");
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
  _natter_turn_execution_add_runtime_error (self, batch, call, "Permission denied");
  return TRUE;
}

static JsonObject *
add_invocation (NatterTurnExecution *self,
                GPtrArray           *batch,
                GPtrArray           *to_start,
                NatterTurnToolCall  *call,
                JsonObject          *descriptor)
{
  JsonObject *event = _natter_turn_execution_new_event (self, batch, "tool_invocation_requested");
  const char *execution = json_object_get_string_member (descriptor, "execution");

  json_object_set_string_member (event, "toolCallId", natter_turn_tool_call_get_id (call));
  json_object_set_string_member (event, "toolId", json_object_get_string_member (descriptor, "toolId"));
  json_object_set_string_member (event, "toolName", natter_turn_tool_call_get_name (call));
  json_object_set_string_member (event, "execution", execution);
  json_object_set_member (event, "input", json_node_copy (natter_turn_tool_call_get_arguments (call)));
  if (g_str_equal (execution, "sync"))
    g_ptr_array_add (to_start, g_strdup (natter_turn_tool_call_get_id (call)));
  return event;
}

/* The session's active grant for the call's tool (docs/sessions.md §12), if the
 * turn belongs to a session. A tool that needs a human is never granted: its
 * question is the point. */
static char *
find_grant (NatterTurnExecution *self,
            JsonObject          *descriptor)
{
  JsonObject *definition = natter_turn_state_get_definition (self->state);
  const char *session_id = json_object_get_string_member_with_default (definition, "sessionId", NULL);

  if (self->runtime->grants == NULL || session_id == NULL ||
      json_object_get_boolean_member_with_default (descriptor, "requiresHuman", TRUE))
    return NULL;
  return natter_permission_grants_lookup (self->runtime->grants, session_id,
                                          json_object_get_string_member (descriptor, "toolId"));
}

/* Cancellation (docs/runtime.md §9) */

static void
append_cancellation (NatterTurnExecution *self)
{
  g_autofree char *ts = natter_clock_format_ts (self->runtime->clock);
  GPtrArray *events = natter_turn_step_dup_cancellation (self->state, ts, self->cancel_reason);
  JsonObject *first = events->len > 0 ? json_node_get_object (g_ptr_array_index (events, 0)) : NULL;

  /* Stopping a call a killed process left open keeps what that process
   * had streamed of it, as a stop of a live call does. */
  if (first != NULL && g_str_equal (json_object_get_string_member (first, "type"), "model_call_failed"))
    _natter_turn_execution_add_kept_partial (self, first);
  _natter_turn_execution_enqueue (self, events, NULL, NULL);
}

/* The loop (docs/runtime.md §6 step 5) */

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
 * requires a decision, which is then asked for (docs/runtime.md §7). */
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
                                      json_node_get_object (arguments), _natter_turn_execution_turn_cwd (self),
                                      &required, &request, &error);
  if (!required)
    {
      add_invocation (self, batch, to_start, call, descriptor);
      return;
    }
  /* Only a checker that could tell defers to a grant: its failure keeps
   * failing closed. */
  if (error == NULL)
    {
      g_autofree char *grant_id = find_grant (self, descriptor);

      if (grant_id != NULL)
        {
          event = add_invocation (self, batch, to_start, call, descriptor);
          json_object_set_string_member (event, "grantId", grant_id);
          return;
        }
    }
  event = _natter_turn_execution_new_event (self, batch, "tool_permission_required");
  json_object_set_string_member (event, "toolCallId", natter_turn_tool_call_get_id (call));
  json_object_set_string_member (event, "toolName", natter_turn_tool_call_get_name (call));
  if (request == NULL)
    {
      /* Fail closed with something a human can judge. */
      g_autoptr(JsonObject) fallback = json_object_new ();

      json_object_set_string_member (fallback, "toolName", natter_turn_tool_call_get_name (call));
      json_object_set_member (fallback, "input", json_node_copy (arguments));
      request = _natter_turn_execution_object_node (fallback);
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
      /* docs/runtime.md §10: never re-run a side effect whose outcome is
       * unknown. */
      _natter_turn_execution_add_runtime_error (self, batch, call, "interrupted; outcome unknown; not retried");
      break;
    case NATTER_TOOL_CALL_STEP_INVOKE:
      add_invocation (self, batch, to_start, call, descriptor);
      break;
    case NATTER_TOOL_CALL_STEP_DENIED:
      _natter_turn_execution_add_runtime_error (self, batch, call, "Permission denied");
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
     * read (docs/runtime.md §8). */
    case NATTER_TOOL_CALL_STEP_UNKNOWN_TOOL:
      {
        g_autofree char *message = g_strdup_printf ("Unknown tool “%s”", name);

        _natter_turn_execution_add_runtime_error (self, batch, call, message);
      }
      break;
    case NATTER_TOOL_CALL_STEP_BAD_ARGUMENTS:
      _natter_turn_execution_add_runtime_error (self, batch, call, "The tool call's arguments are not a JSON object");
      break;
    case NATTER_TOOL_CALL_STEP_NO_HUMAN:
      _natter_turn_execution_add_runtime_error (self, batch, call, "human input is unavailable for this turn");
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
      GPtrArray *batch = _natter_turn_execution_new_batch ();
      JsonArray *ids = json_array_new ();
      JsonObject *event;

      for (guint i = 0; i < json_array_get_length (to_classify); i++)
        json_array_add_string_element (ids,
                                       json_object_get_string_member (json_array_get_object_element (to_classify, i),
                                                                      "toolCallId"));
      event = _natter_turn_execution_new_event (self, batch, "tool_permission_classification_failed");
      json_object_set_array_member (event, "toolCallIds", ids);
      json_object_set_string_member (event, "error", "No permission classifier is configured");
      _natter_turn_execution_enqueue (self, batch, NULL, NULL);
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
  g_autoptr(GPtrArray) batch = _natter_turn_execution_new_batch ();

  for (guint i = 0; i < unfinished->len; i++)
    resolve_tool_call (self, batch, to_start, to_classify, g_ptr_array_index (unfinished, i));

  if (batch->len > 0)
    {
      _natter_turn_execution_enqueue (self, g_steal_pointer (&batch), _natter_turn_execution_start_tools, g_steal_pointer (&to_start));
      return TRUE;
    }
  if (json_array_get_length (to_classify) > 0)
    {
      classify (self, to_classify);
      return TRUE;
    }
  return FALSE;
}

/* docs/runtime.md §10: a request without a result was interrupted; close it,
 * then the loop re-issues it as the next index with refs []. */
static void
close_open_call (NatterTurnExecution *self)
{
  GPtrArray *batch = _natter_turn_execution_new_batch ();
  JsonObject *event = _natter_turn_execution_new_event (self, batch, "model_call_failed");

  json_object_set_int_member (event, "modelCallIndex", natter_turn_state_get_n_model_calls (self->state) - 1);
  json_object_set_string_member (event, "error", "interrupted");
  /* What the killed process had streamed is the call's partial answer,
   * kept in the log before the call is asked again. */
  _natter_turn_execution_add_kept_partial (self, event);
  _natter_turn_execution_enqueue (self, batch, NULL, NULL);
}

static void
suspend (NatterTurnExecution *self)
{
  g_autoptr(GPtrArray) permissions = natter_turn_state_get_pending_permissions (self->state);
  g_autoptr(GPtrArray) async_tools = natter_turn_state_get_pending_async_tools (self->state);
  GPtrArray *batch = _natter_turn_execution_new_batch ();
  JsonObject *event = _natter_turn_execution_new_event (self, batch, "turn_suspended");
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
  _natter_turn_execution_enqueue (self, batch, NULL, NULL);
}

/* The last model call answered without tool calls: that is the output. */
static void
complete (NatterTurnExecution *self)
{
  NatterTurnModelCall *last = natter_turn_state_get_model_call (self->state,
                                                                natter_turn_state_get_last_model_call_index (self->state));
  GPtrArray *batch = _natter_turn_execution_new_batch ();
  JsonObject *event = _natter_turn_execution_new_event (self, batch, "turn_completed");

  json_object_set_member (event, "output", _natter_turn_execution_object_node (natter_turn_model_call_get_message (last)));
  json_object_set_string_member (event, "finishReason", natter_turn_model_call_get_finish_reason (last));
  json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (self->state));
  _natter_turn_execution_enqueue (self, batch, NULL, NULL);
}

/* Ends the turn as failed for a reason of the loop's own, with its
 * `turn_failed.code` (docs/format.md §4). */
static void
fail_with_code (NatterTurnExecution *self,
                const char          *message,
                const char          *code)
{
  GPtrArray *batch = _natter_turn_execution_new_batch ();
  JsonObject *event = _natter_turn_execution_new_event (self, batch, "turn_failed");

  json_object_set_string_member (event, "error", message);
  json_object_set_string_member (event, "code", code);
  json_object_set_object_member (event, "usage", natter_turn_state_dup_usage (self->state));
  _natter_turn_execution_enqueue (self, batch, NULL, NULL);
}

static void
fail_at_limit (NatterTurnExecution *self)
{
  JsonObject *config = json_object_get_object_member (natter_turn_state_get_definition (self->state), "config");
  gint64 max_calls = json_object_get_int_member (config, "maxModelCalls");
  /* Kept in the turn file, so in English like every runtime message
   * there, whatever language the app runs in. */
  g_autofree char *message = g_strdup_printf ("The turn reached its limit of %" G_GINT64_FORMAT " model %s",
                                              max_calls, max_calls == 1 ? "call" : "calls");

  fail_with_code (self, message, "model-call-limit");
}

/* Writes `model_call_requested`, then calls the model: the durable intent
 * is on disk before the model is touched (docs/runtime.md §6). */
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
      _natter_turn_execution_fail (self, g_steal_pointer (&error));
      return;
    }
  batch = _natter_turn_execution_new_batch ();
  event = _natter_turn_execution_new_event (self, batch, "model_call_requested");
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
   * request, so an audit rebuilds the exact wire payload
   * (docs/runtime.md §3). */
  if (parameters != NULL)
    json_object_set_member (request, "parameters", json_node_copy (parameters));
  else
    json_object_set_object_member (request, "parameters", json_object_new ());
  json_object_set_object_member (event, "request", request);
  _natter_turn_execution_enqueue (self, batch, start_model_call, NULL);
}

/* One turn of the loop: natter-turn-step.c decides, the step functions
 * above write. */
void
_natter_turn_execution_advance_loop (NatterTurnExecution *self)
{
  /* Whatever is in flight calls back into the loop when it is done. */
  if (self->settled || self->writing || !g_queue_is_empty (&self->queue) ||
      self->streaming || self->classifying)
    return;
  /* A cancellation kick before the turn was read (still queued on the
   * turn lock, or reading): read_cb enters the loop itself and sees the
   * cancelled cancellable then (docs/sessions.md §9.3). */
  if (self->state == NULL)
    return;

  switch (natter_turn_step_next (self->state,
                                 self->cancel_requested || g_cancellable_is_cancelled (self->cancellable)))
    {
    case NATTER_TURN_STEP_SETTLE:
      _natter_turn_execution_settle_from_event (self, natter_turn_state_get_terminal_event (self->state));
      return;
    case NATTER_TURN_STEP_CANCEL:
      append_cancellation (self);
      return;
    case NATTER_TURN_STEP_REST:
      _natter_turn_execution_settle_from_event (self, natter_turn_state_get_last_suspension (self->state));
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
    case NATTER_TURN_STEP_EMPTY_ANSWER:
      /* A stream that ended without a word is no answer: the turn fails,
       * so it can be tried again and is never titled from nothing. In
       * English, as every runtime message of the turn file. */
      fail_with_code (self, "The model sent an empty answer", "empty-answer");
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

/* Sync tools (docs/runtime.md §8) */

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
  batch = _natter_turn_execution_new_batch ();
  event = _natter_turn_execution_new_event (self, batch, "tool_progress");
  json_object_set_string_member (event, "toolCallId", progress->run->call_id);
  json_object_set_string_member (event, "source", "sync");
  json_object_set_member (event, "progress", g_steal_pointer (&value));
  _natter_turn_execution_enqueue (self, batch, progress_written, progress);
  return G_SOURCE_REMOVE;
}

/* Called in the worker: returns once tool_progress is on disk
 * (docs/runtime.md §8). */
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
      _natter_turn_execution_advance_loop (self);
      return;
    }

  batch = _natter_turn_execution_new_batch ();
  if (value != NULL && json_object_has_member (value, "output") &&
      json_object_has_member (value, "isError") &&
      JSON_NODE_HOLDS_VALUE (json_object_get_member (value, "isError")))
    {
      JsonObject *event = _natter_turn_execution_new_event (self, batch, "tool_result");

      json_object_set_string_member (event, "toolCallId", run->call_id);
      json_object_set_string_member (event, "toolName", natter_turn_tool_call_get_name (call));
      json_object_set_string_member (event, "source", "sync");
      json_object_set_object_member (event, "result", g_steal_pointer (&value));
    }
  else
    {
      /* A tool that fails (or answers nonsense) gives an error result the
       * model can read; it never fails the turn (docs/runtime.md §8). */
      _natter_turn_execution_add_result (self, batch, call, "sync",
                                         json_node_init_string (json_node_alloc (),
                                                                error != NULL ? error->message
                                                                : "The tool returned no valid result"),
                                         TRUE);
    }
  _natter_turn_execution_enqueue (self, batch, NULL, NULL);
}

void
_natter_turn_execution_start_tools (NatterTurnExecution *self,
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
      run->cwd = g_strdup (_natter_turn_execution_turn_cwd (self));
      g_mutex_init (&run->mutex);
      g_cond_init (&run->cond);

      g_hash_table_add (self->running, g_strdup (id));
      task = g_task_new (NULL, self->cancellable, tool_done_cb, NULL);
      g_task_set_source_tag (task, _natter_turn_execution_start_tools);
      g_task_set_task_data (task, run, (GDestroyNotify) tool_run_free);
      /* The result is always delivered, even after a cancellation, so the
       * worker's data outlives it. */
      g_task_set_check_cancellable (task, FALSE);
      g_task_run_in_thread (task, tool_thread);
    }
}
