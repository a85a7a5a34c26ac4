/* oracle-driver.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The driver of the model-based test: set-up, the run that chooses each
 * operation by weight, and the wait until the model's expectations hold;
 * the operations, the reading and comparing, the command-line processes,
 * the scripted model, the report and the helpers they share have files of
 * their own (oracle-driver-*.c), declared in oracle-driver-private.h.
 * Their calls run one way, each file calling only those before it:
 * oracle-driver-report.c, oracle-driver-base.c, oracle-driver-server.c,
 * oracle-driver-read.c, oracle-driver-ops.c, oracle-driver-cli.c, and
 * this file, which dispatches to them all, on top.
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

static gboolean
quiet_cb (gpointer data)
{
  OracleDriver *d = data;

  return d->kill_requested || oracle_quiet (d->o);
}

static char *
describe_waiting (OracleDriver *d)
{
  g_autoptr(GPtrArray) waiting = oracle_waiting_turns (d->o);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < waiting->len; i++)
    {
      OTurn *t = g_ptr_array_index (waiting, i);

      g_string_append_printf (out, " T%u (%s) of S%u waits for its model call %u;", t->n,
                              t->id != NULL ? t->id : "?", t->owner->n, t->n_calls + 1);
    }
  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);

      if (s->title_wanted)
        g_string_append_printf (out, " S%u waits for its title request;", s->n);
    }
  if (d->o->compacting != NULL)
    g_string_append_printf (out, " S%u waits for its summary request;", d->o->compacting->n);
  return g_string_free (out, FALSE);
}

static gboolean
turns_rest_cb (gpointer data)
{
  OracleDriver *d = data;

  if (d->f.services == NULL)
    return TRUE;
  for (guint i = 0; i < d->o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (d->o->turns, i);

      if (t->id != NULL && t->status != OT_HELD && t->status != OT_WAITING_CALL &&
          natter_sessions_is_turn_running (d->f.sessions, t->id))
        return FALSE;
    }
  return TRUE;
}

/* Waits until everything the model expects has happened: every model
 * call it waits for has come, every turn that is not streaming has
 * settled, and the session layer has written all it was doing. A model
 * call that never comes is a turn left waiting: a failure. */
static void
settle (OracleDriver *d)
{
  for (guint round = 0; round < 4; round++)
    {
      if (!oracle_driver_wait (d, quiet_cb, d))
        {
          g_autofree char *waiting = describe_waiting (d);

          g_autoptr(GPtrArray) turns = oracle_waiting_turns (d->o);

          /* A title that never came is the rule of titles; anything else
           * is a turn (or a compaction) left waiting. */
          oracle_driver_fail (d, turns->len == 0 && d->o->compacting == NULL ? "title" : "stalled",
                              "nothing came for:%s", waiting);
          /* Stop waiting for it, so that the run reports and ends. */
          for (guint i = 0; i < d->o->turns->len; i++)
            if (((OTurn *) g_ptr_array_index (d->o->turns, i))->status == OT_WAITING_CALL)
              ((OTurn *) g_ptr_array_index (d->o->turns, i))->status = OT_IDLE;
          for (guint i = 0; i < d->o->sessions->len; i++)
            ((OSession *) g_ptr_array_index (d->o->sessions, i))->title_wanted = FALSE;
          d->o->compacting = NULL;
          return;
        }
      if (d->f.services == NULL)
        return;
      learn_ids (d);
      if (!oracle_driver_wait (d, turns_rest_cb, d))
        oracle_driver_fail (d, "stalled", "a turn the model says has settled still runs");
      pending_collect (d);
      flush (d);
      if (oracle_quiet (d->o))
        return;
    }
}

/* ------------------------------------------------------------------ */
/* Choosing                                                             */
/* ------------------------------------------------------------------ */

static gboolean
any_held (OracleDriver *d)
{
  for (guint i = 0; i < d->o->turns->len; i++)
    if (((OTurn *) g_ptr_array_index (d->o->turns, i))->status == OT_HELD)
      return TRUE;
  return FALSE;
}

