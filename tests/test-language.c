/* test-language.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Whose language a text is in. A command line's output is in its
 * caller's, not in that of the process that runs it: a script run under
 * LC_ALL=C that forwards `natter` to a window running in German reads
 * English. What is stored in a turn and sent to the model, such as a
 * tool server's failure, is in no UI's language at all. This process
 * plays the German window (LANGUAGE=de over the build's own catalog);
 * the command lines come "from another process" with their own
 * environment, as GApplication forwards them.
 */

#include "config.h"

#include <errno.h>
#include <libintl.h>
#include <locale.h>
#include <string.h>

#include "natter-builtin-tools.h"
#include "natter-cli.h"
#include "natter-mcp-client.h"
#include "natter-mcp-config.h"
#include "natter-mcp-error.h"
#include "natter-mcp-manager.h"
#include "natter-test-services.h"
#include "natter-test-support.h"

#define WAIT_MS 10000

typedef struct
{
  int      status;
  gboolean done;
} Ran;

static void
ran_cb (GObject      *object,
        GAsyncResult *result,
        gpointer      user_data)
{
  Ran *ran = user_data;

  ran->status = natter_cli_run_finish (result);
  ran->done = TRUE;
}

/* Runs `natter ARGUMENTS…` from a caller with @environment: help, or a
 * command line that fails before it needs the services. */
