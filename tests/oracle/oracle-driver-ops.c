/* oracle-driver-ops.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The operations a person does through the services, the answers to a
 * turn that end with its stream, restarts (dropping the services and
 * loading them again), and the send pipeline as the front end runs it.
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

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

static const char *
outcome_name (OSendOutcome outcome)
{
  switch (outcome)
    {
    case OSEND_TURN:
      return "sent";
    case OSEND_QUEUED:
      return "queued";
    case OSEND_NOT_SETTLED:
      return "refused: the latest turn has not settled";
    case OSEND_HISTORY_DAMAGED:
      return "refused: the history cannot be read";
    case OSEND_CORRUPT:
      return "refused: the conversation cannot be used";
    case OSEND_INVALID:
      return "refused: nothing to compact";
    case OSEND_REFUSED:
      return "refused";
    }
  return "?";
}

static gboolean
error_is (const GError *error,
          OSendOutcome  outcome)
{
  if (error->domain == ORACLE_SHOWN_REFUSAL)
    return outcome != OSEND_TURN && outcome != OSEND_QUEUED;
  switch (outcome)
    {
    case OSEND_NOT_SETTLED:
      return g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED);
    case OSEND_HISTORY_DAMAGED:
      return g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
    case OSEND_CORRUPT:
      return g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT);
    case OSEND_INVALID:
      return g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
    case OSEND_REFUSED:
      return TRUE;
    case OSEND_TURN:
    case OSEND_QUEUED:
      return FALSE;
    }
  return FALSE;
}

static void check_sent_as (OracleDriver *d, const char *what, const OSendResult *want, OracleSent *sent,
                           const char *outcome);

/* Compares what a front end says became of a message with the model. */
void
check_sent (OracleDriver      *d,
            const char        *what,
            const OSendResult *want,
            OracleSent        *sent)
{
  const char *outcome = want->session != NULL && oracle_from_import (want->session) ? "import" : "outcome";
  guint n_failures = d->failures->len;

  check_sent_as (d, what, want, sent, outcome);
  if (d->failures->len > n_failures)
    diverge (d, outcome, want->session);
}

static void
check_sent_as (OracleDriver      *d,
               const char        *what,
               const OSendResult *want,
               OracleSent        *sent,
               const char        *outcome)
{
  if (sent->error != NULL)
    {
      oracle_log (d->o, "  -> %s", sent->error->message);
      if (want->outcome == OSEND_TURN || want->outcome == OSEND_QUEUED)
        {
          oracle_driver_fail (d, outcome, "%s: %s expected, refused: %s", what, outcome_name (want->outcome),
                              sent->error->message);
          /* No turn came of it: the model stops waiting for its call. */
          if (want->turn != NULL)
            {
              want->turn->forgotten = TRUE;
              want->turn->status = OT_FAILED;
            }
        }
      else if (!error_is (sent->error, want->outcome))
        oracle_driver_fail (d, "error-code", "%s: %s expected, refused otherwise: %s (%s %d)", what,
                            outcome_name (want->outcome), sent->error->message,
                            g_quark_to_string (sent->error->domain), sent->error->code);
      return;
    }
  oracle_log (d->o, "  -> session %s turn %s queue %s", sent->session_id, sent->turn_id != NULL ? sent->turn_id : "-",
              sent->queue_id != NULL ? sent->queue_id : "-");
  if (want->outcome != OSEND_TURN && want->outcome != OSEND_QUEUED)
    {
      oracle_driver_fail (d, outcome, "%s: %s expected, but it was %s", what, outcome_name (want->outcome),
                          sent->turn_id != NULL ? "sent" : "queued");
      return;
    }
  if ((want->outcome == OSEND_QUEUED) != (sent->queue_id != NULL))
    oracle_driver_fail (d, outcome, "%s: %s expected, but it was %s", what, outcome_name (want->outcome),
                        sent->queue_id != NULL ? "queued" : "sent");
  if (want->session != NULL)
    set_id (&want->session->id, sent->session_id);
  if (want->turn != NULL)
    set_id (&want->turn->id, sent->turn_id);
  if (want->queued != NULL)
    set_id (&want->queued->id, sent->queue_id);
}

