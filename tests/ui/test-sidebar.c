/* test-sidebar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session sidebar: exactly the index, newest first, with the right
 * titles and status marks; it follows renames, deletions and new sessions
 * through the index's own notifications; a damaged session is shown
 * damaged and nothing else is affected (one bad file must never empty the
 * list); Delete only ever leads to an undo toast (no key press in the list
 * destroys anything without a chance to undo); a title typed through F2
 * survives the first message (the automatic title never replaces the
 * user's); "5 min ago" keeps up with the clock while the window stays
 * open.
 */

#include "natter-session-row.h"
#include "natter-test-support.h"
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

  /* One torn line damages the file, and only that file. */
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

/* The status page on screen. */
static AdwStatusPage *
shown_status_page (NatterWindow *window)
{
  g_autoptr(GPtrArray) pages = ui_find_all (window, ADW_TYPE_STATUS_PAGE);

  for (guint i = 0; i < pages->len; i++)
    if (gtk_widget_get_mapped (g_ptr_array_index (pages, i)))
      return g_ptr_array_index (pages, i);
  return NULL;
}

typedef struct
{
  NatterWindow *window;
  const char   *text;
} PageWait;

static gboolean
description_says (gpointer data)
{
  PageWait *w = data;
  AdwStatusPage *page = shown_status_page (w->window);
  GtkWidget *copy = page != NULL ? ui_find_button (page, "Copy Readable Part to a New Conversation") : NULL;

  return copy != NULL && gtk_widget_get_sensitive (copy) &&
         adw_status_page_get_description (page) != NULL &&
         strstr (adw_status_page_get_description (page), w->text) != NULL;
}

static gboolean
moved_on (gpointer data)
{
  PageWait *w = data;

  return g_strcmp0 (natter_window_get_session_id (w->window), w->text) != 0 &&
         ui_timeline_loaded (w->window);
}

/* A damaged conversation is no dead end: its title (from the lines that
 * can be read), the reason with the file's name, and two ways on. The
 * copy opens as a new conversation; the damaged file is not touched. */
static void
test_sidebar_damaged_view (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *bad = ui_create_session (u, NULL);
  g_autofree char *turn_id = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *before = NULL;
  g_autofree char *torn = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  AdwStatusPage *page;
  NatterWindow *window;
  PageWait wait;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, bad, "Tom & Jerry <b> notes");
  ui_wait_turn (u, turn_id);
  g_assert_true (g_file_load_contents (file, NULL, &before, NULL, NULL, &error));
  g_assert_no_error (error);
  torn = g_strconcat (before, "{\"type\":", NULL);
  g_assert_true (g_file_replace_contents (file, torn, strlen (torn), NULL, FALSE, G_FILE_CREATE_NONE,
                                          NULL, NULL, &error));
  g_assert_no_error (error);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, bad));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");
  wait.window = window;
  wait.text = name;
  ui_wait_until (description_says, &wait);
  page = shown_status_page (window);
  g_assert_cmpstr (adw_status_page_get_title (page), ==, "Tom & Jerry <b> notes");
  /* Line 4: session_created, turn_appended, title_changed, then the torn one. */
  g_assert_nonnull (strstr (adw_status_page_get_description (page), "Line 4"));
  g_assert_nonnull (ui_find_button (page, "Show File"));
  g_assert_true (gtk_widget_get_sensitive (ui_find_button (page, "Show File")));

  g_signal_emit_by_name (ui_find_button (page, "Copy Readable Part to a New Conversation"), "clicked");
  wait.text = bad;
  ui_wait_until (moved_on, &wait);
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (natter_window_get_timeline (window))), >=, 1);
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (u->index,
                                                                                       natter_window_get_session_id (window))),
                   ==, "Tom & Jerry <b> notes");

  g_assert_true (g_file_load_contents (file, NULL, &after, NULL, NULL, &error));
  g_assert_cmpstr (after, ==, torn);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A damaged conversation with a very long title: the heading stays
 * short (the whole title in its tooltip), so the explanation and the
 * way out show without scrolling. */
