/* oracle-model-turns.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Making turns in the model, and what tools, stops and answers do to them
 * (docs/runtime.md §6–§10); the conversations that copy or make turns of
 * their own (imports, recoveries) and a send interrupted after its turn
 * was appended. It calls only oracle-model.c; oracle-model-calls.c calls
 * it.
 */

#include <string.h>

#include "oracle-model.h"
#include "oracle-model-private.h"

OSession *
add_session (Oracle *o)
{
  OSession *s = g_new0 (OSession, 1);

  s->n = ++o->next_session;
  s->own = g_ptr_array_new ();
  s->queue = g_ptr_array_new_with_free_func ((GDestroyNotify) queued_free);
  s->grants = g_ptr_array_new_with_free_func ((GDestroyNotify) grant_free);
  s->active = ++o->clock;
  g_ptr_array_add (o->sessions, s);
  return s;
}

/* A conversation made for a message that was then refused is removed
 * again (docs/sessions.md §1): the model forgets it and its turns. */
void
oracle_forget_session (Oracle   *o,
                       OSession *s)
{
  guint at;

  if (!g_ptr_array_find (o->sessions, s, &at))
    return;
  for (guint i = 0; i < s->own->len; i++)
    ((OTurn *) g_ptr_array_index (s->own, i))->forgotten = TRUE;
  g_ptr_array_add (o->gone, g_ptr_array_steal_index (o->sessions, at));
}

static void
remove_session (Oracle   *o,
                OSession *s)
{
  oracle_forget_session (o, s);
}

/* Whether a turn of @turns, or a message it carries or was made with,
 * no longer reads whole. */
static gboolean
chain_damaged (GPtrArray *turns)
{
  for (guint i = 0; i < turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (turns, i);

      if (t->damaged || oracle_carries_damaged (t))
        return TRUE;
      for (guint j = 0; t->ctx == OCTX_INLINE && t->inline_msgs != NULL && j < t->inline_msgs->len; j++)
        {
          OMsg *m = g_ptr_array_index (t->inline_msgs, j);

          for (guint k = 0; m->files != NULL && k < m->files->len; k++)
            if (((OFile *) g_ptr_array_index (m->files, k))->damaged)
              return TRUE;
        }
    }
  return FALSE;
}

/* Whether deleting @s is a case the documents determine for everything
 * the model says: nothing of it streams or waits for a model call (a
 * turn that waits for the person, or was interrupted, is stopped by the
 * delete), it is whole, and the history its branches will read from the
 * turn files reads whole. A recovered copy's family, whose lineage is
 * open, is left alone; so is a session a compaction is being made for. */
gboolean
oracle_deletable (Oracle   *o,
                  OSession *s)
{
  OTurn *latest = oracle_latest_own (s);

  if (s->recovered || s->no_versions || s->lineage_open || s->title_wanted || s->title_in_child ||
      o->compacting != NULL || o->deferred_input != NULL)
    return FALSE;
  if (latest != NULL && (latest->status == OT_HELD || latest->status == OT_WAITING_CALL || latest->in_child))
    return FALSE;
  if (chain_damaged (s->own))
    return FALSE;
  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *c = g_ptr_array_index (o->sessions, i);
      g_autoptr(GPtrArray) history = NULL;

      if (c->parent != s)
        continue;
      if (c->recovered || c->lineage_open || c->no_versions)
        return FALSE;
      s->deleted = TRUE;
      history = oracle_history_from_files (c);
      s->deleted = FALSE;
      if (chain_damaged (history))
        return FALSE;
    }
  return TRUE;
}

/* Deletes @s (docs/sessions.md §9.4): it is no longer listed, and its
 * turn that waits for the person, or was interrupted, is stopped as Stop
 * stops it. Its turns stay: its branches show their history from the
 * turn files, and its versions stand alone. */
void
oracle_delete (Oracle   *o,
               OSession *s)
{
  OTurn *latest = oracle_latest_own (s);
  guint at;

  if (latest != NULL && !oracle_turn_terminal (latest))
    oracle_stop (o, latest);
  settings_deleting (o, s);
  g_ptr_array_set_size (s->queue, 0);
  s->deleted = TRUE;
  if (g_ptr_array_find (o->sessions, s, &at))
    g_ptr_array_add (o->gone, g_ptr_array_steal_index (o->sessions, at));
  oracle_log (o, "  model: S%u deleted", s->n);
  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *c = g_ptr_array_index (o->sessions, i);
      g_autoptr(GPtrArray) history = oracle_history_from_files (c);

      if (c->parent == s)
        oracle_log (o, "  model: S%u %s, shows %u turns of the files' history", c->n,
                    c->created_titled ? "stands alone" : "is a branch of it", history->len);
    }
}

OSession *
oracle_new_session (Oracle *o)
{
  OSession *s = add_session (o);

  oracle_log (o, "  model: new conversation S%u", s->n);
  return s;
}

/* The default title (docs/sessions.md §9.1 step 6; docs/format.md
 * §3.2): the first line of the first message, cut to 60 characters. The
 * driver only sends plain, short first messages, for which that is the
 * text itself. */
