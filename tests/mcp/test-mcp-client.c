/* test-mcp-client.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The MCP client against a small fake server (tests/data/mcp, for the
 * misbehaviours: crash, silence, pages, a changing list, old protocol
 * versions) and against @modelcontextprotocol/server-everything over
 * stdio and Streamable HTTP when .ci/run installed it
 * (NATTER_MCP_EVERYTHING_DIR).
 */

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "natter-mcp-client.h"
#include "natter-mcp-config.h"
#include "natter-mcp-error.h"
#include "natter-mcp-secrets.h"
#include "natter-memory-secret-store.h"
#include "natter-test-support.h"

#define WAIT_MS 20000

/* ---- helpers ------------------------------------------------------- */

static NatterMcpServerConfig *
config_from (const char *name,
             const char *literal)
{
  g_autoptr(JsonNode) node = natter_test_json (literal);
  g_autoptr(GError) error = NULL;
  NatterMcpServerConfig *config = natter_mcp_server_config_parse (name, node, &error);

  g_assert_no_error (error);
  return config;
}

/* A stdio config that runs the fake server with @extra_args (a JSON
 * list fragment, may be empty). */
static NatterMcpServerConfig *
fake_config (const char *extra_args)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  g_autofree char *literal = NULL;

  g_assert_nonnull (python);
  literal = g_strdup_printf ("{\"command\": \"%s\", \"args\": [\"%s\"%s%s]}", python, script,
                             *extra_args != '\0' ? ", " : "", extra_args);
  return config_from ("fake", literal);
}

typedef struct
{
  gboolean      done;
  GAsyncResult *result;
} Wait;

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = g_object_ref (result);
  wait->done = TRUE;
}

static JsonArray *
list_tools (NatterMcpClient  *client,
            GError          **error)
{
  Wait wait = { 0 };
  JsonArray *tools;

  natter_mcp_client_list_tools_async (client, NULL, wait_cb, &wait);
  natter_test_wait_for_flag (&wait.done, WAIT_MS);
  tools = natter_mcp_client_list_tools_finish (client, wait.result, error);
  g_object_unref (wait.result);
  return tools;
}

static JsonObject *
call_tool (NatterMcpClient  *client,
           const char       *tool,
           const char       *arguments,
           GCancellable     *cancellable,
           GError          **error)
{
  g_autoptr(JsonNode) args = natter_test_json (arguments);
  Wait wait = { 0 };
  JsonObject *result;

  natter_mcp_client_call_tool_async (client, tool, json_node_get_object (args), cancellable, wait_cb, &wait);
  natter_test_wait_for_flag (&wait.done, WAIT_MS);
  result = natter_mcp_client_call_tool_finish (client, wait.result, error);
  g_object_unref (wait.result);
  return result;
}

/* The text of the result's first content item. */
static const char *
first_text (JsonObject *result)
{
  JsonArray *content = json_object_get_array_member (result, "content");
  JsonObject *item = json_array_get_object_element (content, 0);

  g_assert_cmpstr (json_object_get_string_member (item, "type"), ==, "text");
  return json_object_get_string_member (item, "text");
}

/* A tool server reads JSON strictly (the fake does, as Python's json
 * module does): U+001F in an argument travels escaped, and what it
 * answers is text exactly, but for what no string can hold — NUL and a
 * lone surrogate — which becomes U+FFFD (docs/format.md §2). */
static void
assert_strict_round_trip (NatterMcpClient *client)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) echoed = NULL;
  g_autoptr(JsonObject) odd = NULL;

  echoed = call_tool (client, "echo", "{\"message\": \"unit\\u001fseparator\"}", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first_text (echoed), ==, "echo: unit\x1fseparator");
  odd = call_tool (client, "odd", "{}", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first_text (odd), ==, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\x1f" "d");
  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_READY);
}

