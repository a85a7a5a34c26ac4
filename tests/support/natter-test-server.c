/* natter-test-server.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include "natter-test-server.h"

static void
write_raw_and_drop (SoupServerMessage        *msg,
                    const NatterTestResponse *response)
{
  g_autoptr(GIOStream) stream = soup_server_message_steal_connection (msg);
  GOutputStream *out = g_io_stream_get_output_stream (stream);
  g_autoptr(GString) raw = g_string_new ("HTTP/1.1 200 OK\r\n"
                                         "Content-Type: text/event-stream\r\n"
                                         "Transfer-Encoding: chunked\r\n\r\n");
  g_autoptr(GError) error = NULL;

  for (guint i = 0; response->chunks[i] != NULL; i++)
    g_string_append_printf (raw, "%zx\r\n%s\r\n", strlen (response->chunks[i]), response->chunks[i]);

  g_output_stream_write_all (out, raw->str, raw->len, NULL, NULL, &error);
  g_assert_no_error (error);
  g_io_stream_close (stream, NULL, &error);
  g_assert_no_error (error);
}

/* A held stream ends when its client goes away (a stopped turn, a killed
 * process) or when it is released. */
static void
held_finished_cb (SoupServerMessage *msg,
                  gpointer           user_data)
{
  NatterTestServer *server = user_data;
  GHashTableIter iter;
  gpointer held;

  g_hash_table_iter_init (&iter, server->held);
  while (g_hash_table_iter_next (&iter, NULL, &held))
    if (held == msg)
      {
        g_signal_handlers_disconnect_by_func (msg, held_finished_cb, server);
        g_hash_table_iter_remove (&iter);
        return;
      }
}

static void
respond (NatterTestServer         *server,
         SoupServerMessage        *msg,
         guint                     index,
         const NatterTestResponse *response,
         SoupMemoryUse             use)
{
  SoupMessageHeaders *response_headers = soup_server_message_get_response_headers (msg);

  if (response->disconnect)
    {
      write_raw_and_drop (msg, response);
      return;
    }

  soup_server_message_set_status (msg, response->status, NULL);
  if (response->retry_after != NULL)
    soup_message_headers_replace (response_headers, "Retry-After", response->retry_after);

  if (response->chunks != NULL)
    {
      SoupMessageBody *out = soup_server_message_get_response_body (msg);

      soup_message_headers_set_encoding (response_headers, SOUP_ENCODING_CHUNKED);
      soup_message_headers_set_content_type (response_headers, response->content_type, NULL);
      for (guint i = 0; response->chunks[i] != NULL; i++)
        soup_message_body_append (out, use, response->chunks[i], strlen (response->chunks[i]));
      if (!response->keep_open)
        soup_message_body_complete (out);
      else if (server->responder != NULL)
        {
          g_hash_table_insert (server->held, GUINT_TO_POINTER (index), g_object_ref (msg));
          g_signal_connect (msg, "finished", G_CALLBACK (held_finished_cb), server);
        }
    }
  else if (response->body != NULL)
    soup_server_message_set_response (msg, response->content_type, use,
                                      response->body, strlen (response->body));
}

static void
server_cb (SoupServer        *soup_server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  NatterTestServer *server = user_data;
  SoupMessageHeaders *request_headers = soup_server_message_get_request_headers (msg);
  g_autoptr(GBytes) body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  const char *authorization = soup_message_headers_get_one (request_headers, "Authorization");
  guint index = server->paths->len;

  if (server->expected_path != NULL)
    g_assert_cmpstr (path, ==, server->expected_path);
  g_ptr_array_add (server->paths, g_strdup (path));
  g_ptr_array_add (server->bodies, g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body)));
  g_ptr_array_add (server->authorizations, g_strdup (authorization != NULL ? authorization : ""));

  if (server->responder != NULL)
    {
      NatterTestResponse response = { 0 };

      server->responder (server, index, path, g_ptr_array_index (server->bodies, index), &response,
                         server->responder_data);
      respond (server, msg, index, &response, SOUP_MEMORY_COPY);
      return;
    }

  g_assert_cmpuint (index, <, server->n_script);
  respond (server, msg, index, &server->script[index], SOUP_MEMORY_STATIC);
}

/* A deep copy, so a script may live in the caller's block (compound
 * literals of NATTER_TEST_CHUNKS included). */
static NatterTestResponse *
copy_script (const NatterTestResponse *script,
             guint                     n_script)
{
  NatterTestResponse *copy = g_new0 (NatterTestResponse, n_script);

  for (guint i = 0; i < n_script; i++)
    {
      copy[i] = script[i];
      copy[i].content_type = g_strdup (script[i].content_type);
      copy[i].body = g_strdup (script[i].body);
      copy[i].retry_after = g_strdup (script[i].retry_after);
      copy[i].chunks = script[i].chunks != NULL
                       ? (const char *const *) g_strdupv ((char **) script[i].chunks) : NULL;
    }
  return copy;
}