static gboolean
title_is_plain (const char *text)
{
  if (g_utf8_strlen (text, -1) > TITLE_MAX_CHARS)
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || (guchar) *p == 0x7f)
      return FALSE;
  return TRUE;
}

static void
derive_title (OSession *s,
              OMsg     *input)
{
  const char *text = input->text;
  gboolean plain = title_is_plain (text);

  g_free (s->title);
  s->title = plain ? g_strdup (text) : NULL;
  s->title_kind = plain ? OTITLE_DEFAULT : OTITLE_UNKNOWN;
}

/* A version of the first message still has the conversation's default
 * title (docs/format.md §3.2): it was created with the title its message
 * derives, never renamed, and its parent derived its own title and has
 * not completed its first answer; an imported parent too, whose log
 * reads as the exported one did. A parent that was deleted gives no
 * certainty: the title stays. */
static gboolean
version_title_default (OSession *s)
{
  OSession *p = s->parent;
  OTurn *first;

  if (!s->version_default || s->title_kind != OTITLE_SET || p == NULL || s->fork_turn != NULL || p->deleted ||
      p->created_titled || p->created_title_unknown || p->fork_turn != NULL || p->recovered ||
      p->own->len == 0)
    return FALSE;
  first = g_ptr_array_index (p->own, 0);
  return !first->damaged && first->status != OT_COMPLETED;
}

static OMsg *
summary_msg (Oracle     *o,
             const char *summary)
{
  return new_msg (o, OMSG_SUMMARY, summary);
}

/* A new turn of @s for @input, with the context docs/format.md §3.2 and
 * §3.3 give it: `[]` for a conversation's first turn, the latest turn's
 * reference, or after a compaction the summary and the kept turns' own
 * messages inline (which restarts the chain). */
OTurn *
make_turn (Oracle   *o,
           OSession *s,
           OMsg     *input,
           guint     max_calls)
{
  OTurn *t = g_new0 (OTurn, 1);
  OTurn *latest = oracle_latest (s);

  t->n = o->turns->len + 1;
  t->owner = s;
  t->input = input;
  t->own = g_ptr_array_new ();
  t->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) tool_call_free);
  t->status = OT_WAITING_CALL;
  t->max_calls = max_calls > 0 ? max_calls : DEFAULT_MAX_CALLS;
  t->held_index = -1;
  g_ptr_array_add (t->own, input);

  if (s->compaction != NULL)
    {
      g_autoptr(GPtrArray) visible = oracle_visible (s);

      t->ctx = OCTX_INLINE;
      t->inline_msgs = g_ptr_array_new ();
      g_ptr_array_add (t->inline_msgs, summary_msg (o, s->compaction));
      for (guint i = index_in (visible, s->first_kept); i < visible->len; i++)
        {
          OTurn *kept = g_ptr_array_index (visible, i);

          for (guint j = 0; j < kept->own->len; j++)
            g_ptr_array_add (t->inline_msgs, g_ptr_array_index (kept->own, j));
        }
      g_clear_pointer (&s->compaction, g_free);
      s->first_kept = NULL;
    }
  else if (latest != NULL)
    {
      t->ctx = OCTX_PREV;
      t->prev = latest;
    }
  else
    t->ctx = OCTX_NONE;

  if (s->own->len == 0 && s->title_kind == OTITLE_NONE)
    derive_title (s, input);
  else if (s->untitled)
    {
      /* A session with turns and no title is named after the message
       * sent to it (docs/sessions.md §9.1 step 6: "if the session
       * has no title"); that title does not follow the first
       * turn_appended, so it is not the default one and no answer asks
       * for another (docs/format.md §3.2). */
      derive_title (s, input);
      if (s->title_kind == OTITLE_DEFAULT)
        s->title_kind = OTITLE_SET;
      s->title_asked = TRUE;
      s->untitled = FALSE;
    }
  g_ptr_array_add (s->own, t);
  g_ptr_array_add (o->turns, t);
  settings_turn_made (o, t);
  if (t->ctx == OCTX_PREV)
    oracle_log (o, "  model: T%u in S%u after T%u, waits for a model call", t->n, s->n, t->prev->n);
  else
    oracle_log (o, "  model: T%u in S%u (%s), waits for a model call", t->n, s->n,
                t->ctx == OCTX_NONE ? "first" : "inline context");
  return t;
}

static OTurn *promote (Oracle *o, OSession *s, gboolean in_child);

/* A completed turn (docs/format.md §3.2, §3.4): the conversation's first
 * answer (whichever message it answers: one before it may have failed or
 * been stopped) asks the model for a title when the title is still the
 * default one, once; the oldest queued message becomes the next turn. */
void
completed (Oracle *o,
           OTurn  *t)
{
  OSession *s = t->owner;

  t->status = OT_COMPLETED;
  if (!s->title_asked && !s->created_title_unknown &&
      (s->title_kind == OTITLE_DEFAULT || version_title_default (s) ||
       (s->title_kind == OTITLE_UNKNOWN && s->title == NULL && !s->recovered)))
    {
      s->title_wanted = TRUE;
      s->title_asked = TRUE;
      oracle_log (o, "  model: S%u wants a title", s->n);
    }
  if (oracle_latest (s) == t && s->queue->len > 0)
    promote (o, s, t->in_child);
}

