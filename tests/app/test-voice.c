/* test-voice.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Speech in and out below the window: the recorder with a WAV file as
 * its source (never a microphone), the plain words an answer is read as,
 * and Speech Dispatcher's speaker, against the real service with its
 * dummy output module where it can be started.
 */

#include "config.h"

#include <signal.h>
#include <string.h>

#ifdef HAVE_GSTREAMER
#include <gst/gst.h>
#endif

#include "natter-recorder.h"
#include "natter-speech-dispatcher.h"
#include "natter-test-support.h"
#include "natter-test-transcriber.h"
#include "natter-voice-error.h"

#define WAIT_MS 10000

static void
result_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Whether GStreamer and the elements of a file recording are here. */
static gboolean
can_record_files (void)
{
#ifdef HAVE_GSTREAMER
  static const char *const elements[] = { "filesrc", "wavparse", "audioconvert", "audioresample", "level",
                                          "appsink" };

  if (!natter_recorder_is_available ())
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (elements); i++)
    {
      g_autoptr(GstElementFactory) factory = gst_element_factory_find (elements[i]);

      if (factory == NULL)
        return FALSE;
    }
  return TRUE;
#else
  return FALSE;
#endif
}

static GBytes *
record (const char  *source,
        GError     **error)
{
  g_autoptr(NatterRecorder) recorder = natter_recorder_new ();
  g_autoptr(GAsyncResult) result = NULL;

  g_setenv (NATTER_RECORDING_SOURCE_ENV, source, TRUE);
  natter_recorder_record_async (recorder, NULL, result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, WAIT_MS);
  return natter_recorder_record_finish (recorder, result, error);
}

static void
test_record_file (void)
{
  g_autoptr(GFile) dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GBytes) wav = natter_test_wav_new (8000);
  g_autoptr(GBytes) recorded = NULL;
  g_autoptr(GError) error = NULL;

  if (!can_record_files ())
    {
      g_test_skip ("GStreamer or its wavparse, audioconvert, level or appsink element is not installed");
      return;
    }
  dir = natter_test_make_temp_dir ();
  path = g_build_filename (g_file_peek_path (dir), "half-a-second.wav", NULL);
  g_file_set_contents (path, g_bytes_get_data (wav, NULL), g_bytes_get_size (wav), &error);
  g_assert_no_error (error);

  /* 16 kHz mono in, the same out: every sample kept, framed alike. */
  recorded = record (path, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (recorded, wav));

  natter_test_remove_tree (dir);
}

static void
test_record_missing_file (void)
{
  g_autoptr(GBytes) recorded = NULL;
  g_autoptr(GError) error = NULL;

  if (!can_record_files ())
    {
      g_test_skip ("GStreamer or its wavparse, audioconvert, level or appsink element is not installed");
      return;
    }
  recorded = record ("/nonexistent/dictation.wav", &error);
  g_assert_null (recorded);
  g_assert_true (g_error_matches (error, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_RECORDING) ||
                 g_error_matches (error, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_MICROPHONE));
}

static void
test_plain_text (void)
{
  g_autofree char *plain = natter_speech_plain_text ("# Result\n\n"
                                                     "The **answer** is `42`, see [the docs](https://x.org/a).\n"
                                                     "- first\n"
                                                     "- second\n\n"
                                                     "```python\nprint(\"hi\")\n```\n"
                                                     "> Done.");

  g_assert_cmpstr (plain, ==, "Result\n\n"
                              "The answer is 42, see the docs.\n"
                              "first\n"
                              "second\n\n"
                              "Code block in python.\n"
                              "Done.");
}

/* Speech Dispatcher of its own, on a socket in @dir, speaking through
 * the dummy output module into a null sound device. */
typedef struct
{
  GFile       *dir;
  GSubprocess *daemon;
  char        *socket;
  gboolean     exited;
} Speechd;

static void
daemon_exited_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  gboolean *exited = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  *exited = TRUE;
}

static void
directory_changed_cb (GFileMonitor      *monitor,
                      GFile             *file,
                      GFile             *other,
                      GFileMonitorEvent  event)
{
}

static gboolean
socket_ready (gpointer data)
{
  Speechd *speechd = data;

  return g_file_test (speechd->socket, G_FILE_TEST_EXISTS) || speechd->exited;
}

