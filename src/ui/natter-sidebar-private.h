/* natter-sidebar-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sidebar's state, shared by its two files: natter-sidebar.c (the
 * list, its search and its rows' menu) and natter-sidebar-focus.c (the
 * keyboard focus on a row), which reads the list's parts from here so
 * that natter-sidebar.c may ask it to move the focus without the two
 * calling each other round.
 */

#pragma once

#include <gtk/gtk.h>

#include "natter-family-filter.h"
#include "natter-sidebar-sections.h"
#include "natter-sidebar.h"

G_BEGIN_DECLS

/* A place in the list, and how high its page was then (< 0: whatever
 * the page). */
typedef struct
{
  double value;
  double page;
} ScrollPlace;

struct _NatterSidebar
{
  GtkBox                parent_instance;

  NatterSessions       *sessions;
  NatterTurnEventHub   *hub;
  NatterTimeTicker     *ticker;

  NatterSidebarSections *sections;       /* Pinned, the folders, Recent */
  GListModel           *sort_model;       /* the sections' model: what the list shows */
  NatterFolders        *folders;
  GPtrArray            *scope_ids;        /* folder ids of the scope menu's items, NULL for all */
  GtkSingleSelection   *selection;
  GtkStringFilter      *title_filter;
  GtkCustomFilter      *hidden_filter;
  GtkCustomFilter      *content_filter;
  NatterFamilyFilter   *family_filter;    /* one row per conversation, not per version */

  /* Searching by content */
  NatterSearchIndex    *search;
  GHashTable           *content_hits;     /* session id → SidebarHit */
  GStrv                 unreadable;       /* of the last search: sessions with a turn not indexed */
  GStrv                 damaged_messages; /* as the index last said: sessions with a turn not indexed */
  GCancellable         *content_search;
  GHashTable           *bound_rows;       /* NatterSessionRow set */
  GHashTable           *hidden;           /* session ids */
  char                 *selected_id;      /* what natter_sidebar_select() chose */

  /* Where the list was before a search, and where a change of its rows
   * is to leave it (see natter_sidebar_keep_scroll()). */
  ScrollPlace           bar_closed;        /* value < 0: the search bar is closed */
  ScrollPlace           before_search;     /* value < 0: not searching */
  ScrollPlace           before_search_bar; /* bar_closed as the search began */
  ScrollPlace           pending;
  ScrollPlace           pending_bar_closed;
  GdkFrameClock        *scroll_clock;
  gulong                scroll_paint_id;
  gulong                scroll_layout_id;
  guint                 scroll_frames;
  guint                 scroll_stable_frames;

  guint                 list_key_id;      /* a key press in the list is being handled */
  char                 *focus_kept;       /* the conversation whose row had the focus as rows changed */
  guint                 focus_kept_id;    /* how long its row is waited for */
  GError               *search_error;     /* why the last search could not look at the words */
  gboolean              search_capped;    /* the last search found more turns than it ranks */
  gboolean              paged;            /* the list is a page of its own (NatterSidebar:paged) */
  GtkWidget            *row_menu;         /* a row's context menu, or NULL */
  NatterSidebarRowMenuFunc row_menu_func; /* what builds its items for a row */
  gpointer              row_menu_data;
  GDestroyNotify        row_menu_destroy;
  char                 *menu_row_id;      /* the conversation whose row it was shown for */

  /* Template children */
  GtkSearchBar         *search_bar;
  GtkSearchEntry       *search_entry;
  GtkDropDown          *scope_dropdown;
  GtkLabel             *search_status;
  GtkStack             *sidebar_stack;
  GtkListView          *session_list;
};

/* natter-sidebar-focus.c */
gboolean _natter_sidebar_focus_tab (NatterSidebar    *self,
                                    GtkDirectionType  direction);

G_END_DECLS
