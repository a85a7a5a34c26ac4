/* test-search-index.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Full-text search over real session and turn files written by the
 * session service (fake model, temporary directory): what it finds, how
 * it follows turns settling and sessions being deleted, and how its cache
 * file is checked at start (stale files read, unchanged ones not, a
 * damaged file or one of an older layout rebuilt).
 */

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "natter-search-db.h"
#include "natter-search-index.h"
#include "natter-search-index-private.h"
#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"
#include "natter-test-sessions.h"

#define TIMEOUT_MS 20000

typedef struct
{
  NatterTestSessions  t;       /* first: a Fixture is a NatterTestSessions */
  GFile              *cache;
  NatterSearchIndex  *search;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  natter_test_sessions_set_up (&f->t, data);
  f->cache = g_file_resolve_relative_path (f->t.w->dir, "cache/search.sqlite");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  natter_test_sessions_wait_idle (&f->t);
  if (f->search != NULL)
    g_assert_finalize_object (f->search);
  g_object_unref (f->cache);
  natter_test_sessions_tear_down (&f->t, data);
}

/* Sends @text to @session_id, the fake model answering @answer, and waits
 * until the turn completed. */
static char *
exchange (Fixture    *f,
          const char *session_id,
          const char *text,
          const char *answer)
{
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(JsonObject) step = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *step_text = NULL;
  char *turn_id;

  json_object_set_string_member (step, "role", "assistant");
  json_object_set_string_member (step, "content", answer);
  json_node_set_object (node, step);
  step_text = json_to_string (node, FALSE);
  natter_fake_model_script (f->t.w->fakes->model, step_text, NULL);

  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_send_message_async (f->t.sessions, session_id, input, options, NULL, natter_test_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  natter_test_sessions_wait_status (&f->t, session_id, "completed");
  natter_test_sessions_wait_idle (&f->t);
  return turn_id;
}

static NatterSearchIndex *
start_search (Fixture *f)
{
  g_clear_object (&f->search);
  f->search = natter_search_index_new (f->cache, f->t.w->session_repo, f->t.w->turn_repo, f->t.sessions);
  natter_search_index_start (f->search);
  return f->search;
}

static void
wait_indexed (Fixture *f)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_search_index_wait_async (f->search, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_search_index_wait_finish (f->search, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  g_assert_false (natter_search_index_get_indexing (f->search));
}

/* "session turn" of every hit, in order, one per line. */
static char *
search (Fixture    *f,
        const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) hits = natter_search_index_search_sync (f->search, text, 50, NULL, NULL, &error);
  GString *out = g_string_new (NULL);

  g_assert_no_error (error);
  for (guint i = 0; i < hits->len; i++)
    {
      NatterSearchHit *hit = g_ptr_array_index (hits, i);

      g_string_append_printf (out, "%s %s\n", hit->session_id, hit->turn_id);
    }
  return g_string_free (out, FALSE);
}

#define assert_search(f, text, expected) \
  G_STMT_START { \
    g_autofree char *found_ = search ((f), (text)); \
    g_assert_cmpstr (found_, ==, (expected)); \
  } G_STMT_END

static char *
hit_line (const char *session_id,
          const char *turn_id)
{
  return g_strdup_printf ("%s %s\n", session_id, turn_id);
}

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
delete_session (Fixture    *f,
                const char *session_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_delete_session_async (f->t.sessions, session_id, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_delete_session_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
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

static void
test_corrupt_index_rebuilt (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = exchange (f, sid, "Name a volcano", "Vesuvius.");
  g_autofree char *hit = hit_line (sid, tid);
  g_autofree char *path = g_file_get_path (f->cache);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autoptr(GError) error = NULL;

  start_search (f);
  wait_indexed (f);
  assert_search (f, "vesuvius", hit);
  g_clear_object (&f->search);

  /* Damaged beyond reading: it is started over from the logs. */
  g_unlink (wal);
  g_file_set_contents (path, "this is no SQLite database, only some text of the same kind of length"
                       " written over the index file by a test", -1, &error);
  g_assert_no_error (error);
  start_search (f);
  wait_indexed (f);
  assert_search (f, "vesuvius", hit);

  /* An empty file is laid out afresh and filled. */
  g_clear_object (&f->search);
  g_unlink (wal);
  g_unlink (path);
  g_file_set_contents (path, "", 0, &error);
  g_assert_no_error (error);
  start_search (f);
  wait_indexed (f);
  assert_search (f, "vesuvius", hit);
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

/* The hits come best first in bm25()'s order, SQLite's standard ranking,
 * for one word, a prefix and several words: all of them when the limit
 * allows, else the best (ties at the cut may go either way). */
static void
test_ranked_as_bm25 (Fixture       *f,
                     gconstpointer  data)
{
  static const char * const queries[] = { "amber", "cedar", "obsid", "ba", "amber cedar", "delta ember fjord",
                                          "ga harbour" };
  g_autoptr(GRand) rand = g_rand_new_with_seed (31);
  g_autofree char *path = g_file_get_path (f->cache);

  for (guint s = 0; s < 3; s++)
    {
      g_autofree char *sid = natter_test_sessions_create (&f->t);

      for (guint t = 0; t < 8; t++)
        {
          g_autofree char *question = random_words (rand, g_rand_int_range (rand, 2, 10));
          g_autofree char *answer = random_words (rand, g_rand_int_range (rand, 3, 40));
          g_autofree char *tid = exchange (f, sid, question, answer);
        }
    }
  start_search (f);
  wait_indexed (f);

  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    {
      g_autoptr(GHashTable) scores = bm25_scores (path, queries[q]);
      guint n_matches = g_hash_table_size (scores);
      guint limits[] = { 50, 5 };

      g_assert_cmpuint (n_matches, >, 5);
      g_assert_cmpuint (n_matches, <, 50);
      for (guint l = 0; l < G_N_ELEMENTS (limits); l++)
        {
          g_autoptr(GPtrArray) hits = natter_search_index_search_sync (f->search, queries[q], limits[l], NULL, NULL, NULL);
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
                g_error ("\"%s\": hit %u scores %g after one of %g", queries[q], i, *score, worst);
              worst = MAX (worst, *score);
            }
          /* Nothing left out ranks better than what was returned. */
          g_hash_table_iter_init (&iter, scores);
          while (g_hash_table_iter_next (&iter, &key, &value))
            if (!g_hash_table_contains (returned, key) && *(double *) value < worst - 1e-9 * fabs (worst))
              g_error ("\"%s\": %s scores %g, better than a hit's %g", queries[q], (char *) key,
                       *(double *) value, worst);
        }
    }
}

static int
user_version (const char *path)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  int version;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "PRAGMA user_version", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  version = sqlite3_column_int (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return version;
}

/* An index an older Natter laid out (another PRAGMA user_version) is not
 * read, even where its stamps say that nothing changed since: it is
 * thrown away and built again from the logs (docs/format.md "The search
 * cache"). Here the file keeps every stamp of the current index, but
 * its words are in the table of the first layout, empty: trusted, it
 * would find nothing. */
static void
test_old_layout_rebuilt (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = exchange (f, sid, "Name a glacier", "The Aletsch, in the Alps.");
  g_autofree char *hit = hit_line (sid, tid);
  g_autofree char *path = g_file_get_path (f->cache);
  int current;
  sqlite3 *db = NULL;

  start_search (f);
  wait_indexed (f);
  assert_search (f, "aletsch", hit);
  g_clear_object (&f->search);
  current = user_version (path);
  g_assert_cmpint (current, >, 1);

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db,
                                 "DROP TABLE turn_text;"
                                 "CREATE VIRTUAL TABLE turn_text USING fts5(user, answer,"
                                 " tokenize='unicode61 remove_diacritics 2', prefix='2 3');"
                                 "PRAGMA user_version = 1;",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  g_assert_cmpint (user_version (path), ==, 1);

  start_search (f);
  wait_indexed (f);
  assert_search (f, "aletsch", hit);
  assert_search (f, "alps", hit);
  g_assert_cmpint (user_version (path), ==, current);
}

static void
assert_private (const char *path)
{
  struct stat st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  if ((st.st_mode & 0777) != 0600)
    g_error ("%s has mode %o, not 0600", path, st.st_mode & 0777);
}

/* What is where the cache file belongs: an empty folder is no index and
 * is replaced; a folder with something in it, or a pipe, is left alone,
 * and every search says why it finds nothing, instead of a log line. The
 * file is private to its user, like every file of the data directory. */
static void
test_cache_path_not_a_file (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = exchange (f, sid, "Name a glacier", "Aletsch.");
  g_autofree char *hit = hit_line (sid, tid);
  g_autofree char *path = g_file_get_path (f->cache);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);
  g_autofree char *inside = g_build_filename (path, "keep.txt", NULL);

  /* A folder with a file in it. */
  g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
  g_assert_true (g_file_set_contents (inside, "mine", -1, NULL));
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) hits = NULL;

      start_search (f);
      wait_indexed (f);
      hits = natter_search_index_search_sync (f->search, "aletsch", 10, NULL, NULL, &error);
      g_assert_null (hits);
      g_assert_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_NOT_A_FILE);
      g_assert_nonnull (strstr (error->message, path));
      g_assert_nonnull (strstr (error->message, "folder"));
    }
  g_assert_true (g_file_test (inside, G_FILE_TEST_IS_REGULAR));
  g_clear_object (&f->search);

  /* A pipe: never opened, so nothing waits on it. */
  g_assert_cmpint (g_unlink (inside), ==, 0);
  g_assert_cmpint (g_rmdir (path), ==, 0);
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) hits = NULL;

    start_search (f);
    wait_indexed (f);
    hits = natter_search_index_search_sync (f->search, "aletsch", 10, NULL, NULL, &error);
    g_assert_null (hits);
    g_assert_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_NOT_A_FILE);
    g_clear_object (&f->search);
  }

  /* An empty folder holds nothing: the index is built in its place. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  start_search (f);
  wait_indexed (f);
  assert_search (f, "aletsch", hit);
  assert_private (path);
  assert_private (wal);
  assert_private (shm);
  g_clear_object (&f->search);

  /* A file an older Natter left readable by others becomes private. */
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
  start_search (f);
  wait_indexed (f);
  assert_search (f, "aletsch", hit);
  assert_private (path);
}

