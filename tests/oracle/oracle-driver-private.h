/* oracle-driver-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The driver's state, for its own files, and what each of them gives
 * the others, grouped by file in the one way their calls run: a file
 * calls only those above it here.
 */

#pragma once

#include "natter-send-pipeline.h"
#include "natter-test-support.h"
#include "oracle-driver.h"

G_BEGIN_DECLS

typedef struct
{
  const char   *name;
  OracleReader  reader;
  gboolean      eventual;
  gpointer      data;
} OracleReaderEntry;

typedef struct _OraclePending OraclePending;

struct _OracleDriver
{
  OracleOptions          options;
  NatterTestServices     f;
  Oracle                *o;
  char                  *work_dir;
  guint                  op_number;
  guint                  n_failures;
  GPtrArray             *failures;        /* char* */
  GHashTable            *failed;          /* what was reported, once each */
  GHashTable            *counts;          /* operation name → count */
  GHashTable            *deferred_kinds;
  GHashTable            *touched;         /* OSession* read after this operation */
  GHashTable            *cli_touched;     /* OSession* the command line reads next */
  gboolean               cli_all;
  GPtrArray             *scratch;         /* what the last response points to */
  GPtrArray             *readers;         /* OracleReaderEntry* */
  GPtrArray             *pending;         /* OraclePending*: operations that end with a held turn */
  const OracleFrontEnd  *front;
  gpointer               front_data;
  OracleRestartHook      hook;
  gpointer               hook_data;
  GSubprocess           *child;
  NatterTestRun          run;
  gboolean               kill_requested;
  /* The last message that was not sent and can be sent again. */
  NatterMessageRequest  *refused_request;
  gboolean               can_retry;
  OSession              *refused_session;
  OMsg                  *refused_input;
  guint                  refused_max_calls;
  gboolean               refused_queue;
};

JsonObject *oracle_turn_reading (NatterTurnState *state,
                                 gboolean         own,
                                 gboolean         running);

/* Between the driver's files (oracle-driver*.c) */

/* How long the model's expectations may take to come true. Generous: the
 * machine the suite runs on may be loaded; a wait that holds returns at
 * once. */
#define WAIT_MS 30000

#define SSE_DONE "data: [DONE]\n\n"

/* An answer to a turn (a decision, an answer) ends when the turn settles
 * again, which a held stream puts off: such an operation is finished
 * when the stream ends. */
typedef enum
{
  PENDING_PERMISSION,
  PENDING_ALWAYS,
  PENDING_ANSWER,
} PendingKind;

struct _OraclePending
{
  PendingKind   kind;
  GAsyncResult *result;
  OTurn        *turn;
  OGrant       *grant;
};

/* The report (oracle-driver-report.c), which calls none of the others */

void diverge (OracleDriver *d,
              const char   *kind,
              OSession     *s);
void count (OracleDriver *d,
            const char   *what);

/* What they share (oracle-driver-base.c), which calls only the report */

GAsyncResult *wait_result (OracleDriver  *d,
                           GAsyncResult **slot,
                           const char    *what);
void flush (OracleDriver *d);
NatterSessionState *get_session (OracleDriver  *d,
                                 const char    *id,
                                 GError       **error);
void touch (OracleDriver *d,
            OSession     *s);
void touch_all (OracleDriver *d);
guint pick (OracleDriver *d,
            guint         n);
gboolean chance (OracleDriver *d,
                 guint         percent);
OSession *any_session (OracleDriver *d,
                       gboolean (*ok) (OracleDriver *d, OSession *s));
OToolCall *pending_call (OTurn     *t,
                         OCallState state);
gboolean has_read_grant (OSession *s);
guint n_pending (OTurn *t);
GPtrArray *draw_files (OracleDriver *d);
void set_id (char       **slot,
             const char  *id);

/* The scripted model (oracle-driver-server.c) */

const char *sse_finish (const char *reason);
const char *keep (OracleDriver *d,
                  char         *text);
void check_wire_bytes (OracleDriver *d,
                       const char   *what,
                       const char   *text,
                       gsize         length);
