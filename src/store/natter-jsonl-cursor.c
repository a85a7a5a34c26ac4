/* natter-jsonl-cursor.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The startup scan (docs/sessions.md §8.2, §8.4) opens or stat()s two
 * logs per conversation, 200,000 at 100,000 conversations. Reached by
 * their whole path, every one of those calls walks the data directory's
 * path again, component by component, which costs about as much as the
 * rest of the call. Ids are listed in order and a day's logs share one
 * partition directory, so a cursor keeps the last partition directory
 * open and reaches each log by its name in it (openat(), fstatat()).
 *
 * A cursor belongs to one thread and one repository. It reads nothing
 * the path-based reads would not: the same file, the same checks, and a
 * log's identity from the fstat() of the descriptor it is read from,
 * taken before the read, so one open serves both.
 */

#define G_LOG_DOMAIN "natter-jsonl-repo"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "natter-id.h"

#include "natter-jsonl-repo-private.h"

#define SUFFIX ".jsonl"

struct _NatterJsonlCursor
{
  NatterJsonlRepo *repo;
  int              dir_fd;                  /* the partition directory, or -1 */
  char             partition[8];            /* YYYYMMDD of dir_fd */
  int              dir_errno;               /* why the last partition could not be opened */
  char             name[NATTER_ID_LENGTH + sizeof SUFFIX];
};

/**
 * natter_jsonl_cursor_new:
 * @repo: the repository whose logs it reaches
 *
 * A cursor for one thread's pass over @repo's logs, in id order for the
 * best effect (docs/sessions.md §8.2). It holds at most one directory
 * open.
 *
 * Returns: (transfer full): the cursor; free with natter_jsonl_cursor_free()
 */
NatterJsonlCursor *
natter_jsonl_cursor_new (NatterJsonlRepo *repo)
{
  NatterJsonlCursor *cursor;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (repo), NULL);

  cursor = g_new0 (NatterJsonlCursor, 1);
  cursor->repo = g_object_ref (repo);
  cursor->dir_fd = -1;
  return cursor;
}

/**
 * natter_jsonl_cursor_free:
 * @cursor: (transfer full) (nullable): a cursor
 *
 * Closes its directory and frees it.
 */
void
natter_jsonl_cursor_free (NatterJsonlCursor *cursor)
{
  if (cursor == NULL)
    return;
  if (cursor->dir_fd >= 0)
    close (cursor->dir_fd);
  g_object_unref (cursor->repo);
  g_free (cursor);
}

/**
 * natter_jsonl_cursor_get_repo:
 * @cursor: a cursor
 *
 * Returns: (transfer none): the repository it reaches
 */
NatterJsonlRepo *
natter_jsonl_cursor_get_repo (NatterJsonlCursor *cursor)
{
  g_return_val_if_fail (cursor != NULL, NULL);

  return cursor->repo;
}

/* The partition directory of @id (a valid id), opened if it is not the
 * last one, and the log's name in it in cursor->name; -1 with
 * cursor->dir_errno if it cannot be opened. A failure is not kept: the
 * next id of that partition tries again. */
static int
partition_dir (NatterJsonlCursor *cursor,
               const char        *id)
{
  char partition[8];

  /* YYYY-MM-DD… */
  memcpy (partition, id, 4);
  memcpy (partition + 4, id + 5, 2);
  memcpy (partition + 6, id + 8, 2);
  memcpy (cursor->name, id, NATTER_ID_LENGTH);
  memcpy (cursor->name + NATTER_ID_LENGTH, SUFFIX, sizeof SUFFIX);

  if (cursor->dir_fd >= 0 && memcmp (partition, cursor->partition, sizeof partition) == 0)
    return cursor->dir_fd;
  if (cursor->dir_fd >= 0)
    close (cursor->dir_fd);

  {
    g_autofree char *path = g_strdup_printf ("%s/%.4s/%.2s/%.2s", cursor->repo->kind_path, id, id + 5, id + 8);

    do
      cursor->dir_fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (cursor->dir_fd < 0 && errno == EINTR);
  }
  cursor->dir_errno = cursor->dir_fd < 0 ? errno : 0;
  memcpy (cursor->partition, partition, sizeof partition);
  return cursor->dir_fd;
}

