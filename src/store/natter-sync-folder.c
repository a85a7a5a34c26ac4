/* natter-sync-folder.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Whether the data folder is kept in step with other devices by a file
 * synchroniser (docs/sync.md), which decides what a file that a log
 * names but that is not there means (docs/format.md §9.3).
 */

#define G_LOG_DOMAIN "natter-store"

#include "natter-sync-folder.h"

/**
 * natter_sync_folder_is_shared:
 * @storage_path: the data folder's `storage` directory
 *
 * Whether the data folder holding @storage_path is a Syncthing folder:
 * Syncthing keeps its folder marker, a directory `.stfolder`, at the top
 * of every folder it shares, and refuses to sync a folder without it. In
 * such a folder a log may name a file that has not arrived from another
 * device yet (docs/format.md §9.3); elsewhere such a file is lost. Looks
 * at the disk on every call: called only when a file is missing.
 *
 * Returns: %TRUE when `<data folder>/.stfolder` is a directory
 */
gboolean
natter_sync_folder_is_shared (const char *storage_path)
{
  g_autofree char *data_dir = NULL;
  g_autofree char *marker = NULL;

  g_return_val_if_fail (storage_path != NULL, FALSE);

  data_dir = g_path_get_dirname (storage_path);
  marker = g_build_filename (data_dir, ".stfolder", NULL);
  return g_file_test (marker, G_FILE_TEST_IS_DIR);
}
