/* test-turn-runtime-recovery.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Advancing a turn a crash left at each point (docs/runtime.md): only
 * created, a model call open, permissions partly decided, an invocation
 * without its result; a terminal turn writes nothing, a corrupt file
 * and a failing repository append nothing.
 */

#include "test-turn-runtime.h"

static void
test_recovery_open_model_call (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_strdup_printf ("{\"type\":\"model_call_requested\",\"turnId\":\"%s\","
                                           "\"ts\":\"2026-11-30T09:14:03.000Z\",\"modelCallIndex\":0,"
                                           "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}",
                                           turn_id);

  /* A crash left a request without its result. */
  g_ptr_array_add (batch, natter_test_json (line));
  natter_jsonl_repo_append_sync (f->repo, turn_id, batch, NULL, &error);
  g_assert_no_error (error);

  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_failed model_call_requested "
                            "model_call_completed turn_completed");
}

static void
test_recovery_sync_invocation (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  const char *lines[] = {
    "{\"type\":\"model_call_requested\",\"turnId\":\"%s\",\"ts\":\"2026-11-30T09:14:03.000Z\","
    "\"modelCallIndex\":0,\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}",
    "{\"type\":\"model_call_completed\",\"turnId\":\"%s\",\"ts\":\"2026-11-30T09:14:03.000Z\","
    "\"modelCallIndex\":0,\"finishReason\":\"tool_calls\",\"usage\":{},\"message\":"
    TOOL_STEP (CALL ("A", "sa", "{}")) "}",
    "{\"type\":\"tool_invocation_requested\",\"turnId\":\"%s\",\"ts\":\"2026-11-30T09:14:03.000Z\","
    "\"toolCallId\":\"A\",\"toolId\":\"t.a\",\"toolName\":\"sa\",\"execution\":\"sync\",\"input\":{}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr(GString) line = g_string_new (lines[i]);

      g_string_replace (line, "%s", turn_id, 0);

      g_ptr_array_add (batch, natter_test_json (line->str));
    }
  natter_jsonl_repo_append_sync (f->repo, turn_id, batch, NULL, &error);
  g_assert_no_error (error);

  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  /* Never re-run: an error result, then the next call. */
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "tool_result model_call_requested model_call_completed turn_completed");
}

static void
test_recovery_only_created (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  /* A crash right after create: the first model call is made. */
  assert_types (f, turn_id, "");
  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed turn_completed");
}

static void
test_recovery_permissions_partly_done (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  /* The crash came after A's permission record, before C's. */
  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  g_hash_table_add (f->world->needs_permission, g_strdup ("sc"));
  append_lines (f, turn_id, REQUESTED_0,
                COMPLETED_0 (TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("C", "sc", "{}"))),
                PERMISSION_REQUIRED ("A", "sa"), NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (outcome->pending_permissions), ==, 2);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_permission_required "
                            "tool_permission_required turn_suspended");
}

static void
test_recovery_allow_without_invocation (Fixture       *f,
                                        gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  append_lines (f, turn_id, REQUESTED_0, COMPLETED_0 (TOOL_STEP (CALL ("A", "sa", "{}"))),
                PERMISSION_REQUIRED ("A", "sa"), PERMISSION_ALLOWED ("A"), NULL);
  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_permission_required "
                            "tool_permission_resolved tool_invocation_requested tool_progress "
                            "tool_result model_call_requested model_call_completed turn_completed");
}

static void
test_recovery_async_invocation (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(NatterTurnOutcome) again = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  /* Exposed but never suspended: the suspension is written, nothing is
   * re-run, and the turn stays suspended. */
  append_lines (f, turn_id, REQUESTED_0, COMPLETED_0 (TOOL_STEP (CALL ("B", "ab", "{}"))),
                INVOCATION ("B", "t.b", "ab", "async"), NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (outcome->pending_async_tools), ==, 1);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "turn_suspended");

  before = file_contents (f, turn_id);
  again = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (again->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  after = file_contents (f, turn_id);
  g_assert_cmpstr (before, ==, after);
}

