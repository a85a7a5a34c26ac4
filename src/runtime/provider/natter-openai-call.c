/* natter-openai-call.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One HTTP call of the OpenAI-compatible provider over libsoup: the
 * request with its headers, an idle timer that fails a silent server, the
 * link to the caller's cancellable, and the body read piece by piece: a
 * Server-Sent Events stream fed to the stream assembler, a JSON body, a
 * stream of JSON lines handed out line by line (Ollama's native API), or
 * the start of an error body for its message.
 */

#define G_LOG_DOMAIN "natter-openai-provider"

#include <string.h>

#include "natter-json.h"
#include "natter-openai-provider-private.h"
#include "natter-sse-parser.h"

/* Bodies are read in pieces of this size: large enough that a fast local
 * server costs few main-loop round trips, small enough that deltas reach
 * the screen as they arrive. */
#define READ_CHUNK_BYTES (16 * 1024)

/* An HTTP error body is only read for its message; a proxy's HTML page or
 * a runaway server must not be read whole. */
#define MAX_ERROR_BODY_BYTES (64 * 1024)

typedef enum
{
  CALL_CHAT,
  CALL_MODELS,
  CALL_JSON,     /* any JSON object, returned as its root node */
  CALL_STATUS,   /* only the status counts; the body is read and dropped */
  CALL_LINES,    /* newline-delimited JSON, each line to a callback */
} CallKind;

typedef enum
{
  BODY_SSE,
  BODY_JSON,
  BODY_ERROR,
  BODY_LINES,
  BODY_DISCARD,
} BodyMode;

/* The state of one request, the task data of both operations. */
typedef struct
{
  CallKind          kind;
  SoupMessage      *msg;
  GInputStream     *body;
  /* Our own cancellable, given to libsoup: the caller's cancellable and
   * the idle timer both cancel it. */
  GCancellable     *cancellable;
  GCancellable     *user_cancellable;
  gulong            user_cancel_id;
  GSource          *idle_source;
  gint64            last_activity;
  gboolean          timed_out;
  gboolean          got_headers;
  gboolean          returned;
  BodyMode          mode;
  GByteArray       *collected;  /* BODY_JSON / BODY_ERROR */
  gsize             collect_limit;
  NatterChatStream *stream;     /* CALL_CHAT */
  NatterSseParser  *parser;     /* CALL_CHAT and BODY_SSE */
  /* CALL_CHAT with a token limit: the request again with the limit's
   * other name, sent once if the server refuses the first name. */
  char             *method;
  GUri             *uri;
  char             *model;
  char             *limit_name;
  GBytes           *alternate_body;
  char             *alternate_limit_name;
  /* CALL_LINES: the line being read, and who gets each whole one. */
  GByteArray       *line;
  NatterOpenaiLineFunc line_func;
  gpointer          line_data;
  /* The request body's type: JSON unless an upload says otherwise. */
  char             *content_type;
} Call;

static void
call_free (gpointer data)
{
  Call *call = data;

  g_assert (call->idle_source == NULL);
  g_assert (call->user_cancel_id == 0);

  g_clear_object (&call->msg);
  g_clear_object (&call->body);
  g_clear_object (&call->cancellable);
  g_clear_object (&call->user_cancellable);
  g_clear_pointer (&call->collected, g_byte_array_unref);
  g_clear_object (&call->stream);
  g_clear_pointer (&call->parser, natter_sse_parser_free);
  g_free (call->method);
  g_clear_pointer (&call->uri, g_uri_unref);
  g_free (call->model);
  g_free (call->limit_name);
  g_clear_pointer (&call->alternate_body, g_bytes_unref);
  g_free (call->alternate_limit_name);
  g_clear_pointer (&call->line, g_byte_array_unref);
  g_free (call->content_type);
  g_free (call);
}

