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
#include "natter-json.h"
#include "natter-session-error.h"
#include "natter-plain-text.h"
#include "natter-store-error.h"

/* Output, always through the command line object: it may belong to
 * another process. Human-readable text passes the one rule of README.md
 * "Command line" (natter-plain-text.c): a control character a model,
 * a server or a file supplied never reaches the terminal as such, only
 * newlines and tabs do. `--json` output is written exactly: JSON escapes
 * C0 characters itself, and a script wants the text as stored. */

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
  if (run->json)
    natter_cli_out_exact (run, text);
  else
    {
      g_autofree char *visible = natter_visible_text (text, NATTER_VISIBLE_KEEP_NEWLINE | NATTER_VISIBLE_KEEP_TAB);

      g_application_command_line_print (run->cmdline, "%s", visible);
    }
}

/* @text as it is: JSON, or a terminal control Natter itself writes (a
 * progress line's carriage return). */
void
natter_cli_out_exact (Run        *run,
                      const char *text)
{
  g_application_command_line_print (run->cmdline, "%s", text);
}

/* The answer of a `--json` command: @node as indented JSON and a newline
 * the way every command prints it. @node stays the caller's. */
void
natter_cli_out_json (Run      *run,
                     JsonNode *node)
{
  g_autofree char *text = natter_json_to_output_text (node, TRUE);

  natter_cli_out (run, "%s\n", text);
}

/* natter_cli_out_json() of @array, which stays the caller's: the answer
 * of a command that lists things. */
void
natter_cli_out_json_array (Run       *run,
                           JsonArray *array)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

  json_node_set_array (root, array);
  natter_cli_out_json (run, root);
}

/* natter_cli_out_json() of @object, which stays the caller's: the answer
 * of a command about one thing. */
void
natter_cli_out_json_object (Run        *run,
                            JsonObject *object)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (root, object);
  natter_cli_out_json (run, root);
}

/* @text made one line of a listing: a newline or a tab in a title or a
 * snippet would split the line or shift its columns, so they are made
 * visible too. */
char *
natter_cli_one_line (const char *text)
{
  return natter_visible_text (text, NATTER_VISIBLE_KEEP_NONE);
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
  g_autofree char *visible = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  visible = natter_visible_text (text, NATTER_VISIBLE_KEEP_NEWLINE);
  g_application_command_line_printerr (run->cmdline, "natter: %s\n", visible);
  natter_cli_finish (run, status);
}

/* Ends the run for a turn that was cancelled, with the reason its
 * `turn_cancelled` recorded when a stop gave one (the conversation
 * deleted, Natter closed, `natter stop`): whoever waited for the answer
 * learns why it will not come. */
void
natter_cli_fail_cancelled (Run        *run,
                           const char *reason)
{
  if (reason != NULL && reason[0] != '\0')
    /* Translators: %s is why, as stored with the turn (in English), e.g. “The conversation was deleted” */
    natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, natter_cli_tr (run, "The turn was cancelled: %s"), reason);
  else
    natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, "%s", natter_cli_tr (run, "The turn was cancelled"));
}

void
natter_cli_fail_error (Run    *run,
                       GError *error)
{
  g_autofree char *words = natter_cli_error_words (run->cmdline, error->message);

  natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, "%s", words);
  g_error_free (error);
}

/* The reason @error (transfer full) gives, and the way out of a damaged
 * conversation: a copy of its readable part. */
void
natter_cli_fail_damaged (Run        *run,
                         GError     *error,
                         const char *session_id)
{
  /* Translators: the first %s is why, the second a session id */
  natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                   natter_cli_tr (run, "%s\nCopy the part before the damage into a new session with: "
                                  "natter recover %s"),
                   error->message, session_id);
  g_error_free (error);
}

/* Whether a message was refused because what it would go on from cannot
 * be read: a damaged history, a damaged latest turn or session file, or
 * the damaged turn itself that a retry names. Either way the readable
 * part can be copied with `natter recover`. */
gboolean
natter_cli_is_damage_refusal (const GError *error)
{
  return g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED) ||
         g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT) ||
         g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
}

/* A message that was not sent: the reason, and where there is one, the
 * way on. */
void
natter_cli_fail_send_error (Run    *run,
                            GError *error)
{
  if (natter_cli_is_damage_refusal (error) && run->session_id != NULL)
    {
      natter_cli_fail_damaged (run, error, run->session_id);
      return;
    }
  natter_cli_fail_error (run, error);
}

/* A turn of @session_id that could not be read for `show` or `export`:
 * a damaged or missing log (not the file system's refusal, nor a file
 * still on its way from another device) gets the way out that a refused
 * message gets. */
void
natter_cli_fail_turn_error (Run        *run,
                            GError     *error,
                            const char *session_id)
{
  if (error->domain == NATTER_STORE_ERROR && error->code != NATTER_STORE_ERROR_IO &&
      error->code != NATTER_STORE_ERROR_NOT_ARRIVED)
    {
      natter_cli_fail_damaged (run, error, session_id);
      return;
    }
  natter_cli_fail_error (run, error);
}
