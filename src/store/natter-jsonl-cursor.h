/* natter-jsonl-cursor.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "natter-jsonl-repo.h"

G_BEGIN_DECLS

/**
 * NatterFileIdentity:
 * @exists: %FALSE when there is no such file (ENOENT)
 * @size: its size in bytes
 * @mtime_ns: its modification time, in nanoseconds since the epoch
 * @ctime_ns: its change time, in nanoseconds since the epoch
 * @inode: its inode number
 *
 * What a file's stat() says of its contents: an append-only log that was
 * written changed its size, and any write changes its change time, which
 * no program can set back (docs/sessions.md §8.4).
 */
typedef struct
{
  gboolean exists;
  guint64  size;
  gint64   mtime_ns;
  gint64   ctime_ns;
  guint64  inode;
} NatterFileIdentity;

gboolean natter_file_identity_equal (const NatterFileIdentity *a,
                                     const NatterFileIdentity *b);

typedef struct _NatterJsonlCursor NatterJsonlCursor;

NatterJsonlCursor *natter_jsonl_cursor_new      (NatterJsonlRepo    *repo);
void               natter_jsonl_cursor_free     (NatterJsonlCursor  *cursor);
NatterJsonlRepo   *natter_jsonl_cursor_get_repo (NatterJsonlCursor  *cursor);
gboolean           natter_jsonl_cursor_identify (NatterJsonlCursor  *cursor,
                                                 const char         *id,
                                                 NatterFileIdentity *out);

gboolean natter_jsonl_repo_identify  (NatterJsonlRepo          *self,
                                     const char               *name,
                                     NatterFileIdentity       *out);
gboolean natter_jsonl_repo_is_seen   (NatterJsonlRepo          *self,
                                     const char               *name,
                                     const NatterFileIdentity *identity);
void     natter_jsonl_repo_mark_seen (NatterJsonlRepo          *self,
                                     const char               *name,
                                     const NatterFileIdentity *identity);

/**
 * NatterJsonlLineFunc:
 * @line: a line of a log, without its newline (not nul-terminated)
 * @length: its length in bytes
 * @user_data: the data given to natter_jsonl_each_line()
 *
 * Returns: whether to go on to the next line
 */
typedef gboolean (*NatterJsonlLineFunc) (const char *line,
                                         gsize       length,
                                         gpointer    user_data);

gboolean natter_jsonl_each_line (const char          *contents,
                                 gsize                length,
                                 guint               *line_number,
                                 NatterJsonlLineFunc  func,
                                 gpointer             user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterJsonlCursor, natter_jsonl_cursor_free)

G_END_DECLS
