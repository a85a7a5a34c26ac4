/* natter-search-index.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Full-text search over every session's user messages and answers. The
 * words live in an SQLite FTS5 file (natter-search-db.c) that is a cache
 * in the sense of docs/sessions.md §8.4: missing, stale or damaged
 * means rebuilt from the logs. One worker thread owns the writing
 * connection and does all file work (natter-search-sync.c): the start-up
 * check, the build, and the write-through of each session the service
 * reports changed. Queries use their own connection and read what is
 * committed, so a search during a build finds what is indexed so far and
 * says that indexing is still going on.
 *
 * Damage may show anywhere: when the file is opened, in a job of the
 * worker, or only in a search (a damaged page of words that no job
 * reads). Wherever it shows, the file is thrown away and built again
 * by the worker (a search asks for that with JOB_REBUILD and finds
 * nothing meanwhile, saying that indexing goes on), so that a damaged
 * cache never stays.
 *
 * The file is the data directory writer's (docs/sessions.md §8.3): a
 * process whose repositories refuse writes starts no worker, and its
 * searches read the writer's file as it is, never build, remove or
 * replace it, and open it so that SQLite makes and writes nothing beside
 * it either (NATTER_SEARCH_DB_OPEN_FOREIGN); one that finds it damaged
 * says so and leaves the rebuild to the writer, and one that finds none
 * says the writer is still building it. A rebuild replaces the file (a
 * new inode), so a query connection is opened again when the file at
 * the path is no longer the one it reads: a search in another process
 * follows the writer's new file rather than the removed one.
 */

#define G_LOG_DOMAIN "natter-search"

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "natter-search-index-private.h"
#include "natter-session-index.h"

/* Sessions gone through per transaction of a check or build: a query
 * sees the index grow, and the progress move, in steps this size. */
#define BATCH 64

typedef enum
{
  JOB_SYNC_ALL,
  JOB_SYNC_SESSION,
  /* A search found the file of @generation damaged: it is thrown away
   * (unless it was replaced since) and everything is indexed again. */
  JOB_REBUILD,
} JobKind;

typedef struct
{
  JobKind  kind;
  char    *session_id;
  guint    generation;
} Job;

/* How many times in a row the worker starts the file over without a
 * job getting through before it gives up: a file that is damaged again
 * as soon as it is built (a failing disk) is not rebuilt for ever, and
 * searches say why. */
#define MAX_START_OVERS 3

/* The state the worker thread and the object share. It outlives the
 * object while the thread still runs. */
typedef struct
{
  gatomicrefcount  ref;
  char            *path;
  NatterJsonlRepo *session_repo;
  NatterJsonlRepo *turn_repo;
  GMainContext    *context;
  GWeakRef         owner;

  GMutex           lock;
  GCond            cond;
  GQueue           jobs;          /* Job */
  gboolean         busy;          /* a job is being run */
  gint             quit;          /* atomic */
  gint             building;      /* atomic: a whole check or build runs or waits */
  gint             builds;        /* atomic: checks and builds queued so far */
  gint             n_checked;     /* atomic: of the running check, sessions gone through */
  gint             n_sessions;    /* atomic: of the running check, sessions on disk */
  gint             news_pending;  /* atomic: a post_news() has not run yet */
  guint            batch;         /* BATCH, or what a test asked for */
  gboolean         pausing;       /* a test stops the worker after each commit */
  guint            n_resumes;     /* pauses a test let go of */
  guint            n_paused;      /* pauses the worker got past */
  GHashTable      *removed;       /* session ids deleted; their hits are dropped at once */
  GStrv            unreadable;    /* sessions with a turn the index could not read, sorted */
  gint             unreadable_changed; /* atomic: @unreadable changed since the main thread last said so */
  guint            generation;    /* bumped when the file is replaced */
  gboolean         rebuild_queued; /* a JOB_REBUILD waits */
  guint            start_overs;   /* files the worker started over since a job got through */
  /* Why the worker cannot keep the file current, or NULL: every search
   * says it, rather than finding nothing without a word. */
  GError          *failure;

  GMutex           query_lock;
  NatterSearchDb  *query_db;
  guint            query_generation;
  NatterSearchDbOpen query_mode;  /* how @query_db was opened: this process's file, or the writer's */
  guint            match_cap;     /* under query_lock: NATTER_SEARCH_MATCH_CAP, or what a test asked for */
} Shared;

struct _NatterSearchIndex
{
  GObject         parent_instance;

  GFile          *file;
  NatterSessions *sessions;
  gulong          changed_id;
  gulong          damage_id;
  Shared         *shared;
  GThread        *worker;
  gboolean        indexing;
  gint            builds_seen;    /* Shared.builds when the state was last read */
  guint           n_checked;
  guint           n_sessions;
  GPtrArray      *waiters;        /* GTask, waiting for the worker to be idle */
  /* In a process that may not write the file, the writer's file is
   * followed instead (natter_search_index_start()): */
  GFileMonitor   *follow_monitor; /* the folder of the file */
  guint           follow_source;  /* a read waits for changes to settle */
  gboolean        follow_reading; /* one runs */
  gboolean        follow_again;   /* the file changed while it ran */
};

G_DEFINE_FINAL_TYPE (NatterSearchIndex, natter_search_index, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_INDEXING,
  PROP_N_CHECKED,
  PROP_N_SESSIONS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_UNREADABLE_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
job_free (Job *job)
{
  g_free (job->session_id);
  g_free (job);
}

static Shared *
shared_ref (Shared *shared)
{
  g_atomic_ref_count_inc (&shared->ref);
  return shared;
}

static void
shared_unref (Shared *shared)
{
  if (!g_atomic_ref_count_dec (&shared->ref))
    return;
  g_queue_clear_full (&shared->jobs, (GDestroyNotify) job_free);
  g_clear_pointer (&shared->query_db, natter_search_db_close);
  g_hash_table_unref (shared->removed);
  g_strfreev (shared->unreadable);
  g_clear_error (&shared->failure);
  g_mutex_clear (&shared->lock);
  g_mutex_clear (&shared->query_lock);
  g_cond_clear (&shared->cond);
  g_weak_ref_clear (&shared->owner);
  g_main_context_unref (shared->context);
  g_object_unref (shared->session_repo);
  g_object_unref (shared->turn_repo);
  g_free (shared->path);
  g_free (shared);
}

/* Main thread: the worker's news */

static void
complete_waiters (NatterSearchIndex *self)
{
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&self->waiters);

  self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiters->len; i++)
    g_task_return_boolean (g_ptr_array_index (waiters, i), TRUE);
}

static gboolean
worker_idle (Shared *shared)
{
  gboolean idle;

  g_mutex_lock (&shared->lock);
  idle = !shared->busy && g_queue_is_empty (&shared->jobs);
  g_mutex_unlock (&shared->lock);
  return idle;
}

