/* natter-conversation-view.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-blob-store.h"
#include "natter-composer.h"
#include "natter-queue-view.h"
#include "natter-sessions.h"
#include "natter-timeline-model.h"

G_BEGIN_DECLS

#define NATTER_TYPE_CONVERSATION_VIEW (natter_conversation_view_get_type ())

G_DECLARE_FINAL_TYPE (NatterConversationView, natter_conversation_view, NATTER, CONVERSATION_VIEW, GtkBox)

GtkWidget           *natter_conversation_view_new                  (void);
void                 natter_conversation_view_set_sessions         (NatterConversationView *self,
                                                                    NatterSessions         *sessions);
void                 natter_conversation_view_set_blob_store       (NatterConversationView *self,
                                                                    NatterBlobStore        *blobs);
void                 natter_conversation_view_set_timeline         (NatterConversationView *self,
                                                                    NatterTimelineModel    *timeline);
void                 natter_conversation_view_release_focus        (NatterConversationView *self);
NatterTimelineModel *natter_conversation_view_get_timeline         (NatterConversationView *self);
void                 natter_conversation_view_stick_to_bottom      (NatterConversationView *self);
gboolean             natter_conversation_view_get_sticks_to_bottom (NatterConversationView *self);
void                 natter_conversation_view_reveal_turn          (NatterConversationView *self,
                                                                    const char             *turn_id);
GtkWidget           *natter_conversation_view_find_turn_row        (NatterConversationView *self,
                                                                    const char             *turn_id);
void                 natter_conversation_view_set_new_chat_hint    (NatterConversationView *self,
                                                                    gboolean                visible);
void                 natter_conversation_view_set_editing          (NatterConversationView *self,
                                                                    gboolean                editing);
gboolean             natter_conversation_view_get_editing          (NatterConversationView *self);
void                 natter_conversation_view_set_reading_aloud    (NatterConversationView *self,
                                                                    gboolean                reading);
gboolean             natter_conversation_view_get_reading_aloud    (NatterConversationView *self);
GtkListView         *natter_conversation_view_get_list             (NatterConversationView *self);
GtkScrolledWindow   *natter_conversation_view_get_scroller         (NatterConversationView *self);
NatterComposer      *natter_conversation_view_get_composer         (NatterConversationView *self);
NatterQueueView     *natter_conversation_view_get_queue_view       (NatterConversationView *self);

G_END_DECLS