static char *
files_text (GPtrArray *files)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; files != NULL && i < files->len; i++)
    g_string_append_printf (out, " +%s", ((OFile *) g_ptr_array_index (files, i))->name);
  return g_string_free (out, FALSE);
}

void
op_send (OracleDriver *d,
         OSession     *s,
         gboolean      queue)
{
  gboolean fresh = s == NULL;
  g_autofree char *text = oracle_new_text (d->o, fresh || s->own->len == 0);
  g_autoptr(GPtrArray) files = draw_files (d);
  g_autofree char *shown_files = files_text (files);
  g_autofree char *escaped = g_strescape (text, NULL);
  guint max_calls = chance (d, 15) ? 1 + pick (d, 3) : 0;
  OMsg *input = oracle_user_msg (d->o, text, files);
  OracleSent sent = { 0 };
  OSendResult want;

  if (fresh)
    s = oracle_new_session (d->o);
  if (d->front->auto_queue)
    {
      OTurn *latest = oracle_latest (s);

      queue = latest != NULL && (latest->status == OT_HELD || latest->status == OT_WAITING_CALL ||
                                 latest->status == OT_SUSPENDED);
    }
  oracle_log (d->o, "op %u: %s \"%s\"%s to S%u%s%s", d->op_number, queue ? "queue" : "send", escaped, shown_files,
              s->n, fresh ? " (new)" : "", max_calls > 0 ? " (max model calls given)" : "");
  want = oracle_send (d->o, s, input, queue, max_calls, FALSE);
  want.created = fresh;
  d->front->send (d, fresh ? NULL : s->id, text, files, queue, max_calls, &sent);
  check_sent (d, "a message", &want, &sent);
  d->can_retry = FALSE;
  if (sent.error != NULL && fresh)
    oracle_forget_session (d->o, s);
  else if (sent.error != NULL && sent.retry_offered)
    {
      d->can_retry = TRUE;
      d->refused_session = s;
      d->refused_input = input;
      d->refused_max_calls = max_calls;
      d->refused_queue = queue;
    }
  touch (d, s);
  oracle_sent_clear (&sent);
}

/* The error's Retry: the same message, files included, again. */
void
op_retry_refused (OracleDriver *d)
{
  OSession *s = d->refused_session;
  OracleSent sent = { 0 };
  OSendResult want;
  g_autofree char *escaped = g_strescape (d->refused_input->text, NULL);
  g_autofree char *shown_files = files_text (d->refused_input->files);

  oracle_log (d->o, "op %u: retry the message that was not sent, \"%s\"%s, to S%u", d->op_number, escaped,
              shown_files, s->n);
  want = oracle_send (d->o, s, d->refused_input, d->refused_queue, d->refused_max_calls, FALSE);
  d->front->retry (d, &sent);
  check_sent (d, "the Retry of a message", &want, &sent);
  if (sent.error == NULL)
    d->can_retry = FALSE;
  touch (d, s);
  oracle_sent_clear (&sent);
}

void
op_version (OracleDriver *d,
            OSession     *shown_in,
            OTurn        *of,
            const char   *kind)
{
  gboolean edit = g_str_equal (kind, "edit");
  gboolean compact = g_str_equal (kind, "compact-and-continue");
  g_autofree char *text = edit ? oracle_new_text (d->o, TRUE) : NULL;
  OMsg *input = edit ? oracle_user_msg (d->o, text, d->front->edit_keeps_files ? of->input->files : NULL)
                     : of->input;
  OracleSent sent = { 0 };
  OSendResult want;

  oracle_log (d->o, "op %u: %s T%u (%s) shown in S%u%s%s", d->op_number, kind, of->n, oracle_status_name (of),
              shown_in->n, edit ? " as " : "", edit ? text : "");
  want = oracle_new_version (d->o, shown_in, of, input, compact, FALSE);
  if (edit)
    d->front->edit (d, shown_in->id, of->id, text, &sent);
  else
    d->front->again (d, shown_in->id, of->id, compact, &sent);
  check_sent (d, kind, &want, &sent);
  /* Compact and Continue makes its turn once the summary came: its id is
   * learned from the session. */
  if (sent.error == NULL && want.session != NULL)
    touch (d, want.session);
  else if (sent.error == NULL && want.session == NULL)
    oracle_driver_fail (d, "outcome", "%s made conversation %s, none expected", kind, sent.session_id);
  if (sent.error != NULL && want.session != NULL && want.outcome == OSEND_TURN)
    oracle_forget_session (d->o, want.session);
  touch (d, shown_in);
  oracle_sent_clear (&sent);
}

