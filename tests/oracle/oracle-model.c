/* oracle-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The conversation model of the oracle test (oracle-model.h). Each rule
 * below names the document it follows; where the documents leave a case
 * open, the driver does not produce that case, and says so.
 */

#include <string.h>

#include "oracle-model.h"

#define DEFAULT_MAX_CALLS 50
#define MAX_ROUNDS 2
#define TITLE_MAX_CHARS 60

static const char *const WORDS[] = {
  "apple", "river", "stone", "cloud", "lamp", "violet", "ember", "harbor", "maple", "quartz",
  "signal", "tunnel", "whisper", "copper", "meadow", "lantern", "orbit", "pebble", "saffron", "timber",
};

/* ------------------------------------------------------------------ */
/* Bookkeeping                                                          */
/* ------------------------------------------------------------------ */

static void
file_free (OFile *f)
{
  g_free (f->name);
  g_free (f->path);
  g_free (f->content);
  g_free (f);
}

static void
call_free (OCall *c)
{
  g_free (c->id);
  g_free (c->name);
  g_free (c->args);
  g_free (c);
}

static void
msg_free (OMsg *m)
{
  g_free (m->text);
  g_clear_pointer (&m->files, g_ptr_array_unref);
  g_clear_pointer (&m->calls, g_ptr_array_unref);
  g_free (m->call_id);
  g_free (m);
}

static void
tool_call_free (OToolCall *c)
{
  g_free (c->id);
  g_free (c->name);
  g_free (c->question);
  g_free (c);
}

static void
turn_free (OTurn *t)
{
  g_free (t->id);
  g_clear_pointer (&t->inline_msgs, g_ptr_array_unref);
  g_ptr_array_unref (t->own);
  g_ptr_array_unref (t->calls);
  g_free (t->answer);
  g_free (t->fail_code);
  g_free (t);
}

static void
queued_free (OQueued *q)
{
  g_free (q->id);
  g_free (q);
}

static void
grant_free (OGrant *g)
{
  g_free (g->id);
  g_free (g->tool);
  g_free (g);
}

static void
session_free (OSession *s)
{
  g_free (s->id);
  g_ptr_array_unref (s->own);
  g_free (s->title);
  g_ptr_array_unref (s->queue);
  g_ptr_array_unref (s->grants);
  g_clear_pointer (&s->not_imported, g_ptr_array_unref);
  g_free (s->compaction);
  g_free (s->last_compaction);
  g_free (s);
}

static OFile *
add_file (Oracle     *o,
          const char *dir,
          const char *name,
          const char *content,
          gssize      length)
{
  OFile *f = g_new0 (OFile, 1);
  g_autoptr(GError) error = NULL;

  if (length < 0)
    length = strlen (content);

  f->name = g_strdup (name);
  f->path = g_build_filename (dir, name, NULL);
  f->content = g_utf8_validate (content, length, NULL) ? g_strndup (content, length) : NULL;
  g_file_set_contents (f->path, content, length, &error);
  g_assert_no_error (error);
  g_ptr_array_add (o->files, f);
  return f;
}

Oracle *
oracle_new (guint32     seed,
            const char *dir)
{
  Oracle *o = g_new0 (Oracle, 1);
  static const char binary[] = { 'b', 'i', 'n', (char) 0xff, (char) 0xfe, 0x01, '\n' };

  o->rand = g_rand_new_with_seed (seed);
  o->sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) session_free);
  o->gone = g_ptr_array_new_with_free_func ((GDestroyNotify) session_free);
  o->turns = g_ptr_array_new_with_free_func ((GDestroyNotify) turn_free);
  o->msgs = g_ptr_array_new_with_free_func ((GDestroyNotify) msg_free);
  o->files = g_ptr_array_new_with_free_func ((GDestroyNotify) file_free);
  o->read_files = g_ptr_array_new ();
  o->attachable = g_ptr_array_new ();
  o->summaries = g_ptr_array_new_with_free_func (g_free);
  o->log = g_string_new (NULL);
  o->weird_text = TRUE;
  o->max_held = 1;

  g_ptr_array_add (o->read_files, add_file (o, dir, "plan.txt", "Plan: plant the maple by the river.\n", -1));
  g_ptr_array_add (o->read_files, add_file (o, dir, "tabs.txt", "col1\tcol2\nA\x01" "B\x1f" "C\n", -1));
  g_ptr_array_add (o->read_files, add_file (o, dir, "blob.bin", binary, sizeof binary));
  g_ptr_array_add (o->attachable, add_file (o, dir, "note-1.txt", "The first note: copper lantern.\n", -1));
  g_ptr_array_add (o->attachable, add_file (o, dir, "note-2.txt", "The second note:\nsaffron\ttimber\n", -1));
  o->missing_path = g_build_filename (dir, "no-such-file.txt", NULL);
  return o;
}

void
oracle_free (Oracle *o)
{
  g_rand_free (o->rand);
  g_ptr_array_unref (o->turns);
  g_ptr_array_unref (o->sessions);
  g_ptr_array_unref (o->gone);
  g_ptr_array_unref (o->msgs);
  g_ptr_array_unref (o->read_files);
  g_ptr_array_unref (o->attachable);
  g_ptr_array_unref (o->files);
  g_ptr_array_unref (o->summaries);
  g_free (o->missing_path);
  g_string_free (o->log, TRUE);
  g_free (o);
}

void
oracle_log (Oracle     *o,
            const char *format,
            ...)
{
  va_list args;

  va_start (args, format);
  g_string_append_vprintf (o->log, format, args);
  va_end (args);
  g_string_append_c (o->log, '\n');
}

static OMsg *
new_msg (Oracle   *o,
         OMsgKind  kind,
         const char *text)
{
  OMsg *m = g_new0 (OMsg, 1);

  m->kind = kind;
  m->text = g_strdup (text);
  g_ptr_array_add (o->msgs, m);
  return m;
}

OMsg *
oracle_user_msg (Oracle     *o,
                 const char *text,
                 GPtrArray  *files)
{
  OMsg *m = new_msg (o, OMSG_USER, text);

  m->files = g_ptr_array_new ();
  for (guint i = 0; files != NULL && i < files->len; i++)
    g_ptr_array_add (m->files, g_ptr_array_index (files, i));
  return m;
}

/* A message's words: a number that makes it unique (and findable in a
 * summary request), then words; sometimes a control character, which a
 * message may hold (docs/format.md §2: control characters are escaped,
 * never written raw). A first message stays plain, so that its default
 * title (derived from it, docs/format.md §3.2) is known. */
char *
oracle_new_text (Oracle   *o,
                 gboolean  plain)
{
  static const char *const controls[] = { "\x01", "\x1f", "\x7f", "\t", "\x1b[1m", "\r" };
  GString *text = g_string_new (NULL);
  guint n = ++o->next_text;
  guint words = g_rand_int_range (o->rand, 1, 4);

  g_string_append_printf (text, "m%u", n);
  for (guint i = 0; i < words; i++)
    {
      g_string_append_c (text, ' ');
      g_string_append (text, WORDS[g_rand_int_range (o->rand, 0, G_N_ELEMENTS (WORDS))]);
      if (!plain && o->weird_text && g_rand_int_range (o->rand, 0, 100) < 12)
        g_string_append (text, controls[g_rand_int_range (o->rand, 0, G_N_ELEMENTS (controls))]);
    }
  return g_string_free (text, FALSE);
}

