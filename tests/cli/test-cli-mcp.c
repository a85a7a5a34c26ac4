/* test-cli-mcp.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `natter mcp list | tools | call` run as the real binary ($NATTER_BIN)
 * against the fake tool server of tests/data/mcp, configured through
 * $XDG_CONFIG_HOME/natter/mcp.json.
 */

#include "natter-id.h"
#include "natter-mcp-client.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define WAIT_MS 30000

typedef struct
{
  GFile *dir;   /* data dir, runtime dir and XDG_CONFIG_HOME */
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  g_autofree char *config_dir = NULL;
  g_autofree char *config = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  f->dir = natter_test_make_temp_dir ();
  config_dir = g_build_filename (g_file_peek_path (f->dir), "natter", NULL);
  g_assert_cmpint (g_mkdir_with_parents (config_dir, 0700), ==, 0);
  config = g_build_filename (config_dir, "mcp.json", NULL);
  text = g_strdup_printf ("{\"mcpServers\": {"
                          " \"fake\": {\"command\": \"%s\", \"args\": [\"%s\"]},"
                          " \"off\": {\"command\": \"%s\", \"disabled\": true},"
                          " \"ghost\": {\"command\": \"/nonexistent/natter-no-server\"}}}",
                          python, script, python);
  g_file_set_contents (config, text, -1, &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  natter_test_remove_tree (f->dir);
  g_object_unref (f->dir);
}

#define RUN(f, result, ...) \
  G_STMT_START { \
    const char * const run_args_[] = { __VA_ARGS__, NULL }; \
    natter_test_cli_run ((f)->dir, run_args_, (result), WAIT_MS); \
  } G_STMT_END

static void
test_list (Fixture       *f,
           gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };

  RUN (f, &r, "mcp", "list");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==,
                   "fake\tconnected\t6 tools\n"
                   "off\tdisabled\n"
                   "ghost\terror\tCannot start tool server “ghost” with “/nonexistent/natter-no-server”: there "
                   "is no such program\n");
}

static void
test_tools (Fixture       *f,
            gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_auto(NatterTestRun) missing = { 0 };

  RUN (f, &r, "mcp", "tools", "fake");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "echo\tSays the message back\ncrash\tExits in the middle of the call\n"));

  RUN (f, &missing, "mcp", "tools", "nope");
  g_assert_cmpint (missing.status, ==, 1);
  g_assert_true (g_str_has_prefix (missing.err, "natter: No tool server “nope” in "));
}

static void
test_call (Fixture       *f,
           gconstpointer  data)
{
  g_auto(NatterTestRun) ok = { 0 };
  g_auto(NatterTestRun) failed = { 0 };
  g_auto(NatterTestRun) bad = { 0 };
  g_auto(NatterTestRun) crashed = { 0 };

  RUN (f, &ok, "mcp", "call", "fake", "echo", "{\"message\": \"hello\"}");
  g_assert_cmpint (ok.status, ==, 0);
  g_assert_cmpstr (ok.out, ==, "echo: hello\n");

  RUN (f, &failed, "mcp", "call", "fake", "fail", "{}");
  g_assert_cmpint (failed.status, ==, 1);
  g_assert_cmpstr (failed.out, ==, "it failed\n");
  g_assert_cmpstr (failed.err, ==, "natter: Tool “fail” of “fake” reported an error\n");

  RUN (f, &bad, "mcp", "call", "fake", "echo", "[1]");
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_cmpstr (bad.err, ==, "natter: The arguments must be a JSON object: it is not a JSON object\n");

  RUN (f, &crashed, "mcp", "call", "fake", "crash", "{}");
  g_assert_cmpint (crashed.status, ==, 1);
  g_assert_true (g_str_has_prefix (crashed.err, "natter: Tool server “fake” stopped (exit status 3)"));
}

/* A disabled server is never started from the command line: `tools`
 * and `call` say so and fail; `list` shows it as disabled. The entry's
 * command would run python3 reading its standard input, so starting it
 * would show as a different error. */
