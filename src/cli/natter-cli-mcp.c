/* natter-cli-mcp.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `natter mcp list | tools SERVER | call SERVER TOOL JSON`: the tool
 * servers of mcp.json seen from the command line, to check a server
 * before a model uses it.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include "natter-cli-private.h"
#include "natter-json.h"
#include "natter-mcp-client.h"
#include "natter-mcp-config.h"
#include "natter-mcp-error.h"
#include "natter-mcp-manager.h"
#include "natter-services.h"

typedef struct
{
  Run             *run;
  char            *path;
  GPtrArray       *servers;  /* NatterMcpServerConfig */
  guint            next;     /* list: the server being asked */
  NatterMcpClient *client;
} McpRun;

/* A client for @config that waits as long as Preferences says, unless
 * the server's entry names its own timeout, and reads secret header
 * values from the keyring. */
static NatterMcpClient *
new_client (McpRun                *mcp,
            NatterMcpServerConfig *config)
{
  return natter_mcp_manager_new_client (natter_services_get_mcp_manager (mcp->run->services), config);
}

static void
mcp_run_free (McpRun *mcp)
{
  g_free (mcp->path);
  g_clear_pointer (&mcp->servers, g_ptr_array_unref);
  g_clear_object (&mcp->client);
  g_free (mcp);
}

static void
mcp_finish (McpRun *mcp,
            int     status)
{
  Run *run = mcp->run;

  mcp_run_free (mcp);
  natter_cli_finish (run, status);
}

static void
mcp_fail (McpRun     *mcp,
          int         status,
          const char *message)
{
  Run *run = mcp->run;

  mcp_run_free (mcp);
  natter_cli_fail (run, status, "%s", message);
}

/* ---- list ------------------------------------------------------------ */

static void list_next (McpRun *mcp);

static void
list_tools_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  McpRun *mcp = user_data;
  NatterMcpClient *client = NATTER_MCP_CLIENT (object);
  const char *name = natter_mcp_client_get_config (client)->name;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(GError) error = NULL;

  tools = natter_mcp_client_list_tools_finish (client, result, &error);
  if (tools == NULL)
    natter_cli_out (mcp->run, "%s\t%s\t%s\n", name, natter_cli_tr (mcp->run, "error"), error->message);
  else
    {
      guint n = json_array_get_length (tools);
      g_autofree char *count = g_strdup_printf (natter_cli_ntr (mcp->run, "%u tool", "%u tools", n), n);

      natter_cli_out (mcp->run, "%s\t%s\t%s\n", name, natter_cli_tr (mcp->run, "connected"), count);
    }
  natter_mcp_client_stop (client);
  g_clear_object (&mcp->client);
  list_next (mcp);
}

static void
list_next (McpRun *mcp)
{
  NatterMcpServerConfig *config;

  for (; mcp->next < mcp->servers->len; mcp->next++)
    {
      config = g_ptr_array_index (mcp->servers, mcp->next);
      if (config->enabled)
        break;
      natter_cli_out (mcp->run, "%s\t%s\n", config->name, natter_cli_tr (mcp->run, "disabled"));
    }
  if (mcp->next >= mcp->servers->len)
    {
      mcp_finish (mcp, 0);
      return;
    }
  mcp->client = new_client (mcp, g_ptr_array_index (mcp->servers, mcp->next++));
  natter_mcp_client_list_tools_async (mcp->client, g_task_get_cancellable (mcp->run->task), list_tools_cb, mcp);
}

/* ---- tools --------------------------------------------------------- */

static void
tools_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  McpRun *mcp = user_data;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(GError) error = NULL;

  tools = natter_mcp_client_list_tools_finish (NATTER_MCP_CLIENT (object), result, &error);
  natter_mcp_client_stop (mcp->client);
  if (tools == NULL)
    {
      mcp_fail (mcp, NATTER_CLI_EXIT_FAILURE, error->message);
      return;
    }
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);
      const char *description = json_object_get_string_member_with_default (tool, "description", "");
      g_autofree char *first_line = g_strndup (description, strcspn (description, "\n"));

      natter_cli_out (mcp->run, "%s\t%s\n", json_object_get_string_member (tool, "name"), first_line);
    }
  mcp_finish (mcp, 0);
}

/* ---- call ---------------------------------------------------------- */

