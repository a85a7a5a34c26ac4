/* natter-store-watch.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Files another process or device writes while this one runs
 * (docs/sessions.md §8.5): a file synchroniser bringing what another
 * device wrote, or a command of another user of the same folder. The
 * session, turn and folder logs are partitioned by day, `YYYY/MM/DD/<id>.jsonl`
 * (docs/format.md §1); every partition folder, and every folder above
 * one, is watched (GFileMonitor, one inotify watch each: a few per day
 * of use, not per conversation), and a partition that appears is
 * watched from then on, the files already in it taken as changed.
 *
 * A change names a log by its id, or a conflict copy a synchroniser
 * kept of one by the copy's name (docs/format.md §9): a copy that
 * arrives, or goes, shows at once. Changes are gathered for a moment and
 * handed over together (natter_sessions_refresh_async()), so a burst —
 * Syncthing bringing a thousand files — is read in a few batches, each
 * in a worker thread, and only the logs that changed are read; of those,
 * the files this process wrote itself, as it left them, are passed over
 * (natter_sessions_refresh_async()). While nothing changes, nothing is
 * done.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include <errno.h>
#include <string.h>

#include "natter-id.h"
#include "natter-folders.h"
#include "natter-store-watch.h"
#include "natter-sync-conflict-name.h"

/* How long changes are gathered before they are read: Syncthing
 * renames each file into place, a burst of them in a row. */
#define DEFAULT_DELAY_MS 150
/* The folders below a tree's top: year, month, day. */
#define PARTITION_DEPTH 3

typedef enum
{
  TREE_SESSIONS,
  TREE_TURNS,
  TREE_FOLDERS,
} Tree;

typedef struct
{
  NatterStoreWatch *watch;   /* not owned */
  GFileMonitor     *monitor;
  char             *path;
  guint             depth;   /* 0: the tree's top; PARTITION_DEPTH: a day */
  Tree              tree;
} Watched;

struct _NatterStoreWatch
{
  GObject         parent_instance;

  NatterSessions *sessions;
  NatterFolders  *folders;            /* nullable */
  GFile          *storage_dir;
  GHashTable     *watched;            /* path → Watched */
  GHashTable     *changed_sessions;   /* id set */
  GHashTable     *changed_turns;      /* id set */
  gboolean        folders_changed;
  gboolean        loading_folders;
  guint           flush_id;
  gboolean        refreshing;
  guint           delay_ms;
  guint           n_refreshes;
  GCancellable   *cancellable;
};

G_DEFINE_FINAL_TYPE (NatterStoreWatch, natter_store_watch, G_TYPE_OBJECT)

static void
watched_free (Watched *watched)
{
  g_signal_handlers_disconnect_by_data (watched->monitor, watched);
  g_file_monitor_cancel (watched->monitor);
  g_object_unref (watched->monitor);
  g_free (watched->path);
  g_free (watched);
}

static void
natter_store_watch_dispose (GObject *object)
{
  NatterStoreWatch *self = NATTER_STORE_WATCH (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->flush_id, g_source_remove);
  g_clear_pointer (&self->watched, g_hash_table_unref);
  G_OBJECT_CLASS (natter_store_watch_parent_class)->dispose (object);
}

static void
natter_store_watch_finalize (GObject *object)
{
  NatterStoreWatch *self = NATTER_STORE_WATCH (object);

  g_clear_object (&self->sessions);
  g_clear_object (&self->folders);
  g_clear_object (&self->storage_dir);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->changed_sessions, g_hash_table_unref);
  g_clear_pointer (&self->changed_turns, g_hash_table_unref);
  G_OBJECT_CLASS (natter_store_watch_parent_class)->finalize (object);
}

static void
natter_store_watch_class_init (NatterStoreWatchClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = natter_store_watch_dispose;
  G_OBJECT_CLASS (klass)->finalize = natter_store_watch_finalize;
}

static void
natter_store_watch_init (NatterStoreWatch *self)
{
  self->watched = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) watched_free);
  self->changed_sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->changed_turns = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->cancellable = g_cancellable_new ();
  self->delay_ms = DEFAULT_DELAY_MS;
}

/**
 * natter_store_watch_new:
 * @sessions: the session service, which reads what changed
 * @folders: (nullable): the folder list, read again when a folder log
 *   changes
 * @storage_dir: the `storage` folder of the data directory
 *
 * A watch over the session, turn and folder logs of @storage_dir
 * (docs/sessions.md §8.5). Nothing is watched before
 * natter_store_watch_start().
 *
 * Returns: (transfer full): the watch
 */
NatterStoreWatch *
natter_store_watch_new (NatterSessions *sessions,
                        NatterFolders  *folders,
                        GFile          *storage_dir)
{
  NatterStoreWatch *self;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (folders == NULL || NATTER_IS_FOLDERS (folders), NULL);
  g_return_val_if_fail (G_IS_FILE (storage_dir), NULL);

  self = g_object_new (NATTER_TYPE_STORE_WATCH, NULL);
  self->sessions = g_object_ref (sessions);
  self->folders = folders != NULL ? g_object_ref (folders) : NULL;
  self->storage_dir = g_object_ref (storage_dir);
  return self;
}

