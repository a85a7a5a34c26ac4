/* natter-cli-compact.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `natter compact SESSION [--keep N]`: summarizes a conversation's
 * earlier turns (docs/sessions.md §5) and prints
 * `compacted <compactionId>`.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include "natter-cli-private.h"

static void
compacted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Run *run = user_data;
  g_autofree char *compaction_id = NULL;
  GError *error = NULL;

  compaction_id = natter_sessions_compact_finish (NATTER_SESSIONS (object), result, &error);
  /* A history that cannot be read is summarized no more than it is
   * sent: the way out is the one a refused message gets, whether the
   * session refused it or a turn of it did not read. */
  if (compaction_id == NULL && natter_cli_is_damage_refusal (error))
    {
      natter_cli_fail_damaged (run, error, run->args[0]);
      return;
    }
  if (compaction_id == NULL)
    {
      natter_cli_fail_turn_error (run, error, run->args[0]);
      return;
    }
  natter_cli_out (run, "compacted %s\n", compaction_id);
  natter_cli_finish (run, 0);
}

void
natter_cli_command_compact (Run *run)
{
  if (natter_cli_lookup_session (run, run->args[0]) == NULL)
    return;
  natter_sessions_compact_async (natter_services_get_sessions (run->services), run->args[0], (guint) run->keep,
                                 g_task_get_cancellable (run->task), compacted_cb, run);
}
