/* test-sidebar-damaged.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A damaged session in the sidebar: shown damaged and nothing else is
 * affected (one bad file must never empty the list); its view is no dead
 * end, with a long title too, and one damaged while open says so.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "test-sidebar.h"

static gboolean
focus_on_copy_readable (gpointer window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  return GTK_IS_BUTTON (focus) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (focus)), "Copy Readable Part to a New Conversation") == 0;
}

void
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
  g_assert_cmpstr (natter_session_row_get_title (ui_find_session_row (window, other)), ==, "Other");
  g_assert_null (natter_session_row_get_status_mark (ui_find_session_row (window, good)));
  g_assert_null (natter_session_row_get_status_mark (ui_find_session_row (window, other)));
  g_assert_cmpstr (natter_session_row_get_status_mark (ui_find_session_row (window, bad)), ==, "errored");
  /* The row says what to do in words; the reason, with its file and
   * line, is the tooltip's, never cut in the subtitle. */
  g_assert_cmpstr (natter_session_row_get_time_text (ui_find_session_row (window, bad)), ==,
                   "Damaged: open it for details");
  /* A screen reader names each row as it reads: title, then the rest. */
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (ui_list_item_of (GTK_WIDGET (ui_find_session_row (window, bad)))),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Bad");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (ui_list_item_of (GTK_WIDGET (ui_find_session_row (window, bad)))),
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "Damaged: open it for details, This conversation cannot be read");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (ui_list_item_of (GTK_WIDGET (ui_find_session_row (window, good)))),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Good");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (ui_list_item_of (GTK_WIDGET (ui_find_session_row (window, good)))),
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       natter_session_row_get_time_text (ui_find_session_row (window, good)));

  /* It opens to its error, never to a composer. Its menu, and its
   * row's, offer no Rename…, Pin or Move to Folder, which could not be
   * written: Delete only. */
  g_assert_true (natter_window_open_session (window, good));
  gtk_widget_grab_focus (GTK_WIDGET (natter_window_get_composer (window)));
  g_assert_true (natter_window_open_session (window, bad));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");
  /* The keyboard, which was in the message field, goes to the way out
   * once the damage has been looked at. */
  ui_wait_until (focus_on_copy_readable, window);
  /* No message was readable before the damage: said before copying. */
  g_assert_nonnull (strstr (adw_status_page_get_description (window->errors.errored_page),
                            "No message before the damage can be read: a copy starts empty."));
  g_assert_nonnull (natter_composer_get_blocked_reason (natter_window_get_composer (window)));
  {
    GMenuModel *menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (window->conversation_menu_button));
    g_autoptr(GMenuModel) row_menu = _natter_window_conversation_menu_new (window, bad);

    g_assert_false (ui_menu_has_action (menu, "win.rename"));
    g_assert_false (ui_menu_has_action (menu, "win.pin"));
    g_assert_true (ui_menu_has_action (menu, "win.delete"));
    g_assert_false (ui_menu_has_action (row_menu, "win.rename"));
    g_assert_false (ui_menu_has_action (row_menu, "win.pin"));
    g_assert_true (ui_menu_has_action (row_menu, "win.delete"));
  }
  g_assert_true (natter_window_open_session (window, good));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");
  g_assert_null (natter_composer_get_blocked_reason (natter_window_get_composer (window)));
  g_assert_true (ui_menu_has_action (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (window->conversation_menu_button)),
                                     "win.rename"));

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
void
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
                   ==, "Tom & Jerry <b> notes (recovered)");

  g_assert_true (g_file_load_contents (file, NULL, &after, NULL, NULL, &error));
  g_assert_cmpstr (after, ==, torn);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A message queued in a conversation whose log is then torn is not
 * stranded there: the copy of the readable part takes it, and the window
 * shows it in the copy (waiting, or sent as the queue goes on). */
void
test_sidebar_damaged_copy_takes_queue (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *bad = ui_create_session (u, "Queued notes");
  g_autofree char *turn_id = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autofree char *name = g_file_get_basename (file);
  NatterWindow *window;
  PageWait wait;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, bad, "Notes to keep");
  ui_wait_turn (u, turn_id);
  g_free (natter_test_store_queued (u->w->dir, bad, "And this waited", NULL, NULL));
  natter_test_append_file (g_file_peek_path (file), "{\"type\":");
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, bad));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");
  wait.window = window;
  wait.text = name;
  ui_wait_until (description_says, &wait);
  g_signal_emit_by_name (ui_find_button (GTK_WIDGET (shown_status_page (window)),
                                         "Copy Readable Part to a New Conversation"), "clicked");
  wait.text = bad;
  ui_wait_until (moved_on, &wait);
  ui_wait_label (GTK_WIDGET (window), "And this waited");

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A damaged conversation with a very long title: the heading stays
 * short (the whole title in its tooltip), so the explanation and the
 * way out show without scrolling. */
