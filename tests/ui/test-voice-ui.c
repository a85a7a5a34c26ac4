/* test-voice-ui.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Speech in the window. Dictation records a WAV file (never the
 * microphone: NATTER_RECORDING_SOURCE names it) and the scripted
 * transcription server makes it text, which lands where the cursor was,
 * beside what was typed; a refused model and a cancelled dictation keep
 * the message as it was. Read Aloud speaks an answer's plain words
 * through a fake speaker, the same button stops it, and a missing speech
 * service is a toast in plain words.
 */

#include "config.h"

#include <string.h>

#include "natter-composer.h"
#include "natter-provider-registry.h"
#include "natter-recorder.h"
#include "natter-test-speech.h"
#include "natter-test-transcriber.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

typedef struct
{
  UiWorld                *u;
  NatterWindow           *window;
  NatterComposer         *composer;
  NatterTestTranscriber  *transcriber;
  NatterProviderRegistry *registry;
  GFile                  *dir;
} Dictation;

static gboolean
can_record_files (void)
{
#ifdef HAVE_GSTREAMER
  return natter_recorder_is_available ();
#else
  return FALSE;
#endif
}

/* Whether a label under @root starts with @prefix and holds @words. */
static gboolean
label_shown_with (gpointer    root,
                  const char *prefix,
                  const char *words)
{
  g_autoptr(GPtrArray) labels = ui_find_all (root, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    {
      const char *text = gtk_label_get_text (labels->pdata[i]);

      if (g_str_has_prefix (text, prefix) && strstr (text, words) != NULL)
        return TRUE;
    }
  return FALSE;
}

typedef struct
{
  gpointer    root;
  const char *prefix;
  const char *words;
} Shown;

static gboolean
shown (gpointer data)
{
  Shown *shown = data;

  return label_shown_with (shown->root, shown->prefix, shown->words);
}

/* Waits until a toast (or any label) under @root says @prefix…@words…. */
static void
wait_shown (gpointer    root,
            const char *prefix,
            const char *words)
{
  Shown wanted = { root, prefix, words };

  ui_wait_until (shown, &wanted);
}

static gboolean
dictation_idle (gpointer data)
{
  Dictation *d = data;

  return natter_composer_get_dictation (d->composer) == NATTER_COMPOSER_DICTATION_IDLE;
}

static gboolean
transcription_held (gpointer data)
{
  Dictation *d = data;

  return d->transcriber->held != NULL &&
         natter_composer_get_dictation (d->composer) == NATTER_COMPOSER_DICTATION_TRANSCRIBING;
}

static char *
composer_text (Dictation *d)
{
  return natter_composer_dup_text (d->composer);
}

/* Dictates once (the WAV file plays to its end, as if Stop was
 * pressed) and waits until the composer is back to typing. */
static void
dictate (Dictation *d)
{
  gtk_widget_activate_action (GTK_WIDGET (d->window), "win.dictate", NULL);
  g_assert_cmpint (natter_composer_get_dictation (d->composer), !=, NATTER_COMPOSER_DICTATION_IDLE);
  ui_wait_until (dictation_idle, d);
}

static void
test_dictation (void)
{
  Dictation d = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *wav_path = NULL;
  g_autoptr(GBytes) wav = natter_test_wav_new (4000);
  g_autoptr(GError) error = NULL;
  GtkTextView *view;
  GtkTextBuffer *buffer;
  GtkTextIter end;

  if (!can_record_files ())
    {
      g_test_skip ("Natter was built without GStreamer, or GStreamer cannot start");
      return;
    }
  d.u = ui_world_new ();
  d.dir = natter_test_make_temp_dir ();
  wav_path = g_build_filename (g_file_peek_path (d.dir), "dictation.wav", NULL);
  g_file_set_contents (wav_path, g_bytes_get_data (wav, NULL), g_bytes_get_size (wav), &error);
  g_assert_no_error (error);
  g_setenv (NATTER_RECORDING_SOURCE_ENV, wav_path, TRUE);
  d.transcriber = natter_test_transcriber_new (" Hello from the microphone.\n");
  d.registry = natter_provider_registry_new (NULL, NULL, NULL);
  natter_provider_registry_add_provider (d.registry, "groq", "Groq", d.transcriber->base_url);

  session_id = ui_create_session (d.u, "Dictated");
  d.window = ui_window_new (app, d.u);
  g_assert_true (natter_window_open_session (d.window, session_id));
  ui_wait_until (ui_timeline_loaded, d.window);
  natter_window_set_model_provider (d.window, d.registry, "groq", "whisper-large-v3");
  d.composer = natter_window_get_composer (d.window);

  /* No transcription model yet: the microphone says where to set one,
   * and nothing is recorded or sent. */
  natter_settings_set_transcription_model (d.u->settings, "groq", NULL);
  gtk_widget_activate_action (GTK_WIDGET (d.window), "win.dictate", NULL);
  g_assert_cmpint (natter_composer_get_dictation (d.composer), ==, NATTER_COMPOSER_DICTATION_IDLE);
  wait_shown (d.window, "To dictate, set a transcription model for groq in Preferences, Providers", "");
  g_assert_cmpuint (d.transcriber->requests, ==, 0);

  /* The words go at the cursor, after what was typed. */
  natter_settings_set_transcription_model (d.u->settings, "groq", "whisper-large-v3");
  natter_composer_set_text (d.composer, "Please summarise:");
  dictate (&d);
  {
    g_autofree char *text = composer_text (&d);

    g_assert_cmpstr (text, ==, "Please summarise: Hello from the microphone.");
  }
  g_assert_cmpuint (d.transcriber->requests, ==, 1);
  g_assert_cmpstr (d.transcriber->model, ==, "whisper-large-v3");
  g_assert_true (g_bytes_equal (d.transcriber->file, wav));

  /* A refused model: a toast in the server's words, the message kept. */
  d.transcriber->script = NATTER_TEST_TRANSCRIBE_FAILS;
  dictate (&d);
  {
    g_autofree char *text = composer_text (&d);

    g_assert_cmpstr (text, ==, "Please summarise: Hello from the microphone.");
  }
  wait_shown (d.window, "Dictation failed: ", "`whisper-9` does not exist");

  /* Typing goes on while the words are made; cancelling then keeps it
   * all and says nothing. */
  d.transcriber->script = NATTER_TEST_TRANSCRIBE_HOLDS;
  natter_composer_set_text (d.composer, "Draft");
  gtk_widget_activate_action (GTK_WIDGET (d.window), "win.dictate", NULL);
  ui_wait_until (transcription_held, &d);
  view = GTK_TEXT_VIEW (ui_find_first (d.composer, GTK_TYPE_TEXT_VIEW));
  buffer = gtk_text_view_get_buffer (view);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, " typed meanwhile", -1);
  gtk_widget_activate_action (GTK_WIDGET (d.window), "win.dictate", NULL);
  ui_wait_until (dictation_idle, &d);
  {
    g_autofree char *text = composer_text (&d);

    g_assert_cmpstr (text, ==, "Draft typed meanwhile");
  }

  g_unsetenv (NATTER_RECORDING_SOURCE_ENV);
  ui_destroy_window (d.window);
  g_object_unref (d.registry);
  natter_test_transcriber_free (d.transcriber);
  natter_test_remove_tree (d.dir);
  g_object_unref (d.dir);
  ui_world_free (d.u);
}

