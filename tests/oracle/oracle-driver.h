/* oracle-driver.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs random operations on the real services (natter-services.h) and a
 * scripted model (natter-test-server.h) beside the independent model of
 * oracle-model.h, and checks after every model call and every operation
 * that they agree: what the model received, what the services, the
 * command line (the real `natter`) and any other reader (the window)
 * read of each conversation, the files on disk, and that no turn the
 * model expects to run is left waiting.
 *
 * A front end (OracleFrontEnd) sends the person's messages: the send
 * pipeline, as the command line does, or the window. Everything else is
 * the session service's, or a `natter` process that may be killed.
 */

#pragma once

#include "natter-services.h"
#include "natter-test-services.h"
#include "natter-test-support.h"
#include "oracle-model.h"

G_BEGIN_DECLS

typedef struct _OracleDriver OracleDriver;

/* What became of a message a front end sent. */
typedef struct
{
  char     *session_id;
  char     *turn_id;
  char     *queue_id;
  GError   *error;
  gboolean  retry_offered;   /* the front end offers to send it again */
} OracleSent;

/* A refusal a front end shows without its code (the window): it matches
 * any refusal the model expects. */
#define ORACLE_SHOWN_REFUSAL (oracle_shown_refusal_quark ())
GQuark oracle_shown_refusal_quark (void);

void oracle_sent_clear (OracleSent *sent);

typedef struct
{
  const char *name;
  /* A message typed in @session_id (NULL: a new conversation), with
   * @files (OFile*); queued behind an answer that has not ended when
   * @queue. */
  void     (*send)      (OracleDriver *d,
                         const char   *session_id,
                         const char   *text,
                         GPtrArray    *files,
                         gboolean      queue,
                         guint         max_calls,
                         OracleSent   *out);
  /* Try Again (or Compact and Continue) on @turn_id, shown in @shown_in. */
  void     (*again)     (OracleDriver *d,
                         const char   *shown_in,
                         const char   *turn_id,
                         gboolean      compact_first,
                         OracleSent   *out);
  /* An edit of @turn_id's message, shown in @shown_in. */
  void     (*edit)      (OracleDriver *d,
                         const char   *shown_in,
                         const char   *turn_id,
                         const char   *text,
                         OracleSent   *out);
  /* The last message that was not sent, sent again (the error's Retry). */
  void     (*retry)     (OracleDriver *d,
                         OracleSent   *out);
  /* Whether the Retry of the last refusal is still offered (NULL: yes). */
  gboolean (*can_retry) (OracleDriver *d);
  /* A message waits in the queue exactly when the latest turn has not
   * ended (it runs or waits for the person), whatever was asked: the
   * window's rule. */
  gboolean   auto_queue;
  /* An edit keeps the message's attachments (the window carries them
   * into the composer). */
  gboolean   edit_keeps_files;
} OracleFrontEnd;

/* Reads @s as one reader shows it, in the shape of
 * oracle_expected_view() (members a reader cannot tell left out). */
typedef JsonNode *(*OracleReader) (OracleDriver *d,
                                   OSession     *s,
                                   gpointer      data);

/* Around every time the services are dropped and loaded again (a
 * restart, a `natter` process): what holds them lets go, then takes the
 * new ones. */
typedef void (*OracleRestartHook) (OracleDriver *d,
                                   gboolean      loaded,
                                   gpointer      data);

typedef struct
{
  guint32      seed;
  guint        n_ops;
  guint        cli_every;    /* the command line's readings every N operations; 0: at the end only */
  gboolean     cli_ops;      /* some operations run in a `natter` process */
  gboolean     verbose;
  gboolean     plain;        /* no text a string cannot hold, no control characters */
  const char  *defer;        /* comma-separated failure kinds reported without stopping the run */
} OracleOptions;

OracleDriver   *oracle_driver_new              (const OracleOptions  *options);
void            oracle_driver_free             (OracleDriver         *d);
void            oracle_driver_set_front_end    (OracleDriver         *d,
                                                const OracleFrontEnd *front,
                                                gpointer              data);
gpointer        oracle_driver_get_front_data   (OracleDriver         *d);
void            oracle_driver_add_reader       (OracleDriver         *d,
                                                const char           *name,
                                                OracleReader          reader,
                                                gboolean              eventual,
                                                gpointer              data);
void            oracle_driver_set_restart_hook (OracleDriver         *d,
                                                OracleRestartHook     hook,
                                                gpointer              data);
gboolean        oracle_driver_run              (OracleDriver         *d);
char           *oracle_driver_dup_report       (OracleDriver         *d);
char           *oracle_driver_dup_counts       (OracleDriver         *d);
guint           oracle_driver_get_n_failures   (OracleDriver         *d);

NatterServices *oracle_driver_get_services     (OracleDriver         *d);
NatterSessionState *oracle_driver_read_session (OracleDriver         *d,
                                                const char           *session_id);
Oracle         *oracle_driver_get_oracle       (OracleDriver         *d);
const char     *oracle_driver_get_base_url     (OracleDriver         *d);
void            oracle_driver_fail             (OracleDriver         *d,
                                                const char           *kind,
                                                const char           *format,
                                                ...) G_GNUC_PRINTF (3, 4);
gboolean        oracle_driver_wait             (OracleDriver         *d,
                                                NatterTestCheck       condition,
                                                gpointer              data);

extern const OracleFrontEnd oracle_pipeline_front_end;

G_END_DECLS
