/* test-sessions.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-sessions share: the fixture (the support's
 * session fixture, recording index changes and turn events), and the
 * drivers and readers of several scenarios (test-sessions-fixture.c).
 */

#pragma once

#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"
#include "natter-test-sessions.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-reducer.h"

G_BEGIN_DECLS

#define TIMEOUT_MS 20000

typedef struct
{
  NatterTestSessions  t;            /* first: a Fixture is a NatterTestSessions */
  GPtrArray          *changed;      /* session ids of session-index-changed */
  GPtrArray          *events;       /* "session turn type offset" */
  guint               items_changed;
} Fixture;

#define ADD(path, func, data) \
  g_test_add ("/sessions/" path, Fixture, data, fixture_set_up, func, fixture_tear_down)

#define assert_types(repo, id, expected) \
  G_STMT_START { \
    g_autofree char *types_ = types_of ((repo), (id)); \
    g_assert_cmpstr (types_, ==, (expected)); \
  } G_STMT_END

void fixture_set_up (Fixture       *f,
                     gconstpointer  data);
void fixture_tear_down (Fixture       *f,
                        gconstpointer  data);
gboolean no_live_advance (NatterTestSessions *t,
                          gconstpointer       data);
JsonObject *object_literal (const char *literal);
JsonObject *user_message (const char *text);
char *send (Fixture    *f,
            const char *session_id,
            const char *text);
JsonObject *event_at (GPtrArray *events,
                      guint      index);
char *types_of (NatterJsonlRepo *repo,
                const char      *id);
gint64 created_version (Fixture    *f,
                        const char *id);
guint n_files (NatterJsonlRepo *repo);
JsonObject *turn_created (Fixture    *f,
                          const char *turn_id);
char *context_of (Fixture    *f,
                  const char *turn_id);
gboolean fail_at_step (NatterSessionsStep   step,
                       const char          *session_id,
                       gpointer             user_data,
                       GError             **error);
void send_crashing_at (Fixture            *f,
                       const char         *sid,
                       const char         *text,
                       NatterSessionsStep  step);
void resume (Fixture    *f,
             const char *sid,
             GError    **error);
JsonObject *last_of_type (Fixture    *f,
                          const char *tid,
                          const char *type);
void stop (Fixture     *f,
           const char  *tid,
           const char  *reason,
           GError     **error);
NatterSessionIndex *fresh_scan (Fixture *f);
void corrupt_file (NatterJsonlRepo *repo,
                   const char      *id);
gboolean delete_session (Fixture     *f,
                         const char  *sid,
                         GError     **error);
void set_title (Fixture    *f,
                const char *sid,
                const char *title);
char *fork_session (Fixture     *f,
                    const char  *sid,
                    const char  *tid,
                    GError     **error);
void restart (Fixture *f);
char *turn_path (Fixture    *f,
                 const char *turn_id);

/* The scenarios of the other files, registered by main(). */
void sessions_add_stop_tests   (void);
void sessions_add_index_tests  (void);
void sessions_add_damage_tests (void);

G_END_DECLS