/* ------------------------------------------------------------------ */
/* Reading the model                                                    */
/* ------------------------------------------------------------------ */

/* What a session shows: its parent's turns up to the fork point, then its
 * own (docs/format.md §3.2). This is also the chain a next turn
 * continues. */
GPtrArray *
oracle_visible (OSession *s)
{
  GPtrArray *out = g_ptr_array_new ();

  if (s->parent != NULL && s->fork_turn != NULL)
    {
      g_autoptr(GPtrArray) inherited = oracle_visible (s->parent);

      for (guint i = 0; i < inherited->len; i++)
        {
          g_ptr_array_add (out, g_ptr_array_index (inherited, i));
          if (g_ptr_array_index (inherited, i) == s->fork_turn)
            break;
        }
    }
  for (guint i = 0; i < s->own->len; i++)
    g_ptr_array_add (out, g_ptr_array_index (s->own, i));
  return out;
}

OTurn *
oracle_latest (OSession *s)
{
  g_autoptr(GPtrArray) visible = oracle_visible (s);

  return visible->len > 0 ? g_ptr_array_index (visible, visible->len - 1) : NULL;
}

OTurn *
oracle_latest_own (OSession *s)
{
  return s->own->len > 0 ? g_ptr_array_index (s->own, s->own->len - 1) : NULL;
}

gboolean
oracle_turn_terminal (OTurn *t)
{
  return t->status == OT_COMPLETED || t->status == OT_FAILED || t->status == OT_CANCELLED;
}

gboolean
oracle_turn_settled (OTurn *t)
{
  return oracle_turn_terminal (t) || t->status == OT_SUSPENDED || t->status == OT_IDLE;
}

static guint
index_in (GPtrArray *array,
          gpointer   item)
{
  guint i;

  return g_ptr_array_find (array, item, &i) ? i : G_MAXUINT;
}

/* The turns whose files the next turn of @s reads before it is made
 * (docs/sessions.md §2): after a compaction the kept turns; else the
 * reference chain of the latest turn down to its inline base
 * (docs/runtime.md §11). */
static GPtrArray *
next_turn_reads (OSession *s)
{
  GPtrArray *reads = g_ptr_array_new ();
  g_autoptr(GPtrArray) visible = oracle_visible (s);

  if (s->compaction != NULL)
    {
      for (guint i = index_in (visible, s->first_kept); i < visible->len; i++)
        g_ptr_array_add (reads, g_ptr_array_index (visible, i));
      return reads;
    }
  for (OTurn *t = visible->len > 0 ? g_ptr_array_index (visible, visible->len - 1) : NULL; t != NULL;
       t = t->ctx == OCTX_PREV ? t->prev : NULL)
    g_ptr_array_add (reads, t);
  return reads;
}

gboolean
oracle_history_damaged (OSession *s)
{
  g_autoptr(GPtrArray) reads = next_turn_reads (s);

  for (guint i = 0; i < reads->len; i++)
    if (((OTurn *) g_ptr_array_index (reads, i))->damaged)
      return TRUE;
  return FALSE;
}

gboolean
oracle_session_shows_damage (OSession *s)
{
  g_autoptr(GPtrArray) visible = oracle_visible (s);

  for (guint i = 0; i < visible->len; i++)
    if (((OTurn *) g_ptr_array_index (visible, i))->damaged)
      return TRUE;
  return FALSE;
}

/* Nothing of @s is under way: its latest turn has ended. */
gboolean
oracle_session_quiet (OSession *s)
{
  OTurn *latest = oracle_latest (s);

  return latest == NULL || oracle_turn_terminal (latest);
}

static gboolean
turn_reads (OTurn *reader,
            OTurn *t)
{
  for (OTurn *r = reader; r != NULL; r = r->ctx == OCTX_PREV ? r->prev : NULL)
    if (r == t)
      return TRUE;
  return FALSE;
}

/* Whether a turn that has not ended, or a message waiting in a queue,
 * still needs @t's file: damaging it then would make the documents'
 * order of events (an advance that cannot read its history) the case,
 * which they leave open. A recovered copy's kept turns count too. */
gboolean
oracle_turn_is_depended_on (Oracle *o,
                            OTurn  *t)
{
  for (guint i = 0; i < o->turns->len; i++)
    {
      OTurn *other = g_ptr_array_index (o->turns, i);

      if (!oracle_turn_terminal (other) && turn_reads (other, t))
        return TRUE;
    }
  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (o->sessions, i);
      g_autoptr(GPtrArray) reads = NULL;

      if (s->queue->len == 0)
        continue;
      reads = next_turn_reads (s);
      if (index_in (reads, t) != G_MAXUINT)
        return TRUE;
    }
  /* A recovered copy may reference the turns it kept instead of copying
   * them (docs/sessions.md §2); which it does is its own business, so
   * the model cannot say whether damaging one of them damages the copy
   * too, and leaves them whole. */
  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (o->sessions, i);
      g_autoptr(GPtrArray) visible = NULL;

      if (!s->recovered || t->owner == s)
        continue;
      visible = oracle_visible (s);
      if (index_in (visible, t) != G_MAXUINT)
        return TRUE;
    }
  return FALSE;
}

/* Whether @s is an imported conversation, or was made from one. */
gboolean
oracle_from_import (OSession *s)
{
  for (; s != NULL; s = s->parent != NULL ? s->parent : s->version_of)
    if (s->imported)
      return TRUE;
  return FALSE;
}

static gboolean
listed_damaged (OSession *s)
{
  OTurn *latest = s->own->len > 0 ? g_ptr_array_index (s->own, s->own->len - 1) : NULL;

  return latest != NULL && latest->damaged;
}

/* Whether @s is listed as a version of its parent (docs/format.md §3.2,
 * "versions of a conversation"): it has a parent and was created with a
 * title; a parent that is damaged leaves it standing alone. */
static gboolean
is_version (OSession *s)
{
  return s->parent != NULL && s->created_titled && !listed_damaged (s->parent);
}

static gboolean
lineage_known (OSession *s)
{
  /* A damaged conversation's place in its family is open (the documents
   * say only that a damaged parent leaves its versions alone). */
  if (listed_damaged (s))
    return FALSE;
  for (; s != NULL; s = s->parent)
    if (s->recovered || s->created_title_unknown || s->lineage_open)
      return FALSE;
  return TRUE;
}

/* The conversation @s is a version of (a version of a version belongs to
 * the same one), or @s itself. */
OSession *
oracle_original (OSession *s)
{
  while (is_version (s))
    s = s->parent;
  return s;
}

/* ------------------------------------------------------------------ */
/* Making turns                                                         */
/* ------------------------------------------------------------------ */