static void
update_state (NatterSearchIndex *self)
{
  /* Whether the worker is idle is read first: it lowers `building`
   * before it goes idle, so what is read after an idle worker is its
   * last word. Read after, a worker that went idle meanwhile would have
   * the waiters told the index is current beside a stale "indexing";
   * its news, still to come, completes them then. */
  gboolean idle = worker_idle (self->shared);
  gint builds = g_atomic_int_get (&self->shared->builds);
  gboolean indexing = g_atomic_int_get (&self->shared->building) != 0;
  guint n_checked = (guint) g_atomic_int_get (&self->shared->n_checked);
  guint n_sessions = (guint) g_atomic_int_get (&self->shared->n_sessions);

  /* A build the worker began and ended between two pieces of news (a
   * small store rebuilt after a search found it damaged) is still said:
   * whoever shows a search runs it again when indexing ends, and the
   * search that asked for the build found nothing. Outside the freeze,
   * which would fold the two notifications into none. */
  if (builds != self->builds_seen && !indexing && !self->indexing)
    {
      self->indexing = TRUE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INDEXING]);
    }
  self->builds_seen = builds;

  g_object_freeze_notify (G_OBJECT (self));
  if (self->n_sessions != n_sessions)
    {
      self->n_sessions = n_sessions;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SESSIONS]);
    }
  if (self->n_checked != n_checked)
    {
      self->n_checked = n_checked;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_CHECKED]);
    }
  if (self->indexing != indexing)
    {
      self->indexing = indexing;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INDEXING]);
    }
  g_object_thaw_notify (G_OBJECT (self));
  if (g_atomic_int_compare_and_exchange (&self->shared->unreadable_changed, 1, 0))
    g_signal_emit (self, signals[SIGNAL_UNREADABLE_CHANGED], 0);
  if (idle)
    complete_waiters (self);
}

static gboolean
worker_news_cb (gpointer user_data)
{
  Shared *shared = user_data;
  g_autoptr(NatterSearchIndex) self = g_weak_ref_get (&shared->owner);

  /* Cleared before the state is read: news that comes after the read
   * posts again. */
  g_atomic_int_set (&shared->news_pending, 0);
  if (self != NULL)
    update_state (self);
  return G_SOURCE_REMOVE;
}

/* Tells the main thread that the state changed. However fast the worker
 * commits, the main thread has at most one piece of news waiting, and
 * reading it costs it a few atomic reads: a build never takes a frame's
 * time from the window. */
static void
post_news (Shared *shared)
{
  if (!g_atomic_int_compare_and_exchange (&shared->news_pending, 0, 1))
    return;
  g_main_context_invoke_full (shared->context, G_PRIORITY_DEFAULT, worker_news_cb,
                              shared_ref (shared), (GDestroyNotify) shared_unref);
}

/* The worker thread */

/* Takes @error (nullable) as the reason searches give from now on. The
 * worker runs in the command line's process too, whose standard error is
 * the user's: the reason goes to the searches, never to the log. */
static void
set_failure (Shared *shared,
             GError *error)
{
  if (error != NULL)
    g_debug ("The search index is not current: %s", error->message);
  g_mutex_lock (&shared->lock);
  g_clear_error (&shared->failure);
  shared->failure = error;
  g_mutex_unlock (&shared->lock);
}

static void
remove_file_set (const char *path)
{
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);

  /* What cannot be removed fails the open that follows, which says why. */
  if (g_unlink (path) != 0 && errno != ENOENT)
    g_debug ("Cannot remove the damaged search index %s: %s", path, g_strerror (errno));
  g_unlink (wal);
  g_unlink (shm);
}

/* Any thread: whether this process may write the index file. Without
 * the data directory's lock it may not: the writer owns the file, and
 * two processes building, removing or replacing it at once would lose
 * one's work or leave a connection on a removed file. */
static gboolean
may_write (Shared *shared)
{
  return natter_jsonl_repo_get_write_refusal (shared->session_repo) == NULL;
}

/* Any thread: a whole check or build is queued. Both counts go up
 * together: @building falls again when it ends, @builds never does, so
 * that a build begun and ended between two pieces of news is still
 * seen (update_state()). */
static void
build_queued (Shared *shared)
{
  g_atomic_int_inc (&shared->building);
  g_atomic_int_inc (&shared->builds);
}

/* The worker: throws the damaged file away (closing @db first, which
 * rolls back what a job left half done) so that the next open starts it
 * over. Only the index's own files are removed, never a log. %FALSE,
 * with the reason searches give, when files started over went on being
 * damaged (MAX_START_OVERS): the file is then left as it is. */
static gboolean
start_over (Shared          *shared,
            NatterSearchDb **db,
            const GError    *why)
{
  gboolean give_up;

  g_clear_pointer (db, natter_search_db_close);
  g_mutex_lock (&shared->lock);
  give_up = shared->start_overs >= MAX_START_OVERS;
  if (!give_up)
    shared->start_overs++;
  g_mutex_unlock (&shared->lock);
  if (give_up)
    {
      set_failure (shared, g_error_copy (why));
      return FALSE;
    }
  g_debug ("Rebuilding the damaged search index: %s", why->message);
  remove_file_set (shared->path);
  g_mutex_lock (&shared->lock);
  shared->generation++;
  g_mutex_unlock (&shared->lock);
  return TRUE;
}

/* Any thread: a search found the file of @generation damaged. Unless
 * the file was replaced since, or a rebuild waits already, the worker
 * is asked to throw it away and build it again before anything else it
 * has to do (what is queued is checked again by the build anyway). The
 * state notifies as for any build. Returns whether a rebuild is coming;
 * %FALSE when the worker gave up on the file (Shared.failure says why). */
static gboolean
ask_rebuild (Shared *shared,
             guint   generation)
{
  gboolean coming = TRUE;
  gboolean queued = FALSE;

  g_mutex_lock (&shared->lock);
  if (shared->failure != NULL && shared->start_overs >= MAX_START_OVERS)
    coming = FALSE;
  else if (shared->generation == generation && !shared->rebuild_queued)
    {
      Job *job = g_new0 (Job, 1);

      job->kind = JOB_REBUILD;
      job->generation = generation;
      shared->rebuild_queued = TRUE;
      build_queued (shared);
      g_queue_push_head (&shared->jobs, job);
      g_cond_broadcast (&shared->cond);
      queued = TRUE;
    }
  g_mutex_unlock (&shared->lock);
  if (queued)
    post_news (shared);
  return coming;
}

/* Opens the index, starting it over when the file is not one. */
static NatterSearchDb *
open_db (Shared *shared)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (shared->path);
  NatterSearchDb *db;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;

      set_failure (shared, g_error_new (NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_FAILED,
                                        "Cannot create %s for the search index: %s", dir,
                                        g_strerror (saved_errno)));
      return NULL;
    }
  db = natter_search_db_open (shared->path, NATTER_SEARCH_DB_OPEN_WRITE, &error);
  if (db == NULL && g_error_matches (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_CORRUPT))
    {
      if (!start_over (shared, &db, error))
        return NULL;  /* start_over() set the failure */
      g_clear_error (&error);
      db = natter_search_db_open (shared->path, NATTER_SEARCH_DB_OPEN_WRITE, &error);
    }
  set_failure (shared, g_steal_pointer (&error));
  return db;
}

