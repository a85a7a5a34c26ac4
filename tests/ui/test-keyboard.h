/* test-keyboard.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-keyboard share (test-keyboard-fixture.c): the
 * application, a window that opens no session by itself, and keys
 * pressed the way GTK dispatches them.
 */

#pragma once

#include "natter-ask-human-card.h"
#include "natter-code-block.h"
#include "natter-permission-card.h"
#include "natter-session-row.h"
#include "natter-tool-call-card.h"
#include "natter-turn-item.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

extern NatterApplication *app;

NatterWindow *
window_new (UiWorld *u);
gboolean
trigger_matches (GtkShortcutTrigger *trigger,
                 guint               keyval,
                 GdkModifierType     modifiers);
gboolean
strv_has (char       **strv,
          const char  *accel);
gboolean
press (gpointer    window,
       const char *accel);
gboolean
press_key_controllers (gpointer window,
                       guint    keyval);
void
tab (gpointer         window,
     GtkDirectionType direction);
gboolean
has_focus_in (GtkWidget *window,
              GtkWidget *widget);
void
wait_focus_in (gpointer window,
               gpointer widget);
GtkWindow *
find_dialog (NatterWindow *window);
GPtrArray *
tab_cycle (gpointer window);

/* The scenarios in the files beside test-keyboard.c */
/* test-keyboard-conversations.c */
void test_keyboard_new_chat_and_composer (void);
void test_keyboard_start_types_into_composer (void);
void test_keyboard_open_with_enter (void);
void test_keyboard_rename (void);
void test_keyboard_delete_and_undo (void);
void test_keyboard_undo_at_once_twice (void);
void test_keyboard_undo_folder_delete (void);
void test_keyboard_row_context_menu (void);
void test_keyboard_undo_typing_first (void);
void test_keyboard_send_keeps_focus_and_escape_stops (void);
void test_keyboard_blank_not_sent (void);
void test_keyboard_search_down_to_list (void);
/* test-keyboard-sidebar.c */
void test_keyboard_keys_act_on_focused_row (void);
void test_keyboard_search_escape_to_row (void);
void test_keyboard_arrows_walk_list (void);
void test_keyboard_row_menu_gives_focus_back (void);
void test_keyboard_undo_after_new_folder (void);
void test_keyboard_next_previous_conversation (void);
/* test-keyboard-prompts.c */
void test_keyboard_permission_prompt (void);
void test_keyboard_ask_human_prompt (void);
void test_keyboard_conversation_controls (void);
void test_keyboard_shift_tab_enters_newest_turn (void);
/* test-keyboard-windows.c */
void test_keyboard_model_picker_and_windows (void);
void test_keyboard_narrow_back (void);
void test_keyboard_tab_stops_named (void);
void test_keyboard_narrow_arrows_stay_in_list (void);
/* test-keyboard-cycle.c */
void test_keyboard_tab_around_answers (void);
void test_keyboard_tab_around_new_chat (void);
