/* test-turn-runtime.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-turn-runtime share (test-turn-runtime-fixture.c):
 * the fixture, turn creation and the assertions on the files.
 */

#pragma once

#include <string.h>

#include <glib/gstdio.h>

#include "natter-store-error.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-reducer.h"
#include "natter-turn-runtime.h"
#include "natter-test-fakes.h"

/* The fakes (model script steps, the one object that plays registry,
 * resolver, checker and classifier, the tools) are the shared ones of
 * tests/support/natter-test-fakes.c; these tools report progress. */

/* Fixture */

typedef struct
{
  GFile              *dir;
  NatterJsonlRepo    *repo;
  NatterFakeClock    *clock;
  NatterFakeWorld    *world;
  NatterTurnEventHub *hub;
  NatterTurnRuntime  *runtime;
  guint               hub_deltas;
} Fixture;

#define CALL(id, name, args) \
  "{\"type\":\"tool-call\",\"toolCallId\":\"" id "\",\"toolName\":\"" name "\",\"arguments\":" args "}"
#define TOOL_STEP(calls) "{\"role\":\"assistant\",\"content\":[" calls "]}"
#define TEXT_STEP "{\"role\":\"assistant\",\"content\":\"done\"}"

#define LINE_HEAD "\"turnId\":\"%s\",\"ts\":\"2026-11-30T09:14:03.000Z\""
#define REQUESTED_0 \
  "{\"type\":\"model_call_requested\"," LINE_HEAD ",\"modelCallIndex\":0," \
  "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}"
#define COMPLETED_0(message) \
  "{\"type\":\"model_call_completed\"," LINE_HEAD ",\"modelCallIndex\":0," \
  "\"finishReason\":\"tool_calls\",\"usage\":{},\"message\":" message "}"
#define PERMISSION_REQUIRED(id, name) \
  "{\"type\":\"tool_permission_required\"," LINE_HEAD ",\"toolCallId\":\"" id "\"," \
  "\"toolName\":\"" name "\",\"request\":{\"ask\":\"may I?\"}}"
#define PERMISSION_ALLOWED(id) \
  "{\"type\":\"tool_permission_resolved\"," LINE_HEAD ",\"toolCallId\":\"" id "\"," \
  "\"decision\":\"allow\",\"source\":\"human\"}"
#define INVOCATION(id, tool_id, name, execution) \
  "{\"type\":\"tool_invocation_requested\"," LINE_HEAD ",\"toolCallId\":\"" id "\"," \
  "\"toolId\":\"" tool_id "\",\"toolName\":\"" name "\",\"execution\":\"" execution "\",\"input\":{}}"
#define RESULT(id, name) \
  "{\"type\":\"tool_result\"," LINE_HEAD ",\"toolCallId\":\"" id "\",\"toolName\":\"" name "\"," \
  "\"source\":\"sync\",\"result\":{\"output\":\"ok\",\"isError\":false}}"

typedef struct
{
  NatterTurnState *live;
  guint64          next_offset;
} Live;

typedef struct
{
  GString *text;
  GString *reasoning;
  guint    n_hub;
} Deltas;

/* A consumer that falls behind: it only queues what the hub hands it and
 * drains later, from low-priority idles. Signals are synchronous, so a
 * listener that blocks the main loop blocks everything on it; what the
 * runtime promises is that emission is never a barrier on its progress
 * (it never waits for a listener to acknowledge or drain, and keeps no
 * per-listener buffer). So the turn must settle while this consumer has
 * processed nothing, and the consumer must then find every event, in
 * order, with contiguous offsets. */
typedef struct
{
  const char *turn_id;
  GQueue      queue;        /* JsonObject, not yet processed */
  gboolean    draining;
  guint64     last_offset;
  GPtrArray  *processed;    /* char *type */
  gboolean    done;
} SlowConsumer;

#define ADD(path, func, data) \
  g_test_add ("/turn-runtime/" path, Fixture, data, fixture_set_up, func, fixture_tear_down)

void fixture_set_up (Fixture       *f,
                     gconstpointer  data);
void fixture_tear_down (Fixture       *f,
                        gconstpointer  data);
void script (Fixture    *f,
             const char *first,
             ...);
char *create_turn (Fixture    *f,
                   gboolean    auto_permission,
                   gboolean    human,
                   guint       max_calls);
char *create_turn_with_context (Fixture    *f,
                                const char *context);
NatterTurnCreated *create_turn_record (Fixture    *f,
                                       const char *requested);
void created_error_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data);
JsonArray *resolved_tools (NatterTurnCreated *created);
NatterTurnOutcome *advance (Fixture     *f,
                            const char  *turn_id,
                            const char  *input,
                            GError     **error);
char *types_on_disk (Fixture    *f,
                     const char *turn_id);
void assert_types (Fixture    *f,
                   const char *turn_id,
                   const char *expected);
void cancel_on_event_cb (NatterTurnExecution *execution,
                         JsonObject          *event,
                         guint64              offset,
                         GCancellable        *cancellable);
void cancel_on_invocation_cb (NatterTurnExecution *execution,
                              JsonObject          *event,
                              guint64              offset,
                              GCancellable        *cancellable);
void append_lines (Fixture    *f,
                   const char *turn_id,
                   const char *first,
                   ...);
char *file_contents (Fixture    *f,
                     const char *turn_id);
void break_file_hook (gpointer model,
                      gpointer user_data);
void count_event_cb (NatterTurnExecution *execution,
                     JsonObject          *event,
                     guint64              offset,
                     GPtrArray           *types);
NatterTurnOutcome *advance_live (Fixture    *f,
                                 const char *turn_id,
                                 const char *input,
                                 Live       *live);
void execution_delta_cb (NatterTurnExecution *execution,
                         guint                model_call_index,
                         int                  kind,
                         const char          *text,
                         Deltas              *deltas);
void hub_delta_cb (NatterTurnEventHub *hub,
                   const char         *turn_id,
                   guint               model_call_index,
                   int                 kind,
                   const char         *text,
                   Deltas             *deltas);
void slow_hub_event_cb (NatterTurnEventHub *hub,
                        const char         *turn_id,
                        JsonObject         *event,
                        guint64             offset,
                        SlowConsumer       *consumer);
gboolean slow_drain_one (gpointer data);
void processing_end_cb (NatterTurnEventHub *hub,
                        const char         *turn_id,
                        gboolean           *ended);
void got_turn_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data);

/* The scenarios of the other files, registered by main(). */
void turn_runtime_add_cancel_tests (void);
void turn_runtime_add_recovery_tests (void);
void turn_runtime_add_events_tests (void);
