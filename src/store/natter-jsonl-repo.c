/* natter-jsonl-repo.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-jsonl-repo"

#include <string.h>

#include "natter-id.h"
#include "natter-json.h"
#include "natter-jsonl-repo.h"
#include "natter-session-schema.h"
#include "natter-store-error.h"
#include "natter-sync-conflict-name.h"
#include "natter-sync-folder.h"
#include "natter-turn-schema.h"

#include "natter-jsonl-repo-private.h"

/* One append-only JSONL file per turn or session
 * (`storage/<kind>/YYYY/MM/DD/<id>.jsonl`, docs/runtime.md §2,
 * docs/sessions.md §6). The repo never rewrites a file: it creates it
 * with its first line, appends whole batches of complete lines with a
 * single write(), and reads it strictly. A kill at any moment therefore
 * leaves every earlier line intact (pitfalls.md 1); a torn tail makes that
 * one file corrupt and nothing else (pitfalls.md 2).
 *
 * This file holds the public API, its worker-thread tasks and the per-id
 * locks; natter-jsonl-file.c does the I/O on one log and
 * natter-jsonl-layout.c the partition directories. */

G_DEFINE_FINAL_TYPE (NatterJsonlRepo, natter_jsonl_repo, G_TYPE_OBJECT)

static void
natter_jsonl_repo_finalize (GObject *object)
{
  NatterJsonlRepo *self = (NatterJsonlRepo *) object;

  g_clear_object (&self->storage_dir);
  g_clear_pointer (&self->storage_path, g_free);
  g_clear_pointer (&self->kind, g_free);
  g_clear_pointer (&self->kind_path, g_free);
  g_clear_pointer (&self->created_type, g_free);
  g_clear_pointer (&self->owner_member, g_free);
  g_clear_object (&self->locks);
  g_mutex_clear (&self->append_lock);
  g_clear_pointer (&self->seen, g_hash_table_unref);
  g_mutex_clear (&self->seen_lock);
  natter_write_refusal_clear (&self->write_refusal);

  G_OBJECT_CLASS (natter_jsonl_repo_parent_class)->finalize (object);
}

static void
natter_jsonl_repo_class_init (NatterJsonlRepoClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_jsonl_repo_finalize;
}

