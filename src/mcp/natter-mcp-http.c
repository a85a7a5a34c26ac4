/* natter-mcp-http.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Streamable HTTP transport of the Model Context Protocol (MCP
 * 2025-11-25, Transports): every message is one POST to the server's
 * endpoint; a request's answer comes back as a JSON body or as a stream
 * of Server-Sent Events (read with the project's SSE parser) that may
 * carry notifications before the answer. The server's session id and
 * the negotiated protocol version go back on every later POST. Once the
 * version is agreed, a GET opens the server's listening stream (when it
 * has one; 405 says it has none) for what it sends unasked, above all
 * `notifications/tools/list_changed`.
 */

#define G_LOG_DOMAIN "natter-mcp"

#include <libsoup/soup.h>

#include "natter-error-words.h"
#include "natter-json.h"
#include "natter-mcp-error.h"
#include "natter-mcp-transport-private.h"
#include "natter-sse-parser.h"

#define READ_CHUNK_BYTES (16 * 1024)
/* A JSON answer larger than this is refused rather than read whole. */
#define MAX_JSON_BYTES ((gsize) 16 * 1024 * 1024)

typedef struct
{
  NatterMcpTransport  parent;
  char               *name;
  char               *url;
  JsonObject         *headers;
  SoupSession        *session;
  char               *session_id;
  char               *version;
  GHashTable         *posts;      /* request id → Post, requests only */
  GPtrArray          *all_posts;  /* every Post in flight */
  /* POSTs travel independently, so a notification (above all
   * `notifications/initialized`) could overtake nothing but be overtaken
   * by the next request; messages wait here until it is accepted. */
  guint               blockers;   /* notifications in flight, a listening GET not yet answered */
  GQueue              held;       /* HeldMessage */
  gboolean            listening;  /* a listening GET is open or being opened */
  gboolean            no_listen;  /* the server has no listening stream */
  guint               relisten_id;
} Http;

/* A listening stream that ended is opened again after this long. */
#define RELISTEN_DELAY_S 1
/* A server that is slow to answer the listening GET does not hold the
 * other messages back longer than this. */
#define LISTEN_GRACE_MS 2000

/* What a Post is: a request (id >= 0), a notification or response, or
 * the listening GET. */
#define POST_NOTIFICATION ((gint64) -1)
#define POST_LISTEN ((gint64) -2)

typedef struct
{
  JsonNode *message;
  gint64    id;
} HeldMessage;

typedef struct
{
  Http             *http;     /* a reference */
  gint64            id;       /* -1 for a notification */
  SoupMessage      *msg;
  GCancellable     *cancellable;
  GInputStream     *body;
  NatterSseParser  *parser;   /* an event stream */
  GByteArray       *collected; /* a JSON body */
  gboolean          blocking; /* later messages wait for this one */
  guint             grace_id; /* the listening GET: when to stop waiting for it */
} Post;

static void
http_clear (gpointer data)
{
  Http *self = data;

  g_free (self->name);
  g_free (self->url);
  g_clear_pointer (&self->headers, json_object_unref);
  g_clear_object (&self->session);
  g_free (self->session_id);
  g_free (self->version);
  g_clear_handle_id (&self->relisten_id, g_source_remove);
  g_hash_table_unref (self->posts);
  g_ptr_array_unref (self->all_posts);
  while (!g_queue_is_empty (&self->held))
    {
      HeldMessage *held = g_queue_pop_head (&self->held);

      json_node_unref (held->message);
      g_free (held);
    }
}

static Http *
http_ref (Http *self)
{
  return g_rc_box_acquire (self);
}

static void
http_unref (Http *self)
{
  g_rc_box_release_full (self, http_clear);
}

static void post_now (Http *self, JsonNode *message, gint64 request_id);
static void listen_later (Http *self);

/* @post no longer holds back the messages sent after it: they go. */
static void
post_unblock (Post *post)
{
  Http *http = post->http;

  g_clear_handle_id (&post->grace_id, g_source_remove);
  if (!post->blocking)
    return;
  post->blocking = FALSE;
  if (--http->blockers == 0)
    while (!http->parent.closed && http->blockers == 0 && !g_queue_is_empty (&http->held))
      {
        HeldMessage *held = g_queue_pop_head (&http->held);

        post_now (http, held->message, held->id);
        json_node_unref (held->message);
        g_free (held);
      }
}