void
op_release (OracleDriver *d,
            OTurn        *t)
{
  const char *const chunks[] = { sse_finish ("stop"), SSE_DONE, NULL };

  oracle_log (d->o, "op %u: the stream of T%u ends", d->op_number, t->n);
  if (!natter_test_server_release (d->f.server, (guint) t->held_index, chunks))
    oracle_driver_fail (d, "stalled", "T%u's stream was no longer open", t->n);
  oracle_release (d->o, t);
  touch (d, t->owner);
}

void
op_stop (OracleDriver *d,
         OTurn        *t)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  oracle_log (d->o, "op %u: stop T%u (%s)", d->op_number, t->n, oracle_status_name (t));
  oracle_stop (d->o, t);
  natter_sessions_stop_turn_async (d->f.sessions, t->id, NULL, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_stop_turn_finish (d->f.sessions, wait_result (d, &result, "stop"), &error))
    oracle_driver_fail (d, "outcome", "stopping T%u failed: %s", t->n, error->message);
  touch (d, t->owner);
}

static void
check_outcome (OracleDriver      *d,
               const char        *what,
               NatterTurnOutcome *outcome,
               GError            *error)
{
  if (outcome == NULL)
    oracle_driver_fail (d, "outcome", "%s failed: %s", what, error != NULL ? error->message : "(no error)");
  g_clear_pointer (&outcome, natter_turn_outcome_unref);
}

static void
pending_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  ((OraclePending *) user_data)->result = g_object_ref (result);
}

static gboolean
pending_done_cb (gpointer data)
{
  OraclePending *p = data;

  return p->result != NULL || p->turn->status == OT_HELD;
}

static void
pending_finish (OracleDriver  *d,
                OraclePending *p)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *grant_id = NULL;
  NatterTurnOutcome *outcome = NULL;

  switch (p->kind)
    {
    case PENDING_PERMISSION:
      outcome = natter_sessions_respond_to_permission_finish (d->f.sessions, p->result, &error);
      break;
    case PENDING_ALWAYS:
      outcome = natter_sessions_allow_always_finish (d->f.sessions, p->result, &grant_id, &error);
      set_id (&p->grant->id, grant_id);
      break;
    case PENDING_ANSWER:
      outcome = natter_sessions_respond_to_ask_human_finish (d->f.sessions, p->result, &error);
      break;
    }
  check_outcome (d, "an answer to a turn", outcome, error);
  g_object_unref (p->result);
  g_free (p);
}

static void
pending_await (OracleDriver  *d,
               OraclePending *p)
{
  if (!oracle_driver_wait (d, pending_done_cb, p))
    {
      g_autofree char *report = NULL;

      oracle_driver_fail (d, "stalled", "T%u's answer never finished", p->turn->n);
      report = oracle_driver_dup_report (d);
      g_printerr ("%s", report);
      g_error ("seed %u: an answer never finished", d->options.seed);
    }
  if (p->result != NULL)
    pending_finish (d, p);
  else
    g_ptr_array_add (d->pending, p);
}

/* The pending operations whose turn has settled since. */
void
pending_collect (OracleDriver *d)
{
  for (guint i = 0; i < d->pending->len;)
    {
      OraclePending *p = g_ptr_array_index (d->pending, i);

      if (p->result != NULL)
        {
          g_ptr_array_remove_index (d->pending, i);
          pending_finish (d, p);
        }
      else
        i++;
    }
}

