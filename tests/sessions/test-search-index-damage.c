/* test-search-index-damage.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A damaged index file, wherever the damage shows: garbage written over
 * it, the file cut short, a page of its words overwritten (so that only
 * the searches that read that page fail), each found at the next start
 * or while the index runs. However it is found (opening the file, a
 * search, a job of the worker), the file is thrown away and built again
 * from the logs, a search meanwhile says that indexing goes on rather
 * than fail, and what the searches find after is what a fresh build
 * finds. The logs are never touched.
 */

#include "test-search-index.h"

typedef enum
{
  DAMAGE_GARBAGE,    /* the whole file overwritten with bytes that are no database */
  DAMAGE_TRUNCATED,  /* the file cut to its first two pages */
  DAMAGE_PAGE,       /* one page of the words' text overwritten: only searches that find something fail */
  DAMAGE_TERMS,      /* the first page of the words' index overwritten */
} Damage;

/* The searches compared: words of messages and answers, prefixes short
 * enough for a prefix index and long enough to be sought among the
 * terms (temp.turn_terms), two words, a word nowhere. */
static const char * const queries[] = {
  "vesuvius", "volc", "glacier", "aletsch", "al", "otters hands", "beaver", "dam", "nowhere", NULL,
};

/* Three conversations of a few turns each. */
static void
fill (Fixture *f)
{
  g_autofree char *a = natter_test_sessions_create (&f->t);
  g_autofree char *b = natter_test_sessions_create (&f->t);
  g_autofree char *c = natter_test_sessions_create (&f->t);

  g_free (exchange (f, a, "Name a volcano", "Vesuvius, near Naples."));
  g_free (exchange (f, a, "Another volcano?", "Etna, a volcano of Sicily."));
  g_free (exchange (f, b, "Name a glacier", "The Aletsch, in the Alps."));
  g_free (exchange (f, b, "Which glacier is longest in the Alps?", "The Aletsch glacier again."));
  g_free (exchange (f, c, "About otters", "Otters hold hands when they sleep."));
  g_free (exchange (f, c, "About beavers", "Beavers build dams of wood."));
}

/* What @text finds, each hit a line of its session, turn and snippet;
 * when the search says that indexing goes on (the index is being built
 * again), once more after it is done. A search never fails here. */
static char *
search_through_rebuild (Fixture    *f,
                        const char *text,
                        gboolean   *out_rebuilt)
{
  g_autoptr(GPtrArray) hits = NULL;
  g_autoptr(GError) error = NULL;
  GString *out = g_string_new (NULL);
  gboolean still_indexing = FALSE;

  hits = natter_search_index_search_sync (f->search, text, 50, &still_indexing, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (hits);
  if (still_indexing)
    {
      if (out_rebuilt != NULL)
        *out_rebuilt = TRUE;
      wait_indexed (f);
      g_clear_pointer (&hits, g_ptr_array_unref);
      hits = natter_search_index_search_sync (f->search, text, 50, &still_indexing, NULL, &error);
      g_assert_no_error (error);
      g_assert_false (still_indexing);
    }
  for (guint i = 0; i < hits->len; i++)
    {
      NatterSearchHit *hit = g_ptr_array_index (hits, i);

      g_string_append_printf (out, "%s %s %s\n", hit->session_id, hit->turn_id, hit->snippet);
    }
  return g_string_free (out, FALSE);
}

/* What every query finds, "query:" before its hits. */
static char *
search_all (Fixture  *f,
            gboolean *out_rebuilt)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; queries[i] != NULL; i++)
    {
      g_autofree char *found = search_through_rebuild (f, queries[i], out_rebuilt);

      g_string_append_printf (out, "%s:\n%s", queries[i], found);
    }
  return g_string_free (out, FALSE);
}

/* Everything of the log in the file itself, the log emptied: what is
 * written over the file is then what every connection reads next. */
static void
checkpoint (const char *path)
{
  g_autofree char *result = natter_test_sqlite_query (path, "PRAGMA wal_checkpoint(TRUNCATE)");

  g_assert_cmpstr (result, ==, "0");
}

static void
write_at (const char *path,
          goffset     offset,
          const void *bytes,
          gsize       length,
          gboolean    truncate)
{
  int fd = open (path, O_WRONLY | (truncate ? O_TRUNC : 0));

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (pwrite (fd, bytes, length, offset), ==, (gssize) length);
  g_assert_cmpint (close (fd), ==, 0);
}