static void
user_cancelled_cb (GCancellable *user_cancellable,
                   gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

static gboolean
idle_source_dispatch (GSource     *source,
                      GSourceFunc  callback,
                      gpointer     user_data)
{
  return callback (user_data);
}

static GSourceFuncs idle_source_funcs = {
  .dispatch = idle_source_dispatch,
};

static gboolean
idle_timeout_cb (gpointer user_data)
{
  GTask *task = user_data;
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  gint64 deadline = call->last_activity + (gint64) self->idle_timeout * G_USEC_PER_SEC;

  /* Activity only moves last_activity; the source is re-armed here, so a
   * fast stream costs no timer work per read. */
  if (g_get_monotonic_time () < deadline)
    {
      g_source_set_ready_time (call->idle_source, deadline);
      return G_SOURCE_CONTINUE;
    }

  g_debug ("%s sent nothing for %u s; aborting the request", self->id, self->idle_timeout);
  call->timed_out = TRUE;
  g_source_set_ready_time (call->idle_source, -1);
  g_cancellable_cancel (call->cancellable);
  return G_SOURCE_CONTINUE;
}

static void
call_touch (Call *call)
{
  call->last_activity = g_get_monotonic_time ();
}

/* Stops the timer and the cancellation link; runs once per call. */
static gboolean
call_settle (GTask *task)
{
  Call *call = g_task_get_task_data (task);

  if (call->returned)
    return FALSE;
  call->returned = TRUE;

  if (call->idle_source != NULL)
    {
      g_source_destroy (call->idle_source);
      g_clear_pointer (&call->idle_source, g_source_unref);
    }
  if (call->user_cancel_id != 0)
    {
      g_cancellable_disconnect (call->user_cancellable, call->user_cancel_id);
      call->user_cancel_id = 0;
    }
  return TRUE;
}

static void
call_return_error (GTask  *task,
                   GError *error)
{
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);

  if (!call_settle (task))
    {
      g_error_free (error);
      return;
    }

  /* Settle the tool calls of what did arrive, so that the partial
   * answer stays readable; its own verdict is not the one reported. */
  if (call->stream != NULL)
    natter_chat_stream_finish (call->stream, NULL);

  g_debug ("%s: call failed (code %d)", self->id, error->code);
  g_task_return_error (task, error);
}

/* Fails the call with what a GIO/libsoup error of the transport means. */
static void
call_return_transport_error (GTask        *task,
                             const GError *error)
{
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);

  call_return_error (task, natter_openai_provider_transport_error (self, call->timed_out,
                                                                   call->got_headers, error));
}

static gboolean
sse_event_cb (const char  *event_name,
              const char  *data,
              gsize        data_len,
              gpointer     user_data,
              GError     **error)
{
  Call *call = user_data;

  /* A delta handler may cancel; the rest of this read must then reach
   * nobody. */
  if (g_cancellable_is_cancelled (call->cancellable))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
      return FALSE;
    }

  return natter_chat_stream_feed_sse_event (call->stream, event_name, data, data_len, error);
}

static void read_next (GTask *task);
static void send_message (NatterOpenaiProvider *self,
                          GTask                *task,
                          GBytes               *body);

static void
parse_models (GTask      *task,
              const char *body,
              gsize       len)
{
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonObject *root;
  JsonNode *list = NULL;
  const char *key = "id";

  if (!natter_json_parser_load_external (parser, body, len, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      call_return_error (task,
                         natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                                       "%s sent a model list that is not JSON",
                                                       self->display_name));
      return;
    }

  root = json_node_get_object (json_parser_get_root (parser));
  list = json_object_get_member (root, "data");
  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    {
      /* Ollama's native /api/tags shape. */
      list = json_object_get_member (root, "models");
      key = "name";
    }
  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    {
      call_return_error (task,
                         natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                                       "%s sent a model list without “data” or “models”",
                                                       self->display_name));
      return;
    }

  for (guint i = 0; i < json_array_get_length (json_node_get_array (list)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (list), i);
      JsonObject *entry = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      const char *name = natter_json_loose_string (entry, key);

      if (name == NULL)
        name = natter_json_loose_string (entry, "model");
      if (name != NULL && name[0] != '\0')
        g_strv_builder_add (builder, name);
    }

  call_settle (task);
  g_task_return_pointer (task, g_strv_builder_end (builder), (GDestroyNotify) g_strfreev);
}

static void
parse_json (GTask      *task,
            const char *body,
            gsize       len)
{
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (!natter_json_parser_load_external (parser, body, len, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      call_return_error (task,
                         natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                                       "%s sent an answer that is not a JSON object",
                                                       self->display_name));
      return;
    }
  call_settle (task);
  g_task_return_pointer (task, json_parser_steal_root (parser), (GDestroyNotify) json_node_unref);
}

/* Hands the line read so far to the line function; blank lines (a
 * server's keep-alive) are skipped. Returns FALSE when the call ended. */