/* The queue's promotion (docs/format.md §3.4; docs/sessions.md §4): FIFO,
 * one turn per message, through the same send as any message, so a
 * history that cannot be read holds the queue. */
static OTurn *
promote (Oracle   *o,
         OSession *s,
         gboolean  in_child)
{
  OQueued *q = g_ptr_array_index (s->queue, 0);
  OTurn *t;

  if (oracle_history_unreadable (s))
    {
      oracle_log (o, "  model: S%u's queue waits: its history cannot be read", s->n);
      return NULL;
    }
  /* Created with the message's own options (docs/format.md §3.4). */
  t = make_turn (o, s, q->input, q->max_calls);
  t->in_child = in_child;
  oracle_log (o, "  model: queued message %s of S%u becomes T%u", q->id != NULL ? q->id : "?", s->n, t->n);
  g_ptr_array_remove_index (s->queue, 0);
  return t;
}

/* docs/sessions.md §1 step 7, docs/sessions.md §9.1 and
 * docs/format.md §3.4. */
OSendResult
oracle_send (Oracle   *o,
             OSession *s,
             OMsg     *input,
             gboolean  queue,
             guint     max_calls,
             gboolean  in_child)
{
  OSendResult r = { 0 };
  OTurn *own_latest = oracle_latest_own (s);
  OTurn *latest = oracle_latest (s);

  r.session = s;
  /* docs/sessions.md §1 step 2: a session the index lists with an error (its latest turn
   * cannot be read) is refused. */
  if (own_latest != NULL && own_latest->damaged)
    {
      r.outcome = OSEND_CORRUPT;
      return r;
    }
  if (latest != NULL && !oracle_turn_terminal (latest))
    {
      /* Behind an answer that has not ended (docs/sessions.md §1 step 7):
       * one that runs, waits for a person, or was interrupted (docs/sessions.md §4: an
       * interrupted turn holds the queue until the person acts). */
      if (queue)
        {
          OQueued *q = g_new0 (OQueued, 1);

          q->input = input;
          q->max_calls = max_calls;
          g_ptr_array_add (s->queue, q);
          r.outcome = OSEND_QUEUED;
          r.queued = q;
          return r;
        }
      r.outcome = OSEND_NOT_SETTLED;
      return r;
    }
  /* A crash between a turn's completion and its promotion leaves the
   * queue first in line: the next send promotes it (docs/format.md §3.4). */
  if (latest != NULL && latest->status == OT_COMPLETED && s->queue->len > 0)
    {
      r.promoted = promote (o, s, in_child);
      if (r.promoted != NULL)
        {
          if (queue)
            {
              OQueued *q = g_new0 (OQueued, 1);

              q->input = input;
              q->max_calls = max_calls;
              g_ptr_array_add (s->queue, q);
              r.outcome = OSEND_QUEUED;
              r.queued = q;
              return r;
            }
          r.outcome = OSEND_NOT_SETTLED;
          return r;
        }
    }
  if (oracle_history_unreadable (s))
    {
      r.outcome = OSEND_HISTORY_DAMAGED;
      return r;
    }
  r.outcome = OSEND_TURN;
  r.turn = make_turn (o, s, input, max_calls);
  r.turn->in_child = in_child;
  return r;
}

static gboolean
at_or_after (OSession *s,
             OTurn    *t,
             OTurn    *mark)
{
  g_autoptr(GPtrArray) visible = oracle_visible (s);

  return index_in (visible, t) != G_MAXUINT && index_in (visible, t) >= index_in (visible, mark);
}

void
set_compaction (OSession   *s,
                const char *summary,
                OTurn      *first_kept)
{
  g_free (s->compaction);
  s->compaction = g_strdup (summary);
  s->first_kept = first_kept;
  g_free (s->last_compaction);
  s->last_compaction = g_strdup (summary);
  s->last_first_kept = first_kept;
}

/* A branch of @parent at @at (docs/format.md §3.3): a branch made at or
 * after the parent's last compaction's first kept turn, before the turn
 * that used the summary, starts with a copy of it, so that the history it
 * inherits stays compacted. (Read by position: the branch point lies
 * between the first kept turn and the turn whose inline context holds
 * the summary; a branch at or after that turn inherits the summary
 * through its chain.) */
OSession *
branch (Oracle   *o,
        OSession *parent,
        OTurn    *at)
{
  OSession *b = add_session (o);

  b->parent = parent;
  b->fork_turn = at;
  /* A deleted conversation's compaction went with its file: a branch
   * made from the history its versions show from the turn files starts
   * without it (docs/sessions.md §9.4). */
  if (at != NULL && !parent->deleted && parent->last_compaction != NULL &&
      at_or_after (parent, at, parent->last_first_kept))
    {
      g_autoptr(GPtrArray) visible = oracle_visible (parent);
      gboolean used = FALSE;

      for (guint i = index_in (visible, parent->last_first_kept) + 1; i <= index_in (visible, at); i++)
        used |= ((OTurn *) g_ptr_array_index (visible, i))->ctx == OCTX_INLINE;
      if (!used)
        set_compaction (b, parent->last_compaction, parent->last_first_kept);
    }
  return b;
}

