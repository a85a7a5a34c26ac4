/* natter-folder.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define NATTER_TYPE_FOLDER (natter_folder_get_type ())

G_DECLARE_FINAL_TYPE (NatterFolder, natter_folder, NATTER, FOLDER, GObject)

const char *natter_folder_get_id    (NatterFolder *self);
const char *natter_folder_get_name  (NatterFolder *self);
const char *natter_folder_get_error (NatterFolder *self);

G_END_DECLS
