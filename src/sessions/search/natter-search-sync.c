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

#include <errno.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "natter-log-read.h"
#include "natter-search-index-private.h"
#include "natter-session-reducer.h"
#include "natter-turn-scan.h"

/**
 * natter_search_sync_lower_priority: (skip)
 *
 * Lowers the calling thread's priority. The index is a cache that may
 * take a minute to build: on a machine with few cores its threads must
 * not take a core from the main thread, whose every late frame the user
 * sees. A lower priority for this thread alone (Linux schedules threads,
 * and nice applies to one) lets the main thread run first whenever both
 * want a core.
 */
void
natter_search_sync_lower_priority (void)
{
#ifdef __linux__
  if (setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), 10) != 0)
    g_debug ("A search index thread keeps its priority: %s", g_strerror (errno));
#endif
}

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

/* One session as read for the index, before it is written: the reading
 * (parsing and validating JSON, a third of a build) runs on its own
 * thread while the worker writes the session before it to SQLite. */
typedef struct
{
  char              *session_id;
  NatterSearchStamp  stamp;       /* the session file's, taken before it is read */
  GHashTable        *known;       /* turn id → NatterSearchTurnRecord indexed so far */
  /* Filled by the read: */
  gboolean           damaged;
  char              *latest_turn_id;
  char              *parent_session;
  gboolean           parent_gone; /* its file was not there: its turns are this one's */
  GPtrArray         *turns;       /* TurnText: the turns to index (again) */
  GHashTable        *shown;       /* the ids of every turn the session shows */
  gboolean           done;        /* under the pipeline's lock */
} SessionText;

typedef struct
{
  char              *turn_id;
  gboolean           indexed_before;  /* the index may hold a row of it */
  NatterSearchStamp  stamp;
  gboolean           readable;        /* the file read (missing or damaged: not) */
  char              *previous_turn_id;
  GString           *user;
  GString           *answer;
} TurnText;

static void
turn_text_free (TurnText *turn)
{
  g_free (turn->turn_id);
  g_free (turn->previous_turn_id);
  g_string_free (turn->user, TRUE);
  g_string_free (turn->answer, TRUE);
  g_free (turn);
}

static void
session_text_free (SessionText *text)
{
  if (text == NULL)
    return;
  g_free (text->session_id);
  g_clear_pointer (&text->known, g_hash_table_unref);
  g_free (text->latest_turn_id);
  g_free (text->parent_session);
  g_clear_pointer (&text->turns, g_ptr_array_unref);
  g_clear_pointer (&text->shown, g_hash_table_unref);
  g_free (text);
}

/* Reads the words of @turn_id, and its file's stamp as it was read; or
 * takes @stamp (nullable) when the read could not tell it. @earlier:
 * whether a later turn of the session follows it. */
static TurnText *
read_turn (NatterJsonlCursor       *cursor,
           const char              *turn_id,
           const NatterSearchStamp *stamp,
           gboolean                 earlier)
{
  TurnText *turn = g_new0 (TurnText, 1);
  g_autoptr(GError) local_error = NULL;
  NatterFileIdentity identity;
  gboolean identity_known = FALSE;
  gboolean ended = FALSE;

  turn->turn_id = g_strdup (turn_id);
  turn->user = g_string_new (NULL);
  turn->answer = g_string_new (NULL);
  /* Tree-free for the turns nearly every conversation is made of
   * (natter-turn-scan.c); the same words as the full read's. */
  turn->readable = natter_turn_scan_text_at (cursor, turn_id, &identity, &identity_known, turn->user, turn->answer,
                                             &ended, &turn->previous_turn_id, NULL, &local_error);
  if (!turn->readable)
    {
      /* A missing or damaged turn has no words to find: it is recorded
       * as unreadable, so that a search names its conversation rather
       * than miss its words without a word. Its stamp is kept, so it is
       * read again only once it changes. */
      g_debug ("not indexing turn %s: %s", turn_id, local_error->message);
    }
  else if (earlier && !ended)
    {
      /* A turn is only gone on from once it has ended: an earlier one
       * without its end lost its last lines, and the words of its
       * answer with them (docs/runtime.md §11). Damaged as a torn file
       * is, and named by a search the same way. */
      g_debug ("not indexing turn %s: its file ends before the turn does", turn_id);
      turn->readable = FALSE;
      g_string_truncate (turn->user, 0);
      g_string_truncate (turn->answer, 0);
    }
  /* A history that does not read further is not walked further: the
   * window shows none of it then. */
  if (!turn->readable)
    g_clear_pointer (&turn->previous_turn_id, g_free);
  if (identity_known && identity.exists)
    {
      turn->stamp.size = (gint64) identity.size;
      turn->stamp.mtime_ns = identity.mtime_ns;
    }
  else if (identity_known)
    turn->stamp.size = turn->stamp.mtime_ns = -1;
  else if (stamp != NULL)
    turn->stamp = *stamp;
  else
    stamp_file (natter_jsonl_cursor_get_repo (cursor), turn_id, &turn->stamp);
  return turn;
}

