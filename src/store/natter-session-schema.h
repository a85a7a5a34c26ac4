/* natter-session-schema.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session event schemas of docs/format.md §3.1, with the session
 * header ideas of dsh-session.md (`cwd`, `parentSession`, fork lineage).
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NATTER_SESSION_SCHEMA_VERSION:
 *
 * The newest session schema version. Readers accept every version from 1
 * up to it (docs/format.md §3.3, §3.5 and §3.6). New files are created at
 * 1, the lowest, and a file is raised by appending a `schema_upgraded`
 * event right before its first event that needs more, never by
 * rewriting.
 */
#define NATTER_SESSION_SCHEMA_VERSION 4

/**
 * NATTER_SESSION_CWD_MAX:
 *
 * The longest `cwd` accepted, in bytes (PATH_MAX on Linux, less the NUL).
 */
#define NATTER_SESSION_CWD_MAX 4095

gboolean  natter_session_event_validate          (JsonObject  *event,
                                                  const char  *session_id,
                                                  GError     **error);
gboolean  natter_session_cwd_validate            (const char  *cwd,
                                                  GError     **error);

JsonNode *natter_session_event_new_created       (const char  *session_id,
                                                  const char  *ts,
                                                  const char  *title,
                                                  const char  *cwd,
                                                  const char  *parent_session,
                                                  const char  *forked_from_turn_id);
JsonNode *natter_session_event_new_turn_appended (const char  *session_id,
                                                  const char  *ts,
                                                  const char  *turn_id,
                                                  gint64       session_seq,
                                                  const char  *agent_id,
                                                  JsonObject  *model);
JsonNode *natter_session_event_new_title_changed (const char  *session_id,
                                                  const char  *ts,
                                                  const char  *title);

G_END_DECLS
