/* natter-test-ollama.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A scripted Ollama on loopback, speaking the documented API
 * (github.com/ollama/ollama docs/api.md) over the responder server of
 * natter-test-server.h: `GET /api/version`, `GET /api/tags`, `POST
 * /api/show`, `DELETE /api/delete`, the streamed `POST /api/pull`, and
 * the OpenAI-compatible `GET /v1/models`. Its models are a list the test
 * sets and the server changes as it is asked (a pull that succeeds adds
 * one, a delete removes one); how the next pull goes is the test's
 * choice (NatterTestPullScript). Runs on the thread-default main
 * context, like the server under it.
 */

#pragma once

#include "natter-test-server.h"

G_BEGIN_DECLS

/* The model pulls stream: two layers, of these sizes. */
#define NATTER_TEST_OLLAMA_LAYER_BYTES   2019377376
#define NATTER_TEST_OLLAMA_SMALL_BYTES   7711
#define NATTER_TEST_OLLAMA_DIGEST        "sha256:dde5aa3fc5ffc17176b5e8bdc82f587b24b2678c6c66101bf7da77af9f7ccdff"
#define NATTER_TEST_OLLAMA_SMALL_DIGEST  "sha256:966de95ca8a62200913e3f8bfbf84c8494536f1b94b49166851e76644e966396"

typedef enum
{
  NATTER_TEST_PULL_SUCCEEDS,      /* manifest, both layers whole, verifying, writing, success */
  NATTER_TEST_PULL_FAILS_HALFWAY, /* half the first layer, then Ollama's "no space left on device" */
  NATTER_TEST_PULL_DROPS_HALFWAY, /* half the first layer, then the connection is dropped */
  NATTER_TEST_PULL_HOLDS_HALFWAY, /* half the first layer, then silence until the client leaves */
  NATTER_TEST_PULL_UNKNOWN,       /* the registry has no such model */
} NatterTestPullScript;

typedef struct
{
  NatterTestServer     *server;
  char                 *root;      /* http://127.0.0.1:PORT, where /api is */
  GPtrArray            *models;    /* char*: the installed models, in order */
  NatterTestPullScript  pull;      /* how the next pulls go */
  guint                 last_pull; /* the request index of the latest pull */
  char                 *scratch;   /* the last answer's text, until the server copied it */
} NatterTestOllama;

NatterTestOllama *natter_test_ollama_new          (const char        *first_model,
                                                   ...) G_GNUC_NULL_TERMINATED;
gboolean          natter_test_ollama_has_model    (NatterTestOllama  *ollama,
                                                   const char        *name);
gboolean          natter_test_ollama_pull_is_held (NatterTestOllama  *ollama);
gboolean          natter_test_ollama_finish_pull  (NatterTestOllama  *ollama);
guint             natter_test_ollama_count        (NatterTestOllama  *ollama,
                                                   const char        *path);
void              natter_test_ollama_free         (NatterTestOllama  *ollama);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterTestOllama, natter_test_ollama_free)

G_END_DECLS
