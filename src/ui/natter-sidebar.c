/* natter-sidebar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session list beside the conversation: the session index itself,
 * filtered (the search, conversations waiting for their undo toast to go)
 * and sorted newest first by GTK list models — never a copy — so it
 * follows every write-through update of the index (docs/sessions.md
 * §8.3) with no refresh call. It keeps its scroll position through
 * searches and rows coming back, and tells the window which conversation
 * the user picked; opening it is the window's business.
 *
 * The search finds conversations by title and, given the full-text index
 * (natter_sidebar_set_search_index()), by what was said in them: the
 * index is asked in a worker thread as the user types, the conversations
 * it finds join those whose title matches, and each such row shows the
 * words that matched.
 *
 * The row factory is declared in the .ui file but is a signal factory
 * rather than a builder template: a #NatterSessionRow watches the turn
 * event hub and shares the sidebar's minute ticker, and a builder
 * template only reaches its list item, never the widget whose services
 * the row needs. The list has no model, so makes no row, until the
 * services are set.
 */

#define G_LOG_DOMAIN "natter-sidebar"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-family-filter.h"
#include "natter-plain-text.h"
#include "natter-sidebar-header-row.h"
#include "natter-sidebar-sections.h"
#include "natter-sidebar.h"
#include "natter-sidebar-private.h"

/* Enough for a sidebar: more hits than that means the words say little. */
#define CONTENT_LIMIT 500

G_DEFINE_FINAL_TYPE (NatterSidebar, natter_sidebar, GTK_TYPE_BOX)

enum {
  PROP_0,
  PROP_SEARCH_MODE,
  PROP_PAGED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SESSION_SELECTED,
  SESSION_ACTIVATED,
  MOVE_REQUESTED,
  PIN_REQUESTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* How many more messages of one conversation a search shows under its
 * best one. */
#define MORE_HITS 3

typedef struct
{
  char      *turn_id;
  char      *markup;
  GPtrArray *more_turns;     /* NULL-terminated; the conversation's other hits */
  GPtrArray *more_markups;
  GPtrArray *more_texts;
} SidebarHit;

static void
sidebar_hit_free (SidebarHit *hit)
{
  g_free (hit->turn_id);
  g_free (hit->markup);
  g_ptr_array_unref (hit->more_turns);
  g_ptr_array_unref (hit->more_markups);
  g_ptr_array_unref (hit->more_texts);
  g_free (hit);
}

/* Order and filters */

static const char *
activity_time (NatterSessionIndexEntry *entry)
{
  const char *latest_turn_at = natter_session_index_entry_get_latest_turn_at (entry);

  return latest_turn_at != NULL ? latest_turn_at : natter_session_index_entry_get_created_at (entry);
}

static int
compare_entries (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  NatterSessionIndexEntry *ea = (NatterSessionIndexEntry *) a;
  NatterSessionIndexEntry *eb = (NatterSessionIndexEntry *) b;
  int result;

  /* By the latest activity: the latest turn's time, or the creation time
   * of a session without turns. Not `updatedAt`: a rename is not
   * activity, and a conversation that jumped to the top on a rename
   * would move away from under the pointer. ISO-8601 UTC timestamps of
   * one format sort as strings; newest first, ties by id (ids sort in
   * creation order), so the order is total. */
  result = g_strcmp0 (activity_time (eb), activity_time (ea));
  if (result == 0)
    result = g_strcmp0 (natter_session_index_entry_get_session_id (eb),
                        natter_session_index_entry_get_session_id (ea));
  return result < 0 ? GTK_ORDERING_SMALLER : result > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static gboolean
not_hidden (gpointer item,
            gpointer user_data)
{
  NatterSidebar *self = user_data;

  return !g_hash_table_contains (self->hidden, natter_session_index_entry_get_session_id (item));
}

static gboolean
has_unreadable_turn (NatterSidebar *self,
                     const char    *session_id)
{
  return self->unreadable != NULL && g_strv_contains ((const char * const *) self->unreadable, session_id);
}

/* A damaged conversation is not searched as if it were whole (its log
 * reads all or nothing, docs/format.md §2), nor one with a turn the
 * index could not read: the words may be in it, so it stays listed,
 * shown damaged, while the search looks for them. */
static gboolean
content_matches (gpointer item,
                 gpointer user_data)
{
  NatterSidebar *self = user_data;
  const char *id = natter_session_index_entry_get_session_id (item);

  return g_hash_table_contains (self->content_hits, id) ||
         (self->search != NULL && natter_session_index_entry_get_error (item) != NULL) ||
         has_unreadable_turn (self, id);
}

static void
update_page (NatterSidebar *self)
{
  const char *page = "list";

  if (self->sort_model == NULL || g_list_model_get_n_items (self->sort_model) == 0)
    {
      const char *search = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

      page = search[0] != '\0' ? "no-results" : "empty";
    }
  gtk_stack_set_visible_child_name (self->sidebar_stack, page);
}

/* Keeping the place */

static GtkAdjustment *
list_adjustment (NatterSidebar *self)
{
  GtkWidget *scroller = gtk_widget_get_parent (GTK_WIDGET (self->session_list));

  return gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
}

static ScrollPlace
current_place (NatterSidebar *self)
{
  GtkAdjustment *adjustment = list_adjustment (self);

  return (ScrollPlace) { gtk_adjustment_get_value (adjustment), gtk_adjustment_get_page_size (adjustment) };
}

static void
stop_keeping_scroll (NatterSidebar *self)
{
  if (self->scroll_clock == NULL)
    return;
  if (self->scroll_layout_id != 0 && g_signal_handler_is_connected (self->scroll_clock, self->scroll_layout_id))
    g_signal_handler_disconnect (self->scroll_clock, self->scroll_layout_id);
  self->scroll_layout_id = 0;
  /* A window going away takes its surface's frame clock with it, and
   * the clock's handlers are gone by then. */
  if (g_signal_handler_is_connected (self->scroll_clock, self->scroll_paint_id))
    {
      g_signal_handler_disconnect (self->scroll_clock, self->scroll_paint_id);
      gdk_frame_clock_end_updating (self->scroll_clock);
    }
  self->scroll_paint_id = 0;
  g_clear_object (&self->scroll_clock);
}

/* Where the list is to be on this frame. A search is closed by sliding
 * its bar away, which grows the list's page over a few frames: the place
 * to keep goes from where the list was as the search began (the bar
 * open) to where it was before the bar opened (as the bar slid in, the
 * list moved its rows around one of them), with the page. */
static double
pending_target (NatterSidebar *self,
                GtkAdjustment *adjustment)
{
  const ScrollPlace *from = &self->pending;
  const ScrollPlace *to = &self->pending_bar_closed;
  double t;

  if (from->page < 0 || to->value < 0 || to->page < 0 || to->page == from->page)
    return from->value;
  t = CLAMP ((gtk_adjustment_get_page_size (adjustment) - from->page) / (to->page - from->page), 0, 1);
  return from->value + t * (to->value - from->value);
}

/* Runs after a frame is painted: the adjustment then describes the rows
 * the list has just laid out, so setting it now moves the list to a row
 * that exists (set between a change of rows and their layout, the list
 * would find no row there and ignore it). */
static void
after_paint_cb (GdkFrameClock *clock,
                NatterSidebar *self)
{
  GtkAdjustment *adjustment = list_adjustment (self);
  double reachable = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);
  double target = pending_target (self, adjustment);

  /* The list keeps its place by an anchor row, which it picks when the
   * value is set, from the row heights it knows then. The rows that came
   * back are measured over a few frames, and an anchor picked too early
   * puts the list elsewhere on a later frame. So the place counts as kept
   * once the list has laid itself out there a few frames in a row. */
  if (reachable >= target && G_APPROX_VALUE (gtk_adjustment_get_value (adjustment), target, 1.5))
    self->scroll_stable_frames++;
  else
    {
      self->scroll_stable_frames = 0;
      gtk_adjustment_set_value (adjustment, target);
    }
  if (self->scroll_stable_frames >= 3 || ++self->scroll_frames >= 120)
    stop_keeping_scroll (self);
}

/* Runs after the window's own layout handler, connected before it (the
 * rows changed, and with them the list asked for a layout, before the
 * place to keep was known): the list has its rows' places by now. */
static void
scroll_layout_cb (GdkFrameClock *clock,
                  NatterSidebar *self)
{
  g_clear_signal_handler (&self->scroll_layout_id, clock);
  gtk_adjustment_set_value (list_adjustment (self), pending_target (self, list_adjustment (self)));
}

/* Puts the list back at @place once its rows are laid out again, or at
 * @bar_closed (may be %NULL) as far as the search bar has slid away.
 * Rows coming back (a search cleared, a deletion undone) must not move
 * the list: the row under the pointer has to stay the one the user saw. */
static void
keep_scroll (NatterSidebar     *self,
             const ScrollPlace *place,
             const ScrollPlace *bar_closed)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self->session_list));

  self->pending = *place;
  self->pending_bar_closed = bar_closed != NULL ? *bar_closed : (ScrollPlace) { -1, -1 };
  self->scroll_frames = 0;
  self->scroll_stable_frames = 0;
  if (clock == NULL)
    {
      gtk_adjustment_set_value (list_adjustment (self), pending_target (self, list_adjustment (self)));
      return;
    }
  /* Not now: the rows that come back have no place in the list until it
   * is laid out again, and a value set before that is ignored (with a
   * warning). Set once it is, the frame shows the list there. */
  if (self->scroll_layout_id == 0)
    self->scroll_layout_id = g_signal_connect (clock, "layout", G_CALLBACK (scroll_layout_cb), self);
  if (self->scroll_clock != NULL)
    return;
  self->scroll_clock = g_object_ref (clock);
  self->scroll_paint_id = g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), self);
  /* Frames keep coming while the list settles, even if nothing else
   * asks for one. */
  gdk_frame_clock_begin_updating (clock);
}

