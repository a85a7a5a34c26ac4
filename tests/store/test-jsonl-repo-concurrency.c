/* test-jsonl-repo-concurrency.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Asynchronous reads and writes, the per-id lock, and concurrent
 * appends that keep every line whole.
 */

#include "test-jsonl-repo.h"

/* Async forms and the lock */

void
test_async_round_trip (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *created = created_line (f->info, ID_A);
  g_autofree char *note = note_line (f->info, ID_A, "async");
  g_autoptr(JsonNode) event = natter_test_json (created);
  g_autoptr(GPtrArray) batch = natter_test_json_array (note, note, NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();

  natter_jsonl_repo_create_async (f->repo, ID_A, event, NULL, store_result_cb, &result);
  wait_for_result (&result);
  g_assert_true (natter_jsonl_repo_create_finish (f->repo, result, &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  natter_jsonl_repo_create_async (f->repo, ID_A, event, NULL, store_result_cb, &result);
  wait_for_result (&result);
  g_assert_false (natter_jsonl_repo_create_finish (f->repo, result, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_EXISTS);
  g_clear_error (&error);
  g_clear_object (&result);

  natter_jsonl_repo_append_async (f->repo, ID_A, batch, NULL, store_result_cb, &result);
  /* The batch was serialized at the call: the caller may reuse it. */
  g_ptr_array_set_size (batch, 0);
  wait_for_result (&result);
  g_assert_true (natter_jsonl_repo_append_finish (f->repo, result, &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  /* Empty batches complete too. */
  natter_jsonl_repo_append_async (f->repo, ID_A, batch, NULL, store_result_cb, &result);
  wait_for_result (&result);
  g_assert_true (natter_jsonl_repo_append_finish (f->repo, result, &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  natter_jsonl_repo_read_async (f->repo, ID_A, NULL, store_result_cb, &result);
  wait_for_result (&result);
  events = natter_jsonl_repo_read_finish (f->repo, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 3);
  g_clear_object (&result);

  /* A cancelled call does no work. */
  g_cancellable_cancel (cancelled);
  {
    g_autoptr(GPtrArray) more = natter_test_json_array (note, NULL);

    natter_jsonl_repo_append_async (f->repo, ID_A, more, cancelled, store_result_cb, &result);
  }
  wait_for_result (&result);
  g_assert_false (natter_jsonl_repo_append_finish (f->repo, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_clear_pointer (&events, g_ptr_array_unref);
  events = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 3);
}

void
test_lock (Fixture       *f,
           gconstpointer  data)
{
  LockState state = { g_ptr_array_new (), 0 };

  natter_jsonl_repo_lock_async (f->repo, ID_A, NULL, locked_cb, &state);
  natter_jsonl_repo_lock_async (f->repo, ID_A, NULL, locked_cb, &state);
  natter_jsonl_repo_lock_async (f->repo, ID_B, NULL, locked_cb, &state);

  natter_test_wait_for_count (&state.completed, 2, TIMEOUT_MS);
  natter_test_drain_main_context ();

  /* One holder for A, one for B; the second A waits. */
  g_assert_cmpuint (state.completed, ==, 2);
  natter_lock_guard_release (g_ptr_array_steal_index (state.guards, 0));
  natter_test_wait_for_count (&state.completed, 3, TIMEOUT_MS);

  while (state.guards->len > 0)
    natter_lock_guard_release (g_ptr_array_steal_index (state.guards, 0));
  g_ptr_array_unref (state.guards);
}

void
test_concurrent_appends_keep_lines_whole (Fixture       *f,
                                          gconstpointer  data)
{
  AppendState state = { 0, 0 };
  g_autofree char *padding = g_strnfill (16 * 1024, 'p');
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  guint expected_lines = 1;
  int last_batch = -1;
  guint seen_batches = 0;

  create (f, ID_A);

  /* Big lines from many worker threads at once: interleaved bytes would
   * show up as a malformed line. No lock on purpose: each batch must be
   * one write on its own. */
  for (guint b = 0; b < N_BATCHES; b++)
    {
      g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
      guint size = 1 + b % 5;

      for (guint i = 0; i < size; i++)
        {
          g_autofree char *line = g_strdup_printf ("{\"type\":\"note\",\"%s\":\"%s\",\"ts\":\"" TS "\","
                                                   "\"batch\":%u,\"index\":%u,\"pad\":\"%s\"}",
                                                   f->info->owner_member, ID_A, b, i, padding);

          g_ptr_array_add (batch, natter_test_json (line));
        }
      expected_lines += size;
      natter_jsonl_repo_append_async (f->repo, ID_A, batch, NULL, appended_cb, &state);
    }

  natter_test_wait_for_count (&state.completed, N_BATCHES, TIMEOUT_MS);
  g_assert_cmpuint (state.failed, ==, 0);

  events = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, expected_lines);

  /* Each batch is contiguous and in its own order. */
  for (guint i = 1; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (events->pdata[i]);
      int batch = json_object_get_int_member (event, "batch");
      guint index = json_object_get_int_member (event, "index");

      if (batch != last_batch)
        {
          g_assert_cmpuint (index, ==, 0);
          last_batch = batch;
          seen_batches++;
        }
      else
        {
          JsonObject *previous = json_node_get_object (events->pdata[i - 1]);

          g_assert_cmpuint (index, ==, json_object_get_int_member (previous, "index") + 1);
        }
    }
  g_assert_cmpuint (seen_batches, ==, N_BATCHES);
}