static NatterTestCommandLine *
run (const char * const *environment,
     int                 expected_status,
     ...)
{
  g_autoptr(GPtrArray) arguments = g_ptr_array_new ();
  NatterTestCommandLine *cmdline;
  Ran ran = { 0 };
  const char *argument;
  va_list args;

  g_ptr_array_add (arguments, (gpointer) "natter");
  va_start (args, expected_status);
  while ((argument = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (arguments, (gpointer) argument);
  va_end (args);
  g_ptr_array_add (arguments, NULL);

  cmdline = natter_test_command_line_new ((const char * const *) arguments->pdata, environment);
  natter_cli_run_async (NULL, G_APPLICATION_COMMAND_LINE (cmdline), NULL, ran_cb, &ran);
  natter_test_wait_for_flag (&ran.done, WAIT_MS);
  g_assert_cmpint (ran.status, ==, expected_status);
  return cmdline;
}

static const char *
german (const char *msgid)
{
  const char *text = dgettext (GETTEXT_PACKAGE, msgid);

  /* The window this process plays does speak German. */
  g_assert_cmpstr (text, !=, msgid);
  return text;
}

static void
test_caller_language (void)
{
  const char * const c[] = { "LC_ALL=C", "LANGUAGE=de", "PATH=/usr/bin", NULL };
  const char * const english[] = { "LANG=en_GB.UTF-8", NULL };
  const char * const unset[] = { "PATH=/usr/bin", NULL };
  const char * const c_utf8[] = { "LC_ALL=C.UTF-8", NULL };
  const char * const c_utf8_german[] = { "LC_ALL=C.UTF-8", "LANGUAGE=de", NULL };
  const char * const *callers[] = { c, english, unset, c_utf8 };

  for (guint i = 0; i < G_N_ELEMENTS (callers); i++)
    {
      g_autoptr(NatterTestCommandLine) unknown = run (callers[i], NATTER_CLI_EXIT_USAGE, "frobnicate", NULL);
      g_autoptr(NatterTestCommandLine) missing = run (callers[i], NATTER_CLI_EXIT_USAGE, "send", NULL);
      g_autoptr(NatterTestCommandLine) help = run (callers[i], 0, "help", NULL);
      g_autoptr(NatterTestCommandLine) send_help = run (callers[i], 0, "send", "--help", NULL);

      g_assert_cmpstr (natter_test_command_line_get_err (unknown), ==,
                       "natter: Unknown command “frobnicate”\nTry “natter help”.\n");
      g_assert_cmpstr (natter_test_command_line_get_err (missing), ==,
                       "natter: Missing arguments\nTry “natter send --help”.\n");
      g_assert_true (g_str_has_prefix (natter_test_command_line_get_out (help),
                                       "Commands (headless; forwarded to the running Natter if there is one):\n"));
      g_assert_nonnull (strstr (natter_test_command_line_get_out (send_help),
                                "Attach an image, a text file or a PDF (repeat for more)"));
    }

  /* A caller who reads German gets German. */
  {
    g_autoptr(NatterTestCommandLine) remote = run (c_utf8_german, NATTER_CLI_EXIT_USAGE, "send", NULL);
    g_autofree char *expected = g_strdup_printf ("natter: %s\n", german ("Missing arguments"));

    g_assert_true (g_str_has_prefix (natter_test_command_line_get_err (remote), expected));
  }
}

static void
called_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* A tool server that fails a call: its error becomes the tool's result,
 * which the turn stores and the model reads. */
static void
test_tool_errors_untranslated (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  g_autofree char *literal = g_strdup_printf ("{\"command\": \"%s\", \"args\": [\"%s\"]}", python, script);
  g_autoptr(JsonNode) node = natter_test_json (literal);
  g_autoptr(JsonNode) arguments = natter_test_json ("{}");
  g_autoptr(NatterMcpServerConfig) config = NULL;
  g_autoptr(NatterMcpClient) client = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (python);
  config = natter_mcp_server_config_parse ("fake", node, &error);
  g_assert_no_error (error);
  client = natter_mcp_client_new (config);
  natter_mcp_client_call_tool_async (client, "crash", json_node_get_object (arguments), NULL, called_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, WAIT_MS);
  answer = natter_mcp_client_call_tool_finish (client, result, &error);
  g_assert_null (answer);
  g_assert_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CLOSED);
  /* In English, though this process speaks German (the first case shows
   * it does). */
  g_assert_nonnull (strstr (error->message, "Tool server “fake” stopped (exit status 3)"));
}

/* A built-in tool that fails: its error, which the turn stores and the
 * model reads, is in English in the German window, the C library's
 * words included. */
static void
test_builtin_tool_errors_untranslated (void)
{
  g_autoptr(NatterTool) read_file = natter_tool_read_file_new ();
  g_autoptr(NatterTool) list_directory = natter_tool_list_directory_new ();
  g_autoptr(JsonNode) missing = natter_test_json ("{\"path\": \"/nonexistent/natter-missing\"}");
  g_autoptr(JsonObject) read = NULL;
  g_autoptr(JsonObject) listed = NULL;
  g_autoptr(GError) read_error = NULL;
  g_autoptr(GError) list_error = NULL;

  /* This process does translate the C library's words. */
  g_assert_cmpstr (g_strerror (ENOENT), !=, "No such file or directory");

  read = natter_tool_run_in (read_file, json_node_get_object (missing), "/", NULL, NULL, NULL, &read_error);
  g_assert_null (read);
  g_assert_cmpstr (read_error->message, ==, "Cannot read “/nonexistent/natter-missing”: No such file or directory");
  listed = natter_tool_run_in (list_directory, json_node_get_object (missing), "/", NULL, NULL, NULL, &list_error);
  g_assert_null (listed);
  g_assert_cmpstr (list_error->message, ==, "Cannot list “/nonexistent/natter-missing”: No such file or directory");
}

/* A broken mcp.json, read by the German window: `natter mcp list` run
 * by a script under LC_ALL=C and forwarded to the window says the
 * file's mistake in English. */
static void
test_mcp_mistake_in_callers_language (void)
{
  NatterTestServices f = { 0 };
  g_autofree char *config = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(NatterTestCommandLine) cmdline = NULL;
  g_autoptr(GError) error = NULL;
  const char *arguments[] = { "natter", "mcp", "list", NULL };
  const char *environment[] = { "LC_ALL=C", NULL, NULL };
  NatterMcpManager *manager;
  Ran ran = { 0 };

  /* The services' settings bind the schema, compiled with the UI. */
  if (g_getenv ("NATTER_SCHEMA_DIR") == NULL)
    {
      g_test_skip ("no compiled settings schema (built without the UI)");
      return;
    }
  g_setenv ("GSETTINGS_SCHEMA_DIR", g_getenv ("NATTER_SCHEMA_DIR"), TRUE);
  natter_test_services_set_up (&f, NULL);
  data_dir = g_file_get_path (f.dir);
  config = g_build_filename (data_dir, "mcp.json", NULL);
  g_file_set_contents (config, "{\"mcpServers\": {", -1, &error);
  g_assert_no_error (error);
  g_setenv ("NATTER_CONFIG_DIR", data_dir, TRUE);
  natter_test_services_serve (&f, NULL, NULL, 0);
  manager = natter_services_get_mcp_manager (f.services);
  /* The window read it, in German. */
  natter_mcp_manager_reload (manager);
  g_assert_true (g_str_has_prefix (natter_mcp_manager_get_config_error (manager), config));
  g_assert_null (strstr (natter_mcp_manager_get_config_error (manager), "is not valid JSON"));

  environment[1] = g_strdup_printf ("NATTER_DATA_DIR=%s", data_dir);
  cmdline = natter_test_command_line_new (arguments, environment);
  natter_cli_run_async (f.services, G_APPLICATION_COMMAND_LINE (cmdline), NULL, ran_cb, &ran);
  natter_test_wait_for_flag (&ran.done, WAIT_MS);
  g_assert_cmpint (ran.status, ==, NATTER_CLI_EXIT_FAILURE);
  expected = g_strdup_printf ("natter: %s is not valid JSON: ", config);
  g_assert_true (g_str_has_prefix (natter_test_command_line_get_err (cmdline), expected));
  g_assert_cmpstr (natter_test_command_line_get_out (cmdline), ==, "");

  g_free ((char *) environment[1]);
  g_unsetenv ("NATTER_CONFIG_DIR");
  natter_test_services_tear_down (&f, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *catalogs = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "..", "po", NULL);

  /* The window's process: German, whatever the test's environment. */
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "de", TRUE);
  setlocale (LC_ALL, "");
  /* As main.c sets it up. */
  bindtextdomain (GETTEXT_PACKAGE, catalogs);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/language/command-line-in-callers-language", test_caller_language);
  g_test_add_func ("/language/tool-errors-untranslated", test_tool_errors_untranslated);
  g_test_add_func ("/language/builtin-tool-errors-untranslated", test_builtin_tool_errors_untranslated);
  g_test_add_func ("/language/mcp-mistake-in-callers-language", test_mcp_mistake_in_callers_language);

  return g_test_run ();
}