void
op_permission (OracleDriver *d,
               OTurn        *t,
               OToolCall    *call,
               const char   *decision)
{
  OraclePending *p = g_new0 (OraclePending, 1);
  gboolean always = g_str_equal (decision, "always");

  oracle_log (d->o, "op %u: %s %s of T%u", d->op_number, decision, call->id, t->n);
  p->turn = t;
  if (g_str_equal (decision, "deny"))
    oracle_deny (d->o, t, call);
  else
    oracle_allow (d->o, t, call, always);
  if (always)
    {
      p->kind = PENDING_ALWAYS;
      p->grant = g_ptr_array_index (t->owner->grants, t->owner->grants->len - 1);
      natter_sessions_allow_always_async (d->f.sessions, t->id, call->id, NULL, pending_cb, p);
    }
  else
    {
      p->kind = PENDING_PERMISSION;
      natter_sessions_respond_to_permission_async (d->f.sessions, t->id, call->id, decision, NULL, NULL, pending_cb,
                                                   p);
    }
  pending_await (d, p);
  touch (d, t->owner);
}

void
op_answer (OracleDriver *d,
           OTurn        *t,
           OToolCall    *call)
{
  OraclePending *p = g_new0 (OraclePending, 1);
  g_autofree char *text = oracle_new_text (d->o, FALSE);
  g_autofree char *escaped = g_strescape (text, NULL);

  oracle_log (d->o, "op %u: answer %s of T%u with \"%s\"", d->op_number, call->id, t->n, escaped);
  oracle_answer (d->o, t, call, text);
  p->kind = PENDING_ANSWER;
  p->turn = t;
  natter_sessions_respond_to_ask_human_async (d->f.sessions, t->id, call->id, text, NULL, pending_cb, p);
  pending_await (d, p);
  touch (d, t->owner);
}

void
op_resume (OracleDriver *d,
           OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  OTurn *t = oracle_latest (s);

  oracle_log (d->o, "op %u: resume S%u (T%u)", d->op_number, s->n, t->n);
  oracle_resume (d->o, t, FALSE);
  natter_sessions_resume_turn_async (d->f.sessions, s->id, NULL, natter_test_result_cb, &result);
  turn_id = natter_sessions_resume_turn_finish (d->f.sessions, wait_result (d, &result, "resume"), &error);
  if (turn_id == NULL)
    oracle_driver_fail (d, "outcome", "resuming S%u failed: %s", s->n, error->message);
  touch (d, s);
}

void
op_unqueue (OracleDriver *d,
            OSession     *s)
{
  OQueued *q = g_ptr_array_index (s->queue, pick (d, s->queue->len));
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  oracle_log (d->o, "op %u: unqueue %s of S%u", d->op_number, q->id, s->n);
  natter_sessions_remove_queued_message_async (d->f.sessions, s->id, q->id, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_remove_queued_message_finish (d->f.sessions, wait_result (d, &result, "unqueue"), &error))
    oracle_driver_fail (d, "outcome", "unqueueing failed: %s", error->message);
  oracle_unqueue (d->o, s, q);
  touch (d, s);
}

void
op_replace_queued (OracleDriver *d,
                   OSession     *s)
{
  OQueued *q = g_ptr_array_index (s->queue, pick (d, s->queue->len));
  g_autofree char *text = oracle_new_text (d->o, FALSE);
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  oracle_log (d->o, "op %u: edit queued %s of S%u", d->op_number, q->id, s->n);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_replace_queued_message_async (d->f.sessions, s->id, q->id, input, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_replace_queued_message_finish (d->f.sessions, wait_result (d, &result, "replace"), &error))
    oracle_driver_fail (d, "outcome", "editing a queued message failed: %s", error->message);
  q->input = oracle_user_msg (d->o, text, NULL);
  touch (d, s);
}

void
op_grant (OracleDriver *d,
          OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  OGrant *g;

  oracle_log (d->o, "op %u: grant read_file in S%u", d->op_number, s->n);
  g = oracle_grant (d->o, s, ORACLE_READ_FILE_ID);
  natter_sessions_add_grant_async (d->f.sessions, s->id, ORACLE_READ_FILE_ID, NULL, natter_test_result_cb, &result);
  id = natter_sessions_add_grant_finish (d->f.sessions, wait_result (d, &result, "grant"), &error);
  if (id == NULL)
    oracle_driver_fail (d, "outcome", "granting failed: %s", error->message);
  set_id (&g->id, id);
  touch (d, s);
}

