/* natter-store-watch.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-folders.h"
#include "natter-sessions.h"

G_BEGIN_DECLS

#define NATTER_TYPE_STORE_WATCH (natter_store_watch_get_type ())

G_DECLARE_FINAL_TYPE (NatterStoreWatch, natter_store_watch, NATTER, STORE_WATCH, GObject)

NatterStoreWatch *natter_store_watch_new          (NatterSessions   *sessions,
                                                   NatterFolders    *folders,
                                                   GFile            *storage_dir);
void              natter_store_watch_start        (NatterStoreWatch *self);
void              natter_store_watch_set_delay    (NatterStoreWatch *self,
                                                   guint             delay_ms);
guint             natter_store_watch_get_n_refreshes (NatterStoreWatch *self);
guint             natter_store_watch_get_n_watched   (NatterStoreWatch *self);

G_END_DECLS
