/* natter-speech-dispatcher.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A #NatterSpeech that speaks through Speech Dispatcher (libspeechd),
 * the desktop's speech service, the one screen readers use.
 */

#pragma once

#include "natter-speech.h"

G_BEGIN_DECLS

#define NATTER_TYPE_SPEECH_DISPATCHER (natter_speech_dispatcher_get_type ())

G_DECLARE_FINAL_TYPE (NatterSpeechDispatcher, natter_speech_dispatcher, NATTER, SPEECH_DISPATCHER, NatterSpeech)

NatterSpeech *natter_speech_dispatcher_new (void);

G_END_DECLS
