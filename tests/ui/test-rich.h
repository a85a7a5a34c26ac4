/* test-rich.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-rich share (test-rich-fixture.c): the
 * application every test's window belongs to, screenshots in light and
 * dark style, and finding the parts of a window.
 */

#pragma once

#include <libsoup/soup.h>

#include "natter-code-block.h"
#include "natter-markdown-view.h"
#include "natter-model-picker.h"
#include "natter-tool-call-card.h"
#include "natter-turn-row.h"
#include "natter-test-server.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

extern NatterApplication *app;

void
save_screenshots (GtkWidget  *native,
                  const char *name);
GPtrArray *
find_all_any (gpointer root,
              GType    type);
NatterTurnRow *
row_for_turn (NatterWindow *window,
              const char   *turn_id);
GtkWidget *
find_button_with_tooltip (gpointer    root,
                          const char *tooltip);
GtkWidget *
find_button_with_action (gpointer    root,
                         const char *action_name);
GtkLabel *
find_label_with_class (gpointer    root,
                       const char *css_class);

/* The scenarios in the files beside test-rich.c */
/* test-rich-model-picker.c */
void test_rich_model_picker (void);
void test_rich_model_picker_first_model (void);
void test_rich_model_picker_unreachable (void);
void test_rich_model_picker_per_session (void);
void test_rich_model_picker_unknown_provider (void);
void test_rich_model_picker_other_providers (void);
void test_rich_model_picker_odd_names (void);
void test_rich_model_picker_model_gone (void);
void test_rich_model_picker_new_chat_goes_on (void);
void test_rich_model_picker_pick_survives_restart (void);
void test_rich_model_picker_arrows_in_order (void);
/* test-rich-code-blocks.c */
void test_rich_code_block_streamed (void);
void test_rich_code_block_whole (void);
/* test-rich-shortcuts.c */
void test_rich_shortcuts (void);
void test_rich_icon_buttons_labelled (void);
