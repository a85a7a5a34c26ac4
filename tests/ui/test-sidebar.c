/* test-sidebar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session sidebar: exactly the index, newest first, with the right
 * titles and status marks; it follows renames, deletions and new sessions
 * through the index's own notifications, orders by activity, reopens the
 * last session and one asked for before the scan ended; "5 min ago" keeps
 * up with the clock while the window stays open. In the files beside it:
 * Delete only ever leads to an undo toast, no key press in the list
 * destroys anything without a chance to undo (test-sidebar-delete.c); a
 * damaged session is shown damaged and nothing else is affected, one bad
 * file must never empty the list (test-sidebar-damaged.c); a title typed
 * through F2 survives the first message, the automatic title never
 * replaces the user's (test-sidebar-rename.c); the list keeps its place
 * and scrolls to a new chat (test-sidebar-place.c).
 */

#include "test-sidebar.h"

static void
test_sidebar_shows_index (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *plain = NULL;
  g_autofree char *done = NULL;
  g_autofree char *suspended = NULL;
  g_autofree char *failed = NULL;
  g_autofree char *untitled = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *t3 = NULL;
  NatterWindow *window;
  GListModel *model;

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sc"));
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sc", "{}")),
                            NATTER_FAKE_STEP_ERROR,
                            NULL);
  plain = ui_create_session (u, "Plain");
  done = ui_create_session (u, "Answered");
  t1 = ui_send (u, done, "Hello");
  ui_wait_turn (u, t1);
  suspended = ui_create_session (u, "Waiting");
  t2 = ui_send (u, suspended, "Use the tool");
  ui_wait_turn (u, t2);
  failed = ui_create_session (u, "Broken");
  t3 = ui_send (u, failed, "Fail please");
  ui_wait_turn (u, t3);
  untitled = ui_create_session (u, NULL);

  window = ui_window_new (app, u);
  model = natter_window_get_sidebar_model (window);

  /* Exactly the index, newest first. */
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, g_list_model_get_n_items (G_LIST_MODEL (u->index)));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 5);
  g_assert_cmpstr (sidebar_id (window, 0), ==, untitled);
  g_assert_cmpstr (sidebar_id (window, 1), ==, failed);
  g_assert_cmpstr (sidebar_id (window, 2), ==, suspended);
  g_assert_cmpstr (sidebar_id (window, 3), ==, done);
  g_assert_cmpstr (sidebar_id (window, 4), ==, plain);

  wait_row (window, untitled, "New chat");
  g_assert_cmpstr (natter_session_row_get_title (ui_find_session_row (window, plain)), ==, "Plain");
  g_assert_null (natter_session_row_get_status_mark (ui_find_session_row (window, plain)));
  g_assert_cmpstr (natter_session_row_get_title (ui_find_session_row (window, done)), ==, "Answered");
  g_assert_null (natter_session_row_get_status_mark (ui_find_session_row (window, done)));
  g_assert_cmpstr (natter_session_row_get_status_mark (ui_find_session_row (window, suspended)), ==, "needs-you");
  g_assert_cmpstr (natter_session_row_get_status_mark (ui_find_session_row (window, failed)), ==, "failed");
  g_assert_null (natter_session_row_get_status_mark (ui_find_session_row (window, untitled)));

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
delete_session (UiWorld    *u,
                const char *session_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_delete_session_async (u->sessions, session_id, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_delete_session_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
}

static void
test_sidebar_follows_changes (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *a = ui_create_session (u, "First");
  g_autofree char *b = ui_create_session (u, "Second");
  g_autofree char *c = NULL;
  NatterWindow *window = ui_window_new (app, u);
  GListModel *model = natter_window_get_sidebar_model (window);

  wait_row (window, a, "First");

  /* A rename, made anywhere, shows; it is not activity, so the session
   * keeps its place below the newer one. */
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  ui_set_title (u, a, "Renamed");
  wait_row (window, a, "Renamed");
  g_assert_cmpstr (sidebar_id (window, 0), ==, b);
  g_assert_cmpstr (sidebar_id (window, 1), ==, a);

  /* A new session appears on top. */
  c = ui_create_session (u, "Third");
  wait_row (window, c, "Third");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 3);
  g_assert_cmpstr (sidebar_id (window, 0), ==, c);

  /* A deletion made elsewhere removes the row. */
  delete_session (u, b);
  wait_row (window, b, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_sidebar_restores_last_session (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *a = ui_create_session (u, "A");
  g_autofree char *b = ui_create_session (u, "B");
  NatterWindow *window = ui_window_new (app, u);

  g_assert_true (natter_window_open_session (window, a));
  ui_destroy_window (window);

  window = ui_window_new (app, u);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, a);
  ui_destroy_window (window);
  (void) b;
  ui_world_free (u);
}

/* A Shell search result that launches the app asks for its session
 * before the startup scan has ended: it opens once the index is loaded,
 * in place of the last open session; one that is gone leaves the last. */
static void
test_sidebar_open_before_scan_ends (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *a = ui_create_session (u, "A");
  g_autofree char *b = ui_create_session (u, "B");
  const char *requests[] = { NULL, "2026-01-01T00-00-00Z-0000000-000" };
  NatterWindow *window = ui_window_new (app, u);

  requests[0] = b;
  g_assert_true (natter_window_open_session (window, a));
  g_assert_cmpstr (natter_window_get_session_id (window), ==, a);
  ui_destroy_window (window);

  for (guint i = 0; i < G_N_ELEMENTS (requests); i++)
    {
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GError) error = NULL;

      /* A service whose index has not been scanned yet. */
      ui_world_stop_service (u);
      u->index = natter_session_index_new ();
      u->sessions = natter_sessions_new (u->w->session_repo, u->w->turn_repo, u->w->runtime, u->w->hub,
                                         NATTER_CLOCK (u->w->clock), u->w->ids, u->index);
      window = ui_window_new (app, u);
      g_assert_true (natter_window_open_session (window, requests[i]));
      g_assert_null (natter_window_get_session_id (window));

      natter_session_index_load_async (u->index, u->w->session_repo, u->w->turn_repo, NULL,
                                       ui_result_cb, &result);
      g_assert_true (natter_session_index_load_finish (u->index, ui_wait_result (&result), &error));
      g_assert_no_error (error);
      ui_settle ();
      /* The second time, the last open session is b, from the first. */
      g_assert_cmpstr (natter_window_get_session_id (window), ==, b);
      ui_destroy_window (window);
    }
  ui_world_free (u);
}