void
op_revoke (OracleDriver *d,
           OSession     *s)
{
  OGrant *g = g_ptr_array_index (s->grants, pick (d, s->grants->len));
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  oracle_log (d->o, "op %u: revoke %s of S%u", d->op_number, g->id, s->n);
  natter_sessions_remove_grant_async (d->f.sessions, s->id, g->id, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_remove_grant_finish (d->f.sessions, wait_result (d, &result, "revoke"), &error))
    oracle_driver_fail (d, "outcome", "revoking failed: %s", error->message);
  oracle_revoke (d->o, s, g);
  touch (d, s);
}

void
op_compact (OracleDriver *d,
            OSession     *s,
            guint         keep)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;

  oracle_log (d->o, "op %u: compact S%u keeping %u", d->op_number, s->n, keep);
  oracle_begin_compaction (d->o, s, keep);
  natter_sessions_compact_async (d->f.sessions, s->id, keep, NULL, natter_test_result_cb, &result);
  id = natter_sessions_compact_finish (d->f.sessions, wait_result (d, &result, "compact"), &error);
  if (id == NULL)
    {
      oracle_driver_fail (d, "outcome", "compacting S%u failed: %s", s->n, error->message);
      d->o->compacting = NULL;
    }
  touch (d, s);
}

void
op_fork (OracleDriver *d,
         OSession     *s,
         OTurn        *at)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  OSession *b;

  oracle_log (d->o, "op %u: branch S%u at T%u", d->op_number, s->n, at->n);
  /* Asked of the conversation that shows the turn, the branch is made
   * of the one that has it as its own, a deleted one too
   * (docs/sessions.md §9.4). */
  b = oracle_fork (d->o, at->owner, at, s);
  natter_sessions_fork_async (d->f.sessions, s->id, at->id, NULL, NULL, natter_test_result_cb, &result);
  id = natter_sessions_fork_finish (d->f.sessions, wait_result (d, &result, "fork"), &error);
  if (b == NULL)
    {
      if (id != NULL)
        oracle_driver_fail (d, "outcome", "branching S%u at T%u made %s, the model refuses it", s->n, at->n, id);
      else if (!error_is (error, OSEND_HISTORY_DAMAGED))
        oracle_driver_fail (d, "outcome", "branching S%u at T%u was refused as %s, the model as a damaged history",
                            s->n, at->n, error->message);
      return;
    }
  if (id == NULL)
    {
      oracle_driver_fail (d, "outcome", "branching failed: %s", error->message);
      oracle_forget_session (d->o, b);
      return;
    }
  set_id (&b->id, id);
  touch (d, b);
}

void
op_rename (OracleDriver *d,
           OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;

  /* Sometimes the title of the conversation it was branched from: a
   * branch is not a version for having the same name. */
  if (s->parent != NULL && s->parent->title != NULL && chance (d, 50))
    title = g_strdup (s->parent->title);
  else
    title = g_strdup_printf ("Renamed %u", ++d->o->next_title);
  oracle_log (d->o, "op %u: rename S%u to \"%s\"", d->op_number, s->n, title);
  natter_sessions_set_title_async (d->f.sessions, s->id, title, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_set_title_finish (d->f.sessions, wait_result (d, &result, "rename"), &error))
    oracle_driver_fail (d, "outcome", "renaming failed: %s", error->message);
  oracle_rename (d->o, s, title);
  touch (d, s);
}

/* After @s was deleted: the service reads it no more and does not list
 * it (docs/sessions.md §9.4). */
void
check_deleted (OracleDriver *d,
               OSession     *s)
{
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;

  state = get_session (d, s->id, &error);
  if (state != NULL || !g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND))
    oracle_driver_fail (d, "delete", "S%u (%s) still reads after its delete: %s", s->n, s->id,
                        error != NULL ? error->message : "its file is there");
  if (natter_session_index_lookup (natter_sessions_list_sessions (d->f.sessions), s->id) != NULL)
    oracle_driver_fail (d, "delete", "S%u (%s) is still listed after its delete", s->n, s->id);
}

/* Counts a delete that leaves branches showing its turns from the turn
 * files: what the operation is for. */
void
count_delete (OracleDriver *d,
              OSession     *s)
{
  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *c = g_ptr_array_index (d->o->sessions, i);
      g_autoptr(GPtrArray) history = oracle_history_from_files (c);

      if (c->parent == s && history->len > 0)
        {
          count (d, "deletes-leaving-history");
          return;
        }
    }
}

