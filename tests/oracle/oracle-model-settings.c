/* oracle-model-settings.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a conversation keeps about itself, in the model: its generation
 * parameters (docs/format.md §3.5, docs/sessions.md §15), its pin and
 * its folder (docs/format.md §3.6 and §8, docs/sessions.md §16). They
 * live in the file of the conversation's original; a branch made on
 * purpose starts with a copy of the parameters and the folder, unpinned;
 * a version shares its original's; an import brings the sampling
 * parameters only; deleting a session hands them to the versions made
 * of it.
 */

#include <math.h>
#include <string.h>

#include "oracle-model.h"
#include "oracle-model-private.h"

static void
params_free (OParams *p)
{
  g_free (p->instruction);
  g_free (p);
}

static void
folder_free (OFolder *f)
{
  g_free (f->id);
  g_free (f->name);
  g_free (f);
}

static void
ensure_pools (Oracle *o)
{
  if (o->params == NULL)
    o->params = g_ptr_array_new_with_free_func ((GDestroyNotify) params_free);
  if (o->folders == NULL)
    o->folders = g_ptr_array_new_with_free_func ((GDestroyNotify) folder_free);
}

OParams *
oracle_params_new (Oracle *o)
{
  OParams *p = g_new0 (OParams, 1);

  ensure_pools (o);
  g_ptr_array_add (o->params, p);
  return p;
}

gboolean
oracle_params_empty (const OParams *p)
{
  return p == NULL || (!p->has_temperature && !p->has_top_p && p->max_tokens == 0 && !p->has_seed &&
                       p->instruction == NULL);
}

/* A copy of @p (NULL when it keeps nothing), without its instruction
 * unless @with_instruction. */
OParams *
oracle_params_copy (Oracle        *o,
                    const OParams *p,
                    gboolean       with_instruction)
{
  OParams *c;

  if (oracle_params_empty (p))
    return NULL;
  c = oracle_params_new (o);
  *c = *p;
  c->instruction = with_instruction ? g_strdup (p->instruction) : NULL;
  if (oracle_params_empty (c))
    return NULL;
  return c;
}

/* @top's members over @under's, member by member (docs/format.md §3.5). */
OParams *
oracle_params_overlay (Oracle        *o,
                       const OParams *under,
                       const OParams *top)
{
  OParams *r = oracle_params_new (o);

  if (under != NULL)
    {
      *r = *under;
      r->instruction = g_strdup (under->instruction);
    }
  if (top != NULL)
    {
      if (top->has_temperature)
        {
          r->has_temperature = TRUE;
          r->temperature = top->temperature;
        }
      if (top->has_top_p)
        {
          r->has_top_p = TRUE;
          r->top_p = top->top_p;
        }
      if (top->max_tokens > 0)
        r->max_tokens = top->max_tokens;
      if (top->has_seed)
        {
          r->has_seed = TRUE;
          r->seed = top->seed;
        }
      if (top->instruction != NULL)
        {
          g_free (r->instruction);
          r->instruction = g_strdup (top->instruction);
        }
    }
  return oracle_params_empty (r) ? NULL : r;
}

/* The parameters as one line, for comparing readings. */
char *
oracle_params_text (const OParams *p)
{
  GString *out = g_string_new (NULL);

  if (p == NULL)
    return g_string_free (out, FALSE);
  if (p->has_temperature)
    g_string_append_printf (out, " temperature=%g", p->temperature);
  if (p->has_top_p)
    g_string_append_printf (out, " top_p=%g", p->top_p);
  if (p->max_tokens > 0)
    g_string_append_printf (out, " max_tokens=%" G_GINT64_FORMAT, p->max_tokens);
  if (p->has_seed)
    g_string_append_printf (out, " seed=%" G_GINT64_FORMAT, p->seed);
  if (p->instruction != NULL)
    g_string_append_printf (out, " instruction=\"%s\"", p->instruction);
  return g_string_free (out, FALSE);
}

/* Random parameters: some members of each kind, in their ranges, at
 * least one set. */