static void
free_script (NatterTestResponse *script,
             guint               n_script)
{
  for (guint i = 0; i < n_script; i++)
    {
      g_free ((char *) script[i].content_type);
      g_free ((char *) script[i].body);
      g_free ((char *) script[i].retry_after);
      g_strfreev ((char **) script[i].chunks);
    }
  g_free (script);
}

/* Listens on a free loopback port and answers with a copy of @script. */
NatterTestServer *
natter_test_server_new (const NatterTestResponse *script,
                        guint                     n_script)
{
  NatterTestServer *server = g_new0 (NatterTestServer, 1);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  server->script = copy_script (script, n_script);
  server->n_script = n_script;
  server->paths = g_ptr_array_new_with_free_func (g_free);
  server->bodies = g_ptr_array_new_with_free_func (g_free);
  server->authorizations = g_ptr_array_new_with_free_func (g_free);
  server->held = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  server->server = soup_server_new ("server-header", "natter-test ", NULL);
  soup_server_add_handler (server->server, NULL, server_cb, server, NULL);
  soup_server_listen_local (server->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);

  uris = soup_server_get_uris (server->server);
  g_assert_nonnull (uris);
  server->base_url = g_strdup_printf ("http://127.0.0.1:%d/v1", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return server;
}

/**
 * natter_test_server_new_responder:
 * @responder: chooses the response to each request when it arrives
 * @user_data: data for @responder
 *
 * Listens on a free loopback port like natter_test_server_new(), without
 * a script: every request is answered as @responder says. A response
 * with `keep_open` is held (natter_test_server_release()).
 *
 * Returns: (transfer full): the server
 */
NatterTestServer *
natter_test_server_new_responder (NatterTestResponder responder,
                                  gpointer            user_data)
{
  NatterTestServer *server = natter_test_server_new (NULL, 0);

  server->responder = responder;
  server->responder_data = user_data;
  return server;
}

static void
models_responder (NatterTestServer   *server,
                  guint               index,
                  const char         *path,
                  const char         *body,
                  NatterTestResponse *response,
                  gpointer            user_data)
{
  if (!g_str_equal (path, "/v1/models"))
    {
      response->status = 404;
      return;
    }
  response->status = 200;
  response->content_type = "application/json";
  response->body = user_data;
}

/**
 * natter_test_server_new_models:
 * @listing: the JSON of `GET /v1/models` (the caller keeps it alive as
 *   long as the server)
 *
 * An OpenAI-compatible server that only lists its models: @listing for
 * `/v1/models`, 404 for any other path. Its requests are recorded as any
 * test server's (`paths`, `authorizations`).
 *
 * Returns: (transfer full): the server
 */
NatterTestServer *
natter_test_server_new_models (const char *listing)
{
  return natter_test_server_new_responder (models_responder, (gpointer) listing);
}

/* Whether the stream of request @index is still held open. */
gboolean
natter_test_server_is_held (NatterTestServer *server,
                            guint             index)
{
  return g_hash_table_contains (server->held, GUINT_TO_POINTER (index));
}

/**
 * natter_test_server_release:
 * @server: a responder server
 * @index: a request whose stream is held
 * @chunks: (array zero-terminated=1): the rest of the stream
 *
 * Sends @chunks and ends the held stream of request @index.
 *
 * Returns: %FALSE if the stream is no longer held (its client went away)
 */
gboolean
natter_test_server_release (NatterTestServer  *server,
                            guint              index,
                            const char *const *chunks)
{
  SoupServerMessage *msg = g_hash_table_lookup (server->held, GUINT_TO_POINTER (index));
  SoupMessageBody *out;

  if (msg == NULL)
    return FALSE;
  out = soup_server_message_get_response_body (msg);
  for (guint i = 0; chunks[i] != NULL; i++)
    soup_message_body_append (out, SOUP_MEMORY_COPY, chunks[i], strlen (chunks[i]));
  soup_message_body_complete (out);
  soup_server_message_unpause (msg);
  g_signal_handlers_disconnect_by_func (msg, held_finished_cb, server);
  g_hash_table_remove (server->held, GUINT_TO_POINTER (index));
  return TRUE;
}

/* Disconnects and asserts that nothing else holds the SoupServer. */
void
natter_test_server_free (NatterTestServer *server)
{
  GHashTableIter iter;
  gpointer held;

  g_hash_table_iter_init (&iter, server->held);
  while (g_hash_table_iter_next (&iter, NULL, &held))
    g_signal_handlers_disconnect_by_func (held, held_finished_cb, server);
  g_clear_pointer (&server->held, g_hash_table_unref);
  soup_server_disconnect (server->server);
  g_assert_finalize_object (server->server);
  free_script ((NatterTestResponse *) server->script, server->n_script);
  g_ptr_array_unref (server->paths);
  g_ptr_array_unref (server->bodies);
  g_ptr_array_unref (server->authorizations);
  g_free (server->base_url);
  g_free (server);
}

/* A loopback port nobody listens on: bound, then closed. */
guint16
natter_test_closed_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GError) error = NULL;
  guint16 port;

  g_socket_bind (socket, address, FALSE, &error);
  g_assert_no_error (error);
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_close (socket, &error);
  g_assert_no_error (error);
  return port;
}
