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
 * natter_sync_folder_find_root:
 * @dir: a directory's path, absolute
 *
 * The folder a Syncthing share holding @dir starts at: the nearest of
 * @dir and its parents with Syncthing's folder marker `.stfolder` (a
 * directory today, a file in older versions), which Syncthing keeps at
 * the top of every folder it shares and without which it refuses to
 * sync. The data folder may be that folder or lie inside it.
 *
 * Returns: (transfer full) (nullable): that folder's path, or %NULL when
 *   no synchroniser shares @dir
 */
char *
natter_sync_folder_find_root (const char *dir)
{
  g_autofree char *at = NULL;

  g_return_val_if_fail (dir != NULL, NULL);

  at = g_strdup (dir);
  for (;;)
    {
      g_autofree char *marker = g_build_filename (at, ".stfolder", NULL);
      g_autofree char *parent = NULL;

      if (g_file_test (marker, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&at);
      parent = g_path_get_dirname (at);
      if (g_str_equal (parent, at))
        return NULL;
      g_free (at);
      at = g_steal_pointer (&parent);
    }
}

/**
 * natter_sync_folder_is_shared:
 * @storage_path: the data folder's `storage` directory
 *
 * Whether a file synchroniser shares the data folder holding
 * @storage_path (natter_sync_folder_find_root()). In such a folder a log
 * may name a file that has not arrived from another device yet
 * (docs/format.md §9.3); elsewhere such a file is lost. Looks at the
 * disk on every call: called only when a file is missing.
 *
 * Returns: %TRUE when the data folder or a folder above it holds
 *   Syncthing's `.stfolder`
 */
gboolean
natter_sync_folder_is_shared (const char *storage_path)
{
  g_autofree char *data_dir = NULL;
  g_autofree char *root = NULL;

  g_return_val_if_fail (storage_path != NULL, FALSE);

  data_dir = g_path_get_dirname (storage_path);
  root = natter_sync_folder_find_root (data_dir);
  return root != NULL;
}
