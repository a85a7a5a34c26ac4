/* natter-cli-session.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session a command names: checked against the index before
 * anything is written, and read for the commands that print a part of
 * it (its grants, its queue).
 */

#define G_LOG_DOMAIN "natter-cli"

#include "natter-cli-private.h"
#include "natter-id.h"
#include "natter-sync-conflict-name.h"
#include "natter-services.h"

/* Checks a session id given on the command line against the index: a
 * malformed id and an unknown session are errors before anything is
 * read or written. A damaged session is found all the same (`export`
 * and `recover` take it). */
NatterSessionIndexEntry *
natter_cli_find_session (Run        *run,
                         const char *session_id)
{
  NatterSessionIndexEntry *entry;
  GError *error = NULL;

  if (!natter_store_name_validate (session_id, &error))
    {
      natter_cli_fail_error (run, error);
      return NULL;
    }
  entry = natter_session_index_lookup (natter_services_get_index (run->services), session_id);
  if (entry == NULL)
    {
      g_autoptr(GFile) turn = natter_jsonl_repo_get_file (natter_services_get_turn_repo (run->services), session_id,
                                                          NULL);

      /* Turn and session ids look alike: one given for the other is
       * said as such, with where the right one is found. */
      if (turn != NULL && g_file_query_exists (turn, NULL))
        /* Translators: %s is an id */
        natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                         natter_cli_tr (run, "%s is a turn, not a session: give its conversation’s id "
                                        "(natter sessions lists them)"),
                         session_id);
      else
        natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, natter_cli_tr (run, "No session %s"), session_id);
      return NULL;
    }
  return entry;
}

/* natter_cli_find_session(), and a damaged session is an error too,
 * with the way out (`natter recover`). */
NatterSessionIndexEntry *
natter_cli_lookup_session (Run        *run,
                           const char *session_id)
{
  NatterSessionIndexEntry *entry = natter_cli_find_session (run, session_id);

  if (entry == NULL)
    return NULL;
  if (natter_session_index_entry_get_error (entry) != NULL)
    {
      /* Translators: the first %s is a session id, the second why */
      natter_cli_fail_damaged (run, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT,
                                                 natter_cli_tr (run, "Session %s cannot be used: %s"), session_id,
                                                 natter_session_index_entry_get_error (entry)),
                               session_id);
      return NULL;
    }
  return entry;
}

static void
print_session_read_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterSessionState) state = NULL;
  GError *error = NULL;

  state = natter_sessions_get_session_finish (NATTER_SESSIONS (object), result, &error);
  if (state == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  run->print_session (run, state);
  natter_cli_finish (run, 0);
}

/* Reads the session the command names (its first argument), prints what
 * @print takes from its state, and finishes: the commands that list a
 * part of a session (its grants, its queue). */
void
natter_cli_print_session (Run  *run,
                          void (*print) (Run *run, NatterSessionState *state))
{
  run->print_session = print;
  natter_sessions_get_session_async (natter_services_get_sessions (run->services), run->args[0],
                                     g_task_get_cancellable (run->task), print_session_read_cb, run);
}
