/* natter-voice-error.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Why speech in or out cannot go on: the error domain of dictation
 * (natter-dictation.h, natter-recorder.h) and of reading answers aloud
 * (natter-speech.h).
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define NATTER_VOICE_ERROR (natter_voice_error_quark ())

/**
 * NatterVoiceError:
 * @NATTER_VOICE_ERROR_NO_TRANSCRIPTION_MODEL: the provider has no
 *   transcription model set (Preferences, or the `transcription-models`
 *   key)
 * @NATTER_VOICE_ERROR_NO_SPEECH_SERVICE: Speech Dispatcher could not be
 *   reached, or Natter was built without it
 * @NATTER_VOICE_ERROR_NO_MICROPHONE: no recording source could be
 *   started, or Natter was built without GStreamer
 * @NATTER_VOICE_ERROR_RECORDING: the recording failed while it ran
 * @NATTER_VOICE_ERROR_SILENCE: the recording holds no sound
 *
 * Error codes of %NATTER_VOICE_ERROR.
 */
typedef enum
{
  NATTER_VOICE_ERROR_NO_TRANSCRIPTION_MODEL,
  NATTER_VOICE_ERROR_NO_SPEECH_SERVICE,
  NATTER_VOICE_ERROR_NO_MICROPHONE,
  NATTER_VOICE_ERROR_RECORDING,
  NATTER_VOICE_ERROR_SILENCE,
} NatterVoiceError;

GQuark natter_voice_error_quark (void);

G_END_DECLS
