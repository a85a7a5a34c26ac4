/* test-session-index-cache.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The persisted index cache of docs/sessions.md §8.4
 * (natter-session-index-cache.c, docs/format.md §1): a session whose files
 * have not changed comes from the cache without being read; anything
 * else — no cache, a stale one (size, mtime, change time, the latest
 * turn file), an invalid one (truncated, garbage, another version, one
 * flipped byte), a change another process made while this one was
 * closed, a new, deleted or damaged session, sessions of other days —
 * is read, so the index is
 * always the one a scan without any cache gives (a version's and an
 * imported turn's marks included), and a damaged conversation never
 * looks whole.
 */

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "natter-import-report.h"
#include "natter-session-index-cache.h"
#include "natter-sessions-settings.h"
#include "natter-test-sessions.h"

typedef struct
{
  NatterTestSessions t;
  GFile             *cache;
  GPtrArray         *ids;    /* the sessions made by set-up */
} Fixture;

static void
import_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Imports a conversation made elsewhere (docs/format.md §7.1); returns
 * its id. */
static char *
import_shared (Fixture *f)
{
  NatterTestShared shared = { .provider = "elsewhere", .model = "m1" };
  g_autofree char *text = natter_test_shared_archive (&shared);
  g_autoptr(GFile) file = g_file_get_child (f->t.w->dir, "shared.json");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterImportReport) report = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_replace_contents (file, text, strlen (text), NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL,
                                          &error));
  g_assert_no_error (error);
  natter_sessions_import_async (f->t.sessions, file, NULL, NULL, import_cb, &result);
  report = natter_sessions_import_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (report->session_ids->len, ==, 1);
  return g_strdup (g_ptr_array_index (report->session_ids, 0));
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  natter_test_sessions_set_up (&f->t, data);
  f->cache = g_file_resolve_relative_path (f->t.w->dir, "cache/session-index");
  f->ids = g_ptr_array_new_with_free_func (g_free);

  /* Sessions of every kind the index shows: empty, titled, with
   * completed and failed turns, and one whose latest turn is idle. */
  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_STEP_ERROR,
                               NATTER_FAKE_TEXT_STEP, NULL);
  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *title = g_strdup_printf ("Conversation “%u”", i);
      char *id = natter_test_sessions_create_titled (&f->t, i % 2 == 0 ? title : NULL);

      g_ptr_array_add (f->ids, id);
      if (i >= 2 && i <= 4)
        g_free (natter_test_sessions_send_and_wait (&f->t, id, "Hello"));
    }
  g_free (natter_test_sessions_send_and_wait (&f->t, g_ptr_array_index (f->ids, 2), "Again"));
  /* A conversation that keeps generation parameters (docs/format.md
   * §3.5): the cache keeps them with its entry. */
  {
    g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GError) error = NULL;

    parameters->has_temperature = TRUE;
    parameters->temperature = 0.5;
    natter_generation_parameters_set_system_instruction (parameters, "Short answers.");
    natter_sessions_set_parameters_async (f->t.sessions, g_ptr_array_index (f->ids, 3), parameters, NULL,
                                          natter_test_result_cb, &result);
    g_assert_true (natter_sessions_set_parameters_finish (f->t.sessions, natter_test_sessions_wait_result (&result),
                                                          &error));
    g_assert_no_error (error);
  }
  /* A pinned conversation and one in a folder (docs/format.md §3.6): the
   * cache keeps both with their entries. */
  {
    g_autoptr(GAsyncResult) pinned = NULL;
    g_autoptr(GAsyncResult) moved = NULL;
    g_autoptr(GError) error = NULL;

    natter_sessions_set_pinned_async (f->t.sessions, g_ptr_array_index (f->ids, 1), TRUE, NULL,
                                      natter_test_result_cb, &pinned);
    g_assert_true (natter_sessions_set_pinned_finish (f->t.sessions, natter_test_sessions_wait_result (&pinned),
                                                      &error));
    g_assert_no_error (error);
    natter_sessions_set_folder_async (f->t.sessions, g_ptr_array_index (f->ids, 3),
                                      "2026-11-30T09-14-03Z-0000099-000", NULL, natter_test_result_cb, &moved);
    g_assert_true (natter_sessions_set_folder_finish (f->t.sessions, natter_test_sessions_wait_result (&moved),
                                                      &error));
    g_assert_no_error (error);
  }

  /* The entries' marks: a version (an edit, made under its parent's
   * title) and a conversation whose latest turn was imported. */
  g_ptr_array_add (f->ids, natter_test_store_session (f->t.w->dir, "Conversation “0”", g_ptr_array_index (f->ids, 0), NULL));
  g_ptr_array_add (f->ids, import_shared (f));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->cache);
  g_clear_pointer (&f->ids, g_ptr_array_unref);
  natter_test_sessions_tear_down (&f->t, data);
}

