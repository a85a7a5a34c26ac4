/* test-search-index-build.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A build of the index from nothing: how far it has come, a committed
 * batch at a time, and the words of damaged session and turn files left
 * out.
 */

#include "test-search-index.h"

static gboolean
checked_is (NatterTestSessions *t,
            gconstpointer       data)
{
  Fixture *f = (Fixture *) t;
  guint n_checked = 0;

  natter_search_index_get_progress (f->search, &n_checked, NULL);
  return n_checked == GPOINTER_TO_UINT (data);
}

static guint
count_hits (Fixture    *f,
            const char *text)
{
  g_autofree char *found = search (f, text);
  guint n = 0;

  for (const char *p = found; *p != '\0'; p++)
    n += *p == '\n';
  return n;
}

/* A build says how far it has come, a committed batch at a time, and a
 * search meanwhile finds exactly what those batches hold. The worker
 * stops after each commit until the test lets it go on. */
void
test_progress (Fixture       *f,
               gconstpointer  data)
{
  guint n_sessions = 0;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *sid = natter_test_sessions_create (&f->t);

      g_free (exchange (f, sid, "What is in the burrow?", "A wombat."));
    }

  f->search = natter_search_index_new (f->cache, f->t.w->session_repo, f->t.w->turn_repo, f->t.sessions);
  natter_search_index_pause_after_batches (f->search, 1);
  natter_search_index_start (f->search);
  natter_test_sessions_wait_until (&f->t, checked_is, GUINT_TO_POINTER (1));
  natter_search_index_get_progress (f->search, NULL, &n_sessions);
  g_assert_cmpuint (n_sessions, ==, 3);
  g_assert_true (natter_search_index_get_indexing (f->search));
  g_assert_cmpuint (count_hits (f, "wombat"), ==, 1);

  natter_search_index_resume (f->search, TRUE);
  natter_test_sessions_wait_until (&f->t, checked_is, GUINT_TO_POINTER (2));
  g_assert_cmpuint (count_hits (f, "wombat"), ==, 2);

  natter_search_index_resume (f->search, FALSE);
  wait_indexed (f);
  g_assert_true (checked_is (&f->t, GUINT_TO_POINTER (3)));
  g_assert_cmpuint (count_hits (f, "wombat"), ==, 3);
}

/* A build from nothing, its logs read on a second thread: the words of
 * a damaged session file and of a damaged turn file are not indexed,
 * those of every other turn are. The conversation of the damaged turn
 * is named as one a search cannot look at in full (the damaged session
 * file is the session index's to name), until the turn reads again. */
void
test_damaged_not_indexed (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *good = natter_test_sessions_create (&f->t);
  g_autofree char *bad_session = natter_test_sessions_create (&f->t);
  g_autofree char *bad_turn = natter_test_sessions_create (&f->t);
  g_autofree char *t1 = exchange (f, good, "Tell me of otters", "Otters hold hands.");
  g_autofree char *t2 = exchange (f, bad_session, "Tell me of otters", "Otters sleep afloat.");
  g_autofree char *t3 = exchange (f, bad_turn, "Tell me of otters", "Otters use stones.");
  g_autofree char *t4 = exchange (f, bad_turn, "And beavers?", "Beavers build dams.");
  g_autoptr(GFile) session_file = natter_jsonl_repo_get_file (f->t.w->session_repo, bad_session, NULL);
  g_autoptr(GFile) turn_file = natter_jsonl_repo_get_file (f->t.w->turn_repo, t3, NULL);
  g_autofree char *hit_good = hit_line (good, t1);
  g_autofree char *hit_beavers = hit_line (bad_turn, t4);
  g_autofree char *hit_stones = hit_line (bad_turn, t3);
  g_auto(GStrv) unreadable = NULL;
  g_autofree char *whole = NULL;
  gsize whole_length = 0;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_load_contents (turn_file, NULL, &whole, &whole_length, NULL, &error));
  g_assert_no_error (error);
  /* Half an event: neither log reads whole. */
  natter_test_append_file (g_file_peek_path (session_file), "{\"type\":");
  natter_test_append_file (g_file_peek_path (turn_file), "{\"type\":");
  start_search (f);
  wait_indexed (f);
  assert_search (f, "otters", hit_good);
  assert_search (f, "beavers", hit_beavers);
  assert_search (f, "afloat", "");
  assert_search (f, "stones", "");
  unreadable = natter_search_index_dup_unreadable (f->search);
  g_assert_cmpstrv (unreadable, ((const char *[]) { bad_turn, NULL }));

  /* The whole file arrives again (as a sync would bring it): read, its
   * words found, nothing left unread. */
  g_file_replace_contents (turn_file, whole, whole_length, NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL, &error);
  g_assert_no_error (error);
  /* Only the latest turn file is watched for growth: a change of the
   * conversation has every turn file it lists looked at again. */
  natter_sessions_set_title_async (f->t.sessions, bad_turn, "Otters", NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_title_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  natter_test_sessions_wait_idle (&f->t);
  wait_indexed (f);
  assert_search (f, "stones", hit_stones);
  g_strfreev (unreadable);
  unreadable = natter_search_index_dup_unreadable (f->search);
  g_assert_cmpstrv (unreadable, ((const char *[]) { NULL }));
  (void) t2;
}

