/* natter-auto-compact.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Compacting a conversation before a message is sent, when its last model
 * call filled most of the model's context window (docs/sessions.md
 * §5). Both front ends run it before natter_sessions_send_message_async().
 */

#pragma once

#include "natter-provider-registry.h"
#include "natter-sessions.h"
#include "natter-settings.h"

G_BEGIN_DECLS

/* The share of the window past which a conversation is compacted, in
 * percent of the window's tokens. */
#define NATTER_AUTO_COMPACT_PERCENT 80

void  natter_auto_compact_async  (NatterSessions         *sessions,
                                  NatterProviderRegistry *registry,
                                  NatterSettings         *settings,
                                  const char           *session_id,
                                  GCancellable         *cancellable,
                                  GAsyncReadyCallback   callback,
                                  gpointer              user_data);
char *natter_auto_compact_finish (NatterSessions       *sessions,
                                  GAsyncResult         *result,
                                  GError              **error);

G_END_DECLS
