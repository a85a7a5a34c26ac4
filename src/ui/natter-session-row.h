/* natter-session-row.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-clock.h"
#include "natter-sessions.h"
#include "natter-turn-event-hub.h"

G_BEGIN_DECLS

#define NATTER_TYPE_TIME_TICKER (natter_time_ticker_get_type ())

G_DECLARE_FINAL_TYPE (NatterTimeTicker, natter_time_ticker, NATTER, TIME_TICKER, GObject)

NatterTimeTicker        *natter_time_ticker_new             (NatterClock             *clock);
NatterClock             *natter_time_ticker_get_clock       (NatterTimeTicker        *self);
void                     natter_time_ticker_hold            (NatterTimeTicker        *self);
void                     natter_time_ticker_release         (NatterTimeTicker        *self);
gboolean                 natter_time_ticker_get_active      (NatterTimeTicker        *self);
void                     natter_time_ticker_tick            (NatterTimeTicker        *self);

#define NATTER_TYPE_SESSION_ROW (natter_session_row_get_type ())

G_DECLARE_FINAL_TYPE (NatterSessionRow, natter_session_row, NATTER, SESSION_ROW, GtkWidget)

GtkWidget               *natter_session_row_new             (NatterSessions          *sessions,
                                                             NatterTurnEventHub      *hub,
                                                             NatterTimeTicker        *ticker);
void                     natter_session_row_set_entry       (NatterSessionRow        *self,
                                                             NatterSessionIndexEntry *entry);
NatterSessionIndexEntry *natter_session_row_get_entry       (NatterSessionRow        *self);
void                     natter_session_row_set_more_hits   (NatterSessionRow        *self,
                                                             const char * const      *turn_ids,
                                                             const char * const      *markups,
                                                             const char * const      *texts);
void                     natter_session_row_set_snippet     (NatterSessionRow        *self,
                                                             const char              *markup);
const char              *natter_session_row_get_snippet     (NatterSessionRow        *self);
void                     natter_session_row_set_n_versions  (NatterSessionRow        *self,
                                                             guint                    n_versions);
void                     natter_session_row_set_earlier_version (NatterSessionRow    *self,
                                                                 gboolean             earlier);
void                     natter_session_row_set_damaged_message (NatterSessionRow    *self,
                                                                 gboolean             damaged);
const char              *natter_session_row_get_versions_text (NatterSessionRow      *self);
const char              *natter_session_row_get_title       (NatterSessionRow        *self);
const char              *natter_session_row_get_status_mark (NatterSessionRow        *self);
const char              *natter_session_row_get_time_text   (NatterSessionRow        *self);
NatterTimeTicker        *natter_session_row_get_ticker      (NatterSessionRow        *self);
char                    *natter_session_dup_damaged_title   (NatterSessions          *sessions,
                                                             NatterSessionIndexEntry *entry);

char                    *natter_format_relative_time        (const char              *iso8601,
                                                             GDateTime               *now);

G_END_DECLS