static void
natter_jsonl_repo_init (NatterJsonlRepo *self)
{
  self->locks = natter_keyed_mutex_new ();
  g_mutex_init (&self->append_lock);
  g_mutex_init (&self->seen_lock);
  self->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static gboolean
is_kind_name (const char *kind)
{
  if (kind == NULL || *kind == '\0' || strcmp (kind, ".") == 0 || strcmp (kind, "..") == 0)
    return FALSE;
  for (const char *p = kind; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

/**
 * natter_jsonl_repo_new:
 * @storage_dir: (transfer none): the `storage` directory, e.g.
 *   `$XDG_DATA_HOME/natter/storage`; it need not exist yet
 * @kind: the subdirectory of one kind of log, `turns` or `sessions`
 *   (letters, digits, `-` and `_` only)
 * @created_type: the `type` of the mandatory first line, e.g.
 *   `turn_created`
 * @validator: checks one event against its schema
 *
 * Creates a repository of append-only JSONL logs, the repository contract
 * of docs/sessions.md §6.3 shared by turns (docs/runtime.md §2). For
 * the kinds `turns` and `sessions` the repo also checks, independently of
 * @validator, that every event's `turnId` / `sessionId` is the file's id.
 *
 * Returns: (transfer full): a new repository
 */
NatterJsonlRepo *
natter_jsonl_repo_new (GFile                *storage_dir,
                       const char           *kind,
                       const char           *created_type,
                       NatterEventValidator  validator)
{
  NatterJsonlRepo *self;
  g_autofree char *storage_path = NULL;

  g_return_val_if_fail (G_IS_FILE (storage_dir), NULL);
  g_return_val_if_fail (is_kind_name (kind), NULL);
  g_return_val_if_fail (created_type != NULL, NULL);
  g_return_val_if_fail (validator != NULL, NULL);

  /* The repo works on local paths (open, O_EXCL, O_APPEND). */
  storage_path = g_file_get_path (storage_dir);
  g_return_val_if_fail (storage_path != NULL, NULL);

  self = g_object_new (NATTER_TYPE_JSONL_REPO, NULL);
  self->storage_dir = g_object_ref (storage_dir);
  self->storage_path = g_steal_pointer (&storage_path);
  self->kind = g_strdup (kind);
  self->kind_path = g_build_filename (self->storage_path, kind, NULL);
  self->created_type = g_strdup (created_type);
  self->validator = validator;

  if (strcmp (kind, "turns") == 0)
    {
      self->owner_member = g_strdup ("turnId");
      self->missing_may_arrive = TRUE;
    }
  else if (strcmp (kind, "sessions") == 0)
    self->owner_member = g_strdup ("sessionId");
  else if (strcmp (kind, "folders") == 0)
    self->owner_member = g_strdup ("folderId");

  return self;
}

/**
 * natter_turn_repo_new:
 * @storage_dir: (transfer none): the `storage` directory
 *
 * The turn repository of docs/runtime.md §2: kind `turns`, first line
 * `turn_created`, events checked by natter_turn_event_validate().
 *
 * Returns: (transfer full): a new repository
 */
NatterJsonlRepo *
natter_turn_repo_new (GFile *storage_dir)
{
  return natter_jsonl_repo_new (storage_dir, "turns", "turn_created",
                                natter_turn_event_validate);
}

/**
 * natter_session_repo_new:
 * @storage_dir: (transfer none): the `storage` directory
 *
 * The session repository of docs/sessions.md §6: kind `sessions`,
 * first line `session_created`, events checked by
 * natter_session_event_validate().
 *
 * Returns: (transfer full): a new repository
 */
NatterJsonlRepo *
natter_session_repo_new (GFile *storage_dir)
{
  return natter_jsonl_repo_new (storage_dir, "sessions", "session_created",
                                natter_session_event_validate);
}

/* Public synchronous API. */

/**
 * natter_jsonl_repo_get_file:
 * @self: a #NatterJsonlRepo
 * @id: a turn or session id
 * @error: return location for a #GError
 *
 * The file of @id: `storage/<kind>/YYYY/MM/DD/<id>.jsonl`
 * (docs/runtime.md §2, docs/sessions.md §6.1). Touches nothing on
 * disk.
 *
 * Returns: (transfer full) (nullable): the file, or %NULL with
 *   %NATTER_STORE_ERROR_INVALID_ID.
 */
GFile *
natter_jsonl_repo_get_file (NatterJsonlRepo  *self,
                            const char       *id,
                            GError          **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);

  path = natter_jsonl_layout_file_path (self, id, error);
  if (path == NULL)
    return NULL;
  return g_file_new_for_path (path);
}

/**
 * natter_jsonl_repo_dup_path:
 * @self: a #NatterJsonlRepo
 * @id: a turn or session id
 * @error: return location for a #GError
 *
 * The path of natter_jsonl_repo_get_file(), for callers that only stat
 * many files (the startup scan's check of its cache) and need no #GFile.
 * Touches nothing on disk.
 *
 * Returns: (transfer full) (nullable): the path, or %NULL with
 *   %NATTER_STORE_ERROR_INVALID_ID.
 */
char *
natter_jsonl_repo_dup_path (NatterJsonlRepo  *self,
                            const char       *id,
                            GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);

  return natter_jsonl_layout_file_path (self, id, error);
}

/**
 * natter_jsonl_repo_create_sync:
 * @self: a #NatterJsonlRepo
 * @id: the new log's id
 * @created_event: (transfer none): the first event, of the repo's created
 *   type
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Creates the log of @id with @created_event as its only line
 * (docs/sessions.md §6.3 `create`). The partition directories are
 * made with mode 0700 and the file with mode 0600. Blocks: call it from a
 * worker thread.
 *
 * Returns: %TRUE on success. Else %FALSE with a %NATTER_STORE_ERROR code:
 *   INVALID_ID (nothing touched), EXISTS (the file is left unchanged), IO,
 *   or the event's validation error (SCHEMA, UNKNOWN_TYPE,
 *   UNSUPPORTED_VERSION, NOT_LOSSLESS; nothing written); or
 *   %G_IO_ERROR_CANCELLED; or a copy of the refusal of
 *   natter_jsonl_repo_refuse_writes() (nothing touched).
 */
gboolean
natter_jsonl_repo_create_sync (NatterJsonlRepo  *self,
                               const char       *id,
                               JsonNode         *created_event,
                               GCancellable     *cancellable,
                               GError          **error)
{
  g_autoptr(GBytes) line = NULL;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (created_event != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!natter_id_validate (id, error))
    return FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  line = natter_jsonl_file_serialize_events (self, id, &created_event, 1, TRUE, error);
  if (line == NULL)
    return FALSE;

  return natter_jsonl_file_create (self, id, line, error);
}

/**
 * natter_jsonl_repo_refuse_writes:
 * @self: a #NatterJsonlRepo
 * @reason: (transfer none) (nullable): why this process may not write,
 *   e.g. %NATTER_SESSION_ERROR_LOCKED when another process holds the data
 *   directory's single-writer lock (architecture.md, "Process and
 *   data"); %NULL when it may write again (it took the lock after all)
 *
 * Makes @self read only: every create, append and delete, sync or
 * async, and every removal of leftover temporary files fails from now
 * on with a copy of @reason and touches no file; reads, listings and the
 * in-process locks go on as before. Call it from the main thread before
 * the repo is used; while one reason holds, another is ignored. The
 * single choke point of every write to a log (natter-jsonl-file.c), so
 * that no path of a process without the lock writes one.
 */
void
natter_jsonl_repo_refuse_writes (NatterJsonlRepo *self,
                                 const GError    *reason)
{
  g_return_if_fail (NATTER_IS_JSONL_REPO (self));

  natter_write_refusal_set (&self->write_refusal, reason);
}

/**
 * natter_jsonl_repo_get_write_refusal:
 * @self: a #NatterJsonlRepo
 *
 * Returns: (transfer none) (nullable): why @self writes nothing
 *   (natter_jsonl_repo_refuse_writes()), or %NULL when it may write; the
 *   error lives as long as @self
 */
const GError *
natter_jsonl_repo_get_write_refusal (NatterJsonlRepo *self)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);

  return natter_write_refusal_get (&self->write_refusal);
}

