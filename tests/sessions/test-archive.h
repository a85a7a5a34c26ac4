/* test-archive.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-archive share (test-archive-fixture.c).
 */

#pragma once

#include <string.h>

#include <glib/gstdio.h>

#include "natter-blob-store.h"
#include "natter-session-archive.h"
#include "natter-session-grants-queue.h"
#include "natter-session-index-internal.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-private.h"
#include "natter-sessions-settings.h"
#include "natter-test-sessions.h"
#include "natter-turn-reducer.h"

typedef NatterTestSessions Fixture;

#define TEST_SHA256 "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

/* A ChatGPT export: the first conversation was edited (its first message
 * has two versions; current_node is on the second) and has two
 * exchanges; the second ends with a question without an answer. */
static const char CHATGPT[] =
  "[{\"title\":\"Trip planning\",\"create_time\":1700000000.5,\"update_time\":1700000100.0,"
  "\"conversation_id\":\"conv-1\",\"current_node\":\"a2\",\"mapping\":{"
  "\"root\":{\"id\":\"root\",\"message\":null,\"parent\":null,\"children\":[\"sys\"]},"
  "\"sys\":{\"id\":\"sys\",\"message\":{\"id\":\"sys\",\"author\":{\"role\":\"system\"},\"create_time\":null,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"\"]},\"metadata\":{\"is_visually_hidden_from_conversation\":true}},"
  "\"parent\":\"root\",\"children\":[\"u1old\",\"u1\"]},"
  "\"u1old\":{\"id\":\"u1old\",\"message\":{\"id\":\"u1old\",\"author\":{\"role\":\"user\"},\"create_time\":1700000001.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"Where to go in Spain?\"]}},\"parent\":\"sys\",\"children\":[]},"
  "\"u1\":{\"id\":\"u1\",\"message\":{\"id\":\"u1\",\"author\":{\"role\":\"user\"},\"create_time\":1700000010.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"Where to go in Norway?\"]}},\"parent\":\"sys\",\"children\":[\"a1\"]},"
  "\"a1\":{\"id\":\"a1\",\"message\":{\"id\":\"a1\",\"author\":{\"role\":\"assistant\"},\"create_time\":1700000011.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"Try the fjords.\"]},\"metadata\":{\"model_slug\":\"gpt-4o\"}},"
  "\"parent\":\"u1\",\"children\":[\"u2\"]},"
  "\"u2\":{\"id\":\"u2\",\"message\":{\"id\":\"u2\",\"author\":{\"role\":\"user\"},\"create_time\":1700000020.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"When?\"]}},\"parent\":\"a1\",\"children\":[\"a2\"]},"
  "\"a2\":{\"id\":\"a2\",\"message\":{\"id\":\"a2\",\"author\":{\"role\":\"assistant\"},\"create_time\":1700000021.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"In June.\"]},\"metadata\":{\"model_slug\":\"gpt-4o\"}},"
  "\"parent\":\"u2\",\"children\":[]}}},"
  "{\"title\":\"Unanswered\",\"create_time\":1700001000,\"conversation_id\":\"conv-2\",\"current_node\":\"q\","
  "\"mapping\":{\"q\":{\"id\":\"q\",\"message\":{\"id\":\"q\",\"author\":{\"role\":\"user\"},\"create_time\":1700001001.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"Hello?\"]}},\"parent\":null,\"children\":[]}}}]";

#define assert_exchange(f, sid, index, expected) \
  G_STMT_START { \
    g_autofree char *exchange_ = exchange_of ((f), (sid), (index)); \
    g_assert_cmpstr (exchange_, ==, (expected)); \
  } G_STMT_END

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, natter_test_sessions_set_up_with_blobs, func, natter_test_sessions_tear_down)

char *export (Fixture    *f,
              const char *session_id,
              const char *format);
GFile *write_temp (Fixture    *f,
                   const char *name,
                   const char *contents);
NatterImportReport *import_report (Fixture     *f,
                                   GFile       *file,
                                   const char  *from,
                                   GError     **error);
GStrv import (Fixture     *f,
              GFile       *file,
              const char  *from,
              GError     **error);
char *import_one (Fixture    *f,
                  const char *archive);
guint n_files (NatterJsonlRepo *repo);
char *without_ids (const char *text);
char *make_conversation (Fixture *f);
char *session_types (Fixture    *f,
                     const char *id);
char *archive_created_at (const char *archive,
                          gint64      version);
void assert_imported_as (Fixture    *f,
                         const char *archive,
                         const char *expected);
char *replace_once (const char *text,
                    const char *from,
                    const char *to);
void assert_refused (Fixture    *f,
                     const char *contents,
                     const char *from,
                     const char *expected);
NatterTurnState *read_turn (Fixture    *f,
                            const char *turn_id);
NatterImportReport *import_chatgpt_text (Fixture    *f,
                                         const char *text);
void assert_defective (NatterImportReport *report,
                       guint               index,
                       const char         *expected);
NatterSessionState *read_session (Fixture    *f,
                                  const char *session_id);
char *exchange_of (Fixture    *f,
                   const char *session_id,
                   guint       index);
GPtrArray *versions_of (Fixture    *f,
                        const char *parent);
guint n_all_files (Fixture *f);

/* The scenarios of the other files, registered by main(). */
void archive_add_chatgpt_tests (void);
