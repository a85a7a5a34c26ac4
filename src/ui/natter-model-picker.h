/* natter-model-picker.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-openai-provider.h"

G_BEGIN_DECLS

#define NATTER_TYPE_MODEL_PICKER (natter_model_picker_get_type ())

G_DECLARE_FINAL_TYPE (NatterModelPicker, natter_model_picker, NATTER, MODEL_PICKER, GtkWidget)

GtkWidget  *natter_model_picker_new             (void);
void        natter_model_picker_set_provider    (NatterModelPicker    *self,
                                                 NatterOpenaiProvider *provider,
                                                 const char           *display_name);
void        natter_model_picker_set_unavailable (NatterModelPicker    *self,
                                                 const char           *title,
                                                 const char           *message,
                                                 const char           *fallback_label);
void        natter_model_picker_refresh         (NatterModelPicker    *self);
void        natter_model_picker_models_changed  (NatterModelPicker    *self,
                                                 const char           *provider_id);
const char *natter_model_picker_get_provider_id (NatterModelPicker    *self);
const char *natter_model_picker_get_model       (NatterModelPicker    *self);
void        natter_model_picker_set_model       (NatterModelPicker    *self,
                                                 const char           *model);
gboolean    natter_model_picker_get_compact     (NatterModelPicker    *self);
void        natter_model_picker_set_others      (NatterModelPicker    *self,
                                                 GPtrArray            *providers);
GStrv       natter_model_picker_get_other_models (NatterModelPicker   *self,
                                                 const char           *provider_id);
GListModel *natter_model_picker_get_models      (NatterModelPicker    *self);
const char *natter_model_picker_get_state       (NatterModelPicker    *self);
void        natter_model_picker_popup           (NatterModelPicker    *self);
void        natter_model_picker_popdown         (NatterModelPicker    *self);
void        natter_model_picker_choose          (NatterModelPicker    *self,
                                                 const char           *model);
void        natter_model_picker_choose_from     (NatterModelPicker    *self,
                                                 const char           *provider_id,
                                                 const char           *model);

G_END_DECLS
