/* test-jsonl-repo-reads.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading a log: a round trip, the strict validation of every line (also
 * with the real validators), and a corrupt file rejected whole.
 */

#include "test-jsonl-repo.h"

/* Reads */

void
test_read_round_trip (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autofree char *created = created_line (f->info, ID_A);
  const char *texts[] = { "a", "é ✓ \\\"quoted\\\"", "line\\nbreak", "" };

  create (f, ID_A);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autofree char *line = note_line (f->info, ID_A, texts[i]);

      g_ptr_array_add (batch, natter_test_json (line));
    }
  g_assert_true (natter_jsonl_repo_append_sync (f->repo, ID_A, batch, NULL, &error));
  g_assert_no_error (error);

  events = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 1 + G_N_ELEMENTS (texts));

  /* Element i is line i + 1, byte for byte what was given. */
  for (guint i = 0; i < events->len; i++)
    {
      g_autofree char *got = natter_json_to_line (events->pdata[i], NULL, &error);
      g_autofree char *want = i == 0
        ? g_strdup (created)
        : natter_json_to_line (batch->pdata[i - 1], NULL, NULL);

      g_assert_no_error (error);
      g_assert_cmpstr (got, ==, want);
    }

  /* A missing file is NOT_FOUND, not corrupt. */
  g_clear_pointer (&events, g_ptr_array_unref);
  events = natter_jsonl_repo_read_sync (f->repo, ID_B, NULL, &error);
  g_assert_null (events);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
}

void
test_strict_line_validation (Fixture       *f,
                             gconstpointer  data)
{
  run_corrupt_cases (f->repo, f);
}

/* The same strictness through the real schemas (natter-turn-schema.c,
 * natter-session-schema.c): the wrong owner id, an unknown type and a
 * future schema version each reject the whole file at their line. */
void
test_strict_line_validation_real_validator (Fixture       *f,
                                            gconstpointer  data)
{
  const KindInfo *info = f->info;
  const char *event_type = info == &turn_kind ? "turn_cancelled" : "title_changed";
  g_autoptr(NatterJsonlRepo) repo = info->real_new (f->storage);
  g_autofree char *created = real_line (info->real_created, ID_A, "1", NULL);
  g_autofree char *created_v9 = real_line (info->real_created, ID_A, "9", NULL);
  g_autofree char *created_b_v9 = real_line (info->real_created, ID_B, "9", NULL);
  g_autofree char *event = real_line (info->real_event, ID_A, NULL, event_type);
  g_autofree char *other_owner = real_line (info->real_event, ID_B, NULL, event_type);
  g_autofree char *unknown = real_line (info->real_event, ID_A, NULL, "surely_not_a_type");
  g_autofree char *path = path_of (f, ID_A);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;

  /* The fixtures are valid, so what fails below fails for its own reason. */
  {
    g_autoptr(JsonNode) node = natter_test_json (created);
    g_autoptr(GPtrArray) batch = natter_test_json_array (event, event, NULL);

    g_assert_true (natter_jsonl_repo_create_sync (repo, ID_A, node, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (natter_jsonl_repo_append_sync (repo, ID_A, batch, NULL, &error));
    g_assert_no_error (error);
    events = natter_jsonl_repo_read_sync (repo, ID_A, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (events->len, ==, 3);
  }

  /* The real schemas refuse the same events on append. */
  {
    g_autoptr(GPtrArray) batch = natter_test_json_array (event, other_owner, NULL);

    g_assert_false (natter_jsonl_repo_append_sync (repo, ID_A, batch, NULL, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
    g_clear_error (&error);
  }
  {
    g_autoptr(GPtrArray) batch = natter_test_json_array (unknown, NULL);

    g_assert_false (natter_jsonl_repo_append_sync (repo, ID_A, batch, NULL, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNKNOWN_TYPE);
    g_clear_error (&error);
  }
  {
    g_autoptr(JsonNode) node = natter_test_json (created_b_v9);

    g_assert_false (natter_jsonl_repo_create_sync (repo, ID_B, node, NULL, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNSUPPORTED_VERSION);
    g_clear_error (&error);
  }

  /* And on read, naming the line. */
  {
    g_autofree char *contents = g_strdup_printf ("%s\n%s\n%s\n", created, event, other_owner);

    g_free (write_raw (f, ID_A, contents, -1));
    assert_corrupt_read (repo, ID_A, path, 3, ID_B);
  }
  {
    g_autofree char *contents = g_strdup_printf ("%s\n%s\n%s\n", created, unknown, event);

    g_free (write_raw (f, ID_A, contents, -1));
    assert_corrupt_read (repo, ID_A, path, 2, "surely_not_a_type");
  }
  {
    g_autofree char *contents = g_strdup_printf ("%s\n%s\n", created_v9, event);

    g_free (write_raw (f, ID_A, contents, -1));
    assert_corrupt_read (repo, ID_A, path, 1, NULL);
  }
  {
    g_autofree char *contents = g_strdup_printf ("%s\n%s\n%s\n", created, event, created);

    g_free (write_raw (f, ID_A, contents, -1));
    assert_corrupt_read (repo, ID_A, path, 3, info->created_type);
  }

  wait_for_last_ref (repo);
  g_assert_finalize_object (g_steal_pointer (&repo));
}

void
test_corrupt_files_rejected_whole (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *good = NULL;
  gsize length;

  /* A healthy log of several batches, then every possible kill point: a
   * prefix of the file is either a complete log of the first lines or
   * rejected whole as torn. Never a silently shortened event, never a
   * skipped line (pitfalls.md 1, 3). */
  create (f, ID_A);
  append_notes (f, ID_A, 2, "batch one");
  append_notes (f, ID_A, 3, "batch two");
  good = file_bytes (path, &length);

  for (gsize cut = 0; cut <= length; cut++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) events = NULL;
      guint complete_lines = 0;

      for (gsize i = 0; i < cut; i++)
        if (good[i] == '\n')
          complete_lines++;

      g_free (write_raw (f, ID_A, good, cut));
      events = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);

      if (cut > 0 && good[cut - 1] == '\n')
        {
          g_assert_no_error (error);
          g_assert_cmpuint (events->len, ==, complete_lines);
        }
      else
        {
          g_assert_null (events);
          g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
        }
    }
}
