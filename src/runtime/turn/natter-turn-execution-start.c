/* natter-turn-execution-start.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How an advance starts (docs/runtime.md §6 steps 1–4): take the turn's
 * lock, read and reduce its file, validate the input against the work
 * that is pending, materialize the context the turn continues, and hand
 * the turn to the loop of natter-turn-loop.c. A fresh advance and a
 * recovery after a crash (docs/runtime.md §10) start the same way.
 */

#define G_LOG_DOMAIN "natter-turn-execution"

#include <string.h>

#include "natter-device.h"
#include "natter-log-read.h"
#include "natter-json.h"
#include "natter-turn-execution-private.h"
#include "natter-turn-reducer.h"
#include "natter-turn-schema.h"

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
      _natter_turn_execution_add_kept_partial (self, event);
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
      const char *reason = json_object_get_string_member_with_default (self->input, "reason", NULL);

      self->cancel_requested = TRUE;
      /* The input says why for itself (natter_turn_execution_set_cancel_reason()). */
      if (reason != NULL)
        {
          g_free (self->cancel_reason);
          self->cancel_reason = g_strdup (reason);
        }
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

/* docs/format.md §4.5: a turn that another device runs is never
 * advanced here — not resumed, answered or stopped — while it can still
 * run there (no terminal event, not waiting for a person or a tool);
 * only a take-over the person asked for continues it here. A turn that
 * waits (suspended) runs nowhere: whichever device answers it runs it
 * from then on. Either way the first event this advance writes records
 * this device. */
static gboolean
check_device (NatterTurnExecution  *self,
              GError              **error)
{
  NatterDevice *here = self->runtime->device;
  const char *there = natter_turn_state_get_device_id (self->state);

  if (natter_device_is_this (here, there))
    return TRUE;
  if (!self->take_over && natter_derive_turn_status (self->state) == NATTER_TURN_STATUS_IDLE)
    {
      const char *name = natter_turn_state_get_device_name (self->state);

      g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_ELSEWHERE,
                   "Turn %s runs on another device (“%s”)", self->turn_id,
                   name != NULL && name[0] != '\0' ? name : there);
      return FALSE;
    }
  self->stamp_device = TRUE;
  return TRUE;
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

  if (!check_device (self, &error))
    {
      _natter_turn_execution_fail (self, error);
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
  const GError *refusal;
  GError *error = NULL;

  self->guard = natter_jsonl_repo_lock_finish (NATTER_JSONL_REPO (object), result, &error);
  if (self->guard == NULL)
    {
      _natter_turn_execution_fail (self, error);
      return;
    }
  /* A process that may not write the turns (it does not hold the data
   * directory's single-writer lock: docs/sessions.md §8.3) advances
   * none, not even to cancel it: the turn that looks interrupted here
   * may be running in the process that does. Nothing is read, written
   * or asked of a model. */
  refusal = natter_jsonl_repo_get_write_refusal (self->runtime->repo);
  if (refusal != NULL)
    {
      _natter_turn_execution_fail (self, g_error_copy (refusal));
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
                              gboolean           take_over,
                              GCancellable      *cancellable)
{
  NatterTurnExecution *self = g_object_new (NATTER_TYPE_TURN_EXECUTION, NULL);

  self->runtime = g_object_ref (runtime);
  self->turn_id = g_strdup (turn_id);
  self->input = input != NULL ? json_object_ref (input) : NULL;
  self->take_over = take_over;
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
