/* natter-turn-event-hub.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The process-wide lifecycle bus of docs/runtime.md §5: GObject signals
 * emitted on the main context. A late subscriber connects, reads the turn
 * file, and drops events whose offset is at most the lines it read.
 */

#define G_LOG_DOMAIN "natter-turn-event-hub"

#include "natter-turn-event-hub.h"

struct _NatterTurnEventHub
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (NatterTurnEventHub, natter_turn_event_hub, G_TYPE_OBJECT)

enum
{
  EVENT,
  DELTA,
  TURN_PROCESSING_START,
  TURN_PROCESSING_END,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
natter_turn_event_hub_class_init (NatterTurnEventHubClass *klass)
{
  /**
   * NatterTurnEventHub::event:
   * @self: the hub
   * @turn_id: the turn
   * @event: the durable event, already written; read-only
   * @offset: its 1-based line number in the turn file
   */
  signals[EVENT] = g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                                 G_TYPE_STRING, JSON_TYPE_OBJECT, G_TYPE_UINT64);
  /**
   * NatterTurnEventHub::delta:
   * @self: the hub
   * @turn_id: the turn
   * @model_call_index: the streaming model call
   * @kind: a #NatterDeltaKind
   * @text: the piece of text
   */
  signals[DELTA] = g_signal_new ("delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 4,
                                 G_TYPE_STRING, G_TYPE_UINT, G_TYPE_INT, G_TYPE_STRING);
  /**
   * NatterTurnEventHub::turn-processing-start:
   * @self: the hub
   * @turn_id: the turn whose advance took its lock
   */
  signals[TURN_PROCESSING_START] = g_signal_new ("turn-processing-start",
                                                 G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                                 G_TYPE_STRING);
  /**
   * NatterTurnEventHub::turn-processing-end:
   * @self: the hub
   * @turn_id: the turn whose advance is about to release its lock
   */
  signals[TURN_PROCESSING_END] = g_signal_new ("turn-processing-end",
                                               G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                               0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                               G_TYPE_STRING);
}

static void
natter_turn_event_hub_init (NatterTurnEventHub *self)
{
}

/**
 * natter_turn_event_hub_new:
 *
 * Part of the lifecycle bus of docs/runtime.md §5.
 *
 * Returns: (transfer full): a hub; the application keeps one
 */
NatterTurnEventHub *
natter_turn_event_hub_new (void)
{
  return g_object_new (NATTER_TYPE_TURN_EVENT_HUB, NULL);
}

/**
 * natter_turn_event_hub_emit_event:
 * @self: a #NatterTurnEventHub
 * @turn_id: the turn
 * @event: (transfer none): an event that is on disk
 * @offset: its 1-based line number
 *
 * Emits #NatterTurnEventHub::event.
 *
 * Part of the lifecycle bus of docs/runtime.md §5.
 */
void
natter_turn_event_hub_emit_event (NatterTurnEventHub *self,
                                  const char         *turn_id,
                                  JsonObject         *event,
                                  guint64             offset)
{
  g_return_if_fail (NATTER_IS_TURN_EVENT_HUB (self));

  g_signal_emit (self, signals[EVENT], 0, turn_id, event, offset);
}

/**
 * natter_turn_event_hub_emit_delta:
 * @self: a #NatterTurnEventHub
 * @turn_id: the turn
 * @model_call_index: the model call
 * @kind: a #NatterDeltaKind
 * @text: the piece of text
 *
 * Emits #NatterTurnEventHub::delta.
 *
 * Part of the lifecycle bus of docs/runtime.md §5.
 */
void
natter_turn_event_hub_emit_delta (NatterTurnEventHub *self,
                                  const char         *turn_id,
                                  guint               model_call_index,
                                  NatterDeltaKind     kind,
                                  const char         *text)
{
  g_return_if_fail (NATTER_IS_TURN_EVENT_HUB (self));

  g_signal_emit (self, signals[DELTA], 0, turn_id, model_call_index, (int) kind, text);
}

/**
 * natter_turn_event_hub_processing_start:
 * @self: a #NatterTurnEventHub
 * @turn_id: the turn
 *
 * Emits #NatterTurnEventHub::turn-processing-start.
 *
 * Part of the lifecycle bus of docs/runtime.md §5.
 */
void
natter_turn_event_hub_processing_start (NatterTurnEventHub *self,
                                        const char         *turn_id)
{
  g_return_if_fail (NATTER_IS_TURN_EVENT_HUB (self));

  g_signal_emit (self, signals[TURN_PROCESSING_START], 0, turn_id);
}

/**
 * natter_turn_event_hub_processing_end:
 * @self: a #NatterTurnEventHub
 * @turn_id: the turn
 *
 * Emits #NatterTurnEventHub::turn-processing-end.
 *
 * Part of the lifecycle bus of docs/runtime.md §5.
 */
void
natter_turn_event_hub_processing_end (NatterTurnEventHub *self,
                                      const char         *turn_id)
{
  g_return_if_fail (NATTER_IS_TURN_EVENT_HUB (self));

  g_signal_emit (self, signals[TURN_PROCESSING_END], 0, turn_id);
}
