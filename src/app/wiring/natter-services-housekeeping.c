/* natter-services-housekeeping.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Housekeeping at the two ends of a process, for NatterServices
 * (natter-services.c): the removal of the temporary files that creates
 * killed half-way left beside the logs (and, in the same walk, the
 * ignore patterns of a synchronised data directory), and the flush
 * before exit.
 */

#define G_LOG_DOMAIN "natter-services"

#include "config.h"

#include "natter-services.h"
#include "natter-sync-ignore.h"

/* Leftover temporary files
 *
 * A create killed between writing its first line and linking it into
 * place leaves a temporary file beside the logs, sometimes a second name
 * of a live log; a blob's write killed the same way leaves a whole
 * attachment under a temporary name. Removing one is safe only when its
 * writer is dead: no other process writes while this one holds the lock,
 * and this process's own writes, in whatever thread, are kept apart by
 * natter-store-temp.c, so the walk may run in a worker thread beside
 * them, off the startup path. A file that cannot be removed takes room
 * and harms nothing: it is reported, and the rest goes on. */

typedef struct
{
  NatterJsonlRepo *repos[3];
  NatterBlobStore *blobs;
  NatterStreamKeep *keep;
  GFile           *data_dir;
} LeftoversData;

static void
leftovers_data_free (LeftoversData *data)
{
  for (gsize i = 0; i < G_N_ELEMENTS (data->repos); i++)
    g_clear_object (&data->repos[i]);
  g_clear_object (&data->blobs);
  g_clear_object (&data->keep);
  g_clear_object (&data->data_dir);
  g_free (data);
}

static void
remove_leftovers_thread (GTask        *task,
                         gpointer      source_object,
                         gpointer      task_data,
                         GCancellable *cancellable)
{
  LeftoversData *data = task_data;
  guint total = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (data->repos); i++)
    {
      g_autoptr(GError) error = NULL;
      guint removed = 0;

      if (!natter_jsonl_repo_remove_leftover_temp_files_sync (data->repos[i], &removed, cancellable, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      total += removed;
    }
  {
    g_autoptr(GError) error = NULL;
    guint removed = 0;

    if (!natter_blob_store_remove_leftover_temp_files_sync (data->blobs, &removed, cancellable, &error))
      {
        g_task_return_error (task, g_steal_pointer (&error));
        return;
      }
    total += removed;
  }
  {
    g_autoptr(GError) error = NULL;
    guint removed = 0;

    /* The words kept of answers whose calls the logs have closed since
     * (docs/format.md §11): a process may exit between the two. */
    if (!natter_stream_keep_sweep_sync (data->keep, data->repos[1], &removed, cancellable, &error))
      {
        g_task_return_error (task, g_steal_pointer (&error));
        return;
      }
    total += removed;
  }
  {
    g_autoptr(GError) error = NULL;

    /* While at it: what stays on this device, for a data directory a
     * file synchroniser shares or may come to share (docs/sync.md). An
     * ignore file that cannot be written harms nothing here. */
    if (!natter_sync_ignore_keep_sync (data->data_dir, &error))
      g_message ("Ignore patterns for Syncthing: %s", error->message);
  }
  g_task_return_int (task, total);
}

/**
 * natter_services_remove_leftover_temp_files_async:
 * @self: the services, holding the writer lock
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the calling thread's main context when done; its
 *   source object is %NULL (the services may be gone by then)
 * @user_data: data for @callback
 *
 * Removes, in a worker thread, the temporary files that writes killed
 * half-way left in the storage directory, beside the logs
 * (natter_jsonl_repo_remove_leftover_temp_files_sync()) and the blobs
 * (natter_blob_store_remove_leftover_temp_files_sync()), and the words
 * kept of answers whose calls are closed (natter_stream_keep_sweep_sync()).
 * This process's
 * own writes, before or during the walk, are never touched
 * (natter-store-temp.c); other processes do not write while it holds the
 * lock, and without the lock nothing is removed. The window and the
 * command line start it once they hold the lock.
 */
void
natter_services_remove_leftover_temp_files_async (NatterServices      *self,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  LeftoversData *data;

  g_return_if_fail (NATTER_IS_SERVICES (self));

  /* No source object: the worker holds the repos, not the services, so
   * the services may go while it walks. */
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_services_remove_leftover_temp_files_async);
  if (!natter_services_has_writer_lock (self))
    {
      g_task_return_new_error (task, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED,
                               "This process does not hold the data directory's lock");
      return;
    }
  data = g_new0 (LeftoversData, 1);
  data->repos[0] = g_object_ref (natter_services_get_session_repo (self));
  data->repos[1] = g_object_ref (natter_services_get_turn_repo (self));
  data->repos[2] = g_object_ref (natter_services_get_folder_repo (self));
  data->blobs = g_object_ref (natter_services_get_blob_store (self));
  data->keep = g_object_ref (natter_turn_runtime_get_stream_keep (natter_services_get_runtime (self)));
  data->data_dir = g_object_ref (natter_services_get_data_dir (self));
  g_task_set_task_data (task, data, (GDestroyNotify) leftovers_data_free);
  g_task_run_in_thread (task, remove_leftovers_thread);
}

