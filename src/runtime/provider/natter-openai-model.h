/* natter-openai-model.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One model of an OpenAI-compatible provider as the turn runtime sees it:
 * a #NatterModel over a #NatterOpenaiProvider and a model name
 * (docs/runtime.md §6 step 5, §9, §12).
 */

#pragma once

#include "natter-model.h"
#include "natter-openai-provider.h"

G_BEGIN_DECLS

#define NATTER_TYPE_OPENAI_MODEL (natter_openai_model_get_type ())
G_DECLARE_FINAL_TYPE (NatterOpenaiModel, natter_openai_model, NATTER, OPENAI_MODEL, GObject)

NatterOpenaiModel    *natter_openai_model_new          (NatterOpenaiProvider *provider,
                                                        const char           *model_name);

NatterOpenaiProvider *natter_openai_model_get_provider (NatterOpenaiModel    *self);
const char           *natter_openai_model_get_name     (NatterOpenaiModel    *self);

G_END_DECLS
