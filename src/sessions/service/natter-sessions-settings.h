/* natter-sessions-settings.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a conversation keeps about itself (docs/format.md §3.5,
 * docs/sessions.md §15): its generation parameters; where it is placed in
 * the list (docs/format.md §3.6, docs/sessions.md §16): pinned, in a
 * folder.
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

gboolean                          natter_sessions_get_pinned          (NatterSessions                   *self,
                                                                       const char                       *session_id);
const char                       *natter_sessions_get_folder_id       (NatterSessions                   *self,
                                                                       const char                       *session_id);
char                             *natter_sessions_dup_pin_heir        (NatterSessions                   *self,
                                                                       const char                       *original);
void                              natter_sessions_set_pinned_async    (NatterSessions                   *self,
                                                                       const char                       *session_id,
                                                                       gboolean                          pinned,
                                                                       GCancellable                     *cancellable,
                                                                       GAsyncReadyCallback               callback,
                                                                       gpointer                          user_data);
gboolean                          natter_sessions_set_pinned_finish   (NatterSessions                   *self,
                                                                       GAsyncResult                     *result,
                                                                       GError                          **error);
void                              natter_sessions_set_folder_async    (NatterSessions                   *self,
                                                                       const char                       *session_id,
                                                                       const char                       *folder_id,
                                                                       GCancellable                     *cancellable,
                                                                       GAsyncReadyCallback               callback,
                                                                       gpointer                          user_data);
gboolean                          natter_sessions_set_folder_finish   (NatterSessions                   *self,
                                                                       GAsyncResult                     *result,
                                                                       GError                          **error);

G_END_DECLS