/* The worker: a batch of the check is committed. */
static void
committed_cb (gpointer data,
              guint    n_checked,
              guint    n_sessions)
{
  Shared *shared = data;

  g_atomic_int_set (&shared->n_sessions, (gint) n_sessions);
  g_atomic_int_set (&shared->n_checked, (gint) n_checked);
  post_news (shared);
  if (n_checked == n_sessions)
    return;
  g_mutex_lock (&shared->lock);
  if (shared->pausing)
    {
      while (shared->pausing && shared->n_resumes == shared->n_paused && !g_atomic_int_get (&shared->quit))
        g_cond_wait (&shared->cond, &shared->lock);
      shared->n_paused++;
    }
  g_mutex_unlock (&shared->lock);
}

/* Any thread: takes @ids (transfer full) as the sessions with a turn
 * the index could not read; the main thread says so at the next news
 * when they changed. */
static void
set_unreadable (Shared *shared,
                GStrv   ids)
{
  g_mutex_lock (&shared->lock);
  /* A job that changed nothing of it (most do) says nothing. */
  if (shared->unreadable == NULL || !g_strv_equal ((const char * const *) shared->unreadable,
                                                   (const char * const *) ids))
    g_atomic_int_set (&shared->unreadable_changed, 1);
  g_strfreev (shared->unreadable);
  shared->unreadable = ids;
  g_mutex_unlock (&shared->lock);
}

/* The worker: which sessions have a turn the index could not read, as
 * the job just committed left it. */
static gboolean
note_unreadable (Shared          *shared,
                 NatterSearchDb  *db,
                 GError         **error)
{
  GStrv ids = natter_search_db_list_unreadable (db, error);

  if (ids == NULL)
    return FALSE;
  set_unreadable (shared, ids);
  return TRUE;
}

static gboolean
run_job (Shared         *shared,
         NatterSearchDb *db,
         Job            *job,
         GError        **error)
{
  NatterSearchSync sync = { shared->session_repo, shared->turn_repo, db, &shared->quit,
                            shared->batch, committed_cb, shared };

  if (job->kind == JOB_SYNC_ALL || job->kind == JOB_REBUILD)
    {
      g_atomic_int_set (&shared->n_checked, 0);
      if (!natter_search_sync_all (&sync, error))
        return FALSE;
    }
  else if (!natter_search_sync_session (&sync, job->session_id, error))
    return FALSE;
  return note_unreadable (shared, db, error);
}

static gpointer
worker_main (gpointer data)
{
  Shared *shared = data;
  NatterSearchDb *db = NULL;

  natter_search_sync_lower_priority ();

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      Job *job;
      Job *rebuild;

      g_mutex_lock (&shared->lock);
      while (g_queue_is_empty (&shared->jobs) && !g_atomic_int_get (&shared->quit))
        g_cond_wait (&shared->cond, &shared->lock);
      job = g_queue_pop_head (&shared->jobs);
      shared->busy = job != NULL;
      g_mutex_unlock (&shared->lock);
      if (job == NULL || g_atomic_int_get (&shared->quit))
        {
          g_clear_pointer (&job, job_free);
          break;
        }

      if (job->kind == JOB_REBUILD)
        {
          gboolean current;

          g_mutex_lock (&shared->lock);
          shared->rebuild_queued = FALSE;
          current = job->generation == shared->generation;
          g_mutex_unlock (&shared->lock);
          /* A file replaced since the search found it damaged is only
           * checked, like any. */
          if (current)
            {
              g_autoptr(GError) why = g_error_new (NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_CORRUPT,
                                                   "A search found the search index %s damaged", shared->path);

              start_over (shared, &db, why);
            }
        }

      if (db == NULL)
        db = open_db (shared);
      if (db != NULL && run_job (shared, db, job, &error))
        {
          g_mutex_lock (&shared->lock);
          shared->start_overs = 0;
          g_mutex_unlock (&shared->lock);
        }
      else if (db != NULL)
        {
          /* Closing rolls back what the job left half done. A damaged
           * file is thrown away and everything is checked again. */
          g_clear_pointer (&db, natter_search_db_close);
          if (!g_error_matches (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_CORRUPT))
            set_failure (shared, g_steal_pointer (&error));
          else if (start_over (shared, &db, error))
            {
              rebuild = g_new0 (Job, 1);
              rebuild->kind = JOB_SYNC_ALL;
              build_queued (shared);
              g_mutex_lock (&shared->lock);
              g_queue_push_head (&shared->jobs, rebuild);
              g_mutex_unlock (&shared->lock);
            }
        }
      if (job->kind == JOB_SYNC_ALL || job->kind == JOB_REBUILD)
        g_atomic_int_add (&shared->building, -1);
      g_clear_pointer (&job, job_free);
      /* Idle before the news goes out, so that it finds the worker so. */
      g_mutex_lock (&shared->lock);
      shared->busy = FALSE;
      g_mutex_unlock (&shared->lock);
      post_news (shared);
    }
  g_clear_pointer (&db, natter_search_db_close);
  shared_unref (shared);
  return NULL;
}

static void
queue_job (NatterSearchIndex *self,
           JobKind            kind,
           const char        *session_id)
{
  Job *job = g_new0 (Job, 1);

  job->kind = kind;
  job->session_id = g_strdup (session_id);
  if (kind == JOB_SYNC_ALL)
    build_queued (self->shared);
  g_mutex_lock (&self->shared->lock);
  g_queue_push_tail (&self->shared->jobs, job);
  g_cond_broadcast (&self->shared->cond);
  g_mutex_unlock (&self->shared->lock);
  update_state (self);
}

/* The service's news: a session changed or went away. */
static void
session_changed_cb (NatterSessions    *sessions,
                    const char        *session_id,
                    NatterSearchIndex *self)
{
  if (natter_session_index_lookup (natter_sessions_list_sessions (sessions), session_id) == NULL)
    {
      /* Deleted: its hits are gone from the next search on, before the
       * worker has removed its rows. */
      g_mutex_lock (&self->shared->lock);
      g_hash_table_add (self->shared->removed, g_strdup (session_id));
      g_mutex_unlock (&self->shared->lock);
    }
  if (self->worker != NULL)
    queue_job (self, JOB_SYNC_SESSION, session_id);
}

/* A refused operation found a file of @session_id damaged that no
 * watch reported (one of a conversation not open, damaged while Natter
 * runs): its turn files are looked at again, so that a search no longer
 * finds the words that file held and names the conversation. */