/* Notes that @text's session shows @turn_id, and reads the turn unless
 * the index holds it as its file is now. @earlier: whether a later turn
 * follows it. Returns the turn its context refers to (owned by @text),
 * or NULL at the start of the history or where it does not read. */
static const char *
visit_turn (NatterJsonlCursor *turn_cursor,
            SessionText       *text,
            const char        *turn_id,
            gboolean           earlier)
{
  NatterSearchTurnRecord *known = g_hash_table_lookup (text->known, turn_id);
  NatterSearchStamp turn_stamp;
  TurnText *read;

  g_hash_table_add (text->shown, g_strdup (turn_id));
  /* A turn indexed before is read again only when its file changed;
   * a new one (every turn, in a build) takes its stamp from its read. */
  if (known != NULL)
    {
      stamp_file (natter_jsonl_cursor_get_repo (turn_cursor), turn_id, &turn_stamp);
      if (stamps_equal (&known->stamp, &turn_stamp))
        return known->previous_turn_id;
    }
  read = read_turn (turn_cursor, turn_id, known != NULL ? &turn_stamp : NULL, earlier);
  read->indexed_before = known != NULL;
  /* A turn listed twice is a turn indexed before the second time. */
  if (known == NULL)
    {
      NatterSearchTurnRecord *record = g_new0 (NatterSearchTurnRecord, 1);

      record->stamp = read->stamp;
      record->previous_turn_id = g_strdup (read->previous_turn_id);
      g_hash_table_insert (text->known, g_strdup (turn_id), record);
    }
  g_ptr_array_add (text->turns, read);
  return read->previous_turn_id;
}

/* A chain longer than this is taken for a loop in damaged files, as the
 * window takes it (natter_sessions_read_history_async()). */
#define MAX_INHERITED_TURNS 100000

/* The turns @state shows above its own from a parent that was deleted
 * (docs/sessions.md §9.4): the window reads them from the turn files,
 * from the fork point back along each context's reference, and the
 * model still receives them, so they are found as this session's. A
 * parent that is there keeps them as its own: a search finds them
 * there, as it always did. */
static void
read_inherited (NatterJsonlRepo    *session_repo,
                NatterJsonlCursor  *turn_cursor,
                NatterSessionState *state,
                SessionText        *text)
{
  const char *next = natter_session_state_get_forked_from_turn_id (state);
  gboolean earlier = natter_session_state_get_n_turns (state) > 0;
  NatterSearchStamp parent_stamp;

  text->parent_session = g_strdup (natter_session_state_get_parent_session (state));
  if (text->parent_session == NULL)
    return;
  stamp_file (session_repo, text->parent_session, &parent_stamp);
  text->parent_gone = parent_stamp.size < 0;
  for (guint n = 0; text->parent_gone && next != NULL && n < MAX_INHERITED_TURNS; n++)
    {
      if (g_hash_table_contains (text->shown, next))
        break;
      next = visit_turn (turn_cursor, text, next, earlier);
      earlier = TRUE;
    }
}

/* Reads @text's session file and each turn it shows whose file changed
 * since it was indexed (by @turn_cursor, of the turn repository). Touches
 * no database: runs on any thread. */
