/* natter-test-fakes.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fakes of the turn runtime's injected interfaces, shared by the session
 * layer tests: a scripted model, one object that plays the model registry,
 * agent resolver, permission checker and classifier, fake tools, and a
 * "world" that wires a real runtime over real repos in a temp dir.
 * (Adapted from the file-local fakes of test-turn-runtime.c.)
 */

#pragma once

#include "natter-test-support.h"
#include "natter-turn-runtime.h"

G_BEGIN_DECLS

/* Model script steps: an assistant message literal, or one of these. */
#define NATTER_FAKE_STEP_ERROR "ERROR"   /* provider failure "provider p: HTTP 500" */
#define NATTER_FAKE_STEP_HANG  "HANG"    /* waits for cancellation */
/* The provider's failure when nothing listens at its address, in its
 * own words: "Could not reach Ollama at http://127.0.0.1:9 — is it
 * running?" (NATTER_PROVIDER_ERROR_UNREACHABLE) */
#define NATTER_FAKE_STEP_UNREACHABLE "UNREACHABLE"
#define NATTER_FAKE_STEP_OVERFLOW "OVERFLOW" /* the context-window failure of an OpenAI server */
/* A server whose streamed chunk is not JSON: the failure the chat stream
 * gives for it, the parser's words and the bytes included. */
#define NATTER_FAKE_STEP_BAD_CHUNK "BAD_CHUNK"
#define NATTER_FAKE_STEP_HOLD  "HOLD"    /* waits for natter_fake_model_release() or cancellation */
#define NATTER_FAKE_STEP_HOOK  "HOOK"    /* runs the natter_fake_model_set_hook() hook, then answers "done" */
/* A literal with a leading "+" also streams a reasoning delta ("hm") and
 * one normalized step event ({"type":"text-end"}) before its text deltas. */
#define NATTER_FAKE_TEXT_STEP  "{\"role\":\"assistant\",\"content\":\"done\"}"

#define NATTER_FAKE_CALL(id, name, args) \
  "{\"type\":\"tool-call\",\"toolCallId\":\"" id "\",\"toolName\":\"" name "\",\"arguments\":" args "}"
#define NATTER_FAKE_TOOL_STEP(calls) "{\"role\":\"assistant\",\"content\":[" calls "]}"

#define NATTER_TYPE_FAKE_MODEL (natter_fake_model_get_type ())
G_DECLARE_FINAL_TYPE (NatterFakeModel, natter_fake_model, NATTER, FAKE_MODEL, GObject)

void        natter_fake_model_script        (NatterFakeModel *self,
                                             const char      *first_step,
                                             ...) G_GNUC_NULL_TERMINATED;
guint       natter_fake_model_get_n_requests (NatterFakeModel *self);
JsonObject *natter_fake_model_get_request   (NatterFakeModel *self,
                                             guint            index);
guint       natter_fake_model_get_n_held    (NatterFakeModel *self);
void        natter_fake_model_wait_held     (NatterFakeModel *self,
                                             guint            n,
                                             guint            timeout_ms);
void        natter_fake_model_release       (NatterFakeModel *self);
void        natter_fake_model_stream_text   (NatterFakeModel *self,
                                             const char      *delta);
void        natter_fake_model_stream_reasoning (NatterFakeModel *self,
                                               const char      *delta);
void        natter_fake_model_release_with  (NatterFakeModel *self,
                                             const char      *step);
void        natter_fake_model_set_usage     (NatterFakeModel *self,
                                             const char      *usage_literal);
void        natter_fake_model_set_hook      (NatterFakeModel *self,
                                             GFunc            hook,
                                             gpointer         hook_data);

/* Tools the fake agent "helper" offers (toolId → name):
 * t.a → sa (sync), t.b → ab (async), t.c → sc (sync), t.d → ad (async),
 * t.fail → fail (sync, throws), t.ask → ask_human (async, requiresHuman),
 * t.slow → slow (sync, runs until cancelled), t.read → read_file (sync,
 * answers a line of Python). The agent's model is
 * {provider: "p", model: "m"}. */

#define NATTER_TYPE_FAKE_WORLD (natter_fake_world_get_type ())
G_DECLARE_FINAL_TYPE (NatterFakeWorld, natter_fake_world, NATTER, FAKE_WORLD, GObject)

struct _NatterFakeWorld
{
  GObject          parent_instance;
  NatterFakeModel *model;             /* NULL: the provider is gone */
  gboolean         checker_fails;
  GHashTable      *needs_permission;  /* tool names */
  char            *classifier_answer; /* JSON array literal, or NULL for an error */
  GPtrArray       *resolved_models;   /* JsonObject descriptors asked for */
  char            *agent;             /* the agent "helper" as a JSON literal, or NULL
                                       * for one with the fake tools (natter_fake_tools_new()) */
};

NatterToolRegistry *natter_fake_tools_new               (void);
/* The same tools, but a successful run first reports the progress "half". */
NatterToolRegistry *natter_fake_tools_new_with_progress (void);

/* A tool that answers what a test says: @run gets the tool's descriptor
 * and the arguments of NatterToolInterface.run, and @run_data. */
typedef JsonObject *(*NatterTestToolFunc) (JsonObject              *descriptor,
                                           JsonObject              *input,
                                           NatterToolProgressFunc   progress,
                                           gpointer                 progress_data,
                                           GCancellable            *cancellable,
                                           gpointer                 run_data,
                                           GError                 **error);

#define NATTER_TYPE_TEST_TOOL (natter_test_tool_get_type ())
G_DECLARE_FINAL_TYPE (NatterTestTool, natter_test_tool, NATTER, TEST_TOOL, GObject)

NatterTestTool     *natter_test_tool_new   (const char         *descriptor_literal,
                                            NatterTestToolFunc  run,
                                            gpointer            run_data);
void                natter_test_tools_add  (NatterToolRegistry *tools,
                                            const char         *descriptor_literal,
                                            NatterTestToolFunc  run,
                                            gpointer            run_data);

/* A runtime over real repos in a fresh temp dir. */
typedef struct
{
  GFile              *dir;         /* the data dir */
  GFile              *storage;     /* dir/storage */
  NatterJsonlRepo    *turn_repo;
  NatterJsonlRepo    *session_repo;
  NatterFakeClock    *clock;
  NatterIdGenerator  *ids;
  NatterFakeWorld    *fakes;
  NatterTurnEventHub *hub;
  NatterTurnRuntime  *runtime;
} NatterTestWorld;

/* Driving turns through a runtime: create a turn and wait for its id,
 * wait for an execution's outcome. */
typedef struct
{
  gboolean           done;
  NatterTurnOutcome *outcome;
  GError            *error;
} NatterTestWait;

char            *natter_test_create_turn_full (NatterTurnRuntime   *runtime,
                                               JsonObject          *agent,
                                               JsonNode            *context,
                                               JsonObject          *input,
                                               JsonObject          *config);
char            *natter_test_create_turn      (NatterTurnRuntime   *runtime,
                                               JsonNode            *context,
                                               const char          *config_literal);
void             natter_test_wait_execution   (NatterTurnExecution *execution,
                                               NatterTestWait      *wait);

NatterTestWorld *natter_test_world_new   (void);
void             natter_test_world_free  (NatterTestWorld *world);

G_END_DECLS
