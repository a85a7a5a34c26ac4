/* natter-cli-compact.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `natter compact SESSION [--keep N]`: summarizes a conversation's
 * earlier turns (session-layer-spec.md §12.3) and prints
 * `compacted <compactionId>`.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include "natter-auto-compact.h"
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
  if (compaction_id == NULL)
    {
      natter_cli_fail_error (run, error);
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

static void
auto_compacted_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Run *run = user_data;
  g_autofree char *compaction_id = NULL;
  g_autoptr(GError) error = NULL;

  compaction_id = natter_auto_compact_finish (NATTER_SESSIONS (object), result, &error);
  /* On stderr: stdout stays what `send` always printed. A failure costs
   * the message nothing: it goes out with the whole history. */
  if (compaction_id != NULL)
    g_application_command_line_printerr (run->cmdline,
                                         natter_cli_tr (run, "Compacted the conversation before sending (%s)\n"),
                                         compaction_id);
  else if (error != NULL)
    g_application_command_line_printerr (run->cmdline,
                                         natter_cli_tr (run, "Could not compact the conversation before sending, "
                                                        "so it is sent whole: %s\n"),
                                         error->message);
  natter_cli_send_message (run);
}

/* `send` to an existing session: compacts first when the `auto-compact`
 * setting asks for it (natter-auto-compact.c), then sends. */
void
natter_cli_auto_compact_then_send (Run *run)
{
  natter_auto_compact_async (natter_services_get_sessions (run->services),
                             natter_services_get_provider_registry (run->services),
                             natter_services_get_settings (run->services), run->session_id, g_task_get_cancellable (run->task),
                             auto_compacted_cb, run);
}
