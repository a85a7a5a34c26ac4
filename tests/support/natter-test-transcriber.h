/* natter-test-transcriber.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A scripted speech-to-text server on loopback, speaking OpenAI's
 * `POST /v1/audio/transcriptions` as whisper.cpp's server,
 * faster-whisper-server and Groq do: it reads the multipart form, fails
 * the test unless it holds a WAV `file` and a `model`, keeps what it was
 * sent for the test to assert on, and answers as its script says (and
 * `GET /v1/models` with its one model, as a window asks). Runs
 * on the thread-default main context.
 */

#pragma once

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

typedef enum
{
  NATTER_TEST_TRANSCRIBE_ANSWERS, /* 200 {"text": text} */
  NATTER_TEST_TRANSCRIBE_FAILS,   /* 404 with OpenAI's error for an unknown model */
  NATTER_TEST_TRANSCRIBE_HOLDS,   /* no answer until the client leaves */
} NatterTestTranscribeScript;

typedef struct
{
  SoupServer                 *server;
  char                       *base_url;      /* http://127.0.0.1:PORT/v1 */
  NatterTestTranscribeScript  script;
  char                       *text;          /* what it answers */
  guint                       requests;
  /* The last request's form and Authorization header ("" if absent). */
  char                       *model;
  char                       *response_format;
  char                       *file_name;
  GBytes                     *file;
  char                       *authorization;
  SoupServerMessage          *held;
} NatterTestTranscriber;

NatterTestTranscriber *natter_test_transcriber_new  (const char            *text);
void                   natter_test_transcriber_release (NatterTestTranscriber *transcriber);
void                   natter_test_transcriber_free (NatterTestTranscriber *transcriber);
GBytes                *natter_test_wav_new          (guint                  n_samples);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterTestTranscriber, natter_test_transcriber_free)

G_END_DECLS