/* The keyboard on a row that moves */

static gboolean
focus_kept_done_cb (gpointer user_data)
{
  NatterSidebar *self = user_data;

  self->focus_kept_id = 0;
  g_clear_pointer (&self->focus_kept, g_free);
  return G_SOURCE_REMOVE;
}

/* A row that moves (pinned, put in a folder, from the row's menu or
 * elsewhere) leaves the list and comes back at its new place, and its
 * item takes the keyboard focus away with it: the focus would be left
 * on nothing. Before the list hears of a change, the row with the focus
 * is noted, and for a moment its row is waited for. */
static void
rows_changing_cb (NatterSidebar *self)
{
  const char *focused = natter_sidebar_get_focused_session (self);

  if (focused == NULL || self->focus_kept != NULL)
    return;
  self->focus_kept = g_strdup (focused);
  g_clear_handle_id (&self->focus_kept_id, g_source_remove);
  self->focus_kept_id = g_timeout_add (500, focus_kept_done_cb, self);
}

/* After the list changed: the noted row, where it is now, takes the
 * focus back, unless the person put it somewhere else meanwhile. */
static void
rows_changed_cb (NatterSidebar *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  guint position;

  if (self->focus_kept == NULL || g_strcmp0 (natter_sidebar_get_focused_session (self), self->focus_kept) == 0)
    return;
  if (focus != NULL && gtk_widget_get_root (focus) == root &&
      !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->session_list)) && focus != GTK_WIDGET (self->session_list))
    return;
  position = natter_sidebar_find_position (self, self->focus_kept);
  /* Noted still: a row comes back in a few changes (out of one part,
   * a header gone, into the other), and the list may hand the focus to
   * a row of its own choosing meanwhile. */
  if (position != GTK_INVALID_LIST_POSITION)
    natter_sidebar_focus_position (self, position, FALSE);
}

/* The selection */

/* The session whose row stands for @session_id: an older version of a
 * conversation shows as the conversation's one row. */
static const char *
listed_for (NatterSidebar *self,
            const char    *session_id)
{
  return self->family_filter != NULL ? natter_family_filter_get_listed (self->family_filter, session_id)
                                     : session_id;
}

static void
selection_changed_cb (NatterSidebar *self)
{
  NatterSessionIndexEntry *entry = gtk_single_selection_get_selected_item (self->selection);
  const char *session_id;

  /* A selection lost to a re-sort or a filter is not the user closing
   * the conversation. */
  if (entry == NULL)
    return;
  session_id = natter_session_index_entry_get_session_id (entry);
  /* The row of the conversation an older version of which is open. */
  if (g_strcmp0 (session_id, listed_for (self, self->selected_id)) == 0)
    return;
  g_free (self->selected_id);
  self->selected_id = g_strdup (session_id);
  g_signal_emit (self, signals[SESSION_SELECTED], 0, session_id, self->list_key_id != 0);
}

static void
sync_selection (NatterSidebar *self)
{
  guint position = self->selected_id != NULL
                   ? natter_sidebar_find_position (self, listed_for (self, self->selected_id))
                   : GTK_INVALID_LIST_POSITION;

  if (gtk_single_selection_get_selected (self->selection) != position)
    gtk_single_selection_set_selected (self->selection, position);
}

static gboolean
list_key_done_cb (gpointer user_data)
{
  NatterSidebar *self = user_data;

  self->list_key_id = 0;
  return G_SOURCE_REMOVE;
}

/* Runs before the list's own key bindings, which change the selection
 * synchronously; the mark lasts until this key press is handled. */
static gboolean
list_key_pressed_cb (NatterSidebar *self)
{
  if (self->list_key_id == 0)
    self->list_key_id = g_idle_add_full (G_PRIORITY_HIGH, list_key_done_cb, self, NULL);
  return GDK_EVENT_PROPAGATE;
}

/* Up and Down walk the rows, folders' headers included, and keep the
 * keyboard in the list (natter_sidebar_focus_step()); with a modifier,
 * or past the first or last row, they are GTK's. Tab and Shift+Tab walk
 * them too, without selecting, and past the first or last row leave the
 * list: GTK's list would leave it at the first title, so that Tab never
 * reached the conversations under "Recent". */
static gboolean
list_row_key_cb (NatterSidebar   *self,
                 guint            keyval,
                 guint            keycode,
                 GdkModifierType  state)
{
  gboolean forward;

  /* The person moves on: a row that moved no longer calls the focus. */
  g_clear_handle_id (&self->focus_kept_id, g_source_remove);
  g_clear_pointer (&self->focus_kept, g_free);
  if ((state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return GDK_EVENT_PROPAGATE;
  if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab || keyval == GDK_KEY_ISO_Left_Tab)
    {
      forward = keyval != GDK_KEY_ISO_Left_Tab && (state & GDK_SHIFT_MASK) == 0;
      return natter_sidebar_focus_step (self, forward, FALSE) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
    }
  if ((state & GDK_SHIFT_MASK) != 0)
    return GDK_EVENT_PROPAGATE;
  if (keyval == GDK_KEY_Down || keyval == GDK_KEY_KP_Down)
    forward = TRUE;
  else if (keyval == GDK_KEY_Up || keyval == GDK_KEY_KP_Up)
    forward = FALSE;
  else
    return GDK_EVENT_PROPAGATE;
  return natter_sidebar_focus_step (self, forward, TRUE) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
}

/* With the search open, a letter typed in what it found goes on with
 * the search, in the search field (the search bar only catches the
 * letters typed while it is closed). */
static gboolean
list_typed_cb (NatterSidebar         *self,
               guint                  keyval,
               guint                  keycode,
               GdkModifierType        state,
               GtkEventControllerKey *keys)
{
  GtkEditable *text = gtk_editable_get_delegate (GTK_EDITABLE (self->search_entry));
  gunichar c = gdk_keyval_to_unicode (keyval);

  if (!gtk_search_bar_get_search_mode (self->search_bar) || !GTK_IS_TEXT (text) ||
      (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)) != 0 ||
      c == 0 || !g_unichar_isgraph (c))
    return GDK_EVENT_PROPAGATE;
  gtk_text_grab_focus_without_selecting (GTK_TEXT (text));
  return gtk_event_controller_key_forward (keys, GTK_WIDGET (text));
}

/* Shows or hides a folder's conversations. The open conversation's row,
 * dropped from the selection while its folder was closed, is selected
 * again when the folder opens. */
static void
set_expanded (NatterSidebar *self,
              const char    *folder_id,
              gboolean       expanded)
{
  natter_sidebar_sections_set_expanded (self->sections, folder_id, expanded);
  if (self->selection != NULL)
    sync_selection (self);
}

static void
list_activate_cb (NatterSidebar *self,
                  guint          position)
{
  g_autoptr(GObject) item = g_list_model_get_item (self->sort_model, position);

  if (NATTER_IS_SESSION_INDEX_ENTRY (item))
    g_signal_emit (self, signals[SESSION_ACTIVATED], 0,
                   natter_session_index_entry_get_session_id (NATTER_SESSION_INDEX_ENTRY (item)));
  else if (NATTER_IS_SIDEBAR_HEADER (item) && natter_sidebar_header_get_folder (NATTER_SIDEBAR_HEADER (item)) != NULL)
    set_expanded (self, natter_folder_get_id (natter_sidebar_header_get_folder (NATTER_SIDEBAR_HEADER (item))),
                  !natter_sidebar_header_get_expanded (NATTER_SIDEBAR_HEADER (item)));
}

/* A list at its top stays there when its rows change: the open
 * conversation's row at the top replaced by a taller one (a new version
 * of it, "2 versions" under its title) would otherwise keep its bottom
 * edge where it was and push its top out of view. A place being kept
 * already (a search cleared) is left to that. */
static void
keep_top (NatterSidebar *self)
{
  if (self->scroll_clock == NULL && gtk_widget_get_mapped (GTK_WIDGET (self->session_list)) &&
      gtk_adjustment_get_value (list_adjustment (self)) == 0)
    keep_scroll (self, &(ScrollPlace) { 0, -1 }, NULL);
}

/* Rows */

