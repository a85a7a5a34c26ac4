/* natter-window-voice.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Speech in and out of the window. Read Aloud on an answer (its button
 * over the answer's actions, or Ctrl+Shift+R on the focused answer)
 * speaks the answer's plain words through the window's #NatterSpeech,
 * Speech Dispatcher unless a test gave another, opened on first use; the
 * same again stops it, and so does the bar above the composer that says
 * an answer is being read; another answer takes its place. The
 * microphone of the composer (or Ctrl+Shift+D) records with
 * #NatterRecorder until pressed again, then sends the recording to the
 * transcription model of the provider the conversation's next message
 * goes to, and puts the words where the cursor was when recording
 * began; what was typed meanwhile stays. A dictation belongs to its
 * conversation: opening another ends its recording, and its words go to
 * the conversation it began in. Every failure is a toast in plain words;
 * a cancelled dictation says nothing.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-dictation.h"
#include "natter-error-words.h"
#include "natter-plain-text.h"
#include "natter-recorder.h"
#include "natter-speech-dispatcher.h"
#include "natter-toast-guard.h"
#include "natter-turn-row.h"
#include "natter-window-private.h"

#define DICTATION_TICK_MS 250

/* What became of what the person just asked for (takes @toast): shown at
 * once, not queued behind an earlier toast, which a pointer over it or
 * the focus on its close button holds on screen for good. */
static void
show_voice_toast (NatterWindow *self,
                  AdwToast     *toast)
{
  adw_toast_set_timeout (toast, 8);
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  natter_toast_guard_add (self->toast_overlay, toast);
}

/* show_voice_toast() with @text (taken), plain words. */
static void
voice_toast (NatterWindow *self,
             char         *text)
{
  g_autofree char *owned = text;
  g_autofree char *escaped = g_markup_escape_text (owned, -1);

  show_voice_toast (self, adw_toast_new (escaped));
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
  natter_conversation_view_set_reading_aloud (self->conversation.view, speaking != NULL);
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

/* Dictation. Each one belongs to the conversation it started in (its
 * key, as _natter_window_choice_key() gives it): leaving that
 * conversation ends its recording, and its words go into that
 * conversation's message, kept as its draft until it is opened again,
 * never into the message on screen. */

struct _NatterWindowDictation
{
  NatterWindow   *window;       /* strong; NULL once the window is gone */
  char           *key;
  char           *provider;     /* whose transcription model makes it text */
  NatterRecorder *recorder;
  GCancellable   *cancellable;
  gint64          started;
  gboolean        transcribing;
  gboolean        left;         /* its conversation was closed meanwhile */
};

static void
dictation_free (NatterWindowDictation *d)
{
  g_clear_object (&d->window);
  g_free (d->key);
  g_free (d->provider);
  g_clear_object (&d->recorder);
  g_clear_object (&d->cancellable);
  g_free (d);
}

static void
dictation_stop_ticking (NatterWindow *self)
{
  g_clear_handle_id (&self->voice.dictation_tick_id, g_source_remove);
  if (self->voice.dictation != NULL)
    g_signal_handlers_disconnect_by_data (self->voice.dictation->recorder, self);
}

static void
dictation_progress (NatterWindow *self)
{
  NatterWindowDictation *d = self->voice.dictation;
  gint64 elapsed = g_get_monotonic_time () - d->started;

  natter_composer_set_dictation_progress (self->conversation.composer, natter_recorder_get_level (d->recorder),
                                          (guint) (elapsed / G_USEC_PER_SEC));
}

static gboolean
dictation_tick_cb (gpointer data)
{
  dictation_progress (data);
  return G_SOURCE_CONTINUE;
}

/* The composer lets go of @d: it shows no dictation. */
static void
dictation_unshow (NatterWindow *self)
{
  dictation_stop_ticking (self);
  self->voice.dictation = NULL;
  natter_composer_set_dictation (self->conversation.composer, NATTER_COMPOSER_DICTATION_IDLE);
}

/* @d is over, whatever became of it: it is freed. */
static void
dictation_end (NatterWindowDictation *d)
{
  NatterWindow *self = d->window;

  if (self->voice.dictation == d)
    dictation_unshow (self);
  g_ptr_array_remove (self->voice.dictations, d);
  dictation_free (d);
}

static void
dictation_failed (NatterWindowDictation *d,
                  const GError          *error)
{
  NatterWindow *self = d->window;
  g_autofree char *words = NULL;

  dictation_end (d);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_error_matches (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_CANCELLED))
    return;
  words = natter_error_words_local (error->message);
  /* Translators: %s is why, e.g. the server's words */
  voice_toast (self, g_strdup_printf (_("Dictation failed: %s"), words));
}