static gboolean
has_tool (JsonArray  *tools,
          const char *name)
{
  for (guint i = 0; i < json_array_get_length (tools); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (tools, i), "name"), name))
      return TRUE;
  return FALSE;
}

/* ---- configuration ------------------------------------------------- */

static void
test_config_valid (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) servers = NULL;
  NatterMcpServerConfig *files;
  NatterMcpServerConfig *web;

  servers = natter_mcp_config_parse ("{\"mcpServers\": {"
                                     " \"files\": {\"command\": \"npx\", \"args\": [\"-y\", \"srv\"],"
                                     "             \"env\": {\"ROOT\": \"/tmp\"}, \"timeout\": 5},"
                                     " \"web\": {\"type\": \"http\", \"url\": \"https://example.com/mcp\","
                                     "           \"headers\": {\"Authorization\": \"Bearer x\"}, \"disabled\": true}}}",
                                     -1, "mcp.json", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (servers->len, ==, 2);
  files = g_ptr_array_index (servers, 0);
  g_assert_cmpstr (files->name, ==, "files");
  g_assert_cmpint (files->kind, ==, NATTER_MCP_TRANSPORT_STDIO);
  g_assert_cmpstr (files->command, ==, "npx");
  g_assert_cmpstrv (files->args, ((const char *[]) { "-y", "srv", NULL }));
  g_assert_cmpstr (json_object_get_string_member (files->env, "ROOT"), ==, "/tmp");
  g_assert_cmpuint (files->timeout_seconds, ==, 5);
  g_assert_true (files->enabled);
  web = natter_mcp_config_find (servers, "web");
  g_assert_nonnull (web);
  g_assert_cmpint (web->kind, ==, NATTER_MCP_TRANSPORT_HTTP);
  g_assert_cmpstr (web->url, ==, "https://example.com/mcp");
  g_assert_false (web->enabled);
  g_assert_null (natter_mcp_config_find (servers, "nope"));
}

static void
test_config_errors (void)
{
  static const struct { const char *text; const char *message; } cases[] = {
    { "{\"mcpServers\": ", "mcp.json is not valid JSON" },
    { "{\"servers\": {}}", "“mcpServers” object" },
    { "{\"mcpServers\": {\"a\": {}}}", "Tool server “a” must have either “command”" },
    { "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"url\": \"http://h\"}}}", "either “command”" },
    { "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": \"-v\"}}}", "“args” must be a list of texts" },
    { "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"K\": 1}}}}", "the value of “K” in “env” must be text" },
    { "{\"mcpServers\": {\"a\": {\"url\": \"ftp://h\"}}}", "must start with http:// or https://" },
    { "{\"mcpServers\": {\"a\": {\"url\": \"http://h\", \"type\": \"stdio\"}}}", "type “stdio” does not match" },
    { "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"timeout\": 0}}}", "“timeout” must be a whole number" },
    { "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"disabled\": \"yes\"}}}", "“disabled” must be true or false" },
    { "{\"mcpServers\": {\"a\": {\"url\": \"http://h\", \"headers\": {\"K\": {\"secret\": \"\"}}}}}",
      "the value of “K” in “headers” must be text or {\"secret\": \"KEY\"}" },
    { "{\"mcpServers\": {\"a\": {\"url\": \"http://h\", \"headers\": {\"K\": {\"secret\": \"k\", \"x\": 1}}}}}",
      "must be text or {\"secret\": \"KEY\"}" },
    { "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"K\": {\"secret\": \"k\"}}}}}",
      "the value of “K” in “env” must be text" },
  };
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autofree char *missing = g_build_filename (g_file_peek_path (dir), "mcp.json", NULL);
  g_autoptr(GPtrArray) none = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) case_error = NULL;
      g_autoptr(GPtrArray) servers = natter_mcp_config_parse (cases[i].text, -1, "mcp.json", &case_error);

      g_assert_null (servers);
      g_assert_error (case_error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG);
      if (strstr (case_error->message, cases[i].message) == NULL)
        g_error ("case %u: “%s” does not say “%s”", i, case_error->message, cases[i].message);
    }

  none = natter_mcp_config_load (missing, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (none->len, ==, 0);
  natter_test_remove_tree (dir);
}