void
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
void
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
                   ==, "Torn notes (recovered)");
  /* Listed beside the damaged one, whose title it is not. */
  g_assert_cmpstr (natter_session_row_get_title (ui_find_session_row (window, natter_window_get_session_id (window))),
                   ==, "Torn notes (recovered)");
  g_assert_cmpstr (natter_session_row_get_title (ui_find_session_row (window, bad)), ==, "Torn notes");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (natter_window_get_timeline (window))), ==, 1);
  /* The message the damage refused went with it, ready to send there. */
  {
    g_autofree char *text = natter_composer_dup_text (natter_window_get_composer (window));

    g_assert_cmpstr (text, ==, "One more");
  }

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

static gboolean
page_errored (gpointer window)
{
  ui_settle ();
  return g_strcmp0 (natter_window_get_visible_page (window), "errored") == 0;
}

static gboolean
turns_shown (gpointer window)
{
  NatterTimelineModel *timeline = natter_window_get_timeline (window);

  ui_settle ();
  return g_strcmp0 (natter_window_get_visible_page (window), "conversation") == 0 && timeline != NULL &&
         natter_timeline_model_get_loaded (timeline) && g_list_model_get_n_items (G_LIST_MODEL (timeline)) == 1 &&
         ui_label_shown (natter_window_get_timeline_list (window), "Keep this");
}

static char *
describe_mended (gpointer data)
{
  NatterWindow *window = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (window->index, natter_window_get_session_id (window));

  return g_strdup_printf ("page %s, timeline %p, entry %p (window's %p), error %s",
                          natter_window_get_visible_page (window), (gpointer) natter_window_get_timeline (window),
                          (gpointer) entry, (gpointer) window->conversation.entry,
                          entry != NULL ? natter_session_index_entry_get_error (entry) : "-");
}

/* Opened damaged, then mended while open (its file put back from a
 * backup): once read again, the conversation shows its turns, never an
 * empty page. */
void
test_sidebar_damaged_then_mended (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *sid = ui_create_session (u, "Mended");
  g_autofree char *turn_id = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, sid, NULL);
  g_autofree char *good = NULL;
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GAsyncResult) result = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, sid, "Keep this");
  ui_wait_turn (u, turn_id);
  good = ui_read_file (file);
  natter_test_append_file (path, "{\"type\":");
  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, sid));
  ui_wait_until (page_errored, window);

  g_assert_true (g_file_set_contents (path, good, -1, NULL));
  natter_sessions_refresh_async (u->sessions, (const char * const[]) { sid, NULL }, NULL, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_refresh_finish (u->sessions, ui_wait_result (&result), NULL));
  g_clear_object (&result);
  /* The list lays out its rows in a frame after the model fills, so the
   * words are waited for along with the turn. */
  ui_wait_until_full (turns_shown, describe_mended, window);

  ui_destroy_window (window);
  ui_world_free (u);
}

#define LOST_END_SAYS "The end of this answer is missing from its file, though the conversation went on after it: " \
                      "the file is damaged, so nothing more can be sent here."

static gboolean
opened_other (gpointer data)
{
  gpointer *pair = data;
  const char *open = natter_window_get_session_id (pair[0]);

  return open != NULL && g_strcmp0 (open, pair[1]) != 0;
}

/* A conversation of two exchanges whose first answer's file is cut
 * back to its first two lines, as an older copy of it would be: each
 * line reads, and the turn never ends. Returns the file's contents. */
static char *
cut_first_answer (UiWorld    *u,
                  const char *sid,
                  GFile     **out_file)
{
  g_autoptr(GFile) file = ui_send_two_exchanges (u, sid);
  char *contents = NULL;
  char *end;

  g_assert_true (g_file_get_contents (g_file_peek_path (file), &contents, NULL, NULL));
  end = strchr (strchr (contents, '\n') + 1, '\n');
  end[1] = '\0';
  g_assert_true (g_file_set_contents (g_file_peek_path (file), contents, -1, NULL));
  *out_file = g_steal_pointer (&file);
  return contents;
}

/* An earlier answer whose file lost its last lines (each line still
 * reads) is no interrupted answer to resume: the conversation went on
 * after it, so the file is damaged, and its row says so when the
 * conversation opens, before a message is refused, with the way out:
 * the readable part copied into a new conversation that opens. The
 * damaged file stays as it was. */
