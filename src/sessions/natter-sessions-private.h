/* natter-sessions-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Test seams of the session service: crash simulation between the steps
 * of send_message (session-layer-spec.md §9.1, §13.4) and a view of the
 * live advances it tracks (§9.3).
 */

#pragma once

#include "natter-sessions.h"

G_BEGIN_DECLS

/**
 * NatterSessionsStep:
 * @NATTER_SESSIONS_STEP_READ_SESSION: after step 1 (session read and reduced)
 * @NATTER_SESSIONS_STEP_CHECK_LATEST: after step 2 (latest turn settled)
 * @NATTER_SESSIONS_STEP_CREATE_TURN: after step 4 (turn file created),
 *   before step 5 — the §7 crash window that leaves an orphan turn
 * @NATTER_SESSIONS_STEP_APPEND: after steps 5–6 (turn_appended and the
 *   default title are on disk), before step 7
 * @NATTER_SESSIONS_STEP_ADVANCE: after step 7 (the advance started),
 *   before step 8
 *
 * Points of send_message where a fault function may simulate a crash.
 */
typedef enum
{
  NATTER_SESSIONS_STEP_READ_SESSION,
  NATTER_SESSIONS_STEP_CHECK_LATEST,
  NATTER_SESSIONS_STEP_CREATE_TURN,
  NATTER_SESSIONS_STEP_APPEND,
  NATTER_SESSIONS_STEP_ADVANCE,
} NatterSessionsStep;

/* Returns FALSE with @error set to stop send_message at @step as if the
 * process had died there: nothing after the step happens, the lock is
 * released and the error is returned. */
typedef gboolean (*NatterSessionsFaultFunc) (NatterSessionsStep   step,
                                             const char          *session_id,
                                             gpointer             user_data,
                                             GError             **error);

void   natter_sessions_set_fault_func         (NatterSessions          *self,
                                               NatterSessionsFaultFunc  func,
                                               gpointer                 user_data);
guint  natter_sessions_get_n_live_advances    (NatterSessions          *self,
                                               const char              *turn_id);
guint  natter_sessions_get_n_advances         (NatterSessions          *self);

G_END_DECLS
