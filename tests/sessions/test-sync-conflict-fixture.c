/* test-sync-conflict-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The files of a data folder as a synchroniser leaves them: where a log
 * is, what it holds, a folder marked as shared, the index a fresh scan
 * makes of it, and every file under it, for "nothing was written".
 */

#include <string.h>

#include <glib/gstdio.h>

#include "test-sync-conflict.h"

char *
path_of (NatterJsonlRepo *repo,
         const char      *name)
{
  g_autoptr(GError) error = NULL;
  char *path = natter_jsonl_repo_dup_path (repo, name, &error);

  g_assert_no_error (error);
  return path;
}

char *
contents_of (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  return contents;
}

void
write_file (const char *path,
            const char *contents)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

/* What Syncthing leaves at the top of a folder it shares. */
void
share_folder (Fixture *f)
{
  g_autofree char *dir = g_file_get_path (f->w->dir);
  g_autofree char *marker = g_build_filename (dir, ".stfolder", NULL);

  g_assert_cmpint (g_mkdir (marker, 0700), ==, 0);
}

NatterSessionIndex *
scan (NatterJsonlRepo *sessions,
      NatterJsonlRepo *turns)
{
  NatterSessionIndex *index = natter_session_index_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_session_index_load_async (index, sessions, turns, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_session_index_load_finish (index, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  return index;
}

/* Every entry of @index as JSON, one a line, in id order. */
char *
listing (NatterSessionIndex *index)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (index)); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (index), i);
      g_autoptr(JsonNode) node = natter_session_index_entry_to_json (entry);
      g_autofree char *text = json_to_string (node, FALSE);

      g_string_append_printf (out, "%s\n", text);
    }
  return g_string_free (out, FALSE);
}

/* Every file under @dir (relative path → contents), for "nothing was
 * written". */
static void
collect (GHashTable *files,
         const char *root,
         const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        collect (files, root, path);
      else
        g_hash_table_insert (files, g_strdup (path + strlen (root)), contents_of (path));
    }
}

GHashTable *
snapshot (Fixture *f)
{
  GHashTable *files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autofree char *root = g_file_get_path (f->w->storage);

  collect (files, root, root);
  return files;
}

void
assert_same_files (GHashTable *before,
                   GHashTable *after)
{
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpuint (g_hash_table_size (before), ==, g_hash_table_size (after));
  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_assert_cmpstr (g_hash_table_lookup (after, key), ==, value);
}

NatterSessionIndexEntry *
lookup (NatterSessionIndex *index,
        const char         *id)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (index, id);

  g_assert_nonnull (entry);
  return entry;
}

