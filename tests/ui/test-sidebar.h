/* test-sidebar.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-sidebar share (test-sidebar-fixture.c): the
 * application every test's window belongs to, and finding and waiting
 * for a conversation's row in the sidebar.
 */

#pragma once

#include "natter-session-row.h"
#include "natter-test-support.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

G_BEGIN_DECLS

/* test-sidebar-fixture.c */

extern NatterApplication *app;

void
wait_row (NatterWindow *window,
          const char   *session_id,
          const char   *title);

const char *
sidebar_id (NatterWindow *window,
            guint         position);

/* The scenarios in the files beside test-sidebar.c */
/* test-sidebar-delete.c */
void test_sidebar_delete_has_undo (void);
void test_sidebar_delete_keeps_grown (void);
void test_sidebar_delete_keeps_placed (void);
void test_sidebar_delete_keeps_answered (void);
void test_sidebar_delete_keeps_placed_elsewhere (void);
void test_sidebar_delete_stops_answer (void);
void test_sidebar_delete_undo_while_streaming (void);
void test_sidebar_pending_delete_done_on_close (void);
void test_sidebar_delete_long_title_toast (void);
void test_sidebar_deleted_elsewhere (void);
void test_sidebar_deleted_by_another_process (void);
/* test-sidebar-damaged.c */
void test_sidebar_corrupt_session (void);
void test_sidebar_damaged_earlier_turn (void);
void test_sidebar_torn_first_turn (void);
void test_sidebar_older_copy_arriving (void);
void test_sidebar_damaged_view (void);
void test_sidebar_damaged_copy_takes_queue (void);
void test_sidebar_damaged_long_title (void);
void test_sidebar_damaged_while_open (void);
void test_sidebar_damaged_then_mended (void);
/* test-sidebar-recovered.c */
void test_sidebar_recovered_words_stay_in_view (void);
void test_sidebar_recovered_goes_on_with_shown_model (void);
void test_sidebar_recovered_unreadable_first_message (void);
/* test-sidebar-rename.c */
void test_sidebar_rename_then_send_keeps_title (void);
void test_sidebar_old_title_controls_visible (void);
void test_sidebar_rename_refused_keeps_dialog (void);
/* test-sidebar-place.c */
void test_sidebar_keeps_place (void);
void test_sidebar_keeps_place_at_end (void);
void test_sidebar_new_chat_in_view (void);

G_END_DECLS