/* The list is ordered by the latest turn (a rename is not activity), in
 * the running window and after a restart alike. */
static void
test_sidebar_order_is_activity (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *a = ui_create_session (u, "Older");
  g_autofree char *b = ui_create_session (u, "Newer");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  wait_row (window, a, "Older");
  g_assert_cmpstr (sidebar_id (window, 0), ==, b);

  /* Renaming the older one, opened, leaves it where the user sees it. */
  g_assert_true (natter_window_open_session (window, a));
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  ui_set_title (u, a, "Older, renamed");
  wait_row (window, a, "Older, renamed");
  g_assert_cmpstr (sidebar_id (window, 0), ==, b);
  g_assert_cmpstr (sidebar_id (window, 1), ==, a);
  g_assert_cmpuint (gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (
                      gtk_list_view_get_model (GTK_LIST_VIEW (natter_window_get_session_list (window))))), ==, 1);

  /* A message is activity: it goes to the top. */
  turn_id = ui_send (u, a, "Hello");
  ui_wait_turn (u, turn_id);
  g_assert_cmpstr (sidebar_id (window, 0), ==, a);

  /* Renaming the other one now does not bring it back up. */
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  ui_set_title (u, b, "Newer, renamed");
  wait_row (window, b, "Newer, renamed");
  g_assert_cmpstr (sidebar_id (window, 0), ==, a);
  ui_destroy_window (window);

  /* The startup scan orders the same way. */
  ui_world_restart (u);
  window = ui_window_new (app, u);
  wait_row (window, b, "Newer, renamed");
  g_assert_cmpstr (sidebar_id (window, 0), ==, a);
  g_assert_cmpstr (sidebar_id (window, 1), ==, b);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* Relative time */