/* A click on the row of the conversation already open selects nothing
 * new: while a search found words in it, it goes to those words all the
 * same, as Enter on the row does; and where the list is a page of its
 * own (NatterSidebar:paged), it goes back to the conversation, which the
 * page's Back button left. The row's conversation is read when the
 * button goes down, before the list's own click selects anything. */
static const char *
clicked_session (GtkGestureClick *gesture)
{
  GtkWidget *row = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));
  NatterSessionIndexEntry *entry = natter_session_row_get_entry (NATTER_SESSION_ROW (row));

  return entry != NULL ? natter_session_index_entry_get_session_id (entry) : NULL;
}

static void
row_pressed_cb (GtkGestureClick *gesture,
                int              n_press,
                double           x,
                double           y,
                NatterSidebar   *self)
{
  const char *session_id = clicked_session (gesture);
  gboolean open = session_id != NULL && g_strcmp0 (session_id, listed_for (self, self->selected_id)) == 0;

  g_object_set_data (G_OBJECT (gesture), "natter-open", GINT_TO_POINTER (open));
}

static void
row_released_cb (GtkGestureClick *gesture,
                 int              n_press,
                 double           x,
                 double           y,
                 NatterSidebar   *self)
{
  const char *session_id = clicked_session (gesture);
  gboolean was_open = g_object_get_data (G_OBJECT (gesture), "natter-open") != NULL;

  /* A click on another conversation's row goes to it, as Enter does:
   * the keyboard in its message field (only the arrows leave it in the
   * list). */
  if (session_id != NULL && n_press == 1 &&
      (!was_open || natter_sidebar_get_hit_turn (self, session_id) != NULL || self->paged))
    g_signal_emit (self, signals[SESSION_ACTIVATED], 0, session_id);
}

/* A row's context menu: right-click, long-press, Shift+F10 or the Menu
 * key. Its items name the row's conversation, which is not opened: what
 * the menu does is done to that row, the open conversation staying as it
 * is. It points where the pointer was, or at the row for a key. */
static void
show_row_menu (NatterSidebar    *self,
               NatterSessionRow *row,
               double            x,
               double            y)
{
  NatterSessionIndexEntry *entry = natter_session_row_get_entry (row);
  g_autoptr(GMenuModel) menu = NULL;
  GdkRectangle rect = { 0, 0, 1, 1 };
  double sx, sy;

  if (self->row_menu == NULL || entry == NULL)
    return;
  if (!gtk_widget_translate_coordinates (GTK_WIDGET (row), GTK_WIDGET (self), x, y, &sx, &sy))
    return;
  menu = self->row_menu_func (natter_session_index_entry_get_session_id (entry), self->row_menu_data);
  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->row_menu), menu);
  rect.x = (int) sx;
  rect.y = (int) sy;
  gtk_popover_set_pointing_to (GTK_POPOVER (self->row_menu), &rect);
  g_free (self->menu_row_id);
  self->menu_row_id = g_strdup (natter_session_index_entry_get_session_id (entry));
  gtk_popover_popup (GTK_POPOVER (self->row_menu));
}

/* The row's menu closed (Escape, or an item chosen): the keyboard goes
 * back to the row it was for. Left to GTK, the focus would go to the
 * first control of the window (New Chat), the popover's parent, the
 * sidebar, taking none. An item that moved the focus on purpose (Delete
 * focuses the next row) is left alone, and so is a row gone. */
static void
row_menu_closed_cb (NatterSidebar *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  guint position;

  if (self->menu_row_id == NULL ||
      (focus != NULL && focus != self->row_menu && !gtk_widget_is_ancestor (focus, self->row_menu)))
    return;
  position = natter_sidebar_find_position (self, listed_for (self, self->menu_row_id));
  if (position != GTK_INVALID_LIST_POSITION)
    natter_sidebar_focus_position (self, position, FALSE);
}

static void
row_menu_pressed_cb (GtkGestureClick *gesture,
                     int              n_press,
                     double           x,
                     double           y,
                     NatterSidebar   *self)
{
  GtkWidget *row = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));

  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  show_row_menu (self, NATTER_SESSION_ROW (row), x, y);
}

static void
row_long_pressed_cb (GtkGestureLongPress *gesture,
                     double               x,
                     double               y,
                     NatterSidebar       *self)
{
  GtkWidget *row = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));

  show_row_menu (self, NATTER_SESSION_ROW (row), x, y);
}

/* Shift+F10 or Menu in the list: the menu of the row with the focus,
 * which need not be the selected one (Tab moves the focus alone). */
static gboolean
row_menu_key_cb (GtkWidget *list,
                 GVariant  *args,
                 gpointer   user_data)
{
  NatterSidebar *self = user_data;
  NatterSessionIndexEntry *selected = gtk_single_selection_get_selected_item (self->selection);
  const char *focused = natter_sidebar_get_focused_session (self);
  GHashTableIter iter;
  gpointer row;

  /* The list itself has the focus, no row yet: the selected one's. */
  if (focused == NULL && NATTER_IS_SESSION_INDEX_ENTRY (selected))
    focused = natter_session_index_entry_get_session_id (selected);
  if (focused == NULL)
    return FALSE;
  g_hash_table_iter_init (&iter, self->bound_rows);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    {
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (row);

      if (entry != NULL && g_strcmp0 (natter_session_index_entry_get_session_id (entry), focused) == 0 &&
          gtk_widget_get_mapped (row))
        {
          show_row_menu (self, row, gtk_widget_get_width (row) / 2.0, gtk_widget_get_height (row) / 2.0);
          return TRUE;
        }
    }
  return FALSE;
}

/* A conversation's row is dragged by its session id, onto a header
 * (natter-sidebar-header-row.c). */
static GdkContentProvider *
drag_prepare_cb (GtkDragSource    *source,
                 double            x,
                 double            y,
                 NatterSessionRow *row)
{
  NatterSessionIndexEntry *entry = natter_session_row_get_entry (row);
  g_autoptr(GdkPaintable) icon = NULL;

  if (entry == NULL || natter_session_index_entry_get_error (entry) != NULL)
    return NULL;
  icon = gtk_widget_paintable_new (GTK_WIDGET (row));
  gtk_drag_source_set_icon (source, icon, (int) x, (int) y);
  return gdk_content_provider_new_typed (G_TYPE_STRING, natter_session_index_entry_get_session_id (entry));
}

/* A conversation's row dropped on a header: Pinned pins it, a folder
 * takes it in, Recent takes it out of its folder. */
static void
header_dropped_cb (NatterSidebarHeaderRow *row,
                   const char             *session_id,
                   NatterSidebar          *self)
{
  NatterSidebarHeader *header = natter_sidebar_header_row_get_header (row);
  NatterFolder *folder = header != NULL ? natter_sidebar_header_get_folder (header) : NULL;

  if (header == NULL)
    return;
  if (natter_sidebar_header_get_kind (header) == NATTER_SIDEBAR_HEADER_PINNED)
    g_signal_emit (self, signals[PIN_REQUESTED], 0, session_id);
  else
    g_signal_emit (self, signals[MOVE_REQUESTED], 0, session_id, folder != NULL ? natter_folder_get_id (folder) : NULL);
}

static void
header_expand_cb (NatterSidebarHeaderRow *row,
                  gboolean                expanded,
                  NatterSidebar          *self)
{
  NatterSidebarHeader *header = natter_sidebar_header_row_get_header (row);

  if (header != NULL && natter_sidebar_header_get_folder (header) != NULL)
    set_expanded (self, natter_folder_get_id (natter_sidebar_header_get_folder (header)), expanded);
}

static void
row_setup_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *list_item,
              NatterSidebar            *self)
{
  GtkWidget *row = natter_session_row_new (self->sessions, self->hub, self->ticker);
  GtkGesture *click = gtk_gesture_click_new ();
  GtkDragSource *drag = gtk_drag_source_new ();

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect (click, "pressed", G_CALLBACK (row_pressed_cb), self);
  g_signal_connect (click, "released", G_CALLBACK (row_released_cb), self);
  gtk_widget_add_controller (row, GTK_EVENT_CONTROLLER (click));
  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
  g_signal_connect (click, "pressed", G_CALLBACK (row_menu_pressed_cb), self);
  gtk_widget_add_controller (row, GTK_EVENT_CONTROLLER (click));
  click = gtk_gesture_long_press_new ();
  gtk_gesture_single_set_touch_only (GTK_GESTURE_SINGLE (click), TRUE);
  g_signal_connect (click, "pressed", G_CALLBACK (row_long_pressed_cb), self);
  gtk_widget_add_controller (row, GTK_EVENT_CONTROLLER (click));
  GtkWidget *header = natter_sidebar_header_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  gtk_drag_source_set_actions (drag, GDK_ACTION_MOVE);
  g_signal_connect (drag, "prepare", G_CALLBACK (drag_prepare_cb), row);
  gtk_widget_add_controller (row, GTK_EVENT_CONTROLLER (drag));
  g_signal_connect (header, "dropped", G_CALLBACK (header_dropped_cb), self);
  g_signal_connect (header, "expand", G_CALLBACK (header_expand_cb), self);
  gtk_widget_set_visible (header, FALSE);
  /* A list item shows a conversation or a header, whichever it is bound
   * to: both are in it, one at a time. */
  gtk_box_append (GTK_BOX (box), row);
  gtk_box_append (GTK_BOX (box), header);
  gtk_list_item_set_child (list_item, box);
}

