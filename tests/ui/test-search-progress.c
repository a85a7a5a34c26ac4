/* test-search-progress.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search while the index is being built: what is indexed is found
 * meanwhile, the note under the entry says how far indexing has come,
 * and once it is done the search runs again. A word said more often
 * than the search ranks: the note says only the newest were looked at.
 */

#include "test-search.h"

static gboolean
index_idle (gpointer data)
{
  return !natter_search_index_get_indexing (data);
}

/* The sidebar's note that the index is still being brought up to date. */
static gboolean
is_indexing_note (GtkWidget *widget)
{
  return GTK_IS_LABEL (widget) &&
         gtk_widget_get_visible (widget) &&
         g_str_has_prefix (gtk_label_get_label (GTK_LABEL (widget)), "Indexing");
}

static gboolean
indexing_note_shown (gpointer window)
{
  ui_settle ();
  return ui_find_first_full (window, GTK_TYPE_LABEL, is_indexing_note) != NULL;
}

static gboolean
indexing_note_hidden (gpointer window)
{
  return !indexing_note_shown (window);
}

/* While the index is being brought up to date, a search says so (and
 * shows what is indexed); once it is, the notice goes. The index's writer
 * is held back by a write lock this test takes on the file. */
void
test_search_while_indexing (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *sid = ui_create_session (u, "Trip planning");
  g_autofree char *turn = say (u, sid, "What lives in the savanna?", "Zebras.");
  g_autoptr(GFile) cache = g_file_resolve_relative_path (u->w->dir, "cache/search.sqlite");
  g_autofree char *path = g_file_get_path (cache);
  NatterSearchIndex *search = ui_search_index_start (u);
  NatterWindow *window;
  ListWait list_wait;
  sqlite3 *db = NULL;

  ui_search_index_drop (search);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "BEGIN IMMEDIATE", NULL, NULL, NULL), ==, SQLITE_OK);

  search = natter_search_index_new (cache, u->w->session_repo, u->w->turn_repo, u->sessions);
  natter_search_index_start (search);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  search_for (window, "zebras");
  /* What the earlier build indexed is found meanwhile. */
  list_wait = (ListWait) { window, sid, "<b>Zebras</b>." };
  ui_wait_until (lists_only, &list_wait);
  ui_wait_until (indexing_note_shown, window);
  g_assert_true (natter_search_index_get_indexing (search));

  g_assert_cmpint (sqlite3_exec (db, "COMMIT", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  ui_wait_until (index_idle, search);
  search_for (window, "savanna");
  ui_wait_until (indexing_note_hidden, window);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) turn;
}

typedef struct
{
  NatterWindow *window;
  guint         n_listed;
  const char   *note;    /* the note under the entry; NULL: no note on indexing */
} ProgressWait;

/* The sidebar lists @n_listed conversations, and the note says how far
 * indexing has come, or says nothing of it. */
static gboolean
lists_with_progress (gpointer data)
{
  ProgressWait *w = data;
  g_autoptr(GPtrArray) labels = NULL;
  gboolean noted = FALSE;

  ui_settle ();
  if (g_list_model_get_n_items (natter_window_get_sidebar_model (w->window)) != w->n_listed)
    return FALSE;
  labels = ui_find_all (w->window, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    if (w->note != NULL ? note_says (g_ptr_array_index (labels, i), (gpointer) w->note)
                        : is_indexing_note (g_ptr_array_index (labels, i)))
      noted = TRUE;
  return w->note != NULL ? noted : !noted;
}

static char *
describe_progress (gpointer data)
{
  ProgressWait *w = data;
  NoteWait note = { w->window, NULL, NULL, NULL };

  return describe_note (&note);
}

void
test_search_capped (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *old = ui_create_session (u, "Trip planning");
  g_autofree char *recent = ui_create_session (u, "Wildlife notes");
  g_autofree char *first = say (u, old, "What lives in the savanna?", "Zebras, mostly.");
  g_autofree char *second = say (u, recent, "And near the river?", "Zebras drink there.");
  g_autofree char *third = say (u, recent, "At night?", "Zebras sleep standing.");
  NatterSearchIndex *search = ui_search_index_start (u);
  NatterWindow *window;
  NoteWait wait;

  natter_search_index_set_match_cap (search, 2);
  g_assert_cmpuint (natter_search_index_get_match_cap (search), ==, 2);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);

  /* Three messages say it, two are ranked: the older conversation's
   * message is not among them, and the note says why. */
  search_for (window, "zebras");
  wait = (NoteWait) { window, recent, NULL, "More than 2 messages have these words: the best of the newest 2 are shown" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);

  /* Within the cap: no such note. */
  search_for (window, "savanna");
  wait = (NoteWait) { window, old, NULL, "More than" };
  ui_wait_until_full (lists_without_cap_note, describe_note, &wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) first;
  (void) second;
  (void) third;
}

static gboolean
first_batch_in (gpointer search)
{
  guint n_checked = 0;

  natter_search_index_get_progress (search, &n_checked, NULL);
  return n_checked == 2;
}

/* A search while the index is built from nothing says how far indexing
 * has come, and finds what is indexed so far; the note follows the
 * build, and once it is done the search is run again and finds
 * everything. The worker stops after each commit of 2 sessions
 * (natter_search_index_pause_after_batches()) until the test lets it go
 * on, so nothing races. */
void
test_search_progress (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(GFile) cache = g_file_resolve_relative_path (u->w->dir, "cache/search.sqlite");
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  ProgressWait wait;
  guint n_checked = 0;
  guint n_sessions = 0;

  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *title = g_strdup_printf ("Trip %u", i);
      g_autofree char *sid = ui_create_session (u, title);
      g_autofree char *answer = g_strdup_printf ("Zebras, %u of them.", i);

      g_free (say (u, sid, "What lives in the savanna?", answer));
    }

  search = natter_search_index_new (cache, u->w->session_repo, u->w->turn_repo, u->sessions);
  natter_search_index_pause_after_batches (search, 2);
  natter_search_index_start (search);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  /* The search is typed once the first batch is in: while indexing, a
   * search runs again only when the index is done, so one typed before
   * would find none of the first two until then. */
  ui_wait_until (first_batch_in, search);
  search_for (window, "zebras");

  /* The first batch is in: two are found, and the note says so. */
  wait = (ProgressWait) { window, 2, "Indexing 2 of 5 conversations…" };
  ui_wait_until_full (lists_with_progress, describe_progress, &wait);
  natter_search_index_get_progress (search, &n_checked, &n_sessions);
  g_assert_cmpuint (n_checked, ==, 2);
  g_assert_cmpuint (n_sessions, ==, 5);
  g_assert_true (natter_search_index_get_indexing (search));

  /* The next batch moves the note on; the search shows what it found. */
  natter_search_index_resume (search, TRUE);
  wait = (ProgressWait) { window, 2, "Indexing 4 of 5 conversations…" };
  ui_wait_until_full (lists_with_progress, describe_progress, &wait);

  /* Done: the search runs again and finds all five; the note goes. */
  natter_search_index_resume (search, FALSE);
  wait = (ProgressWait) { window, 5, NULL };
  ui_wait_until_full (lists_with_progress, describe_progress, &wait);
  g_assert_false (natter_search_index_get_indexing (search));
  natter_search_index_get_progress (search, &n_checked, &n_sessions);
  g_assert_cmpuint (n_checked, ==, 5);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
}
