/* natter-cli-output.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a command says and how its run ends: every line goes through the
 * GApplicationCommandLine (the terminal that typed the command may be
 * another process's), an error is one line "natter: <message>" on
 * stderr, and the run returns its exit status. Every command file uses
 * these, and they call none of them.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "natter-cli-private.h"
#include "natter-session-error.h"

/* Output, always through the command line object: it may belong to
 * another process. */

void G_GNUC_PRINTF (2, 3)
natter_cli_out (Run        *run,
                const char *format,
                ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_application_command_line_print (run->cmdline, "%s", text);
}

/* Ends the run with @status, or with the run's floor when that is
 * higher (a refused send that waited for a queued message's turn). */
void
natter_cli_finish (Run *run,
                   int  status)
{
  GTask *task = run->task;

  run->task = NULL;
  g_task_return_int (task, MAX (status, run->exit_floor));
  g_object_unref (task);
}

void G_GNUC_PRINTF (3, 4)
natter_cli_fail (Run        *run,
                 int         status,
                 const char *format,
                 ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_application_command_line_printerr (run->cmdline, "natter: %s\n", text);
  natter_cli_finish (run, status);
}

void
natter_cli_fail_error (Run    *run,
                       GError *error)
{
  g_autofree char *words = natter_cli_error_words (run->cmdline, error->message);

  natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, "%s", words);
  g_error_free (error);
}

/* A message that was not sent: the reason, and where there is one, the
 * way on. */
void
natter_cli_fail_send_error (Run    *run,
                            GError *error)
{
  if (g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED) && run->session_id != NULL)
    {
      /* Translators: the first %s is why, the second a session id */
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                       natter_cli_tr (run, "%s\nCopy the part before the damage into a new session with: "
                                      "natter recover %s"),
                       error->message, run->session_id);
      g_error_free (error);
      return;
    }
  natter_cli_fail_error (run, error);
}
