/* natter-mcp-client-tools.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tool methods of the MCP client: `tools/list` through its pages,
 * and `tools/call`, over natter_mcp_client_request_async().
 */

#define G_LOG_DOMAIN "natter-mcp"

#include "natter-mcp-client-private.h"
#include "natter-mcp-error.h"

/* A server whose list never ends is cut off after this many pages. */
#define MAX_LIST_PAGES 1000

/* One listing in progress: the pages so far. */
typedef struct
{
  JsonArray *tools;
  char      *cursor;
  guint      pages;
  guint      generation;
} ListData;

static void
list_data_free (ListData *data)
{
  json_array_unref (data->tools);
  g_free (data->cursor);
  g_free (data);
}

static void list_page (GTask *task);

/* Takes the tools of one page; FALSE with @error when it is malformed. */
static gboolean
take_page (NatterMcpClient  *self,
           ListData         *data,
           JsonNode         *answer,
           GError          **error)
{
  JsonObject *page = JSON_NODE_HOLDS_OBJECT (answer) ? json_node_get_object (answer) : NULL;
  JsonNode *tools = page != NULL ? json_object_get_member (page, "tools") : NULL;
  JsonNode *cursor = page != NULL ? json_object_get_member (page, "nextCursor") : NULL;

  if (tools == NULL || !JSON_NODE_HOLDS_ARRAY (tools))
    goto bad;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (tools)); i++)
    {
      JsonNode *tool = json_array_get_element (json_node_get_array (tools), i);

      if (!JSON_NODE_HOLDS_OBJECT (tool)
          || json_object_get_string_member_with_default (json_node_get_object (tool), "name", NULL) == NULL)
        goto bad;
      json_array_add_element (data->tools, json_node_copy (tool));
    }
  g_clear_pointer (&data->cursor, g_free);
  if (cursor != NULL && !JSON_NODE_HOLDS_NULL (cursor))
    {
      if (!JSON_NODE_HOLDS_VALUE (cursor) || json_node_get_value_type (cursor) != G_TYPE_STRING)
        goto bad;
      data->cursor = g_strdup (json_node_get_string (cursor));
    }
  return TRUE;

bad:
  g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_PROTOCOL,
               "Tool server “%s” sent a malformed list of tools", natter_mcp_client_get_config (self)->name);
  return FALSE;
}

