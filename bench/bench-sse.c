/* bench-sse.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The streaming path of a model call (docs/runtime.md §12):
 * - parse-50mb: 50 MB of small chat.completion.chunk events through
 *   NatterSseParser + NatterChatStream in 16 KiB reads, against the floor
 *   of a plain byte loop over the same buffer; MB/s and allocations per
 *   event.
 * - deltas-20000: 20,000 deltas from a localhost SoupServer through
 *   NatterOpenaiProvider into a listener; deltas per second and peak RSS.
 *   Server and client share this process and its main loop, so the figure
 *   is a floor for the client alone.
 */

#define G_LOG_DOMAIN "bench-sse"

#include <stdlib.h>
#include <string.h>

#include <libsoup/soup.h>

#include "natter-bench.h"
#include "natter-chat-stream.h"
#include "natter-openai-provider.h"
#include "natter-sse-parser.h"

#define BENCH "sse"
#define TARGET_BYTES ((gsize) 50 * 1000 * 1000)
#define READ_BYTES (16 * 1024)
#define N_DELTAS 20000

/* Allocation counting: malloc, calloc and realloc are interposed in this
 * binary and counted only while `counting` is set. Under AddressSanitizer
 * the allocator is ASan's, so nothing is interposed and the figure is not
 * printed. */
#if defined(__SANITIZE_ADDRESS__)
#define COUNT_ALLOCATIONS 0
#else
#define COUNT_ALLOCATIONS 1
#endif

static volatile gboolean counting;
static guint64 n_allocations;

#if COUNT_ALLOCATIONS
extern void *__libc_malloc (size_t size);
extern void *__libc_calloc (size_t n, size_t size);
extern void *__libc_realloc (void *pointer, size_t size);

void *
malloc (size_t size)
{
  if (counting)
    __atomic_add_fetch (&n_allocations, 1, __ATOMIC_RELAXED);
  return __libc_malloc (size);
}

void *
calloc (size_t n,
        size_t size)
{
  if (counting)
    __atomic_add_fetch (&n_allocations, 1, __ATOMIC_RELAXED);
  return __libc_calloc (n, size);
}

void *
realloc (void   *pointer,
         size_t  size)
{
  if (counting)
    __atomic_add_fetch (&n_allocations, 1, __ATOMIC_RELAXED);
  return __libc_realloc (pointer, size);
}
#endif

#define CHUNK_PREFIX "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1," \
                     "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
#define CHUNK_SUFFIX "\"},\"finish_reason\":null}]}\n\n"
#define FINISH "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" \
               "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n" \
               "data: [DONE]\n\n"

/* A stream of small text deltas; *n_events counts the delta events. */
static GString *
make_stream (gsize  target_bytes,
             guint  max_events,
             guint *n_events)
{
  static const char *const words[] = { "the", " quick", " brown", " fox", " jumps", " über", " 🦊", "\\n" };
  GString *stream = g_string_sized_new (target_bytes + 4096);
  guint n = 0;

  while (stream->len < target_bytes && n < max_events)
    {
      g_string_append (stream, CHUNK_PREFIX);
      g_string_append (stream, words[n % G_N_ELEMENTS (words)]);
      g_string_append (stream, CHUNK_SUFFIX);
      n++;
    }
  g_string_append (stream, FINISH);
  *n_events = n;
  return stream;
}

static void
count_delta_cb (NatterChatStream *stream,
                const char       *delta,
                guint            *count)
{
  (*count)++;
}

static gboolean
feed_event_cb (const char  *event_name,
               const char  *data,
               gsize        data_len,
               gpointer     user_data,
               GError     **error)
{
  return natter_chat_stream_feed_sse_event (user_data, event_name, data, data_len, error);
}