static void
test_disabled (Fixture       *f,
               gconstpointer  data)
{
  g_auto(NatterTestRun) tools = { 0 };
  g_auto(NatterTestRun) call = { 0 };
  g_auto(NatterTestRun) list = { 0 };
  g_autofree char *config = g_build_filename (g_file_peek_path (f->dir), "natter", "mcp.json", NULL);
  g_autofree char *expected = g_strdup_printf ("natter: Tool server “off” is disabled; enable it in Preferences "
                                               "(Tool Servers) or remove \"disabled\": true from its entry in "
                                               "%s\n", config);

  RUN (f, &tools, "mcp", "tools", "off");
  g_assert_cmpint (tools.status, ==, 1);
  g_assert_cmpstr (tools.out, ==, "");
  g_assert_cmpstr (tools.err, ==, expected);

  RUN (f, &call, "mcp", "call", "off", "echo", "{\"message\": \"hello\"}");
  g_assert_cmpint (call.status, ==, 1);
  g_assert_cmpstr (call.out, ==, "");
  g_assert_cmpstr (call.err, ==, expected);

  RUN (f, &list, "mcp", "list");
  g_assert_nonnull (strstr (list.out, "\noff\tdisabled\n"));
}

#define SSE "text/event-stream"
#define CHUNK(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" delta "\"}}]}\n\n"
#define FINISH(reason) "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" reason "\"}]}\n\n"
#define DONE "data: [DONE]\n\n"
#define ECHO_CALL(id) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"" id "\"," \
  "\"type\":\"function\",\"function\":{\"name\":\"mcp__fake__echo\"," \
  "\"arguments\":\"{\\\"message\\\":\\\"hi\\\"}\"}}]}}]}\n\n" FINISH ("tool_calls") DONE
#define ANSWER CHUNK ("Hello") FINISH ("stop") DONE

/* A tool server's tool is granted by the name the model sees or by its
 * toolId, once the enabled servers' tools are listed: a granted call runs
 * without asking; revoked, it asks again. A tool no enabled server offers
 * cannot be granted; a built-in tool is granted without starting them. */
