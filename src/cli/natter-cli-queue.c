/* natter-cli-queue.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Queued messages on the command line (docs/sessions.md §4):
 * send --queue, queue, unqueue; following the queue after a reported
 * turn completes is part of the report (natter-cli-report.c). A turn the queue makes in this process runs to its end
 * before the command exits, whichever command made it: the one after a
 * reported turn, and the one made of a message a crash left queued, which
 * a send finds first in line (docs/format.md §3.4). Otherwise the exit
 * would leave it interrupted, and the queue behind it stalled until
 * someone resumed it. Output lines are stable for scripts (README,
 * "Command line").
 */

#define G_LOG_DOMAIN "natter-cli"

#include "natter-blob-store.h"
#include "natter-cli-private.h"
#include "natter-json.h"
#include "natter-services.h"
#include "natter-session-error.h"
#include "natter-session-grants-queue.h"
#include "natter-sessions-queue.h"

/* The session's latest turn as the index has it now. */
static const char *
latest_turn (Run *run)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (natter_services_get_index (run->services),
                                                                run->session_id);

  return entry != NULL ? natter_session_index_entry_get_latest_turn_id (entry) : NULL;
}

/* Remembers the session's latest turn before a send, so that a turn the
 * send made of a queued message can be told from one that was there. */
void
natter_cli_note_latest (Run *run)
{
  g_free (run->latest_before);
  run->latest_before = run->session_id != NULL ? g_strdup (latest_turn (run)) : NULL;
}

/* The queue made a turn since natter_cli_note_latest(): it is reported
 * once it settles, after @separator, and followed as a reported turn is
 * (natter_cli_follow_queue()). */
static gboolean
follow_promoted (Run        *run,
                 const char *separator)
{
  const char *latest = run->session_id != NULL ? latest_turn (run) : NULL;

  if (latest == NULL || g_strcmp0 (latest, run->latest_before) == 0)
    return FALSE;
  g_free (run->turn_id);
  run->turn_id = g_strdup (latest);
  natter_cli_out (run, "%s", separator);
  natter_cli_wait_and_report (run);
  return TRUE;
}

/* A send refused because messages queued before it go first: the
 * session sent the oldest instead. The refusal is said at once, the
 * queued message's turn is reported when it settles (and the queue
 * followed), and the command fails all the same: its own message was not
 * sent. Any other error fails the command as it is. */
void
natter_cli_fail_after_promotion (Run    *run,
                                 GError *error)
{
  g_autoptr(GError) refusal = error;

  if (!g_error_matches (refusal, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED))
    {
      natter_cli_fail_send_error (run, g_steal_pointer (&refusal));
      return;
    }
  g_application_command_line_printerr (run->cmdline, "natter: %s\n", refusal->message);
  run->exit_floor = NATTER_CLI_EXIT_FAILURE;
  if (!follow_promoted (run, ""))
    natter_cli_finish (run, NATTER_CLI_EXIT_FAILURE);
}

static void
queued_flushed_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Run *run = user_data;

  /* The promotion queueing started has run by now. */
  natter_sessions_flush_finish (NATTER_SESSIONS (object), result, NULL);
  if (!follow_promoted (run, "\n"))
    natter_cli_finish (run, 0);
}

/* send --queue: `queued <queueId>`; then the report of each turn the
 * queue makes now, after a blank line (behind a completed answer, a
 * promotion a crash lost goes first, in this process). */
void
natter_cli_queued (Run        *run,
                   const char *queue_id)
{
  natter_cli_out (run, "queued %s\n", queue_id);
  natter_sessions_flush_async (natter_services_get_sessions (run->services), g_task_get_cancellable (run->task),
                               queued_flushed_cb, run);
}

static void
print_queue (Run                *run,
             NatterSessionState *state)
{
  guint n = natter_session_state_get_n_queued (state);

  if (run->json)
    {
      g_autoptr(JsonArray) array = json_array_new ();

      for (guint i = 0; i < n; i++)
        {
          const NatterSessionQueuedMessage *queued = natter_session_state_get_queued (state, i);
          JsonObject *object = json_object_new ();

          json_object_set_string_member (object, "queueId", queued->queue_id);
          json_object_set_object_member (object, "message", json_object_ref (queued->message));
          json_object_set_string_member (object, "ts", queued->ts);
          json_array_add_object_element (array, object);
        }
      natter_cli_out_json_array (run, array);
      return;
    }
  for (guint i = 0; i < n; i++)
    {
      const NatterSessionQueuedMessage *queued = natter_session_state_get_queued (state, i);
      g_autofree char *text = natter_user_message_dup_words (queued->message);
      g_autoptr(GPtrArray) files = natter_message_dup_blob_parts (queued->message);
      g_autoptr(GString) line = g_string_new (NULL);

      /* One line per message, one field each for the words and every
       * file after them: a newline or tab in them would start another. */
      g_string_append_printf (line, "%s\t%s\t", queued->queue_id, queued->ts);
      g_string_append (line, g_strdelimit (text, "\n\t", ' '));
      for (guint j = 0; j < files->len; j++)
        {
          g_autofree char *name = g_strdup (json_object_get_string_member_with_default (g_ptr_array_index (files, j),
                                                                                        "name", ""));

          g_string_append_c (line, '\t');
          g_string_append (line, g_strdelimit (name, "\n\t", ' '));
        }
      natter_cli_out (run, "%s\n", line->str);
    }
}

/* natter queue SESSION [--json]: one `<queueId>\t<ts>\t<text>` line per
 * pending message, oldest first, then a `\t<name>` per attached file;
 * or `[{queueId, message, ts}]`. */
void
natter_cli_command_queue (Run *run)
{
  natter_cli_print_session (run, print_queue);
}

static void
unqueued_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!natter_sessions_remove_queued_message_finish (NATTER_SESSIONS (object), result, &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  natter_cli_finish (run, 0);
}

/* natter unqueue SESSION QUEUEID: prints nothing. */
void
natter_cli_command_unqueue (Run *run)
{
  natter_sessions_remove_queued_message_async (natter_services_get_sessions (run->services), run->args[0],
                                               run->args[1], g_task_get_cancellable (run->task), unqueued_cb, run);
}
