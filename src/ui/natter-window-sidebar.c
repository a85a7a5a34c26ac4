/* natter-window-sidebar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's side of its #NatterSidebar: a row the user picks opens
 * that conversation, and where the window goes next depends on how it
 * was picked.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include "natter-window-private.h"

/* A conversation picked in the list opens on its latest turns once they
 * are read. One found by a search hit opens on the hit instead, and a
 * narrow window slides to the conversation at once: both open now. */
static void
open_picked (NatterWindow *self,
             const char   *session_id)
{
  if (natter_sidebar_get_hit_turn (self->session_sidebar, session_id) == NULL &&
      !adw_leaflet_get_folded (self->leaflet))
    natter_window_open_session_when_read (self, session_id);
  else
    natter_window_open_session (self, session_id);
}

/* Makes the conversation the leaflet's visible pane. The leaflet moves
 * the keyboard focus into the pane it shows when the other one had it,
 * which is right on a narrow window, where the list slides away; on a
 * wide one both show, and the focus stays where it is: a row the arrows
 * walked to keeps it, and the next arrow goes on from there. */
static void
show_conversation_pane (NatterWindow *self)
{
  g_autoptr(GtkWidget) focus = NULL;

  if (gtk_root_get_focus (GTK_ROOT (self)) != NULL)
    focus = g_object_ref (gtk_root_get_focus (GTK_ROOT (self)));
  adw_leaflet_set_visible_child (self->leaflet, self->content);
  if (focus != NULL && !adw_leaflet_get_folded (self->leaflet) &&
      gtk_root_get_focus (GTK_ROOT (self)) != focus && gtk_widget_get_root (focus) == GTK_ROOT (self))
    gtk_widget_grab_focus (focus);
}

static void
session_selected_cb (NatterWindow *self,
                     const char   *session_id,
                     gboolean      by_key)
{
  if (g_strcmp0 (session_id, self->conversation.session_id) == 0)
    return;
  open_picked (self, session_id);
  /* Found by what was said: show where it was said. */
  if (natter_sidebar_get_hit_turn (self->session_sidebar, session_id) != NULL)
    _natter_window_reveal_turn (self, natter_sidebar_get_hit_turn (self->session_sidebar, session_id));
  /* On a narrow window, arrow keys walk the list and Enter goes to the
   * conversation (session_activated_cb); a click goes at once. */
  if (!(by_key && adw_leaflet_get_folded (self->leaflet)))
    show_conversation_pane (self);
}

/* Enter on a row: a row focused from the keyboard need not be selected
 * (Down from the search), so it is opened here as a selection would. */
static void
session_activated_cb (NatterWindow *self,
                      const char   *session_id)
{
  if (g_strcmp0 (session_id, self->conversation.session_id) != 0)
    open_picked (self, session_id);
  /* Found by what was said: show where it was said, in the conversation
   * open already too. */
  if (natter_sidebar_get_hit_turn (self->session_sidebar, session_id) != NULL)
    _natter_window_reveal_turn (self, natter_sidebar_get_hit_turn (self->session_sidebar, session_id));
  adw_leaflet_set_visible_child (self->leaflet, self->content);
  gtk_widget_grab_focus (GTK_WIDGET (self->conversation.composer));
}

void
_natter_window_class_sidebar_init (GtkWidgetClass *widget_class)
{
  g_type_ensure (NATTER_TYPE_SIDEBAR);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, session_sidebar);
  gtk_widget_class_bind_template_callback (widget_class, session_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, session_activated_cb);
}

/* Gives the sidebar the services its list is built over, and the
 * conversation's menu as its rows' context menu. That menu acts on the
 * open conversation: the row's, which its selection asked to open, has
 * to be open once the menu shows, not a moment later when its turns are
 * read, or the menu would offer what fits the one before (Pin or
 * Unpin) and act on it. */
void
_natter_window_sidebar_init (NatterWindow *self)
{
  natter_sidebar_set_services (self->session_sidebar, self->sessions, self->hub, self->sidebar.ticker);
  natter_sidebar_focus_from_search (self->session_sidebar);
  natter_sidebar_set_row_menu (self->session_sidebar,
                               gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (self->conversation_menu_button)));
  g_signal_connect_object (natter_sidebar_get_row_menu (self->session_sidebar), "show",
                           G_CALLBACK (_natter_window_finish_opening), self, G_CONNECT_SWAPPED);
}

/* F2 acts on "the conversation": pressed in the list, that is the one
 * whose row has the keyboard focus, which Tab moves to without opening
 * it (only the arrows and a click select). It is opened now, at once, so
 * that the dialog finds it open; one still waiting for its turns to be
 * read is shown first too. F2 is the application's accelerator, which
 * the list never sees, so this is asked here. */
void
_natter_window_open_focused_row (NatterWindow *self)
{
  const char *session_id = natter_sidebar_get_focused_session (self->session_sidebar);

  if (session_id == NULL)
    return;
  if (g_strcmp0 (session_id, self->conversation.session_id) != 0)
    natter_window_open_session (self, session_id);
  else
    _natter_window_finish_opening (self);
}
