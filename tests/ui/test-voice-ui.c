/* test-voice-ui.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Speech in the window. Dictation records a WAV file (never the
 * microphone: NATTER_RECORDING_SOURCE names it) and the scripted
 * transcription server makes it text, which lands where the cursor was,
 * beside what was typed; a refused model and a cancelled dictation keep
 * the message as it was. It goes to the provider of the conversation's
 * model, and its words to the conversation it began in, even when
 * another is open by the time they come. Read Aloud speaks an answer's
 * plain words through a fake speaker; it shows over the answer's
 * actions when the focus is in the answer, the same button stops it, as
 * does the bar above the composer while it reads; a missing speech
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

/* Two providers with a transcription model each, on scripted servers:
 * "groq", the default, and "other". */
typedef struct
{
  UiWorld                *u;
  NatterWindow           *window;
  NatterComposer         *composer;
  NatterTestTranscriber  *groq;
  NatterTestTranscriber  *other;
  NatterProviderRegistry *registry;
  GFile                  *dir;
  GBytes                 *wav;
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

  return d->groq->held != NULL &&
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

/* The WAV file, the two servers and their providers; no window yet. */
static gboolean
dictation_setup (Dictation *d)
{
  g_autofree char *wav_path = NULL;
  g_autoptr(GError) error = NULL;

  if (!can_record_files ())
    {
      g_test_skip ("Natter was built without GStreamer, or GStreamer cannot start");
      return FALSE;
    }
  d->u = ui_world_new ();
  d->dir = natter_test_make_temp_dir ();
  d->wav = natter_test_wav_new (4000);
  wav_path = g_build_filename (g_file_peek_path (d->dir), "dictation.wav", NULL);
  g_file_set_contents (wav_path, g_bytes_get_data (d->wav, NULL), g_bytes_get_size (d->wav), &error);
  g_assert_no_error (error);
  g_setenv (NATTER_RECORDING_SOURCE_ENV, wav_path, TRUE);
  d->groq = natter_test_transcriber_new (" Hello from the microphone.\n");
  d->other = natter_test_transcriber_new ("Words from the other server.");
  d->registry = natter_provider_registry_new (NULL, NULL, NULL);
  natter_provider_registry_add_provider (d->registry, "groq", "Groq", d->groq->base_url);
  natter_provider_registry_add_provider (d->registry, "other", "Other", d->other->base_url);
  natter_settings_set_transcription_model (d->u->settings, "groq", "whisper-large-v3");
  natter_settings_set_transcription_model (d->u->settings, "other", "whisper-large-v3");
  return TRUE;
}

/* A window on @session_id, "groq" the default provider. */
static void
dictation_open (Dictation  *d,
                const char *session_id)
{
  d->window = ui_window_new (app, d->u);
  g_assert_true (natter_window_open_session (d->window, session_id));
  ui_wait_until (ui_timeline_loaded, d->window);
  natter_window_set_model_provider (d->window, d->registry, "groq", "whisper-large-v3");
  d->composer = natter_window_get_composer (d->window);
}

static void
dictation_teardown (Dictation *d)
{
  g_unsetenv (NATTER_RECORDING_SOURCE_ENV);
  ui_destroy_window (d->window);
  g_object_unref (d->registry);
  natter_test_transcriber_free (d->groq);
  natter_test_transcriber_free (d->other);
  natter_test_remove_tree (d->dir);
  g_object_unref (d->dir);
  g_bytes_unref (d->wav);
  ui_world_free (d->u);
}

static void
test_dictation (void)
{
  Dictation d = { 0 };
  g_autofree char *session_id = NULL;
  GtkTextView *view;
  GtkTextBuffer *buffer;
  GtkTextIter end;

  if (!dictation_setup (&d))
    return;
  session_id = ui_create_session (d.u, "Dictated");
  dictation_open (&d, session_id);

  /* No transcription model yet: the microphone says where to set one,
   * and nothing is recorded or sent. */
  natter_settings_set_transcription_model (d.u->settings, "groq", NULL);
  gtk_widget_activate_action (GTK_WIDGET (d.window), "win.dictate", NULL);
  g_assert_cmpint (natter_composer_get_dictation (d.composer), ==, NATTER_COMPOSER_DICTATION_IDLE);
  wait_shown (d.window, "To dictate, set a transcription model for Groq in Preferences, Providers", "");
  g_assert_cmpuint (d.groq->requests, ==, 0);

  /* The words go at the cursor, after what was typed. */
  natter_settings_set_transcription_model (d.u->settings, "groq", "whisper-large-v3");
  natter_composer_set_text (d.composer, "Please summarise:");
  dictate (&d);
  {
    g_autofree char *text = composer_text (&d);

    g_assert_cmpstr (text, ==, "Please summarise: Hello from the microphone.");
  }
  g_assert_cmpuint (d.groq->requests, ==, 1);
  g_assert_cmpstr (d.groq->model, ==, "whisper-large-v3");
  g_assert_true (g_bytes_equal (d.groq->file, d.wav));

  /* A refused model: a toast in the server's words, the message kept. */
  d.groq->script = NATTER_TEST_TRANSCRIBE_FAILS;
  dictate (&d);
  {
    g_autofree char *text = composer_text (&d);

    g_assert_cmpstr (text, ==, "Please summarise: Hello from the microphone.");
  }
  wait_shown (d.window, "Dictation failed: ", "`whisper-9` does not exist");

  /* Typing goes on while the words are made; cancelling then keeps it
   * all and says nothing. */
  d.groq->script = NATTER_TEST_TRANSCRIBE_HOLDS;
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

  dictation_teardown (&d);
}

/* Dictation goes to the transcription model of the provider the
 * conversation's next message goes to, the one its model picker shows,
 * never to another: a conversation whose model is on a provider that is
 * not set up is told so, and nothing is sent. */
static void
test_dictation_provider (void)
{
  Dictation d = { 0 };
  g_autofree char *on_other = NULL;
  g_autofree char *on_default = NULL;
  g_autofree char *on_gone = NULL;
  g_autofree char *turn_id = NULL;

  if (!dictation_setup (&d))
    return;
  on_other = ui_create_session (d.u, "On Other");
  on_default = ui_create_session (d.u, "On Default");
  on_gone = ui_create_session (d.u, "On Gone");
  natter_fake_model_script (d.u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send_with_model (d.u, on_other, "Hi", "other", "whisper-large-v3");
  ui_wait_turn (d.u, turn_id);
  g_free (turn_id);
  turn_id = ui_send_with_model (d.u, on_gone, "Hi", "gone", "m");
  ui_wait_turn (d.u, turn_id);

  dictation_open (&d, on_other);
  dictate (&d);
  {
    g_autofree char *text = composer_text (&d);

    g_assert_cmpstr (text, ==, "Words from the other server.");
  }
  g_assert_cmpuint (d.other->requests, ==, 1);
  g_assert_cmpuint (d.groq->requests, ==, 0);

  g_assert_true (natter_window_open_session (d.window, on_default));
  ui_wait_until (ui_timeline_loaded, d.window);
  dictate (&d);
  {
    g_autofree char *text = composer_text (&d);

    g_assert_cmpstr (text, ==, "Hello from the microphone.");
  }
  g_assert_cmpuint (d.groq->requests, ==, 1);
  g_assert_cmpuint (d.other->requests, ==, 1);

  g_assert_true (natter_window_open_session (d.window, on_gone));
  ui_wait_until (ui_timeline_loaded, d.window);
  gtk_widget_activate_action (GTK_WIDGET (d.window), "win.dictate", NULL);
  g_assert_cmpint (natter_composer_get_dictation (d.composer), ==, NATTER_COMPOSER_DICTATION_IDLE);
  wait_shown (d.window, "To dictate, add gone as a provider in Preferences", "or pick a model of another provider");
  g_assert_cmpuint (d.groq->requests, ==, 1);
  g_assert_cmpuint (d.other->requests, ==, 1);

  dictation_teardown (&d);
}

typedef struct
{
  Dictation  *d;
  const char *session_id;
  const char *text;
} Draft;

static gboolean
draft_is (gpointer data)
{
  Draft *draft = data;

  return g_strcmp0 (g_hash_table_lookup (draft->d->window->conversation.drafts, draft->session_id),
                    draft->text) == 0;
}

static gboolean
no_dictation_under_way (gpointer data)
{
  Dictation *d = data;

  return d->window->voice.dictations->len == 0;
}

static gboolean
is_stop_dictation (GtkWidget *widget)
{
  return g_strcmp0 (gtk_widget_get_tooltip_text (widget), "Stop Dictation") == 0;
}

/* Words dictated in one conversation go to that conversation, even when
 * another is open by the time they come: into its draft, said in a
 * toast, and there when it is opened again. Leaving while recording
 * ends the recording; whatever it makes never reaches the conversation
 * on screen. */
static void
test_dictation_stays_with_its_conversation (void)
{
  Dictation d = { 0 };
  g_autofree char *notes = NULL;
  g_autofree char *shopping = NULL;
  Draft wanted;

  if (!dictation_setup (&d))
    return;
  notes = ui_create_session (d.u, "Meeting notes");
  shopping = ui_create_session (d.u, "Shopping");
  dictation_open (&d, notes);

  d.groq->script = NATTER_TEST_TRANSCRIBE_HOLDS;
  natter_composer_set_text (d.composer, "Draft:");
  gtk_widget_activate_action (GTK_WIDGET (d.window), "win.dictate", NULL);
  ui_wait_until (transcription_held, &d);

  g_assert_true (natter_window_open_session (d.window, shopping));
  ui_wait_until (ui_timeline_loaded, d.window);
  g_assert_cmpint (natter_composer_get_dictation (d.composer), ==, NATTER_COMPOSER_DICTATION_IDLE);
  natter_composer_set_text (d.composer, "Milk");
  natter_test_transcriber_release (d.groq);
  wanted = (Draft) { &d, notes, "Draft: Hello from the microphone." };
  ui_wait_until (draft_is, &wanted);
  wait_shown (d.window, "Dictated words added to the message in “Meeting notes”", "");
  {
    g_autofree char *text = composer_text (&d);

    g_assert_cmpstr (text, ==, "Milk");
  }
  /* The toast's Open goes there. */
  ui_click_toast_button (d.window, "_Open");
  g_assert_cmpstr (natter_window_get_session_id (d.window), ==, notes);
  /* An Open whose conversation is gone says so and stays. */
  gtk_widget_activate_action (GTK_WIDGET (d.window), "win.open-conversation", "s", "2026-01-01T00-00-00Z-0000000-000");
  wait_shown (d.window, "The conversation is no longer available.", "");
  g_assert_cmpstr (natter_window_get_session_id (d.window), ==, notes);
  ui_wait_until (ui_timeline_loaded, d.window);
  {
    g_autofree char *text = composer_text (&d);

    g_assert_cmpstr (text, ==, "Draft: Hello from the microphone.");
  }

  /* Left while recording: the recording ends there. */
  natter_composer_set_text (d.composer, NULL);
  gtk_widget_activate_action (GTK_WIDGET (d.window), "win.dictate", NULL);
  g_assert_cmpint (natter_composer_get_dictation (d.composer), ==, NATTER_COMPOSER_DICTATION_RECORDING);
  /* Stop is a filled red button: a flat one's white icon would not show
   * on a light field. */
  {
    GtkWidget *stop = ui_find_first_full (d.composer, GTK_TYPE_BUTTON, is_stop_dictation);

    g_assert_nonnull (stop);
    g_assert_true (gtk_widget_has_css_class (stop, "destructive-action"));
    g_assert_false (gtk_widget_has_css_class (stop, "flat"));
  }
  g_assert_true (natter_window_open_session (d.window, shopping));
  g_assert_cmpint (natter_composer_get_dictation (d.composer), ==, NATTER_COMPOSER_DICTATION_IDLE);
  ui_wait_until (no_dictation_under_way, &d);
  {
    g_autofree char *text = composer_text (&d);

    g_assert_cmpstr (text, ==, "Milk");
  }

  dictation_teardown (&d);
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

static gboolean
is_copy (GtkWidget *widget)
{
  return g_strcmp0 (gtk_widget_get_tooltip_text (widget), "Copy Message") == 0;
}

static gboolean
is_stop_reading (GtkWidget *widget)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), "_Stop") == 0;
}

