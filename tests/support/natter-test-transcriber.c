/* natter-test-transcriber.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include "natter-recorder.h"
#include "natter-test-transcriber.h"

/* OpenAI's answer to a model it does not have. */
#define UNKNOWN_MODEL \
  "{\"error\":{\"message\":\"The model `whisper-9` does not exist or you do not have access to it.\"," \
  "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}"

static void
held_finished_cb (SoupServerMessage     *msg,
                  NatterTestTranscriber *transcriber)
{
  g_signal_handlers_disconnect_by_func (msg, held_finished_cb, transcriber);
  g_clear_object (&transcriber->held);
}

/* 200 with {"text": the script's text}. */
static void
answer_text (NatterTestTranscriber *transcriber,
             SoupServerMessage     *msg)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *answer = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, transcriber->text);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  answer = json_to_string (root, FALSE);
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, answer, strlen (answer));
}

static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  NatterTestTranscriber *transcriber = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  g_autoptr(GBytes) body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  g_autoptr(SoupMultipart) form = NULL;
  const char *authorization = soup_message_headers_get_one (headers, "Authorization");

  /* A window lists the provider's models when it is chosen. */
  if (g_str_equal (path, "/v1/models"))
    {
      static const char models[] = "{\"object\":\"list\",\"data\":[{\"id\":\"whisper-large-v3\"}]}";

      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, models, strlen (models));
      return;
    }
  g_assert_cmpstr (soup_server_message_get_method (msg), ==, "POST");
  g_assert_cmpstr (path, ==, "/v1/audio/transcriptions");
  form = soup_multipart_new_from_message (headers, body);
  g_assert_nonnull (form);

  transcriber->requests++;
  g_clear_pointer (&transcriber->model, g_free);
  g_clear_pointer (&transcriber->response_format, g_free);
  g_clear_pointer (&transcriber->file_name, g_free);
  g_clear_pointer (&transcriber->file, g_bytes_unref);
  g_free (transcriber->authorization);
  transcriber->authorization = g_strdup (authorization != NULL ? authorization : "");
  for (int i = 0; i < soup_multipart_get_length (form); i++)
    {
      SoupMessageHeaders *part_headers;
      GBytes *part;
      g_autoptr(GHashTable) params = NULL;
      g_autofree char *disposition = NULL;
      const char *name;

      g_assert_true (soup_multipart_get_part (form, i, &part_headers, &part));
      g_assert_true (soup_message_headers_get_content_disposition (part_headers, &disposition, &params));
      g_assert_cmpstr (disposition, ==, "form-data");
      name = g_hash_table_lookup (params, "name");
      if (g_strcmp0 (name, "file") == 0)
        {
          g_assert_cmpstr (soup_message_headers_get_content_type (part_headers, NULL), ==, "audio/wav");
          transcriber->file_name = g_strdup (g_hash_table_lookup (params, "filename"));
          transcriber->file = g_bytes_ref (part);
        }
      else if (g_strcmp0 (name, "model") == 0)
        transcriber->model = g_strndup (g_bytes_get_data (part, NULL), g_bytes_get_size (part));
      else if (g_strcmp0 (name, "response_format") == 0)
        transcriber->response_format = g_strndup (g_bytes_get_data (part, NULL), g_bytes_get_size (part));
    }
  /* What every server of this API requires. */
  g_assert_nonnull (transcriber->file);
  g_assert_nonnull (transcriber->file_name);
  g_assert_cmpuint (g_bytes_get_size (transcriber->file), >, 44);
  g_assert_cmpmem (g_bytes_get_data (transcriber->file, NULL), 4, "RIFF", 4);
  g_assert_nonnull (transcriber->model);

  switch (transcriber->script)
    {
    case NATTER_TEST_TRANSCRIBE_ANSWERS:
      answer_text (transcriber, msg);
      break;
    case NATTER_TEST_TRANSCRIBE_FAILS:
      soup_server_message_set_status (msg, 404, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, UNKNOWN_MODEL,
                                        strlen (UNKNOWN_MODEL));
      break;
    case NATTER_TEST_TRANSCRIBE_HOLDS:
    default:
      g_assert_null (transcriber->held);
      transcriber->held = g_object_ref (msg);
      g_signal_connect (msg, "finished", G_CALLBACK (held_finished_cb), transcriber);
      soup_server_message_pause (msg);
      break;
    }
}

/**
 * natter_test_transcriber_new:
 * @text: what the server says was spoken
 *
 * Returns: (transfer full): a server answering @text, listening on a
 *   free loopback port
 */
NatterTestTranscriber *
natter_test_transcriber_new (const char *text)
{
  NatterTestTranscriber *transcriber = g_new0 (NatterTestTranscriber, 1);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  transcriber->text = g_strdup (text);
  transcriber->server = soup_server_new ("server-header", "natter-test ", NULL);
  soup_server_add_handler (transcriber->server, NULL, server_cb, transcriber, NULL);
  soup_server_listen_local (transcriber->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (transcriber->server);
  transcriber->base_url = g_strdup_printf ("http://127.0.0.1:%d/v1", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return transcriber;
}

/**
 * natter_test_transcriber_release:
 * @transcriber: a server holding a request (%NATTER_TEST_TRANSCRIBE_HOLDS)
 *
 * Answers the held request with the text, as if the transcription had
 * taken that long; later requests are answered at once.
 */
void
natter_test_transcriber_release (NatterTestTranscriber *transcriber)
{
  g_autoptr(SoupServerMessage) held = g_steal_pointer (&transcriber->held);

  g_assert_nonnull (held);
  g_signal_handlers_disconnect_by_func (held, held_finished_cb, transcriber);
  transcriber->script = NATTER_TEST_TRANSCRIBE_ANSWERS;
  answer_text (transcriber, held);
  soup_server_message_unpause (held);
}

void
natter_test_transcriber_free (NatterTestTranscriber *transcriber)
{
  if (transcriber->held != NULL)
    {
      g_signal_handlers_disconnect_by_func (transcriber->held, held_finished_cb, transcriber);
      soup_server_message_set_status (transcriber->held, 503, NULL);
      soup_server_message_unpause (transcriber->held);
      g_clear_object (&transcriber->held);
    }
  soup_server_disconnect (transcriber->server);
  g_object_unref (transcriber->server);
  g_free (transcriber->base_url);
  g_free (transcriber->text);
  g_free (transcriber->model);
  g_free (transcriber->response_format);
  g_free (transcriber->file_name);
  g_clear_pointer (&transcriber->file, g_bytes_unref);
  g_free (transcriber->authorization);
  g_free (transcriber);
}

/**
 * natter_test_wav_new:
 * @n_samples: how long, in samples of 16 kHz mono 16-bit PCM
 *
 * Returns: (transfer full): a whole WAV file of a quiet tone, as the
 *   recorder makes one
 */
GBytes *
natter_test_wav_new (guint n_samples)
{
  g_autofree gint16 *samples = g_new (gint16, n_samples);

  for (guint i = 0; i < n_samples; i++)
    samples[i] = GINT16_TO_LE ((gint16) ((i % 40) < 20 ? 800 : -800));
  return natter_wav_new_from_pcm ((const guint8 *) samples, n_samples * sizeof (gint16));
}
