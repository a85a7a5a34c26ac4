/* natter-session-index-internal.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Write-through maintenance of the index (docs/sessions.md §8.3).
 * Only the session service calls these, in the same code path that
 * appends to the session file; the UI only reads the index.
 */

#pragma once

#include "natter-session-index.h"
#include "natter-session-index-entry.h"

G_BEGIN_DECLS

NatterSessionIndexEntry *natter_session_index_update_from_state     (NatterSessionIndex   *self,
                                                                     NatterSessionState   *state,
                                                                     const char           *latest_turn_status);
NatterSessionIndexEntry *natter_session_index_add_imported         (NatterSessionIndex   *self,
                                                                     NatterSessionState   *state,
                                                                     const char           *latest_turn_status,
                                                                     gboolean              latest_turn_imported);
guint64                  natter_session_index_get_generation        (NatterSessionIndex  *self);
gboolean                 natter_session_index_put_folded            (NatterSessionIndex      *self,
                                                                     const char              *session_id,
                                                                     NatterSessionIndexEntry *folded,
                                                                     guint64                  since);
gboolean                 natter_session_index_set_latest_turn_device (NatterSessionIndex  *self,
                                                                      const char          *session_id,
                                                                      const char          *id,
                                                                      const char          *name);
gboolean                 natter_session_index_set_latest_turn_status (NatterSessionIndex  *self,
                                                                      const char          *session_id,
                                                                      const char          *turn_id,
                                                                      const char          *status);
gboolean                 natter_session_index_remove                (NatterSessionIndex   *self,
                                                                     const char           *session_id);

GPtrArray               *natter_session_index_scan_cached_sync      (NatterJsonlRepo      *session_repo,
                                                                     NatterJsonlRepo      *turn_repo,
                                                                     GFile                *cache_file,
                                                                     guint                 n_threads,
                                                                     gboolean              background,
                                                                     guint                *out_n_read,
                                                                     GCancellable         *cancellable,
                                                                     GError              **error);
GPtrArray               *natter_session_index_scan_sync             (NatterJsonlRepo      *session_repo,
                                                                     NatterJsonlRepo      *turn_repo,
                                                                     guint                 n_threads,
                                                                     GCancellable         *cancellable,
                                                                     GError              **error);
NatterSessionIndexEntry *natter_session_index_fold_one_sync         (NatterJsonlRepo      *session_repo,
                                                                     NatterJsonlRepo      *turn_repo,
                                                                     const char           *session_id,
                                                                     GCancellable         *cancellable);
NatterSessionIndexEntry *natter_session_index_fold_conflict_sync    (NatterJsonlRepo      *session_repo,
                                                                     NatterJsonlRepo      *turn_repo,
                                                                     const char           *name,
                                                                     GCancellable         *cancellable);

G_END_DECLS
