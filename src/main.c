/* main.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "natter-application.h"
#include "natter-cli.h"
#include "natter-cli-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(NatterApplication) app = NULL;
  /* A build run uninstalled (build-aux/run-app, `meson devenv`) has its
   * catalogs in the build folder, which its environment names. */
  const char *catalogs = g_getenv ("NATTER_LOCALEDIR");

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, catalogs != NULL ? catalogs : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* A subcommand runs without a display, so it must not start GTK: the
   * display-free application runs it itself on a free data directory, or
   * forwards it to the running Natter (window or command) that uses it.
   * Options (--help, --version,
   * --gapplication-service) belong to the window's application. */
  if (argc > 1 && argv[1][0] != '-')
    return natter_cli_application_run (APP_ID, argc, argv);

  /* A launch handed to a running `natter` command would show nothing:
   * the window opens beside it, reading until the command has ended. */
  if (argc == 1 && natter_application_primary_is_command ())
    app = natter_application_new_beside_command (natter_cli_get_commands ());
  else
    app = natter_application_new (natter_cli_get_commands ());
  return g_application_run (G_APPLICATION (app), argc, argv);
}
