/* test-versions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Versions of a message on screen: the "‹ n/N ›" switcher, Edit (the
 * sent message into the composer; sending branches at the turn before
 * it, under the conversation's title) and Try Again (another answer as a
 * new version), with every version one arrow away from the others and
 * nothing written over. Here the switcher itself and what switching
 * shows; in the files beside it Edit (test-versions-edit.c), Try Again
 * (test-versions-try-again.c), the sidebar's one row for all versions
 * (test-versions-sidebar.c), and the model a new version keeps
 * (test-versions-model.c).
 */

#include "test-versions.h"

static GPtrArray *
make_versions (const char *first,
               ...)
{
  GPtrArray *versions = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_turn_version_free);
  va_list args;

  va_start (args, first);
  for (const char *session = first; session != NULL; session = va_arg (args, const char *))
    {
      NatterTurnVersion *version = g_new0 (NatterTurnVersion, 1);

      version->session_id = g_strdup (session);
      version->turn_id = g_strdup (va_arg (args, const char *));
      g_ptr_array_add (versions, version);
    }
  va_end (args);
  return versions;
}

/* The session a switcher arrow opens. */
static const char *
target_of (GtkWidget *button)
{
  GVariant *target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));
  const char *session_id = NULL;

  if (target != NULL)
    g_variant_get (target, "(&s&s)", &session_id, NULL);
  return session_id;
}

/* The message an arrow opens the other version at. */
static const char *
turn_target_of (GtkWidget *button)
{
  GVariant *target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));
  const char *turn_id = NULL;

  if (target != NULL)
    g_variant_get (target, "(&s&s)", NULL, &turn_id);
  return turn_id;
}

static void
test_switcher_widget (void)
{
  GtkWidget *switcher = g_object_ref_sink (natter_version_switcher_new ());
  g_autoptr(GPtrArray) three = make_versions ("s1", "t1", "s2", "t2", "s3", "t3", NULL);
  g_autoptr(GPtrArray) one = make_versions ("s1", "t1", NULL);
  GtkWidget *previous = child_at (switcher, 0);
  GtkWidget *label = child_at (switcher, 1);
  GtkWidget *next = child_at (switcher, 2);

  g_assert_false (gtk_widget_get_visible (switcher));

  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), three, "t2");
  g_assert_true (gtk_widget_get_visible (switcher));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "2/3");
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (previous)), ==, "win.open-version");
  g_assert_cmpstr (target_of (previous), ==, "s1");
  g_assert_cmpstr (target_of (next), ==, "s3");
  g_assert_cmpstr (turn_target_of (previous), ==, "t1");
  g_assert_cmpstr (turn_target_of (next), ==, "t3");
  g_assert_true (gtk_widget_get_sensitive (previous));
  g_assert_true (gtk_widget_get_sensitive (next));

  /* The first has nothing before it, the last nothing after. */
  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), three, "t1");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "1/3");
  g_assert_false (gtk_widget_get_sensitive (previous));
  g_assert_cmpstr (target_of (next), ==, "s2");
  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), three, "t3");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "3/3");
  g_assert_false (gtk_widget_get_sensitive (next));
  g_assert_cmpuint (natter_version_switcher_get_position (NATTER_VERSION_SWITCHER (switcher)), ==, 2);

  /* One version, or a message not among them: no switcher. */
  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), one, "t1");
  g_assert_false (gtk_widget_get_visible (switcher));
  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), three, "t9");
  g_assert_false (gtk_widget_get_visible (switcher));
  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), NULL, "t1");
  g_assert_false (gtk_widget_get_visible (switcher));
  g_object_unref (switcher);
}

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  const char   *turn_id;
} TurnWait;

/* @session_id is open and the row of @turn_id is on screen, within the
 * timeline's viewport. */
static gboolean
turn_in_view (gpointer data)
{
  TurnWait *w = data;
  GtkWidget *list = natter_window_get_timeline_list (w->window);
  GtkWidget *scroller = gtk_widget_get_ancestor (list, GTK_TYPE_SCROLLED_WINDOW);
  NatterTurnRow *row;
  graphene_rect_t bounds;

  ui_settle ();
  if (g_strcmp0 (natter_window_get_session_id (w->window), w->session_id) != 0)
    return FALSE;
  row = find_row (w->window, w->turn_id);
  if (row == NULL || !gtk_widget_get_mapped (GTK_WIDGET (row)) ||
      !gtk_widget_compute_bounds (GTK_WIDGET (row), scroller, &bounds))
    return FALSE;
  return bounds.origin.y + bounds.size.height > 0 && bounds.origin.y < gtk_widget_get_height (scroller);
}

