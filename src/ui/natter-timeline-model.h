/* natter-timeline-model.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-sessions.h"
#include "natter-turn-event-hub.h"
#include "natter-turn-item.h"

G_BEGIN_DECLS

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

G_END_DECLS
