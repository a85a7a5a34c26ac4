/* natter-cli-application.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The display-free application of a `natter SUBCOMMAND` invocation
 * (architecture.md, "Process and data"). It has the same application id
 * as the window, so when a Natter (window or command) is already primary
 * on the session bus, GIO forwards this command line to it and prints its
 * output here. Otherwise this process is primary: it builds the services,
 * takes the data directory's single-writer lock, runs the command and
 * exits. GtkApplication would need a display just to start, hence a plain
 * GApplication.
 */

#define G_LOG_DOMAIN "natter-cli-application"

#include "config.h"

#include <unistd.h>

#include "natter-cli.h"
#include "natter-cli-locale.h"
#include "natter-command-line.h"
#include "natter-cli-application.h"
#include "natter-services.h"

/* How long the exit may wait for writes in flight. */
#define FLUSH_TIMEOUT_MS 5000

struct _NatterCliApplication
{
  GApplication    parent_instance;
  NatterServices *services;
  int             exit_status;
  gboolean        cleaning_up;  /* leftovers of killed writes are being removed */
};

G_DEFINE_FINAL_TYPE (NatterCliApplication, natter_cli_application, G_TYPE_APPLICATION)

/* The exit status of the local command line is the process's own. */
static void
ran_cb (GApplication            *app,
        GApplicationCommandLine *cmdline,
        int                      status)
{
  if (!g_application_command_line_get_is_remote (cmdline))
    NATTER_CLI_APPLICATION (app)->exit_status = status;
}

/* Starts a window beside this command (see natter_cli_application_new()),
 * in the environment of @cmdline (nullable: this process's), which names
 * the data folder and the display. Returns whether it started. */
