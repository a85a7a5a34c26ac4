/* test-turn-reducer.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-turn-reducer share: turns built event by event
 * (JSON literals with single quotes), and the assertions every scenario
 * makes about the reducer (test-turn-reducer-events.c).
 */

#pragma once

#include "natter-json.h"
#include "natter-turn-reducer.h"
#include "natter-turn-schema.h"
#include "natter-test-support.h"

G_BEGIN_DECLS

#define TID "2026-11-30T09-14-03Z-0000042-000"
#define OTHER_TID "2026-11-29T08-00-00Z-0000001-000"
#define PREV_TID "2026-11-28T08-00-00Z-0000007-000"
#define TS "2026-11-30T09:14:03.120Z"

#define TOOLS "[{'toolId':'builtin.read','name':'read_file','description':'Read a file'," \
              "'inputSchema':{'type':'object'},'execution':'sync','requiresHuman':false}," \
              "{'toolId':'builtin.fetch','name':'fetch','description':'Fetch later'," \
              "'inputSchema':{'type':'object'},'execution':'async','requiresHuman':false}," \
              "{'toolId':'builtin.ask','name':'ask_human','description':'Ask the user'," \
              "'inputSchema':{'type':'object'},'execution':'async','requiresHuman':true}]"

#define NO_CONTEXT "[]"
#define ONE_MESSAGE "[{'role':'user','content':'Earlier'}]"
#define REFERENCE "{'previousTurnId':'" PREV_TID "'}"

#define HUMAN "'autoPermission':false,'humanAvailable':true,'maxModelCalls':5"
#define NO_HUMAN "'autoPermission':false,'humanAvailable':false,'maxModelCalls':5"
#define AUTO_HUMAN "'autoPermission':true,'humanAvailable':true,'maxModelCalls':5"
#define ONE_CALL "'autoPermission':false,'humanAvailable':true,'maxModelCalls':1"

/* Tool-call content parts. */
#define TC(id, name) "{'type':'tool-call','toolCallId':'" id "','toolName':'" name "','arguments':{}}"

#define PENDING_PERMISSION(id, name) "{'toolCallId':'" id "','toolName':'" name "','request':{}}"
#define PENDING_FETCH(id) "{'toolCallId':'" id "','toolId':'builtin.fetch','toolName':'fetch','input':{}}"

void add (GPtrArray  *events,
          const char *type,
          const char *format,
          ...) G_GNUC_PRINTF (3, 4);
JsonNode *fixture (const char *literal);
GPtrArray *turn_new (const char *context,
                     const char *config);
void request (GPtrArray  *events,
              guint       index,
              const char *refs);
void respond_text (GPtrArray  *events,
                   guint       index,
                   const char *text);
void respond_tools (GPtrArray  *events,
                    guint       index,
                    const char *parts);
void fail_call (GPtrArray *events,
                guint      index);
void require (GPtrArray  *events,
              const char *id,
              const char *name);
void resolve (GPtrArray  *events,
              const char *id,
              const char *decision,
              const char *source);
void classify (GPtrArray  *events,
               const char *id,
               const char *decision);
void invoke (GPtrArray  *events,
             const char *id,
             const char *name);
void progress (GPtrArray  *events,
               const char *id,
               const char *source);
void result (GPtrArray  *events,
             const char *id,
             const char *name,
             const char *source);
void suspend (GPtrArray  *events,
              const char *permissions,
              const char *async_tools);
void complete (GPtrArray *events);
void cancel (GPtrArray *events);
void fail_turn (GPtrArray  *events,
                const char *code);
char *dump (NatterTurnState *state);
NatterTurnState *reduce_ok (GPtrArray *events);
void assert_last_rejected (GPtrArray *events,
                           int        code);
void assert_status (GPtrArray        *events,
                    NatterTurnStatus  expected);
void assert_live_equals_replay (GPtrArray *events);

/* The scenarios of the other files, registered by main(). */
void turn_reducer_add_invariant_tests (void);
void turn_reducer_add_linear_tests    (void);

G_END_DECLS
