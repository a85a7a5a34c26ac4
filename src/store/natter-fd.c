/* natter-fd.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Whole reads and writes of a file descriptor. Each returns %FALSE with
 * errno set, so that the caller words the error for its own file.
 */

#define G_LOG_DOMAIN "natter-store"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "natter-fd-private.h"
#include "natter-store-error.h"

/* Reads @fd to its end into @stack_buffer (@stack_size bytes) or, when
 * that is too small, into a buffer returned in *@out_heap for the caller
 * to free. @size is the file's size when known, else 0: a buffer of
 * @size + 1 bytes is then made at once, so that the read that finds the
 * end needs no reallocation. Does not close @fd. On failure *@out_heap
 * is %NULL and errno says why. */
gboolean
natter_fd_read_all (int     fd,
                    gsize   size,
                    char   *stack_buffer,
                    gsize   stack_size,
                    char  **out_heap,
                    char  **out_contents,
                    gsize  *out_length)
{
  char *buffer = stack_buffer;
  gsize capacity = stack_size;
  gsize length = 0;

  *out_heap = NULL;
  if ((guint64) size + 1 > capacity)
    {
      capacity = size + 1;
      buffer = *out_heap = g_malloc (capacity);
    }

  for (;;)
    {
      gssize n;

      if (length == capacity)
        {
          capacity *= 2;
          if (buffer == stack_buffer)
            {
              buffer = *out_heap = g_malloc (capacity);
              memcpy (buffer, stack_buffer, length);
            }
          else
            buffer = *out_heap = g_realloc (buffer, capacity);
        }
      n = read (fd, buffer + length, capacity - length);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;

          g_clear_pointer (out_heap, g_free);
          errno = saved_errno;
          return FALSE;
        }
      if (n == 0)
        break;
      length += n;
    }

  *out_contents = buffer;
  *out_length = length;
  return TRUE;
}

/* Writes all of @data to @fd. One write() in practice; the loop only
 * covers a short write (disk full, a signal), so that no byte is dropped
 * without an error. */
gboolean
natter_fd_write_all (int         fd,
                     const void *data,
                     gsize       length)
{
  const guint8 *bytes = data;

  while (length > 0)
    {
      gssize written = write (fd, bytes, length);

      if (written < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      bytes += written;
      length -= (gsize) written;
    }
  return TRUE;
}

/* Sets @error to %NATTER_STORE_ERROR_IO for a system call on @path that
 * failed with @saved_errno ("Could not @what @path: reason"), the one
 * wording of every file of the store. Returns %FALSE. */
gboolean
natter_store_set_io_error (GError     **error,
                           int          saved_errno,
                           const char  *what,
                           const char  *path)
{
  g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
               "Could not %s %s: %s", what, path, g_strerror (saved_errno));
  return FALSE;
}

/* As natter_store_set_io_error(), but a file that is not there is
 * %NATTER_STORE_ERROR_NOT_FOUND ("@path does not exist"), which the
 * callers of the repository tell from a failure to read one. Returns
 * %FALSE. */
gboolean
natter_store_set_file_error (GError     **error,
                             int          saved_errno,
                             const char  *what,
                             const char  *path)
{
  if (saved_errno == ENOENT)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND, "%s does not exist", path);
      return FALSE;
    }
  return natter_store_set_io_error (error, saved_errno, what, path);
}
