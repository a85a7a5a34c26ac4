/* natter-test-process.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Processes in tests: the `natter` binary run with its own data
 * directory and no display, what it said and how it ended, and a
 * command line given to the code under test in this process.
 */

#include <string.h>

#include "natter-cli.h"
#include "natter-id.h"
#include "natter-test-support.h"

/**
 * natter_test_run_clear:
 * @run: a run
 *
 * Frees what @run holds (its output and error text) and marks it not
 * done, ready for the next run.
 */
void
natter_test_run_clear (NatterTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
  run->done = FALSE;
}

/**
 * natter_test_session_of:
 * @out: what a command printed, its first line "session ID"
 *
 * The id a command that makes a conversation (send, fork, retry,
 * recover, import) prints on its first line; fails the test unless
 * that line names a valid id.
 *
 * Returns: (transfer full): the id
 */
char *
natter_test_session_of (const char *out)
{
  char *id;

  g_assert_nonnull (out);
  g_assert_true (g_str_has_prefix (out, "session "));
  id = g_strndup (out + strlen ("session "), strcspn (out + strlen ("session "), "\n"));
  g_assert_true (natter_id_validate (id, NULL));
  return id;
}

static void
communicated_cb (GObject      *object,
                 GAsyncResult *res,
                 gpointer      user_data)
{
  NatterTestRun *run = user_data;
  GSubprocess *process = G_SUBPROCESS (object);
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (process, res, &run->out, &run->err, &error);
  g_assert_no_error (error);
  run->status = g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process) : -1;
  run->done = TRUE;
}

/**
 * natter_test_cli_launcher_new:
 * @dir: the data directory the command works in
 *
 * A launcher for `natter` subcommands with their stdout and stderr piped,
 * working in @dir alone: no display and no session bus (so each
 * invocation is its own primary and never forwards to a running window),
 * @dir as NATTER_DATA_DIR, XDG_RUNTIME_DIR and XDG_CONFIG_HOME (tool
 * servers come from the test's own mcp.json, never the user's), memory
 * GSettings over the build's schema (NATTER_SCHEMA_DIR), the C locale
 * in UTF-8 so that messages are the untranslated ones, and no
 * G_MESSAGES_DEBUG. Add what a test needs on top (an API key, a crash
 * point).
 *
 * Returns: (transfer full): the launcher
 */
