/* natter-sync-ignore.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What of the data directory stays on this device when a file
 * synchroniser shares it with others (docs/sync.md), in the words of
 * Syncthing's ignore file, `.stignore` at the top of the folder it
 * synchronises: the caches each device rebuilds from the logs, the lock
 * of the process writing here, this device's identity, and the
 * temporary files of writes under way (docs/format.md §1, §4.5).
 *
 * Natter keeps its patterns between two marker lines of its own and
 * never touches a line outside them, so a person's own patterns stay as
 * they wrote them. An ignore file with Natter's first marker but not its
 * last is refused rather than guessed at: where the block would end is
 * not Natter's to decide.
 */

#define G_LOG_DOMAIN "natter-store"

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "natter-device.h"
#include "natter-draft-store.h"
#include "natter-store-error.h"
#include "natter-stream-keep.h"
#include "natter-sync-folder.h"
#include "natter-sync-ignore.h"

#define STIGNORE   ".stignore"
#define BEGIN_LINE "// BEGIN Natter: what stays on this device (Natter writes these lines; keep yours outside them)"
#define END_LINE   "// END Natter"

/* The paths, relative to the data directory, that stay here: Syncthing
 * patterns, where `**` crosses folders and `*` does not. */
static const char * const local_patterns[] = {
  "cache",                       /* the search index and the session list cache */
  NATTER_DEVICE_FILE_NAME,       /* which device this is */
  NATTER_DRAFTS_DIR_NAME,        /* what this device's person was typing */
  NATTER_STREAMS_DIR_NAME,       /* the words of the answers streaming here */
  "storage/.lock",               /* the process that writes here */
  "storage/**/.*.jsonl.*",       /* a log being created */
  "storage/blobs/**/.*",         /* an attachment being written */
};

/**
 * natter_sync_folder_free:
 * @folder: (transfer full): a folder
 */
void
natter_sync_folder_free (NatterSyncFolder *folder)
{
  if (folder == NULL)
    return;
  g_free (folder->root);
  g_free (folder->ignore_path);
  g_free (folder->prefix);
  g_free (folder);
}

/* @text with Syncthing's pattern characters escaped, so that a folder
 * whose name holds one matches only itself. */
static void
append_literal (GString    *out,
                const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    {
      if (strchr ("*?[]{}\\!#", *p) != NULL)
        g_string_append_c (out, '\\');
      g_string_append_c (out, *p);
    }
}

/**
 * natter_sync_ignore_block:
 * @prefix: the data directory relative to the synchronised folder, ""
 *   when it is that folder
 *
 * The lines Natter keeps in the synchronised folder's `.stignore`
 * (docs/sync.md), its two marker lines included, each ended by `\n`.
 *
 * Returns: (transfer full): the block
 */
char *
natter_sync_ignore_block (const char *prefix)
{
  GString *out = g_string_new (BEGIN_LINE "\n");

  g_return_val_if_fail (prefix != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (local_patterns); i++)
    {
      g_string_append_c (out, '/');
      if (prefix[0] != '\0')
        {
          append_literal (out, prefix);
          g_string_append_c (out, '/');
        }
      g_string_append (out, local_patterns[i]);
      g_string_append_c (out, '\n');
    }
  g_string_append (out, END_LINE "\n");
  return g_string_free (out, FALSE);
}

/* Where Natter's block is in @contents: the offsets of its first byte
 * and of the byte after its last line; FALSE when there is none. Sets
 * @error when the first marker has no last one. */
static gboolean
find_block (const char  *contents,
            gsize       *out_begin,
            gsize       *out_end,
            GError     **error)
{
  const char *begin = NULL;
  const char *line = contents;

  while (*line != '\0')
    {
      const char *eol = strchr (line, '\n');
      gsize length = eol != NULL ? (gsize) (eol - line) : strlen (line);
      const char *next = eol != NULL ? eol + 1 : line + length;

      if (begin == NULL && length >= strlen ("// BEGIN Natter") &&
          strncmp (line, "// BEGIN Natter", strlen ("// BEGIN Natter")) == 0)
        begin = line;
      else if (begin != NULL && length == strlen (END_LINE) && strncmp (line, END_LINE, length) == 0)
        {
          *out_begin = begin - contents;
          *out_end = next - contents;
          return TRUE;
        }
      line = next;
    }
  if (begin != NULL)
    g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                 "The ignore file has Natter’s first line but not its last (“%s”): "
                 "remove Natter’s lines and they are written again", END_LINE);
  return FALSE;
}

/**
 * natter_sync_folder_inspect_sync:
 * @data_dir: the data directory
 *
 * What Natter sees of the synchronisation of @data_dir (docs/sync.md):
 * the nearest of it and its parents that holds Syncthing's `.stfolder`,
 * the `.stignore` Natter's patterns belong in, and what that file holds
 * of them. Reads a few small files: for a worker thread or a command.
 *
 * Returns: (transfer full): what was found
 */
