/* natter-window-voice.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Speech in and out of the window. Read Aloud on an answer (its button,
 * or Ctrl+Shift+R on the focused answer) speaks the answer's plain words
 * through the window's #NatterSpeech, Speech Dispatcher unless a test
 * gave another, opened on first use; the same again stops it, and
 * another answer takes its place. The microphone of the composer (or
 * Ctrl+Shift+D) records with #NatterRecorder until pressed again, then
 * sends the recording to the chosen provider's transcription model and
 * puts the words where the cursor was when recording began; what was
 * typed meanwhile stays. Every failure is a toast in plain words; a
 * cancelled dictation says nothing.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-dictation.h"
#include "natter-error-words.h"
#include "natter-recorder.h"
#include "natter-speech-dispatcher.h"
#include "natter-toast-guard.h"
#include "natter-turn-row.h"
#include "natter-window-private.h"

#define DICTATION_TICK_MS 250

/* What became of what the person just asked for (takes @text): shown at
 * once, not queued behind an earlier toast, which a pointer over it or
 * the focus on its close button holds on screen for good. */
static void
voice_toast (NatterWindow *self,
             char         *text)
{
  g_autofree char *owned = text;
  g_autofree char *escaped = g_markup_escape_text (owned, -1);
  AdwToast *toast = adw_toast_new (escaped);

  adw_toast_set_timeout (toast, 8);
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  natter_toast_guard_add (self->toast_overlay, toast);
}

/* Read aloud */

static void
mark_speaking (NatterWindow *self,
               const char   *turn_id,
               gboolean      speaking)
{
  GHashTableIter iter;
  gpointer timeline;

  if (turn_id == NULL)
    return;
  g_hash_table_iter_init (&iter, self->conversation.timelines);
  while (g_hash_table_iter_next (&iter, NULL, &timeline))
    {
      NatterTurnItem *item = natter_timeline_model_lookup (timeline, turn_id);

      if (item != NULL)
        natter_turn_item_set_speaking (item, speaking);
    }
}

static void
speaking_changed_cb (NatterWindow *self)
{
  const char *speaking = natter_speech_get_speaking (self->voice.speech);

  mark_speaking (self, self->voice.speaking_turn_id, FALSE);
  g_free (self->voice.speaking_turn_id);
  self->voice.speaking_turn_id = g_strdup (speaking);
  mark_speaking (self, self->voice.speaking_turn_id, TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-reading", speaking != NULL);
}

/**
 * natter_window_set_speech:
 * @self: the window
 * @speech: (nullable): who reads answers aloud; %NULL makes the window
 *   use Speech Dispatcher when first asked
 *
 * Test seam: a fake speaker instead of the desktop's speech service.
 */
void
natter_window_set_speech (NatterWindow *self,
                          NatterSpeech *speech)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (speech == NULL || NATTER_IS_SPEECH (speech));

  if (self->voice.speech != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->voice.speech, self);
      natter_speech_stop (self->voice.speech);
    }
  g_set_object (&self->voice.speech, speech);
  if (speech != NULL)
    g_signal_connect_swapped (speech, "notify::speaking", G_CALLBACK (speaking_changed_cb), self);
  speaking_changed_cb (self);
}

static void
read_aloud_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autoptr(GError) error = NULL;
  g_autofree char *plain = NULL;
  const char *turn_id;
  const char *text;

  g_variant_get (parameter, "(&s&s)", &turn_id, &text);
  if (self->voice.speech == NULL)
    {
      g_autoptr(NatterSpeech) speech = natter_speech_dispatcher_new ();

      natter_window_set_speech (self, speech);
    }
  /* The same answer again: Stop. */
  if (g_strcmp0 (natter_speech_get_speaking (self->voice.speech), turn_id) == 0)
    {
      natter_speech_stop (self->voice.speech);
      return;
    }
  plain = natter_speech_plain_text (text);
  if (!natter_speech_speak (self->voice.speech, plain, turn_id, &error))
    voice_toast (self, g_strdup (error->message));
}

static void
stop_reading_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (self->voice.speech != NULL)
    natter_speech_stop (self->voice.speech);
}