/* Every conversation may read otherwise once @s is gone: its versions
 * stand alone, its branches show its turns from the turn files, and
 * the family it was a version in has one version less. */
void
op_delete (OracleDriver *d,
           OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  oracle_log (d->o, "op %u: delete S%u (%s), its latest turn %s", d->op_number, s->n, s->id,
              oracle_latest_own (s) != NULL ? oracle_status_name (oracle_latest_own (s)) : "none");
  oracle_delete (d->o, s);
  count_delete (d, s);
  if (d->refused_session == s)
    d->can_retry = FALSE;
  natter_sessions_delete_session_async (d->f.sessions, s->id, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_delete_session_finish (d->f.sessions, wait_result (d, &result, "delete"), &error))
    oracle_driver_fail (d, "outcome", "deleting S%u failed: %s", s->n, error->message);
  check_deleted (d, s);
  touch_all (d);
}

void
op_export_import (OracleDriver *d,
                  OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) imported = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *archive = NULL;
  g_autofree char *path = g_build_filename (d->work_dir, "archive.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(NatterImportReport) report = NULL;
  OSession *c;

  oracle_log (d->o, "op %u: export S%u and import it", d->op_number, s->n);
  natter_sessions_export_async (d->f.sessions, s->id, "json", NULL, natter_test_result_cb, &result);
  archive = natter_sessions_export_finish (d->f.sessions, wait_result (d, &result, "export"), &error);
  if (archive == NULL)
    {
      oracle_driver_fail (d, "outcome", "exporting S%u failed: %s", s->n, error->message);
      return;
    }
  check_wire_bytes (d, "the archive", archive, strlen (archive) - 1);
  g_file_set_contents (path, archive, -1, &error);
  g_assert_no_error (error);
  c = oracle_import (d->o, s);
  natter_sessions_import_async (d->f.sessions, file, NULL, NULL, natter_test_result_cb, &imported);
  report = natter_sessions_import_finish (d->f.sessions, wait_result (d, &imported, "import"), &error);
  if (report == NULL || report->session_ids->len != 1)
    {
      oracle_driver_fail (d, "import", "importing S%u's archive failed: %s", s->n,
                          error != NULL ? error->message : "not one session");
      oracle_forget_session (d->o, c);
      return;
    }
  set_id (&c->id, g_ptr_array_index (report->session_ids, 0));
  touch (d, c);
}

static gboolean
no_pending_cb (gpointer data)
{
  OracleDriver *d = data;

  for (guint i = 0; i < d->pending->len; i++)
    if (((OraclePending *) g_ptr_array_index (d->pending, i))->result == NULL)
      return FALSE;
  return TRUE;
}

void
drop_services (OracleDriver *d)
{
  /* A new process has no error bar to press Retry on. */
  d->can_retry = FALSE;
  if (!oracle_driver_wait (d, no_pending_cb, d))
    oracle_driver_fail (d, "stalled", "an answer to a turn never finished");
  pending_collect (d);
  if (d->hook != NULL)
    d->hook (d, FALSE, d->hook_data);
  natter_test_services_drop (&d->f);
}

void
load_services (OracleDriver *d)
{
  natter_test_services_load (&d->f);
  if (d->hook != NULL)
    d->hook (d, TRUE, d->hook_data);
}

void
restart (OracleDriver *d)
{
  drop_services (d);
  load_services (d);
  count (d, "restarts");
}

/* Damages a turn's file, and restarts: a change behind the running
 * app's back is read at the next start (docs/sessions.md §8.3). An even
 * turn that some conversation goes on after loses every line after its
 * first, each still whole (docs/runtime.md §11: the file of a turn that
 * never ended); any other is left as a torn write leaves it
 * (docs/format.md §2: a last line without its newline makes the file
 * unreadable). Which one, by the turn's number: the run's draws stay
 * those of the seed. */
