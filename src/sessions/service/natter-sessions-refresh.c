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

#include "natter-id.h"
#include "natter-jsonl-cursor.h"
#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"
#include "natter-sync-conflict-name.h"
#include "natter-turn-runtime.h"

typedef struct
{
  NatterJsonlRepo *session_repo;
  NatterJsonlRepo *turn_repo;
  GPtrArray       *session_names;  /* char *: logs and copies of logs that changed */
  GPtrArray       *turn_ids;       /* char *: turns whose files changed */
  GPtrArray       *turn_sessions;  /* char * or NULL: the session of each of turn_ids that is its latest turn */
  GPtrArray       *turn_copies;    /* char *: copies of turn files that changed */
  GHashTable      *copies_of;      /* name set: copies whose log changed, read again whatever they are */
  GPtrArray       *read_names;     /* char *: the sessions read, by entries */
  GPtrArray       *entries;        /* NatterSessionIndexEntry or NULL (gone), by read_names */
  GPtrArray       *announced;      /* char *: the turns another writer changed */
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
  g_clear_pointer (&refresh->session_names, g_ptr_array_unref);
  g_clear_pointer (&refresh->turn_ids, g_ptr_array_unref);
  g_clear_pointer (&refresh->turn_sessions, g_ptr_array_unref);
  g_clear_pointer (&refresh->turn_copies, g_ptr_array_unref);
  g_clear_pointer (&refresh->copies_of, g_hash_table_unref);
  g_clear_pointer (&refresh->read_names, g_ptr_array_unref);
  g_clear_pointer (&refresh->entries, g_ptr_array_unref);
  g_clear_pointer (&refresh->announced, g_ptr_array_unref);
  g_free (refresh);
}

/* Whether the log @name of @repo holds anything this process has not
 * taken in (natter_jsonl_repo_is_seen()): a file it wrote itself, as it
 * left it, has not. *@identity is the file's now, *@known whether it
 * could be told; a log whose identity cannot be told is read. */
static gboolean
is_new (NatterJsonlRepo    *repo,
        const char         *name,
        NatterFileIdentity *identity,
        gboolean           *known)
{
  *known = natter_jsonl_repo_identify (repo, name, identity);
  return !*known || !natter_jsonl_repo_is_seen (repo, name, identity);
}

/* Reads the session log or conflict copy @name (of @repo: a turn's copy
 * is beside the turns) into the next entry: %NULL when its file is gone.
 * Its identity, taken before the read, is seen from then on. */
static void
read_session (Refresh            *refresh,
              NatterJsonlRepo    *repo,
              const char         *name,
              GCancellable       *cancellable)
{
  NatterFileIdentity identity;
  gboolean known = natter_jsonl_repo_identify (repo, name, &identity);
  NatterSessionIndexEntry *entry = NULL;

  if (natter_sync_conflict_is_candidate (name))
    {
      /* Another device's copy, read as the version it is (docs/format.md §9). */
      if (!known || identity.exists)
        entry = natter_session_index_fold_conflict_sync (refresh->session_repo, refresh->turn_repo, name,
                                                         cancellable);
    }
  else if (!known || identity.exists)
    entry = natter_session_index_fold_one_sync (refresh->session_repo, refresh->turn_repo, name, cancellable);
  /* A log that is gone was deleted there. */
  g_ptr_array_add (refresh->read_names, g_strdup (name));
  g_ptr_array_add (refresh->entries, entry);
  if (known)
    natter_jsonl_repo_mark_seen (repo, name, &identity);
}

/* Whether @name is another device's copy of a turn file: a copy's name
 * that only the turns have. */
static gboolean
is_turn_copy (Refresh    *refresh,
              const char *name)
{
  NatterFileIdentity identity;

  if (!natter_sync_conflict_is_candidate (name))
    return FALSE;
  if (natter_jsonl_repo_identify (refresh->session_repo, name, &identity) && identity.exists)
    return FALSE;
  return natter_jsonl_repo_identify (refresh->turn_repo, name, &identity) && identity.exists;
}