static OTurn *
any_turn (OracleDriver *d,
          gboolean (*ok) (OracleDriver *d, OTurn *t))
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new ();

  for (guint i = 0; i < d->o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (d->o->turns, i);

      if (t->id != NULL && g_ptr_array_find (d->o->sessions, t->owner, NULL) && !t->owner->diverged && ok (d, t))
        g_ptr_array_add (candidates, t);
    }
  return candidates->len > 0 ? g_ptr_array_index (candidates, pick (d, candidates->len)) : NULL;
}

/* A turn of a deleted conversation, with @ok, that a conversation made
 * from it still shows from the turn files (docs/sessions.md §9.4), and
 * in *@shown_in one that shows it: titled, for a version made there
 * takes its title. Not one of a conversation that had a compaction,
 * which went with its file, nor shown in one that had one, which the
 * branch takes instead (the model follows the owner's only). */
static OTurn *
any_deleted_turn (OracleDriver  *d,
                  gboolean     (*ok) (OracleDriver *d, OTurn *t),
                  OSession     **shown_in)
{
  g_autoptr(GPtrArray) turns = g_ptr_array_new ();
  g_autoptr(GPtrArray) showing = g_ptr_array_new ();
  guint at;

  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);
      g_autoptr(GPtrArray) history = oracle_history_from_files (s);

      if (s->id == NULL || s->diverged || s->title == NULL || s->last_compaction != NULL ||
          (s->title_kind != OTITLE_SET && s->title_kind != OTITLE_DEFAULT))
        continue;
      for (guint j = 0; j < history->len; j++)
        {
          OTurn *t = g_ptr_array_index (history, j);

          if (t->owner->deleted && t->owner->last_compaction == NULL && t->id != NULL && ok (d, t))
            {
              g_ptr_array_add (turns, t);
              g_ptr_array_add (showing, s);
            }
        }
    }
  if (turns->len == 0)
    return NULL;
  at = pick (d, turns->len);
  *shown_in = g_ptr_array_index (showing, at);
  return g_ptr_array_index (turns, at);
}

/* ------------------------------------------------------------------ */
/* Operations                                                           */
/* ------------------------------------------------------------------ */

static gboolean
has_queue (OracleDriver *d,
           OSession     *s)
{
  gboolean ids = TRUE;

  for (guint i = 0; i < s->queue->len; i++)
    ids &= ((OQueued *) g_ptr_array_index (s->queue, i))->id != NULL;
  return s->queue->len > 0 && ids;
}

static gboolean
has_grant_id (OracleDriver *d,
              OSession     *s)
{
  for (guint i = 0; i < s->grants->len; i++)
    if (((OGrant *) g_ptr_array_index (s->grants, i))->id == NULL)
      return FALSE;
  return s->grants->len > 0;
}

static gboolean
usable (OracleDriver *d,
        OSession     *s)
{
  return !oracle_session_shows_damage (s);
}

/* A second grant of a tool that has one is a case the documents leave
 * open. */
static gboolean
grantable (OracleDriver *d,
           OSession     *s)
{
  return usable (d, s) && !has_read_grant (s);
}

static gboolean
latest_idle (OracleDriver *d,
             OSession     *s)
{
  OTurn *t = oracle_latest (s);

  return t != NULL && t->status == OT_IDLE && t->owner == s && t->id != NULL && !oracle_history_unreadable (s);
}

static gboolean natter_can_continue (OTurn *t);

static gboolean
natter_latest_idle (OracleDriver *d,
                    OSession     *s)
{
  return latest_idle (d, s) && natter_can_continue (oracle_latest (s));
}

static gboolean
latest_failed (OracleDriver *d,
               OSession     *s)
{
  OTurn *t = oracle_latest (s);

  return t != NULL && t->status == OT_FAILED && usable (d, s);
}

static gboolean
held_turn (OracleDriver *d,
           OTurn        *t)
{
  return t->status == OT_HELD;
}

static gboolean
stoppable (OracleDriver *d,
           OTurn        *t)
{
  return t->status == OT_HELD || t->status == OT_SUSPENDED;
}

static gboolean
waits_for_person (OracleDriver *d,
                  OTurn        *t)
{
  return t->status == OT_SUSPENDED && !oracle_history_unreadable (t->owner);
}

