/* natter-window-sidebar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session list: the index filtered (search by title, and by content
 * through natter-window-search.c; pending deletes) and
 * sorted newest first, its selection, and keeping its scroll position
 * through searches and changes of its rows.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-ask-human-card.h"
#include "natter-branch-row.h"
#include "natter-permission-card.h"
#include "natter-provider-error.h"
#include "natter-runtime-error.h"
#include "natter-session-error.h"
#include "natter-session-row.h"
#include "natter-store-error.h"
#include "natter-toast-guard.h"
#include "natter-turn-row.h"
#include "natter-window-private.h"

/* The sidebar */

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
not_pending_delete (gpointer item,
                    gpointer user_data)
{
  NatterWindow *self = user_data;

  return !g_hash_table_contains (self->pending_deletes,
                                 natter_session_index_entry_get_session_id (item));
}

void
_natter_window_update_sidebar_page (NatterWindow *self)
{
  const char *page = "list";

  if (self->sort_model == NULL || g_list_model_get_n_items (G_LIST_MODEL (self->sort_model)) == 0)
    {
      const char *search = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

      page = search[0] != '\0' ? "no-results" : "empty";
    }
  gtk_stack_set_visible_child_name (self->sidebar_stack, page);
}

guint
_natter_window_find_position (NatterWindow *self,
                              const char   *session_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sort_model));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->sort_model), i);

      if (g_strcmp0 (natter_session_index_entry_get_session_id (entry), session_id) == 0)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

void
_natter_window_sync_selection (NatterWindow *self)
{
  guint position = self->session_id != NULL ? _natter_window_find_position (self, self->session_id) : GTK_INVALID_LIST_POSITION;

  if (gtk_single_selection_get_selected (self->selection) != position)
    gtk_single_selection_set_selected (self->selection, position);
}

static void
sidebar_items_changed_cb (NatterWindow *self)
{
  _natter_window_update_sidebar_page (self);
}

static void
selection_changed_cb (NatterWindow *self)
{
  NatterSessionIndexEntry *entry = gtk_single_selection_get_selected_item (self->selection);

  /* A selection lost to a re-sort or a filter is not the user closing
   * the conversation. */
  if (entry == NULL)
    return;
  if (g_strcmp0 (natter_session_index_entry_get_session_id (entry), self->session_id) == 0)
    return;
  natter_window_open_session (self, natter_session_index_entry_get_session_id (entry));
  /* Found by what was said: show where it was said. */
  if (_natter_window_search_hit_turn (self, natter_session_index_entry_get_session_id (entry)) != NULL)
    _natter_window_reveal_turn (self, _natter_window_search_hit_turn (self,
                                                                      natter_session_index_entry_get_session_id (entry)));
  /* On a narrow window, arrow keys walk the list and Enter goes to the
   * conversation (session_activate_cb); a click goes at once. */
  if (!(self->list_key_id != 0 && adw_leaflet_get_folded (self->leaflet)))
    adw_leaflet_set_visible_child (self->leaflet, self->content);
}

static gboolean
session_list_key_done_cb (gpointer user_data)
{
  NatterWindow *self = user_data;

  self->list_key_id = 0;
  return G_SOURCE_REMOVE;
}

/* Runs before the list's own key bindings, which change the selection
 * synchronously; the mark lasts until this key press is handled. */
static gboolean
session_list_key_pressed_cb (NatterWindow *self)
{
  if (self->list_key_id == 0)
    self->list_key_id = g_idle_add_full (G_PRIORITY_HIGH, session_list_key_done_cb, self, NULL);
  return GDK_EVENT_PROPAGATE;
}

static void
session_activate_cb (NatterWindow *self,
                     guint         position)
{
  adw_leaflet_set_visible_child (self->leaflet, self->content);
  gtk_widget_grab_focus (GTK_WIDGET (self->composer));
}

static void
session_setup_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *list_item,
                  NatterWindow             *self)
{
  gtk_list_item_set_child (list_item, natter_session_row_new (self->sessions, self->hub, self->ticker));
}

static void
session_bind_cb (GtkSignalListItemFactory *factory,
                 GtkListItem              *list_item,
                 NatterWindow             *self)
{
  natter_session_row_set_entry (NATTER_SESSION_ROW (gtk_list_item_get_child (list_item)),
                                gtk_list_item_get_item (list_item));
  _natter_window_search_bind_row (self, NATTER_SESSION_ROW (gtk_list_item_get_child (list_item)));
}

static void
session_unbind_cb (GtkSignalListItemFactory *factory,
                   GtkListItem              *list_item,
                   NatterWindow             *self)
{
  _natter_window_search_unbind_row (self, NATTER_SESSION_ROW (gtk_list_item_get_child (list_item)));
  natter_session_row_set_entry (NATTER_SESSION_ROW (gtk_list_item_get_child (list_item)), NULL);
}

GtkAdjustment *
_natter_window_sidebar_adjustment (NatterWindow *self)
{
  GtkWidget *scroller = gtk_widget_get_parent (GTK_WIDGET (self->session_list));

  return gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
}