NatterSyncFolder *
natter_sync_folder_inspect_sync (GFile *data_dir)
{
  NatterSyncFolder *folder = g_new0 (NatterSyncFolder, 1);
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *block = NULL;

  g_return_val_if_fail (G_IS_FILE (data_dir), NULL);

  path = g_file_get_path (data_dir);
  folder->root = natter_sync_folder_find_root (path);

  if (folder->root != NULL && !g_str_equal (folder->root, path))
    {
      gsize skip = strlen (folder->root);

      /* The root "/" ends in the separator already. */
      if (skip > 0 && folder->root[skip - 1] != G_DIR_SEPARATOR)
        skip++;
      folder->prefix = g_strdup (path + skip);
    }
  else
    folder->prefix = g_strdup ("");
  folder->ignore_path = g_build_filename (folder->root != NULL ? folder->root : path, STIGNORE, NULL);

  folder->ignore_state = NATTER_SYNC_IGNORE_MISSING;
  block = natter_sync_ignore_block (folder->prefix);
  if (g_file_get_contents (folder->ignore_path, &contents, NULL, NULL))
    {
      gsize begin, end;

      if (find_block (contents, &begin, &end, NULL))
        folder->ignore_state = end - begin == strlen (block) && memcmp (contents + begin, block, end - begin) == 0
                               ? NATTER_SYNC_IGNORE_CURRENT : NATTER_SYNC_IGNORE_OUTDATED;
    }
  return folder;
}

/**
 * natter_sync_ignore_write_sync:
 * @folder: what natter_sync_folder_inspect_sync() found
 * @error: return location for a #GError
 *
 * Writes Natter's block (natter_sync_ignore_block()) into
 * @folder->ignore_path: in place of the block there, else at the end,
 * every other line kept byte for byte; the file is replaced whole
 * (written beside it, then renamed over it). Sets @folder->ignore_state
 * to %NATTER_SYNC_IGNORE_CURRENT and @folder->written. Blocks.
 *
 * Returns: %TRUE when written; else %FALSE with %NATTER_STORE_ERROR_IO
 *   (the file could not be read or written) or
 *   %NATTER_STORE_ERROR_MALFORMED (it has Natter's first marker line but
 *   not its last)
 */
gboolean
natter_sync_ignore_write_sync (NatterSyncFolder  *folder,
                               GError           **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *block = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GString) out = NULL;
  GStatBuf st;
  gsize length = 0;
  gsize begin, end;
  int mode = 0644;

  g_return_val_if_fail (folder != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!g_file_get_contents (folder->ignore_path, &contents, &length, &local_error))
    {
      if (!g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO, "%s", local_error->message);
          return FALSE;
        }
      g_clear_error (&local_error);
      contents = g_strdup ("");
      length = 0;
    }
  else if (g_stat (folder->ignore_path, &st) == 0)
    mode = st.st_mode & 0777;

  block = natter_sync_ignore_block (folder->prefix);
  out = g_string_new (NULL);
  if (find_block (contents, &begin, &end, &local_error))
    {
      g_string_append_len (out, contents, begin);
      g_string_append (out, block);
      g_string_append_len (out, contents + end, length - end);
    }
  else if (local_error != NULL)
    {
      g_prefix_error (&local_error, "%s: ", folder->ignore_path);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  else
    {
      g_string_append_len (out, contents, length);
      if (length > 0 && contents[length - 1] != '\n')
        g_string_append_c (out, '\n');
      g_string_append (out, block);
    }

  if (!g_file_set_contents_full (folder->ignore_path, out->str, out->len, G_FILE_SET_CONTENTS_CONSISTENT, mode,
                                 &local_error))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO, "%s", local_error->message);
      return FALSE;
    }
  folder->ignore_state = NATTER_SYNC_IGNORE_CURRENT;
  folder->written = TRUE;
  return TRUE;
}

/* Whether natter_sync_ignore_keep_sync() writes for @folder: the data
 * directory is, or may become, the synchronised folder itself, it exists,
 * and its ignore file is not current. */
static gboolean
keeps (NatterSyncFolder *folder,
       GFile            *data_dir)
{
  return folder->prefix[0] == '\0' && folder->ignore_state != NATTER_SYNC_IGNORE_CURRENT &&
         g_file_query_exists (data_dir, NULL);
}

/* The keeping of the patterns in a process: the housekeeping of its
 * start (natter_sync_ignore_keep_sync()) and a command that reports
 * what it found (natter_sync_folder_inspect_async() with
 * %NATTER_SYNC_IGNORE_WRITE_KEEP) may run at once. One at a time, and a
 * write by the first is reported by the second as its own: the data
 * directory whose patterns this process wrote and no report said yet. */