static void
test_grant (Fixture       *f,
            gconstpointer  data)
{
  const NatterTestResponse script[] = {
    { 200, SSE, NULL, NATTER_TEST_CHUNKS (ANSWER) },
    { 200, SSE, NULL, NATTER_TEST_CHUNKS (ECHO_CALL ("call_1")) },
    { 200, SSE, NULL, NATTER_TEST_CHUNKS (ANSWER) },
    { 200, SSE, NULL, NATTER_TEST_CHUNKS (ECHO_CALL ("call_2")) },
  };
  g_autoptr(NatterTestServer) server = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_auto(NatterTestRun) created = { 0 };
  g_auto(NatterTestRun) granted = { 0 };
  g_auto(NatterTestRun) by_id = { 0 };
  g_auto(NatterTestRun) listed = { 0 };
  g_auto(NatterTestRun) ran = { 0 };
  g_auto(NatterTestRun) revoked = { 0 };
  g_auto(NatterTestRun) asked = { 0 };
  g_auto(NatterTestRun) unknown = { 0 };
  g_auto(NatterTestRun) disabled = { 0 };
  g_auto(NatterTestRun) builtin = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *grant_id = NULL;
  g_autofree char *expected = NULL;

  RUN (f, &created, "send", "--no-auto-title", "--base-url", server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (created.status, ==, 0);
  session_id = natter_test_session_of (created.out);

  RUN (f, &granted, "grant", session_id, "mcp__fake__echo");
  g_assert_cmpint (granted.status, ==, 0);
  g_assert_true (g_str_has_prefix (granted.out, "grant "));
  grant_id = g_strndup (granted.out + strlen ("grant "), strcspn (granted.out + strlen ("grant "), "\n"));
  g_assert_true (natter_id_validate (grant_id, NULL));

  /* The toolId names the same tool: its grant is the one there is. */
  RUN (f, &by_id, "grant", session_id, "mcp:fake/echo");
  g_assert_cmpint (by_id.status, ==, 0);
  g_assert_cmpstr (by_id.out, ==, granted.out);

  RUN (f, &listed, "grants", session_id);
  expected = g_strdup_printf ("%s\tmcp:fake/echo\t", grant_id);
  g_assert_true (g_str_has_prefix (listed.out, expected));

  RUN (f, &ran, "send", "--session", session_id, "echo it");
  g_assert_cmpint (ran.status, ==, 0);
  g_assert_null (strstr (ran.out, "waiting:"));
  g_assert_true (g_str_has_suffix (ran.out, "\n\nHello\n"));
  g_assert_nonnull (strstr (server->bodies->pdata[2], "echo: hi"));

  RUN (f, &revoked, "revoke", session_id, grant_id);
  g_assert_cmpint (revoked.status, ==, 0);
  RUN (f, &asked, "send", "--session", session_id, "echo it again");
  g_assert_cmpint (asked.status, ==, 0);
  g_assert_nonnull (strstr (asked.out, "waiting: permission call_2 mcp__fake__echo"));

  RUN (f, &unknown, "grant", session_id, "mcp__fake__nope");
  g_assert_cmpint (unknown.status, ==, 1);
  g_assert_nonnull (strstr (unknown.err, "natter: There is no tool “mcp__fake__nope”"));
  RUN (f, &disabled, "grant", session_id, "mcp__off__echo");
  g_assert_cmpint (disabled.status, ==, 1);
  g_assert_nonnull (strstr (disabled.err, "natter: There is no tool “mcp__off__echo”"));

  /* A built-in tool is granted without starting any server (the broken
   * "ghost" would say so on standard error). */
  RUN (f, &builtin, "grant", session_id, "read_file");
  g_assert_cmpint (builtin.status, ==, 0);
  g_assert_cmpstr (builtin.err, ==, "");
}

/* ---- hostile servers and files ------------------------------------- */

static char *
config_path (Fixture *f)
{
  return g_build_filename (g_file_peek_path (f->dir), "natter", "mcp.json", NULL);
}

static void
write_config (Fixture    *f,
              const char *text)
{
  g_autofree char *path = config_path (f);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

/* mcp.json with "fake" (the fake server with @fake_args, a JSON list
 * fragment) and "hung", which never answers the handshake. */
static void
write_hung_config (Fixture    *f,
                   const char *fake_args)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  g_autofree char *text = g_strdup_printf ("{\"mcpServers\": {"
                                           " \"fake\": {\"command\": \"%s\", \"args\": [\"%s\"%s]},"
                                           " \"hung\": {\"command\": \"%s\", \"args\": [\"%s\", \"--hang-handshake\"]}}}",
                                           python, script, fake_args, python, script);

  write_config (f, text);
}

/* Three servers that never answer the handshake, in a fresh `send`: they
 * start together, the command waits for them once, for one handshake
 * limit in all (a wait of 5 s per server, one after another, would
 * outlast the run's bound of two limits), the model is offered none of
 * their tools, and the output says once, on one line, which servers were
 * left out. A good server beside a hung one is test_hung_server()'s: one
 * here too would have to finish its own handshake within the limit while
 * four interpreters start at once, which a loaded machine (the sanitizer
 * pass) does not always give it. */
static void
test_hung_servers_waited_together (Fixture       *f,
                                   gconstpointer  data)
{
  const NatterTestResponse script[] = {
    { 200, SSE, NULL, NATTER_TEST_CHUNKS (ANSWER) },
  };
  g_autoptr(NatterTestServer) server = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script_path = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  g_autoptr(GString) text = g_string_new ("{\"mcpServers\": {");
  const char * const args[] = { "send", "--no-auto-title", "--base-url", server->base_url, "--model", "m1", "hello",
                                NULL };
  g_auto(NatterTestRun) sent = { 0 };

  for (guint i = 1; i <= 3; i++)
    g_string_append_printf (text, "%s\"hung%u\": {\"command\": \"%s\", \"args\": [\"%s\", \"--hang-handshake\"]}",
                            i > 1 ? ", " : "", i, python, script_path);
  g_string_append (text, "}}");
  write_config (f, text->str);

  natter_test_cli_run (f->dir, args, &sent, 2 * NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS * 1000);
  g_assert_cmpint (sent.status, ==, 0);
  g_assert_true (g_str_has_suffix (sent.out, "\n\nHello\n"));
  g_assert_cmpstr (sent.err, ==, "natter: 3 tool servers did not finish starting within 5 s; their tools are not "
                                 "offered until they do: “hung1”, “hung2”, “hung3”\n");
  g_assert_null (strstr (server->bodies->pdata[0], "mcp__hung"));
}

/* A server that never answers the handshake holds up nothing for long:
 * `mcp list` asks every server at once and says it is still starting
 * after the handshake limit (5 s), instead of waiting the 60 s call
 * timeout; `send` goes on without its tools, offering the other
 * server's, and says so; `mcp tools` of it fails at the limit. Each run
 * is bounded by WAIT_MS, well below what the call timeout would take. */
static void
test_hung_server (Fixture       *f,
                  gconstpointer  data)
{
  const NatterTestResponse script[] = {
    { 200, SSE, NULL, NATTER_TEST_CHUNKS (ANSWER) },
  };
  g_autoptr(NatterTestServer) server = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_auto(NatterTestRun) list = { 0 };
  g_auto(NatterTestRun) sent = { 0 };
  g_auto(NatterTestRun) tools = { 0 };

  write_hung_config (f, "");

  RUN (f, &list, "mcp", "list");
  g_assert_cmpint (list.status, ==, 0);
  g_assert_cmpstr (list.out, ==,
                   "fake\tconnected\t6 tools\n"
                   "hung\tstarting\tTool server “hung” did not finish starting within 5 s; its tools are not "
                   "offered until it does\n");

  RUN (f, &sent, "send", "--no-auto-title", "--base-url", server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (sent.status, ==, 0);
  g_assert_true (g_str_has_suffix (sent.out, "\n\nHello\n"));
  g_assert_cmpstr (sent.err, ==, "natter: Tool server “hung” did not finish starting within 5 s; its tools are "
                                 "not offered until it does\n");
  g_assert_nonnull (strstr (server->bodies->pdata[0], "mcp__fake__echo"));
  g_assert_null (strstr (server->bodies->pdata[0], "mcp__hung__"));

  RUN (f, &tools, "mcp", "tools", "hung");
  g_assert_cmpint (tools.status, ==, 1);
  g_assert_cmpstr (tools.err, ==, "natter: Tool server “hung” did not answer “initialize” within 5 s\n");
}

/* A server that prints a line that is not JSON-RPC on its standard
 * output (a banner, a log line) is used all the same: the line is
 * skipped, as the official SDKs do, and logged to the journal, never
 * beside the command's output on standard error. */
static void
test_banner_server (Fixture       *f,
                    gconstpointer  data)
{
  g_auto(NatterTestRun) list = { 0 };
  g_auto(NatterTestRun) call = { 0 };

  write_hung_config (f, ", \"--banner\"");
  RUN (f, &list, "mcp", "list");
  g_assert_true (g_str_has_prefix (list.out, "fake\tconnected\t6 tools\n"));
  g_assert_cmpstr (list.err, ==, "");
  RUN (f, &call, "mcp", "call", "fake", "echo", "{\"message\": \"through the noise\"}");
  g_assert_cmpint (call.status, ==, 0);
  g_assert_cmpstr (call.out, ==, "echo: through the noise\n");
  g_assert_cmpstr (call.err, ==, "");
}

/* A server's answer nested 100,000 deep ends its connection with a
 * clear error; it crashed the process before. */
static void
test_deep_message (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(NatterTestRun) call = { 0 };

  write_hung_config (f, ", \"--hostile-tools\"");
  RUN (f, &call, "mcp", "call", "fake", "deep", "{}");
  g_assert_cmpint (call.status, ==, 1);
  g_assert_cmpstr (call.err, ==, "natter: Tool server “fake”: The server sent a message nested deeper than 520 "
                                 "levels\n");
}

/* mcp.json nested 100,000 deep crashed every command. Now `mcp list`
 * says what is wrong with it and exits 1, the file is left as it was,
 * and the other commands work: the conversations are untouched. */
static void
test_deep_config (Fixture       *f,
                  gconstpointer  data)
{
  const NatterTestResponse script[] = {
    { 200, SSE, NULL, NATTER_TEST_CHUNKS (ANSWER) },
    { 200, SSE, NULL, NATTER_TEST_CHUNKS (ANSWER) },
  };
  g_autoptr(NatterTestServer) server = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autofree char *path = config_path (f);
  g_autofree char *open = g_strnfill (100000, '[');
  g_autofree char *close = g_strnfill (100000, ']');
  g_autofree char *text = g_strdup_printf ("{\"mcpServers\": %s%s}", open, close);
  g_autofree char *after = NULL;
  g_autofree char *expected = NULL;
  g_auto(NatterTestRun) created = { 0 };
  g_auto(NatterTestRun) list = { 0 };
  g_auto(NatterTestRun) sessions = { 0 };
  g_auto(NatterTestRun) sent = { 0 };
  g_autofree char *session_id = NULL;

  RUN (f, &created, "send", "--no-auto-title", "--base-url", server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (created.status, ==, 0);
  session_id = natter_test_session_of (created.out);
  write_config (f, text);

  RUN (f, &list, "mcp", "list");
  g_assert_cmpint (list.status, ==, 1);
  g_assert_cmpstr (list.out, ==, "");
  expected = g_strdup_printf ("natter: %s is not valid JSON: 1:535: the JSON nests deeper than 520 levels\n", path);
  g_assert_cmpstr (list.err, ==, expected);

  RUN (f, &sessions, "sessions");
  g_assert_cmpint (sessions.status, ==, 0);
  g_assert_nonnull (strstr (sessions.out, session_id));
  g_assert_cmpstr (sessions.err, ==, "");

  /* A send says the file's mistake and goes on without tool servers. */
  RUN (f, &sent, "send", "--session", session_id, "--base-url", server->base_url, "--model", "m1", "again");
  g_assert_cmpint (sent.status, ==, 0);
  g_assert_cmpstr (sent.err, ==, expected);
  g_assert_true (g_str_has_suffix (sent.out, "\n\nHello\n"));

  g_file_get_contents (path, &after, NULL, NULL);
  g_assert_cmpstr (after, ==, text);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("NATTER_BIN") == NULL || g_getenv ("NATTER_SCHEMA_DIR") == NULL)
    {
      g_test_skip ("NATTER_BIN is not set: the binary is only built with -Dui=true");
      return g_test_run ();
    }
  g_test_add ("/cli/mcp/list", Fixture, NULL, fixture_set_up, test_list, fixture_tear_down);
  g_test_add ("/cli/mcp/tools", Fixture, NULL, fixture_set_up, test_tools, fixture_tear_down);
  g_test_add ("/cli/mcp/call", Fixture, NULL, fixture_set_up, test_call, fixture_tear_down);
  g_test_add ("/cli/mcp/disabled", Fixture, NULL, fixture_set_up, test_disabled, fixture_tear_down);
  g_test_add ("/cli/mcp/grant", Fixture, NULL, fixture_set_up, test_grant, fixture_tear_down);
  g_test_add ("/cli/mcp/hung-server", Fixture, NULL, fixture_set_up, test_hung_server, fixture_tear_down);
  g_test_add ("/cli/mcp/hung-servers-waited-together", Fixture, NULL, fixture_set_up,
              test_hung_servers_waited_together, fixture_tear_down);
  g_test_add ("/cli/mcp/banner-server", Fixture, NULL, fixture_set_up, test_banner_server, fixture_tear_down);
  g_test_add ("/cli/mcp/deep-message", Fixture, NULL, fixture_set_up, test_deep_message, fixture_tear_down);
  g_test_add ("/cli/mcp/deep-config", Fixture, NULL, fixture_set_up, test_deep_config, fixture_tear_down);
  return g_test_run ();
}
