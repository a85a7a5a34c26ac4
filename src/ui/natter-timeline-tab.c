/* natter-timeline-tab.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tab through a conversation's timeline: every control of a turn is a
 * Tab stop, in tree order (message actions, a code block's Copy,
 * expanders, prompt buttons, selectable text), then the neighbouring
 * turn's. GTK 4.8's list view moves Tab from item to item, so inside a
 * turn only one control could ever be reached (4.12 fixed this), and
 * GtkExpander with a mnemonic title keeps Tab on itself; so the timeline
 * walks Tab itself, and after its last turn the window's own Tab leaves
 * the list.
 */

#define G_LOG_DOMAIN "natter-timeline-tab"

#include "config.h"

#include "natter-timeline-tab.h"

static void
collect_tab_stops (GtkWidget *widget,
                   GPtrArray *stops)
{
  if (!gtk_widget_get_mapped (widget) || !gtk_widget_get_child_visible (widget) ||
      !gtk_widget_is_sensitive (widget) || !gtk_widget_get_can_focus (widget))
    return;
  if (gtk_widget_get_focusable (widget))
    g_ptr_array_add (stops, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_tab_stops (child, stops);
}

static GtkWidget *
adjacent_item (GtkWidget        *item,
               GtkDirectionType  direction)
{
  return direction == GTK_DIR_TAB_FORWARD ? gtk_widget_get_next_sibling (item)
                                          : gtk_widget_get_prev_sibling (item);
}

/* Focuses the first turn from @item on (in @direction) that has
 * controls, entering it from its near end: its first control going
 * down, its last going up. FALSE when none has. */
static gboolean
enter_turn_from (GtkWidget        *item,
                 GtkDirectionType  direction)
{
  for (; item != NULL; item = adjacent_item (item, direction))
    {
      g_autoptr(GPtrArray) stops = g_ptr_array_new ();

      collect_tab_stops (item, stops);
      if (stops->len > 0 && stops->pdata[0] == item)
        g_ptr_array_remove_index (stops, 0);
      if (stops->len > 0 &&
          gtk_widget_grab_focus (stops->pdata[direction == GTK_DIR_TAB_FORWARD ? 0 : stops->len - 1]))
        return TRUE;
    }
  return FALSE;
}

static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                gpointer               user_data)
{
  GtkWidget *list = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (list));
  GtkDirectionType direction;
  GtkWidget *item;
  guint index;

  if ((state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return GDK_EVENT_PROPAGATE;
  if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab)
    direction = (state & GDK_SHIFT_MASK) ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD;
  else if (keyval == GDK_KEY_ISO_Left_Tab)
    direction = GTK_DIR_TAB_BACKWARD;
  else
    return GDK_EVENT_PROPAGATE;

  item = gtk_widget_get_focus_child (list);
  if (item == NULL || focus == NULL)
    return GDK_EVENT_PROPAGATE;

  /* Within the focused turn first; from the item itself, into it. */
  {
    g_autoptr(GPtrArray) stops = g_ptr_array_new ();

    collect_tab_stops (item, stops);
    if (stops->len > 0 && stops->pdata[0] == item)
      g_ptr_array_remove_index (stops, 0);
    if (g_ptr_array_find (stops, focus, &index))
      {
        if (direction == GTK_DIR_TAB_FORWARD && index + 1 < stops->len)
          return gtk_widget_grab_focus (stops->pdata[index + 1]) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
        if (direction == GTK_DIR_TAB_BACKWARD && index > 0)
          return gtk_widget_grab_focus (stops->pdata[index - 1]) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
      }
    else if (focus == item && direction == GTK_DIR_TAB_FORWARD && stops->len > 0)
      return gtk_widget_grab_focus (stops->pdata[0]) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
  }

  /* On to the neighbouring turn's controls; past the last (or first)
   * turn, the window's Tab leaves the list. */
  return enter_turn_from (adjacent_item (item, direction), direction) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
}

/**
 * natter_timeline_tab_attach:
 * @list: a timeline's list
 *
 * Makes Tab and Shift+Tab pressed in @list go through the controls of
 * its turns, then on to the neighbouring turn's. Call it once.
 */
void
natter_timeline_tab_attach (GtkListView *list)
{
  GtkEventController *keys;

  g_return_if_fail (GTK_IS_LIST_VIEW (list));

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed_cb), NULL);
  gtk_widget_add_controller (GTK_WIDGET (list), keys);
}

/**
 * natter_timeline_tab_enter:
 * @list: a timeline's list
 * @direction: %GTK_DIR_TAB_FORWARD or %GTK_DIR_TAB_BACKWARD
 *
 * Gives the keyboard focus to the timeline from outside it, at the turn
 * on screen nearest to where the focus comes from: going down, the first
 * control of the topmost turn shown that has one; going up, the last
 * control of the lowest.
 *
 * Returns: whether a control took the focus; %FALSE when no turn shown
 *   has one (an empty timeline)
 */
gboolean
natter_timeline_tab_enter (GtkListView      *list,
                           GtkDirectionType  direction)
{
  GtkWidget *widget = GTK_WIDGET (list);

  g_return_val_if_fail (GTK_IS_LIST_VIEW (list), FALSE);
  g_return_val_if_fail (direction == GTK_DIR_TAB_FORWARD || direction == GTK_DIR_TAB_BACKWARD, FALSE);

  return enter_turn_from (direction == GTK_DIR_TAB_FORWARD ? gtk_widget_get_first_child (widget)
                                                           : gtk_widget_get_last_child (widget),
                          direction);
}
