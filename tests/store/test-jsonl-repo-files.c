/* test-jsonl-repo-files.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The files of a repository: listing ids across date partitions,
 * deleting one file only, the temporary files a crash left behind, and
 * which states of a log are this process's own writes.
 */

#include <fcntl.h>

#include "natter-jsonl-cursor.h"
#include "test-jsonl-repo.h"

void
test_list_ids_across_partitions (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *kind_dir = g_build_filename (f->storage_path, f->info->kind, NULL);
  g_autofree char *day_a = g_build_filename (kind_dir, "2026", "11", "30", NULL);
  g_autofree char *other_kind = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  /* A directory named like a log is listed: reading it reports it. */
  const char *expected[] = { ID_A, ID_B, "2026-11-30T09-14-03Z-0000005-000", ID_C, ID_D, NULL };

  /* No kind directory yet: an empty list, not an error. */
  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ids);
  g_assert_cmpuint (g_strv_length (ids), ==, 0);
  g_clear_pointer (&ids, g_strfreev);

  /* Created out of order, across three days, two months, two years. */
  create (f, ID_D);
  create (f, ID_B);
  create (f, ID_C);
  create (f, ID_A);

  /* Things that are not ids of this kind. */
  touch (day_a, "not-an-id.jsonl");
  touch (day_a, "README");
  touch (day_a, ID_C ".jsonl");               /* the wrong partition */
  touch (day_a, "." ID_A ".jsonl.tmp");
  touch (day_a, "2026-11-30T09-14-03Z-0000042-000.json");
  touch (kind_dir, ID_A ".jsonl");            /* not in a partition */
  {
    g_autofree char *odd = g_build_filename (kind_dir, "2026", "xx", "30", NULL);
    g_autofree char *short_year = g_build_filename (kind_dir, "226", "11", "30", NULL);
    g_autofree char *dir_named_like_id = g_build_filename (day_a, "2026-11-30T09-14-03Z-0000005-000.jsonl", NULL);

    touch (odd, "2026-11-30T09-14-03Z-0000009-000.jsonl");
    touch (short_year, "2026-11-30T09-14-03Z-0000009-000.jsonl");
    g_assert_cmpint (g_mkdir_with_parents (dir_named_like_id, 0700), ==, 0);
  }
  /* A stray file where a year directory would be. */
  touch (kind_dir, "2025");

  /* The other kind's files are not listed. */
  other_kind = g_build_filename (f->storage_path,
                                 strcmp (f->info->kind, "turns") == 0 ? "sessions" : "turns",
                                 "2026", "11", "30", NULL);
  touch (other_kind, "2026-11-30T09-14-03Z-0000003-000.jsonl");

  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (ids, expected);
  g_clear_pointer (&ids, g_strfreev);

  natter_jsonl_repo_list_ids_async (f->repo, NULL, store_result_cb, &result);
  wait_for_result (&result);
  ids = natter_jsonl_repo_list_ids_finish (f->repo, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (ids, expected);
}

/* docs/sessions.md §6.3: deletion removes only the file */