static const char *
id_at (Fixture *f,
       guint    i)
{
  return g_ptr_array_index (f->ids, i);
}

static char *
session_path (Fixture    *f,
              const char *id)
{
  return natter_jsonl_repo_dup_path (f->t.w->session_repo, id, NULL);
}

static char *
latest_turn_path (Fixture    *f,
                  const char *id)
{
  g_autoptr(NatterSessionIndexEntry) entry = natter_session_index_fold_one_sync (f->t.w->session_repo,
                                                                                  f->t.w->turn_repo, id, NULL);

  g_assert_nonnull (natter_session_index_entry_get_latest_turn_id (entry));
  return natter_jsonl_repo_dup_path (f->t.w->turn_repo, natter_session_index_entry_get_latest_turn_id (entry),
                                     NULL);
}

/* A startup scan with the cache: checks that its entries are exactly a
 * scan's without any cache, and returns how many sessions it read. */
static guint
scan (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) cached = NULL;
  g_autoptr(GPtrArray) reference = NULL;
  guint n_read = G_MAXUINT;

  cached = natter_session_index_scan_cached_sync (f->t.w->session_repo, f->t.w->turn_repo, f->cache, 0, FALSE, &n_read,
                                                  NULL, &error);
  g_assert_no_error (error);
  reference = natter_session_index_scan_sync (f->t.w->session_repo, f->t.w->turn_repo, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cached->len, ==, reference->len);
  for (guint i = 0; i < cached->len; i++)
    {
      NatterSessionIndexEntry *a = g_ptr_array_index (cached, i);
      NatterSessionIndexEntry *b = g_ptr_array_index (reference, i);

      if (!natter_session_index_entry_equal (a, b))
        {
          g_autoptr(JsonNode) ja = natter_session_index_entry_to_json (a);
          g_autoptr(JsonNode) jb = natter_session_index_entry_to_json (b);
          g_autofree char *expected = json_to_string (jb, FALSE);

          natter_test_assert_json_equal (ja, expected);
          g_assert_not_reached ();
        }
    }
  return n_read;
}

static NatterSessionIndexEntry *
fold (Fixture    *f,
      const char *id)
{
  return natter_session_index_fold_one_sync (f->t.w->session_repo, f->t.w->turn_repo, id, NULL);
}

/* Sets @path's mtime @seconds later than it is. */
static void
shift_mtime (const char *path,
             int         seconds)
{
  struct stat info;
  struct timespec times[2];

  g_assert_cmpint (stat (path, &info), ==, 0);
  times[0] = info.st_atim;
  times[1] = info.st_mtim;
  times[1].tv_sec += seconds;
  g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
}

static void
test_missing_then_warm (Fixture       *f,
                        gconstpointer  data)
{
  struct stat info;

  g_assert_false (g_file_query_exists (f->cache, NULL));
  g_assert_cmpuint (scan (f), ==, f->ids->len);
  g_assert_cmpint (stat (g_file_peek_path (f->cache), &info), ==, 0);
  g_assert_cmpint (info.st_mode & 0777, ==, 0600);
  /* Nothing changed: nothing is read. */
  g_assert_cmpuint (scan (f), ==, 0);
  g_assert_cmpuint (scan (f), ==, 0);

  /* The marks come from the cache too (scan() compares every entry
   * with a scan without the cache; here they are known to be set). */
  {
    g_autoptr(GError) error = NULL;
    guint n_read = G_MAXUINT;
    g_autoptr(GPtrArray) cached = natter_session_index_scan_cached_sync (f->t.w->session_repo, f->t.w->turn_repo,
                                                                         f->cache, 0, FALSE, &n_read, NULL, &error);
    guint n_versions = 0, n_imported = 0;

    g_assert_no_error (error);
    g_assert_cmpuint (n_read, ==, 0);
    for (guint i = 0; i < cached->len; i++)
      {
        n_versions += natter_session_index_entry_get_is_version (g_ptr_array_index (cached, i));
        n_imported += natter_session_index_entry_get_latest_turn_imported (g_ptr_array_index (cached, i));
      }
    g_assert_cmpuint (n_versions, ==, 1);
    g_assert_cmpuint (n_imported, ==, 1);
  }
}

