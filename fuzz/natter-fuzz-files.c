/* natter-fuzz-files.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-fuzz"

#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "natter-fuzz-files.h"

static char *storage_path;
static GPtrArray *files;

/* Removes the files and the now empty partition directories, bottom up,
 * so a run leaves nothing in the temporary directory. */
static void
cleanup (void)
{
  for (guint i = 0; files != NULL && i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);
      g_autofree char *dir = NULL;

      g_remove (path);
      dir = g_path_get_dirname (path);
      while (g_str_has_prefix (dir, storage_path) && g_rmdir (dir) == 0)
        {
          char *up = g_path_get_dirname (dir);

          g_free (dir);
          dir = up;
        }
    }
  g_rmdir (storage_path);
}

/**
 * natter_fuzz_storage_new:
 * @template: the name of the temporary directory, ending in `XXXXXX`
 *
 * Sets the process up for fuzzing (only the local file system, and any
 * warning or critical a finding) and makes the storage directory the
 * target's repositories live in, removed with its files at exit. Call
 * once, from LLVMFuzzerInitialize().
 *
 * Returns: (transfer full): the storage directory
 */
GFile *
natter_fuzz_storage_new (const char *template)
{
  g_autoptr(GError) error = NULL;

  g_assert (storage_path == NULL);
  /* No GVfs modules: only the local file system is exercised. */
  g_setenv ("GIO_USE_VFS", "local", TRUE);
  /* A warning or critical on any input is a finding, not noise. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);

  storage_path = g_dir_make_tmp (template, &error);
  g_assert_no_error (error);
  files = g_ptr_array_new_with_free_func (g_free);
  atexit (cleanup);
  return g_file_new_for_path (storage_path);
}

/**
 * natter_fuzz_prepare_file:
 * @repo: a repository under the storage of natter_fuzz_storage_new()
 *
 * Makes the partition directories of %NATTER_FUZZ_ID's file in @repo.
 *
 * Returns: (transfer full): the file's path, removed at exit
 */
char *
natter_fuzz_prepare_file (NatterJsonlRepo *repo)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (repo, NATTER_FUZZ_ID, &error);
  g_autoptr(GFile) parent = NULL;
  char *path;

  g_assert_no_error (error);
  parent = g_file_get_parent (file);
  if (g_mkdir_with_parents (g_file_peek_path (parent), 0700) != 0)
    g_error ("Cannot create %s", g_file_peek_path (parent));
  path = g_file_get_path (file);
  g_ptr_array_add (files, g_strdup (path));
  return path;
}

/**
 * natter_fuzz_write:
 * @path: a file of natter_fuzz_prepare_file()
 * @contents: the input's bytes
 * @length: their length
 *
 * Makes @contents the whole file at @path.
 */
void
natter_fuzz_write (const char *path,
                   const char *contents,
                   gsize       length)
{
  g_autoptr(GError) error = NULL;

  /* GLib 2.74 writes in place without truncating when asked for no
   * consistency, which would leave the tail of a longer earlier input. */
  g_remove (path);
  if (!g_file_set_contents_full (path, contents, (gssize) length,
                                 G_FILE_SET_CONTENTS_NONE, 0600, &error))
    g_error ("Cannot write %s: %s", path, error->message);
}

/**
 * natter_fuzz_for_each_line:
 * @contents: an input's bytes
 * @length: their length
 * @func: called with each line, without its `\n`
 *
 * Walks @contents line by line, the last one with or without a `\n`.
 */
void
natter_fuzz_for_each_line (const char         *contents,
                           gsize               length,
                           NatterFuzzLineFunc  func)
{
  for (gsize pos = 0; pos < length;)
    {
      const char *end = memchr (contents + pos, '\n', length - pos);
      gsize line_length = end != NULL ? (gsize) (end - contents) - pos : length - pos;

      func (contents + pos, line_length);
      pos += line_length + 1;
    }
}