void
test_deletion_removes_only_the_file (Fixture       *f,
                                     gconstpointer  data)
{
  g_autoptr(NatterJsonlRepo) other = NULL;
  g_autofree char *a_path = path_of (f, ID_A);
  g_autofree char *b_path = path_of (f, ID_B);
  g_autofree char *a_dir = g_path_get_dirname (a_path);
  g_autofree char *b_before = NULL;
  g_autofree char *b_after = NULL;
  g_autofree char *other_before = NULL;
  g_autofree char *other_after = NULL;
  g_autofree char *other_path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GFile) other_file = NULL;
  g_auto(GStrv) ids = NULL;
  const char *other_kind = strcmp (f->info->kind, "turns") == 0 ? "sessions" : "turns";
  const KindInfo *other_info = strcmp (f->info->kind, "turns") == 0 ? &session_kind : &turn_kind;
  g_autofree char *other_line = created_line (other_info, ID_A);
  g_autoptr(JsonNode) other_event = natter_test_json (other_line);

  /* The other kind with the same id in the same partition, e.g. a turn
   * referenced by a session (docs/sessions.md §9.4: left as a harmless
   * orphan). */
  other = natter_jsonl_repo_new (f->storage, other_kind, other_info->created_type,
                                 other_info->test_validator);
  g_assert_true (natter_jsonl_repo_create_sync (other, ID_A, other_event, NULL, &error));
  g_assert_no_error (error);
  other_file = natter_jsonl_repo_get_file (other, ID_A, NULL);
  other_path = g_file_get_path (other_file);

  create (f, ID_A);
  create (f, ID_B);
  append_notes (f, ID_B, 2, "keep");
  b_before = file_bytes (b_path, NULL);
  other_before = file_bytes (other_path, NULL);

  g_assert_true (natter_jsonl_repo_delete_sync (f->repo, ID_A, NULL, &error));
  g_assert_no_error (error);

  g_assert_false (g_file_test (a_path, G_FILE_TEST_EXISTS));
  /* The partition stays, even if it were empty. */
  g_assert_true (g_file_test (a_dir, G_FILE_TEST_IS_DIR));
  b_after = file_bytes (b_path, NULL);
  g_assert_cmpstr (b_after, ==, b_before);
  other_after = file_bytes (other_path, NULL);
  g_assert_cmpstr (other_after, ==, other_before);

  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 1);
  g_assert_cmpstr (ids[0], ==, ID_B);

  /* Deleting again: NOT_FOUND, nothing else happens. */
  g_assert_false (natter_jsonl_repo_delete_sync (f->repo, ID_A, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* The async form, on the last one: the partition directory survives. */
  natter_jsonl_repo_delete_async (f->repo, ID_B, NULL, store_result_cb, &result);
  wait_for_result (&result);
  g_assert_true (natter_jsonl_repo_delete_finish (f->repo, result, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (b_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (a_dir, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (other_path, G_FILE_TEST_IS_REGULAR));

  wait_for_last_ref (other);
  g_assert_finalize_object (g_steal_pointer (&other));
}

/* A create killed before its link leaves `.<id>.jsonl.XXXXXX` alone; one
 * killed after the link leaves it as a second name of the live log. */
void
test_leftover_temp_files_removed (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *a_path = path_of (f, ID_A);
  g_autofree char *c_path = path_of (f, ID_C);
  g_autofree char *dir = g_path_get_dirname (a_path);
  g_autofree char *c_dir = g_path_get_dirname (c_path);
  g_autofree char *b_line = created_line (f->info, ID_B);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_auto(GStrv) ids = NULL;
  struct stat st;
  guint removed = 99;
  const char *removed_names[] = {
    "." ID_A ".jsonl.Ab12Cd",   /* a hard link to the live log */
    "." ID_B ".jsonl.xY34zW",   /* a first line never linked */
  };
  const char *kept_names[] = {
    "." ID_A ".jsonl.tmp",      /* not six characters */
    "." ID_A ".jsonl.ABCDEFG",
    "." ID_A ".jsonl.AB-DEF",   /* not what g_mkstemp() makes */
    "." ID_C ".jsonl.Zx78Cv",   /* not in its id's partition */
    ".not-an-id.jsonl.AAAAAA",
    "notes.txt",
  };
  g_autofree char *c_leftover = g_build_filename (c_dir, "." ID_C ".jsonl.Qw56Er", NULL);
  g_autofree char *dir_leftover = g_build_filename (dir, "." ID_B ".jsonl.Dir123", NULL);
  g_autofree char *symlink_leftover = g_build_filename (dir, "." ID_B ".jsonl.Lnk456", NULL);

  create (f, ID_A);
  append_notes (f, ID_A, 2, "kept");
  before = file_bytes (a_path, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (removed_names); i++)
    {
      g_autofree char *path = g_build_filename (dir, removed_names[i], NULL);

      if (i == 0)
        g_assert_cmpint (link (a_path, path), ==, 0);
      else
        {
          g_file_set_contents (path, b_line, -1, &error);
          g_assert_no_error (error);
        }
    }
  for (gsize i = 0; i < G_N_ELEMENTS (kept_names); i++)
    {
      g_autofree char *path = g_build_filename (dir, kept_names[i], NULL);

      g_file_set_contents (path, "x", -1, &error);
      g_assert_no_error (error);
    }
  g_assert_cmpint (g_mkdir_with_parents (c_dir, 0700), ==, 0);
  g_file_set_contents (c_leftover, "", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir (dir_leftover, 0700), ==, 0);
  g_assert_cmpint (symlink (a_path, symlink_leftover), ==, 0);
  g_assert_cmpint (stat (a_path, &st), ==, 0);
  g_assert_cmpuint (st.st_nlink, ==, 2);

  g_assert_true (natter_jsonl_repo_remove_leftover_temp_files_sync (f->repo, &removed, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (removed, ==, 3);

  for (gsize i = 0; i < G_N_ELEMENTS (removed_names); i++)
    {
      g_autofree char *path = g_build_filename (dir, removed_names[i], NULL);

      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    }
  g_assert_false (g_file_test (c_leftover, G_FILE_TEST_EXISTS));
  for (gsize i = 0; i < G_N_ELEMENTS (kept_names); i++)
    {
      g_autofree char *path = g_build_filename (dir, kept_names[i], NULL);

      g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    }
  g_assert_true (g_file_test (dir_leftover, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (symlink_leftover, G_FILE_TEST_IS_SYMLINK));

  /* The live log lost only its second name: every byte is there, it reads
   * and takes appends as before. */
  g_assert_cmpint (stat (a_path, &st), ==, 0);
  g_assert_cmpuint (st.st_nlink, ==, 1);
  after = file_bytes (a_path, NULL);
  g_assert_cmpstr (after, ==, before);
  events = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 3);
  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 1);
  g_assert_cmpstr (ids[0], ==, ID_A);
  append_notes (f, ID_A, 1, "after");

  /* Nothing left to do the second time; no storage at all is no error. */
  g_assert_true (natter_jsonl_repo_remove_leftover_temp_files_sync (f->repo, &removed, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (removed, ==, 0);
}

void
test_leftover_temp_files_without_storage (Fixture       *f,
                                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  guint removed = 99;

  g_assert_false (g_file_test (f->storage_path, G_FILE_TEST_EXISTS));
  g_assert_true (natter_jsonl_repo_remove_leftover_temp_files_sync (f->repo, &removed, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (removed, ==, 0);
}

/* natter-jsonl-seen.c: a log as this process's own write left it has
 * nothing new; whatever another writer did to it — appended before or
 * after ours, replaced it whole with the same bytes — has. */

static gboolean
seen_now (Fixture    *f,
          const char *id)
{
  NatterFileIdentity identity;

  g_assert_true (natter_jsonl_repo_identify (f->repo, id, &identity));
  return natter_jsonl_repo_is_seen (f->repo, id, &identity);
}

/* Another process's append: its own descriptor, O_APPEND. */
static void
append_elsewhere (Fixture    *f,
                  const char *id)
{
  g_autofree char *path = path_of (f, id);
  g_autofree char *line = note_line (f->info, id, "from elsewhere");
  g_autofree char *with_newline = g_strconcat (line, "\n", NULL);
  int fd = open (path, O_WRONLY | O_APPEND);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, with_newline, strlen (with_newline)), ==, (gssize) strlen (with_newline));
  g_assert_cmpint (close (fd), ==, 0);
}

void
test_own_writes_seen (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *beside = g_strconcat (path, ".incoming", NULL);
  g_autofree char *bytes = NULL;
  g_autoptr(GError) error = NULL;
  NatterFileIdentity identity;
  gsize length;

  /* Nothing is seen of a log never written or read here. */
  g_assert_true (natter_jsonl_repo_identify (f->repo, ID_A, &identity));
  g_assert_false (identity.exists);
  g_assert_false (natter_jsonl_repo_is_seen (f->repo, ID_A, &identity));

  /* Created and appended to here: nothing new. */
  create (f, ID_A);
  g_assert_true (seen_now (f, ID_A));
  append_notes (f, ID_A, 2, "here");
  g_assert_true (seen_now (f, ID_A));

  /* Another writer after ours: new. */
  append_elsewhere (f, ID_A);
  g_assert_false (seen_now (f, ID_A));
  /* Read (as the watch's reader marks it), then ours again: nothing new. */
  g_assert_true (natter_jsonl_repo_identify (f->repo, ID_A, &identity));
  natter_jsonl_repo_mark_seen (f->repo, ID_A, &identity);
  append_notes (f, ID_A, 1, "here");
  g_assert_true (seen_now (f, ID_A));

  /* Another writer just before ours, never read: our write leaves it new,
   * however soon it came. */
  append_elsewhere (f, ID_A);
  append_notes (f, ID_A, 1, "here");
  g_assert_false (seen_now (f, ID_A));
  g_assert_true (natter_jsonl_repo_identify (f->repo, ID_A, &identity));
  natter_jsonl_repo_mark_seen (f->repo, ID_A, &identity);

  /* A synchroniser replacing the file with the very same bytes: new. */
  bytes = file_bytes (path, &length);
  g_assert_true (g_file_set_contents (beside, bytes, (gssize) length, NULL));
  g_assert_cmpint (g_rename (beside, path), ==, 0);
  g_assert_false (seen_now (f, ID_A));

  /* A log this process did not begin with is new until read, also after
   * an append of its own. */
  g_clear_object (&f->repo);
  f->repo = natter_jsonl_repo_new (f->storage, f->info->kind, f->info->created_type, f->info->test_validator);
  append_notes (f, ID_A, 1, "here");
  g_assert_false (seen_now (f, ID_A));

  /* Deleted here: gone, and nothing left to read. */
  g_assert_true (natter_jsonl_repo_delete_sync (f->repo, ID_A, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (seen_now (f, ID_A));
}
