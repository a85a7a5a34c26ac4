/* natter-session-index-entry-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The writers of an index entry. Only the index (and the startup scan that
 * builds entries for it) changes entries: the index is a projection of the
 * session files, never a place to edit them.
 */

#pragma once

#include "natter-session-index-entry.h"

G_BEGIN_DECLS

NatterSessionIndexEntry *natter_session_index_entry_new                     (const char              *session_id);
NatterSessionIndexEntry *natter_session_index_entry_new_from_state          (NatterSessionState      *state);
NatterSessionIndexEntry *natter_session_index_entry_new_errored             (const char              *session_id,
                                                                             const char              *error);

void                     natter_session_index_entry_assign                  (NatterSessionIndexEntry *self,
                                                                             NatterSessionIndexEntry *other);
void                     natter_session_index_entry_apply_state             (NatterSessionIndexEntry *self,
                                                                             NatterSessionState      *state);
void                     natter_session_index_entry_set_title               (NatterSessionIndexEntry *self,
                                                                             const char              *title);
void                     natter_session_index_entry_set_created_at          (NatterSessionIndexEntry *self,
                                                                             const char              *created_at);
void                     natter_session_index_entry_set_updated_at          (NatterSessionIndexEntry *self,
                                                                             const char              *updated_at);
void                     natter_session_index_entry_set_latest_turn_at      (NatterSessionIndexEntry *self,
                                                                             const char              *latest_turn_at);
void                     natter_session_index_entry_set_turn_count          (NatterSessionIndexEntry *self,
                                                                             guint                    turn_count);
void                     natter_session_index_entry_set_last_agent_id       (NatterSessionIndexEntry *self,
                                                                             const char              *last_agent_id);
void                     natter_session_index_entry_set_last_model          (NatterSessionIndexEntry *self,
                                                                             JsonObject              *last_model);
void                     natter_session_index_entry_set_last_model_names    (NatterSessionIndexEntry *self,
                                                                             const char              *provider,
                                                                             const char              *model);
void                     natter_session_index_entry_get_last_model_names    (NatterSessionIndexEntry  *self,
                                                                             const char              **out_provider,
                                                                             const char              **out_model);
void                     natter_session_index_entry_set_latest_turn_id      (NatterSessionIndexEntry *self,
                                                                             const char              *latest_turn_id);
void                     natter_session_index_entry_set_latest_turn_status  (NatterSessionIndexEntry *self,
                                                                             const char              *status);
void                     natter_session_index_entry_set_latest_turn_device (NatterSessionIndexEntry *self,
                                                                            const char              *id,
                                                                            const char              *name);
void                     natter_session_index_entry_set_latest_turn_imported (NatterSessionIndexEntry *self,
                                                                              gboolean                 imported);
void                     natter_session_index_entry_set_error               (NatterSessionIndexEntry *self,
                                                                             const char              *error);
void                     natter_session_index_entry_set_cwd                 (NatterSessionIndexEntry *self,
                                                                             const char              *cwd);
void                     natter_session_index_entry_set_parent_session      (NatterSessionIndexEntry *self,
                                                                             const char              *parent_session);
void                     natter_session_index_entry_set_first_turn_id       (NatterSessionIndexEntry *self,
                                                                             const char              *first_turn_id);
void                     natter_session_index_entry_set_is_version          (NatterSessionIndexEntry *self,
                                                                             gboolean                 is_version);

void                     natter_session_index_entry_set_parameters          (NatterSessionIndexEntry *self,
                                                                             const NatterGenerationParameters *parameters);
void                     natter_session_index_entry_set_pinned              (NatterSessionIndexEntry *self,
                                                                             gboolean                 pinned);
void                     natter_session_index_entry_set_folder_id           (NatterSessionIndexEntry *self,
                                                                             const char              *folder_id);

G_END_DECLS
