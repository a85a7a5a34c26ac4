/* test-openai-provider.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-openai-provider share (test-openai-provider-fixture.c).
 */

#pragma once

#include <stdio.h>
#include <string.h>

#include <libsoup/soup.h>

#include "natter-openai-provider.h"
#include "natter-provider-registry.h"
#include "natter-runtime-error.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define API_KEY "sk-test-SECRET-123"
#define WAIT_MS 10000

extern gboolean key_logged;
extern guint provider_log_lines;

/* ------------------------------------------------------------------ */
/* Running the provider                                                */
/* ------------------------------------------------------------------ */

typedef struct
{
  gboolean          done;
  gboolean          ok;
  GError           *error;
  GStrv             models;
  GString          *deltas;
  GPtrArray        *delta_list;
  GCancellable     *cancel_on_first_delta;
  guint             deltas_after_cancel;
} Run;

#define CHUNK(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" delta "\"}}]}\n\n"
#define FINISH(reason) "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" reason "\"}]}\n\n"
#define USAGE "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3,\"total_tokens\":10}}\n\n"
#define DONE "data: [DONE]\n\n"

typedef struct
{
  gboolean    done;
  JsonObject *descriptor;
  GError     *error;
} Resolved;

void run_clear (Run *run);
void assert_no_key (const char *text);
void run_stream (NatterOpenaiProvider *provider,
                 JsonObject           *composed,
                 NatterChatStream     *stream,
                 GCancellable         *cancellable,
                 Run                  *run);
void models_done_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data);
NatterOpenaiProvider *make_provider (const char *base_url,
                                     const char *key,
                                     guint       idle_timeout);
JsonObject *composed_from (const char *literal);
JsonObject *simple_composed (void);
JsonObject *limited_composed (void);
GLogWriterOutput log_writer (GLogLevelFlags   log_level,
                             const GLogField *fields,
                             gsize            n_fields,
                             gpointer         user_data);
void resolve (NatterProviderRegistry *registry,
              const char             *provider,
              const char             *model,
              Resolved               *resolved);
void resolved_clear (Resolved *resolved);

/* The scenarios of the other files, registered by main(). */
void openai_provider_add_stream_tests (void);
void openai_provider_add_http_tests (void);
