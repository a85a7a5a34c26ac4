/* test-grants.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Session permission grants (docs/sessions.md §12; docs/format.md
 * §3.3, §4.2 `tool_invocation_requested.grantId`) through the session
 * service, a real runtime, a fake model and the fake tools: the fake agent
 * "helper" offers `sa` (toolId `t.a`), which the fake checker requires
 * permission for, and `ask_human` (`t.ask`, requiresHuman).
 */

#include <string.h>

#include "natter-session-grants-queue.h"
#include "natter-sessions-grants.h"
#include "natter-test-sessions.h"

typedef NatterTestSessions Fixture;

#define CALL_SA(id) NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL (id, "sa", "{}"))

static char *
grant (Fixture     *f,
       const char  *sid,
       const char  *tool,
       GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_add_grant_async (f->sessions, sid, tool, NULL, natter_test_result_cb, &result);
  return natter_sessions_add_grant_finish (f->sessions, natter_test_sessions_wait_result (&result), error);
}

static gboolean
revoke_grant (Fixture     *f,
              const char  *sid,
              const char  *grant_id,
              GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_remove_grant_async (f->sessions, sid, grant_id, NULL, natter_test_result_cb, &result);
  return natter_sessions_remove_grant_finish (f->sessions, natter_test_sessions_wait_result (&result), error);
}

static void
set_up (Fixture       *f,
        gconstpointer  data)
{
  natter_test_sessions_set_up (f, data);
  g_hash_table_add (f->w->fakes->needs_permission, g_strdup ("sa"));
}

/* Sends a message the model answers with a call of `sa` (id @call), then
 * (when the call is expected to run, @status "completed") with "done",
 * and waits for @status. */
static char *
send_calling_sa (Fixture    *f,
                 const char *sid,
                 const char *call,
                 const char *status)
{
  g_autofree char *step = g_strdup_printf (NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("%s", "sa", "{}")), call);
  g_autoptr(GError) error = NULL;
  char *tid;

  natter_test_sessions_script (f, step, NULL);
  if (g_str_equal (status, "completed"))
    natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
  tid = natter_test_sessions_send (f, sid, "read it", &error);
  g_assert_no_error (error);
  natter_test_sessions_wait_status (f, sid, status);
  return tid;
}

static void
test_grant_allows_without_suspending_and_is_recorded_in_the_turn (Fixture       *f,
                                                                  gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *grant_id = grant (f, sid, "sa", &error);
  g_autofree char *tid = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *invocation;

  g_assert_no_error (error);
  g_assert_nonnull (grant_id);

  tid = send_calling_sa (f, sid, "A", "completed");
  events = natter_test_sessions_read (f->w->turn_repo, tid);
  g_assert_cmpuint (natter_test_count_type (events, "tool_permission_required"), ==, 0);
  g_assert_cmpuint (natter_test_count_type (events, "turn_suspended"), ==, 0);
  invocation = natter_test_find_type (events, "tool_invocation_requested");
  g_assert_cmpstr (json_object_get_string_member (invocation, "toolCallId"), ==, "A");
  g_assert_cmpstr (json_object_get_string_member (invocation, "toolId"), ==, "t.a");
  g_assert_cmpstr (json_object_get_string_member (invocation, "grantId"), ==, grant_id);
  g_assert_cmpuint (natter_test_count_type (events, "tool_result"), ==, 1);
}

static void
test_revoked_grant_asks_again (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *grant_id = grant (f, sid, "t.a", &error);
  g_autofree char *tid = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterSessionState) state = NULL;

  g_assert_no_error (error);
  g_assert_true (revoke_grant (f, sid, grant_id, &error));
  g_assert_no_error (error);
  state = natter_test_sessions_get (f, sid);
  g_assert_cmpuint (natter_session_state_get_n_grants (state), ==, 0);

  tid = send_calling_sa (f, sid, "A", "suspended");
  events = natter_test_sessions_read (f->w->turn_repo, tid);
  g_assert_cmpuint (natter_test_count_type (events, "tool_permission_required"), ==, 1);
  g_assert_cmpuint (natter_test_count_type (events, "tool_invocation_requested"), ==, 0);

  /* Revoking again names what is wrong. */
  g_assert_false (revoke_grant (f, sid, grant_id, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND);
}

static void
test_ask_human_cannot_be_granted (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  const char *refused[] = { "ask_human", "t.ask", "no_such_tool" };
  g_autoptr(GPtrArray) events = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *id = grant (f, sid, refused[i], &error);

      g_assert_null (id);
      g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
      g_assert_true (strstr (error->message, refused[i]) != NULL);
    }
  events = natter_test_sessions_read (f->w->session_repo, sid);
  g_assert_cmpuint (events->len, ==, 1);
}