/* An earlier turn whose file lost its last lines at a line's end: each
 * line reads, but the turn never ended though the conversation went on
 * after it, so the file is damaged (docs/runtime.md §11) and the words
 * of its answer may be gone with those lines. Its conversation is named
 * as one a search cannot look at in full, as for a torn file, rather
 * than found or missed as if it were whole. */
void
test_lost_end_not_indexed (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *t1 = exchange (f, sid, "Tell me of otters", "Otters use stones.");
  g_autofree char *t2 = exchange (f, sid, "And beavers?", "Beavers build dams.");
  g_autoptr(GFile) turn_file = natter_jsonl_repo_get_file (f->t.w->turn_repo, t1, NULL);
  g_autofree char *hit_beavers = hit_line (sid, t2);
  g_auto(GStrv) unreadable = NULL;
  g_autofree char *whole = NULL;
  gsize length = 0;
  char *last;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_load_contents (turn_file, NULL, &whole, &length, NULL, &error));
  g_assert_no_error (error);
  /* Without its last line, the terminal event. */
  g_assert_true (length > 1 && whole[length - 1] == '\n');
  whole[length - 1] = '\0';
  last = strrchr (whole, '\n');
  g_assert_nonnull (last);
  g_file_replace_contents (turn_file, whole, (gsize) (last + 1 - whole), NULL, FALSE, G_FILE_CREATE_NONE, NULL,
                           NULL, &error);
  g_assert_no_error (error);

  start_search (f);
  wait_indexed (f);
  assert_search (f, "beavers", hit_beavers);
  assert_search (f, "stones", "");
  unreadable = natter_search_index_dup_unreadable (f->search);
  g_assert_cmpstrv (unreadable, ((const char *[]) { sid, NULL }));
}

/* A turn file damaged while Natter runs, in a conversation nothing
 * watches: the index knows nothing of it until an operation is refused
 * on it. That refusal has the index look at the conversation's files
 * again: its words are no longer found, and the conversation is named
 * as one a search cannot look at in full. */
void
test_damage_found_reindexed (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *t1 = exchange (f, sid, "Tell me of otters", "Otters use stones.");
  g_autofree char *t2 = exchange (f, sid, "And beavers?", "Beavers build dams.");
  g_autoptr(GFile) turn_file = natter_jsonl_repo_get_file (f->t.w->turn_repo, t2, NULL);
  g_autofree char *hit_beavers = hit_line (sid, t2);
  g_autofree char *refused = NULL;
  g_auto(GStrv) unreadable = NULL;
  g_autoptr(GError) error = NULL;

  start_search (f);
  wait_indexed (f);
  assert_search (f, "beavers", hit_beavers);

  natter_test_append_file (g_file_peek_path (turn_file), "{\"type\":");
  refused = natter_test_sessions_send (&f->t, sid, "And otters?", &error);
  g_assert_null (refused);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT);
  wait_indexed (f);
  assert_search (f, "beavers", "");
  unreadable = natter_search_index_dup_unreadable (f->search);
  g_assert_cmpstrv (unreadable, ((const char *[]) { sid, NULL }));
  (void) t1;
}
