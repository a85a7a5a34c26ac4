/* test-search-index-versions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The turns a version shows from the conversation it was made of: while
 * that original is there, a search finds them in it; once it is deleted,
 * the version still shows them (and sends them), read from the turn
 * files, and a search finds them in the version, whether the original
 * was deleted while the index ran or while it did not.
 */

#include "test-search-index.h"

typedef struct
{
  char *original;
  char *first_turn;    /* the original's first exchange, which the version shows */
  char *second_turn;   /* its second, which the version has another version of */
  char *version;
  char *version_turn;
} Versions;

static void
versions_clear (Versions *v)
{
  g_free (v->original);
  g_free (v->first_turn);
  g_free (v->second_turn);
  g_free (v->version);
  g_free (v->version_turn);
}

/* An original of two exchanges, and a version of its second message
 * (made as Edit makes one: a branch at the turn before it, with the
 * conversation's title), answered. */
static void
make_versions (Fixture  *f,
               Versions *v)
{
  v->original = natter_test_sessions_create_titled (&f->t, "Amphibians");
  v->first_turn = exchange (f, v->original, "Tell me about axolotls", "They regrow their limbs.");
  v->second_turn = exchange (f, v->original, "And newts?", "Newts live on land and in water.");
  v->version = natter_test_sessions_fork (&f->t, v->original, v->first_turn, "Amphibians");
  v->version_turn = exchange (f, v->version, "And salamanders?", "Some of them never leave the water.");
}

/* What each word finds once the original is gone: the first exchange in
 * the version, which shows it, its second nowhere, and the version's
 * own; nothing is said to be unsearched. */
static void
assert_found_in_version (Fixture        *f,
                         const Versions *v)
{
  g_autofree char *inherited = hit_line (v->version, v->first_turn);
  g_autofree char *own = hit_line (v->version, v->version_turn);
  g_auto(GStrv) unreadable = natter_search_index_dup_unreadable (f->search);

  assert_search (f, "axolotls", inherited);
  assert_search (f, "regrow limbs", inherited);
  assert_search (f, "newts", "");
  assert_search (f, "salamanders", own);
  assert_search (f, "water", own);
  g_assert_cmpuint (g_strv_length (unreadable), ==, 0);
}

/* Deleted while the index runs: the version takes the words of what it
 * shows from the original at once, and a new index over the file keeps
 * them there. */
void
test_version_shows_deleted_original (Fixture       *f,
                                     gconstpointer  data)
{
  Versions v = { 0 };
  g_autofree char *in_original = NULL;

  make_versions (f, &v);
  start_search (f);
  wait_indexed (f);
  /* The original is there: what the version shows of it is the
   * original's, found there once, as the lists show the family once. */
  in_original = hit_line (v.original, v.first_turn);
  assert_search (f, "axolotls", in_original);

  delete_session (f, v.original);
  wait_indexed (f);
  assert_found_in_version (f, &v);

  start_search (f);
  wait_indexed (f);
  assert_found_in_version (f, &v);
  versions_clear (&v);
}

/* Deleted while no index ran (`natter delete`, then a search): the
 * version's files did not change, and it still takes the words. When
 * the original's file comes back (a synchroniser brings it back), they
 * are the original's again, found there only. */
void
test_original_deleted_while_closed (Fixture       *f,
                                    gconstpointer  data)
{
  Versions v = { 0 };
  g_autofree char *in_original = NULL;
  g_autofree char *own = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  g_autoptr(GError) error = NULL;

  make_versions (f, &v);
  start_search (f);
  wait_indexed (f);
  in_original = hit_line (v.original, v.first_turn);
  assert_search (f, "axolotls", in_original);
  g_assert_finalize_object (g_steal_pointer (&f->search));

  file = natter_jsonl_repo_get_file (f->t.w->session_repo, v.original, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_load_contents (file, NULL, &contents, &length, NULL, &error));
  g_assert_no_error (error);
  delete_session (f, v.original);
  natter_test_sessions_wait_idle (&f->t);
  start_search (f);
  wait_indexed (f);
  assert_found_in_version (f, &v);
  g_assert_finalize_object (g_steal_pointer (&f->search));

  g_assert_true (g_file_replace_contents (file, contents, length, NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL,
                                          &error));
  g_assert_no_error (error);
  start_search (f);
  wait_indexed (f);
  assert_search (f, "axolotls", in_original);
  own = hit_line (v.version, v.version_turn);
  assert_search (f, "salamanders", own);
  versions_clear (&v);
}