static void
test_sidebar_damaged_long_title (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(GString) title = g_string_new (NULL);
  g_autofree char *bad = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;
  graphene_rect_t bounds;
  AdwStatusPage *page;
  NatterWindow *window;
  GtkWidget *copy;
  PageWait wait;

  while (title->len < 540)
    g_string_append (title, "Longtitle");
  bad = ui_create_session (u, title->str);
  file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  name = g_file_get_basename (file);
  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (G_OUTPUT_STREAM (stream), "{\"type\":", 8, NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error);
  g_assert_no_error (error);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, bad));
  wait.window = window;
  wait.text = name;
  ui_wait_until (description_says, &wait);
  page = shown_status_page (window);
  g_assert_cmpuint (g_utf8_strlen (adw_status_page_get_title (page), -1), <=, 60);
  g_assert_true (g_str_has_suffix (adw_status_page_get_title (page), "…"));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (GTK_WIDGET (page)), ==, title->str);
  /* The way out is in view, not below the fold. */
  copy = ui_find_button (page, "Copy Readable Part to a New Conversation");
  ui_settle ();
  g_assert_true (gtk_widget_compute_bounds (copy, GTK_WIDGET (window), &bounds));
  g_assert_cmpfloat (bounds.origin.y + bounds.size.height, <=, gtk_widget_get_height (GTK_WIDGET (window)));
  /* For a person to look at, in both styles. */
  ui_save_window (GTK_WIDGET (window), "damaged-long-title-light.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  ui_save_window (GTK_WIDGET (window), "damaged-long-title-dark.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);

  ui_destroy_window (window);
  ui_world_free (u);
}

static char *
describe_window (gpointer data)
{
  PageWait *w = data;
  GtkWidget *bar = natter_window_get_error_bar (w->window);
  g_autoptr(GPtrArray) labels = ui_find_all (bar, GTK_TYPE_LABEL);
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < labels->len; i++)
    g_string_append_printf (text, " “%s”", gtk_label_get_text (g_ptr_array_index (labels, i)));
  return g_strdup_printf ("the window shows %s of %s; its error bar is %s:%s", natter_window_get_visible_page (w->window),
                          natter_window_get_session_id (w->window),
                          gtk_revealer_get_reveal_child (GTK_REVEALER (bar)) ? "shown" : "hidden",
                          text->str);
}

static gboolean
bar_offers_copy (gpointer data)
{
  PageWait *w = data;
  GtkWidget *copy = ui_find_button (natter_window_get_error_bar (w->window), "_Copy Readable Part");

  ui_settle ();
  return copy != NULL && gtk_widget_get_mapped (copy);
}

/* Damaged while open: another program tears the file of the open
 * conversation. The send it refuses offers the way out the damaged page
 * offers, and opening the conversation again reads it again and shows
 * the damage, not the history kept in memory. */
static void
test_sidebar_damaged_while_open (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *bad = ui_create_session (u, "Torn notes");
  g_autofree char *other = ui_create_session (u, "Other");
  g_autofree char *turn_id = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *path = NULL;
  GtkWidget *bar;
  GtkWidget *copy;
  NatterWindow *window;
  PageWait wait;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, bad, "Notes to keep");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, bad));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");

  path = g_file_get_path (file);
  natter_test_append_file (path, "{\"type\":");

  /* The send is refused, with the readable part as the way on. */
  natter_composer_set_text (natter_window_get_composer (window), "One more");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  ui_wait_until (ui_error_bar_shown, window);
  bar = natter_window_get_error_bar (window);
  ui_wait_until_full (bar_offers_copy, describe_window, &(PageWait) { window, NULL });
  copy = ui_find_button (bar, "_Copy Readable Part");
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (copy)), ==, "win.recover-from-error");
  /* For a person to look at, in both styles (the screen as X shows it:
   * a window's own snapshot keeps nodes from before a style change). */
  if (!ui_save_screen ("damaged-while-open-bar-light.png"))
    ui_save_window (GTK_WIDGET (window), "damaged-while-open-bar-light.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  if (!ui_save_screen ("damaged-while-open-bar-dark.png"))
    ui_save_window (GTK_WIDGET (window), "damaged-while-open-bar-dark.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);

  /* The bar's button copies the readable part, which opens. */
  g_signal_emit_by_name (copy, "clicked");
  wait.window = window;
  wait.text = bad;
  ui_wait_until_full (moved_on, describe_window, &wait);
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (u->index,
                                                                                       natter_window_get_session_id (window))),
                   ==, "Torn notes");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (natter_window_get_timeline (window))), ==, 1);

  /* Opened again, it is read again: the damaged page, with its file. */
  g_assert_true (natter_window_open_session (window, other));
  g_assert_true (natter_window_open_session (window, bad));
  wait.text = name;
  ui_wait_until_full (description_says, describe_window, &wait);
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");
  ui_save_window (GTK_WIDGET (window), "damaged-while-open-page.png");

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
  row = find_row (window, session_id);
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