/* The title of the conversation kept under @key (transfer none), or
 * NULL if it is gone. */
static const char *
conversation_title (NatterWindow *self,
                    const char   *key)
{
  NatterSessionIndexEntry *entry;
  const char *title;

  if (g_strcmp0 (key, NATTER_WINDOW_NEW_CHAT_KEY) == 0)
    return _("New chat");
  entry = self->index != NULL ? natter_session_index_lookup (self->index, key) : NULL;
  if (entry == NULL || g_hash_table_contains (self->sidebar.pending_deletes, key))
    return NULL;
  title = natter_session_index_entry_get_title (entry);
  return title != NULL && title[0] != '\0' ? title : _("New chat");
}

/* The toast of words dictated for a conversation that was deleted
 * carries the words. */
#define LEFT_WORDS "natter-dictation-words"

static void
copy_left_cb (AdwToast     *toast,
              NatterWindow *self)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)),
                          g_object_get_data (G_OBJECT (toast), LEFT_WORDS));
}

/* Words dictated for a conversation that is no longer on screen: added
 * to its message, which it keeps as its draft, and said, with a way
 * there (an action of the facets that open conversations, which call
 * this one). A conversation deleted meanwhile cannot take them: the
 * toast then offers to copy them. */
static void
deliver_left (NatterWindowDictation *d,
              const char            *text)
{
  NatterWindow *self = d->window;
  const char *title = conversation_title (self, d->key);
  const char *draft = g_hash_table_lookup (self->conversation.drafts, d->key);
  AdwToast *toast;

  if (title != NULL)
    {
      gsize len = draft != NULL ? strlen (draft) : 0;
      gboolean space = len > 0 && !g_ascii_isspace (draft[len - 1]);
      g_autofree char *message = NULL;
      g_autofree char *escaped = NULL;

      g_hash_table_replace (self->conversation.drafts, g_strdup (d->key),
                            g_strconcat (draft != NULL ? draft : "", space ? " " : "", text, NULL));
      /* Translators: %s is a conversation's title */
      message = g_strdup_printf (_("Dictated words added to the message in “%s”"), title);
      /* A toast's title is Pango markup, and a title is the user's text. */
      escaped = g_markup_escape_text (message, -1);
      toast = adw_toast_new (escaped);
      adw_toast_set_button_label (toast, _("_Open"));
      if (g_strcmp0 (d->key, NATTER_WINDOW_NEW_CHAT_KEY) == 0)
        adw_toast_set_action_name (toast, "win.new-chat");
      else
        {
          adw_toast_set_action_name (toast, "win.open-conversation");
          adw_toast_set_action_target_value (toast, g_variant_new_string (d->key));
        }
    }
  else
    {
      toast = adw_toast_new (_("The conversation was deleted before its dictation was made text"));
      adw_toast_set_button_label (toast, _("_Copy Words"));
      g_object_set_data_full (G_OBJECT (toast), LEFT_WORDS, g_strdup (text), g_free);
      g_signal_connect_object (toast, "button-clicked", G_CALLBACK (copy_left_cb), self, 0);
    }
  show_voice_toast (self, toast);
}

/* The words of @d go to its conversation's message: where the cursor
 * was when it began if the composer still shows it, at the cursor if
 * that conversation was left and opened again, else into its draft. */
static void
deliver (NatterWindowDictation *d,
         const char            *text)
{
  NatterWindow *self = d->window;

  if (!d->left || g_strcmp0 (d->key, _natter_window_choice_key (self)) == 0)
    natter_composer_insert_dictation (self->conversation.composer, text);
  else
    deliver_left (d, text);
}