/**
 * natter_jsonl_repo_read_sync:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads and validates the whole log of @id strictly (docs/runtime.md §2,
 * docs/sessions.md §6.2): line 1 must be the created event, no later
 * line may be, every line must be a canonical lossless JSON object that
 * passes the validator, and the file must end with a newline. Any failure
 * rejects the whole file; nothing is repaired or skipped. Blocks.
 *
 * Returns: (transfer full) (element-type JsonNode): the events, element i
 *   being line i + 1 (the event's 1-based `offset`). %NULL with a
 *   %NATTER_STORE_ERROR code: INVALID_ID, NOT_FOUND, IO, or CORRUPT with a
 *   message `<path>:<line>: <reason>`; or %G_IO_ERROR_CANCELLED.
 */
GPtrArray *
natter_jsonl_repo_read_sync (NatterJsonlRepo  *self,
                             const char       *id,
                             GCancellable     *cancellable,
                             GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!natter_store_name_validate (id, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  return natter_jsonl_file_read (self, id, cancellable, error);
}

/**
 * natter_jsonl_repo_read_fold_sync:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @fold: folds each event, in file order, after it passed the line and
 *   schema checks
 * @user_data: data for @fold
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * natter_jsonl_repo_read_sync() with the reader's rules applied line by
 * line: a reducer's invariant refuses a log as a malformed line does,
 * naming the file and the line of the event (docs/format.md §2). Blocks.
 *
 * Returns: (transfer full) (element-type JsonNode): as
 *   natter_jsonl_repo_read_sync(); an error of @fold keeps its domain and
 *   code, its message becoming `<path>:<line>: <reason>`.
 */
GPtrArray *
natter_jsonl_repo_read_fold_sync (NatterJsonlRepo  *self,
                                  const char       *id,
                                  NatterEventFold   fold,
                                  gpointer          user_data,
                                  GCancellable     *cancellable,
                                  GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (fold != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!natter_store_name_validate (id, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  return natter_jsonl_file_read_full (self, id, NULL, fold, user_data, cancellable, error);
}

/**
 * natter_jsonl_repo_read_prefix_sync:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @out_line: (out): the 1-based number of the first line that cannot be
 *   read, 0 when every line reads
 * @out_reason: (out) (transfer full) (nullable): why that line cannot be
 *   read, without the path; %NULL when every line reads
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the readable prefix of a damaged log, for showing and copying
 * what is left of it (never for using the log itself: that stays
 * natter_jsonl_repo_read_sync()'s all-or-nothing verdict,
 * docs/sessions.md §6.2). Each line is checked exactly as
 * natter_jsonl_repo_read_sync() does; the read stops at the first line
 * that fails. The file is only read, never changed. Blocks.
 *
 * Returns: (transfer full) (element-type JsonNode): the events of the
 *   lines before the first bad one (possibly none); %NULL when the file
 *   cannot be read at all, with a %NATTER_STORE_ERROR (INVALID_ID,
 *   NOT_FOUND, IO, CORRUPT for something that is not a regular file) or
 *   %G_IO_ERROR_CANCELLED
 */
GPtrArray *
natter_jsonl_repo_read_prefix_sync (NatterJsonlRepo  *self,
                                    const char       *id,
                                    guint            *out_line,
                                    char            **out_reason,
                                    GCancellable     *cancellable,
                                    GError          **error)
{
  NatterJsonlBadLine bad = { 0, NULL };
  GPtrArray *events;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (out_line != NULL, NULL);
  g_return_val_if_fail (out_reason != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  *out_line = 0;
  *out_reason = NULL;
  if (!natter_store_name_validate (id, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  events = natter_jsonl_file_read_full (self, id, &bad, NULL, NULL, cancellable, error);
  if (events == NULL)
    {
      g_free (bad.reason);
      return NULL;
    }
  *out_line = bad.line;
  *out_reason = bad.reason;
  return events;
}

/**
 * natter_jsonl_repo_append_sync:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @events: (element-type JsonNode) (transfer none): the events to append,
 *   none of the created type
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Appends @events as one batch (docs/sessions.md §6.3 `append`):
 * every event is validated and serialized first, then all lines go to the
 * end of the existing file with a single write(). If any event is invalid
 * nothing is written. The file is not fsynced (docs/sessions.md §6.2). An empty
 * batch does nothing. Blocks.
 *
 * Returns: %TRUE on success. Else %FALSE with a %NATTER_STORE_ERROR code:
 *   INVALID_ID, NOT_FOUND (never created), CORRUPT (the file is empty or
 *   ends in a torn line), IO, or the validation error of the first invalid
 *   event; or %G_IO_ERROR_CANCELLED; or a copy of the refusal of
 *   natter_jsonl_repo_refuse_writes() (nothing touched).
 */
gboolean
natter_jsonl_repo_append_sync (NatterJsonlRepo  *self,
                               const char       *id,
                               GPtrArray        *events,
                               GCancellable     *cancellable,
                               GError          **error)
{
  g_autoptr(GBytes) lines = NULL;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (events != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!natter_id_validate (id, error))
    return FALSE;
  if (events->len == 0)
    return TRUE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  lines = natter_jsonl_file_serialize_events (self, id, (JsonNode * const *) events->pdata,
                                              events->len, FALSE, error);
  if (lines == NULL)
    return FALSE;

  return natter_jsonl_file_append (self, id, lines, error);
}

/**
 * natter_jsonl_repo_list_ids_sync:
 * @self: a #NatterJsonlRepo
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Enumerates the ids of all logs across the `YYYY/MM/DD` partitions
 * (docs/sessions.md §6.3 `listSessionIds`, for the startup scan).
 * Files whose name is not a valid id or that sit in the wrong partition
 * are left out (with a debug message), as are directories that are not
 * partitions. A missing kind directory is an empty list. Blocks.
 *
 * Returns: (transfer full): the ids, sorted ascending (creation order).
 *   %NULL with %NATTER_STORE_ERROR_IO if the kind directory cannot be
 *   read, or %G_IO_ERROR_CANCELLED.
 */
GStrv
natter_jsonl_repo_list_ids_sync (NatterJsonlRepo  *self,
                                 GCancellable     *cancellable,
                                 GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  return natter_jsonl_layout_list_ids (self, NULL, cancellable, error);
}

/**
 * natter_jsonl_repo_list_ids_and_conflicts_sync:
 * @self: a #NatterJsonlRepo
 * @out_conflicts: (out) (transfer full): the conflict copies, as
 *   natter_jsonl_repo_list_conflicts_sync() gives them
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * natter_jsonl_repo_list_ids_sync() and
 * natter_jsonl_repo_list_conflicts_sync() in one walk of the partitions,
 * for the startup scan (docs/sessions.md §8.2). Blocks.
 *
 * Returns: (transfer full): the ids; %NULL (and no @out_conflicts) with
 *   the errors of natter_jsonl_repo_list_ids_sync()
 */
GStrv
natter_jsonl_repo_list_ids_and_conflicts_sync (NatterJsonlRepo  *self,
                                               GStrv            *out_conflicts,
                                               GCancellable     *cancellable,
                                               GError          **error)
{
  g_autoptr(GPtrArray) conflicts = g_ptr_array_new_with_free_func (g_free);
  GStrv ids;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (out_conflicts != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  *out_conflicts = NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  ids = natter_jsonl_layout_list_ids (self, conflicts, cancellable, error);
  if (ids == NULL)
    return NULL;
  g_ptr_array_add (conflicts, NULL);
  *out_conflicts = (GStrv) g_ptr_array_free (g_steal_pointer (&conflicts), FALSE);
  return ids;
}

/**
 * natter_jsonl_repo_is_shared:
 * @self: a #NatterJsonlRepo
 *
 * Whether a synchroniser shares the data folder of this repository
 * (natter_sync_folder_is_shared(), docs/format.md §9.3). Looks at the
 * disk.
 *
 * Returns: %TRUE when it does
 */
gboolean
natter_jsonl_repo_is_shared (NatterJsonlRepo *self)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);

  return natter_sync_folder_is_shared (self->storage_path);
}

/**
 * natter_jsonl_repo_end_lost_error:
 * @self: the turn repository
 * @id: a turn that is gone on from but has no terminal event
 *
 * The error of an earlier turn whose file ends before the turn does: a
 * turn is only gone on from once it has ended, so the file lost its last
 * lines (docs/runtime.md §11). %NATTER_STORE_ERROR_CORRUPT, or, in a
 * folder a synchroniser shares, %NATTER_STORE_ERROR_NOT_ARRIVED: there it
 * may be an older copy of a file whose whole copy is on its way
 * (docs/format.md §9.3). Looks at the disk.
 *
 * Returns: (transfer full): the error, naming the file
 */
GError *
natter_jsonl_repo_end_lost_error (NatterJsonlRepo *self,
                                  const char      *id)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);

  path = natter_jsonl_repo_dup_path (self, id, NULL);
  if (path == NULL)
    path = g_strdup (id);
  if (natter_sync_folder_is_shared (self->storage_path))
    return g_error_new (NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED,
                        "%s has not arrived whole from another device yet: the copy here ends before the turn does, "
                        "yet the conversation goes on after it", path);
  return g_error_new (NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                      "%s: the file ends before the turn does (its last lines are lost), yet the conversation goes "
                      "on after it", path);
}

/**
 * natter_jsonl_repo_list_conflicts_sync:
 * @self: a #NatterJsonlRepo
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Enumerates the conflict copies a file synchroniser kept beside the
 * logs (docs/format.md §9): every `.jsonl` file of a partition whose
 * name holds %NATTER_SYNC_CONFLICT_MARK, also one whose name is not
 * exactly a conflict copy's, so that the reader reports it
 * (natter_sync_conflict_validate()) instead of passing it over. Blocks.
 *
 * Returns: (transfer full): the names without `.jsonl`, sorted. %NULL
 *   with %NATTER_STORE_ERROR_IO if the kind directory cannot be read, or
 *   %G_IO_ERROR_CANCELLED.
 */
GStrv
natter_jsonl_repo_list_conflicts_sync (NatterJsonlRepo  *self,
                                       GCancellable     *cancellable,
                                       GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  return natter_jsonl_layout_list_conflicts (self, cancellable, error);
}

/**
 * natter_jsonl_repo_delete_sync:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Removes the log of @id and nothing else (docs/sessions.md §6.3
 * `delete`, docs/sessions.md §9.4): no directory, no referenced file. Blocks.
 *
 * Returns: %TRUE on success. Else %FALSE with a %NATTER_STORE_ERROR code:
 *   INVALID_ID, NOT_FOUND, IO; or %G_IO_ERROR_CANCELLED; or a copy of the refusal of
 *   natter_jsonl_repo_refuse_writes() (nothing touched).
 */
gboolean
natter_jsonl_repo_delete_sync (NatterJsonlRepo  *self,
                               const char       *id,
                               GCancellable     *cancellable,
                               GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!natter_store_name_validate (id, error))
    return FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  return natter_jsonl_file_delete (self, id, error);
}

/**
 * natter_jsonl_repo_remove_leftover_temp_files_sync:
 * @self: a #NatterJsonlRepo
 * @out_removed: (out) (optional): how many files were removed
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Removes the temporary files that creates interrupted by a kill left
 * beside the logs: `.<id>.jsonl.XXXXXX` in the id's partition directory,
 * the name a create writes the first line under before linking it into
 * place (natter_jsonl_repo_create_sync()). No listing or read ever sees
 * them; they only take room. Nothing else is touched: no `.jsonl` file,
 * no other name, nothing that is not a regular file. When the kill came
 * after the link, the temporary name is a second hard link to the live
 * log; removing it removes that name only, and the log keeps every byte.
 *
 * Removing the temporary file of a create still in progress would make
 * that create fail. Call it only while holding the storage directory's
 * single-writer lock, so that no other process writes; the creates of
 * this process, in any thread, are kept apart by natter-store-temp.c,
 * so the removal may run in a worker thread while the process writes
 * (natter_services_remove_leftover_temp_files_async()). Blocks.
 *
 * Returns: %TRUE on success. Else %FALSE with %NATTER_STORE_ERROR_IO (a
 *   directory could not be listed or a file removed; files removed before
 *   that stay removed) or %G_IO_ERROR_CANCELLED; or a copy of the refusal of
 *   natter_jsonl_repo_refuse_writes() (nothing touched).
 */
gboolean
natter_jsonl_repo_remove_leftover_temp_files_sync (NatterJsonlRepo  *self,
                                                   guint            *out_removed,
                                                   GCancellable     *cancellable,
                                                   GError          **error)
{
  guint removed = 0;
  gboolean ok;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  ok = !g_cancellable_set_error_if_cancelled (cancellable, error) &&
       natter_write_refusal_check (&self->write_refusal, error) &&
       natter_jsonl_layout_remove_leftovers (self, &removed, cancellable, error);
  if (out_removed != NULL)
    *out_removed = removed;
  return ok;
}

/* Asynchronous forms. */

typedef enum
{
  OP_CREATE,
  OP_READ,
  OP_APPEND,
  OP_LIST_IDS,
  OP_DELETE,
} Op;

typedef struct
{
  Op      op;
  char   *id;
  /* The serialized lines of a create or append, made on the caller's
   * thread. */
  GBytes *lines;
} RepoTaskData;

static void
repo_task_data_free (RepoTaskData *data)
{
  g_clear_pointer (&data->id, g_free);
  g_clear_pointer (&data->lines, g_bytes_unref);
  g_free (data);
}

static void
repo_thread_func (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  NatterJsonlRepo *self = source_object;
  RepoTaskData *data = task_data;
  g_autoptr(GError) error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;

  switch (data->op)
    {
    case OP_CREATE:
      if (natter_jsonl_file_create (self, data->id, data->lines, &error))
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_error (task, g_steal_pointer (&error));
      break;

    case OP_APPEND:
      if (natter_jsonl_file_append (self, data->id, data->lines, &error))
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_error (task, g_steal_pointer (&error));
      break;

    case OP_DELETE:
      if (natter_jsonl_file_delete (self, data->id, &error))
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_error (task, g_steal_pointer (&error));
      break;

    case OP_READ:
      {
        GPtrArray *events = natter_jsonl_file_read (self, data->id, cancellable, &error);

        if (events != NULL)
          g_task_return_pointer (task, events, (GDestroyNotify) g_ptr_array_unref);
        else
          g_task_return_error (task, g_steal_pointer (&error));
      }
      break;

    case OP_LIST_IDS:
      {
        GStrv ids = natter_jsonl_layout_list_ids (self, NULL, cancellable, &error);

        if (ids != NULL)
          g_task_return_pointer (task, ids, (GDestroyNotify) g_strfreev);
        else
          g_task_return_error (task, g_steal_pointer (&error));
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

/* Starts the task in a worker, or completes it at once (from an idle, as
 * GTask does for results returned in the creating iteration) when the
 * request is already known to fail. */
static void
start_task (NatterJsonlRepo     *self,
            Op                   op,
            const char          *id,
            GBytes              *lines,
            GError              *early_error,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data,
            gpointer             source_tag)
{
  g_autoptr(GTask) task = NULL;
  RepoTaskData *data;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, source_tag);

  if (early_error != NULL)
    {
      g_task_return_error (task, early_error);
      return;
    }

  data = g_new0 (RepoTaskData, 1);
  data->op = op;
  data->id = g_strdup (id);
  data->lines = lines != NULL ? g_bytes_ref (lines) : NULL;
  g_task_set_task_data (task, data, (GDestroyNotify) repo_task_data_free);

  g_task_run_in_thread (task, repo_thread_func);
}

static gboolean
finish_boolean (NatterJsonlRepo  *self,
                GAsyncResult     *result,
                gpointer          source_tag,
                GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static gpointer
finish_pointer (NatterJsonlRepo  *self,
                GAsyncResult     *result,
                gpointer          source_tag,
                GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_jsonl_repo_create_async:
 * @self: a #NatterJsonlRepo
 * @id: the new log's id
 * @created_event: (transfer none): the first event
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * The asynchronous natter_jsonl_repo_create_sync(). @created_event is
 * validated and serialized before this returns, so the caller may reuse it
 * at once; the file system work runs in a worker thread.
 */
void
natter_jsonl_repo_create_async (NatterJsonlRepo     *self,
                                const char          *id,
                                JsonNode            *created_event,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GBytes) line = NULL;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (self));
  g_return_if_fail (created_event != NULL);

  if (natter_id_validate (id, &error))
    line = natter_jsonl_file_serialize_events (self, id, &created_event, 1, TRUE, &error);

  start_task (self, OP_CREATE, id, line, error, cancellable, callback, user_data,
              natter_jsonl_repo_create_async);
}

/**
 * natter_jsonl_repo_create_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_create_async().
 *
 * Returns: %TRUE on success; errors as natter_jsonl_repo_create_sync().
 */
gboolean
natter_jsonl_repo_create_finish (NatterJsonlRepo  *self,
                                 GAsyncResult     *result,
                                 GError          **error)
{
  return finish_boolean (self, result, natter_jsonl_repo_create_async, error);
}

/**
 * natter_jsonl_repo_read_async:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * The asynchronous natter_jsonl_repo_read_sync(); reading and validation
 * run in a worker thread.
 */
void
natter_jsonl_repo_read_async (NatterJsonlRepo     *self,
                              const char          *id,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (self));

  natter_store_name_validate (id, &error);
  start_task (self, OP_READ, id, NULL, error, cancellable, callback, user_data,
              natter_jsonl_repo_read_async);
}

/**
 * natter_jsonl_repo_read_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_read_async().
 *
 * Returns: (transfer full) (element-type JsonNode) (nullable): the events;
 *   errors as natter_jsonl_repo_read_sync().
 */
GPtrArray *
natter_jsonl_repo_read_finish (NatterJsonlRepo  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  return finish_pointer (self, result, natter_jsonl_repo_read_async, error);
}

/**
 * natter_jsonl_repo_append_async:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @events: (element-type JsonNode) (transfer none): the batch
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * The asynchronous natter_jsonl_repo_append_sync(). The batch is validated
 * and serialized before this returns (an invalid batch fails without a
 * worker and writes nothing); the single write runs in a worker thread.
 * Batches started one after another on one id are not ordered with each
 * other: hold the id's lock (natter_jsonl_repo_lock_async()) and await
 * each append when the order matters.
 */
void
natter_jsonl_repo_append_async (NatterJsonlRepo     *self,
                                const char          *id,
                                GPtrArray           *events,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GBytes) lines = NULL;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (self));
  g_return_if_fail (events != NULL);

  if (natter_id_validate (id, &error))
    {
      if (events->len == 0)
        {
          g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

          g_task_set_source_tag (task, natter_jsonl_repo_append_async);
          g_task_return_boolean (task, TRUE);
          return;
        }
      lines = natter_jsonl_file_serialize_events (self, id, (JsonNode * const *) events->pdata,
                                                  events->len, FALSE, &error);
    }

  start_task (self, OP_APPEND, id, lines, error, cancellable, callback, user_data,
              natter_jsonl_repo_append_async);
}

/**
 * natter_jsonl_repo_append_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_append_async(). Success means the write
 * returned; the data is in the page cache, not necessarily on disk.
 *
 * Returns: %TRUE on success; errors as natter_jsonl_repo_append_sync().
 */
gboolean
natter_jsonl_repo_append_finish (NatterJsonlRepo  *self,
                                 GAsyncResult     *result,
                                 GError          **error)
{
  return finish_boolean (self, result, natter_jsonl_repo_append_async, error);
}

/**
 * natter_jsonl_repo_list_ids_async:
 * @self: a #NatterJsonlRepo
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * The asynchronous natter_jsonl_repo_list_ids_sync(), in a worker thread.
 */
void
natter_jsonl_repo_list_ids_async (NatterJsonlRepo     *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_JSONL_REPO (self));

  start_task (self, OP_LIST_IDS, NULL, NULL, NULL, cancellable, callback, user_data,
              natter_jsonl_repo_list_ids_async);
}