/* Ctrl+Shift+R: the answer of the turn the focus is in. */
static void
read_aloud_focused_activated (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkWidget *row = focus != NULL ? gtk_widget_get_ancestor (focus, NATTER_TYPE_TURN_ROW) : NULL;

  /* The list's item itself holds the focus when no control in it does. */
  if (row == NULL && focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self->conversation.timeline_list)))
    {
      GtkWidget *child = gtk_widget_get_first_child (focus);

      row = child != NULL && NATTER_IS_TURN_ROW (child) ? child : NULL;
    }
  if (row == NULL || !natter_turn_row_read_aloud (NATTER_TURN_ROW (row)))
    {
      if (self->voice.speech != NULL && natter_speech_get_speaking (self->voice.speech) != NULL)
        natter_speech_stop (self->voice.speech);
      else
        voice_toast (self, g_strdup (_("Move the focus to an answer to read it aloud")));
    }
}

/* Dictation */

static void
dictation_stop_ticking (NatterWindow *self)
{
  g_clear_handle_id (&self->voice.dictation_tick_id, g_source_remove);
  if (self->voice.recorder != NULL)
    g_signal_handlers_disconnect_by_data (self->voice.recorder, self);
}

static void
dictation_progress (NatterWindow *self)
{
  gint64 elapsed = g_get_monotonic_time () - self->voice.dictation_started;

  natter_composer_set_dictation_progress (self->conversation.composer, natter_recorder_get_level (self->voice.recorder),
                                          (guint) (elapsed / G_USEC_PER_SEC));
}

static gboolean
dictation_tick_cb (gpointer data)
{
  dictation_progress (data);
  return G_SOURCE_CONTINUE;
}

static void
dictation_end (NatterWindow *self)
{
  dictation_stop_ticking (self);
  g_clear_object (&self->voice.dictation_cancellable);
  g_clear_pointer (&self->voice.dictation_provider, g_free);
  natter_composer_set_dictation (self->conversation.composer, NATTER_COMPOSER_DICTATION_IDLE);
}

static void
dictation_failed (NatterWindow *self,
                  const GError *error)
{
  g_autofree char *words = NULL;

  dictation_end (self);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_error_matches (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_CANCELLED))
    return;
  words = natter_error_words_local (error->message);
  /* Translators: %s is why, e.g. the server's words */
  voice_toast (self, g_strdup_printf (_("Dictation failed: %s"), words));
}

static void
transcribed_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = natter_dictation_transcribe_finish (result, &error);

  /* The window went away meanwhile. */
  if (self->voice.dictation_cancellable == NULL)
    return;
  if (text == NULL)
    {
      dictation_failed (self, error);
      return;
    }
  if (text[0] == '\0')
    {
      dictation_end (self);
      voice_toast (self, g_strdup (_("No words were heard in the recording")));
      return;
    }
  natter_composer_insert_dictation (self->conversation.composer, text);
  dictation_end (self);
}

static void
recorded_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) wav = natter_recorder_record_finish (NATTER_RECORDER (source), result, &error);

  if (self->voice.dictation_cancellable == NULL)
    return;
  if (wav == NULL)
    {
      dictation_failed (self, error);
      return;
    }
  dictation_stop_ticking (self);
  natter_composer_set_dictation (self->conversation.composer, NATTER_COMPOSER_DICTATION_TRANSCRIBING);
  natter_dictation_transcribe_async (self->settings, self->choice.registry, self->voice.dictation_provider, wav,
                                     self->voice.dictation_cancellable, transcribed_cb, g_object_ref (self));
}

/* The provider whose transcription model dictation uses: the one of the
 * model picker, else the window's default. */
static const char *
dictation_provider (NatterWindow *self)
{
  const char *provider = natter_model_picker_get_provider_id (self->choice.model_picker);

  return provider != NULL ? provider : self->choice.provider_id;
}

