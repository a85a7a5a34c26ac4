/* natter-session-index.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-session-index-entry.h"
#include "natter-jsonl-repo.h"

G_BEGIN_DECLS

#define NATTER_TYPE_SESSION_INDEX (natter_session_index_get_type ())

G_DECLARE_FINAL_TYPE (NatterSessionIndex, natter_session_index, NATTER, SESSION_INDEX, GObject)

NatterSessionIndex      *natter_session_index_new                   (void);

NatterSessionIndexEntry *natter_session_index_lookup                (NatterSessionIndex   *self,
                                                                     const char           *session_id);
const char              *natter_session_index_lookup_session_for_turn (NatterSessionIndex *self,
                                                                       const char         *turn_id);
gboolean                 natter_session_index_get_loaded            (NatterSessionIndex   *self);
void                     natter_session_index_set_cache_file        (NatterSessionIndex   *self,
                                                                     GFile                *file);
GPtrArray               *natter_session_index_dup_damaged           (NatterSessionIndex   *self);
JsonObject              *natter_session_index_get_recent_model      (NatterSessionIndex   *self,
                                                                     const char          **out_at);

void                     natter_session_index_load_async            (NatterSessionIndex   *self,
                                                                     NatterJsonlRepo      *session_repo,
                                                                     NatterJsonlRepo      *turn_repo,
                                                                     GCancellable         *cancellable,
                                                                     GAsyncReadyCallback   callback,
                                                                     gpointer              user_data);
gboolean                 natter_session_index_load_finish           (NatterSessionIndex   *self,
                                                                     GAsyncResult         *result,
                                                                     GError              **error);

G_END_DECLS
