/* natter-session-grants-queue.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What session schema version 2 adds to the state reduceSession folds:
 * the file's schema version, the active permission grants
 * (docs/format.md §3.4) and the pending queued messages (docs/format.md §3.4).
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-session-reducer.h"

G_BEGIN_DECLS

/**
 * NatterSessionGrant:
 * @grant_id: the grant's id
 * @tool_id: the tool every call of which it allows
 * @ts: the `ts` of its `permission_grant_added`
 *
 * One active permission grant. Owned by the #NatterSessionState it came
 * from; read-only.
 */
typedef struct
{
  const char *grant_id;
  const char *tool_id;
  const char *ts;
} NatterSessionGrant;

/**
 * NatterSessionQueuedMessage:
 * @queue_id: the queued message's id
 * @message: the user message, as last replaced; sealed
 * @options: the send options it was queued with; sealed
 * @ts: the `ts` of its `message_queued` (an edit keeps its place)
 *
 * One pending queued message. Owned by the #NatterSessionState it came
 * from; read-only.
 */
typedef struct
{
  const char *queue_id;
  JsonObject *message;
  JsonObject *options;
  const char *ts;
} NatterSessionQueuedMessage;

gint64                            natter_session_state_get_schema_version (NatterSessionState *self);
guint                             natter_session_state_get_n_grants       (NatterSessionState *self);
const NatterSessionGrant         *natter_session_state_get_grant          (NatterSessionState *self,
                                                                           guint               index);
const NatterSessionGrant         *natter_session_state_find_grant         (NatterSessionState *self,
                                                                           const char         *grant_id);
const NatterSessionGrant         *natter_session_state_find_grant_for_tool (NatterSessionState *self,
                                                                            const char         *tool_id);
guint                             natter_session_state_get_n_queued       (NatterSessionState *self);
const NatterSessionQueuedMessage *natter_session_state_get_queued         (NatterSessionState *self,
                                                                           guint               index);
const NatterSessionQueuedMessage *natter_session_state_find_queued        (NatterSessionState *self,
                                                                           const char         *queue_id);

G_END_DECLS