static void
test_config_update (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autofree char *path = g_build_filename (g_file_peek_path (dir), "sub", "mcp.json", NULL);
  g_autoptr(JsonNode) entry = natter_test_json ("{\"command\": \"srv\", \"note\": \"mine\"}");
  g_autoptr(JsonNode) bad = natter_test_json ("{\"command\": \"srv\", \"url\": \"http://h\"}");
  g_autoptr(JsonObject) read_back = NULL;
  g_autoptr(GPtrArray) servers = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  GStatBuf st;

  /* A missing file and folder are created, readable by the owner only. */
  g_assert_true (natter_mcp_config_update (path, "a", json_node_get_object (entry), &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  g_assert_true (natter_mcp_config_update (path, "b", json_node_get_object (entry), &error));
  read_back = natter_mcp_config_dup_entry (path, "a", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (read_back, "note"), ==, "mine");

  /* An invalid entry is refused and nothing changes. */
  g_file_get_contents (path, &text, NULL, NULL);
  g_assert_false (natter_mcp_config_update (path, "c", json_node_get_object (bad), &error));
  g_assert_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG);
  g_clear_error (&error);
  {
    g_autofree char *after = NULL;

    g_file_get_contents (path, &after, NULL, NULL);
    g_assert_cmpstr (after, ==, text);
  }

  g_assert_true (natter_mcp_config_update (path, "a", NULL, &error));
  servers = natter_mcp_config_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (servers->len, ==, 1);
  g_assert_cmpstr (((NatterMcpServerConfig *) g_ptr_array_index (servers, 0))->name, ==, "b");
  natter_test_remove_tree (dir);
}

/* ---- the fake server over stdio ------------------------------------ */

static void
test_stdio_handshake_and_call (void)
{
  g_autoptr(NatterMcpServerConfig) config = fake_config ("");
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) failed = NULL;

  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_IDLE);
  g_assert_cmpuint (natter_mcp_client_get_timeout (client), ==, 60);
  /* The fake refuses tools/list before notifications/initialized. */
  tools = list_tools (client, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), ==, 6);
  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_READY);
  g_assert_cmpstr (natter_mcp_client_get_protocol_version (client), ==, "2025-11-25");

  result = call_tool (client, "echo", "{\"message\": \"hello\"}", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first_text (result), ==, "echo: hello");

  /* A tool's own failure is a result with isError, not an error. */
  failed = call_tool (client, "fail", "{}", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (json_object_get_boolean_member (failed, "isError"));
}

static void
test_stdio_strict_json (void)
{
  g_autoptr(NatterMcpServerConfig) config = fake_config ("");
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);

  assert_strict_round_trip (client);
}

/* A server that prints lines that are not JSON-RPC on its standard
 * output (a banner at start, a log line before each answer) is used
 * all the same, as the official SDKs use it: each such line is skipped
 * and logged, its start escaped. */
static void
test_stdio_banner (void)
{
  g_autoptr(NatterMcpServerConfig) config = fake_config ("\"--banner\"");
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) result = NULL;

  g_test_expect_message ("natter-mcp", G_LOG_LEVEL_MESSAGE,
                         "Tool server “fake” printed a line that is not a message, skipped: "
                         "Fake MCP server ready (this line is not JSON-RPC) (*not JSON*)");
  /* One before the answer to initialize, one before the list. */
  for (guint i = 0; i < 2; i++)
    g_test_expect_message ("natter-mcp", G_LOG_LEVEL_MESSAGE,
                           "Tool server “fake” printed a line that is not a message, skipped: "
                           "fake server: answering (*)");
  tools = list_tools (client, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), ==, 6);
  g_test_assert_expected_messages ();

  g_test_expect_message ("natter-mcp", G_LOG_LEVEL_MESSAGE, "*skipped: fake server: answering*");
  result = call_tool (client, "echo", "{\"message\": \"through the noise\"}", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first_text (result), ==, "echo: through the noise");
  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_READY);
  g_test_assert_expected_messages ();
}