OParams *
oracle_draw_params (Oracle   *o,
                    gboolean  with_instruction)
{
  static const double temperatures[] = { 0, 0.25, 0.7, 1.5, 2 };
  static const double top_ps[] = { 0, 0.1, 0.5, 0.95, 1 };
  OParams *p = oracle_params_new (o);

  do
    {
      if (g_rand_int_range (o->rand, 0, 2) == 0)
        {
          p->has_temperature = TRUE;
          p->temperature = temperatures[g_rand_int_range (o->rand, 0, G_N_ELEMENTS (temperatures))];
        }
      if (g_rand_int_range (o->rand, 0, 3) == 0)
        {
          p->has_top_p = TRUE;
          p->top_p = top_ps[g_rand_int_range (o->rand, 0, G_N_ELEMENTS (top_ps))];
        }
      if (g_rand_int_range (o->rand, 0, 3) == 0)
        p->max_tokens = g_rand_int_range (o->rand, 1, 5000);
      if (g_rand_int_range (o->rand, 0, 3) == 0)
        {
          p->has_seed = TRUE;
          p->seed = g_rand_int_range (o->rand, -5, 100000);
        }
      if (with_instruction && g_rand_int_range (o->rand, 0, 3) == 0)
        p->instruction = g_strdup_printf ("Oracle instruction %u: answer in few words.", ++o->next_instruction);
    }
  while (oracle_params_empty (p));
  return p;
}

static gboolean
damaged_latest (OSession *s)
{
  OTurn *latest = s->own->len > 0 ? g_ptr_array_index (s->own, s->own->len - 1) : NULL;

  return latest != NULL && latest->damaged;
}

/* The session whose file keeps what @s's conversation keeps: its
 * original (docs/format.md §3.5). */
OSession *
oracle_settings_holder (OSession *s)
{
  return oracle_original (s);
}

/* Whether the documents determine what @s's conversation keeps: not for
 * a conversation whose place in its family is open, a recovered copy's,
 * or one whose original cannot be listed whole. */
gboolean
oracle_settings_known (OSession *s)
{
  OSession *holder = oracle_settings_holder (s);

  return lineage_known (s) && !holder->settings_open && !damaged_latest (holder) && !s->diverged;
}

void
oracle_set_pinned (Oracle   *o,
                   OSession *s,
                   gboolean  pinned)
{
  OSession *holder = oracle_settings_holder (s);

  holder->pinned = pinned;
  oracle_log (o, "  model: S%u's conversation (S%u) %s", s->n, holder->n, pinned ? "pinned" : "unpinned");
}

void
oracle_set_folder (Oracle   *o,
                   OSession *s,
                   OFolder  *folder)
{
  OSession *holder = oracle_settings_holder (s);

  holder->folder = folder;
  oracle_log (o, "  model: S%u's conversation (S%u) in folder %s", s->n, holder->n,
              folder != NULL ? folder->name : "(none)");
}

/* Keeps @params (owned by the oracle; NULL clears) for @s's conversation. */
void
oracle_set_params (Oracle   *o,
                   OSession *s,
                   OParams  *params)
{
  OSession *holder = oracle_settings_holder (s);
  g_autofree char *text = oracle_params_text (params);

  holder->params = oracle_params_empty (params) ? NULL : params;
  oracle_log (o, "  model: S%u's conversation (S%u) keeps parameters:%s", s->n, holder->n,
              holder->params != NULL ? text : " none");
}

OFolder *
oracle_folder_new (Oracle     *o,
                   const char *id,
                   const char *name)
{
  OFolder *f = g_new0 (OFolder, 1);

  ensure_pools (o);
  f->id = g_strdup (id);
  /* A name is kept without the space around it (docs/format.md §8). */
  f->name = g_strstrip (g_strdup (name));
  g_ptr_array_add (o->folders, f);
  oracle_log (o, "  model: folder \"%s\" made", name);
  return f;
}

static char *
name_key (const char *name)
{
  g_autofree char *stripped = g_strstrip (g_strdup (name));

  return g_utf8_casefold (stripped, -1);
}

/* The folder that has @name, without regard to case or the space around
 * it (docs/format.md §8), or NULL. */
OFolder *
oracle_folder_find (Oracle     *o,
                    const char *name)
{
  g_autofree char *key = name_key (name);

  ensure_pools (o);
  for (guint i = 0; i < o->folders->len; i++)
    {
      OFolder *f = g_ptr_array_index (o->folders, i);
      g_autofree char *other = name_key (f->name);

      if (!f->deleted && g_str_equal (key, other))
        return f;
    }
  return NULL;
}

void
oracle_folder_rename (Oracle     *o,
                      OFolder    *folder,
                      const char *name)
{
  oracle_log (o, "  model: folder \"%s\" renamed \"%s\"", folder->name, name);
  g_free (folder->name);
  folder->name = g_strstrip (g_strdup (name));
}

/* Deleting a folder deletes no conversation: those in it are in no
 * folder from then on (docs/format.md §8). */
void
oracle_folder_delete (Oracle  *o,
                      OFolder *folder)
{
  folder->deleted = TRUE;
  oracle_log (o, "  model: folder \"%s\" deleted", folder->name);
}

