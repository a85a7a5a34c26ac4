/* natter-turn-event-hub.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * NatterDeltaKind:
 * @NATTER_DELTA_TEXT: a `text_delta`
 * @NATTER_DELTA_REASONING: a `reasoning_delta`
 *
 * The live-only deltas of docs/runtime.md §3; never written.
 */
typedef enum
{
  NATTER_DELTA_TEXT,
  NATTER_DELTA_REASONING,
} NatterDeltaKind;

#define NATTER_TYPE_TURN_EVENT_HUB (natter_turn_event_hub_get_type ())

G_DECLARE_FINAL_TYPE (NatterTurnEventHub, natter_turn_event_hub, NATTER, TURN_EVENT_HUB, GObject)

NatterTurnEventHub *natter_turn_event_hub_new                  (void);
void                natter_turn_event_hub_emit_event           (NatterTurnEventHub *self,
                                                                const char         *turn_id,
                                                                JsonObject         *event,
                                                                guint64             offset);
void                natter_turn_event_hub_emit_delta           (NatterTurnEventHub *self,
                                                                const char         *turn_id,
                                                                guint               model_call_index,
                                                                NatterDeltaKind     kind,
                                                                const char         *text);
void                natter_turn_event_hub_processing_start     (NatterTurnEventHub *self,
                                                                const char         *turn_id);
void                natter_turn_event_hub_processing_end       (NatterTurnEventHub *self,
                                                                const char         *turn_id);

G_END_DECLS