/* A `natter` process knows no provider of the test's settings: it can
 * continue only turns that name the server's address, which a
 * conversation imported (or made from one) does not keep (its turns'
 * addresses are labels, docs/format.md §7.1). */
static gboolean
natter_can_continue (OTurn *t)
{
  return !oracle_from_import (t->owner);
}

static gboolean
waits_for_natter (OracleDriver *d,
                  OTurn        *t)
{
  return waits_for_person (d, t) && natter_can_continue (t);
}

/* A turn given alone is tried again in the one conversation that holds
 * it (docs/sessions.md §3); one a recovered copy names as well as the
 * conversation it was recovered from is refused until --session says
 * which, so it is not given alone. */
static gboolean
retried_by_natter (OracleDriver *d,
                   OTurn        *t)
{
  OTurn *owner_latest = oracle_latest_own (t->owner);

  return oracle_turn_terminal (t) && !t->damaged && !oracle_carries_damaged (t) && natter_can_continue (t) &&
         !(t->owner->no_versions && owner_latest != NULL && owner_latest->damaged) &&
         !oracle_named_by_copy (d->o, t);
}

static gboolean
terminal_visible (OracleDriver *d,
                  OTurn        *t)
{
  return oracle_turn_terminal (t) && !t->damaged;
}

/* A new version of @t's message carries its attachments: one that no
 * longer reads whole would fail the new turn itself, a case the
 * documents leave open. */
static gboolean
versionable (OracleDriver *d,
             OTurn        *t)
{
  return terminal_visible (d, t) && !oracle_carries_damaged (t);
}

static gboolean
msgs_carry (GPtrArray *msgs,
            OFile     *file)
{
  for (guint i = 0; msgs != NULL && i < msgs->len; i++)
    {
      OMsg *m = g_ptr_array_index (msgs, i);

      if (m->files != NULL && g_ptr_array_find (m->files, file, NULL))
        return TRUE;
    }
  return FALSE;
}

/* An attachment some turn carries, whose blob may be damaged now. Not one
 * of a history a deleted conversation left in the turn files: what its
 * branches show and search then is a case the documents leave open. */
static gboolean
attachment_damageable (OracleDriver *d,
                       OFile        *file)
{
  if (oracle_attachment_needed (d->o, file))
    return FALSE;
  for (guint i = 0; i < d->o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (d->o->turns, i);

      if ((msgs_carry (t->own, file) || msgs_carry (t->inline_msgs, file)) && oracle_shown_from_files (d->o, t))
        return FALSE;
    }
  for (guint i = 0; i < d->o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (d->o->turns, i);

      if (t->id != NULL && t->input->files != NULL && g_ptr_array_find (t->input->files, file, NULL))
        return TRUE;
    }
  return FALSE;
}

static OFile *
any_damageable_attachment (OracleDriver *d)
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new ();

  for (guint i = 0; i < d->o->attachable->len; i++)
    if (attachment_damageable (d, g_ptr_array_index (d->o->attachable, i)))
      g_ptr_array_add (candidates, g_ptr_array_index (d->o->attachable, i));
  return candidates->len > 0 ? g_ptr_array_index (candidates, pick (d, candidates->len)) : NULL;
}

static gboolean
failed_turn (OracleDriver *d,
             OTurn        *t)
{
  return t->status == OT_FAILED && !t->damaged;
}

/* Not a turn a branch of a deleted conversation shows from the turn
 * files: how a history that breaks there shows is left open. */
static gboolean
damageable (OracleDriver *d,
            OTurn        *t)
{
  return oracle_turn_terminal (t) && !t->damaged && !oracle_turn_is_depended_on (d->o, t) && t->copy_of == NULL &&
         !oracle_shown_from_files (d->o, t);
}

/* A conversation whose delete the model can follow (oracle_deletable()),
 * all of whose turns the driver knows by id, while no answer to one of
 * them is still to finish. */
static gboolean
deletable (OracleDriver *d,
           OSession     *s)
{
  for (guint i = 0; i < s->own->len; i++)
    if (((OTurn *) g_ptr_array_index (s->own, i))->id == NULL)
      return FALSE;
  return d->pending->len == 0 && oracle_deletable (d->o, s);
}

/* A conversation whose delete leaves others reading its turns: what the
 * operation is mostly for. */
