/* natter-cli-archive.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `natter export` and `natter import`: a conversation out as Markdown or
 * a JSON archive, and archives or a ChatGPT export in as new sessions.
 * Paths are the caller's: a command forwarded to a running Natter still
 * reads and writes relative to the terminal that typed it.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include <string.h>


#include "natter-cli-private.h"

static void
exported_written_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  natter_cli_finish (run, 0);
}

static void
exported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GBytes) bytes = NULL;
  GError *error = NULL;
  char *text;

  text = natter_sessions_export_finish (NATTER_SESSIONS (object), result, &error);
  if (text == NULL)
    {
      natter_cli_fail_turn_error (run, error, run->args[0]);
      return;
    }
  if (run->output == NULL)
    {
      natter_cli_out (run, "%s", text);
      g_free (text);
      natter_cli_finish (run, 0);
      return;
    }
  file = g_application_command_line_create_file_for_arg (run->cmdline, run->output);
  bytes = g_bytes_new_take (text, strlen (text));
  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE,
                                       G_FILE_CREATE_NONE, g_task_get_cancellable (run->task),
                                       exported_written_cb, run);
}

void
natter_cli_command_export (Run *run)
{
  const char *format = run->format != NULL ? run->format : "markdown";

  if (!g_str_equal (format, "markdown") && !g_str_equal (format, "json"))
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, natter_cli_tr (run, "--format must be markdown or json"));
      return;
    }
  if (natter_cli_find_session (run, run->args[0]) == NULL)
    return;
  natter_sessions_export_async (natter_services_get_sessions (run->services), run->args[0], format,
                                g_task_get_cancellable (run->task), exported_cb, run);
}

/* The new sessions on stdout, one `session ID` line each; on stderr,
 * what was left out, and every conversation that could not be read, which
 * makes the command fail (the others are imported). */
static void
imported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterImportReport) report = NULL;
  g_auto(GStrv) notes = NULL;
  GError *error = NULL;

  report = natter_sessions_import_finish (NATTER_SESSIONS (object), result, &error);
  if (report == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  for (guint i = 0; i < report->session_ids->len; i++)
    natter_cli_out (run, "session %s\n", (const char *) g_ptr_array_index (report->session_ids, i));
  {
    /* The notes are translated by the session layer, as the caller reads. */
    gpointer previous = natter_cli_locale_enter (run->cmdline);

    notes = natter_import_report_dup_notes (report);
    natter_cli_locale_leave (previous);
  }
  for (guint i = 0; notes[i] != NULL; i++)
    g_application_command_line_printerr (run->cmdline, "natter: %s\n", notes[i]);
  for (guint i = 0; i < report->defective->len; i++)
    g_application_command_line_printerr (run->cmdline, "natter: %s\n",
                                         (const char *) g_ptr_array_index (report->defective, i));
  if (report->defective->len > 0)
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                       natter_cli_ntr (run, "%u conversation could not be read and was not imported",
                                       "%u conversations could not be read and were not imported",
                                       report->defective->len),
                       report->defective->len);
      return;
    }
  natter_cli_finish (run, 0);
}

void
natter_cli_command_import (Run *run)
{
  g_autoptr(GFile) file = NULL;

  if (run->from != NULL && !g_str_equal (run->from, "chatgpt"))
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, natter_cli_tr (run, "--from must be chatgpt"));
      return;
    }
  file = g_application_command_line_create_file_for_arg (run->cmdline, run->args[0]);
  natter_sessions_import_async (natter_services_get_sessions (run->services), file, run->from,
                                g_task_get_cancellable (run->task), imported_cb, run);
}
