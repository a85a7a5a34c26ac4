/* natter-provider-row.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-settings.h"

G_BEGIN_DECLS

#define NATTER_TYPE_PROVIDER_ROW (natter_provider_row_get_type ())

G_DECLARE_FINAL_TYPE (NatterProviderRow, natter_provider_row, NATTER, PROVIDER_ROW, AdwExpanderRow)

NatterProviderRow *natter_provider_row_new              (const NatterProviderConfig *config);
const char        *natter_provider_row_get_provider_id  (NatterProviderRow          *self);
const char        *natter_provider_row_get_name         (NatterProviderRow          *self);
void               natter_provider_row_set_name         (NatterProviderRow          *self,
                                                         const char                 *name);
const char        *natter_provider_row_get_base_url     (NatterProviderRow          *self);
void               natter_provider_row_set_base_url     (NatterProviderRow          *self,
                                                         const char                 *base_url);
gboolean           natter_provider_row_get_key_stored   (NatterProviderRow          *self);
void               natter_provider_row_set_key_stored   (NatterProviderRow          *self,
                                                         gboolean                    key_stored);
gboolean           natter_provider_row_get_testing      (NatterProviderRow          *self);
void               natter_provider_row_set_testing      (NatterProviderRow          *self,
                                                         gboolean                    testing);
const char        *natter_provider_row_get_entered_key  (NatterProviderRow          *self);
char              *natter_provider_row_dup_entered_url  (NatterProviderRow          *self);
const char        *natter_provider_row_get_entered_name (NatterProviderRow          *self);
void               natter_provider_row_clear_entered_key (NatterProviderRow         *self);
void               natter_provider_row_set_refused      (NatterProviderRow          *self,
                                                         const char                 *part,
                                                         gboolean                    refused);
void               natter_provider_row_focus_name       (NatterProviderRow          *self);
GtkWidget         *natter_provider_row_get_part         (NatterProviderRow          *self,
                                                         const char                 *part);

void               natter_provider_row_set_transcription_model (NatterProviderRow *self,
                                                                const char        *model);

G_END_DECLS
