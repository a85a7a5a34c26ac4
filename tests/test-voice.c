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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/voice/record/file", test_record_file);
  g_test_add_func ("/voice/record/missing-file", test_record_missing_file);
  g_test_add_func ("/voice/plain-text", test_plain_text);
  return g_test_run ();
}
