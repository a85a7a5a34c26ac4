/* main.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "natter-application.h"
#include "natter-cli-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(NatterApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* A subcommand runs without a display, so it must not start GTK: the
   * display-free application forwards it to a running Natter (window or
   * command) or runs it itself. Options (--help, --version,
   * --gapplication-service) belong to the window's application. */
  if (argc > 1 && argv[1][0] != '-')
    {
      g_autoptr(NatterCliApplication) cli = natter_cli_application_new (APP_ID);
      int status;

      status = g_application_run (G_APPLICATION (cli), argc, argv);
      return status != 0 ? status : natter_cli_application_get_exit_status (cli);
    }

  app = natter_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