static void
transcribed_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  NatterWindowDictation *d = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = natter_dictation_transcribe_finish (result, &error);

  /* The window went away meanwhile. */
  if (d->window == NULL)
    {
      dictation_free (d);
      return;
    }
  if (text == NULL)
    dictation_failed (d, error);
  else if (text[0] == '\0')
    {
      voice_toast (d->window, g_strdup (_("No words were heard in the recording")));
      dictation_end (d);
    }
  else
    {
      deliver (d, text);
      dictation_end (d);
    }
}

static void
recorded_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  NatterWindowDictation *d = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) wav = natter_recorder_record_finish (NATTER_RECORDER (source), result, &error);
  NatterWindow *self = d->window;

  if (self == NULL)
    {
      dictation_free (d);
      return;
    }
  if (wav == NULL)
    {
      dictation_failed (d, error);
      return;
    }
  d->transcribing = TRUE;
  if (self->voice.dictation == d)
    {
      dictation_stop_ticking (self);
      natter_composer_set_dictation (self->conversation.composer, NATTER_COMPOSER_DICTATION_TRANSCRIBING);
    }
  natter_dictation_transcribe_async (self->settings, self->choice.registry, d->provider, wav, d->cancellable,
                                     transcribed_cb, d);
}

/* Why dictation cannot start in the open conversation, whose next
 * message goes to @provider, or NULL when it can (transfer full). */
static char *
dictation_obstacle (NatterWindow *self,
                    const char   *provider)
{
  g_autofree char *model = NULL;

  if (self->choice.registry == NULL || provider == NULL)
    return g_strdup (_("To dictate, add a provider in Preferences"));
  if (natter_provider_id_is_endpoint (provider) || _natter_window_provider_is_missing (self, provider))
    /* Translators: %s is a provider's id or address */
    return g_strdup_printf (_("To dictate, add %s as a provider in Preferences, or pick a model of another provider"),
                            provider);
  model = natter_settings_dup_transcription_model (self->settings, provider);
  if (model == NULL)
    {
      g_autoptr(NatterOpenaiProvider) found = natter_provider_registry_get_provider (self->choice.registry, provider,
                                                                                    NULL);
      /* By the name Preferences lists it under, not its id; one line,
       * as the person may have typed anything. */
      g_autofree char *name = natter_visible_text (found != NULL ? natter_openai_provider_get_display_name (found)
                                                                 : provider,
                                                   NATTER_VISIBLE_KEEP_NONE);

      /* Translators: %s is a provider's name */
      return g_strdup_printf (_("To dictate, set a transcription model for %s in Preferences, Providers"), name);
    }
  return NULL;
}

/* Tells the microphone button whether dictation can start in the open
 * conversation, and why not. */
static void
update_dictation_hint (NatterWindow *self)
{
  g_autofree char *obstacle = dictation_obstacle (self, self->voice.provider);

  natter_composer_set_dictation_hint (self->conversation.composer, obstacle);
}

/**
 * _natter_window_set_dictation_provider:
 * @self: the window
 * @provider_id: (nullable): the provider the open conversation's next
 *   message goes to, the one its model picker shows
 *   (natter-window-choice.c)
 *
 * Dictation started from now on is made text by @provider_id's
 * transcription model; the microphone button says whether it has one.
 */
void
_natter_window_set_dictation_provider (NatterWindow *self,
                                       const char   *provider_id)
{
  if (g_strcmp0 (self->voice.provider, provider_id) != 0)
    {
      g_free (self->voice.provider);
      self->voice.provider = g_strdup (provider_id);
    }
  update_dictation_hint (self);
}

/**
 * _natter_window_voice_conversation_closed:
 * @self: the window
 *
 * The open conversation is being closed: the dictation the composer
 * shows stops recording (what was said is still made text) and goes on
 * for that conversation alone; the composer shows none.
 */
void
_natter_window_voice_conversation_closed (NatterWindow *self)
{
  NatterWindowDictation *d = self->voice.dictation;

  if (d == NULL)
    return;
  d->left = TRUE;
  if (!d->transcribing)
    natter_recorder_stop (d->recorder);
  dictation_unshow (self);
}