/* Undoes the deletion of @folder: back under its id, with the
 * conversations that name it; under its name, or that name and the
 * first number from 2 that no folder has when one has it meanwhile
 * (docs/format.md §8). Returns the name. */
const char *
oracle_folder_restore (Oracle  *o,
                       OFolder *folder)
{
  if (oracle_folder_find (o, folder->name) != NULL)
    {
      for (guint n = 2;; n++)
        {
          g_autofree char *numbered = g_strdup_printf ("%s (%u)", folder->name, n);

          if (oracle_folder_find (o, numbered) == NULL)
            {
              g_free (folder->name);
              folder->name = g_steal_pointer (&numbered);
              break;
            }
        }
    }
  folder->deleted = FALSE;
  oracle_log (o, "  model: folder \"%s\" back", folder->name);
  return folder->name;
}

/* A new turn of @t->owner is sent with its conversation's parameters,
 * its message's own over them (docs/format.md §3.5). */
void
settings_turn_made (Oracle *o,
                    OTurn  *t)
{
  OSession *holder = oracle_settings_holder (t->owner);

  t->sent = oracle_params_overlay (o, holder->params, t->input->params);
  t->params_open = !oracle_settings_known (t->owner);
  t->owner->active = ++o->clock;
}

/* A conversation of its own made from @from's (a branch made on purpose,
 * a version with no original to share with): a copy of its parameters
 * and its folder, unpinned (docs/format.md §3.5, §3.6). */
void
settings_copied (Oracle   *o,
                 OSession *made,
                 OSession *from)
{
  OSession *holder = oracle_settings_holder (from);

  made->params = oracle_params_copy (o, holder->params, TRUE);
  made->folder = holder->folder;
  made->pinned = FALSE;
  made->settings_open = !oracle_settings_known (from);
}

/* An imported conversation: the sampling parameters come along, the
 * instruction, the pin and the folder stay behind (docs/format.md §7.1). */
void
settings_imported (Oracle   *o,
                   OSession *made,
                   OSession *from)
{
  OSession *holder = oracle_settings_holder (from);

  made->params = oracle_params_copy (o, holder->params, FALSE);
  made->folder = NULL;
  made->pinned = FALSE;
  made->settings_open = !oracle_settings_known (from);
}

/* The conversation's most recent activity, as the list orders them:
 * its sessions' latest turn_appended, else session_created. */
static guint
conversation_active (Oracle   *o,
                     OSession *head,
                     gboolean *open)
{
  guint active = 0;

  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *c = g_ptr_array_index (o->sessions, i);

      if (c->deleted || oracle_settings_holder (c) != head)
        continue;
      *open |= !lineage_known (c) || c->imported;
      active = MAX (active, c->active);
    }
  return active;
}

/* @s, about to be deleted: each version made of it stands alone then.
 * When @s is the original of versions, each takes its parameters and
 * folder, and the one whose conversation was most recently active its
 * pin; when @s is a version, each takes its conversation's parameters
 * and folder from the original, which stays with its pin (docs/format.md
 * §3.5, §3.6). */
void
settings_deleting (Oracle   *o,
                   OSession *s)
{
  g_autoptr(GPtrArray) heirs = g_ptr_array_new ();
  OSession *holder = oracle_settings_holder (s);
  OSession *pinned = NULL;
  guint best = 0;
  gboolean open = !oracle_settings_known (s);

  if (holder != s)
    {
      if (oracle_params_empty (holder->params) && holder->folder == NULL)
        return;
      for (guint i = 0; i < o->sessions->len; i++)
        {
          OSession *c = g_ptr_array_index (o->sessions, i);

          if (c->parent == s && is_version (c) && !damaged_latest (c))
            {
              c->params = oracle_params_copy (o, holder->params, TRUE);
              c->folder = holder->folder;
              c->pinned = FALSE;
              c->settings_open |= open;
              oracle_log (o, "  model: S%u takes S%u's conversation's settings (S%u)", c->n, s->n, holder->n);
            }
        }
      return;
    }
  if (oracle_params_empty (s->params) && !s->pinned && s->folder == NULL)
    return;
  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *c = g_ptr_array_index (o->sessions, i);

      if (c->parent == s && is_version (c) && !damaged_latest (c))
        g_ptr_array_add (heirs, c);
    }
  s->deleted = TRUE;
  for (guint i = 0; i < heirs->len; i++)
    {
      OSession *h = g_ptr_array_index (heirs, i);
      guint active = conversation_active (o, h, &open);

      h->params = oracle_params_copy (o, s->params, TRUE);
      h->folder = s->folder;
      h->pinned = FALSE;
      if (pinned == NULL || active > best || (active == best && h->n > pinned->n))
        {
          pinned = h;
          best = active;
        }
    }
  s->deleted = FALSE;
  if (pinned != NULL && s->pinned)
    pinned->pinned = TRUE;
  for (guint i = 0; i < heirs->len; i++)
    {
      OSession *h = g_ptr_array_index (heirs, i);

      h->settings_open |= open;
      oracle_log (o, "  model: S%u takes S%u's settings%s", h->n, s->n, h->pinned ? " and its pin" : "");
    }
}

