/* natter-turn-execution-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the parts of one advance share (natter-turn-execution-start.c,
 * which calls natter-turn-loop.c, which calls natter-turn-execution.c):
 * the instance struct, the append queue's batches and the internal entry
 * points.
 */

#pragma once

#include "natter-turn-reducer.h"
#include "natter-turn-runtime-private.h"

G_BEGIN_DECLS

typedef void (*BatchDone) (NatterTurnExecution *self,
                           gboolean             written,
                           gpointer             data);

typedef struct
{
  GPtrArray *events;    /* JsonNode */
  BatchDone  done;
  gpointer   data;
} Batch;

struct _NatterTurnExecution
{
  GObject            parent_instance;

  NatterTurnRuntime *runtime;
  char              *turn_id;
  JsonObject        *input;
  GCancellable      *cancellable;
  gulong             cancelled_id;
  GMainContext      *context;

  NatterLockGuard   *guard;
  gboolean           processing;
  NatterTurnState   *state;
  guint64            n_written;       /* lines in the file */
  GPtrArray         *input_events;    /* the validated input, applied after materialization */
  JsonArray         *materialized;    /* the context messages */
  NatterModel       *model;

  GQueue             queue;           /* Batch, not yet written */
  guint              n_in_flight;     /* batches at the head of the queue being written */
  gboolean           writing;
  gboolean           streaming;
  gboolean           classifying;
  JsonArray         *classifying_calls; /* what the classifier was asked */
  GHashTable        *running;         /* toolCallId → GCancellable of running sync tools */
  gboolean           take_over;       /* the person asked to continue here a turn of another device */
  gboolean           stamp_device;    /* the next event written records this device */
  gboolean           cancel_requested;
  char              *cancel_reason;
  /* What the open model call streamed so far, as shown live: kept on its
   * model_call_failed when it stops early, so the answer being read is
   * not lost. */
  GString           *partial_text;
  GString           *partial_reasoning;
  /* When the open model call's first text or reasoning arrived (the
   * runtime's clock, µs; 0: nothing yet), kept as `firstTokenTs` so that
   * the speed of every call can be read from its file (docs/format.md
   * §4.2). */
  gint64             first_token_us;
  /* The next keeping of the streamed words (docs/format.md §11), NULL when
   * none is due; whether a file of them may be on disk for the open call
   * (kept here, or by a process that was killed), to be removed once the
   * call is closed; and whether words kept by an earlier process could
   * not be read, so that their file stays for a person to look at. */
  GSource           *keep_source;
  gboolean           keep_on_disk;
  gboolean           keep_unreadable;

  gboolean           settled;
  NatterTurnOutcome *outcome;
  GError            *error;
  GPtrArray         *waiters;         /* GTask */
};

enum
{
  NATTER_TURN_EXECUTION_SIGNAL_EVENT,
  NATTER_TURN_EXECUTION_SIGNAL_DELTA,
  NATTER_TURN_EXECUTION_SIGNAL_SETTLED,
  NATTER_TURN_EXECUTION_N_SIGNALS
};

extern guint _natter_turn_execution_signals[NATTER_TURN_EXECUTION_N_SIGNALS];

/* natter-turn-execution.c */
JsonObject *_natter_turn_execution_new_event         (NatterTurnExecution *self,
                                                      GPtrArray           *batch,
                                                      const char          *type);
GPtrArray  *_natter_turn_execution_new_batch         (void);
JsonNode   *_natter_turn_execution_object_node       (JsonObject          *object);
void        _natter_turn_execution_fail              (NatterTurnExecution *self,
                                                      GError              *error);
void        _natter_turn_execution_settle_from_event (NatterTurnExecution *self,
                                                      JsonObject          *event);
void        _natter_turn_execution_add_result        (NatterTurnExecution *self,
                                                      GPtrArray           *batch,
                                                      NatterTurnToolCall  *call,
                                                      const char          *source,
                                                      JsonNode            *output,
                                                      gboolean             is_error);
void        _natter_turn_execution_add_runtime_error (NatterTurnExecution *self,
                                                      GPtrArray           *batch,
                                                      NatterTurnToolCall  *call,
                                                      const char          *message);
const char *_natter_turn_execution_turn_cwd          (NatterTurnExecution *self);
void        _natter_turn_execution_cancel_keep       (NatterTurnExecution *self);
void        _natter_turn_execution_add_kept_partial  (NatterTurnExecution *self,
                                                      JsonObject          *event);

/* natter-turn-loop.c */
void        _natter_turn_execution_advance_loop      (NatterTurnExecution *self);
gboolean    _natter_turn_execution_enqueue           (NatterTurnExecution *self,
                                                      GPtrArray           *events,
                                                      BatchDone            done,
                                                      gpointer             data);
void        _natter_turn_execution_start_tools       (NatterTurnExecution *self,
                                                      gboolean             written,
                                                      gpointer             data);

G_END_DECLS
