/* natter-openai-provider-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of the OpenAI-compatible provider share: the instance
 * struct, read by the HTTP call for its session and settings and by the
 * error messages for the names they show; the one HTTP call of
 * natter-openai-call.c, which the provider's operations start; and the
 * error constructors of natter-openai-errors.c, which the call uses. The
 * request encoding (natter-openai-request.c) also keeps the name each
 * model takes its token limit under, which the call changes when a
 * server refuses the other; otherwise it is pure. Calls run one way:
 * provider, then call, then request and errors.
 *
 * Nothing outside the provider's own files includes this header:
 * src/runtime/provider/natter-openai-*.c, and the calls to a server's native API
 * beside its OpenAI one (natter-model-library.c, natter-model-pull.c).
 */

#pragma once

#include <libsoup/soup.h>

#include "natter-json.h"
#include "natter-openai-provider.h"

G_BEGIN_DECLS

struct _NatterOpenaiProvider
{
  GObject      parent_instance;

  char        *id;
  char        *display_name;
  char        *base_url;      /* without a trailing '/' */
  char        *display_base;  /* scheme://host[:port]: what messages show */
  char        *api_key;       /* NULL when none; only ever sent as a header */
  guint        idle_timeout;  /* seconds; 0 = never */
  gsize        max_event_bytes;
  SoupSession *session;
  /* Models that refused `max_tokens` and took `max_completion_tokens`:
   * their next requests send that name at once. Main context only. */
  GHashTable  *completion_token_models;
};

/* The two names of the limit on an answer's tokens: OpenAI's older one,
 * which every compatible server knows and its newer models refuse, and
 * its newer one, which some servers ignore. */
#define NATTER_OPENAI_MAX_TOKENS "max_tokens"
#define NATTER_OPENAI_MAX_COMPLETION_TOKENS "max_completion_tokens"

const char *natter_openai_provider_get_token_limit_name (NatterOpenaiProvider *self,
                                                        const char           *model);
void        natter_openai_provider_remember_token_limit_name (NatterOpenaiProvider *self,
                                                              const char           *model,
                                                              const char           *limit_name);
gboolean    natter_openai_request_has_token_limit      (JsonObject           *composed);
JsonNode   *natter_openai_encode_request_with_limit    (NatterOpenaiProvider *self,
                                                        JsonObject           *composed,
                                                        const char           *model,
                                                        const char           *limit_name,
                                                        GError              **error);
gboolean    natter_openai_error_body_refuses_parameter (const char           *body,
                                                        gsize                 len,
                                                        const char           *name);

void    natter_openai_call_start_chat              (NatterOpenaiProvider *self,
                                                    GTask                *task,
                                                    NatterChatStream     *stream,
                                                    GBytes               *body,
                                                    const char           *model,
                                                    const char           *limit_name,
                                                    GBytes               *alternate_body,
                                                    const char           *alternate_limit_name,
                                                    GCancellable         *cancellable);

void    natter_openai_call_start                   (NatterOpenaiProvider *self,
                                                    GTask                *task,
                                                    NatterChatStream     *stream,
                                                    const char           *method,
                                                    const char           *path,
                                                    GBytes               *body,
                                                    GCancellable         *cancellable);

void    natter_openai_call_start_json              (NatterOpenaiProvider *self,
                                                    GTask                *task,
                                                    const char           *method,
                                                    const char           *url,
                                                    GBytes               *body,
                                                    GCancellable         *cancellable);

void    natter_openai_call_start_status            (NatterOpenaiProvider *self,
                                                    GTask                *task,
                                                    const char           *method,
                                                    const char           *url,
                                                    GBytes               *body,
                                                    GCancellable         *cancellable);

/* One line of a JSON-lines answer (natter_openai_call_start_lines()),
 * without its newline and not nul-terminated; setting @error ends the
 * call with it. */
typedef void (*NatterOpenaiLineFunc) (const char  *line,
                                      gsize        len,
                                      gpointer     user_data,
                                      GError     **error);

void    natter_openai_call_start_lines             (NatterOpenaiProvider *self,
                                                    GTask                *task,
                                                    const char           *method,
                                                    const char           *url,
                                                    GBytes               *body,
                                                    NatterOpenaiLineFunc  line_func,
                                                    gpointer              line_data,
                                                    GCancellable         *cancellable);

void    natter_openai_call_start_upload            (NatterOpenaiProvider *self,
                                                    GTask                *task,
                                                    const char           *url,
                                                    const char           *content_type,
                                                    GBytes               *body,
                                                    GCancellable         *cancellable);

guint   natter_openai_call_get_status              (GAsyncResult         *result);

GError *natter_openai_provider_error_literal       (NatterOpenaiProvider *self,
                                                    NatterProviderError   code,
                                                    const char           *message);
GError *natter_openai_provider_error               (NatterOpenaiProvider *self,
                                                    NatterProviderError   code,
                                                    const char           *format,
                                                    ...) G_GNUC_PRINTF (3, 4);
char   *natter_openai_quote_server_text            (const char           *text,
                                                    gssize                len);
GError *natter_openai_provider_http_error          (NatterOpenaiProvider *self,
                                                    SoupMessage          *msg,
                                                    const char           *body,
                                                    gsize                 len);
GError *natter_openai_provider_stream_error        (NatterOpenaiProvider *self,
                                                    const GError         *error);
GError *natter_openai_provider_transport_error     (NatterOpenaiProvider *self,
                                                    gboolean              timed_out,
                                                    gboolean              got_headers,
                                                    const GError         *error);

G_END_DECLS
