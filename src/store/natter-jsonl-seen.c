/* natter-jsonl-seen.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What this process has taken in of each log, so that a watch of the
 * store (docs/sessions.md §8.5) can pass over the changes it made itself
 * and never over another writer's.
 *
 * A log's *seen identity* is the identity (size, times, inode:
 * NatterFileIdentity) of the file at a moment up to which its contents
 * are known here: a reader for the watch records the identity it took
 * before it read the file, and each write of this process records the
 * identity the write left, but only when the file was, just before it,
 * exactly as last seen and the write alone made the difference (its size
 * grew by the bytes written). A file whose identity is its seen one has
 * nothing new. Another writer always leaves another identity: an append
 * changes the size and the change time, and a synchroniser that
 * replaces the file (writing beside it, renaming over it) brings another
 * inode. Nothing is decided by time: a write of another process just
 * before or after ours makes the next check read the file.
 */

#define G_LOG_DOMAIN "natter-jsonl-repo"

#include <string.h>
#include <sys/stat.h>

#include "natter-jsonl-repo-private.h"

/* natter_jsonl_repo_identify() without its checks of the caller. */
gboolean
natter_jsonl_seen_identify (NatterJsonlRepo    *self,
                            const char         *name,
                            NatterFileIdentity *out)
{
  g_autofree char *path = NULL;
  struct stat info;

  memset (out, 0, sizeof *out);
  path = natter_jsonl_layout_file_path (self, name, NULL);
  if (path == NULL)
    return FALSE;
  return natter_file_identity_from_stat_result (stat (path, &info), &info, out);
}

/* natter_jsonl_repo_is_seen() without its checks of the caller. */
gboolean
natter_jsonl_seen_is_seen (NatterJsonlRepo          *self,
                           const char               *name,
                           const NatterFileIdentity *identity)
{
  NatterFileIdentity *seen;
  gboolean is_seen;

  g_mutex_lock (&self->seen_lock);
  seen = g_hash_table_lookup (self->seen, name);
  is_seen = seen != NULL && natter_file_identity_equal (seen, identity);
  g_mutex_unlock (&self->seen_lock);
  return is_seen;
}

/* natter_jsonl_repo_mark_seen() without its checks of the caller. */
void
natter_jsonl_seen_mark (NatterJsonlRepo          *self,
                        const char               *name,
                        const NatterFileIdentity *identity)
{
  g_mutex_lock (&self->seen_lock);
  g_hash_table_insert (self->seen, g_strdup (name), g_memdup2 (identity, sizeof *identity));
  g_mutex_unlock (&self->seen_lock);
}

/* Records the identity @after that a write of this process left on the
 * log @id, when the file was @before (NULL: it did not exist, the write
 * created it) and that was its seen identity: the write is then all
 * that changed. Otherwise another writer came first, and the log is
 * forgotten so that the next check reads it. */
void
natter_jsonl_seen_note_write (NatterJsonlRepo          *self,
                              const char               *id,
                              const NatterFileIdentity *before,
                              const NatterFileIdentity *after)
{
  NatterFileIdentity *seen;

  g_mutex_lock (&self->seen_lock);
  seen = g_hash_table_lookup (self->seen, id);
  if (after != NULL && (before == NULL || (seen != NULL && natter_file_identity_equal (seen, before))))
    g_hash_table_insert (self->seen, g_strdup (id), g_memdup2 (after, sizeof *after));
  else
    g_hash_table_remove (self->seen, id);
  g_mutex_unlock (&self->seen_lock);
}

/* Forgets what was seen of the log @id: the next check reads it. */
void
natter_jsonl_seen_forget (NatterJsonlRepo *self,
                          const char      *id)
{
  natter_jsonl_seen_note_write (self, id, NULL, NULL);
}
