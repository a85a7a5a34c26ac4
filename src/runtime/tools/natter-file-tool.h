/* natter-file-tool.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-tool.h"

G_BEGIN_DECLS

#define NATTER_TYPE_FILE_TOOL (natter_file_tool_get_type ())

G_DECLARE_DERIVABLE_TYPE (NatterFileTool, natter_file_tool, NATTER, FILE_TOOL, GObject)

/**
 * NatterFileToolClass:
 * @parent_class: the parent class
 * @action: the `action` of the permission request, e.g. `"read"`
 * @run_in: runs the tool; its `path` input is resolved against @cwd
 *   (%NULL: the process's directory), as natter_tool_run_in() says
 *
 * A built-in tool that acts on one file-system path given as its `path`
 * input (docs/runtime.md §8). A subclass sets @action and @run_in in its
 * class_init and gives each instance its descriptor with
 * natter_file_tool_set_descriptor(); running without a working
 * directory and describing the permission request are done here.
 */
struct _NatterFileToolClass
{
  GObjectClass parent_class;

  const char  *action;
  JsonObject *(*run_in) (NatterFileTool          *self,
                         JsonObject              *input,
                         const char              *cwd,
                         NatterToolProgressFunc   progress,
                         gpointer                 progress_data,
                         GCancellable            *cancellable,
                         GError                 **error);
};

void natter_file_tool_set_descriptor (NatterFileTool *self,
                                      const char     *tool_id,
                                      const char     *name,
                                      const char     *description,
                                      const char     *path_description);

G_END_DECLS
