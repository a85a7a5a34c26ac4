/* test-transcription.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Speech to text through a provider's `/audio/transcriptions`
 * (docs/runtime.md §14), against the scripted transcription server of
 * tests/support: the form it is sent (the WAV file, the model) and the
 * key in the Authorization header, a transcript, a refused model, a slow
 * server left by a cancellation; and `natter transcribe` run as the real
 * binary with the provider's transcription model in its settings.
 */

#include <string.h>

#include "natter-provider-error.h"
#include "natter-provider-registry.h"
#include "natter-test-support.h"
#include "natter-test-transcriber.h"

#define WAIT_MS 10000
#define KEY "sk-test-0123456789"

typedef struct
{
  NatterTestTranscriber  *transcriber;
  NatterProviderRegistry *registry;
  NatterOpenaiProvider   *provider;
  GBytes                 *wav;
} Fixture;

static char *
key_lookup (const char *provider,
            gpointer    user_data)
{
  return g_strdup (KEY);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->transcriber = natter_test_transcriber_new (" Hello from the microphone.\n");
  f->registry = natter_provider_registry_new (key_lookup, NULL, NULL);
  natter_provider_registry_add_provider (f->registry, "groq", "Groq", f->transcriber->base_url);
  f->provider = natter_provider_registry_get_provider (f->registry, "groq", &error);
  g_assert_no_error (error);
  f->wav = natter_test_wav_new (1600);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_object_unref (f->provider);
  g_object_unref (f->registry);
  g_bytes_unref (f->wav);
  natter_test_transcriber_free (f->transcriber);
}

static void
result_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static char *
transcribe (Fixture       *f,
            GCancellable  *cancellable,
            GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_openai_provider_transcribe_async (f->provider, "whisper-large-v3", f->wav, "audio/wav", cancellable,
                                           result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, WAIT_MS);
  return natter_openai_provider_transcribe_finish (f->provider, result, error);
}

static void
test_answers (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = transcribe (f, NULL, &error);

  g_assert_no_error (error);
  /* Whisper's leading space and trailing newline are not what was said. */
  g_assert_cmpstr (text, ==, "Hello from the microphone.");
  g_assert_cmpuint (f->transcriber->requests, ==, 1);
  g_assert_cmpstr (f->transcriber->model, ==, "whisper-large-v3");
  g_assert_cmpstr (f->transcriber->response_format, ==, "json");
  g_assert_cmpstr (f->transcriber->file_name, ==, "dictation.wav");
  g_assert_true (g_bytes_equal (f->transcriber->file, f->wav));
  g_assert_cmpstr (f->transcriber->authorization, ==, "Bearer " KEY);
}

static void
test_refused_model (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  f->transcriber->script = NATTER_TEST_TRANSCRIBE_FAILS;
  text = transcribe (f, NULL, &error);
  g_assert_null (text);
  g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_HTTP);
  /* The server's own words, and never the key. */
  g_assert_nonnull (strstr (error->message, "does not exist"));
  g_assert_null (strstr (error->message, KEY));
}

static gboolean
request_arrived (gpointer data)
{
  Fixture *f = data;

  return f->transcriber->held != NULL;
}

static void
test_slow_cancelled (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  f->transcriber->script = NATTER_TEST_TRANSCRIBE_HOLDS;
  natter_openai_provider_transcribe_async (f->provider, "whisper-1", f->wav, "audio/wav", cancellable,
                                           result_cb, &result);
  g_assert_true (natter_test_wait_until (request_arrived, f, WAIT_MS));
  g_assert_null (result);
  g_cancellable_cancel (cancellable);
  natter_test_wait_for_pointer ((gpointer *) &result, WAIT_MS);
  text = natter_openai_provider_transcribe_finish (f->provider, result, &error);
  g_assert_null (text);
  g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_CANCELLED);
}

/* `natter transcribe`, with @models as the `transcription-models`
 * setting (a GVariant text) and the scripted server as provider
 * "groq", in a keyfile the command's settings read. */