static gboolean
deliver_line (GTask *task)
{
  Call *call = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  gsize len = call->line->len;
  const char *text = (const char *) call->line->data;
  gboolean blank = TRUE;

  if (len > 0 && text[len - 1] == '\r')
    len--;
  for (gsize i = 0; i < len && blank; i++)
    blank = g_ascii_isspace (text[i]);
  if (!blank)
    {
      /* A handler may cancel; the rest of this read must then reach
       * nobody. */
      if (g_cancellable_is_cancelled (call->cancellable))
        g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
      else
        call->line_func (text, len, call->line_data, &error);
      if (error != NULL)
        {
          g_byte_array_set_size (call->line, 0);
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            call_return_transport_error (task, error);
          else
            call_return_error (task, g_steal_pointer (&error));
          return FALSE;
        }
    }
  g_byte_array_set_size (call->line, 0);
  return TRUE;
}

/* Splits a piece of a JSON-lines body into lines. Returns FALSE when the
 * call ended. */
static gboolean
feed_lines (GTask        *task,
            const guint8 *data,
            gsize         len)
{
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);

  while (len > 0)
    {
      const guint8 *newline = memchr (data, '\n', len);
      gsize take = newline != NULL ? (gsize) (newline - data) : len;

      if (call->line->len + take > self->max_event_bytes)
        {
          call_return_error (task,
                             natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE,
                                                           "%s sent a line longer than the limit of %"
                                                           G_GSIZE_FORMAT " bytes",
                                                           self->display_name, self->max_event_bytes));
          return FALSE;
        }
      g_byte_array_append (call->line, data, take);
      if (newline == NULL)
        return TRUE;
      if (!deliver_line (task))
        return FALSE;
      data += take + 1;
      len -= take + 1;
    }
  return TRUE;
}

/* The whole body is in (or the read failed): decide the outcome. */
static void
finish_body (GTask *task)
{
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  switch (call->mode)
    {
    case BODY_ERROR:
      if (call->alternate_body != NULL && soup_message_get_status (call->msg) == SOUP_STATUS_BAD_REQUEST &&
          natter_openai_error_body_refuses_parameter ((const char *) call->collected->data,
                                                      call->collected->len, call->limit_name))
        {
          g_autoptr(GBytes) alternate = g_steal_pointer (&call->alternate_body);

          /* Nothing of the refused request reached the stream. */
          g_debug ("%s refused “%s” for %s; sending “%s” instead", self->id, call->limit_name, call->model,
                   call->alternate_limit_name);
          natter_openai_provider_remember_token_limit_name (self, call->model, call->alternate_limit_name);
          g_clear_object (&call->msg);
          g_clear_object (&call->body);
          g_clear_pointer (&call->collected, g_byte_array_unref);
          call->got_headers = FALSE;
          call_touch (call);
          send_message (self, g_object_ref (task), alternate);
          return;
        }
      call_return_error (task, natter_openai_provider_http_error (self, call->msg,
                                           (const char *) call->collected->data,
                                           call->collected->len));
      return;

    case BODY_JSON:
      if (call->kind == CALL_JSON)
        {
          parse_json (task, (const char *) call->collected->data, call->collected->len);
          return;
        }
      if (call->kind == CALL_MODELS)
        {
          parse_models (task, (const char *) call->collected->data, call->collected->len);
          return;
        }
      if (!natter_chat_stream_feed_json_body (call->stream,
                                              (const char *) call->collected->data,
                                              call->collected->len, &error))
        {
          call_return_error (task, natter_openai_provider_stream_error (self, error));
          return;
        }
      break;

    case BODY_SSE:
      /* A partial trailing event is dropped by the standard; whether the
       * answer is complete is the assembler's call. */
      natter_sse_parser_finish (call->parser, NULL);
      break;

    case BODY_LINES:
      /* The last line may come without its newline. */
      if (call->line->len > 0 && !deliver_line (task))
        return;
      if (call_settle (task))
        g_task_return_boolean (task, TRUE);
      return;

    case BODY_DISCARD:
      if (call_settle (task))
        g_task_return_boolean (task, TRUE);
      return;

    default:
      g_assert_not_reached ();
    }

  if (!call_settle (task))
    return;

  if (!natter_chat_stream_finish (call->stream, &error))
    {
      g_debug ("%s: the answer ended early", self->id);
      g_task_return_error (task, natter_openai_provider_stream_error (self, error));
      return;
    }

  g_task_return_boolean (task, TRUE);
}

