/* natter-folder-log.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A folder of conversations as a log of its own (docs/format.md §8):
 * `storage/folders/YYYY/MM/DD/<folderId>.jsonl`.
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-jsonl-repo.h"

G_BEGIN_DECLS

/**
 * NATTER_FOLDER_SCHEMA_VERSION:
 *
 * The folder log's schema version (docs/format.md §8); the only one.
 */
#define NATTER_FOLDER_SCHEMA_VERSION 1

NatterJsonlRepo *natter_folder_repo_new               (GFile        *storage_dir);
gboolean         natter_folder_event_validate         (JsonObject   *event,
                                                       const char   *folder_id,
                                                       GError      **error);
JsonNode        *natter_folder_event_new_created      (const char   *folder_id,
                                                       const char   *ts,
                                                       const char   *name);
JsonNode        *natter_folder_event_new_renamed      (const char   *folder_id,
                                                       const char   *ts,
                                                       const char   *name);
char            *natter_folder_reduce_name            (GPtrArray    *events);
char            *natter_folder_reduce_name_with_copies (GPtrArray   *events,
                                                        GPtrArray   *copies);

G_END_DECLS
