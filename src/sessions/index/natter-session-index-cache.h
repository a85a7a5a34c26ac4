/* natter-session-index-cache.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The persisted index cache of docs/sessions.md §8.4 (docs/format.md
 * §1, "The session index cache"). Private to the session index.
 */

#pragma once

#include <gio/gio.h>

#include "natter-jsonl-cursor.h"
#include "natter-jsonl-repo.h"
#include "natter-session-index-entry.h"

G_BEGIN_DECLS

/* One session of the startup scan: its entry and the identities of the
 * files it was read from, taken before they were read, so that a file
 * that still has that identity still says what the entry says. */
typedef struct
{
  NatterSessionIndexEntry *entry;
  NatterFileIdentity       session;
  NatterFileIdentity       turn;       /* the latest turn file's; !exists without one */
  gboolean                 cacheable;  /* no passing failure (I/O, a file that vanished) */
} NatterSessionIndexRecord;

void natter_session_index_record_clear (NatterSessionIndexRecord *record);

typedef struct _NatterSessionIndexCache NatterSessionIndexCache;

NatterSessionIndexCache *natter_session_index_cache_load   (GFile                    *file);
void                     natter_session_index_cache_free   (NatterSessionIndexCache  *cache);
guint                    natter_session_index_cache_get_size (NatterSessionIndexCache *cache);
gboolean                 natter_session_index_cache_lookup (NatterSessionIndexCache  *cache,
                                                            NatterJsonlCursor        *turn_cursor,
                                                            const char               *session_id,
                                                            NatterSessionIndexRecord *record);
gboolean                 natter_session_index_cache_save   (GFile                    *file,
                                                            NatterSessionIndexRecord *records,
                                                            guint                     n_records,
                                                            GError                  **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSessionIndexCache, natter_session_index_cache_free)

G_END_DECLS