/* The conversation's row of a list item's child (row_setup_cb()). */
static NatterSessionRow *
item_session_row (GtkListItem *list_item)
{
  return NATTER_SESSION_ROW (gtk_widget_get_first_child (gtk_list_item_get_child (list_item)));
}

static NatterSidebarHeaderRow *
item_header_row (GtkListItem *list_item)
{
  return NATTER_SIDEBAR_HEADER_ROW (gtk_widget_get_last_child (gtk_list_item_get_child (list_item)));
}


/* A row shows the words that matched while a search found its
 * conversation by them, and how many versions the conversation has. */
static void
update_row_snippet (NatterSidebar    *self,
                    NatterSessionRow *row)
{
  NatterSessionIndexEntry *entry = natter_session_row_get_entry (row);
  const char *id = entry != NULL ? natter_session_index_entry_get_session_id (entry) : NULL;
  SidebarHit *hit = id != NULL ? g_hash_table_lookup (self->content_hits, id) : NULL;
  g_autofree char *unread = NULL;

  /* Listed for a message that could not be read: which one says so. */
  if (hit == NULL && id != NULL && has_unreadable_turn (self, id))
    unread = g_markup_escape_text (_("A message here cannot be read: it was not searched"), -1);
  natter_session_row_set_snippet (row, hit != NULL ? hit->markup : unread);
  natter_session_row_set_more_hits (row, hit != NULL ? (const char * const *) hit->more_turns->pdata : NULL,
                                    hit != NULL ? (const char * const *) hit->more_markups->pdata : NULL,
                                    hit != NULL ? (const char * const *) hit->more_texts->pdata : NULL);
  natter_session_row_set_n_versions (row, natter_family_filter_get_n_versions (self->family_filter, id));
  natter_session_row_set_damaged_message (row, id != NULL && self->damaged_messages != NULL &&
                                               g_strv_contains ((const char * const *) self->damaged_messages, id));
  /* A search lists a conversation as its listed version when it finds
   * that, else as an earlier version it found: that one says so, or its
   * mark and time would contradict the row the person knows. */
  natter_session_row_set_earlier_version (row, id != NULL &&
                                               gtk_editable_get_text (GTK_EDITABLE (self->search_entry))[0] != '\0' &&
                                               !natter_family_filter_is_listed_version (self->family_filter, id));
}

static void
row_bind_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *list_item,
             NatterSidebar            *self)
{
  gpointer item = gtk_list_item_get_item (list_item);
  NatterSessionRow *row;

  row = item_session_row (list_item);
  gtk_widget_set_visible (GTK_WIDGET (row), !NATTER_IS_SIDEBAR_HEADER (item));
  gtk_widget_set_visible (GTK_WIDGET (item_header_row (list_item)), NATTER_IS_SIDEBAR_HEADER (item));
  if (NATTER_IS_SIDEBAR_HEADER (item))
    {
      natter_sidebar_header_row_set_header (item_header_row (list_item), item);
      gtk_list_item_set_selectable (list_item, FALSE);
      /* Enter on a folder's header shows or hides its conversations. */
      gtk_list_item_set_activatable (list_item,
                                     natter_sidebar_header_get_folder (NATTER_SIDEBAR_HEADER (item)) != NULL);
      return;
    }
  gtk_list_item_set_selectable (list_item, TRUE);
  gtk_list_item_set_activatable (list_item, TRUE);
  natter_session_row_set_entry (row, item);
  g_hash_table_add (self->bound_rows, row);
  update_row_snippet (self, row);
}

static void
row_unbind_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *list_item,
               NatterSidebar            *self)
{
  NatterSessionRow *row = item_session_row (list_item);

  natter_sidebar_header_row_set_header (item_header_row (list_item), NULL);
  g_hash_table_remove (self->bound_rows, row);
  natter_session_row_set_snippet (row, NULL);
  natter_session_row_set_more_hits (row, NULL, NULL, NULL);
  natter_session_row_set_entry (row, NULL);
}

/* The search */

static void
update_rows (NatterSidebar *self)
{
  GHashTableIter iter;
  gpointer row;

  g_hash_table_iter_init (&iter, self->bound_rows);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    update_row_snippet (self, row);
}

