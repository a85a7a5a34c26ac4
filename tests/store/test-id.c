/* test-id.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The id generator and the strict id pattern (docs/runtime.md §2,
 * docs/sessions.md §6.1), and that the repo refuses a bad id before
 * it touches the disk.
 */

#include <string.h>

#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-store-error.h"
#include "natter-test-support.h"

/* 2026-11-30T09:14:03Z */
#define T0_US (G_GINT64_CONSTANT (1796030043) * G_USEC_PER_SEC)

static void
test_generator_format (void)
{
  g_autoptr(NatterFakeClock) clock = natter_fake_clock_new (T0_US + 250000);
  g_autoptr(NatterIdGenerator) generator = natter_id_generator_new (NATTER_CLOCK (clock));
  g_autofree char *first = natter_id_generator_next (generator);
  g_autofree char *second = natter_id_generator_next (generator);
  g_autofree char *partition = NULL;

  /* The counter is the 100 ns slot within the second: 0.25 s = 2500000. */
  g_assert_cmpstr (first, ==, "2026-11-30T09-14-03Z-2500000-000");
  /* A second id in the same slot takes the next one. */
  g_assert_cmpstr (second, ==, "2026-11-30T09-14-03Z-2500001-000");
  g_assert_cmpuint (strlen (first), ==, NATTER_ID_LENGTH);
  g_assert_true (natter_id_validate (first, NULL));

  partition = natter_id_partition (first);
  g_assert_cmpstr (partition, ==, "2026/11/30");
}

static void
test_generator_monotonic (void)
{
  g_autoptr(NatterFakeClock) clock = natter_fake_clock_new (T0_US);
  g_autoptr(NatterIdGenerator) generator = natter_id_generator_new (NATTER_CLOCK (clock));
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (ids, natter_id_generator_next (generator));
  natter_fake_clock_advance (clock, G_USEC_PER_SEC);
  g_ptr_array_add (ids, natter_id_generator_next (generator));
  /* The clock steps back an hour: ids must still increase. */
  natter_fake_clock_advance (clock, -G_GINT64_CONSTANT (3600) * G_USEC_PER_SEC);
  g_ptr_array_add (ids, natter_id_generator_next (generator));
  g_ptr_array_add (ids, natter_id_generator_next (generator));
  natter_fake_clock_advance (clock, G_GINT64_CONSTANT (7200) * G_USEC_PER_SEC);
  g_ptr_array_add (ids, natter_id_generator_next (generator));

  g_assert_cmpstr (ids->pdata[1], ==, "2026-11-30T09-14-04Z-0000000-000");
  g_assert_cmpstr (ids->pdata[2], ==, "2026-11-30T09-14-04Z-0000001-000");
  g_assert_cmpstr (ids->pdata[3], ==, "2026-11-30T09-14-04Z-0000002-000");
  g_assert_cmpstr (ids->pdata[4], ==, "2026-11-30T10-14-04Z-0000000-000");

  /* The last slot of a second borrows the next second. */
  {
    g_autoptr(NatterFakeClock) late = natter_fake_clock_new (T0_US + G_USEC_PER_SEC - 1);
    g_autoptr(NatterIdGenerator) g2 = natter_id_generator_new (NATTER_CLOCK (late));
    g_autofree char *a = natter_id_generator_next (g2);
    g_autofree char *b = NULL;
    g_autofree char *c = NULL;

    g_assert_cmpstr (a, ==, "2026-11-30T09-14-03Z-9999990-000");
    for (guint i = 0; i < 9; i++)
      g_free (natter_id_generator_next (g2));
    b = natter_id_generator_next (g2);
    g_assert_cmpstr (b, ==, "2026-11-30T09-14-04Z-0000000-000");
    c = natter_id_generator_next (g2);
    g_assert_cmpstr (c, ==, "2026-11-30T09-14-04Z-0000001-000");
  }

  for (guint i = 0; i < ids->len; i++)
    {
      g_assert_true (natter_id_validate (ids->pdata[i], NULL));
      if (i > 0)
        g_assert_cmpint (strcmp (ids->pdata[i - 1], ids->pdata[i]), <, 0);
    }
}

/* A generator made after another one stopped, within the same second,
 * makes later ids rather than the same ones again (the CLI starts a new
 * process per command). */
static void
test_generator_next_process_same_second (void)
{
  g_autoptr(NatterFakeClock) clock = natter_fake_clock_new (T0_US + 1000);
  g_autoptr(NatterIdGenerator) first = natter_id_generator_new (NATTER_CLOCK (clock));
  g_autoptr(NatterIdGenerator) second = NULL;
  g_autofree char *a = natter_id_generator_next (first);
  g_autofree char *b = natter_id_generator_next (first);
  g_autofree char *c = NULL;

  natter_fake_clock_advance (clock, 300);
  second = natter_id_generator_new (NATTER_CLOCK (clock));
  c = natter_id_generator_next (second);
  g_assert_cmpint (strcmp (a, b), <, 0);
  g_assert_cmpint (strcmp (b, c), <, 0);
}

static void
test_generator_system_clock (void)
{
  g_autoptr(NatterIdGenerator) generator = natter_id_generator_new (NULL);
  g_autofree char *previous = natter_id_generator_next (generator);

  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *next = natter_id_generator_next (generator);

      g_assert_true (natter_id_validate (next, NULL));
      g_assert_cmpint (strcmp (previous, next), <, 0);
      g_free (previous);
      previous = g_steal_pointer (&next);
    }
}