static void
bench_parse_50mb (void)
{
  guint n_events = 0;
  g_autoptr(GString) input = make_stream (TARGET_BYTES, G_MAXUINT, &n_events);
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("bench");
  g_autoptr(NatterSseParser) parser = natter_sse_parser_new (0, feed_event_cb, stream, NULL);
  g_autoptr(GError) error = NULL;
  guint deltas = 0;
  double start, parse_s, floor_s;
  double mb = input->len / 1e6;
  guint64 newlines = 0;

  g_signal_connect (stream, "text-delta", G_CALLBACK (count_delta_cb), &deltas);

  n_allocations = 0;
  counting = TRUE;
  start = natter_bench_now ();
  for (gsize offset = 0; offset < input->len; offset += READ_BYTES)
    {
      gsize len = MIN (READ_BYTES, input->len - offset);

      if (!natter_sse_parser_feed (parser, (const guint8 *) input->str + offset, len, &error))
        g_error ("%s", error->message);
    }
  natter_sse_parser_finish (parser, NULL);
  if (!natter_chat_stream_finish (stream, &error))
    g_error ("%s", error->message);
  parse_s = natter_bench_now () - start;
  counting = FALSE;

  if (deltas != n_events)
    g_error ("%u deltas for %u events", deltas, n_events);

  /* The floor: touching every byte once, as any reader must. */
  start = natter_bench_now ();
  for (gsize i = 0; i < input->len; i++)
    newlines += input->str[i] == '\n';
  floor_s = natter_bench_now () - start;
  if (newlines == 0)
    g_error ("no newlines");

  natter_bench_row ("sse/parse-50mb", "input", mb, "MB");
  natter_bench_row ("sse/parse-50mb", "events", n_events, "events");
  natter_bench_row ("sse/parse-50mb", "parse+assemble throughput", mb / parse_s, "MB/s");
  natter_bench_row ("sse/parse-50mb", "parse+assemble events", n_events / parse_s, "events/s");
  if (COUNT_ALLOCATIONS)
    natter_bench_row ("sse/parse-50mb", "allocations per event",
                      (double) n_allocations / n_events, "allocs/event");
  natter_bench_row ("sse/parse-50mb", "floor: byte loop counting '\\n'", mb / floor_s, "MB/s");
  natter_bench_row ("sse/parse-50mb", "parse time / floor time", parse_s / floor_s, "x");
}

/* --- deltas-20000 ---------------------------------------------------- */

typedef struct
{
  GString *body;
} ServerData;

static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  ServerData *data = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  SoupMessageBody *body = soup_server_message_get_response_body (msg);
  gsize piece = 4096;

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  /* Many small chunks, as a real server flushes them. */
  for (gsize offset = 0; offset < data->body->len; offset += piece)
    soup_message_body_append (body, SOUP_MEMORY_STATIC, data->body->str + offset,
                              MIN (piece, data->body->len - offset));
  soup_message_body_complete (body);
}

typedef struct
{
  gboolean done;
  gboolean ok;
  GError  *error;
} Outcome;

static void
stream_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Outcome *outcome = user_data;

  outcome->ok = natter_openai_provider_stream_finish (NATTER_OPENAI_PROVIDER (source), result,
                                                      &outcome->error);
  outcome->done = TRUE;
}

static void
bench_deltas_20000 (void)
{
  guint n_events = 0;
  ServerData data = { .body = make_stream (G_MAXSIZE, N_DELTAS, &n_events) };
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterOpenaiProvider) provider = NULL;
  g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("bench");
  g_autoptr(JsonNode) composed = json_from_string ("{\"messages\":[{\"role\":\"user\",\"content\":\"Go\"}]}", NULL);
  g_autofree char *base_url = NULL;
  Outcome outcome = { 0 };
  guint deltas = 0;
  GSList *uris;
  double start, elapsed;

  soup_server_add_handler (server, NULL, server_cb, &data, NULL);
  if (!soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    g_error ("%s", error->message);
  uris = soup_server_get_uris (server);
  base_url = g_strdup_printf ("http://127.0.0.1:%d/v1", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  provider = natter_openai_provider_new ("bench", "Bench", base_url, NULL, 60, 0);
  g_signal_connect (stream, "text-delta", G_CALLBACK (count_delta_cb), &deltas);

  start = natter_bench_now ();
  natter_openai_provider_stream_async (provider, json_node_get_object (composed), "m", stream,
                                       NULL, stream_done_cb, &outcome);
  while (!outcome.done)
    g_main_context_iteration (NULL, TRUE);
  elapsed = natter_bench_now () - start;

  if (!outcome.ok)
    g_error ("%s", outcome.error->message);
  if (deltas != n_events)
    g_error ("%u deltas for %u events", deltas, n_events);

  natter_bench_row ("sse/deltas-20000", "deltas", deltas, "deltas");
  natter_bench_row ("sse/deltas-20000", "bytes streamed", data.body->len / 1e6, "MB");
  natter_bench_row ("sse/deltas-20000", "deltas per second", deltas / elapsed, "deltas/s");
  natter_bench_row ("sse/deltas-20000", "wall time", elapsed * 1000, "ms");
  natter_bench_row ("sse/deltas-20000", "peak RSS", natter_bench_peak_rss_kib () / 1024.0, "MiB");

  soup_server_disconnect (server);
  g_string_free (data.body, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  if (argc == 2 && strcmp (argv[1], "--list") == 0)
    {
      g_print ("parse-50mb\ndeltas-20000\n");
      return 0;
    }
  if (argc == 2 && strcmp (argv[1], "parse-50mb") == 0)
    bench_parse_50mb ();
  else if (argc == 2 && strcmp (argv[1], "deltas-20000") == 0)
    bench_deltas_20000 ();
  else
    {
      g_printerr ("Usage: %s --list | parse-50mb | deltas-20000\n", argv[0]);
      return 2;
    }
  return 0;
}
