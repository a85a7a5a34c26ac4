/* natter-turn-tool-runner.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sync tools of an advance (docs/runtime.md §8). They run in
 * g_task_run_in_thread(); their inputs are deep copies and their results
 * come back as new objects, so no JSON object is shared between threads
 * (json-glib's reference counts are not atomic). Progress is written on
 * the main context before the tool goes on.
 */

#define G_LOG_DOMAIN "natter-turn-execution"

#include "natter-json.h"
#include "natter-turn-execution-private.h"
#include "natter-turn-reducer.h"

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