/* Damages the index file at @path in place, as another program writing
 * over it would (its inode stays; a running connection reads the new
 * bytes once its cache is out of date). */
static void
damage (const char *path,
        Damage      kind)
{
  g_autofree char *page_size = natter_test_sqlite_query (path, "PRAGMA page_size");
  g_autofree char *root = natter_test_sqlite_query (path, kind == DAMAGE_TERMS
                                            ? "SELECT rootpage FROM sqlite_master WHERE name = 'turn_text_data'"
                                            : "SELECT rootpage FROM sqlite_master WHERE name = 'turn_text_content'");
  gint64 size = atoi (page_size);
  char garbage[8192];
  GRand *rand = g_rand_new_with_seed (42);
  struct stat st;

  for (gsize i = 0; i < sizeof garbage; i++)
    garbage[i] = (char) g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);
  g_assert_cmpint (size, >=, 512);
  g_assert_cmpint (stat (path, &st), ==, 0);

  switch (kind)
    {
    case DAMAGE_GARBAGE:
      write_at (path, 0, garbage, sizeof garbage, TRUE);
      break;
    case DAMAGE_TRUNCATED:
      g_assert_cmpint (st.st_size, >, 2 * size);
      g_assert_cmpint (truncate (path, 2 * size), ==, 0);
      break;
    case DAMAGE_PAGE:
    case DAMAGE_TERMS:
      /* The table the hits' texts are read from: a search that finds
       * nothing does not read it. Or the one of the words' index. */
      g_assert_cmpint (atoi (root), >, 1);
      write_at (path, (atoi (root) - 1) * size, garbage, MIN ((gsize) size, sizeof garbage), FALSE);
      break;
    default:
      g_assert_not_reached ();
    }
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The logs, every file of `storage/` with its bytes: a rebuild reads
 * them and never touches them. */
static void
list_storage (GFile   *dir,
              GString *out)
{
  g_autoptr(GFileEnumerator) children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                                                   G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                                                   G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  if (children == NULL)
    return;
  for (;;)
    {
      GFileInfo *info = NULL;

      g_assert_true (g_file_enumerator_iterate (children, &info, NULL, NULL, NULL));
      if (info == NULL)
        break;
      g_ptr_array_add (names, g_strdup (g_file_info_get_name (info)));
    }
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      g_autoptr(GFile) child = g_file_get_child (dir, g_ptr_array_index (names, i));
      g_autofree char *path = g_file_get_path (child);
      g_autofree char *contents = NULL;
      gsize length = 0;

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          g_string_append_printf (out, "%s/\n", path);
          list_storage (child, out);
        }
      else
        {
          g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
          g_string_append_printf (out, "%s %" G_GSIZE_FORMAT " %u\n", path, length,
                                  g_str_hash (contents != NULL ? contents : ""));
        }
    }
}

static char *
storage_listing (Fixture *f)
{
  g_autoptr(GFile) storage = g_file_get_child (f->t.w->dir, "storage");
  GString *out = g_string_new (NULL);

  list_storage (storage, out);
  return g_string_free (out, FALSE);
}

static void
assert_file_whole (Fixture *f)
{
  g_autofree char *path = g_file_get_path (f->cache);
  g_autofree char *check = natter_test_sqlite_query (path, "PRAGMA integrity_check");

  g_assert_cmpstr (check, ==, "ok");
}

/* The index built, what it finds noted; the index closed, the file
 * damaged, the index started again: what it finds, once the damage is
 * found and the file built again, is what it found before. */
static void
damaged_while_closed (Fixture *f,
                      Damage   kind)
{
  g_autofree char *path = g_file_get_path (f->cache);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *fresh = NULL;
  g_autofree char *found = NULL;
  g_autofree char *logs = NULL;

  fill (f);
  start_search (f);
  wait_indexed (f);
  fresh = search_all (f, NULL);
  g_assert_nonnull (strstr (fresh, "Vesuvius"));
  g_clear_object (&f->search);
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  logs = storage_listing (f);

  damage (path, kind);
  start_search (f);
  wait_indexed (f);
  found = search_all (f, NULL);
  g_assert_cmpstr (found, ==, fresh);
  assert_file_whole (f);
  /* And again, with the file the rebuild left. */
  start_search (f);
  wait_indexed (f);
  g_clear_pointer (&found, g_free);
  found = search_all (f, NULL);
  g_assert_cmpstr (found, ==, fresh);
  {
    g_autofree char *logs_after = storage_listing (f);

    g_assert_cmpstr (logs_after, ==, logs);
  }
}