static GMutex keep_lock;
static char *kept_unreported;

/* natter_sync_ignore_keep_sync() under keep_lock, for the folder
 * @folder of @data_dir that was just inspected. */
static gboolean
keep_locked (NatterSyncFolder  *folder,
             GFile             *data_dir,
             GError           **error)
{
  if (!keeps (folder, data_dir))
    return TRUE;
  if (!natter_sync_ignore_write_sync (folder, error))
    return FALSE;
  g_free (kept_unreported);
  kept_unreported = g_file_get_path (data_dir);
  return TRUE;
}

static void
inspect_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  g_autoptr(NatterSyncFolder) folder = NULL;
  NatterSyncIgnoreWrite write = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "write"));
  g_autofree char *path = g_file_get_path (task_data);
  GError *error = NULL;
  gboolean done;

  g_mutex_lock (&keep_lock);
  folder = natter_sync_folder_inspect_sync (task_data);
  if (write == NATTER_SYNC_IGNORE_WRITE_ALWAYS)
    done = natter_sync_ignore_write_sync (folder, &error);
  else if (write == NATTER_SYNC_IGNORE_WRITE_KEEP)
    done = keep_locked (folder, task_data, &error);
  else
    done = TRUE;
  if (done && write != NATTER_SYNC_IGNORE_WRITE_NONE && g_strcmp0 (kept_unreported, path) == 0)
    {
      folder->written = folder->ignore_state == NATTER_SYNC_IGNORE_CURRENT;
      g_clear_pointer (&kept_unreported, g_free);
    }
  g_mutex_unlock (&keep_lock);
  if (!done)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&folder), (GDestroyNotify) natter_sync_folder_free);
}

/**
 * natter_sync_folder_inspect_async:
 * @data_dir: the data directory
 * @write: what to write besides looking: nothing, Natter's patterns as
 *   the person asked (natter_sync_ignore_write_sync()), or them where
 *   Natter keeps them current by itself (natter_sync_ignore_keep_sync())
 * @cancellable: (nullable): a #GCancellable; the inspection, a few small
 *   reads, runs to its end all the same
 * @callback: called on the thread-default main context when done
 * @user_data: data for @callback
 *
 * natter_sync_folder_inspect_sync() and, as @write says, the writing
 * of Natter's block into the `.stignore` it found, on a worker thread:
 * what the data directory's synchronisation looks like and what stays on
 * this device (docs/sync.md, "What stays on each device"), for the
 * `natter sync` command and the Preferences' sync page alike.
 */
void
natter_sync_folder_inspect_async (GFile               *data_dir,
                                  NatterSyncIgnoreWrite write,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (G_IS_FILE (data_dir));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sync_folder_inspect_async);
  g_task_set_task_data (task, g_object_ref (data_dir), g_object_unref);
  g_object_set_data (G_OBJECT (task), "write", GINT_TO_POINTER (write));
  g_task_run_in_thread (task, inspect_thread);
}

/**
 * natter_sync_folder_inspect_finish:
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): what was found, with
 *   @ignore_state %NATTER_SYNC_IGNORE_CURRENT and @written once written; or %NULL
 *   with the errors of natter_sync_ignore_write_sync() (only when asked
 *   to write)
 */
NatterSyncFolder *
natter_sync_folder_inspect_finish (GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sync_folder_inspect_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_sync_ignore_keep_sync:
 * @data_dir: the data directory
 * @error: return location for a #GError
 *
 * Keeps Natter's patterns current in `@data_dir/.stignore` when the data
 * directory is, or may become, the synchronised folder itself (no
 * `.stfolder` above it): that file is Natter's own folder's, and is
 * read by Syncthing from the moment the folder is shared. A folder
 * synchronised from above holds a person's own ignore file, which is
 * written only when they ask (natter_sync_ignore_write_sync()). A write
 * here is reported as written by the next inspection in this process
 * that writes or keeps (natter_sync_folder_inspect_async()). Blocks.
 *
 * Returns: %TRUE when nothing needed writing or it was written; else
 *   %FALSE with the errors of natter_sync_ignore_write_sync()
 */
gboolean
natter_sync_ignore_keep_sync (GFile   *data_dir,
                              GError **error)
{
  g_autoptr(NatterSyncFolder) folder = NULL;
  gboolean kept;

  g_return_val_if_fail (G_IS_FILE (data_dir), FALSE);

  g_mutex_lock (&keep_lock);
  folder = natter_sync_folder_inspect_sync (data_dir);
  kept = keep_locked (folder, data_dir, error);
  g_mutex_unlock (&keep_lock);
  return kept;
}