GSubprocessLauncher *
natter_test_cli_launcher_new (GFile *dir)
{
  GSubprocessLauncher *launcher;
  const char *path = g_file_peek_path (dir);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_unsetenv (launcher, "DISPLAY");
  g_subprocess_launcher_unsetenv (launcher, "WAYLAND_DISPLAY");
  g_subprocess_launcher_unsetenv (launcher, "DBUS_SESSION_BUS_ADDRESS");
  g_subprocess_launcher_setenv (launcher, "XDG_RUNTIME_DIR", path, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", path, TRUE);
  g_subprocess_launcher_setenv (launcher, "NATTER_DATA_DIR", path, TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "memory", TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_SCHEMA_DIR", g_getenv ("NATTER_SCHEMA_DIR"), TRUE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "LANGUAGE");
  /* Its standard error is compared whole: no debug log on it. */
  g_subprocess_launcher_unsetenv (launcher, "G_MESSAGES_DEBUG");
  return launcher;
}

/**
 * natter_test_cli_spawn:
 * @launcher: from natter_test_cli_launcher_new()
 * @args: (array zero-terminated=1): the subcommand and its arguments
 *
 * Starts `$NATTER_BIN @args…`; fails the test if it cannot start.
 *
 * Returns: (transfer full): the process
 */
GSubprocess *
natter_test_cli_spawn (GSubprocessLauncher *launcher,
                       const char * const  *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  GSubprocess *process;

  g_ptr_array_add (argv, (gpointer) g_getenv ("NATTER_BIN"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  return process;
}

/**
 * natter_test_cli_run:
 * @dir: the data directory (natter_test_cli_launcher_new())
 * @args: (array zero-terminated=1): the subcommand and its arguments
 * @result: (out caller-allocates): what the run said and how it ended
 * @timeout_ms: fail the test when it has not ended by then
 *
 * Runs `$NATTER_BIN @args…` to its end while the main context runs.
 */
void
natter_test_cli_run (GFile              *dir,
                     const char * const *args,
                     NatterTestRun      *result,
                     guint               timeout_ms)
{
  g_autoptr(GSubprocessLauncher) launcher = natter_test_cli_launcher_new (dir);
  g_autoptr(GSubprocess) process = natter_test_cli_spawn (launcher, args);

  memset (result, 0, sizeof *result);
  natter_test_communicate (process, result);
  natter_test_wait_for_flag (&result->done, timeout_ms);
}

/**
 * natter_test_communicate:
 * @process: a process spawned with its stdout and stderr piped
 * @run: (out caller-allocates): zeroed; filled in when @process ends
 *
 * Reads all @process writes (as UTF-8) while the main context runs; when
 * it has ended, sets @run's output, error text and exit status, then
 * @run->done (wait for it with natter_test_wait_for_flag()).
 */
void
natter_test_communicate (GSubprocess   *process,
                         NatterTestRun *run)
{
  g_subprocess_communicate_utf8_async (process, NULL, NULL, communicated_cb, run);
}

/* A command line whose output the test reads */

struct _NatterTestCommandLine
{
  GApplicationCommandLine  parent_instance;
  GString                 *out;
  GString                 *err;
};

G_DEFINE_FINAL_TYPE (NatterTestCommandLine, natter_test_command_line, G_TYPE_APPLICATION_COMMAND_LINE)

static void
natter_test_command_line_print_literal (GApplicationCommandLine *cmdline,
                                        const char              *message)
{
  g_string_append (NATTER_TEST_COMMAND_LINE (cmdline)->out, message);
}

static void
natter_test_command_line_printerr_literal (GApplicationCommandLine *cmdline,
                                           const char              *message)
{
  g_string_append (NATTER_TEST_COMMAND_LINE (cmdline)->err, message);
}

static void
natter_test_command_line_finalize (GObject *object)
{
  NatterTestCommandLine *self = NATTER_TEST_COMMAND_LINE (object);

  g_string_free (self->out, TRUE);
  g_string_free (self->err, TRUE);
  G_OBJECT_CLASS (natter_test_command_line_parent_class)->finalize (object);
}

static void
natter_test_command_line_class_init (NatterTestCommandLineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationCommandLineClass *cmdline_class = G_APPLICATION_COMMAND_LINE_CLASS (klass);

  object_class->finalize = natter_test_command_line_finalize;
  cmdline_class->print_literal = natter_test_command_line_print_literal;
  cmdline_class->printerr_literal = natter_test_command_line_printerr_literal;
}

static void
natter_test_command_line_init (NatterTestCommandLine *self)
{
  self->out = g_string_new (NULL);
  self->err = g_string_new (NULL);
}

/**
 * natter_test_command_line_new:
 * @arguments: (array zero-terminated=1): the whole command line, the
 *   program name first
 * @environment: (array zero-terminated=1) (nullable): `NAME=value`
 *   entries: the environment of the process the command line comes
 *   from (GIO calls every such subclass remote), which is in this
 *   process's working directory; %NULL for neither
 *
 * Returns: (transfer full): a command line for natter_cli_run_async()
 *   and the like
 */
NatterTestCommandLine *
natter_test_command_line_new (const char * const *arguments,
                              const char * const *environment)
{
  GVariant *platform_data = NULL;

  if (environment != NULL)
    {
      g_autoptr(GVariantBuilder) builder = g_variant_builder_new (G_VARIANT_TYPE_VARDICT);
      g_autofree char *cwd = g_get_current_dir ();

      g_variant_builder_add (builder, "{sv}", "environ", g_variant_new_bytestring_array (environment, -1));
      /* GApplication sends the caller's working directory too. */
      g_variant_builder_add (builder, "{sv}", "cwd", g_variant_new_bytestring (cwd));
      platform_data = g_variant_builder_end (builder);
    }
  return g_object_new (NATTER_TYPE_TEST_COMMAND_LINE,
                       "arguments", g_variant_new_bytestring_array (arguments, -1),
                       "platform-data", platform_data,
                       NULL);
}

/**
 * natter_test_command_line_get_out:
 * @self: a test command line
 *
 * Returns: (transfer none): all it printed to standard output
 */
const char *
natter_test_command_line_get_out (NatterTestCommandLine *self)
{
  return self->out->str;
}

/**
 * natter_test_command_line_get_err:
 * @self: a test command line
 *
 * Returns: (transfer none): all it printed to standard error
 */
const char *
natter_test_command_line_get_err (NatterTestCommandLine *self)
{
  return self->err->str;
}

typedef struct
{
  int      status;
  gboolean done;
} CommandRun;

static void
command_ran_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  CommandRun *ran = user_data;

  ran->status = natter_cli_run_finish (result);
  ran->done = TRUE;
}

/**
 * natter_test_command_line_run:
 * @self: a test command line
 * @services: (nullable): the #NatterServices of the process that plays
 *   the running window, or %NULL for a command that needs none
 * @timeout_ms: how long the command may take (the test fails after)
 *
 * Runs @self as a command forwarded to this process
 * (natter_cli_run_async()), driving the main loop until it ends.
 *
 * Returns: its exit status
 */
int
natter_test_command_line_run (NatterTestCommandLine *self,
                              gpointer               services,
                              guint                  timeout_ms)
{
  CommandRun ran = { 0 };

  natter_cli_run_async (services, G_APPLICATION_COMMAND_LINE (self), NULL, command_ran_cb, &ran);
  natter_test_wait_for_flag (&ran.done, timeout_ms);
  return ran.status;
}
