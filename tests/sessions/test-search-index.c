/* test-search-index.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Full-text search over real session and turn files written by the
 * session service (fake model, temporary directory): what it finds, in
 * which order and how many, and how it follows turns settling and
 * sessions being deleted. In the files beside it: the snippets a hit
 * shows (test-search-index-snippets.c), how its cache file is checked at
 * start, stale files read, unchanged ones not, a damaged file or one of
 * an older layout rebuilt (test-search-index-cache.c), a build from
 * nothing, its progress and the damaged files it leaves out
 * (test-search-index-build.c), and the turns a version shows from a
 * deleted original (test-search-index-versions.c).
 */

#include "test-search-index.h"

static void
test_finds_messages_and_answers (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *penguins = natter_test_sessions_create (&f->t);
  g_autofree char *giraffes = natter_test_sessions_create (&f->t);
  g_autofree char *t1 = exchange (f, penguins, "Where do penguins live?", "Penguins live in Antarctica.");
  g_autofree char *t2 = exchange (f, giraffes, "How tall are giraffes?", "Giraffes grow up to six metres.");
  g_autofree char *t3 = exchange (f, penguins, "And emperor ones?", "Emperor penguins huddle in the cold.");
  g_autofree char *hit1 = hit_line (penguins, t1);
  g_autofree char *hit2 = hit_line (giraffes, t2);
  g_autofree char *hit3 = hit_line (penguins, t3);
  g_autoptr(GPtrArray) hits = NULL;
  g_autofree char *plain = NULL;
  g_autofree char *markup = NULL;

  start_search (f);
  wait_indexed (f);

  /* A word of an answer, one of a user message, a prefix, and no accent
   * or case needed; never a turn of another session. */
  assert_search (f, "antarctica", hit1);
  assert_search (f, "TALL", hit2);
  assert_search (f, "giraf", hit2);
  assert_search (f, "emperor", hit3);
  /* Every word must match, in one turn. */
  assert_search (f, "penguins antarctica", hit1);
  assert_search (f, "penguins giraffes", "");
  /* Best first: the turn with the word in its message and its answer
   * before the one with it once. */
  {
    g_autofree char *best_first = g_strconcat (hit1, hit3, NULL);

    assert_search (f, "penguins", best_first);
  }

  /* The snippet marks the match; plain and markup forms. */
  hits = natter_search_index_search_sync (f->search, "antarctica", 10, NULL, NULL, NULL);
  g_assert_cmpuint (hits->len, ==, 1);
  plain = natter_search_snippet_to_plain (((NatterSearchHit *) hits->pdata[0])->snippet);
  markup = natter_search_snippet_to_markup (((NatterSearchHit *) hits->pdata[0])->snippet);
  g_assert_cmpstr (plain, ==, "Penguins live in Antarctica.");
  g_assert_cmpstr (markup, ==, "Penguins live in <b>Antarctica</b>.");
}

/* The words an answer had received when it was stopped are shown in
 * the window (marked) and kept in its file: they are found too. */
static void
test_finds_stopped_answer (Fixture       *f,
                           gconstpointer  data)
{
  NatterFakeModel *model = f->t.w->fakes->model;
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(GAsyncResult) sent = NULL;
  g_autoptr(GAsyncResult) stopped = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *tid = NULL;
  g_autofree char *hit = NULL;

  natter_fake_model_script (model, NATTER_FAKE_STEP_HOLD, NULL);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "Tell me about islands");
  natter_sessions_send_message_async (f->t.sessions, sid, input, options, NULL, natter_test_result_cb, &sent);
  tid = natter_sessions_send_message_finish (f->t.sessions, natter_test_sessions_wait_result (&sent), &error);
  g_assert_no_error (error);
  natter_fake_model_wait_held (model, 1, 5000);
  natter_fake_model_stream_text (model, "Zanzibar lies off the coast");
  natter_sessions_stop_turn_async (f->t.sessions, tid, "user", NULL, natter_test_result_cb, &stopped);
  g_assert_true (natter_sessions_stop_turn_finish (f->t.sessions, natter_test_sessions_wait_result (&stopped), &error));
  g_assert_no_error (error);
  natter_test_sessions_wait_status (&f->t, sid, "cancelled");
  natter_test_sessions_wait_idle (&f->t);
  hit = hit_line (sid, tid);

  start_search (f);
  wait_indexed (f);
  assert_search (f, "zanzibar coast", hit);
}