static gboolean
deletable_parent (OracleDriver *d,
                  OSession     *s)
{
  for (guint i = 0; i < d->o->sessions->len; i++)
    if (((OSession *) g_ptr_array_index (d->o->sessions, i))->parent == s)
      return deletable (d, s);
  return FALSE;
}

/* An archive of a conversation whose answer streams is a snapshot of a
 * moving file: not produced. */
static gboolean
exportable (OracleDriver *d,
            OSession     *s)
{
  g_autoptr(GPtrArray) visible = oracle_visible (s);

  for (guint i = 0; i < visible->len; i++)
    {
      OTurn *t = g_ptr_array_index (visible, i);

      if (t->damaged || t->status == OT_HELD || t->status == OT_WAITING_CALL)
        return FALSE;
    }
  return !oracle_shows_damaged_attachment (s);
}

static gboolean
recoverable (OracleDriver *d,
             OSession     *s)
{
  for (guint i = 0; i < s->own->len; i++)
    if (((OTurn *) g_ptr_array_index (s->own, i))->damaged || oracle_carries_damaged (g_ptr_array_index (s->own, i)))
      return s->parent == NULL;
  return FALSE;
}

static gboolean
compactable (OracleDriver *d,
             OSession     *s)
{
  return oracle_can_compact (d->o, s, 1) && !oracle_shows_damaged_attachment (s);
}

static gboolean
quiet_session (OracleDriver *d,
               OSession     *s)
{
  return oracle_session_quiet (s) && s->queue->len == 0 && !oracle_history_unreadable (s);
}

static gboolean
can_continue_version (OracleDriver *d,
                      OTurn        *t)
{
  return failed_turn (d, t) && t->owner->own->len > 0 && !oracle_shows_damaged_attachment (t->owner);
}

typedef enum
{
  OP_NEW,
  OP_SEND,
  OP_QUEUE,
  OP_RETRY_REFUSED,
  OP_TRY_AGAIN,
  OP_COMPACT_CONTINUE,
  OP_CONTINUE,
  OP_EDIT,
  OP_RELEASE,
  OP_STOP,
  OP_PERMISSION,
  OP_ANSWER,
  OP_RESUME,
  OP_UNQUEUE,
  OP_REPLACE_QUEUED,
  OP_GRANT,
  OP_REVOKE,
  OP_COMPACT,
  OP_FORK,
  OP_RENAME,
  OP_EXPORT_IMPORT,
  OP_DAMAGE,
  OP_DAMAGE_ATTACHMENT,
  OP_RECOVER,
  OP_RESTART,
  OP_CRASH_SEND,
  OP_CLI_SEND,
  OP_CLI_TOOL,
  OP_CLI_RESUME,
  OP_CLI_RETRY,
  OP_DELETE,
  OP_PIN,
  OP_FOLDER,
  OP_PARAMS,
  N_OPS
} OpKind;

static const char *const op_names[N_OPS] = {
  "new", "send", "queue", "retry-refused", "try-again", "compact-and-continue", "continue", "edit", "release",
  "stop", "permission", "answer", "resume", "unqueue", "edit-queued", "grant", "revoke", "compact", "fork",
  "rename", "export-import", "damage", "damage-attachment", "recover", "restart", "crash-send", "natter-send", "natter-tool",
  "natter-resume", "natter-retry", "delete", "pin", "folder", "params",
};

