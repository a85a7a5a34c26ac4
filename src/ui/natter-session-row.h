/* natter-session-row.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-sessions.h"
#include "natter-turn-event-hub.h"

G_BEGIN_DECLS

#define NATTER_TYPE_SESSION_ROW (natter_session_row_get_type ())

G_DECLARE_FINAL_TYPE (NatterSessionRow, natter_session_row, NATTER, SESSION_ROW, GtkWidget)

GtkWidget               *natter_session_row_new             (NatterSessions          *sessions,
                                                             NatterTurnEventHub      *hub);
void                     natter_session_row_set_entry       (NatterSessionRow        *self,
                                                             NatterSessionIndexEntry *entry);
NatterSessionIndexEntry *natter_session_row_get_entry       (NatterSessionRow        *self);
const char              *natter_session_row_get_title       (NatterSessionRow        *self);
const char              *natter_session_row_get_status_mark (NatterSessionRow        *self);

char                    *natter_format_relative_time        (const char              *iso8601,
                                                             GDateTime               *now);

G_END_DECLS
