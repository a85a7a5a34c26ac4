/* test-sidebar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session sidebar (issue 6): exactly the index, newest first, with
 * the right titles and status marks; it follows renames, deletions and new
 * sessions through the index's own notifications; a damaged session is
 * shown damaged and nothing else is affected (pitfall 2); Delete only ever
 * leads to an undo toast (pitfall 5).
 */

#include "natter-session-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

static NatterSessionRow *
find_row (NatterWindow *window,
          const char   *session_id)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SESSION_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (g_ptr_array_index (rows, i));

      if (entry != NULL && g_strcmp0 (natter_session_index_entry_get_session_id (entry), session_id) == 0)
        return g_ptr_array_index (rows, i);
    }
  return NULL;
}

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  const char   *title;   /* NULL: the row is gone */
} RowWait;

static gboolean
row_shows (gpointer data)
{
  RowWait *w = data;
  NatterSessionRow *row;

  ui_settle ();
  row = find_row (w->window, w->session_id);
  if (w->title == NULL)
    return row == NULL;
  return row != NULL && g_strcmp0 (natter_session_row_get_title (row), w->title) == 0;
}

static void
wait_row (NatterWindow *window,
          const char   *session_id,
          const char   *title)
{
  RowWait w = { window, session_id, title };

  ui_wait_until (row_shows, &w);
}

static const char *
sidebar_id (NatterWindow *window,
            guint         position)
{
  g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (natter_window_get_sidebar_model (window), position);

  return natter_session_index_entry_get_session_id (entry);
}

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
  g_assert_cmpstr (natter_session_row_get_title (find_row (window, plain)), ==, "Plain");
  g_assert_null (natter_session_row_get_status_mark (find_row (window, plain)));
  g_assert_cmpstr (natter_session_row_get_title (find_row (window, done)), ==, "Answered");
  g_assert_null (natter_session_row_get_status_mark (find_row (window, done)));
  g_assert_cmpstr (natter_session_row_get_status_mark (find_row (window, suspended)), ==, "needs-you");
  g_assert_cmpstr (natter_session_row_get_status_mark (find_row (window, failed)), ==, "failed");
  g_assert_null (natter_session_row_get_status_mark (find_row (window, untitled)));

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
set_title (UiWorld    *u,
           const char *session_id,
           const char *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_title_async (u->sessions, session_id, title, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_set_title_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
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

  /* A rename, made anywhere, shows and moves the session to the top. */
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  set_title (u, a, "Renamed");
  wait_row (window, a, "Renamed");
  g_assert_cmpstr (sidebar_id (window, 0), ==, a);

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

static gboolean
file_exists (UiWorld    *u,
             const char *session_id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);

  return file != NULL && g_file_query_exists (file, NULL);
}

typedef struct
{
  UiWorld    *u;
  const char *session_id;
} Gone;

static gboolean
session_gone (gpointer data)
{
  Gone *g = data;

  return !file_exists (g->u, g->session_id) &&
         natter_session_index_lookup (g->u->index, g->session_id) == NULL;
}

static void
press_key (GtkWidget *widget,
           guint      keyval)
{
  /* The list's shortcut controller is what a key press reaches. */
  for (guint i = 0; i < g_list_model_get_n_items (gtk_widget_observe_controllers (widget)); i++)
    {
      g_autoptr(GtkEventController) controller =
        g_list_model_get_item (gtk_widget_observe_controllers (widget), i);
      GListModel *shortcuts;

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      shortcuts = G_LIST_MODEL (controller);
      for (guint j = 0; j < g_list_model_get_n_items (shortcuts); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (shortcuts, j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (GTK_IS_KEYVAL_TRIGGER (trigger) &&
              gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) == keyval)
            gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget, NULL);
        }
    }
}

static void
test_sidebar_delete_has_undo (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *keep = ui_create_session (u, "Keep");
  g_autofree char *victim = ui_create_session (u, "");
  NatterWindow *window = ui_window_new (app, u);
  GListModel *model = natter_window_get_sidebar_model (window);
  Gone gone = { u, victim };

  g_assert_true (natter_window_open_session (window, victim));
  wait_row (window, victim, "New chat");

  /* BackSpace does nothing; Delete hides the session behind an undo
   * toast and leaves the file alone. */
  press_key (natter_window_get_session_list (window), GDK_KEY_BackSpace);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
  press_key (natter_window_get_session_list (window), GDK_KEY_Delete);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  g_assert_true (file_exists (u, victim));
  g_assert_nonnull (natter_session_index_lookup (u->index, victim));

  /* Undo brings it back, untouched. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", victim);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, victim);
  ui_settle ();
  g_assert_true (file_exists (u, victim));

  /* Deleting again and letting the toast go removes that file only. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", NULL);
  natter_window_dismiss_pending_deletes (window);
  ui_wait_until (session_gone, &gone);
  g_assert_true (file_exists (u, keep));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  g_assert_cmpstr (sidebar_id (window, 0), ==, keep);

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_sidebar_pending_delete_survives_close (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Almost gone");
  NatterWindow *window = ui_window_new (app, u);

  g_assert_true (natter_window_open_session (window, session_id));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", NULL);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  ui_destroy_window (window);

  /* Closing with the toast up loses nothing. */
  g_assert_true (file_exists (u, session_id));
  g_assert_nonnull (natter_session_index_lookup (u->index, session_id));
  ui_world_free (u);
}

static void
test_sidebar_corrupt_session (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *good = ui_create_session (u, "Good");
  g_autofree char *bad = ui_create_session (u, "Bad");
  g_autofree char *other = ui_create_session (u, "Other");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  NatterWindow *window;

  /* One torn line damages the file (pitfall 2). */
  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (G_OUTPUT_STREAM (stream), "{\"type\":", 8, NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error);
  g_assert_no_error (error);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 3);
  wait_row (window, good, "Good");
  g_assert_cmpstr (natter_session_row_get_title (find_row (window, other)), ==, "Other");
  g_assert_null (natter_session_row_get_status_mark (find_row (window, good)));
  g_assert_null (natter_session_row_get_status_mark (find_row (window, other)));
  g_assert_cmpstr (natter_session_row_get_status_mark (find_row (window, bad)), ==, "errored");

  /* It opens to its error, never to a composer. */
  g_assert_true (natter_window_open_session (window, bad));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");
  g_assert_nonnull (natter_composer_get_blocked_reason (natter_window_get_composer (window)));
  g_assert_true (natter_window_open_session (window, good));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");
  g_assert_null (natter_composer_get_blocked_reason (natter_window_get_composer (window)));

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

int
main (int   argc,
      char *argv[])
{
  int status;

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  app = ui_app_new ();

  g_test_add_func ("/sidebar/shows-index", test_sidebar_shows_index);
  g_test_add_func ("/sidebar/follows-changes", test_sidebar_follows_changes);
  g_test_add_func ("/sidebar/delete-has-undo", test_sidebar_delete_has_undo);
  g_test_add_func ("/sidebar/pending-delete-survives-close", test_sidebar_pending_delete_survives_close);
  g_test_add_func ("/sidebar/corrupt-session", test_sidebar_corrupt_session);
  g_test_add_func ("/sidebar/restores-last-session", test_sidebar_restores_last_session);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
