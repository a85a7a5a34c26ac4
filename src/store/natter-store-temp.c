/* natter-store-temp.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which temporary files of the storage directory are live. A write that
 * must appear whole (a log's first line, a blob) goes to a temporary
 * file that is then linked into place and removed; a kill in between
 * leaves the temporary file behind, and the next start removes it. A
 * temporary file is live only while its writer runs, and only one
 * process writes the storage directory (the advisory lock of
 * natter-data-dir-lock.c), so the live ones are this process's, made by
 * whichever of its threads writes. Each such write holds this lock for
 * reading from before it creates its temporary file until it has
 * removed it; a sweep holds it for writing while it removes what it
 * found: then no write of the process is in that span, and every
 * temporary file there is is a dead one's. No clock is trusted: a file's
 * time says nothing once the wall clock has been set back.
 */

#define G_LOG_DOMAIN "natter-store"

#include <errno.h>

#include <glib/gstdio.h>

#include "natter-store-error.h"
#include "natter-store-temp.h"

static GRWLock temp_lock;

/**
 * natter_store_temp_begin:
 *
 * A write of this thread is about to create a temporary file in the
 * storage directory: until natter_store_temp_end(), no sweep removes
 * one. Writes of several threads may be in this span at once; a thread
 * must not enter it twice.
 */
void
natter_store_temp_begin (void)
{
  g_rw_lock_reader_lock (&temp_lock);
}

/**
 * natter_store_temp_end:
 *
 * The write that called natter_store_temp_begin() has removed its
 * temporary file (or never made one).
 */
void
natter_store_temp_end (void)
{
  g_rw_lock_reader_unlock (&temp_lock);
}

/**
 * natter_store_temp_sweep_begin:
 *
 * Waits until no write of this process is between
 * natter_store_temp_begin() and natter_store_temp_end(), and keeps new
 * ones out until natter_store_temp_sweep_end(): every temporary file in
 * the storage directory found before is then a dead writer's, for the
 * caller to remove — provided this process holds the storage
 * directory's lock, so that no other process writes. Keep the span
 * short: writes wait for it.
 */
void
natter_store_temp_sweep_begin (void)
{
  g_rw_lock_writer_lock (&temp_lock);
}

/**
 * natter_store_temp_sweep_end:
 *
 * Ends the span natter_store_temp_sweep_begin() started.
 */
void
natter_store_temp_sweep_end (void)
{
  g_rw_lock_writer_unlock (&temp_lock);
}

/**
 * natter_store_temp_remove_leftovers:
 * @paths: (element-type filename): temporary files a sweep found, by
 *   their names (only names a write of the store gives its temporary
 *   files)
 * @removed: (inout): counts the files removed
 * @error: return location for a #GError
 *
 * Removes @paths between natter_store_temp_sweep_begin() and
 * natter_store_temp_sweep_end(): each is a dead writer's then (this
 * process holding the storage directory's lock), or already gone (a
 * write of this process that was under way when it was found has
 * removed its own since; mkstemp never gives a new file a name that
 * exists). A temporary log file that a kill left after its link is a
 * second name of the live log: removing it removes that name only.
 *
 * Returns: %TRUE, or %FALSE with %NATTER_STORE_ERROR_IO naming the file
 *   that could not be removed (those before it stay removed)
 */
gboolean
natter_store_temp_remove_leftovers (GPtrArray  *paths,
                                    guint      *removed,
                                    GError    **error)
{
  gboolean ok = TRUE;

  if (paths->len == 0)
    return TRUE;
  natter_store_temp_sweep_begin ();
  for (guint i = 0; ok && i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);

      if (g_unlink (path) == 0)
        {
          g_debug ("Removed %s, left by an interrupted write", path);
          (*removed)++;
        }
      else if (errno != ENOENT)
        {
          int saved_errno = errno;

          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
                       "Could not remove the leftover temporary file %s: %s", path, g_strerror (saved_errno));
          ok = FALSE;
        }
    }
  natter_store_temp_sweep_end ();
  return ok;
}
