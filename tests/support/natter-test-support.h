/* natter-test-support.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared helpers for the core tests, one file each by need:
 * natter-test-support.c (a fake clock, temp data directories, waits that
 * drive the main loop with a timeout), natter-test-json.c (JSON literals,
 * equality, event lines, damage to logs), natter-test-process.c (the
 * `natter` binary as a child, a command line in this process),
 * natter-test-store.c (files, a store written as another process would,
 * archives) and natter-test-notify.c (property notifications). The fake
 * model and tools, the scripted server and the session and services
 * fixtures have headers of their own.
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-clock.h"
#include "natter-draft-store.h"
#include "natter-send-options.h"

G_BEGIN_DECLS

#define NATTER_TYPE_FAKE_CLOCK (natter_fake_clock_get_type ())
G_DECLARE_FINAL_TYPE (NatterFakeClock, natter_fake_clock, NATTER, FAKE_CLOCK, GObject)

NatterFakeClock *natter_fake_clock_new        (gint64           start_us);
void             natter_fake_clock_set        (NatterFakeClock *self,
                                               gint64           now_us);
void             natter_fake_clock_advance    (NatterFakeClock *self,
                                               gint64           delta_us);

GFile           *natter_test_make_temp_dir    (void);
void             natter_test_remove_tree      (GFile           *dir);

/* Iterates the default main context until *flag is TRUE; fails the test
 * after timeout_ms. Never sleeps. */
void             natter_test_wait_for_flag    (gboolean        *flag,
                                               guint            timeout_ms);
/* Iterates the default main context until condition (data) holds, at most
 * timeout_ms; returns whether it held. Never sleeps. */
typedef gboolean (*NatterTestCheck) (gpointer data);
gboolean         natter_test_wait_until       (NatterTestCheck  condition,
                                               gpointer         data,
                                               guint            timeout_ms);
/* natter_test_wait_until() for a condition that changes outside this
 * process (a file another process writes), where no event of this one
 * would wake the main loop to ask again: it asks every 50 ms. */
gboolean         natter_test_poll_until       (NatterTestCheck  condition,
                                               gpointer         data,
                                               guint            timeout_ms);
/* Iterates the default main context until the pointer is non-NULL. */
void             natter_test_wait_for_pointer (gpointer        *pointer,
                                               guint            timeout_ms);
/* A GAsyncReadyCallback storing a reference to the result in
 * *(GAsyncResult **) user_data, for natter_test_wait_for_pointer() (or
 * natter_test_sessions_wait_result()) to wait for. */
void             natter_test_result_cb        (GObject         *object,
                                               GAsyncResult    *result,
                                               gpointer         user_data);
/* Runs whatever the default main context has ready, without blocking. */
void             natter_test_drain_main_context (void);
/* Iterates the default main context until *counter reaches n; fails the
 * test after timeout_ms. Never sleeps. */
void             natter_test_wait_for_count   (guint           *counter,
                                               guint            n,
                                               guint            timeout_ms);
/* Drops the caller's reference to @object and iterates the default main
 * context until it is finalized; fails the test after timeout_ms. */
void             natter_test_wait_finalized   (gpointer         object,
                                               guint            timeout_ms);

/* What a child process said and how it ended (natter_test_communicate()). */
typedef struct
{
  gboolean  done;
  int       status;   /* the exit status; -1 if it did not exit */
  char     *out;
  char     *err;
} NatterTestRun;

