/* natter-dictation.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which model of which provider turns a recording into text: the
 * provider's own address and key, with the model the user named for it
 * in the `transcription-models` setting. No model is guessed: a
 * provider without one is refused with where to set it.
 */

#define G_LOG_DOMAIN "natter-dictation"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-dictation.h"
#include "natter-provider-registry.h"
#include "natter-voice-error.h"

static void
transcribed_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  char *text;

  text = natter_openai_provider_transcribe_finish (NATTER_OPENAI_PROVIDER (source), result, &error);
  if (text == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, text, g_free);
}

/**
 * natter_dictation_transcribe_async:
 * @settings: the settings, which name @provider's transcription model
 * @registry: the providers, with their keys
 * @provider: a configured provider's id
 * @wav: the recording, a whole WAV file
 * @cancellable: (nullable): cancels the request at once
 * @callback: called with the transcript
 * @user_data: data for @callback
 *
 * Sends @wav to @provider's `/audio/transcriptions` with its
 * transcription model and its key (docs/runtime.md §14).
 */
void
natter_dictation_transcribe_async (NatterSettings         *settings,
                                   NatterProviderRegistry *registry,
                                   const char          *provider,
                                   GBytes              *wav,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(NatterOpenaiProvider) live = NULL;
  g_autofree char *model = NULL;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_SETTINGS (settings));
  g_return_if_fail (NATTER_IS_PROVIDER_REGISTRY (registry));
  g_return_if_fail (provider != NULL);
  g_return_if_fail (wav != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_dictation_transcribe_async);
  g_task_set_check_cancellable (task, FALSE);
  model = natter_settings_dup_transcription_model (settings, provider);
  if (model == NULL)
    {
      g_task_return_new_error (task, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_TRANSCRIPTION_MODEL,
                               _("%s has no transcription model: set one in Preferences, Providers"),
                               provider);
      return;
    }
  live = natter_provider_registry_get_provider (registry, provider, &error);
  if (live == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  natter_openai_provider_transcribe_async (live, model, wav, "audio/wav", cancellable, transcribed_cb,
                                           g_steal_pointer (&task));
}

/**
 * natter_dictation_transcribe_finish:
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the transcript (possibly empty),
 *   or %NULL with %NATTER_VOICE_ERROR_NO_TRANSCRIPTION_MODEL, a
 *   %NATTER_RUNTIME_ERROR for a provider that is not configured, or the
 *   provider's %NATTER_PROVIDER_ERROR
 */
char *
natter_dictation_transcribe_finish (GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_dictation_transcribe_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