/**
 * natter_jsonl_cursor_identify:
 * @cursor: a cursor
 * @id: a log's id
 * @out: (out caller-allocates): the log's identity
 *
 * stat()s the log of @id, without reading it: what the startup scan
 * compares with its cache (docs/sessions.md §8.4).
 *
 * Returns: %TRUE when the identity is known: the file's, or one that
 *   says there is no file; %FALSE when it cannot be told (an invalid id,
 *   something other than a regular file, a failure other than ENOENT)
 */
gboolean
natter_jsonl_cursor_identify (NatterJsonlCursor  *cursor,
                              const char         *id,
                              NatterFileIdentity *out)
{
  struct stat info;
  int dir;

  g_return_val_if_fail (cursor != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  if (!natter_id_validate (id, NULL))
    return FALSE;
  if ((dir = partition_dir (cursor, id)) < 0)
    return cursor->dir_errno == ENOENT;
  return natter_file_identity_from_stat_result (fstatat (dir, cursor->name, &info, 0), &info, out);
}

/* natter_jsonl_file_load() of @id's log through @cursor, with the
 * identity of the file it read (natter_jsonl_cursor_identify()'s, taken
 * from the open descriptor before the read). Says nothing of a failure:
 * the startup scan leaves that to the full read, which reports it.
 * *@out_identity_known is set either way: a log that does not exist has
 * a known identity. Both are optional. */
gboolean
natter_jsonl_cursor_load (NatterJsonlCursor  *cursor,
                          const char         *id,
                          char               *stack_buffer,
                          char              **out_contents,
                          gsize              *out_length,
                          char              **out_heap,
                          NatterFileIdentity *out_identity,
                          gboolean           *out_identity_known)
{
  NatterFileIdentity ignored_identity;
  gboolean ignored_known;
  struct stat info;
  int dir;
  int fd;

  if (out_identity == NULL)
    out_identity = &ignored_identity;
  if (out_identity_known == NULL)
    out_identity_known = &ignored_known;
  *out_heap = NULL;
  memset (out_identity, 0, sizeof *out_identity);
  *out_identity_known = FALSE;
  if (!natter_id_validate (id, NULL))
    return FALSE;
  if ((dir = partition_dir (cursor, id)) < 0)
    {
      *out_identity_known = cursor->dir_errno == ENOENT;
      return FALSE;
    }
  do
    fd = openat (dir, cursor->name, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    {
      *out_identity_known = errno == ENOENT;
      return FALSE;
    }
  if (!natter_jsonl_file_load_fd (fd, NULL, &info, stack_buffer, out_contents, out_length, out_heap, NULL))
    {
      /* A regular file that could not be read says nothing sure. */
      return FALSE;
    }
  natter_file_identity_from_stat (&info, out_identity);
  *out_identity_known = TRUE;
  return TRUE;
}

/**
 * natter_jsonl_each_line:
 * @contents: a whole log as read, which the scans read without a tree
 * @length: its length in bytes
 * @line_number: (inout): counts each line as it is handed over, so that
 *   @func knows which it has (1 for the first when it starts at 0)
 * @func: (scope call): called with each complete line, in order
 * @user_data: data for @func
 *
 * Hands each newline-terminated line of @contents to @func, as the
 * startup scan's reads of a session and of a turn both take them.
 *
 * Returns: %TRUE when every line was handed over and @func went on;
 *   %FALSE at the first line @func refuses, or at a torn last line (one
 *   without its newline, counted but not handed over)
 */
gboolean
natter_jsonl_each_line (const char          *contents,
                        gsize                length,
                        guint               *line_number,
                        NatterJsonlLineFunc  func,
                        gpointer             user_data)
{
  gsize pos = 0;

  while (pos < length)
    {
      const char *line = contents + pos;
      const char *end = memchr (line, '\n', length - pos);

      (*line_number)++;
      if (end == NULL || !func (line, end - line, user_data))
        return FALSE;
      pos = (end - contents) + 1;
    }
  return TRUE;
}
