/* test-sync-ignore.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What stays on this device in Syncthing's ignore file (docs/sync.md):
 * where the synchronised folder is (its `.stfolder` at or above the data
 * folder), Natter's patterns anchored to the data folder within it, a
 * person's own lines kept byte for byte around Natter's block, an older
 * block replaced in place, a block without its end refused, and a
 * folder shared from above left alone unless asked.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-store-error.h"
#include "natter-sync-folder.h"
#include "natter-sync-ignore.h"
#include "natter-test-support.h"

static char *
read_text (const char *path)
{
  char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return contents;
}

static void
test_own_folder (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(NatterSyncFolder) folder = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *stignore = g_build_filename (g_file_peek_path (dir), ".stignore", NULL);
  g_autofree char *marker = g_build_filename (g_file_peek_path (dir), ".stfolder", NULL);
  g_autofree char *block = natter_sync_ignore_block ("");
  g_autofree char *text = NULL;
  g_autofree char *mine = NULL;

  /* Not shared yet: the patterns belong in the data folder's own file. */
  folder = natter_sync_folder_inspect_sync (dir);
  g_assert_null (folder->root);
  g_assert_cmpstr (folder->ignore_path, ==, stignore);
  g_assert_cmpstr (folder->prefix, ==, "");
  g_assert_cmpint (folder->ignore_state, ==, NATTER_SYNC_IGNORE_MISSING);
  g_assert_nonnull (strstr (block, "\n/cache\n"));
  g_assert_nonnull (strstr (block, "\n/device\n"));
  g_assert_nonnull (strstr (block, "\n/drafts\n"));
  g_assert_nonnull (strstr (block, "\n/streams\n"));
  g_assert_nonnull (strstr (block, "\n/storage/.lock\n"));
  g_assert_nonnull (strstr (block, "\n/storage/**/.*.jsonl.*\n"));
  g_assert_nonnull (strstr (block, "\n/storage/blobs/**/.*\n"));

  /* Kept by itself while the data folder is, or may become, the shared one. */
  g_assert_true (natter_sync_ignore_keep_sync (dir, &error));
  g_assert_no_error (error);
  text = read_text (stignore);
  g_assert_cmpstr (text, ==, block);
  g_clear_pointer (&folder, natter_sync_folder_free);

  g_assert_cmpint (g_mkdir (marker, 0700), ==, 0);
  folder = natter_sync_folder_inspect_sync (dir);
  g_assert_cmpstr (folder->root, ==, g_file_peek_path (dir));
  g_assert_cmpint (folder->ignore_state, ==, NATTER_SYNC_IGNORE_CURRENT);
  g_clear_pointer (&folder, natter_sync_folder_free);

  /* A person's lines around an older block: theirs stay, the block is
   * replaced where it was. */
  mine = g_strdup_printf ("// mine\n*.bak\n%s%s\n/notes\n",
                          "// BEGIN Natter: what stays on this device (an older wording)\n/cache\n",
                          "// END Natter");
  g_assert_true (g_file_set_contents (stignore, mine, -1, NULL));
  folder = natter_sync_folder_inspect_sync (dir);
  g_assert_cmpint (folder->ignore_state, ==, NATTER_SYNC_IGNORE_OUTDATED);
  g_assert_true (natter_sync_ignore_write_sync (folder, &error));
  g_assert_no_error (error);
  g_assert_cmpint (folder->ignore_state, ==, NATTER_SYNC_IGNORE_CURRENT);
  g_clear_pointer (&text, g_free);
  text = read_text (stignore);
  {
    g_autofree char *expected = g_strdup_printf ("// mine\n*.bak\n%s/notes\n", block);

    g_assert_cmpstr (text, ==, expected);
  }
  /* Written again: nothing changes. */
  g_assert_true (natter_sync_ignore_write_sync (folder, &error));
  {
    g_autofree char *again = read_text (stignore);

    g_assert_cmpstr (again, ==, text);
  }
  g_clear_pointer (&folder, natter_sync_folder_free);

  /* The first marker without the last: where the block ends is not
   * Natter's to guess; nothing is written. */
  g_assert_true (g_file_set_contents (stignore, "*.bak\n// BEGIN Natter: cut short\n/cache\n/notes\n", -1, NULL));
  folder = natter_sync_folder_inspect_sync (dir);
  g_assert_false (natter_sync_ignore_write_sync (folder, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED);
  g_assert_nonnull (strstr (error->message, stignore));
  g_clear_pointer (&text, g_free);
  text = read_text (stignore);
  g_assert_cmpstr (text, ==, "*.bak\n// BEGIN Natter: cut short\n/cache\n/notes\n");

  natter_test_remove_tree (dir);
}

