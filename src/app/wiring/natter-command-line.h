/* natter-command-line.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-services.h"

G_BEGIN_DECLS

/**
 * NATTER_COMMAND_RUNNING_ACTION:
 *
 * The action a `natter` command that is the primary instance on the
 * session bus exports: a window started then finds it, and opens beside
 * the command instead of asking it to present a window it does not have
 * (natter_application_primary_is_command()). It does nothing.
 */
#define NATTER_COMMAND_RUNNING_ACTION "command-running"

/**
 * NATTER_WINDOW_OPENED_BY_COMMAND_ENV:
 *
 * Set in the environment of a window a command started because the
 * Shell or a launch asked it for one: such a window never asks again.
 */
#define NATTER_WINDOW_OPENED_BY_COMMAND_ENV "NATTER_OPENED_BY_COMMAND"

typedef struct _NatterCommands NatterCommands;

/**
 * NatterCommands:
 * @needs_services: whether a command line (`natter SUBCOMMAND …`, as its
 *   arguments with the program name first) touches the data directory
 * @reads_only: whether such a command line only reads the data
 *   directory, so that a process without its writer lock runs it read
 *   only (docs/sessions.md §8.3) rather than refusing it
 * @dup_summary: the commands' summary for `--help` (transfer full)
 * @run_async: runs a command line against @services, printing through it
 * @run_finish: the exit status of a finished run
 *
 * The `natter SUBCOMMAND` commands, as the applications that run them see
 * them. The command line's own code (src/cli/) provides them and main.c
 * hands them to whichever application runs, so the window's application
 * does not depend on the command line's code.
 */
struct _NatterCommands
{
  gboolean (*needs_services) (const char * const      *arguments);
  gboolean (*reads_only)     (const char * const      *arguments);
  char    *(*dup_summary)    (void);
  void     (*run_async)      (NatterServices          *services,
                              GApplicationCommandLine *cmdline,
                              GCancellable            *cancellable,
                              GAsyncReadyCallback      callback,
                              gpointer                 user_data);
  int      (*run_finish)     (GAsyncResult            *result);
};

/**
 * NatterCommandLineDone:
 * @app: the application that ran the command line
 * @cmdline: the command line
 * @status: its exit status
 *
 * Called when a command line run by natter_command_line_run() finished,
 * after its exit status was set.
 */
typedef void (*NatterCommandLineDone) (GApplication            *app,
                                       GApplicationCommandLine *cmdline,
                                       int                      status);

void natter_command_line_run (const NatterCommands     *commands,
                              GApplication             *app,
                              NatterServices           *services,
                              GApplicationCommandLine  *cmdline,
                              NatterCommandLineDone     done);

G_END_DECLS
