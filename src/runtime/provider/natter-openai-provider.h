/* natter-openai-provider.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OpenAI-compatible model provider: `POST {baseUrl}/chat/completions`
 * streamed over libsoup 3, and `GET {baseUrl}/models` for the model picker
 * (docs/runtime.md §12).
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-chat-stream.h"
#include "natter-provider-error.h"

G_BEGIN_DECLS

#define NATTER_TYPE_OPENAI_PROVIDER (natter_openai_provider_get_type ())
G_DECLARE_FINAL_TYPE (NatterOpenaiProvider, natter_openai_provider, NATTER, OPENAI_PROVIDER, GObject)

NatterOpenaiProvider *natter_openai_provider_new                (const char            *provider_id,
                                                                 const char            *display_name,
                                                                 const char            *base_url,
                                                                 const char            *api_key,
                                                                 guint                  idle_timeout_seconds,
                                                                 gsize                  max_event_bytes);

const char           *natter_openai_provider_get_id             (NatterOpenaiProvider  *self);
const char           *natter_openai_provider_get_display_name   (NatterOpenaiProvider  *self);
const char           *natter_openai_provider_get_base_url       (NatterOpenaiProvider  *self);
guint                 natter_openai_provider_get_idle_timeout   (NatterOpenaiProvider  *self);

JsonNode             *natter_openai_provider_encode_request     (NatterOpenaiProvider  *self,
                                                                 JsonObject            *composed,
                                                                 const char            *model,
                                                                 GError               **error);

void                  natter_openai_provider_stream_async       (NatterOpenaiProvider  *self,
                                                                 JsonObject            *composed,
                                                                 const char            *model,
                                                                 NatterChatStream      *stream,
                                                                 GCancellable          *cancellable,
                                                                 GAsyncReadyCallback    callback,
                                                                 gpointer               user_data);
gboolean              natter_openai_provider_stream_finish      (NatterOpenaiProvider  *self,
                                                                 GAsyncResult          *result,
                                                                 GError               **error);

void                  natter_openai_provider_list_models_async  (NatterOpenaiProvider  *self,
                                                                 GCancellable          *cancellable,
                                                                 GAsyncReadyCallback    callback,
                                                                 gpointer               user_data);
GStrv                 natter_openai_provider_list_models_finish (NatterOpenaiProvider  *self,
                                                                 GAsyncResult          *result,
                                                                 GError               **error);

void                  natter_openai_provider_context_window_async  (NatterOpenaiProvider  *self,
                                                                    const char            *model,
                                                                    GCancellable          *cancellable,
                                                                    GAsyncReadyCallback    callback,
                                                                    gpointer               user_data);
gint64                natter_openai_provider_context_window_finish (NatterOpenaiProvider  *self,
                                                                    GAsyncResult          *result,
                                                                    GError               **error);

void                  natter_openai_provider_transcribe_async  (NatterOpenaiProvider  *self,
                                                                const char            *model,
                                                                GBytes                *audio,
                                                                const char            *content_type,
                                                                GCancellable          *cancellable,
                                                                GAsyncReadyCallback    callback,
                                                                gpointer               user_data);
char                 *natter_openai_provider_transcribe_finish (NatterOpenaiProvider  *self,
                                                                GAsyncResult          *result,
                                                                GError               **error);

G_END_DECLS