static void
read_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const guint8 *data;
  gsize len;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);

  if (call->returned)
    return;

  /* Bytes that raced with a cancellation are dropped: after a cancel no
   * delta may reach a listener. */
  if (bytes != NULL && g_cancellable_is_cancelled (call->cancellable))
    {
      g_clear_pointer (&bytes, g_bytes_unref);
      g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
    }

  if (bytes == NULL)
    {
      /* Once `[DONE]` was read the answer is whole; a server that then
       * hangs or drops the connection has not lost anything. */
      if (call->kind == CALL_CHAT && call->mode == BODY_SSE
          && natter_chat_stream_get_done (call->stream)
          && !(g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && !call->timed_out))
        {
          finish_body (task);
          return;
        }
      if (call->mode == BODY_ERROR && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* The status says enough even if the body was cut. */
          finish_body (task);
          return;
        }
      /* A server that writes its failure reason and then drops the
       * connection: the reason may still sit unterminated in the parser,
       * and it says more than "the connection was lost". */
      if (call->kind == CALL_CHAT && call->mode == BODY_SSE
          && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autoptr(GError) reported = NULL;

          if (!natter_sse_parser_finish (call->parser, &reported)
              && g_error_matches (reported, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR))
            {
              call_return_error (task, natter_openai_provider_stream_error (self, reported));
              return;
            }
        }
      call_return_transport_error (task, error);
      return;
    }

  call_touch (call);
  data = g_bytes_get_data (bytes, &len);

  if (len == 0)
    {
      finish_body (task);
      return;
    }

  switch (call->mode)
    {
    case BODY_SSE:
      if (!natter_sse_parser_feed (call->parser, data, len, &error))
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            call_return_transport_error (task, error);
          else
            call_return_error (task, natter_openai_provider_stream_error (self, error));
          return;
        }
      break;

    case BODY_ERROR:
      g_byte_array_append (call->collected, data, MIN (len, call->collect_limit - call->collected->len));
      if (call->collected->len >= call->collect_limit)
        {
          finish_body (task);
          return;
        }
      break;

    case BODY_LINES:
      if (!feed_lines (task, data, len))
        return;
      break;

    case BODY_DISCARD:
      break;

    case BODY_JSON:
      if (call->collected->len + len > call->collect_limit)
        {
          call_return_error (task,
                             natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE,
                                                           "%s sent a response larger than the limit of %"
                                                           G_GSIZE_FORMAT " bytes",
                                                           self->display_name, call->collect_limit));
          return;
        }
      g_byte_array_append (call->collected, data, len);
      break;

    default:
      g_assert_not_reached ();
    }

  read_next (g_steal_pointer (&task));
}

static void
read_next (GTask *task)
{
  Call *call = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (call->body, READ_CHUNK_BYTES, G_PRIORITY_DEFAULT,
                                   call->cancellable, read_cb, task);
}

static gboolean
is_json_type (const char *type)
{
  return g_ascii_strcasecmp (type, "application/json") == 0
         || (strlen (type) > 5 && g_ascii_strcasecmp (type + strlen (type) - 5, "+json") == 0);
}

