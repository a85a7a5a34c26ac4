/* natter-memory-secret-store.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-secret-store.h"

G_BEGIN_DECLS

#define NATTER_TYPE_MEMORY_SECRET_STORE (natter_memory_secret_store_get_type ())

G_DECLARE_FINAL_TYPE (NatterMemorySecretStore, natter_memory_secret_store, NATTER, MEMORY_SECRET_STORE, GObject)

NatterMemorySecretStore *natter_memory_secret_store_new        (void);
const char              *natter_memory_secret_store_peek       (NatterMemorySecretStore *self,
                                                                const char              *provider);
guint                    natter_memory_secret_store_get_n_keys (NatterMemorySecretStore *self);
void                     natter_memory_secret_store_set_failing (NatterMemorySecretStore *self,
                                                                 gboolean                 failing);

G_END_DECLS
