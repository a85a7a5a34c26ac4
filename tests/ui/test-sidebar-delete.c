/* test-sidebar-delete.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Deleting from the sidebar: Delete only ever leads to an undo toast (no
 * key press in the list destroys anything without a chance to undo), and
 * closing the window while the toast is up loses nothing.
 */

#include "test-sidebar.h"

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

void
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

void
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