static void
test_query_syntax_is_words (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = exchange (f, sid, "NEAR(alpha beta) AND \"quoted\" col:x", "a*b <tag> & more");
  g_autofree char *hit = hit_line (sid, tid);
  const char *odd[] = { "\"", "NEAR(", "AND", "OR NOT", "*", "col:", "^", "(", "a\"b", "-", "' OR 1=1 --" };
  g_autoptr(GPtrArray) hits = NULL;
  g_autofree char *markup = NULL;
  char *expression;

  start_search (f);
  wait_indexed (f);
  /* Nothing a user types is an FTS5 error. */
  for (guint i = 0; i < G_N_ELEMENTS (odd); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) found = natter_search_index_search_sync (f->search, odd[i], 10, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (found);
    }
  assert_search (f, "near(alpha", hit);
  assert_search (f, "\"quoted\"", hit);
  assert_search (f, "and", hit);
  assert_search (f, "-", "");

  expression = natter_search_build_match_expression ("a\"b  NEAR( -");
  g_assert_cmpstr (expression, ==, "\"a\"\"b\"* \"NEAR(\"*");
  g_free (expression);
  g_assert_null (natter_search_build_match_expression (" - * "));

  /* What the user wrote is escaped before it becomes markup. */
  hits = natter_search_index_search_sync (f->search, "tag", 10, NULL, NULL, NULL);
  g_assert_cmpuint (hits->len, ==, 1);
  markup = natter_search_snippet_to_markup (((NatterSearchHit *) hits->pdata[0])->snippet);
  g_assert_cmpstr (markup, ==, "a*b &lt;<b>tag</b>&gt; &amp; more");
}

static void
test_write_through (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *sid = NULL;
  g_autofree char *other = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *hit1 = NULL;
  g_autofree char *hit2 = NULL;

  start_search (f);
  wait_indexed (f);
  sid = natter_test_sessions_create (&f->t);
  other = natter_test_sessions_create (&f->t);

  /* A turn that completes is found without a restart. */
  t1 = exchange (f, sid, "Tell me about quokkas", "Quokkas are small marsupials.");
  wait_indexed (f);
  hit1 = hit_line (sid, t1);
  assert_search (f, "marsupials", hit1);
  t2 = exchange (f, other, "Any other marsupial?", "The numbat.");
  wait_indexed (f);
  hit2 = hit_line (other, t2);
  assert_search (f, "numbat", hit2);

  /* Deleting removes the session's hits at once, before the worker ran. */
  delete_session (f, sid);
  assert_search (f, "marsupial", hit2);
  wait_indexed (f);
  assert_search (f, "marsupial", hit2);

  /* ...and from the file: a new index over it does not bring them back. */
  start_search (f);
  wait_indexed (f);
  assert_search (f, "quokkas", "");
  assert_search (f, "marsupial", hit2);
}

/* Words drawn so that some are said often and some rarely, and a row's
 * length varies: what bm25() weighs. */
static char *
random_words (GRand *rand,
              guint  n)
{
  static const char * const words[] = {
    "amber", "basalt", "cedar", "delta", "ember", "fjord", "garnet", "harbour", "indigo", "juniper",
    "kelp", "lagoon", "marble", "nectar", "obsidian", "pumice",
  };
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      double u = g_rand_double (rand);

      if (i > 0)
        g_string_append_c (text, ' ');
      g_string_append (text, words[(guint) (G_N_ELEMENTS (words) * u * u)]);
    }
  return g_string_free (text, FALSE);
}

/* "session turn" -> bm25() of every row that matches @text, from SQLite's
 * own ranking over the index file. */
static GHashTable *
bm25_scores (const char *path,
             const char *text)
{
  g_autoptr(GHashTable) scores = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autofree char *match = natter_search_build_match_expression (text);
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT t.session_id, t.turn_id, bm25(turn_text) FROM turn_text"
                                       " JOIN turns t ON t.id = turn_text.rowid WHERE turn_text MATCH ?1",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, match, -1, SQLITE_STATIC);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      double *score = g_new (double, 1);

      *score = sqlite3_column_double (stmt, 2);
      g_hash_table_insert (scores,
                           hit_line ((const char *) sqlite3_column_text (stmt, 0),
                                     (const char *) sqlite3_column_text (stmt, 1)),
                           score);
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return g_steal_pointer (&scores);
}

/* The hits of @query come best first in bm25()'s order, SQLite's
 * standard ranking over the index file as it is now: all of them when
 * the limit allows, else the best (ties at the cut may go either way). */