/* A session file that grew, or whose mtime moved, is read again. */
static void
test_stale_by_size_and_mtime (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *grown = session_path (f, id_at (f, 1));
  g_autofree char *touched = session_path (f, id_at (f, 3));
  g_autofree char *line = g_strdup_printf ("{\"type\":\"title_changed\",\"sessionId\":\"%s\","
                                           "\"ts\":\"2026-12-01T10:00:00Z\",\"title\":\"Renamed elsewhere\"}\n",
                                           id_at (f, 1));
  g_autoptr(NatterSessionIndexEntry) renamed = NULL;

  g_assert_cmpuint (scan (f), ==, f->ids->len);
  natter_test_append_file (grown, line);
  g_assert_cmpuint (scan (f), ==, 1);
  renamed = fold (f, id_at (f, 1));
  g_assert_cmpstr (natter_session_index_entry_get_title (renamed), ==, "Renamed elsewhere");
  g_assert_cmpuint (scan (f), ==, 0);

  shift_mtime (touched, 7);
  g_assert_cmpuint (scan (f), ==, 1);
  g_assert_cmpuint (scan (f), ==, 0);
}

/* A byte rewritten in place, same size, the mtime set back: the change
 * time, which cannot be set back, still says the file changed, and the
 * damage is seen. */
static void
test_damage_with_the_same_size_and_mtime (Fixture       *f,
                                          gconstpointer  data)
{
  g_autofree char *path = session_path (f, id_at (f, 2));
  g_autoptr(NatterSessionIndexEntry) entry = NULL;
  struct stat before;
  struct timespec times[2];
  int fd;

  g_assert_cmpuint (scan (f), ==, f->ids->len);
  g_assert_cmpint (stat (path, &before), ==, 0);
  fd = open (path, O_WRONLY);
  g_assert_cmpint (fd, >=, 0);
  /* The first line's opening brace. */
  g_assert_cmpint (pwrite (fd, "#", 1, 0), ==, 1);
  close (fd);
  times[0] = before.st_atim;
  times[1] = before.st_mtim;
  g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);

  g_assert_cmpuint (scan (f), ==, 1);
  entry = fold (f, id_at (f, 2));
  g_assert_nonnull (natter_session_index_entry_get_error (entry));
  /* Damaged, and known so from the cache too. */
  g_assert_cmpuint (scan (f), ==, 0);
}

/* The latest turn file changed (damaged here) while the session file did
 * not: the session is read again and shows the damage. */
static void
test_stale_latest_turn (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *turn = latest_turn_path (f, id_at (f, 3));
  g_autoptr(NatterSessionIndexEntry) entry = NULL;

  g_assert_cmpuint (scan (f), ==, f->ids->len);
  natter_test_append_file (turn, "{\"type\":\"turn_");
  g_assert_cmpuint (scan (f), ==, 1);
  entry = fold (f, id_at (f, 3));
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), "Latest turn"));
  g_assert_cmpuint (scan (f), ==, 0);

  /* Gone altogether: a dangling reference, seen as such. */
  g_assert_cmpint (g_unlink (turn), ==, 0);
  g_assert_cmpuint (scan (f), ==, 1);
  g_clear_object (&entry);
  entry = fold (f, id_at (f, 3));
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), "damaged"));
  g_assert_cmpuint (scan (f), ==, 0);
}

/* A cache that cannot be trusted whole is not used at all, and the next
 * scan writes a good one. */
static void
test_invalid_cache (Fixture       *f,
                    gconstpointer  data)
{
  const char *path = g_file_peek_path (f->cache);
  g_autofree char *good = NULL;
  gsize length;

  g_assert_cmpuint (scan (f), ==, f->ids->len);
  g_assert_true (g_file_get_contents (path, &good, &length, NULL));
  g_assert_cmpuint (length, >, 64);

  for (guint damage = 0; damage < 7; damage++)
    {
      g_autofree char *bad = g_memdup2 (good, length);
      gsize bad_length = length;

      switch (damage)
        {
        case 0: bad_length = length / 2; break;             /* truncated */
        case 1: bad_length = 20; break;                     /* cut inside the header */
        case 2: bad_length = 0; break;                      /* empty */
        case 3: bad[13]++; break;                           /* another format version */
        case 4: bad[length - 5] ^= 0x20; break;             /* one flipped byte in the records */
        case 5: bad[20] ^= 0x01; break;                     /* one flipped byte in the digest */
        default:
          for (gsize i = 0; i < length; i++)                /* garbage */
            bad[i] = (char) (i * 131 + 7);
          break;
        }
      g_assert_true (g_file_set_contents (path, bad, bad_length, NULL));
      g_assert_cmpuint (scan (f), ==, f->ids->len);
      g_assert_cmpuint (scan (f), ==, 0);
    }
}

