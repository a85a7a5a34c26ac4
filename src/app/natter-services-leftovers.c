/* natter-services-leftovers.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The removal of the temporary files that creates killed half-way left
 * beside the logs, for NatterServices (natter-services.c).
 */

#define G_LOG_DOMAIN "natter-services"

#include "config.h"

#include "natter-services-private.h"

/* Leftover temporary files
 *
 * A create killed between writing its first line and linking it into
 * place leaves a temporary file beside the logs, sometimes a second name
 * of a live log. Removing one is safe only when no create can be in
 * progress: no other process writes while this one holds the lock, and
 * what this process made since it took the lock is left alone (by its
 * modification time), so the walk may run in a worker thread beside the
 * process's own writes, off the startup path. A file that cannot be
 * removed takes room and harms nothing: it is reported, and the rest goes
 * on. */

typedef struct
{
  NatterJsonlRepo *repos[2];
  gint64           modified_before;
} LeftoversData;

static void
leftovers_data_free (LeftoversData *data)
{
  for (gsize i = 0; i < G_N_ELEMENTS (data->repos); i++)
    g_clear_object (&data->repos[i]);
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

      if (!natter_jsonl_repo_remove_leftover_temp_files_sync (data->repos[i], data->modified_before,
                                                              &removed, cancellable, &error))
        {
          total += removed;
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      total += removed;
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
 * Removes, in a worker thread, the temporary files that creates killed
 * half-way left in the storage directory
 * (natter_jsonl_repo_remove_leftover_temp_files_sync()): those last
 * modified before natter_services_acquire_writer_lock() took the lock, so
 * this process's own creates, before or during the walk, are never
 * touched. Without the lock nothing is removed.
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
  /* A file system stamps files from a coarse clock that may lag the one
   * the lock time was read from by a few milliseconds; a second's margin
   * keeps a create made just after the lock safe. A leftover made in the
   * second before it waits for the next start. */
  data->modified_before = _natter_services_get_locked_at (self) - G_USEC_PER_SEC;
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