static void
test_stdio_version_negotiation (void)
{
  g_autoptr(NatterMcpServerConfig) older = fake_config ("\"--version\", \"2025-06-18\"");
  g_autoptr(NatterMcpServerConfig) ancient = fake_config ("\"--version\", \"2024-11-05\"");
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (older);
  g_autoptr(NatterMcpClient) refused = natter_mcp_client_new (ancient);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonArray) none = NULL;

  tools = list_tools (client, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (natter_mcp_client_get_protocol_version (client), ==, "2025-06-18");

  none = list_tools (refused, &error);
  g_assert_null (none);
  g_assert_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_PROTOCOL);
  g_assert_nonnull (strstr (error->message, "“2024-11-05”"));
  g_assert_cmpint (natter_mcp_client_get_state (refused), ==, NATTER_MCP_CLIENT_STATE_FAILED);
  g_assert_cmpstr (natter_mcp_client_get_last_error (refused), ==, error->message);
}

static void
test_stdio_pagination (void)
{
  g_autoptr(NatterMcpServerConfig) config = fake_config ("\"--page-size\", \"4\"");
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;

  tools = list_tools (client, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), ==, 6);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 0), "name"), ==, "echo");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 5), "name"), ==, "fail");
}

static void
flag_cb (gpointer  instance,
         gboolean *flag)
{
  *flag = TRUE;
}

static void
test_stdio_list_changed (void)
{
  g_autoptr(NatterMcpServerConfig) config = fake_config ("");
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) before = NULL;
  g_autoptr(JsonArray) after = NULL;
  g_autoptr(JsonObject) result = NULL;
  gboolean changed = FALSE;

  g_signal_connect (client, "tools-changed", G_CALLBACK (flag_cb), &changed);
  before = list_tools (client, &error);
  g_assert_no_error (error);
  g_assert_false (has_tool (before, "extra"));
  result = call_tool (client, "add_tool", "{}", NULL, &error);
  g_assert_no_error (error);
  natter_test_wait_for_flag (&changed, WAIT_MS);
  after = list_tools (client, &error);
  g_assert_no_error (error);
  g_assert_true (has_tool (after, "extra"));
  g_assert_cmpuint (json_array_get_length (after), ==, 7);
}

static void
test_stdio_crash_then_restart (void)
{
  g_autoptr(NatterMcpServerConfig) config = fake_config ("");
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) crashed = NULL;
  g_autoptr(JsonObject) again = NULL;

  crashed = call_tool (client, "crash", "{}", NULL, &error);
  g_assert_null (crashed);
  g_assert_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CLOSED);
  g_assert_nonnull (strstr (error->message, "Tool server “fake” stopped (exit status 3)"));
  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_FAILED);
  g_clear_error (&error);

  /* The next call starts the server again. */
  again = call_tool (client, "echo", "{\"message\": \"back\"}", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first_text (again), ==, "echo: back");
  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_READY);
}

/* The server's record of the last notifications/cancelled. */
static JsonNode *
last_cancelled (NatterMcpClient *client)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = call_tool (client, "last_cancelled", "{}", NULL, &error);

  g_assert_no_error (error);
  return natter_test_json (first_text (result));
}

