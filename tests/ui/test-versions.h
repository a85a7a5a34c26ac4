/* test-versions.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-versions share (test-versions-fixture.c): the
 * application every test's window belongs to, a message's row and its
 * version switcher, and the conditions a new version is waited for
 * with.
 */

#pragma once

#include "config.h"

#include <string.h>

#include "natter-session-row.h"
#include "natter-timeline-marker.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-version-switcher.h"
#include "natter-window-private.h"

typedef struct
{
  NatterWindow *window;
  UiWorld      *u;
  const char   *not;
} NewVersion;

G_BEGIN_DECLS

/* test-versions-fixture.c */

extern NatterApplication *app;

GtkWidget *
child_at (GtkWidget *widget,
          guint      index);

NatterTurnRow *
find_row (NatterWindow *window,
          const char   *turn_id);

GtkWidget *
find_any (GtkWidget *widget,
          GType      type);

NatterVersionSwitcher *
switcher_of (NatterTurnRow *row);

void
wait_switcher (NatterWindow *window,
               const char   *turn_id,
               const char   *label);

gboolean
new_version_open (gpointer data);

gboolean
composer_has_text (gpointer data);

/* The scenarios in the files beside test-versions.c */
/* test-versions-edit.c */
void test_edit_message (void);
void test_edit_shown_live (void);
void test_edit_deleted_original (void);
/* test-versions-try-again.c */
void test_try_again_keeps_answer (void);
void test_try_again_not_a_branch (void);
void test_try_again_keeps_message_parameters (void);
void test_grown_row_stays_whole (void);
/* test-versions-sidebar.c */
void test_sidebar_lists_conversation_once (void);
void test_sidebar_damaged_version_title (void);
void test_rename_names_every_version (void);
void test_delete_version_says_what_is_kept (void);
void test_delete_version_keeps_row (void);
void test_delete_original_keeps_history_and_pin (void);
/* test-versions-model.c */
void test_edit_keeps_model (void);
void test_try_again_keeps_model (void);

G_END_DECLS
