/* natter-sidebar-focus.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Moving the keyboard focus to a row of the sidebar's list. It reads the
 * list's parts (natter-sidebar-private.h) and calls nothing of
 * natter-sidebar.c, which asks it to move the focus as rows move, keys
 * are pressed and menus close. The list view makes a row's widget only
 * when it lays out, a frame after the model changed, so the focus waits
 * on the list itself and goes to the row on one of the next frames.
 */

#define G_LOG_DOMAIN "natter-sidebar"

#include "config.h"

#include "natter-scrolled-tab.h"
#include "natter-sidebar-header-row.h"
#include "natter-sidebar.h"
#include "natter-sidebar-private.h"

/* What a focus request remembers until the row exists (object data of
 * the sidebar, so that it goes with it): a conversation's row, or a
 * folder's header. */
typedef struct
{
  char  *session_id;
  char  *folder_id;
  guint  tries;
} FocusRow;

#define FOCUS_ROW_KEY "natter-sidebar-focus-row"

/* natter_sidebar_find_position(), from the list's parts. */
static guint
listed_position (NatterSidebar *self,
                 const char    *session_id)
{
  if (self->sort_model == NULL)
    return GTK_INVALID_LIST_POSITION;
  return natter_sidebar_sections_find_position (self->sections, session_id);
}

static void
focus_row_free (FocusRow *focus)
{
  g_free (focus->session_id);
  g_free (focus->folder_id);
  g_free (focus);
}

/* The conversation's row of a list item's child (natter-sidebar.c,
 * row_setup_cb(): the row first, then the header row), or NULL when the
 * item is a header. */
static NatterSessionRow *
item_session_row (GtkWidget *item)
{
  GtkWidget *child = gtk_widget_get_first_child (item);
  GtkWidget *row = child != NULL ? gtk_widget_get_first_child (child) : NULL;

  if (row == NULL || !NATTER_IS_SESSION_ROW (row) || !gtk_widget_get_visible (row) ||
      natter_session_row_get_entry (NATTER_SESSION_ROW (row)) == NULL)
    return NULL;
  return NATTER_SESSION_ROW (row);
}

static NatterSidebarHeaderRow *
item_header_row (GtkWidget *item)
{
  GtkWidget *child = gtk_widget_get_first_child (item);
  GtkWidget *row = child != NULL ? gtk_widget_get_last_child (child) : NULL;

  if (row == NULL || !NATTER_IS_SIDEBAR_HEADER_ROW (row) || !gtk_widget_get_visible (row) ||
      natter_sidebar_header_row_get_header (NATTER_SIDEBAR_HEADER_ROW (row)) == NULL)
    return NULL;
  return NATTER_SIDEBAR_HEADER_ROW (row);
}

static const char *
header_folder_id (NatterSidebarHeader *header)
{
  NatterFolder *folder = header != NULL ? natter_sidebar_header_get_folder (header) : NULL;

  return folder != NULL ? natter_folder_get_id (folder) : NULL;
}

/* Whether the list item @item shows what @focus asks for. */
static gboolean
item_is_target (GtkWidget *item,
                FocusRow  *focus)
{
  NatterSessionRow *row = item_session_row (item);
  NatterSidebarHeaderRow *header = item_header_row (item);

  if (row != NULL && focus->session_id != NULL)
    return g_strcmp0 (natter_session_index_entry_get_session_id (natter_session_row_get_entry (row)),
                      focus->session_id) == 0;
  if (header != NULL && focus->folder_id != NULL)
    return g_strcmp0 (header_folder_id (natter_sidebar_header_row_get_header (header)), focus->folder_id) == 0;
  return FALSE;
}

static gboolean
grab_row (NatterSidebar *self)
{
  FocusRow *focus = g_object_get_data (G_OBJECT (self), FOCUS_ROW_KEY);

  if (focus == NULL)
    return FALSE;
  for (GtkWidget *item = gtk_widget_get_first_child (GTK_WIDGET (self->session_list));
       item != NULL;
       item = gtk_widget_get_next_sibling (item))
    {
      if (!gtk_widget_get_child_visible (item) || !item_is_target (item, focus))
        continue;
      /* A folder's header takes the focus on its toggle, as Tab gives
       * it: the item itself is no stop. */
      if (focus->folder_id != NULL)
        return gtk_widget_grab_focus (natter_sidebar_header_row_get_expander (item_header_row (item)));
      return gtk_widget_grab_focus (item);
    }
  return FALSE;
}