static void
post_free (Post *post)
{
  Http *http = post->http;

  post_unblock (post);
  if (post->id == POST_LISTEN)
    {
      http->listening = FALSE;
      listen_later (http);
    }
  if (post->id >= 0 && g_hash_table_lookup (post->http->posts, &post->id) == post)
    g_hash_table_remove (post->http->posts, &post->id);
  g_ptr_array_remove_fast (post->http->all_posts, post);
  g_clear_object (&post->msg);
  g_clear_object (&post->cancellable);
  g_clear_object (&post->body);
  g_clear_pointer (&post->parser, natter_sse_parser_free);
  if (post->collected != NULL)
    g_byte_array_unref (post->collected);
  http_unref (post->http);
  g_free (post);
}

/* The exchange is over: tell the client a request lost its answer (it
 * ignores this when the answer came), then forget the POST. */
static void
post_end (Post         *post,
          const GError *error)
{
  Http *http = post->http;

  if (!http->parent.closed && post->id >= 0)
    http->parent.callbacks->request_end (post->id, error, http->parent.user_data);
  post_free (post);
}

static gboolean
sse_event_cb (const char  *event_name,
              const char  *data,
              gsize        data_len,
              gpointer     user_data,
              GError     **error)
{
  Post *post = user_data;

  /* Events of other types and empty priming events carry no message. */
  if (data_len == 0 || (event_name != NULL && !g_str_equal (event_name, "message")))
    return TRUE;
  return natter_mcp_transport_deliver_text (&post->http->parent, data, data_len, error);
}

static void read_next (Post *post);

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Post *post = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gsize size;
  const guint8 *data;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (post->http->parent.closed)
    {
      post_free (post);
      return;
    }
  if (bytes == NULL)
    {
      g_prefix_error (&error, "Reading the answer of tool server “%s”: ", post->http->name);
      post_end (post, error);
      return;
    }
  data = g_bytes_get_data (bytes, &size);
  if (size == 0)
    {
      if (post->parser != NULL && !natter_sse_parser_finish (post->parser, &error))
        post_end (post, error);
      else if (post->collected != NULL
               && !natter_mcp_transport_deliver_text (&post->http->parent, (const char *) post->collected->data,
                                                      post->collected->len, &error))
        post_end (post, error);
      else
        post_end (post, NULL);
      return;
    }
  if (post->parser != NULL && !natter_sse_parser_feed (post->parser, data, size, &error))
    {
      post_end (post, error);
      return;
    }
  if (post->collected != NULL)
    {
      if (post->collected->len + size > MAX_JSON_BYTES)
        {
          error = g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_PROTOCOL,
                               "Tool server “%s” sent an answer larger than 16 MiB", post->http->name);
          post_end (post, error);
          return;
        }
      g_byte_array_append (post->collected, data, size);
    }
  read_next (post);
}

static void
read_next (Post *post)
{
  if (post->http->parent.closed)
    {
      post_free (post);
      return;
    }
  g_input_stream_read_bytes_async (post->body, READ_CHUNK_BYTES, G_PRIORITY_DEFAULT, post->cancellable,
                                   read_cb, post);
}

/* The answer to the listening GET: an event stream to read, or the
 * server has none (405, or anything else that is not a stream: the
 * server still works, it only cannot speak unasked). */
static gboolean
check_listen_answer (Post       *post,
                     guint       status,
                     const char *type)
{
  Http *http = post->http;

  post_unblock (post);
  if (SOUP_STATUS_IS_SUCCESSFUL (status) && g_strcmp0 (type, "text/event-stream") == 0)
    {
      post->parser = natter_sse_parser_new (0, sse_event_cb, post, NULL);
      return TRUE;
    }
  if (status != SOUP_STATUS_METHOD_NOT_ALLOWED)
    g_debug ("tool server %s: no listening stream (HTTP %u, %s)", http->name, status,
             type != NULL ? type : "no content type");
  http->no_listen = TRUE;
  post_free (post);
  return FALSE;
}

/* Checks the status and headers of an answer; FALSE (the POST is ended
 * or the transport dead) when there is no body to read. */
