/* natter-window-search.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's side of the search by content: the sidebar is given the
 * full-text index, and a conversation opened from a search result
 * scrolls to the turn where the words were said.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include "natter-turn-item.h"
#include "natter-window-private.h"

/**
 * natter_window_set_search_index:
 * @self: the window
 * @search: (nullable): the full-text index, or %NULL to search titles only
 *
 * Lets the sidebar search (Ctrl+F) find conversations by the words of
 * their messages and answers as well as by title: each such row shows
 * the matching words, and opening it scrolls to the turn they are in.
 */
void
natter_window_set_search_index (NatterWindow      *self,
                                NatterSearchIndex *search)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  natter_sidebar_set_search_index (self->session_sidebar, search);
}

static guint
turn_position (NatterTimelineModel *timeline,
               const char          *turn_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (timeline));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (timeline), i);

      if (NATTER_IS_TURN_ITEM (item) && g_strcmp0 (natter_turn_item_get_turn_id (NATTER_TURN_ITEM (item)), turn_id) == 0)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

/* Frames during which the timeline keeps to a revealed turn rather than
 * to its bottom: its rows are read and laid out meanwhile, and the list,
 * anchored at the turn, keeps it in view while they grow. */
#define REVEAL_HOLD_FRAMES 30

/* The list view can only scroll to an item it has laid out rows around:
 * the request is made again on the frames after the model is set, until
 * the list holds it (once in view, asking again moves nothing). */
#define REVEAL_ASK_FRAMES 10

static gboolean
reveal_tick_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  NatterWindow *self = user_data;

  if (self->reveal_ticks < REVEAL_ASK_FRAMES)
    gtk_widget_activate_action (widget, "list.scroll-to-item", "u", self->reveal_position);
  if (++self->reveal_ticks < REVEAL_HOLD_FRAMES)
    return G_SOURCE_CONTINUE;
  self->reveal_tick_id = 0;
  return G_SOURCE_REMOVE;
}

static void
stop_reveal_hold (NatterWindow *self)
{
  if (self->reveal_tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->timeline_list), self->reveal_tick_id);
  self->reveal_tick_id = 0;
}

/* Scrolls to the turn asked for once the open timeline lists it. */
void
_natter_window_try_reveal (NatterWindow *self)
{
  guint position;

  if (self->reveal_turn_id == NULL || self->timeline == NULL || !natter_timeline_model_get_loaded (self->timeline))
    return;
  position = turn_position (self->timeline, self->reveal_turn_id);
  g_clear_pointer (&self->reveal_turn_id, g_free);
  if (position == GTK_INVALID_LIST_POSITION)
    return;
  /* GTK 4.8 has no gtk_list_view_scroll_to(); its list action anchors the
   * item in view (reveal_tick_cb()). */
  self->stick_to_bottom = FALSE;
  self->follow_pending = FALSE;
  stop_reveal_hold (self);
  self->reveal_ticks = 0;
  self->reveal_position = position;
  self->reveal_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->timeline_list), reveal_tick_cb, self, NULL);
}

/* The open conversation is to show @turn_id rather than its latest turn. */
void
_natter_window_reveal_turn (NatterWindow *self,
                            const char   *turn_id)
{
  g_free (self->reveal_turn_id);
  self->reveal_turn_id = g_strdup (turn_id);
  self->stick_to_bottom = FALSE;
  self->follow_pending = FALSE;
  _natter_window_try_reveal (self);
}

void
_natter_window_search_dispose (NatterWindow *self)
{
  if (self->timeline_list != NULL)
    stop_reveal_hold (self);
  g_clear_pointer (&self->reveal_turn_id, g_free);
}
