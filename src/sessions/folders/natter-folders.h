/* natter-folders.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-clock.h"
#include "natter-folder.h"
#include "natter-id.h"
#include "natter-jsonl-repo.h"

G_BEGIN_DECLS

#define NATTER_TYPE_FOLDERS (natter_folders_get_type ())

G_DECLARE_FINAL_TYPE (NatterFolders, natter_folders, NATTER, FOLDERS, GObject)

NatterFolders *natter_folders_new            (NatterJsonlRepo      *repo,
                                              NatterClock          *clock,
                                              NatterIdGenerator    *ids);
NatterFolder  *natter_folders_lookup         (NatterFolders        *self,
                                              const char           *folder_id);
NatterFolder  *natter_folders_find_by_name   (NatterFolders        *self,
                                              const char           *name);
gboolean       natter_folders_check_name     (NatterFolders        *self,
                                              const char           *name,
                                              const char           *folder_id,
                                              GError              **error);
char          *natter_folders_unused_name    (NatterFolders        *self,
                                              const char           *name);

void           natter_folders_load_async     (NatterFolders        *self,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
gboolean       natter_folders_load_finish    (NatterFolders        *self,
                                              GAsyncResult         *result,
                                              GError              **error);
void           natter_folders_create_async   (NatterFolders        *self,
                                              const char           *name,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
char          *natter_folders_create_finish  (NatterFolders        *self,
                                              GAsyncResult         *result,
                                              GError              **error);
void           natter_folders_rename_async   (NatterFolders        *self,
                                              const char           *folder_id,
                                              const char           *name,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
gboolean       natter_folders_rename_finish  (NatterFolders        *self,
                                              GAsyncResult         *result,
                                              GError              **error);
void           natter_folders_delete_async   (NatterFolders        *self,
                                              const char           *folder_id,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
gboolean       natter_folders_delete_finish  (NatterFolders        *self,
                                              GAsyncResult         *result,
                                              GError              **error);
void           natter_folders_restore_async  (NatterFolders        *self,
                                              const char           *folder_id,
                                              const char           *name,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
gboolean       natter_folders_restore_finish (NatterFolders        *self,
                                              GAsyncResult         *result,
                                              GError              **error);

G_END_DECLS
