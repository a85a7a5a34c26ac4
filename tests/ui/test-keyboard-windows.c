/* test-keyboard-windows.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The header, the windows it opens and the narrow layout: the model
 * picker, Back, and arrow keys that stay in the list.
 */

#include "test-keyboard.h"

/* Header, windows, narrow layout */

static gboolean
popover_shown (gpointer data)
{
  g_autoptr(GPtrArray) popovers = ui_find_all (data, GTK_TYPE_POPOVER);

  return popovers->len > 0;
}

static void
close_toplevels_of_type (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = g_list_model_get_n_items (toplevels); i > 0; i--)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i - 1);

      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type))
        gtk_window_destroy (GTK_WINDOW (w));
    }
  ui_settle ();
}

void
test_keyboard_model_picker_and_windows (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Models");
  NatterWindow *window = window_new (u);
  NatterModelPicker *picker = natter_window_get_model_picker (window);

  /* Ctrl+M opens the model list (arrows and Enter pick: a GtkListBox).
   * The window starts on a new conversation, which has a model too. */
  g_assert_true (natter_window_open_session (window, session_id));
  natter_window_set_model_provider (window, NULL, NULL, NULL);
  ui_settle ();
  g_assert_true (press (window, "<Control>m"));
  ui_wait_until (popover_shown, picker);
  natter_model_picker_popdown (picker);
  ui_settle ();

  /* Ctrl+? shows the shortcuts window. */
  g_assert_true (press (window, "<Control>question"));
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (GTK_TYPE_SHORTCUTS_WINDOW));
  close_toplevels_of_type (GTK_TYPE_SHORTCUTS_WINDOW);

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
is_folded (gpointer data)
{
  ui_settle ();
  return adw_leaflet_get_folded (ADW_LEAFLET (data));
}

void
test_keyboard_narrow_back (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Narrow");
  NatterWindow *window = window_new (u);
  AdwLeaflet *leaflet = ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET));
  GtkWidget *list = natter_window_get_session_list (window);

  gtk_window_set_default_size (GTK_WINDOW (window), 360, 600);
  ui_wait_until (is_folded, leaflet);

  /* Enter on the row shows the conversation, focus in the composer. */
  gtk_widget_grab_focus (list);
  g_signal_emit_by_name (list, "activate", 0);
  ui_settle ();
  g_assert_true (natter_window_open_session (window, session_id));
  g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (natter_window_get_composer (window))));

  /* Alt+Left goes back to the list, focus on the conversation's row. */
  g_assert_true (press (window, "<Alt>Left"));
  g_assert_true (gtk_widget_is_ancestor (list, adw_leaflet_get_visible_child (leaflet)));
  g_assert_true (has_focus_in (GTK_WIDGET (window), list));
  /* …and there it is not taken again. */
  g_assert_false (press (window, "<Alt>Left"));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* An arrow key in the list, as GTK delivers it: the key controllers
 * (capture phase) first, then the list's own binding, which selects the
 * row, all in one event dispatch. */
static void
arrow_selects (NatterWindow *window,
               GtkWidget    *list,
               guint         position)
{
  GListModel *controllers = gtk_widget_observe_controllers (list);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);
      gboolean handled = FALSE;

      if (GTK_IS_EVENT_CONTROLLER_KEY (controller) &&
          gtk_event_controller_get_propagation_phase (controller) == GTK_PHASE_CAPTURE)
        g_signal_emit_by_name (controller, "key-pressed", GDK_KEY_Down, 0, 0, &handled);
    }
  g_object_unref (controllers);
  gtk_widget_activate_action (list, "list.select-item", "(ubb)", position, FALSE, FALSE);
  ui_settle ();
}

void
test_keyboard_narrow_arrows_stay_in_list (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *first = ui_create_session (u, "First");
  g_autofree char *second = ui_create_session (u, "Second");
  NatterWindow *window = window_new (u);
  AdwLeaflet *leaflet = ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET));
  GtkWidget *list = natter_window_get_session_list (window);

  gtk_window_set_default_size (GTK_WINDOW (window), 360, 600);
  ui_wait_until (is_folded, leaflet);
  gtk_widget_grab_focus (list);

  /* Walking the list with arrows opens each session behind it but stays
   * in the list, where the user is looking. */
  arrow_selects (window, list, 0);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, second);
  arrow_selects (window, list, 1);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, first);
  g_assert_true (gtk_widget_is_ancestor (list, adw_leaflet_get_visible_child (leaflet)));
  g_assert_true (has_focus_in (GTK_WIDGET (window), list));

  /* Enter goes to the conversation. */
  g_signal_emit_by_name (list, "activate", 1);
  ui_settle ();
  g_assert_false (gtk_widget_is_ancestor (list, adw_leaflet_get_visible_child (leaflet)));
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (natter_window_get_composer (window))));

  /* A click (a selection with no key behind it) goes there at once. */
  g_assert_true (press (window, "<Alt>Left"));
  gtk_widget_activate_action (list, "list.select-item", "(ubb)", 0, FALSE, FALSE);
  ui_settle ();
  g_assert_cmpstr (natter_window_get_session_id (window), ==, second);
  g_assert_false (gtk_widget_is_ancestor (list, adw_leaflet_get_visible_child (leaflet)));

  ui_destroy_window (window);
  ui_world_free (u);
}
