/* oracle-model-readings.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the model says each reading shows: statuses, titles, texts.
 */

#include <string.h>

#include "oracle-model.h"
#include "oracle-model-private.h"

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
  if (t->end_lost)
    {
      /* Its message, and nothing it produced: the lines after the first
       * are gone. */
      json_object_set_string_member (view, "input", t->input->text);
      for (guint i = 0; t->input->files != NULL && i < t->input->files->len; i++)
        json_array_add_string_element (files, ((OFile *) g_ptr_array_index (t->input->files, i))->name);
      json_object_set_array_member (view, "files", files);
      json_object_set_string_member (view, "status", "idle");
      json_object_set_boolean_member (view, "running", FALSE);
      json_object_set_null_member (view, "answer");
      json_object_set_array_member (view, "calls", calls);
      return view;
    }
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
  oracle_settings_expected (o, s, view);
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

  /* The versions of a deleted session's messages stand alone, each a
   * conversation of its own, with no arrows between them
   * (docs/sessions.md §9.4). */
  if (origin->deleted)
    return;
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

/* Whether @s reaches @owner through parents that are all there: a turn
 * it shows through a deleted one is read from the turn files, where no
 * version of it is listed. */
static gboolean
reaches_listed (OSession *s,
                OSession *owner)
{
  for (; s != NULL && !s->deleted; s = s->parent)
    if (s == owner)
      return TRUE;
  return FALSE;
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

      if (!reaches_listed (s, owner))
        ;
      else if (at == 0 && owner->parent != NULL && !owner->recovered)
        versions_of (o, owner->parent, owner->fork_turn, versions);
      else
        versions_of (o, owner, at > 0 ? g_ptr_array_index (owner->own, at - 1) : NULL, versions);
      g_ptr_array_add (all, versions);
    }
  return all;
}