static OSession *
add_session (Oracle *o)
{
  OSession *s = g_new0 (OSession, 1);

  s->n = ++o->next_session;
  s->own = g_ptr_array_new ();
  s->queue = g_ptr_array_new_with_free_func ((GDestroyNotify) queued_free);
  s->grants = g_ptr_array_new_with_free_func ((GDestroyNotify) grant_free);
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
static void
derive_title (OSession *s,
              OMsg     *input)
{
  const char *text = input->text;
  gboolean plain = g_utf8_strlen (text, -1) <= TITLE_MAX_CHARS;

  for (const char *p = text; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || (guchar) *p == 0x7f)
      plain = FALSE;
  g_free (s->title);
  s->title = plain ? g_strdup (text) : NULL;
  s->title_kind = plain ? OTITLE_DEFAULT : OTITLE_UNKNOWN;
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
static OTurn *
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
static void
completed (Oracle *o,
           OTurn  *t)
{
  OSession *s = t->owner;

  t->status = OT_COMPLETED;
  if (!s->title_asked && !s->created_title_unknown &&
      (s->title_kind == OTITLE_DEFAULT || (s->title_kind == OTITLE_UNKNOWN && s->title == NULL && !s->recovered)))
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

  if (oracle_history_damaged (s))
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
  if (oracle_history_damaged (s))
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

static void
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
static OSession *
branch (Oracle   *o,
        OSession *parent,
        OTurn    *at)
{
  OSession *b = add_session (o);

  b->parent = parent;
  b->fork_turn = at;
  if (at != NULL && parent->last_compaction != NULL && at_or_after (parent, at, parent->last_first_kept))
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
             OTurn    *at)
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
  return b;
}

/* The chain since its inline base: what a compaction may summarize. */
static GPtrArray *
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
static void
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
}

/* docs/sessions.md §3: a new version of @of's message, in a new
 * conversation branched at the turn before it, with the title of the
 * conversation it was made from (@shown_in); the first message's
 * versions start a conversation of the same family. Compact and
 * Continue summarizes the earlier turns first, keeping the turn before
 * the message. */
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
  OTurn *own_latest = oracle_latest_own (shown_in);
  guint i = index_in (owner->own, of);
  OSession *b;

  if (own_latest != NULL && own_latest->damaged)
    {
      r.outcome = OSEND_CORRUPT;
      return r;
    }
  if (i > 0)
    b = branch (o, owner, g_ptr_array_index (owner->own, i - 1));
  else if (owner->fork_turn != NULL)
    b = branch (o, owner->parent, owner->fork_turn);
  else
    b = branch (o, owner->parent != NULL && owner->fork_turn == NULL ? owner->parent : owner, NULL);
  b->title = g_strdup (shown_in->title);
  b->title_kind = shown_in->title != NULL && shown_in->title_kind != OTITLE_UNKNOWN ? OTITLE_SET
                  : shown_in->title_kind == OTITLE_NONE || shown_in->untitled ? OTITLE_NONE : OTITLE_UNKNOWN;
  b->created_titled = shown_in->title != NULL;
  /* A title the model does not know (a first message it cannot derive
   * one from) is still a title: the version is created with it. */
  b->created_title_unknown = b->title_kind == OTITLE_UNKNOWN;
  b->version_of = shown_in;
  /* A recovered copy's first turns may be its own or referenced
   * (docs/sessions.md §2): a version of one of its first messages
   * branches from the copy or from the damaged conversation. */
  b->lineage_open = i == 0 && owner->recovered;
  r.session = b;
  r.created = TRUE;
  oracle_log (o, "  model: S%u is a new version of T%u (shown in S%u)", b->n, of->n, shown_in->n);

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
      r.outcome = OSEND_TURN;
      return r;
    }
  if (oracle_history_damaged (b))
    {
      r.outcome = OSEND_HISTORY_DAMAGED;
      remove_session (o, b);
      r.session = NULL;
      return r;
    }
  r.outcome = OSEND_TURN;
  r.turn = make_turn (o, b, input, 0);
  r.turn->in_child = in_child;
  return r;
}

/* ------------------------------------------------------------------ */
/* Tools, stops, answers (docs/runtime.md §6–§10)                       */
/* ------------------------------------------------------------------ */

static OMsg *
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
static void
run_read (Oracle    *o,
          OToolCall *call)
{
  call->state = call->file != NULL ? OC_DONE : OC_ERROR;
  call->result = tool_msg (o, call, call->file != NULL ? call->file->content : NULL);
}

static gboolean
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
static void
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
/* The session's other operations                                       */
/* ------------------------------------------------------------------ */

void
oracle_unqueue (Oracle   *o,
                OSession *s,
                OQueued  *q)
{
  g_ptr_array_remove (s->queue, q);
}

OGrant *
oracle_grant (Oracle     *o,
              OSession   *s,
              const char *tool)
{
  OGrant *g = g_new0 (OGrant, 1);

  g->tool = g_strdup (tool);
  g_ptr_array_add (s->grants, g);
  return g;
}

void
oracle_revoke (Oracle   *o,
               OSession *s,
               OGrant   *g)
{
  g_ptr_array_remove (s->grants, g);
}

void
oracle_rename (Oracle     *o,
               OSession   *s,
               const char *title)
{
  g_free (s->title);
  s->title = g_strdup (title);
  s->title_kind = OTITLE_SET;
  s->title_wanted = FALSE;
  s->untitled = FALSE;
}

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
  c->not_imported = g_ptr_array_new ();
  for (guint i = 0; i < s->queue->len; i++)
    g_ptr_array_add (c->not_imported, ((OQueued *) g_ptr_array_index (s->queue, i))->input);
  /* The title comes with the log: a default title stays the default one
   * (docs/format.md §3.2), which the conversation's first answer here
   * replaces if it had none there. */
  c->title = g_strdup (s->title);
  c->title_kind = s->title_kind;
  c->title_asked = s->title_asked;
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

void
oracle_damage (Oracle *o,
               OTurn  *t)
{
  t->damaged = TRUE;
}

/* docs/sessions.md §2: the copy holds the turns before the first one
 * that cannot be read, and goes on from there with their whole history;
 * it has the damaged conversation's title. Whether it references them
 * (like a branch) or copies them is its own business: the model only
 * knows what it shows. */
