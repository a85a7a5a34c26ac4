/* natter-model-pull.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One download of a model onto an Ollama server, followed as it runs
 * (docs/runtime.md §13).
 */

#pragma once

#include "natter-openai-provider.h"

G_BEGIN_DECLS

/**
 * NatterModelPullState:
 * @NATTER_MODEL_PULL_RUNNING: the server is pulling
 * @NATTER_MODEL_PULL_SUCCEEDED: the server said "success"; the model is
 *   installed
 * @NATTER_MODEL_PULL_FAILED: the server refused, reported an error, or
 *   the stream ended before it said "success"
 * @NATTER_MODEL_PULL_CANCELLED: natter_model_pull_cancel() stopped it
 *
 * Where a pull stands.
 */
typedef enum
{
  NATTER_MODEL_PULL_RUNNING,
  NATTER_MODEL_PULL_SUCCEEDED,
  NATTER_MODEL_PULL_FAILED,
  NATTER_MODEL_PULL_CANCELLED,
} NatterModelPullState;

/**
 * NatterModelPullLayer:
 * @digest: the layer's digest ("sha256:…")
 * @completed: bytes of it downloaded
 * @total: its size in bytes
 *
 * One file of a model being pulled, as the server last reported it.
 */
typedef struct
{
  char   *digest;
  gint64  completed;
  gint64  total;
} NatterModelPullLayer;

#define NATTER_TYPE_MODEL_PULL (natter_model_pull_get_type ())
G_DECLARE_FINAL_TYPE (NatterModelPull, natter_model_pull, NATTER, MODEL_PULL, GObject)

NatterModelPull            *natter_model_pull_start         (NatterOpenaiProvider *provider,
                                                             const char           *native_root,
                                                             const char           *name);
const char                 *natter_model_pull_get_name      (NatterModelPull      *self);
NatterModelPullState        natter_model_pull_get_state     (NatterModelPull      *self);
const char                 *natter_model_pull_get_status    (NatterModelPull      *self);
char                       *natter_model_pull_dup_short_status (NatterModelPull *self);
gint64                      natter_model_pull_get_completed (NatterModelPull      *self);
gint64                      natter_model_pull_get_total     (NatterModelPull      *self);
guint                       natter_model_pull_get_n_layers  (NatterModelPull      *self);
const NatterModelPullLayer *natter_model_pull_get_layer     (NatterModelPull      *self,
                                                             guint                 index);
const GError               *natter_model_pull_get_error     (NatterModelPull      *self);
void                        natter_model_pull_cancel        (NatterModelPull      *self);

G_END_DECLS
