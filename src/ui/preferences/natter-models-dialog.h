/* natter-models-dialog.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-provider-registry.h"

G_BEGIN_DECLS

#define NATTER_TYPE_MODELS_DIALOG (natter_models_dialog_get_type ())

G_DECLARE_FINAL_TYPE (NatterModelsDialog, natter_models_dialog, NATTER, MODELS_DIALOG, AdwWindow)

GtkWidget       *natter_models_dialog_new        (GtkWindow              *parent,
                                                  NatterProviderRegistry *registry,
                                                  const char             *provider_id);
const char      *natter_models_dialog_get_state  (NatterModelsDialog     *self);
NatterModelPull *natter_models_dialog_get_pull   (NatterModelsDialog     *self);
void             natter_models_dialog_pull       (NatterModelsDialog     *self,
                                                  const char             *name);

G_END_DECLS
