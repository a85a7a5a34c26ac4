/* natter-search-index-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the search index's object (natter-search-index.c) shares with the
 * work its thread does on the files (natter-search-sync.c).
 */

#pragma once

#include "natter-search-index.h"

G_BEGIN_DECLS

/* How the worker thread sees the logs. Only the worker writes the index,
 * so every function here runs on it, but natter_search_sync_is_current(),
 * which writes nothing. */
typedef struct
{
  NatterJsonlRepo *session_repo;
  NatterJsonlRepo *turn_repo;
  NatterSearchDb  *db;
  /* Set by the owner to end a long build between two sessions. */
  const gint      *quit;
  /* Sessions gone through between two commits of a check or build. */
  guint            batch;
  /* Called after each commit of natter_search_sync_all(): @n_checked of
   * the @n_sessions on disk are gone through, and what changed in them
   * is searchable. Nullable. */
  void           (*committed) (gpointer data,
                               guint    n_checked,
                               guint    n_sessions);
  gpointer         committed_data;
} NatterSearchSync;

void     natter_search_sync_lower_priority (void);
gboolean natter_search_sync_all      (NatterSearchSync  *sync,
                                      GError           **error);
gboolean natter_search_sync_session  (NatterSearchSync  *sync,
                                      const char        *session_id,
                                      GError           **error);
gboolean natter_search_sync_is_current (NatterSearchSync  *sync,
                                        gboolean          *out_current,
                                        GError           **error);

/* For tests: the worker runs its checks and builds @batch sessions a
 * transaction and stops after each commit but the last, each time until
 * natter_search_index_resume(), so that a test sees the index while it
 * is being built without racing the worker. */
void     natter_search_index_pause_after_batches (NatterSearchIndex *self,
                                                  guint              batch);
void     natter_search_index_resume              (NatterSearchIndex *self,
                                                  gboolean           pause_again);

/* For tests: a search ranks at most @cap of the newest matching turns
 * (natter_search_index_get_match_cap()). */
void     natter_search_index_set_match_cap       (NatterSearchIndex *self,
                                                  guint              cap);

G_END_DECLS