OSession *
oracle_fork (Oracle   *o,
             OSession *s,
             OTurn    *at,
             OSession *asked)
{
  OSession *b = branch (o, s, at);

  /* Whether the branch inherits the conversation's last compaction is
   * read from the turn files between the fork point and the kept turn
   * (docs/format.md §3.3): where the kept turn can be in the fork
   * point's history, a file there that cannot be read refuses the
   * branch as a damaged history (docs/sessions.md §2). */
  if (s->last_compaction != NULL && at_or_after (s, at, s->last_first_kept) && oracle_history_damaged (b))
    {
      oracle_log (o, "  model: branching S%u at T%u is refused: its history cannot be read", s->n, at->n);
      remove_session (o, b);
      return NULL;
    }
  oracle_log (o, "  model: S%u branches S%u at T%u%s", b->n, s->n, at->n,
              b->compaction != NULL ? " with the pending compaction" : "");
  /* It starts with what the conversation it was made from keeps: the
   * one the person branched in (docs/format.md §3.5). */
  settings_copied (o, b, asked);
  return b;
}

/* The chain since its inline base: what a compaction may summarize. */
GPtrArray *
compactable_chain (OSession *s)
{
  GPtrArray *chain = oracle_visible (s);
  guint base = 0;

  for (guint i = 0; i < chain->len; i++)
    if (((OTurn *) g_ptr_array_index (chain, i))->ctx == OCTX_INLINE)
      base = i;
  g_ptr_array_remove_range (chain, 0, base);
  return chain;
}

/* docs/sessions.md §5: the turns before the last @keep are summarized. A
 * compaction with nothing before the kept turns is refused; a second one
 * before a turn used the first is a case the documents leave open. */
gboolean
oracle_can_compact (Oracle   *o,
                    OSession *s,
                    guint     keep)
{
  g_autoptr(GPtrArray) chain = compactable_chain (s);

  return s->compaction == NULL && chain->len >= keep + 1 && !oracle_session_shows_damage (s) &&
         oracle_session_quiet (s);
}

/* The summary request of a compaction of @s keeping @keep arrived. */
void
compaction_made (Oracle     *o,
                 OSession   *s,
                 guint       keep,
                 const char *summary)
{
  g_autoptr(GPtrArray) chain = compactable_chain (s);

  set_compaction (s, summary, g_ptr_array_index (chain, chain->len - keep));
  oracle_log (o, "  model: S%u compacted before T%u", s->n, s->first_kept->n);
}

/* A compaction of @s keeping @keep turns starts: its summary request is
 * due. */
void
oracle_begin_compaction (Oracle   *o,
                         OSession *s,
                         guint     keep)
{
  o->compacting = s;
  o->compact_keep = keep;
  o->deferred_input = NULL;
  o->deferred_queue_from = NULL;
}

/* docs/sessions.md §3: a new version of @of's message, in a new
 * conversation branched at the turn before it, with the title of the
 * conversation it was made from (@shown_in); the first message's
 * versions start a conversation of the same family. Compact and
 * Continue summarizes the earlier turns first, keeping the turn before
 * the message. */
/* A new try (or an edit) of the message whose answer a queue waited
 * behind: the queue waits behind the new try instead, in order, under
 * new ids (docs/sessions.md §4). */
void
move_queue (Oracle   *o,
            OSession *from,
            OSession *to)
{
  while (from != NULL && from->queue->len > 0)
    {
      OQueued *q = g_ptr_array_steal_index (from->queue, 0);

      oracle_log (o, "  model: queued message %s of S%u waits in S%u", q->id != NULL ? q->id : "?", from->n, to->n);
      g_clear_pointer (&q->id, g_free);
      g_ptr_array_add (to->queue, q);
    }
}

/* Sent again, a message has its own parameters win again; an imported
 * turn's instruction is words of the archive and stays behind
 * (docs/format.md §3.5, §7.1). */
static OMsg *
version_input (Oracle *o,
               OTurn  *of,
               OMsg   *input)
{
  OMsg *copy;

  if (input != of->input || of->copy_of == NULL || input->params == NULL || input->params->instruction == NULL)
    return input;
  copy = oracle_user_msg (o, input->text, input->files);
  copy->params = oracle_params_copy (o, input->params, FALSE);
  return copy;
}

/* Whether recovered copy @c names @t in its own file: the copy names
 * the damaged conversation's readable turns that that one names itself
 * (docs/sessions.md §2), not those it shows from where it was made. */
static gboolean
copy_names (OSession *c,
            OTurn    *t)
{
  g_autoptr(GPtrArray) visible = oracle_visible (c);
  OSession *damaged = c->parent;
  guint at;

  if (!c->recovered || damaged == NULL || !g_ptr_array_find (visible, t, &at) || at >= c->n_recovered)
    return FALSE;
  return g_ptr_array_find (damaged->own, t, NULL) || copy_names (damaged, t);
}

/* Whether a recovered copy not deleted names @t as well as the session
 * it was first sent in (docs/sessions.md §3: `natter retry TURN` then
 * asks which). */
