/* oracle-driver-search.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search index beside the model, at the end of a run: an index built
 * from the files the run left finds every turn of every conversation the
 * model holds by the word its message begins with (each message the
 * driver sends begins with its own, `m17`), in that conversation; a turn
 * whose file the model says is damaged (torn, or an earlier turn that
 * lost its end) is found in none, and its conversation, and no other, is
 * named as one a search could not look at in full (docs/format.md §1,
 * "The search cache"). A turn is found in the conversation that has it
 * as its own, and in each that shows it from a deleted parent's history
 * (docs/sessions.md §9.4), and in no other: not in a deleted one, nor
 * in a version whose parent is there, as the lists show a family once.
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "natter-search-db.h"
#include "natter-search-index.h"
#include "natter-services.h"
#include "oracle-driver.h"
#include "oracle-driver-private.h"

/* More hits than a run has turns: a word is searched as a prefix, so
 * `m1` finds `m10` to `m19` as well. */
#define SEARCH_LIMIT 1000

/* The word @t's message begins with, or NULL for a message the driver
 * did not write (a compaction's request). */
static char *
own_word (OTurn *t)
{
  const char *text = t->input != NULL ? t->input->text : NULL;
  const char *end;

  if (text == NULL || text[0] != 'm' || !g_ascii_isdigit (text[1]))
    return NULL;
  for (end = text + 1; g_ascii_isdigit (*end); end++)
    ;
  if (*end != '\0' && *end != ' ')
    return NULL;
  return g_strndup (text, end - text);
}

/* The model's name of the conversation @session_id, for a report. */
static char *
session_name (OracleDriver *d,
              const char   *session_id)
{
  GPtrArray *all[] = { d->o->sessions, d->o->gone };

  for (guint a = 0; a < G_N_ELEMENTS (all); a++)
    for (guint i = 0; i < all[a]->len; i++)
      {
        OSession *s = g_ptr_array_index (all[a], i);

        if (g_strcmp0 (s->id, session_id) == 0)
          return g_strdup_printf ("S%u%s", s->n, s->deleted ? " (deleted)" : "");
      }
  return g_strdup (session_id);
}

/* Whether the model leaves open where @t is found: a conversation that
 * diverged from it, one that was removed again, or a recovered copy's
 * first turns, which it may reference rather than copy. */
static gboolean
search_open (OracleDriver *d,
             OTurn        *t)
{
  g_autoptr(GPtrArray) owners = oracle_search_owners (d->o, t);

  if (t->forgotten || t->owner->diverged || (!t->owner->deleted && !g_ptr_array_find (d->o->sessions, t->owner, NULL)))
    return TRUE;
  for (guint i = 0; i < owners->len; i++)
    if (((OSession *) g_ptr_array_index (owners, i))->diverged)
      return TRUE;
  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);
      g_autoptr(GPtrArray) visible = NULL;
      guint at;

      if (!s->recovered)
        continue;
      visible = oracle_visible (s);
      if (g_ptr_array_find (visible, t, &at) && at < s->n_recovered)
        return TRUE;
    }
  return FALSE;
}

/* The conversations a search for @t's word finds @t in, against those
 * the model says (oracle_search_owners()); none for a turn whose file
 * is damaged. */
static void
check_turn (OracleDriver      *d,
            NatterSearchIndex *search,
            OTurn             *t)
{
  g_autofree char *word = own_word (t);
  g_autoptr(GPtrArray) hits = NULL;
  g_autoptr(GPtrArray) owners = NULL;
  g_autoptr(GString) want = g_string_new (NULL);
  g_autoptr(GString) got = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  if (word == NULL || t->id == NULL || search_open (d, t))
    return;
  count (d, "search-readings");
  hits = natter_search_index_search_sync (search, word, SEARCH_LIMIT, NULL, NULL, &error);
  if (hits == NULL)
    {
      oracle_driver_fail (d, "search", "searching %s failed: %s", word, error->message);
      return;
    }
  owners = oracle_search_owners (d->o, t);
  for (guint i = 0; i < owners->len && !t->damaged; i++)
    g_string_append_printf (want, " S%u", ((OSession *) g_ptr_array_index (owners, i))->n);
  /* The model's order is creation order; the hits are put in it too. */
  for (guint i = 0; i < d->o->sessions->len + d->o->gone->len; i++)
    {
      OSession *s = i < d->o->sessions->len ? g_ptr_array_index (d->o->sessions, i)
                                            : g_ptr_array_index (d->o->gone, i - d->o->sessions->len);

      for (guint j = 0; s->id != NULL && j < hits->len; j++)
        {
          NatterSearchHit *hit = g_ptr_array_index (hits, j);

          if (g_str_equal (hit->turn_id, t->id) && g_str_equal (hit->session_id, s->id))
            g_string_append_printf (got, " S%u%s", s->n, s->deleted ? " (deleted)" : "");
        }
    }
  for (guint j = 0; j < hits->len; j++)
    {
      NatterSearchHit *hit = g_ptr_array_index (hits, j);
      g_autofree char *name = session_name (d, hit->session_id);

      if (g_str_equal (hit->turn_id, t->id) && g_str_equal (name, hit->session_id))
        g_string_append_printf (got, " %s", name);
    }
  if (!g_str_equal (want->str, got->str))
    oracle_driver_fail (d, "search", "%s finds T%u (of S%u%s%s) in%s, the model says in%s", word, t->n, t->owner->n,
                        t->owner->deleted ? ", deleted" : "", t->damaged ? ", damaged" : "",
                        got->len > 0 ? got->str : " none", want->len > 0 ? want->str : " none");
}

