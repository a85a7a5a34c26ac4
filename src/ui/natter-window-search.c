/* natter-window-search.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sidebar search by content: as the user types, the full-text index
 * is asked in a worker thread, the conversations it finds join those
 * whose title matches, each row shows the words that matched, and
 * opening such a conversation scrolls to the turn where they were said.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-session-row.h"
#include "natter-turn-item.h"
#include "natter-window-private.h"

/* Enough for a sidebar: more hits than that means the words say little. */
#define CONTENT_LIMIT 500

typedef struct
{
  char *turn_id;
  char *markup;
} SidebarHit;

static void
sidebar_hit_free (SidebarHit *hit)
{
  g_free (hit->turn_id);
  g_free (hit->markup);
  g_free (hit);
}

static gboolean
content_matches (gpointer item,
                 gpointer user_data)
{
  NatterWindow *self = user_data;

  return g_hash_table_contains (self->content_hits, natter_session_index_entry_get_session_id (item));
}

/* The filter that lets through the sessions the last content search found;
 * the sidebar ORs it with the title filter. */
GtkFilter *
_natter_window_content_filter_new (NatterWindow *self)
{
  self->content_hits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) sidebar_hit_free);
  self->bound_rows = g_hash_table_new (NULL, NULL);
  self->content_filter = gtk_custom_filter_new (content_matches, self, NULL);
  return g_object_ref (GTK_FILTER (self->content_filter));
}

static void
update_row (NatterWindow     *self,
            NatterSessionRow *row)
{
  NatterSessionIndexEntry *entry = natter_session_row_get_entry (row);
  SidebarHit *hit = entry != NULL ? g_hash_table_lookup (self->content_hits,
                                                         natter_session_index_entry_get_session_id (entry))
                                  : NULL;

  natter_session_row_set_snippet (row, hit != NULL ? hit->markup : NULL);
}

/* Rows bound to an entry show its snippet while a search found it. */
void
_natter_window_search_bind_row (NatterWindow     *self,
                                NatterSessionRow *row)
{
  if (self->bound_rows == NULL)
    return;
  g_hash_table_add (self->bound_rows, row);
  update_row (self, row);
}

void
_natter_window_search_unbind_row (NatterWindow     *self,
                                  NatterSessionRow *row)
{
  if (self->bound_rows == NULL)
    return;
  g_hash_table_remove (self->bound_rows, row);
  natter_session_row_set_snippet (row, NULL);
}

static void
set_hits (NatterWindow *self,
          GPtrArray    *hits)
{
  GHashTableIter iter;
  gpointer row;

  g_hash_table_remove_all (self->content_hits);
  for (guint i = 0; hits != NULL && i < hits->len; i++)
    {
      NatterSearchHit *found = g_ptr_array_index (hits, i);
      SidebarHit *hit;

      /* Best first: a session keeps its best turn. */
      if (g_hash_table_contains (self->content_hits, found->session_id))
        continue;
      hit = g_new0 (SidebarHit, 1);
      hit->turn_id = g_strdup (found->turn_id);
      /* Escaped here, piece by piece: what was said is never markup. */
      hit->markup = natter_search_snippet_to_markup (found->snippet);
      g_hash_table_insert (self->content_hits, g_strdup (found->session_id), hit);
    }
  gtk_filter_changed (GTK_FILTER (self->content_filter), GTK_FILTER_CHANGE_DIFFERENT);
  g_hash_table_iter_init (&iter, self->bound_rows);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    update_row (self, row);
  _natter_window_update_sidebar_page (self);
  _natter_window_sync_selection (self);
}

static void
content_searched_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GPtrArray) hits = NULL;
  g_autoptr(GError) error = NULL;
  gboolean still_indexing = FALSE;

  hits = natter_search_index_search_finish (NATTER_SEARCH_INDEX (object), result, &still_indexing, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->content_filter == NULL)
    return;
  if (hits == NULL)
    /* Titles are still searched; the index is only a cache. */
    g_warning ("Searching the conversations failed: %s", error->message);
  gtk_widget_set_visible (GTK_WIDGET (self->search_status), still_indexing);
  set_hits (self, hits);
}

/* The search text changed: ask the index again (the title filter has
 * already been updated). */
void
_natter_window_search_changed (NatterWindow *self,
                               const char   *text)
{
  if (self->content_filter == NULL)
    return;
  g_cancellable_cancel (self->content_search);
  g_clear_object (&self->content_search);
  if (self->search == NULL || text[0] == '\0')
    {
      gtk_widget_set_visible (GTK_WIDGET (self->search_status), FALSE);
      set_hits (self, NULL);
      return;
    }
  self->content_search = g_cancellable_new ();
  natter_search_index_search_async (self->search, text, CONTENT_LIMIT, self->content_search,
                                    content_searched_cb, g_object_ref (self));
}

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
  g_return_if_fail (search == NULL || NATTER_IS_SEARCH_INDEX (search));

  g_set_object (&self->search, search);
  if (self->search_entry != NULL)
    _natter_window_search_changed (self, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
}

/* Where the turns a search found were said */

/* The turn the content search found in @session_id, while a search is on. */
const char *
_natter_window_search_hit_turn (NatterWindow *self,
                                const char   *session_id)
{
  SidebarHit *hit;

  if (self->content_hits == NULL || gtk_editable_get_text (GTK_EDITABLE (self->search_entry))[0] == '\0')
    return NULL;
  hit = g_hash_table_lookup (self->content_hits, session_id);
  return hit != NULL ? hit->turn_id : NULL;
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
  g_cancellable_cancel (self->content_search);
  g_clear_object (&self->content_search);
  g_clear_object (&self->search);
  g_clear_object (&self->content_filter);
  g_clear_pointer (&self->content_hits, g_hash_table_unref);
  g_clear_pointer (&self->bound_rows, g_hash_table_unref);
  g_clear_pointer (&self->reveal_turn_id, g_free);
}