static void
test_stdio_timeout (void)
{
  g_autoptr(NatterMcpServerConfig) config = fake_config ("");
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonNode) cancelled = NULL;
  g_autoptr(JsonArray) tools = NULL;

  tools = list_tools (client, &error);   /* ids 1 and 2: initialize, tools/list */
  g_assert_no_error (error);
  natter_mcp_client_set_timeout (client, 1);
  result = call_tool (client, "hang", "{}", NULL, &error);
  g_assert_null (result);
  g_assert_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_TIMEOUT);
  g_assert_cmpstr (error->message, ==, "Tool server “fake” did not answer “tools/call” within 1 s");
  /* The server was told, and still serves. */
  natter_mcp_client_set_timeout (client, 60);
  cancelled = last_cancelled (client);
  natter_test_assert_json_equal (cancelled, "{\"reason\": \"timeout\", \"requestId\": 3}");
}

static gboolean
cancel_idle_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_stdio_stop_cancels (void)
{
  g_autoptr(NatterMcpServerConfig) config = fake_config ("");
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(GCancellable) stop = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonNode) cancelled = NULL;
  g_autoptr(JsonArray) tools = NULL;

  tools = list_tools (client, &error);
  g_assert_no_error (error);
  g_idle_add (cancel_idle_cb, stop);
  result = call_tool (client, "hang", "{}", stop, &error);
  g_assert_null (result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  cancelled = last_cancelled (client);
  natter_test_assert_json_equal (cancelled, "{\"reason\": \"stopped by the user\", \"requestId\": 3}");
}

static void
test_stdio_start_failure (void)
{
  g_autoptr(NatterMcpServerConfig) config = config_from ("ghost", "{\"command\": \"/nonexistent/natter-no-server\"}");
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  result = call_tool (client, "anything", "{}", NULL, &error);
  g_assert_null (result);
  g_assert_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_START);
  g_assert_true (g_str_has_prefix (error->message, "Cannot start tool server “ghost” with “"));
  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_FAILED);
}

/* ---- HTTP ---------------------------------------------------------- */

/* Starts @argv and reads its stdout (or stderr) until a line containing
 * @needle; returns that line. */
static char *
start_and_wait_for_line (GSubprocess **process,
                         const char  * const *argv,
                         const char   *port,
                         gboolean      on_stderr,
                         const char   *needle)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GError) error = NULL;

  /* The server's standard input stays open while the test runs, its
   * output never reaches the test's: a failed test leaves no server
   * holding the log open. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE
                                        | (on_stderr ? G_SUBPROCESS_FLAGS_STDERR_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE
                                                     : G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE));
  if (port != NULL)
    g_subprocess_launcher_setenv (launcher, "PORT", port, TRUE);
  *process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  lines = g_data_input_stream_new (on_stderr ? g_subprocess_get_stderr_pipe (*process)
                                             : g_subprocess_get_stdout_pipe (*process));
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line (lines, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      if (strstr (line, needle) != NULL)
        return g_steal_pointer (&line);
    }
}

static void
test_http_fake_json (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  const char *argv[] = { python, script, "--http", "--page-size", "4", NULL };
  g_autoptr(GSubprocess) server = NULL;
  g_autofree char *port = start_and_wait_for_line (&server, argv, NULL, FALSE, "");
  g_autofree char *literal = g_strdup_printf ("{\"url\": \"http://127.0.0.1:%s/mcp\"}", port);
  g_autoptr(NatterMcpServerConfig) config = config_from ("fake-http", literal);
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) result = NULL;

  /* The fake refuses a request without the session id it gave and the
   * protocol version agreed, so success means both were sent. */
  tools = list_tools (client, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), ==, 6);
  result = call_tool (client, "echo", "{\"message\": \"over http\"}", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first_text (result), ==, "echo: over http");
  /* It has no listening stream (405): not an error. */
  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_READY);
  g_assert_null (natter_mcp_client_get_last_error (client));
  g_subprocess_force_exit (server);
}