void responder (NatterTestServer   *server,
                guint               index,
                const char         *path,
                const char         *body,
                NatterTestResponse *response,
                gpointer            user_data);

/* Reading and comparing (oracle-driver-read.c) */

void learn_ids (OracleDriver *d);
char *message_text (JsonObject *message);
JsonNode *read_services (OracleDriver *d,
                         OSession     *s,
                         gpointer      data);
void compare_view (OracleDriver *d,
                   OSession     *s,
                   const char   *reader,
                   JsonNode     *expected_node,
                   JsonNode     *actual_node);
void check_files (OracleDriver *d);
void check_readings (OracleDriver *d,
                     gboolean      all);

/* The operations through the services (oracle-driver-ops.c) */

void drop_services (OracleDriver *d);
void load_services (OracleDriver *d);
void check_sent (OracleDriver      *d,
                 const char        *what,
                 const OSendResult *want,
                 OracleSent        *sent);
void op_send (OracleDriver *d,
              OSession     *s,
              gboolean      queue);
void op_retry_refused (OracleDriver *d);
void op_version (OracleDriver *d,
                 OSession     *shown_in,
                 OTurn        *of,
                 const char   *kind);
void op_release (OracleDriver *d,
                 OTurn        *t);
void op_stop (OracleDriver *d,
              OTurn        *t);
void pending_collect (OracleDriver *d);
void op_permission (OracleDriver *d,
                    OTurn        *t,
                    OToolCall    *call,
                    const char   *decision);
void op_answer (OracleDriver *d,
                OTurn        *t,
                OToolCall    *call);
void op_resume (OracleDriver *d,
                OSession     *s);
void op_unqueue (OracleDriver *d,
                 OSession     *s);
void op_replace_queued (OracleDriver *d,
                        OSession     *s);
void op_grant (OracleDriver *d,
               OSession     *s);
void op_revoke (OracleDriver *d,
                OSession     *s);
void op_compact (OracleDriver *d,
                 OSession     *s,
                 guint         keep);
void op_fork (OracleDriver *d,
              OSession     *s,
              OTurn        *at);
void op_rename (OracleDriver *d,
                OSession     *s);
void op_export_import (OracleDriver *d,
                       OSession     *s);
void restart (OracleDriver *d);
void op_damage (OracleDriver *d,
                OTurn        *t);
void op_damage_attachment (OracleDriver *d,
                           OFile        *file);
void op_recover (OracleDriver *d,
                 OSession     *s);
void op_crash_send (OracleDriver *d,
                    OSession     *s);
void check_deleted (OracleDriver *d,
                    OSession     *s);
void count_delete (OracleDriver *d,
                   OSession     *s);
void op_delete (OracleDriver *d,
                OSession     *s);

/* The command line (oracle-driver-cli.c), which calls all the above */

void check_cli (OracleDriver *d);
gboolean queueable (OracleDriver *d,
                    OSession     *s);
gboolean run_natter (OracleDriver       *d,
                     const char * const *args);
void params_args (const OParams *p,
                  GPtrArray     *args,
                  GPtrArray     *keep);
void cli_send (OracleDriver *d,
               OParams      *own);
void cli_tool (OracleDriver *d,
               OTurn        *t);
void cli_resume (OracleDriver *d,
                 OSession     *s);
void cli_retry (OracleDriver *d,
                OTurn        *of);
gboolean sendable (OracleDriver *d,
                   OSession     *s);
void cli_delete (OracleDriver *d,
                 OSession     *s);

/* The search index (oracle-driver-search.c), which calls the above */

void check_search (OracleDriver *d);
void search_delete (OracleDriver *d,
                    OSession     *s);

/* Pins, folders and generation parameters (oracle-driver-settings.c),
 * which calls the above */

gboolean settable (OracleDriver *d,
                   OSession     *s);
void op_pin (OracleDriver *d,
             OSession     *s,
             gboolean      cli);
void op_folder (OracleDriver *d,
                OSession     *s,
                gboolean      cli);
void op_params (OracleDriver *d,
                OSession     *s,
                gboolean      cli);

G_END_DECLS