gboolean
oracle_named_by_copy (Oracle *o,
                      OTurn  *t)
{
  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (o->sessions, i);

      if (!s->deleted && copy_names (s, t))
        return TRUE;
    }
  return FALSE;
}

/* The recovered copy, if any, that a version of @of shown in @shown_in
 * starts from: going up from the conversation it is shown in, the
 * nearest that names the turn in its own file, before the session it
 * was first sent in (docs/sessions.md §3). */
static OSession *
copy_naming (OSession *shown_in,
             OTurn    *of)
{
  for (OSession *s = shown_in; s != NULL && s != of->owner && !s->deleted; s = s->parent)
    if (copy_names (s, of))
      return s;
  return NULL;
}

OSendResult
oracle_new_version (Oracle   *o,
                    OSession *shown_in,
                    OTurn    *of,
                    OMsg     *input,
                    gboolean  compact_first,
                    gboolean  in_child)
{
  OSendResult r = { 0 };
  OSession *owner = of->owner;
  OSession *copy = copy_naming (shown_in, of);
  OTurn *own_latest = oracle_latest_own (shown_in);
  guint i = index_in (owner->own, of);
  OSession *b;

  if (own_latest != NULL && own_latest->damaged)
    {
      r.outcome = OSEND_CORRUPT;
      return r;
    }
  if (copy != NULL)
    {
      /* Shown in a recovered copy, the message is the copy's: the
       * version goes on from the copy, the conversation the person goes
       * on with, not from the damaged one. */
      g_autoptr(GPtrArray) visible = oracle_visible (copy);
      guint at = index_in (visible, of);

      b = branch (o, copy, at > 0 ? g_ptr_array_index (visible, at - 1) : NULL);
    }
  else if (i > 0)
    b = branch (o, owner, g_ptr_array_index (owner->own, i - 1));
  else if (owner->fork_turn != NULL)
    b = branch (o, owner->parent, owner->fork_turn);
  else if (owner->deleted)
    /* The first message of a deleted conversation, shown by one made
     * from it: a version with that conversation as its parent
     * (docs/sessions.md §9.4). */
    b = branch (o, owner, NULL);
  else
    b = branch (o, owner->parent != NULL && owner->fork_turn == NULL ? owner->parent : owner, NULL);
  b->title = g_strdup (shown_in->title);
  b->title_kind = shown_in->title != NULL && shown_in->title_kind != OTITLE_UNKNOWN ? OTITLE_SET
                  : shown_in->title_kind == OTITLE_NONE || shown_in->untitled ? OTITLE_NONE : OTITLE_UNKNOWN;
  b->created_titled = shown_in->title != NULL;
  /* Try Again (or an edit to the same words) on the first message keeps
   * the conversation's default title, which its first answer may replace. */
  b->version_default = copy == NULL && i == 0 && owner->fork_turn == NULL && !owner->recovered &&
                       b->title_kind == OTITLE_SET &&
                       title_is_plain (input->text) && g_strcmp0 (input->text, b->title) == 0;
  /* A title the model does not know (a first message it cannot derive
   * one from) is still a title: the version is created with it. */
  b->created_title_unknown = b->title_kind == OTITLE_UNKNOWN;
  b->version_of = shown_in;
  /* A recovered copy's first turns may be its own or referenced
   * (docs/sessions.md §2): a version of one of its first messages
   * branches from the copy or from the damaged conversation, and so does
   * a version of the first message of such a version. */
  b->lineage_open = copy != NULL || (i == 0 && (owner->recovered || owner->lineage_open));
  r.session = b;
  r.created = TRUE;
  oracle_log (o, "  model: S%u is a new version of T%u (shown in S%u)", b->n, of->n, shown_in->n);
  /* A version shares what its original keeps; one made with no original
   * to share with (its parent deleted), or made without a title (a
   * branch), starts with a copy (docs/format.md §3.5, §3.6). */
  if (!b->created_titled || (b->parent != NULL && b->parent->deleted))
    settings_copied (o, b, shown_in);
  input = version_input (o, of, input);

  if (compact_first)
    {
      g_autoptr(GPtrArray) chain = compactable_chain (b);

      /* The version is a branch first, and a branch reads its fork
       * point's file to know that it settled: that file damaged refuses
       * it as a damaged history before anything is summarized
       * (docs/sessions.md §2). */
      if (b->fork_turn != NULL && b->fork_turn->damaged)
        {
          r.outcome = OSEND_HISTORY_DAMAGED;
          remove_session (o, b);
          r.session = NULL;
          return r;
        }
      if (chain->len < 2)
        {
          r.outcome = OSEND_INVALID;
          remove_session (o, b);
          r.session = NULL;
          return r;
        }
      /* A summary of turns that cannot be read cannot be made: the
       * message is refused (docs/sessions.md §1 step 6). */
      for (guint j = 0; j < chain->len; j++)
        if (((OTurn *) g_ptr_array_index (chain, j))->damaged)
          {
            r.outcome = OSEND_REFUSED;
            remove_session (o, b);
            r.session = NULL;
            return r;
          }
      if (oracle_history_damaged (b))
        {
          r.outcome = OSEND_HISTORY_DAMAGED;
          remove_session (o, b);
          r.session = NULL;
          return r;
        }
      /* The turn is made once the summary is: the summary request is
       * answered first (oracle_answer_request()). */
      o->compacting = b;
      o->compact_keep = 1;
      o->deferred_input = input;
      o->deferred_in_child = in_child;
      o->deferred_queue_from = of == own_latest ? shown_in : NULL;
      r.outcome = OSEND_TURN;
      return r;
    }
  if (oracle_history_unreadable (b))
    {
      r.outcome = OSEND_HISTORY_DAMAGED;
      remove_session (o, b);
      r.session = NULL;
      return r;
    }
  r.outcome = OSEND_TURN;
  r.turn = make_turn (o, b, input, 0);
  r.turn->in_child = in_child;
  if (of == own_latest)
    move_queue (o, shown_in, b);
  return r;
}

