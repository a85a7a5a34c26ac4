/* test-provider-e2e.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-provider-e2e share (test-provider-e2e-fixture.c).
 */

#pragma once

#include <string.h>

#include <libsoup/soup.h>

#include "natter-provider-registry.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-runtime.h"
#include "natter-test-fakes.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define API_KEY "sk-e2e-SECRET-42"
#define WAIT_MS 10000
#define SYSTEM_PROMPT "You are the e2e model."

extern gboolean key_logged;
extern guint natter_log_lines;

/* ------------------------------------------------------------------ */
/* The scripted server                                                 */
/* ------------------------------------------------------------------ */

/* Server-Sent Event pieces of an OpenAI-compatible stream. */
#define SSE "text/event-stream"
#define CHUNK(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" delta "\"}}]}\n\n"
#define REASONING(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"" delta "\"}}]}\n\n"
#define FINISH(reason) "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" reason "\"}]}\n\n"
#define USAGE "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3,\"total_tokens\":10}}\n\n"
#define DONE "data: [DONE]\n\n"
#define TOOL_START(id, name) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"" id "\"," \
  "\"type\":\"function\",\"function\":{\"name\":\"" name "\",\"arguments\":\"\"}}]}}]}\n\n"
#define TOOL_ARGS(fragment) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"" \
  fragment "\"}}]}}]}\n\n"

/* "Hello world" in three reads, with usage. */
#define ANSWER \
  { .status = 200, .content_type = SSE, \
    .chunks = NATTER_TEST_CHUNKS (CHUNK ("Hel") CHUNK ("lo"), CHUNK (" world"), FINISH ("stop") USAGE DONE) }
/* echo({"text":"ping"}) as call_1, its arguments in two fragments. */
#define ECHO_CALL \
  { .status = 200, .content_type = SSE, \
    .chunks = NATTER_TEST_CHUNKS (TOOL_START ("call_1", "echo"), TOOL_ARGS ("{\\\"text\\\":"), \
                TOOL_ARGS ("\\\"ping\\\"}") FINISH ("tool_calls") DONE) }

/* ------------------------------------------------------------------ */
/* Fakes: agent, permission checker, classifier, tools                 */
/* ------------------------------------------------------------------ */

#define ECHO_TOOL \
  "{\"toolId\":\"t.echo\",\"name\":\"echo\",\"description\":\"Echoes text\"," \
  "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}," \
  "\"execution\":\"sync\",\"requiresHuman\":false}"
#define GUARDED_TOOL \
  "{\"toolId\":\"t.guarded\",\"name\":\"guarded\",\"description\":\"Needs a yes\"," \
  "\"inputSchema\":{\"type\":\"object\"},\"execution\":\"sync\",\"requiresHuman\":false}"

/* The key store of the tests: one key for every provider, and a count
 * of lookups, so a test can see that each advance looks the key up. */
typedef struct
{
  guint      n_lookups;
  GPtrArray *providers;   /* char*: the provider of each lookup */
} Keys;

/* ------------------------------------------------------------------ */
/* Fixture                                                             */
/* ------------------------------------------------------------------ */

typedef struct
{
  GFile                  *dir;
  NatterJsonlRepo        *repo;
  NatterFakeClock        *clock;
  NatterFakeWorld        *world;   /* the agent, the permission checker and classifier */
  NatterTurnEventHub     *hub;
  NatterProviderRegistry *registry;
  NatterTurnRuntime      *runtime;
  Keys                    keys;
  NatterTestServer             *server;
  GPtrArray              *errors;   /* char*: every error message seen */
} Fixture;

#define SERVE(f, ...) \
  G_STMT_START { \
    const NatterTestResponse script_[] = { __VA_ARGS__ }; \
    serve ((f), script_, G_N_ELEMENTS (script_)); \
  } G_STMT_END

/* ------------------------------------------------------------------ */
/* Driving turns                                                       */
/* ------------------------------------------------------------------ */

typedef struct
{
  gboolean           done;
  NatterTurnOutcome *outcome;
  GError            *error;
  GPtrArray         *deltas;         /* "text:…" / "reasoning:…" */
  GCancellable      *cancel_on_delta;
  guint              late_deltas;
} Run;

#define SYSTEM_MESSAGE "{\"role\":\"system\",\"content\":\"" SYSTEM_PROMPT "\"}"
#define USER_MESSAGE(text) "{\"role\":\"user\",\"content\":\"" text "\"}"
#define ECHO_CALL_MESSAGE(id) \
  "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"" id "\",\"type\":\"function\"," \
  "\"function\":{\"name\":\"echo\",\"arguments\":\"{\\\"text\\\":\\\"ping\\\"}\"}}]}"
#define TOOL_MESSAGE(id, text) "{\"role\":\"tool\",\"tool_call_id\":\"" id "\",\"content\":\"" text "\"}"

#define ADD(path, func) \
  g_test_add ("/provider-e2e/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

void make_runtime (Fixture *f);
void drop_runtime (Fixture *f);
void fixture_set_up (Fixture       *f,
                     gconstpointer  data);
void fixture_tear_down (Fixture       *f,
                        gconstpointer  data);
void serve (Fixture                  *f,
            const NatterTestResponse *script,
            guint                     n_script);
char *create_turn_full (Fixture    *f,
                        const char *agent_literal,
                        const char *context_literal,
                        const char *text);
char *create_turn_with_parameters (Fixture    *f,
                                   const char *parameters_literal);
char *create_turn (Fixture *f);
void run_clear (Run *run);
void advance_full (Fixture      *f,
                   const char   *turn_id,
                   const char   *input,
                   GCancellable *cancellable,
                   Run          *run);
void advance (Fixture    *f,
              const char *turn_id,
              const char *input,
              Run        *run);
GPtrArray *read_events (Fixture    *f,
                        const char *turn_id);
JsonObject *event_at (GPtrArray *events,
                      guint      index);
void assert_types (Fixture    *f,
                   const char *turn_id,
                   const char *expected);
JsonObject *find_event (GPtrArray  *events,
                        const char *type);
void assert_object_equal (JsonObject *actual,
                          const char *expected_literal);
JsonObject *request_body (Fixture *f,
                          guint    index);
void assert_messages (Fixture    *f,
                      guint       index,
                      const char *expected_literal);
char *file_text (Fixture    *f,
                 const char *turn_id);
void create_failed_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data);
char *changing_key_lookup (const char *provider,
                           gpointer    user_data);
GLogWriterOutput log_writer (GLogLevelFlags   log_level,
                             const GLogField *fields,
                             gsize            n_fields,
                             gpointer         user_data);

/* The scenarios of the other files, registered by main(). */
void provider_e2e_add_failures_tests (void);
void provider_e2e_add_registry_tests (void);
