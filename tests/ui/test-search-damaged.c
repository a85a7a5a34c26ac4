/* test-search-damaged.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the search cannot look at it says: a damaged conversation stays
 * listed and marked, the note under the entry counts it (within the
 * folder the search is narrowed to), a file damaged while Natter was
 * closed is named once its conversation is looked at again, and an index
 * file it cannot open leaves titles searched.
 */

#include <fcntl.h>
#include <unistd.h>

#include "test-search.h"

/* A damaged conversation is not searched as if it were whole, but does
 * not vanish from the search either: it stays listed, marked damaged,
 * and the note says how many could not be searched. */
void
test_damaged_stays_listed (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *bad = ui_create_session (u, "Wombat notes");
  g_autofree char *other = ui_create_session (u, "Groceries");
  g_autofree char *turn = say (u, trip, "What lives in the savanna?", "Zebras.");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  NoteWait wait;
  int before, with_note;

  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (G_OUTPUT_STREAM (stream), "{\"type\":", 8, NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error);
  g_assert_no_error (error);
  ui_world_restart (u);
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  ui_settle ();
  gtk_widget_measure (GTK_WIDGET (window->session_sidebar), GTK_ORIENTATION_HORIZONTAL, -1, NULL, &before, NULL, NULL);
  search_for (window, "zebras");
  wait = (NoteWait) { window, trip, bad, "1 damaged conversation stays listed" };
  ui_wait_until (lists_with_note, &wait);
  g_assert_cmpstr (natter_session_row_get_status_mark (find_listed_row (window, bad)), ==, "errored");
  /* The note wraps in the sidebar as it is: it does not widen it. */
  gtk_widget_measure (GTK_WIDGET (window->session_sidebar), GTK_ORIENTATION_HORIZONTAL, -1, NULL, &with_note, NULL,
                      NULL);
  g_assert_cmpint (with_note, <=, before);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) turn;
  (void) other;
}

/* The search narrowed to a folder lists only the folder's conversations:
 * the note counts only the damaged ones it lists, and says nothing of one
 * outside the folder, which is not listed. */
void
test_damaged_note_follows_scope (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *bad = ui_create_session (u, "Wombat notes");
  g_autofree char *turn = say (u, trip, "What lives in the savanna?", "Zebras.");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autoptr(NatterFolders) folders = NULL;
  g_autofree char *work_id = NULL;
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  NoteWait wait;

  natter_test_append_file (g_file_peek_path (file), "{\"type\":");
  ui_world_restart (u);
  folders = ui_folders_new (u);
  work_id = ui_create_folder (folders, "Work");
  ui_set_folder (u, trip, work_id);
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_folders (window, folders);
  natter_window_set_search_index (window, search);
  search_for (window, "zebras");
  wait = (NoteWait) { window, trip, bad, "1 damaged conversation stays listed" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);

  natter_sidebar_set_search_scope (window->session_sidebar, work_id);
  wait = (NoteWait) { window, trip, NULL, "damaged" };
  ui_wait_until_full (lists_without_cap_note, describe_note, &wait);

  /* Every conversation again: the damaged one is listed and counted. */
  natter_sidebar_set_search_scope (window->session_sidebar, NULL);
  wait = (NoteWait) { window, trip, bad, "1 damaged conversation stays listed" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) turn;
}

/* A conversation with an earlier message whose file lost its end is not
 * whole either: the search cannot find that message's words, so the
 * conversation stays listed, its row says why, and the note counts it. */
void
test_unreadable_turn_listed (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *notes = ui_create_session (u, "Wombat notes");
  g_autofree char *turn = say (u, trip, "What lives in the savanna?", "Zebras.");
  g_autofree char *lost = say (u, notes, "Where do wombats live?", "In burrows.");
  g_autofree char *latest = say (u, notes, "What do they eat?", "Grasses.");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->turn_repo, lost, NULL);
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  NoteWait wait;

  natter_test_append_file (g_file_peek_path (file), "{\"type\":");
  ui_world_restart (u);
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  search_for (window, "zebras");
  wait = (NoteWait) { window, trip, notes, "1 damaged conversation stays listed" };
  ui_wait_until (lists_with_note, &wait);
  g_assert_cmpstr (natter_session_row_get_snippet (find_listed_row (window, notes)), ==,
                   "A message here cannot be read: it was not searched");
  g_assert_nonnull (strstr (natter_session_row_get_snippet (find_listed_row (window, trip)), "Zebras"));

  /* Its other words are found as ever; it is named once. */
  search_for (window, "grasses");
  wait = (NoteWait) { window, notes, NULL, "1 damaged conversation stays listed" };
  ui_wait_until (lists_with_note, &wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) turn;
  (void) latest;
}