static void
assert_ranked_as_bm25 (Fixture    *f,
                       const char *query)
{
  g_autofree char *path = g_file_get_path (f->cache);
  g_autoptr(GHashTable) scores = bm25_scores (path, query);
  guint n_matches = g_hash_table_size (scores);
  guint limits[] = { 50, 5 };

  g_assert_cmpuint (n_matches, >, 5);
  g_assert_cmpuint (n_matches, <, 50);
  for (guint l = 0; l < G_N_ELEMENTS (limits); l++)
    {
      g_autoptr(GPtrArray) hits = natter_search_index_search_sync (f->search, query, limits[l], NULL, NULL, NULL);
      g_autoptr(GHashTable) returned = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
      double worst = -G_MAXDOUBLE;
      GHashTableIter iter;
      gpointer key, value;

      g_assert_nonnull (hits);
      g_assert_cmpuint (hits->len, ==, MIN (limits[l], n_matches));
      for (guint i = 0; i < hits->len; i++)
        {
          NatterSearchHit *hit = g_ptr_array_index (hits, i);
          char *line = hit_line (hit->session_id, hit->turn_id);
          double *score = g_hash_table_lookup (scores, line);

          g_ptr_array_add (lines, line);
          g_assert_nonnull (score);
          g_assert_false (g_hash_table_contains (returned, line));
          g_hash_table_add (returned, line);
          /* Best (lowest) first. */
          if (*score < worst - 1e-9 * fabs (worst))
            g_error ("\"%s\": hit %u scores %g after one of %g", query, i, *score, worst);
          worst = MAX (worst, *score);
        }
      /* Nothing left out ranks better than what was returned. */
      g_hash_table_iter_init (&iter, scores);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (!g_hash_table_contains (returned, key) && *(double *) value < worst - 1e-9 * fabs (worst))
          g_error ("\"%s\": %s scores %g, better than a hit's %g", query, (char *) key,
                   *(double *) value, worst);
    }
}

/* Sessions of random words, @n_turns exchanges each. */
static void
add_random_sessions (Fixture *f,
                     GRand   *rand,
                     guint    n_sessions,
                     guint    n_turns)
{
  for (guint s = 0; s < n_sessions; s++)
    {
      g_autofree char *sid = natter_test_sessions_create (&f->t);

      for (guint t = 0; t < n_turns; t++)
        {
          g_autofree char *question = random_words (rand, g_rand_int_range (rand, 2, 10));
          g_autofree char *answer = random_words (rand, g_rand_int_range (rand, 3, 40));
          g_autofree char *tid = exchange (f, sid, question, answer);
        }
    }
}

/* The hits come best first in bm25()'s order, for one word, a prefix and
 * several words. A query of several words counts how many rows hold
 * each word, or finds the counts an earlier query kept: each query is
 * asked twice, and "amber cedar" comes after "amber" and "cedar" alone,
 * which walked all their rows and so counted them: the order is the
 * same. */
static void
test_ranked_as_bm25 (Fixture       *f,
                     gconstpointer  data)
{
  static const char * const queries[] = { "amber", "cedar", "obsid", "ba", "amber cedar", "delta ember fjord",
                                          "ga harbour" };
  g_autoptr(GRand) rand = g_rand_new_with_seed (31);

  add_random_sessions (f, rand, 3, 8);
  start_search (f);
  wait_indexed (f);

  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    assert_ranked_as_bm25 (f, queries[q]);
}

/* The counts of rows a query of several words keeps are those of the
 * table it was asked on: once turns are added that make one of its
 * words far more common, the same query ranks by the new counts, as
 * bm25() over the changed table does. */
static void
test_ranked_as_bm25_after_changes (Fixture       *f,
                                   gconstpointer  data)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autofree char *sid = NULL;

  add_random_sessions (f, rand, 3, 8);
  start_search (f);
  wait_indexed (f);
  assert_ranked_as_bm25 (f, "kelp nectar");
  assert_ranked_as_bm25 (f, "lagoon kelp");

  /* "nectar" in a few more turns: rare no longer. */
  sid = natter_test_sessions_create (&f->t);
  for (guint t = 0; t < 6; t++)
    {
      g_autofree char *tid = exchange (f, sid, "nectar again", "nectar and amber");
    }
  wait_indexed (f);
  assert_ranked_as_bm25 (f, "kelp nectar");
  assert_ranked_as_bm25 (f, "lagoon kelp");
}

