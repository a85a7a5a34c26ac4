/* natter-command-line.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Running one `natter SUBCOMMAND …` command line inside an application,
 * the same way in the window's application (a command typed there or
 * forwarded by a second process) and in the display-free one: the
 * application is held while the command runs, so it neither exits nor
 * answers the forwarding process before the command has printed
 * everything and set its exit status.
 */

#define G_LOG_DOMAIN "natter-command-line"

#include "config.h"

#include "natter-command-line.h"

typedef struct
{
  const NatterCommands    *commands;
  GApplication            *app;
  GApplicationCommandLine *cmdline;
  NatterCommandLineDone    done;
} Running;

static void
ran_cb (GObject      *object,
        GAsyncResult *result,
        gpointer      user_data)
{
  Running *running = user_data;
  int status = running->commands->run_finish (result);

  g_application_command_line_set_exit_status (running->cmdline, status);
  if (running->done != NULL)
    running->done (running->app, running->cmdline, status);
  g_application_release (running->app);
  g_object_unref (running->cmdline);
  g_object_unref (running->app);
  g_free (running);
}

/**
 * natter_command_line_run:
 * @commands: the commands
 * @app: the application running the command line; held until it finished
 * @services: (nullable): the services the command acts on; %NULL only for
 *   a command that does not need them (`commands->needs_services`)
 * @cmdline: the command line, whose arguments start with the program name
 * @done: (nullable) (scope async): called once it finished
 *
 * Runs @cmdline with @commands, sets its exit status, then calls @done.
 * Errors are the command's own: printed on @cmdline's standard error and
 * reported in its exit status, never as a #GError.
 */
void
natter_command_line_run (const NatterCommands    *commands,
                         GApplication            *app,
                         NatterServices          *services,
                         GApplicationCommandLine *cmdline,
                         NatterCommandLineDone    done)
{
  Running *running;

  g_return_if_fail (commands != NULL);
  g_return_if_fail (G_IS_APPLICATION (app));
  g_return_if_fail (G_IS_APPLICATION_COMMAND_LINE (cmdline));

  running = g_new0 (Running, 1);
  running->commands = commands;
  running->app = g_object_ref (app);
  running->cmdline = g_object_ref (cmdline);
  running->done = done;
  g_application_hold (app);
  commands->run_async (services, cmdline, NULL, ran_cb, running);
}
