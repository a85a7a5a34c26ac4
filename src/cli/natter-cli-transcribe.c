/* natter-cli-transcribe.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `natter transcribe FILE.wav [--provider P]`: a recording made text by
 * the provider's transcription model, as the window's dictation does
 * (docs/runtime.md §14), printed on one line.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include "natter-cli-private.h"
#include "natter-dictation.h"
#include "natter-services.h"

typedef struct
{
  Run  *run;
  char *provider;
} TranscribeRun;

static void
transcribe_run_free (TranscribeRun *transcribe)
{
  g_free (transcribe->provider);
  g_free (transcribe);
}

static void
transcribed_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  TranscribeRun *transcribe = user_data;
  Run *run = transcribe->run;
  GError *error = NULL;
  g_autofree char *text = natter_dictation_transcribe_finish (result, &error);

  transcribe_run_free (transcribe);
  if (text == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  natter_cli_out (run, "%s\n", text);
  natter_cli_finish (run, 0);
}

static void
loaded_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  TranscribeRun *transcribe = user_data;
  Run *run = transcribe->run;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) wav = g_file_load_bytes_finish (G_FILE (source), result, NULL, &error);

  if (wav == NULL)
    {
      g_autofree char *name = g_file_get_parse_name (G_FILE (source));

      transcribe_run_free (transcribe);
      /* Translators: the first %s is a file name, the second why it cannot be read */
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, natter_cli_tr (run, "Cannot read %s: %s"), name,
                       error->message);
      return;
    }
  natter_dictation_transcribe_async (natter_services_get_settings (run->services),
                                     natter_services_get_provider_registry (run->services), transcribe->provider, wav, g_task_get_cancellable (run->task),
                                     transcribed_cb, transcribe);
}

void
natter_cli_command_transcribe (Run *run)
{
  g_autofree char *provider = NULL;
  g_autofree char *model = NULL;
  g_autoptr(GFile) file = NULL;
  TranscribeRun *transcribe;

  if (run->base_url != NULL)
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, "%s",
                       natter_cli_tr (run, "Name a configured provider with --provider: its transcription "
                                      "model is set in Preferences"));
      return;
    }
  provider = run->provider != NULL ? g_strdup (run->provider) : natter_services_dup_default_provider (run->services);
  if (provider == NULL || provider[0] == '\0')
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, "%s",
                       natter_cli_tr (run, "No provider is set up: add one in Preferences"));
      return;
    }
  model = natter_settings_dup_transcription_model (natter_services_get_settings (run->services), provider);
  if (model == NULL)
    {
      /* Translators: %s is a provider id */
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                       natter_cli_tr (run, "%s has no transcription model: set one in Preferences, Providers"),
                       provider);
      return;
    }
  transcribe = g_new0 (TranscribeRun, 1);
  transcribe->run = run;
  transcribe->provider = g_steal_pointer (&provider);
  file = g_application_command_line_create_file_for_arg (run->cmdline, run->args[0]);
  g_file_load_bytes_async (file, g_task_get_cancellable (run->task), loaded_cb, transcribe);
}