/**
 * natter_jsonl_repo_list_ids_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_list_ids_async().
 *
 * Returns: (transfer full) (nullable): the sorted ids; errors as
 *   natter_jsonl_repo_list_ids_sync().
 */
GStrv
natter_jsonl_repo_list_ids_finish (NatterJsonlRepo  *self,
                                   GAsyncResult     *result,
                                   GError          **error)
{
  return finish_pointer (self, result, natter_jsonl_repo_list_ids_async, error);
}

/**
 * natter_jsonl_repo_delete_async:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * The asynchronous natter_jsonl_repo_delete_sync(), in a worker thread.
 */
void
natter_jsonl_repo_delete_async (NatterJsonlRepo     *self,
                                const char          *id,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (self));

  natter_store_name_validate (id, &error);
  start_task (self, OP_DELETE, id, NULL, error, cancellable, callback, user_data,
              natter_jsonl_repo_delete_async);
}

/**
 * natter_jsonl_repo_delete_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_delete_async().
 *
 * Returns: %TRUE on success; errors as natter_jsonl_repo_delete_sync().
 */
gboolean
natter_jsonl_repo_delete_finish (NatterJsonlRepo  *self,
                                 GAsyncResult     *result,
                                 GError          **error)
{
  return finish_boolean (self, result, natter_jsonl_repo_delete_async, error);
}