/* Replaces @file's bytes with others of the same length and gives it back
 * its mtime: a file read now would be damaged, one only stat()ed is not. */
static void
scramble_keeping_stamp (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *contents = NULL;
  gsize length;
  struct stat st;
  struct timespec times[2];
  g_autoptr(GError) error = NULL;
  int fd;

  g_assert_cmpint (stat (path, &st), ==, 0);
  g_file_get_contents (path, &contents, &length, &error);
  g_assert_no_error (error);
  memset (contents, 'x', length);
  fd = open (path, O_WRONLY);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, contents, length), ==, (gssize) length);
  times[0] = st.st_atim;
  times[1] = st.st_mtim;
  g_assert_cmpint (futimens (fd, times), ==, 0);
  close (fd);
}

static void
test_stale_files_picked_up_at_start (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *changed = natter_test_sessions_create (&f->t);
  g_autofree char *unchanged = natter_test_sessions_create (&f->t);
  g_autofree char *gone = natter_test_sessions_create (&f->t);
  g_autofree char *t1 = exchange (f, changed, "First about otters", "Otters hold hands.");
  g_autofree char *t2 = exchange (f, unchanged, "About badgers", "Badgers dig setts.");
  g_autofree char *t3 = exchange (f, gone, "About voles", "Voles are small.");
  g_autofree char *t4 = NULL;
  g_autofree char *hit2 = hit_line (unchanged, t2);
  g_autofree char *hit4 = NULL;
  g_autoptr(GFile) session_file = NULL;
  g_autoptr(GFile) turn_file = NULL;
  g_autoptr(GError) error = NULL;
  gboolean still_indexing = FALSE;
  g_autoptr(GPtrArray) hits = NULL;

  start_search (f);
  wait_indexed (f);
  g_clear_object (&f->search);

  /* While no index runs: a new turn, a session deleted from disk. */
  t4 = exchange (f, changed, "Then about beavers", "Beavers build dams.");
  hit4 = hit_line (changed, t4);
  g_assert_true (natter_jsonl_repo_delete_sync (f->t.w->session_repo, gone, NULL, &error));
  g_assert_no_error (error);
  /* An unchanged session is not read again: its files could be anything
   * now as long as their size and mtime are the same. */
  session_file = natter_jsonl_repo_get_file (f->t.w->session_repo, unchanged, NULL);
  turn_file = natter_jsonl_repo_get_file (f->t.w->turn_repo, t2, NULL);
  scramble_keeping_stamp (session_file);
  scramble_keeping_stamp (turn_file);

  start_search (f);
  /* A search before the check is done says so. */
  hits = natter_search_index_search_sync (f->search, "badgers", 10, &still_indexing, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (still_indexing);
  wait_indexed (f);
  g_clear_pointer (&hits, g_ptr_array_unref);
  hits = natter_search_index_search_sync (f->search, "badgers", 10, &still_indexing, NULL, &error);
  g_assert_false (still_indexing);

  assert_search (f, "beavers", hit4);
  assert_search (f, "badgers", hit2);
  assert_search (f, "voles", "");
  (void) t1;
  (void) t3;
}

/* The first hit's snippet for @query, as plain text and as markup. */
static void
first_snippet (Fixture     *f,
               const char  *query,
               char       **plain,
               char       **markup)
{
  g_autoptr(GPtrArray) hits = natter_search_index_search_sync (f->search, query, 10, NULL, NULL, NULL);

  g_assert_nonnull (hits);
  g_assert_cmpuint (hits->len, >=, 1);
  *plain = natter_search_snippet_to_plain (((NatterSearchHit *) hits->pdata[0])->snippet);
  *markup = natter_search_snippet_to_markup (((NatterSearchHit *) hits->pdata[0])->snippet);
}

/* Every word @snippet shows (but the "…" of words left out) is a whole
 * word of @text. */
static void
assert_whole_words (const char *snippet,
                    const char *text)
{
  g_auto(GStrv) words = g_strsplit (snippet, " ", -1);
  g_auto(GStrv) original = g_strsplit (text, " ", -1);

  for (guint i = 0; words[i] != NULL; i++)
    {
      if (g_str_equal (words[i], "…"))
        continue;
      if (!g_strv_contains ((const char * const *) original, words[i]))
        g_error ("\"%s\" in the snippet \"%s\" is not a whole word of the text", words[i], snippet);
    }
}

static void
test_snippets_keep_words_whole (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autoptr(GString) long_text = g_string_new (NULL);
  g_autofree char *plain = NULL;
  g_autofree char *markup = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *t3 = NULL;

  /* Words the index splits in several ("e-mail", "don't", "bob@...")
   * are marked whole, wherever the match is in them; punctuation at a
   * word's ends stays outside the mark; what the user wrote is escaped. */
  t1 = exchange (f, sid, "Please resend the e-mail, I don't have it", "Sent to <bob@example.org> & co.");
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (long_text, "%sfirst-%u half-%u", i > 0 ? " " : "", i, i);
  g_string_append (long_text, " needle-eye pointed-end and thread-count well-known");
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (long_text, " after-%u x-%u", i, i);
  t2 = exchange (f, sid, "A long one", long_text->str);
  t3 = exchange (f, sid, "Short", "The quick brown fox");
  start_search (f);
  wait_indexed (f);

  first_snippet (f, "mail", &plain, &markup);
  g_assert_cmpstr (markup, ==, "Please resend the <b>e-mail</b>, I don&apos;t have it");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&markup, g_free);
  first_snippet (f, "don", &plain, &markup);
  /* At most 24 characters before the match: a narrow list shows it. */
  g_assert_cmpstr (markup, ==, "… resend the e-mail, I <b>don&apos;t</b> have it");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&markup, g_free);
  first_snippet (f, "example", &plain, &markup);
  g_assert_cmpstr (markup, ==, "Sent to &lt;<b>bob@example.org</b>&gt; &amp; co.");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&markup, g_free);

  /* A match deep in a long answer: the snippet is cut between words,
   * says where words were left out, and marks the match whole. */
  for (guint i = 0; i < 3; i++)
    {
      const char *query[] = { "eye", "end", "known" };
      const char *marked[] = { "<b>needle-eye</b>", "<b>pointed-end</b>", "<b>well-known</b>" };

      g_auto(GStrv) shown = NULL;

      first_snippet (f, query[i], &plain, &markup);
      shown = g_strsplit (plain, " ", -1);
      assert_whole_words (plain, long_text->str);
      g_assert_true (g_str_has_prefix (plain, "… "));
      g_assert_true (g_str_has_suffix (plain, " …"));
      g_assert_cmpuint (g_strv_length (shown), ==, 16 + 2);
      g_assert_nonnull (strstr (markup, marked[i]));
      g_clear_pointer (&plain, g_free);
      g_clear_pointer (&markup, g_free);
    }

  /* A short text is shown whole, without "…". */
  first_snippet (f, "quick", &plain, &markup);
  g_assert_cmpstr (markup, ==, "The <b>quick</b> brown fox");
}

