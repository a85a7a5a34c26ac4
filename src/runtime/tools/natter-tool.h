/* natter-tool.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * NatterToolProgressFunc:
 * @progress: (transfer none): any JSON value
 * @user_data: the runtime's data
 *
 * Reports progress from a running sync tool. Called from the tool's
 * worker thread; it returns once `tool_progress` is appended
 * (docs/runtime.md §8).
 */
typedef void (*NatterToolProgressFunc) (JsonNode *progress,
                                        gpointer  user_data);

/**
 * NATTER_TOOL_OUTPUT_MAX_BYTES:
 *
 * The most of a tool's result a model reads, in bytes of UTF-8 (256 KiB,
 * the most read_file reads): a longer text is cut at a character
 * boundary and ends with a note saying so
 * (natter_tool_output_cut()). docs/runtime.md says it to users.
 */
#define NATTER_TOOL_OUTPUT_MAX_BYTES (256 * 1024)

/**
 * NATTER_TOOL_OUTPUT_NOTE_MAX_BYTES:
 *
 * Room for the note of a cut beyond %NATTER_TOOL_OUTPUT_MAX_BYTES: a
 * tool that cut its own result (read_file, a tool server's) is not cut
 * again.
 */
#define NATTER_TOOL_OUTPUT_NOTE_MAX_BYTES 128

#define NATTER_TYPE_TOOL (natter_tool_get_type ())

G_DECLARE_INTERFACE (NatterTool, natter_tool, NATTER, TOOL, GObject)

/**
 * NatterToolInterface:
 * @get_descriptor: `{toolId, name, description, inputSchema, execution,
 *   requiresHuman}`
 * @run: (nullable): executes a sync tool, blocking, in a worker thread;
 *   async tools have none
 * @run_in: (nullable): like @run, with the turn's working directory
 *   (`config.cwd`, or %NULL) against which relative paths resolve; when
 *   set, the runtime calls it instead of @run
 * @describe_request: (nullable): the permission request JSON for one
 *   call (what the tool wants to do, e.g. `{action, path}`), or %NULL
 *   for the generic `{tool, arguments}`
 *
 * A tool of docs/runtime.md §1 and §8.
 */
struct _NatterToolInterface
{
  GTypeInterface parent_iface;

  JsonObject *(*get_descriptor) (NatterTool              *self);
  JsonObject *(*run)            (NatterTool              *self,
                                 JsonObject              *input,
                                 NatterToolProgressFunc   progress,
                                 gpointer                 progress_data,
                                 GCancellable            *cancellable,
                                 GError                 **error);
  JsonObject *(*run_in)         (NatterTool              *self,
                                 JsonObject              *input,
                                 const char              *cwd,
                                 NatterToolProgressFunc   progress,
                                 gpointer                 progress_data,
                                 GCancellable            *cancellable,
                                 GError                 **error);
  JsonNode   *(*describe_request) (NatterTool            *self,
                                   JsonObject            *input,
                                   const char            *cwd);
};

JsonObject *natter_tool_get_descriptor (NatterTool              *self);
const char *natter_tool_get_id         (NatterTool              *self);
gboolean    natter_tool_is_async       (NatterTool              *self);
JsonObject *natter_tool_run            (NatterTool              *self,
                                        JsonObject              *input,
                                        NatterToolProgressFunc   progress,
                                        gpointer                 progress_data,
                                        GCancellable            *cancellable,
                                        GError                 **error);
JsonObject *natter_tool_run_in         (NatterTool              *self,
                                        JsonObject              *input,
                                        const char              *cwd,
                                        NatterToolProgressFunc   progress,
                                        gpointer                 progress_data,
                                        GCancellable            *cancellable,
                                        GError                 **error);
JsonNode   *natter_tool_describe_request (NatterTool            *self,
                                          JsonObject            *input,
                                          const char            *cwd);

const char *natter_tool_strerror       (int                      errnum);
char       *natter_tool_output_cut     (const char              *text,
                                        gsize                    length,
                                        gboolean                *out_cut);

G_END_DECLS