static void
send_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers;
  const char *type;
  guint status;

  call->body = soup_session_send_finish (SOUP_SESSION (source), result, &error);

  if (call->returned)
    return;

  if (call->body == NULL)
    {
      call_return_transport_error (task, error);
      return;
    }

  call->got_headers = TRUE;
  call_touch (call);

  status = soup_message_get_status (call->msg);
  headers = soup_message_get_response_headers (call->msg);
  type = soup_message_headers_get_content_type (headers, NULL);

  g_debug ("%s: HTTP %u, %s", self->id, status, type != NULL ? type : "no content type");

  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      call->mode = BODY_ERROR;
      call->collected = g_byte_array_new ();
      call->collect_limit = MAX_ERROR_BODY_BYTES;
    }
  else if (call->kind == CALL_STATUS)
    {
      call->mode = BODY_DISCARD;
    }
  else if (call->kind == CALL_LINES)
    {
      call->mode = BODY_LINES;
      call->line = g_byte_array_new ();
    }
  else if (call->kind == CALL_MODELS || call->kind == CALL_JSON)
    {
      call->mode = BODY_JSON;
      call->collected = g_byte_array_new ();
      call->collect_limit = self->max_event_bytes;
    }
  else if (type != NULL && g_ascii_strcasecmp (type, "text/event-stream") == 0)
    {
      call->mode = BODY_SSE;
      call->parser = natter_sse_parser_new (self->max_event_bytes, sse_event_cb, call, NULL);
    }
  else if (type != NULL && is_json_type (type))
    {
      /* A server that ignored "stream": true. */
      call->mode = BODY_JSON;
      call->collected = g_byte_array_new ();
      call->collect_limit = self->max_event_bytes;
    }
  else
    {
      g_autofree char *quoted = type != NULL ? natter_openai_quote_server_text (type, -1) : NULL;

      call_return_error (task,
                         natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                                       "%s answered with %s%s%s instead of a chat completion",
                                                       self->display_name,
                                                       quoted != NULL ? "“" : "no content type",
                                                       quoted != NULL ? quoted : "",
                                                       quoted != NULL ? "” content" : ""));
      return;
    }

  read_next (g_steal_pointer (&task));
}

/* Sends the call's request with @body; its response goes to send_cb().
 * Takes @task's reference. */
static void
send_message (NatterOpenaiProvider *self,
              GTask                *task,
              GBytes               *body)
{
  Call *call = g_task_get_task_data (task);
  SoupMessageHeaders *headers;

  call->msg = soup_message_new_from_uri (call->method, call->uri);
  headers = soup_message_get_request_headers (call->msg);
  soup_message_headers_replace (headers, "Accept",
                                call->kind == CALL_CHAT ? "text/event-stream, application/json"
                                : call->kind == CALL_LINES ? "application/x-ndjson, application/json"
                                : "application/json");
  if (self->api_key != NULL)
    {
      g_autofree char *authorization = g_strconcat ("Bearer ", self->api_key, NULL);

      soup_message_headers_replace (headers, "Authorization", authorization);
    }
  if (body != NULL)
    soup_message_set_request_body_from_bytes (call->msg,
                                              call->content_type != NULL ? call->content_type : "application/json",
                                              body);

  soup_session_send_async (self->session, call->msg, G_PRIORITY_DEFAULT,
                           call->cancellable, send_cb, task);
}

/* What a call has beyond its method, URL and body: for a chat call, what
 * it sends again, once, if the server refuses the name of its token
 * limit; for a JSON-lines call, who reads the lines; for an upload, its
 * body's type. */
typedef struct
{
  const char           *model;
  const char           *limit_name;
  GBytes               *alternate_body;
  const char           *alternate_limit_name;
  NatterOpenaiLineFunc  line_func;
  gpointer              line_data;
  const char           *content_type;
} Extras;

static void
call_start_url (NatterOpenaiProvider *self,
                GTask                *task,
                CallKind              kind,
                NatterChatStream     *stream,
                const char           *method,
                const char           *url,
                const char           *path,
                GBytes               *body,
                const Extras         *extras,
                GCancellable         *cancellable)
{
  g_autoptr(GUri) uri = g_uri_parse (url, SOUP_HTTP_URI_FLAGS, NULL);
  Call *call = g_new0 (Call, 1);

  call->kind = kind;
  if (stream != NULL)
    call->stream = g_object_ref (stream);
  if (extras != NULL && extras->alternate_body != NULL)
    {
      call->model = g_strdup (extras->model);
      call->limit_name = g_strdup (extras->limit_name);
      call->alternate_body = g_bytes_ref (extras->alternate_body);
      call->alternate_limit_name = g_strdup (extras->alternate_limit_name);
    }
  if (extras != NULL)
    {
      call->line_func = extras->line_func;
      call->line_data = extras->line_data;
      call->content_type = g_strdup (extras->content_type);
    }
  call->cancellable = g_cancellable_new ();
  g_task_set_task_data (task, call, call_free);
  /* Cancellation is reported as NATTER_PROVIDER_ERROR_CANCELLED, not as
   * GTask's G_IO_ERROR_CANCELLED. */
  g_task_set_check_cancellable (task, FALSE);

  if (uri == NULL
      || (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0
          && g_strcmp0 (g_uri_get_scheme (uri), "https") != 0))
    {
      call_return_error (task,
                         natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_UNREACHABLE,
                                                       "The address of %s (%s) is not an http or https URL",
                                                       self->display_name, self->display_base));
      g_object_unref (task);
      return;
    }

  call->method = g_strdup (method);
  call->uri = g_uri_ref (uri);

  if (cancellable != NULL)
    {
      call->user_cancellable = g_object_ref (cancellable);
      /* Runs at once if already cancelled; libsoup then fails promptly. */
      call->user_cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (user_cancelled_cb),
                                                    g_object_ref (call->cancellable),
                                                    g_object_unref);
    }

  if (self->idle_timeout > 0)
    {
      call->idle_source = g_source_new (&idle_source_funcs, sizeof (GSource));
      g_source_set_name (call->idle_source, "[natter] provider idle timeout");
      g_source_set_callback (call->idle_source, idle_timeout_cb, task, NULL);
      g_source_set_ready_time (call->idle_source,
                               g_get_monotonic_time ()
                               + (gint64) self->idle_timeout * G_USEC_PER_SEC);
      g_source_attach (call->idle_source, g_task_get_context (task));
    }
  call_touch (call);

  g_debug ("%s: %s %s%s", self->id, method, self->display_base, path != NULL ? path : g_uri_get_path (uri));

  send_message (self, task, body);
}

