/* natter-headless-runner.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Headless standalone turns (docs/sessions.md §11): background
 * tasks, scheduled agents and `natter run` create a turn outside any
 * session and advance it to its first settled outcome. Such turns have
 * `sessionId: null` and never appear in the session index; callers keep
 * the turn id if they need the history.
 */

#define G_LOG_DOMAIN "natter-headless-runner"

#include "natter-headless-runner.h"
#include "natter-send-options-private.h"
#include "natter-turn-reducer.h"

struct _NatterHeadlessRunner
{
  GObject            parent_instance;

  NatterTurnRuntime *runtime;
};

G_DEFINE_FINAL_TYPE (NatterHeadlessRunner, natter_headless_runner, G_TYPE_OBJECT)

static void
natter_headless_runner_finalize (GObject *object)
{
  NatterHeadlessRunner *self = NATTER_HEADLESS_RUNNER (object);

  g_clear_object (&self->runtime);

  G_OBJECT_CLASS (natter_headless_runner_parent_class)->finalize (object);
}

static void
natter_headless_runner_class_init (NatterHeadlessRunnerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_headless_runner_finalize;
}

static void
natter_headless_runner_init (NatterHeadlessRunner *self)
{
}

/**
 * natter_headless_runner_new:
 * @runtime: the turn runtime
 *
 * Returns: (transfer full): a runner for standalone turns
 */
NatterHeadlessRunner *
natter_headless_runner_new (NatterTurnRuntime *runtime)
{
  NatterHeadlessRunner *self;

  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (runtime), NULL);

  self = g_object_new (NATTER_TYPE_HEADLESS_RUNNER, NULL);
  self->runtime = g_object_ref (runtime);
  return self;
}

typedef struct
{
  char              *turn_id;
  NatterTurnOutcome *outcome;
  char              *final_text;
} RunData;

static void
run_data_free (RunData *data)
{
  g_free (data->turn_id);
  g_clear_pointer (&data->outcome, natter_turn_outcome_unref);
  g_free (data->final_text);
  g_free (data);
}

static void
run_read_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RunData *data = g_task_get_task_data (task);
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  GError *error = NULL;

  events = natter_turn_runtime_get_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  if (events != NULL)
    state = natter_turn_reduce (events, &error);
  if (state == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* The reducer's one definition of "the final answer's text". */
  data->final_text = natter_turn_state_dup_final_text (state);
  g_task_return_pointer (task, natter_turn_outcome_ref (data->outcome),
                         (GDestroyNotify) natter_turn_outcome_unref);
}

static void
run_waited_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterHeadlessRunner *self = g_task_get_source_object (task);
  RunData *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &error);
  if (data->outcome == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (data->outcome->kind != NATTER_TURN_OUTCOME_COMPLETED)
    {
      g_task_return_pointer (task, natter_turn_outcome_ref (data->outcome),
                             (GDestroyNotify) natter_turn_outcome_unref);
      return;
    }
  natter_turn_runtime_get_turn_async (self->runtime, data->turn_id, NULL, run_read_cb,
                                      g_steal_pointer (&task));
}

static void
run_created_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterHeadlessRunner *self = g_task_get_source_object (task);
  RunData *data = g_task_get_task_data (task);
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(NatterTurnCreated) created = NULL;
  GError *error = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  if (created == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  data->turn_id = g_strdup (natter_turn_created_get_turn_id (created));
  /* The caller's cancellable is the spec's AbortSignal: it cancels the
   * turn, which then settles as cancelled. */
  execution = natter_turn_runtime_advance_turn (self->runtime, data->turn_id, NULL,
                                                g_task_get_cancellable (task));
  natter_turn_execution_wait_async (execution, NULL, run_waited_cb, g_steal_pointer (&task));
}

/**
 * natter_headless_runner_run_async:
 * @self: the runner
 * @options: (transfer none): the agent, an optional model override and
 *   the turn's `maxModelCalls`; its auto-permission is not consulted,
 *   a headless turn always has it
 * @context: (transfer none) (nullable): inline context messages; %NULL
 *   for `[]`
 * @input: (transfer none): the user message
 * @cancellable: (nullable): aborts the turn (not just the wait): the turn
 *   settles as cancelled
 * @callback: called on the main context with the first settled outcome
 * @user_data: data for @callback
 *
 * runHeadlessTurn of docs/sessions.md §11: creates a standalone turn
 * (`sessionId: null`, `autoPermission: true`, `humanAvailable: false`) and
 * advances it to its first settled outcome. Without a human, permission prompts
 * are decided by the classifier or denied, and `ask_human` is a runtime error;
 * async tools can still leave the turn suspended, which is returned as is.
 */
void
natter_headless_runner_run_async (NatterHeadlessRunner *self,
                                  const NatterSendOptions *options,
                                  JsonArray            *context,
                                  JsonObject           *input,
                                  GCancellable         *cancellable,
                                  GAsyncReadyCallback   callback,
                                  gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(NatterSendOptions) headless = NULL;
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(JsonObject) config = NULL;
  g_autoptr(JsonNode) context_node = NULL;

  g_return_if_fail (NATTER_IS_HEADLESS_RUNNER (self));
  g_return_if_fail (options != NULL);
  g_return_if_fail (input != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_headless_runner_run_async);
  /* The cancellable aborts the turn, whose outcome (cancelled) is the
   * result, not a G_IO_ERROR_CANCELLED. */
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, g_new0 (RunData, 1), (GDestroyNotify) run_data_free);

  /* No human: tools run without asking (docs/sessions.md §11). */
  headless = natter_send_options_copy (options);
  natter_send_options_set_auto_permission (headless, TRUE);
  agent = natter_send_options_to_requested_agent (headless);
  config = natter_send_options_to_turn_config (headless, FALSE, NULL);
  context_node = json_node_new (JSON_NODE_ARRAY);
  if (context != NULL)
    json_node_set_array (context_node, context);
  else
    json_node_take_array (context_node, json_array_new ());
  natter_turn_runtime_create_turn_async (self->runtime, agent, NULL, context_node, input, config,
                                         cancellable, run_created_cb, g_steal_pointer (&task));
}

/**
 * natter_headless_runner_run_finish:
 * @self: the runner
 * @result: the #GAsyncResult
 * @out_turn_id: (out) (optional) (transfer full): the standalone turn's
 *   id, set whenever the turn was created
 * @out_final_text: (out) (optional) (transfer full) (nullable): the final
 *   assistant text of a completed turn, else %NULL
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the first settled outcome; or
 *   %NULL with the runtime's error (%NATTER_RUNTIME_ERROR_AGENT,
 *   %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND, a %NATTER_STORE_ERROR, …)
 */
NatterTurnOutcome *
natter_headless_runner_run_finish (NatterHeadlessRunner  *self,
                                   GAsyncResult          *result,
                                   char                 **out_turn_id,
                                   char                 **out_final_text,
                                   GError               **error)
{
  RunData *data;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_headless_runner_run_async, NULL);

  data = g_task_get_task_data (G_TASK (result));
  if (out_turn_id != NULL)
    *out_turn_id = g_strdup (data->turn_id);
  if (out_final_text != NULL)
    *out_final_text = g_strdup (data->final_text);
  return g_task_propagate_pointer (G_TASK (result), error);
}