/* Whether the window of @data (a window and a session id) shows that
 * session. */
static gboolean
shows_session (gpointer data)
{
  gpointer *pair = data;

  return g_strcmp0 (natter_window_get_session_id (pair[0]), pair[1]) == 0;
}

/* An earlier message's file damaged while Natter was closed, after the
 * index had its words: the start-up check looks only at each latest
 * turn, so the words are still found until the conversation is opened;
 * then it is looked at again, and the search names it instead. */
void
test_damaged_while_closed (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *notes = ui_create_session (u, "Wombat notes");
  g_autofree char *lost = say (u, notes, "Where do wombats live?", "In burrows.");
  g_autofree char *latest = say (u, notes, "What do they eat?", "Grasses.");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->turn_repo, lost, NULL);
  NatterSearchIndex *search = ui_search_index_start (u);
  g_autoptr(GPtrArray) hits = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  NatterWindow *window;
  NoteWait wait;

  hits = natter_search_index_search_sync (search, "burrows", 10, NULL, NULL, NULL);
  g_assert_cmpuint (hits->len, ==, 1);
  g_clear_pointer (&hits, g_ptr_array_unref);
  ui_search_index_drop (search);

  natter_test_append_file (g_file_peek_path (file), "{\"type\":");
  ui_world_restart (u);
  search = ui_search_index_start (u);
  hits = natter_search_index_search_sync (search, "burrows", 10, NULL, NULL, NULL);
  g_assert_cmpuint (hits->len, ==, 1);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  g_assert_true (natter_window_open_session (window, notes));
  ui_wait_until (shows_session, (gpointer[]) { window, notes });
  /* The look it asked for is done before the search, which reads the
   * index as it is. */
  natter_search_index_wait_async (search, NULL, ui_result_cb, &result);
  g_assert_true (natter_search_index_wait_finish (search, ui_wait_result (&result), NULL));
  /* The result holds the index, which must go before the world. */
  g_clear_object (&result);
  search_for (window, "grasses");
  wait = (NoteWait) { window, notes, NULL, "1 damaged conversation stays listed" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);
  g_clear_pointer (&hits, g_ptr_array_unref);
  hits = natter_search_index_search_sync (search, "burrows", 10, NULL, NULL, NULL);
  g_assert_cmpuint (hits->len, ==, 0);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) latest;
}

/* Whether the row of the session pair[1] in the window pair[0] shows
 * the words pair[2] as what the search found. */