static gboolean
sidebar_scroll_tick_cb (GtkWidget     *widget,
                        GdkFrameClock *clock,
                        gpointer       user_data)
{
  NatterWindow *self = user_data;
  GtkAdjustment *adjustment = _natter_window_sidebar_adjustment (self);
  double reachable = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);

  gtk_adjustment_set_value (adjustment, self->pending_scroll);
  /* The rows that came back are measured over a few frames: until the
   * list is long enough again, the value is clamped and set once more. */
  if ((reachable >= self->pending_scroll &&
       G_APPROX_VALUE (gtk_adjustment_get_value (adjustment), self->pending_scroll, 1.5)) ||
      ++self->scroll_ticks >= 30)
    {
      self->scroll_tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/* Puts the sidebar back at @value once its rows are laid out again. Rows
 * coming back (a search cleared, a deletion undone) must not move the
 * list: the row under the pointer has to stay the one the user saw. */
void
_natter_window_keep_sidebar_scroll (NatterWindow *self,
                                    double        value)
{
  self->pending_scroll = value;
  self->scroll_ticks = 0;
  gtk_adjustment_set_value (_natter_window_sidebar_adjustment (self), value);
  if (self->scroll_tick_id == 0)
    self->scroll_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->session_list),
                                                         sidebar_scroll_tick_cb, self, NULL);
}

static void
search_changed_cb (NatterWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  double restore = -1;

  if (text[0] != '\0' && self->scroll_before_search < 0)
    self->scroll_before_search = gtk_adjustment_get_value (_natter_window_sidebar_adjustment (self));
  else if (text[0] == '\0' && self->scroll_before_search >= 0)
    {
      restore = self->scroll_before_search;
      self->scroll_before_search = -1;
    }
  gtk_string_filter_set_search (self->title_filter, text);
  _natter_window_search_changed (self, text);
  _natter_window_update_sidebar_page (self);
  /* The search may have dropped the open conversation's row: it is
   * selected again as soon as it is back. */
  _natter_window_sync_selection (self);
  if (restore >= 0)
    _natter_window_keep_sidebar_scroll (self, restore);
}

static void
stop_search_cb (NatterWindow *self)
{
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
}

void
_natter_window_class_sidebar_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_search_cb);
}


/* Builds the sidebar's models over the session index: index → filter
 * (search, pending deletes) → sort (newest first) → selection. */
void
_natter_window_sidebar_init (NatterWindow *self)
{
  GtkListItemFactory *factory;
  GtkExpression *title;
  GtkEveryFilter *filter;
  GtkAnyFilter *search;
  GtkShortcutController *shortcuts;
  GtkEventController *keys;

  title = gtk_property_expression_new (NATTER_TYPE_SESSION_INDEX_ENTRY, NULL, "title");
  self->title_filter = gtk_string_filter_new (title);
  gtk_string_filter_set_match_mode (self->title_filter, GTK_STRING_FILTER_MATCH_MODE_SUBSTRING);
  gtk_string_filter_set_ignore_case (self->title_filter, TRUE);
  self->pending_filter = gtk_custom_filter_new (not_pending_delete, self, NULL);
  /* A title that matches, or words said in the conversation. */
  search = gtk_any_filter_new ();
  gtk_multi_filter_append (GTK_MULTI_FILTER (search), g_object_ref (GTK_FILTER (self->title_filter)));
  gtk_multi_filter_append (GTK_MULTI_FILTER (search), _natter_window_content_filter_new (self));
  filter = gtk_every_filter_new ();
  gtk_multi_filter_append (GTK_MULTI_FILTER (filter), GTK_FILTER (search));
  gtk_multi_filter_append (GTK_MULTI_FILTER (filter), g_object_ref (GTK_FILTER (self->pending_filter)));
  self->filter_model = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->index)), GTK_FILTER (filter));
  self->sort_model = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->filter_model)),
                                              GTK_SORTER (gtk_custom_sorter_new (compare_entries, NULL, NULL)));
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sort_model)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  g_signal_connect_swapped (self->selection, "notify::selected-item", G_CALLBACK (selection_changed_cb), self);
  g_signal_connect_swapped (self->sort_model, "items-changed", G_CALLBACK (sidebar_items_changed_cb), self);

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (session_setup_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (session_bind_cb), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (session_unbind_cb), self);
  gtk_list_view_set_factory (self->session_list, factory);
  g_object_unref (factory);
  gtk_list_view_set_model (self->session_list, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect_swapped (self->session_list, "activate", G_CALLBACK (session_activate_cb), self);
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (keys, "key-pressed", G_CALLBACK (session_list_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), keys);

  /* Delete (and a stray BackSpace, which does nothing) in the list only
   * ever leads to the undo toast: nothing is lost to a stray key. */
  shortcuts = GTK_SHORTCUT_CONTROLLER (gtk_shortcut_controller_new ());
  gtk_shortcut_controller_add_shortcut (shortcuts,
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Delete, 0),
                                                          gtk_named_action_new ("win.delete")));
  gtk_shortcut_controller_add_shortcut (shortcuts,
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_KP_Delete, 0),
                                                          gtk_named_action_new ("win.delete")));
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), GTK_EVENT_CONTROLLER (shortcuts));
}
