/* natter-test-server.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A scripted OpenAI-compatible endpoint on loopback for the provider
 * tests: request n gets response n of a fixed script (a whole body, a
 * chunked stream that may stay open, or raw chunks and a dropped socket;
 * a request past the script fails the test), and every request's path,
 * body and Authorization header is kept for the test to assert on. Runs
 * on the thread-default main context.
 *
 * A responder server (natter_test_server_new_responder()) has no fixed
 * script: a function chooses each response when its request arrives, so
 * a test can answer what it was asked. A stream it keeps open is held
 * until the test releases it with the rest of its chunks, or the client
 * goes away (a stopped turn, a killed process).
 */

#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/* OpenAI's answer to `max_tokens` from a model that only takes
 * `max_completion_tokens` (its reasoning models), exactly as it sends it. */
#define NATTER_TEST_REFUSE_MAX_TOKENS \
  { .status = 400, .content_type = "application/json", \
    .body = "{\"error\":{\"message\":\"Unsupported parameter: 'max_tokens' is not supported with this model. " \
            "Use 'max_completion_tokens' instead.\",\"type\":\"invalid_request_error\"," \
            "\"param\":\"max_tokens\",\"code\":\"unsupported_parameter\"}}" }

/* A NULL-terminated chunk list for NatterTestResponse.chunks. */
#define NATTER_TEST_CHUNKS(...) ((const char *const[]) { __VA_ARGS__, NULL })

typedef struct
{
  guint              status;
  const char        *content_type;
  const char        *body;          /* a whole body (Content-Length) */
  const char *const *chunks;        /* else chunked: one chunk each */
  gboolean           keep_open;     /* no final chunk: the server goes silent */
  gboolean           disconnect;    /* write the chunks raw, then drop the socket */
  const char        *retry_after;   /* a Retry-After header, or NULL */
} NatterTestResponse;

typedef struct _NatterTestServer NatterTestServer;

/* Fills @response for request @index (@path, @body); the strings it sets
 * need only live until it returns. */
typedef void (*NatterTestResponder) (NatterTestServer   *server,
                                     guint               index,
                                     const char         *path,
                                     const char         *body,
                                     NatterTestResponse *response,
                                     gpointer            user_data);

struct _NatterTestServer
{
  SoupServer               *server;
  char                     *base_url;       /* http://127.0.0.1:PORT/v1 */
  const NatterTestResponse *script;
  guint                     n_script;
  const char               *expected_path;  /* every request's path, or NULL for any */
  GPtrArray                *paths;          /* char* */
  GPtrArray                *bodies;         /* char* */
  GPtrArray                *authorizations; /* char*, "" when the header was absent */
  NatterTestResponder       responder;      /* or NULL: the script answers */
  gpointer                  responder_data;
  GHashTable               *held;           /* request index → SoupServerMessage kept open */
};

NatterTestServer *natter_test_server_new           (const NatterTestResponse *script,
                                                    guint                     n_script);
NatterTestServer *natter_test_server_new_responder (NatterTestResponder       responder,
                                                    gpointer                  user_data);
NatterTestServer *natter_test_server_new_models     (const char               *listing);
gboolean          natter_test_server_is_held       (NatterTestServer         *server,
                                                    guint                     index);
gboolean          natter_test_server_release       (NatterTestServer         *server,
                                                    guint                     index,
                                                    const char *const        *chunks);
void              natter_test_server_free          (NatterTestServer         *server);
guint16           natter_test_closed_port          (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterTestServer, natter_test_server_free)

G_END_DECLS
