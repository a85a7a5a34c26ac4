/* natter-cli-application.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * NATTER_CLI_COMMAND_ACTION:
 *
 * The action a `natter` command that is the primary instance on the
 * session bus exports: a window started then finds it, and opens beside
 * the command instead of asking it to present a window it does not have
 * (natter_application_beside_command()). It does nothing.
 */
#define NATTER_CLI_COMMAND_ACTION "command-running"

/**
 * NATTER_CLI_SPAWNED_WINDOW_ENV:
 *
 * Set in the environment of a window a command started because the
 * Shell or a launch asked it for one: such a window never asks again.
 */
#define NATTER_CLI_SPAWNED_WINDOW_ENV "NATTER_OPENED_BY_COMMAND"

#define NATTER_TYPE_CLI_APPLICATION (natter_cli_application_get_type ())

G_DECLARE_FINAL_TYPE (NatterCliApplication, natter_cli_application, NATTER, CLI_APPLICATION, GApplication)

NatterCliApplication *natter_cli_application_new             (const char           *application_id);
int                   natter_cli_application_get_exit_status (NatterCliApplication *self);
int                   natter_cli_application_run             (const char           *application_id,
                                                              int                   argc,
                                                              char                **argv);

G_END_DECLS
