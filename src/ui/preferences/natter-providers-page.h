/* natter-providers-page.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-provider-row.h"
#include "natter-services.h"

G_BEGIN_DECLS

#define NATTER_TYPE_PROVIDERS_PAGE (natter_providers_page_get_type ())

G_DECLARE_FINAL_TYPE (NatterProvidersPage, natter_providers_page, NATTER, PROVIDERS_PAGE, AdwPreferencesPage)

void               natter_providers_page_set_services  (NatterProvidersPage *self,
                                                        NatterServices      *services);
NatterProviderRow *natter_providers_page_get_row       (NatterProvidersPage *self,
                                                        const char          *provider_id);
GtkWidget         *natter_providers_page_get_add_row   (NatterProvidersPage *self);
guint              natter_providers_page_get_n_pending (NatterProvidersPage *self);

G_END_DECLS