/* Rename with F2, then send: the user's title stays */

/* The shortcut a key press of @keyval (no modifiers) on @widget triggers,
 * looked up the way GTK does: in the widget's shortcut controllers, which
 * include the one holding the class's key bindings. */
static GtkShortcut *
find_shortcut (GtkWidget *widget,
               guint      keyval)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (GTK_IS_KEYVAL_TRIGGER (trigger) &&
              gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) == keyval &&
              gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) == 0)
            return g_steal_pointer (&shortcut);
        }
    }
  return NULL;
}

static AdwMessageDialog *
find_dialog (GtkWindow *parent)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (toplevel) &&
          gtk_window_get_transient_for (toplevel) == parent &&
          gtk_widget_get_mapped (GTK_WIDGET (toplevel)))
        return ADW_MESSAGE_DIALOG (toplevel);
    }
  return NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  return find_dialog (data) != NULL;
}

static gboolean
dialog_gone (gpointer data)
{
  return find_dialog (data) == NULL;
}

static void
title_seen_cb (NatterSessionIndexEntry *entry,
               GParamSpec              *pspec,
               GPtrArray               *seen)
{
  g_ptr_array_add (seen, g_strdup (natter_session_index_entry_get_title (entry)));
}

typedef struct
{
  UiWorld                 *u;
  NatterSessionIndexEntry *entry;
  const char              *title;
} EntryWait;

static gboolean
entry_titled (gpointer data)
{
  EntryWait *w = data;

  return g_strcmp0 (natter_session_index_entry_get_title (w->entry), w->title) == 0;
}

static gboolean
entry_turn_completed (gpointer data)
{
  EntryWait *w = data;
  const char *latest = natter_session_index_entry_get_latest_turn_id (w->entry);

  return latest != NULL &&
         !natter_sessions_is_turn_running (w->u->sessions, latest) &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (w->entry), "completed") == 0;
}

/* The session as its file reduces now. */
static void
test_sidebar_rename_then_send_keeps_title (void)
{
  const char *message = "Please tell me how the weather will be tomorrow";
  const char *typed = "Weather questions";
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GtkShortcut) f2 = NULL;
  g_autoptr(GtkShortcut) enter = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GPtrArray) text = NULL;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (u->index, session_id);
  NatterWindow *window = ui_window_new (app, u);
  NatterComposer *composer = natter_window_get_composer (window);
  AdwMessageDialog *dialog;
  GtkWidget *title_entry;
  GtkShortcutAction *action;
  EntryWait wait = { u, entry, typed };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  g_signal_connect (entry, "notify::title", G_CALLBACK (title_seen_cb), seen);

  /* An empty session, selected. */
  g_assert_true (natter_window_open_session (window, session_id));
  wait_row (window, session_id, "New chat");
  g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);

  /* F2 is bound to win.rename on the window, and pressing it (GTK 4.8
   * cannot synthesize a key event, so the shortcut GTK would match is
   * activated the way its controller does) opens the rename dialog. */
  f2 = find_shortcut (GTK_WIDGET (window), GDK_KEY_F2);
  g_assert_nonnull (f2);
  action = gtk_shortcut_get_action (f2);
  g_assert_true (GTK_IS_NAMED_ACTION (action));
  g_assert_cmpstr (gtk_named_action_get_action_name (GTK_NAMED_ACTION (action)), ==, "win.rename");
  g_assert_true (gtk_shortcut_action_activate (action, 0, GTK_WIDGET (window), gtk_shortcut_get_arguments (f2)));
  ui_wait_until (dialog_shown, window);
  dialog = find_dialog (GTK_WINDOW (window));

  /* Type the title and confirm with Enter (the entry activates the
   * dialog's default response, Rename). */
  title_entry = adw_message_dialog_get_extra_child (dialog);
  g_assert_true (GTK_IS_EDITABLE (title_entry));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (title_entry)), ==, "");
  gtk_editable_set_text (GTK_EDITABLE (title_entry), typed);
  /* Enter: the entry's text widget binds it to ::activate, which
   * activates the dialog's default. */
  text = ui_find_all (title_entry, GTK_TYPE_TEXT);
  g_assert_cmpuint (text->len, ==, 1);
  enter = find_shortcut (g_ptr_array_index (text, 0), GDK_KEY_Return);
  g_assert_nonnull (enter);
  g_assert_true (gtk_shortcut_action_activate (gtk_shortcut_get_action (enter), 0,
                                               g_ptr_array_index (text, 0), gtk_shortcut_get_arguments (enter)));
  ui_wait_until (dialog_gone, window);
  ui_wait_until (entry_titled, &wait);
  wait_row (window, session_id, typed);

  /* The first message, from the composer; the fake model answers. */
  natter_composer_set_text (composer, message);
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (entry_turn_completed, &wait);
  ui_settle ();

  /* The user's title everywhere, and the automatic one never, not even
   * for a moment. */
  g_assert_cmpstr (natter_session_row_get_title (find_row (window, session_id)), ==, typed);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, typed);
  g_assert_cmpuint (seen->len, >=, 1);
  for (guint i = 0; i < seen->len; i++)
    g_assert_cmpstr (g_ptr_array_index (seen, i), ==, typed);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, 1);

  /* And on disk: the session file reduces to the typed, explicit title. */
  state = ui_get_session (u, session_id);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, typed);
  g_assert_true (natter_session_state_get_title_is_explicit (state));

  g_signal_handlers_disconnect_by_data (entry, seen);
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

