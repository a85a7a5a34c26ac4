/* oracle-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The conversation model of the oracle test (oracle-model.h). Each rule
 * below names the document it follows; where the documents leave a case
 * open, the driver does not produce that case, and says so.
 *
 * This file is the base of the model's files and calls none of them: the
 * bookkeeping, reading the model, and the queue, grants, titles and damage.
 * Making turns (oracle-model-turns.c), and above it model calls and what
 * readings show, have files of their own (oracle-model-*.c), sharing
 * oracle-model-private.h.
 */

#include <string.h>

#include "oracle-model.h"
#include "oracle-model-private.h"

/* ------------------------------------------------------------------ */
/* Bookkeeping                                                          */
/* ------------------------------------------------------------------ */

const char *const WORDS[] = {
  "apple", "river", "stone", "cloud", "lamp", "violet", "ember", "harbor", "maple", "quartz",
  "signal", "tunnel", "whisper", "copper", "meadow", "lantern", "orbit", "pebble", "saffron", "timber",
};

static void
file_free (OFile *f)
{
  g_free (f->name);
  g_free (f->path);
  g_free (f->content);
  g_free (f);
}

void
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

void
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

void
queued_free (OQueued *q)
{
  g_free (q->id);
  g_free (q);
}

void
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
  /* The settings' pools (oracle-model-settings.c), each freeing what it
   * holds. */
  g_clear_pointer (&o->params, g_ptr_array_unref);
  g_clear_pointer (&o->folders, g_ptr_array_unref);
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

OMsg *
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

/* What a branch shows above its own turns once its parent is deleted
 * (docs/sessions.md §9.4): the turn files' history, the fork point and
 * each turn its context refers to, back to one whose context is inline,
 * oldest first. Empty for a session whose parent is there, or that has
 * no fork point. */
GPtrArray *
oracle_history_from_files (OSession *s)
{
  GPtrArray *out = g_ptr_array_new ();

  if (s->parent == NULL || !s->parent->deleted)
    return out;
  for (OTurn *t = s->fork_turn; t != NULL; t = t->ctx == OCTX_PREV ? t->prev : NULL)
    g_ptr_array_insert (out, 0, t);
  return out;
}

/* Whether a session whose parent is deleted shows @t from the turn
 * files. */
gboolean
oracle_shown_from_files (Oracle *o,
                         OTurn  *t)
{
  for (guint i = 0; i < o->sessions->len; i++)
    {
      g_autoptr(GPtrArray) history = oracle_history_from_files (g_ptr_array_index (o->sessions, i));

      if (index_in (history, t) != G_MAXUINT)
        return TRUE;
    }
  return FALSE;
}

/* The conversations a search by content finds @t in (docs/format.md,
 * "The search cache"): the one that has it as its own while it is
 * listed, and each whose deleted parent's history shows it, as that
 * one's own; never a deleted one, nor a version in a parent that is
 * there. */
GPtrArray *
oracle_search_owners (Oracle *o,
                      OTurn  *t)
{
  GPtrArray *owners = g_ptr_array_new ();

  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (o->sessions, i);
      g_autoptr(GPtrArray) history = oracle_history_from_files (s);

      if (index_in (s->own, t) != G_MAXUINT || index_in (history, t) != G_MAXUINT)
        g_ptr_array_add (owners, s);
    }
  return owners;
}

/* What a session shows: its parent's turns up to the fork point, then its
 * own (docs/format.md §3.2); once the parent is deleted, the history the
 * turn files keep instead. This is also the chain a next turn
 * continues. */
