/* natter-speech.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading text aloud, behind a small class so that the window does not
 * care who speaks: Speech Dispatcher, the desktop's speech service
 * (natter-speech-dispatcher.h), or a test's fake. One text is spoken at
 * a time; speaking another stops the first.
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define NATTER_TYPE_SPEECH (natter_speech_get_type ())

G_DECLARE_DERIVABLE_TYPE (NatterSpeech, natter_speech, NATTER, SPEECH, GObject)

/**
 * NatterSpeechClass:
 * @speak: starts speaking @text after stopping what is spoken; the
 *   subclass calls natter_speech_finished() when it has been said or
 *   stopped from elsewhere. Returns %FALSE with a %NATTER_VOICE_ERROR
 *   when nothing can be spoken.
 * @stop: stops speaking at once; called only while something is spoken
 */
struct _NatterSpeechClass
{
  GObjectClass parent_class;

  gboolean (*speak) (NatterSpeech  *self,
                     const char    *text,
                     GError       **error);
  void     (*stop)  (NatterSpeech  *self);
};

gboolean    natter_speech_speak           (NatterSpeech  *self,
                                           const char    *text,
                                           const char    *owner,
                                           GError       **error);
void        natter_speech_stop            (NatterSpeech  *self);
const char *natter_speech_get_speaking    (NatterSpeech  *self);
void        natter_speech_finished        (NatterSpeech  *self);

char       *natter_speech_plain_text      (const char    *markdown);

G_END_DECLS
