/* natter-tool-path.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-tool-path"

#include "natter-tool-path.h"

/**
 * natter_tool_path_resolve:
 * @input: (transfer none): the tool arguments, with a string `path`
 * @cwd: (nullable): the turn's working directory (`config.cwd`)
 * @error: return location for a #GError
 *
 * Resolves `path` against @cwd (docs/runtime.md §8): an absolute path is
 * taken as it is, a relative one needs a working directory.
 *
 * Returns: (transfer full) (nullable): the absolute, canonical path, or
 *   %NULL with %G_IO_ERROR_INVALID_ARGUMENT
 */
char *
natter_tool_path_resolve (JsonObject  *input,
                          const char  *cwd,
                          GError     **error)
{
  JsonNode *node = json_object_get_member (input, "path");
  const char *path;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING ||
      *(path = json_node_get_string (node)) == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "The argument “path” must be a non-empty string");
      return NULL;
    }
  if (!g_path_is_absolute (path) && cwd == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "“%s” is relative and this turn has no working directory; use an absolute path",
                   path);
      return NULL;
    }
  return g_canonicalize_filename (path, cwd);
}

/**
 * natter_tool_path_request:
 * @action: what the tool does with the path, e.g. `read`, `list`
 * @input: (transfer none): the tool arguments
 * @cwd: (nullable): the turn's working directory
 *
 * Part of docs/runtime.md §7.
 *
 * Returns: (transfer full): the permission request `{action, path}` with
 *   the absolute path when it resolves, else `{action, path: <as given>}`
 */
JsonNode *
natter_tool_path_request (const char *action,
                          JsonObject *input,
                          const char *cwd)
{
  g_autoptr(JsonObject) request = json_object_new ();
  g_autofree char *path = natter_tool_path_resolve (input, cwd, NULL);
  JsonNode *node;

  json_object_set_string_member (request, "action", action);
  if (path != NULL && g_utf8_validate (path, -1, NULL))
    json_object_set_string_member (request, "path", path);
  else if (json_object_has_member (input, "path"))
    json_object_set_member (request, "path", json_node_copy (json_object_get_member (input, "path")));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, request);
  return node;
}

/**
 * natter_tool_descriptor_new:
 * @tool_id: the registry key
 * @name: the model-facing name
 * @description: what the model reads about the tool
 * @input_schema: the JSON Schema literal of the arguments
 * @is_async: `execution: "async"` rather than `"sync"`
 * @requires_human: `requiresHuman`
 *
 * Returns: (transfer full): a tool descriptor of docs/runtime.md §1
 */
JsonObject *
natter_tool_descriptor_new (const char *tool_id,
                            const char *name,
                            const char *description,
                            const char *input_schema,
                            gboolean    is_async,
                            gboolean    requires_human)
{
  JsonObject *descriptor = json_object_new ();
  JsonNode *schema = json_from_string (input_schema, NULL);

  g_assert (schema != NULL);
  json_object_set_string_member (descriptor, "toolId", tool_id);
  json_object_set_string_member (descriptor, "name", name);
  json_object_set_string_member (descriptor, "description", description);
  json_object_set_member (descriptor, "inputSchema", schema);
  json_object_set_string_member (descriptor, "execution", is_async ? "async" : "sync");
  json_object_set_boolean_member (descriptor, "requiresHuman", requires_human);
  return descriptor;
}

/**
 * natter_tool_result_new:
 * @output: the text the model reads; valid UTF-8
 * @metadata: (transfer full) (nullable): extra facts for the UI
 *
 * Part of docs/runtime.md §8.
 *
 * Returns: (transfer full): a successful `{output, isError: false,
 *   metadata?}`
 */
JsonObject *
natter_tool_result_new (const char *output,
                        JsonObject *metadata)
{
  JsonObject *result = json_object_new ();

  json_object_set_string_member (result, "output", output);
  json_object_set_boolean_member (result, "isError", FALSE);
  if (metadata != NULL)
    json_object_set_object_member (result, "metadata", metadata);
  return result;
}