void
op_damage (OracleDriver *d,
           OTurn        *t)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (natter_services_get_turn_repo (d->f.services), t->id, NULL);
  g_autoptr(GError) error = NULL;
  gboolean lose_end = t->n % 2 == 0 && oracle_end_may_be_lost (d->o, t);
  static const char torn[] = "{\"type\":\"tool_res";

  oracle_log (d->o, "op %u: damage T%u of S%u (%s), restart", d->op_number, t->n, t->owner->n,
              lose_end ? "all but its first line lost" : "a torn last line");
  flush (d);
  drop_services (d);
  if (lose_end)
    {
      g_autofree char *contents = NULL;
      char *end;

      g_assert_true (g_file_get_contents (g_file_peek_path (file), &contents, NULL, &error));
      end = strchr (contents, '\n');
      g_assert_nonnull (end);
      end[1] = '\0';
      g_assert_true (g_file_set_contents (g_file_peek_path (file), contents, -1, &error));
      oracle_lose_end (d->o, t);
    }
  else
    {
      g_autoptr(GFileOutputStream) out = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);

      g_assert_no_error (error);
      g_output_stream_write_all (G_OUTPUT_STREAM (out), torn, strlen (torn), NULL, NULL, &error);
      g_assert_no_error (error);
      g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error);
      g_assert_no_error (error);
      oracle_damage (d->o, t);
    }
  load_services (d);
  touch_all (d);
}

/* Damages the blob of an attachment, and restarts: removed, one byte
 * longer, or one byte changed (the same size), by the operation's
 * number. The blob is found by its content, as the store names it
 * (docs/format.md §1); every conversation that carries the attachment
 * shares it. */
void
op_damage_attachment (OracleDriver *d,
                      OFile        *file)
{
  static const char *const how[] = { "removed", "one byte longer", "one byte changed" };
  g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, file->content, -1);
  g_autofree char *dir = g_file_get_path (d->f.dir);
  char prefix[3] = { sha[0], sha[1], '\0' };
  g_autofree char *path = g_build_filename (dir, "storage", "blobs", "sha256", prefix, sha, NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;
  guint mode = d->op_number % G_N_ELEMENTS (how);

  oracle_log (d->o, "op %u: damage the blob of %s (%s), restart", d->op_number, file->name, how[mode]);
  flush (d);
  drop_services (d);
  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  if (mode == 0)
    g_assert_cmpint (g_unlink (path), ==, 0);
  else
    {
      g_autofree char *changed = g_malloc (length + 1);

      memcpy (changed, contents, length);
      if (mode == 1)
        changed[length++] = '\n';
      else
        changed[0] = changed[0] == 'X' ? 'Y' : 'X';
      /* Blobs are read-only: replaced, as another program would. */
      g_assert_true (g_file_set_contents (path, changed, length, &error));
    }
  oracle_damage_attachment (d->o, file);
  load_services (d);
  touch_all (d);
}

void
op_recover (OracleDriver *d,
            OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  OSession *c;

  oracle_log (d->o, "op %u: recover S%u", d->op_number, s->n);
  c = oracle_recover (d->o, s);
  natter_sessions_recover_async (d->f.sessions, s->id, NULL, natter_test_result_cb, &result);
  id = natter_sessions_recover_finish (d->f.sessions, wait_result (d, &result, "recover"), NULL, &error);
  if (id == NULL)
    {
      oracle_driver_fail (d, "outcome", "recovering S%u failed: %s", s->n, error->message);
      oracle_forget_session (d->o, c);
      return;
    }
  set_id (&c->id, id);
  touch (d, c);
}

static gboolean
crash_at_step (NatterSessionsStep   step,
               const char          *session_id,
               gpointer             user_data,
               GError             **error)
{
  if ((gint) step != GPOINTER_TO_INT (user_data))
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE, "The process died here");
  return FALSE;
}

/* A send that dies between two of its steps (docs/sessions.md §7), then
 * a restart: before the turn file, nothing; between the
 * turn file and its reference, an orphan nobody sees; after the
 * reference, a turn that never started, which only the person resumes. */
