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

/* Alt+Down or Ctrl+Page Down, Alt+Up or Ctrl+Page Up, as in GNOME's
 * chat apps: the conversation listed after (before) the open one opens,
 * the keyboard staying where it is (in the message field, it goes on
 * to the next conversation's). Folders' headers are passed over, and so
 * are the conversations of a closed folder; with none open, the first
 * (last) one listed opens. */
static void
step_conversation_activated (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  gboolean forward = g_str_equal (action_name, "win.next-conversation");
  GListModel *model = natter_sidebar_get_model (self->session_sidebar);
  const char *open = self->opening.id != NULL ? self->opening.id : self->conversation.session_id;
  gint64 n = model != NULL ? g_list_model_get_n_items (model) : 0;
  guint position = open != NULL ? natter_sidebar_find_position (self->session_sidebar, open)
                                : GTK_INVALID_LIST_POSITION;
  gint64 i;

  if (position == GTK_INVALID_LIST_POSITION)
    i = forward ? 0 : n - 1;
  else
    i = forward ? (gint64) position + 1 : (gint64) position - 1;
  for (; i >= 0 && i < n; i += forward ? 1 : -1)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, (guint) i);
      g_autofree char *session_id = NULL;

      if (!NATTER_IS_SESSION_INDEX_ENTRY (item))
        continue;
      session_id = g_strdup (natter_session_index_entry_get_session_id (NATTER_SESSION_INDEX_ENTRY (item)));
      natter_window_open_session (self, session_id);
      natter_sidebar_scroll_to (self->session_sidebar, session_id);
      return;
    }
}

void
_natter_window_class_sidebar_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.next-conversation", NULL, step_conversation_activated);
  gtk_widget_class_install_action (widget_class, "win.previous-conversation", NULL, step_conversation_activated);
  g_type_ensure (NATTER_TYPE_SIDEBAR);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, session_sidebar);
  gtk_widget_class_bind_template_callback (widget_class, session_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, session_activated_cb);
}

static GMenuModel *
row_menu_cb (const char *session_id,
             gpointer    user_data)
{
  return _natter_window_conversation_menu_new (NATTER_WINDOW (user_data), session_id);
}

/* Gives the sidebar the services its list is built over, and its rows'
 * context menu, whose items name the row's conversation. */
void
_natter_window_sidebar_init (NatterWindow *self)
{
  natter_sidebar_set_services (self->session_sidebar, self->sessions, self->hub, self->sidebar.ticker);
  natter_sidebar_focus_from_search (self->session_sidebar);
  /* The sidebar goes with the window, its child: no reference. */
  natter_sidebar_set_row_menu (self->session_sidebar, row_menu_cb, self, NULL);
}

/**
 * _natter_window_dup_target:
 * @self: the window
 * @parameter: (nullable): an action's "s" target: a session id, or ""
 *
 * The conversation an action on one (win.delete, win.rename, win.pin,
 * win.unpin, win.toggle-pin, win.move-to-folder, win.move-to-new-folder)
 * acts on: the one its target names (a row's menu), or for "" the one
 * the keyboard means. F2, Ctrl+D and Delete pressed in the list mean the
 * row with the focus, which Tab moves to without opening it; they are
 * the application's keys, which the list never sees, so this is asked
 * here. Anywhere else (the conversation's own menu) "" is the open
 * conversation, one still waiting for its turns to be read included,
 * which is then shown at once.
 *
 * Returns: (transfer full) (nullable): a session id, or %NULL for none
 */
char *
_natter_window_dup_target (NatterWindow *self,
                           GVariant     *parameter)
{
  const char *target = parameter != NULL ? g_variant_get_string (parameter, NULL) : "";
  const char *focused;

  if (target[0] != '\0')
    return g_strdup (target);
  focused = self->session_sidebar != NULL ? natter_sidebar_get_focused_session (self->session_sidebar) : NULL;
  if (focused != NULL)
    return g_strdup (focused);
  _natter_window_finish_opening (self);
  return g_strdup (self->conversation.session_id);
}