/**
 * natter_openai_call_start:
 * @self: a provider
 * @task: (transfer full): the task of the operation; the call becomes its
 *   task data and returns through it
 * @stream: (nullable): the stream assembler of a chat completion, or
 *   %NULL for the model list
 * @method: the HTTP method
 * @path: the path below the base URL, with its leading '/'
 * @body: (nullable): the JSON request body
 * @cancellable: (nullable): the caller's cancellable
 *
 * Starts one HTTP call. A chat call returns a boolean through @task once
 * @stream holds the answer; a model list call returns a #GStrv. Either
 * fails with a %NATTER_PROVIDER_ERROR.
 */
void
natter_openai_call_start (NatterOpenaiProvider *self,
                          GTask                *task,
                          NatterChatStream     *stream,
                          const char           *method,
                          const char           *path,
                          GBytes               *body,
                          GCancellable         *cancellable)
{
  g_autofree char *url = g_strconcat (self->base_url, path, NULL);

  call_start_url (self, task, stream != NULL ? CALL_CHAT : CALL_MODELS, stream, method, url, path, body,
                  NULL, cancellable);
}

/**
 * natter_openai_call_start_chat:
 * @self: a provider
 * @task: (transfer full): the task of the operation
 * @stream: the stream assembler of the chat completion
 * @body: the JSON request body
 * @model: the model it asks
 * @limit_name: (nullable): the name @body gives its token limit, if any
 * @alternate_body: (nullable): @body with the token limit under its other
 *   name, %NULL when @body has no token limit
 * @alternate_limit_name: (nullable): that other name
 * @cancellable: (nullable): the caller's cancellable
 *
 * natter_openai_call_start() of `POST /chat/completions`, which sends
 * @alternate_body once when the server answers HTTP 400 refusing
 * @limit_name (natter_openai_error_body_refuses_parameter()), and then
 * remembers the other name for @model.
 */
void
natter_openai_call_start_chat (NatterOpenaiProvider *self,
                               GTask                *task,
                               NatterChatStream     *stream,
                               GBytes               *body,
                               const char           *model,
                               const char           *limit_name,
                               GBytes               *alternate_body,
                               const char           *alternate_limit_name,
                               GCancellable         *cancellable)
{
  g_autofree char *url = g_strconcat (self->base_url, "/chat/completions", NULL);
  Extras extras = { model, limit_name, alternate_body, alternate_limit_name, NULL, NULL, NULL };

  g_assert (stream != NULL);
  g_assert ((alternate_body == NULL) == (alternate_limit_name == NULL));

  call_start_url (self, task, CALL_CHAT, stream, SOUP_METHOD_POST, url, "/chat/completions", body,
                  &extras, cancellable);
}

/**
 * natter_openai_call_start_json:
 * @self: a provider
 * @task: (transfer full): the task of the operation
 * @method: the HTTP method
 * @url: the whole URL (a server's native API may live beside the base URL)
 * @body: (nullable): the JSON request body
 * @cancellable: (nullable): the caller's cancellable
 *
 * Starts one HTTP call whose answer is a JSON object: @task returns its
 * root #JsonNode (transfer full), or a %NATTER_PROVIDER_ERROR as the
 * other calls do.
 */