/* ------------------------------------------------------------------ */
/* Tools, stops, answers (docs/runtime.md §6–§10)                       */
/* ------------------------------------------------------------------ */

OMsg *
tool_msg (Oracle     *o,
          OToolCall  *call,
          const char *content)
{
  OMsg *m = new_msg (o, OMSG_TOOL, content);

  m->call_id = g_strdup (call->id);
  return m;
}

/* read_file (docs/runtime.md): the file's text; a file that is not UTF-8
 * is reported as binary, in the tool's words; a missing file is an error
 * result, in the tool's words too. */
void
run_read (Oracle    *o,
          OToolCall *call)
{
  call->state = call->file != NULL ? OC_DONE : OC_ERROR;
  call->result = tool_msg (o, call, call->file != NULL ? call->file->content : NULL);
}

gboolean
has_grant (OSession   *s,
           const char *tool)
{
  for (guint i = 0; i < s->grants->len; i++)
    if (g_str_equal (((OGrant *) g_ptr_array_index (s->grants, i))->tool, tool))
      return TRUE;
  return FALSE;
}

/* Once every call of the latest response has its result, the results go
 * to the model in the model's order with the next call; the budget of
 * model calls ends the turn with "model-call-limit" instead
 * (docs/runtime.md §6, §9). */
void
settle_round (Oracle *o,
              OTurn  *t)
{
  for (guint i = 0; i < t->calls->len; i++)
    {
      OToolCall *call = g_ptr_array_index (t->calls, i);

      if (call->round == t->rounds && call->result == NULL)
        {
          t->status = OT_SUSPENDED;
          oracle_log (o, "  model: T%u suspended", t->n);
          return;
        }
    }
  for (guint i = 0; i < t->calls->len; i++)
    {
      OToolCall *call = g_ptr_array_index (t->calls, i);

      if (call->round == t->rounds)
        g_ptr_array_add (t->own, call->result);
    }
  if (t->n_calls >= t->max_calls)
    {
      t->status = OT_FAILED;
      g_free (t->fail_code);
      t->fail_code = g_strdup ("model-call-limit");
      oracle_log (o, "  model: T%u failed: model-call-limit", t->n);
      return;
    }
  t->status = OT_WAITING_CALL;
  oracle_log (o, "  model: T%u waits for a model call", t->n);
}

void
oracle_allow (Oracle    *o,
              OTurn     *t,
              OToolCall *call,
              gboolean   always)
{
  run_read (o, call);
  if (always)
    oracle_grant (o, t->owner, ORACLE_READ_FILE_ID);
  settle_round (o, t);
}

void
oracle_deny (Oracle    *o,
             OTurn     *t,
             OToolCall *call)
{
  call->state = OC_DENIED;
  call->result = tool_msg (o, call, NULL);
  settle_round (o, t);
}

void
oracle_answer (Oracle     *o,
               OTurn      *t,
               OToolCall  *call,
               const char *text)
{
  call->state = OC_DONE;
  call->result = tool_msg (o, call, text);
  settle_round (o, t);
}

/* A stop (docs/runtime.md §9): the open model call ends, every call
 * without a result gets the runtime's "cancelled" result, and the turn is
 * cancelled. The streamed part of an answer is never sent again. */
void
oracle_stop (Oracle *o,
             OTurn  *t)
{
  gboolean open_round = FALSE;

  for (guint i = 0; i < t->calls->len; i++)
    {
      OToolCall *call = g_ptr_array_index (t->calls, i);

      if (call->round == t->rounds && call->result == NULL)
        {
          call->state = OC_ERROR;
          call->result = tool_msg (o, call, NULL);
          open_round = TRUE;
        }
    }
  if (open_round)
    for (guint i = 0; i < t->calls->len; i++)
      {
        OToolCall *call = g_ptr_array_index (t->calls, i);

        if (call->round == t->rounds)
          g_ptr_array_add (t->own, call->result);
      }
  t->open_call = FALSE;
  t->status = OT_CANCELLED;
  t->held_index = -1;
  oracle_log (o, "  model: T%u cancelled", t->n);
}

/* docs/runtime.md §10: an interrupted call is closed and issued again;
 * the re-issue counts against the budget. */