static void
set_hits (NatterSidebar *self,
          GPtrArray     *hits)
{
  g_hash_table_remove_all (self->content_hits);
  for (guint i = 0; hits != NULL && i < hits->len; i++)
    {
      NatterSearchHit *found = g_ptr_array_index (hits, i);
      SidebarHit *hit = g_hash_table_lookup (self->content_hits, found->session_id);

      /* Best first: a session shows its best turn, then a few more, each
       * a way to its message. */
      if (hit != NULL)
        {
          if (hit->more_turns->len < MORE_HITS)
            {
              g_ptr_array_add (hit->more_turns, g_strdup (found->turn_id));
              g_ptr_array_add (hit->more_markups, natter_search_snippet_to_markup (found->snippet));
              g_ptr_array_add (hit->more_texts, natter_search_snippet_to_plain (found->snippet));
            }
          continue;
        }
      hit = g_new0 (SidebarHit, 1);
      hit->turn_id = g_strdup (found->turn_id);
      /* Escaped here, piece by piece: what was said is never markup. */
      hit->markup = natter_search_snippet_to_markup (found->snippet);
      hit->more_turns = g_ptr_array_new_null_terminated (MORE_HITS, g_free, TRUE);
      hit->more_markups = g_ptr_array_new_null_terminated (MORE_HITS, g_free, TRUE);
      hit->more_texts = g_ptr_array_new_null_terminated (MORE_HITS, g_free, TRUE);
      g_hash_table_insert (self->content_hits, g_strdup (found->session_id), hit);
    }
  if (self->content_filter != NULL)
    gtk_filter_changed (GTK_FILTER (self->content_filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_rows (self);
  update_page (self);
  if (self->selection != NULL)
    sync_selection (self);
}

/* How far indexing has come, while it runs: what a search finds is
 * only in the conversations indexed so far. */
static void
append_indexing (NatterSidebar *self,
                 GString       *text)
{
  guint n_checked;
  guint n_sessions;
  g_autofree char *checked = NULL;
  g_autofree char *total = NULL;

  natter_search_index_get_progress (self->search, &n_checked, &n_sessions);
  if (n_sessions == 0)
    {
      g_string_append (text, _("Indexing conversations…"));
      return;
    }
  /* Grouped the locale's way: "3,200 of 10,000". */
  checked = g_strdup_printf ("%'u", n_checked);
  total = g_strdup_printf ("%'u", n_sessions);
  g_string_append_printf (text,
                          /* Translators: "Indexing 3,200 of 10,000 conversations…" */
                          g_dngettext (GETTEXT_PACKAGE, "Indexing %s of %s conversation…",
                                       "Indexing %s of %s conversations…", n_sessions),
                          checked, total);
}

/* What the search could not look at, in words under the entry. */
/* Whether the search lists @session_id's conversation: every one, or
 * those of the folder the search is narrowed to. */
static gboolean
in_search_scope (NatterSidebar *self,
                 const char    *session_id)
{
  const char *scope = natter_sidebar_sections_get_scope (self->sections);

  return scope == NULL || g_strcmp0 (natter_sidebar_sections_get_folder_id (self->sections, session_id), scope) == 0;
}

static void
show_search_status (NatterSidebar *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  NatterSessionIndex *index = natter_sessions_list_sessions (self->sessions);
  g_autoptr(GPtrArray) damaged = natter_session_index_dup_damaged (index);
  guint n_damaged = 0;

  /* The note speaks of the conversations listed: one outside the folder
   * the search is narrowed to is not. */
  for (guint i = 0; i < damaged->len; i++)
    if (in_search_scope (self, natter_session_index_entry_get_session_id (g_ptr_array_index (damaged, i))))
      n_damaged++;
  /* A conversation with a message the index could not read counts once,
   * whether or not it is listed as damaged too. */
  for (guint i = 0; self->unreadable != NULL && self->unreadable[i] != NULL; i++)
    {
      NatterSessionIndexEntry *entry = natter_session_index_lookup (index, self->unreadable[i]);

      if (entry != NULL && natter_session_index_entry_get_error (entry) == NULL &&
          in_search_scope (self, self->unreadable[i]))
        n_damaged++;
    }

  if (self->search_error != NULL)
    /* Titles are still searched; the index is only a cache. */
    g_string_append_printf (text, _("Only titles are searched. %s"), self->search_error->message);
  else if (self->search != NULL && natter_search_index_get_indexing (self->search))
    append_indexing (self, text);
  if (self->search_error == NULL && self->search_capped)
    {
      guint cap = natter_search_index_get_match_cap (self->search);
      g_autofree char *number = g_strdup_printf ("%'u", cap);

      if (text->len > 0)
        g_string_append_c (text, '\n');
      /* The search ranks the newest matching messages only
       * (natter_search_index_search_sync()): an older better match may
       * be missing, and the user is told so. */
      g_string_append_printf (text,
                              /* Translators: "More than 2,000 messages have these words: the best of the newest 2,000 are shown" */
                              g_dngettext (GETTEXT_PACKAGE,
                                           "More than %s message has these words: the best of the newest %s is shown",
                                           "More than %s messages have these words: the best of the newest %s are shown",
                                           cap),
                              number, number);
    }
  if (n_damaged > 0)
    {
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append_printf (text,
                              g_dngettext (GETTEXT_PACKAGE, "%u damaged conversation stays listed: it cannot be searched in full",
                                           "%u damaged conversations stay listed: they cannot be searched in full",
                                           n_damaged),
                              n_damaged);
    }
  gtk_label_set_text (self->search_status, text->str);
  gtk_widget_set_visible (GTK_WIDGET (self->search_status), text->len > 0);
}

static void
content_searched_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(NatterSidebar) self = user_data;
  g_autoptr(GPtrArray) hits = NULL;
  g_autoptr(GError) error = NULL;
  gboolean capped = FALSE;

  hits = natter_search_index_search_finish (NATTER_SEARCH_INDEX (object), result, NULL, &capped, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->content_hits == NULL)
    return;
  self->search_capped = capped;
  if (error != NULL)
    g_debug ("Searching the conversations failed: %s", error->message);
  g_clear_error (&self->search_error);
  self->search_error = g_steal_pointer (&error);
  g_strfreev (self->unreadable);
  self->unreadable = natter_search_index_dup_unreadable (NATTER_SEARCH_INDEX (object));
  show_search_status (self);
  set_hits (self, hits);
}

/* The search text changed: ask the index again (the title filter has
 * already been updated). */
static void
search_content (NatterSidebar *self,
                const char    *text)
{
  g_cancellable_cancel (self->content_search);
  g_clear_object (&self->content_search);
  if (self->search == NULL || text[0] == '\0')
    {
      self->search_capped = FALSE;
      g_clear_pointer (&self->unreadable, g_strfreev);
      gtk_widget_set_visible (GTK_WIDGET (self->search_status), FALSE);
      set_hits (self, NULL);
      return;
    }
  self->content_search = g_cancellable_new ();
  natter_search_index_search_async (self->search, text, CONTENT_LIMIT, self->content_search,
                                    content_searched_cb, g_object_ref (self));
}

static gboolean
searching (NatterSidebar *self)
{
  return gtk_editable_get_text (GTK_EDITABLE (self->search_entry))[0] != '\0';
}

/* Indexing went on: the words under the entry say how far. When it is
 * done, the search is run again, so that it finds everything. */
static void
index_progress_cb (NatterSidebar *self)
{
  if (searching (self) && gtk_widget_get_visible (GTK_WIDGET (self->search_status)))
    show_search_status (self);
}

static void
index_indexing_cb (NatterSidebar *self)
{
  if (!searching (self))
    return;
  if (natter_search_index_get_indexing (self->search))
    show_search_status (self);
  else
    search_content (self, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
}

/* A conversation's turn was found damaged, or mended, after the search
 * ran (the recheck of a conversation that opens is one job of its
 * own): the search is run again, so that what it found and the words
 * under the entry about what it could not read say so now, not at the
 * next search. */
static void
index_unreadable_cb (NatterSidebar *self)
{
  /* Outside a search too: the row of a conversation whose earlier
   * message is damaged looks whole until the index has read it. */
  g_strfreev (self->damaged_messages);
  self->damaged_messages = natter_search_index_dup_unreadable (self->search);
  update_rows (self);
  if (searching (self) && !natter_search_index_get_indexing (self->search))
    search_content (self, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
}

static void
search_changed_cb (NatterSidebar *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  ScrollPlace restore = { -1, -1 };
  ScrollPlace restore_bar_closed = { -1, -1 };

  if (self->title_filter == NULL)
    return;
  if (text[0] != '\0' && self->before_search.value < 0)
    {
      self->before_search = current_place (self);
      self->before_search_bar = self->bar_closed;
    }
  else if (text[0] == '\0' && self->before_search.value >= 0)
    {
      restore = self->before_search;
      restore_bar_closed = self->before_search_bar;
      self->before_search.value = -1;
    }
  gtk_string_filter_set_search (self->title_filter, text);
  natter_family_filter_set_enabled (self->family_filter, text[0] == '\0');
  natter_sidebar_sections_set_searching (self->sections, text[0] != '\0');
  search_content (self, text);
  update_page (self);
  /* The search may have dropped the open conversation's row: it is
   * selected again as soon as it is back. */
  sync_selection (self);
  if (restore.value >= 0)
    keep_scroll (self, &restore, &restore_bar_closed);
}

static void
stop_search_cb (NatterSidebar *self)
{
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
}

/* The search closed with the keyboard in it (Escape, Ctrl+F): the
 * keyboard goes on in the list, on the open conversation's row, else the
 * first one. Left to GTK, the focus would fall to whatever of the
 * sidebar takes it as the bar slides away, often the list's scrolled
 * window, where no key reaches a row. */
static void
focus_list_after_search (NatterSidebar *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  guint position = GTK_INVALID_LIST_POSITION;

  if (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->search_bar)))
    return;
  if (self->selected_id != NULL)
    position = natter_sidebar_find_position (self, listed_for (self, self->selected_id));
  natter_sidebar_focus_position (self, position != GTK_INVALID_LIST_POSITION ? position : 0, FALSE);
}

static void
search_mode_cb (NatterSidebar *self)
{
  /* The place to keep is where the list was before the bar opened: as
   * the bar slides in, the list moves its rows around one of them, and
   * the words typed are searched only a moment later. */
  if (!gtk_search_bar_get_search_mode (self->search_bar))
    {
      self->bar_closed.value = -1;
      focus_list_after_search (self);
    }
  else if (self->bar_closed.value < 0)
    self->bar_closed = current_place (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH_MODE]);
}

/* Pins and folders */

/* Every row was replaced: the open conversation's is selected again. */
static void
sections_rebuilt_cb (NatterSidebar *self)
{
  update_page (self);
  if (self->selection != NULL)
    sync_selection (self);
}

static void
session_changed_cb (NatterSidebar *self,
                    const char    *session_id)
{
  natter_sidebar_sections_session_changed (self->sections, session_id);
  update_page (self);
  /* A row that moved to another part is selected there again. */
  if (self->selection != NULL)
    sync_selection (self);
}

static void
scope_selected_cb (NatterSidebar *self)
{
  guint selected = gtk_drop_down_get_selected (self->scope_dropdown);
  const char *folder_id = NULL;

  if (self->scope_ids != NULL && selected < self->scope_ids->len)
    folder_id = g_ptr_array_index (self->scope_ids, selected);
  natter_sidebar_sections_set_scope (self->sections, folder_id);
  /* The note counts what the narrowed search lists. */
  if (searching (self) && self->search != NULL)
    show_search_status (self);
  update_page (self);
}

/* The search's menu of where to look: every conversation, or one folder.
 * It shows only while there are folders. */
static void
update_scope_menu (NatterSidebar *self)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  const char *scope = self->sections != NULL ? natter_sidebar_sections_get_scope (self->sections) : NULL;
  guint n = self->folders != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->folders)) : 0;
  guint selected = 0;

  g_clear_pointer (&self->scope_ids, g_ptr_array_unref);
  self->scope_ids = g_ptr_array_new_with_free_func (g_free);
  gtk_string_list_append (names, _("All Conversations"));
  g_ptr_array_add (self->scope_ids, NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterFolder) folder = g_list_model_get_item (G_LIST_MODEL (self->folders), i);

      if (natter_folder_get_name (folder) == NULL)
        continue;
      if (g_strcmp0 (scope, natter_folder_get_id (folder)) == 0)
        selected = self->scope_ids->len;
      {
        g_autofree char *shown = natter_visible_text (natter_folder_get_name (folder), NATTER_VISIBLE_KEEP_NONE);

        gtk_string_list_append (names, shown);
      }
      g_ptr_array_add (self->scope_ids, g_strdup (natter_folder_get_id (folder)));
    }
  g_signal_handlers_block_by_func (self->scope_dropdown, scope_selected_cb, self);
  gtk_drop_down_set_model (self->scope_dropdown, G_LIST_MODEL (names));
  gtk_drop_down_set_selected (self->scope_dropdown, selected);
  g_signal_handlers_unblock_by_func (self->scope_dropdown, scope_selected_cb, self);
  gtk_widget_set_visible (GTK_WIDGET (self->scope_dropdown), n > 0);
}

/* Lifetime */

