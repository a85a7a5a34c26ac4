/* natter-tool-list-directory.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * list_directory {path}: the names in one directory, sorted, directories
 * marked with a trailing `/` (docs/runtime.md §8). At most
 * %NATTER_LIST_DIRECTORY_MAX_ENTRIES are shown and a cut says so. Names
 * that are not UTF-8 are shown in their display form, since a turn file
 * only holds valid UTF-8.
 */

#define G_LOG_DOMAIN "natter-tool-list-directory"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "natter-builtin-tools.h"
#include "natter-file-tool.h"
#include "natter-tool-path.h"

struct _NatterToolListDirectory
{
  NatterFileTool parent_instance;
};

G_DEFINE_FINAL_TYPE (NatterToolListDirectory, natter_tool_list_directory, NATTER_TYPE_FILE_TOOL)

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static JsonObject *
natter_tool_list_directory_run_in (NatterFileTool          *tool,
                                   JsonObject              *input,
                                   const char              *cwd,
                                   NatterToolProgressFunc   progress,
                                   gpointer                 progress_data,
                                   GCancellable            *cancellable,
                                   GError                 **error)
{
  g_autofree char *path = natter_tool_path_resolve (input, cwd, error);
  g_autofree char *display = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) output = g_string_new (NULL);
  JsonObject *metadata;
  const char *name;
  GStatBuf st;
  guint shown;

  if (path == NULL)
    return NULL;
  display = g_filename_display_name (path);
  if (g_stat (path, &st) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "Cannot list “%s”: %s", display, natter_tool_strerror (saved_errno));
      return NULL;
    }
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                   "“%s” is not a directory", display);
      return NULL;
    }
  dir = g_dir_open (path, 0, error);
  if (dir == NULL)
    return NULL;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      if (names->len % 1024 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      g_ptr_array_add (names, g_strdup (name));
    }
  g_ptr_array_sort (names, compare_names);

  shown = MIN (names->len, NATTER_LIST_DIRECTORY_MAX_ENTRIES);
  for (guint i = 0; i < shown; i++)
    {
      const char *entry = g_ptr_array_index (names, i);
      g_autofree char *full = g_build_filename (path, entry, NULL);
      g_autofree char *entry_display = g_filename_display_name (entry);

      g_string_append_printf (output, "%s%s%s", i > 0 ? "\n" : "", entry_display,
                              g_file_test (full, G_FILE_TEST_IS_DIR) ? "/" : "");
    }
  if (names->len == 0)
    g_string_append (output, "[empty directory]");
  else if (shown < names->len)
    g_string_append_printf (output, "\n[truncated: %u of %u entries shown]", shown, names->len);

  metadata = json_object_new ();
  json_object_set_string_member (metadata, "path", display);
  json_object_set_int_member (metadata, "entries", names->len);
  json_object_set_boolean_member (metadata, "truncated", shown < names->len);
  return natter_tool_result_new (output->str, metadata);
}

static void
natter_tool_list_directory_class_init (NatterToolListDirectoryClass *klass)
{
  NatterFileToolClass *file_tool_class = NATTER_FILE_TOOL_CLASS (klass);

  file_tool_class->action = "list";
  file_tool_class->run_in = natter_tool_list_directory_run_in;
}

static void
natter_tool_list_directory_init (NatterToolListDirectory *self)
{
  natter_file_tool_set_descriptor (NATTER_FILE_TOOL (self), NATTER_TOOL_ID_LIST_DIRECTORY, "list_directory",
                                   "List the entries of a directory, sorted; "
                                   "directories end with “/”. Relative paths are "
                                   "resolved against the session's working directory.",
                                   "The directory to list");
}

/**
 * natter_tool_list_directory_new:
 *
 * The list_directory tool of docs/runtime.md §8: sync, input `{path}`,
 * needs permission (request `{action: "list", path}`), sorted, at most
 * %NATTER_LIST_DIRECTORY_MAX_ENTRIES entries.
 *
 * Returns: (transfer full): the tool
 */
NatterTool *
natter_tool_list_directory_new (void)
{
  return g_object_new (NATTER_TYPE_TOOL_LIST_DIRECTORY, NULL);
}
