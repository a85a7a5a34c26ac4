/* natter-session-scan.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-generation-parameters.h"
#include "natter-jsonl-cursor.h"
#include "natter-jsonl-repo.h"

G_BEGIN_DECLS

/**
 * NatterSessionScanResult:
 * @title: (nullable): the folded title: the `session_created` title until
 *   a `title_changed`, then the last one
 * @title_is_explicit: whether a `title_changed` set @title
 * @created_at: the `ts` of `session_created`
 * @updated_at: the `ts` of the last event
 * @turn_count: how many `turn_appended` events there are
 * @last_agent_id: (nullable): the `agentId` of the last turn
 * @last_model: (nullable): the `model` of the last turn, sealed
 * @first_turn_id: (nullable): the `turnId` of the first turn
 * @latest_turn_id: (nullable): the `turnId` of the last turn
 * @latest_turn_at: (nullable): the `ts` of the last `turn_appended`: when
 *   the conversation last had activity (a rename is not activity)
 * @cwd: (nullable): the session's working directory
 * @parent_session: (nullable): the session this one descends from
 * @is_version: whether it is a version of @parent_session
 *   (natter_session_state_get_is_version())
 * @parameters: (nullable): the generation parameters of the last
 *   `parameters_changed`, or %NULL when none are kept
 * @pinned: whether the last `pin_changed` pinned it
 * @folder_id: (nullable): the `folderId` of the last `folder_changed`
 *
 * What the startup scan (docs/sessions.md §8.2 step 2) needs of one
 * session file: exactly the index entry's session-derived fields. Every
 * member is owned; free with natter_session_scan_result_clear().
 */
typedef struct
{
  char       *title;
  gboolean    title_is_explicit;
  char       *created_at;
  char       *updated_at;
  guint       turn_count;
  char       *last_agent_id;
  JsonObject *last_model;
  char       *first_turn_id;
  char       *latest_turn_id;
  char       *latest_turn_at;
  char       *cwd;
  char       *parent_session;
  gboolean    is_version;
  NatterGenerationParameters *parameters;
  gboolean    pinned;
  char       *folder_id;
} NatterSessionScanResult;

void     natter_session_scan_result_clear (NatterSessionScanResult  *result);

gboolean natter_session_scan_contents     (const char               *contents,
                                           gsize                     length,
                                           const char               *session_id,
                                           NatterSessionScanResult  *out);

gboolean natter_session_scan_file_sync    (NatterJsonlRepo          *repo,
                                           const char               *session_id,
                                           NatterSessionScanResult  *out,
                                           GCancellable             *cancellable,
                                           GError                  **error);
gboolean natter_session_scan_file_at      (NatterJsonlCursor        *cursor,
                                           const char               *session_id,
                                           NatterFileIdentity       *out_identity,
                                           gboolean                 *out_identity_known,
                                           NatterSessionScanResult  *out,
                                           GCancellable             *cancellable,
                                           GError                  **error);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (NatterSessionScanResult, natter_session_scan_result_clear)

G_END_DECLS