static gboolean
stop_reading_shown (gpointer window)
{
  return ui_find_first_full (((NatterWindow *) window)->conversation.view, GTK_TYPE_BUTTON, is_stop_reading) != NULL;
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
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, "Read Aloud");

  /* Over the answer's actions, shown once the focus is in the answer
   * (or the pointer): until then it cannot be clicked by mistake. */
  gtk_root_set_focus (GTK_ROOT (a.window), NULL);
  g_assert_false (natter_turn_row_get_read_aloud_revealed (a.row));
  g_assert_false (gtk_widget_get_can_target (button));
  g_assert_true (gtk_widget_grab_focus (ui_find_first_full (a.row, GTK_TYPE_BUTTON, is_copy)));
  g_assert_true (natter_turn_row_get_read_aloud_revealed (a.row));
  g_assert_true (gtk_widget_get_can_target (button));
  g_assert_false (natter_conversation_view_get_reading_aloud (a.window->conversation.view));

  /* The plain words, the code block named, not read. */
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpstr (natter_fake_speech_get_spoken (fake), ==,
                   "Plan\n\nUse two steps, see the guide.\n\nCode block in sh.");
  g_assert_cmpstr (natter_speech_get_speaking (speech), ==, turn_id);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "Stop Reading Aloud");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, "Stop Reading Aloud");
  /* While it reads, Stop shows wherever the focus goes, and the bar
   * above the composer says so. */
  gtk_widget_grab_focus (GTK_WIDGET (natter_window_get_composer (a.window)));
  g_assert_true (natter_turn_row_get_read_aloud_revealed (a.row));
  g_assert_true (natter_conversation_view_get_reading_aloud (a.window->conversation.view));

  /* The same button stops it. */
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpuint (natter_fake_speech_get_n_stops (fake), ==, 1);
  g_assert_null (natter_speech_get_speaking (speech));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "Read Aloud");
  g_assert_false (natter_turn_row_get_read_aloud_revealed (a.row));
  g_assert_false (natter_conversation_view_get_reading_aloud (a.window->conversation.view));

  /* Read to its end: the button is Read Aloud again by itself. */
  g_signal_emit_by_name (button, "clicked");
  natter_fake_speech_end (fake);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "Read Aloud");
  g_assert_cmpuint (natter_fake_speech_get_n_stops (fake), ==, 1);

  /* The bar's Stop stops it too. */
  g_signal_emit_by_name (button, "clicked");
  g_assert_true (natter_conversation_view_get_reading_aloud (a.window->conversation.view));
  ui_wait_until (stop_reading_shown, a.window);
  g_signal_emit_by_name (ui_find_first_full (a.window->conversation.view, GTK_TYPE_BUTTON, is_stop_reading), "clicked");
  g_assert_null (natter_speech_get_speaking (speech));
  g_assert_cmpuint (natter_fake_speech_get_n_stops (fake), ==, 2);
  g_assert_false (natter_conversation_view_get_reading_aloud (a.window->conversation.view));

  /* Ctrl+Shift+R reads the answer the focus is in, and again stops it. */
  g_assert_true (gtk_widget_grab_focus (button));
  gtk_widget_activate_action (GTK_WIDGET (a.window), "win.read-aloud-focused", NULL);
  g_assert_cmpstr (natter_speech_get_speaking (speech), ==, turn_id);
  gtk_widget_activate_action (GTK_WIDGET (a.window), "win.read-aloud-focused", NULL);
  g_assert_null (natter_speech_get_speaking (speech));
  g_assert_cmpuint (natter_fake_speech_get_n_stops (fake), ==, 3);

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
  g_test_add_func ("/voice/dictation-provider", test_dictation_provider);
  g_test_add_func ("/voice/dictation-stays-with-its-conversation", test_dictation_stays_with_its_conversation);
  g_test_add_func ("/voice/read-aloud", test_read_aloud);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