static void
natter_sidebar_dispose (GObject *object)
{
  NatterSidebar *self = NATTER_SIDEBAR (object);

  g_clear_handle_id (&self->list_key_id, g_source_remove);
  g_clear_handle_id (&self->focus_kept_id, g_source_remove);
  g_clear_pointer (&self->focus_kept, g_free);
  g_clear_pointer (&self->row_menu, gtk_widget_unparent);
  if (self->row_menu_destroy != NULL)
    self->row_menu_destroy (self->row_menu_data);
  self->row_menu_destroy = NULL;
  self->row_menu_func = NULL;
  stop_keeping_scroll (self);
  g_cancellable_cancel (self->content_search);
  g_clear_object (&self->content_search);
  if (self->search != NULL)
    g_signal_handlers_disconnect_by_data (self->search, self);
  g_clear_object (&self->search);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  if (self->sort_model != NULL)
    g_signal_handlers_disconnect_by_data (self->sort_model, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_SIDEBAR);
  g_clear_object (&self->selection);
  self->sort_model = NULL;
  if (self->sections != NULL)
    g_signal_handlers_disconnect_by_data (self->sections, self);
  g_clear_object (&self->sections);
  if (self->folders != NULL)
    g_signal_handlers_disconnect_by_data (self->folders, self);
  g_clear_object (&self->folders);
  g_clear_object (&self->title_filter);
  g_clear_object (&self->hidden_filter);
  g_clear_object (&self->content_filter);
  if (self->family_filter != NULL)
    g_signal_handlers_disconnect_by_data (self->family_filter, self);
  g_clear_object (&self->family_filter);
  if (self->sessions != NULL)
    g_signal_handlers_disconnect_by_data (self->sessions, self);
  g_clear_object (&self->sessions);
  g_clear_object (&self->hub);
  g_clear_object (&self->ticker);

  G_OBJECT_CLASS (natter_sidebar_parent_class)->dispose (object);
}

static void
natter_sidebar_finalize (GObject *object)
{
  NatterSidebar *self = NATTER_SIDEBAR (object);

  g_clear_pointer (&self->hidden, g_hash_table_unref);
  g_clear_pointer (&self->content_hits, g_hash_table_unref);
  g_clear_pointer (&self->unreadable, g_strfreev);
  g_clear_pointer (&self->damaged_messages, g_strfreev);
  g_clear_pointer (&self->bound_rows, g_hash_table_unref);
  g_clear_pointer (&self->selected_id, g_free);
  g_clear_pointer (&self->menu_row_id, g_free);
  g_clear_pointer (&self->scope_ids, g_ptr_array_unref);
  g_clear_error (&self->search_error);

  G_OBJECT_CLASS (natter_sidebar_parent_class)->finalize (object);
}

static void
natter_sidebar_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  NatterSidebar *self = NATTER_SIDEBAR (object);

  switch (prop_id)
    {
    case PROP_SEARCH_MODE:
      g_value_set_boolean (value, natter_sidebar_get_search_mode (self));
      break;
    case PROP_PAGED:
      g_value_set_boolean (value, self->paged);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_sidebar_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  NatterSidebar *self = NATTER_SIDEBAR (object);

  switch (prop_id)
    {
    case PROP_SEARCH_MODE:
      natter_sidebar_set_search_mode (self, g_value_get_boolean (value));
      break;
    case PROP_PAGED:
      if (self->paged != g_value_get_boolean (value))
        {
          self->paged = g_value_get_boolean (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gboolean
natter_sidebar_focus (GtkWidget        *widget,
                      GtkDirectionType  direction)
{
  if (direction != GTK_DIR_TAB_FORWARD && direction != GTK_DIR_TAB_BACKWARD)
    return GTK_WIDGET_CLASS (natter_sidebar_parent_class)->focus (widget, direction);
  return _natter_sidebar_focus_tab (NATTER_SIDEBAR (widget), direction);
}

static void
natter_sidebar_class_init (NatterSidebarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_sidebar_dispose;
  object_class->finalize = natter_sidebar_finalize;
  object_class->get_property = natter_sidebar_get_property;
  object_class->set_property = natter_sidebar_set_property;
  widget_class->focus = natter_sidebar_focus;

  /**
   * NatterSidebar:search-mode:
   *
   * Whether the search bar shows. Turning it off clears the search.
   */
  properties[PROP_SEARCH_MODE] =
    g_param_spec_boolean ("search-mode", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterSidebar:paged:
   *
   * Whether the list is a page of its own, the conversation another (a
   * narrow window): a click on the open conversation's row then goes
   * back to it. The sidebar's owner says so; the sidebar does not look
   * at the widgets around it.
   */
  properties[PROP_PAGED] =
    g_param_spec_boolean ("paged", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterSidebar::session-selected:
   * @self: the sidebar
   * @session_id: the conversation the user picked
   * @by_key: whether an arrow key picked it (walking the list) rather
   *   than a click
   *
   * The user selected another conversation's row. Not emitted for
   * natter_sidebar_select().
   */
  signals[SESSION_SELECTED] = g_signal_new ("session-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                            0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);

  /**
   * NatterSidebar::session-activated:
   * @self: the sidebar
   * @session_id: the conversation of the activated row
   *
   * A row was activated (Enter, double click): the user wants to go to
   * that conversation.
   */
  signals[SESSION_ACTIVATED] = g_signal_new ("session-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                             0, NULL, NULL, NULL,
                                             G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * NatterSidebar::move-requested:
   * @self: the sidebar
   * @session_id: a conversation whose row was dropped on a header
   * @folder_id: (nullable): the folder it is to go in, or %NULL for none
   */
  signals[MOVE_REQUESTED] = g_signal_new ("move-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * NatterSidebar::pin-requested:
   * @self: the sidebar
   * @session_id: a conversation whose row was dropped on "Pinned"
   */
  signals[PIN_REQUESTED] = g_signal_new ("pin-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-sidebar.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterSidebar, scope_dropdown);
  gtk_widget_class_bind_template_child (widget_class, NatterSidebar, search_bar);
  gtk_widget_class_bind_template_child (widget_class, NatterSidebar, search_entry);
  gtk_widget_class_bind_template_child (widget_class, NatterSidebar, search_status);
  gtk_widget_class_bind_template_child (widget_class, NatterSidebar, sidebar_stack);
  gtk_widget_class_bind_template_child (widget_class, NatterSidebar, session_list);
  gtk_widget_class_bind_template_callback (widget_class, row_setup_cb);
  gtk_widget_class_bind_template_callback (widget_class, row_bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, row_unbind_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_search_cb);
}

static void
natter_sidebar_init (NatterSidebar *self)
{
  GtkShortcutController *shortcuts;
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));
  natter_accessible_name_stack_pages (self->sidebar_stack);
  self->hidden = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->content_hits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) sidebar_hit_free);
  self->bound_rows = g_hash_table_new (NULL, NULL);
  self->before_search.value = -1;
  self->bar_closed.value = -1;
  g_signal_connect_swapped (self->search_bar, "notify::search-mode-enabled", G_CALLBACK (search_mode_cb), self);
  g_signal_connect_swapped (self->session_list, "activate", G_CALLBACK (list_activate_cb), self);
  g_signal_connect_swapped (self->scope_dropdown, "notify::selected", G_CALLBACK (scope_selected_cb), self);
  natter_accessible_name_drop_down (self->scope_dropdown, _("Search In"));
  /* The entry is not the bar's own child: the menu of where to look is
   * beside it. */
  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));
  /* A letter typed while the list has the focus starts a search, as in
   * GNOME's other lists, rather than being lost: the search field opens
   * with it. Keys with Ctrl or Alt, arrows and Delete stay the list's. */
  gtk_search_bar_set_key_capture_widget (self->search_bar, GTK_WIDGET (self->session_list));
  keys = gtk_event_controller_key_new ();
  g_signal_connect_swapped (keys, "key-pressed", G_CALLBACK (list_typed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), keys);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (keys, "key-pressed", G_CALLBACK (list_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), keys);
  /* After the one above: a row the arrows select is selected by a key. */
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (keys, "key-pressed", G_CALLBACK (list_row_key_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), keys);

  /* Delete (and a stray BackSpace, which does nothing) in the list only
   * ever leads to the undo toast: nothing is lost to a stray key. */
  shortcuts = GTK_SHORTCUT_CONTROLLER (gtk_shortcut_controller_new ());
  /* "": the conversation whose row has the focus, which need not be the
   * open one (Tab moves the focus alone); it is deleted without being
   * opened first. */
  for (guint i = 0; i < 2; i++)
    gtk_shortcut_controller_add_shortcut (shortcuts,
                                          gtk_shortcut_new_with_arguments (gtk_keyval_trigger_new (i == 0 ? GDK_KEY_Delete : GDK_KEY_KP_Delete, 0),
                                                                           gtk_named_action_new ("win.delete"),
                                                                           "s", ""));
  gtk_shortcut_controller_add_shortcut (shortcuts,
                                        gtk_shortcut_new (gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_F10, GDK_SHIFT_MASK),
                                                                                       gtk_keyval_trigger_new (GDK_KEY_Menu, 0)),
                                                          gtk_callback_action_new (row_menu_key_cb, self, NULL)));
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), GTK_EVENT_CONTROLLER (shortcuts));
  update_page (self);
}

/* API */