/* Another process (here the fixture's service, over the same files)
 * changes sessions while this one is closed: the next start sees it. */
static void
test_another_process_while_closed (Fixture       *f,
                                   gconstpointer  data)
{
  g_autoptr(NatterSessionIndexEntry) entry = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  guint turns;

  g_assert_cmpuint (scan (f), ==, f->ids->len);
  entry = fold (f, id_at (f, 4));
  turns = natter_session_index_entry_get_turn_count (entry);

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NULL);
  g_free (natter_test_sessions_send_and_wait (&f->t, id_at (f, 4), "Meanwhile"));
  natter_sessions_set_title_async (f->t.sessions, id_at (f, 5), "Named meanwhile", NULL, natter_test_result_cb,
                                   &result);
  g_assert_true (natter_sessions_set_title_finish (f->t.sessions, natter_test_sessions_wait_result (&result),
                                                   &error));
  g_assert_no_error (error);

  g_assert_cmpuint (scan (f), ==, 2);
  g_clear_object (&entry);
  entry = fold (f, id_at (f, 4));
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, turns + 1);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "completed");
  g_assert_cmpuint (scan (f), ==, 0);
}

/* A new session is read and listed; a deleted one leaves the list and the
 * cache. */
static void
test_new_and_deleted_sessions (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *created = NULL;
  g_autofree char *deleted = session_path (f, id_at (f, 0));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  guint n_read;

  g_assert_cmpuint (scan (f), ==, f->ids->len);
  created = natter_test_sessions_create_titled (&f->t, "Brand new");
  g_assert_cmpuint (scan (f), ==, 1);

  g_assert_cmpint (g_unlink (deleted), ==, 0);
  g_assert_cmpuint (scan (f), ==, 0);
  entries = natter_session_index_scan_cached_sync (f->t.w->session_repo, f->t.w->turn_repo, f->cache, 0, FALSE, &n_read,
                                                   NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_read, ==, 0);
  g_assert_cmpuint (entries->len, ==, f->ids->len);
  for (guint i = 0; i < entries->len; i++)
    g_assert_cmpstr (natter_session_index_entry_get_session_id (g_ptr_array_index (entries, i)), !=, id_at (f, 0));
}

/* A damaged session file is shown damaged, from the cache as well; once
 * it is readable again it is read again. */
static void
test_damaged_session (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *path = session_path (f, id_at (f, 4));
  g_autofree char *whole = NULL;
  g_autoptr(NatterSessionIndexEntry) entry = NULL;
  gsize length;

  g_assert_cmpuint (scan (f), ==, f->ids->len);
  g_assert_true (g_file_get_contents (path, &whole, &length, NULL));
  natter_test_append_file (path, "not json\n");
  g_assert_cmpuint (scan (f), ==, 1);
  entry = fold (f, id_at (f, 4));
  g_assert_nonnull (natter_session_index_entry_get_error (entry));
  g_assert_cmpuint (scan (f), ==, 0);

  g_assert_true (g_file_set_contents (path, whole, length, NULL));
  g_assert_cmpuint (scan (f), ==, 1);
  g_clear_object (&entry);
  entry = fold (f, id_at (f, 4));
  g_assert_null (natter_session_index_entry_get_error (entry));
}

/* A copy of session @i under @id, whose day puts it in another partition
 * directory (docs/format.md §1); its turns stay where they are. */
static void
copy_to_day (Fixture    *f,
             guint       i,
             const char *id)
{
  g_autofree char *from = session_path (f, id_at (f, i));
  g_autofree char *to = session_path (f, id);
  g_autofree char *dir = g_path_get_dirname (to);
  g_autofree char *text = NULL;
  g_auto(GStrv) parts = NULL;
  g_autofree char *copy = NULL;

  g_assert_true (g_file_get_contents (from, &text, NULL, NULL));
  parts = g_strsplit (text, id_at (f, i), -1);
  copy = g_strjoinv (id, parts);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (to, copy, -1, NULL));
}

