/* oracle-driver-report.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Failures and the report: each failure once, with the operation log
 * that reproduces the run.
 */

#include "config.h"

#include <string.h>

#include "natter-blob-store.h"
#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-session-families.h"
#include "natter-session-grants-queue.h"
#include "natter-sessions-grants.h"
#include "natter-sessions-private.h"
#include "natter-sessions-queue.h"
#include "natter-test-support.h"
#include "natter-turn-reducer.h"
#include "oracle-driver.h"
#include "oracle-driver-private.h"

/* ------------------------------------------------------------------ */
/* Failures and the report                                              */
/* ------------------------------------------------------------------ */

static gboolean
deferred (OracleDriver *d,
          const char   *kind)
{
  g_auto(GStrv) kinds = NULL;

  if (d->options.defer == NULL)
    return FALSE;
  kinds = g_strsplit (d->options.defer, ",", -1);
  return g_strv_contains ((const char * const *) kinds, kind);
}

void
oracle_driver_fail (OracleDriver *d,
                    const char   *kind,
                    const char   *format,
                    ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (!g_hash_table_add (d->failed, g_strdup_printf ("[%s] %s", kind, message)))
    return;
  oracle_log (d->o, "FAILED [%s] %s", kind, message);
  g_ptr_array_add (d->failures, g_strdup_printf ("op %u [%s] %s", d->op_number, kind, message));
  if (deferred (d, kind))
    {
      g_hash_table_add (d->deferred_kinds, g_strdup (kind));
      return;
    }
  d->n_failures++;
}

guint
oracle_driver_get_n_failures (OracleDriver *d)
{
  return d->n_failures;
}

/* A conversation an import failure (reported, deferred) left unlike the
 * model is left alone from then on, so that the run goes on to find
 * what else there is. */
void
diverge (OracleDriver *d,
         const char   *kind,
         OSession     *s)
{
  if (s == NULL || g_strcmp0 (kind, "import") != 0 || !deferred (d, kind))
    return;
  /* The conversation, and all that were made from it. */
  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *other = g_ptr_array_index (d->o->sessions, i);

      for (OSession *up = other; up != NULL; up = up->parent != NULL ? up->parent : up->version_of)
        if (up == s)
          other->diverged = TRUE;
    }
}

void
count (OracleDriver *d,
       const char   *what)
{
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (d->counts, what));

  g_hash_table_replace (d->counts, g_strdup (what), GUINT_TO_POINTER (n + 1));
}

char *
oracle_driver_dup_counts (OracleDriver *d)
{
  g_autoptr(GList) keys = g_list_sort (g_hash_table_get_keys (d->counts), (GCompareFunc) g_strcmp0);
  GString *out = g_string_new (NULL);

  for (GList *l = keys; l != NULL; l = l->next)
    g_string_append_printf (out, "%s%s=%u", out->len > 0 ? " " : "", (char *) l->data,
                            GPOINTER_TO_UINT (g_hash_table_lookup (d->counts, l->data)));
  g_string_append_printf (out, " model-calls=%u titles=%u summaries=%u", d->o->n_model_calls,
                          d->o->n_title_requests, d->o->n_summary_requests);
  return g_string_free (out, FALSE);
}

char *
oracle_driver_dup_report (OracleDriver *d)
{
  GString *out = g_string_new (NULL);
  g_autofree char *counts = oracle_driver_dup_counts (d);

  g_string_append_printf (out, "seed %u: %u operations, %u failure(s)\n", d->options.seed, d->op_number,
                          d->failures->len);
  g_string_append_printf (out, "counts: %s\n", counts);
  for (guint i = 0; i < d->failures->len; i++)
    g_string_append_printf (out, "FAILURE %s\n", (char *) g_ptr_array_index (d->failures, i));
  if (d->failures->len > 0 || d->options.verbose)
    g_string_append_printf (out, "operation log:\n%s", d->o->log->str);
  return g_string_free (out, FALSE);
}