typedef struct
{
  NatterWindow   *window;
  NatterTurnRow  *row;
} Answer;

static gboolean
answer_shown (gpointer data)
{
  Answer *a = data;
  g_autoptr(GPtrArray) rows = ui_find_all (a->window, NATTER_TYPE_TURN_ROW);

  ui_settle ();
  a->row = NULL;
  for (guint i = 0; i < rows->len; i++)
    if (ui_label_shown (rows->pdata[i], "Plan"))
      a->row = rows->pdata[i];
  return a->row != NULL;
}

static gboolean
is_read_aloud (GtkWidget *widget)
{
  const char *tooltip = gtk_widget_get_tooltip_text (widget);

  return g_strcmp0 (tooltip, "Read Aloud") == 0 || g_strcmp0 (tooltip, "Stop Reading Aloud") == 0;
}

static void
test_read_aloud (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Spoken");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterSpeech) speech = natter_fake_speech_new ();
  NatterFakeSpeech *fake = NATTER_FAKE_SPEECH (speech);
  Answer a = { 0 };
  GtkWidget *button;

  a.window = ui_window_new (app, u);
  natter_window_set_speech (a.window, speech);
  g_assert_true (natter_window_open_session (a.window, session_id));
  ui_wait_until (ui_timeline_loaded, a.window);
  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"# Plan\\n\\nUse **two** steps, see "
                            "[the guide](https://example.org).\\n\\n```sh\\nrm -rf build\\n```\\n\"}",
                            NULL);
  turn_id = ui_send (u, session_id, "How?");
  ui_wait_turn (u, turn_id);
  ui_wait_until (answer_shown, &a);
  button = ui_find_first_full (a.row, GTK_TYPE_BUTTON, is_read_aloud);
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "Read Aloud");

  /* The plain words, the code block named, not read. */
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpstr (natter_fake_speech_get_spoken (fake), ==,
                   "Plan\n\nUse two steps, see the guide.\n\nCode block in sh.");
  g_assert_cmpstr (natter_speech_get_speaking (speech), ==, turn_id);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "Stop Reading Aloud");

  /* The same button stops it. */
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpuint (natter_fake_speech_get_n_stops (fake), ==, 1);
  g_assert_null (natter_speech_get_speaking (speech));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "Read Aloud");

  /* Read to its end: the button is Read Aloud again by itself. */
  g_signal_emit_by_name (button, "clicked");
  natter_fake_speech_end (fake);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "Read Aloud");
  g_assert_cmpuint (natter_fake_speech_get_n_stops (fake), ==, 1);

  /* Ctrl+Shift+R reads the answer the focus is in, and again stops it. */
  g_assert_true (gtk_widget_grab_focus (button));
  gtk_widget_activate_action (GTK_WIDGET (a.window), "win.read-aloud-focused", NULL);
  g_assert_cmpstr (natter_speech_get_speaking (speech), ==, turn_id);
  gtk_widget_activate_action (GTK_WIDGET (a.window), "win.read-aloud-focused", NULL);
  g_assert_null (natter_speech_get_speaking (speech));
  g_assert_cmpuint (natter_fake_speech_get_n_stops (fake), ==, 2);

  /* No speech service: said in plain words. */
  natter_fake_speech_set_unavailable (fake, TRUE);
  g_signal_emit_by_name (button, "clicked");
  g_assert_null (natter_speech_get_speaking (speech));
  wait_shown (a.window, "Cannot read aloud: the speech service (Speech Dispatcher) is not running or not installed",
              "");

  ui_destroy_window (a.window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/voice/dictation", test_dictation);
  g_test_add_func ("/voice/read-aloud", test_read_aloud);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