static char *
describe_view (gpointer data)
{
  TurnWait *w = data;
  GtkAdjustment *adjustment = natter_window_get_timeline_adjustment (w->window);

  return g_strdup_printf ("%s open, turn %s of %s not in view; scrolled to %.0f of %.0f (page %.0f)",
                          natter_window_get_session_id (w->window), w->turn_id, w->session_id,
                          gtk_adjustment_get_value (adjustment), gtk_adjustment_get_upper (adjustment),
                          gtk_adjustment_get_page_size (adjustment));
}

/* The second message of @session_id edited (a branch at @first, whose
 * title is @title, with the message "Question 1, edited" answered),
 * shown in a new window at the branch, its switcher at 2/2. Returns the
 * window; the branch and the edited turn in @branch and @edited. */
static NatterWindow *
open_edited_second (UiWorld     *u,
                    const char  *session_id,
                    const char  *first,
                    const char  *title,
                    char       **branch,
                    char       **edited)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterWindow *window;

  natter_sessions_fork_async (u->sessions, session_id, first, title, NULL, ui_result_cb, &result);
  *branch = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  *edited = ui_send (u, *branch, "Question 1, edited");
  ui_wait_turn (u, *edited);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, *branch));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, *edited, "2/2");
  return window;
}

/* An arrow of the switcher opens the other version at the same message,
 * however far up the conversation it is, not at its bottom. */
static void
test_switch_shows_message (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Long");
  g_autoptr(GPtrArray) turns = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) answer = g_string_new ("{\"role\":\"assistant\",\"content\":\"");
  g_autofree char *branch = NULL;
  g_autofree char *edited = NULL;
  GtkAdjustment *adjustment;
  NatterWindow *window;
  NatterTurnRow *row;
  TurnWait w;

  for (guint i = 0; i < 30; i++)
    g_string_append_printf (answer, "Line %u of a long answer.\\n\\n", i);
  g_string_append (answer, "\"}");
  natter_fake_model_script (u->w->fakes->model, answer->str, answer->str, answer->str, answer->str,
                            answer->str, answer->str, answer->str, NULL);
  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *text = g_strdup_printf ("Question %u", i);

      g_ptr_array_add (turns, ui_send (u, session_id, text));
      ui_wait_turn (u, g_ptr_array_index (turns, i));
    }
  /* The second message edited: a branch at the first turn. */
  window = open_edited_second (u, session_id, g_ptr_array_index (turns, 0), "Long", &branch, &edited);

  /* To the original: its second message in view, five long turns below. */
  row = find_row (window, edited);
  g_assert_true (gtk_widget_activate (child_at (GTK_WIDGET (switcher_of (row)), 0)));
  w = (TurnWait) { window, session_id, g_ptr_array_index (turns, 1) };
  ui_wait_until_full (turn_in_view, describe_view, &w);
  wait_switcher (window, g_ptr_array_index (turns, 1), "1/2");
  g_assert_true (turn_in_view (&w));
  adjustment = natter_window_get_timeline_adjustment (window);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), <,
                     gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment) - 1);

  /* And back to the edit. */
  row = find_row (window, g_ptr_array_index (turns, 1));
  g_assert_true (gtk_widget_activate (child_at (GTK_WIDGET (switcher_of (row)), 2)));
  w = (TurnWait) { window, branch, edited };
  ui_wait_until_full (turn_in_view, describe_view, &w);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* An arrow pressed from the keyboard keeps the focus, on the same arrow
 * of the version it opened (its rows are new ones), so that the next
 * press goes on; not in the message field, where opening put it. */
typedef struct
{
  NatterWindow *window;
  const char   *turn_id;
  guint         child;
} ArrowWait;

static gboolean
arrow_focused (gpointer data)
{
  ArrowWait *a = data;
  NatterTurnRow *row = find_row (a->window, a->turn_id);

  return row != NULL && gtk_root_get_focus (GTK_ROOT (a->window)) == child_at (GTK_WIDGET (switcher_of (row)), a->child);
}

