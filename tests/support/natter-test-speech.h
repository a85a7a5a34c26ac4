/* natter-test-speech.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A #NatterSpeech that says nothing: it keeps what it was asked to speak
 * and goes on "speaking" until stopped or until the test says it ended,
 * so a test sees what would have been read aloud, and Stop.
 */

#pragma once

#include "natter-speech.h"

G_BEGIN_DECLS

#define NATTER_TYPE_FAKE_SPEECH (natter_fake_speech_get_type ())

G_DECLARE_FINAL_TYPE (NatterFakeSpeech, natter_fake_speech, NATTER, FAKE_SPEECH, NatterSpeech)

NatterSpeech *natter_fake_speech_new        (void);
const char   *natter_fake_speech_get_spoken (NatterFakeSpeech *self);
guint         natter_fake_speech_get_n_stops (NatterFakeSpeech *self);
void          natter_fake_speech_end        (NatterFakeSpeech *self);
void          natter_fake_speech_set_unavailable (NatterFakeSpeech *self,
                                                  gboolean          unavailable);

G_END_DECLS
