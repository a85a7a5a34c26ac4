/* natter-import-report.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What an import did, for the person who asked for it: the conversations
 * it made and, as plainly as the command line and the window can say
 * it, everything it did not bring over (an imported conversation is
 * data, never authority: its grants, queued messages, server addresses
 * and working folder stay behind, docs/format.md §7) and every
 * conversation it could not read.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-import-report.h"

G_DEFINE_BOXED_TYPE (NatterImportReport, natter_import_report, natter_import_report_copy, natter_import_report_free)

/**
 * natter_import_report_new:
 *
 * Returns: (transfer full): an empty report
 */
NatterImportReport *
natter_import_report_new (void)
{
  NatterImportReport *report = g_new0 (NatterImportReport, 1);

  report->session_ids = g_ptr_array_new_with_free_func (g_free);
  report->already = g_ptr_array_new_with_free_func (g_free);
  report->defective = g_ptr_array_new_with_free_func (g_free);
  return report;
}

static void
append_strings (GPtrArray       *to,
                const GPtrArray *from)
{
  for (guint i = 0; i < from->len; i++)
    g_ptr_array_add (to, g_strdup (g_ptr_array_index (from, i)));
}

/**
 * natter_import_report_add:
 * @report: a report
 * @other: another report
 *
 * Adds what @other counts and lists to @report.
 */
void
natter_import_report_add (NatterImportReport       *report,
                          const NatterImportReport *other)
{
  g_return_if_fail (report != NULL && other != NULL);

  append_strings (report->session_ids, other->session_ids);
  report->n_versions += other->n_versions;
  report->n_grants += other->n_grants;
  report->n_queued += other->n_queued;
  report->n_stopped += other->n_stopped;
  report->n_endpoints += other->n_endpoints;
  report->n_working_folders += other->n_working_folders;
  report->n_instructions += other->n_instructions;
  report->n_images += other->n_images;
  report->n_empty += other->n_empty;
  append_strings (report->already, other->already);
  append_strings (report->defective, other->defective);
}

/**
 * natter_import_report_copy:
 * @report: a report
 *
 * Returns: (transfer full): a copy of @report
 */
NatterImportReport *
natter_import_report_copy (const NatterImportReport *report)
{
  NatterImportReport *copy;

  g_return_val_if_fail (report != NULL, NULL);

  copy = natter_import_report_new ();
  natter_import_report_add (copy, report);
  return copy;
}

/**
 * natter_import_report_free:
 * @report: (transfer full) (nullable): a report
 */
void
natter_import_report_free (NatterImportReport *report)
{
  if (report == NULL)
    return;
  g_ptr_array_unref (report->session_ids);
  g_ptr_array_unref (report->already);
  g_ptr_array_unref (report->defective);
  g_free (report);
}

/* Adds @text and frees it. */
static void
add_note (GStrvBuilder *notes,
          char         *text)
{
  g_strv_builder_add (notes, text);
  g_free (text);
}

/**
 * natter_import_report_dup_notes:
 * @report: a report
 *
 * What the person should know about the import beyond the conversations
 * it made, one sentence each, translated: the versions made of other
 * branches, what was not brought over and why, the conversations left
 * out as empty or imported before. The conversations that could not be
 * read are in @report's `defective`, not here.
 *
 * Returns: (transfer full): the sentences; empty when there is nothing
 *   to say
 */
GStrv
natter_import_report_dup_notes (const NatterImportReport *report)
{
  g_autoptr(GStrvBuilder) notes = g_strv_builder_new ();
  guint n;

  g_return_val_if_fail (report != NULL, NULL);

  if ((n = report->n_versions) > 0)
    add_note (notes, g_strdup_printf (ngettext ("%u regenerated answer or edited message was kept as another "
                                                "version of its message.",
                                                "%u regenerated answers or edited messages were kept as other "
                                                "versions of their messages.", n), n));
  if ((n = report->n_grants) > 0)
    add_note (notes, g_strdup_printf (ngettext ("%u “Always Allow” permission was not brought over: tools ask "
                                                "again.",
                                                "%u “Always Allow” permissions were not brought over: tools ask "
                                                "again.", n), n));
  if ((n = report->n_queued) > 0)
    add_note (notes, g_strdup_printf (ngettext ("%u queued message was not brought over and will not be sent.",
                                                "%u queued messages were not brought over and will not be sent.",
                                                n), n));
  if ((n = report->n_stopped) > 0)
    add_note (notes, g_strdup_printf (ngettext ("%u answer that had not ended was brought over as stopped.",
                                                "%u answers that had not ended were brought over as stopped.",
                                                n), n));
  if ((n = report->n_endpoints) > 0)
    add_note (notes, g_strdup_printf (ngettext ("%u answer came from a server address named in the file: it is "
                                                "shown as a label and never contacted; new messages go to your "
                                                "own providers.",
                                                "%u answers came from server addresses named in the file: they "
                                                "are shown as labels and never contacted; new messages go to "
                                                "your own providers.", n), n));
  if ((n = report->n_working_folders) > 0)
    add_note (notes, g_strdup_printf (ngettext ("%u working folder named in the file was not brought over: tools "
                                                "work in your own folders.",
                                                "%u working folders named in the file were not brought over: "
                                                "tools work in your own folders.", n), n));
  if ((n = report->n_instructions) > 0)
    add_note (notes, g_strdup_printf (ngettext ("%u system instruction the file added to the conversation was "
                                                "not brought over: answers follow only what you set here.",
                                                "%u system instructions the file added to its conversations "
                                                "were not brought over: answers follow only what you set here.",
                                                n), n));
  if ((n = report->n_images) > 0)
    add_note (notes, g_strdup_printf (ngettext ("%u image or file is not in the file: a placeholder names it.",
                                                "%u images or files are not in the file: placeholders name them.",
                                                n), n));
  if ((n = report->n_empty) > 0)
    add_note (notes, g_strdup_printf (ngettext ("%u conversation without messages was left out.",
                                                "%u conversations without messages were left out.", n), n));
  if ((n = report->already->len) > 0)
    add_note (notes, g_strdup_printf (ngettext ("%u conversation was imported before and was left out.",
                                                "%u conversations were imported before and were left out.", n),
                                      n));
  return g_strv_builder_end (notes);
}