/* Why dictation cannot start now, or NULL when it can (transfer full). */
static char *
dictation_obstacle (NatterWindow *self)
{
  const char *provider = dictation_provider (self);
  g_autofree char *model = NULL;

  if (self->choice.registry == NULL || provider == NULL)
    return g_strdup (_("To dictate, add a provider in Preferences"));
  model = natter_settings_dup_transcription_model (self->settings, provider);
  if (model == NULL)
    /* Translators: %s is a provider's id */
    return g_strdup_printf (_("To dictate, set a transcription model for %s in Preferences, Providers"), provider);
  return NULL;
}

/**
 * _natter_window_update_dictation_hint:
 * @self: the window
 *
 * Tells the microphone button whether dictation can start, and why not.
 */
void
_natter_window_update_dictation_hint (NatterWindow *self)
{
  g_autofree char *obstacle = dictation_obstacle (self);

  natter_composer_set_dictation_hint (self->conversation.composer, obstacle);
}

static void
dictate_activated (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autofree char *obstacle = NULL;

  switch (natter_composer_get_dictation (self->conversation.composer))
    {
    case NATTER_COMPOSER_DICTATION_RECORDING:
      natter_recorder_stop (self->voice.recorder);
      return;
    case NATTER_COMPOSER_DICTATION_TRANSCRIBING:
      g_cancellable_cancel (self->voice.dictation_cancellable);
      return;
    case NATTER_COMPOSER_DICTATION_IDLE:
    default:
      break;
    }

  obstacle = dictation_obstacle (self);
  _natter_window_update_dictation_hint (self);
  if (obstacle != NULL)
    {
      voice_toast (self, g_steal_pointer (&obstacle));
      return;
    }
  if (self->voice.recorder == NULL)
    self->voice.recorder = natter_recorder_new ();
  self->voice.dictation_provider = g_strdup (dictation_provider (self));
  self->voice.dictation_cancellable = g_cancellable_new ();
  self->voice.dictation_started = g_get_monotonic_time ();
  natter_composer_set_dictation (self->conversation.composer, NATTER_COMPOSER_DICTATION_RECORDING);
  g_signal_connect_swapped (self->voice.recorder, "notify::level", G_CALLBACK (dictation_progress), self);
  self->voice.dictation_tick_id = g_timeout_add (DICTATION_TICK_MS, dictation_tick_cb, self);
  natter_recorder_record_async (self->voice.recorder, self->voice.dictation_cancellable, recorded_cb, g_object_ref (self));
}

/**
 * _natter_window_voice_dispose:
 * @self: the window
 *
 * Stops reading aloud and drops a dictation under way.
 */
void
_natter_window_voice_dispose (NatterWindow *self)
{
  if (self->voice.speech != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->voice.speech, self);
      natter_speech_stop (self->voice.speech);
      g_clear_object (&self->voice.speech);
    }
  g_clear_pointer (&self->voice.speaking_turn_id, g_free);
  if (self->voice.dictation_cancellable != NULL)
    g_cancellable_cancel (self->voice.dictation_cancellable);
  dictation_stop_ticking (self);
  g_clear_object (&self->voice.dictation_cancellable);
  g_clear_pointer (&self->voice.dictation_provider, g_free);
  g_clear_object (&self->voice.recorder);
}

void
_natter_window_voice_init (NatterWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-reading", FALSE);
  if (self->settings != NULL && natter_settings_get_gsettings (self->settings) != NULL)
    g_signal_connect_object (natter_settings_get_gsettings (self->settings), "changed::transcription-models",
                             G_CALLBACK (_natter_window_update_dictation_hint), self, G_CONNECT_SWAPPED);
  g_signal_connect_swapped (self->choice.model_picker, "notify::model", G_CALLBACK (_natter_window_update_dictation_hint),
                            self);
  _natter_window_update_dictation_hint (self);
}

void
_natter_window_class_voice_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.read-aloud", "(ss)", read_aloud_activated);
  gtk_widget_class_install_action (widget_class, "win.stop-reading", NULL, stop_reading_activated);
  gtk_widget_class_install_action (widget_class, "win.read-aloud-focused", NULL, read_aloud_focused_activated);
  gtk_widget_class_install_action (widget_class, "win.dictate", NULL, dictate_activated);
}