static gboolean
check_answer (Post *post)
{
  Http *http = post->http;
  SoupMessageHeaders *headers = soup_message_get_response_headers (post->msg);
  guint status = soup_message_get_status (post->msg);
  const char *session_id = soup_message_headers_get_one (headers, "Mcp-Session-Id");
  const char *type = soup_message_headers_get_content_type (headers, NULL);
  g_autoptr(GError) error = NULL;

  if (session_id != NULL && http->session_id == NULL)
    http->session_id = g_strdup (session_id);
  if (post->id == POST_LISTEN)
    return check_listen_answer (post, status, type);
  if (status == SOUP_STATUS_NOT_FOUND && http->session_id != NULL)
    {
      /* The server forgot the session: start again on the next call. */
      error = g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_CLOSED,
                           "Tool server “%s” ended the session", http->name);
      natter_mcp_transport_die (&http->parent, error);
      post_free (post);
      return FALSE;
    }
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      error = g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_HTTP, "Tool server “%s” answered HTTP %u %s",
                           http->name, status, soup_message_get_reason_phrase (post->msg));
      post_end (post, error);
      return FALSE;
    }
  if (status == SOUP_STATUS_ACCEPTED || post->id == POST_NOTIFICATION)
    {
      post_end (post, NULL);
      return FALSE;
    }
  if (g_strcmp0 (type, "text/event-stream") == 0)
    post->parser = natter_sse_parser_new (0, sse_event_cb, post, NULL);
  else if (g_strcmp0 (type, "application/json") == 0)
    post->collected = g_byte_array_new ();
  else
    {
      error = g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_PROTOCOL,
                           "Tool server “%s” answered with “%s”, neither JSON nor an event stream",
                           http->name, type != NULL ? type : "no content type");
      post_end (post, error);
      return FALSE;
    }
  return TRUE;
}

static void
sent_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Post *post = user_data;
  g_autoptr(GError) error = NULL;

  post->body = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (post->http->parent.closed)
    {
      post_free (post);
      return;
    }
  if (post->body == NULL && post->id == POST_LISTEN)
    {
      /* Unreachable for the GET: the next POST says so for real. */
      g_debug ("tool server %s: no listening stream: %s", post->http->name, error->message);
      post->http->no_listen = TRUE;
      post_free (post);
      return;
    }
  if (post->body == NULL)
    {
      g_autoptr(GError) start_error = NULL;
      /* In Natter's untranslated words, as natter-mcp-stdio.c says. */
      g_autofree char *reason = natter_error_reason (error);

      start_error = g_error_new (NATTER_MCP_ERROR, g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                                 ? NATTER_MCP_ERROR_CLOSED : NATTER_MCP_ERROR_START,
                                 "Cannot reach tool server “%s”: %s", post->http->name, reason);
      post_end (post, start_error);
      return;
    }
  if (check_answer (post))
    read_next (post);
}

static void
add_headers (Http        *self,
             SoupMessage *msg)
{
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  g_autoptr(GList) names = NULL;

  if (self->headers != NULL)
    names = json_object_get_members (self->headers);
  for (GList *l = names; l != NULL; l = l->next)
    soup_message_headers_replace (headers, l->data, json_object_get_string_member (self->headers, l->data));
  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  if (self->session_id != NULL)
    soup_message_headers_replace (headers, "Mcp-Session-Id", self->session_id);
  if (self->version != NULL)
    soup_message_headers_replace (headers, "MCP-Protocol-Version", self->version);
}

static void
post_now (Http     *self,
          JsonNode *message,
          gint64    request_id)
{
  g_autoptr(GBytes) body = NULL;
  char *text;
  gsize length;
  Post *post;

  text = natter_json_to_text (message, FALSE, &length);
  body = g_bytes_new_take (text, length);

  post = g_new0 (Post, 1);
  post->http = http_ref (self);
  post->id = request_id;
  post->msg = soup_message_new (SOUP_METHOD_POST, self->url);
  post->cancellable = g_cancellable_new ();
  g_ptr_array_add (self->all_posts, post);
  if (request_id >= 0)
    g_hash_table_insert (self->posts, &post->id, post);
  else
    {
      post->blocking = TRUE;
      self->blockers++;
    }
  add_headers (self, post->msg);
  soup_message_set_request_body_from_bytes (post->msg, "application/json", body);
  soup_session_send_async (self->session, post->msg, G_PRIORITY_DEFAULT, post->cancellable, sent_cb, post);
}

static void
http_send (NatterMcpTransport *transport,
           JsonNode           *message,
           gint64              request_id)
{
  Http *self = (Http *) transport;

  if (self->blockers > 0)
    {
      HeldMessage *held = g_new0 (HeldMessage, 1);

      held->message = json_node_copy (message);
      held->id = request_id;
      g_queue_push_tail (&self->held, held);
      return;
    }
  post_now (self, message, request_id);
}

static void
http_abort_request (NatterMcpTransport *transport,
                    gint64              request_id)
{
  Http *self = (Http *) transport;
  Post *post = g_hash_table_lookup (self->posts, &request_id);

  /* Closing the request's stream also tells the server to stop. */
  if (post != NULL)
    g_cancellable_cancel (post->cancellable);
}

