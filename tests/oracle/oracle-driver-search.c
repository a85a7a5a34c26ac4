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
 * "The search cache").
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

static gboolean
has_hit (GPtrArray  *hits,
         const char *session_id,
         const char *turn_id)
{
  for (guint i = 0; i < hits->len; i++)
    {
      NatterSearchHit *hit = g_ptr_array_index (hits, i);

      if (g_str_equal (hit->session_id, session_id) && g_str_equal (hit->turn_id, turn_id))
        return TRUE;
    }
  return FALSE;
}

static void
check_turn (OracleDriver      *d,
            NatterSearchIndex *search,
            OSession          *s,
            OTurn             *t)
{
  g_autofree char *word = own_word (t);
  g_autoptr(GPtrArray) hits = NULL;
  g_autoptr(GError) error = NULL;
  gboolean found;

  if (word == NULL || t->id == NULL)
    return;
  count (d, "search-readings");
  hits = natter_search_index_search_sync (search, word, SEARCH_LIMIT, NULL, NULL, &error);
  if (hits == NULL)
    {
      oracle_driver_fail (d, "search", "searching %s failed: %s", word, error->message);
      return;
    }
  found = has_hit (hits, s->id, t->id);
  if (t->damaged && found)
    oracle_driver_fail (d, "search", "%s finds T%u of S%u, whose file is damaged", word, t->n, s->n);
  else if (!t->damaged && !found)
    oracle_driver_fail (d, "search", "%s does not find T%u of S%u", word, t->n, s->n);
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
  g_autofree char *dir = g_dir_make_tmp ("oracle-search-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "search.sqlite", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(NatterSearchIndex) search = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (dir);
  if (d->f.services == NULL)
    load_services (d);
  search = natter_search_index_new (file, natter_services_get_session_repo (d->f.services),
                                    natter_services_get_turn_repo (d->f.services), NULL);
  natter_search_index_start (search);
  natter_search_index_wait_async (search, NULL, natter_test_result_cb, &result);
  if (!oracle_driver_wait (d, index_idle_cb, &result) || !natter_search_index_wait_finish (search, result, &error))
    oracle_driver_fail (d, "search", "the search index was never built: %s",
                        error != NULL ? error->message : "it took too long");
  else
    {
      for (guint i = 0; i < d->o->sessions->len; i++)
        {
          OSession *s = g_ptr_array_index (d->o->sessions, i);

          for (guint j = 0; s->id != NULL && !s->diverged && j < s->own->len; j++)
            check_turn (d, search, s, g_ptr_array_index (s->own, j));
        }
      check_unreadable (d, search);
    }
  g_clear_object (&search);
  {
    g_autoptr(GFile) top = g_file_new_for_path (dir);

    natter_test_remove_tree (top);
  }
}