static gboolean
focus_row_tick_cb (GtkWidget     *list,
                   GdkFrameClock *clock,
                   gpointer       user_data)
{
  NatterSidebar *self = user_data;
  FocusRow *focus = g_object_get_data (G_OBJECT (self), FOCUS_ROW_KEY);
  GtkRoot *root = gtk_widget_get_root (list);

  /* The user went elsewhere meanwhile: leave them there. A row of the
   * list is no elsewhere: the list gives the focus to a row of its own
   * choosing as it lays out rows that came back. */
  if (focus == NULL || root == NULL || gtk_root_get_focus (root) == NULL ||
      (gtk_root_get_focus (root) != list && !gtk_widget_is_ancestor (gtk_root_get_focus (root), list)))
    return G_SOURCE_REMOVE;
  if (grab_row (self))
    return G_SOURCE_REMOVE;
  return ++focus->tries < 10 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/* Gives the focus to what @focus asks for, at @position, scrolling to
 * it; the list holds the focus until its widget exists. Takes @focus. */
static void
focus_target (NatterSidebar *self,
              guint          position,
              FocusRow      *focus)
{
  GtkWidget *list = GTK_WIDGET (self->session_list);

  g_object_set_data_full (G_OBJECT (self), FOCUS_ROW_KEY, focus, (GDestroyNotify) focus_row_free);
  gtk_widget_activate_action (list, "list.scroll-to-item", "u", position);
  if (grab_row (self))
    return;
  gtk_widget_grab_focus (list);
  gtk_widget_add_tick_callback (list, focus_row_tick_cb, self, NULL);
}

/* The position of the conversation's row at @position, or of the first
 * one after it, or else the last one before it: a folder's header (the
 * row below a pinned conversation deleted, a folder emptied) takes no
 * focus and is no conversation to select. G_MAXUINT when none is
 * listed. */
static guint
conversation_near (GListModel *model,
                   guint       position)
{
  guint n = g_list_model_get_n_items (model);

  for (guint i = position; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      if (NATTER_IS_SESSION_INDEX_ENTRY (item))
        return i;
    }
  for (guint i = MIN (position, n); i > 0; i--)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i - 1);

      if (NATTER_IS_SESSION_INDEX_ENTRY (item))
        return i - 1;
    }
  return G_MAXUINT;
}

/**
 * natter_sidebar_focus_position:
 * @self: the sidebar
 * @position: a row's position; past the end means the last row
 * @select: whether the row is also selected (which opens it)
 *
 * Gives the keyboard focus to the row at @position, scrolling to it; the
 * list itself holds the focus until the row's widget exists. A header
 * there gives it to the next conversation's row (the one before, at the
 * end).
 *
 * Returns: %FALSE, doing nothing, when the list has no conversation
 */
gboolean
natter_sidebar_focus_position (NatterSidebar *self,
                               guint          position,
                               gboolean       select)
{
  g_autoptr(NatterSessionIndexEntry) entry = NULL;
  GListModel *model;
  GtkWidget *list;
  FocusRow *focus;
  guint n;

  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), FALSE);

  model = self->sort_model;
  list = GTK_WIDGET (self->session_list);
  n = model != NULL ? g_list_model_get_n_items (model) : 0;
  if (n == 0)
    return FALSE;
  position = conversation_near (model, MIN (position, n - 1));
  if (position == G_MAXUINT)
    return FALSE;
  if (select)
    gtk_single_selection_set_selected (GTK_SINGLE_SELECTION (gtk_list_view_get_model (GTK_LIST_VIEW (list))),
                                       position);
  entry = g_list_model_get_item (model, position);
  focus = g_new0 (FocusRow, 1);
  focus->session_id = g_strdup (natter_session_index_entry_get_session_id (entry));
  focus_target (self, position, focus);
  return TRUE;
}

/* Down in the search entry, before the entry's own binding moves the
 * focus to whatever is below it: the menu of where to look comes first
 * there. */