void
op_crash_send (OracleDriver *d,
               OSession     *s)
{
  static const NatterSessionsStep steps[] = {
    NATTER_SESSIONS_STEP_READ_SESSION, NATTER_SESSIONS_STEP_CREATE_TURN, NATTER_SESSIONS_STEP_APPEND,
  };
  NatterSessionsStep step = steps[pick (d, G_N_ELEMENTS (steps))];
  g_autofree char *text = oracle_new_text (d->o, s->own->len == 0);
  OracleSent sent = { 0 };

  oracle_log (d->o, "op %u: send \"%s\" to S%u and die at step %d, restart", d->op_number, text, s->n, step);
  natter_sessions_set_fault_func (d->f.sessions, crash_at_step, GINT_TO_POINTER (step));
  d->front->send (d, s->id, text, NULL, FALSE, 0, &sent);
  natter_sessions_set_fault_func (d->f.sessions, NULL, NULL);
  if (sent.error == NULL)
    oracle_driver_fail (d, "outcome", "the send did not die at step %d", step);
  if (step == NATTER_SESSIONS_STEP_APPEND)
    oracle_crash_appended (d->o, s, oracle_user_msg (d->o, text, NULL));
  oracle_sent_clear (&sent);
  restart (d);
  touch (d, s);
}

/* ------------------------------------------------------------------ */
/* The send pipeline as the front end                                   */
/* ------------------------------------------------------------------ */

static void
pipeline_run (OracleDriver         *d,
              NatterMessageRequest *request,
              gboolean              retry_later,
              OracleSent           *out)
{
  NatterSendPipeline *pipeline = natter_services_get_send_pipeline (d->f.services);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterSendResult) sent = NULL;

  natter_send_pipeline_send_async (pipeline, request, NULL, natter_test_result_cb, &result);
  sent = natter_send_pipeline_send_finish (pipeline, wait_result (d, &result, "a send"), &out->error);
  if (sent != NULL)
    {
      out->session_id = g_strdup (sent->session_id);
      out->turn_id = g_strdup (sent->turn_id);
      out->queue_id = g_strdup (sent->queue_id);
    }
  else if (retry_later && natter_send_error_can_retry (out->error))
    {
      natter_message_request_free (d->refused_request);
      d->refused_request = natter_message_request_copy (request);
      out->retry_offered = TRUE;
    }
}

static void
pipeline_send (OracleDriver *d,
               const char   *session_id,
               const char   *text,
               GPtrArray    *files,
               gboolean      queue,
               guint         max_calls,
               OracleSent   *out)
{
  g_autoptr(NatterMessageRequest) request = natter_message_request_new (text);

  if (session_id != NULL)
    natter_message_request_set_session (request, session_id);
  for (guint i = 0; files != NULL && i < files->len; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (((OFile *) g_ptr_array_index (files, i))->path);
      g_autoptr(NatterAttachmentSource) source = natter_attachment_source_new_for_file (file);

      natter_message_request_add_attachment (request, source);
    }
  natter_message_request_set_model (request, d->f.server->base_url, "m");
  natter_message_request_set_queue (request, queue);
  if (max_calls > 0)
    natter_message_request_set_max_model_calls (request, max_calls);
  pipeline_run (d, request, TRUE, out);
}

static void
pipeline_again (OracleDriver *d,
                const char   *shown_in,
                const char   *turn_id,
                gboolean      compact_first,
                OracleSent   *out)
{
  g_autoptr(NatterMessageRequest) request = natter_message_request_new_again (turn_id);

  natter_message_request_set_session (request, shown_in);
  natter_message_request_set_compact_first (request, compact_first);
  pipeline_run (d, request, FALSE, out);
}

static void
pipeline_edit (OracleDriver *d,
               const char   *shown_in,
               const char   *turn_id,
               const char   *text,
               OracleSent   *out)
{
  g_autoptr(NatterMessageRequest) request = natter_message_request_new (text);

  natter_message_request_set_session (request, shown_in);
  natter_message_request_set_version_of (request, turn_id);
  pipeline_run (d, request, FALSE, out);
}

static void
pipeline_retry (OracleDriver *d,
                OracleSent   *out)
{
  g_autoptr(NatterMessageRequest) request = natter_message_request_copy (d->refused_request);

  pipeline_run (d, request, TRUE, out);
}

const OracleFrontEnd oracle_pipeline_front_end = {
  .name = "the send pipeline",
  .send = pipeline_send,
  .again = pipeline_again,
  .edit = pipeline_edit,
  .retry = pipeline_retry,
};
