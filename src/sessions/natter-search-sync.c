/* natter-search-sync.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Bringing the search index up to date with the logs, on the index's
 * worker thread. A file is read only when its size or mtime differs from
 * what the index recorded when it last read it: the start-up check stats
 * each session file and its latest turn file (the only turn that can
 * still grow), and reads nothing else of an unchanged session.
 */

#define G_LOG_DOMAIN "natter-search"

#include "config.h"

#include <sys/stat.h>

#include "natter-log-read.h"
#include "natter-search-index-private.h"
#include "natter-session-reducer.h"
#include "natter-turn-reducer.h"

static void
stamp_file (NatterJsonlRepo   *repo,
            const char        *id,
            NatterSearchStamp *out)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (repo, id, NULL);
  struct stat st;

  /* A file that is not there has a stamp of its own, so that its
   * appearance later is a change. */
  out->size = -1;
  out->mtime_ns = -1;
  if (file == NULL || stat (g_file_peek_path (file), &st) != 0)
    return;
  out->size = st.st_size;
  out->mtime_ns = (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
}

static gboolean
stamps_equal (const NatterSearchStamp *a,
              const NatterSearchStamp *b)
{
  return a->size == b->size && a->mtime_ns == b->mtime_ns;
}

/* The text parts of a message: `content` is a string or an array of
 * parts, of which only `text` parts are words a person wrote or read. */
static void
append_message_text (GString    *out,
                     JsonObject *message)
{
  JsonNode *content;

  if (message == NULL || (content = json_object_get_member (message, "content")) == NULL)
    return;
  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    {
      if (out->len > 0)
        g_string_append_c (out, '\n');
      g_string_append (out, json_node_get_string (content));
      return;
    }
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (content)); i++)
    {
      JsonNode *node = json_array_get_element (json_node_get_array (content), i);
      JsonObject *part = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;

      if (part != NULL && g_strcmp0 (json_object_get_string_member_with_default (part, "type", NULL), "text") == 0)
        {
          if (out->len > 0)
            g_string_append_c (out, '\n');
          g_string_append (out, json_object_get_string_member_with_default (part, "text", ""));
        }
    }
}

static gboolean
index_turn (NatterSearchSync         *sync,
            const char               *session_id,
            const char               *turn_id,
            const NatterSearchStamp  *stamp,
            GError                  **error)
{
  g_autoptr(GString) user = g_string_new (NULL);
  g_autoptr(GString) answer = g_string_new (NULL);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) local_error = NULL;

  state = natter_turn_reduce_file_sync (sync->turn_repo, turn_id, NULL, NULL, &local_error);
  if (state != NULL)
    {
      JsonObject *definition = natter_turn_state_get_definition (state);

      append_message_text (user, json_object_get_object_member (definition, "input"));
      /* Every answer the model gave on the way, not only the final one:
       * the user read them all. */
      for (guint i = 0; i < natter_turn_state_get_n_model_calls (state); i++)
        append_message_text (answer, natter_turn_model_call_get_message (natter_turn_state_get_model_call (state, i)));
    }
  else
    {
      /* A missing or damaged turn has no words to find; the window says
       * what is wrong with it. Its stamp is kept, so it is read again
       * only once it changes. */
      g_debug ("not indexing turn %s: %s", turn_id, local_error->message);
    }
  return natter_search_db_put_turn (sync->db, session_id, turn_id, stamp, user->str, answer->str, error);
}

/* Reads @session_id's file (its stamp taken before, as @stamp) and
 * indexes each of its turns whose file changed since it was indexed. */
static gboolean
index_session (NatterSearchSync         *sync,
               const char               *session_id,
               const NatterSearchStamp  *stamp,
               GError                  **error)
{
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GHashTable) indexed = NULL;
  g_autoptr(GError) local_error = NULL;

  state = natter_session_reduce_file_sync (sync->session_repo, session_id, NULL, NULL, &local_error);
  if (state == NULL)
    {
      /* A damaged session shows as damaged in the list; its words are
       * not offered as if it were whole. */
      g_debug ("not indexing session %s: %s", session_id, local_error->message);
      return natter_search_db_remove_session (sync->db, session_id, error) &&
             natter_search_db_put_session (sync->db, session_id, stamp, NULL, error);
    }

  indexed = natter_search_db_load_turn_stamps (sync->db, session_id, error);
  if (indexed == NULL)
    return FALSE;
  for (guint i = 0; i < natter_session_state_get_n_turns (state); i++)
    {
      const NatterSessionTurn *turn = natter_session_state_get_turn (state, i);
      NatterSearchStamp *known = g_hash_table_lookup (indexed, turn->turn_id);
      NatterSearchStamp turn_stamp;

      stamp_file (sync->turn_repo, turn->turn_id, &turn_stamp);
      if (known != NULL && stamps_equal (known, &turn_stamp))
        continue;
      if (!index_turn (sync, session_id, turn->turn_id, &turn_stamp, error))
        return FALSE;
    }
  return natter_search_db_put_session (sync->db, session_id, stamp,
                                       natter_session_state_get_latest_turn_id (state), error);
}

