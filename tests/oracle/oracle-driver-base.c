/* oracle-driver-base.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the driver's files share, at the bottom of their calls: the waits,
 * the random choices, the session service's reading of one conversation,
 * lookups in the model, and which conversations to read next. It calls
 * only the report (oracle-driver-report.c); the scripted model, the
 * readings, the operations, the command line and the run
 * (oracle-driver.c) call it.
 */

#include "config.h"

#include "natter-test-support.h"
#include "oracle-driver.h"
#include "oracle-driver-private.h"

G_DEFINE_QUARK (oracle-shown-refusal-quark, oracle_shown_refusal)

void
oracle_sent_clear (OracleSent *sent)
{
  g_clear_pointer (&sent->session_id, g_free);
  g_clear_pointer (&sent->turn_id, g_free);
  g_clear_pointer (&sent->queue_id, g_free);
  g_clear_error (&sent->error);
}

/* ------------------------------------------------------------------ */
/* Waiting                                                              */
/* ------------------------------------------------------------------ */

gboolean
oracle_driver_wait (OracleDriver    *d,
                    NatterTestCheck  condition,
                    gpointer         data)
{
  return natter_test_wait_until (condition, data, WAIT_MS);
}

static gboolean
pointer_set_cb (gpointer data)
{
  return *(gpointer *) data != NULL;
}

/* Waits for an async result; a result that never comes is a failure the
 * run cannot go on from. */
GAsyncResult *
wait_result (OracleDriver  *d,
             GAsyncResult **slot,
             const char    *what)
{
  if (!oracle_driver_wait (d, pointer_set_cb, slot))
    {
      g_autofree char *report = NULL;

      oracle_driver_fail (d, "stalled", "%s never finished", what);
      report = oracle_driver_dup_report (d);
      g_printerr ("%s", report);
      g_error ("seed %u: %s never finished", d->options.seed, what);
    }
  return *slot;
}

void
flush (OracleDriver *d)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_flush_async (d->f.sessions, NULL, natter_test_result_cb, &result);
  natter_sessions_flush_finish (d->f.sessions, wait_result (d, &result, "a flush"), NULL);
}

/* ------------------------------------------------------------------ */
/* Reading through the session service                                  */
/* ------------------------------------------------------------------ */

NatterSessionState *
get_session (OracleDriver  *d,
             const char    *id,
             GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_get_session_async (d->f.sessions, id, NULL, natter_test_result_cb, &result);
  return natter_sessions_get_session_finish (d->f.sessions, wait_result (d, &result, "getSession"), error);
}

/* ------------------------------------------------------------------ */
/* Choosing                                                             */
/* ------------------------------------------------------------------ */

guint
pick (OracleDriver *d,
      guint         n)
{
  return n > 0 ? (guint) g_rand_int_range (d->o->rand, 0, n) : 0;
}

gboolean
chance (OracleDriver *d,
        guint         percent)
{
  return pick (d, 100) < percent;
}

OSession *
any_session (OracleDriver *d,
             gboolean (*ok) (OracleDriver *d, OSession *s))
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new ();

  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);

      if (s->id != NULL && !s->diverged && (ok == NULL || ok (d, s)))
        g_ptr_array_add (candidates, s);
    }
  return candidates->len > 0 ? g_ptr_array_index (candidates, pick (d, candidates->len)) : NULL;
}

GPtrArray *
draw_files (OracleDriver *d)
{
  GPtrArray *files = g_ptr_array_new ();

  if (d->o->attachable->len > 0 && chance (d, 20))
    g_ptr_array_add (files, g_ptr_array_index (d->o->attachable, pick (d, d->o->attachable->len)));
  return files;
}

/* ------------------------------------------------------------------ */
/* The model's turns and sessions                                       */
/* ------------------------------------------------------------------ */

OToolCall *
pending_call (OTurn     *t,
              OCallState state)
{
  for (guint i = 0; i < t->calls->len; i++)
    {
      OToolCall *call = g_ptr_array_index (t->calls, i);

      if (call->state == state && call->result == NULL)
        return call;
    }
  return NULL;
}

gboolean
has_read_grant (OSession *s)
{
  for (guint i = 0; i < s->grants->len; i++)
    if (g_str_equal (((OGrant *) g_ptr_array_index (s->grants, i))->tool, ORACLE_READ_FILE_ID))
      return TRUE;
  return FALSE;
}

guint
n_pending (OTurn *t)
{
  guint n = 0;

  for (guint i = 0; i < t->calls->len; i++)
    n += ((OToolCall *) g_ptr_array_index (t->calls, i))->result == NULL;
  return n;
}

void
set_id (char       **slot,
        const char  *id)
{
  if (*slot == NULL && id != NULL)
    *slot = g_strdup (id);
}

/* ------------------------------------------------------------------ */
/* What to read after an operation                                      */
/* ------------------------------------------------------------------ */

void
touch (OracleDriver *d,
       OSession     *s)
{
  if (s != NULL)
    {
      g_hash_table_add (d->touched, s);
      g_hash_table_add (d->cli_touched, s);
    }
}

void
touch_all (OracleDriver *d)
{
  for (guint i = 0; i < d->o->sessions->len; i++)
    touch (d, g_ptr_array_index (d->o->sessions, i));
}
