/* natter-search-index.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-jsonl-repo.h"
#include "natter-search-db.h"
#include "natter-sessions.h"

G_BEGIN_DECLS

#define NATTER_TYPE_SEARCH_INDEX (natter_search_index_get_type ())

G_DECLARE_FINAL_TYPE (NatterSearchIndex, natter_search_index, NATTER, SEARCH_INDEX, GObject)

NatterSearchIndex *natter_search_index_new           (GFile               *cache_file,
                                                      NatterJsonlRepo     *session_repo,
                                                      NatterJsonlRepo     *turn_repo,
                                                      NatterSessions      *sessions);
void               natter_search_index_start         (NatterSearchIndex   *self);
gboolean           natter_search_index_get_started   (NatterSearchIndex   *self);
gboolean           natter_search_index_get_indexing  (NatterSearchIndex   *self);
void               natter_search_index_get_progress  (NatterSearchIndex   *self,
                                                      guint               *out_n_checked,
                                                      guint               *out_n_sessions);
GFile             *natter_search_index_get_file      (NatterSearchIndex   *self);
guint              natter_search_index_get_match_cap (NatterSearchIndex   *self);
GStrv              natter_search_index_dup_unreadable (NatterSearchIndex  *self);
void               natter_search_index_recheck_session (NatterSearchIndex *self,
                                                        const char        *session_id);

GPtrArray         *natter_search_index_search_sync   (NatterSearchIndex   *self,
                                                      const char          *text,
                                                      guint                limit,
                                                      gboolean            *out_still_indexing,
                                                      gboolean            *out_capped,
                                                      GError             **error);
void               natter_search_index_search_async  (NatterSearchIndex   *self,
                                                      const char          *text,
                                                      guint                limit,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
GPtrArray         *natter_search_index_search_finish (NatterSearchIndex   *self,
                                                      GAsyncResult        *result,
                                                      gboolean            *out_still_indexing,
                                                      gboolean            *out_capped,
                                                      GError             **error);

void               natter_search_index_wait_async    (NatterSearchIndex   *self,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
gboolean           natter_search_index_wait_finish   (NatterSearchIndex   *self,
                                                      GAsyncResult        *result,
                                                      GError             **error);

G_END_DECLS