/**
 * _natter_window_voice_rekey:
 * @self: the window
 * @old_key: what a conversation's draft was kept under
 * @new_key: what it is kept under now
 *
 * A new conversation got its session (natter-window-conversation.c):
 * the words dictated for it go to that session.
 */
void
_natter_window_voice_rekey (NatterWindow *self,
                            const char   *old_key,
                            const char   *new_key)
{
  for (guint i = 0; i < self->voice.dictations->len; i++)
    {
      NatterWindowDictation *d = g_ptr_array_index (self->voice.dictations, i);

      if (g_strcmp0 (d->key, old_key) == 0)
        {
          g_free (d->key);
          d->key = g_strdup (new_key);
        }
    }
}

static void
dictate_activated (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  NatterWindowDictation *d = self->voice.dictation;
  g_autofree char *provider = NULL;
  g_autofree char *obstacle = NULL;

  /* Again while dictating: Stop, or Cancel while the words are made. */
  if (d != NULL)
    {
      if (d->transcribing)
        g_cancellable_cancel (d->cancellable);
      else
        natter_recorder_stop (d->recorder);
      return;
    }

  provider = g_strdup (self->voice.provider);
  obstacle = dictation_obstacle (self, provider);
  natter_composer_set_dictation_hint (self->conversation.composer, obstacle);
  if (obstacle != NULL)
    {
      voice_toast (self, g_steal_pointer (&obstacle));
      return;
    }
  d = g_new0 (NatterWindowDictation, 1);
  d->window = g_object_ref (self);
  d->key = g_strdup (_natter_window_choice_key (self));
  d->provider = g_steal_pointer (&provider);
  d->recorder = natter_recorder_new ();
  d->cancellable = g_cancellable_new ();
  d->started = g_get_monotonic_time ();
  g_ptr_array_add (self->voice.dictations, d);
  self->voice.dictation = d;
  natter_composer_set_dictation (self->conversation.composer, NATTER_COMPOSER_DICTATION_RECORDING);
  g_signal_connect_swapped (d->recorder, "notify::level", G_CALLBACK (dictation_progress), self);
  self->voice.dictation_tick_id = g_timeout_add (DICTATION_TICK_MS, dictation_tick_cb, self);
  natter_recorder_record_async (d->recorder, d->cancellable, recorded_cb, d);
}

/**
 * _natter_window_voice_dispose:
 * @self: the window
 *
 * Stops reading aloud and drops the dictations under way: each is
 * cancelled and lets go of the window, and is freed when its call
 * returns.
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
  g_clear_pointer (&self->voice.provider, g_free);
  dictation_stop_ticking (self);
  self->voice.dictation = NULL;
  if (self->voice.dictations != NULL)
    {
      for (guint i = 0; i < self->voice.dictations->len; i++)
        {
          NatterWindowDictation *d = g_ptr_array_index (self->voice.dictations, i);

          g_cancellable_cancel (d->cancellable);
          g_clear_object (&d->window);
        }
      g_clear_pointer (&self->voice.dictations, g_ptr_array_unref);
    }
}

void
_natter_window_voice_init (NatterWindow *self)
{
  /* Not owning: a dictation frees itself when its last call returns. */
  self->voice.dictations = g_ptr_array_new ();
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-reading", FALSE);
  if (self->settings != NULL && natter_settings_get_gsettings (self->settings) != NULL)
    g_signal_connect_object (natter_settings_get_gsettings (self->settings), "changed::transcription-models",
                             G_CALLBACK (update_dictation_hint), self, G_CONNECT_SWAPPED);
  update_dictation_hint (self);
}

void
_natter_window_class_voice_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.read-aloud", "(ss)", read_aloud_activated);
  gtk_widget_class_install_action (widget_class, "win.stop-reading", NULL, stop_reading_activated);
  gtk_widget_class_install_action (widget_class, "win.read-aloud-focused", NULL, read_aloud_focused_activated);
  gtk_widget_class_install_action (widget_class, "win.dictate", NULL, dictate_activated);
}