static void
test_snippet_from_highlight (void)
{
  struct
  {
    const char *highlighted;
    guint       n_words;
    const char *snippet;
  } cases[] = {
    /* SQLite marks a token; the snippet marks the word it is in. */
    { "an e-\002mail\003.", 16, "an \002e-mail\003." },
    { "\002don\003't", 16, "\002don't\003" },
    /* Two marks in a word make one. */
    { "\002a\003-\002b\003 c", 16, "\002a-b\003 c" },
    /* White space between the words kept, none added at the ends. */
    { "one\ntwo  \002three\003", 16, "one\ntwo  \002three\003" },
    /* Cut around the first match, a quarter of the words before it. */
    { "a b c d e f g h \002i\003 j k l m n o p", 4, "… h \002i\003 j k …" },
    { "\002a\003 b c d e", 2, "\002a\003 b …" },
    { "a b c d \002e\003", 2, "… d \002e\003" },
    /* Never more than 24 characters before the match, however few the
     * words: the match shows where a line is cut at its end. */
    { "Unfortunately, internationalisation considerations complicated \002geese\003 again", 16,
      "… complicated \002geese\003 again" },
    { "Extraordinarily \002long\003", 16, "Extraordinarily \002long\003" },
    /* Punctuation alone is a word, marked whole. */
    { "x \002--\003 y", 16, "x \002--\003 y" },
    /* An excerpt of a longer text says so at the ends it was cut. */
    { "\004a b \002c\003 d\004", 16, "… a b \002c\003 d …" },
    { "a \002b\003 c\004", 16, "a \002b\003 c …" },
    { "", 16, "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *snippet = natter_search_snippet_from_highlight (cases[i].highlighted, cases[i].n_words);

      g_assert_cmpstr (snippet, ==, cases[i].snippet);
    }
}

/* One 20 MB message, a common word in it 800,000 times and a rare one
 * near its end: the right hit, with the words around the first match,
 * for both. SQLite's highlight() took minutes on it (its cost grew with
 * the square of the matches); the test is bounded only by the suite's
 * timeout. */
static void
test_huge_message (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *other = natter_test_sessions_create (&f->t);
  g_autoptr(GString) huge = g_string_new ("Once upon a time ");
  g_autofree char *plain = NULL;
  g_autofree char *markup = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *hit = NULL;

  while (huge->len < 20000000)
    g_string_append (huge, "the cat sat on the mat. ");
  g_string_insert (huge, huge->len - 1000, "a pelicanneedle here ");
  t1 = exchange (f, sid, huge->str, "Noted.");
  t2 = exchange (f, other, "Nothing about cats", "Nor here.");
  hit = hit_line (sid, t1);
  start_search (f);
  wait_indexed (f);

  assert_search (f, "pelicanneedle", hit);
  first_snippet (f, "pelicanneedle", &plain, &markup);
  g_assert_cmpstr (plain, ==, "… mat. the cat a pelicanneedle here sat on the mat. the cat sat on the mat. …");
  g_assert_nonnull (strstr (markup, "a <b>pelicanneedle</b> here"));
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&markup, g_free);

  first_snippet (f, "cat", &plain, &markup);
  g_assert_cmpstr (markup, ==, "… upon a time the <b>cat</b> sat on the mat. the <b>cat</b> sat on the mat. the …");
  g_clear_pointer (&plain, g_free);
  plain = search (f, "cat");
  g_assert_true (g_str_has_prefix (plain, hit));
}

