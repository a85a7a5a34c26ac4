/* natter-scrolled-tab.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tab into a list whose scrolled window is no Tab stop of its own. Such
 * a scrolled window is made not focusable, but it stays can-focus so
 * that its list can be: GTK 4.8's GtkScrolledWindow then answers a Tab
 * its list did not take by trying to focus itself, and says it took the
 * focus though it could not. The window stops looking, and the focus
 * stays where it was, press after press. A list does not take a Tab
 * when it is empty, when the row it enters at (the one it last focused,
 * the first by default) takes no focus, like a section's title, or is
 * scrolled away and has no widget that can.
 *
 * So the widget that holds such a list moves Tab between its children
 * itself, as GTK would, and enters the list its own way instead of
 * asking the scrolled window. Once the focus is in the list, GTK and
 * the list's own keys move it; the scrolled window lets a Tab out of
 * its list go.
 */

#define G_LOG_DOMAIN "natter-scrolled-tab"

#include "config.h"

#include "natter-scrolled-tab.h"

static GtkWidget *
next_child (GtkWidget *child,
            gboolean   forward)
{
  return forward ? gtk_widget_get_next_sibling (child) : gtk_widget_get_prev_sibling (child);
}

/**
 * natter_scrolled_tab_focus:
 * @widget: a widget whose children are laid out in reading order (a
 *   vertical box)
 * @direction: %GTK_DIR_TAB_FORWARD or %GTK_DIR_TAB_BACKWARD; for the
 *   arrows, the caller chains up instead
 * @part: the child of @widget that holds the list
 * @enter: enters the list from outside it
 * @user_data: for @enter
 *
 * A #GtkWidgetClass.focus for @widget: moves the focus on from the child
 * that has it, or into @widget from outside, child by child in @direction,
 * entering @part through @enter rather than through GTK.
 *
 * Returns: whether the focus moved
 */
gboolean
natter_scrolled_tab_focus (GtkWidget              *widget,
                           GtkDirectionType        direction,
                           GtkWidget              *part,
                           NatterScrolledTabEnter  enter,
                           gpointer                user_data)
{
  gboolean forward = direction == GTK_DIR_TAB_FORWARD;
  GtkWidget *focus_child;
  GtkWidget *child;

  g_return_val_if_fail (GTK_IS_WIDGET (widget), FALSE);
  g_return_val_if_fail (gtk_widget_get_parent (part) == widget, FALSE);
  g_return_val_if_fail (direction == GTK_DIR_TAB_FORWARD || direction == GTK_DIR_TAB_BACKWARD, FALSE);

  focus_child = gtk_widget_get_focus_child (widget);
  if (focus_child != NULL && gtk_widget_child_focus (focus_child, direction))
    return TRUE;
  if (focus_child != NULL)
    child = next_child (focus_child, forward);
  else
    child = forward ? gtk_widget_get_first_child (widget) : gtk_widget_get_last_child (widget);
  for (; child != NULL; child = next_child (child, forward))
    {
      /* The children GTK would ask: a hidden one is passed over. */
      if (!gtk_widget_get_mapped (child) || !gtk_widget_get_sensitive (child))
        continue;
      if (child == part ? enter (part, direction, user_data) : gtk_widget_child_focus (child, direction))
        return TRUE;
    }
  return FALSE;
}