static gboolean
op_possible (OracleDriver *d,
             OpKind        op,
             gboolean      held)
{
  switch (op)
    {
    case OP_NEW:
      return d->o->sessions->len < 14;
    case OP_SEND:
      return any_session (d, sendable) != NULL;
    case OP_QUEUE:
      return any_session (d, queueable) != NULL;
    case OP_RETRY_REFUSED:
      return d->can_retry && g_ptr_array_find (d->o->sessions, d->refused_session, NULL) &&
             d->front->retry != NULL && (d->front->can_retry == NULL || d->front->can_retry (d));
    case OP_TRY_AGAIN:
    case OP_EDIT:
      return any_turn (d, versionable) != NULL && d->o->sessions->len < 18;
    case OP_COMPACT_CONTINUE:
      return any_turn (d, can_continue_version) != NULL && d->o->sessions->len < 18;
    case OP_CONTINUE:
      return any_session (d, latest_failed) != NULL;
    case OP_RELEASE:
      return any_turn (d, held_turn) != NULL;
    case OP_STOP:
      return any_turn (d, stoppable) != NULL;
    case OP_PERMISSION:
    case OP_ANSWER:
      return any_turn (d, waits_for_person) != NULL;
    case OP_RESUME:
      return any_session (d, latest_idle) != NULL;
    case OP_UNQUEUE:
    case OP_REPLACE_QUEUED:
      return any_session (d, has_queue) != NULL;
    case OP_GRANT:
      return any_session (d, grantable) != NULL;
    case OP_REVOKE:
      return any_session (d, has_grant_id) != NULL;
    case OP_COMPACT:
      return any_session (d, compactable) != NULL;
    case OP_FORK:
      return any_turn (d, terminal_visible) != NULL && d->o->sessions->len < 18;
    case OP_RENAME:
      return any_session (d, usable) != NULL;
    case OP_EXPORT_IMPORT:
      return any_session (d, exportable) != NULL && d->o->sessions->len < 18;
    case OP_DAMAGE:
      return !held && any_turn (d, damageable) != NULL;
    case OP_DAMAGE_ATTACHMENT:
      return !held && any_damageable_attachment (d) != NULL;
    case OP_RECOVER:
      return any_session (d, recoverable) != NULL;
    case OP_RESTART:
      return !held;
    case OP_CRASH_SEND:
      return !held && any_session (d, quiet_session) != NULL;
    case OP_CLI_SEND:
    case OP_CLI_RETRY:
      return !held && d->options.cli_ops;
    case OP_CLI_TOOL:
      return !held && d->options.cli_ops && any_turn (d, waits_for_natter) != NULL;
    case OP_CLI_RESUME:
      return !held && d->options.cli_ops && any_session (d, natter_latest_idle) != NULL;
    case OP_DELETE:
      return !held && any_session (d, deletable) != NULL;
    case OP_PIN:
    case OP_FOLDER:
    case OP_PARAMS:
      return any_session (d, settable) != NULL;
    case N_OPS:
      break;
    }
  return FALSE;
}

static const guint op_weights[N_OPS] = {
  [OP_NEW] = 6, [OP_SEND] = 16, [OP_QUEUE] = 7, [OP_RETRY_REFUSED] = 6, [OP_TRY_AGAIN] = 5,
  [OP_COMPACT_CONTINUE] = 3, [OP_CONTINUE] = 3, [OP_EDIT] = 4, [OP_RELEASE] = 10, [OP_STOP] = 5,
  [OP_PERMISSION] = 10, [OP_ANSWER] = 7, [OP_RESUME] = 6, [OP_UNQUEUE] = 2, [OP_REPLACE_QUEUED] = 2,
  [OP_GRANT] = 3, [OP_REVOKE] = 2, [OP_COMPACT] = 3, [OP_FORK] = 3, [OP_RENAME] = 2, [OP_EXPORT_IMPORT] = 2,
  [OP_DAMAGE] = 2, [OP_DAMAGE_ATTACHMENT] = 1, [OP_RECOVER] = 4, [OP_RESTART] = 3, [OP_CRASH_SEND] = 2, [OP_CLI_SEND] = 5,
  [OP_CLI_TOOL] = 6, [OP_CLI_RESUME] = 4, [OP_CLI_RETRY] = 2, [OP_DELETE] = 2, [OP_PIN] = 2, [OP_FOLDER] = 2,
  [OP_PARAMS] = 3,
};

static OpKind
choose_op (OracleDriver *d)
{
  gboolean held = any_held (d);
  g_auto(GStrv) favoured = g_strsplit (g_getenv ("ORACLE_FAVOUR") != NULL ? g_getenv ("ORACLE_FAVOUR") : "", ",", -1);
  guint total = 0;
  guint possible[N_OPS];
  guint at;

  for (guint op = 0; op < N_OPS; op++)
    {
      possible[op] = op_possible (d, op, held) ? op_weights[op] : 0;
      /* Exploring one kind of operation: eight times as likely. */
      if (g_strv_contains ((const char * const *) favoured, op_names[op]))
        possible[op] *= 8;
      total += possible[op];
    }
  at = pick (d, total);
  for (guint op = 0; op < N_OPS; op++)
    {
      if (at < possible[op])
        return op;
      at -= possible[op];
    }
  return OP_NEW;
}

