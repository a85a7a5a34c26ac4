/* natter-session-families.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-session-index.h"

G_BEGIN_DECLS

typedef struct _NatterSessionFamilies NatterSessionFamilies;

/**
 * NatterSessionFamiliesAccept:
 * @entry: a session of the index
 * @user_data: the data given with the function
 *
 * Returns: whether @entry may be shown
 */
typedef gboolean (*NatterSessionFamiliesAccept) (NatterSessionIndexEntry *entry,
                                                 gpointer                 user_data);

NatterSessionFamilies *natter_session_families_new            (GListModel            *index);
void                   natter_session_families_free           (NatterSessionFamilies *self);
const char            *natter_session_families_get_head       (NatterSessionFamilies *self,
                                                               const char            *session_id);
const char            *natter_session_families_get_original   (NatterSessionFamilies *self,
                                                               const char            *session_id);
GStrv                  natter_session_families_dup_members    (NatterSessionFamilies *self,
                                                               const char            *session_id);
guint                  natter_session_families_get_n_versions (NatterSessionFamilies *self,
                                                               const char            *session_id);
const char            *natter_session_families_find_head_among (NatterSessionFamilies      *self,
                                                                 const char                 *session_id,
                                                                 NatterSessionFamiliesAccept accept,
                                                                 gpointer                    user_data);
gboolean               natter_session_families_is_head        (NatterSessionFamilies *self,
                                                               const char            *session_id);
const char            *natter_session_families_find_latest    (NatterSessionFamilies *self,
                                                               const char * const    *session_ids);
NatterSessionIndexEntry *natter_session_families_find_original (NatterSessionIndex *index,
                                                                const char         *session_id);
gboolean               natter_session_families_equal_heads    (NatterSessionFamilies *a,
                                                               NatterSessionFamilies *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSessionFamilies, natter_session_families_free)

G_END_DECLS