/**
 * natter_store_watch_set_delay:
 * @self: the watch
 * @delay_ms: how long changes are gathered before they are read, in
 *   milliseconds
 *
 * For tests, which need not wait for a burst to end.
 */
void
natter_store_watch_set_delay (NatterStoreWatch *self,
                              guint             delay_ms)
{
  g_return_if_fail (NATTER_IS_STORE_WATCH (self));
  self->delay_ms = delay_ms;
}

/**
 * natter_store_watch_get_n_refreshes:
 * @self: the watch
 *
 * Returns: how many batches of changes were read, for tests that check
 *   that a burst is read in few and that nothing is read without change
 */
guint
natter_store_watch_get_n_refreshes (NatterStoreWatch *self)
{
  g_return_val_if_fail (NATTER_IS_STORE_WATCH (self), 0);
  return self->n_refreshes;
}

/**
 * natter_store_watch_get_n_watched:
 * @self: the watch
 *
 * Returns: how many folders are watched
 */
guint
natter_store_watch_get_n_watched (NatterStoreWatch *self)
{
  g_return_val_if_fail (NATTER_IS_STORE_WATCH (self), 0);
  return g_hash_table_size (self->watched);
}

static void schedule_flush (NatterStoreWatch *self);

static void
refreshed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(NatterStoreWatch) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_refresh_finish (NATTER_SESSIONS (object), result, &error))
    return;
  self->refreshing = FALSE;
  self->n_refreshes++;
  /* What changed while this batch was read is the next batch. */
  if (g_hash_table_size (self->changed_sessions) > 0 || g_hash_table_size (self->changed_turns) > 0)
    schedule_flush (self);
}

static void
folders_loaded_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(NatterStoreWatch) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_folders_load_finish (NATTER_FOLDERS (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("Folders changed elsewhere: %s", error->message);
      return;
    }
  self->loading_folders = FALSE;
  if (self->folders_changed)
    schedule_flush (self);
}

static gboolean
flush_cb (gpointer data)
{
  NatterStoreWatch *self = data;
  g_autofree GStrv sessions = NULL;
  g_autofree GStrv turns = NULL;

  self->flush_id = 0;
  /* Folders are few: their list is read again whole. */
  if (self->folders_changed && !self->loading_folders && self->folders != NULL)
    {
      self->folders_changed = FALSE;
      self->loading_folders = TRUE;
      natter_folders_load_async (self->folders, self->cancellable, folders_loaded_cb, g_object_ref (self));
    }
  if (self->refreshing ||
      (g_hash_table_size (self->changed_sessions) == 0 && g_hash_table_size (self->changed_turns) == 0))
    return G_SOURCE_REMOVE;
  sessions = (GStrv) g_hash_table_get_keys_as_array (self->changed_sessions, NULL);
  turns = (GStrv) g_hash_table_get_keys_as_array (self->changed_turns, NULL);
  /* The keys go with the tables' new owners: the arrays above hold
   * them until the read has begun. */
  g_hash_table_steal_all (self->changed_sessions);
  g_hash_table_steal_all (self->changed_turns);
  self->refreshing = TRUE;
  natter_sessions_refresh_async (self->sessions, (const char * const *) sessions, (const char * const *) turns,
                                 self->cancellable, refreshed_cb, g_object_ref (self));
  for (guint i = 0; sessions[i] != NULL; i++)
    g_free (sessions[i]);
  for (guint i = 0; turns[i] != NULL; i++)
    g_free (turns[i]);
  return G_SOURCE_REMOVE;
}

static void
schedule_flush (NatterStoreWatch *self)
{
  if (self->flush_id == 0)
    self->flush_id = g_timeout_add (self->delay_ms, flush_cb, self);
}

/* The name a log's file is read by — its id, or the name of a conflict
 * copy a synchroniser kept of it (docs/format.md §9), well formed or
 * not, so that a bad one is reported rather than passed over — or NULL
 * for any other file (a temporary file, Syncthing's own). */
static char *
log_id (const char *name)
{
  gsize length = strlen (name);
  g_autofree char *id = NULL;

  if (length <= strlen (".jsonl") || !g_str_has_suffix (name, ".jsonl") || name[0] == '.')
    return NULL;
  id = g_strndup (name, length - strlen (".jsonl"));
  if (natter_sync_conflict_is_candidate (id))
    return g_steal_pointer (&id);
  if (length != NATTER_ID_LENGTH + strlen (".jsonl") || !natter_id_validate (id, NULL))
    return NULL;
  return g_steal_pointer (&id);
}

static void watch_dir (NatterStoreWatch *self,
                       const char       *path,
                       guint             depth,
                       Tree              tree,
                       gboolean          take_files);