/* Try Again or Edit (@kind) on a message: shown where it was sent, or
 * sometimes in a branch that shows it, or a message a deleted
 * conversation left in the turn files, shown in one made from it. */
static void
run_version (OracleDriver *d,
             const char   *kind)
{
  OSession *shown_in = NULL;
  OTurn *of = chance (d, 40) ? any_deleted_turn (d, versionable, &shown_in) : NULL;

  if (of != NULL)
    {
      count (d, "versions-from-deleted");
      op_version (d, shown_in, of, kind);
      return;
    }
  of = any_turn (d, versionable);
  shown_in = of->owner;
  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);
      g_autoptr(GPtrArray) visible = oracle_visible (s);

      if (s != of->owner && s->id != NULL && g_ptr_array_find (visible, of, NULL) && chance (d, 30))
        shown_in = s;
    }
  op_version (d, shown_in, of, kind);
}

/* A branch at a settled turn, asked of the conversation that has it, or
 * of one that shows it from a deleted conversation. */
static void
run_fork (OracleDriver *d)
{
  OSession *shown_in = NULL;
  OTurn *at = chance (d, 40) ? any_deleted_turn (d, terminal_visible, &shown_in) : NULL;

  if (at != NULL)
    {
      count (d, "forks-from-deleted");
      op_fork (d, shown_in, at);
    }
  else
    {
      at = any_turn (d, terminal_visible);
      op_fork (d, at->owner, at);
    }
}

/* A delete, mostly of a conversation others were made from; sometimes by
 * `natter delete`, in a process of its own. */
static void
run_delete (OracleDriver *d)
{
  OSession *s = chance (d, 70) ? any_session (d, deletable_parent) : NULL;

  if (s == NULL)
    s = any_session (d, deletable);
  if (d->options.cli_ops && chance (d, 30))
    cli_delete (d, s);
  else
    search_delete (d, s);
}

/* "Continue." after a failure, as the window offers it. */
static void
run_continue (OracleDriver *d)
{
  OSession *s = any_session (d, latest_failed);
  OMsg *input = oracle_user_msg (d->o, "Continue.", NULL);
  OracleSent sent = { 0 };
  OSendResult want;

  oracle_log (d->o, "op %u: continue S%u after its failure", d->op_number, s->n);
  want = oracle_send (d->o, s, input, FALSE, 0, FALSE);
  d->front->send (d, s->id, "Continue.", NULL, FALSE, 0, &sent);
  check_sent (d, "Continue", &want, &sent);
  oracle_sent_clear (&sent);
  touch (d, s);
}

/* What a turn waits for the person for: a permission (sometimes denied,
 * sometimes allowed always), else an answer. */
static void
run_person (OracleDriver *d)
{
  OTurn *t = any_turn (d, waits_for_person);
  OToolCall *call = pending_call (t, OC_AWAIT_PERMISSION);

  if (call != NULL)
    op_permission (d, t, call, chance (d, 30) ? "deny"
                               : n_pending (t) == 1 && !has_read_grant (t->owner) && chance (d, 30) ? "always"
                               : "allow");
  else
    op_answer (d, t, pending_call (t, OC_AWAIT_ANSWER));
}