/* The same, the file damaged while the index runs, after it was
 * searched (its query connection open, the terms' table made). */
static void
damaged_while_running (Fixture *f,
                       Damage   kind)
{
  g_autofree char *path = g_file_get_path (f->cache);
  g_autofree char *fresh = NULL;
  g_autofree char *found = NULL;
  g_autofree char *logs = NULL;
  gboolean rebuilt = FALSE;

  fill (f);
  start_search (f);
  wait_indexed (f);
  fresh = search_all (f, NULL);
  g_assert_nonnull (strstr (fresh, "Vesuvius"));
  logs = storage_listing (f);

  checkpoint (path);
  damage (path, kind);
  found = search_all (f, &rebuilt);
  g_assert_true (rebuilt);
  g_assert_cmpstr (found, ==, fresh);
  wait_indexed (f);
  assert_file_whole (f);
  {
    g_autofree char *logs_after = storage_listing (f);

    g_assert_cmpstr (logs_after, ==, logs);
  }

  /* The index goes on from the file built again: a new turn is written
   * through and found, and a restart finds the same. */
  {
    g_autofree char *sid = natter_test_sessions_create (&f->t);
    g_autofree char *tid = exchange (f, sid, "Name a desert", "The Atacama.");
    g_autofree char *hit = hit_line (sid, tid);

    wait_indexed (f);
    assert_search (f, "atacama", hit);
    g_clear_pointer (&found, g_free);
    start_search (f);
    wait_indexed (f);
    assert_search (f, "atacama", hit);
  }
}

void
test_garbage_at_start (Fixture       *f,
                       gconstpointer  data)
{
  damaged_while_closed (f, DAMAGE_GARBAGE);
}

void
test_truncated_at_start (Fixture       *f,
                         gconstpointer  data)
{
  damaged_while_closed (f, DAMAGE_TRUNCATED);
}

void
test_page_damaged_at_start (Fixture       *f,
                            gconstpointer  data)
{
  damaged_while_closed (f, DAMAGE_PAGE);
}

void
test_garbage_while_running (Fixture       *f,
                            gconstpointer  data)
{
  damaged_while_running (f, DAMAGE_GARBAGE);
}

void
test_truncated_while_running (Fixture       *f,
                              gconstpointer  data)
{
  damaged_while_running (f, DAMAGE_TRUNCATED);
}

void
test_page_damaged_while_running (Fixture       *f,
                                 gconstpointer  data)
{
  damaged_while_running (f, DAMAGE_PAGE);
}

/* A page damaged while the index runs, found by the worker's own write
 * (a new turn written through) before any search: built again too. */
void
test_damage_found_by_worker (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *path = g_file_get_path (f->cache);
  g_autofree char *fresh = NULL;
  g_autofree char *found = NULL;
  g_autofree char *sid = NULL;
  g_autofree char *tid = NULL;
  g_autofree char *hit = NULL;

  fill (f);
  start_search (f);
  wait_indexed (f);
  checkpoint (path);
  damage (path, DAMAGE_GARBAGE);
  sid = natter_test_sessions_create (&f->t);
  tid = exchange (f, sid, "Name a desert", "The Atacama.");
  hit = hit_line (sid, tid);
  wait_indexed (f);
  assert_file_whole (f);
  assert_search (f, "atacama", hit);
  found = search_all (f, NULL);
  g_assert_nonnull (strstr (found, "Vesuvius"));

  /* What a fresh build of the same logs finds. */
  g_clear_object (&f->search);
  g_assert_cmpint (g_unlink (path), ==, 0);
  start_search (f);
  wait_indexed (f);
  fresh = search_all (f, NULL);
  g_assert_cmpstr (found, ==, fresh);
}

/* @hits as lines of their session and turn, and with @snippets, the
 * snippet; %NULL for no @hits. */
static char *
hit_lines (GPtrArray *hits,
           gboolean   snippets)
{
  GString *out;

  if (hits == NULL)
    return NULL;
  out = g_string_new (NULL);
  for (guint i = 0; i < hits->len; i++)
    {
      NatterSearchHit *hit = g_ptr_array_index (hits, i);

      g_string_append_printf (out, "%s %s%s%s\n", hit->session_id, hit->turn_id, snippets ? " " : "",
                              snippets ? hit->snippet : "");
    }
  return g_string_free (out, FALSE);
}

