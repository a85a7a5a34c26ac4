/* test-jsonl-repo.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The JSONL repository of turns and sessions: the scenarios of
 * docs/sessions.md §6.3 for both kinds, the storage rules of
 * docs/runtime.md §2 and pitfalls.md 1–3.
 *
 * Most tests use small test validators (type, owner id, ts,
 * schemaVersion), so they pin the repo's own behaviour whatever the real
 * schemas accept. The "/real-validator" variants run the same corruption
 * cases through natter_turn_repo_new() / natter_session_repo_new().
 *
 * This file holds the paths and ids, creating and appending, and the
 * registration of every test for both kinds of log; reading, the files of a
 * repository and concurrency have files of their own.
 */

#include "test-jsonl-repo.h"

/* docs/sessions.md §6.3: date-partitioned paths */

static void
test_date_partitioned_paths (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *expected = g_build_filename (f->storage_path, f->info->kind,
                                                "2026", "11", "30", ID_A ".jsonl", NULL);
  g_autofree char *kind_dir = g_build_filename (f->storage_path, f->info->kind, NULL);
  g_autofree char *year_dir = g_build_filename (kind_dir, "2026", NULL);
  g_autofree char *month_dir = g_build_filename (year_dir, "11", NULL);
  g_autofree char *day_dir = g_build_filename (month_dir, "30", NULL);
  g_autofree char *other = NULL;
  mode_t old_umask;

  g_assert_cmpstr (path, ==, expected);
  /* get_file touches nothing. */
  g_assert_false (g_file_test (f->storage_path, G_FILE_TEST_EXISTS));

  /* Modes are enforced whatever the umask. */
  old_umask = umask (0);
  create (f, ID_A);
  umask (old_umask);

  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint (mode_of (path), ==, 0600);
  g_assert_cmpuint (mode_of (day_dir), ==, 0700);
  g_assert_cmpuint (mode_of (month_dir), ==, 0700);
  g_assert_cmpuint (mode_of (year_dir), ==, 0700);
  g_assert_cmpuint (mode_of (kind_dir), ==, 0700);
  g_assert_cmpuint (mode_of (f->storage_path), ==, 0700);

  old_umask = umask (0077);
  create (f, ID_D);
  umask (old_umask);
  other = path_of (f, ID_D);
  g_assert_true (g_str_has_suffix (other, "/2027/01/05/" ID_D ".jsonl"));
  g_assert_cmpuint (mode_of (other), ==, 0600);
}

/* docs/sessions.md §6.3: id validation (the full list is in test-id.c) */