static void
read_session (NatterJsonlRepo   *session_repo,
              NatterJsonlCursor *turn_cursor,
              SessionText       *text)
{
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) local_error = NULL;
  guint n_turns;

  text->turns = g_ptr_array_new_with_free_func ((GDestroyNotify) turn_text_free);
  text->shown = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  state = natter_session_reduce_file_sync (session_repo, text->session_id, NULL, NULL, &local_error);
  if (state == NULL)
    {
      /* A damaged session shows as damaged in the list; its words are
       * not offered as if it were whole. */
      g_debug ("not indexing session %s: %s", text->session_id, local_error->message);
      text->damaged = TRUE;
      return;
    }
  text->latest_turn_id = g_strdup (natter_session_state_get_latest_turn_id (state));
  n_turns = natter_session_state_get_n_turns (state);
  for (guint i = 0; i < n_turns; i++)
    visit_turn (turn_cursor, text, natter_session_state_get_turn (state, i)->turn_id, i + 1 < n_turns);
  read_inherited (session_repo, turn_cursor, state, text);
}

/* Writes what read_session() found into the index. */
static gboolean
write_session (NatterSearchSync  *sync,
               SessionText       *text,
               GError           **error)
{
  GHashTableIter iter;
  gpointer turn_id;

  if (text->damaged)
    return natter_search_db_remove_session (sync->db, text->session_id, error) &&
           natter_search_db_put_session (sync->db, text->session_id, &text->stamp, NULL, NULL, FALSE, error);
  for (guint i = 0; i < text->turns->len; i++)
    {
      TurnText *turn = g_ptr_array_index (text->turns, i);

      if (!natter_search_db_put_turn (sync->db, text->session_id, turn->turn_id, turn->indexed_before, &turn->stamp,
                                      turn->readable, turn->previous_turn_id, turn->user->str, turn->answer->str,
                                      error))
        return FALSE;
    }
  /* Turns it no longer shows: those of a deleted parent that is there
   * again, found there from now on. */
  g_hash_table_iter_init (&iter, text->known);
  while (g_hash_table_iter_next (&iter, &turn_id, NULL))
    if (!g_hash_table_contains (text->shown, turn_id) &&
        !natter_search_db_remove_turn (sync->db, text->session_id, turn_id, error))
      return FALSE;
  return natter_search_db_put_session (sync->db, text->session_id, &text->stamp, text->latest_turn_id,
                                       text->parent_session, text->parent_gone, error);
}

static SessionText *
session_text_new (const char              *session_id,
                  const NatterSearchStamp *stamp)
{
  SessionText *text = g_new0 (SessionText, 1);

  text->session_id = g_strdup (session_id);
  text->stamp = *stamp;
  return text;
}

/* Before @text is read: the turn stamps the index holds for it. */
static gboolean
load_known (NatterSearchSync  *sync,
            SessionText       *text,
            GError           **error)
{
  text->known = natter_search_db_load_turns (sync->db, text->session_id, error);
  return text->known != NULL;
}

/* Reads @session_id's file (its stamp taken before, as @stamp) and
 * indexes each turn it shows whose file changed since it was indexed. */
static gboolean
index_session (NatterSearchSync         *sync,
               const char               *session_id,
               const NatterSearchStamp  *stamp,
               GError                  **error)
{
  SessionText *text = session_text_new (session_id, stamp);
  gboolean ok = load_known (sync, text, error);

  if (ok)
    {
      g_autoptr(NatterJsonlCursor) turn_cursor = natter_jsonl_cursor_new (sync->turn_repo);

      read_session (sync->session_repo, turn_cursor, text);
      ok = write_session (sync, text, error);
    }
  session_text_free (text);
  return ok;
}

/* Brings @session_id up to date as its files are now: the changed ones
 * read, or its rows removed when its file is gone. */
