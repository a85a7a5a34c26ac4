/* test-search-index-cache.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The index's cache file, checked at start: stale files read, unchanged
 * ones not, a damaged file or one of an older layout rebuilt; an empty
 * folder where the file belongs replaced, anything else there left alone
 * and said; the file private to its user.
 */

#include "test-search-index.h"

void
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
void
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
void
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

void
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
