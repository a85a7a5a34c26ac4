/* natter-fd-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Whole reads and writes of a file descriptor, for the store's files
 * (logs, the scan's fast read, blobs), and the error of a failed system
 * call on one of them. Private to src/store/.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean natter_fd_read_all  (int          fd,
                              gsize        size,
                              char        *stack_buffer,
                              gsize        stack_size,
                              char       **out_heap,
                              char       **out_contents,
                              gsize       *out_length);
gboolean natter_fd_write_all (int          fd,
                              const void  *data,
                              gsize        length);

gboolean natter_store_set_io_error (GError     **error,
                                   int          saved_errno,
                                   const char  *what,
                                   const char  *path);
gboolean natter_store_set_file_error (GError     **error,
                                     int          saved_errno,
                                     const char  *what,
                                     const char  *path);

G_END_DECLS
