/* natter-session-grant-view.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-jsonl-repo.h"
#include "natter-permission-grants.h"
#include "natter-session-reducer.h"

G_BEGIN_DECLS

#define NATTER_TYPE_SESSION_GRANT_VIEW (natter_session_grant_view_get_type ())

G_DECLARE_FINAL_TYPE (NatterSessionGrantView, natter_session_grant_view, NATTER, SESSION_GRANT_VIEW, GObject)

NatterSessionGrantView *natter_session_grant_view_new    (NatterJsonlRepo        *session_repo);
void                    natter_session_grant_view_update (NatterSessionGrantView *self,
                                                          NatterSessionState     *state);
void                    natter_session_grant_view_forget (NatterSessionGrantView *self,
                                                          const char             *session_id);

G_END_DECLS