static void
test_grant_does_not_allow_in_another_session_or_a_fork (Fixture       *f,
                                                        gconstpointer  data)
{
  g_autofree char *granted = natter_test_sessions_create (f);
  g_autofree char *other = natter_test_sessions_create (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *grant_id = grant (f, granted, "sa", &error);
  g_autofree char *first = send_calling_sa (f, granted, "A", "completed");
  g_autofree char *branch = natter_test_sessions_fork (f, granted, first, NULL);
  g_autofree char *in_other = send_calling_sa (f, other, "B", "suspended");
  g_autofree char *in_branch = send_calling_sa (f, branch, "C", "suspended");
  g_autoptr(NatterSessionState) branch_state = natter_test_sessions_get (f, branch);
  const char *asked[] = { in_other, in_branch };

  g_assert_no_error (error);
  g_assert_cmpuint (natter_session_state_get_n_grants (branch_state), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (asked); i++)
    {
      g_autoptr(GPtrArray) events = natter_test_sessions_read (f->w->turn_repo, asked[i]);

      g_assert_cmpuint (natter_test_count_type (events, "tool_permission_required"), ==, 1);
      g_assert_cmpuint (natter_test_count_type (events, "tool_invocation_requested"), ==, 0);
    }
}

static void
test_allow_always_allows_the_call_and_grants_its_tool (Fixture       *f,
                                                       gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *asked = NULL;
  g_autofree char *next = NULL;
  g_autofree char *grant_id = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) next_events = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  JsonObject *resolved;

  /* Two calls of the same tool wait; one "Always Allow" answers both. */
  natter_test_sessions_script (f, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("A", "sa", "{}") ","
                                                         NATTER_FAKE_CALL ("A2", "sa", "{}")),
                               NATTER_FAKE_TEXT_STEP, NULL);
  asked = natter_test_sessions_send (f, sid, "read both", &error);
  g_assert_no_error (error);
  natter_test_sessions_wait_status (f, sid, "suspended");

  natter_sessions_allow_always_async (f->sessions, asked, "A", NULL, natter_test_result_cb, &result);
  outcome = natter_sessions_allow_always_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                 &grant_id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_nonnull (grant_id);

  events = natter_test_sessions_read (f->w->turn_repo, asked);
  g_assert_cmpuint (natter_test_count_type (events, "tool_permission_resolved"), ==, 2);
  resolved = natter_test_find_type (events, "tool_permission_resolved");
  g_assert_cmpstr (json_object_get_string_member (resolved, "decision"), ==, "allow");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (resolved, "metadata"), "grantId"),
                   ==, grant_id);

  state = natter_test_sessions_get (f, sid);
  g_assert_cmpstr (natter_session_state_find_grant (state, grant_id)->tool_id, ==, "t.a");

  next = send_calling_sa (f, sid, "B", "completed");
  next_events = natter_test_sessions_read (f->w->turn_repo, next);
  g_assert_cmpuint (natter_test_count_type (next_events, "tool_permission_required"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (natter_test_find_type (next_events, "tool_invocation_requested"),
                                                  "grantId"), ==, grant_id);
}

static void
test_granting_twice_keeps_one_grant (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *first = grant (f, sid, "sa", &error);
  g_autofree char *second = grant (f, sid, "t.a", &error);
  g_autoptr(NatterSessionState) state = natter_test_sessions_get (f, sid);

  g_assert_no_error (error);
  g_assert_cmpstr (first, ==, second);
  g_assert_cmpuint (natter_session_state_get_n_grants (state), ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add ("/grants/" path, Fixture, NULL, set_up, func, natter_test_sessions_tear_down)
  ADD ("a-grant-allows-without-suspending-and-is-recorded-in-the-turn",
       test_grant_allows_without_suspending_and_is_recorded_in_the_turn);
  ADD ("a-revoked-grant-asks-again", test_revoked_grant_asks_again);
  ADD ("ask-human-cannot-be-granted", test_ask_human_cannot_be_granted);
  ADD ("a-grant-does-not-allow-in-another-session-or-a-fork",
       test_grant_does_not_allow_in_another_session_or_a_fork);
  ADD ("allow-always-allows-the-call-and-grants-its-tool", test_allow_always_allows_the_call_and_grants_its_tool);
  ADD ("granting-twice-keeps-one-grant", test_granting_twice_keeps_one_grant);
#undef ADD

  return g_test_run ();
}