static gboolean
search_key_pressed_cb (NatterSidebar   *self,
                       guint            keyval,
                       guint            keycode,
                       GdkModifierType  state)
{
  GListModel *model = self->sort_model;
  guint n = model != NULL ? g_list_model_get_n_items (model) : 0;

  if ((keyval != GDK_KEY_Down && keyval != GDK_KEY_KP_Down) ||
      (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return GDK_EVENT_PROPAGATE;
  /* The first conversation, past the headers of empty folders; with
   * none listed, Down goes on as it would. */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      if (NATTER_IS_SESSION_INDEX_ENTRY (item))
        return natter_sidebar_focus_position (self, i, FALSE) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
    }
  return GDK_EVENT_PROPAGATE;
}

/**
 * natter_sidebar_focus_from_search:
 * @self: the sidebar
 *
 * Makes Down in the search entry give the focus to the first
 * conversation listed (what was found), without selecting it, so that
 * the search's results are one key away; the menu of where to look,
 * between the two, is still reached with Tab. Call it once.
 */
void
natter_sidebar_focus_from_search (NatterSidebar *self)
{
  GtkEventController *keys;

  g_return_if_fail (NATTER_IS_SIDEBAR (self));

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (keys, "key-pressed", G_CALLBACK (search_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->search_entry), keys);
}

/* The item of the list that holds the keyboard focus, itself or in one
 * of its widgets, or NULL. */
static GtkWidget *
focused_item (NatterSidebar *self)
{
  GtkWidget *list = GTK_WIDGET (self->session_list);
  GtkRoot *root = gtk_widget_get_root (list);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  for (GtkWidget *w = focus; w != NULL && w != list; w = gtk_widget_get_parent (w))
    if (gtk_widget_get_parent (w) == list)
      return w;
  return NULL;
}

/**
 * natter_sidebar_get_focused_session:
 * @self: the sidebar
 *
 * What the keys meant for "this conversation" (Delete, F2, the Menu key)
 * act on while the list has the focus: Tab moves the focus from row to
 * row without selecting, so the row with the focus need not be the open
 * conversation's.
 *
 * Returns: (transfer none) (nullable): the conversation whose row has
 *   the keyboard focus, or %NULL when the focus is elsewhere (a folder's
 *   header, outside the list)
 */
const char *
natter_sidebar_get_focused_session (NatterSidebar *self)
{
  GtkWidget *item;
  NatterSessionRow *row;

  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), NULL);

  item = focused_item (self);
  row = item != NULL ? item_session_row (item) : NULL;
  return row != NULL ? natter_session_index_entry_get_session_id (natter_session_row_get_entry (row)) : NULL;
}

/* Where the list shows @item's row, or G_MAXUINT. */
static guint
item_position (NatterSidebar *self,
               GtkWidget     *item)
{
  GListModel *model = self->sort_model;
  NatterSessionRow *row = item_session_row (item);
  NatterSidebarHeaderRow *header = item_header_row (item);
  guint n = g_list_model_get_n_items (model);

  if (row != NULL)
    {
      guint position = listed_position (self, natter_session_index_entry_get_session_id (
                                                       natter_session_row_get_entry (row)));

      return position != GTK_INVALID_LIST_POSITION ? position : G_MAXUINT;
    }
  if (header == NULL)
    return G_MAXUINT;
  /* A handful of headers, each above its part: the walk stops at it. */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) listed = g_list_model_get_item (model, i);

      if (listed == (GObject *) natter_sidebar_header_row_get_header (header))
        return i;
    }
  return G_MAXUINT;
}

/**
 * natter_sidebar_focus_step:
 * @self: the sidebar
 * @forward: %TRUE to go down the list, %FALSE to go up
 * @select: whether a conversation's row is selected too: Up and Down
 *   select, Tab only moves the focus
 *
 * What Up and Down, and Tab, do in the list: the keyboard focus goes
 * from the focused row to the next one. A conversation's row is
 * selected too when @select says so (its conversation opens beside the
 * list); a folder's header takes the focus on its toggle and leaves the
 * selection where it is. "Pinned" and "Recent" are titles only, passed
 * over. GTK 4.8's list would neither stop on a header, whose item takes
 * no focus, nor go past one.
 *
 * Returns: %FALSE, doing nothing, when no row has the focus or there is
 *   no row past it
 */
gboolean
natter_sidebar_focus_step (NatterSidebar *self,
                           gboolean       forward,
                           gboolean       select)
{
  GListModel *model;
  GtkWidget *item;
  guint position;
  guint n;

  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), FALSE);

  model = self->sort_model;
  item = focused_item (self);
  if (model == NULL || item == NULL)
    return FALSE;
  position = item_position (self, item);
  n = g_list_model_get_n_items (model);
  while (position != G_MAXUINT && (forward ? position + 1 < n : position > 0))
    {
      g_autoptr(GObject) next = NULL;

      position = forward ? position + 1 : position - 1;
      next = g_list_model_get_item (model, position);
      if (NATTER_IS_SESSION_INDEX_ENTRY (next))
        return natter_sidebar_focus_position (self, position, select);
      if (NATTER_IS_SIDEBAR_HEADER (next) && header_folder_id (NATTER_SIDEBAR_HEADER (next)) != NULL)
        {
          FocusRow *focus = g_new0 (FocusRow, 1);

          focus->folder_id = g_strdup (header_folder_id (NATTER_SIDEBAR_HEADER (next)));
          focus_target (self, position, focus);
          return TRUE;
        }
    }
  return FALSE;
}

