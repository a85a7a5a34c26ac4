/* natter-sidebar-sections.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "natter-family-filter.h"
#include "natter-folders.h"
#include "natter-sessions.h"

G_BEGIN_DECLS

/**
 * NatterSidebarHeaderKind:
 * @NATTER_SIDEBAR_HEADER_PINNED: above the pinned conversations
 * @NATTER_SIDEBAR_HEADER_FOLDER: a folder, which its conversations follow
 *   while it is expanded
 * @NATTER_SIDEBAR_HEADER_RECENT: above the conversations in no folder
 *
 * What a header row of the sidebar stands for.
 */
typedef enum
{
  NATTER_SIDEBAR_HEADER_PINNED,
  NATTER_SIDEBAR_HEADER_FOLDER,
  NATTER_SIDEBAR_HEADER_RECENT,
} NatterSidebarHeaderKind;

#define NATTER_TYPE_SIDEBAR_HEADER (natter_sidebar_header_get_type ())

G_DECLARE_FINAL_TYPE (NatterSidebarHeader, natter_sidebar_header, NATTER, SIDEBAR_HEADER, GObject)

NatterSidebarHeaderKind natter_sidebar_header_get_kind     (NatterSidebarHeader *self);
NatterFolder           *natter_sidebar_header_get_folder   (NatterSidebarHeader *self);
gboolean                natter_sidebar_header_get_expanded (NatterSidebarHeader *self);

#define NATTER_TYPE_SIDEBAR_SECTIONS (natter_sidebar_sections_get_type ())

G_DECLARE_FINAL_TYPE (NatterSidebarSections, natter_sidebar_sections, NATTER, SIDEBAR_SECTIONS, GObject)

NatterSidebarSections *natter_sidebar_sections_new               (NatterSessions        *sessions,
                                                                  GListModel            *index,
                                                                  GtkFilter             *shown,
                                                                  GtkSorter             *sorter);
GListModel            *natter_sidebar_sections_get_model         (NatterSidebarSections *self);
void                   natter_sidebar_sections_set_family_filter (NatterSidebarSections *self,
                                                                  NatterFamilyFilter    *families);
void                   natter_sidebar_sections_set_folders       (NatterSidebarSections *self,
                                                                  NatterFolders         *folders);
void                   natter_sidebar_sections_set_searching     (NatterSidebarSections *self,
                                                                  gboolean               searching);
void                   natter_sidebar_sections_set_scope         (NatterSidebarSections *self,
                                                                  const char            *folder_id);
const char            *natter_sidebar_sections_get_scope         (NatterSidebarSections *self);
void                   natter_sidebar_sections_set_expanded      (NatterSidebarSections *self,
                                                                  const char            *folder_id,
                                                                  gboolean               expanded);
gboolean               natter_sidebar_sections_get_expanded      (NatterSidebarSections *self,
                                                                  const char            *folder_id);
const char            *natter_sidebar_sections_get_folder_id     (NatterSidebarSections *self,
                                                                  const char            *session_id);
void                   natter_sidebar_sections_session_changed   (NatterSidebarSections *self,
                                                                  const char            *session_id);
guint                  natter_sidebar_sections_find_position     (NatterSidebarSections *self,
                                                                  const char            *session_id);

G_END_DECLS
