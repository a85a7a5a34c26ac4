/* natter-log-read.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-jsonl-repo.h"
#include "natter-session-reducer.h"
#include "natter-turn-reducer.h"

G_BEGIN_DECLS

NatterSessionState *natter_session_reduce_file_sync (NatterJsonlRepo  *repo,
                                                     const char       *session_id,
                                                     GPtrArray       **out_events,
                                                     GCancellable     *cancellable,
                                                     GError          **error);
NatterTurnState    *natter_turn_reduce_file_sync    (NatterJsonlRepo  *repo,
                                                     const char       *turn_id,
                                                     GPtrArray       **out_events,
                                                     GCancellable     *cancellable,
                                                     GError          **error);

void                natter_turn_reduce_file_async   (NatterJsonlRepo      *repo,
                                                     const char           *turn_id,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
NatterTurnState    *natter_turn_reduce_file_finish  (NatterJsonlRepo      *repo,
                                                     GAsyncResult         *result,
                                                     GPtrArray           **out_events,
                                                     GError              **error);

G_END_DECLS
