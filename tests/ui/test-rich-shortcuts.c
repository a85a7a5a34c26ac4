/* test-rich-shortcuts.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The shortcuts window, and icon-only buttons that say what they do.
 */

#include "test-rich.h"

/* Shortcuts window */

/* The shortcuts window of @window among the toplevels, or NULL. */
static GtkWindow *
find_shortcuts_window (NatterWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (GTK_IS_SHORTCUTS_WINDOW (w) && gtk_window_get_transient_for (w) == GTK_WINDOW (window))
        return w;
    }
  return NULL;
}

static gboolean
no_shortcuts_window (gpointer window)
{
  return find_shortcuts_window (window) == NULL;
}

/* The shortcuts window exists only while it shows: a hidden toplevel is
 * what GTK 4.8's accessibility root can hand to a screen reader without
 * an object path (see show_help_overlay_activated()). */
void
test_rich_shortcuts (void)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/natter/Natter/ui/natter-help-overlay.ui");
  UiWorld *u = ui_world_new ();
  g_autoptr(GPtrArray) entries = NULL;
  NatterWindow *window;
  GtkWindow *overlay;

  g_assert_true (GTK_IS_SHORTCUTS_WINDOW (gtk_builder_get_object (builder, "help_overlay")));
  g_clear_object (&builder);

  window = ui_window_new (app, u);
  g_assert_null (find_shortcuts_window (window));
  g_assert_null (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL));
  overlay = find_shortcuts_window (window);
  g_assert_nonnull (overlay);
  ui_wait_until (ui_is_mapped, overlay);
  /* Every entry shows its keys, the ones named by an action too: what
   * the window binds is what the entry says. */
  entries = ui_find_all (overlay, GTK_TYPE_SHORTCUTS_SHORTCUT);
  g_assert_cmpuint (entries->len, >=, 16);
  for (guint i = 0; i < entries->len; i++)
    {
      GtkWidget *entry = g_ptr_array_index (entries, i);
      GtkWidget *keys = ui_find_first (entry, GTK_TYPE_SHORTCUT_LABEL);
      g_autofree char *title = NULL;
      const char *accelerator;

      g_object_get (entry, "title", &title, NULL);
      g_assert_nonnull (keys);
      accelerator = gtk_shortcut_label_get_accelerator (GTK_SHORTCUT_LABEL (keys));
      if (accelerator == NULL || accelerator[0] == '\0')
        g_error ("The shortcuts window shows no keys for \"%s\"", title);
    }
  save_screenshots (GTK_WIDGET (overlay), "shortcuts");
  gtk_window_close (overlay);
  ui_wait_until (no_shortcuts_window, window);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Every icon-only button says what it does. */
void
test_rich_icon_buttons_labelled (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Buttons");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) buttons = NULL;
  NatterWindow *window;
  guint n_icon_only = 0;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Hi");
  ui_wait_turn (u, turn_id);
  row_for_turn (window, turn_id);

  buttons = find_all_any (window, GTK_TYPE_BUTTON);
  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *button = g_ptr_array_index (buttons, i);
      GtkWidget *parent = gtk_widget_get_parent (button);

      /* A hidden button (e.g. a turn's unused action) is never seen. */
      if (!gtk_widget_get_visible (button))
        continue;
      /* GTK labels its own window controls (Close, Minimize…). */
      if (gtk_widget_get_ancestor (button, GTK_TYPE_WINDOW_CONTROLS) != NULL)
        continue;
      /* A menu button's inner toggle is labelled by the menu button. */
      if (GTK_IS_MENU_BUTTON (parent))
        button = parent;
      if (gtk_button_get_label (g_ptr_array_index (buttons, i)) != NULL ||
          (GTK_IS_MENU_BUTTON (button) && gtk_menu_button_get_label (GTK_MENU_BUTTON (button)) != NULL))
        continue;
      if (gtk_button_get_child (g_ptr_array_index (buttons, i)) != NULL &&
          !GTK_IS_IMAGE (gtk_button_get_child (g_ptr_array_index (buttons, i))))
        continue;
      n_icon_only++;
      if (gtk_widget_get_tooltip_text (button) == NULL)
        g_error ("An icon-only %s (icon %s, in a %s in a %s) has no tooltip", G_OBJECT_TYPE_NAME (button),
                 gtk_button_get_icon_name (g_ptr_array_index (buttons, i)),
                 G_OBJECT_TYPE_NAME (gtk_widget_get_parent (button)),
                 G_OBJECT_TYPE_NAME (gtk_widget_get_parent (gtk_widget_get_parent (button))));
    }
  g_assert_cmpuint (n_icon_only, >=, 4);

  ui_destroy_window (window);
  ui_world_free (u);
}