static void
test_id_validation (Fixture       *f,
                    gconstpointer  data)
{
  const char *bad[] = {
    "../../etc/passwd", "/etc/passwd", "2026-13-45T09-14-03Z-0000042-000",
    "2026-02-30T09-14-03Z-0000042-000", "2026-11-30T24-14-03Z-0000042-000", "",
  };
  g_autofree char *line = created_line (f->info, ID_A);
  g_autoptr(JsonNode) event = natter_test_json (line);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GPtrArray) events = natter_test_json_array ("{}", NULL);
      NatterLockGuard *guard;

      g_assert_false (natter_jsonl_repo_create_sync (f->repo, bad[i], event, NULL, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);

      /* Even an empty append refuses a bad id. */
      g_ptr_array_set_size (events, 0);
      g_assert_false (natter_jsonl_repo_append_sync (f->repo, bad[i], events, NULL, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);

      natter_jsonl_repo_create_async (f->repo, bad[i], event, NULL, store_result_cb, &result);
      wait_for_result (&result);
      g_assert_false (natter_jsonl_repo_create_finish (f->repo, result, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);
      g_clear_object (&result);

      natter_jsonl_repo_read_async (f->repo, bad[i], NULL, store_result_cb, &result);
      wait_for_result (&result);
      g_assert_null (natter_jsonl_repo_read_finish (f->repo, result, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);
      g_clear_object (&result);

      natter_jsonl_repo_delete_async (f->repo, bad[i], NULL, store_result_cb, &result);
      wait_for_result (&result);
      g_assert_false (natter_jsonl_repo_delete_finish (f->repo, result, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);
      g_clear_object (&result);

      natter_jsonl_repo_lock_async (f->repo, bad[i], NULL, store_result_cb, &result);
      wait_for_result (&result);
      guard = natter_jsonl_repo_lock_finish (f->repo, result, &error);
      g_assert_null (guard);
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);
    }

  g_assert_false (g_file_test (f->storage_path, G_FILE_TEST_EXISTS));
}

static void
test_create_if_absent (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *created = created_line (f->info, ID_A);
  g_autofree char *expected = g_strconcat (created, "\n", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *other_line = NULL;
  g_autofree char *wrong_owner = NULL;
  g_autofree char *version_3 = NULL;
  g_autofree char *b_path = path_of (f, ID_B);
  g_autoptr(JsonNode) nan_event = NULL;
  g_autoptr(GError) error = NULL;

  create (f, ID_A);
  before = file_bytes (path, NULL);
  g_assert_cmpstr (before, ==, expected);

  /* A second create fails and leaves the file alone. */
  other_line = created_line (f->info, ID_A);
  assert_create_fails (f, ID_A, other_line, NATTER_STORE_ERROR_EXISTS);
  after = file_bytes (path, NULL);
  g_assert_cmpstr (after, ==, before);

  /* The first event must be a valid created event; nothing is written
   * otherwise, not even a directory's worth of file. */
  wrong_owner = created_line (f->info, ID_A);
  assert_create_fails (f, ID_B, wrong_owner, NATTER_STORE_ERROR_SCHEMA);
  {
    g_autofree char *note = note_line (f->info, ID_B, "x");

    assert_create_fails (f, ID_B, note, NATTER_STORE_ERROR_SCHEMA);
  }
  assert_create_fails (f, ID_B, "[1,2]", NATTER_STORE_ERROR_SCHEMA);
  version_3 = g_strdup_printf ("{\"type\":\"%s\",\"%s\":\"%s\",\"ts\":\"" TS "\",\"schemaVersion\":9}",
                               f->info->created_type, f->info->owner_member, ID_B);
  assert_create_fails (f, ID_B, version_3, NATTER_STORE_ERROR_UNSUPPORTED_VERSION);

  /* Not lossless: a NaN can only come from a program, not a literal. */
  {
    g_autofree char *line = created_line (f->info, ID_B);

    nan_event = natter_test_json (line);
    json_object_set_double_member (json_node_get_object (nan_event), "n", NAN);
    g_assert_false (natter_jsonl_repo_create_sync (f->repo, ID_B, nan_event, NULL, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS);
  }

  g_assert_false (g_file_test (b_path, G_FILE_TEST_EXISTS));
}

/* Appends */

static void
test_append_complete_lines (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;

  create (f, ID_A);
  append_notes (f, ID_A, 3, "one");
  append_notes (f, ID_A, 1, "two");

  {
    g_autofree char *created = created_line (f->info, ID_A);
    g_autofree char *one = note_line (f->info, ID_A, "one");
    g_autofree char *two = note_line (f->info, ID_A, "two");

    g_string_append_printf (expected, "%s\n%s\n%s\n%s\n%s\n", created, one, one, one, two);
  }

  contents = file_bytes (path, NULL);
  g_assert_cmpstr (contents, ==, expected->str);

  /* An empty batch is a no-op success. */
  g_assert_true (natter_jsonl_repo_append_sync (f->repo, ID_A, empty, NULL, &error));
  g_assert_no_error (error);
  g_free (contents);
  contents = file_bytes (path, NULL);
  g_assert_cmpstr (contents, ==, expected->str);
}

/* Create writes its first line beside the log and links it into place: no
 * temporary file stays behind, and one left by a kill mid-create is never
 * listed as a log nor blocks the create of its id. */
static void
test_create_is_all_or_nothing (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *dir = NULL;
  g_autofree char *stray = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;
  GDir *listing;
  guint entries = 0;

  create (f, ID_A);
  dir = g_path_get_dirname (path);
  listing = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (listing);
  while (g_dir_read_name (listing) != NULL)
    entries++;
  g_dir_close (listing);
  g_assert_cmpuint (entries, ==, 1);

  /* What a kill between the write and the link leaves. */
  stray = g_strdup_printf ("%s/.%s.jsonl.AbC123", dir, ID_B);
  g_assert_true (g_file_set_contents (stray, "{\"half", -1, NULL));
  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 1);
  g_assert_cmpstr (ids[0], ==, ID_A);
  create (f, ID_B);
}

static void
test_append_never_creates (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *line = note_line (f->info, ID_A, "x");
  g_autoptr(GPtrArray) events = natter_test_json_array (line, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_false (natter_jsonl_repo_append_sync (f->repo, ID_A, events, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static void
test_append_validation_failure_writes_nothing (Fixture       *f,
                                               gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *good = note_line (f->info, ID_A, "good");
  g_autofree char *created = created_line (f->info, ID_A);
  g_autofree char *other_owner = note_line (f->info, ID_B, "stray");
  g_autofree char *no_owner = g_strdup_printf ("{\"type\":\"note\",\"ts\":\"" TS "\"}");
  g_autofree char *unknown = g_strdup_printf ("{\"type\":\"bogus\",\"%s\":\"%s\",\"ts\":\"" TS "\"}",
                                              f->info->owner_member, ID_A);

  create (f, ID_A);
  append_notes (f, ID_A, 1, "first");

  /* One bad event in the middle of a batch: none of the batch is written. */
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, other_owner, good, NULL);

    assert_append_refused (f, path, events, NATTER_STORE_ERROR_SCHEMA);
  }
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, no_owner, NULL);

    assert_append_refused (f, path, events, NATTER_STORE_ERROR_SCHEMA);
  }
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, unknown, NULL);

    assert_append_refused (f, path, events, NATTER_STORE_ERROR_UNKNOWN_TYPE);
  }
  /* The created event belongs on line 1 only. */
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, created, NULL);

    assert_append_refused (f, path, events, NATTER_STORE_ERROR_SCHEMA);
  }
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, "[]", NULL);

    assert_append_refused (f, path, events, NATTER_STORE_ERROR_SCHEMA);
  }
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, good, NULL);

    json_object_set_double_member (json_node_get_object (events->pdata[1]), "n", INFINITY);
    assert_append_refused (f, path, events, NATTER_STORE_ERROR_NOT_LOSSLESS);
  }
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, NULL);

    json_object_set_string_member (json_node_get_object (events->pdata[0]), "text", "\xff\xfe");
    assert_append_refused (f, path, events, NATTER_STORE_ERROR_NOT_LOSSLESS);
  }

  /* The file is still a valid two-line log. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) read = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (read->len, ==, 2);
  }
}

static void
test_append_refuses_torn_tail (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *created = created_line (f->info, ID_A);
  g_autofree char *note = note_line (f->info, ID_A, "next");
  g_autofree char *contents = g_strdup_printf ("%s\n{\"type\":\"no", created);
  g_autofree char *path = write_raw (f, ID_A, contents, -1);
  g_autoptr(GPtrArray) events = natter_test_json_array (note, NULL);

  assert_append_refused (f, path, events, NATTER_STORE_ERROR_CORRUPT);

  /* An empty file has no created line to append to. */
  g_free (write_raw (f, ID_A, "", 0));
  assert_append_refused (f, path, events, NATTER_STORE_ERROR_CORRUPT);
}