static void
test_http_strict_json (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  const char *argv[] = { python, script, "--http", NULL };
  g_autoptr(GSubprocess) server = NULL;
  g_autofree char *port = start_and_wait_for_line (&server, argv, NULL, FALSE, "");
  g_autofree char *literal = g_strdup_printf ("{\"url\": \"http://127.0.0.1:%s/mcp\"}", port);
  g_autoptr(NatterMcpServerConfig) config = config_from ("fake-http", literal);
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);

  assert_strict_round_trip (client);
  g_subprocess_force_exit (server);
}

/* A body nested 100,000 deep (it crashed the process) fails its call
 * with a clear error. */
static void
test_http_deep_message (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  const char *argv[] = { python, script, "--http", "--hostile-tools", NULL };
  g_autoptr(GSubprocess) server = NULL;
  g_autofree char *port = start_and_wait_for_line (&server, argv, NULL, FALSE, "");
  g_autofree char *literal = g_strdup_printf ("{\"url\": \"http://127.0.0.1:%s/mcp\"}", port);
  g_autoptr(NatterMcpServerConfig) config = config_from ("fake-http", literal);
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  result = call_tool (client, "deep", "{}", NULL, &error);
  g_assert_null (result);
  g_assert_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_PROTOCOL);
  g_assert_nonnull (strstr (error->message, "The server sent a message nested deeper than 520 levels"));
  g_subprocess_force_exit (server);
}

static char *
store_lookup (const char  *key,
              gpointer     user_data,
              GError     **error)
{
  return natter_secret_store_lookup_sync (NATTER_SECRET_STORE (user_data), key, NULL, error);
}

/* A header kept in the Secret Service: mcp.json holds a reference, the
 * client reads the value when it connects (the fake refuses any request
 * without it). Missing, the connection fails naming the header, never
 * a value. */
static void
test_http_secret_header (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  const char *argv[] = { python, script, "--http", "--require-header", "Authorization:Bearer s3cret-v4lue", NULL };
  g_autoptr(GSubprocess) server = NULL;
  g_autofree char *port = start_and_wait_for_line (&server, argv, NULL, FALSE, "");
  g_autofree char *literal = g_strdup_printf ("{\"url\": \"http://127.0.0.1:%s/mcp\", \"headers\": {"
                                              " \"Authorization\": {\"secret\": \"mcp-header:web/Authorization\"},"
                                              " \"X-Plain\": \"1\"}}", port);
  g_autoptr(NatterMcpServerConfig) config = config_from ("web", literal);
  g_autoptr(NatterMemorySecretStore) store = natter_memory_secret_store_new ();
  g_autoptr(NatterMcpSecrets) secrets = natter_mcp_secrets_new (store_lookup, g_object_ref (store), g_object_unref);
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(NatterMcpClient) bare = natter_mcp_client_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonArray) refused = NULL;
  g_autoptr(JsonArray) stored = NULL;
  Wait wait = { 0 };

  /* Nothing stored yet. */
  natter_mcp_client_set_secrets (client, secrets);
  refused = list_tools (client, &error);
  g_assert_null (refused);
  g_assert_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_START);
  g_assert_cmpstr (error->message, ==, "Tool server “web”: the value of header “Authorization” is not in the Secret "
                                       "Service; type it again on the Tool Servers page of Preferences");
  g_clear_error (&error);

  natter_secret_store_store_async (NATTER_SECRET_STORE (store), "mcp-header:web/Authorization", "Bearer s3cret-v4lue",
                                   NULL, wait_cb, &wait);
  natter_test_wait_for_flag (&wait.done, WAIT_MS);
  g_assert_true (natter_secret_store_store_finish (NATTER_SECRET_STORE (store), wait.result, &error));
  g_assert_no_error (error);
  g_clear_object (&wait.result);
  g_assert_cmpstr (natter_memory_secret_store_peek (store, "mcp-header:web/Authorization"), ==, "Bearer s3cret-v4lue");
  tools = list_tools (client, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), ==, 6);
  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_READY);

  /* A client with no store at all cannot send the header. */
  stored = list_tools (bare, &error);
  g_assert_null (stored);
  g_assert_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_START);
  g_assert_null (strstr (error->message, "s3cret"));
  g_subprocess_force_exit (server);
}