static gboolean
checked_is (NatterTestSessions *t,
            gconstpointer       data)
{
  Fixture *f = (Fixture *) t;
  guint n_checked = 0;

  natter_search_index_get_progress (f->search, &n_checked, NULL);
  return n_checked == GPOINTER_TO_UINT (data);
}

static guint
count_hits (Fixture    *f,
            const char *text)
{
  g_autofree char *found = search (f, text);
  guint n = 0;

  for (const char *p = found; *p != '\0'; p++)
    n += *p == '\n';
  return n;
}

/* A build says how far it has come, a committed batch at a time, and a
 * search meanwhile finds exactly what those batches hold. The worker
 * stops after each commit until the test lets it go on. */
static void
test_progress (Fixture       *f,
               gconstpointer  data)
{
  guint n_sessions = 0;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *sid = natter_test_sessions_create (&f->t);

      g_free (exchange (f, sid, "What is in the burrow?", "A wombat."));
    }

  f->search = natter_search_index_new (f->cache, f->t.w->session_repo, f->t.w->turn_repo, f->t.sessions);
  natter_search_index_pause_after_batches (f->search, 1);
  natter_search_index_start (f->search);
  natter_test_sessions_wait_until (&f->t, checked_is, GUINT_TO_POINTER (1));
  natter_search_index_get_progress (f->search, NULL, &n_sessions);
  g_assert_cmpuint (n_sessions, ==, 3);
  g_assert_true (natter_search_index_get_indexing (f->search));
  g_assert_cmpuint (count_hits (f, "wombat"), ==, 1);

  natter_search_index_resume (f->search, TRUE);
  natter_test_sessions_wait_until (&f->t, checked_is, GUINT_TO_POINTER (2));
  g_assert_cmpuint (count_hits (f, "wombat"), ==, 2);

  natter_search_index_resume (f->search, FALSE);
  wait_indexed (f);
  g_assert_true (checked_is (&f->t, GUINT_TO_POINTER (3)));
  g_assert_cmpuint (count_hits (f, "wombat"), ==, 3);
}