static const char *
f_name_list_ids (const KindInfo *info)
{
  return info == &turn_kind ? "list-turn-ids-across-partitions"
                            : "list-session-ids-across-partitions";
}

static const char *
f_name_delete (const KindInfo *info)
{
  return info == &turn_kind ? "deletion-removes-only-the-turn-file"
                            : "deletion-removes-only-the-session-file";
}

static void
add_kind_tests (const KindInfo *info)
{
  struct
  {
    const char *name;
    void (*func) (Fixture *, gconstpointer);
  } tests[] = {
    { "date-partitioned-paths", test_date_partitioned_paths },
    { "id-validation", test_id_validation },
    { "create-if-absent", test_create_if_absent },
    { "create-is-all-or-nothing", test_create_is_all_or_nothing },
    { "append-complete-lines", test_append_complete_lines },
    { "append-never-creates", test_append_never_creates },
    { "append-validation-failure-writes-nothing", test_append_validation_failure_writes_nothing },
    { "append-refuses-torn-tail", test_append_refuses_torn_tail },
    { "read-round-trip", test_read_round_trip },
    { "strict-line-validation", test_strict_line_validation },
    { "strict-line-validation/real-validator", test_strict_line_validation_real_validator },
    { "corrupt-files-rejected-whole", test_corrupt_files_rejected_whole },
    { f_name_list_ids (info), test_list_ids_across_partitions },
    { f_name_delete (info), test_deletion_removes_only_the_file },
    { "leftover-temp-files-removed", test_leftover_temp_files_removed },
    { "leftover-temp-files-without-storage", test_leftover_temp_files_without_storage },
    { "async-round-trip", test_async_round_trip },
    { "with-lock", test_lock },
    { "concurrent-appends-keep-lines-whole", test_concurrent_appends_keep_lines_whole },
    { "own-writes-seen", test_own_writes_seen },
  };

  for (guint i = 0; i < G_N_ELEMENTS (tests); i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/%s", info->prefix, tests[i].name);

      g_test_add (path, Fixture, info, fixture_set_up, tests[i].func, fixture_tear_down);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  add_kind_tests (&session_kind);
  add_kind_tests (&turn_kind);

  return g_test_run ();
}