/* ---- @modelcontextprotocol/server-everything ------------------------ */

static char *
everything_script (void)
{
  const char *dir = g_getenv ("NATTER_MCP_EVERYTHING_DIR");
  g_autofree char *node = g_find_program_in_path ("node");
  g_autofree char *script = NULL;

  if (dir == NULL || *dir == '\0' || node == NULL)
    {
      g_test_skip ("server-everything is not installed (NATTER_MCP_EVERYTHING_DIR and node; .ci/run installs it)");
      return NULL;
    }
  script = g_build_filename (dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js",
                             NULL);
  if (!g_file_test (script, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("server-everything is not installed under NATTER_MCP_EVERYTHING_DIR");
      return NULL;
    }
  return g_steal_pointer (&script);
}

static void
check_everything (NatterMcpClient *client)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) echo = NULL;
  g_autoptr(JsonObject) sum = NULL;
  g_autoptr(JsonObject) image = NULL;
  JsonArray *content;
  gboolean saw_image = FALSE;

  tools = list_tools (client, &error);
  g_assert_no_error (error);
  g_assert_true (has_tool (tools, "echo"));
  g_assert_true (has_tool (tools, "get-sum"));
  g_assert_true (has_tool (tools, "get-tiny-image"));
  g_assert_cmpstr (natter_mcp_client_get_protocol_version (client), ==, "2025-11-25");

  echo = call_tool (client, "echo", "{\"message\": \"hi\"}", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first_text (echo), ==, "Echo: hi");
  sum = call_tool (client, "get-sum", "{\"a\": 2, \"b\": 3}", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first_text (sum), ==, "The sum of 2 and 3 is 5.");
  image = call_tool (client, "get-tiny-image", "{}", NULL, &error);
  g_assert_no_error (error);
  content = json_object_get_array_member (image, "content");
  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *item = json_array_get_object_element (content, i);

      if (g_str_equal (json_object_get_string_member (item, "type"), "image"))
        {
          g_assert_cmpstr (json_object_get_string_member (item, "mimeType"), ==, "image/png");
          g_assert_cmpuint (strlen (json_object_get_string_member (item, "data")), >, 0);
          saw_image = TRUE;
        }
    }
  g_assert_true (saw_image);
}

static void
test_everything_stdio (void)
{
  g_autofree char *script = everything_script ();
  g_autofree char *node = g_find_program_in_path ("node");
  g_autoptr(JsonNode) entry = NULL;
  g_autoptr(NatterMcpServerConfig) config = NULL;
  g_autoptr(NatterMcpClient) client = NULL;
  g_autofree char *literal = NULL;

  if (script == NULL)
    return;
  literal = g_strdup_printf ("{\"command\": \"%s\", \"args\": [\"%s\", \"stdio\"]}", node, script);
  config = config_from ("everything", literal);
  client = natter_mcp_client_new (config);
  check_everything (client);
}

static char *
free_port (void)
{
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GError) error = NULL;
  guint16 port = g_socket_listener_add_any_inet_port (listener, NULL, &error);

  g_assert_no_error (error);
  g_socket_listener_close (listener);
  return g_strdup_printf ("%u", port);
}

static void
test_everything_http (void)
{
  g_autofree char *script = everything_script ();
  g_autofree char *node = g_find_program_in_path ("node");
  g_autofree char *port = free_port ();
  g_autoptr(GSubprocess) server = NULL;
  g_autofree char *line = NULL;
  g_autofree char *literal = NULL;
  g_autoptr(NatterMcpServerConfig) config = NULL;
  g_autoptr(NatterMcpClient) client = NULL;

  if (script == NULL)
    return;
  line = start_and_wait_for_line (&server, (const char * const []) { node, script, "streamableHttp", NULL },
                                  port, TRUE, "listening on port");
  literal = g_strdup_printf ("{\"url\": \"http://127.0.0.1:%s/mcp\"}", port);
  config = config_from ("everything-http", literal);
  client = natter_mcp_client_new (config);
  check_everything (client);
  g_subprocess_force_exit (server);
}

