/* natter-import-report.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * NatterImportReport:
 * @session_ids: (element-type utf8): the conversations the import made,
 *   in the order of the file (a ChatGPT conversation's other branches,
 *   made versions of its messages, are not among them)
 * @n_versions: versions of messages made from the other branches of
 *   ChatGPT conversations (regenerated answers, edited messages)
 * @n_grants: "Always Allow" grants the file held, not brought over
 * @n_queued: queued messages the file held, not brought over
 * @n_stopped: answers that had not ended in the file (waiting for a
 *   permission, a tool or a resume), brought over as stopped
 * @n_endpoints: turns the file says were answered through a server
 *   address: the address is kept as a label and never contacted
 * @n_working_folders: working folders the file named for its tools, not
 *   brought over
 * @n_instructions: instructions the file's conversations added to the
 *   agent's system prompt (their settings, docs/format.md §3.5), not
 *   brought over
 * @n_images: images and other files the file only points to, each left
 *   as a placeholder in the text
 * @n_empty: conversations without a message, not imported
 * @already: (element-type utf8): titles of conversations imported
 *   before, not imported again
 * @defective: (element-type utf8): the conversations that could not be
 *   read, each "Conversation N (“title”): why"; nothing of them was
 *   written
 *
 * What an import brought in and what it left out
 * (natter_sessions_import_finish(), docs/format.md §7).
 */
typedef struct
{
  GPtrArray *session_ids;
  guint      n_versions;
  guint      n_grants;
  guint      n_queued;
  guint      n_stopped;
  guint      n_endpoints;
  guint      n_working_folders;
  guint      n_instructions;
  guint      n_images;
  guint      n_empty;
  GPtrArray *already;
  GPtrArray *defective;
} NatterImportReport;

#define NATTER_TYPE_IMPORT_REPORT (natter_import_report_get_type ())

GType               natter_import_report_get_type     (void) G_GNUC_CONST;
NatterImportReport *natter_import_report_new          (void);
NatterImportReport *natter_import_report_copy         (const NatterImportReport *report);
void                natter_import_report_free         (NatterImportReport       *report);
void                natter_import_report_add          (NatterImportReport       *report,
                                                       const NatterImportReport *other);
GStrv               natter_import_report_dup_notes    (const NatterImportReport *report);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterImportReport, natter_import_report_free)

G_END_DECLS
