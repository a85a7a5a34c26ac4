/* natter-sessions-versions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The versions of a message. Editing a sent message (or trying an answer
 * again) never changes the conversation: it branches at the turn before
 * the message (a fork, docs/sessions.md §9) and sends the new words
 * there. Every message that continues the same turn of the same session
 * is then a version of the others: the original, the one session `O`
 * shows after its turn `P`, and the first message of every branch whose
 * `parentSession` is `O` and whose `forkedFromTurnId` is `P` (a branch
 * without a fork point is a version of `O`'s first message). Once `O` is
 * deleted its branches stand alone and are versions of nothing. Nothing
 * is stored for this; it is read from the session logs.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"
#include <string.h>

#include "natter-log-read.h"
#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"
#include "natter-sync-conflict-name.h"

/**
 * natter_turn_version_free:
 * @version: (transfer full) (nullable): a version
 *
 * Frees @version.
 */
void
natter_turn_version_free (NatterTurnVersion *version)
{
  if (version == NULL)
    return;
  g_free (version->session_id);
  g_free (version->turn_id);
  g_free (version);
}

static NatterTurnVersion *
version_new (const char *session_id,
             const char *turn_id)
{
  NatterTurnVersion *version = g_new0 (NatterTurnVersion, 1);

  version->session_id = g_strdup (session_id);
  version->turn_id = g_strdup (turn_id);
  return version;
}

typedef struct
{
  NatterJsonlRepo *repo;
  char            *session_id;
  GPtrArray       *branches;   /* char*: sessions with a parent, as the index knows them */
} VersionsData;

static void
versions_data_free (VersionsData *data)
{
  g_clear_object (&data->repo);
  g_free (data->session_id);
  g_ptr_array_unref (data->branches);
  g_free (data);
}

static NatterSessionState *
read_session (NatterJsonlRepo  *repo,
              const char       *session_id,
              GCancellable     *cancellable,
              GError          **error)
{
  return natter_session_reduce_file_sync (repo, session_id, NULL, cancellable, error);
}

/* The turn of @owner's own turns that continues @previous (%NULL: the
 * start), or %NULL. */
static const char *
turn_after (NatterSessionState *owner,
            const char         *previous)
{
  const char *before = natter_session_state_get_forked_from_turn_id (owner);

  for (guint i = 0; i < natter_session_state_get_n_turns (owner); i++)
    {
      const NatterSessionTurn *turn = natter_session_state_get_turn (owner, i);

      if (g_strcmp0 (before, previous) == 0)
        return turn->turn_id;
      before = turn->turn_id;
    }
  return NULL;
}

/* Which message the versions of the message @k of @owner's own turns
 * continue: the session and turn they branch from. A branch's first
 * message is a version of the message after its fork point. */
static void
fork_point_of (NatterSessionState  *owner,
               guint                k,
               const char         **base,
               const char         **point)
{
  if (k == 0 && natter_session_state_get_parent_session (owner) != NULL)
    {
      *base = natter_session_state_get_parent_session (owner);
      *point = natter_session_state_get_forked_from_turn_id (owner);
      return;
    }
  *base = natter_session_state_get_session_id (owner);
  *point = k > 0 ? natter_session_state_get_turn (owner, k - 1)->turn_id : NULL;
}

/* Whether a session of @branches that is no conflict copy begins with
 * every own turn of @copy, in order: a version that went on from the
 * copy (docs/format.md §9.1), which shows all the copy shows. */
static gboolean
continued_elsewhere (GPtrArray          *branches,
                     NatterSessionState *copy)
{
  guint n = natter_session_state_get_n_turns (copy);

  for (guint b = 0; b < branches->len; b++)
    {
      NatterSessionState *branch = g_ptr_array_index (branches, b);
      guint i;

      if (natter_sync_conflict_is_candidate (natter_session_state_get_session_id (branch)) ||
          natter_session_state_get_n_turns (branch) < n)
        continue;
      for (i = 0; i < n; i++)
        if (g_strcmp0 (natter_session_state_get_turn (branch, i)->turn_id,
                       natter_session_state_get_turn (copy, i)->turn_id) != 0)
          break;
      if (i == n)
        return TRUE;
    }
  return FALSE;
}

static int
compare_ids (gconstpointer a,
             gconstpointer b)
{
  return g_strcmp0 (natter_session_state_get_session_id (*(NatterSessionState **) a),
                    natter_session_state_get_session_id (*(NatterSessionState **) b));
}

