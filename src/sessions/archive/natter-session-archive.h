/* natter-session-archive.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-import-report.h"
#include "natter-session-reducer.h"

G_BEGIN_DECLS

/**
 * NATTER_ARCHIVE_FORMAT:
 *
 * The `format` member of a Natter JSON archive (docs/format.md §7).
 */
#define NATTER_ARCHIVE_FORMAT "natter-archive"

/**
 * NATTER_ARCHIVE_VERSION:
 *
 * The only archive `version` this build reads and writes.
 */
#define NATTER_ARCHIVE_VERSION 1

/**
 * NatterImportPlan:
 * @session_id: the session's id (a placeholder until
 *   natter_import_plan_remap())
 * @session_events: (element-type JsonNode): the session log, in order
 * @turn_ids: (element-type utf8): the turns, in the order they are written
 * @turn_events: (element-type GPtrArray): one array of JsonNode per
 *   turn of @turn_ids, its log in order
 * @blobs: (element-type utf8 GBytes): the attachments the plan brings,
 *   by SHA-256 (checked against their bytes)
 * @earlier_turns: (element-type utf8 utf8) (nullable): turns of plans
 *   written before this one that its session and turns may name (the
 *   fork point of a version, natter_import_plan_add_earlier_turn())
 * @report: what the plan brings and leaves out, for the import's report
 *   (its `session_ids` stay empty: the import fills them as it writes)
 *
 * One session and its turns, checked and ready to be written as new files.
 */
typedef struct
{
  char               *session_id;
  GPtrArray          *session_events;
  GPtrArray          *turn_ids;
  GPtrArray          *turn_events;
  GHashTable         *blobs;
  GHashTable         *earlier_turns;
  NatterImportReport *report;
} NatterImportPlan;

NatterImportPlan *natter_import_plan_new                 (const char        *session_id);
void              natter_import_plan_free                (NatterImportPlan  *plan);
GPtrArray        *natter_import_plan_add_turn            (NatterImportPlan  *plan,
                                                          const char        *turn_id);
void              natter_import_plan_add_earlier_turn    (NatterImportPlan  *plan,
                                                          const char        *turn_id);
gboolean          natter_import_plan_check               (NatterImportPlan  *plan,
                                                          NatterSessionState **out_state,
                                                          char             **out_latest_status,
                                                          GError           **error);
void              natter_import_plan_remap               (NatterImportPlan  *plan,
                                                          GHashTable        *new_ids);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterImportPlan, natter_import_plan_free)

JsonNode         *natter_session_archive_new             (GPtrArray         *session_events,
                                                          GPtrArray         *turn_ids,
                                                          GPtrArray         *turn_events,
                                                          GHashTable        *blobs,
                                                          const char        *exported_at);
GPtrArray        *natter_turn_events_dup_blob_names      (GPtrArray         *events);
JsonObject       *natter_turn_definition_get_resolved_agent   (JsonObject  *definition);
JsonObject       *natter_turn_definition_get_model            (JsonObject  *definition);
NatterImportPlan *natter_session_archive_plan_import     (JsonNode          *archive,
                                                          const char        *ts,
                                                          GError           **error);

G_END_DECLS
