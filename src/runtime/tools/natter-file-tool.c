/* natter-file-tool.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * NatterFileTool: what read_file and list_directory share as tools — a
 * descriptor, a run without a working directory, and a permission
 * request naming the absolute path. Each subclass only does its work.
 */

#define G_LOG_DOMAIN "natter-file-tool"

#include "natter-file-tool.h"
#include "natter-tool-path.h"

#include <string.h>

typedef struct
{
  JsonObject *descriptor;
} NatterFileToolPrivate;

static void tool_iface_init (NatterToolInterface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (NatterFileTool, natter_file_tool, G_TYPE_OBJECT,
                                  G_ADD_PRIVATE (NatterFileTool)
                                  G_IMPLEMENT_INTERFACE (NATTER_TYPE_TOOL, tool_iface_init))

static JsonObject *
natter_file_tool_get_descriptor (NatterTool *tool)
{
  NatterFileToolPrivate *priv = natter_file_tool_get_instance_private (NATTER_FILE_TOOL (tool));

  return priv->descriptor;
}

static JsonObject *
natter_file_tool_run_in (NatterTool              *tool,
                         JsonObject              *input,
                         const char              *cwd,
                         NatterToolProgressFunc   progress,
                         gpointer                 progress_data,
                         GCancellable            *cancellable,
                         GError                 **error)
{
  return NATTER_FILE_TOOL_GET_CLASS (tool)->run_in (NATTER_FILE_TOOL (tool), input, cwd, progress,
                                                    progress_data, cancellable, error);
}

static JsonObject *
natter_file_tool_run (NatterTool              *tool,
                      JsonObject              *input,
                      NatterToolProgressFunc   progress,
                      gpointer                 progress_data,
                      GCancellable            *cancellable,
                      GError                 **error)
{
  return natter_file_tool_run_in (tool, input, NULL, progress, progress_data, cancellable, error);
}

static JsonNode *
natter_file_tool_describe_request (NatterTool *tool,
                                   JsonObject *input,
                                   const char *cwd)
{
  return natter_tool_path_request (NATTER_FILE_TOOL_GET_CLASS (tool)->action, input, cwd);
}

static void
tool_iface_init (NatterToolInterface *iface)
{
  iface->get_descriptor = natter_file_tool_get_descriptor;
  iface->run = natter_file_tool_run;
  iface->run_in = natter_file_tool_run_in;
  iface->describe_request = natter_file_tool_describe_request;
}

static void
natter_file_tool_finalize (GObject *object)
{
  NatterFileToolPrivate *priv = natter_file_tool_get_instance_private (NATTER_FILE_TOOL (object));

  g_clear_pointer (&priv->descriptor, json_object_unref);
  G_OBJECT_CLASS (natter_file_tool_parent_class)->finalize (object);
}

static void
natter_file_tool_class_init (NatterFileToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_file_tool_finalize;
}

static void
natter_file_tool_init (NatterFileTool *self)
{
}

/**
 * natter_file_tool_set_descriptor:
 * @self: a file tool
 * @tool_id: the registry key
 * @name: the model-facing name
 * @description: what the model reads about the tool
 * @path_description: what the model reads about its one input, `path`;
 *   plain text, without a quotation mark or backslash
 *
 * Gives the tool its descriptor (natter_tool_get_descriptor(), docs/runtime.md
 * §1): sync, no human needed, and the input schema every file tool has,
 * an object with one required string `path`. Called once, from the
 * subclass's init.
 */
void
natter_file_tool_set_descriptor (NatterFileTool *self,
                                 const char     *tool_id,
                                 const char     *name,
                                 const char     *description,
                                 const char     *path_description)
{
  NatterFileToolPrivate *priv = natter_file_tool_get_instance_private (self);
  g_autofree char *schema = NULL;

  g_return_if_fail (NATTER_IS_FILE_TOOL (self));
  g_return_if_fail (tool_id != NULL && name != NULL && description != NULL);
  /* Put into the schema's JSON as it is. */
  g_return_if_fail (path_description != NULL && strpbrk (path_description, "\"\\") == NULL);

  schema = g_strdup_printf ("{\"type\":\"object\",\"properties\":{\"path\":"
                            "{\"type\":\"string\",\"description\":\"%s\"}},"
                            "\"required\":[\"path\"]}",
                            path_description);
  g_clear_pointer (&priv->descriptor, json_object_unref);
  priv->descriptor = natter_tool_descriptor_new (tool_id, name, description, schema, FALSE, FALSE);
}
