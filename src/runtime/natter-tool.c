/* natter-tool.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-tool"

#include "natter-tool.h"

G_DEFINE_INTERFACE (NatterTool, natter_tool, G_TYPE_OBJECT)

static void
natter_tool_default_init (NatterToolInterface *iface)
{
}

/**
 * natter_tool_get_descriptor:
 * @self: a #NatterTool
 *
 * Returns: (transfer none): the tool's descriptor (docs/runtime.md §1)
 */
JsonObject *
natter_tool_get_descriptor (NatterTool *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL (self), NULL);

  return NATTER_TOOL_GET_IFACE (self)->get_descriptor (self);
}

/**
 * natter_tool_get_id:
 * @self: a #NatterTool
 *
 * The descriptor key of docs/runtime.md §1.
 *
 * Returns: (transfer none): the registry key, `toolId`
 */
const char *
natter_tool_get_id (NatterTool *self)
{
  return json_object_get_string_member (natter_tool_get_descriptor (self), "toolId");
}

/**
 * natter_tool_is_async:
 * @self: a #NatterTool
 *
 * The execution kind of docs/runtime.md §1 and §8.
 *
 * Returns: whether the descriptor says `execution: "async"`
 */
gboolean
natter_tool_is_async (NatterTool *self)
{
  return g_strcmp0 (json_object_get_string_member_with_default (natter_tool_get_descriptor (self),
                                                                "execution", ""),
                    "async") == 0;
}

/**
 * natter_tool_run:
 * @self: a sync #NatterTool
 * @input: (transfer none): the parsed arguments
 * @progress: (nullable): the progress reporter
 * @progress_data: data for @progress
 * @cancellable: (nullable): cancelled when the turn is cancelled
 * @error: return location for a #GError
 *
 * Runs a sync tool (docs/runtime.md §8). Blocks: call it from a worker thread.
 *
 * Returns: (transfer full) (nullable): `{output, isError, metadata?}`, or
 *   %NULL with the tool's error, which the runtime turns into an error
 *   result (tool failures never fail the turn)
 */
JsonObject *
natter_tool_run (NatterTool              *self,
                 JsonObject              *input,
                 NatterToolProgressFunc   progress,
                 gpointer                 progress_data,
                 GCancellable            *cancellable,
                 GError                 **error)
{
  NatterToolInterface *iface;

  g_return_val_if_fail (NATTER_IS_TOOL (self), NULL);

  iface = NATTER_TOOL_GET_IFACE (self);
  if (iface->run == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "Tool “%s” has no executor", natter_tool_get_id (self));
      return NULL;
    }
  return iface->run (self, input, progress, progress_data, cancellable, error);
}

/**
 * natter_tool_run_in:
 * @self: a sync #NatterTool
 * @input: (transfer none): the parsed arguments
 * @cwd: (nullable): the turn's working directory (`config.cwd`), an
 *   absolute path; relative paths in @input resolve against it
 * @progress: (nullable): the progress reporter
 * @progress_data: data for @progress
 * @cancellable: (nullable): cancelled when the turn is cancelled
 * @error: return location for a #GError
 *
 * Runs a sync tool in a turn's working directory (docs/runtime.md §8).
 * Tools without a @run_in implementation ignore @cwd and run as with
 * natter_tool_run(). Blocks: call it from a worker thread.
 *
 * Returns: (transfer full) (nullable): `{output, isError, metadata?}`, or
 *   %NULL with the tool's error (%G_IO_ERROR_NOT_SUPPORTED for a tool
 *   without an executor)
 */
JsonObject *
natter_tool_run_in (NatterTool              *self,
                    JsonObject              *input,
                    const char              *cwd,
                    NatterToolProgressFunc   progress,
                    gpointer                 progress_data,
                    GCancellable            *cancellable,
                    GError                 **error)
{
  NatterToolInterface *iface;

  g_return_val_if_fail (NATTER_IS_TOOL (self), NULL);

  iface = NATTER_TOOL_GET_IFACE (self);
  if (iface->run_in != NULL)
    return iface->run_in (self, input, cwd, progress, progress_data, cancellable, error);
  return natter_tool_run (self, input, progress, progress_data, cancellable, error);
}

/**
 * natter_tool_describe_request:
 * @self: a #NatterTool
 * @input: (transfer none): the parsed arguments
 * @cwd: (nullable): the turn's working directory
 *
 * What one call of the tool would do, as the permission request shown to
 * a human (docs/runtime.md §7), e.g. `{"action":"read","path":"/abs"}`.
 *
 * Returns: (transfer full) (nullable): the request, or %NULL when the
 *   tool does not describe its calls (the checker then shows the
 *   generic `{tool, arguments}`)
 */
JsonNode *
natter_tool_describe_request (NatterTool *self,
                              JsonObject *input,
                              const char *cwd)
{
  NatterToolInterface *iface;

  g_return_val_if_fail (NATTER_IS_TOOL (self), NULL);

  iface = NATTER_TOOL_GET_IFACE (self);
  if (iface->describe_request == NULL)
    return NULL;
  return iface->describe_request (self, input, cwd);
}