/* server-everything adds tools once it knows the client (after
 * `notifications/initialized`) and says so unasked: over Streamable HTTP
 * that reaches Natter only on the listening stream (the GET), which the
 * client opens before it finishes the handshake. */
static void
test_everything_http_list_changed (void)
{
  g_autofree char *script = everything_script ();
  g_autofree char *node = g_find_program_in_path ("node");
  g_autofree char *port = free_port ();
  g_autoptr(GSubprocess) server = NULL;
  g_autofree char *line = NULL;
  g_autofree char *literal = NULL;
  g_autoptr(NatterMcpServerConfig) config = NULL;
  g_autoptr(NatterMcpClient) client = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonArray) again = NULL;
  g_autoptr(GError) error = NULL;
  gboolean changed = FALSE;

  if (script == NULL)
    return;
  line = start_and_wait_for_line (&server, (const char * const []) { node, script, "streamableHttp", NULL },
                                  port, TRUE, "listening on port");
  literal = g_strdup_printf ("{\"url\": \"http://127.0.0.1:%s/mcp\"}", port);
  config = config_from ("everything-http", literal);
  client = natter_mcp_client_new (config);
  g_signal_connect (client, "tools-changed", G_CALLBACK (flag_cb), &changed);
  tools = list_tools (client, &error);
  g_assert_no_error (error);
  natter_test_wait_for_flag (&changed, WAIT_MS);
  again = list_tools (client, &error);
  g_assert_no_error (error);
  g_assert_true (has_tool (again, "simulate-research-query"));
  g_assert_cmpint (natter_mcp_client_get_state (client), ==, NATTER_MCP_CLIENT_STATE_READY);
  g_assert_null (natter_mcp_client_get_last_error (client));
  g_subprocess_force_exit (server);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mcp/config/valid", test_config_valid);
  g_test_add_func ("/mcp/config/errors", test_config_errors);
  g_test_add_func ("/mcp/config/update", test_config_update);
  g_test_add_func ("/mcp/stdio/handshake-and-call", test_stdio_handshake_and_call);
  g_test_add_func ("/mcp/stdio/strict-json", test_stdio_strict_json);
  g_test_add_func ("/mcp/stdio/banner", test_stdio_banner);
  g_test_add_func ("/mcp/stdio/version-negotiation", test_stdio_version_negotiation);
  g_test_add_func ("/mcp/stdio/pagination", test_stdio_pagination);
  g_test_add_func ("/mcp/stdio/list-changed", test_stdio_list_changed);
  g_test_add_func ("/mcp/stdio/crash-then-restart", test_stdio_crash_then_restart);
  g_test_add_func ("/mcp/stdio/timeout", test_stdio_timeout);
  g_test_add_func ("/mcp/stdio/stop-cancels", test_stdio_stop_cancels);
  g_test_add_func ("/mcp/stdio/start-failure", test_stdio_start_failure);
  g_test_add_func ("/mcp/http/fake-json", test_http_fake_json);
  g_test_add_func ("/mcp/http/secret-header", test_http_secret_header);
  g_test_add_func ("/mcp/http/strict-json", test_http_strict_json);
  g_test_add_func ("/mcp/http/deep-message", test_http_deep_message);
  g_test_add_func ("/mcp/everything/stdio", test_everything_stdio);
  g_test_add_func ("/mcp/everything/http", test_everything_http);
  g_test_add_func ("/mcp/everything/http-list-changed", test_everything_http_list_changed);

  return g_test_run ();
}