/* One content item of a tool result, in words. */
static void
print_content (Run        *run,
               JsonObject *item)
{
  const char *type = json_object_get_string_member_with_default (item, "type", "");

  if (g_str_equal (type, "text"))
    natter_cli_out (run, "%s\n", json_object_get_string_member_with_default (item, "text", ""));
  else if (g_str_equal (type, "image") || g_str_equal (type, "audio"))
    natter_cli_out (run, "[%s %s, %zu bytes of base64]\n", type,
                    json_object_get_string_member_with_default (item, "mimeType", "?"),
                    strlen (json_object_get_string_member_with_default (item, "data", "")));
  else if (g_str_equal (type, "resource_link"))
    natter_cli_out (run, "[%s] %s\n", json_object_get_string_member_with_default (item, "name", ""),
                    json_object_get_string_member_with_default (item, "uri", ""));
  else if (g_str_equal (type, "resource") && json_object_has_member (item, "resource"))
    {
      JsonObject *resource = json_object_get_object_member (item, "resource");

      natter_cli_out (run, "[%s]\n%s\n", json_object_get_string_member_with_default (resource, "uri", ""),
                      json_object_get_string_member_with_default (resource, "text", ""));
    }
  else
    natter_cli_out (run, "[%s]\n", type);
}

static void
call_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  McpRun *mcp = user_data;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *content;
  g_autofree char *message = NULL;

  answer = natter_mcp_client_call_tool_finish (NATTER_MCP_CLIENT (object), result, &error);
  natter_mcp_client_stop (mcp->client);
  if (answer == NULL)
    {
      mcp_fail (mcp, NATTER_CLI_EXIT_FAILURE, error->message);
      return;
    }
  content = json_object_get_array_member (answer, "content");
  for (guint i = 0; i < json_array_get_length (content); i++)
    if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (content, i)))
      print_content (mcp->run, json_array_get_object_element (content, i));
  if (json_object_has_member (answer, "structuredContent"))
    {
      g_autofree char *text = natter_json_to_text (json_object_get_member (answer, "structuredContent"), FALSE, NULL);

      natter_cli_out (mcp->run, "structuredContent: %s\n", text);
    }
  if (json_object_get_boolean_member_with_default (answer, "isError", FALSE))
    {
      message = g_strdup_printf (natter_cli_tr (mcp->run, "Tool “%s” of “%s” reported an error"),
                                 mcp->run->args[2], mcp->run->args[1]);
      mcp_fail (mcp, NATTER_CLI_EXIT_FAILURE, message);
      return;
    }
  mcp_finish (mcp, 0);
}

static JsonObject *
parse_arguments (Run         *run,
                 const char  *text,
                 GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  if (!natter_json_parser_load_external (parser, text, -1, error))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                           natter_cli_tr (run, "it is not a JSON object"));
      return NULL;
    }
  return json_object_ref (json_node_get_object (root));
}

/* ---- tools for send and ask ---------------------------------------- */

typedef struct
{
  Run   *run;
  void (*then) (Run *run);
} Refresh;

static void
refreshed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Refresh *refresh = user_data;
  Run *run = refresh->run;
  void (*then) (Run *run) = refresh->then;
  NatterMcpManager *manager = NATTER_MCP_MANAGER (object);
  GPtrArray *clients = natter_mcp_manager_get_clients (manager);
  g_autoptr(GError) error = NULL;

  g_free (refresh);
  if (!natter_mcp_manager_refresh_finish (manager, result, &error))
    {
      natter_cli_fail_error (run, g_steal_pointer (&error));
      return;
    }
  /* A server that is down is said, not hidden; the turn goes on
   * without its tools. */
  if (natter_mcp_manager_get_config_error (manager) != NULL)
    g_application_command_line_printerr (run->cmdline, "natter: %s\n", natter_mcp_manager_get_config_error (manager));
  for (guint i = 0; i < clients->len; i++)
    {
      NatterMcpClient *client = g_ptr_array_index (clients, i);

      if (natter_mcp_client_get_state (client) == NATTER_MCP_CLIENT_STATE_FAILED)
        g_application_command_line_printerr (run->cmdline, "natter: %s\n", natter_mcp_client_get_last_error (client));
    }
  then (run);
}

/**
 * natter_cli_mcp_refresh:
 * @run: a `send` or `ask`
 * @then: what the command does next
 *
 * Lists the enabled tool servers' tools, so the turn offers them, then
 * calls @then. Servers that fail are named on standard error.
 */
