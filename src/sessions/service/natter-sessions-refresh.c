/* natter-sessions-refresh.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What another process or device wrote while this one runs
 * (docs/sessions.md §8.5): the sessions whose files changed are read
 * again, tree-free like the startup scan and off the main thread, and
 * their entries brought up to date; a changed turn is announced, so
 * that whoever shows it reads it again. Only the named sessions are
 * read: the work is that of what changed, never of the whole store.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"

typedef struct
{
  NatterJsonlRepo *session_repo;
  NatterJsonlRepo *turn_repo;
  GPtrArray       *session_ids;   /* char * */
  GPtrArray       *turn_ids;      /* char *: announced after */
  GPtrArray       *entries;       /* NatterSessionIndexEntry or NULL (gone), by session_ids */
  guint64          since;
} Refresh;

static void
entry_unref (gpointer entry)
{
  if (entry != NULL)
    g_object_unref (entry);
}

static void
refresh_free (Refresh *refresh)
{
  g_clear_object (&refresh->session_repo);
  g_clear_object (&refresh->turn_repo);
  g_clear_pointer (&refresh->session_ids, g_ptr_array_unref);
  g_clear_pointer (&refresh->turn_ids, g_ptr_array_unref);
  g_clear_pointer (&refresh->entries, g_ptr_array_unref);
  g_free (refresh);
}

static void
refresh_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Refresh *refresh = task_data;

  for (guint i = 0; i < refresh->session_ids->len; i++)
    {
      const char *id = g_ptr_array_index (refresh->session_ids, i);
      g_autofree char *path = natter_jsonl_repo_dup_path (refresh->session_repo, id, NULL);

      if (g_cancellable_is_cancelled (cancellable))
        break;
      /* A session file that is gone was deleted there. */
      if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
        g_ptr_array_add (refresh->entries, NULL);
      else
        g_ptr_array_add (refresh->entries,
                         natter_session_index_fold_one_sync (refresh->session_repo, refresh->turn_repo, id,
                                                             cancellable));
    }
  g_task_return_boolean (task, TRUE);
}

/**
 * natter_sessions_refresh_async:
 * @self: the service
 * @session_ids: (array zero-terminated=1) (nullable): sessions whose
 *   files another process created, changed or removed
 * @turn_ids: (array zero-terminated=1) (nullable): turns whose files it
 *   changed
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context when done
 * @user_data: data for @callback
 *
 * docs/sessions.md §8.5: reads again, in a worker thread, each session
 * of @session_ids and each session whose latest turn is in @turn_ids,
 * and updates their entries (natter_session_index_put_folded()),
 * emitting #NatterSessions::session-index-changed for each that
 * changed, then #NatterSessions::turn-changed-elsewhere for each of
 * @turn_ids. A session that this process writes meanwhile keeps what
 * it wrote.
 */
void
natter_sessions_refresh_async (NatterSessions      *self,
                               const char * const  *session_ids,
                               const char * const  *turn_ids,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  Refresh *refresh;

  g_return_if_fail (NATTER_IS_SESSIONS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_refresh_async);
  refresh = g_new0 (Refresh, 1);
  refresh->session_repo = g_object_ref (self->session_repo);
  refresh->turn_repo = g_object_ref (self->turn_repo);
  refresh->session_ids = g_ptr_array_new_with_free_func (g_free);
  refresh->turn_ids = g_ptr_array_new_with_free_func (g_free);
  refresh->entries = g_ptr_array_new_with_free_func (entry_unref);
  refresh->since = natter_session_index_get_generation (self->index);

  for (guint i = 0; session_ids != NULL && session_ids[i] != NULL; i++)
    if (g_hash_table_add (seen, (gpointer) session_ids[i]))
      g_ptr_array_add (refresh->session_ids, g_strdup (session_ids[i]));
  for (guint i = 0; turn_ids != NULL && turn_ids[i] != NULL; i++)
    {
      /* Only a latest turn says anything of its session's entry. */
      const char *session_id = natter_session_index_lookup_session_for_turn (self->index, turn_ids[i]);

      /* A turn this process advances is this process's to announce. */
      if (g_hash_table_contains (self->live, turn_ids[i]))
        continue;
      g_ptr_array_add (refresh->turn_ids, g_strdup (turn_ids[i]));
      if (session_id != NULL && g_hash_table_add (seen, (gpointer) session_id))
        g_ptr_array_add (refresh->session_ids, g_strdup (session_id));
    }
  g_task_set_task_data (task, refresh, (GDestroyNotify) refresh_free);
  g_task_run_in_thread (task, refresh_thread);
}

/**
 * natter_sessions_refresh_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Applies what natter_sessions_refresh_async() read and announces it.
 *
 * Returns: %TRUE; %FALSE only with %G_IO_ERROR_CANCELLED
 */
gboolean
natter_sessions_refresh_finish (NatterSessions  *self,
                                GAsyncResult    *result,
                                GError         **error)
{
  Refresh *refresh;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_refresh_async, FALSE);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  refresh = g_task_get_task_data (G_TASK (result));
  for (guint i = 0; i < refresh->entries->len; i++)
    {
      const char *session_id = g_ptr_array_index (refresh->session_ids, i);

      if (natter_session_index_put_folded (self->index, session_id, g_ptr_array_index (refresh->entries, i),
                                           refresh->since))
        g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0, session_id);
    }
  for (guint i = 0; i < refresh->turn_ids->len; i++)
    g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_TURN_CHANGED_ELSEWHERE], 0,
                   g_ptr_array_index (refresh->turn_ids, i));
  return TRUE;
}
