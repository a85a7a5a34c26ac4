/* natter-openai-provider.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The provider object (its settings and its one #SoupSession) and its two
 * operations, a streamed chat completion and the model list. Each
 * operation is one HTTP call of natter-openai-call.c; the request body is
 * encoded in natter-openai-request.c, and what went wrong is worded in
 * natter-openai-errors.c.
 */

#define G_LOG_DOMAIN "natter-openai-provider"

#include <string.h>

#include "natter-json.h"
#include "natter-openai-provider-private.h"
#include "natter-sse-parser.h"

G_DEFINE_FINAL_TYPE (NatterOpenaiProvider, natter_openai_provider, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_DISPLAY_NAME,
  PROP_BASE_URL,
  PROP_API_KEY,
  PROP_IDLE_TIMEOUT,
  PROP_MAX_EVENT_BYTES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
natter_openai_provider_finalize (GObject *object)
{
  NatterOpenaiProvider *self = (NatterOpenaiProvider *) object;

  g_free (self->id);
  g_free (self->display_name);
  g_free (self->base_url);
  g_free (self->display_base);
  if (self->api_key != NULL)
    {
      /* The key should not linger in freed memory. */
      memset (self->api_key, 0, strlen (self->api_key));
      g_free (self->api_key);
    }
  g_clear_object (&self->session);
  g_hash_table_unref (self->completion_token_models);

  G_OBJECT_CLASS (natter_openai_provider_parent_class)->finalize (object);
}

/* scheme://host[:port] of the base URL: no user info, path or query, so a
 * message can name the server without leaking credentials. */
static char *
make_display_base (const char *base_url)
{
  g_autoptr(GUri) uri = g_uri_parse (base_url, G_URI_FLAGS_NONE, NULL);

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return g_strdup (base_url);

  return g_uri_join (G_URI_FLAGS_NONE, g_uri_get_scheme (uri), NULL,
                     g_uri_get_host (uri), g_uri_get_port (uri), "", NULL, NULL);
}

static void
natter_openai_provider_constructed (GObject *object)
{
  NatterOpenaiProvider *self = (NatterOpenaiProvider *) object;
  gsize len;

  G_OBJECT_CLASS (natter_openai_provider_parent_class)->constructed (object);

  if (self->base_url == NULL)
    self->base_url = g_strdup ("");
  len = strlen (self->base_url);
  while (len > 0 && self->base_url[len - 1] == '/')
    self->base_url[--len] = '\0';

  if (self->id == NULL)
    self->id = g_strdup (self->base_url);
  if (self->display_name == NULL || self->display_name[0] == '\0')
    {
      g_free (self->display_name);
      self->display_name = g_strdup (self->id);
    }

  self->display_base = make_display_base (self->base_url);
  if (self->max_event_bytes == 0)
    self->max_event_bytes = NATTER_SSE_PARSER_DEFAULT_MAX_EVENT_BYTES;

  /* The idle timer of natter-openai-call.c watches every request, so
   * libsoup's own I/O timeout stays off: a local model may take minutes
   * to load before the first byte, which the idle timeout (if any)
   * already bounds. */
  self->session = soup_session_new_with_options ("user-agent", "Natter ",
                                                 "timeout", 0,
                                                 "idle-timeout", 60,
                                                 NULL);
}

static void
natter_openai_provider_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  NatterOpenaiProvider *self = NATTER_OPENAI_PROVIDER (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;

    case PROP_DISPLAY_NAME:
      g_value_set_string (value, self->display_name);
      break;

    case PROP_BASE_URL:
      g_value_set_string (value, self->base_url);
      break;

    case PROP_IDLE_TIMEOUT:
      g_value_set_uint (value, self->idle_timeout);
      break;

    case PROP_MAX_EVENT_BYTES:
      g_value_set_uint64 (value, self->max_event_bytes);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_openai_provider_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  NatterOpenaiProvider *self = NATTER_OPENAI_PROVIDER (object);
  const char *key;

  switch (prop_id)
    {
    case PROP_ID:
      g_free (self->id);
      self->id = g_value_dup_string (value);
      break;

    case PROP_DISPLAY_NAME:
      g_free (self->display_name);
      self->display_name = g_value_dup_string (value);
      break;

    case PROP_BASE_URL:
      g_free (self->base_url);
      self->base_url = g_value_dup_string (value);
      break;

    case PROP_API_KEY:
      key = g_value_get_string (value);
      g_free (self->api_key);
      /* A local server such as Ollama needs no key: an empty one means "no
       * key" and must not become "Bearer ". */
      self->api_key = key != NULL && key[0] != '\0' ? g_strdup (key) : NULL;
      break;

    case PROP_IDLE_TIMEOUT:
      self->idle_timeout = g_value_get_uint (value);
      break;

    case PROP_MAX_EVENT_BYTES:
      self->max_event_bytes = g_value_get_uint64 (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_openai_provider_class_init (NatterOpenaiProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_openai_provider_finalize;
  object_class->constructed = natter_openai_provider_constructed;
  object_class->get_property = natter_openai_provider_get_property;
  object_class->set_property = natter_openai_provider_set_property;

  /**
   * NatterOpenaiProvider:id:
   *
   * The configured provider's id (e.g. "ollama"), or the endpoint URL of
   * an ad-hoc one: the `provider` of a model descriptor (docs/runtime.md §12).
   */
  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterOpenaiProvider:display-name:
   *
   * The name error messages give the server, e.g. "Ollama".
   */
  properties[PROP_DISPLAY_NAME] =
    g_param_spec_string ("display-name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterOpenaiProvider:base-url:
   *
   * The API root, e.g. "http://localhost:11434/v1"; trailing slashes are
   * dropped.
   */
  properties[PROP_BASE_URL] =
    g_param_spec_string ("base-url", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterOpenaiProvider:api-key:
   *
   * The key sent as `Authorization: Bearer …`; %NULL or "" sends no
   * Authorization header at all. Write-only, so that no property dump or
   * binding can show it.
   */
  properties[PROP_API_KEY] =
    g_param_spec_string ("api-key", NULL, NULL, NULL,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterOpenaiProvider:idle-timeout:
   *
   * Seconds without a byte from the server (waiting for the headers or
   * between body reads) after which a call fails with
   * %NATTER_PROVIDER_ERROR_TIMEOUT; 0 waits for ever.
   */
  properties[PROP_IDLE_TIMEOUT] =
    g_param_spec_uint ("idle-timeout", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                       G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterOpenaiProvider:max-event-bytes:
   *
   * The largest Server-Sent Event, and the largest non-streamed body,
   * accepted; 0 means %NATTER_SSE_PARSER_DEFAULT_MAX_EVENT_BYTES.
   */
  properties[PROP_MAX_EVENT_BYTES] =
    g_param_spec_uint64 ("max-event-bytes", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
natter_openai_provider_init (NatterOpenaiProvider *self)
{
  self->completion_token_models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/**
 * natter_openai_provider_encode_request:
 * @self: a provider
 * @composed: the composed request of docs/runtime.md §3:
 *   `{systemPrompt?, messages: [user/assistant/tool messages], tools?:
 *   [tool descriptors], parameters?: {…}}`
 * @model: the model name sent as `model`
 * @error: return location for a #GError
 *
 * Encodes the body of `POST {baseUrl}/chat/completions` (docs/runtime.md §12),
 * purely: no I/O, and no key (the key only ever travels in a header). The body
 * holds, in order: `model`; `messages` (the system prompt first when present
 * and non-empty; user content as a string, text parts joined by a blank line
 * and an attachment as the note "[attachment: filename]"; a user message
 * with attachments read from their blobs, `attachment-text` and
 * `attachment-image` parts, as an array of `{type:"text", text}` and
 * `{type:"image_url", image_url:{url}}` parts in their order; assistant
 * `content` as a string, or null when it only calls tools, its reasoning
 * dropped, `tool_calls` only when there are some, each
 * `{id, type:"function", function:{name, arguments}}` with the arguments
 * serialized to a string, or a malformed call's raw string as it is; tool
 * results as `{role:"tool", tool_call_id, content}` with a string
 * content); `tools` as `{type:"function", function:{name, description,
 * parameters}}`, omitted when there are none; `stream: true` and
 * `stream_options: {include_usage: true}`; then every member of
 * `parameters` except those that would override the members above, the
 * token limit (`max_tokens` or `max_completion_tokens`) under the name
 * this model was last found to accept (`max_tokens` until a server
 * refused it, docs/runtime.md "The token limit").
 *
 * Returns: (transfer full) (nullable): the body object, or %NULL with
 *   %G_IO_ERROR_INVALID_DATA when @composed does not have the shape above
 *   (a message of unknown role — a `system` message included — or a
 *   content part of unknown type, a tool call without id or name).
 */
JsonNode *
natter_openai_provider_encode_request (NatterOpenaiProvider  *self,
                                       JsonObject            *composed,
                                       const char            *model,
                                       GError               **error)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);
  g_return_val_if_fail (composed != NULL, NULL);
  g_return_val_if_fail (model != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return natter_openai_encode_request_with_limit (self, composed, model,
                                                  natter_openai_provider_get_token_limit_name (self, model),
                                                  error);
}

/**
 * natter_openai_provider_new:
 * @provider_id: the provider id of a model descriptor: a configured
 *   provider's id ("ollama") or, for an ad-hoc endpoint, its URL
 * @display_name: (nullable): the name messages use ("Ollama"); %NULL
 *   uses @provider_id
 * @base_url: the API root, e.g. "http://localhost:11434/v1"
 * @api_key: (nullable): the key; %NULL or "" sends no Authorization
 *   header (a local server such as Ollama needs no key, and an empty one
 *   must not become `Bearer `)
 * @idle_timeout_seconds: fail a call after this many seconds without a
 *   byte from the server; 0 never
 * @max_event_bytes: the cap on one Server-Sent Event and on a whole
 *   non-streamed body; 0 for %NATTER_SSE_PARSER_DEFAULT_MAX_EVENT_BYTES
 *
 * Creates an OpenAI-compatible provider owning one #SoupSession
 * (docs/runtime.md §12). The key is only ever put in the Authorization
 * header: it appears in no request body, log line or error message.
 *
 * Returns: (transfer full): a new provider
 */
NatterOpenaiProvider *
natter_openai_provider_new (const char *provider_id,
                            const char *display_name,
                            const char *base_url,
                            const char *api_key,
                            guint       idle_timeout_seconds,
                            gsize       max_event_bytes)
{
  g_return_val_if_fail (provider_id != NULL, NULL);
  g_return_val_if_fail (base_url != NULL, NULL);

  return g_object_new (NATTER_TYPE_OPENAI_PROVIDER,
                       "id", provider_id,
                       "display-name", display_name,
                       "base-url", base_url,
                       "api-key", api_key,
                       "idle-timeout", idle_timeout_seconds,
                       "max-event-bytes", (guint64) max_event_bytes,
                       NULL);
}

/**
 * natter_openai_provider_get_id:
 * @self: a provider
 *
 * Returns: (transfer none): the provider id
 */
const char *
natter_openai_provider_get_id (NatterOpenaiProvider *self)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);

  return self->id;
}

/**
 * natter_openai_provider_get_display_name:
 * @self: a provider
 *
 * Returns: (transfer none): the name messages give the server
 */
const char *
natter_openai_provider_get_display_name (NatterOpenaiProvider *self)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);

  return self->display_name;
}

/**
 * natter_openai_provider_get_base_url:
 * @self: a provider
 *
 * Returns: (transfer none): the API root, without a trailing slash
 */
const char *
natter_openai_provider_get_base_url (NatterOpenaiProvider *self)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);

  return self->base_url;
}

/**
 * natter_openai_provider_get_idle_timeout:
 * @self: a provider
 *
 * Returns: the idle timeout in seconds; 0 for none
 */
guint
natter_openai_provider_get_idle_timeout (NatterOpenaiProvider *self)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), 0);

  return self->idle_timeout;
}

static GBytes *
encode_body (NatterOpenaiProvider  *self,
             JsonObject            *composed,
             const char            *model,
             const char            *limit_name,
             GError               **error)
{
  g_autoptr(JsonNode) request = natter_openai_encode_request_with_limit (self, composed, model, limit_name,
                                                                         error);
  char *text;
  gsize len;

  if (request == NULL)
    return NULL;
  text = natter_json_to_text (request, FALSE, &len);
  return g_bytes_new_take (text, len);
}

/**
 * natter_openai_provider_stream_async:
 * @self: a provider
 * @composed: the composed request (docs/runtime.md §3), as for
 *   natter_openai_provider_encode_request()
 * @model: the model name
 * @stream: a fresh #NatterChatStream, created by the caller, who connects
 *   to its #NatterChatStream::text-delta and
 *   #NatterChatStream::reasoning-delta signals to see the answer live
 * @cancellable: (nullable): cancels the call; the HTTP request is aborted
 *   at once and no delta is emitted after the cancellation
 * @callback: called when the call is over
 * @user_data: data for @callback
 *
 * Streams one model step (docs/runtime.md §12): `POST
 * {baseUrl}/chat/completions` with the encoded request and the
 * Authorization header (when there is a key), and feeds the response into
 * @stream: `text/event-stream` through the Server-Sent Events parser,
 * `application/json` (a server that ignored `stream`) as one body. Deltas
 * are emitted on the thread-default main context of this call. Reading
 * stops at `[DONE]` or the end of the body; natter_chat_stream_finish()
 * has then been called on @stream in every case, so its text, reasoning
 * and tool calls are readable even after a failure.
 *
 * A request with a token limit that the server answers with HTTP 400
 * naming the limit's parameter is sent once more with the limit's other
 * name (`max_tokens`, `max_completion_tokens`), which the model then
 * keeps (docs/runtime.md "The token limit"); nothing reached @stream
 * from the refused request.
 */
void
natter_openai_provider_stream_async (NatterOpenaiProvider *self,
                                     JsonObject           *composed,
                                     const char           *model,
                                     NatterChatStream     *stream,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GBytes) alternate = NULL;
  const char *limit_name;
  const char *alternate_name;

  g_return_if_fail (NATTER_IS_OPENAI_PROVIDER (self));
  g_return_if_fail (composed != NULL);
  g_return_if_fail (model != NULL);
  g_return_if_fail (NATTER_IS_CHAT_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_openai_provider_stream_async);

  limit_name = natter_openai_provider_get_token_limit_name (self, model);
  alternate_name = g_str_equal (limit_name, NATTER_OPENAI_MAX_TOKENS) ? NATTER_OPENAI_MAX_COMPLETION_TOKENS
                                                                      : NATTER_OPENAI_MAX_TOKENS;
  body = encode_body (self, composed, model, limit_name, &error);
  /* The same request with the other name of the token limit, sent once
   * if the server refuses the first (docs/runtime.md "The token limit"). */
  if (body != NULL && natter_openai_request_has_token_limit (composed))
    alternate = encode_body (self, composed, model, alternate_name, &error);
  if (body == NULL || error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  natter_openai_call_start_chat (self, g_steal_pointer (&task), stream, body, model, limit_name,
                                 alternate, alternate != NULL ? alternate_name : NULL, cancellable);
}

/**
 * natter_openai_provider_stream_finish:
 * @self: a provider
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_openai_provider_stream_async(). On success the stream
 * holds the complete step: natter_chat_stream_build_message(), the finish
 * reason and the usage. On failure the stream keeps what arrived.
 *
 * Returns: %TRUE when the model finished its step; %FALSE with an error
 *   whose message names the provider and never contains the key:
 *   %NATTER_PROVIDER_ERROR_UNREACHABLE (refused connection, unknown host,
 *   TLS failure), %NATTER_PROVIDER_ERROR_HTTP (status ≥ 400, with the
 *   server's message; 401/403 say the key was refused or is needed, 429
 *   says when to try again), %NATTER_PROVIDER_ERROR_TIMEOUT (the idle
 *   timeout passed), %NATTER_PROVIDER_ERROR_CANCELLED,
 *   %NATTER_PROVIDER_ERROR_TRUNCATED_STREAM (the connection was lost or
 *   the body ended mid-answer), %NATTER_PROVIDER_ERROR_STREAM_ERROR (the
 *   server reported an error inside the stream),
 *   %NATTER_PROVIDER_ERROR_BAD_RESPONSE (not a chat completion),
 *   %NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE; or %G_IO_ERROR_INVALID_DATA
 *   when the composed request could not be encoded (nothing was sent).
 */
gboolean
natter_openai_provider_stream_finish (NatterOpenaiProvider  *self,
                                      GAsyncResult          *result,
                                      GError               **error)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_openai_provider_stream_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * natter_openai_provider_list_models_async:
 * @self: a provider
 * @cancellable: (nullable): cancels the request at once
 * @callback: called when the list is read
 * @user_data: data for @callback
 *
 * Lists the server's models for the model picker: `GET {baseUrl}/models`
 * (docs/runtime.md §12), reading OpenAI's `{"data":[{"id"}]}` and
 * Ollama's `{"models":[{"name"}]}`. Errors map as for
 * natter_openai_provider_stream_async().
 */
void
natter_openai_provider_list_models_async (NatterOpenaiProvider *self,
                                          GCancellable         *cancellable,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_OPENAI_PROVIDER (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_openai_provider_list_models_async);

  natter_openai_call_start (self, task, NULL, SOUP_METHOD_GET, "/models", NULL, cancellable);
}

/**
 * natter_openai_provider_list_models_finish:
 * @self: a provider
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_openai_provider_list_models_async().
 *
 * Returns: (transfer full) (nullable): the model ids in the server's
 *   order (possibly empty), or %NULL with a %NATTER_PROVIDER_ERROR
 *   (%NATTER_PROVIDER_ERROR_BAD_RESPONSE for a list of an unknown shape)
 */
GStrv
natter_openai_provider_list_models_finish (NatterOpenaiProvider  *self,
                                           GAsyncResult          *result,
                                           GError               **error)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_openai_provider_list_models_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