static double
sidebar_scroll (NatterWindow *window)
{
  GtkWidget *scroller = gtk_widget_get_ancestor (natter_window_get_session_list (window), GTK_TYPE_SCROLLED_WINDOW);

  return gtk_adjustment_get_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller)));
}

static guint
sidebar_selected (NatterWindow *window)
{
  return gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (
           gtk_list_view_get_model (GTK_LIST_VIEW (natter_window_get_session_list (window)))));
}

typedef struct
{
  NatterWindow *window;
  double        value;
} ScrollWait;

static gboolean
scrolled_to (gpointer data)
{
  ScrollWait *w = data;

  ui_settle ();
  /* The list anchors its rows by whole pixels: a pixel either way is
   * not a jump (a row is about 50 px). */
  return G_APPROX_VALUE (sidebar_scroll (w->window), w->value, 1.5);
}

static char *
describe_scroll (gpointer data)
{
  ScrollWait *w = data;

  return g_strdup_printf ("the list is scrolled to %.1f, not %.1f", sidebar_scroll (w->window), w->value);
}

static gboolean
search_entry_shown (gpointer data)
{
  ui_settle ();
  return ui_find_first (data, GTK_TYPE_SEARCH_ENTRY) != NULL;
}

/* The row under the pointer stays the row it was: clearing a search or
 * undoing a deletion keeps the list's scroll position and its selection
 * (a jump there made the next click open another conversation). */
