/* natter-turn-item.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-sessions.h"
#include "natter-turn-event-hub.h"
#include "natter-turn-reducer.h"

G_BEGIN_DECLS

#define NATTER_TYPE_TURN_ITEM (natter_turn_item_get_type ())

G_DECLARE_FINAL_TYPE (NatterTurnItem, natter_turn_item, NATTER, TURN_ITEM, GObject)

NatterTurnItem  *natter_turn_item_new                 (NatterSessions  *sessions,
                                                       const char      *turn_id,
                                                       guint            session_seq);
NatterTurnItem  *natter_turn_item_new_inherited       (NatterSessions  *sessions,
                                                       const char      *turn_id,
                                                       guint            session_seq,
                                                       const char      *session_id);
const char      *natter_turn_item_get_turn_id         (NatterTurnItem  *self);
GPtrArray       *natter_turn_item_dup_attachments     (NatterTurnItem  *self);
const char      *natter_turn_item_get_inherited_from  (NatterTurnItem  *self);
void             natter_turn_item_set_shared_history  (NatterTurnItem  *self,
                                                       gboolean         shared);
gboolean         natter_turn_item_get_shared_history  (NatterTurnItem  *self);
guint            natter_turn_item_get_session_seq     (NatterTurnItem  *self);
NatterTurnState *natter_turn_item_get_state           (NatterTurnItem  *self);
const char      *natter_turn_item_get_error           (NatterTurnItem  *self);
gboolean         natter_turn_item_get_arriving        (NatterTurnItem  *self);
gboolean         natter_turn_item_get_loading         (NatterTurnItem  *self);
gboolean         natter_turn_item_get_running         (NatterTurnItem  *self);
void             natter_turn_item_set_running         (NatterTurnItem  *self,
                                                       gboolean         running);
gboolean         natter_turn_item_get_latest          (NatterTurnItem  *self);
gboolean         natter_turn_item_get_speaking        (NatterTurnItem  *self);
void             natter_turn_item_set_speaking        (NatterTurnItem  *self,
                                                       gboolean         speaking);
void             natter_turn_item_set_latest          (NatterTurnItem  *self,
                                                       gboolean         latest);
const char      *natter_turn_item_get_overlay_text    (NatterTurnItem  *self);
const char      *natter_turn_item_get_overlay_reasoning (NatterTurnItem *self);
void             natter_turn_item_ensure_loaded       (NatterTurnItem  *self);
void             natter_turn_item_reload              (NatterTurnItem  *self);
void             natter_turn_item_join_event          (NatterTurnItem  *self,
                                                       JsonObject      *event,
                                                       guint64          offset);
void             natter_turn_item_add_delta           (NatterTurnItem  *self,
                                                       guint            model_call_index,
                                                       NatterDeltaKind  kind,
                                                       const char      *text);
char            *natter_turn_item_dup_input_text      (NatterTurnItem  *self);
const char      *natter_turn_item_get_damaged_input   (NatterTurnItem  *self);
void             natter_turn_item_set_versions        (NatterTurnItem  *self,
                                                       GPtrArray       *versions);
GPtrArray       *natter_turn_item_get_versions        (NatterTurnItem  *self);

const char         *natter_turn_item_get_compaction_summary (NatterTurnItem *self);
void                natter_turn_item_set_compaction_summary (NatterTurnItem *self,
                                                             const char     *summary);

G_END_DECLS