/* A build from nothing, its logs read on a second thread: the words of
 * a damaged session file and of a damaged turn file are not indexed,
 * those of every other turn are. */
static void
test_damaged_not_indexed (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *good = natter_test_sessions_create (&f->t);
  g_autofree char *bad_session = natter_test_sessions_create (&f->t);
  g_autofree char *bad_turn = natter_test_sessions_create (&f->t);
  g_autofree char *t1 = exchange (f, good, "Tell me of otters", "Otters hold hands.");
  g_autofree char *t2 = exchange (f, bad_session, "Tell me of otters", "Otters sleep afloat.");
  g_autofree char *t3 = exchange (f, bad_turn, "Tell me of otters", "Otters use stones.");
  g_autofree char *t4 = exchange (f, bad_turn, "And beavers?", "Beavers build dams.");
  g_autoptr(GFile) session_file = natter_jsonl_repo_get_file (f->t.w->session_repo, bad_session, NULL);
  g_autoptr(GFile) turn_file = natter_jsonl_repo_get_file (f->t.w->turn_repo, t3, NULL);
  g_autofree char *hit_good = hit_line (good, t1);
  g_autofree char *hit_beavers = hit_line (bad_turn, t4);

  /* Half an event: neither log reads whole. */
  natter_test_append_file (g_file_peek_path (session_file), "{\"type\":");
  natter_test_append_file (g_file_peek_path (turn_file), "{\"type\":");
  start_search (f);
  wait_indexed (f);
  assert_search (f, "otters", hit_good);
  assert_search (f, "beavers", hit_beavers);
  assert_search (f, "afloat", "");
  assert_search (f, "stones", "");
  (void) t2;
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
  ADD ("/search-index/query-syntax-is-words", test_query_syntax_is_words);
  ADD ("/search-index/snippets-keep-words-whole", test_snippets_keep_words_whole);
  ADD ("/search-index/huge-message", test_huge_message);
  g_test_add_func ("/search-index/snippet-from-highlight", test_snippet_from_highlight);
  ADD ("/search-index/write-through", test_write_through);
  ADD ("/search-index/corrupt-index-rebuilt", test_corrupt_index_rebuilt);
  ADD ("/search-index/old-layout-rebuilt", test_old_layout_rebuilt);
  ADD ("/search-index/ranked-as-bm25", test_ranked_as_bm25);
  ADD ("/search-index/cache-path-not-a-file", test_cache_path_not_a_file);
  ADD ("/search-index/stale-files-picked-up-at-start", test_stale_files_picked_up_at_start);
  ADD ("/search-index/progress", test_progress);
  ADD ("/search-index/damaged-not-indexed", test_damaged_not_indexed);
  ADD ("/search-index/capped", test_capped);

  return g_test_run ();
}