void
natter_cli_mcp_refresh (Run  *run,
                        void (*then) (Run *run))
{
  Refresh *refresh = g_new0 (Refresh, 1);

  refresh->run = run;
  refresh->then = then;
  natter_mcp_manager_refresh_async (natter_services_get_mcp_manager (run->services),
                                    g_task_get_cancellable (run->task), refreshed_cb, refresh);
}

/* ---- the command --------------------------------------------------- */

/* The server named by the second argument, with a client; FALSE after
 * failing the run. */
static gboolean
open_server (McpRun *mcp)
{
  NatterMcpServerConfig *config = natter_mcp_config_find (mcp->servers, mcp->run->args[1]);
  g_autofree char *message = NULL;

  if (config == NULL)
    {
      message = g_strdup_printf (natter_cli_tr (mcp->run, "No tool server “%s” in %s"), mcp->run->args[1],
                                 mcp->path);
      mcp_fail (mcp, NATTER_CLI_EXIT_FAILURE, message);
      return FALSE;
    }
  /* Disabled means never contacted, from here as from the window: the
   * person may have switched it off because it is not to be trusted. */
  if (!config->enabled)
    {
      message = g_strdup_printf (natter_cli_tr (mcp->run, "Tool server “%s” is disabled; enable it in Preferences "
                                                "(Tool Servers) or remove \"disabled\": true from its entry in %s"),
                                 config->name, mcp->path);
      mcp_fail (mcp, NATTER_CLI_EXIT_FAILURE, message);
      return FALSE;
    }
  mcp->client = new_client (mcp, config);
  return TRUE;
}

static gboolean
check_arity (McpRun     *mcp,
             guint       count,
             const char *usage)
{
  g_autofree char *message = NULL;

  if (g_strv_length (mcp->run->args) == count)
    return TRUE;
  message = g_strdup_printf (natter_cli_tr (mcp->run, "Usage: natter mcp %s"), usage);
  mcp_fail (mcp, NATTER_CLI_EXIT_USAGE, message);
  return FALSE;
}

/**
 * natter_cli_command_mcp:
 * @run: the run, with the subcommand and its arguments
 *
 * `mcp list` prints one line per configured server (name, state, tool
 * count or error), `mcp tools SERVER` one line per tool (name, tab, the
 * first line of its description), `mcp call SERVER TOOL JSON` the tool's
 * result in words. A disabled server is listed as such and never
 * started: `tools` and `call` refuse it. Exit status 1 when the server
 * is disabled or fails or the tool reports an error, 2 for a malformed
 * command line.
 */
void
natter_cli_command_mcp (Run *run)
{
  McpRun *mcp = g_new0 (McpRun, 1);
  const char *verb = run->args[0];
  g_autoptr(GError) error = NULL;

  mcp->run = run;
  mcp->path = natter_mcp_config_default_path ();
  mcp->servers = natter_mcp_config_load (mcp->path, &error);
  if (mcp->servers == NULL)
    {
      mcp_fail (mcp, NATTER_CLI_EXIT_FAILURE, error->message);
      return;
    }
  if (g_str_equal (verb, "list"))
    {
      if (!check_arity (mcp, 1, "list"))
        return;
      if (mcp->servers->len == 0)
        natter_cli_out (run, natter_cli_tr (run, "No tool servers are configured in %s\n"), mcp->path);
      list_next (mcp);
    }
  else if (g_str_equal (verb, "tools"))
    {
      if (check_arity (mcp, 2, "tools SERVER") && open_server (mcp))
        natter_mcp_client_list_tools_async (mcp->client, g_task_get_cancellable (run->task), tools_cb, mcp);
    }
  else if (g_str_equal (verb, "call"))
    {
      g_autoptr(JsonObject) arguments = NULL;
      g_autofree char *message = NULL;

      if (!check_arity (mcp, 4, "call SERVER TOOL JSON"))
        return;
      arguments = parse_arguments (run, run->args[3], &error);
      if (arguments == NULL)
        {
          message = g_strdup_printf (natter_cli_tr (run, "The arguments must be a JSON object: %s"), error->message);
          mcp_fail (mcp, NATTER_CLI_EXIT_USAGE, message);
          return;
        }
      if (open_server (mcp))
        natter_mcp_client_call_tool_async (mcp->client, run->args[2], arguments,
                                           g_task_get_cancellable (run->task), call_cb, mcp);
    }
  else
    {
      g_autofree char *message = g_strdup_printf (natter_cli_tr (run, "Unknown mcp command “%s”: use list, tools or call"),
                                                  verb);

      mcp_fail (mcp, NATTER_CLI_EXIT_USAGE, message);
    }
}