/**
 * natter_sidebar_new:
 *
 * Creates a sidebar listing nothing until natter_sidebar_set_services().
 *
 * Returns: (transfer floating): a new #NatterSidebar
 */
GtkWidget *
natter_sidebar_new (void)
{
  return g_object_new (NATTER_TYPE_SIDEBAR, NULL);
}

/**
 * natter_sidebar_set_services:
 * @self: the sidebar, not given its services yet
 * @sessions: the session service whose index it lists
 * @hub: the turn event hub the rows watch for running turns
 * @ticker: the minute ticker the rows' relative times share
 *
 * Builds the list over natter_sessions_list_sessions(): index → filter
 * (search, hidden rows, one row per conversation however many versions
 * it has, natter-family-filter.c) → sort (newest first) → selection. Called once;
 * the sidebar keeps a reference to each service.
 */
void
natter_sidebar_set_services (NatterSidebar      *self,
                             NatterSessions     *sessions,
                             NatterTurnEventHub *hub,
                             NatterTimeTicker   *ticker)
{
  GtkExpression *title;
  GtkEveryFilter *filter;
  GtkAnyFilter *search;

  g_return_if_fail (NATTER_IS_SIDEBAR (self));
  g_return_if_fail (self->sessions == NULL);

  self->sessions = g_object_ref (sessions);
  self->hub = g_object_ref (hub);
  self->ticker = g_object_ref (ticker);

  title = gtk_property_expression_new (NATTER_TYPE_SESSION_INDEX_ENTRY, NULL, "title");
  self->title_filter = gtk_string_filter_new (title);
  gtk_string_filter_set_match_mode (self->title_filter, GTK_STRING_FILTER_MATCH_MODE_SUBSTRING);
  gtk_string_filter_set_ignore_case (self->title_filter, TRUE);
  gtk_string_filter_set_search (self->title_filter, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
  self->hidden_filter = gtk_custom_filter_new (not_hidden, self, NULL);
  self->content_filter = gtk_custom_filter_new (content_matches, self, NULL);
  /* A title that matches, or words said in the conversation. */
  search = gtk_any_filter_new ();
  gtk_multi_filter_append (GTK_MULTI_FILTER (search), g_object_ref (GTK_FILTER (self->title_filter)));
  gtk_multi_filter_append (GTK_MULTI_FILTER (search), g_object_ref (GTK_FILTER (self->content_filter)));
  filter = gtk_every_filter_new ();
  gtk_multi_filter_append (GTK_MULTI_FILTER (filter), GTK_FILTER (search));
  gtk_multi_filter_append (GTK_MULTI_FILTER (filter), g_object_ref (GTK_FILTER (self->hidden_filter)));
  self->family_filter = natter_family_filter_new (G_LIST_MODEL (natter_sessions_list_sessions (sessions)));
  natter_family_filter_set_hidden (self->family_filter, self->hidden);
  /* A search lists a conversation once, as a version it finds. */
  natter_family_filter_set_search (self->family_filter, GTK_FILTER (search));
  g_signal_connect_swapped (self->family_filter, "changed", G_CALLBACK (update_rows), self);
  gtk_multi_filter_append (GTK_MULTI_FILTER (filter), g_object_ref (GTK_FILTER (self->family_filter)));
  self->sections = natter_sidebar_sections_new (sessions, G_LIST_MODEL (natter_sessions_list_sessions (sessions)),
                                                GTK_FILTER (filter),
                                                GTK_SORTER (gtk_custom_sorter_new (compare_entries, NULL, NULL)));
  g_object_unref (filter);
  natter_sidebar_sections_set_family_filter (self->sections, self->family_filter);
  g_signal_connect_swapped (self->sections, "rebuilt", G_CALLBACK (sections_rebuilt_cb), self);
  g_signal_connect_swapped (sessions, "session-index-changed", G_CALLBACK (session_changed_cb), self);
  self->sort_model = natter_sidebar_sections_get_model (self->sections);
  /* Before the selection, and so the list, hears of a change; and after. */
  g_signal_connect_object (self->sort_model, "items-changed", G_CALLBACK (rows_changing_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sort_model, "items-changed", G_CALLBACK (rows_changed_cb), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  self->selection = gtk_single_selection_new (g_object_ref (self->sort_model));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  g_signal_connect_swapped (self->selection, "notify::selected-item", G_CALLBACK (selection_changed_cb), self);
  g_signal_connect_swapped (self->sort_model, "items-changed", G_CALLBACK (update_page), self);
  g_signal_connect_swapped (self->sort_model, "items-changed", G_CALLBACK (keep_top), self);

  gtk_list_view_set_model (self->session_list, GTK_SELECTION_MODEL (self->selection));
  update_page (self);
}

/**
 * natter_sidebar_get_model:
 * @self: the sidebar
 *
 * Returns: (transfer none) (nullable): what the list shows, in its order:
 *   the index, searched, without hidden rows, newest first; %NULL before
 *   natter_sidebar_set_services()
 */
GListModel *
natter_sidebar_get_model (NatterSidebar *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), NULL);
  return self->sort_model;
}

/**
 * natter_sidebar_get_list:
 * @self: the sidebar
 *
 * Returns: (transfer none): the #GtkListView of the conversations
 */
GtkWidget *
natter_sidebar_get_list (NatterSidebar *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), NULL);
  return GTK_WIDGET (self->session_list);
}

/**
 * natter_sidebar_find_position:
 * @self: the sidebar
 * @session_id: a session id
 *
 * Returns: the position of @session_id's row in natter_sidebar_get_model(),
 *   or %GTK_INVALID_LIST_POSITION when it is not listed (searched away,
 *   hidden, or unknown)
 */
guint
natter_sidebar_find_position (NatterSidebar *self,
                              const char    *session_id)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), GTK_INVALID_LIST_POSITION);
  if (self->sort_model == NULL)
    return GTK_INVALID_LIST_POSITION;
  return natter_sidebar_sections_find_position (self->sections, session_id);
}

/**
 * natter_sidebar_dup_versions:
 * @self: the sidebar
 * @session_id: a session of the index, not hidden
 *
 * Returns: (transfer full): the versions of @session_id's conversation,
 *   @session_id first (empty for a session the list does not know)
 */
GStrv
natter_sidebar_dup_versions (NatterSidebar *self,
                             const char    *session_id)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), NULL);
  if (self->family_filter == NULL)
    return g_new0 (char *, 1);
  return natter_family_filter_dup_versions (self->family_filter, session_id);
}

/**
 * natter_sidebar_get_n_versions:
 * @self: the sidebar
 * @session_id: a session of the index
 *
 * Returns: how many versions the conversation of @session_id has, as
 *   its row says (1 for one without versions, 0 for a session the list
 *   does not know)
 */
guint
natter_sidebar_get_n_versions (NatterSidebar *self,
                               const char    *session_id)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), 0);
  if (self->family_filter == NULL)
    return 0;
  return natter_family_filter_get_n_versions (self->family_filter, session_id);
}

/**
 * natter_sidebar_select:
 * @self: the sidebar
 * @session_id: (nullable): the conversation the window shows, or %NULL
 *
 * Marks @session_id's row as the selected one, now and whenever it comes
 * back into the list (after a search). Emits no
 * #NatterSidebar::session-selected.
 */
void
natter_sidebar_select (NatterSidebar *self,
                       const char    *session_id)
{
  g_return_if_fail (NATTER_IS_SIDEBAR (self));

  if (g_strcmp0 (self->selected_id, session_id) != 0)
    {
      g_free (self->selected_id);
      self->selected_id = g_strdup (session_id);
    }
  if (self->selection != NULL)
    sync_selection (self);
}

/**
 * natter_sidebar_set_row_menu:
 * @self: the sidebar
 * @func: (nullable): what builds the menu of a conversation's row, or
 *   %NULL for none
 * @user_data: passed to @func
 * @destroy: (nullable): frees @user_data with the sidebar, or when
 *   another function replaces @func
 *
 * Gives the conversations' rows a context menu, shown by right-click,
 * long-press, Shift+F10 and the Menu key: the one @func builds for the
 * row's conversation as it is about to show. Its items are to name that
 * conversation: the row is not opened for them.
 */
void
natter_sidebar_set_row_menu (NatterSidebar            *self,
                             NatterSidebarRowMenuFunc  func,
                             gpointer                  user_data,
                             GDestroyNotify            destroy)
{
  g_return_if_fail (NATTER_IS_SIDEBAR (self));

  g_clear_pointer (&self->row_menu, gtk_widget_unparent);
  if (self->row_menu_destroy != NULL)
    self->row_menu_destroy (self->row_menu_data);
  self->row_menu_func = func;
  self->row_menu_data = user_data;
  self->row_menu_destroy = destroy;
  if (func == NULL)
    return;
  self->row_menu = gtk_popover_menu_new_from_model (NULL);
  gtk_popover_set_has_arrow (GTK_POPOVER (self->row_menu), FALSE);
  gtk_widget_set_halign (self->row_menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->row_menu, GTK_WIDGET (self));
  g_signal_connect_object (self->row_menu, "closed", G_CALLBACK (row_menu_closed_cb), self, G_CONNECT_SWAPPED);
}