static void
run_op (OracleDriver *d,
        OpKind        op)
{
  count (d, op_names[op]);
  switch (op)
    {
    case OP_NEW:
      op_send (d, NULL, FALSE);
      break;
    case OP_SEND:
      op_send (d, any_session (d, sendable), FALSE);
      break;
    case OP_QUEUE:
      op_send (d, any_session (d, queueable), TRUE);
      break;
    case OP_RETRY_REFUSED:
      op_retry_refused (d);
      break;
    case OP_TRY_AGAIN:
    case OP_EDIT:
      run_version (d, op == OP_EDIT ? "edit" : "try-again");
      break;
    case OP_COMPACT_CONTINUE:
      {
        OTurn *of = any_turn (d, can_continue_version);

        op_version (d, of->owner, of, "compact-and-continue");
      }
      break;
    case OP_CONTINUE:
      run_continue (d);
      break;
    case OP_RELEASE:
      op_release (d, any_turn (d, held_turn));
      break;
    case OP_STOP:
      op_stop (d, any_turn (d, stoppable));
      break;
    case OP_PERMISSION:
    case OP_ANSWER:
      run_person (d);
      break;
    case OP_RESUME:
      op_resume (d, any_session (d, latest_idle));
      break;
    case OP_UNQUEUE:
      op_unqueue (d, any_session (d, has_queue));
      break;
    case OP_REPLACE_QUEUED:
      op_replace_queued (d, any_session (d, has_queue));
      break;
    case OP_GRANT:
      op_grant (d, any_session (d, grantable));
      break;
    case OP_REVOKE:
      op_revoke (d, any_session (d, has_grant_id));
      break;
    case OP_COMPACT:
      {
        OSession *s = any_session (d, compactable);

        op_compact (d, s, oracle_can_compact (d->o, s, 2) && chance (d, 50) ? 2 : 1);
      }
      break;
    case OP_FORK:
      run_fork (d);
      break;
    case OP_RENAME:
      op_rename (d, any_session (d, usable));
      break;
    case OP_EXPORT_IMPORT:
      op_export_import (d, any_session (d, exportable));
      break;
    case OP_DAMAGE:
      op_damage (d, any_turn (d, damageable));
      break;
    case OP_DAMAGE_ATTACHMENT:
      op_damage_attachment (d, any_damageable_attachment (d));
      break;
    case OP_RECOVER:
      op_recover (d, any_session (d, recoverable));
      break;
    case OP_RESTART:
      oracle_log (d->o, "op %u: restart", d->op_number);
      restart (d);
      touch_all (d);
      break;
    case OP_CRASH_SEND:
      op_crash_send (d, any_session (d, quiet_session));
      break;
    case OP_CLI_SEND:
      cli_send (d, NULL);
      break;
    case OP_CLI_TOOL:
      cli_tool (d, any_turn (d, waits_for_natter));
      break;
    case OP_CLI_RESUME:
      cli_resume (d, any_session (d, natter_latest_idle));
      break;
    case OP_CLI_RETRY:
      {
        OTurn *of = any_turn (d, retried_by_natter);

        if (of != NULL)
          cli_retry (d, of);
        else
          cli_send (d, NULL);
      }
      break;
    case OP_DELETE:
      run_delete (d);
      break;
    case OP_PIN:
      op_pin (d, any_session (d, settable), d->options.cli_ops && !any_held (d));
      break;
    case OP_FOLDER:
      op_folder (d, any_session (d, settable), d->options.cli_ops && !any_held (d));
      break;
    case OP_PARAMS:
      op_params (d, any_session (d, settable), d->options.cli_ops && !any_held (d));
      break;
    case N_OPS:
      break;
    }
}

gboolean
oracle_driver_run (OracleDriver *d)
{
  for (d->op_number = 1; d->op_number <= d->options.n_ops && d->n_failures == 0; d->op_number++)
    {
      OpKind op = choose_op (d);

      run_op (d, op);
      settle (d);
      if (d->f.services == NULL)
        load_services (d);
      check_readings (d, d->op_number % 5 == 0);
      check_files (d);
      if (d->options.cli_every > 0 && d->op_number % d->options.cli_every == 0 && !any_held (d) && d->n_failures == 0)
        check_cli (d);
    }
  d->op_number--;
  if (d->n_failures == 0)
    {
      /* The end: every stream ends, then everything is read once more. */
      for (OTurn *t = any_turn (d, held_turn); t != NULL; t = any_turn (d, held_turn))
        {
          op_release (d, t);
          settle (d);
        }
      pending_collect (d);
      if (d->pending->len > 0)
        oracle_driver_fail (d, "stalled", "%u answers to turns never finished", d->pending->len);
      check_readings (d, TRUE);
      check_files (d);
      d->cli_all = TRUE;
      check_cli (d);
      check_search (d);
    }
  return d->n_failures == 0;
}