void
natter_openai_call_start_json (NatterOpenaiProvider *self,
                               GTask                *task,
                               const char           *method,
                               const char           *url,
                               GBytes               *body,
                               GCancellable         *cancellable)
{
  call_start_url (self, task, CALL_JSON, NULL, method, url, NULL, body, NULL, cancellable);
}

/**
 * natter_openai_call_start_status:
 * @self: a provider
 * @task: (transfer full): the task of the operation
 * @method: the HTTP method
 * @url: the whole URL
 * @body: (nullable): the JSON request body
 * @cancellable: (nullable): the caller's cancellable
 *
 * Starts one HTTP call whose answer says everything by its status (a
 * DELETE): @task returns %TRUE for a 2xx status, whatever the body, or a
 * %NATTER_PROVIDER_ERROR as the other calls do.
 */
void
natter_openai_call_start_status (NatterOpenaiProvider *self,
                                 GTask                *task,
                                 const char           *method,
                                 const char           *url,
                                 GBytes               *body,
                                 GCancellable         *cancellable)
{
  call_start_url (self, task, CALL_STATUS, NULL, method, url, NULL, body, NULL, cancellable);
}

/**
 * natter_openai_call_start_lines:
 * @self: a provider
 * @task: (transfer full): the task of the operation
 * @method: the HTTP method
 * @url: the whole URL
 * @body: (nullable): the JSON request body
 * @line_func: (scope call): called on the main context with each line of
 *   the body (without its newline), in order; blank lines are skipped
 * @line_data: data for @line_func
 * @cancellable: (nullable): the caller's cancellable
 *
 * Starts one HTTP call whose answer is newline-delimited JSON, read as
 * it arrives (Ollama's streamed `/api/pull`). A line longer than the
 * provider's max-event-bytes fails the call with
 * %NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE; a line function that sets an
 * error ends the call with that error. @task returns %TRUE when the
 * body ended, or a %NATTER_PROVIDER_ERROR as the other calls do (a
 * connection lost after the headers is
 * %NATTER_PROVIDER_ERROR_TRUNCATED_STREAM). No line reaches @line_func
 * after a cancellation.
 */
void
natter_openai_call_start_lines (NatterOpenaiProvider *self,
                                GTask                *task,
                                const char           *method,
                                const char           *url,
                                GBytes               *body,
                                NatterOpenaiLineFunc  line_func,
                                gpointer              line_data,
                                GCancellable         *cancellable)
{
  Extras extras = { NULL, NULL, NULL, NULL, line_func, line_data, NULL };

  g_assert (line_func != NULL);
  call_start_url (self, task, CALL_LINES, NULL, method, url, NULL, body, &extras, cancellable);
}

/**
 * natter_openai_call_start_upload:
 * @self: a provider
 * @task: (transfer full): the task of the operation
 * @url: the whole URL
 * @content_type: the body's type, e.g. a multipart form's with its
 *   boundary
 * @body: the request body
 * @cancellable: (nullable): the caller's cancellable
 *
 * natter_openai_call_start_json() of a `POST` whose body is not JSON (an
 * audio file in a form): @task returns the answer's root #JsonNode
 * (transfer full), or a %NATTER_PROVIDER_ERROR as the other calls do.
 */
void
natter_openai_call_start_upload (NatterOpenaiProvider *self,
                                 GTask                *task,
                                 const char           *url,
                                 const char           *content_type,
                                 GBytes               *body,
                                 GCancellable         *cancellable)
{
  Extras extras = { NULL, NULL, NULL, NULL, NULL, NULL, content_type };

  g_assert (content_type != NULL);
  call_start_url (self, task, CALL_JSON, NULL, SOUP_METHOD_POST, url, NULL, body, &extras, cancellable);
}

/**
 * natter_openai_call_get_status:
 * @result: the task a natter_openai_call_start_*() call returned to
 *
 * The HTTP status the server answered a call with, so that a caller can
 * word what a status means for its own operation (a model the server
 * does not have, for Ollama's 404).
 *
 * Returns: the status, or 0 when no answer came
 */
guint
natter_openai_call_get_status (GAsyncResult *result)
{
  Call *call = g_task_get_task_data (G_TASK (result));

  return call != NULL && call->msg != NULL ? soup_message_get_status (call->msg) : 0;
}