static void
refresh_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Refresh *refresh = task_data;
  g_autoptr(GHashTable) to_read = g_hash_table_new (g_str_hash, g_str_equal);
  NatterFileIdentity identity;
  gboolean known;

  /* A turn is announced, and its session read, only when another writer
   * changed it: this process announced its own writes as it made them. */
  for (guint i = 0; i < refresh->turn_ids->len; i++)
    {
      const char *turn_id = g_ptr_array_index (refresh->turn_ids, i);
      const char *session_id = g_ptr_array_index (refresh->turn_sessions, i);

      if (!is_new (refresh->turn_repo, turn_id, &identity, &known))
        continue;
      g_ptr_array_add (refresh->announced, g_strdup (turn_id));
      /* Whoever shows the turn reads it after the announcement. */
      if (known)
        natter_jsonl_repo_mark_seen (refresh->turn_repo, turn_id, &identity);
      if (session_id != NULL)
        g_hash_table_add (to_read, (gpointer) session_id);
    }
  for (guint i = 0; i < refresh->session_names->len; i++)
    {
      const char *name = g_ptr_array_index (refresh->session_names, i);

      if (g_cancellable_is_cancelled (cancellable))
        break;
      /* A copy of a turn file asked for by its name (the window opening
       * it) is beside the turns: read with the other copies of turn
       * files, or it would look deleted. */
      if (is_turn_copy (refresh, name))
        {
          if (!g_ptr_array_find_with_equal_func (refresh->turn_copies, name, g_str_equal, NULL))
            g_ptr_array_add (refresh->turn_copies, g_strdup (name));
          continue;
        }
      if (g_hash_table_contains (to_read, name) || g_hash_table_contains (refresh->copies_of, name) ||
          is_new (refresh->session_repo, name, &identity, &known))
        read_session (refresh, refresh->session_repo, name, cancellable);
      g_hash_table_remove (to_read, name);
    }
  {
    GHashTableIter iter;
    gpointer name;

    g_hash_table_iter_init (&iter, to_read);
    while (g_hash_table_iter_next (&iter, &name, NULL) && !g_cancellable_is_cancelled (cancellable))
      read_session (refresh, refresh->session_repo, name, cancellable);
  }
  /* Copies of turn files are looked for only where a synchroniser
   * shares the folder, as the startup scan does (docs/format.md §9.2). */
  if (refresh->turn_copies->len > 0 && natter_jsonl_repo_is_shared (refresh->turn_repo))
    for (guint i = 0; i < refresh->turn_copies->len && !g_cancellable_is_cancelled (cancellable); i++)
      {
        const char *name = g_ptr_array_index (refresh->turn_copies, i);

        if (g_hash_table_contains (refresh->copies_of, name) || is_new (refresh->turn_repo, name, &identity, &known))
          read_session (refresh, refresh->turn_repo, name, cancellable);
      }
  g_task_return_boolean (task, TRUE);
}

/* Adds to @refresh the conflict copies the index lists of the logs in
 * @changed (a copy of a session file beside it, a copy of a turn file
 * of its session): what a copy reads as depends on its log
 * (docs/format.md §9.1), so they are read again with it. Copies are
 * few; the index is walked once. */
static void
add_copies_of (NatterSessions *self,
               Refresh        *refresh,
               GHashTable     *changed)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->index));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->index), i);
      const char *name = natter_session_index_entry_get_session_id (entry);
      const char *parent = natter_session_index_entry_get_parent_session (entry);
      g_autofree char *base = NULL;

      if (!natter_sync_conflict_is_candidate (name))
        continue;
      base = g_strndup (name, NATTER_ID_LENGTH);
      if (!g_hash_table_contains (changed, base) && (parent == NULL || !g_hash_table_contains (changed, parent)))
        continue;
      if (!g_hash_table_add (refresh->copies_of, g_strdup (name)))
        continue;
      /* Beside the session files, or else beside the turn files. */
      if (g_hash_table_contains (changed, base))
        g_ptr_array_add (refresh->session_names, g_strdup (name));
      else
        g_ptr_array_add (refresh->turn_copies, g_strdup (name));
    }
}