void
test_sidebar_damaged_earlier_turn (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *sid = ui_create_session (u, "Trip");
  g_autoptr(GFile) file = NULL;
  g_autofree char *contents = cut_first_answer (u, sid, &file);
  g_autofree char *after = NULL;
  gpointer pair[2];
  NatterWindow *window;
  GtkWidget *button;

  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, sid));
  ui_wait_label (window, LOST_END_SAYS);
  g_assert_false (ui_label_shown (window, "Interrupted before it finished, perhaps by a crash."));
  button = ui_find_button (window, "_Copy Readable Part");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  pair[0] = window;
  pair[1] = sid;
  ui_wait_until (opened_other, pair);
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 2);
  g_assert_true (g_file_get_contents (g_file_peek_path (file), &after, NULL, NULL));
  g_assert_cmpstr (after, ==, contents);

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
copy_offered (gpointer window)
{
  ui_settle ();
  return ui_find_button (window, "_Copy Readable Part") != NULL;
}

static gboolean
marked_damaged (gpointer data)
{
  gpointer *pair = data;
  NatterSessionRow *row = ui_find_session_row (pair[0], pair[1]);

  ui_settle ();
  return row != NULL && g_strcmp0 (natter_session_row_get_status_mark (row), "damaged-message") == 0;
}

/* The first message's file torn (its last line without its end): the
 * conversation's row in the list is marked damaged once the search
 * index has read every message (the startup scan reads only the latest
 * one), before the conversation is opened; its turn row says it cannot
 * be read, with the way out beside it and the message, which reads; the
 * copy then holds no turn, the person's message of the damaged one
 * waits in its message field, and the window says so above the field
 * rather than leave an empty conversation unexplained. */
void
test_sidebar_torn_first_turn (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *sid = ui_create_session (u, "Trip");
  g_autoptr(GFile) file = ui_send_two_exchanges (u, sid);
  g_autoptr(GFileOutputStream) out = NULL;
  NatterSearchIndex *search;
  gpointer pair[2];
  NatterWindow *window;

  out = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, NULL);
  g_assert_true (g_output_stream_write_all (G_OUTPUT_STREAM (out), "{\"type\":\"tool_res", 17, NULL, NULL, NULL));
  g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (out), NULL, NULL));

  ui_world_restart (u);
  search = ui_search_index_start (u);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  pair[0] = window;
  pair[1] = sid;
  ui_wait_until (marked_damaged, pair);
  g_assert_true (natter_window_open_session (window, sid));
  ui_wait_until (copy_offered, window);
  /* The damaged turn's message reads: its row shows it. */
  ui_wait_label (window, "First question");
  /* "C" is its mnemonic, never an underscore shown. */
  g_assert_true (gtk_button_get_use_underline (GTK_BUTTON (ui_find_button (window, "_Copy Readable Part"))));
  g_assert_true (gtk_widget_activate (ui_find_button (window, "_Copy Readable Part")));
  pair[0] = window;
  pair[1] = sid;
  ui_wait_until (opened_other, pair);
  ui_wait_label (window, "Nothing could be copied: the damage is in the first message. "
                         "Its words are in the message field below, not sent.");
  g_assert_true (ui_no_toasts (window));
  /* The person's message of that turn reads (the damage is further on):
   * it waits in the copy's message field, not sent. */
  {
    g_autofree char *draft = natter_composer_dup_text (natter_window_get_composer (window));

    g_assert_cmpstr (draft, ==, "First question");
  }
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index,
                                                                natter_window_get_session_id (window))), ==, 0);
  ui_save_window (GTK_WIDGET (window), "copy-readable-part-first-message.png");

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
}

/* In a folder a synchroniser shares, the same file may be an older copy
 * of one whose whole copy is on its way: shown as arriving, as a missing
 * file is there, not as damage. */
void
test_sidebar_older_copy_arriving (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *sid = ui_create_session (u, "Trip");
  g_autoptr(GFile) file = NULL;
  g_autofree char *contents = cut_first_answer (u, sid, &file);
  g_autofree char *dir = g_file_get_path (u->w->dir);
  g_autofree char *marker = g_build_filename (dir, ".stfolder", NULL);
  NatterWindow *window;

  g_assert_cmpint (g_mkdir (marker, 0700), ==, 0);
  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, sid));
  ui_wait_label (window, "Arriving from another device…");
  g_assert_false (ui_label_shown (window, LOST_END_SAYS));
  g_assert_null (ui_find_button (window, "_Copy Readable Part"));

  ui_destroy_window (window);
  ui_world_free (u);
  (void) contents;
}