static void
damage_found_cb (NatterSessions    *sessions,
                 const char        *session_id,
                 NatterSearchIndex *self)
{
  if (self->worker != NULL)
    queue_job (self, JOB_SYNC_SESSION, session_id);
}

/* Public API */

/**
 * natter_search_index_new:
 * @cache_file: the index file, e.g. `<data dir>/cache/search.sqlite`
 *   (docs/format.md §1); created when missing
 * @session_repo: the session repository
 * @turn_repo: the turn repository
 * @sessions: (nullable): the session service whose
 *   #NatterSessions::session-index-changed keeps the index current
 *   (write-through), or %NULL for an index checked only at start
 *
 * Creates a search index. Nothing is read or written before
 * natter_search_index_start().
 *
 * Returns: (transfer full): a new search index
 */
NatterSearchIndex *
natter_search_index_new (GFile           *cache_file,
                         NatterJsonlRepo *session_repo,
                         NatterJsonlRepo *turn_repo,
                         NatterSessions  *sessions)
{
  NatterSearchIndex *self;
  Shared *shared;

  g_return_val_if_fail (G_IS_FILE (cache_file) && g_file_peek_path (cache_file) != NULL, NULL);
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (session_repo), NULL);
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (turn_repo), NULL);
  g_return_val_if_fail (sessions == NULL || NATTER_IS_SESSIONS (sessions), NULL);

  self = g_object_new (NATTER_TYPE_SEARCH_INDEX, NULL);
  self->file = g_object_ref (cache_file);
  shared = self->shared;
  shared->path = g_file_get_path (cache_file);
  shared->session_repo = g_object_ref (session_repo);
  shared->turn_repo = g_object_ref (turn_repo);
  if (sessions != NULL)
    {
      self->sessions = g_object_ref (sessions);
      self->changed_id = g_signal_connect (sessions, "session-index-changed",
                                           G_CALLBACK (session_changed_cb), self);
      self->damage_id = g_signal_connect (sessions, "damage-found", G_CALLBACK (damage_found_cb), self);
    }
  return self;
}

static void follow_writer  (NatterSearchIndex *self);
static void stop_following (NatterSearchIndex *self);

/**
 * natter_search_index_start:
 * @self: a search index
 *
 * Starts the worker thread and the start-up check: sessions whose files
 * changed since the index last saw them (or all of them, for a missing
 * or damaged index file) are read and indexed in the background, while
 * #NatterSearchIndex:indexing is %TRUE. From then on every change the
 * session service reports is written through. Idempotent.
 *
 * In a process that may not write the data directory (the session
 * repository refuses writes, natter_jsonl_repo_refuse_writes(),
 * docs/sessions.md §8.3) no worker starts: the file is the writer's,
 * searches there read it as it is, and from now on this index follows
 * it, reading which conversations it could not read in full
 * (natter_search_index_dup_unreadable(), with
 * #NatterSearchIndex::unreadable-changed) now and whenever the file
 * changes, and writing nothing. Called again once the process has taken
 * the writer lock after all, it stops following and starts the worker.
 */
void
natter_search_index_start (NatterSearchIndex *self)
{
  g_return_if_fail (NATTER_IS_SEARCH_INDEX (self));

  if (self->worker != NULL)
    return;
  if (!may_write (self->shared))
    {
      follow_writer (self);
      return;
    }
  stop_following (self);
  queue_job (self, JOB_SYNC_ALL, NULL);
  self->worker = g_thread_new ("natter-search", worker_main, shared_ref (self->shared));
}

/**
 * natter_search_index_get_started:
 * @self: a search index
 *
 * Returns: whether natter_search_index_start() was called
 */
gboolean
natter_search_index_get_started (NatterSearchIndex *self)
{
  g_return_val_if_fail (NATTER_IS_SEARCH_INDEX (self), FALSE);

  return self->worker != NULL;
}

/**
 * natter_search_index_get_indexing:
 * @self: a search index
 *
 * Returns: whether the start-up check or a build is still running, so
 *   that a search may miss what is not indexed yet
 */
gboolean
natter_search_index_get_indexing (NatterSearchIndex *self)
{
  g_return_val_if_fail (NATTER_IS_SEARCH_INDEX (self), FALSE);

  return self->indexing;
}

/**
 * natter_search_index_get_progress:
 * @self: a search index
 * @out_n_checked: (out) (optional): how many sessions the running check
 *   or build has gone through: the words of these are searchable
 * @out_n_sessions: (out) (optional): how many sessions it goes through
 *
 * How far the start-up check or build has come, for a front end to say
 * while #NatterSearchIndex:indexing is %TRUE (both are 0 before its
 * first commit). Updated on the main context as the worker commits (the
 * properties #NatterSearchIndex:n-checked and
 * #NatterSearchIndex:n-sessions notify), a batch of sessions at a time.
 */
void
natter_search_index_get_progress (NatterSearchIndex *self,
                                  guint             *out_n_checked,
                                  guint             *out_n_sessions)
{
  g_return_if_fail (NATTER_IS_SEARCH_INDEX (self));

  if (out_n_checked != NULL)
    *out_n_checked = self->n_checked;
  if (out_n_sessions != NULL)
    *out_n_sessions = self->n_sessions;
}

/**
 * natter_search_index_pause_after_batches: (skip)
 * @self: a search index, not started
 * @batch: sessions per transaction, at least 1
 *
 * For tests (natter-search-index-private.h): see there.
 */
void
natter_search_index_pause_after_batches (NatterSearchIndex *self,
                                         guint              batch)
{
  g_return_if_fail (NATTER_IS_SEARCH_INDEX (self));
  g_return_if_fail (self->worker == NULL && batch > 0);

  self->shared->batch = batch;
  self->shared->pausing = TRUE;
}

/**
 * natter_search_index_resume: (skip)
 * @self: a search index
 * @pause_again: whether the worker stops after its next commit again
 *
 * Lets the worker of natter_search_index_pause_after_batches() go on
 * past one stop (the one it is at, or the next).
 */
void
natter_search_index_resume (NatterSearchIndex *self,
                            gboolean           pause_again)
{
  g_return_if_fail (NATTER_IS_SEARCH_INDEX (self));

  g_mutex_lock (&self->shared->lock);
  self->shared->n_resumes++;
  self->shared->pausing = pause_again;
  g_cond_broadcast (&self->shared->cond);
  g_mutex_unlock (&self->shared->lock);
}

/**
 * natter_search_index_get_file:
 * @self: a search index
 *
 * Returns: (transfer none): the index file
 */
GFile *
natter_search_index_get_file (NatterSearchIndex *self)
{
  g_return_val_if_fail (NATTER_IS_SEARCH_INDEX (self), NULL);

  return self->file;
}

/**
 * natter_search_index_get_match_cap:
 * @self: a search index
 *
 * Returns: how many of the newest matching turns a search ranks at most
 *   (%NATTER_SEARCH_MATCH_CAP, but in tests); a search that found more
 *   says so (natter_search_index_search_sync())
 */