static char *
query_lines (NatterSearchDb  *db,
             const char      *text,
             GError         **error)
{
  g_autoptr(GPtrArray) hits = natter_search_db_query (db, text, 50, NATTER_SEARCH_MATCH_CAP, NULL, error);

  return hit_lines (hits, FALSE);
}

/* A connection whose first search found the words' index damaged:
 * the table of terms a prefix is sought in, made in that search's
 * transaction, went with it. Every later search on the connection makes
 * it again, and so says what is wrong (the file is damaged: rebuild it)
 * rather than that the table is missing. */
void
test_terms_table_made_again (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *path = g_file_get_path (f->cache);
  g_autofree char *before = NULL;
  g_autoptr(NatterSearchDb) db = NULL;
  g_autoptr(GError) error = NULL;

  fill (f);
  start_search (f);
  wait_indexed (f);
  g_clear_object (&f->search);

  db = natter_search_db_open (path, NATTER_SEARCH_DB_OPEN_QUERY, &error);
  g_assert_no_error (error);
  before = query_lines (db, "volca", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (before, !=, "");
  g_clear_pointer (&db, natter_search_db_close);

  damage (path, DAMAGE_TERMS);
  db = natter_search_db_open (path, NATTER_SEARCH_DB_OPEN_QUERY, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_null (query_lines (db, "volca", &error));
      g_assert_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_CORRUPT);
      g_clear_error (&error);
    }
}

/* What @index finds for @text, each hit a line of its session, turn and
 * snippet; %NULL with @error when the search fails. */
static char *
search_in (NatterSearchIndex  *index,
           const char         *text,
           GError            **error)
{
  g_autoptr(GPtrArray) hits = natter_search_index_search_sync (index, text, 50, NULL, NULL, error);

  return hit_lines (hits, TRUE);
}

/* The search index of a second process over the same data folder, one
 * that could not take the writer lock: its repositories refuse writes. */
static NatterSearchIndex *
reader_new (Fixture *f)
{
  g_autoptr(GFile) storage = g_file_get_child (f->t.w->dir, "storage");
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(GError) locked = g_error_new_literal (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED,
                                                  "Another Natter process is using this folder");

  natter_jsonl_repo_refuse_writes (sessions, locked);
  natter_jsonl_repo_refuse_writes (turns, locked);
  return natter_search_index_new (f->cache, sessions, turns, NULL);
}

/* Two processes find the same damaged file at once: the writer (the
 * fixture's index) and a reader beside it. Only the writer rebuilds it;
 * the reader never writes it, answers what the file holds or says that
 * it is damaged, and follows the writer's new file (a new inode) even
 * with its connection still open on the one removed. The file ends
 * whole; the reader makes no -wal or -shm beside a file the writer
 * closed, and no file where there is none. */