/* with_lock */

static void
lock_acquired_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  NatterLockGuard *guard;

  guard = natter_keyed_mutex_acquire_finish (NATTER_KEYED_MUTEX (source), result, &error);
  if (guard == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, guard, (GDestroyNotify) natter_lock_guard_release);
}

/**
 * natter_jsonl_repo_lock_async:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @cancellable: (nullable): cancels the wait while queued
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * Waits for the in-process lock of @id (`with_lock`, docs/runtime.md §2,
 * docs/sessions.md §6.3): a FIFO per id, held across any number of
 * main-loop iterations until the guard is released. It orders this
 * process's read-modify-append cycles; it does not lock the file against
 * other processes.
 */
void
natter_jsonl_repo_lock_async (NatterJsonlRepo     *self,
                              const char          *id,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_jsonl_repo_lock_async);

  if (!natter_store_name_validate (id, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  natter_keyed_mutex_acquire_async (self->locks, id, cancellable,
                                    lock_acquired_cb, g_steal_pointer (&task));
}

/**
 * natter_jsonl_repo_lock_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_lock_async().
 *
 * Returns: (transfer full) (nullable): the guard; release it with
 *   natter_lock_guard_release(). %NULL with
 *   %NATTER_STORE_ERROR_INVALID_ID or %G_IO_ERROR_CANCELLED.
 */
NatterLockGuard *
natter_jsonl_repo_lock_finish (NatterJsonlRepo  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  return finish_pointer (self, result, natter_jsonl_repo_lock_async, error);
}

/**
 * natter_jsonl_repo_identify:
 * @self: a #NatterJsonlRepo
 * @name: a log's id, or a conflict copy's name (docs/format.md §9)
 * @out: (out caller-allocates): the file's identity
 *
 * stat()s the log @name, without reading it.
 *
 * Returns: %TRUE when the identity is known: the file's, or one that
 *   says there is no file; %FALSE when it cannot be told (an invalid
 *   name, something other than a regular file, a failure other than
 *   ENOENT)
 */
gboolean
natter_jsonl_repo_identify (NatterJsonlRepo    *self,
                            const char         *name,
                            NatterFileIdentity *out)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (name != NULL && out != NULL, FALSE);

  return natter_jsonl_seen_identify (self, name, out);
}