static void
run_transcribe (Fixture            *f,
                GFile              *dir,
                const char         *models,
                const char * const *args,
                NatterTestRun      *result)
{
  g_autoptr(GSubprocessLauncher) launcher = natter_test_cli_launcher_new (dir);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *settings_dir = g_build_filename (g_file_peek_path (dir), "glib-2.0", "settings", NULL);
  g_autofree char *keyfile = g_build_filename (settings_dir, "keyfile", NULL);
  g_autofree char *contents = g_strdup_printf ("[io/github/natter/Natter]\n"
                                               "providers=[('groq', 'Groq', '%s')]\n"
                                               "default-provider='groq'\n"
                                               "transcription-models=%s\n",
                                               f->transcriber->base_url, models);

  g_assert_cmpint (g_mkdir_with_parents (settings_dir, 0700), ==, 0);
  g_file_set_contents (keyfile, contents, -1, &error);
  g_assert_no_error (error);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "keyfile", TRUE);
  g_subprocess_launcher_setenv (launcher, "NATTER_API_KEY", KEY, TRUE);
  process = natter_test_cli_spawn (launcher, args);
  memset (result, 0, sizeof *result);
  natter_test_communicate (process, result);
  natter_test_wait_for_flag (&result->done, WAIT_MS);
}

static void
test_cli (Fixture       *f,
          gconstpointer  data)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autofree char *wav_path = g_build_filename (g_file_peek_path (dir), "note.wav", NULL);
  const char *args[] = { "transcribe", wav_path, NULL };
  const char *named[] = { "transcribe", wav_path, "--provider", "groq", NULL };
  const char *missing[] = { "transcribe", "absent.wav", NULL };
  g_autoptr(GError) error = NULL;

  g_file_set_contents (wav_path, g_bytes_get_data (f->wav, NULL), g_bytes_get_size (f->wav), &error);
  g_assert_no_error (error);

  {
    g_auto(NatterTestRun) r;

    run_transcribe (f, dir, "{'groq': 'whisper-large-v3'}", named, &r);
    g_assert_cmpstr (r.err, ==, "");
    g_assert_cmpstr (r.out, ==, "Hello from the microphone.\n");
    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpstr (f->transcriber->model, ==, "whisper-large-v3");
    g_assert_true (g_bytes_equal (f->transcriber->file, f->wav));
    g_assert_cmpstr (f->transcriber->authorization, ==, "Bearer " KEY);
  }
  {
    g_auto(NatterTestRun) r;

    f->transcriber->script = NATTER_TEST_TRANSCRIBE_FAILS;
    run_transcribe (f, dir, "{'groq': 'whisper-9'}", args, &r);
    g_assert_cmpint (r.status, !=, 0);
    g_assert_cmpstr (r.out, ==, "");
    g_assert_nonnull (strstr (r.err, "does not exist"));
    g_assert_null (strstr (r.err, KEY));
  }
  {
    g_auto(NatterTestRun) r;

    /* No model set: nothing is sent, and the way on is named. */
    run_transcribe (f, dir, "@a{ss} {}", args, &r);
    g_assert_cmpint (r.status, !=, 0);
    g_assert_cmpstr (r.err, ==, "natter: groq has no transcription model: set one in Preferences, Providers\n");
    g_assert_cmpuint (f->transcriber->requests, ==, 2);
  }
  {
    g_auto(NatterTestRun) r;

    run_transcribe (f, dir, "{'groq': 'whisper-1'}", missing, &r);
    g_assert_cmpint (r.status, !=, 0);
    g_assert_true (g_str_has_prefix (r.err, "natter: Cannot read "));
    g_assert_cmpuint (f->transcriber->requests, ==, 2);
  }
  natter_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/transcription/answers", Fixture, NULL, fixture_set_up, test_answers, fixture_tear_down);
  g_test_add ("/transcription/refused-model", Fixture, NULL, fixture_set_up, test_refused_model,
              fixture_tear_down);
  g_test_add ("/transcription/slow-cancelled", Fixture, NULL, fixture_set_up, test_slow_cancelled,
              fixture_tear_down);
  if (g_getenv ("NATTER_BIN") != NULL)
    g_test_add ("/transcription/cli", Fixture, NULL, fixture_set_up, test_cli, fixture_tear_down);
  return g_test_run ();
}
