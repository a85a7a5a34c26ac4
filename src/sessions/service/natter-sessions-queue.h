/* natter-sessions-queue.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Queued messages (docs/sessions.md §4): typed while a turn runs,
 * sent one by one as turns complete.
 */

#pragma once

#include "natter-sessions.h"

G_BEGIN_DECLS

void      natter_sessions_queue_message_async           (NatterSessions          *self,
                                                         const char              *session_id,
                                                         JsonObject              *input,
                                                         const NatterSendOptions *options,
                                                         gboolean                 only_if_busy,
                                                         GCancellable            *cancellable,
                                                         GAsyncReadyCallback      callback,
                                                         gpointer                 user_data);
char     *natter_sessions_queue_message_finish          (NatterSessions          *self,
                                                         GAsyncResult            *result,
                                                         GError                 **error);
void      natter_sessions_replace_queued_message_async  (NatterSessions          *self,
                                                         const char              *session_id,
                                                         const char              *queue_id,
                                                         JsonObject              *input,
                                                         GCancellable            *cancellable,
                                                         GAsyncReadyCallback      callback,
                                                         gpointer                 user_data);
gboolean  natter_sessions_replace_queued_message_finish (NatterSessions          *self,
                                                         GAsyncResult            *result,
                                                         GError                 **error);
void      natter_sessions_remove_queued_message_async   (NatterSessions          *self,
                                                         const char              *session_id,
                                                         const char              *queue_id,
                                                         GCancellable            *cancellable,
                                                         GAsyncReadyCallback      callback,
                                                         gpointer                 user_data);
gboolean  natter_sessions_remove_queued_message_finish  (NatterSessions          *self,
                                                         GAsyncResult            *result,
                                                         GError                 **error);
void      natter_sessions_move_queue_async              (NatterSessions          *self,
                                                         const char              *from,
                                                         const char              *replaced_turn_id,
                                                         const char              *to,
                                                         GAsyncReadyCallback      callback,
                                                         gpointer                 user_data);
gint      natter_sessions_move_queue_finish             (NatterSessions          *self,
                                                         GAsyncResult            *result,
                                                         GError                 **error);

void      natter_sessions_hold_queue                    (NatterSessions          *self,
                                                         const char              *session_id);
void      natter_sessions_release_queue                 (NatterSessions          *self,
                                                         const char              *session_id,
                                                         gboolean                 promote);
gboolean  natter_sessions_is_queue_held                 (NatterSessions          *self,
                                                         const char              *session_id);
void      natter_sessions_promote_queue_async           (NatterSessions          *self,
                                                         const char              *session_id,
                                                         GCancellable            *cancellable,
                                                         GAsyncReadyCallback      callback,
                                                         gpointer                 user_data);
char     *natter_sessions_promote_queue_finish          (NatterSessions          *self,
                                                         GAsyncResult            *result,
                                                         GError                 **error);

G_END_DECLS
