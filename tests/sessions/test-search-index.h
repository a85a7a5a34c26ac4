/* test-search-index.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-search-index share (test-search-index-fixture.c):
 * the fixture (the support's session fixture and the index's cache file),
 * an exchange with the fake model, starting the index and waiting until
 * it has caught up, and searching it.
 */

#pragma once

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "natter-search-db.h"
#include "natter-search-index.h"
#include "natter-search-index-private.h"
#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"
#include "natter-test-sessions.h"

#define TIMEOUT_MS 20000

typedef struct
{
  NatterTestSessions  t;       /* first: a Fixture is a NatterTestSessions */
  GFile              *cache;
  NatterSearchIndex  *search;
} Fixture;

#define assert_search(f, text, expected) \
  G_STMT_START { \
    g_autofree char *found_ = search ((f), (text)); \
    g_assert_cmpstr (found_, ==, (expected)); \
  } G_STMT_END

G_BEGIN_DECLS

/* test-search-index-fixture.c */

void
fixture_set_up (Fixture       *f,
                gconstpointer  data);

void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data);

char *
exchange (Fixture    *f,
          const char *session_id,
          const char *text,
          const char *answer);

NatterSearchIndex *
start_search (Fixture *f);

void
wait_indexed (Fixture *f);

char *
search (Fixture    *f,
        const char *text);

char *
hit_line (const char *session_id,
          const char *turn_id);

void
delete_session (Fixture    *f,
                const char *session_id);

/* The scenarios in the files beside test-search-index.c */
/* test-search-index-snippets.c */
void test_snippets_keep_words_whole (Fixture *f, gconstpointer data);
void test_snippet_from_highlight (void);
void test_snippet_markup_controls_visible (void);
void test_huge_message (Fixture *f, gconstpointer data);
/* test-search-index-cache.c */
void test_corrupt_index_rebuilt (Fixture *f, gconstpointer data);
void test_old_layout_rebuilt (Fixture *f, gconstpointer data);
void test_cache_path_not_a_file (Fixture *f, gconstpointer data);
void test_stale_files_picked_up_at_start (Fixture *f, gconstpointer data);
/* test-search-index-damage.c */
void test_garbage_at_start (Fixture *f, gconstpointer data);
void test_truncated_at_start (Fixture *f, gconstpointer data);
void test_page_damaged_at_start (Fixture *f, gconstpointer data);
void test_garbage_while_running (Fixture *f, gconstpointer data);
void test_truncated_while_running (Fixture *f, gconstpointer data);
void test_page_damaged_while_running (Fixture *f, gconstpointer data);
void test_damage_found_by_worker (Fixture *f, gconstpointer data);
void test_terms_table_made_again (Fixture *f, gconstpointer data);
void test_reader_beside_rebuild (Fixture *f, gconstpointer data);
void test_reader_makes_no_wal (Fixture *f, gconstpointer data);
/* test-search-index-build.c */
void test_progress (Fixture *f, gconstpointer data);
void test_damaged_not_indexed (Fixture *f, gconstpointer data);
void test_lost_end_not_indexed (Fixture *f, gconstpointer data);
void test_damage_found_reindexed (Fixture *f, gconstpointer data);
/* test-search-index-versions.c */
void test_version_shows_deleted_original (Fixture *f, gconstpointer data);
void test_original_deleted_while_closed (Fixture *f, gconstpointer data);

G_END_DECLS