guint
natter_search_index_get_match_cap (NatterSearchIndex *self)
{
  guint cap;

  g_return_val_if_fail (NATTER_IS_SEARCH_INDEX (self), 0);

  g_mutex_lock (&self->shared->query_lock);
  cap = self->shared->match_cap;
  g_mutex_unlock (&self->shared->query_lock);
  return cap;
}

/**
 * natter_search_index_set_match_cap: (skip)
 * @self: a search index
 * @cap: how many matching turns a search ranks at most, more than 0
 *
 * For tests: a cap a test reaches with a few turns.
 */
void
natter_search_index_set_match_cap (NatterSearchIndex *self,
                                   guint              cap)
{
  g_return_if_fail (NATTER_IS_SEARCH_INDEX (self));
  g_return_if_fail (cap > 0);

  g_mutex_lock (&self->shared->query_lock);
  self->shared->match_cap = cap;
  g_mutex_unlock (&self->shared->query_lock);
}

/* How this process's query connection opens the file: as the file's
 * writer's, or as another process's it must leave as it is
 * (natter_search_db_open()). A process that takes the writer lock after
 * all (docs/sessions.md §8.3) opens it again the writer's way. */
static NatterSearchDbOpen
query_mode (Shared *shared)
{
  return may_write (shared) ? NATTER_SEARCH_DB_OPEN_QUERY : NATTER_SEARCH_DB_OPEN_FOREIGN;
}

/* A search in a process that may not write the file found it damaged:
 * the writer builds it again when it finds the damage itself (its
 * start-up check or its own searches), never this process. */
static void
set_damaged_elsewhere (const char  *path,
                       GError     **error)
{
  g_set_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_CORRUPT,
               _("The search index %s is damaged. Only the Natter that writes this data folder builds it "
                 "again."), path);
}

/* A search in a process that may not write the file found none, or one
 * not laid out yet: the writer makes it (its start-up check), never
 * this process. */
static void
set_missing_elsewhere (GError **error)
{
  g_set_error_literal (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_MISSING,
                       _("The search index is still being built by the other Natter using this data folder. "
                         "Search again once it has finished."));
}

/* Under query_lock: the query connection, opened (again) when there is
 * none, when the worker started the file over, when the process's mode
 * changed, or when the file at the path is no longer the one it reads
 * (natter_search_db_get_file_current()). %NULL with @error when it
 * cannot be opened; %NULL without one when there is no file yet to
 * read, or one being started over (*@out_rebuilding is then set when
 * the worker builds it again). */
static NatterSearchDb *
ensure_query_db (Shared    *shared,
                 guint      generation,
                 gboolean  *out_rebuilding,
                 GError   **error)
{
  g_autoptr(GError) local_error = NULL;
  NatterSearchDbOpen mode = query_mode (shared);
  GError *failure = NULL;

  if (shared->query_db != NULL &&
      (shared->query_generation != generation || shared->query_mode != mode ||
       !natter_search_db_get_file_current (shared->query_db)))
    g_clear_pointer (&shared->query_db, natter_search_db_close);
  if (shared->query_db != NULL)
    return shared->query_db;

  shared->query_db = natter_search_db_open (shared->path, mode, &local_error);
  shared->query_generation = generation;
  shared->query_mode = mode;
  if (shared->query_db != NULL)
    return shared->query_db;

  g_mutex_lock (&shared->lock);
  if (shared->failure != NULL)
    failure = g_error_copy (shared->failure);
  g_mutex_unlock (&shared->lock);
  /* The worker cannot make the file, or another thing is in its place:
   * say so. */
  if (failure != NULL || g_error_matches (local_error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_NOT_A_FILE))
    {
      g_propagate_error (error, failure != NULL ? failure : g_steal_pointer (&local_error));
      return NULL;
    }
  if (mode == NATTER_SEARCH_DB_OPEN_FOREIGN)
    {
      if (g_error_matches (local_error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_CORRUPT))
        set_damaged_elsewhere (shared->path, error);
      else if (g_error_matches (local_error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_MISSING))
        set_missing_elsewhere (error);
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  if (g_error_matches (local_error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_CORRUPT))
    *out_rebuilding = ask_rebuild (shared, generation);
  /* No file yet, or one being started over: nothing is indexed. */
  g_debug ("searching an index that is not there: %s", local_error->message);
  return NULL;
}

/* Under query_lock, in a process that reads the writer's file through
 * @db: which sessions its index could not read in full, as the file
 * says now. What a file changed under the read says is not taken: the
 * change is itself followed by another read. */
static void
read_unreadable_locked (Shared         *shared,
                        NatterSearchDb *db)
{
  g_autoptr(GError) error = NULL;
  GStrv ids = natter_search_db_list_unreadable (db, &error);

  if (ids == NULL)
    {
      g_debug ("Which conversations the search index could not read is not known: %s", error->message);
      return;
    }
  if (!natter_search_db_get_file_current (db))
    {
      g_strfreev (ids);
      return;
    }
  set_unreadable (shared, ids);
  post_news (shared);
}

/* Under query_lock, in a process that reads the writer's file through
 * @db: whether the writer's index describes every conversation on disk
 * as it is now. Not when it cannot tell: the search then says nothing of
 * it. */
static gboolean
writer_current (Shared         *shared,
                NatterSearchDb *db)
{
  NatterSearchSync sync = { shared->session_repo, shared->turn_repo, db, NULL, 0, NULL, NULL };
  g_autoptr(GError) error = NULL;
  gboolean current = TRUE;

  if (!natter_search_sync_is_current (&sync, &current, &error))
    {
      g_debug ("Whether the search index is current is not known: %s", error->message);
      return TRUE;
    }
  return current;
}

/* How often a query of another process's file is asked at most when
 * the file changed while it ran (natter_search_db_get_file_current()): a
 * writer that opens or checkpoints the file meanwhile may have torn what
 * an immutable read saw. */
#define FOREIGN_TRIES 3

/* Under query_lock: the query of natter_search_index_search_sync(). A
 * file found damaged, whether opening it or in the query, is not an
 * error of the search: the worker is asked to build it again
 * (ask_rebuild()) and the search finds nothing until it has, with
 * @out_rebuilding set, as it does while the file is made. In a process
 * that may not write the file, it is the error (set_damaged_elsewhere()),
 * as is a file that is not there yet (set_missing_elsewhere()). */
static GPtrArray *
query_locked (Shared      *shared,
              const char  *text,
              guint        limit,
              gboolean    *out_capped,
              gboolean    *out_rebuilding,
              gboolean    *out_behind,
              GError     **error)
{
  guint generation;
  GPtrArray *hits = NULL;

  *out_rebuilding = FALSE;
  if (out_behind != NULL)
    *out_behind = FALSE;
  g_mutex_lock (&shared->lock);
  generation = shared->generation;
  g_mutex_unlock (&shared->lock);

  for (guint tries = 0; hits == NULL; tries++)
    {
      g_autoptr(GError) local_error = NULL;
      GError *open_error = NULL;
      NatterSearchDb *db = ensure_query_db (shared, generation, out_rebuilding, &open_error);

      if (db == NULL && open_error != NULL)
        {
          g_propagate_error (error, open_error);
          return NULL;
        }
      if (db == NULL)
        return g_ptr_array_new_with_free_func ((GDestroyNotify) natter_search_hit_free);

      hits = natter_search_db_query (db, text, limit, shared->match_cap, out_capped, &local_error);
      if (hits != NULL && shared->query_mode == NATTER_SEARCH_DB_OPEN_FOREIGN && out_behind != NULL)
        *out_behind = !writer_current (shared, db);
      if (shared->query_mode == NATTER_SEARCH_DB_OPEN_FOREIGN && !natter_search_db_get_file_current (db) &&
          tries + 1 < FOREIGN_TRIES)
        {
          /* Changed under the query: what it found, or the damage it
           * found, may be a torn read. Asked again of the file as it
           * is now. */
          g_clear_pointer (&hits, g_ptr_array_unref);
          g_clear_pointer (&shared->query_db, natter_search_db_close);
          continue;
        }
      /* A process that reads the writer's file learns here too which
       * conversations it could not read in full, as the file says now:
       * a search names them (natter_search_index_dup_unreadable()). */
      if (hits != NULL && shared->query_mode == NATTER_SEARCH_DB_OPEN_FOREIGN)
        read_unreadable_locked (shared, db);
      /* Not kept open through the writer's shared memory: the writer,
       * closing the file, would leave its -wal and -shm behind for it. */
      if (natter_search_db_get_shares_memory (db))
        g_clear_pointer (&shared->query_db, natter_search_db_close);
      if (hits != NULL)
        break;
      if (!g_error_matches (local_error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_CORRUPT))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      /* Closed before the worker throws the file away: this connection
       * is not the last on it, so it writes nothing to it. */
      g_clear_pointer (&shared->query_db, natter_search_db_close);
      if (shared->query_mode == NATTER_SEARCH_DB_OPEN_FOREIGN)
        {
          set_damaged_elsewhere (shared->path, error);
          return NULL;
        }
      if (!ask_rebuild (shared, generation))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      g_debug ("The search index is damaged, rebuilding it: %s", local_error->message);
      *out_rebuilding = TRUE;
      if (out_capped != NULL)
        *out_capped = FALSE;
      return g_ptr_array_new_with_free_func ((GDestroyNotify) natter_search_hit_free);
    }
  return hits;
}

/* Following the writer's file
 *
 * A process that may not write the file reads the writer's. Which
 * conversations its index could not read in full is read from it when
 * following starts and again whenever the file, its -wal or its -shm
 * change (the writer committed, checkpointed, or built it anew), once
 * the changes settle: a front end marks those conversations as the
 * writer's own window does (natter_search_index_dup_unreadable()). */

/* How long changes of the writer's file settle before it is read. */
#define FOLLOW_DELAY_MS 250

static void follow_read (NatterSearchIndex *self);

/* The read runs on the state the index shares with its threads, not on
 * the index itself, which may go meanwhile. */
static void
follow_read_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  Shared *shared = task_data;
  g_autoptr(GError) error = NULL;
  gboolean rebuilding = FALSE;
  NatterSearchDb *db;
  guint generation;

  g_mutex_lock (&shared->lock);
  generation = shared->generation;
  g_mutex_unlock (&shared->lock);
  g_mutex_lock (&shared->query_lock);
  /* Only while this process still reads the writer's file: one that took
   * the lock since has its worker say it. */
  if (query_mode (shared) == NATTER_SEARCH_DB_OPEN_FOREIGN)
    {
      db = ensure_query_db (shared, generation, &rebuilding, &error);
      if (db != NULL)
        read_unreadable_locked (shared, db);
      else if (error != NULL)
        g_debug ("Not following the search index: %s", error->message);
      if (db != NULL && natter_search_db_get_shares_memory (db))
        g_clear_pointer (&shared->query_db, natter_search_db_close);
    }
  g_mutex_unlock (&shared->query_lock);
  g_task_return_boolean (task, TRUE);
}