OSession *
oracle_recover (Oracle   *o,
                OSession *s)
{
  OSession *c = add_session (o);
  g_autoptr(GPtrArray) visible = oracle_visible (s);
  OTurn *last = NULL;

  for (guint i = 0; i < visible->len && !((OTurn *) g_ptr_array_index (visible, i))->damaged; i++)
    {
      last = g_ptr_array_index (visible, i);
      c->n_recovered++;
    }
  c->parent = last != NULL ? s : NULL;
  c->fork_turn = last;
  c->recovered = TRUE;
  c->no_versions = TRUE;
  s->no_versions = TRUE;
  c->title = g_strdup (s->title);
  c->title_kind = s->title != NULL ? OTITLE_SET : OTITLE_UNKNOWN;
  c->created_titled = c->parent != NULL && s->title != NULL;
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

/* ------------------------------------------------------------------ */
/* Model calls                                                          */
/* ------------------------------------------------------------------ */

GPtrArray *
oracle_waiting_turns (Oracle *o)
{
  GPtrArray *waiting = g_ptr_array_new ();

  for (guint i = 0; i < o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (o->turns, i);

      if (t->status == OT_WAITING_CALL && !t->forgotten)
        g_ptr_array_add (waiting, t);
    }
  return waiting;
}

/* Nothing the model expects is still to come to the server. */
gboolean
oracle_quiet (Oracle *o)
{
  g_autoptr(GPtrArray) waiting = oracle_waiting_turns (o);

  if (waiting->len > 0 || o->compacting != NULL)
    return FALSE;
  for (guint i = 0; i < o->sessions->len; i++)
    if (((OSession *) g_ptr_array_index (o->sessions, i))->title_wanted)
      return FALSE;
  return TRUE;
}

/* The messages @t's next model call must carry, after the system prompt
 * (docs/sessions.md §2, docs/runtime.md §3, §11): the context — nothing,
 * the closed transcript of the turn it continues, or the inline summary
 * and kept turns — then the turn's own input and what it produced. */
static void
add_context (OTurn     *t,
             GPtrArray *out)
{
  switch (t->ctx)
    {
    case OCTX_NONE:
      break;
    case OCTX_PREV:
      add_context (t->prev, out);
      for (guint i = 0; i < t->prev->own->len; i++)
        g_ptr_array_add (out, g_ptr_array_index (t->prev->own, i));
      break;
    case OCTX_INLINE:
      for (guint i = 0; i < t->inline_msgs->len; i++)
        g_ptr_array_add (out, g_ptr_array_index (t->inline_msgs, i));
      break;
    }
}

GPtrArray *
oracle_expected_request (OTurn *t)
{
  GPtrArray *out = g_ptr_array_new ();

  add_context (t, out);
  for (guint i = 0; i < t->own->len; i++)
    g_ptr_array_add (out, g_ptr_array_index (t->own, i));
  return out;
}

/* @object's member @name when it is a string, else NULL. */
static const char *
str_member (JsonObject *object,
            const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

/* The texts of a user message on the wire: its string content, or its
 * parts' texts (an image part as "<image>"). */
static GPtrArray *
wire_user_texts (JsonObject *message)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  JsonNode *content = json_object_get_member (message, "content");

  if (content != NULL && JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    g_ptr_array_add (texts, g_strdup (json_node_get_string (content)));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonObject *part = json_array_get_object_element (parts, i);

          if (g_strcmp0 (json_object_get_string_member_with_default (part, "type", ""), "text") == 0)
            g_ptr_array_add (texts, g_strdup (json_object_get_string_member_with_default (part, "text", "")));
          else
            g_ptr_array_add (texts, g_strdup ("<image>"));
        }
    }
  return texts;
}

static char *
printable (const char *text)
{
  return text != NULL ? g_strescape (text, NULL) : g_strdup ("(to learn)");
}

static gboolean
args_equal (const OCall *expected,
            const char  *actual)
{
  g_autoptr(JsonNode) a = NULL;
  g_autoptr(JsonNode) b = NULL;

  if (expected->raw)
    return g_strcmp0 (expected->args, actual) == 0;
  a = json_from_string (expected->args, NULL);
  b = actual != NULL ? json_from_string (actual, NULL) : NULL;
  return a != NULL && b != NULL && json_node_equal (a, b);
}

/* Compares one expected message with one on the wire; learns a tool
 * result's words the first time they are seen. Returns why they differ,
 * or NULL. */
static char *
match_msg (OMsg       *m,
           JsonObject *wire)
{
  const char *role = str_member (wire, "role") != NULL ? str_member (wire, "role") : "";

  switch (m->kind)
    {
    case OMSG_USER:
      {
        g_autoptr(GPtrArray) texts = wire_user_texts (wire);
        g_autoptr(GPtrArray) expected = g_ptr_array_new_with_free_func (g_free);

        if (!g_str_equal (role, "user"))
          return g_strdup_printf ("a user message was expected, not %s", role);
        g_ptr_array_add (expected, g_strdup (m->text));
        /* docs/format.md §4.4: a text file's part is "File: <name>\n\n<text>". */
        for (guint i = 0; m->files != NULL && i < m->files->len; i++)
          {
            OFile *f = g_ptr_array_index (m->files, i);

            g_ptr_array_add (expected, g_strdup_printf ("File: %s\n\n%s", f->name, f->content));
          }
        if (texts->len != expected->len)
          {
            g_autofree char *want = printable (m->text);

            return g_strdup_printf ("the user message \"%s\" should have %u part(s) (its attachments: %u), "
                                    "it has %u", want, expected->len, expected->len - 1, texts->len);
          }
        for (guint i = 0; i < texts->len; i++)
          if (g_strcmp0 (g_ptr_array_index (texts, i), g_ptr_array_index (expected, i)) != 0)
            {
              g_autofree char *want = printable (g_ptr_array_index (expected, i));
              g_autofree char *got = printable (g_ptr_array_index (texts, i));

              return g_strdup_printf ("user text \"%s\" expected, \"%s\" sent", want, got);
            }
        return NULL;
      }
    case OMSG_SUMMARY:
      {
        g_autoptr(GPtrArray) texts = wire_user_texts (wire);

        if (!g_str_equal (role, "user") || texts->len != 1 || strstr (g_ptr_array_index (texts, 0), m->text) == NULL)
          return g_strdup_printf ("the summary \"%s\" was expected as a user message", m->text);
        return NULL;
      }
    case OMSG_ASSISTANT:
      {
        const char *text = str_member (wire, "content") != NULL ? str_member (wire, "content") : "";
        JsonArray *calls = json_object_has_member (wire, "tool_calls")
                           ? json_object_get_array_member (wire, "tool_calls") : NULL;
        guint n_calls = calls != NULL ? json_array_get_length (calls) : 0;

        if (!g_str_equal (role, "assistant"))
          return g_strdup_printf ("an assistant message was expected, not %s", role);
        if (g_strcmp0 (text, m->text) != 0)
          {
            g_autofree char *want = printable (m->text);
            g_autofree char *got = printable (text);

            return g_strdup_printf ("assistant text \"%s\" expected, \"%s\" sent", want, got);
          }
        if (n_calls != (m->calls != NULL ? m->calls->len : 0))
          return g_strdup_printf ("%u tool calls expected, %u sent", m->calls != NULL ? m->calls->len : 0, n_calls);
        for (guint i = 0; i < n_calls; i++)
          {
            OCall *want = g_ptr_array_index (m->calls, i);
            JsonObject *call = json_array_get_object_element (calls, i);
            JsonObject *function = json_object_get_object_member (call, "function");
            const char *args = function != NULL
                               ? json_object_get_string_member_with_default (function, "arguments", NULL) : NULL;

            if (g_strcmp0 (json_object_get_string_member_with_default (call, "id", NULL), want->id) != 0 ||
                function == NULL ||
                g_strcmp0 (json_object_get_string_member_with_default (function, "name", NULL), want->name) != 0 ||
                !args_equal (want, args))
              {
                g_autofree char *want_args = printable (want->args);
                g_autofree char *got_args = printable (args);

                return g_strdup_printf ("tool call %s %s(%s) expected, %s %s(%s) sent", want->id, want->name,
                                        want_args, json_object_get_string_member_with_default (call, "id", "?"),
                                        function != NULL
                                        ? json_object_get_string_member_with_default (function, "name", "?") : "?",
                                        got_args);
              }
          }
        return NULL;
      }
    case OMSG_TOOL:
      {
        const char *id = str_member (wire, "tool_call_id");
        const char *content = str_member (wire, "content");

        if (!g_str_equal (role, "tool") || g_strcmp0 (id, m->call_id) != 0)
          return g_strdup_printf ("the result of %s was expected, not a %s message (%s)", m->call_id, role,
                                  id != NULL ? id : "-");
        if (content == NULL)
          return g_strdup_printf ("the result of %s has no text", m->call_id);
        if (m->text == NULL)
          m->text = g_strdup (content);
        else if (!g_str_equal (m->text, content))
          {
            g_autofree char *want = printable (m->text);
            g_autofree char *got = printable (content);

            return g_strdup_printf ("the result of %s: \"%s\" expected, \"%s\" sent", m->call_id, want, got);
          }
        return NULL;
      }
    }
  g_assert_not_reached ();
}