/**
 * natter_sessions_refresh_async:
 * @self: the service
 * @session_names: (array zero-terminated=1) (nullable): sessions whose
 *   files another process created, changed or removed, and conflict
 *   copies of session files (docs/format.md §9.1) that came, changed or
 *   went
 * @turn_names: (array zero-terminated=1) (nullable): turns whose files
 *   it changed, and conflict copies of turn files (docs/format.md §9.2)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context when done
 * @user_data: data for @callback
 *
 * docs/sessions.md §8.5: reads again, in a worker thread, each session
 * of @session_names and each session whose latest turn is in
 * @turn_names, and updates their entries
 * (natter_session_index_put_folded()), emitting
 * #NatterSessions::session-index-changed for each that changed, then
 * #NatterSessions::turn-changed-elsewhere for each turn of @turn_names.
 * A conflict copy is read as the version of its conversation it is, and
 * again whenever its log changes; a copy of a turn file only where a
 * synchroniser shares the folder (docs/format.md §9.2).
 *
 * Only another writer's changes are read and announced: a file whose
 * identity is the one this process's own last write left, or the one
 * this function last read, has nothing new (natter_jsonl_repo_is_seen())
 * and is passed over, so a write of this process is not read back. A
 * session that this process writes meanwhile keeps what it wrote.
 */
void
natter_sessions_refresh_async (NatterSessions      *self,
                               const char * const  *session_names,
                               const char * const  *turn_names,
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
  refresh->session_names = g_ptr_array_new_with_free_func (g_free);
  refresh->turn_ids = g_ptr_array_new_with_free_func (g_free);
  refresh->turn_sessions = g_ptr_array_new_with_free_func (g_free);
  refresh->turn_copies = g_ptr_array_new_with_free_func (g_free);
  refresh->copies_of = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  refresh->read_names = g_ptr_array_new_with_free_func (g_free);
  refresh->entries = g_ptr_array_new_with_free_func (entry_unref);
  refresh->announced = g_ptr_array_new_with_free_func (g_free);
  refresh->since = natter_session_index_get_generation (self->index);

  for (guint i = 0; session_names != NULL && session_names[i] != NULL; i++)
    if (g_hash_table_add (seen, (gpointer) session_names[i]))
      g_ptr_array_add (refresh->session_names, g_strdup (session_names[i]));
  add_copies_of (self, refresh, seen);
  for (guint i = 0; turn_names != NULL && turn_names[i] != NULL; i++)
    {
      const char *session_id;

      if (natter_sync_conflict_is_candidate (turn_names[i]))
        {
          if (!g_hash_table_contains (refresh->copies_of, turn_names[i]))
            g_ptr_array_add (refresh->turn_copies, g_strdup (turn_names[i]));
          continue;
        }
      /* A turn this process advances is this process's to announce. */
      if (g_hash_table_contains (self->live, turn_names[i]))
        continue;
      /* Only a latest turn says anything of its session's entry. */
      session_id = natter_session_index_lookup_session_for_turn (self->index, turn_names[i]);
      g_ptr_array_add (refresh->turn_ids, g_strdup (turn_names[i]));
      g_ptr_array_add (refresh->turn_sessions, g_strdup (session_id));
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
      const char *session_id = g_ptr_array_index (refresh->read_names, i);

      if (natter_session_index_put_folded (self->index, session_id, g_ptr_array_index (refresh->entries, i),
                                           refresh->since))
        g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0, session_id);
    }
  for (guint i = 0; i < refresh->announced->len; i++)
    {
      const char *turn_id = g_ptr_array_index (refresh->announced, i);

      /* What the next message's history holds is the file as it is now,
       * not a transcript kept of it before another writer changed it. */
      natter_context_resolver_forget (natter_turn_runtime_get_context_resolver (self->runtime), turn_id);
      g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_TURN_CHANGED_ELSEWHERE], 0, turn_id);
    }
  return TRUE;
}
