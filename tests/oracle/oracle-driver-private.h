/* oracle-driver-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The driver's state, for its own files.
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

G_END_DECLS