static void
follow_read_done_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(NatterSearchIndex) self = g_weak_ref_get (user_data);

  if (self == NULL)
    return;
  self->follow_reading = FALSE;
  if (self->follow_again && self->follow_monitor != NULL)
    {
      self->follow_again = FALSE;
      follow_read (self);
    }
}

/* Reads the writer's file in a thread; a change while that runs reads
 * it again after. */
static void
follow_read (NatterSearchIndex *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->follow_reading)
    {
      self->follow_again = TRUE;
      return;
    }
  self->follow_reading = TRUE;
  task = g_task_new (NULL, NULL, follow_read_done_cb, &self->shared->owner);
  g_task_set_source_tag (task, follow_read);
  g_task_set_task_data (task, shared_ref (self->shared), (GDestroyNotify) shared_unref);
  g_task_run_in_thread (task, follow_read_thread);
}

static gboolean
follow_settled_cb (gpointer user_data)
{
  NatterSearchIndex *self = user_data;

  self->follow_source = 0;
  follow_read (self);
  return G_SOURCE_REMOVE;
}

/* Whether @file is the index file or one SQLite keeps beside it. */
static gboolean
is_index_file (NatterSearchIndex *self,
               GFile             *file)
{
  g_autofree char *name = file != NULL ? g_file_get_basename (file) : NULL;
  g_autofree char *own = g_file_get_basename (self->file);

  return name != NULL && g_str_has_prefix (name, own);
}

static void
follow_changed_cb (GFileMonitor      *monitor,
                   GFile             *file,
                   GFile             *other,
                   GFileMonitorEvent  event,
                   NatterSearchIndex *self)
{
  if (!is_index_file (self, file) && !is_index_file (self, other))
    return;
  if (self->follow_source == 0)
    self->follow_source = g_timeout_add (FOLLOW_DELAY_MS, follow_settled_cb, self);
}

/* Starts following the writer's file, and reads it at once. */
static void
follow_writer (NatterSearchIndex *self)
{
  g_autoptr(GFile) folder = g_file_get_parent (self->file);
  g_autoptr(GError) error = NULL;

  if (self->follow_monitor != NULL)
    return;
  /* A folder not there yet is watched for, and a file it gets then is
   * a change like any. */
  self->follow_monitor = g_file_monitor_directory (folder, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->follow_monitor == NULL)
    g_debug ("The writer's search index is read once only: %s", error->message);
  else
    g_signal_connect (self->follow_monitor, "changed", G_CALLBACK (follow_changed_cb), self);
  follow_read (self);
}

/* This process writes the file from now on, or goes: nothing of the
 * writer's is followed any longer. */