/* How many rows of the index file match @match (an FTS5 expression). */
static int
count_rows (const char *path,
            const char *match)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  int n;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT count(*) FROM turn_text WHERE turn_text MATCH ?1", -1, &stmt, NULL),
                   ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, match, -1, SQLITE_STATIC);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  n = sqlite3_column_int (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return n;
}

/* "the" and @n words (none: "the" alone): "lantern" and "lanterns" often together, "marble" and
 * "marbles" each in fewer than half the rows but one of them in more,
 * "kelp", and words that only make the row longer. */
static char *
prefix_words (GRand *rand,
              guint  n)
{
  static const char * const fillers[] = { "reef", "tide", "gull", "dune", "sand" };
  GString *text = g_string_new ("the");

  if (n == 0)
    return g_string_free (text, FALSE);
  if (g_rand_double (rand) < 0.38)
    {
      double u = g_rand_double (rand);

      for (guint i = g_rand_int_range (rand, 1, 4); i > 0; i--)
        g_string_append (text, u < 0.8 ? " lantern" : "");
      for (guint i = g_rand_int_range (rand, 1, 4); i > 0; i--)
        g_string_append (text, u >= 0.2 ? " lanterns" : "");
    }
  if (g_rand_double (rand) < 0.42)
    g_string_append (text, " marble");
  if (g_rand_double (rand) < 0.42)
    g_string_append (text, " marbles marbles");
  if (g_rand_double (rand) < 0.45)
    g_string_append (text, " kelp");
  for (guint i = 0; i < n; i++)
    {
      g_string_append_c (text, ' ');
      g_string_append (text, fillers[g_rand_int_range (rand, 0, G_N_ELEMENTS (fillers))]);
    }
  return g_string_free (text, FALSE);
}

/* A typed word that begins a few terms of the table is searched as those
 * terms (natter-search-db.c), and ranked as bm25() ranks the prefix:
 * a row that holds two of its terms counts once among the rows that
 * hold the prefix (counting each term's rows would put "lant" in more
 * than half the rows, where its IDF is the smallest), and a prefix in
 * more than half the rows weighs least though none of its terms is.
 * The same after a conversation is deleted, with a term only it held. */
static void
test_ranked_as_bm25_prefix_terms (Fixture       *f,
                                  gconstpointer  data)
{
  static const char * const queries[] = { "lant kelp", "lanter kelp", "marb lant", "marb kelp", "lanterns kelp", "lant",
                                          "lant marb kelp" };
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  g_autofree char *path = g_file_get_path (f->cache);
  g_autofree char *doomed = natter_test_sessions_create (&f->t);
  g_autofree char *t0 = exchange (f, doomed, "the lanternfish glows", "lanternfish lantern kelp");
  int n_rows;

  for (guint s = 0; s < 6; s++)
    {
      g_autofree char *sid = natter_test_sessions_create (&f->t);

      for (guint t = 0; t < 10; t++)
        {
          g_autofree char *question = prefix_words (rand, 0);
          g_autofree char *answer = prefix_words (rand, g_rand_int_range (rand, 2, 30));
          g_autofree char *tid = exchange (f, sid, question, answer);
        }
    }
  start_search (f);
  wait_indexed (f);

  /* What the scenario is about. */
  n_rows = count_rows (path, "the");
  g_assert_cmpint (2 * count_rows (path, "lant*"), <, n_rows);
  g_assert_cmpint (2 * (count_rows (path, "lantern") + count_rows (path, "lanterns")), >, n_rows);
  g_assert_cmpint (2 * count_rows (path, "marble"), <, n_rows);
  g_assert_cmpint (2 * count_rows (path, "marbles"), <, n_rows);
  g_assert_cmpint (2 * count_rows (path, "marb*"), >, n_rows);
  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    assert_ranked_as_bm25 (f, queries[q]);

  delete_session (f, doomed);
  wait_indexed (f);
  g_assert_cmpint (count_rows (path, "lanternfish"), ==, 0);
  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    assert_ranked_as_bm25 (f, queries[q]);
  assert_search (f, "lanternf", "");
  (void) t0;
}

/* More matching turns than a search ranks: the newest are ranked, and
 * the search says that the cap applied; as many as the cap, it does not. */
