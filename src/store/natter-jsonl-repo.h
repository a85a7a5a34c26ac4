/* natter-jsonl-repo.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-types.h"
#include "natter-keyed-mutex.h"

G_BEGIN_DECLS

/**
 * NatterEventValidator:
 * @event: (transfer none): one event object
 * @owner_id: the id of the file the event belongs to
 * @error: return location for a #GError
 *
 * Validates one event field by field against its schema (required fields,
 * types, enums, `schemaVersion`, the owner id member equal to @owner_id).
 *
 * Returns: %FALSE with a %NATTER_STORE_ERROR code (SCHEMA, UNKNOWN_TYPE,
 *   UNSUPPORTED_VERSION) when invalid.
 */
typedef gboolean (*NatterEventValidator) (JsonObject  *event,
                                          const char  *owner_id,
                                          GError     **error);

/**
 * NatterEventFold:
 * @event: (transfer none): one event object of a log being read, in file
 *   order, already checked by the repository's #NatterEventValidator
 * @user_data: the data given to natter_jsonl_repo_read_fold_sync()
 * @error: return location for a #GError
 *
 * Folds one event into the reader's state (a reducer's apply), so that a
 * rule about the order of events refuses the log at the event's own line.
 *
 * Returns: %TRUE to read on; %FALSE with an error (any domain and code)
 *   to refuse the log at this line.
 */
typedef gboolean (*NatterEventFold) (JsonObject  *event,
                                     gpointer     user_data,
                                     GError     **error);

#define NATTER_TYPE_JSONL_REPO (natter_jsonl_repo_get_type ())

G_DECLARE_FINAL_TYPE (NatterJsonlRepo, natter_jsonl_repo, NATTER, JSONL_REPO, GObject)

NatterJsonlRepo *natter_jsonl_repo_new                  (GFile                *storage_dir,
                                                         const char           *kind,
                                                         const char           *created_type,
                                                         NatterEventValidator  validator);
NatterJsonlRepo *natter_turn_repo_new                   (GFile                *storage_dir);
NatterJsonlRepo *natter_session_repo_new                (GFile                *storage_dir);

GFile           *natter_jsonl_repo_get_file             (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         GError              **error);
char            *natter_jsonl_repo_dup_path             (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         GError              **error);

void             natter_jsonl_repo_refuse_writes        (NatterJsonlRepo      *self,
                                                         const GError         *reason);
const GError    *natter_jsonl_repo_get_write_refusal    (NatterJsonlRepo      *self);

/* Synchronous forms: for worker threads and tools; never on the main thread. */
gboolean         natter_jsonl_repo_create_sync          (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         JsonNode             *created_event,
                                                         GCancellable         *cancellable,
                                                         GError              **error);
GPtrArray       *natter_jsonl_repo_read_sync            (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         GCancellable         *cancellable,
                                                         GError              **error);
GPtrArray       *natter_jsonl_repo_read_fold_sync       (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         NatterEventFold       fold,
                                                         gpointer              user_data,
                                                         GCancellable         *cancellable,
                                                         GError              **error);
GPtrArray       *natter_jsonl_repo_read_prefix_sync     (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         guint                *out_line,
                                                         char                **out_reason,
                                                         GCancellable         *cancellable,
                                                         GError              **error);
gboolean         natter_jsonl_repo_append_sync          (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         GPtrArray            *events,
                                                         GCancellable         *cancellable,
                                                         GError              **error);
GStrv            natter_jsonl_repo_list_ids_sync        (NatterJsonlRepo      *self,
                                                         GCancellable         *cancellable,
                                                         GError              **error);
GStrv            natter_jsonl_repo_list_ids_and_conflicts_sync
                                                        (NatterJsonlRepo      *self,
                                                         GStrv                *out_conflicts,
                                                         GCancellable         *cancellable,
                                                         GError              **error);
gboolean         natter_jsonl_repo_is_shared            (NatterJsonlRepo      *self);
GError          *natter_jsonl_repo_end_lost_error       (NatterJsonlRepo      *self,
                                                         const char           *id);
GStrv            natter_jsonl_repo_list_conflicts_sync  (NatterJsonlRepo      *self,
                                                         GCancellable         *cancellable,
                                                         GError              **error);
gboolean         natter_jsonl_repo_delete_sync          (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         GCancellable         *cancellable,
                                                         GError              **error);
gboolean         natter_jsonl_repo_remove_leftover_temp_files_sync
                                                        (NatterJsonlRepo      *self,
                                                         guint                *out_removed,
                                                         GCancellable         *cancellable,
                                                         GError              **error);

/* Asynchronous forms: the work runs in a worker thread (g_task_run_in_thread). */
void             natter_jsonl_repo_create_async         (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         JsonNode             *created_event,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
gboolean         natter_jsonl_repo_create_finish        (NatterJsonlRepo      *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);
void             natter_jsonl_repo_read_async           (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
GPtrArray       *natter_jsonl_repo_read_finish          (NatterJsonlRepo      *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);
void             natter_jsonl_repo_append_async         (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         GPtrArray            *events,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
gboolean         natter_jsonl_repo_append_finish        (NatterJsonlRepo      *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);
void             natter_jsonl_repo_list_ids_async       (NatterJsonlRepo      *self,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
GStrv            natter_jsonl_repo_list_ids_finish      (NatterJsonlRepo      *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);
void             natter_jsonl_repo_delete_async         (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
gboolean         natter_jsonl_repo_delete_finish        (NatterJsonlRepo      *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);

/* with_lock: in-process exclusion per id (docs/runtime.md §2,
 * docs/sessions.md §6.3). */
void             natter_jsonl_repo_lock_async           (NatterJsonlRepo      *self,
                                                         const char           *id,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
NatterLockGuard *natter_jsonl_repo_lock_finish          (NatterJsonlRepo      *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);

G_END_DECLS
