/* natter-sync-page.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-services.h"

G_BEGIN_DECLS

#define NATTER_TYPE_SYNC_PAGE (natter_sync_page_get_type ())

G_DECLARE_FINAL_TYPE (NatterSyncPage, natter_sync_page, NATTER, SYNC_PAGE, AdwPreferencesPage)

NatterSyncPage *natter_sync_page_new        (NatterServices          *services);
void            natter_sync_page_refresh    (NatterSyncPage          *self);
guint           natter_sync_page_get_n_pending (NatterSyncPage       *self);
GtkWidget      *natter_sync_page_get_widget (NatterSyncPage          *self,
                                             const char              *name);

G_END_DECLS