/**
 * natter_sidebar_get_row_menu:
 * @self: the sidebar
 *
 * Returns: (transfer none) (nullable): the rows' context menu, a
 *   #GtkPopoverMenu, for the tests to look at
 */
GtkWidget *
natter_sidebar_get_row_menu (NatterSidebar *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), NULL);

  return self->row_menu;
}

/**
 * natter_sidebar_scroll_to:
 * @self: the sidebar
 * @session_id: a session id
 *
 * Scrolls the list so that @session_id's row is in view (a new chat's row
 * at the top of a list scrolled down); nothing when it is not listed.
 */
void
natter_sidebar_scroll_to (NatterSidebar *self,
                          const char    *session_id)
{
  guint position;

  g_return_if_fail (NATTER_IS_SIDEBAR (self));
  g_return_if_fail (session_id != NULL);

  position = natter_sidebar_find_position (self, session_id);
  /* The top row is the top of the list, kept there while its rows are
   * laid out (a place being kept from before would pull it back). */
  if (position == 0)
    keep_scroll (self, &(ScrollPlace) { 0, -1 }, NULL);
  else if (position != GTK_INVALID_LIST_POSITION)
    gtk_widget_activate_action (GTK_WIDGET (self->session_list), "list.scroll-to-item", "u", position);
}

/**
 * natter_sidebar_set_hidden:
 * @self: the sidebar
 * @session_id: a session id
 * @hidden: whether its row is to be left out
 *
 * Hides a row (a conversation deleted with its undo toast still up) or
 * shows it again. A row shown again does not move the list: the rows
 * under the pointer stay where they were.
 */
void
natter_sidebar_set_hidden (NatterSidebar *self,
                           const char    *session_id,
                           gboolean       hidden)
{
  ScrollPlace place;

  g_return_if_fail (NATTER_IS_SIDEBAR (self));
  g_return_if_fail (session_id != NULL);

  if (hidden == g_hash_table_contains (self->hidden, session_id))
    return;
  place = current_place (self);
  if (hidden)
    g_hash_table_add (self->hidden, g_strdup (session_id));
  else
    g_hash_table_remove (self->hidden, session_id);
  if (self->hidden_filter == NULL)
    return;
  natter_family_filter_hidden_changed (self->family_filter);
  gtk_filter_changed (GTK_FILTER (self->hidden_filter),
                      hidden ? GTK_FILTER_CHANGE_MORE_STRICT : GTK_FILTER_CHANGE_LESS_STRICT);
  update_page (self);
  sync_selection (self);
  if (!hidden)
    keep_scroll (self, &place, NULL);
}

/**
 * natter_sidebar_start_search:
 * @self: the sidebar
 *
 * Shows the search bar and puts the keyboard focus in its entry.
 */
void
natter_sidebar_start_search (NatterSidebar *self)
{
  g_return_if_fail (NATTER_IS_SIDEBAR (self));
  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

/**
 * natter_sidebar_get_search_mode:
 * @self: the sidebar
 *
 * Returns: whether the search bar shows
 */
gboolean
natter_sidebar_get_search_mode (NatterSidebar *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), FALSE);
  return gtk_search_bar_get_search_mode (self->search_bar);
}

/**
 * natter_sidebar_set_search_mode:
 * @self: the sidebar
 * @search_mode: whether the search bar shows
 *
 * Shows or hides the search bar (#NatterSidebar:search-mode).
 */
void
natter_sidebar_set_search_mode (NatterSidebar *self,
                                gboolean       search_mode)
{
  g_return_if_fail (NATTER_IS_SIDEBAR (self));
  gtk_search_bar_set_search_mode (self->search_bar, search_mode);
}

/**
 * natter_sidebar_get_search_index:
 * @self: the sidebar
 *
 * Returns: (transfer none) (nullable): the full-text index its search
 *   uses, %NULL when it searches titles only
 */
NatterSearchIndex *
natter_sidebar_get_search_index (NatterSidebar *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), NULL);
  return self->search;
}

/**
 * natter_sidebar_set_search_index:
 * @self: the sidebar
 * @search: (nullable): the full-text index, or %NULL to search titles only
 *
 * Lets the search find conversations by the words of their messages and
 * answers as well as by title; each such row shows the matching words.
 * The sidebar keeps a reference to @search.
 */
void
natter_sidebar_set_search_index (NatterSidebar     *self,
                                 NatterSearchIndex *search)
{
  g_return_if_fail (NATTER_IS_SIDEBAR (self));
  g_return_if_fail (search == NULL || NATTER_IS_SEARCH_INDEX (search));

  if (self->search == search)
    return;
  if (self->search != NULL)
    g_signal_handlers_disconnect_by_data (self->search, self);
  g_set_object (&self->search, search);
  g_clear_pointer (&self->damaged_messages, g_strfreev);
  if (search != NULL)
    {
      self->damaged_messages = natter_search_index_dup_unreadable (search);
      g_signal_connect_object (search, "notify::n-checked", G_CALLBACK (index_progress_cb), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (search, "notify::indexing", G_CALLBACK (index_indexing_cb), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (search, "unreadable-changed", G_CALLBACK (index_unreadable_cb), self,
                               G_CONNECT_SWAPPED);
    }
  search_content (self, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
}

/**
 * natter_sidebar_get_hit_turn:
 * @self: the sidebar
 * @session_id: a session id
 *
 * Returns: (nullable) (transfer none): the turn where the search found
 *   the words it looks for in @session_id, while a search is on; %NULL
 *   when the search found it by title only, or no search is on
 */
const char *
natter_sidebar_get_hit_turn (NatterSidebar *self,
                             const char    *session_id)
{
  SidebarHit *hit;

  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), NULL);

  if (gtk_editable_get_text (GTK_EDITABLE (self->search_entry))[0] == '\0')
    return NULL;
  hit = g_hash_table_lookup (self->content_hits, session_id);
  return hit != NULL ? hit->turn_id : NULL;
}

/**
 * natter_sidebar_set_folders:
 * @self: the sidebar, given its services
 * @folders: (nullable): the folders conversations can be put in
 *
 * Shows the folders (docs/sessions.md §16) between the pinned
 * conversations and the others, and offers them to narrow the search to.
 */
void
natter_sidebar_set_folders (NatterSidebar *self,
                            NatterFolders *folders)
{
  g_return_if_fail (NATTER_IS_SIDEBAR (self));
  g_return_if_fail (self->sections != NULL);

  if (self->folders != NULL)
    g_signal_handlers_disconnect_by_data (self->folders, self);
  g_set_object (&self->folders, folders);
  natter_sidebar_sections_set_folders (self->sections, folders);
  if (folders != NULL)
    g_signal_connect_swapped (folders, "items-changed", G_CALLBACK (update_scope_menu), self);
  update_scope_menu (self);
}

/**
 * natter_sidebar_set_search_scope:
 * @self: the sidebar
 * @folder_id: (nullable): the folder the search looks in, %NULL for all
 *
 * Narrows the search to one folder's conversations, as its menu does.
 */
void
natter_sidebar_set_search_scope (NatterSidebar *self,
                                 const char    *folder_id)
{
  g_return_if_fail (NATTER_IS_SIDEBAR (self));

  for (guint i = 0; self->scope_ids != NULL && i < self->scope_ids->len; i++)
    if (g_strcmp0 (g_ptr_array_index (self->scope_ids, i), folder_id) == 0)
      {
        gtk_drop_down_set_selected (self->scope_dropdown, i);
        return;
      }
}

/**
 * natter_sidebar_get_search_scope:
 * @self: the sidebar
 *
 * Returns: (transfer none) (nullable): the folder the search looks in
 */
const char *
natter_sidebar_get_search_scope (NatterSidebar *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), NULL);
  return self->sections != NULL ? natter_sidebar_sections_get_scope (self->sections) : NULL;
}

/**
 * natter_sidebar_set_folder_expanded:
 * @self: the sidebar
 * @folder_id: a folder
 * @expanded: whether its conversations are listed under it
 */
void
natter_sidebar_set_folder_expanded (NatterSidebar *self,
                                    const char    *folder_id,
                                    gboolean       expanded)
{
  g_return_if_fail (NATTER_IS_SIDEBAR (self));
  g_return_if_fail (self->sections != NULL);

  set_expanded (self, folder_id, expanded);
}

/**
 * natter_sidebar_get_search_entry:
 * @self: the sidebar
 *
 * Returns: (transfer none): the search's entry
 */
GtkWidget *
natter_sidebar_get_search_entry (NatterSidebar *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), NULL);
  return GTK_WIDGET (self->search_entry);
}

/**
 * natter_sidebar_get_scope_dropdown:
 * @self: the sidebar
 *
 * Returns: (transfer none): the search's menu of where to look
 */
GtkWidget *
natter_sidebar_get_scope_dropdown (NatterSidebar *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR (self), NULL);
  return GTK_WIDGET (self->scope_dropdown);
}