static const char *
msg_kind_name (OMsg *m)
{
  switch (m->kind)
    {
    case OMSG_USER:
      return "user";
    case OMSG_SUMMARY:
      return "summary";
    case OMSG_ASSISTANT:
      return "assistant";
    case OMSG_TOOL:
      return "tool";
    }
  return "?";
}

static char *
describe_expected (GPtrArray *expected)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < expected->len; i++)
    {
      OMsg *m = g_ptr_array_index (expected, i);
      g_autofree char *text = printable (m->text);

      g_string_append_printf (out, "    %u %s \"%s\"%s%s\n", i, msg_kind_name (m), text,
                              m->files != NULL && m->files->len > 0 ? " +files" : "",
                              m->calls != NULL && m->calls->len > 0 ? " +calls" : "");
    }
  return g_string_free (out, FALSE);
}

static char *
describe_wire (JsonArray *messages)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      g_autofree char *text = json_to_string (node, FALSE);

      if (strlen (text) > 200)
        text[200] = '\0';
      g_string_append_printf (out, "    %u %s\n", i, text);
    }
  return g_string_free (out, FALSE);
}

/* Whether the request's messages (after the system prompt) are @t's
 * expected ones; why not, if @why. Learns as it goes only when @learn. */
static gboolean
request_matches (OTurn      *t,
                 JsonArray  *messages,
                 gboolean    learn,
                 char      **why)
{
  g_autoptr(GPtrArray) expected = oracle_expected_request (t);
  guint first = 0;
  guint n = json_array_get_length (messages);

  if (n > 0 && g_strcmp0 (json_object_get_string_member_with_default (json_array_get_object_element (messages, 0),
                                                                      "role", ""), "system") == 0)
    first = 1;
  if (n - first != expected->len)
    {
      if (why != NULL)
        {
          g_autofree char *want = describe_expected (expected);
          g_autofree char *got = describe_wire (messages);

          *why = g_strdup_printf ("T%u's call should carry %u messages after the system prompt, it carries %u\n"
                                  "  expected:\n%s  sent:\n%s", t->n, expected->len, n - first, want, got);
        }
      return FALSE;
    }
  for (guint i = 0; i < expected->len; i++)
    {
      OMsg *m = g_ptr_array_index (expected, i);
      g_autofree char *saved = m->kind == OMSG_TOOL ? g_strdup (m->text) : NULL;
      g_autofree char *mismatch = match_msg (m, json_array_get_object_element (messages, first + i));

      if (!learn && m->kind == OMSG_TOOL && saved == NULL)
        g_clear_pointer (&m->text, g_free);
      if (mismatch != NULL)
        {
          if (why != NULL)
            {
              g_autofree char *want = describe_expected (expected);
              g_autofree char *got = describe_wire (messages);

              *why = g_strdup_printf ("T%u's call, message %u: %s\n  expected:\n%s  sent:\n%s", t->n, i, mismatch,
                                      want, got);
            }
          return FALSE;
        }
    }
  return TRUE;
}

/* What a request is, from its one user message: a title request
 * (docs/format.md §3.2), a compaction's summary request (docs/format.md §3.3), or a
 * turn's model call. */
char *
oracle_request_kind (const char *body)
{
  g_autoptr(JsonNode) node = json_from_string (body, NULL);
  JsonArray *messages;
  JsonObject *last;
  const char *content;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node) ||
      !json_object_has_member (json_node_get_object (node), "messages"))
    return g_strdup ("other");
  messages = json_object_get_array_member (json_node_get_object (node), "messages");
  if (json_array_get_length (messages) == 0)
    return g_strdup ("turn");
  if (json_object_has_member (json_node_get_object (node), "tools"))
    return g_strdup ("turn");
  last = json_array_get_object_element (messages, json_array_get_length (messages) - 1);
  content = str_member (last, "content");
  if (content != NULL && g_str_has_prefix (content, "Write a title for the conversation below"))
    return g_strdup ("title");
  if (content != NULL && g_str_has_prefix (content, "Summarize the conversation below"))
    return g_strdup ("summary");
  return g_strdup ("turn");
}

void
oracle_response_free (OResponse *r)
{
  if (r == NULL)
    return;
  g_free (r->wire_text);
  g_clear_pointer (&r->wire_calls, g_ptr_array_unref);
  g_free (r->error_body);
  g_free (r->mismatch);
  g_free (r);
}

/* An answer's text as the server sends it (the body of a JSON string)
 * and as Natter must keep it: a NUL and a lone surrogate become U+FFFD,
 * control characters stay (docs/format.md §2, "Text a string cannot
 * hold"). */
static void
new_answer_text (Oracle   *o,
                 GString  *wire,
                 GString  *text,
                 gboolean  weird)
{
  guint n = ++o->next_text;
  guint words = g_rand_int_range (o->rand, 1, 5);

  g_string_append_printf (wire, "a%u", n);
  g_string_append_printf (text, "a%u", n);
  for (guint i = 0; i < words; i++)
    {
      const char *word = WORDS[g_rand_int_range (o->rand, 0, G_N_ELEMENTS (WORDS))];

      g_string_append_c (wire, ' ');
      g_string_append_c (text, ' ');
      g_string_append (wire, word);
      g_string_append (text, word);
      if (weird && g_rand_int_range (o->rand, 0, 100) < 25)
        switch (g_rand_int_range (o->rand, 0, 5))
          {
          case 0:
            g_string_append (wire, "\\u0000");
            g_string_append (text, "\xef\xbf\xbd");
            break;
          case 1:
            g_string_append (wire, "\\ud800");
            g_string_append (text, "\xef\xbf\xbd");
            break;
          case 2:
            g_string_append (wire, "\\u001f");
            g_string_append_c (text, 0x1f);
            break;
          case 3:
            g_string_append (wire, "\\u0001\\n");
            g_string_append (text, "\x01\n");
            break;
          default:
            g_string_append (wire, "\\ud83d\\ude00");
            g_string_append (text, "\xf0\x9f\x98\x80");
            break;
          }
    }
}