static gboolean
speechd_start (Speechd *speechd)
{
  const char *modules = g_getenv ("NATTER_SPEECHD_MODULES");
  g_autofree char *binary = g_find_program_in_path ("speech-dispatcher");
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GFileMonitor) monitor = NULL;
  g_autofree char *conf = NULL;
  g_autofree char *asound = NULL;
  g_autofree char *pid = NULL;
  g_autoptr(GError) error = NULL;
  const char *path;

  memset (speechd, 0, sizeof *speechd);
  if (modules == NULL || modules[0] == '\0' || binary == NULL)
    return FALSE;
  speechd->dir = natter_test_make_temp_dir ();
  path = g_file_peek_path (speechd->dir);
  conf = g_build_filename (path, "speechd.conf", NULL);
  asound = g_build_filename (path, "asound.conf", NULL);
  pid = g_build_filename (path, "pid", NULL);
  speechd->socket = g_build_filename (path, "speechd.sock", NULL);
  g_file_set_contents (conf, "AddModule \"dummy\" \"sd_dummy\" \"dummy.conf\"\n"
                             "DefaultModule dummy\n"
                             "AudioOutputMethod \"alsa\"\n", -1, &error);
  g_assert_no_error (error);
  g_file_set_contents (asound, "pcm.!default { type null }\n", -1, &error);
  g_assert_no_error (error);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_setenv (launcher, "ALSA_CONFIG_PATH", asound, TRUE);
  speechd->daemon = g_subprocess_launcher_spawn (launcher, &error, binary, "--run-single", "--timeout", "0",
                                                 "--config-dir", path, "--module-dir", modules,
                                                 "--communication-method", "unix_socket",
                                                 "--socket-path", speechd->socket, "--pid-file", pid,
                                                 "--log-dir", path, NULL);
  g_assert_no_error (error);
  g_subprocess_wait_async (speechd->daemon, NULL, daemon_exited_cb, &speechd->exited);
  /* The directory's monitor wakes the wait when the socket appears. */
  monitor = g_file_monitor_directory (speechd->dir, G_FILE_MONITOR_NONE, NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (monitor, "changed", G_CALLBACK (directory_changed_cb), NULL);
  if (!natter_test_wait_until (socket_ready, speechd, WAIT_MS) || !g_file_test (speechd->socket, G_FILE_TEST_EXISTS))
    return FALSE;
  {
    g_autofree char *address = g_strconcat ("unix_socket:", speechd->socket, NULL);

    g_setenv ("SPEECHD_ADDRESS", address, TRUE);
  }
  return TRUE;
}

static gboolean
daemon_exited (gpointer data)
{
  return ((Speechd *) data)->exited;
}

/* Stops the daemon. Asked to end, it closes its output module and waits
 * for it, which on a busy machine has taken longer than WAIT_MS (its log
 * ends at "Closing module"); how it ends is not what is tested, so one
 * that is still closing then is killed. */
static void
speechd_stop (Speechd *speechd)
{
  if (speechd->daemon != NULL)
    {
      if (!speechd->exited)
        g_subprocess_send_signal (speechd->daemon, SIGTERM);
      if (!natter_test_wait_until (daemon_exited, speechd, WAIT_MS))
        g_subprocess_force_exit (speechd->daemon);
      natter_test_wait_for_flag (&speechd->exited, WAIT_MS);
      g_clear_object (&speechd->daemon);
    }
  if (speechd->dir != NULL)
    {
      natter_test_remove_tree (speechd->dir);
      g_clear_object (&speechd->dir);
    }
  g_clear_pointer (&speechd->socket, g_free);
  g_unsetenv ("SPEECHD_ADDRESS");
}

static gboolean
speaking_ends (gpointer data)
{
  return natter_speech_get_speaking (data) == NULL;
}

static void
test_speech_dispatcher (void)
{
#ifdef HAVE_SPEECHD
  Speechd speechd;
  g_autoptr(NatterSpeech) speech = NULL;
  g_autoptr(GError) error = NULL;

  if (!speechd_start (&speechd))
    {
      speechd_stop (&speechd);
      g_test_skip ("speech-dispatcher with its dummy output module could not be started here");
      return;
    }
  speech = natter_speech_dispatcher_new ();

  /* Said to its end: the service tells, and nothing is spoken then. */
  g_assert_true (natter_speech_speak (speech, "Hello.", "turn-1", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (natter_speech_get_speaking (speech), ==, "turn-1");
  g_assert_true (natter_test_wait_until (speaking_ends, speech, WAIT_MS));

  /* A second text stops the first; the first's late end is not the
   * second's. Stop ends it at once. */
  g_assert_true (natter_speech_speak (speech, "One answer.", "turn-1", &error));
  g_assert_true (natter_speech_speak (speech, "Another answer.", "turn-2", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (natter_speech_get_speaking (speech), ==, "turn-2");
  natter_speech_stop (speech);
  g_assert_null (natter_speech_get_speaking (speech));

  g_clear_object (&speech);
  speechd_stop (&speechd);
#else
  g_test_skip ("Natter was built without Speech Dispatcher (libspeechd)");
#endif
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/voice/record/file", test_record_file);
  g_test_add_func ("/voice/record/missing-file", test_record_missing_file);
  g_test_add_func ("/voice/plain-text", test_plain_text);
  g_test_add_func ("/voice/speech-dispatcher", test_speech_dispatcher);
  return g_test_run ();
}
