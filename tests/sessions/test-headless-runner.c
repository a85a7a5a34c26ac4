/* test-headless-runner.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Headless standalone turns (docs/sessions.md §11): no
 * session, auto permission, no human, the first settled outcome and the
 * final text, and nowhere in the session index.
 */

#include "natter-headless-runner.h"
#include "natter-session-index-internal.h"
#include "natter-test-fakes.h"

static JsonObject *
object_literal (const char *literal)
{
  g_autoptr(JsonNode) node = natter_test_json (literal);

  return json_object_ref (json_node_get_object (node));
}

static void
test_standalone_turn (void)
{
  NatterTestWorld *w = natter_test_world_new ();
  NatterHeadlessRunner *runner = natter_headless_runner_new (w->runtime);
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(JsonObject) input = object_literal ("{\"role\":\"user\",\"content\":\"summarize\"}");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *text = NULL;
  g_autofree char *context = NULL;
  JsonObject *created;
  JsonObject *config;

  /* A permission prompt is decided without a human: the classifier
   * allows it. */
  g_hash_table_add (w->fakes->needs_permission, g_strdup ("sa"));
  w->fakes->classifier_answer = g_strdup ("[{\"toolCallId\":\"A\",\"decision\":\"allow\",\"reason\":\"ok\"}]");
  natter_fake_model_script (w->fakes->model, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("A", "sa", "{}")),
                            NATTER_FAKE_TEXT_STEP, NULL);

  natter_headless_runner_run_async (runner, options, NULL, input, NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, 10000);
  outcome = natter_headless_runner_run_finish (runner, result, &turn_id, &text, &error);
  g_assert_no_error (error);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpstr (text, ==, "done");

  events = natter_jsonl_repo_read_sync (w->turn_repo, turn_id, NULL, &error);
  g_assert_no_error (error);
  created = json_node_get_object (g_ptr_array_index (events, 0));
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (created, "sessionId")));
  config = json_object_get_object_member (created, "config");
  g_assert_true (json_object_get_boolean_member (config, "autoPermission"));
  g_assert_false (json_object_get_boolean_member (config, "humanAvailable"));
  context = json_to_string (json_object_get_member (created, "context"), FALSE);
  g_assert_cmpstr (context, ==, "[]");

  /* Absent from the index: the scan only lists session files. */
  entries = natter_session_index_scan_sync (w->session_repo, w->turn_repo, 1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 0);

  g_clear_object (&result);
  g_assert_finalize_object (runner);
  natter_test_world_free (w);
}

static void
test_abort_cancels_the_turn (void)
{
  NatterTestWorld *w = natter_test_world_new ();
  NatterHeadlessRunner *runner = natter_headless_runner_new (w->runtime);
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(JsonObject) input = object_literal ("{\"role\":\"user\",\"content\":\"wait\"}");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *text = NULL;

  natter_send_options_set_max_model_calls (options, 3);
  natter_fake_model_script (w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  natter_headless_runner_run_async (runner, options, NULL, input, cancellable, natter_test_result_cb, &result);
  natter_fake_model_wait_held (w->fakes->model, 1, 10000);
  g_cancellable_cancel (cancellable);
  natter_test_wait_for_pointer ((gpointer *) &result, 10000);
  outcome = natter_headless_runner_run_finish (runner, result, &turn_id, &text, &error);
  g_assert_no_error (error);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  g_assert_nonnull (turn_id);
  g_assert_null (text);

  g_clear_object (&result);
  g_assert_finalize_object (runner);
  natter_test_world_free (w);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/headless/standalone-turn-auto-permission-no-human-not-indexed", test_standalone_turn);
  g_test_add_func ("/headless/abort-cancels-the-turn", test_abort_cancels_the_turn);

  return g_test_run ();
}