static gboolean
spawn_window (GApplicationCommandLine *cmdline)
{
  /* Not the command's output: a script that reads it to its end would
   * wait for the window to close. */
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr(GSubprocess) window = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *binary = g_file_read_link ("/proc/self/exe", &error);

  if (binary == NULL)
    {
      g_warning ("The window cannot be opened beside the running command: %s", error->message);
      return FALSE;
    }
  if (cmdline != NULL)
    {
      const char * const *environment = g_application_command_line_get_environ (cmdline);

      g_subprocess_launcher_set_environ (launcher, (char **) environment);
      g_subprocess_launcher_set_cwd (launcher, g_application_command_line_get_cwd (cmdline));
    }
  g_subprocess_launcher_setenv (launcher, NATTER_WINDOW_OPENED_BY_COMMAND_ENV, "1", TRUE);
  window = g_subprocess_launcher_spawn (launcher, &error, binary, NULL);
  if (window == NULL)
    {
      g_warning ("The window cannot be opened beside the running command: %s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* The Shell activated Natter (its icon, a notification) while a command
 * is the primary instance: a window opens beside it. */
static void
natter_cli_application_activate (GApplication *app)
{
  spawn_window (NULL);
}

static int
natter_cli_application_command_line (GApplication            *app,
                                     GApplicationCommandLine *cmdline)
{
  NatterCliApplication *self = NATTER_CLI_APPLICATION (app);
  g_auto(GStrv) arguments = g_application_command_line_get_arguments (cmdline, NULL);

  if (arguments[0] != NULL && arguments[1] == NULL)
    {
      /* A window asked this headless primary to present itself: it opens
       * one of its own beside this command, unless it is such a window
       * already (it could not tell this primary from a window's). */
      if (g_application_command_line_getenv (cmdline, NATTER_WINDOW_OPENED_BY_COMMAND_ENV) == NULL &&
          spawn_window (cmdline))
        return 0;
      g_application_command_line_printerr (cmdline, "natter: %s\n",
                                           natter_cli_gettext (cmdline, "A natter command is running; "
                                                               "open the window when it has finished"));
      return 1;
    }

  if (self->services == NULL && natter_cli_needs_services ((const char * const *) arguments))
    {
      g_autoptr(NatterServices) services = natter_services_new (NULL, NULL, NULL, NULL, NULL);
      g_autoptr(GError) error = NULL;

      /* Another Natter writes the directory: a command that only reads
       * runs read only, as a window there does (docs/sessions.md §8.3);
       * any other is refused. */
      if (!natter_services_acquire_writer_lock (services, &error) &&
          !natter_cli_reads_only ((const char * const *) arguments))
        {
          g_application_command_line_printerr (cmdline, "natter: %s\n", error->message);
          return 1;
        }
      self->services = g_steal_pointer (&services);
    }
  /* Once this process writes the directory, what writes killed half-way
   * left there is removed, beside the command. */
  if (self->services != NULL && natter_services_has_writer_lock (self->services) && !self->cleaning_up)
    {
      self->cleaning_up = TRUE;
      natter_services_clean_up_leftovers (self->services, app);
    }

  natter_command_line_run (natter_cli_get_commands (), app, self->services, cmdline, ran_cb);
  return 0;
}

static void
natter_cli_application_shutdown (GApplication *app)
{
  NatterCliApplication *self = NATTER_CLI_APPLICATION (app);

  if (self->services != NULL)
    natter_services_flush_blocking (self->services, FLUSH_TIMEOUT_MS);

  G_APPLICATION_CLASS (natter_cli_application_parent_class)->shutdown (app);
}

static void
natter_cli_application_finalize (GObject *object)
{
  NatterCliApplication *self = NATTER_CLI_APPLICATION (object);

  g_clear_object (&self->services);
  G_OBJECT_CLASS (natter_cli_application_parent_class)->finalize (object);
}

static void
natter_cli_application_class_init (NatterCliApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = natter_cli_application_finalize;
  app_class->command_line = natter_cli_application_command_line;
  app_class->activate = natter_cli_application_activate;
  app_class->shutdown = natter_cli_application_shutdown;
}

static void
natter_cli_application_init (NatterCliApplication *self)
{
  /* Says to a window started while this command is primary that no
   * window is there to present (natter_application_primary_is_command()):
   * actions are what a remote instance sees of the primary. */
  g_autoptr(GSimpleAction) marker = g_simple_action_new (NATTER_COMMAND_RUNNING_ACTION, NULL);

  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (marker));
}

/**
 * natter_cli_application_new:
 * @application_id: the application id, `io.github.natter.Natter`: the
 *   window's, so either forwards to the other
 *
 * Creates the application that runs a `natter` subcommand without a
 * display, forwarding it to the primary instance when one is
 * running.
 *
 * Returns: (transfer full): the application
 */
NatterCliApplication *
natter_cli_application_new (const char *application_id)
{
  g_return_val_if_fail (g_application_id_is_valid (application_id), NULL);

  /* The environment goes with a forwarded command line: the primary
   * reads the caller's data directory from it (natter_cli_run_async()). */
  return g_object_new (NATTER_TYPE_CLI_APPLICATION,
                       "application-id", application_id,
                       "flags", G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_SEND_ENVIRONMENT,
                       NULL);
}

/* An application that runs its command line here and never forwards
 * it, whatever Natter is primary on the bus. */
static NatterCliApplication *
application_new_here (const char *application_id)
{
  return g_object_new (NATTER_TYPE_CLI_APPLICATION,
                       "application-id", application_id,
                       "flags", G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_NON_UNIQUE,
                       NULL);
}

/* A command's standard error carries its one `natter: …` line (README,
 * "Command line") and nothing else: what is only logged (a tool server's
 * line that was skipped, leftovers that could not be removed) goes to the
 * journal, as a window's log does, or nowhere where there is none. With
 * G_MESSAGES_DEBUG set, whoever debugs reads it on standard error as
 * usual; warnings and worse, which mean a bug, always go there. */
static GLogWriterOutput
log_writer (GLogLevelFlags   level,
            const GLogField *fields,
            gsize            n_fields,
            gpointer         user_data)
{
  const char *debug = g_getenv ("G_MESSAGES_DEBUG");

  if ((level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) != 0 ||
      (debug != NULL && debug[0] != '\0'))
    return g_log_writer_default (level, fields, n_fields, user_data);
  /* Without a journal, dropped: the command's output is its promise. */
  g_log_writer_journald (level, fields, n_fields, user_data);
  return G_LOG_WRITER_HANDLED;
}

/**
 * natter_cli_application_run:
 * @application_id: the application id, as for natter_cli_application_new()
 * @argc: the number of @argv's members
 * @argv: (array length=argc): the process's command line
 *
 * Runs a `natter SUBCOMMAND` process (architecture.md, "Process and
 * data") so that it acts on the data directory it was given
 * (natter_services_get_default_data_dir()) and nowhere else. When that
 * directory is free, this process takes its single-writer lock and runs
 * the command itself: as the primary instance when no Natter is running,
 * else on its own beside the running one, which must be using another
 * directory since the lock was free. When the directory is in use, the
 * command line is forwarded to the primary instance, with the directory
 * (as an absolute `NATTER_DATA_DIR`) in its environment; the primary
 * runs it only if it uses that same directory, and otherwise fails
 * naming both. When no Natter on the bus (or none, without a bus) takes
 * it, the directory's writer is another process: a command that only
 * reads (natter_cli_reads_only(), `natter search`) runs here read only,
 * and any other is refused. Help, and a command line that cannot be
 * understood, touch no directory and are always answered by this
 * process itself, in its caller's language. Its log goes to the journal, not to
 * standard error, unless G_MESSAGES_DEBUG asks for it there: standard
 * error carries the command's own `natter: …` line alone.
 *
 * Returns: the process's exit status
 */
int
natter_cli_application_run (const char  *application_id,
                            int          argc,
                            char       **argv)
{
  g_autoptr(NatterCliApplication) app = NULL;
  gboolean needs_services;
  int status;

  g_return_val_if_fail (g_application_id_is_valid (application_id), 1);

  g_log_set_writer_func (log_writer, NULL, NULL);
  /* A command that shows progress draws it in place on a terminal and
   * writes a line per step elsewhere; forwarded to a running Natter, it
   * learns which from the environment that goes with it. */
  if (isatty (STDOUT_FILENO))
    g_setenv ("NATTER_STDOUT_IS_TERMINAL", "1", TRUE);
  needs_services = argc > 1 && natter_cli_needs_services ((const char * const *) argv);
  /* Help, and a command line that cannot be understood, need no data
   * directory: answered here, in this process's language and from its
   * own catalogs, never by whichever Natter is running. */
  if (argc > 1 && !needs_services)
    app = application_new_here (application_id);
  else
    app = natter_cli_application_new (application_id);
  if (needs_services)
    {
      g_autoptr(GFile) dir = natter_services_get_default_data_dir ();
      g_autofree char *path = g_file_get_path (dir);
      g_autoptr(NatterServices) services = NULL;

      /* Absolute, so that a primary with another working directory reads
       * the same place. */
      if (path != NULL)
        g_setenv (NATTER_DATA_DIR_ENV, path, TRUE);
      services = natter_services_new (dir, NULL, NULL, NULL, NULL);
      if (natter_services_acquire_writer_lock (services, NULL))
        {
          g_autoptr(GError) error = NULL;

          if (!g_application_register (G_APPLICATION (app), NULL, &error))
            g_debug ("Could not register: %s", error->message);
          else if (g_application_get_is_remote (G_APPLICATION (app)))
            {
              /* The running Natter cannot be using this directory, whose
               * lock was free: run here, without taking its name. */
              g_object_unref (app);
              app = application_new_here (application_id);
            }
          app->services = g_steal_pointer (&services);
        }
    }

  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status != 0 ? status : app->exit_status;
}

/**
 * natter_cli_application_get_exit_status:
 * @self: the application
 *
 * The exit status of the command this process ran itself, as primary.
 * g_application_run() returns the status of a forwarded command line,
 * but not of a local one that completes asynchronously, so `main()`
 * combines the two.
 *
 * Returns: the exit status, 0 when no local command ran
 */
int
natter_cli_application_get_exit_status (NatterCliApplication *self)
{
  g_return_val_if_fail (NATTER_IS_CLI_APPLICATION (self), 1);

  return self->exit_status;
}