static gboolean
sync_one (NatterSearchSync  *sync,
          const char        *session_id,
          GError           **error)
{
  NatterSearchStamp stamp;

  stamp_file (sync->session_repo, session_id, &stamp);
  if (stamp.size < 0)
    return natter_search_db_remove_session (sync->db, session_id, error);
  return index_session (sync, session_id, &stamp, error);
}

/* The sessions branched from @parent_session (NULL: from any) that were
 * indexed with the turns they show from it while it is there, or
 * without them while it is gone, indexed again as they show now. */
static gboolean
sync_heirs (NatterSearchSync  *sync,
            const char        *parent_session,
            GError           **error)
{
  g_auto(GStrv) heirs = natter_search_db_list_stale_heirs (sync->db, parent_session, error);

  if (heirs == NULL)
    return FALSE;
  for (guint i = 0; heirs[i] != NULL; i++)
    if (!sync_one (sync, heirs[i], error))
      return FALSE;
  return TRUE;
}

/* The reading thread of natter_search_sync_all() and what it shares
 * with the worker. */
typedef struct
{
  NatterJsonlRepo   *session_repo;
  NatterJsonlCursor *turn_cursor;   /* the reading thread's */
  GMutex             lock;
  GCond              cond;
} Pipeline;

static void
pipeline_read_cb (gpointer data,
                  gpointer user_data)
{
  SessionText *text = data;
  Pipeline *pipeline = user_data;

  /* The pool's one thread is its own (exclusive), so this stays with
   * it; a system call per session costs nothing beside reading it. */
  natter_search_sync_lower_priority ();
  read_session (pipeline->session_repo, pipeline->turn_cursor, text);
  g_mutex_lock (&pipeline->lock);
  text->done = TRUE;
  g_cond_broadcast (&pipeline->cond);
  g_mutex_unlock (&pipeline->lock);
}

/* How many sessions the reading thread may be ahead of the writing:
 * enough to keep both busy, few enough that their texts take little
 * memory. */
#define READ_AHEAD 32

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
  g_autoptr(GPtrArray) texts = NULL;
  Pipeline pipeline = { sync->session_repo, NULL };
  GThreadPool *pool;
  GHashTableIter iter;
  gpointer key;
  guint n_sessions;
  guint batch = MAX (sync->batch, 1);
  guint next_read = 0;
  guint n_reading = 0;
  gboolean ok = TRUE;
  guint i;

  ids = natter_jsonl_repo_list_ids_sync (sync->session_repo, NULL, error);
  if (ids == NULL)
    return FALSE;
  n_sessions = g_strv_length (ids);
  records = natter_search_db_load_sessions (sync->db, error);
  if (records == NULL)
    return FALSE;

  /* What changed, from the stamps alone: the sessions to read. */
  texts = g_ptr_array_new_full (n_sessions, (GDestroyNotify) session_text_free);
  for (i = 0; i < n_sessions; i++)
    {
      NatterSearchStamp stamp;

      stamp_file (sync->session_repo, ids[i], &stamp);
      g_ptr_array_add (texts, session_unchanged (sync, g_hash_table_lookup (records, ids[i]), &stamp)
                                ? NULL : session_text_new (ids[i], &stamp));
      g_hash_table_remove (records, ids[i]);
    }

  if (!natter_search_db_begin (sync->db, error))
    return FALSE;
  g_mutex_init (&pipeline.lock);
  g_cond_init (&pipeline.cond);
  pipeline.turn_cursor = natter_jsonl_cursor_new (sync->turn_repo);
  /* Exclusive: a thread of the shared pool would keep the low priority
   * when GLib lent it to other work. NULL when no thread could be made:
   * then this thread reads too. */
  pool = g_thread_pool_new (pipeline_read_cb, &pipeline, 1, TRUE, NULL);
  for (i = 0; ok && i < n_sessions; i++)
    {
      SessionText *text = g_ptr_array_index (texts, i);

      if (g_atomic_int_get (sync->quit))
        break;
      if (i > 0 && i % batch == 0 && !(ok = commit_batch (sync, i, n_sessions, TRUE, error)))
        break;
      if (text == NULL)
        continue;
      for (next_read = MAX (next_read, i); ok && next_read < n_sessions && n_reading < READ_AHEAD; next_read++)
        {
          SessionText *ahead = g_ptr_array_index (texts, next_read);

          if (ahead == NULL)
            continue;
          /* Read by this thread's connection, between two writes. */
          if (!(ok = load_known (sync, ahead, error)))
            break;
          if (pool != NULL)
            g_thread_pool_push (pool, ahead, NULL);
          else
            pipeline_read_cb (ahead, &pipeline);
          n_reading++;
        }
      if (!ok)
        break;
      g_mutex_lock (&pipeline.lock);
      while (!text->done)
        g_cond_wait (&pipeline.cond, &pipeline.lock);
      g_mutex_unlock (&pipeline.lock);
      n_reading--;
      ok = write_session (sync, text, error);
      g_clear_pointer (&g_ptr_array_index (texts, i), session_text_free);
    }
  /* Whatever is still queued is dropped; what is being read is waited
   * for, before its text is freed with the others. */
  if (pool != NULL)
    g_thread_pool_free (pool, TRUE, TRUE);
  natter_jsonl_cursor_free (pipeline.turn_cursor);
  g_mutex_clear (&pipeline.lock);
  g_cond_clear (&pipeline.cond);
  if (!ok)
    return FALSE;
  if (i < n_sessions)
    return commit_batch (sync, i, n_sessions, FALSE, error);

  /* Deleted while Natter was not running. */
  g_hash_table_iter_init (&iter, records);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!natter_search_db_remove_session (sync->db, key, error))
      return FALSE;
  /* With every session in: the versions and branches of one deleted
   * while Natter was not running (their files unchanged) take its
   * turns, and those of one back again give them up. */
  if (!sync_heirs (sync, NULL, error))
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
 * and indexed, or, when its file is gone, its rows are removed. The
 * sessions branched from it then show its turns from the turn files, or
 * (when it is back) no longer do: they are indexed again, so that what
 * each shows is found in it.
 *
 * Returns: %TRUE on success; else %FALSE with a %NATTER_SEARCH_DB_ERROR
 */
