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

#include "natter-cli-locale.h"
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
  NatterMcpClient *client;
} McpRun;

/* A client for @config that waits as long as Preferences says for a
 * call, unless the server's entry names its own timeout, but only
 * %NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS for the server to start, and
 * reads secret header values from the keyring. */
static NatterMcpClient *
new_client (McpRun                *mcp,
            NatterMcpServerConfig *config)
{
  NatterMcpClient *client = natter_mcp_manager_new_client (natter_services_get_mcp_manager (mcp->run->services),
                                                           config);

  natter_mcp_client_set_handshake_timeout (client, NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS);
  return client;
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
  /* A server's failure, in the caller's words. */
  g_autofree char *words = natter_cli_error_words (run->cmdline, message);

  mcp_run_free (mcp);
  natter_cli_fail (run, status, "%s", words);
}

/* mcp.json's servers, its mistake in the caller's words. */
static GPtrArray *
load_config (Run         *run,
             const char  *path,
             GError     **error)
{
  gpointer previous = natter_cli_locale_enter (run->cmdline);
  GPtrArray *configs = natter_mcp_config_load (path, error);

  natter_cli_locale_leave (previous);
  return configs;
}

/* The mistake in mcp.json that @manager keeps, in the caller's words:
 * the manager's own is in the language of the process that read the
 * file, the window's when the command was forwarded to it. NULL when
 * the file has none. */
static char *
config_mistake (Run              *run,
                NatterMcpManager *manager)
{
  g_autoptr(GPtrArray) configs = NULL;
  g_autoptr(GError) error = NULL;

  if (natter_mcp_manager_get_config_error (manager) == NULL)
    return NULL;
  configs = load_config (run, natter_mcp_manager_get_config_path (manager), &error);
  /* Mended in the meantime: the manager's words, then. */
  return g_strdup (error != NULL ? error->message : natter_mcp_manager_get_config_error (manager));
}

/* ---- list ------------------------------------------------------------ */

/* What a server is doing, in words, for `mcp list` and for the warnings
 * of `send`: NULL when its tools are offered. */
static char *
describe_not_ready (Run              *run,
                    NatterMcpManager *manager,
                    NatterMcpClient  *client)
{
  if (natter_mcp_manager_get_server_tools (manager, client) != NULL)
    return NULL;
  if (natter_mcp_client_get_state (client) == NATTER_MCP_CLIENT_STATE_FAILED)
    return natter_cli_error_words (run->cmdline, natter_mcp_client_get_last_error (client));
  /* Translators: %s is a tool server's name, %u a number of seconds */
  return g_strdup_printf (natter_cli_tr (run, "Tool server “%s” did not finish starting within %u s; its tools "
                                         "are not offered until it does"),
                          natter_mcp_client_get_config (client)->name, NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS);
}

static void
listed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  McpRun *mcp = user_data;
  NatterMcpManager *manager = NATTER_MCP_MANAGER (object);
  GPtrArray *configs = natter_mcp_manager_get_configs (manager);
  g_autofree char *config_error = config_mistake (mcp->run, manager);
  g_autoptr(GError) error = NULL;

  if (!natter_mcp_manager_refresh_finish (manager, result, &error))
    {
      mcp_fail (mcp, NATTER_CLI_EXIT_FAILURE, error->message);
      return;
    }
  if (configs->len == 0 && config_error == NULL)
    natter_cli_out (mcp->run, natter_cli_tr (mcp->run, "No tool servers are configured in %s\n"), mcp->path);
  for (guint i = 0; i < configs->len; i++)
    {
      NatterMcpServerConfig *config = g_ptr_array_index (configs, i);
      NatterMcpClient *client = natter_mcp_manager_find_client (manager, config->name);
      JsonArray *tools = client != NULL ? natter_mcp_manager_get_server_tools (manager, client) : NULL;

      if (!config->enabled || client == NULL)
        natter_cli_out (mcp->run, "%s\t%s\n", config->name, natter_cli_tr (mcp->run, "disabled"));
      else if (tools != NULL)
        {
          guint n = json_array_get_length (tools);
          g_autofree char *count = g_strdup_printf (natter_cli_ntr (mcp->run, "%u tool", "%u tools", n), n);

          natter_cli_out (mcp->run, "%s\t%s\t%s\n", config->name, natter_cli_tr (mcp->run, "connected"), count);
        }
      else
        {
          g_autofree char *why = describe_not_ready (mcp->run, manager, client);
          gboolean failed = natter_mcp_client_get_state (client) == NATTER_MCP_CLIENT_STATE_FAILED;

          natter_cli_out (mcp->run, "%s\t%s\t%s\n", config->name,
                          failed ? natter_cli_tr (mcp->run, "error") : natter_cli_tr (mcp->run, "starting"), why);
        }
    }
  /* A file with a mistake is said, after the servers that still run
   * (those of the last file that parsed, in a running Natter). */
  if (config_error != NULL)
    {
      mcp_fail (mcp, NATTER_CLI_EXIT_FAILURE, config_error);
      return;
    }
  mcp_finish (mcp, 0);
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

