/* test-rich-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the scenarios of test-rich share: the application, screenshots,
 * and finding the parts of a window.
 */

#include "test-rich.h"

NatterApplication *app;

/* Screenshots */

/* Saves what @native (a window or a popover) draws, once per style. */
void
save_screenshots (GtkWidget  *native,
                  const char *name)
{
  const AdwColorScheme schemes[] = { ADW_COLOR_SCHEME_FORCE_LIGHT, ADW_COLOR_SCHEME_FORCE_DARK };
  const char *suffixes[] = { "light", "dark" };
  AdwStyleManager *style = adw_style_manager_get_default ();

  for (guint i = 0; i < G_N_ELEMENTS (schemes); i++)
    {
      g_autofree char *file_name = g_strdup_printf ("%s-%s.png", name, suffixes[i]);

      adw_style_manager_set_color_scheme (style, schemes[i]);
      /* A window's own snapshot keeps render nodes from before the style
       * change (its sidebar stays light in dark style): take the screen
       * as X shows it where ImageMagick's import can. */
      if (!GTK_IS_WINDOW (native) || !ui_save_screen (file_name))
        ui_save_window (native, file_name);
    }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  ui_settle ();
}

/* Helpers */

GPtrArray *
find_all_any (gpointer root,
              GType    type)
{
  GPtrArray *found = g_ptr_array_new ();
  GPtrArray *stack = g_ptr_array_new ();

  g_ptr_array_add (stack, root);
  while (stack->len > 0)
    {
      GtkWidget *widget = g_ptr_array_steal_index (stack, stack->len - 1);

      if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
        g_ptr_array_add (found, widget);
      for (GtkWidget *child = gtk_widget_get_last_child (widget); child != NULL;
           child = gtk_widget_get_prev_sibling (child))
        g_ptr_array_add (stack, child);
    }
  g_ptr_array_unref (stack);
  return found;
}

static gboolean
rows_shown (gpointer data)
{
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (natter_window_get_timeline_list (data), NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));

      if (item == NULL || natter_turn_item_get_state (item) == NULL)
        return FALSE;
    }
  return rows->len > 0;
}

typedef struct
{
  NatterWindow  *window;
  const char    *turn_id;
  NatterTurnRow *row;
} RowWait;

static gboolean
row_shown (gpointer data)
{
  RowWait *w = data;
  g_autoptr(GPtrArray) rows = NULL;

  if (!rows_shown (w->window))
    return FALSE;
  rows = ui_find_all (natter_window_get_timeline_list (w->window), NATTER_TYPE_TURN_ROW);
  w->row = NULL;
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));

      if (g_strcmp0 (natter_turn_item_get_turn_id (item), w->turn_id) == 0)
        w->row = g_ptr_array_index (rows, i);
    }
  return w->row != NULL;
}

static char *
describe_row_wait (gpointer data)
{
  RowWait *w = data;

  return g_strdup_printf ("no row for turn %s", w->turn_id);
}

/* The row of @turn_id, once it is shown with every row around it read:
 * the window may still be reading the conversation it shows. */
NatterTurnRow *
row_for_turn (NatterWindow *window,
              const char   *turn_id)
{
  RowWait w = { window, turn_id, NULL };

  ui_wait_until_full (row_shown, describe_row_wait, &w);
  return w.row;
}

GtkWidget *
find_button_with_tooltip (gpointer    root,
                          const char *tooltip)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (root, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), tooltip) == 0)
      return g_ptr_array_index (buttons, i);
  return NULL;
}

GtkWidget *
find_button_with_action (gpointer    root,
                         const char *action_name)
{
  g_autoptr(GPtrArray) buttons = find_all_any (root, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_actionable_get_action_name (g_ptr_array_index (buttons, i)), action_name) == 0)
      return g_ptr_array_index (buttons, i);
  return NULL;
}

GtkLabel *
find_label_with_class (gpointer    root,
                       const char *css_class)
{
  g_autoptr(GPtrArray) labels = ui_find_all (root, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (gtk_widget_has_css_class (g_ptr_array_index (labels, i), css_class))
      return g_ptr_array_index (labels, i);
  return NULL;
}