void
test_reader_beside_rebuild (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *path = g_file_get_path (f->cache);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);
  g_autoptr(NatterSearchIndex) reader = reader_new (f);
  g_autoptr(GAsyncResult) written = NULL;
  g_autoptr(GAsyncResult) read = NULL;
  g_autoptr(GPtrArray) writer_hits = NULL;
  g_autoptr(GPtrArray) reader_hits = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  gboolean still_indexing = FALSE;

  fill (f);
  start_search (f);
  wait_indexed (f);
  expected = search_in (f->search, "vesuvius", &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (expected, "Vesuvius"));

  /* The reader reads the writer's file, and starts no worker of its own. */
  natter_search_index_start (reader);
  g_assert_false (natter_search_index_get_started (reader));
  found = search_in (reader, "vesuvius", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, expected);
  g_clear_pointer (&found, g_free);

  /* Both search the damaged file at once. */
  checkpoint (path);
  damage (path, DAMAGE_PAGE);
  natter_search_index_search_async (f->search, "vesuvius", 50, NULL, natter_test_result_cb, &written);
  natter_search_index_search_async (reader, "vesuvius", 50, NULL, natter_test_result_cb, &read);
  natter_test_sessions_wait_result (&written);
  natter_test_sessions_wait_result (&read);
  writer_hits = natter_search_index_search_finish (f->search, written, &still_indexing, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (writer_hits);
  reader_hits = natter_search_index_search_finish (reader, read, NULL, NULL, &error);
  /* The reader found the damage, or the writer's new file not made or
   * not laid out yet, or read it whole or empty (one batch: no half of
   * it). */
  if (reader_hits == NULL)
    {
      if (!g_error_matches (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_MISSING))
        g_assert_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_CORRUPT);
      g_clear_error (&error);
    }
  else
    {
      guint n_expected = 0;

      for (const char *c = expected; *c != '\0'; c++)
        n_expected += *c == '\n';
      g_assert_true (reader_hits->len == 0 || reader_hits->len == n_expected);
    }
  wait_indexed (f);
  /* Nothing is built for the reader, or said to be. */
  g_assert_false (natter_search_index_get_indexing (reader));
  assert_file_whole (f);
  found = search_in (f->search, "vesuvius", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, expected);
  g_clear_pointer (&found, g_free);
  found = search_in (reader, "vesuvius", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, expected);
  g_clear_pointer (&found, g_free);

  /* The writer rebuilds again while the reader's connection is open on
   * the file it replaces; what it writes next is found by the reader. */
  checkpoint (path);
  damage (path, DAMAGE_PAGE);
  g_free (search_through_rebuild (f, "vesuvius", NULL));
  wait_indexed (f);
  {
    g_autofree char *sid = natter_test_sessions_create (&f->t);
    g_autofree char *tid = exchange (f, sid, "Name a desert", "The Atacama.");

    wait_indexed (f);
    found = search_in (reader, "atacama", &error);
    g_assert_no_error (error);
    g_assert_nonnull (strstr (found, tid));
    g_clear_pointer (&found, g_free);
  }
  assert_file_whole (f);

  /* The writer closes the file (its last connection folds the log in
   * and removes the -wal and -shm): the reader reads it as it is and
   * makes neither. */
  g_clear_object (&written);
  g_clear_object (&f->search);
  {
    g_autoptr(GDir) d = g_dir_open ("/proc/self/fd", 0, NULL);
    const char *n;
    while ((n = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *l = g_build_filename ("/proc/self/fd", n, NULL);
        g_autofree char *t = g_file_read_link (l, NULL);
        g_printerr ("DEBUG fd %s -> %s\n", n, t ? t : "?");
      }
  }
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (shm, G_FILE_TEST_EXISTS));
  found = search_in (reader, "vesuvius", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, expected);
  g_clear_pointer (&found, g_free);
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (shm, G_FILE_TEST_EXISTS));

  /* Without a file, the reader finds nothing, says the writer is still
   * to make it, and makes none. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  found = search_in (reader, "vesuvius", &error);
  g_assert_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_MISSING);
  g_assert_null (found);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (shm, G_FILE_TEST_EXISTS));
  g_clear_object (&read);
  g_assert_finalize_object (g_steal_pointer (&reader));
}

/* A reader's connection never makes the -wal SQLite opens beside a file
 * in WAL mode, even when it opens the file the way it opens it while
 * the writer has it open, and the writer has just closed it: the open
 * fails instead, and nothing is beside the file after it. */
void
test_reader_makes_no_wal (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *path = g_file_get_path (f->cache);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);
  g_autofree char *escaped = g_uri_escape_string (path, "/", FALSE);
  g_autofree char *uri = g_strdup_printf ("file:%s?mode=ro&readonly_shm=1", escaped);
  g_autoptr(NatterSearchDb) db = NULL;
  g_autoptr(GError) error = NULL;
  sqlite3 *handle = NULL;
  int rc;

  fill (f);
  start_search (f);
  wait_indexed (f);
  g_clear_object (&f->search);
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));

  /* The file alone: read as it is. */
  db = natter_search_db_open (path, NATTER_SEARCH_DB_OPEN_FOREIGN, &error);
  g_assert_no_error (error);
  g_assert_false (natter_search_db_get_shares_memory (db));
  g_clear_pointer (&db, natter_search_db_close);
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));

  /* Through the writer's shared memory, which has just gone. */
  rc = sqlite3_open_v2 (uri, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, "natter-foreign");
  if (rc == SQLITE_OK)
    rc = sqlite3_exec (handle, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
  g_assert_cmpint (rc, !=, SQLITE_OK);
  sqlite3_close (handle);
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (shm, G_FILE_TEST_EXISTS));
}
