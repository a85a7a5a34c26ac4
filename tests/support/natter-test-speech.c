/* natter-test-speech.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-test-speech.h"
#include "natter-voice-error.h"

struct _NatterFakeSpeech
{
  NatterSpeech parent_instance;

  char        *spoken;       /* the last text asked for */
  guint        n_stops;
  gboolean     unavailable;  /* refuse as when no service runs */
};

G_DEFINE_FINAL_TYPE (NatterFakeSpeech, natter_fake_speech, NATTER_TYPE_SPEECH)

static gboolean
fake_speak (NatterSpeech  *speech,
            const char    *text,
            GError       **error)
{
  NatterFakeSpeech *self = NATTER_FAKE_SPEECH (speech);

  if (self->unavailable)
    {
      g_set_error_literal (error, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_SPEECH_SERVICE,
                           "Cannot read aloud: the speech service (Speech Dispatcher) is not running "
                           "or not installed");
      return FALSE;
    }
  g_free (self->spoken);
  self->spoken = g_strdup (text);
  return TRUE;
}

static void
fake_stop (NatterSpeech *speech)
{
  NATTER_FAKE_SPEECH (speech)->n_stops++;
}

static void
natter_fake_speech_finalize (GObject *object)
{
  g_free (NATTER_FAKE_SPEECH (object)->spoken);
  G_OBJECT_CLASS (natter_fake_speech_parent_class)->finalize (object);
}

static void
natter_fake_speech_class_init (NatterFakeSpeechClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_fake_speech_finalize;
  NATTER_SPEECH_CLASS (klass)->speak = fake_speak;
  NATTER_SPEECH_CLASS (klass)->stop = fake_stop;
}

static void
natter_fake_speech_init (NatterFakeSpeech *self)
{
}

NatterSpeech *
natter_fake_speech_new (void)
{
  return g_object_new (NATTER_TYPE_FAKE_SPEECH, NULL);
}

/* The last text it was asked to speak, or NULL. */
const char *
natter_fake_speech_get_spoken (NatterFakeSpeech *self)
{
  return self->spoken;
}

/* How often what was spoken was stopped. */
guint
natter_fake_speech_get_n_stops (NatterFakeSpeech *self)
{
  return self->n_stops;
}

/* The text has been said to its end. */
void
natter_fake_speech_end (NatterFakeSpeech *self)
{
  natter_speech_finished (NATTER_SPEECH (self));
}

void
natter_fake_speech_set_unavailable (NatterFakeSpeech *self,
                                    gboolean          unavailable)
{
  self->unavailable = unavailable;
}
