/* natter-cli-folders.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where a conversation sits in the list, from the command line
 * (docs/sessions.md §16): `natter pin`, `natter unpin` and `natter
 * folder`. Like the window, they act on the conversation as a whole (its
 * original, whichever version is named), and a folder is found by its
 * name — `natter folder SESSION NAME` makes the folder when there is
 * none of that name yet.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include "natter-cli-private.h"
#include "natter-folders.h"
#include "natter-services.h"
#include "natter-sessions-settings.h"

static void
pin_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!natter_sessions_set_pinned_finish (NATTER_SESSIONS (object), result, &error))
    natter_cli_fail_error (run, error);
  else
    natter_cli_finish (run, 0);
}

/* natter pin SESSION, natter unpin SESSION: prints nothing. */
void
natter_cli_command_pin (Run *run)
{
  if (natter_cli_lookup_session (run, run->args[0]) == NULL)
    return;
  natter_sessions_set_pinned_async (natter_services_get_sessions (run->services), run->args[0],
                                    g_str_equal (run->command->name, "pin"), g_task_get_cancellable (run->task),
                                    pin_done_cb, run);
}

static void
folder_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!natter_sessions_set_folder_finish (NATTER_SESSIONS (object), result, &error))
    natter_cli_fail_error (run, error);
  else
    natter_cli_finish (run, 0);
}

static void
move_to (Run        *run,
         const char *folder_id)
{
  natter_sessions_set_folder_async (natter_services_get_sessions (run->services), run->args[0], folder_id,
                                    g_task_get_cancellable (run->task), folder_done_cb, run);
}

static void
folder_created_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Run *run = user_data;
  g_autofree char *folder_id = NULL;
  GError *error = NULL;

  folder_id = natter_folders_create_finish (NATTER_FOLDERS (object), result, &error);
  if (folder_id == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  move_to (run, folder_id);
}

/* natter folder SESSION [NAME | --none]: moves the conversation to the
 * folder called NAME (made first when there is none), or out of any
 * with --none; with neither, prints the name of the folder it is in
 * (nothing when none). */
void
natter_cli_command_folder (Run *run)
{
  NatterFolders *folders = natter_services_get_folders (run->services);
  const char *name = run->args[1];
  NatterFolder *folder;

  if (name != NULL && run->none)
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, "%s",
                       natter_cli_tr (run, "Give a folder name or --none, not both"));
      return;
    }
  if (natter_cli_lookup_session (run, run->args[0]) == NULL)
    return;
  if (run->none)
    {
      move_to (run, NULL);
      return;
    }
  if (name == NULL)
    {
      folder = natter_folders_lookup (folders,
                                      natter_sessions_get_folder_id (natter_services_get_sessions (run->services),
                                                                     run->args[0]));
      if (folder != NULL && natter_folder_get_name (folder) != NULL)
        {
          g_autofree char *shown = natter_cli_one_line (natter_folder_get_name (folder));

          natter_cli_out (run, "%s\n", shown);
        }
      natter_cli_finish (run, 0);
      return;
    }
  folder = natter_folders_find_by_name (folders, name);
  if (folder != NULL)
    {
      move_to (run, natter_folder_get_id (folder));
      return;
    }
  natter_folders_create_async (folders, name, g_task_get_cancellable (run->task), folder_created_cb, run);
}
