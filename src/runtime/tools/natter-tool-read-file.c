/* natter-tool-read-file.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * read_file {path}: the text of one regular file (docs/runtime.md §8).
 *
 * It must never hang a turn or hand the model something it cannot read:
 * the path is stat()ed first and anything but a regular file (directory,
 * FIFO, socket, device) is refused before it is opened; the open itself
 * is O_NONBLOCK, and the descriptor is checked again, so a file swapped
 * for a FIFO in between cannot block the worker. At most
 * %NATTER_READ_FILE_MAX_BYTES are read and a cut says so. Content that is
 * not UTF-8 (or holds NUL bytes) is reported as binary, never passed raw:
 * a turn file only holds valid UTF-8.
 */

#define G_LOG_DOMAIN "natter-tool-read-file"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "natter-builtin-tools.h"
#include "natter-file-tool.h"
#include "natter-tool-path.h"

struct _NatterToolReadFile
{
  NatterFileTool parent_instance;
};

G_DEFINE_FINAL_TYPE (NatterToolReadFile, natter_tool_read_file, NATTER_TYPE_FILE_TOOL)

static gboolean
set_errno_error (GError     **error,
                 int          saved_errno,
                 const char  *what,
                 const char  *path)
{
  g_autofree char *display = g_filename_display_name (path);

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               "Cannot %s “%s”: %s", what, display, natter_tool_strerror (saved_errno));
  return FALSE;
}

static gboolean
refuse_non_regular (GError     **error,
                    const char  *path,
                    mode_t       mode)
{
  g_autofree char *display = g_filename_display_name (path);

  g_set_error (error, G_IO_ERROR, S_ISDIR (mode) ? G_IO_ERROR_IS_DIRECTORY : G_IO_ERROR_NOT_REGULAR_FILE,
               S_ISDIR (mode) ? "“%s” is a directory; use list_directory"
                              : "“%s” is not a regular file (a FIFO, socket or device); it was not opened",
               display);
  return FALSE;
}

static JsonObject *
natter_tool_read_file_run_in (NatterFileTool          *tool,
                              JsonObject              *input,
                              const char              *cwd,
                              NatterToolProgressFunc   progress,
                              gpointer                 progress_data,
                              GCancellable            *cancellable,
                              GError                 **error)
{
  g_autofree char *path = natter_tool_path_resolve (input, cwd, error);
  g_autofree char *display = NULL;
  g_autofree char *buffer = NULL;
  g_autofree char *output = NULL;
  JsonObject *metadata;
  GStatBuf st;
  gsize want;
  gsize got = 0;
  gsize shown;
  gboolean truncated;
  const char *end;
  int fd;

  if (path == NULL)
    return NULL;
  if (g_stat (path, &st) != 0)
    {
      set_errno_error (error, errno, "read", path);
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      refuse_non_regular (error, path, st.st_mode);
      return NULL;
    }

  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      set_errno_error (error, errno, "open", path);
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      int saved_errno = errno;

      g_close (fd, NULL);
      if (S_ISREG (st.st_mode))
        set_errno_error (error, saved_errno, "read", path);
      else
        refuse_non_regular (error, path, st.st_mode);
      return NULL;
    }

  /* One byte more than shown tells whether the file goes on, even if it
   * grew since fstat(). */
  want = MIN ((gsize) st.st_size, NATTER_READ_FILE_MAX_BYTES) + 1;
  buffer = g_malloc (want + 1);
  while (got < want)
    {
      gssize n;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          g_close (fd, NULL);
          return NULL;
        }
      n = read (fd, buffer + got, MIN (want - got, 64 * 1024));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;

          g_close (fd, NULL);
          set_errno_error (error, saved_errno, "read", path);
          return NULL;
        }
      if (n == 0)
        break;
      got += n;
    }
  g_close (fd, NULL);

  truncated = got > NATTER_READ_FILE_MAX_BYTES;
  shown = MIN (got, NATTER_READ_FILE_MAX_BYTES);
  buffer[shown] = '\0';
  display = g_filename_display_name (path);
  metadata = json_object_new ();
  json_object_set_string_member (metadata, "path", display);
  json_object_set_int_member (metadata, "size", MAX ((gint64) st.st_size, (gint64) got));

  /* A cut may split the last character: that alone is not binary. */
  if (!g_utf8_validate_len (buffer, shown, &end) &&
      !(truncated && shown - (gsize) (end - buffer) < 4 &&
        g_utf8_get_char_validated (end, shown - (end - buffer)) == (gunichar) -2))
    {
      json_object_set_boolean_member (metadata, "binary", TRUE);
      output = g_strdup_printf ("[binary file: “%s” is not UTF-8 text (%" G_GINT64_FORMAT " bytes); "
                                "its content is not shown]",
                                display, (gint64) MAX ((gint64) st.st_size, (gint64) got));
      return natter_tool_result_new (output, metadata);
    }
  shown = end - buffer;
  buffer[shown] = '\0';
  json_object_set_boolean_member (metadata, "truncated", truncated);
  if (truncated)
    output = g_strdup_printf ("%s\n[truncated: %" G_GSIZE_FORMAT " of %" G_GINT64_FORMAT " bytes shown]",
                              buffer, shown, MAX ((gint64) st.st_size, (gint64) got));
  else
    output = g_steal_pointer (&buffer);
  return natter_tool_result_new (output, metadata);
}

static void
natter_tool_read_file_class_init (NatterToolReadFileClass *klass)
{
  NatterFileToolClass *file_tool_class = NATTER_FILE_TOOL_CLASS (klass);

  file_tool_class->action = "read";
  file_tool_class->run_in = natter_tool_read_file_run_in;
}

static void
natter_tool_read_file_init (NatterToolReadFile *self)
{
  natter_file_tool_set_descriptor (NATTER_FILE_TOOL (self), NATTER_TOOL_ID_READ_FILE, "read_file",
                                   "Read a text file. Relative paths are resolved against "
                                   "the session's working directory. Long files are cut.",
                                   "The file to read");
}

/**
 * natter_tool_read_file_new:
 *
 * The read_file tool of docs/runtime.md §8: sync, input `{path}`, needs
 * permission (request `{action: "read", path}`), reads regular files
 * only, at most %NATTER_READ_FILE_MAX_BYTES, text only.
 *
 * Returns: (transfer full): the tool
 */
NatterTool *
natter_tool_read_file_new (void)
{
  return g_object_new (NATTER_TYPE_TOOL_READ_FILE, NULL);
}