static void
list_page_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  NatterMcpClient *self = NATTER_MCP_CLIENT (object);
  g_autoptr(GTask) task = user_data;
  ListData *data = g_task_get_task_data (task);
  g_autoptr(JsonNode) answer = NULL;
  GError *error = NULL;

  answer = natter_mcp_client_request_finish (self, result, &error);
  if (answer == NULL || !take_page (self, data, answer, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (data->cursor != NULL)
    {
      if (++data->pages >= MAX_LIST_PAGES)
        {
          g_task_return_new_error (task, NATTER_MCP_ERROR, NATTER_MCP_ERROR_PROTOCOL,
                                   "Tool server “%s” sent more than %u pages of tools",
                                   natter_mcp_client_get_config (self)->name, MAX_LIST_PAGES);
          return;
        }
      list_page (g_steal_pointer (&task));
      return;
    }
  _natter_mcp_client_cache_tools (self, data->tools, data->generation);
  g_task_return_pointer (task, json_array_ref (data->tools), (GDestroyNotify) json_array_unref);
}

static void
list_page (GTask *task)
{
  NatterMcpClient *self = g_task_get_source_object (task);
  ListData *data = g_task_get_task_data (task);
  g_autoptr(JsonObject) params = NULL;

  if (data->cursor != NULL)
    {
      params = json_object_new ();
      json_object_set_string_member (params, "cursor", data->cursor);
    }
  natter_mcp_client_request_async (self, "tools/list", params, g_task_get_cancellable (task), list_page_cb, task);
}

/**
 * natter_mcp_client_list_tools_async:
 * @self: a client
 * @cancellable: (nullable): a cancellable
 * @callback: called with the list
 * @user_data: its data
 *
 * The server's tools (MCP 2025-11-25, Tools, Listing Tools): `tools/list`
 * asked page after page while the server gives a `nextCursor`. The list
 * is kept until the server says it changed or stops.
 */
void
natter_mcp_client_list_tools_async (NatterMcpClient     *self,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  JsonArray *cached;
  ListData *data;

  g_return_if_fail (NATTER_IS_MCP_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_mcp_client_list_tools_async);
  cached = _natter_mcp_client_get_cached_tools (self);
  if (cached != NULL)
    {
      g_task_return_pointer (task, json_array_ref (cached), (GDestroyNotify) json_array_unref);
      return;
    }
  data = g_new0 (ListData, 1);
  data->tools = json_array_new ();
  data->generation = _natter_mcp_client_get_generation (self);
  g_task_set_task_data (task, data, (GDestroyNotify) list_data_free);
  list_page (g_steal_pointer (&task));
}

/**
 * natter_mcp_client_list_tools_finish:
 * @self: a client
 * @result: the result
 * @error: return location for a %NATTER_MCP_ERROR or %G_IO_ERROR_CANCELLED
 *
 * Returns: (transfer full) (nullable): the tools, each the server's
 *   object (`name`, `description`, `inputSchema`, …); do not modify it
 */
JsonArray *
natter_mcp_client_list_tools_finish (NatterMcpClient  *self,
                                     GAsyncResult     *result,
                                     GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
call_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  NatterMcpClient *self = NATTER_MCP_CLIENT (object);
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonNode) answer = NULL;
  GError *error = NULL;
  JsonNode *content;

  answer = natter_mcp_client_request_finish (self, result, &error);
  if (answer == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  content = JSON_NODE_HOLDS_OBJECT (answer) ? json_object_get_member (json_node_get_object (answer), "content")
                                            : NULL;
  if (content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
    {
      g_task_return_new_error (task, NATTER_MCP_ERROR, NATTER_MCP_ERROR_PROTOCOL,
                               "Tool server “%s” answered “tools/call” without a “content” list",
                               natter_mcp_client_get_config (self)->name);
      return;
    }
  g_task_return_pointer (task, json_object_ref (json_node_get_object (answer)), (GDestroyNotify) json_object_unref);
}

/**
 * natter_mcp_client_call_tool_async:
 * @self: a client
 * @tool: the tool's name as the server lists it
 * @arguments: (nullable): its arguments
 * @cancellable: (nullable): cancelling sends `notifications/cancelled`
 * @callback: called with the result
 * @user_data: its data
 *
 * Calls one tool (MCP 2025-11-25, Tools, Calling Tools). A tool that
 * fails answers with `isError: true` in its result, which is a result,
 * not an error here; errors are the server's refusals, its silence past
 * the timeout, and its stopping.
 */
void
natter_mcp_client_call_tool_async (NatterMcpClient     *self,
                                   const char          *tool,
                                   JsonObject          *arguments,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(JsonObject) params = json_object_new ();
  GTask *task;

  g_return_if_fail (NATTER_IS_MCP_CLIENT (self));
  g_return_if_fail (tool != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_mcp_client_call_tool_async);
  json_object_set_string_member (params, "name", tool);
  json_object_set_object_member (params, "arguments",
                                 arguments != NULL ? json_object_ref (arguments) : json_object_new ());
  natter_mcp_client_request_async (self, "tools/call", params, cancellable, call_done_cb, task);
}

/**
 * natter_mcp_client_call_tool_finish:
 * @self: a client
 * @result: the result
 * @error: return location for a %NATTER_MCP_ERROR or %G_IO_ERROR_CANCELLED
 *
 * Returns: (transfer full) (nullable): the `CallToolResult`: `content`,
 *   and `isError` and `structuredContent` when the server sent them
 */
JsonObject *
natter_mcp_client_call_tool_finish (NatterMcpClient  *self,
                                    GAsyncResult     *result,
                                    GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
