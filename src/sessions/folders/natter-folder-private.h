/* natter-folder-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The writers of a folder item: only the folder list (natter-folders.c)
 * changes one, after its log was written.
 */

#pragma once

#include "natter-folder.h"

G_BEGIN_DECLS

NatterFolder *natter_folder_new       (const char   *folder_id,
                                       const char   *name,
                                       const char   *error);
void          natter_folder_set_name  (NatterFolder *self,
                                       const char   *name);

G_END_DECLS
