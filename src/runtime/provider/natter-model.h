/* natter-model.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One live model: streams one step of a composed request
 * (docs/runtime.md §3, §6, §12).
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * NatterModelStepSink:
 * @text_delta: (nullable): a piece of answer text, live only
 * @reasoning_delta: (nullable): a piece of reasoning text, live only
 * @step_event: (nullable): a normalized provider event (text end, tool
 *   call complete, finish + usage) that the runtime appends as
 *   `model_step_event`
 *
 * Callbacks a model invokes on the caller's main context while a step
 * streams, always before the step's async callback.
 */
typedef struct
{
  void (*text_delta)      (const char *delta,
                           gpointer    user_data);
  void (*reasoning_delta) (const char *delta,
                           gpointer    user_data);
  void (*step_event)      (JsonObject *event,
                           gpointer    user_data);
} NatterModelStepSink;

/**
 * NatterModelStepResult:
 * @message: the assistant message (a turn-schema message object node)
 * @finish_reason: the finish reason
 * @usage: the token counts of this step (may be empty)
 *
 * The canonical response of one step (`model_call_completed`).
 */
typedef struct
{
  JsonNode   *message;
  char       *finish_reason;
  JsonObject *usage;
} NatterModelStepResult;

NatterModelStepResult *natter_model_step_result_new  (JsonNode              *message,
                                                      const char            *finish_reason,
                                                      JsonObject            *usage);
void                   natter_model_step_result_free (NatterModelStepResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterModelStepResult, natter_model_step_result_free)

#define NATTER_TYPE_MODEL (natter_model_get_type ())

G_DECLARE_INTERFACE (NatterModel, natter_model, NATTER, MODEL, GObject)

/**
 * NatterModelInterface:
 * @stream_step_async: starts one step; calls @sink while it streams
 * @stream_step_finish: the step's result, or a #GError (cancellation is
 *   %G_IO_ERROR_CANCELLED)
 */
struct _NatterModelInterface
{
  GTypeInterface parent_iface;

  void                   (*stream_step_async)  (NatterModel               *self,
                                                JsonObject                *request,
                                                const NatterModelStepSink *sink,
                                                gpointer                   sink_data,
                                                GCancellable              *cancellable,
                                                GAsyncReadyCallback        callback,
                                                gpointer                   user_data);
  NatterModelStepResult *(*stream_step_finish) (NatterModel               *self,
                                                GAsyncResult              *result,
                                                GError                   **error);
};

void                   natter_model_stream_step_async  (NatterModel               *self,
                                                        JsonObject                *request,
                                                        const NatterModelStepSink *sink,
                                                        gpointer                   sink_data,
                                                        GCancellable              *cancellable,
                                                        GAsyncReadyCallback        callback,
                                                        gpointer                   user_data);
NatterModelStepResult *natter_model_stream_step_finish (NatterModel               *self,
                                                        GAsyncResult              *result,
                                                        GError                   **error);

G_END_DECLS