static char *
describe_arrow (gpointer data)
{
  ArrowWait *a = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (a->window));
  NatterTurnRow *row = find_row (a->window, a->turn_id);

  GtkWidget *want = row != NULL ? child_at (GTK_WIDGET (switcher_of (row)), a->child) : NULL;
  GtkWidget *frow = focus ? gtk_widget_get_ancestor (focus, NATTER_TYPE_TURN_ROW) : NULL;

  return g_strdup_printf ("focus %s %p in %s (row %p item %s); wanted %p in row %p; session %s", focus ? G_OBJECT_TYPE_NAME (focus) : "none", (void *) focus,
                          focus && gtk_widget_get_parent (focus) ? G_OBJECT_TYPE_NAME (gtk_widget_get_parent (focus)) : "-",
                          (void *) frow, frow && natter_turn_row_get_item (NATTER_TURN_ROW (frow)) ? natter_turn_item_get_turn_id (natter_turn_row_get_item (NATTER_TURN_ROW (frow))) : "-",
                          (void *) want, (void *) row, natter_window_get_session_id (a->window));
}

static void
test_arrow_keeps_focus (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Short");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *branch = NULL;
  g_autofree char *edited = NULL;
  NatterWindow *window;
  ArrowWait a;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"One.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Two.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Two again.\"}", NULL);
  first = ui_send (u, session_id, "Question 0");
  ui_wait_turn (u, first);
  second = ui_send (u, session_id, "Question 1");
  ui_wait_turn (u, second);
  window = open_edited_second (u, session_id, first, "Short", &branch, &edited);

  /* The previous version's arrow, focused and pressed: the original
   * opens, and the focus is on its switcher, on the arrow that goes
   * somewhere from there (the next one: it is the first version). */
  g_assert_true (gtk_widget_grab_focus (child_at (GTK_WIDGET (switcher_of (find_row (window, edited))), 0)));
  g_assert_true (gtk_widget_activate (child_at (GTK_WIDGET (switcher_of (find_row (window, edited))), 0)));
  wait_switcher (window, second, "1/2");
  a = (ArrowWait) { window, second, 2 };
  ui_wait_until_full (arrow_focused, describe_arrow, &a);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);

  /* And back, from the keyboard again. */
  g_assert_true (gtk_widget_activate (child_at (GTK_WIDGET (switcher_of (find_row (window, second))), 2)));
  wait_switcher (window, edited, "2/2");
  a = (ArrowWait) { window, edited, 0 };
  ui_wait_until_full (arrow_focused, describe_arrow, &a);

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/versions/switcher", test_switcher_widget);
  g_test_add_func ("/versions/edit-message", test_edit_message);
  g_test_add_func ("/versions/edit-shown-live", test_edit_shown_live);
  g_test_add_func ("/versions/edit-deleted-original", test_edit_deleted_original);
  g_test_add_func ("/versions/switch-shows-message", test_switch_shows_message);
  g_test_add_func ("/versions/arrow-keeps-focus", test_arrow_keeps_focus);
  g_test_add_func ("/versions/sidebar-lists-conversation-once", test_sidebar_lists_conversation_once);
  g_test_add_func ("/versions/sidebar-damaged-version-title", test_sidebar_damaged_version_title);
  g_test_add_func ("/versions/rename-names-every-version", test_rename_names_every_version);
  g_test_add_func ("/versions/delete-says-what-is-kept", test_delete_version_says_what_is_kept);
  g_test_add_func ("/versions/delete-keeps-row", test_delete_version_keeps_row);
  g_test_add_func ("/versions/delete-original-keeps-history-and-pin", test_delete_original_keeps_history_and_pin);
  g_test_add_func ("/versions/try-again", test_try_again_keeps_answer);
  g_test_add_func ("/versions/try-again-not-a-branch", test_try_again_not_a_branch);
  g_test_add_func ("/versions/try-again-keeps-message-parameters", test_try_again_keeps_message_parameters);
  g_test_add_func ("/versions/grown-row-stays-whole", test_grown_row_stays_whole);
  g_test_add_func ("/versions/edit-keeps-model", test_edit_keeps_model);
  g_test_add_func ("/versions/try-again-keeps-model", test_try_again_keeps_model);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