/**
 * natter_jsonl_repo_is_seen:
 * @self: a #NatterJsonlRepo
 * @name: a log's id or a conflict copy's name
 * @identity: the log's identity now (natter_jsonl_repo_identify())
 *
 * Whether everything the log @name holds at @identity is known to this
 * process: @identity is the one a reader recorded
 * (natter_jsonl_repo_mark_seen()) or this process's own last write left.
 * Thread-safe.
 *
 * Returns: %TRUE when there is nothing new to read
 */
gboolean
natter_jsonl_repo_is_seen (NatterJsonlRepo          *self,
                           const char               *name,
                           const NatterFileIdentity *identity)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (name != NULL && identity != NULL, FALSE);

  return natter_jsonl_seen_is_seen (self, name, identity);
}

/**
 * natter_jsonl_repo_mark_seen:
 * @self: a #NatterJsonlRepo
 * @name: a log's id or a conflict copy's name
 * @identity: the identity the log had before it was read
 *
 * Records that the log @name is known to this process up to @identity:
 * a reader took the identity, then read the file (or had those who show
 * it read it). The identity must be taken before the read: what was
 * added in between is then read once more, never missed. Thread-safe.
 */
void
natter_jsonl_repo_mark_seen (NatterJsonlRepo          *self,
                             const char               *name,
                             const NatterFileIdentity *identity)
{
  g_return_if_fail (NATTER_IS_JSONL_REPO (self));
  g_return_if_fail (name != NULL && identity != NULL);

  natter_jsonl_seen_mark (self, name, identity);
}
