/* test-sidebar-place.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sidebar keeps its place: clearing a search or undoing a deletion
 * keeps its scroll position and selection, and a new chat's row, at the
 * top, is scrolled into view.
 */

#include "test-sidebar.h"

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

/* The row under the pointer stays the row it was: clearing a search or
 * undoing a deletion keeps the list's scroll position and its selection
 * (a jump there made the next click open another conversation). At the
 * end of the list the search is closed instead, as Escape closes it:
 * the page grows back over a few frames as the bar slides away. */
static void
keeps_place_at (double fraction)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *scroller;
  GtkAdjustment *adjustment;
  GtkEditable *search;
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
  chosen_position = fraction < 1 ? 20 : 39;
  chosen = sidebar_id (window, chosen_position);
  g_assert_true (natter_window_open_session (window, chosen));
  gtk_adjustment_set_value (adjustment, (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment)) * fraction);
  ui_settle ();
  wait.window = window;
  wait.value = gtk_adjustment_get_value (adjustment);
  g_assert_cmpfloat (wait.value, >, 0);
  g_assert_cmpuint (sidebar_selected (window), ==, chosen_position);

  /* A search, then the search cleared. */
  search = ui_open_search (window);
  gtk_editable_set_text (search, "Budget");
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
  if (fraction < 1)
    gtk_editable_set_text (search, "");
  else
    natter_sidebar_set_search_mode (window->session_sidebar, FALSE);
  ui_wait_until_full (scrolled_to, describe_scroll, &wait);
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 40);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, chosen);
  g_assert_cmpuint (sidebar_selected (window), ==, chosen_position);

  /* At the end of the list, a deleted row takes the end with it: no
   * place to keep there. */
  if (fraction >= 1)
    goto out;

  /* Deleting the open conversation, then undoing it. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  ui_settle ();
  gtk_adjustment_set_value (adjustment, wait.value);
  ui_settle ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", chosen);
  ui_wait_until_full (scrolled_to, describe_scroll, &wait);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, chosen);
  g_assert_cmpuint (sidebar_selected (window), ==, chosen_position);

out:
  ui_destroy_window (window);
  ui_world_free (u);
}

void
test_sidebar_keeps_place (void)
{
  keeps_place_at (0.5);
}

void
test_sidebar_keeps_place_at_end (void)
{
  keeps_place_at (1);
}

/* A new chat is written, and listed, from its first message: then its
 * row is at the top of a list that may be scrolled down, and the list
 * goes up to show it. */
void
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