static void
test_shared_from_above (void)
{
  g_autoptr(GFile) top = natter_test_make_temp_dir ();
  g_autofree char *marker = g_build_filename (g_file_peek_path (top), ".stfolder", NULL);
  g_autofree char *data_path = g_build_filename (g_file_peek_path (top), "apps", "nat[ter]*", NULL);
  g_autofree char *stignore = g_build_filename (g_file_peek_path (top), ".stignore", NULL);
  g_autoptr(GFile) data_dir = g_file_new_for_path (data_path);
  g_autoptr(NatterSyncFolder) folder = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert_cmpint (g_mkdir (marker, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (data_path, 0700), ==, 0);
  g_assert_true (g_file_set_contents (stignore, "/Photos", -1, NULL));

  folder = natter_sync_folder_inspect_sync (data_dir);
  g_assert_cmpstr (folder->root, ==, g_file_peek_path (top));
  g_assert_cmpstr (folder->prefix, ==, "apps/nat[ter]*");
  g_assert_cmpstr (folder->ignore_path, ==, stignore);
  g_assert_cmpint (folder->ignore_state, ==, NATTER_SYNC_IGNORE_MISSING);

  /* A person's own file: only written when they ask. */
  g_assert_true (natter_sync_ignore_keep_sync (data_dir, &error));
  text = read_text (stignore);
  g_assert_cmpstr (text, ==, "/Photos");
  g_clear_pointer (&text, g_free);

  g_assert_true (natter_sync_ignore_write_sync (folder, &error));
  g_assert_no_error (error);
  text = read_text (stignore);
  /* Their last line gets the newline it lacked; the patterns are anchored
   * to the data folder, its pattern characters escaped. */
  g_assert_true (g_str_has_prefix (text, "/Photos\n// BEGIN Natter"));
  g_assert_nonnull (strstr (text, "\n/apps/nat\\[ter\\]\\*/cache\n"));
  g_assert_nonnull (strstr (text, "\n/apps/nat\\[ter\\]\\*/storage/**/.*.jsonl.*\n"));

  natter_test_remove_tree (top);
}

/* The share's marker is found at the data folder or above it, by the
 * rule the Sync page and the reading of a missing file both use: a data
 * folder inside a shared folder is shared too. */
static void
test_marker_root (void)
{
  g_autoptr(GFile) top = natter_test_make_temp_dir ();
  g_autofree char *top_path = g_file_get_path (top);
  g_autofree char *share = g_build_filename (top_path, "share", NULL);
  g_autofree char *marker = g_build_filename (share, ".stfolder", NULL);
  g_autofree char *data = g_build_filename (share, "natter", NULL);
  g_autofree char *storage = g_build_filename (data, "storage", NULL);
  g_autofree char *alone = g_build_filename (top_path, "alone", "storage", NULL);
  g_autofree char *found = NULL;
  g_autofree char *found_at_top = NULL;

  g_assert_cmpint (g_mkdir_with_parents (marker, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (storage, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (alone, 0700), ==, 0);

  found = natter_sync_folder_find_root (data);
  g_assert_cmpstr (found, ==, share);
  found_at_top = natter_sync_folder_find_root (share);
  g_assert_cmpstr (found_at_top, ==, share);
  g_assert_true (natter_sync_folder_is_shared (storage));
  g_assert_false (natter_sync_folder_is_shared (alone));
  natter_test_remove_tree (top);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sync-ignore/own-folder", test_own_folder);
  g_test_add_func ("/sync-ignore/shared-from-above", test_shared_from_above);
  g_test_add_func ("/sync-ignore/marker-root", test_marker_root);
  return g_test_run ();
}