/* Every one of these must be rejected; some are also path attacks. */
static const char *bad_ids[] = {
  "../../etc/passwd",
  "/etc/passwd",
  "/tmp/2026-11-30T09-14-03Z-0000042-000",
  "2026-11-30T09-14-03Z-0000042-000/..",
  "../2026-11-30T09-14-03Z-0000042-0",
  "2026-13-45T09-14-03Z-0000042-000",
  "2026-02-30T09-14-03Z-0000042-000",
  "2025-02-29T09-14-03Z-0000042-000",
  "2026-11-30T24-14-03Z-0000042-000",
  "2026-11-30T09-60-03Z-0000042-000",
  "2026-11-30T09-14-60Z-0000042-000",
  "2026-00-10T09-14-03Z-0000042-000",
  "2026-11-00T09-14-03Z-0000042-000",
  "1969-12-31T23-59-59Z-0000042-000",
  "2026-11-30T09-14-03Z-0000042-0000",
  "2026-11-30T09-14-03Z-0000042-00",
  "2026-11-30T09-14-03Z-000004a-000",
  "2026-11-30T09-14-03Z-0000042-00x",
  "2026-11-30 09-14-03Z-0000042-000",
  "2026-11-30T09-14-03+-0000042-000",
  "2026-11-30T09:14:03Z-0000042-000",
  "+026-11-30T09-14-03Z-0000042-000",
  "2026-11-30T09-14-03Z-0000042-000\n",
  "2026-11-30T09-14-03Z-0000042-０00",
  "",
  "..",
  ".",
};

static void
assert_invalid (const char *id)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (natter_id_validate (id, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
}

static void
test_validate (void)
{
  /* A NUL inside the id: the bytes after it must not make it valid. */
  char with_nul[] = "2026-11-30T09-14-03Z-0000042-000";
  g_autofree char *overlong = g_strnfill (4096, '1');

  g_assert_true (natter_id_validate ("2026-11-30T09-14-03Z-0000042-000", NULL));
  g_assert_true (natter_id_validate ("2024-02-29T23-59-59Z-9999999-999", NULL));
  g_assert_true (natter_id_validate ("1970-01-01T00-00-00Z-0000000-000", NULL));

  for (guint i = 0; i < G_N_ELEMENTS (bad_ids); i++)
    assert_invalid (bad_ids[i]);
  assert_invalid (NULL);
  assert_invalid (overlong);

  with_nul[10] = '\0';
  assert_invalid (with_nul);
  with_nul[10] = 'T';
  with_nul[31] = '\0';
  assert_invalid (with_nul);
}

/* Lists everything below @dir, for "nothing was touched" checks. */
static guint
count_entries (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;
  guint n = 0;

  if (dir == NULL)
    return 0;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      n += 1 + count_entries (child);
    }
  g_dir_close (dir);
  return n;
}

static void
assert_repo_rejects (NatterJsonlRepo *repo,
                     const char      *id,
                     const char      *root_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) created = natter_test_json ("{\"type\":\"turn_created\",\"turnId\":\"x\"}");
  g_autoptr(GPtrArray) events = natter_test_json_array ("{\"type\":\"note\",\"turnId\":\"x\"}", NULL);
  g_autoptr(GPtrArray) read = NULL;
  g_autoptr(GFile) file = NULL;

  g_assert_false (natter_jsonl_repo_create_sync (repo, id, created, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
  g_clear_error (&error);

  g_assert_false (natter_jsonl_repo_append_sync (repo, id, events, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
  g_clear_error (&error);

  read = natter_jsonl_repo_read_sync (repo, id, NULL, &error);
  g_assert_null (read);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
  g_clear_error (&error);

  g_assert_false (natter_jsonl_repo_delete_sync (repo, id, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
  g_clear_error (&error);

  file = natter_jsonl_repo_get_file (repo, id, &error);
  g_assert_null (file);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);

  g_assert_cmpuint (count_entries (root_path), ==, 0);
}

static void
test_repo_rejects_invalid_ids (void)
{
  g_autoptr(GFile) root = natter_test_make_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (root, "storage");
  g_autofree char *root_path = g_file_get_path (root);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  char with_nul[] = "2026-11-30T09-14-03Z-0000042-000";

  with_nul[5] = '\0';

  for (guint i = 0; i < G_N_ELEMENTS (bad_ids); i++)
    {
      assert_repo_rejects (turns, bad_ids[i], root_path);
      assert_repo_rejects (sessions, bad_ids[i], root_path);
    }
  assert_repo_rejects (turns, with_nul, root_path);
  assert_repo_rejects (sessions, with_nul, root_path);

  g_assert_false (g_file_query_exists (storage, NULL));

  g_clear_object (&turns);
  g_clear_object (&sessions);
  natter_test_remove_tree (root);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/id/generator-format", test_generator_format);
  g_test_add_func ("/id/generator-monotonic", test_generator_monotonic);
  g_test_add_func ("/id/generator-next-process-same-second", test_generator_next_process_same_second);
  g_test_add_func ("/id/generator-system-clock", test_generator_system_clock);
  g_test_add_func ("/id/validate", test_validate);
  g_test_add_func ("/id/repo-rejects-invalid-ids", test_repo_rejects_invalid_ids);

  return g_test_run ();
}
