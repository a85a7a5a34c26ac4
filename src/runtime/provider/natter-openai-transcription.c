/* natter-openai-transcription.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Speech to text through an OpenAI-compatible `POST
 * {baseUrl}/audio/transcriptions`, which whisper.cpp's server,
 * faster-whisper-server, OpenAI and Groq all speak (docs/runtime.md
 * §14): the recording goes as the form's `file`, with the
 * `model` and `response_format=json`; the answer's `text` is the
 * transcript.
 */

#define G_LOG_DOMAIN "natter-openai-provider"

#include "natter-json.h"
#include "natter-openai-provider-private.h"

static void
transcribed_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  g_autoptr(JsonNode) root = NULL;
  const char *text;
  GError *error = NULL;

  root = g_task_propagate_pointer (G_TASK (result), &error);
  if (root == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  text = natter_json_loose_string (json_node_get_object (root), "text");
  if (text == NULL)
    {
      g_task_return_error (task, natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                                               "%s sent a transcription without “text”",
                                                               self->display_name));
      return;
    }
  /* Whisper servers start a transcript with a space and may end it with
   * a newline. */
  g_task_return_pointer (task, g_strstrip (g_strdup (text)), g_free);
}

/**
 * natter_openai_provider_transcribe_async:
 * @self: a provider whose base URL is a transcription endpoint's API root
 * @model: the speech model, e.g. "whisper-1" (OpenAI),
 *   "whisper-large-v3" (Groq), "Systran/faster-whisper-small"
 * @audio: the recording, a whole audio file
 * @content_type: its type, e.g. "audio/wav"
 * @cancellable: (nullable): cancels the request at once
 * @callback: called with the transcript
 * @user_data: data for @callback
 *
 * Sends @audio to `POST {baseUrl}/audio/transcriptions` as a multipart
 * form (`file`, `model`, `response_format=json`), with the key as for
 * every call of the provider, and reads the answer's `text`.
 */
void
natter_openai_provider_transcribe_async (NatterOpenaiProvider *self,
                                         const char           *model,
                                         GBytes               *audio,
                                         const char           *content_type,
                                         GCancellable         *cancellable,
                                         GAsyncReadyCallback   callback,
                                         gpointer              user_data)
{
  g_autoptr(SoupMultipart) multipart = NULL;
  g_autoptr(SoupMessageHeaders) headers = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autofree char *url = NULL;
  GTask *task;
  GTask *call;

  g_return_if_fail (NATTER_IS_OPENAI_PROVIDER (self));
  g_return_if_fail (model != NULL && model[0] != '\0');
  g_return_if_fail (audio != NULL);
  g_return_if_fail (content_type != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_openai_provider_transcribe_async);
  /* A cancellation is the call's NATTER_PROVIDER_ERROR_CANCELLED, as for
   * the provider's other calls. */
  g_task_set_check_cancellable (task, FALSE);

  multipart = soup_multipart_new (SOUP_FORM_MIME_TYPE_MULTIPART);
  soup_multipart_append_form_file (multipart, "file", "dictation.wav", content_type, audio);
  soup_multipart_append_form_string (multipart, "model", model);
  soup_multipart_append_form_string (multipart, "response_format", "json");
  headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_REQUEST);
  soup_multipart_to_message (multipart, headers, &body);

  url = g_strconcat (self->base_url, "/audio/transcriptions", NULL);
  call = g_task_new (self, cancellable, transcribed_cb, task);
  natter_openai_call_start_upload (self, call, url, soup_message_headers_get_one (headers, "Content-Type"), body,
                                   cancellable);
}

/**
 * natter_openai_provider_transcribe_finish:
 * @self: a provider
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the transcript, without leading
 *   or trailing white space (possibly empty: nothing was said); or %NULL
 *   with a %NATTER_PROVIDER_ERROR as for the provider's other calls
 *   (%NATTER_PROVIDER_ERROR_HTTP with the server's words for a refused
 *   recording or model, %NATTER_PROVIDER_ERROR_BAD_RESPONSE for an
 *   answer without `text`, %NATTER_PROVIDER_ERROR_CANCELLED when
 *   @cancellable was cancelled)
 */
char *
natter_openai_provider_transcribe_finish (NatterOpenaiProvider  *self,
                                          GAsyncResult          *result,
                                          GError               **error)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_openai_provider_transcribe_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
