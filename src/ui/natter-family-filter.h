/* natter-family-filter.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NATTER_TYPE_FAMILY_FILTER (natter_family_filter_get_type ())

G_DECLARE_FINAL_TYPE (NatterFamilyFilter, natter_family_filter, NATTER, FAMILY_FILTER, GtkFilter)

NatterFamilyFilter *natter_family_filter_new            (GListModel         *index);
void                natter_family_filter_set_enabled    (NatterFamilyFilter *self,
                                                         gboolean            enabled);
void                natter_family_filter_set_search     (NatterFamilyFilter *self,
                                                         GtkFilter          *search);
const char         *natter_family_filter_get_listed     (NatterFamilyFilter *self,
                                                         const char         *session_id);
gboolean            natter_family_filter_is_listed_version (NatterFamilyFilter *self,
                                                            const char         *session_id);
guint               natter_family_filter_get_n_versions (NatterFamilyFilter *self,
                                                         const char         *session_id);
void                natter_family_filter_set_hidden     (NatterFamilyFilter *self,
                                                         GHashTable         *hidden);
void                natter_family_filter_hidden_changed (NatterFamilyFilter *self);
gboolean            natter_family_filter_is_hidden      (NatterFamilyFilter *self,
                                                         const char         *session_id);
GStrv               natter_family_filter_dup_versions   (NatterFamilyFilter *self,
                                                         const char         *session_id);

G_END_DECLS