void
oracle_resume (Oracle   *o,
               OTurn    *t,
               gboolean  in_child)
{
  t->in_child = in_child;
  if (t->open_call && t->n_calls >= t->max_calls)
    {
      t->open_call = FALSE;
      t->status = OT_FAILED;
      g_free (t->fail_code);
      t->fail_code = g_strdup ("model-call-limit");
      return;
    }
  t->open_call = FALSE;
  t->status = OT_WAITING_CALL;
  oracle_log (o, "  model: T%u resumes", t->n);
}

/* A process killed in the middle (docs/format.md §2, docs/runtime.md
 * §10): what it ran stays where its last write left it. Its turns with
 * an open model call are interrupted (idle); a title it was asking for is
 * not determined. */
void
oracle_killed (Oracle *o)
{
  for (guint i = 0; i < o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (o->turns, i);

      if (t->in_child && (t->status == OT_HELD || t->status == OT_WAITING_CALL))
        {
          t->status = OT_IDLE;
          t->held_index = -1;
          oracle_log (o, "  model: T%u interrupted", t->n);
        }
      t->in_child = FALSE;
    }
  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (o->sessions, i);

      if (s->title_wanted)
        {
          s->title_wanted = FALSE;
          s->title_kind = OTITLE_UNKNOWN;
        }
      /* A title the model answered may not be written yet when the
       * process dies: either title stands. */
      if (s->title_in_child)
        {
          s->title_in_child = FALSE;
          s->title_kind = OTITLE_UNKNOWN;
        }
    }
}

/* ------------------------------------------------------------------ */
/* Imports, recoveries and interrupted sends                            */
/* ------------------------------------------------------------------ */

static OToolCall *
copy_call (OToolCall *call)
{
  OToolCall *c = g_new0 (OToolCall, 1);

  *c = *call;
  c->id = g_strdup (call->id);
  c->name = g_strdup (call->name);
  c->question = g_strdup (call->question);
  return c;
}

static OTurn *
copy_turn (Oracle   *o,
           OSession *owner,
           OTurn    *t,
           OTurn    *prev_copy)
{
  OTurn *c = g_new0 (OTurn, 1);

  c->n = o->turns->len + 1;
  c->owner = owner;
  c->input = t->input;
  c->ctx = t->ctx == OCTX_PREV ? (prev_copy != NULL ? OCTX_PREV : OCTX_NONE) : t->ctx;
  c->prev = prev_copy;
  c->inline_msgs = t->inline_msgs != NULL ? g_ptr_array_ref (t->inline_msgs) : NULL;
  c->own = g_ptr_array_copy (t->own, NULL, NULL);
  c->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) tool_call_free);
  for (guint i = 0; i < t->calls->len; i++)
    g_ptr_array_add (c->calls, copy_call (g_ptr_array_index (t->calls, i)));
  c->status = t->status;
  c->max_calls = t->max_calls;
  c->n_calls = t->n_calls;
  c->rounds = t->rounds;
  c->answer = g_strdup (t->answer);
  c->fail_code = g_strdup (t->fail_code);
  c->held_index = -1;
  c->copy_of = t;
  g_ptr_array_add (o->turns, c);
  /* An answer that had not ended comes in stopped: what it waited for
   * will never come here (docs/format.md §7.1). Its tool calls without a
   * result get the runtime's "cancelled" result. */
  if (!oracle_turn_terminal (c))
    {
      gboolean open_round = FALSE;

      for (guint i = 0; i < c->calls->len; i++)
        {
          OToolCall *call = g_ptr_array_index (c->calls, i);

          if (call->round == c->rounds && call->result == NULL)
            {
              call->state = OC_ERROR;
              call->result = tool_msg (o, call, "cancelled");
              open_round = TRUE;
            }
        }
      if (open_round)
        for (guint i = 0; i < c->calls->len; i++)
          {
            OToolCall *call = g_ptr_array_index (c->calls, i);

            if (call->round == c->rounds)
              g_ptr_array_add (c->own, call->result);
          }
      c->status = OT_CANCELLED;
      c->open_call = FALSE;
    }
  return c;
}

/* docs/format.md §7.1: an archive comes in as a new conversation of its
 * own: the turns it showed (a branch's parent's included) become its own
 * turns, with the same messages, answers and outcomes, and its title.
 * Its grants and queued messages are not the new conversation's: a
 * conversation from elsewhere never runs a tool nobody allowed here, nor
 * sends what nobody typed here. */