static gboolean
row_shows_found (gpointer data)
{
  gpointer *triple = data;
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (natter_window_get_session_list (triple[0]), NATTER_TYPE_SESSION_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionRow *row = g_ptr_array_index (rows, i);
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (row);
      const char *snippet = natter_session_row_get_snippet (row);

      if (entry != NULL && g_str_equal (natter_session_index_entry_get_session_id (entry), triple[1]) &&
          snippet != NULL && strstr (snippet, triple[2]) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* The note under the entry follows the index, not only the next search:
 * a search is on when an earlier message's file is found damaged by the
 * recheck of its conversation (a job of its own, as when it is opened),
 * and the note counts it at once, the search still the same. */
void
test_note_follows_recheck (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *notes = ui_create_session (u, "Wombat notes");
  g_autofree char *lost = say (u, notes, "Where do wombats live?", "In burrows.");
  g_autofree char *latest = say (u, notes, "What do they eat?", "Grasses.");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->turn_repo, lost, NULL);
  NatterSearchIndex *search = ui_search_index_start (u);
  g_autoptr(GAsyncResult) result = NULL;
  NatterWindow *window;
  NoteWait wait;

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  natter_search_index_wait_async (search, NULL, ui_result_cb, &result);
  g_assert_true (natter_search_index_wait_finish (search, ui_wait_result (&result), NULL));
  g_clear_object (&result);
  search_for (window, "grasses");
  /* The search has come back: the row shows the words it found. */
  ui_wait_until (row_shows_found, (gpointer[]) { window, notes, "Grasses" });
  {
    g_autoptr(GPtrArray) labels = ui_find_all (window, GTK_TYPE_LABEL);

    for (guint i = 0; i < labels->len; i++)
      g_assert_false (note_says (g_ptr_array_index (labels, i), "damaged conversation"));
  }

  natter_test_append_file (g_file_peek_path (file), "{\"type\":");
  natter_search_index_recheck_session (search, notes);
  wait = (NoteWait) { window, notes, NULL, "1 damaged conversation stays listed" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) latest;
}

/* A folder where the index file belongs: titles are still searched, and
 * the note says why words are not, naming the folder; nothing is logged. */
void
test_cache_not_a_file (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *turn = say (u, trip, "What lives in the savanna?", "Zebras.");
  g_autoptr(GFile) cache = g_file_resolve_relative_path (u->w->dir, "cache/search.sqlite");
  g_autofree char *inside = g_build_filename (g_file_peek_path (cache), "mine.txt", NULL);
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  NoteWait wait;

  g_assert_cmpint (g_mkdir_with_parents (g_file_peek_path (cache), 0700), ==, 0);
  g_assert_true (g_file_set_contents (inside, "mine", -1, NULL));
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  search_for (window, "trip");
  wait = (NoteWait) { window, trip, NULL, "is a folder with files in it" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);
  g_assert_true (g_file_test (inside, G_FILE_TEST_IS_REGULAR));

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) turn;
}

static gboolean
index_idle (gpointer search)
{
  return !natter_search_index_get_indexing (search);
}

/* The index file written over while the window searches, as another
 * program would: the search that finds it damaged has it built again.
 * Meanwhile titles are still searched and the note says how far the
 * build has come (the worker stops after each commit of one
 * conversation until the test lets it go on, so nothing races); once
 * it is done, the search runs again and finds the words. */
void
test_cache_damaged_while_searching (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *volcano = ui_create_session (u, "Volcano notes");
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *bread = ui_create_session (u, "Baking");
  g_autoptr(GFile) cache = g_file_resolve_relative_path (u->w->dir, "cache/search.sqlite");
  g_autofree char *path = g_file_get_path (cache);
  g_autofree char *checkpointed = NULL;
  g_autofree char *check = NULL;
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  NoteWait wait;
  int fd;

  g_free (say (u, volcano, "Name a volcano", "Vesuvius is a volcano."));
  g_free (say (u, trip, "What lives in the savanna?", "Zebras."));
  g_free (say (u, bread, "How is bread made?", "With flour and water."));
  search = natter_search_index_new (cache, u->w->session_repo, u->w->turn_repo, u->sessions);
  natter_search_index_pause_after_batches (search, 1);
  natter_search_index_start (search);
  /* Through the two stops of the first build. */
  natter_search_index_resume (search, TRUE);
  natter_search_index_resume (search, TRUE);
  ui_wait_until (index_idle, search);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  search_for (window, "zebras");
  ui_wait_until (row_shows_found, (gpointer[]) { window, trip, "Zebras" });

  /* Everything in the file itself, then garbage over it. */
  checkpointed = natter_test_sqlite_query (path, "PRAGMA wal_checkpoint(TRUNCATE)");
  g_assert_cmpstr (checkpointed, ==, "0");
  fd = open (path, O_WRONLY | O_TRUNC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, "garbage, not a database, garbage", 32), ==, 32);
  g_assert_cmpint (close (fd), ==, 0);

  /* The title is found; the words are being indexed again. */
  search_for (window, "volcano");
  wait = (NoteWait) { window, volcano, NULL, "Indexing 1 of 3 conversations" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);
  g_assert_true (natter_search_index_get_indexing (search));

  natter_search_index_resume (search, FALSE);
  ui_wait_until (row_shows_found, (gpointer[]) { window, volcano, "olcano" });
  ui_wait_until (index_idle, search);
  check = natter_test_sqlite_query (path, "PRAGMA integrity_check");
  g_assert_cmpstr (check, ==, "ok");

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
}