/* ------------------------------------------------------------------ */
/* Set-up                                                               */
/* ------------------------------------------------------------------ */

OracleDriver *
oracle_driver_new (const OracleOptions *options)
{
  OracleDriver *d = g_new0 (OracleDriver, 1);
  g_autofree char *files_dir = NULL;

  d->options = *options;
  d->failures = g_ptr_array_new_with_free_func (g_free);
  d->failed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  d->counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  d->deferred_kinds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  d->touched = g_hash_table_new (NULL, NULL);
  d->cli_touched = g_hash_table_new (NULL, NULL);
  d->scratch = g_ptr_array_new_with_free_func (g_free);
  d->readers = g_ptr_array_new_with_free_func (g_free);
  d->pending = g_ptr_array_new ();
  d->front = &oracle_pipeline_front_end;

  natter_test_services_set_up (&d->f, NULL);
  d->f.without_writer_lock = TRUE;
  g_settings_set_boolean (d->f.gsettings, "auto-compact", FALSE);
  g_settings_set_boolean (d->f.gsettings, "auto-title", TRUE);
  files_dir = g_build_filename (g_file_peek_path (d->f.dir), "files", NULL);
  g_mkdir_with_parents (files_dir, 0700);
  d->work_dir = g_steal_pointer (&files_dir);
  d->o = oracle_new (options->seed, d->work_dir);
  d->o->weird_text = !options->plain;
  natter_test_services_serve_server (&d->f, natter_test_server_new_responder (responder, d));
  oracle_driver_add_reader (d, "the session service", read_services, FALSE, NULL);
  return d;
}

void
oracle_driver_free (OracleDriver *d)
{
  if (d->failures->len > 0)
    {
      /* What failed may still run: the process ends with it, and the data
       * directory stays for a look. */
      g_printerr ("the data directory stays: %s\n", g_file_peek_path (d->f.dir));
      return;
    }
  if (d->f.services != NULL && d->hook != NULL)
    d->hook (d, FALSE, d->hook_data);
  natter_test_services_tear_down (&d->f, NULL);
  natter_test_run_clear (&d->run);
  oracle_free (d->o);
  g_ptr_array_unref (d->failures);
  g_hash_table_unref (d->failed);
  g_hash_table_unref (d->counts);
  g_hash_table_unref (d->deferred_kinds);
  g_hash_table_unref (d->touched);
  g_hash_table_unref (d->cli_touched);
  g_ptr_array_unref (d->scratch);
  g_ptr_array_unref (d->readers);
  g_ptr_array_unref (d->pending);
  g_free (d->work_dir);
  natter_message_request_free (d->refused_request);
  g_free (d);
}

void
oracle_driver_set_front_end (OracleDriver         *d,
                             const OracleFrontEnd *front,
                             gpointer              data)
{
  d->front = front;
  d->front_data = data;
}

gpointer
oracle_driver_get_front_data (OracleDriver *d)
{
  return d->front_data;
}

void
oracle_driver_add_reader (OracleDriver *d,
                          const char   *name,
                          OracleReader  reader,
                          gboolean      eventual,
                          gpointer      data)
{
  OracleReaderEntry *entry = g_new0 (OracleReaderEntry, 1);

  entry->eventual = eventual;
  entry->name = name;
  entry->reader = reader;
  entry->data = data;
  g_ptr_array_add (d->readers, entry);
}

void
oracle_driver_set_restart_hook (OracleDriver      *d,
                                OracleRestartHook  hook,
                                gpointer           data)
{
  d->hook = hook;
  d->hook_data = data;
  if (hook != NULL && d->f.services != NULL)
    hook (d, TRUE, data);
}

NatterServices *
oracle_driver_get_services (OracleDriver *d)
{
  return d->f.services;
}

/* The session as the service reads it now, or NULL. */
NatterSessionState *
oracle_driver_read_session (OracleDriver *d,
                            const char   *session_id)
{
  return get_session (d, session_id, NULL);
}

Oracle *
oracle_driver_get_oracle (OracleDriver *d)
{
  return d->o;
}

const char *
oracle_driver_get_base_url (OracleDriver *d)
{
  return d->f.server->base_url;
}
