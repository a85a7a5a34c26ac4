/* natter-sync-conflict.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A conflict copy read as a version of its conversation (docs/format.md
 * §9). Two devices that continued one conversation while apart each
 * appended to the same log; Syncthing keeps one of the two under the
 * log's name and the other as `<id>.sync-conflict-….jsonl` beside it,
 * on both devices. Nothing is merged and nothing is written: the copy
 * is read as it is, and what it holds beyond the lines it shares with
 * the log is shown as another version of the conversation, the shape an
 * edit makes (docs/format.md §3.2): a session whose `parentSession` is
 * the conversation and whose `forkedFromTurnId` is the last turn both
 * share. Its identity is the copy's own name, which is the same on every
 * device, so every device reads the same versions from the same files
 * and none of them has anything to write.
 *
 * A copy of a turn file (two devices went on with one turn: both
 * resumed it, both answered its question) is read the same way: as a
 * version whose one turn is the copy, another answer to the same
 * message beside the one the conversation shows.
 */

#define G_LOG_DOMAIN "natter-store"

#include <string.h>

#include "natter-id.h"
#include "natter-jsonl-repo-private.h"
#include "natter-session-reducer-private.h"
#include "natter-session-schema.h"
#include "natter-store-error.h"
#include "natter-sync-conflict.h"
#include "natter-turn-reducer.h"

static gboolean
fold_session_event (JsonObject  *event,
                    gpointer     user_data,
                    GError     **error)
{
  /* The repository validated the line: the reducer's rules only. */
  return natter_session_state_apply_valid (user_data, event, error);
}

static gboolean
fold_turn_event (JsonObject  *event,
                 gpointer     user_data,
                 GError     **error)
{
  return natter_turn_state_apply (user_data, event, error);
}

/* The `session_created` of the version @name reads as: a version
 * carries its conversation's title (docs/format.md §3.2), also when
 * that is none yet. */
static JsonNode *
created_event (const char *name,
               const char *ts,
               const char *title,
               const char *cwd,
               const char *parent,
               const char *forked_from)
{
  if (title == NULL && parent != NULL)
    title = "";
  return natter_session_event_new_created (name, ts, title, cwd, parent, forked_from);
}

static JsonNode *
appended_event (const char              *name,
                const NatterSessionTurn *turn,
                const char              *turn_id,
                const char              *ts,
                gint64                   seq)
{
  return natter_session_event_new_turn_appended (name, ts, turn_id, seq, turn->agent_id, turn->model);
}

/* Folds what was built into the version's state, its last change
 * @updated_at. */
static NatterSessionState *
reduce_version (GPtrArray   *events,
                const char  *updated_at,
                GError     **error)
{
  NatterSessionState *state = natter_session_reduce_validated (events, error);

  if (state != NULL)
    {
      g_free (state->updated_at);
      state->updated_at = g_strdup (updated_at);
    }
  return state;
}

/* Where a version whose first turn follows the @k-th own turn of
 * @owner (0: before its first) branches off: after @owner's turn k − 1;
 * before the first, where @owner itself does, or at @owner's start. */
static void
fork_point (NatterSessionState  *owner,
            guint                k,
            const char         **parent,
            const char         **forked_from)
{
  if (k > 0)
    {
      *parent = natter_session_state_get_session_id (owner);
      *forked_from = natter_session_state_get_turn (owner, k - 1)->turn_id;
    }
  else if (natter_session_state_get_parent_session (owner) != NULL)
    {
      *parent = natter_session_state_get_parent_session (owner);
      *forked_from = natter_session_state_get_forked_from_turn_id (owner);
    }
  else
    {
      *parent = natter_session_state_get_session_id (owner);
      *forked_from = NULL;
    }
}

/* A copy of a session file: the turns it has beyond the lines it shares
 * with the log are the version's own. A log that cannot be read leaves
 * the copy standing alone, whole, as a deleted parent leaves its
 * versions (docs/format.md §3.2). */
static NatterSessionState *
session_copy_version (NatterJsonlRepo     *repo,
                      const char          *name,
                      const char          *base,
                      NatterSessionState  *copy,
                      GPtrArray           *copy_events,
                      GCancellable        *cancellable,
                      GError             **error)
{
  g_autoptr(GPtrArray) base_events = NULL;
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) local_error = NULL;
  const char *parent = natter_session_state_get_parent_session (copy);
  const char *forked_from = natter_session_state_get_forked_from_turn_id (copy);
  guint shared_turns = 0;

  base_events = natter_jsonl_repo_read_sync (repo, base, cancellable, &local_error);
  if (base_events == NULL && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  if (base_events != NULL)
    {
      /* The lines both devices had before they went apart. The copy
       * holds them byte for byte (the synchroniser copied the file), so
       * equal values are the same lines. */
      for (guint i = 0; i < copy_events->len && i < base_events->len; i++)
        {
          JsonNode *line = g_ptr_array_index (copy_events, i);

          if (!json_node_equal (line, g_ptr_array_index (base_events, i)))
            break;
          if (g_strcmp0 (json_object_get_string_member (json_node_get_object (line), "type"), "turn_appended") == 0)
            shared_turns++;
        }
      fork_point (copy, shared_turns, &parent, &forked_from);
    }

  g_ptr_array_add (events, created_event (name, natter_session_state_get_created_at (copy),
                                          natter_session_state_get_title (copy),
                                          natter_session_state_get_cwd (copy), parent, forked_from));
  for (guint i = shared_turns; i < natter_session_state_get_n_turns (copy); i++)
    {
      const NatterSessionTurn *turn = natter_session_state_get_turn (copy, i);

      g_ptr_array_add (events, appended_event (name, turn, turn->turn_id, turn->ts, i - shared_turns + 1));
    }
  return reduce_version (events, natter_session_state_get_updated_at (copy), error);
}

