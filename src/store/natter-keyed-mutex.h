/* natter-keyed-mutex.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-types.h"

G_BEGIN_DECLS

#define NATTER_TYPE_KEYED_MUTEX (natter_keyed_mutex_get_type ())

G_DECLARE_FINAL_TYPE (NatterKeyedMutex, natter_keyed_mutex, NATTER, KEYED_MUTEX, GObject)

NatterKeyedMutex *natter_keyed_mutex_new             (void);
void              natter_keyed_mutex_acquire_async   (NatterKeyedMutex     *self,
                                                      const char           *key,
                                                      GCancellable         *cancellable,
                                                      GAsyncReadyCallback   callback,
                                                      gpointer              user_data);
NatterLockGuard  *natter_keyed_mutex_acquire_finish  (NatterKeyedMutex     *self,
                                                      GAsyncResult         *result,
                                                      GError              **error);
gboolean          natter_keyed_mutex_is_locked       (NatterKeyedMutex     *self,
                                                      const char           *key);

void              natter_lock_guard_release          (NatterLockGuard      *guard);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterLockGuard, natter_lock_guard_release)

G_END_DECLS
