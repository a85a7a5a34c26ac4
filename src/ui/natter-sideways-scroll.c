/* natter-sideways-scroll.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A scrolled window that only scrolls sideways (a code block's or a
 * table's wide lines) inside the conversation, which scrolls up and
 * down. GTK 4.8's GtkScrolledWindow keeps every wheel event it gets once
 * it can scroll either way, so a wheel turned over a wide code block
 * scrolled nothing at all. Its wheel handling is told here to take the
 * sideways part of a turn only, and the rest goes on to the
 * conversation; with Shift held (GtkScrolledWindow's way of turning a
 * wheel into sideways scrolling) it takes the whole turn, as before.
 */

#define G_LOG_DOMAIN "natter-sideways-scroll"

#include "config.h"

#include "natter-sideways-scroll.h"

#define SIDEWAYS_KEY "natter-sideways-scroll"

static GtkEventControllerScroll *
find_scroll_controller (GtkWidget *widget)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  guint n = g_list_model_get_n_items (controllers);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_SCROLL (controller) &&
          gtk_event_controller_get_propagation_phase (GTK_EVENT_CONTROLLER (controller)) != GTK_PHASE_CAPTURE)
        return GTK_EVENT_CONTROLLER_SCROLL (controller);
    }
  return NULL;
}

/* Runs before the scrolled window's own handling of the same event (a
 * capture on its way down to the widget under the pointer): sets what
 * that handling takes from it. */
static gboolean
scroll_cb (GtkEventControllerScroll *capture,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *own)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (capture));
  GtkEventControllerScrollFlags flags = gtk_event_controller_scroll_get_flags (own);

  if ((state & GDK_SHIFT_MASK) != 0)
    flags |= GTK_EVENT_CONTROLLER_SCROLL_VERTICAL;
  else
    flags &= ~GTK_EVENT_CONTROLLER_SCROLL_VERTICAL;
  gtk_event_controller_scroll_set_flags (own, flags);
  return GDK_EVENT_PROPAGATE;
}

/**
 * natter_sideways_scroll_attach:
 * @scroller: a scrolled window that scrolls sideways only (its vertical
 *   policy is %GTK_POLICY_NEVER) inside one that scrolls up and down
 *
 * Lets the mouse wheel, turned over @scroller, scroll the scrolled
 * window around it; Shift and the wheel, or a sideways swipe, still
 * scroll @scroller. Attaching twice does nothing more.
 */
void
natter_sideways_scroll_attach (GtkScrolledWindow *scroller)
{
  GtkEventControllerScroll *own;
  GtkEventController *capture;

  g_return_if_fail (GTK_IS_SCROLLED_WINDOW (scroller));

  if (g_object_get_data (G_OBJECT (scroller), SIDEWAYS_KEY) != NULL)
    return;
  own = find_scroll_controller (GTK_WIDGET (scroller));
  g_return_if_fail (own != NULL);
  gtk_event_controller_scroll_set_flags (own, gtk_event_controller_scroll_get_flags (own) &
                                              ~GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  capture = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  gtk_event_controller_set_propagation_phase (capture, GTK_PHASE_CAPTURE);
  gtk_event_controller_set_name (capture, SIDEWAYS_KEY);
  g_signal_connect_object (capture, "scroll", G_CALLBACK (scroll_cb), own, G_CONNECT_DEFAULT);
  gtk_widget_add_controller (GTK_WIDGET (scroller), capture);
  g_object_set_data (G_OBJECT (scroller), SIDEWAYS_KEY, capture);
}
