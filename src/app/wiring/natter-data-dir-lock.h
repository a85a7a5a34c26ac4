/* natter-data-dir-lock.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * NATTER_DATA_DIR_LOCK_NAME:
 *
 * The lock file's name inside the storage directory.
 */
#define NATTER_DATA_DIR_LOCK_NAME ".lock"

#define NATTER_TYPE_DATA_DIR_LOCK (natter_data_dir_lock_get_type ())

G_DECLARE_FINAL_TYPE (NatterDataDirLock, natter_data_dir_lock, NATTER, DATA_DIR_LOCK, GObject)

NatterDataDirLock *natter_data_dir_lock_acquire   (GFile              *storage_dir,
                                                   GError            **error);
GFile             *natter_data_dir_lock_get_dir   (NatterDataDirLock  *self);

G_END_DECLS