void             natter_test_run_clear        (NatterTestRun   *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (NatterTestRun, natter_test_run_clear)
void             natter_test_communicate      (GSubprocess     *process,
                                               NatterTestRun   *run);
char            *natter_test_session_of       (const char      *out);

/* A command line given to the code under test in this process, its
 * output kept. GIO calls it remote, as one forwarded from another
 * process, whose environment travels with it. */
#define NATTER_TYPE_TEST_COMMAND_LINE (natter_test_command_line_get_type ())
G_DECLARE_FINAL_TYPE (NatterTestCommandLine, natter_test_command_line, NATTER, TEST_COMMAND_LINE,
                      GApplicationCommandLine)

NatterTestCommandLine *natter_test_command_line_new     (const char * const     *arguments,
                                                         const char * const     *environment);
const char            *natter_test_command_line_get_out (NatterTestCommandLine  *self);
const char            *natter_test_command_line_get_err (NatterTestCommandLine  *self);
int                    natter_test_command_line_run     (NatterTestCommandLine  *self,
                                                         gpointer                services,
                                                         guint                   timeout_ms);

/* The command line as a test runs it: its own data dir, no display. */
GSubprocessLauncher *natter_test_cli_launcher_new (GFile              *dir);
GSubprocess         *natter_test_cli_spawn        (GSubprocessLauncher *launcher,
                                                   const char * const  *args);
void                 natter_test_cli_run          (GFile              *dir,
                                                   const char * const  *args,
                                                   NatterTestRun       *result,
                                                   guint                timeout_ms);

/* Writing a store another process made (docs/format.md §3). */
char                *natter_test_store_session    (GFile              *dir,
                                                   const char         *title,
                                                   const char         *parent_session,
                                                   const char         *forked_from_turn_id);
JsonNode            *natter_test_message_queued_new (const char       *session_id,
                                                     const char       *ts,
                                                     const char       *queue_id,
                                                     const char       *text,
                                                     const char       *agent_id,
                                                     const char       *provider,
                                                     const char       *model);
char                *natter_test_store_queued     (GFile              *dir,
                                                   const char         *session_id,
                                                   const char         *text,
                                                   const char         *provider,
                                                   const char         *model);

JsonNode        *natter_test_json             (const char      *literal);
void             natter_test_assert_session_event (const char  *line,
                                                   const char  *session_id,
                                                   int          code);
void             natter_test_assert_json_equal (JsonNode       *actual,
                                                const char     *expected_literal);
GPtrArray       *natter_test_json_array       (const char      *first_literal,
                                               ...) G_GNUC_NULL_TERMINATED;
char            *natter_test_read_file        (const char      *path,
                                               gsize           *length);
GPtrArray       *natter_test_list_files       (GFile           *dir,
                                               const char      *relative);
char            *natter_test_sqlite_query     (const char      *path,
                                               const char      *sql);
gboolean         natter_test_save_draft       (NatterDraftStore *store,
                                               const char      *key,
                                               const char      *text,
                                               const char      *edits_turn_id,
                                               const char      *set_aside,
                                               GError         **error);
GString         *natter_test_serialize_events (GPtrArray       *events);
void             natter_test_mutate_bytes     (GRand           *rand,
                                               GString         *text);

/* A differential test's damage to a log's events (its own schema-level
 * changes), for natter_test_mutate_log(). */
typedef void (*NatterTestMutateEventFunc) (GRand     *rand,
                                           GPtrArray *events,
                                           guint      n);

guint            natter_test_mutated_rounds   (void);
GString         *natter_test_mutate_log       (GRand                     *rand,
                                               GPtrArray                 *events,
                                               NatterTestMutateEventFunc  mutate_event,
                                               guint                      n);
void             natter_test_append_file      (const char      *path,
                                               const char      *text);

/* Property notifications: counts the notify signals of one property. */
typedef struct _NatterTestNotify NatterTestNotify;

NatterTestNotify *natter_test_notify_watch  (gpointer          object,
                                             const char       *property);
guint             natter_test_notify_take   (NatterTestNotify *watch);
void              natter_test_notify_free   (NatterTestNotify *watch);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterTestNotify, natter_test_notify_free)

/* Asserts that @property of @object notified exactly @n times since the
 * watch began or was last checked. */
#define natter_test_assert_notified(watch, n) \
  g_assert_cmpuint (natter_test_notify_take (watch), ==, (n))

void              natter_test_property_notify (gpointer        object,
                                               const char     *property,
                                               const GValue   *a,
                                               const GValue   *b);
void              natter_test_property_notify_string  (gpointer    object,
                                                       const char *property,
                                                       const char *a,
                                                       const char *b);
void              natter_test_property_notify_boolean (gpointer    object,
                                                       const char *property);

/* The same checks as natter_test_property_notify(), for a property of
 * @object that only a C setter changes: setter (object, value) for @a and
 * @b (two different values). */
#define natter_test_setter_notify(object, property, setter, a, b) \
  G_STMT_START { \
    g_autoptr(NatterTestNotify) setter_watch_ = natter_test_notify_watch ((object), (property)); \
    setter ((object), (a)); \
    (void) natter_test_notify_take (setter_watch_); \
    setter ((object), (a)); \
    natter_test_assert_notified (setter_watch_, 0); \
    setter ((object), (b)); \
    natter_test_assert_notified (setter_watch_, 1); \
    setter ((object), (b)); \
    natter_test_assert_notified (setter_watch_, 0); \
    setter ((object), (a)); \
    natter_test_assert_notified (setter_watch_, 1); \
  } G_STMT_END

/* Send options for @agent_id, with the model override @provider/@model
 * when both are given. */
NatterSendOptions *natter_test_send_options   (const char      *agent_id,
                                               const char      *provider,
                                               const char      *model);

/* What someone else's archive holds (natter_test_shared_archive()). */
typedef struct
{
  const char *provider;   /* of the turns: a provider id or a server address */
  const char *model;
  gboolean    grant;      /* "Always Allow" for read_file */
  gboolean    queued;     /* a queued message for @provider, with auto-permission */
  gboolean    cwd;        /* a working folder */
  gboolean    waiting;    /* a second turn, waiting for permission to read a file */
  gboolean    compacted;  /* two more turns and a compaction no turn used yet */
  gboolean    instruction; /* settings: temperature 0.3 and an added system instruction */
} NatterTestShared;

char             *natter_test_shared_archive  (const NatterTestShared *shared);
char             *natter_test_chatgpt_fixture (void);
char             *natter_test_chatgpt_fixture_subset (guint first,
                                                      ...);

G_END_DECLS
