/* natter-cli.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-command-line.h"
#include "natter-services.h"

G_BEGIN_DECLS

/**
 * NATTER_CLI_EXIT_FAILURE:
 *
 * The exit status of a command that failed: an error, a failed or
 * cancelled turn.
 */
#define NATTER_CLI_EXIT_FAILURE 1

/**
 * NATTER_CLI_EXIT_USAGE:
 *
 * The exit status of a command line that could not be understood.
 */
#define NATTER_CLI_EXIT_USAGE 2

gboolean  natter_cli_is_command      (const char              *word);
gboolean  natter_cli_needs_services  (const char * const      *arguments);
gboolean  natter_cli_reads_only      (const char * const      *arguments);
char     *natter_cli_dup_summary     (void);

void      natter_cli_run_async       (NatterServices          *services,
                                      GApplicationCommandLine *cmdline,
                                      GCancellable            *cancellable,
                                      GAsyncReadyCallback      callback,
                                      gpointer                 user_data);
int       natter_cli_run_finish      (GAsyncResult            *result);

const NatterCommands *natter_cli_get_commands (void);

G_END_DECLS
