/* natter-sessions-grants.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Session permission grants (docs/sessions.md §12): "Always Allow
 * in This Conversation".
 */

#pragma once

#include <gio/gio.h>

#include "natter-sessions.h"

G_BEGIN_DECLS

void               natter_sessions_add_grant_async       (NatterSessions       *self,
                                                          const char           *session_id,
                                                          const char           *tool,
                                                          GCancellable         *cancellable,
                                                          GAsyncReadyCallback   callback,
                                                          gpointer              user_data);
char              *natter_sessions_add_grant_finish      (NatterSessions       *self,
                                                          GAsyncResult         *result,
                                                          GError              **error);
void               natter_sessions_remove_grant_async    (NatterSessions       *self,
                                                          const char           *session_id,
                                                          const char           *grant_id,
                                                          GCancellable         *cancellable,
                                                          GAsyncReadyCallback   callback,
                                                          gpointer              user_data);
gboolean           natter_sessions_remove_grant_finish   (NatterSessions       *self,
                                                          GAsyncResult         *result,
                                                          GError              **error);
void               natter_sessions_allow_always_async    (NatterSessions       *self,
                                                          const char           *turn_id,
                                                          const char           *tool_call_id,
                                                          GCancellable         *cancellable,
                                                          GAsyncReadyCallback   callback,
                                                          gpointer              user_data);
NatterTurnOutcome *natter_sessions_allow_always_finish   (NatterSessions       *self,
                                                          GAsyncResult         *result,
                                                          char                **out_grant_id,
                                                          GError              **error);

char              *natter_sessions_dup_tool_name         (NatterSessions       *self,
                                                          const char           *tool_id);

G_END_DECLS
