/* natter-file-identity.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A log file's identity (size, times, inode), which says whether it
 * changed without reading it. The cursor, the file reader and what this
 * process has seen of each log (natter-jsonl-seen.c) all take it, so it
 * lives below them and calls none of them.
 */

#define G_LOG_DOMAIN "natter-jsonl-repo"

#include <errno.h>
#include <sys/stat.h>

#include "natter-jsonl-repo-private.h"

/**
 * natter_file_identity_equal:
 * @a: an identity
 * @b: another
 *
 * Returns: whether both say the same of a file: both missing, or both the
 *   same inode with the same size, mtime and change time
 */
gboolean
natter_file_identity_equal (const NatterFileIdentity *a,
                            const NatterFileIdentity *b)
{
  return a->exists == b->exists && a->size == b->size && a->mtime_ns == b->mtime_ns &&
         a->ctime_ns == b->ctime_ns && a->inode == b->inode;
}

/* The identity @info gives of a file that exists. */
void
natter_file_identity_from_stat (const struct stat  *info,
                                NatterFileIdentity *out)
{
  out->exists = TRUE;
  out->size = (guint64) info->st_size;
  out->mtime_ns = (gint64) info->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + info->st_mtim.tv_nsec;
  out->ctime_ns = (gint64) info->st_ctim.tv_sec * G_GINT64_CONSTANT (1000000000) + info->st_ctim.tv_nsec;
  out->inode = (guint64) info->st_ino;
}

/* What a stat() of a log that returned @stat_result (0, or -1 with errno
 * set) with @info says of its identity, in *@out: the file's, or that
 * there is none (ENOENT). Returns %FALSE when it cannot be told: another
 * failure, or something other than a regular file. Read errno before
 * anything else can change it. */
gboolean
natter_file_identity_from_stat_result (int                 stat_result,
                                       const struct stat  *info,
                                       NatterFileIdentity *out)
{
  if (stat_result != 0)
    return errno == ENOENT;
  if (!S_ISREG (info->st_mode))
    return FALSE;
  natter_file_identity_from_stat (info, out);
  return TRUE;
}