static void
test_capped (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *t1 = exchange (f, sid, "Zebras in the morning?", "Yes.");
  g_autofree char *t2 = exchange (f, sid, "Zebras at noon?", "Yes.");
  g_autofree char *t3 = exchange (f, sid, "Zebras at night?", "Yes.");
  g_autofree char *hit2 = hit_line (sid, t2);
  g_autofree char *hit3 = hit_line (sid, t3);
  g_autofree char *newest = g_strconcat (hit3, hit2, NULL);
  g_autoptr(GError) error = NULL;
  gboolean capped = TRUE;

  start_search (f);
  wait_indexed (f);
  g_assert_cmpuint (natter_search_index_get_match_cap (f->search), ==, NATTER_SEARCH_MATCH_CAP);

  {
    g_autoptr(GPtrArray) hits = natter_search_index_search_sync (f->search, "zebras", 10, NULL, &capped, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (hits->len, ==, 3);
    g_assert_false (capped);
  }

  natter_search_index_set_match_cap (f->search, 2);
  {
    g_autoptr(GPtrArray) hits = natter_search_index_search_sync (f->search, "zebras", 10, NULL, &capped, &error);

    g_assert_no_error (error);
    g_assert_true (capped);
  }
  assert_search (f, "zebras", newest);

  /* Exactly as many as the cap: all ranked, nothing left out. */
  {
    g_autoptr(GPtrArray) hits = natter_search_index_search_sync (f->search, "zebras noon", 10, NULL, &capped, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (hits->len, ==, 1);
    g_assert_false (capped);
  }
  natter_search_index_set_match_cap (f->search, 3);
  {
    g_autoptr(GPtrArray) hits = natter_search_index_search_sync (f->search, "zebras", 10, NULL, &capped, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (hits->len, ==, 3);
    g_assert_false (capped);
  }
  (void) t1;
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("/search-index/finds-messages-and-answers", test_finds_messages_and_answers);
  ADD ("/search-index/finds-stopped-answer", test_finds_stopped_answer);
  ADD ("/search-index/query-syntax-is-words", test_query_syntax_is_words);
  ADD ("/search-index/snippets-keep-words-whole", test_snippets_keep_words_whole);
  ADD ("/search-index/huge-message", test_huge_message);
  g_test_add_func ("/search-index/snippet-from-highlight", test_snippet_from_highlight);
  g_test_add_func ("/search-index/snippet-markup-controls-visible", test_snippet_markup_controls_visible);
  ADD ("/search-index/write-through", test_write_through);
  ADD ("/search-index/corrupt-index-rebuilt", test_corrupt_index_rebuilt);
  ADD ("/search-index/old-layout-rebuilt", test_old_layout_rebuilt);
  ADD ("/search-index/damaged/garbage-at-start", test_garbage_at_start);
  ADD ("/search-index/damaged/truncated-at-start", test_truncated_at_start);
  ADD ("/search-index/damaged/page-at-start", test_page_damaged_at_start);
  ADD ("/search-index/damaged/garbage-while-running", test_garbage_while_running);
  ADD ("/search-index/damaged/truncated-while-running", test_truncated_while_running);
  ADD ("/search-index/damaged/page-while-running", test_page_damaged_while_running);
  ADD ("/search-index/damaged/found-by-worker", test_damage_found_by_worker);
  ADD ("/search-index/damaged/terms-table-made-again", test_terms_table_made_again);
  ADD ("/search-index/damaged/reader-beside-rebuild", test_reader_beside_rebuild);
  ADD ("/search-index/reader-makes-no-wal", test_reader_makes_no_wal);
  ADD ("/search-index/ranked-as-bm25", test_ranked_as_bm25);
  ADD ("/search-index/ranked-as-bm25-after-changes", test_ranked_as_bm25_after_changes);
  ADD ("/search-index/ranked-as-bm25-prefix-terms", test_ranked_as_bm25_prefix_terms);
  ADD ("/search-index/cache-path-not-a-file", test_cache_path_not_a_file);
  ADD ("/search-index/stale-files-picked-up-at-start", test_stale_files_picked_up_at_start);
  ADD ("/search-index/progress", test_progress);
  ADD ("/search-index/damaged-not-indexed", test_damaged_not_indexed);
  ADD ("/search-index/earlier-turn-that-lost-its-end-not-indexed", test_lost_end_not_indexed);
  ADD ("/search-index/damage-found-by-a-refusal-reindexed", test_damage_found_reindexed);
  ADD ("/search-index/capped", test_capped);
  ADD ("/search-index/version-shows-deleted-original", test_version_shows_deleted_original);
  ADD ("/search-index/version-of-original-deleted-while-closed", test_original_deleted_while_closed);

  return g_test_run ();
}
