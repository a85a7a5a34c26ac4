/* natter-cli-sync.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `natter sync [--write-ignore] [--json]`: whether the data folder is
 * synchronised with other devices (Syncthing's folder marker at or above
 * it), which device this is, and whether the synchronised folder's
 * ignore file keeps what must stay here (docs/sync.md); with
 * `--write-ignore`, Natter's patterns are written into it, the person's
 * own lines kept.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include "natter-cli-private.h"
#include "natter-json.h"
#include "natter-sync-ignore.h"

/* What the ignore file holds after this run: "written" when this run
 * wrote Natter's patterns there (asked to, or because Natter keeps them
 * current in its own folder, docs/sync.md). */
static const char *
state_word (NatterSyncFolder *folder)
{
  if (folder->written)
    return "written";
  switch (folder->ignore_state)
    {
    case NATTER_SYNC_IGNORE_CURRENT:
      return "current";
    case NATTER_SYNC_IGNORE_OUTDATED:
      return "outdated";
    case NATTER_SYNC_IGNORE_MISSING:
    default:
      return "missing";
    }
}

static void
inspected_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterSyncFolder) folder = NULL;
  GFile *data_dir = natter_services_get_data_dir (run->services);
  NatterDevice *device = natter_turn_runtime_get_device (natter_services_get_runtime (run->services));
  g_autofree char *path = g_file_get_path (data_dir);
  GError *error = NULL;

  folder = natter_sync_folder_inspect_finish (result, &error);
  if (folder == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }

  if (run->json)
    {
      g_autoptr(JsonObject) said = json_object_new ();

      json_object_set_string_member (said, "dataDir", path);
      if (folder->root != NULL)
        json_object_set_string_member (said, "syncFolder", folder->root);
      json_object_set_string_member (said, "ignoreFile", folder->ignore_path);
      json_object_set_string_member (said, "ignorePatterns", state_word (folder));
      if (device != NULL)
        json_object_set_object_member (said, "device", natter_device_to_member (device));
      natter_cli_out_json_object (run, said);
      natter_cli_finish (run, 0);
      return;
    }

  natter_cli_out (run, "data-dir %s\n", path);
  natter_cli_out (run, "sync-folder %s\n", folder->root != NULL ? folder->root : "-");
  natter_cli_out (run, "ignore-file %s %s\n", folder->ignore_path, state_word (folder));
  if (device != NULL)
    natter_cli_out (run, "device %s %s\n", natter_device_get_id (device), natter_device_get_name (device));
  if (folder->root == NULL)
    natter_cli_out (run, "%s\n", natter_cli_tr (run, "No Syncthing folder holds the data folder: share it in "
                                                      "Syncthing to use it on other devices."));
  else if (folder->ignore_state != NATTER_SYNC_IGNORE_CURRENT)
    natter_cli_out (run, "%s\n", natter_cli_tr (run, "The ignore file lacks what stays on this device: "
                                                      "write it with “natter sync --write-ignore”."));
  natter_cli_finish (run, 0);
}

void
natter_cli_command_sync (Run *run)
{
  /* Without --write-ignore, the patterns Natter keeps current in its own
   * folder by itself are written here too (as the housekeeping beside
   * this command would), so that what is said holds after the run. */
  natter_sync_folder_inspect_async (natter_services_get_data_dir (run->services),
                                    run->write_ignore ? NATTER_SYNC_IGNORE_WRITE_ALWAYS
                                                      : NATTER_SYNC_IGNORE_WRITE_KEEP,
                                    g_task_get_cancellable (run->task), inspected_cb, run);
}
