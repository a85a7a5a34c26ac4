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
 * so every function here runs on it. */
typedef struct
{
  NatterJsonlRepo *session_repo;
  NatterJsonlRepo *turn_repo;
  NatterSearchDb  *db;
  /* Set by the owner to end a long build between two sessions. */
  const gint      *quit;
} NatterSearchSync;

gboolean natter_search_sync_all      (NatterSearchSync  *sync,
                                      GError           **error);
gboolean natter_search_sync_session  (NatterSearchSync  *sync,
                                      const char        *session_id,
                                      GError           **error);

G_END_DECLS
