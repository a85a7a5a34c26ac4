/* natter-sync-ignore.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NatterSyncIgnoreState:
 * @NATTER_SYNC_IGNORE_MISSING: the ignore file holds none of Natter's
 *   patterns (or there is no ignore file)
 * @NATTER_SYNC_IGNORE_OUTDATED: it holds Natter's block, but not the
 *   patterns this version writes
 * @NATTER_SYNC_IGNORE_CURRENT: it holds exactly the patterns this
 *   version writes
 *
 * What the `.stignore` of the synchronised folder says of the files
 * that stay on this device (docs/sync.md).
 */
typedef enum
{
  NATTER_SYNC_IGNORE_MISSING,
  NATTER_SYNC_IGNORE_OUTDATED,
  NATTER_SYNC_IGNORE_CURRENT,
} NatterSyncIgnoreState;

/**
 * NatterSyncFolder:
 * @root: (nullable): the folder Syncthing synchronises (the nearest of
 *   the data directory and its parents that holds Syncthing's
 *   `.stfolder` marker), or %NULL when none does
 * @ignore_path: the `.stignore` that Natter's patterns belong in: at
 *   @root, or without one at the data directory
 * @prefix: the data directory relative to the folder of @ignore_path
 *   ("" when it is the data directory itself)
 * @ignore_state: what @ignore_path holds
 * @written: whether Natter's patterns were written into @ignore_path
 *   by this inspection, or by this process's keeping of them
 *   (natter_sync_ignore_keep_sync()) since the last inspection that
 *   wrote or kept (natter_sync_folder_inspect_async()); @ignore_state
 *   is then %NATTER_SYNC_IGNORE_CURRENT
 *
 * What Natter sees of the synchronisation of its data directory
 * (natter_sync_folder_inspect_sync()).
 */
typedef struct
{
  char                  *root;
  char                  *ignore_path;
  char                  *prefix;
  NatterSyncIgnoreState  ignore_state;
  gboolean               written;
} NatterSyncFolder;

/**
 * NatterSyncIgnoreWrite:
 * @NATTER_SYNC_IGNORE_WRITE_NONE: only look
 * @NATTER_SYNC_IGNORE_WRITE_ALWAYS: write Natter's patterns into the
 *   ignore file, as the person asked (natter_sync_ignore_write_sync())
 * @NATTER_SYNC_IGNORE_WRITE_KEEP: write them where Natter keeps them
 *   current by itself (natter_sync_ignore_keep_sync()), so that what is
 *   said is the state after that write
 *
 * What natter_sync_folder_inspect_async() writes besides looking.
 */
typedef enum
{
  NATTER_SYNC_IGNORE_WRITE_NONE,
  NATTER_SYNC_IGNORE_WRITE_ALWAYS,
  NATTER_SYNC_IGNORE_WRITE_KEEP,
} NatterSyncIgnoreWrite;

void              natter_sync_folder_free           (NatterSyncFolder *folder);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSyncFolder, natter_sync_folder_free)

NatterSyncFolder *natter_sync_folder_inspect_sync   (GFile            *data_dir);
char             *natter_sync_ignore_block          (const char       *prefix);
gboolean          natter_sync_ignore_write_sync     (NatterSyncFolder *folder,
                                                     GError          **error);
gboolean          natter_sync_ignore_keep_sync      (GFile            *data_dir,
                                                     GError          **error);
void              natter_sync_folder_inspect_async  (GFile               *data_dir,
                                                     NatterSyncIgnoreWrite write,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
NatterSyncFolder *natter_sync_folder_inspect_finish (GAsyncResult        *result,
                                                     GError             **error);

G_END_DECLS