GPtrArray *
oracle_visible (OSession *s)
{
  GPtrArray *out = NULL;

  if (s->parent != NULL && s->parent->deleted)
    out = oracle_history_from_files (s);
  else
    out = g_ptr_array_new ();
  if (s->parent != NULL && !s->parent->deleted && s->fork_turn != NULL)
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

guint
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

/* Whether @m carries an attachment whose blob no longer reads whole. */
static gboolean
msg_carries_damaged (OMsg *m)
{
  for (guint i = 0; m != NULL && m->files != NULL && i < m->files->len; i++)
    if (((OFile *) g_ptr_array_index (m->files, i))->damaged)
      return TRUE;
  return FALSE;
}

static gboolean
msgs_carry_damaged (GPtrArray *msgs)
{
  for (guint i = 0; msgs != NULL && i < msgs->len; i++)
    if (msg_carries_damaged (g_ptr_array_index (msgs, i)))
      return TRUE;
  return FALSE;
}

/* Whether @t's message, or the inline context it was made with (a
 * compaction's), carries an attachment that no longer reads whole. */
static gboolean
reads_damaged_attachment (OTurn *t)
{
  return oracle_carries_damaged (t) || (t->ctx == OCTX_INLINE && msgs_carry_damaged (t->inline_msgs));
}

/* Whether @t's message carries an attachment that no longer reads
 * whole: the turn file reads, but a turn made on it would fail on it,
 * so it counts as one that cannot be read (docs/sessions.md §2). */
gboolean
oracle_carries_damaged (OTurn *t)
{
  return msg_carries_damaged (t->input);
}

/* What the next turn of @s is refused for (docs/sessions.md §2): a
 * turn file of its history damaged, or an attachment of its history
 * (a message of the chain, or of its inline context after a
 * compaction) that no longer reads whole. */
gboolean
oracle_history_unreadable (OSession *s)
{
  g_autoptr(GPtrArray) reads = next_turn_reads (s);

  if (oracle_history_damaged (s))
    return TRUE;
  for (guint i = 0; i < reads->len; i++)
    if (reads_damaged_attachment (g_ptr_array_index (reads, i)))
      return TRUE;
  return FALSE;
}

/* Whether a turn @s shows, or the context one of them was made with,
 * carries an attachment that no longer reads whole. */
gboolean
oracle_shows_damaged_attachment (OSession *s)
{
  g_autoptr(GPtrArray) visible = oracle_visible (s);

  for (guint i = 0; i < visible->len; i++)
    if (reads_damaged_attachment (g_ptr_array_index (visible, i)))
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
 * title; a parent that is damaged or deleted leaves it standing alone. */
gboolean
is_version (OSession *s)
{
  return s->parent != NULL && s->created_titled && !listed_damaged (s->parent) && !s->parent->deleted;
}

gboolean
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
/* Queue, grants, titles and damage                                     */
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
  s->version_default = FALSE;
}

void
oracle_damage (Oracle *o,
               OTurn  *t)
{
  t->damaged = TRUE;
}

/* Whether @t can lose its end as an earlier turn: some conversation goes
 * on after it, and none shows it last, where a turn without its end is
 * an interrupted one to resume rather than damage (docs/runtime.md §11). */
gboolean
oracle_end_may_be_lost (Oracle *o,
                        OTurn  *t)
{
  if (oracle_latest_own (t->owner) == t)
    return FALSE;
  for (guint i = 0; i < o->sessions->len; i++)
    if (oracle_latest (g_ptr_array_index (o->sessions, i)) == t)
      return FALSE;
  return TRUE;
}

static gboolean
msg_carries (OMsg  *m,
             OFile *file)
{
  return m != NULL && m->files != NULL && g_ptr_array_find (m->files, file, NULL);
}

/* Whether a model call that may still come would carry @file: one of
 * a turn that has not ended, of a message waiting in a queue, of a
 * compaction or a message deferred behind one. Damaging its blob then
 * makes the order of events (a call that cannot read it) the case,
 * which the documents leave open. */
gboolean
oracle_attachment_needed (Oracle *o,
                          OFile  *file)
{
  if (o->compacting != NULL || msg_carries (o->deferred_input, file))
    return TRUE;
  for (guint i = 0; i < o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (o->turns, i);

      if (oracle_turn_terminal (t))
        continue;
      for (OTurn *r = t; r != NULL; r = r->ctx == OCTX_PREV ? r->prev : NULL)
        {
          if (msg_carries (r->input, file))
            return TRUE;
          for (guint j = 0; r->ctx == OCTX_INLINE && r->inline_msgs != NULL && j < r->inline_msgs->len; j++)
            if (msg_carries (g_ptr_array_index (r->inline_msgs, j), file))
              return TRUE;
        }
    }
  for (guint i = 0; i < o->sessions->len; i++)
    if (((OSession *) g_ptr_array_index (o->sessions, i))->queue->len > 0)
      return TRUE;
  return FALSE;
}

/* @file's blob no longer reads whole: missing, another size, or other
 * bytes of the same size (docs/sessions.md §2). Every turn whose
 * message carries it, in any conversation (blobs are shared by their
 * content), counts from now on as one that cannot be read; no later
 * message carries it. */
void
oracle_damage_attachment (Oracle *o,
                          OFile  *file)
{
  file->damaged = TRUE;
  g_ptr_array_remove (o->attachable, file);
}

/* @t's file keeps only its first line (`turn_created`): it reads as a
 * turn that never ended, and, an earlier turn, breaks the history of
 * every message after it as a torn file does. */
void
oracle_lose_end (Oracle *o,
                 OTurn  *t)
{
  t->damaged = TRUE;
  t->end_lost = TRUE;
}