static void
stop_following (NatterSearchIndex *self)
{
  if (self->follow_monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->follow_monitor, self);
      g_file_monitor_cancel (self->follow_monitor);
      g_clear_object (&self->follow_monitor);
    }
  g_clear_handle_id (&self->follow_source, g_source_remove);
  self->follow_again = FALSE;
}

/**
 * natter_search_index_search_sync:
 * @self: a search index
 * @text: what the user typed
 * @limit: at most this many hits (before deleted sessions are dropped)
 * @out_still_indexing: (out) (optional): set to whether the start-up
 *   check or a build was still running, or was asked for by this search
 *   because it found the index file damaged, so the answer may be
 *   incomplete; in a process that may not write the data directory,
 *   whether the writer's index does not describe every conversation on
 *   disk as it is now (the writer is still bringing it up to date:
 *   a check of every session file's size and time, made only when
 *   asked)
 * @out_capped: (out) (optional): set to whether more turns matched than
 *   natter_search_index_get_match_cap() (2,000), so that only the newest
 *   of them were ranked
 * @error: return location for a #GError
 *
 * Searches user messages and answers of every session for all words of
 * @text, each as a word prefix, ignoring case and accents (the query is
 * built by natter_search_build_match_expression(), so no input is read
 * as FTS5 syntax). One hit per matching turn, best (BM25) first among
 * the newest natter_search_index_get_match_cap() matching turns; hits of
 * sessions deleted in this process are left out at once. Blocks on
 * SQLite: call it from a worker thread, or the CLI. Thread-safe.
 *
 * An index file found damaged (when opened, or only by this query) is
 * not an error: the worker is asked to throw it away and build it again
 * from the logs, and the search finds nothing with @out_still_indexing
 * set; #NatterSearchIndex:indexing is %TRUE until the file is built (it
 * notifies %TRUE then %FALSE even for a build quicker than the news),
 * and a search then finds what a fresh build does. Only a file damaged
 * again each time it is built is given up on, with the error. In a
 * process that may not write the data directory, the damage is the
 * error (%NATTER_SEARCH_DB_ERROR_CORRUPT): the writer rebuilds the file,
 * and a search after that reads the new one; so is a file that is not
 * there yet, or not laid out yet (%NATTER_SEARCH_DB_ERROR_MISSING, in
 * words that say the writer is still building it). Such a process
 * writes nothing beside the file either (docs/sessions.md §8.3).
 *
 * Returns: (transfer full) (element-type NatterSearchHit): the hits; %NULL
 *   with a %NATTER_SEARCH_DB_ERROR when the index cannot be read and is
 *   not being built again
 */
GPtrArray *
natter_search_index_search_sync (NatterSearchIndex  *self,
                                 const char         *text,
                                 guint               limit,
                                 gboolean           *out_still_indexing,
                                 gboolean           *out_capped,
                                 GError            **error)
{
  Shared *shared;
  GPtrArray *hits;
  gboolean building;
  gboolean rebuilding = FALSE;
  gboolean behind = FALSE;

  g_return_val_if_fail (NATTER_IS_SEARCH_INDEX (self), NULL);
  g_return_val_if_fail (text != NULL, NULL);

  shared = self->shared;
  building = g_atomic_int_get (&shared->building) != 0;
  g_mutex_lock (&shared->query_lock);
  hits = query_locked (shared, text, limit, out_capped, &rebuilding, out_still_indexing != NULL ? &behind : NULL,
                       error);
  g_mutex_unlock (&shared->query_lock);
  if (out_still_indexing != NULL)
    *out_still_indexing = building || rebuilding || behind;
  if (hits == NULL)
    return NULL;

  g_mutex_lock (&shared->lock);
  for (guint i = hits->len; i > 0; i--)
    {
      NatterSearchHit *hit = g_ptr_array_index (hits, i - 1);

      if (g_hash_table_contains (shared->removed, hit->session_id))
        g_ptr_array_remove_index (hits, i - 1);
    }
  g_mutex_unlock (&shared->lock);
  return hits;
}

/**
 * natter_search_index_recheck_session:
 * @self: a search index
 * @session_id: a session
 *
 * Looks at every turn file of @session_id again, by size and mtime, and
 * reads those that changed, on the worker thread. The start-up check
 * looks only at each session file and its latest turn file (the only
 * turn that grows), so an earlier turn file damaged, cut back or mended
 * while Natter was not running is seen here: the window asks for it
 * when a conversation is opened (docs/sessions.md §8.4). Does nothing
 * before natter_search_index_start().
 */
void
natter_search_index_recheck_session (NatterSearchIndex *self,
                                     const char        *session_id)
{
  g_return_if_fail (NATTER_IS_SEARCH_INDEX (self));
  g_return_if_fail (session_id != NULL);

  if (self->worker != NULL)
    queue_job (self, JOB_SYNC_SESSION, session_id);
}

/**
 * natter_search_index_dup_unreadable:
 * @self: a search index
 *
 * The sessions with a turn whose file the index could not read when it
 * last looked (damaged, or missing while its session lists it), as of
 * the worker's last finished job: no search finds the words of that
 * turn, and whoever shows a search says so rather than miss them
 * silently (docs/sessions.md §8.4). In a process that may not write the
 * data directory, as of the writer's file when it was last read
 * (natter_search_index_start(), and each search). Sessions deleted in
 * this process are left out. Reads no file; thread-safe.
 *
 * Returns: (transfer full): the session ids, sorted; empty before the
 *   first job has finished, or the writer's file was first read
 */
GStrv
natter_search_index_dup_unreadable (NatterSearchIndex *self)
{
  g_autoptr(GStrvBuilder) ids = g_strv_builder_new ();
  Shared *shared;

  g_return_val_if_fail (NATTER_IS_SEARCH_INDEX (self), NULL);

  shared = self->shared;
  g_mutex_lock (&shared->lock);
  for (guint i = 0; shared->unreadable != NULL && shared->unreadable[i] != NULL; i++)
    if (!g_hash_table_contains (shared->removed, shared->unreadable[i]))
      g_strv_builder_add (ids, shared->unreadable[i]);
  g_mutex_unlock (&shared->lock);
  return g_strv_builder_end (ids);
}

typedef struct
{
  char     *text;
  guint     limit;
  gboolean  still_indexing;
  gboolean  capped;
} SearchData;

static void
search_data_free (SearchData *data)
{
  g_free (data->text);
  g_free (data);
}

static void
search_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  SearchData *data = task_data;
  GError *error = NULL;
  GPtrArray *hits;

  hits = natter_search_index_search_sync (source_object, data->text, data->limit, &data->still_indexing,
                                          &data->capped, &error);
  if (hits == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, hits, (GDestroyNotify) g_ptr_array_unref);
}

/**
 * natter_search_index_search_async:
 * @self: a search index
 * @text: what the user typed
 * @limit: at most this many hits
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the calling thread's main context
 * @user_data: data for @callback
 *
 * natter_search_index_search_sync() in a worker thread.
 */
