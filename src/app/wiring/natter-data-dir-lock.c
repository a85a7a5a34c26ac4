/* natter-data-dir-lock.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The single-writer rule (docs/sessions.md §8.3, architecture.md
 * "Process and data"): all locking in the store and the session layer is
 * in-process, so exactly one process may write a storage directory.
 * GApplication uniqueness covers the usual case; this advisory lock covers
 * the rest (no session bus, a second data dir user, a CLI run with
 * --no-forward). flock() locks belong to the open file description and go
 * away with the process, so a crash never leaves a stale lock behind,
 * and a process that reads meanwhile takes it as soon as it is free.
 */

#define G_LOG_DOMAIN "natter-data-dir-lock"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "natter-data-dir-lock.h"
#include "natter-session-error.h"

struct _NatterDataDirLock
{
  GObject  parent_instance;

  GFile   *dir;
  int      fd;
};

G_DEFINE_FINAL_TYPE (NatterDataDirLock, natter_data_dir_lock, G_TYPE_OBJECT)

static void
natter_data_dir_lock_finalize (GObject *object)
{
  NatterDataDirLock *self = NATTER_DATA_DIR_LOCK (object);

  /* Closing the last descriptor of the description releases the lock. */
  if (self->fd >= 0)
    close (self->fd);
  g_clear_object (&self->dir);

  G_OBJECT_CLASS (natter_data_dir_lock_parent_class)->finalize (object);
}

static void
natter_data_dir_lock_class_init (NatterDataDirLockClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_data_dir_lock_finalize;
}

static void
natter_data_dir_lock_init (NatterDataDirLock *self)
{
  self->fd = -1;
}

/**
 * natter_data_dir_lock_acquire:
 * @storage_dir: (transfer none): the `storage` directory (created if
 *   missing, mode 0700)
 * @error: return location for a #GError
 *
 * Takes the advisory write lock `storage/.lock` (flock, exclusive, never
 * waiting). Hold the returned object for as long as the process may
 * write; dropping the last reference releases the lock. Blocking but
 * instant (no waiting); called at startup, and again every few seconds
 * by a process that could not take it, until the one that held it has
 * ended (natter_services_watch_writer_lock()).
 *
 * Returns: (transfer full) (nullable): the held lock, or %NULL with
 *   %NATTER_SESSION_ERROR_LOCKED ("Another Natter process is using …")
 *   or a %G_IO_ERROR when the directory or lock file cannot be opened
 */
NatterDataDirLock *
natter_data_dir_lock_acquire (GFile   *storage_dir,
                              GError **error)
{
  g_autoptr(NatterDataDirLock) self = NULL;
  g_autofree char *dir_path = NULL;
  g_autofree char *path = NULL;
  int saved_errno;
  int fd;

  g_return_val_if_fail (G_IS_FILE (storage_dir), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  dir_path = g_file_get_path (storage_dir);
  if (dir_path == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "The storage directory must be a local path");
      return NULL;
    }
  if (g_mkdir_with_parents (dir_path, 0700) < 0)
    {
      saved_errno = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "Could not create %s: %s", dir_path, g_strerror (saved_errno));
      return NULL;
    }

  path = g_build_filename (dir_path, NATTER_DATA_DIR_LOCK_NAME, NULL);
  do
    fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    {
      saved_errno = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "Could not open %s: %s", path, g_strerror (saved_errno));
      return NULL;
    }

  self = g_object_new (NATTER_TYPE_DATA_DIR_LOCK, NULL);
  self->fd = fd;
  self->dir = g_object_ref (storage_dir);

  while (flock (fd, LOCK_EX | LOCK_NB) < 0)
    {
      saved_errno = errno;
      if (saved_errno == EINTR)
        continue;
      if (saved_errno == EWOULDBLOCK)
        g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED,
                     "Another Natter process is using %s", dir_path);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                     "Could not lock %s: %s", path, g_strerror (saved_errno));
      return NULL;
    }

  return g_steal_pointer (&self);
}

/**
 * natter_data_dir_lock_get_dir:
 * @self: a held lock
 *
 * Returns: (transfer none): the storage directory it holds
 */
GFile *
natter_data_dir_lock_get_dir (NatterDataDirLock *self)
{
  g_return_val_if_fail (NATTER_IS_DATA_DIR_LOCK (self), NULL);

  return self->dir;
}
