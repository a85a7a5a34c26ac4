/* natter-sessions-settings.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a conversation keeps about itself (docs/format.md §3.5,
 * docs/sessions.md §15): its generation parameters.
 */

#pragma once

#include <gio/gio.h>

#include "natter-generation-parameters.h"
#include "natter-sessions.h"

G_BEGIN_DECLS

const char                       *natter_sessions_get_conversation_id (NatterSessions                   *self,
                                                                       const char                       *session_id);
const NatterGenerationParameters *natter_sessions_get_kept_parameters (NatterSessions                   *self,
                                                                       const char                       *session_id);

void                              natter_sessions_set_parameters_async (NatterSessions                  *self,
                                                                        const char                      *session_id,
                                                                        const NatterGenerationParameters *parameters,
                                                                        GCancellable                    *cancellable,
                                                                        GAsyncReadyCallback              callback,
                                                                        gpointer                         user_data);
gboolean                          natter_sessions_set_parameters_finish (NatterSessions                 *self,
                                                                         GAsyncResult                   *result,
                                                                         GError                        **error);

G_END_DECLS
