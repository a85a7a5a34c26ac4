/* test-keyboard-windows.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The header, the windows it opens and the narrow layout: the model
 * picker, Back, and arrow keys that stay in the list; and a name for
 * whatever Tab reaches, in each state of the window.
 */

#include "natter-parameters-dialog.h"
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

static void
check_tab_stops (NatterWindow *window,
                 const char   *where)
{
  g_autoptr(GPtrArray) cycle = tab_cycle (window);

  ui_assert_tab_stops_named (cycle, where);
}

/* Whatever Tab reaches has a name a screen reader can say, in each
 * state of the window a person tabs through: a new chat (the timeline
 * empty under its "New Chat" page), a conversation open with the list
 * sorted into Pinned and a folder, the search, a message being edited,
 * and a damaged conversation. The prompts and an answer's controls are
 * checked where test-keyboard-prompts.c tabs through them. */
void
test_keyboard_tab_stops_named (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *pinned = ui_create_session (u, "Pinned one");
  g_autofree char *filed = ui_create_session (u, "Filed one");
  g_autofree char *damaged = ui_create_session (u, "Damaged one");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *work_id = ui_create_folder (folders, "Work");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, damaged, NULL);
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  GtkEditable *search;

  ui_set_pinned (u, pinned, TRUE);
  ui_set_folder (u, filed, work_id);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, filed, "Hello there");
  ui_wait_turn (u, turn_id);
  /* A torn last line: the file is damaged, and said so when opened. */
  out = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (G_OUTPUT_STREAM (out), "{\"type\":", 8, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error));
  g_assert_no_error (error);
  ui_world_restart (u);

  window = window_new (u);
  natter_window_set_folders (window, folders);
  ui_settle ();
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");
  check_tab_stops (window, "a new chat");

  g_assert_true (natter_window_open_session (window, filed));
  ui_wait_until (ui_timeline_loaded, window);
  ui_wait_turn_read (window, turn_id);
  check_tab_stops (window, "a conversation open, Pinned and a folder listed");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.edit-message", "s", turn_id));
  ui_settle ();
  g_assert_true (natter_conversation_view_get_editing (window->conversation.view));
  check_tab_stops (window, "a message being edited");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-edit", NULL));

  /* The conversation's Model Settings, a dialog of its own. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.parameters", NULL));
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (NATTER_TYPE_PARAMETERS_DIALOG));
  {
    GtkWindow *dialog = ui_find_toplevel (NATTER_TYPE_PARAMETERS_DIALOG);
    g_autoptr(GPtrArray) cycle = ui_tab_cycle (dialog, NULL);

    ui_assert_tab_stops_named (cycle, "the Model Settings dialog");
    gtk_window_destroy (dialog);
    ui_settle ();
  }

  search = ui_open_search (window);
  gtk_editable_set_text (search, "one");
  ui_settle ();
  check_tab_stops (window, "the search");
  g_signal_emit_by_name (search, "stop-search");
  ui_settle ();

  g_assert_true (natter_window_open_session (window, damaged));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");
  check_tab_stops (window, "a damaged conversation");

  ui_destroy_window (window);
  ui_world_free (u);
}
