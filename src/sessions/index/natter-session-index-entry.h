/* natter-session-index-entry.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "natter-generation-parameters.h"
#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NATTER_LATEST_TURN_STATUS_NONE:
 *
 * `latestTurnStatus` of a session with no turns yet (docs/sessions.md
 * §8.1). The other values are the strings of natter_turn_status_to_string():
 * `completed`, `failed`, `cancelled`, `suspended`, `idle`.
 */
#define NATTER_LATEST_TURN_STATUS_NONE "none"

/**
 * NATTER_LATEST_TURN_STATUS_ARRIVING:
 *
 * `latestTurnStatus` of a session whose latest turn file has not arrived
 * from another device yet, in a data folder a synchroniser shares
 * (docs/sessions.md §8.1, docs/format.md §9.3): not known, and not
 * damage.
 */
#define NATTER_LATEST_TURN_STATUS_ARRIVING "arriving"

#define NATTER_TYPE_SESSION_INDEX_ENTRY (natter_session_index_entry_get_type ())

G_DECLARE_FINAL_TYPE (NatterSessionIndexEntry, natter_session_index_entry, NATTER, SESSION_INDEX_ENTRY, GObject)

const char *natter_session_index_entry_get_session_id         (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_title              (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_created_at         (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_updated_at         (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_latest_turn_at     (NatterSessionIndexEntry *self);
guint       natter_session_index_entry_get_turn_count         (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_last_agent_id      (NatterSessionIndexEntry *self);
JsonObject *natter_session_index_entry_get_last_model         (NatterSessionIndexEntry *self);
char       *natter_session_index_entry_dup_last_model_string  (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_latest_turn_id     (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_latest_turn_status (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_latest_turn_device_id (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_latest_turn_device_name (NatterSessionIndexEntry *self);
gboolean    natter_session_index_entry_get_latest_turn_imported (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_error              (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_cwd                (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_parent_session     (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_first_turn_id      (NatterSessionIndexEntry *self);
gboolean    natter_session_index_entry_get_is_version         (NatterSessionIndexEntry *self);
const NatterGenerationParameters *
            natter_session_index_entry_get_parameters         (NatterSessionIndexEntry *self);
gboolean    natter_session_index_entry_get_pinned             (NatterSessionIndexEntry *self);
const char *natter_session_index_entry_get_folder_id          (NatterSessionIndexEntry *self);

JsonNode   *natter_session_index_entry_to_json                (NatterSessionIndexEntry *self);
gboolean    natter_session_index_entry_equal                  (NatterSessionIndexEntry *a,
                                                               NatterSessionIndexEntry *b);

const char *natter_latest_turn_status_from_turn_status        (NatterTurnStatus         status);

G_END_DECLS
