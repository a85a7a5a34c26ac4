/* natter-cli-application.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define NATTER_TYPE_CLI_APPLICATION (natter_cli_application_get_type ())

G_DECLARE_FINAL_TYPE (NatterCliApplication, natter_cli_application, NATTER, CLI_APPLICATION, GApplication)

NatterCliApplication *natter_cli_application_new             (const char           *application_id);
int                   natter_cli_application_get_exit_status (NatterCliApplication *self);
int                   natter_cli_application_run             (const char           *application_id,
                                                              int                   argc,
                                                              char                **argv);

G_END_DECLS