/* 2026-11-18 12:00:00 UTC (the test runs in UTC, see main()). */
#define NOON_US (1795003200LL * G_USEC_PER_SEC)

typedef struct
{
  NatterSessionRow *row;
  const char       *text;
} TimeWait;

static gboolean
time_shows (gpointer data)
{
  TimeWait *w = data;

  return g_strcmp0 (natter_session_row_get_time_text (w->row), w->text) == 0;
}

static void
test_sidebar_relative_time_refreshes (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  NatterWindow *window;
  NatterSessionRow *row;
  NatterTimeTicker *ticker;
  GtkWidget *spare;
  TimeWait wait;

  /* Stamped one second before noon (ui_create_session() moves the clock
   * a minute first): the window opens at hh:59:59 of the clock, so its
   * ticker's first minute is one second away, and noon plus two hours is
   * still the same day. */
  natter_fake_clock_set (u->w->clock, NOON_US - G_USEC_PER_SEC - 60 * G_USEC_PER_SEC);
  session_id = ui_create_session (u, "Timely");
  window = ui_window_new (app, u);
  wait_row (window, session_id, "Timely");
  row = ui_find_session_row (window, session_id);
  g_assert_cmpstr (natter_session_row_get_time_text (row), ==, "just now");
  ticker = natter_session_row_get_ticker (row);
  g_object_add_weak_pointer (G_OBJECT (ticker), (gpointer *) &ticker);
  g_assert_true (natter_time_ticker_get_clock (ticker) == NATTER_CLOCK (u->w->clock));
  g_assert_true (natter_time_ticker_get_active (ticker));

  /* Nothing about the session changes, only the time: the ticker's own
   * minute (its real timeout, one second away) redoes the text. */
  natter_fake_clock_advance (u->w->clock, 2 * G_TIME_SPAN_HOUR);
  wait = (TimeWait) { row, "2 h ago" };
  ui_wait_until (time_shows, &wait);

  /* A tick on demand (what a clock jump needs) does the same at once. */
  natter_fake_clock_advance (u->w->clock, 3 * G_TIME_SPAN_MINUTE);
  natter_time_ticker_tick (ticker);
  g_assert_cmpstr (natter_session_row_get_time_text (row), ==, "2 h ago");
  natter_fake_clock_set (u->w->clock, NOON_US + G_TIME_SPAN_DAY);
  natter_time_ticker_tick (ticker);
  g_assert_cmpstr (natter_session_row_get_time_text (row), ==, "Yesterday");
  g_assert_cmpstr (natter_session_row_get_title (row), ==, "Timely");

  /* Only a bound row listens: an unbound one leaves the ticker alone. */
  ui_destroy_window (window);
  g_assert_null (ticker);
  ticker = natter_time_ticker_new (NATTER_CLOCK (u->w->clock));
  spare = g_object_ref_sink (natter_session_row_new (u->sessions, u->w->hub, ticker));
  g_assert_false (natter_time_ticker_get_active (ticker));
  natter_session_row_set_entry (NATTER_SESSION_ROW (spare), natter_session_index_lookup (u->index, session_id));
  g_assert_true (natter_time_ticker_get_active (ticker));
  g_assert_cmpstr (natter_session_row_get_time_text (NATTER_SESSION_ROW (spare)), ==, "Yesterday");
  natter_session_row_set_entry (NATTER_SESSION_ROW (spare), NULL);
  g_assert_false (natter_time_ticker_get_active (ticker));
  g_assert_finalize_object (spare);
  g_assert_finalize_object (ticker);

  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  /* Relative times depend on the local day; pin it. */
  g_setenv ("TZ", "UTC", TRUE);
  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/sidebar/shows-index", test_sidebar_shows_index);
  g_test_add_func ("/sidebar/follows-changes", test_sidebar_follows_changes);
  g_test_add_func ("/sidebar/delete-has-undo", test_sidebar_delete_has_undo);
  g_test_add_func ("/sidebar/pending-delete-done-on-close", test_sidebar_pending_delete_done_on_close);
  g_test_add_func ("/sidebar/delete-keeps-grown", test_sidebar_delete_keeps_grown);
  g_test_add_func ("/sidebar/delete-keeps-placed", test_sidebar_delete_keeps_placed);
  g_test_add_func ("/sidebar/delete-keeps-answered", test_sidebar_delete_keeps_answered);
  g_test_add_func ("/sidebar/delete-keeps-placed-elsewhere", test_sidebar_delete_keeps_placed_elsewhere);
  g_test_add_func ("/sidebar/delete-stops-answer", test_sidebar_delete_stops_answer);
  g_test_add_func ("/sidebar/delete-undo-while-streaming", test_sidebar_delete_undo_while_streaming);
  g_test_add_func ("/sidebar/delete-long-title-toast", test_sidebar_delete_long_title_toast);
  g_test_add_func ("/sidebar/deleted-elsewhere", test_sidebar_deleted_elsewhere);
  g_test_add_func ("/sidebar/deleted-by-another-process", test_sidebar_deleted_by_another_process);
  g_test_add_func ("/sidebar/corrupt-session", test_sidebar_corrupt_session);
  g_test_add_func ("/sidebar/damaged-view-and-copy", test_sidebar_damaged_view);
  g_test_add_func ("/sidebar/damaged-copy-takes-queue", test_sidebar_damaged_copy_takes_queue);
  g_test_add_func ("/sidebar/damaged-long-title", test_sidebar_damaged_long_title);
  g_test_add_func ("/sidebar/damaged-while-open", test_sidebar_damaged_while_open);
  g_test_add_func ("/sidebar/damaged-then-mended", test_sidebar_damaged_then_mended);
  g_test_add_func ("/sidebar/restores-last-session", test_sidebar_restores_last_session);
  g_test_add_func ("/sidebar/open-before-scan-ends", test_sidebar_open_before_scan_ends);
  g_test_add_func ("/sidebar/relative-time-refreshes", test_sidebar_relative_time_refreshes);
  g_test_add_func ("/sidebar/rename-then-send-keeps-title", test_sidebar_rename_then_send_keeps_title);
  g_test_add_func ("/sidebar/old-title-controls-visible", test_sidebar_old_title_controls_visible);
  g_test_add_func ("/sidebar/rename-refused-keeps-dialog", test_sidebar_rename_refused_keeps_dialog);
  g_test_add_func ("/sidebar/order-is-activity", test_sidebar_order_is_activity);
  g_test_add_func ("/sidebar/keeps-place", test_sidebar_keeps_place);
  g_test_add_func ("/sidebar/keeps-place-at-end", test_sidebar_keeps_place_at_end);
  g_test_add_func ("/sidebar/new-chat-in-view", test_sidebar_new_chat_in_view);
  g_test_add_func ("/sidebar/damaged-earlier-turn", test_sidebar_damaged_earlier_turn);
  g_test_add_func ("/sidebar/torn-first-turn", test_sidebar_torn_first_turn);
  g_test_add_func ("/sidebar/older-copy-arriving", test_sidebar_older_copy_arriving);
  g_test_add_func ("/sidebar/recovered/words-stay-in-view", test_sidebar_recovered_words_stay_in_view);
  g_test_add_func ("/sidebar/recovered/goes-on-with-shown-model", test_sidebar_recovered_goes_on_with_shown_model);
  g_test_add_func ("/sidebar/recovered/unreadable-first-message", test_sidebar_recovered_unreadable_first_message);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
