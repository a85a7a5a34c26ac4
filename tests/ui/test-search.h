/* test-search.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-search share (test-search-fixture.c).
 */

#pragma once

#include <string.h>

#include <sqlite3.h>

#include "natter-folder-log.h"
#include "natter-search-index.h"
#include "natter-search-index-private.h"
#include "natter-sessions-settings.h"
#include "natter-turn-item.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

G_BEGIN_DECLS

/* test-search-fixture.c */

extern NatterApplication *app;

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  const char   *snippet;     /* NULL: the row shows none */
} ListWait;

typedef struct
{
  NatterWindow *window;
  const char   *first;   /* listed, in any order */
  const char   *second;
  const char   *note;    /* a part of the note under the entry */
} NoteWait;

char             *say                    (UiWorld      *u,
                                          const char   *session_id,
                                          const char   *text,
                                          const char   *answer);
gboolean          lists_only             (gpointer      data);
NatterSessionRow *find_listed_row        (NatterWindow *window,
                                          const char   *session_id);
void              search_for             (NatterWindow *window,
                                          const char   *text);
gboolean          note_says              (GtkWidget    *widget,
                                          gpointer      text);
gboolean          is_listed              (GListModel   *model,
                                          const char   *session_id);
gboolean          lists_with_note        (gpointer      data);
char             *describe_note          (gpointer      data);
gboolean          lists_without_cap_note (gpointer      data);

/* The scenarios in the files beside test-search.c */
/* test-search-progress.c */
void test_search_while_indexing (void);
void test_search_progress (void);
void test_search_capped (void);
/* test-search-damaged.c */
void test_damaged_stays_listed (void);
void test_damaged_note_follows_scope (void);
void test_unreadable_turn_listed (void);
void test_damaged_while_closed (void);
void test_note_follows_recheck (void);
void test_cache_not_a_file (void);
void test_cache_damaged_while_searching (void);

G_END_DECLS