/* The servers of @starting (NatterMcpClient) still starting when the
 * refresh stopped waiting, said once, on one line: they all had the same
 * one handshake limit, at the same time. */
static void
say_still_starting (Run              *run,
                    NatterMcpManager *manager,
                    GPtrArray        *starting)
{
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *line = NULL;

  if (starting->len == 0)
    return;
  if (starting->len == 1)
    {
      g_autofree char *why = describe_not_ready (run, manager, g_ptr_array_index (starting, 0));

      g_application_command_line_printerr (run->cmdline, "natter: %s\n", why);
      return;
    }
  for (guint i = 0; i < starting->len; i++)
    g_string_append_printf (names, i > 0 ? ", “%s”" : "“%s”",
                            natter_mcp_client_get_config (g_ptr_array_index (starting, i))->name);
  /* Translators: the first %u is a number of tool servers (2 or more),
   * the second a number of seconds, %s their names, quoted, with commas */
  line = g_strdup_printf (natter_cli_ntr (run, "%u tool servers did not finish starting within %u s; their tools "
                                          "are not offered until they do: %s",
                                          "%u tool servers did not finish starting within %u s; their tools "
                                          "are not offered until they do: %s", starting->len),
                          starting->len, NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS, names->str);
  g_application_command_line_printerr (run->cmdline, "natter: %s\n", line);
}

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
  g_autoptr(GPtrArray) starting = g_ptr_array_new ();
  g_autofree char *mistake = NULL;
  g_autoptr(GError) error = NULL;

  g_free (refresh);
  if (!natter_mcp_manager_refresh_finish (manager, result, &error))
    {
      natter_cli_fail_error (run, g_steal_pointer (&error));
      return;
    }
  /* A server that is down is said, not hidden; the turn goes on
   * without its tools. */
  mistake = config_mistake (run, manager);
  if (mistake != NULL)
    g_application_command_line_printerr (run->cmdline, "natter: %s\n", mistake);
  for (guint i = 0; i < clients->len; i++)
    {
      NatterMcpClient *client = g_ptr_array_index (clients, i);

      if (natter_mcp_manager_get_server_tools (manager, client) != NULL)
        continue;
      if (natter_mcp_client_get_state (client) == NATTER_MCP_CLIENT_STATE_FAILED)
        {
          g_autofree char *why = describe_not_ready (run, manager, client);

          g_application_command_line_printerr (run->cmdline, "natter: %s\n", why);
        }
      else
        g_ptr_array_add (starting, client);
    }
  say_still_starting (run, manager, starting);
  then (run);
}

/**
 * natter_cli_mcp_refresh:
 * @run: a `send` or `ask`
 * @then: what the command does next
 *
 * Lists the enabled tool servers' tools, so the turn offers them, then
 * calls @then: once every server answered, or after
 * %NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS at most, so a hung server delays
 * the command that long and no more. Servers that fail or are not ready
 * are named on standard error; the turn goes on without their tools.
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
 * count or error), asking every server at once and waiting at most
 * %NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS for any (one still starting is
 * listed as such); when mcp.json has a mistake, it lists the servers of
 * the last file that parsed (those a running Natter still runs), then
 * says the mistake and exits 1. `mcp tools SERVER` prints one line per
 * tool (name, tab, the first line of its description), `mcp call SERVER
 * TOOL JSON` the tool's result in words; both give the server
 * %NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS to start. A disabled server is
 * listed as such and never started: `tools` and `call` refuse it. Exit
 * status 1 when the file or the server is broken, the server is
 * disabled or the tool reports an error, 2 for a malformed command line.
 */
void
natter_cli_command_mcp (Run *run)
{
  McpRun *mcp = g_new0 (McpRun, 1);
  NatterMcpManager *manager = natter_services_get_mcp_manager (run->services);
  const char *verb = run->args[0];
  g_autoptr(GError) error = NULL;

  mcp->run = run;
  mcp->path = g_strdup (natter_mcp_manager_get_config_path (manager));
  if (g_str_equal (verb, "list"))
    {
      if (!check_arity (mcp, 1, "list"))
        return;
      /* The servers of the file as it is now, all asked at once, through
       * the manager: in a running Natter, those that run are listed even
       * when the file has a mistake since. */
      natter_mcp_manager_reload (manager);
      natter_mcp_manager_refresh_async (manager, g_task_get_cancellable (run->task), listed_cb, mcp);
      return;
    }
  mcp->servers = load_config (run, mcp->path, &error);
  if (mcp->servers == NULL)
    {
      mcp_fail (mcp, NATTER_CLI_EXIT_FAILURE, error->message);
      return;
    }
  if (g_str_equal (verb, "tools"))
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