/* The scan reaches the files by name in their day's directory, which it
 * keeps open from one id to the next (natter-jsonl-cursor.c): sessions
 * of other days, before and after the rest, and latest turns of another
 * day than their session's, are read, changed ones read again, and a
 * day whose directory went away takes its sessions with it. */
static void
test_other_days (Fixture       *f,
                 gconstpointer  data)
{
  const char *earlier = "2019-05-06T10-00-00Z-0000001-000";
  const char *later = "2031-07-08T10-00-00Z-0000001-000";
  g_autofree char *earlier_path = session_path (f, earlier);
  g_autofree char *later_path = session_path (f, later);
  g_autofree char *later_day = g_path_get_dirname (later_path);
  g_autofree char *later_day_moved = g_strconcat (later_day, ".moved", NULL);
  g_autofree char *line = g_strdup_printf ("{\"type\":\"title_changed\",\"sessionId\":\"%s\","
                                           "\"ts\":\"2026-12-01T10:00:00Z\",\"title\":\"Renamed elsewhere\"}\n",
                                           earlier);
  g_autoptr(NatterSessionIndexEntry) entry = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;
  guint n_read;

  g_assert_cmpuint (scan (f), ==, f->ids->len);
  copy_to_day (f, 2, earlier);
  copy_to_day (f, 4, later);
  g_assert_cmpuint (scan (f), ==, 2);
  entry = fold (f, earlier);
  g_assert_null (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "completed");
  g_assert_cmpuint (scan (f), ==, 0);

  natter_test_append_file (earlier_path, line);
  g_assert_cmpuint (scan (f), ==, 1);
  g_clear_object (&entry);
  entry = fold (f, earlier);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "Renamed elsewhere");
  g_assert_cmpuint (scan (f), ==, 0);

  g_assert_cmpint (g_rename (later_day, later_day_moved), ==, 0);
  entries = natter_session_index_scan_cached_sync (f->t.w->session_repo, f->t.w->turn_repo, f->cache, 0, FALSE, &n_read,
                                                   NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_read, ==, 0);
  g_assert_cmpuint (entries->len, ==, f->ids->len + 1);
  g_assert_cmpuint (scan (f), ==, 0);
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_session_index_load_finish (NATTER_SESSION_INDEX (object), result, &error));
  g_assert_no_error (error);
  *(gboolean *) user_data = TRUE;
}

static gboolean
flag_set (NatterTestSessions *t,
          gconstpointer       data)
{
  return *(const gboolean *) data;
}

/* The index the services load keeps its cache beside the search cache,
 * and a load from the cache gives the same list. */
static void
test_index_load (Fixture       *f,
                 gconstpointer  data)
{
  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(NatterSessionIndex) index = natter_session_index_new ();
      gboolean loaded = FALSE;

      natter_session_index_set_cache_file (index, f->cache);
      natter_session_index_load_async (index, f->t.w->session_repo, f->t.w->turn_repo, NULL, loaded_cb, &loaded);
      natter_test_sessions_wait_until (&f->t, flag_set, &loaded);
      g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (index)), ==, f->ids->len);
      for (guint i = 0; i < f->ids->len; i++)
        {
          g_autoptr(NatterSessionIndexEntry) expected = fold (f, id_at (f, i));

          g_assert_true (natter_session_index_entry_equal (natter_session_index_lookup (index, id_at (f, i)),
                                                           expected));
        }
      g_assert_true (g_file_query_exists (f->cache, NULL));
    }
  g_assert_cmpuint (scan (f), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add ("/session-index-cache/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("missing-then-warm", test_missing_then_warm);
  ADD ("stale-by-size-and-mtime", test_stale_by_size_and_mtime);
  ADD ("damage-with-the-same-size-and-mtime", test_damage_with_the_same_size_and_mtime);
  ADD ("stale-latest-turn", test_stale_latest_turn);
  ADD ("invalid-cache", test_invalid_cache);
  ADD ("another-process-while-closed", test_another_process_while_closed);
  ADD ("new-and-deleted-sessions", test_new_and_deleted_sessions);
  ADD ("damaged-session", test_damaged_session);
  ADD ("other-days", test_other_days);
  ADD ("index-load", test_index_load);
#undef ADD
  return g_test_run ();
}