/**
 * natter_sidebar_focus_folder:
 * @self: the sidebar
 * @folder_id: a folder's id
 *
 * Gives the keyboard focus to the folder's header (its toggle), scrolling
 * to it: where the keyboard goes once a folder is made.
 *
 * Returns: %FALSE, doing nothing, when the list shows no header of that
 *   folder (none yet, or a search on)
 */
gboolean
natter_sidebar_focus_folder (NatterSidebar *self,
                             const char    *folder_id)
{
  GListModel *model;
  guint n;

  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), FALSE);
  g_return_val_if_fail (folder_id != NULL, FALSE);

  model = self->sort_model;
  n = model != NULL ? g_list_model_get_n_items (model) : 0;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      if (NATTER_IS_SIDEBAR_HEADER (item) && g_strcmp0 (header_folder_id (NATTER_SIDEBAR_HEADER (item)), folder_id) == 0)
        {
          FocusRow *focus = g_new0 (FocusRow, 1);

          focus->folder_id = g_strdup (folder_id);
          focus_target (self, i, focus);
          return TRUE;
        }
      /* The headers come before Recent's conversations, which can be
       * many: past Recent's header, there is no folder. */
      if (NATTER_IS_SIDEBAR_HEADER (item) &&
          natter_sidebar_header_get_kind (NATTER_SIDEBAR_HEADER (item)) == NATTER_SIDEBAR_HEADER_RECENT)
        break;
    }
  return FALSE;
}

/* Gives the focus to the list item @item when it takes it: a
 * conversation's row, or a folder's header on its toggle. "Pinned" and
 * "Recent" are titles only. */
static gboolean
grab_item (GtkWidget *item)
{
  NatterSidebarHeaderRow *header;

  if (!gtk_widget_get_mapped (item) || !gtk_widget_get_child_visible (item))
    return FALSE;
  if (item_session_row (item) != NULL)
    return gtk_widget_grab_focus (item);
  header = item_header_row (item);
  return header != NULL && header_folder_id (natter_sidebar_header_row_get_header (header)) != NULL &&
         gtk_widget_grab_focus (natter_sidebar_header_row_get_expander (header));
}

/* Tab into the list from outside it: to the open conversation's row
 * when it is on screen, where the user is; else, going down, to the
 * topmost row shown that takes the focus, and going up to the lowest.
 * A page that says the list is empty is GTK's to tab through. */
static gboolean
enter_list (GtkWidget        *part,
            GtkDirectionType  direction,
            gpointer          user_data)
{
  NatterSidebar *self = user_data;
  GtkWidget *list = GTK_WIDGET (self->session_list);
  gboolean forward = direction == GTK_DIR_TAB_FORWARD;
  NatterSessionIndexEntry *open = NULL;

  if (gtk_stack_get_visible_child (self->sidebar_stack) != gtk_widget_get_parent (list))
    return gtk_widget_child_focus (part, direction);
  if (self->selection != NULL)
    open = gtk_single_selection_get_selected_item (self->selection);
  if (open != NULL)
    {
      FocusRow target = { (char *) natter_session_index_entry_get_session_id (open), NULL, 0 };

      for (GtkWidget *item = gtk_widget_get_first_child (list); item != NULL; item = gtk_widget_get_next_sibling (item))
        if (item_is_target (item, &target) && grab_item (item))
          return TRUE;
    }
  for (GtkWidget *item = forward ? gtk_widget_get_first_child (list) : gtk_widget_get_last_child (list);
       item != NULL;
       item = forward ? gtk_widget_get_next_sibling (item) : gtk_widget_get_prev_sibling (item))
    if (grab_item (item))
      return TRUE;
  return FALSE;
}

/*
 * _natter_sidebar_focus_tab:
 * @self: the sidebar
 * @direction: %GTK_DIR_TAB_FORWARD or %GTK_DIR_TAB_BACKWARD
 *
 * What Tab and Shift+Tab do in the sidebar (its #GtkWidgetClass.focus):
 * through the search bar, then into the list at a row that takes the
 * focus (enter_list()), never through the list's scrolled window, which
 * would keep the focus where it was when the row the list enters at
 * takes none, "Pinned" above pinned conversations (natter-scrolled-tab.c).
 *
 * Returns: whether the focus moved
 */
gboolean
_natter_sidebar_focus_tab (NatterSidebar    *self,
                           GtkDirectionType  direction)
{
  return natter_scrolled_tab_focus (GTK_WIDGET (self), direction, GTK_WIDGET (self->sidebar_stack), enter_list, self);
}