static OCall *
new_wire_call (const char *id,
               const char *name,
               const char *args,
               gboolean    raw)
{
  OCall *c = g_new0 (OCall, 1);

  c->id = g_strdup (id);
  c->name = g_strdup (name);
  c->args = g_strdup (args);
  c->raw = raw;
  return c;
}

static char *
json_quote (const char *text)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), text);

  return json_to_string (node, FALSE);
}

/* Tool calls the model asks for (docs/runtime.md §7, §8): read_file
 * (needs permission, or a grant), ask_human (needs an answer), and
 * calls whose arguments do not parse, which are never run. */
static void
draw_tools (Oracle    *o,
            OTurn     *t,
            OResponse *r,
            gboolean   bad)
{
  guint n = g_rand_int_range (o->rand, 0, 100) < 25 ? 2 : 1;
  OMsg *m = new_msg (o, OMSG_ASSISTANT, "");

  m->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  r->wire_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  t->rounds++;
  for (guint i = 0; i < n; i++)
    {
      OToolCall *call = g_new0 (OToolCall, 1);
      g_autofree char *args = NULL;
      guint pick = g_rand_int_range (o->rand, 0, 100);

      call->id = g_strdup_printf ("call_%u", ++o->next_call);
      call->round = t->rounds;
      if (bad && i == 0)
        {
          call->kind = OCALL_BAD;
          call->name = g_strdup ("read_file");
          /* A lone surrogate, or text cut short: neither parses. */
          args = g_rand_boolean (o->rand) ? g_strdup ("{\"path\":\"\\ud800.txt\"}") : g_strdup ("{\"path\":");
        }
      else if (pick < 65)
        {
          g_autofree char *path = NULL;

          call->kind = OCALL_READ;
          call->name = g_strdup ("read_file");
          call->file = g_rand_int_range (o->rand, 0, 100) < 80
                       ? g_ptr_array_index (o->read_files, g_rand_int_range (o->rand, 0, o->read_files->len))
                       : NULL;
          path = json_quote (call->file != NULL ? call->file->path : o->missing_path);
          args = g_strdup_printf ("{\"path\":%s}", path);
        }
      else
        {
          g_autofree char *question = NULL;

          call->kind = OCALL_ASK;
          call->name = g_strdup ("ask_human");
          call->question = g_strdup_printf ("q%u which %s?", ++o->next_text,
                                            WORDS[g_rand_int_range (o->rand, 0, G_N_ELEMENTS (WORDS))]);
          question = json_quote (call->question);
          args = g_strdup_printf ("{\"question\":%s}", question);
        }
      g_ptr_array_add (m->calls, new_wire_call (call->id, call->name, args, call->kind == OCALL_BAD));
      g_ptr_array_add (r->wire_calls, new_wire_call (call->id, call->name, args, call->kind == OCALL_BAD));
      g_ptr_array_add (t->calls, call);
    }
  g_ptr_array_add (t->own, m);
  t->open_call = FALSE;

  for (guint i = 0; i < t->calls->len; i++)
    {
      OToolCall *call = g_ptr_array_index (t->calls, i);

      if (call->round != t->rounds)
        continue;
      switch (call->kind)
        {
        case OCALL_BAD:
          call->state = OC_ERROR;
          call->result = tool_msg (o, call, NULL);
          break;
        case OCALL_READ:
          /* docs/format.md §3.4: a granted tool runs at once. */
          if (has_grant (t->owner, ORACLE_READ_FILE_ID))
            run_read (o, call);
          else
            call->state = OC_AWAIT_PERMISSION;
          break;
        case OCALL_ASK:
          call->state = OC_AWAIT_ANSWER;
          break;
        }
      oracle_log (o, "  server: T%u asks %s %s", t->n, call->id, call->name);
    }
  settle_round (o, t);
}

static OSession *
title_session (Oracle     *o,
               const char *body)
{
  OSession *found = NULL;

  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (o->sessions, i);
      OTurn *first = s->own->len > 0 ? g_ptr_array_index (s->own, 0) : NULL;

      if (!s->title_wanted)
        continue;
      if (found == NULL)
        found = s;
      if (first != NULL && strstr (body, first->input->text) != NULL)
        return s;
    }
  return found;
}

static guint
n_held (Oracle *o)
{
  guint n = 0;

  for (guint i = 0; i < o->turns->len; i++)
    n += ((OTurn *) g_ptr_array_index (o->turns, i))->status == OT_HELD;
  return n;
}

