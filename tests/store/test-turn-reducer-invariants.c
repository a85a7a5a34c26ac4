/* test-turn-reducer-invariants.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every invariant of the turn reducer (docs/runtime.md §4), each its
 * own test with the exact error: the event that breaks it is refused by
 * a replay and by a live apply, which leaves the state unchanged.
 */

#include "test-turn-reducer.h"

/* Invariants (docs/runtime.md §4): each its own test, with the exact error. */

static void
test_invariant_first_not_created (void)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  request (events, 0, "'input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_missing_created (void)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;

  g_assert_null (natter_turn_reduce (events, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_duplicate_created (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  g_ptr_array_add (events, json_node_ref (events->pdata[0]));
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_mismatched_turn_id (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  g_ptr_array_add (events, fixture ("{'type':'model_call_requested','turnId':'" OTHER_TID "','ts':'" TS "',"
                                    "'modelCallIndex':0,'request':{'messages':['input'],'parameters':{}}}"));
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_unknown_type (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  add (events, "turn_paused", "'usage':{}");
  assert_last_rejected (events, NATTER_STORE_ERROR_UNKNOWN_TYPE);
}

static void
test_invariant_unsupported_version (void)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  add (events, "turn_created", "'schemaVersion':3,'sessionId':null");
  assert_last_rejected (events, NATTER_STORE_ERROR_UNSUPPORTED_VERSION);
}

static void
test_invariant_schema_checked (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  add (events, "model_call_requested", "'modelCallIndex':0");
  assert_last_rejected (events, NATTER_STORE_ERROR_SCHEMA);
}

static void
test_invariant_model_index_out_of_order (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 1, "'input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_model_index_reused (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  request (events, 0, "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_two_open_model_calls (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  request (events, 1, "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completion_without_request (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  respond_text (events, 0, "x");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completion_twice (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_text (events, 0, "x");
  respond_text (events, 0, "y");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_failure_without_request (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 1);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_failure_after_completion (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_text (events, 0, "x");
  fail_call (events, 0);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_failure_twice (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  fail_call (events, 0);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_step_after_close (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file"));
  add (events, "model_step_event", "'modelCallIndex':0,'event':{'type':'late'}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_duplicate_tool_call_in_response (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "read_file") "," TC ("c1", "fetch"));
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_duplicate_tool_call_across_turn (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file"));
  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  request (events, 1, "'assistant:0','toolResult:c1'");
  respond_tools (events, 1, TC ("c1", "read_file"));
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

/* A response with c1 (read_file) and c2 (fetch), for the tool invariants. */
static GPtrArray *
turn_with_tool_calls (const char *config)
{
  GPtrArray *events = turn_new (NO_CONTEXT, config);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "fetch"));
  return events;
}

static void
test_invariant_permission_required_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c9", "read_file");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_permission_required_twice (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  require (events, "c1", "read_file");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_permission_required_wrong_name (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "fetch");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classified_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  classify (events, "c9", "allow");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classification_failed_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  require (events, "c1", "read_file");
  add (events, "tool_permission_classification_failed", "'toolCallIds':['c1','c9'],'error':'x'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_resolved_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  resolve (events, "c9", "allow", "human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classified_without_requirement (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  classify (events, "c1", "allow");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classified_twice (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  require (events, "c1", "read_file");
  classify (events, "c1", "defer");
  classify (events, "c1", "allow");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classification_after_resolution (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "deny", "human");
  classify (events, "c1", "allow");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_resolved_without_requirement (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  resolve (events, "c1", "allow", "human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_conflicting_decisions (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "allow", "human");
  resolve (events, "c1", "deny", "human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classifier_allow_without_opinion (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  require (events, "c1", "read_file");
  classify (events, "c1", "defer");
  resolve (events, "c1", "allow", "classifier");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_human_source_without_human (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (NO_HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "allow", "human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_human_unavailable_allows (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (NO_HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "allow", "human_unavailable");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_resolution_after_result (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  result (events, "c1", "read_file", "runtime");
  resolve (events, "c1", "allow", "human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  add (events, "tool_invocation_requested",
       "'toolCallId':'c9','toolId':'builtin.read','toolName':'read_file','execution':'sync','input':{}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_denied_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "deny", "human");
  invoke (events, "c1", "read_file");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_before_resolution (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  invoke (events, "c1", "read_file");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_twice (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c2", "fetch");
  invoke (events, "c2", "fetch");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_after_result (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c1", "read_file", "runtime");
  invoke (events, "c1", "read_file");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_tool_not_in_snapshot (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "rm_rf"));
  add (events, "tool_invocation_requested",
       "'toolCallId':'c1','toolId':'builtin.rm','toolName':'rm_rf','execution':'sync','input':{}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_unlike_snapshot (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  add (events, "tool_invocation_requested",
       "'toolCallId':'c2','toolId':'builtin.fetch','toolName':'fetch','execution':'sync','input':{}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_needs_human (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, NO_HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "ask_human"));
  invoke (events, "c1", "ask_human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_progress_after_result (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  progress (events, "c1", "sync");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_progress_before_invocation (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  progress (events, "c1", "sync");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_progress_wrong_source (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c1", "read_file");
  progress (events, "c1", "async");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_two_results (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  result (events, "c1", "read_file", "runtime");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_result_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c9", "read_file", "runtime");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_result_wrong_name (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c1", "fetch", "runtime");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_async_result_for_sync_tool (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "async");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_async_result_without_invocation (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c2", "fetch", "async");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_sync_result_for_async_tool (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c2", "fetch");
  result (events, "c2", "fetch", "sync");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_next_call_before_results (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  request (events, 1, "'assistant:0','toolResult:c1'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_wrong_order (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c2", "fetch");
  result (events, "c2", "fetch", "async");
  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  /* Finish order, not model order. */
  request (events, 1, "'assistant:0','toolResult:c2','toolResult:c1'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_wrong_assistant (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c1", "read_file", "runtime");
  result (events, "c2", "fetch", "runtime");
  request (events, 1, "'assistant:1','toolResult:c1','toolResult:c2'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_missing_context (void)
{
  g_autoptr(GPtrArray) events = turn_new (ONE_MESSAGE, HUMAN);

  request (events, 0, "'input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_context_when_empty (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'context','input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_missing_context_ref (void)
{
  g_autoptr(GPtrArray) events = turn_new (REFERENCE, HUMAN);

  request (events, 0, "'input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_wrong_context_ref (void)
{
  g_autoptr(GPtrArray) events = turn_new (REFERENCE, HUMAN);

  add (events, "model_call_requested",
       "'modelCallIndex':0,'request':{'contextRef':{'previousTurnId':'" OTHER_TID "'},"
       "'messages':['input'],'parameters':{}}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_unexpected_context_ref (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  add (events, "model_call_requested",
       "'modelCallIndex':0,'request':{'contextRef':{'previousTurnId':'" PREV_TID "'},"
       "'messages':['input'],'parameters':{}}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_reissue_not_empty (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  request (events, 1, "'input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_call_after_final_response (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_text (events, 0, "done");
  request (events, 1, "'assistant:0'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_budget_exceeded (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, ONE_CALL);

  request (events, 0, "'input'");
  fail_call (events, 0);
  request (events, 1, "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_model_call_limit_before_budget (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c1", "read_file", "runtime");
  result (events, "c2", "fetch", "runtime");
  fail_turn (events, "model-call-limit");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completed_with_unresolved_calls (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  complete (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completed_after_tool_calls (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c1", "read_file", "runtime");
  result (events, "c2", "fetch", "runtime");
  complete (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completed_while_model_call_open (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  complete (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completed_after_failed_call (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  complete (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completed_without_model_call (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  complete (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_terminal_while_calls_lack_results (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c2", "fetch");
  result (events, "c1", "read_file", "runtime");
  cancel (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_failed_while_model_call_open (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_turn (events, NULL);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_two_terminal_events (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_text (events, 0, "x");
  complete (events);
  cancel (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_event_after_terminal (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  fail_turn (events, NULL);
  request (events, 1, "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_suspension_incomplete (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  invoke (events, "c2", "fetch");
  suspend (events, PENDING_PERMISSION ("c1", "read_file"), "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_suspension_lists_finished_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "deny", "human");
  result (events, "c1", "read_file", "runtime");
  suspend (events, PENDING_PERMISSION ("c1", "read_file"), "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_suspension_lists_twice (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c2", "fetch");
  suspend (events, "", PENDING_FETCH ("c2") "," PENDING_FETCH ("c2"));
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_suspension_while_model_call_open (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  suspend (events, "", "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}


void
turn_reducer_add_invariant_tests (void)
{
  g_test_add_func ("/turn-reducer/invariant/first-not-created", test_invariant_first_not_created);
  g_test_add_func ("/turn-reducer/invariant/missing-created", test_invariant_missing_created);
  g_test_add_func ("/turn-reducer/invariant/duplicate-created", test_invariant_duplicate_created);
  g_test_add_func ("/turn-reducer/invariant/mismatched-turn-id", test_invariant_mismatched_turn_id);
  g_test_add_func ("/turn-reducer/invariant/unknown-type", test_invariant_unknown_type);
  g_test_add_func ("/turn-reducer/invariant/unsupported-version", test_invariant_unsupported_version);
  g_test_add_func ("/turn-reducer/invariant/schema-checked", test_invariant_schema_checked);
  g_test_add_func ("/turn-reducer/invariant/model-index-out-of-order",
                   test_invariant_model_index_out_of_order);
  g_test_add_func ("/turn-reducer/invariant/model-index-reused", test_invariant_model_index_reused);
  g_test_add_func ("/turn-reducer/invariant/two-open-model-calls", test_invariant_two_open_model_calls);
  g_test_add_func ("/turn-reducer/invariant/completion-without-request",
                   test_invariant_completion_without_request);
  g_test_add_func ("/turn-reducer/invariant/completion-twice", test_invariant_completion_twice);
  g_test_add_func ("/turn-reducer/invariant/failure-without-request",
                   test_invariant_failure_without_request);
  g_test_add_func ("/turn-reducer/invariant/failure-after-completion",
                   test_invariant_failure_after_completion);
  g_test_add_func ("/turn-reducer/invariant/failure-twice", test_invariant_failure_twice);
  g_test_add_func ("/turn-reducer/invariant/step-after-close", test_invariant_step_after_close);
  g_test_add_func ("/turn-reducer/invariant/duplicate-tool-call-in-response",
                   test_invariant_duplicate_tool_call_in_response);
  g_test_add_func ("/turn-reducer/invariant/duplicate-tool-call-across-turn",
                   test_invariant_duplicate_tool_call_across_turn);
  g_test_add_func ("/turn-reducer/invariant/permission-required-unknown-call",
                   test_invariant_permission_required_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/permission-required-twice",
                   test_invariant_permission_required_twice);
  g_test_add_func ("/turn-reducer/invariant/permission-required-wrong-name",
                   test_invariant_permission_required_wrong_name);
  g_test_add_func ("/turn-reducer/invariant/classified-unknown-call",
                   test_invariant_classified_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/classification-failed-unknown-call",
                   test_invariant_classification_failed_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/resolved-unknown-call", test_invariant_resolved_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/classified-without-requirement",
                   test_invariant_classified_without_requirement);
  g_test_add_func ("/turn-reducer/invariant/classified-twice", test_invariant_classified_twice);
  g_test_add_func ("/turn-reducer/invariant/classification-after-resolution",
                   test_invariant_classification_after_resolution);
  g_test_add_func ("/turn-reducer/invariant/resolved-without-requirement",
                   test_invariant_resolved_without_requirement);
  g_test_add_func ("/turn-reducer/invariant/conflicting-decisions", test_invariant_conflicting_decisions);
  g_test_add_func ("/turn-reducer/invariant/classifier-allow-without-opinion",
                   test_invariant_classifier_allow_without_opinion);
  g_test_add_func ("/turn-reducer/invariant/human-source-without-human",
                   test_invariant_human_source_without_human);
  g_test_add_func ("/turn-reducer/invariant/human-unavailable-allows",
                   test_invariant_human_unavailable_allows);
  g_test_add_func ("/turn-reducer/invariant/resolution-after-result",
                   test_invariant_resolution_after_result);
  g_test_add_func ("/turn-reducer/invariant/invocation-unknown-call",
                   test_invariant_invocation_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/invocation-denied-call", test_invariant_invocation_denied_call);
  g_test_add_func ("/turn-reducer/invariant/invocation-before-resolution",
                   test_invariant_invocation_before_resolution);
  g_test_add_func ("/turn-reducer/invariant/invocation-twice", test_invariant_invocation_twice);
  g_test_add_func ("/turn-reducer/invariant/invocation-after-result",
                   test_invariant_invocation_after_result);
  g_test_add_func ("/turn-reducer/invariant/invocation-tool-not-in-snapshot",
                   test_invariant_invocation_tool_not_in_snapshot);
  g_test_add_func ("/turn-reducer/invariant/invocation-unlike-snapshot",
                   test_invariant_invocation_unlike_snapshot);
  g_test_add_func ("/turn-reducer/invariant/invocation-needs-human", test_invariant_invocation_needs_human);
  g_test_add_func ("/turn-reducer/invariant/progress-after-result", test_invariant_progress_after_result);
  g_test_add_func ("/turn-reducer/invariant/progress-before-invocation",
                   test_invariant_progress_before_invocation);
  g_test_add_func ("/turn-reducer/invariant/progress-wrong-source", test_invariant_progress_wrong_source);
  g_test_add_func ("/turn-reducer/invariant/two-results", test_invariant_two_results);
  g_test_add_func ("/turn-reducer/invariant/result-unknown-call", test_invariant_result_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/result-wrong-name", test_invariant_result_wrong_name);
  g_test_add_func ("/turn-reducer/invariant/async-result-for-sync-tool",
                   test_invariant_async_result_for_sync_tool);
  g_test_add_func ("/turn-reducer/invariant/async-result-without-invocation",
                   test_invariant_async_result_without_invocation);
  g_test_add_func ("/turn-reducer/invariant/sync-result-for-async-tool",
                   test_invariant_sync_result_for_async_tool);
  g_test_add_func ("/turn-reducer/invariant/next-call-before-results",
                   test_invariant_next_call_before_results);
  g_test_add_func ("/turn-reducer/invariant/refs-wrong-order", test_invariant_refs_wrong_order);
  g_test_add_func ("/turn-reducer/invariant/refs-wrong-assistant", test_invariant_refs_wrong_assistant);
  g_test_add_func ("/turn-reducer/invariant/refs-missing-context", test_invariant_refs_missing_context);
  g_test_add_func ("/turn-reducer/invariant/refs-context-when-empty",
                   test_invariant_refs_context_when_empty);
  g_test_add_func ("/turn-reducer/invariant/refs-missing-context-ref",
                   test_invariant_refs_missing_context_ref);
  g_test_add_func ("/turn-reducer/invariant/refs-wrong-context-ref", test_invariant_refs_wrong_context_ref);
  g_test_add_func ("/turn-reducer/invariant/refs-unexpected-context-ref",
                   test_invariant_refs_unexpected_context_ref);
  g_test_add_func ("/turn-reducer/invariant/refs-reissue-not-empty", test_invariant_refs_reissue_not_empty);
  g_test_add_func ("/turn-reducer/invariant/call-after-final-response",
                   test_invariant_call_after_final_response);
  g_test_add_func ("/turn-reducer/invariant/budget-exceeded", test_invariant_budget_exceeded);
  g_test_add_func ("/turn-reducer/invariant/model-call-limit-before-budget",
                   test_invariant_model_call_limit_before_budget);
  g_test_add_func ("/turn-reducer/invariant/completed-with-unresolved-calls",
                   test_invariant_completed_with_unresolved_calls);
  g_test_add_func ("/turn-reducer/invariant/completed-after-tool-calls",
                   test_invariant_completed_after_tool_calls);
  g_test_add_func ("/turn-reducer/invariant/completed-while-model-call-open",
                   test_invariant_completed_while_model_call_open);
  g_test_add_func ("/turn-reducer/invariant/completed-after-failed-call",
                   test_invariant_completed_after_failed_call);
  g_test_add_func ("/turn-reducer/invariant/completed-without-model-call",
                   test_invariant_completed_without_model_call);
  g_test_add_func ("/turn-reducer/invariant/terminal-while-calls-lack-results",
                   test_invariant_terminal_while_calls_lack_results);
  g_test_add_func ("/turn-reducer/invariant/failed-while-model-call-open",
                   test_invariant_failed_while_model_call_open);
  g_test_add_func ("/turn-reducer/invariant/two-terminal-events", test_invariant_two_terminal_events);
  g_test_add_func ("/turn-reducer/invariant/event-after-terminal", test_invariant_event_after_terminal);
  g_test_add_func ("/turn-reducer/invariant/suspension-incomplete", test_invariant_suspension_incomplete);
  g_test_add_func ("/turn-reducer/invariant/suspension-lists-finished-call",
                   test_invariant_suspension_lists_finished_call);
  g_test_add_func ("/turn-reducer/invariant/suspension-lists-twice", test_invariant_suspension_lists_twice);
  g_test_add_func ("/turn-reducer/invariant/suspension-while-model-call-open",
                   test_invariant_suspension_while_model_call_open);
}