gboolean
natter_search_sync_session (NatterSearchSync  *sync,
                            const char        *session_id,
                            GError           **error)
{
  if (!natter_search_db_begin (sync->db, error) ||
      !sync_one (sync, session_id, error) ||
      !sync_heirs (sync, session_id, error))
    return FALSE;
  return natter_search_db_commit (sync->db, error);
}

/**
 * natter_search_sync_is_current: (skip)
 * @sync: a view whose @db only reads (@quit, @batch and @committed are
 *   not used)
 * @out_current: (out): whether the index describes every session on
 *   disk as it is now
 * @error: return location for a #GError
 *
 * The start-up check's comparison without its work: whether every
 * session file on disk, with its latest turn file, has the size and
 * mtime the index recorded when it read them, and the index holds no
 * session that is gone. For a process that reads the writer's index
 * (docs/sessions.md §8.3), to tell a search that may miss what the
 * writer has yet to index. Writes nothing; any thread.
 *
 * Returns: %TRUE with *@out_current set; else %FALSE with a
 *   %NATTER_SEARCH_DB_ERROR or the error listing the session files
 */
gboolean
natter_search_sync_is_current (NatterSearchSync  *sync,
                               gboolean          *out_current,
                               GError           **error)
{
  g_auto(GStrv) ids = NULL;
  g_autoptr(GHashTable) records = NULL;

  *out_current = FALSE;
  ids = natter_jsonl_repo_list_ids_sync (sync->session_repo, NULL, error);
  if (ids == NULL)
    return FALSE;
  records = natter_search_db_load_sessions (sync->db, error);
  if (records == NULL)
    return FALSE;
  for (guint i = 0; ids[i] != NULL; i++)
    {
      NatterSearchStamp stamp;

      stamp_file (sync->session_repo, ids[i], &stamp);
      if (!session_unchanged (sync, g_hash_table_lookup (records, ids[i]), &stamp))
        return TRUE;
      g_hash_table_remove (records, ids[i]);
    }
  *out_current = g_hash_table_size (records) == 0;
  return TRUE;
}