OResponse *
oracle_answer_request (Oracle     *o,
                       const char *body,
                       gboolean    child_running)
{
  OResponse *r = g_new0 (OResponse, 1);
  g_autofree char *kind = oracle_request_kind (body);
  g_autoptr(JsonNode) node = json_from_string (body, NULL);
  g_autoptr(GPtrArray) waiting = NULL;
  JsonArray *messages;
  OTurn *t = NULL;
  guint pick;
  gboolean child;

  if (g_str_equal (kind, "title"))
    {
      OSession *s = title_session (o, body);

      o->n_title_requests++;
      r->kind = ORESP_TITLE;
      r->wire_text = g_strdup_printf ("Oracle title %u", ++o->next_title);
      if (s == NULL)
        {
          r->mismatch = g_strdup ("a title request nobody expected");
          r->mismatch_kind = "title";
          return r;
        }
      g_free (s->title);
      s->title = g_strdup (r->wire_text);
      s->title_kind = OTITLE_AUTO;
      s->title_wanted = FALSE;
      for (guint i = 0; i < s->own->len; i++)
        s->title_in_child |= ((OTurn *) g_ptr_array_index (s->own, i))->in_child;
      oracle_log (o, "  server: title of S%u: %s", s->n, s->title);
      return r;
    }
  if (g_str_equal (kind, "summary"))
    {
      OSession *s = o->compacting;

      o->n_summary_requests++;
      r->kind = ORESP_SUMMARY;
      r->wire_text = g_strdup_printf ("Summary %u of the earlier talk.", ++o->next_summary);
      if (s == NULL)
        {
          r->mismatch = g_strdup ("a summary request nobody expected");
          r->mismatch_kind = "unexpected-request";
          return r;
        }
      else
        {
          g_autoptr(GPtrArray) chain = compactable_chain (s);
          OTurn *last = g_ptr_array_index (chain, chain->len - o->compact_keep - 1);
          g_autofree char *token = g_strndup (last->input->text, strcspn (last->input->text, " "));

          /* The summarizer quotes the transcript before the kept turns
           * (docs/sessions.md §5): the last summarized message is in it. */
          if (strstr (body, token) == NULL)
            {
              r->mismatch = g_strdup_printf ("the summary request of S%u does not quote T%u (%s)", s->n, last->n,
                                             token);
              r->mismatch_kind = "transcript";
            }
        }
      compaction_made (o, s, o->compact_keep, r->wire_text);
      o->compacting = NULL;
      if (o->deferred_input != NULL)
        {
          t = make_turn (o, s, o->deferred_input, 0);
          t->in_child = o->deferred_in_child;
          o->deferred_input = NULL;
        }
      return r;
    }

  o->n_model_calls++;
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node) ||
      !json_object_has_member (json_node_get_object (node), "messages"))
    {
      r->kind = ORESP_UNEXPECTED;
      r->mismatch = g_strdup ("a request without messages");
      r->mismatch_kind = "unexpected-request";
      return r;
    }
  messages = json_object_get_array_member (json_node_get_object (node), "messages");
  waiting = oracle_waiting_turns (o);
  if (waiting->len == 0)
    {
      g_autofree char *got = describe_wire (messages);
      JsonObject *last = json_array_get_length (messages) > 0
                         ? json_array_get_object_element (messages, json_array_get_length (messages) - 1) : NULL;
      g_autoptr(GPtrArray) texts = last != NULL ? wire_user_texts (last) : NULL;
      const char *text = texts != NULL && texts->len > 0 ? g_ptr_array_index (texts, 0) : NULL;

      r->kind = ORESP_UNEXPECTED;
      r->mismatch = g_strdup_printf ("a model call no turn was waiting for:\n%s", got);
      r->mismatch_kind = "unexpected-request";
      /* The call of a turn of an imported conversation that ran on
       * where the model says it waits (a grant of the archive at work). */
      for (guint i = json_array_get_length (messages); i > 0; i--)
        {
          JsonObject *m = json_array_get_object_element (messages, i - 1);
          g_autoptr(GPtrArray) user = NULL;

          if (g_strcmp0 (str_member (m, "role"), "user") != 0)
            continue;
          user = wire_user_texts (m);
          for (guint j = 0; user->len > 0 && j < o->turns->len; j++)
            {
              OTurn *u = g_ptr_array_index (o->turns, j);

              if (u->owner->imported && g_strcmp0 (u->input->text, g_ptr_array_index (user, 0)) == 0)
                {
                  r->mismatch_kind = "import";
                  g_free (r->mismatch);
                  r->mismatch = g_strdup_printf ("T%u of S%u, imported, calls the model where it should wait:\n%s",
                                                 u->n, u->owner->n, got);
                  r->mismatch_session = u->owner;
                }
            }
          break;
        }
      /* A queued message an archive carried, sent in the conversation
       * imported from it (docs/format.md §7.1). */
      for (guint i = 0; i < o->sessions->len && text != NULL; i++)
        {
          OSession *s = g_ptr_array_index (o->sessions, i);

          for (guint j = 0; s->not_imported != NULL && j < s->not_imported->len; j++)
            if (g_strcmp0 (((OMsg *) g_ptr_array_index (s->not_imported, j))->text, text) == 0)
              {
                r->mismatch_kind = "import";
                g_free (r->mismatch);
                r->mismatch = g_strdup_printf ("S%u, imported, sends the queued message \"%s\" of its archive",
                                               s->n, text);
                r->mismatch_session = s;
              }
        }
      return r;
    }
  for (guint i = 0; i < waiting->len && t == NULL; i++)
    if (request_matches (g_ptr_array_index (waiting, i), messages, FALSE, NULL))
      t = g_ptr_array_index (waiting, i);
  if (t == NULL)
    t = g_ptr_array_index (waiting, 0);
  if (!request_matches (t, messages, TRUE, &r->mismatch))
    {
      /* What an imported conversation (or one made from it) is sent
       * follows the rules of import (docs/format.md §7.1). */
      r->mismatch_kind = oracle_from_import (t->owner) ? "import" : "transcript";
      r->mismatch_session = t->owner;
    }

  r->turn = t;
  t->n_calls++;
  t->open_call = TRUE;
  child = t->in_child;
  pick = g_rand_int_range (o->rand, 0, 100);
  if (t->rounds >= MAX_ROUNDS)
    pick = pick < 70 ? 0 : pick < 85 ? 80 : 90;
  if (pick >= 88 && n_held (o) >= o->max_held)
    pick = 0;

  if (pick < 45)
    {
      g_autoptr(GString) wire = g_string_new (NULL);
      g_autoptr(GString) text = g_string_new (NULL);
      OMsg *m;

      r->kind = ORESP_ANSWER;
      new_answer_text (o, wire, text, o->weird_text);
      r->wire_text = g_string_free (g_steal_pointer (&wire), FALSE);
      m = new_msg (o, OMSG_ASSISTANT, text->str);
      g_ptr_array_add (t->own, m);
      g_free (t->answer);
      t->answer = g_strdup (text->str);
      t->open_call = FALSE;
      oracle_log (o, "  server: T%u call %u answered", t->n, t->n_calls);
      completed (o, t);
    }
  else if (pick < 75)
    {
      r->kind = ORESP_TOOLS;
      draw_tools (o, t, r, pick >= 70);
    }
  else if (pick < 88)
    {
      r->kind = ORESP_FAIL;
      r->overflow = g_rand_boolean (o->rand);
      r->error_body = g_strdup (r->overflow
                                ? "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens; "
                                  "reduce the length of the messages.\",\"code\":\"context_length_exceeded\"}}"
                                : "{\"error\":{\"message\":\"the model is down\"}}");
      t->open_call = FALSE;
      t->status = OT_FAILED;
      oracle_log (o, "  server: T%u call %u fails", t->n, t->n_calls);
    }
  else
    {
      g_autoptr(GString) wire = g_string_new (NULL);
      g_autoptr(GString) text = g_string_new (NULL);

      r->kind = ORESP_HOLD;
      new_answer_text (o, wire, text, FALSE);
      r->wire_text = g_string_free (g_steal_pointer (&wire), FALSE);
      g_free (t->answer);
      t->answer = g_strdup (text->str);
      t->status = OT_HELD;
      oracle_log (o, "  server: T%u call %u streams and holds%s", t->n, t->n_calls,
                  child ? " (the process will be killed)" : "");
    }
  (void) child_running;
  return r;
}

/* The held call's stream ends with the rest of the answer. */
void
oracle_release (Oracle *o,
                OTurn  *t)
{
  OMsg *m = new_msg (o, OMSG_ASSISTANT, t->answer);

  g_ptr_array_add (t->own, m);
  t->open_call = FALSE;
  t->held_index = -1;
  oracle_log (o, "  model: T%u's stream ends", t->n);
  completed (o, t);
}

/* ------------------------------------------------------------------ */
/* What readings show                                                   */
/* ------------------------------------------------------------------ */

/* The status a turn's file gives (docs/runtime.md §4): a turn whose model
 * call streams is not ended and not suspended: "idle" on disk. */
const char *
oracle_status_name (OTurn *t)
{
  switch (t->status)
    {
    case OT_COMPLETED:
      return "completed";
    case OT_FAILED:
      return "failed";
    case OT_CANCELLED:
      return "cancelled";
    case OT_SUSPENDED:
      return "suspended";
    case OT_WAITING_CALL:
    case OT_HELD:
    case OT_IDLE:
      return "idle";
    }
  return "?";
}

static const char *
call_status_name (OToolCall *c)
{
  switch (c->state)
    {
    case OC_AWAIT_PERMISSION:
      return "awaiting-permission";
    case OC_AWAIT_ANSWER:
      return "awaiting-result";
    case OC_DONE:
      return "done";
    case OC_ERROR:
      return "error";
    case OC_DENIED:
      return "denied";
    }
  return "?";
}

