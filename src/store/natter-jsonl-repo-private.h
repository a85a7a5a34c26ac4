/* natter-jsonl-repo-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <sys/stat.h>

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-jsonl-cursor.h"
#include "natter-jsonl-repo.h"
#include "natter-write-refusal.h"

/* Shared between natter-jsonl-repo.c (API, tasks, locks),
 * natter-jsonl-file.c (I/O on one log), natter-jsonl-layout.c
 * (partition paths and walks) and natter-jsonl-cursor.c (the startup
 * scan's reads by name), and with the scans of src/store/. Not
 * installed, not for other layers. */

G_BEGIN_DECLS

/* Every field is set once in the constructor and never changed, so worker
 * threads read the object without locking; but for write_refusal, set and
 * lifted from the main thread (natter_jsonl_repo_refuse_writes()) and
 * read atomically. */
struct _NatterJsonlRepo
{
  GObject               parent_instance;

  GFile                *storage_dir;
  char                 *storage_path;
  char                 *kind;
  char                 *kind_path;
  char                 *created_type;
  /* The member that names the file's id in every event ("turnId",
   * "sessionId"), or NULL when the kind does not have a known one. */
  char                 *owner_member;
  NatterEventValidator  validator;
  /* A missing file of this kind that a log names may still be on its way
   * from another device (turns: docs/format.md §9.3). */
  gboolean              missing_may_arrive;

  NatterKeyedMutex     *locks;

  /* Held by a worker only around "check the tail, then write": another
   * thread's append could otherwise be caught half-written by the check
   * and look like a torn line. Never held across a main-loop iteration. */
  GMutex                append_lock;

  /* What this process has taken in of each log (natter-jsonl-seen.c):
   * name → NatterFileIdentity. The table is made once; its contents
   * change under seen_lock, from any thread. */
  GMutex                seen_lock;
  GHashTable           *seen;

  /* Why this process may not write the logs (it does not hold the data
   * directory's single-writer lock), or NULL: every create, append,
   * delete and removal of leftovers fails with a copy of it. */
  NatterWriteRefusal    write_refusal;
};

/* The first line that cannot be read, for a reader of the readable
 * prefix; NULL for a strict read. */
typedef struct
{
  guint  line;     /* 0 while every line read */
  char  *reason;   /* why that line cannot be read, without the path */
} NatterJsonlBadLine;

/* natter-jsonl-file.c: one log. */


/* Nearly every log fits; a bigger one is read into the heap. */
#define NATTER_JSONL_READ_STACK_SIZE (16 * 1024)

gboolean   natter_jsonl_file_load             (const char        *path,
                                               char              *stack_buffer,
                                               char             **out_contents,
                                               gsize             *out_length,
                                               char             **out_heap,
                                               GError           **error);
gboolean   natter_jsonl_file_load_fd          (int                fd,
                                               const char        *path,
                                               struct stat       *info,
                                               char              *stack_buffer,
                                               char             **out_contents,
                                               gsize             *out_length,
                                               char             **out_heap,
                                               GError           **error);

GBytes    *natter_jsonl_file_serialize_events (NatterJsonlRepo   *self,
                                               const char        *id,
                                               JsonNode * const  *events,
                                               guint              n_events,
                                               gboolean           is_create,
                                               GError           **error);
gboolean   natter_jsonl_file_create           (NatterJsonlRepo   *self,
                                               const char        *id,
                                               GBytes            *line,
                                               GError           **error);
gboolean   natter_jsonl_file_append           (NatterJsonlRepo   *self,
                                               const char        *id,
                                               GBytes            *lines,
                                               GError           **error);
GPtrArray *natter_jsonl_file_read_full        (NatterJsonlRepo   *self,
                                               const char        *id,
                                               NatterJsonlBadLine *bad,
                                               NatterEventFold    fold,
                                               gpointer           fold_data,
                                               GCancellable      *cancellable,
                                               GError           **error);
GPtrArray *natter_jsonl_file_read             (NatterJsonlRepo   *self,
                                               const char        *id,
                                               GCancellable      *cancellable,
                                               GError           **error);
gboolean   natter_jsonl_file_delete           (NatterJsonlRepo   *self,
                                               const char        *id,
                                               GError           **error);

/* natter-jsonl-cursor.c: the startup scan's reads, by name in the
 * partition directory. */

gboolean   natter_jsonl_cursor_load           (NatterJsonlCursor  *cursor,
                                               const char         *id,
                                               char               *stack_buffer,
                                               char              **out_contents,
                                               gsize              *out_length,
                                               char              **out_heap,
                                               NatterFileIdentity *out_identity,
                                               gboolean           *out_identity_known);

/* natter-file-identity.c: a file's identity. */

void       natter_file_identity_from_stat     (const struct stat  *info,
                                               NatterFileIdentity *out);
gboolean   natter_file_identity_from_stat_result (int                 stat_result,
                                                  const struct stat  *info,
                                                  NatterFileIdentity *out);

/* natter-jsonl-seen.c: this process's own writes. */

void       natter_jsonl_seen_note_write       (NatterJsonlRepo          *self,
                                               const char               *id,
                                               const NatterFileIdentity *before,
                                               const NatterFileIdentity *after);
void       natter_jsonl_seen_forget           (NatterJsonlRepo          *self,
                                               const char               *id);
gboolean   natter_jsonl_seen_identify         (NatterJsonlRepo          *self,
                                               const char               *name,
                                               NatterFileIdentity       *out);
gboolean   natter_jsonl_seen_is_seen          (NatterJsonlRepo          *self,
                                               const char               *name,
                                               const NatterFileIdentity *identity);
void       natter_jsonl_seen_mark             (NatterJsonlRepo          *self,
                                               const char               *name,
                                               const NatterFileIdentity *identity);

/* natter-jsonl-layout.c: where the logs live. */

char      *natter_jsonl_layout_file_path      (NatterJsonlRepo   *self,
                                               const char        *id,
                                               GError           **error);
gboolean   natter_jsonl_layout_ensure_partition_dir (NatterJsonlRepo  *self,
                                                     const char       *id,
                                                     GError          **error);
GStrv      natter_jsonl_layout_list_ids       (NatterJsonlRepo   *self,
                                               GPtrArray         *conflicts,
                                               GCancellable      *cancellable,
                                               GError           **error);
GStrv      natter_jsonl_layout_list_conflicts (NatterJsonlRepo   *self,
                                               GCancellable      *cancellable,
                                               GError           **error);
gboolean   natter_jsonl_layout_remove_leftovers (NatterJsonlRepo  *self,
                                                 guint            *removed,
                                                 GCancellable     *cancellable,
                                                 GError          **error);

G_END_DECLS
