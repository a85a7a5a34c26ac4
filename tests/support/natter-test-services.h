/* natter-test-services.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real services (natter-services.h) over a temporary data directory,
 * in-memory settings, and a scripted OpenAI-compatible server on loopback
 * (natter-test-server.h) registered as provider "test" with model "m":
 * what the end-to-end tests of titles and compaction share. The driving
 * helpers wait by iterating the main loop with a timeout, never by
 * sleeping.
 */

#pragma once

#include "natter-services.h"
#include "natter-settings.h"
#include "natter-test-server.h"

G_BEGIN_DECLS

#define NATTER_TEST_SERVICES_WAIT_MS 20000

/* Server-sent events of a chat completion. */
#define NATTER_TEST_SSE "text/event-stream"
#define NATTER_TEST_SSE_CHUNK(delta) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" delta "\"}}]}\n\n"
#define NATTER_TEST_SSE_FINISH "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
#define NATTER_TEST_SSE_USAGE(prompt) \
  "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":" #prompt ",\"completion_tokens\":1}}\n\n"
#define NATTER_TEST_SSE_DONE "data: [DONE]\n\n"

/* A NatterTestResponse: the model answers @text. */
#define NATTER_TEST_SAY(text) \
  { .status = 200, .content_type = NATTER_TEST_SSE, \
    .chunks = NATTER_TEST_CHUNKS (NATTER_TEST_SSE_CHUNK (text), NATTER_TEST_SSE_FINISH NATTER_TEST_SSE_DONE) }
/* The model answers @text, reporting a prompt of @prompt tokens. */
#define NATTER_TEST_SAY_USING(text, prompt) \
  { .status = 200, .content_type = NATTER_TEST_SSE, \
    .chunks = NATTER_TEST_CHUNKS (NATTER_TEST_SSE_CHUNK (text), NATTER_TEST_SSE_FINISH, \
                                  NATTER_TEST_SSE_USAGE (prompt) NATTER_TEST_SSE_DONE) }
/* The server fails with HTTP 500. */
#define NATTER_TEST_BROKEN \
  { .status = 500, .content_type = "application/json", .body = "{\"error\":{\"message\":\"down\"}}" }

typedef struct
{
  GFile            *dir;        /* the data directory; its "storage" holds the logs */
  GSettings        *gsettings;  /* over a memory backend */
  NatterSettings   *settings;
  NatterServices   *services;   /* NULL until natter_test_services_serve() */
  NatterSessions   *sessions;   /* the services' */
  NatterTestServer *server;
  /* Load without the data directory's writer lock, so that a `natter`
   * command may run over the same directory while the services are
   * dropped between two loads. */
  gboolean          without_writer_lock;
} NatterTestServices;

void        natter_test_services_set_up         (NatterTestServices       *f,
                                                 gconstpointer             data);
void        natter_test_services_set_up_without_titles (NatterTestServices *f,
                                                        gconstpointer       data);
void        natter_test_services_tear_down      (NatterTestServices       *f,
                                                 gconstpointer             data);
void        natter_test_services_serve          (NatterTestServices       *f,
                                                 const char               *expected_path,
                                                 const NatterTestResponse *script,
                                                 guint                     n_script);
void        natter_test_services_serve_server   (NatterTestServices       *f,
                                                 NatterTestServer         *server);
void        natter_test_services_reload         (NatterTestServices       *f);
void        natter_test_services_drop           (NatterTestServices       *f);
void        natter_test_services_load           (NatterTestServices       *f);

/* Serves the responses given after @path (every request's path, or NULL
 * for any). */
#define NATTER_TEST_SERVE(f, path, ...) \
  G_STMT_START { \
    const NatterTestResponse natter_test_script_[] = { __VA_ARGS__ }; \
    natter_test_services_serve ((f), (path), natter_test_script_, G_N_ELEMENTS (natter_test_script_)); \
  } G_STMT_END

GAsyncResult *natter_test_services_wait_result  (GAsyncResult            **slot);
char        *natter_test_services_create_session (NatterTestServices      *f);
char        *natter_test_services_send          (NatterTestServices       *f,
                                                 const char               *session_id,
                                                 const char               *text);
void        natter_test_services_wait_turn      (NatterTestServices       *f,
                                                 const char               *turn_id);
char        *natter_test_services_write_interrupted (NatterTestServices   *f,
                                                     const char           *text,
                                                     char                **out_turn_id);
void        natter_test_services_settle         (NatterTestServices       *f,
                                                 const char               *turn_id);
JsonObject *natter_test_services_request_body   (NatterTestServices       *f,
                                                 guint                     index);
JsonObject *natter_test_services_last_event     (NatterTestServices       *f,
                                                 const char               *session_id,
                                                 const char               *type);
char       *natter_test_services_write_chain    (NatterTestServices       *f,
                                                 guint                     n_turns,
                                                 GPtrArray                *out_turn_ids);

G_END_DECLS