static JsonObject *
turn_view (OTurn    *t,
           gboolean  own)
{
  JsonObject *view = json_object_new ();
  JsonArray *files = json_array_new ();
  JsonArray *calls = json_array_new ();

  json_object_set_boolean_member (view, "own", own);
  if (t->damaged)
    {
      json_object_set_boolean_member (view, "damaged", TRUE);
      json_array_unref (files);
      json_array_unref (calls);
      return view;
    }
  json_object_set_string_member (view, "input", t->input->text);
  for (guint i = 0; t->input->files != NULL && i < t->input->files->len; i++)
    json_array_add_string_element (files, ((OFile *) g_ptr_array_index (t->input->files, i))->name);
  json_object_set_array_member (view, "files", files);
  json_object_set_string_member (view, "status", oracle_status_name (t));
  json_object_set_boolean_member (view, "running", t->status == OT_HELD || t->status == OT_WAITING_CALL);
  if (t->status == OT_COMPLETED)
    json_object_set_string_member (view, "answer", t->answer);
  else
    json_object_set_null_member (view, "answer");
  for (guint i = 0; i < t->calls->len; i++)
    {
      OToolCall *c = g_ptr_array_index (t->calls, i);
      JsonObject *call = json_object_new ();

      json_object_set_string_member (call, "name", c->name);
      json_object_set_string_member (call, "status", call_status_name (c));
      json_array_add_object_element (calls, call);
    }
  json_object_set_array_member (view, "calls", calls);
  return view;
}

/* What every reading of @s must show (the window's timeline and list, the
 * command line's `show`, `sessions`, `queue` and `grants`, the service's
 * own reads). A member that is not there is not determined: the readers
 * are not compared on it. */
JsonNode *
oracle_expected_view (Oracle   *o,
                      OSession *s)
{
  JsonObject *view = json_object_new ();
  JsonArray *turns = json_array_new ();
  JsonArray *queue = json_array_new ();
  JsonArray *grants = json_array_new ();
  g_autoptr(GPtrArray) visible = oracle_visible (s);
  OTurn *own_latest = oracle_latest_own (s);
  guint n_inherited = visible->len - s->own->len;
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  if (s->title_kind == OTITLE_NONE)
    json_object_set_null_member (view, "title");
  else if (s->title_kind != OTITLE_UNKNOWN && s->title != NULL)
    json_object_set_string_member (view, "title", s->title);
  for (guint i = 0; i < visible->len; i++)
    json_array_add_object_element (turns, turn_view (g_ptr_array_index (visible, i), i >= n_inherited));
  json_object_set_array_member (view, "turns", turns);
  if (s->recovered)
    json_object_set_int_member (view, "recovered", s->n_recovered);
  else
    json_object_set_int_member (view, "inherited", n_inherited);
  for (guint i = 0; i < s->queue->len; i++)
    json_array_add_string_element (queue, ((OQueued *) g_ptr_array_index (s->queue, i))->input->text);
  json_object_set_array_member (view, "queue", queue);
  for (guint i = 0; i < s->grants->len; i++)
    json_array_add_string_element (grants, ((OGrant *) g_ptr_array_index (s->grants, i))->tool);
  json_object_set_array_member (view, "grants", grants);
  /* A recovered copy's first turns may be its own (then the last one,
   * damaged later, makes the copy unreadable) or referenced. */
  if (!(own_latest == NULL && s->recovered && s->fork_turn != NULL && s->fork_turn->damaged))
    json_object_set_boolean_member (view, "error", own_latest != NULL && own_latest->damaged);
  if (own_latest == NULL && s->recovered && s->n_recovered > 0)
    /* A recovered copy's first turns may be its own or referenced. */
    ;
  else if (own_latest == NULL)
    json_object_set_string_member (view, "latest", "none");
  else if (!own_latest->damaged && own_latest->status != OT_HELD && own_latest->status != OT_WAITING_CALL)
    /* The list's status is the latest turn's when its advance last
     * settled (docs/sessions.md §8.3): while a call streams it is
     * not determined. */
    json_object_set_string_member (view, "latest", oracle_status_name (own_latest));
  /* A recovered copy's lineage is the damaged one's, which the documents
   * leave open; a title of unknown origin leaves it open too. */
  if (lineage_known (s))
    {
      if (is_version (s))
        json_object_set_string_member (view, "versionOf", oracle_original (s)->id);
      else
        json_object_set_null_member (view, "versionOf");
    }
  json_node_take_object (node, view);
  return node;
}

/* The versions of a message (docs/format.md §3.2): the turn of session O
 * that continues turn P, and the first turn of every session with
 * parentSession O and forkedFromTurnId P (without it: versions of O's
 * first turn), in id order: O's own turn, the original, first, then the
 * branches' first turns in the order of their sessions' ids (the ids
 * sort in creation order). */
static gint
by_session_id (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 ((*(OTurn **) a)->owner->id, (*(OTurn **) b)->owner->id);
}

static void
versions_of (Oracle    *o,
             OSession  *origin,
             OTurn     *after,
             GPtrArray *out)
{
  g_autoptr(GPtrArray) branches = g_ptr_array_new ();

  if (after == NULL && origin->fork_turn == NULL && origin->own->len > 0)
    g_ptr_array_add (out, g_ptr_array_index (origin->own, 0));
  else if (after != NULL && origin->fork_turn == after && origin->own->len > 0)
    g_ptr_array_add (out, g_ptr_array_index (origin->own, 0));
  else if (after != NULL)
    {
      guint i = index_in (origin->own, after);

      if (i != G_MAXUINT && i + 1 < origin->own->len)
        g_ptr_array_add (out, g_ptr_array_index (origin->own, i + 1));
    }
  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *b = g_ptr_array_index (o->sessions, i);

      if (b->parent == origin && b->fork_turn == after && b->own->len > 0 && !b->imported)
        g_ptr_array_add (branches, g_ptr_array_index (b->own, 0));
    }
  g_ptr_array_sort (branches, by_session_id);
  for (guint i = 0; i < branches->len; i++)
    g_ptr_array_add (out, g_ptr_array_index (branches, i));
}

/* For each turn @s shows that has more than one version: the versions,
 * each a GPtrArray of OTurn* in id order. NULL where that is not
 * determined (a recovered copy's family). */
GPtrArray *
oracle_expected_versions (Oracle   *o,
                          OSession *s)
{
  GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GPtrArray) visible = oracle_visible (s);

  for (guint i = 0; i < o->sessions->len; i++)
    if (((OSession *) g_ptr_array_index (o->sessions, i))->no_versions)
      {
        g_ptr_array_unref (all);
        return NULL;
      }
  for (guint i = 0; i < visible->len; i++)
    {
      OTurn *t = g_ptr_array_index (visible, i);
      OSession *owner = t->owner;
      GPtrArray *versions = g_ptr_array_new ();
      guint at = index_in (owner->own, t);

      if (at == 0 && owner->parent != NULL && !owner->recovered)
        versions_of (o, owner->parent, owner->fork_turn, versions);
      else
        versions_of (o, owner, at > 0 ? g_ptr_array_index (owner->own, at - 1) : NULL, versions);
      g_ptr_array_add (all, versions);
    }
  return all;
}