static void
versions_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  VersionsData *data = task_data;
  g_autoptr(GHashTable) states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify) natter_session_state_unref);
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();  /* NatterSessionState, the open session first */
  GHashTable *result = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  GError *error = NULL;

  /* The open session and the sessions it shows turns of. */
  for (const char *id = data->session_id; id != NULL && !g_hash_table_contains (states, id);)
    {
      NatterSessionState *state = read_session (data->repo, id, cancellable, &error);

      if (state == NULL)
        {
          /* A parent that is gone shows nothing: no versions there. */
          if (chain->len > 0)
            {
              g_clear_error (&error);
              break;
            }
          g_hash_table_unref (result);
          g_task_return_error (task, natter_sessions_session_error (error, id));
          return;
        }
      g_hash_table_insert (states, g_strdup (id), state);
      g_ptr_array_add (chain, state);
      id = natter_session_state_get_parent_session (state);
    }
  /* The branches of any of them: the candidates for versions. */
  for (guint i = 0; i < data->branches->len; i++)
    {
      const char *id = g_ptr_array_index (data->branches, i);
      NatterSessionState *state;

      if (g_hash_table_contains (states, id))
        continue;
      state = read_session (data->repo, id, cancellable, NULL);
      if (state != NULL)
        g_hash_table_insert (states, g_strdup (id), state);
    }

  /* Each message of each session of the chain, with its versions. */
  for (guint c = 0; c < chain->len; c++)
    {
      NatterSessionState *owner = g_ptr_array_index (chain, c);

      for (guint k = 0; k < natter_session_state_get_n_turns (owner); k++)
        {
          const char *turn_id = natter_session_state_get_turn (owner, k)->turn_id;
          GPtrArray *versions = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_turn_version_free);
          g_autoptr(GList) candidates = g_hash_table_get_values (states);
          g_autoptr(GPtrArray) branches = g_ptr_array_new ();
          NatterSessionState *base_state;
          const char *base;
          const char *point;
          const char *original;

          fork_point_of (owner, k, &base, &point);
          base_state = g_hash_table_lookup (states, base);
          /* The versions of a session that is gone stand alone, each a
           * conversation of its own, as the lists show them
           * (natter-session-families.c): no arrows between them. */
          if (base_state == NULL)
            {
              g_ptr_array_unref (versions);
              continue;
            }
          original = turn_after (base_state, point);
          if (original != NULL)
            g_ptr_array_add (versions, version_new (base, original));
          for (GList *l = candidates; l != NULL; l = l->next)
            if (g_strcmp0 (natter_session_state_get_parent_session (l->data), base) == 0 &&
                g_strcmp0 (natter_session_state_get_forked_from_turn_id (l->data), point) == 0 &&
                natter_session_state_get_n_turns (l->data) > 0)
              g_ptr_array_add (branches, l->data);
          /* Branches in the order they were made: ids sort so. */
          g_ptr_array_sort (branches, compare_ids);
          for (guint b = 0; b < branches->len; b++)
            {
              NatterSessionState *branch = g_ptr_array_index (branches, b);
              const char *first = natter_session_state_get_turn (branch, 0)->turn_id;

              /* Another device's copy that a new version went on from
               * (docs/format.md §9.1) is that version's message: shown
               * once, where it can go on, unless the copy is what is
               * open. */
              if (natter_sync_conflict_is_candidate (natter_session_state_get_session_id (branch)) &&
                  g_strcmp0 (natter_session_state_get_session_id (branch), data->session_id) != 0 &&
                  continued_elsewhere (branches, branch))
                continue;
              g_ptr_array_add (versions, version_new (natter_session_state_get_session_id (branch), first));
            }
          if (versions->len > 1)
            g_hash_table_insert (result, g_strdup (turn_id), versions);
          else
            g_ptr_array_unref (versions);
        }
    }
  g_task_return_pointer (task, result, (GDestroyNotify) g_hash_table_unref);
}

/**
 * natter_sessions_list_versions_async:
 * @self: the service
 * @session_id: the open session
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Finds the versions of every message @session_id shows (its own and
 * those it shows from the sessions it branched from): the messages that
 * continue the same turn of the same session, the original and each
 * branch made there (natter_sessions_fork_async()), in the order they
 * were written. Only reads; the branches are found through the index's
 * `parentSession`.
 */
void
natter_sessions_list_versions_async (NatterSessions      *self,
                                     const char          *session_id,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  VersionsData *data;
  gboolean related = FALSE;
  guint n;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_list_versions_async);
  data = g_new0 (VersionsData, 1);
  data->repo = g_object_ref (self->session_repo);
  data->session_id = g_strdup (session_id);
  data->branches = g_ptr_array_new_with_free_func (g_free);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->index));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->index), i);
      const char *parent = natter_session_index_entry_get_parent_session (entry);
      const char *id = natter_session_index_entry_get_session_id (entry);

      if (parent == NULL)
        continue;
      if (strcmp (id, session_id) == 0 || strcmp (parent, session_id) == 0)
        related = TRUE;
      if (natter_session_index_entry_get_error (entry) == NULL)
        g_ptr_array_add (data->branches, g_strdup (id));
    }
  g_task_set_task_data (task, data, (GDestroyNotify) versions_data_free);
  /* A session that neither branched nor was branched from has one
   * version of every message: knowing that needs no read (opening a
   * long conversation would otherwise read its file once more). */
  if (!related)
    {
      g_task_return_pointer (task, g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) g_ptr_array_unref),
                             (GDestroyNotify) g_hash_table_unref);
      return;
    }
  g_task_run_in_thread (task, versions_thread);
}

/**
 * natter_sessions_list_versions_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable) (element-type utf8 GPtrArray): turn
 *   id → its versions (#NatterTurnVersion, the original first), for the
 *   messages that have more than one; %NULL with
 *   %NATTER_SESSION_ERROR_NOT_FOUND or %NATTER_SESSION_ERROR_CORRUPT when
 *   the session itself cannot be read
 */
GHashTable *
natter_sessions_list_versions_finish (NatterSessions  *self,
                                      GAsyncResult    *result,
                                      GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_list_versions_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
