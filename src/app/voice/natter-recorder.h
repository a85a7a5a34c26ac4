/* natter-recorder.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One dictation's recording with GStreamer, made a WAV file of 16 kHz
 * mono 16-bit PCM, what every transcription server takes.
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * NATTER_RECORDING_SOURCE_ENV:
 *
 * A WAV file to record from instead of the microphone: what the tests
 * dictate, never a real microphone's sound.
 */
#define NATTER_RECORDING_SOURCE_ENV "NATTER_RECORDING_SOURCE"

#define NATTER_TYPE_RECORDER (natter_recorder_get_type ())

G_DECLARE_FINAL_TYPE (NatterRecorder, natter_recorder, NATTER, RECORDER, GObject)

NatterRecorder *natter_recorder_new           (void);
void            natter_recorder_record_async  (NatterRecorder       *self,
                                               GCancellable         *cancellable,
                                               GAsyncReadyCallback   callback,
                                               gpointer              user_data);
GBytes         *natter_recorder_record_finish (NatterRecorder       *self,
                                               GAsyncResult         *result,
                                               GError              **error);
void            natter_recorder_stop          (NatterRecorder       *self);
double          natter_recorder_get_level     (NatterRecorder       *self);
gboolean        natter_recorder_is_available  (void);

GBytes         *natter_wav_new_from_pcm       (const guint8         *samples,
                                               gsize                 n_bytes);

G_END_DECLS
