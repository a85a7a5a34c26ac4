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
#include "natter-error-words.h"
#include "natter-cli.h"
#include "natter-mcp-client.h"
#include "natter-mcp-config.h"
#include "natter-mcp-error.h"
#include "natter-mcp-manager.h"
#include "natter-test-services.h"
#include "natter-test-server.h"
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

static const char *german (const char *msgid) G_GNUC_FORMAT (1);

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

/* The German window's services, over a data directory whose mcp.json
 * holds @config_text (NATTER_CONFIG_DIR names it). FALSE, the test
 * skipped, without the compiled settings schema the services bind. */
static gboolean
window_with_config (NatterTestServices *f,
                    const char         *config_text,
                    char              **out_data_dir,
                    char              **out_config)
{
  g_autoptr(GError) error = NULL;

  if (g_getenv ("NATTER_SCHEMA_DIR") == NULL)
    {
      g_test_skip ("no compiled settings schema (built without the UI)");
      return FALSE;
    }
  g_setenv ("GSETTINGS_SCHEMA_DIR", g_getenv ("NATTER_SCHEMA_DIR"), TRUE);
  natter_test_services_set_up (f, NULL);
  *out_data_dir = g_file_get_path (f->dir);
  *out_config = g_build_filename (*out_data_dir, "mcp.json", NULL);
  g_file_set_contents (*out_config, config_text, -1, &error);
  g_assert_no_error (error);
  g_setenv ("NATTER_CONFIG_DIR", *out_data_dir, TRUE);
  natter_test_services_serve (f, NULL, NULL, 0);
  return TRUE;
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

  if (!window_with_config (&f, "{\"mcpServers\": {", &data_dir, &config))
    return;
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

static void
refreshed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  natter_mcp_manager_refresh_finish (NATTER_MCP_MANAGER (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

/* Runs `natter mcp list` forwarded from a caller with @environment
 * (NULL-terminated, NATTER_DATA_DIR added) to the services of @f. */
static NatterTestCommandLine *
forward_mcp_list (NatterTestServices *f,
                  const char         *data_dir,
                  const char         *locale,
                  const char         *language)
{
  g_autofree char *data = g_strdup_printf ("NATTER_DATA_DIR=%s", data_dir);
  const char *arguments[] = { "natter", "mcp", "list", NULL };
  const char *environment[] = { locale, data, language, NULL };
  NatterTestCommandLine *cmdline = natter_test_command_line_new (arguments, environment);
  Ran ran = { 0 };

  natter_cli_run_async (f->services, G_APPLICATION_COMMAND_LINE (cmdline), NULL, ran_cb, &ran);
  natter_test_wait_for_flag (&ran.done, WAIT_MS);
  g_assert_cmpint (ran.status, ==, 0);
  return cmdline;
}

/* A tool server whose program is missing and one nothing listens for,
 * started by the German window: what GLib and GIO said of them (in
 * German, in this process) is not what is kept, which a tool's result
 * and the model would get; `natter mcp list` forwarded from a script
 * under LC_ALL=C prints English, and from a German caller German. */
static void
test_lower_layer_errors_in_callers_language (void)
{
  NatterTestServices f = { 0 };
  g_autofree char *data_dir = NULL;
  g_autofree char *config = NULL;
  g_autofree char *text = NULL;
  g_autofree char *web_reason = NULL;
  g_autofree char *expected_c = NULL;
  g_autofree char *expected_de = NULL;
  g_autofree char *ghost_de = NULL;
  g_autofree char *web_de = NULL;
  g_autoptr(NatterTestCommandLine) c = NULL;
  g_autoptr(NatterTestCommandLine) de = NULL;
  g_autoptr(GError) error = NULL;
  NatterMcpManager *manager;
  gboolean refreshed = FALSE;

  text = g_strdup_printf ("{\"mcpServers\": {\"ghost\": {\"command\": \"/nonexistent/natter-no-server\"},"
                          " \"web\": {\"url\": \"http://127.0.0.1:%u/mcp\"}}}", natter_test_closed_port ());
  if (!window_with_config (&f, text, &data_dir, &config))
    return;
  manager = natter_services_get_mcp_manager (f.services);
  natter_mcp_manager_reload (manager);
  natter_mcp_manager_refresh_async (manager, NULL, refreshed_cb, &refreshed);
  natter_test_wait_for_flag (&refreshed, WAIT_MS);

  /* Kept in Natter's words, whatever the window speaks. */
  g_assert_cmpstr (natter_mcp_client_get_last_error (natter_mcp_manager_find_client (manager, "ghost")), ==,
                   "Cannot start tool server “ghost” with “/nonexistent/natter-no-server”: there is no such program");
  g_assert_cmpstr (natter_mcp_client_get_last_error (natter_mcp_manager_find_client (manager, "web")), ==,
                   "Cannot reach tool server “web”: the connection was refused");

  c = forward_mcp_list (&f, data_dir, "LC_ALL=C", NULL);
  expected_c = g_strdup ("ghost\terror\tCannot start tool server “ghost” with “/nonexistent/natter-no-server”: "
                         "there is no such program\n"
                         "web\terror\tCannot reach tool server “web”: the connection was refused\n");
  g_assert_cmpstr (natter_test_command_line_get_out (c), ==, expected_c);

  de = forward_mcp_list (&f, data_dir, "LC_ALL=C.UTF-8", "LANGUAGE=de");
  ghost_de = g_strdup_printf (german ("Cannot start tool server “%s” with “%s”: %s"), "ghost",
                              "/nonexistent/natter-no-server", german ("there is no such program"));
  web_de = g_strdup_printf (german ("Cannot reach tool server “%s”: %s"), "web",
                            german ("the connection was refused"));
  expected_de = g_strdup_printf ("ghost\t%s\t%s\nweb\t%s\t%s\n", german ("error"), ghost_de, german ("error"), web_de);
  g_assert_cmpstr (natter_test_command_line_get_out (de), ==, expected_de);

  g_unsetenv ("NATTER_CONFIG_DIR");
  natter_test_services_tear_down (&f, NULL);
}

/* `natter send --temperature 9 x` forwarded from a script under
 * LC_ALL=C.UTF-8 to the German window is refused in English: the
 * window's rule for the value says what is wrong, in the caller's
 * words, as `show` of an unknown session does. */
static void
test_parameter_error_in_callers_language (void)
{
  NatterTestServices f = { 0 };
  g_autofree char *data_dir = NULL;
  g_autofree char *config = NULL;
  g_autofree char *data = NULL;
  const char *arguments[] = { "natter", "send", "--temperature", "9", "x", NULL };
  const char *environment[] = { "LC_ALL=C.UTF-8", NULL, NULL };
  g_autoptr(NatterTestCommandLine) cmdline = NULL;

  if (!window_with_config (&f, "{\"mcpServers\": {}}", &data_dir, &config))
    return;
  german ("Temperature must be a number from 0 to 2");
  data = g_strdup_printf ("NATTER_DATA_DIR=%s", data_dir);
  environment[1] = data;
  cmdline = natter_test_command_line_new (arguments, environment);
  g_assert_cmpint (natter_test_command_line_run (cmdline, f.services, WAIT_MS), ==, NATTER_CLI_EXIT_USAGE);
  g_assert_cmpstr (natter_test_command_line_get_err (cmdline), ==,
                   "natter: Temperature must be a number from 0 to 2\n");

  g_unsetenv ("NATTER_CONFIG_DIR");
  natter_test_services_tear_down (&f, NULL);
}

/* A stored failure is shown in the reader's language, its parts as they
 * were, a reason in it translated too; anything else as it is. */
static void
test_stored_failures_translated_when_shown (void)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *nested = NULL;
  g_autofree char *http = NULL;
  g_autofree char *other = NULL;
  g_autofree char *elsewhere = NULL;
  g_autofree char *expected = NULL;
  const char * const argv[] = { "/nonexistent/natter-no-server", NULL };

  /* GLib says it in German here; Natter's reason is English. */
  process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_NONE, &error);
  g_assert_null (process);
  g_assert_null (strstr (error->message, "No such file"));
  reason = natter_error_reason (error);
  g_assert_cmpstr (reason, ==, "there is no such program");

  shown = natter_error_words_local ("Could not reach Ollama at http://localhost:11434 — is it running?");
  expected = g_strdup_printf (german ("Could not reach %s at %s — is it running?"), "Ollama", "http://localhost:11434");
  g_assert_cmpstr (shown, ==, expected);
  g_clear_pointer (&expected, g_free);

  nested = natter_error_words_local ("Could not reach Work at https://llm.example (the host cannot be reached)");
  expected = g_strdup_printf (german ("Could not reach %s at %s (%s)"), "Work", "https://llm.example",
                              german ("the host cannot be reached"));
  g_assert_cmpstr (nested, ==, expected);

  g_clear_pointer (&expected, g_free);
  http = natter_error_words_local ("Work returned HTTP 502 Bad Gateway: upstream down");
  expected = g_strdup_printf (german ("%s returned HTTP %s"), "Work", "502 Bad Gateway: upstream down");
  g_assert_cmpstr (http, ==, expected);

  /* The session layer's refusals while another device writes the
   * answer are shown in the reader's language too. */
  g_clear_pointer (&expected, g_free);
  elsewhere = natter_error_words_local ("The answer is being written on another device (“Laptop”); the conversation "
                                        "can be renamed here once it has ended");
  expected = g_strdup_printf (german ("The answer is being written on another device (“%s”); the conversation can "
                                      "be renamed here once it has ended"), "Laptop");
  g_assert_cmpstr (elsewhere, ==, expected);
  g_assert_null (strstr (elsewhere, "renamed"));

  other = natter_error_words_local ("provider p: HTTP 500");
  g_assert_cmpstr (other, ==, "provider p: HTTP 500");
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
  g_test_add_func ("/language/lower-layer-errors-in-callers-language", test_lower_layer_errors_in_callers_language);
  g_test_add_func ("/language/stored-failures-translated-when-shown", test_stored_failures_translated_when_shown);
  g_test_add_func ("/language/parameter-error-in-callers-language", test_parameter_error_in_callers_language);

  return g_test_run ();
}