static gboolean
listen_grace_cb (gpointer user_data)
{
  Post *post = user_data;

  post->grace_id = 0;
  post_unblock (post);
  return G_SOURCE_REMOVE;
}

/* Opens the listening stream: a GET with the session. Until the server
 * answers it, later messages wait, so that what the server says unasked
 * right after `notifications/initialized` (a list that grew as it
 * learned the client) has a stream to go to. */
static void
listen_now (Http *self)
{
  Post *post;

  if (self->parent.closed || self->listening || self->no_listen)
    return;
  post = g_new0 (Post, 1);
  post->http = http_ref (self);
  post->id = POST_LISTEN;
  post->msg = soup_message_new (SOUP_METHOD_GET, self->url);
  post->cancellable = g_cancellable_new ();
  post->blocking = TRUE;
  post->grace_id = g_timeout_add (LISTEN_GRACE_MS, listen_grace_cb, post);
  self->blockers++;
  self->listening = TRUE;
  g_ptr_array_add (self->all_posts, post);
  add_headers (self, post->msg);
  soup_message_headers_replace (soup_message_get_request_headers (post->msg), "Accept", "text/event-stream");
  soup_session_send_async (self->session, post->msg, G_PRIORITY_DEFAULT, post->cancellable, sent_cb, post);
}

static gboolean
relisten_cb (gpointer user_data)
{
  Http *self = user_data;

  self->relisten_id = 0;
  listen_now (self);
  return G_SOURCE_REMOVE;
}

/* The server may end its listening stream at any time; while it has
 * one, it is opened again. */
static void
listen_later (Http *self)
{
  if (self->parent.closed || self->no_listen || self->version == NULL || self->relisten_id != 0)
    return;
  self->relisten_id = g_timeout_add_seconds_full (G_PRIORITY_DEFAULT, RELISTEN_DELAY_S, relisten_cb,
                                                  http_ref (self), (GDestroyNotify) http_unref);
}

static void
http_set_version (NatterMcpTransport *transport,
                  const char         *protocol_version)
{
  Http *self = (Http *) transport;

  g_free (self->version);
  self->version = g_strdup (protocol_version);
  /* The handshake is answered: the session exists to listen on. */
  listen_now (self);
}

static void
http_close (NatterMcpTransport *transport)
{
  Http *self = (Http *) transport;

  for (guint i = 0; i < self->all_posts->len; i++)
    g_cancellable_cancel (((Post *) g_ptr_array_index (self->all_posts, i))->cancellable);
  g_clear_handle_id (&self->relisten_id, g_source_remove);
  http_unref (self);
}

/**
 * natter_mcp_http_transport_start:
 * @config: an HTTP server
 * @headers: its headers to send, secret values resolved
 *   (natter_mcp_secrets_resolve_headers())
 * @callbacks: the client's callbacks
 * @user_data: their data
 * @error: return location for a %NATTER_MCP_ERROR_START error
 *
 * Prepares the Streamable HTTP transport for @config's `url`; nothing is
 * sent until the first message.
 *
 * Returns: (transfer full) (nullable): the transport
 */
NatterMcpTransport *
natter_mcp_http_transport_start (NatterMcpServerConfig              *config,
                                 JsonObject                         *headers,
                                 const NatterMcpTransportCallbacks  *callbacks,
                                 gpointer                            user_data,
                                 GError                            **error)
{
  g_autoptr(GUri) uri = NULL;
  Http *self;

  uri = g_uri_parse (config->url, SOUP_HTTP_URI_FLAGS, NULL);
  if (uri == NULL)
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_START,
                   "Tool server “%s”: “%s” is not a valid URL", config->name, config->url);
      return NULL;
    }
  self = g_rc_box_new0 (Http);
  self->parent.callbacks = callbacks;
  self->parent.user_data = user_data;
  self->parent.send = http_send;
  self->parent.abort_request = http_abort_request;
  self->parent.set_version = http_set_version;
  self->parent.close = http_close;
  self->name = g_strdup (config->name);
  self->url = g_strdup (config->url);
  self->headers = json_object_ref (headers);
  self->session = soup_session_new_with_options ("user-agent", "Natter", NULL);
  self->posts = g_hash_table_new (g_int64_hash, g_int64_equal);
  self->all_posts = g_ptr_array_new ();
  g_queue_init (&self->held);
  return &self->parent;
}