static void
test_recovery_all_results (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  JsonObject *request;

  append_lines (f, turn_id, REQUESTED_0, COMPLETED_0 (TOOL_STEP (CALL ("A", "sa", "{}"))),
                INVOCATION ("A", "t.a", "sa", "sync"), RESULT ("A", "sa"), NULL);
  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "tool_result model_call_requested model_call_completed turn_completed");
  /* The next call carries the whole transcript: input, answer, result. */
  request = natter_fake_model_get_request (f->world->model, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (request, "messages")), ==, 3);
}

static void
test_recovery_terminal (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  append_lines (f, turn_id, REQUESTED_0,
                "{\"type\":\"model_call_failed\"," LINE_HEAD ",\"modelCallIndex\":0,\"error\":\"boom\"}",
                "{\"type\":\"turn_failed\"," LINE_HEAD ",\"error\":\"boom\",\"usage\":{}}", NULL);
  before = file_contents (f, turn_id);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_cmpstr (outcome->error, ==, "boom");
  after = file_contents (f, turn_id);
  g_assert_cmpstr (before, ==, after);
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->world->model), ==, 0);
}

static void
test_repository_error (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->repo, turn_id, NULL);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *aside = g_strconcat (path, ".aside", NULL);
  char *paths[] = { path, aside };
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(GPtrArray) streamed = g_ptr_array_new_with_free_func (g_free);
  NatterTestWait wait = { 0 };

  natter_fake_model_set_hook (f->world->model, break_file_hook, paths);
  script (f, NATTER_FAKE_STEP_HOOK, NULL);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, NULL);
  g_signal_connect (execution, "event", G_CALLBACK (count_event_cb), streamed);
  natter_test_wait_execution (execution, &wait);

  /* The outcome is the repo's error; the stream carried only what was
   * written; no turn_failed was appended for an infrastructure error. */
  g_assert_null (wait.outcome);
  g_assert_nonnull (wait.error);
  g_assert_true (wait.error->domain == G_IO_ERROR || wait.error->domain == NATTER_STORE_ERROR);
  g_clear_error (&wait.error);
  g_assert_cmpuint (streamed->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (streamed, 0), ==, "model_call_requested");

  g_assert_cmpint (g_rmdir (path), ==, 0);
  g_assert_cmpint (g_rename (aside, path), ==, 0);
  assert_types (f, turn_id, "model_call_requested");
}

static void
test_corrupt_file_appends_nothing (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->repo, turn_id, NULL);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *contents = NULL;
  g_autofree char *torn = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  torn = g_strconcat (contents, "{\"type\":\"model_call_req", NULL);
  g_assert_true (g_file_set_contents (path, torn, -1, NULL));

  g_assert_null (advance (f, turn_id, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, torn);
}

void
turn_runtime_add_recovery_tests (void)
{
  ADD ("recovery-only-created", test_recovery_only_created, NULL);
  ADD ("recovery-open-model-call", test_recovery_open_model_call, NULL);
  ADD ("recovery-permissions-partly-done", test_recovery_permissions_partly_done, NULL);
  ADD ("recovery-allow-without-invocation", test_recovery_allow_without_invocation, NULL);
  ADD ("recovery-sync-invocation", test_recovery_sync_invocation, NULL);
  ADD ("recovery-async-invocation-stays-suspended", test_recovery_async_invocation, NULL);
  ADD ("recovery-all-results-next-call", test_recovery_all_results, NULL);
  ADD ("recovery-terminal-writes-nothing", test_recovery_terminal, NULL);
  ADD ("recovery-corrupt-file", test_corrupt_file_appends_nothing, NULL);
  ADD ("repository-error", test_repository_error, NULL);
  ADD ("corrupt-file-appends-nothing", test_corrupt_file_appends_nothing, NULL);
}
