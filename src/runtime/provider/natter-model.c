/* natter-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-model"

#include "natter-model.h"

G_DEFINE_INTERFACE (NatterModel, natter_model, G_TYPE_OBJECT)

static void
natter_model_default_init (NatterModelInterface *iface)
{
}

/**
 * natter_model_step_result_new:
 * @message: (transfer none): the assistant message node
 * @finish_reason: the finish reason
 * @usage: (transfer none) (nullable): token counts; %NULL for none
 *
 * The canonical response of docs/runtime.md §3 (`model_call_completed`).
 *
 * Returns: (transfer full): a result holding copies/references of the
 *   arguments; free with natter_model_step_result_free()
 */
NatterModelStepResult *
natter_model_step_result_new (JsonNode   *message,
                              const char *finish_reason,
                              JsonObject *usage)
{
  NatterModelStepResult *result = g_new0 (NatterModelStepResult, 1);

  g_return_val_if_fail (message != NULL, NULL);

  result->message = json_node_copy (message);
  result->finish_reason = g_strdup (finish_reason != NULL ? finish_reason : "stop");
  result->usage = usage != NULL ? json_object_ref (usage) : json_object_new ();
  return result;
}

/**
 * natter_model_step_result_free:
 * @result: (nullable): a result
 *
 * Frees @result.
 *
 * Part of docs/runtime.md §3.
 */
void
natter_model_step_result_free (NatterModelStepResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->message, json_node_unref);
  g_clear_pointer (&result->finish_reason, g_free);
  g_clear_pointer (&result->usage, json_object_unref);
  g_free (result);
}

/**
 * natter_model_stream_step_async:
 * @self: a #NatterModel
 * @request: (transfer none): the composed request of natter_compose_request()
 * @sink: (nullable): callbacks for live deltas and step events; must stay
 *   valid until @callback runs
 * @sink_data: data for @sink
 * @cancellable: (nullable): aborts the stream
 * @callback: called once on the caller's main context
 * @user_data: data for @callback
 *
 * Streams one model step (docs/runtime.md §6 step 5). The request is sent
 * exactly as given so an audit can rebuild the wire bytes from the file.
 */
void
natter_model_stream_step_async (NatterModel               *self,
                                JsonObject                *request,
                                const NatterModelStepSink *sink,
                                gpointer                   sink_data,
                                GCancellable              *cancellable,
                                GAsyncReadyCallback        callback,
                                gpointer                   user_data)
{
  g_return_if_fail (NATTER_IS_MODEL (self));
  g_return_if_fail (request != NULL);

  NATTER_MODEL_GET_IFACE (self)->stream_step_async (self, request, sink, sink_data,
                                                    cancellable, callback, user_data);
}

/**
 * natter_model_stream_step_finish:
 * @self: a #NatterModel
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Implements the model step of docs/runtime.md §6 step 5.
 *
 * Returns: (transfer full) (nullable): the step result, or %NULL with the
 *   provider's error (%NATTER_PROVIDER_ERROR, or %G_IO_ERROR_CANCELLED)
 */
NatterModelStepResult *
natter_model_stream_step_finish (NatterModel   *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (NATTER_IS_MODEL (self), NULL);

  return NATTER_MODEL_GET_IFACE (self)->stream_step_finish (self, result, error);
}