OSession *
oracle_import (Oracle   *o,
               OSession *s)
{
  OSession *c = add_session (o);
  g_autoptr(GPtrArray) visible = oracle_visible (s);
  guint n_inherited = visible->len - s->own->len;
  OTurn *prev = NULL;

  /* A branch brings the turns it shows from its parent as far as its
   * history reaches: the chain of references from the fork point back,
   * to the turn whose context is inline (docs/format.md §7.1). */
  if (n_inherited > 0)
    {
      guint base = 0;

      for (guint i = 0; i < n_inherited; i++)
        if (((OTurn *) g_ptr_array_index (visible, i))->ctx != OCTX_PREV)
          base = i;
      g_ptr_array_remove_range (visible, 0, base);
    }
  c->imported = TRUE;
  settings_imported (o, c, s);
  c->not_imported = g_ptr_array_new ();
  for (guint i = 0; i < s->queue->len; i++)
    g_ptr_array_add (c->not_imported, ((OQueued *) g_ptr_array_index (s->queue, i))->input);
  /* The title comes with the log: a default title stays the default one
   * (docs/format.md §3.2), which the conversation's first answer here
   * replaces if it had none there. */
  c->title = g_strdup (s->title);
  c->title_kind = s->title_kind;
  c->title_asked = s->title_asked;
  /* Its session_created is the archive's, title and all (docs/format.md
   * §7.1): created with a title or without, as the exported one was. */
  c->created_titled = s->created_titled;
  c->created_title_unknown = s->created_title_unknown;
  /* A branch made without a title has turns and no title once imported
   * (it is shown without one: which reading stands in for it is not
   * determined); its next message names it. */
  if ((s->title_kind == OTITLE_NONE || s->untitled) && visible->len > 0)
    {
      c->title_kind = OTITLE_UNKNOWN;
      c->untitled = TRUE;
    }
  /* A branch's history comes in as turns of its own, so the title derived
   * from its first message no longer follows the first turn_appended: it
   * is not the default one there, and no answer asks for another
   * (docs/format.md §3.2). */
  if (s->title_kind == OTITLE_DEFAULT && visible->len > s->own->len)
    {
      c->title_kind = OTITLE_SET;
      c->title_asked = TRUE;
    }
  for (guint i = 0; i < visible->len; i++)
    {
      OTurn *t = g_ptr_array_index (visible, i);
      OTurn *copy = copy_turn (o, c, t, prev);

      g_ptr_array_add (c->own, copy);
      if (s->last_compaction != NULL && t == s->last_first_kept)
        {
          /* The archive holds the log's compaction events (docs/format.md §7.1). */
          set_compaction (c, s->last_compaction, copy);
          if (s->compaction == NULL)
            g_clear_pointer (&c->compaction, g_free);
        }
      prev = copy;
    }
  oracle_log (o, "  model: S%u imports S%u", c->n, s->n);
  return c;
}

/* Whether a session listed beside @c is titled @title. */
static gboolean
title_taken (Oracle     *o,
             OSession   *c,
             const char *title)
{
  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *other = g_ptr_array_index (o->sessions, i);

      if (other != c && !other->deleted && g_strcmp0 (other->title, title) == 0)
        return TRUE;
    }
  return FALSE;
}

/* docs/sessions.md §2: the copy of @title's conversation is "@title
 * (recovered)", or "@title (recovered 2)" and on while a listed
 * conversation has that title already. */
static char *
recovered_title (Oracle     *o,
                 OSession   *c,
                 const char *title)
{
  char *marked = g_strdup_printf ("%s (recovered)", title);

  for (guint n = 2; title_taken (o, c, marked); n++)
    {
      g_free (marked);
      marked = g_strdup_printf ("%s (recovered %u)", title, n);
    }
  return marked;
}

/* docs/sessions.md §2: the copy holds the turns before the first one
 * that cannot be read, and goes on from there with their whole history;
 * it has the damaged conversation's title marked as the copy's (told
 * from an earlier copy's by a number), and the
 * messages still queued there, in order, under their ids (the damaged
 * conversation keeps them too). Whether it references them
 * (like a branch) or copies them is its own business: the model only
 * knows what it shows. */
OSession *
oracle_recover (Oracle   *o,
                OSession *s)
{
  OSession *c = add_session (o);
  g_autoptr(GPtrArray) visible = oracle_visible (s);
  OTurn *last = NULL;

  for (guint i = 0; i < visible->len && !((OTurn *) g_ptr_array_index (visible, i))->damaged &&
                    !oracle_carries_damaged (g_ptr_array_index (visible, i)); i++)
    {
      last = g_ptr_array_index (visible, i);
      c->n_recovered++;
    }
  c->parent = last != NULL ? s : NULL;
  c->fork_turn = last;
  c->recovered = TRUE;
  /* What a recovered copy keeps is not determined by the documents. */
  c->settings_open = TRUE;
  c->no_versions = TRUE;
  s->no_versions = TRUE;
  c->title = s->title != NULL ? recovered_title (o, c, s->title) : NULL;
  c->title_kind = s->title != NULL ? OTITLE_SET : OTITLE_UNKNOWN;
  c->created_titled = c->parent != NULL && s->title != NULL;
  for (guint i = 0; i < s->queue->len; i++)
    {
      OQueued *q = g_ptr_array_index (s->queue, i);
      OQueued *copy = g_new0 (OQueued, 1);

      copy->id = g_strdup (q->id);
      copy->input = q->input;
      copy->max_calls = q->max_calls;
      g_ptr_array_add (c->queue, copy);
    }
  oracle_log (o, "  model: S%u recovers %u turns of S%u", c->n, c->n_recovered, s->n);
  return c;
}

/* A send that stopped, as if the process died, right after its
 * turn_appended (docs/sessions.md §7): the turn is in the
 * session and has not started. */
OTurn *
oracle_crash_appended (Oracle   *o,
                       OSession *s,
                       OMsg     *input)
{
  OTurn *t = make_turn (o, s, input, 0);

  t->status = OT_IDLE;
  oracle_log (o, "  model: T%u interrupted before its first model call", t->n);
  return t;
}