/**
 * natter_services_remove_leftover_temp_files_finish:
 * @self: (nullable): ignored: the result's source object is %NULL
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: how many files were removed, or -1 with
 *   %NATTER_SESSION_ERROR_LOCKED (this process holds no lock),
 *   %NATTER_STORE_ERROR_IO (a folder could not be listed or a file
 *   removed) or %G_IO_ERROR_CANCELLED
 */
int
natter_services_remove_leftover_temp_files_finish (NatterServices  *self,
                                                   GAsyncResult    *result,
                                                   GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), -1);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        natter_services_remove_leftover_temp_files_async, -1);

  return (int) g_task_propagate_int (G_TASK (result), error);
}

static void
cleaned_up_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GApplication) app = user_data;
  g_autoptr(GError) error = NULL;
  int removed = natter_services_remove_leftover_temp_files_finish (NULL, result, &error);

  /* A file that could not be removed only takes room; the next start
   * tries again. */
  if (removed < 0)
    g_message ("Leftover temporary files: %s", error->message);
  else if (removed > 0)
    g_debug ("Removed %d leftover temporary files", removed);
  g_application_release (app);
}

/**
 * natter_services_clean_up_leftovers:
 * @self: the services, holding the writer lock
 * @app: the application they serve
 *
 * Starts natter_services_remove_leftover_temp_files_async() and keeps
 * @app from exiting until it is done, so a walk is never cut short (what
 * it removed would stay removed; what it had not reached would wait for
 * the next start). Failures are logged. The window calls it once its
 * index is loaded, the command line once it holds the lock: at every
 * start of a writer.
 */
void
natter_services_clean_up_leftovers (NatterServices *self,
                                    GApplication   *app)
{
  g_return_if_fail (NATTER_IS_SERVICES (self));
  g_return_if_fail (G_IS_APPLICATION (app));

  g_application_hold (app);
  natter_services_remove_leftover_temp_files_async (self, NULL, cleaned_up_cb, g_object_ref (app));
}

/* Flushing at exit */

typedef struct
{
  gboolean done;
  gboolean timed_out;
} Flush;

static void
flushed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Flush *flush = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_flush_finish (NATTER_SESSIONS (object), result, &error))
    g_debug ("Flush failed: %s", error->message);
  flush->done = TRUE;
  g_rc_box_release (flush);
}

static gboolean
flush_timeout_cb (gpointer user_data)
{
  Flush *flush = user_data;

  flush->timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

/**
 * natter_services_flush_blocking:
 * @self: the services
 * @timeout_ms: the longest wait, in milliseconds
 *
 * The durability checkpoint before the process exits (dsh-session.md's
 * awaited flush): runs natter_sessions_flush_async() and iterates the
 * thread-default main context until it completes, and the words kept
 * of streaming answers are written or removed (natter_stream_keep_is_busy()),
 * or @timeout_ms pass.
 * For an application's shutdown, when the main loop no longer runs;
 * anywhere else use natter_sessions_flush_async().
 *
 * Returns: %TRUE when every session-layer operation finished in time
 */
gboolean
natter_services_flush_blocking (NatterServices *self,
                                guint           timeout_ms)
{
  g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();
  NatterStreamKeep *keep;
  Flush *flush;
  gboolean done;
  guint timeout_id;

  g_return_val_if_fail (NATTER_IS_SERVICES (self), FALSE);

  keep = natter_turn_runtime_get_stream_keep (natter_services_get_runtime (self));
  flush = g_rc_box_new0 (Flush);

  /* One reference for the flush callback, one for this frame: a flush
   * that outlives the timeout must not write into a dead frame. */
  natter_sessions_flush_async (natter_services_get_sessions (self), NULL, flushed_cb, g_rc_box_acquire (flush));
  timeout_id = g_timeout_add (timeout_ms, flush_timeout_cb, flush);
  /* The words of an answer kept or forgotten last are settled too: a
   * removal cut short would leave them for the next start's sweep. */
  while ((!flush->done || natter_stream_keep_is_busy (keep)) && !flush->timed_out)
    g_main_context_iteration (context, TRUE);
  if (!flush->timed_out)
    g_source_remove (timeout_id);
  else
    g_debug ("Could not flush within %u ms", timeout_ms);
  done = flush->done;
  g_rc_box_release (flush);
  return done;
}
