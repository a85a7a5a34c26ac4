/* test-versions-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the scenarios of test-versions share: the application, a
 * message's row and its "‹ n/N ›" switcher, a new version opened, the
 * composer given text.
 */

#include "test-versions.h"

NatterApplication *app;

/* The child of @widget at @index (0 is the first). */
GtkWidget *
child_at (GtkWidget *widget,
          guint      index)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  for (guint i = 0; i < index; i++)
    child = gtk_widget_get_next_sibling (child);
  return child;
}

typedef struct
{
  NatterWindow *window;
  const char   *turn_id;
  const char   *label;     /* the switcher's, NULL: none shown */
} RowSwitcher;

/* The row of the message @turn_id in @window's timeline, once it has
 * read the turn, or NULL. */
NatterTurnRow *
find_row (NatterWindow *window,
          const char   *turn_id)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_TURN_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));

      if (item != NULL && g_strcmp0 (natter_turn_item_get_turn_id (item), turn_id) == 0 &&
          natter_turn_item_get_state (item) != NULL)
        return g_ptr_array_index (rows, i);
    }
  return NULL;
}

/* Shown or not: a hidden switcher is still in the row. */
GtkWidget *
find_any (GtkWidget *widget,
          GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_any (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The version switcher of @row (it must have one). */
NatterVersionSwitcher *
switcher_of (NatterTurnRow *row)
{
  GtkWidget *switcher = find_any (GTK_WIDGET (row), NATTER_TYPE_VERSION_SWITCHER);

  g_assert_nonnull (switcher);
  return NATTER_VERSION_SWITCHER (switcher);
}

static gboolean
row_switcher_is (gpointer data)
{
  RowSwitcher *r = data;
  NatterTurnRow *row;
  NatterVersionSwitcher *switcher;

  ui_settle ();
  row = find_row (r->window, r->turn_id);
  if (row == NULL)
    return FALSE;
  switcher = switcher_of (row);
  if (r->label == NULL)
    return !gtk_widget_get_visible (GTK_WIDGET (switcher));
  return gtk_widget_get_mapped (GTK_WIDGET (switcher)) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (child_at (GTK_WIDGET (switcher), 1))), r->label) == 0;
}

/* Waits until the row of @turn_id in @window shows a switcher saying
 * @label ("2/2"), or, with @label NULL, shows none. */
void
wait_switcher (NatterWindow *window,
               const char   *turn_id,
               const char   *label)
{
  RowSwitcher r = { window, turn_id, label };

  ui_wait_until (row_switcher_is, &r);
}

/* The window shows another session than @not, with its one turn settled
 * and listed. */
gboolean
new_version_open (gpointer data)
{
  NewVersion *v = data;
  const char *open = natter_window_get_session_id (v->window);
  NatterSessionIndexEntry *entry = open != NULL ? natter_session_index_lookup (v->u->index, open) : NULL;
  NatterTimelineModel *timeline = natter_window_get_timeline (v->window);

  /* Shown, too: the window lists the answered turn (its turns are read
   * after it opens, which on a busy machine takes a while). */
  return open != NULL && g_strcmp0 (open, v->not) != 0 && entry != NULL &&
         natter_session_index_entry_get_turn_count (entry) == 1 &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0 &&
         ui_no_advances (v->u) && timeline != NULL && natter_timeline_model_get_loaded (timeline) &&
         natter_timeline_model_lookup (timeline, natter_session_index_entry_get_latest_turn_id (entry)) != NULL;
}

/* Whether the composer of the window @data holds any text. */
gboolean
composer_has_text (gpointer data)
{
  g_autofree char *text = natter_composer_dup_text (natter_window_get_composer (data));

  return text != NULL && text[0] != '\0';
}