static void
test_sidebar_keeps_place (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *scroller;
  GtkAdjustment *adjustment;
  NatterWindow *window;
  const char *chosen;
  guint chosen_position;
  ScrollWait wait;

  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *title = g_strdup_printf ("%s %02u", i % 10 == 3 ? "Budget" : "Notes", i);

      g_ptr_array_add (ids, ui_create_session (u, title));
    }
  window = ui_window_new (app, u);
  wait_row (window, g_ptr_array_index (ids, 39), "Notes 39");
  scroller = gtk_widget_get_ancestor (natter_window_get_session_list (window), GTK_TYPE_SCROLLED_WINDOW);
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

  /* Scrolled half-way down, a conversation there open. */
  chosen_position = 20;
  chosen = sidebar_id (window, chosen_position);
  g_assert_true (natter_window_open_session (window, chosen));
  gtk_adjustment_set_value (adjustment, (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment)) / 2);
  ui_settle ();
  wait.window = window;
  wait.value = gtk_adjustment_get_value (adjustment);
  g_assert_cmpfloat (wait.value, >, 0);
  g_assert_cmpuint (sidebar_selected (window), ==, chosen_position);

  /* A search, then the search cleared. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL);
  ui_wait_until (search_entry_shown, window);
  gtk_editable_set_text (GTK_EDITABLE (ui_find_first (window, GTK_TYPE_SEARCH_ENTRY)), "Budget");
  {
    GListModel *model = natter_window_get_sidebar_model (window);
    gboolean filtered = FALSE;

    for (guint i = 0; i < 100 && !filtered; i++)
      {
        ui_settle ();
        filtered = g_list_model_get_n_items (model) == 4;
        if (!filtered)
          g_main_context_iteration (NULL, TRUE);
      }
    g_assert_true (filtered);
  }
  gtk_editable_set_text (GTK_EDITABLE (ui_find_first (window, GTK_TYPE_SEARCH_ENTRY)), "");
  ui_wait_until_full (scrolled_to, describe_scroll, &wait);
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 40);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, chosen);
  g_assert_cmpuint (sidebar_selected (window), ==, chosen_position);

  /* Deleting the open conversation, then undoing it. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", NULL);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  ui_settle ();
  gtk_adjustment_set_value (adjustment, wait.value);
  ui_settle ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", chosen);
  ui_wait_until_full (scrolled_to, describe_scroll, &wait);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, chosen);
  g_assert_cmpuint (sidebar_selected (window), ==, chosen_position);


  ui_destroy_window (window);
  ui_world_free (u);
}

/* A new chat is written, and listed, from its first message: then its
 * row is at the top of a list that may be scrolled down, and the list
 * goes up to show it. */
static void
test_sidebar_new_chat_in_view (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *talked = NULL;
  g_autofree char *turn_id = NULL;
  GtkAdjustment *adjustment;
  NatterWindow *window;
  ScrollWait wait;

  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *title = g_strdup_printf ("Notes %02u", i);

      g_free (ui_create_session (u, title));
    }
  talked = ui_create_session (u, "Talked");
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, talked, "Hello");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  wait_row (window, talked, "Talked");
  g_assert_true (natter_window_open_session (window, talked));
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (
                 gtk_widget_get_ancestor (natter_window_get_session_list (window), GTK_TYPE_SCROLLED_WINDOW)));
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment));
  ui_settle ();
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), >, 0);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL);
  g_assert_null (natter_window_get_session_id (window));
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 41);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  natter_composer_set_text (natter_window_get_composer (window), "A new topic");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  wait.window = window;
  wait.value = 0;
  ui_wait_until_full (scrolled_to, describe_scroll, &wait);
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 42);
  g_assert_nonnull (natter_window_get_session_id (window));
  g_assert_cmpstr (natter_window_get_session_id (window), !=, talked);
  g_assert_cmpstr (sidebar_id (window, 0), ==, natter_window_get_session_id (window));
  g_assert_cmpuint (sidebar_selected (window), ==, 0);

  ui_destroy_window (window);
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
  g_test_add_func ("/sidebar/pending-delete-survives-close", test_sidebar_pending_delete_survives_close);
  g_test_add_func ("/sidebar/corrupt-session", test_sidebar_corrupt_session);
  g_test_add_func ("/sidebar/damaged-view-and-copy", test_sidebar_damaged_view);
  g_test_add_func ("/sidebar/damaged-long-title", test_sidebar_damaged_long_title);
  g_test_add_func ("/sidebar/damaged-while-open", test_sidebar_damaged_while_open);
  g_test_add_func ("/sidebar/restores-last-session", test_sidebar_restores_last_session);
  g_test_add_func ("/sidebar/open-before-scan-ends", test_sidebar_open_before_scan_ends);
  g_test_add_func ("/sidebar/relative-time-refreshes", test_sidebar_relative_time_refreshes);
  g_test_add_func ("/sidebar/rename-then-send-keeps-title", test_sidebar_rename_then_send_keeps_title);
  g_test_add_func ("/sidebar/order-is-activity", test_sidebar_order_is_activity);
  g_test_add_func ("/sidebar/keeps-place", test_sidebar_keeps_place);
  g_test_add_func ("/sidebar/new-chat-in-view", test_sidebar_new_chat_in_view);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