static void
check_unreadable (OracleDriver      *d,
                  NatterSearchIndex *search)
{
  g_auto(GStrv) unreadable = natter_search_index_dup_unreadable (search);
  g_autoptr(GHashTable) expected = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);

      for (guint j = 0; s->id != NULL && j < s->own->len; j++)
        if (((OTurn *) g_ptr_array_index (s->own, j))->damaged)
          g_hash_table_add (expected, s->id);
    }
  for (guint i = 0; unreadable[i] != NULL; i++)
    if (!g_hash_table_remove (expected, unreadable[i]))
      oracle_driver_fail (d, "search", "the search names %s as not searched in full; the model has no damage there",
                          unreadable[i]);
  if (g_hash_table_size (expected) > 0)
    {
      GHashTableIter iter;
      gpointer id;

      g_hash_table_iter_init (&iter, expected);
      while (g_hash_table_iter_next (&iter, &id, NULL))
        oracle_driver_fail (d, "search", "the search does not name %s, which has a damaged turn", (char *) id);
    }
}

static gboolean
index_idle_cb (gpointer data)
{
  return *(GAsyncResult **) data != NULL;
}

/* Waits until @search has taken in all it knows of; FALSE after a
 * failure, which is reported. */
static gboolean
wait_indexed (OracleDriver      *d,
              NatterSearchIndex *search,
              const char        *what)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_search_index_wait_async (search, NULL, natter_test_result_cb, &result);
  if (!oracle_driver_wait (d, index_idle_cb, &result) || !natter_search_index_wait_finish (search, result, &error))
    {
      oracle_driver_fail (d, "search", "the search index was never %s: %s", what,
                          error != NULL ? error->message : "it took too long");
      return FALSE;
    }
  return TRUE;
}

/* A search index of its own, in a new folder (@dir), over the data
 * folder as it is; kept current by the session service when @live, as
 * the window's is. Built before it is returned; NULL after a failure. */
static NatterSearchIndex *
open_search (OracleDriver  *d,
             gboolean       live,
             char         **dir)
{
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(NatterSearchIndex) search = NULL;

  *dir = g_dir_make_tmp ("oracle-search-XXXXXX", NULL);
  g_assert_nonnull (*dir);
  path = g_build_filename (*dir, "search.sqlite", NULL);
  file = g_file_new_for_path (path);
  if (d->f.services == NULL)
    load_services (d);
  search = natter_search_index_new (file, natter_services_get_session_repo (d->f.services),
                                    natter_services_get_turn_repo (d->f.services), live ? d->f.sessions : NULL);
  natter_search_index_start (search);
  return wait_indexed (d, search, "built") ? g_steal_pointer (&search) : NULL;
}

static void
close_search (NatterSearchIndex *search,
              char              *dir)
{
  g_autoptr(GFile) top = g_file_new_for_path (dir);

  g_clear_object (&search);
  natter_test_remove_tree (top);
  g_free (dir);
}

static void
compare_search (OracleDriver      *d,
                NatterSearchIndex *search)
{
  for (guint i = 0; i < d->o->turns->len; i++)
    check_turn (d, search, g_ptr_array_index (d->o->turns, i));
  check_unreadable (d, search);
}

/**
 * check_search:
 * @d: the driver, at the end of a run
 *
 * Builds a search index from the data folder as the run left it and
 * compares what it finds with the model.
 */
void
check_search (OracleDriver *d)
{
  char *dir = NULL;
  NatterSearchIndex *search = open_search (d, FALSE, &dir);

  if (search != NULL)
    compare_search (d, search);
  close_search (search, dir);
}

/**
 * search_delete:
 * @d: the driver
 * @s: the conversation to delete
 *
 * op_delete() with a search index that the session service keeps
 * current, as the window's: once the delete is taken in, its hits are
 * gone and its branches find what they show of it (docs/format.md,
 * "The search cache"), without a new build.
 */
void
search_delete (OracleDriver *d,
               OSession     *s)
{
  char *dir = NULL;
  NatterSearchIndex *search = open_search (d, TRUE, &dir);

  op_delete (d, s);
  if (search != NULL && wait_indexed (d, search, "brought up to date after the delete"))
    compare_search (d, search);
  close_search (search, dir);
}
