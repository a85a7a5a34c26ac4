/* natter-sync-conflict-name.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The names of the copies a file synchroniser keeps when a log was
 * changed on two devices at once (docs/format.md §9).
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * NATTER_SYNC_CONFLICT_MARK:
 *
 * What Syncthing puts between a file's name and its extension when it
 * keeps a conflicting copy:
 * `<id>.sync-conflict-<YYYYMMDD>-<HHMMSS>-<device>.jsonl`.
 */
#define NATTER_SYNC_CONFLICT_MARK ".sync-conflict-"

/**
 * NATTER_SYNC_CONFLICT_NAME_LENGTH:
 *
 * The length in bytes of a conflict copy's name without `.jsonl`: an id
 * (32), the mark (15), a date (8), `-`, a time (6), `-` and a device's
 * 7-character short id.
 */
#define NATTER_SYNC_CONFLICT_NAME_LENGTH (32 + 15 + 8 + 1 + 6 + 1 + 7)

gboolean natter_sync_conflict_is_candidate (const char  *name);
gboolean natter_sync_conflict_is_name      (const char  *name);
gboolean natter_sync_conflict_validate     (const char  *name,
                                            GError     **error);
gboolean natter_store_name_validate        (const char  *name,
                                            GError     **error);

G_END_DECLS
