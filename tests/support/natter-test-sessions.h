/* natter-test-sessions.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A session service over the fake world (natter-test-fakes.h), and the
 * driving the tests of the session service share (grants, queued
 * messages, versions, export and import): wait for an async result or a
 * condition by iterating the main loop with a timeout, create a session,
 * send, read a log.
 */

#pragma once

#include "natter-blob-store.h"
#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"
#include "natter-test-fakes.h"

G_BEGIN_DECLS

#define NATTER_TEST_TIMEOUT_MS 20000

typedef struct
{
  NatterTestWorld    *w;
  NatterSessionIndex *index;
  NatterSessions     *sessions;
  NatterBlobStore    *blobs;       /* only with natter_test_sessions_set_up_with_blobs() */
  guint               n_changed;   /* "session-index-changed" emissions so far */
} NatterTestSessions;

typedef gboolean (*NatterTestCondition) (NatterTestSessions *t,
                                         gconstpointer       data);

void          natter_test_sessions_set_up      (NatterTestSessions  *t,
                                                gconstpointer        data);
void          natter_test_sessions_set_up_with_blobs (NatterTestSessions *t,
                                                      gconstpointer       data);
void          natter_test_sessions_tear_down   (NatterTestSessions  *t,
                                                gconstpointer        data);

/* Waits for what natter_test_result_cb() stores in @slot. */
GAsyncResult *natter_test_sessions_wait_result (GAsyncResult       **slot);
void          natter_test_sessions_wait_until_at (NatterTestSessions  *t,
                                                  NatterTestCondition  condition,
                                                  gconstpointer        data,
                                                  const char          *condition_name,
                                                  const char          *location);
/* A wait that times out names its condition and where it was waited for. */
#define natter_test_sessions_wait_until(t, condition, ...) \
  natter_test_sessions_wait_until_at ((t), (condition), (__VA_ARGS__), #condition, G_STRLOC)
void          natter_test_sessions_wait_status (NatterTestSessions  *t,
                                                const char          *session_id,
                                                const char          *status);
void          natter_test_sessions_wait_idle   (NatterTestSessions  *t);

void          natter_test_sessions_script      (NatterTestSessions  *t,
                                                const char          *first,
                                                ...) G_GNUC_NULL_TERMINATED;
char         *natter_test_sessions_create      (NatterTestSessions  *t);
char         *natter_test_sessions_create_titled (NatterTestSessions *t,
                                                  const char         *title);
char         *natter_test_sessions_create_full (NatterTestSessions *t,
                                                const char         *title,
                                                const char         *cwd);
char         *natter_test_sessions_fork        (NatterTestSessions  *t,
                                                const char          *session_id,
                                                const char          *turn_id,
                                                const char          *title);
char         *natter_test_sessions_send        (NatterTestSessions  *t,
                                                const char          *session_id,
                                                const char          *text,
                                                GError             **error);
char         *natter_test_sessions_send_with   (NatterTestSessions  *t,
                                                const char          *session_id,
                                                const char          *text,
                                                NatterSendOptions   *options,
                                                GError             **error);
char         *natter_test_sessions_send_and_wait (NatterTestSessions *t,
                                                  const char         *session_id,
                                                  const char         *text);
NatterSessionState *natter_test_sessions_get   (NatterTestSessions  *t,
                                                const char          *session_id);
char         *natter_test_lose_a_promotion     (NatterSessions      *sessions,
                                                NatterIdGenerator   *ids,
                                                const char          *session_id,
                                                const char          *text);
GPtrArray    *natter_test_sessions_read        (NatterJsonlRepo     *repo,
                                                const char          *id);
guint         natter_test_count_type           (GPtrArray           *events,
                                                const char          *type);
JsonObject   *natter_test_find_type            (GPtrArray           *events,
                                                const char          *type);

G_END_DECLS
