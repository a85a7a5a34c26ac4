/* natter-timeline-model.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-sessions.h"
#include "natter-timeline-marker.h"
#include "natter-turn-event-hub.h"
#include "natter-turn-item.h"

G_BEGIN_DECLS

/* The latest turns a view showing the bottom of a conversation reads as
 * soon as they are known: about as many as its viewport shows. */
#define NATTER_TIMELINE_LATEST_TURNS 4

#define NATTER_TYPE_TIMELINE_MODEL (natter_timeline_model_get_type ())

G_DECLARE_FINAL_TYPE (NatterTimelineModel, natter_timeline_model, NATTER, TIMELINE_MODEL, GObject)

NatterTimelineModel *natter_timeline_model_new            (NatterSessions      *sessions,
                                                           NatterTurnEventHub  *hub,
                                                           const char          *session_id);
const char          *natter_timeline_model_get_session_id (NatterTimelineModel *self);
gboolean             natter_timeline_model_get_loaded     (NatterTimelineModel *self);
const char          *natter_timeline_model_get_error      (NatterTimelineModel *self);
NatterTurnItem      *natter_timeline_model_lookup         (NatterTimelineModel *self,
                                                           const char          *turn_id);
NatterTurnItem      *natter_timeline_model_get_latest     (NatterTimelineModel *self);
NatterTurnItem      *natter_timeline_model_lookup_any     (NatterTimelineModel *self,
                                                           const char          *turn_id);
guint                natter_timeline_model_get_n_inherited (NatterTimelineModel *self);
void                 natter_timeline_model_read_latest    (NatterTimelineModel *self,
                                                           guint                n);
gboolean             natter_timeline_model_latest_read    (NatterTimelineModel *self,
                                                           guint                n);
GPtrArray           *natter_timeline_model_dup_latest     (NatterTimelineModel *self,
                                                           guint                n);
void                 natter_timeline_model_read_around    (NatterTimelineModel *self,
                                                           NatterTurnItem      *item,
                                                           guint                radius);

G_END_DECLS
