/* natter-parameters-dialog.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-generation-parameters.h"

G_BEGIN_DECLS

#define NATTER_TYPE_PARAMETERS_DIALOG (natter_parameters_dialog_get_type ())

G_DECLARE_FINAL_TYPE (NatterParametersDialog, natter_parameters_dialog, NATTER, PARAMETERS_DIALOG, AdwMessageDialog)

GtkWidget                  *natter_parameters_dialog_new            (GtkWindow                        *parent,
                                                                     const NatterGenerationParameters *kept);
NatterGenerationParameters *natter_parameters_dialog_dup_parameters (NatterParametersDialog           *self);
void                        natter_parameters_dialog_follow         (NatterParametersDialog           *self,
                                                                     const NatterGenerationParameters *shown,
                                                                     const NatterGenerationParameters *now);

G_END_DECLS