/* What the lists must say of @s's conversation: `pinned`, `folder` (its
 * name, null when in none or in one deleted) and `parameters`, when the
 * documents determine them. */
void
oracle_settings_expected (Oracle     *o,
                          OSession   *s,
                          JsonObject *view)
{
  OSession *holder = oracle_settings_holder (s);
  g_autofree char *text = NULL;

  if (!oracle_settings_known (s))
    return;
  json_object_set_boolean_member (view, "pinned", holder->pinned);
  if (holder->folder != NULL && !holder->folder->deleted)
    json_object_set_string_member (view, "folder", holder->folder->name);
  else
    json_object_set_null_member (view, "folder");
  text = oracle_params_text (holder->params);
  json_object_set_string_member (view, "parameters", text);
}

static gboolean
number_is (JsonObject *body,
           const char *member,
           gboolean    has,
           double      value,
           GString    *why)
{
  JsonNode *node = json_object_get_member (body, member);

  if (!has && node == NULL)
    return TRUE;
  if (!has)
    {
      g_string_append_printf (why, " %s is sent, none expected;", member);
      return FALSE;
    }
  if (node == NULL || json_node_get_value_type (node) == G_TYPE_STRING || !JSON_NODE_HOLDS_VALUE (node))
    {
      g_string_append_printf (why, " %s=%g expected, not sent;", member, value);
      return FALSE;
    }
  if (fabs (json_node_get_double (node) - value) > 1e-9)
    {
      g_string_append_printf (why, " %s=%g expected, %g sent;", member, value, json_node_get_double (node));
      return FALSE;
    }
  return TRUE;
}

/* Whether a model call of @t (its body @body) carries the parameters
 * @t is sent with: the sampling members, and the instruction in the
 * system prompt (and no other of the oracle's). Returns why not, or NULL. */
char *
oracle_check_request_params (OTurn      *t,
                             JsonObject *body)
{
  g_autoptr(GString) why = g_string_new (NULL);
  const OParams *p = t->sent;
  JsonArray *messages = json_object_get_array_member (body, "messages");
  JsonObject *first = messages != NULL && json_array_get_length (messages) > 0
                      ? json_array_get_object_element (messages, 0) : NULL;
  const char *system = first != NULL &&
                       g_strcmp0 (json_object_get_string_member_with_default (first, "role", ""), "system") == 0
                       ? json_object_get_string_member_with_default (first, "content", "") : "";
  const char *other;
  JsonNode *max;

  if (t->params_open)
    return NULL;
  number_is (body, "temperature", p != NULL && p->has_temperature, p != NULL ? p->temperature : 0, why);
  number_is (body, "top_p", p != NULL && p->has_top_p, p != NULL ? p->top_p : 0, why);
  number_is (body, "seed", p != NULL && p->has_seed, p != NULL ? (double) p->seed : 0, why);
  max = json_object_get_member (body, "max_tokens");
  if (max == NULL)
    max = json_object_get_member (body, "max_completion_tokens");
  if (p != NULL && p->max_tokens > 0 && (max == NULL || json_node_get_int (max) != p->max_tokens))
    g_string_append_printf (why, " max_tokens=%" G_GINT64_FORMAT " expected, %s sent;", p->max_tokens,
                            max != NULL ? "another" : "none");
  else if ((p == NULL || p->max_tokens == 0) && max != NULL)
    g_string_append (why, " a token limit is sent, none expected;");
  if (p != NULL && p->instruction != NULL && strstr (system, p->instruction) == NULL)
    g_string_append_printf (why, " the system prompt lacks \"%s\";", p->instruction);
  other = strstr (system, "Oracle instruction ");
  if (other != NULL && (p == NULL || p->instruction == NULL || other != strstr (system, p->instruction) ||
                        strstr (other + 1, "Oracle instruction ") != NULL))
    g_string_append_printf (why, " the system prompt carries an instruction not expected: %.60s;", other);
  if (why->len == 0)
    return NULL;
  {
    g_autofree char *want = oracle_params_text (p);

    return g_strdup_printf ("T%u's call (in S%u) should be sent with{%s }:%s", t->n, t->owner->n, want, why->str);
  }
}