/* Takes @id (transfer full), a log of @tree, as changed. */
static void
take_change (NatterStoreWatch *self,
             Tree              tree,
             char             *id)
{
  switch (tree)
    {
    case TREE_SESSIONS:
      g_hash_table_add (self->changed_sessions, id);
      break;
    case TREE_TURNS:
      g_hash_table_add (self->changed_turns, id);
      break;
    case TREE_FOLDERS:
    default:
      self->folders_changed = TRUE;
      g_free (id);
      break;
    }
}

static void
changed_cb (GFileMonitor      *monitor,
            GFile             *file,
            GFile             *other_file,
            GFileMonitorEvent  event,
            Watched           *watched)
{
  NatterStoreWatch *self = watched->watch;
  GFile *subject = file;
  g_autofree char *name = NULL;

  switch (event)
    {
    case G_FILE_MONITOR_EVENT_RENAMED:
      /* Renamed into place: the new name is the log. The old one, if a
       * log, is gone. */
      if (other_file != NULL)
        subject = other_file;
      break;
    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
      break;
    default:
      return;
    }

  name = g_file_get_basename (subject);
  if (watched->depth < PARTITION_DEPTH)
    {
      /* A new year, month or day: watch it, and take what is already in it. */
      if (event != G_FILE_MONITOR_EVENT_DELETED && event != G_FILE_MONITOR_EVENT_MOVED_OUT)
        {
          g_autofree char *path = g_file_get_path (subject);

          if (path != NULL && g_file_test (path, G_FILE_TEST_IS_DIR) &&
              !g_hash_table_contains (self->watched, path))
            watch_dir (self, path, watched->depth + 1, watched->tree, TRUE);
        }
      return;
    }

  {
    char *id = log_id (name);

    if (id == NULL)
      return;
    take_change (self, watched->tree, id);
    /* A log renamed away from its name is gone under that name too. */
    if (event == G_FILE_MONITOR_EVENT_RENAMED && subject != file)
      {
        g_autofree char *old_name = g_file_get_basename (file);
        char *old_id = log_id (old_name);

        if (old_id != NULL)
          take_change (self, watched->tree, old_id);
      }
  }
  schedule_flush (self);
}

/* Watches @path (a folder @depth below its tree's top) and, below a
 * partition, every folder in it; with @take_files, the logs already in
 * a partition count as changed (they arrived before the watch). */
static void
watch_dir (NatterStoreWatch *self,
           const char       *path,
           guint             depth,
           Tree              tree,
           gboolean          take_files)
{
  g_autoptr(GFile) dir = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) listing = NULL;
  Watched *watched;
  GFileMonitor *monitor;
  const char *name;

  monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (monitor == NULL)
    {
      /* Changes there show at the next start, as before. */
      g_message ("Not watching %s: %s", path, error->message);
      return;
    }
  watched = g_new0 (Watched, 1);
  watched->watch = self;
  watched->monitor = monitor;
  watched->path = g_strdup (path);
  watched->depth = depth;
  watched->tree = tree;
  g_hash_table_replace (self->watched, watched->path, watched);
  g_signal_connect (monitor, "changed", G_CALLBACK (changed_cb), watched);

  /* A partition's files are read only when it is new; above them, the
   * folders are listed after the watch began, so nothing falls between
   * the two. */
  if (depth == PARTITION_DEPTH && !take_files)
    return;
  listing = g_dir_open (path, 0, NULL);
  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (depth < PARTITION_DEPTH)
        {
          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_hash_table_contains (self->watched, child))
            watch_dir (self, child, depth + 1, tree, take_files);
        }
      else if (take_files)
        {
          char *id = log_id (name);

          if (id != NULL)
            {
              take_change (self, tree, id);
              schedule_flush (self);
            }
        }
    }
}

/**
 * natter_store_watch_start:
 * @self: the watch
 *
 * Begins watching (docs/sessions.md §8.5): every partition folder of the
 * session, turn and folder logs, made if missing so that the first log another
 * device brings is seen. The files already there are what the startup
 * scan read: only what changes from now on is read again. Call it once
 * the index is loaded.
 */
void
natter_store_watch_start (NatterStoreWatch *self)
{
  static const char * const trees[] = { [TREE_SESSIONS] = "sessions", [TREE_TURNS] = "turns",
                                         [TREE_FOLDERS] = "folders" };

  g_return_if_fail (NATTER_IS_STORE_WATCH (self));

  for (guint i = 0; i < G_N_ELEMENTS (trees); i++)
    {
      g_autoptr(GFile) top = g_file_get_child (self->storage_dir, trees[i]);
      g_autofree char *path = g_file_get_path (top);

      if (g_hash_table_contains (self->watched, path))
        continue;
      if (g_mkdir_with_parents (path, 0700) != 0)
        {
          g_message ("Not watching %s: %s", path, g_strerror (errno));
          continue;
        }
      watch_dir (self, path, 0, (Tree) i, FALSE);
    }
}