void
natter_search_index_search_async (NatterSearchIndex   *self,
                                  const char          *text,
                                  guint                limit,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SearchData *data;

  g_return_if_fail (NATTER_IS_SEARCH_INDEX (self));
  g_return_if_fail (text != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_search_index_search_async);
  data = g_new0 (SearchData, 1);
  data->text = g_strdup (text);
  data->limit = limit;
  g_task_set_task_data (task, data, (GDestroyNotify) search_data_free);
  g_task_run_in_thread (task, search_thread);
}

/**
 * natter_search_index_search_finish:
 * @self: a search index
 * @result: the #GAsyncResult
 * @out_still_indexing: (out) (optional): as for
 *   natter_search_index_search_sync()
 * @out_capped: (out) (optional): as for natter_search_index_search_sync()
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (element-type NatterSearchHit): the hits, best
 *   first; %NULL with a %NATTER_SEARCH_DB_ERROR or %G_IO_ERROR_CANCELLED
 */
GPtrArray *
natter_search_index_search_finish (NatterSearchIndex  *self,
                                   GAsyncResult       *result,
                                   gboolean           *out_still_indexing,
                                   gboolean           *out_capped,
                                   GError            **error)
{
  SearchData *data;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_search_index_search_async, NULL);

  data = g_task_get_task_data (G_TASK (result));
  if (out_still_indexing != NULL)
    *out_still_indexing = data->still_indexing;
  if (out_capped != NULL)
    *out_capped = data->capped;
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_search_index_wait_async:
 * @self: a search index
 * @cancellable: (nullable): cancels the wait, not the work
 * @callback: called on the main context once the worker has nothing left
 *   to do
 * @user_data: data for @callback
 *
 * Waits until everything queued so far (the start-up check, changes
 * written through) is in the index: for a command line that must answer
 * from a current index, and for tests. Completes at once when the index
 * is not started or has nothing to do.
 */
void
natter_search_index_wait_async (NatterSearchIndex   *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NATTER_IS_SEARCH_INDEX (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_search_index_wait_async);
  g_task_set_return_on_cancel (task, TRUE);
  if (self->worker == NULL || worker_idle (self->shared))
    {
      /* The worker may have ended its job before its news reached this
       * thread: the properties say so before the wait ends. */
      if (self->worker != NULL)
        update_state (self);
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_ptr_array_add (self->waiters, g_steal_pointer (&task));
}

/**
 * natter_search_index_wait_finish:
 * @self: a search index
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once the index is current; %FALSE with
 *   %G_IO_ERROR_CANCELLED
 */
gboolean
natter_search_index_wait_finish (NatterSearchIndex  *self,
                                 GAsyncResult       *result,
                                 GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_search_index_wait_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* GObject */

static void
natter_search_index_dispose (GObject *object)
{
  NatterSearchIndex *self = NATTER_SEARCH_INDEX (object);

  if (self->sessions != NULL)
    {
      g_clear_signal_handler (&self->changed_id, self->sessions);
      g_clear_signal_handler (&self->damage_id, self->sessions);
    }
  g_clear_object (&self->sessions);
  stop_following (self);
  /* Closed before the worker's connection, so that the worker's is the
   * last and folds the log into the file (a query connection never
   * does, natter_search_db_open()). No search runs: each holds @self. */
  g_mutex_lock (&self->shared->query_lock);
  g_clear_pointer (&self->shared->query_db, natter_search_db_close);
  g_mutex_unlock (&self->shared->query_lock);
  if (self->worker != NULL)
    {
      /* A build stops between two sessions with its work committed; the
       * next start goes on from there. */
      g_atomic_int_set (&self->shared->quit, 1);
      g_mutex_lock (&self->shared->lock);
      g_cond_broadcast (&self->shared->cond);
      g_mutex_unlock (&self->shared->lock);
      g_thread_join (g_steal_pointer (&self->worker));
    }
  if (self->waiters != NULL)
    complete_waiters (self);

  G_OBJECT_CLASS (natter_search_index_parent_class)->dispose (object);
}

static void
natter_search_index_finalize (GObject *object)
{
  NatterSearchIndex *self = NATTER_SEARCH_INDEX (object);

  g_clear_pointer (&self->waiters, g_ptr_array_unref);
  g_clear_object (&self->file);
  shared_unref (self->shared);

  G_OBJECT_CLASS (natter_search_index_parent_class)->finalize (object);
}

static void
natter_search_index_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  NatterSearchIndex *self = NATTER_SEARCH_INDEX (object);

  switch (prop_id)
    {
    case PROP_INDEXING:
      g_value_set_boolean (value, self->indexing);
      break;
    case PROP_N_CHECKED:
      g_value_set_uint (value, self->n_checked);
      break;
    case PROP_N_SESSIONS:
      g_value_set_uint (value, self->n_sessions);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_search_index_class_init (NatterSearchIndexClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = natter_search_index_dispose;
  object_class->finalize = natter_search_index_finalize;
  object_class->get_property = natter_search_index_get_property;

  /**
   * NatterSearchIndex:indexing:
   *
   * Whether the start-up check or a build runs: a search meanwhile finds
   * only what is indexed so far.
   */
  properties[PROP_INDEXING] =
    g_param_spec_boolean ("indexing", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * NatterSearchIndex:n-checked:
   *
   * Sessions the running check or build has gone through and committed
   * (natter_search_index_get_progress()).
   */
  properties[PROP_N_CHECKED] =
    g_param_spec_uint ("n-checked", NULL, NULL, 0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * NatterSearchIndex:n-sessions:
   *
   * Sessions on disk the running check or build goes through.
   */
  properties[PROP_N_SESSIONS] =
    g_param_spec_uint ("n-sessions", NULL, NULL, 0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterSearchIndex::unreadable-changed:
   * @self: the search index
   *
   * The sessions with a turn the index could not read
   * (natter_search_index_dup_unreadable()) changed: a job found one
   * damaged, or one mended. Emitted on the main context, also for a
   * single session's recheck, which changes none of the properties.
   */
  signals[SIGNAL_UNREADABLE_CHANGED] = g_signal_new ("unreadable-changed", G_TYPE_FROM_CLASS (klass),
                                                     G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
natter_search_index_init (NatterSearchIndex *self)
{
  Shared *shared = g_new0 (Shared, 1);

  g_atomic_ref_count_init (&shared->ref);
  g_mutex_init (&shared->lock);
  g_mutex_init (&shared->query_lock);
  g_cond_init (&shared->cond);
  g_queue_init (&shared->jobs);
  shared->batch = BATCH;
  shared->match_cap = NATTER_SEARCH_MATCH_CAP;
  shared->removed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  shared->context = g_main_context_ref_thread_default ();
  g_weak_ref_init (&shared->owner, self);
  self->shared = shared;
  self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
}