/* Whether @record still describes the session file stamped @stamp and
 * its latest turn file: then nothing of the session is read. */
static gboolean
session_unchanged (NatterSearchSync                *sync,
                   const NatterSearchSessionRecord *record,
                   const NatterSearchStamp         *stamp)
{
  NatterSearchStamp latest;

  if (record == NULL || !stamps_equal (&record->stamp, stamp))
    return FALSE;
  if (record->latest_turn_id == NULL)
    return TRUE;
  stamp_file (sync->turn_repo, record->latest_turn_id, &latest);
  return stamps_equal (&record->latest_turn, &latest);
}

/* Makes what was written so far searchable and says how far the check
 * has come. */
static gboolean
commit_batch (NatterSearchSync  *sync,
              guint              n_checked,
              guint              n_sessions,
              gboolean           go_on,
              GError           **error)
{
  if (!natter_search_db_commit (sync->db, error))
    return FALSE;
  if (sync->committed != NULL)
    sync->committed (sync->committed_data, n_checked, n_sessions);
  return !go_on || natter_search_db_begin (sync->db, error);
}

/**
 * natter_search_sync_all: (skip)
 * @sync: the worker's view
 * @error: return location for a #GError
 *
 * The start-up check, and the whole build of an empty index: every
 * session file on disk is compared by size and mtime (with its latest
 * turn file) to what the index recorded, and only changed or new ones
 * are read; sessions that are no longer on disk leave the index.
 * Commits every @sync->batch sessions gone through, and reports each
 * commit to @sync->committed. Stops early, with what it wrote
 * committed, when *@sync->quit becomes set.
 *
 * Returns: %TRUE on success; else %FALSE with a %NATTER_SEARCH_DB_ERROR
 *   or the error listing the session files
 */
gboolean
natter_search_sync_all (NatterSearchSync  *sync,
                        GError           **error)
{
  g_auto(GStrv) ids = NULL;
  g_autoptr(GHashTable) records = NULL;
  GHashTableIter iter;
  gpointer key;
  guint n_sessions;
  guint batch = MAX (sync->batch, 1);
  guint i;

  ids = natter_jsonl_repo_list_ids_sync (sync->session_repo, NULL, error);
  if (ids == NULL)
    return FALSE;
  n_sessions = g_strv_length (ids);
  records = natter_search_db_load_sessions (sync->db, error);
  if (records == NULL || !natter_search_db_begin (sync->db, error))
    return FALSE;

  for (i = 0; i < n_sessions; i++)
    {
      NatterSearchStamp stamp;

      if (g_atomic_int_get (sync->quit))
        return commit_batch (sync, i, n_sessions, FALSE, error);
      if (i > 0 && i % batch == 0 && !commit_batch (sync, i, n_sessions, TRUE, error))
        return FALSE;
      stamp_file (sync->session_repo, ids[i], &stamp);
      if (!session_unchanged (sync, g_hash_table_lookup (records, ids[i]), &stamp) &&
          !index_session (sync, ids[i], &stamp, error))
        return FALSE;
      g_hash_table_remove (records, ids[i]);
    }

  /* Deleted while Natter was not running. */
  g_hash_table_iter_init (&iter, records);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!natter_search_db_remove_session (sync->db, key, error))
      return FALSE;
  return commit_batch (sync, n_sessions, n_sessions, FALSE, error);
}

/**
 * natter_search_sync_session: (skip)
 * @sync: the worker's view
 * @session_id: a session that changed
 * @error: return location for a #GError
 *
 * The write-through of one session: its new or grown turn files are read
 * and indexed, or, when its file is gone, its rows are removed.
 *
 * Returns: %TRUE on success; else %FALSE with a %NATTER_SEARCH_DB_ERROR
 */
gboolean
natter_search_sync_session (NatterSearchSync  *sync,
                            const char        *session_id,
                            GError           **error)
{
  NatterSearchStamp stamp;

  if (!natter_search_db_begin (sync->db, error))
    return FALSE;
  stamp_file (sync->session_repo, session_id, &stamp);
  if (stamp.size < 0)
    {
      if (!natter_search_db_remove_session (sync->db, session_id, error))
        return FALSE;
    }
  else if (!index_session (sync, session_id, &stamp, error))
    return FALSE;
  return natter_search_db_commit (sync->db, error);
}
