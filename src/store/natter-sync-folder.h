/* natter-sync-folder.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

char    *natter_sync_folder_find_root (const char *dir);
gboolean natter_sync_folder_is_shared (const char *storage_path);

G_END_DECLS
