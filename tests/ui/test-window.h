/* test-window.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-window share (test-window-fixture.c): the
 * application every test's window belongs to.
 */

#pragma once

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "natter-branch-row.h"
#include "natter-session-row.h"
#include "natter-test-server.h"
#include "natter-test-support.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

G_BEGIN_DECLS

/* test-window-fixture.c */

extern NatterApplication *app;

/* The scenarios in the files beside test-window.c */
/* test-window-narrow.c */
void test_window_narrow (void);
void test_window_narrow_buttons (void);
void test_window_narrow_back_to_open (void);
/* test-window-errors.c */
void test_window_errors (void);
void test_window_missing_default_provider (void);
void test_window_provider_error_goes_with_settings (void);
void test_window_default_is_first_provider (void);
/* test-window-drafts.c */
void test_window_drafts_kept_on_close (void);
void test_window_drafts_kept_without_close (void);
void test_window_drafts_edit_stays_an_edit (void);
void test_window_drafts_edit_sets_draft_aside (void);
void test_window_drafts_set_aside_kept (void);
void test_window_drafts_damaged_keeps_draft (void);
void test_window_drafts_unreadable_said (void);
/* test-window-composer.c */
void test_window_composer (void);
void test_window_composer_grows (void);

G_END_DECLS
