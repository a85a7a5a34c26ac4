/* natter-sidebar.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-folders.h"
#include "natter-search-index.h"
#include "natter-session-row.h"
#include "natter-sessions.h"
#include "natter-turn-event-hub.h"

G_BEGIN_DECLS

#define NATTER_TYPE_SIDEBAR (natter_sidebar_get_type ())

G_DECLARE_FINAL_TYPE (NatterSidebar, natter_sidebar, NATTER, SIDEBAR, GtkBox)

GtkWidget    *natter_sidebar_new             (void);
void          natter_sidebar_set_services    (NatterSidebar      *self,
                                              NatterSessions     *sessions,
                                              NatterTurnEventHub *hub,
                                              NatterTimeTicker   *ticker);
GListModel   *natter_sidebar_get_model       (NatterSidebar      *self);
GtkWidget    *natter_sidebar_get_list        (NatterSidebar      *self);
guint         natter_sidebar_get_n_versions  (NatterSidebar      *self,
                                              const char         *session_id);
GStrv         natter_sidebar_dup_versions    (NatterSidebar      *self,
                                              const char         *session_id);
guint         natter_sidebar_find_position   (NatterSidebar      *self,
                                              const char         *session_id);
void          natter_sidebar_select          (NatterSidebar      *self,
                                              const char         *session_id);
void          natter_sidebar_scroll_to       (NatterSidebar      *self,
                                              const char         *session_id);
void          natter_sidebar_set_hidden      (NatterSidebar      *self,
                                              const char         *session_id,
                                              gboolean            hidden);
gboolean      natter_sidebar_focus_position  (NatterSidebar      *self,
                                              guint               position,
                                              gboolean            select);
void          natter_sidebar_focus_from_search (NatterSidebar    *self);
gboolean      natter_sidebar_focus_step      (NatterSidebar      *self,
                                              gboolean            forward,
                                              gboolean            select);
const char   *natter_sidebar_get_focused_session (NatterSidebar  *self);
gboolean      natter_sidebar_focus_folder    (NatterSidebar      *self,
                                              const char         *folder_id);
void          natter_sidebar_start_search    (NatterSidebar      *self);
gboolean      natter_sidebar_get_search_mode (NatterSidebar      *self);
void          natter_sidebar_set_search_mode (NatterSidebar      *self,
                                              gboolean            search_mode);

NatterSearchIndex *natter_sidebar_get_search_index (NatterSidebar *self);
void          natter_sidebar_set_search_index (NatterSidebar     *self,
                                               NatterSearchIndex *search);
const char   *natter_sidebar_get_hit_turn     (NatterSidebar     *self,
                                               const char        *session_id);

void          natter_sidebar_set_folders         (NatterSidebar  *self,
                                                  NatterFolders  *folders);
void          natter_sidebar_set_search_scope    (NatterSidebar  *self,
                                                  const char     *folder_id);
const char   *natter_sidebar_get_search_scope    (NatterSidebar  *self);
void          natter_sidebar_set_folder_expanded (NatterSidebar  *self,
                                                  const char     *folder_id,
                                                  gboolean        expanded);
GtkWidget    *natter_sidebar_get_search_entry    (NatterSidebar  *self);
GtkWidget    *natter_sidebar_get_scope_dropdown  (NatterSidebar  *self);

/**
 * NatterSidebarRowMenuFunc:
 * @session_id: the conversation whose row's menu is about to show
 * @user_data: what natter_sidebar_set_row_menu() was given
 *
 * Returns: (transfer full): the menu of that conversation's row
 */
typedef GMenuModel *(*NatterSidebarRowMenuFunc) (const char *session_id,
                                                 gpointer    user_data);

void          natter_sidebar_set_row_menu        (NatterSidebar  *self,
                                                  NatterSidebarRowMenuFunc func,
                                                  gpointer        user_data,
                                                  GDestroyNotify  destroy);
GtkWidget    *natter_sidebar_get_row_menu        (NatterSidebar  *self);

G_END_DECLS
