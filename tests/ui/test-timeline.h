/* test-timeline.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-timeline share (test-timeline-fixture.c): the
 * application, and the texts a window's timeline shows.
 */

#pragma once

#include "natter-code-block.h"
#include "natter-markdown-view.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

extern NatterApplication *app;

char *
shown_texts (NatterWindow *window);
void
wait_texts (NatterWindow *window,
            const char   *expected);

/* test-timeline-long.c */
void test_timeline_long_session_reads_visible (void);
void test_timeline_picked_opens_with_its_turns (void);
void test_timeline_picked_then_other (void);
void test_timeline_open_before_shown (void);
void test_timeline_scroll_loads_rows (void);