/* A copy of a turn file: a version of its conversation whose one turn is
 * the copy, made where the conversation has the turn. */
static NatterSessionState *
turn_copy_version (NatterJsonlRepo  *session_repo,
                   const char       *name,
                   const char       *base,
                   GCancellable     *cancellable,
                   GError          **error)
{
  g_autoptr(NatterJsonlRepo) turn_repo = natter_turn_repo_new (session_repo->storage_dir);
  g_autoptr(NatterTurnState) turn = natter_turn_state_new ();
  g_autoptr(NatterSessionState) owner = natter_session_state_new ();
  g_autoptr(GPtrArray) turn_events = NULL;
  g_autoptr(GPtrArray) owner_events = NULL;
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  JsonObject *definition;
  JsonNode *session_node;
  const char *session_id;
  const char *created;
  const char *last;
  const char *parent;
  const char *forked_from;
  guint k;

  turn_events = natter_jsonl_repo_read_fold_sync (turn_repo, name, fold_turn_event, turn, cancellable, error);
  if (turn_events == NULL)
    return NULL;
  definition = natter_turn_state_get_definition (turn);
  session_node = json_object_get_member (definition, "sessionId");
  if (session_node == NULL || !JSON_NODE_HOLDS_VALUE (session_node))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                   "The conflict copy %s.jsonl is of turn %s, which belongs to no conversation", name, base);
      return NULL;
    }
  session_id = json_node_get_string (session_node);
  owner_events = natter_jsonl_repo_read_fold_sync (session_repo, session_id, fold_session_event, owner, cancellable,
                                                   error);
  if (owner_events == NULL)
    {
      g_prefix_error (error, "The conflict copy %s.jsonl is of a turn of session %s, which cannot be read: ",
                      name, session_id);
      return NULL;
    }
  for (k = 0; k < natter_session_state_get_n_turns (owner); k++)
    if (strcmp (natter_session_state_get_turn (owner, k)->turn_id, base) == 0)
      break;
  if (k == natter_session_state_get_n_turns (owner))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                   "The conflict copy %s.jsonl is of turn %s, which is not one of session %s's turns",
                   name, base, session_id);
      return NULL;
    }

  fork_point (owner, k, &parent, &forked_from);
  created = json_object_get_string_member (definition, "ts");
  last = json_object_get_string_member (json_node_get_object (g_ptr_array_index (turn_events, turn_events->len - 1)),
                                        "ts");
  g_ptr_array_add (events, created_event (name, created, natter_session_state_get_title (owner),
                                          natter_session_state_get_cwd (owner), parent, forked_from));
  /* The version's turn is the copy itself, read under its own name. */
  g_ptr_array_add (events, appended_event (name, natter_session_state_get_turn (owner, k), name, created, 1));
  return reduce_version (events, last, error);
}

/**
 * natter_sync_conflict_reduce_sync:
 * @session_repo: the session repository (natter_session_repo_new())
 * @name: a conflict copy's name (natter_sync_conflict_validate()), of a
 *   session file or of a turn file
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the conflict copy @name as the version of its conversation that
 * it is (docs/format.md §9.1, §9.2): the state of a session whose id is
 * @name, a version (`parentSession`, `forkedFromTurnId` and the title of
 * its conversation) whose own turns are those the copy holds beyond what
 * it shares with the log; for a turn file's copy, the one turn is the
 * copy, named @name. The copy is read strictly, as any log
 * (docs/format.md §2), and only read. Blocks.
 *
 * Returns: (transfer full) (nullable): the version's state; else %NULL
 *   with %NATTER_STORE_ERROR_INVALID_ID (@name is not a conflict copy's),
 *   NOT_FOUND (there is no such copy), the errors of a strict read of the
 *   copy, or INVARIANT (a turn's copy of no conversation's turn); or
 *   %G_IO_ERROR_CANCELLED.
 */
NatterSessionState *
natter_sync_conflict_reduce_sync (NatterJsonlRepo  *session_repo,
                                  const char       *name,
                                  GCancellable     *cancellable,
                                  GError          **error)
{
  g_autoptr(NatterSessionState) copy = natter_session_state_new ();
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GError) turn_error = NULL;
  char base[NATTER_ID_LENGTH + 1];
  NatterSessionState *version;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (session_repo), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!natter_sync_conflict_validate (name, error))
    return NULL;
  g_strlcpy (base, name, sizeof base);

  events = natter_jsonl_repo_read_fold_sync (session_repo, name, fold_session_event, copy, cancellable, &local_error);
  if (events != NULL)
    return session_copy_version (session_repo, name, base, copy, events, cancellable, error);
  if (!g_error_matches (local_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  /* Not a session's copy: a turn's, or none at all. */
  version = turn_copy_version (session_repo, name, base, cancellable, &turn_error);
  if (version == NULL)
    g_propagate_error (error, g_error_matches (turn_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND) ||
                              g_error_matches (turn_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED)
                              ? g_steal_pointer (&local_error) : g_steal_pointer (&turn_error));
  return version;
}
