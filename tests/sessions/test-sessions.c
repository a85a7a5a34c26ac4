/* test-sessions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session service against a real turn runtime with a fake model,
 * fake tools and real repos in a temporary directory: sending, with a
 * crash simulated at each step, the order of writes, answers, stop and
 * resume, the index, live events (docs/sessions.md §7, §8, §9, §10),
 * forks, flush, and the title pitfalls. Each test asserts the files on
 * disk and the events. This file sends (and crashes while sending),
 * answers, and holds main(); stop, the index and damaged histories
 * have files of their own.
 */

#include "test-sessions.h"

/* docs/sessions.md §9.1 sendMessage */

static void
test_first_turn (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autofree char *context = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonObject) created = NULL;
  JsonObject *appended;
  JsonObject *model;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "  Hello there\nsecond line");
  /* The turn is referenced before it runs, and the call returned at once. */
  events = natter_test_sessions_read (f->t.w->session_repo, sid);
  g_assert_cmpuint (events->len, ==, 3);
  appended = event_at (events, 1);
  g_assert_cmpstr (json_object_get_string_member (appended, "type"), ==, "turn_appended");
  g_assert_cmpstr (json_object_get_string_member (appended, "turnId"), ==, tid);
  g_assert_cmpint (json_object_get_int_member (appended, "sessionSeq"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (appended, "agentId"), ==, "helper");
  model = json_object_get_object_member (appended, "model");
  g_assert_cmpuint (json_object_get_size (model), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (model, "provider"), ==, "p");
  g_assert_cmpstr (json_object_get_string_member (model, "model"), ==, "m");
  g_assert_cmpstr (json_object_get_string_member (event_at (events, 2), "type"), ==, "title_changed");
  g_assert_cmpstr (json_object_get_string_member (event_at (events, 2), "title"), ==, "Hello there");

  context = context_of (f, tid);
  g_assert_cmpstr (context, ==, "[]");
  created = turn_created (f, tid);
  g_assert_cmpstr (json_object_get_string_member (created, "sessionId"), ==, sid);

  natter_test_sessions_wait_status (&f->t, sid, "completed");
  assert_types (f->t.w->turn_repo, tid, "turn_created model_call_requested model_call_completed turn_completed");
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (f->t.index, sid)),
                   ==, "Hello there");
}

static void
test_subsequent_turn (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *context = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(GPtrArray) events = NULL;
  NatterSessionIndexEntry *entry;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  second = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");

  context = context_of (f, second);
  expected = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", first);
  g_assert_cmpstr (context, ==, expected);
  events = natter_test_sessions_read (f->t.w->session_repo, sid);
  /* One default title only: from the first message. */
  assert_types (f->t.w->session_repo, sid, "session_created turn_appended title_changed turn_appended");
  g_assert_cmpint (json_object_get_int_member (event_at (events, 3), "sessionSeq"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (event_at (events, 3), "turnId"), ==, second);
  entry = natter_session_index_lookup (f->t.index, sid);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, 2);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (entry), ==, second);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "one");
  /* The second request carries the first turn's transcript. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (natter_fake_model_get_request (f->t.w->fakes->model, 1),
                                                                          "messages")), ==, 3);
}

static void
assert_not_settled (Fixture    *f,
                    const char *sid,
                    const char *status_word)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tid = natter_test_sessions_send (&f->t, sid, "again", &error);

  g_assert_null (tid);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED);
  g_assert_nonnull (strstr (error->message, status_word));
}

static void
test_not_settled_running (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autofree char *next = NULL;
  guint before;

  natter_test_sessions_script (&f->t, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "one");
  g_assert_true (natter_sessions_is_turn_running (f->t.sessions, tid));
  before = n_files (f->t.w->turn_repo);
  assert_not_settled (f, sid, "running");
  g_assert_cmpuint (n_files (f->t.w->turn_repo), ==, before);

  natter_fake_model_wait_held (f->t.w->fakes->model, 1, TIMEOUT_MS);
  natter_fake_model_release (f->t.w->fakes->model);
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  next = send (f, sid, "two");
  g_assert_nonnull (next);
  natter_test_sessions_wait_status (&f->t, sid, "completed");
}

static void
test_not_settled_suspended (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autofree char *next = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonObject) tool_result = object_literal ("{\"output\":\"b\",\"isError\":false}");
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("B", "ab", "{}")), NATTER_FAKE_TEXT_STEP,
          NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");
  assert_not_settled (f, sid, "suspended");

  natter_sessions_deliver_async_tool_result_async (f->t.sessions, tid, "B", tool_result, NULL, natter_test_result_cb, &result);
  outcome = natter_sessions_deliver_async_tool_result_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  next = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
}

static void
test_not_settled_idle (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *next = NULL;
  g_autoptr(GError) error = NULL;

  /* A crash after turn_appended leaves an idle latest turn. */
  send_crashing_at (f, sid, "one", NATTER_SESSIONS_STEP_APPEND);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (natter_session_index_lookup (f->t.index, sid)),
                   ==, "idle");
  assert_not_settled (f, sid, "was interrupted; resume it or stop it");

  /* Only an explicit resume runs it; then the session moves on. */
  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  resume (f, sid, NULL);
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  resume (f, sid, &error);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  next = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
}

/* An interrupted turn whose provider was removed since: Resume says
 * so, instead of starting an advance that fails before writing anything
 * and seeming to do nothing; the turn stays as it was, for when the
 * provider is back. */
static void
test_resume_provider_gone (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autoptr(GError) error = NULL;

  send_crashing_at (f, sid, "one", NATTER_SESSIONS_STEP_APPEND);
  g_clear_object (&f->t.w->fakes->model);
  resume (f, sid, &error);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "No provider “p” is configured"));
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (natter_session_index_lookup (f->t.index, sid)),
                   ==, "idle");
  g_assert_false (natter_sessions_is_turn_running (f->t.sessions,
                                                   natter_session_index_entry_get_latest_turn_id (
                                                     natter_session_index_lookup (f->t.index, sid))));
}

static void
test_continue_after_failure (Fixture       *f,
                             gconstpointer  data)
{
  gboolean limit = GPOINTER_TO_INT (data);
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *failed = NULL;
  g_autofree char *next = NULL;
  g_autofree char *context = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterSendOptions) one_call = natter_test_send_options ("helper", NULL, NULL);

  natter_send_options_set_max_model_calls (one_call, 1);
  if (limit)
    {
      natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c0", "sa", "{}")), NATTER_FAKE_TEXT_STEP, NULL);
      failed = natter_test_sessions_send_with (&f->t, sid, "one", one_call, NULL);
    }
  else
    {
      natter_test_sessions_script (&f->t, NATTER_FAKE_STEP_ERROR, NATTER_FAKE_TEXT_STEP, NULL);
      failed = send (f, sid, "one");
    }
  natter_test_sessions_wait_status (&f->t, sid, "failed");
  events = natter_test_sessions_read (f->t.w->turn_repo, failed);
  if (limit)
    {
      g_assert_cmpstr (json_object_get_string_member (event_at (events, events->len - 1), "code"),
                       ==, "model-call-limit");
      /* One call is "1 model call", in the singular. */
      g_assert_cmpstr (json_object_get_string_member (event_at (events, events->len - 1), "error"),
                       ==, "The turn reached its limit of 1 model call");
    }

  next = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  context = context_of (f, next);
  expected = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", failed);
  g_assert_cmpstr (context, ==, expected);
}

typedef struct
{
  guint   pending;
  guint   won;
  guint   not_settled;
  char   *winner;
} Race;

static void
race_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Race *race = user_data;
  g_autoptr(GError) error = NULL;
  char *tid = natter_sessions_send_message_finish (NATTER_SESSIONS (object), result, &error);

  race->pending--;
  if (tid != NULL)
    {
      race->won++;
      race->winner = tid;
      return;
    }
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED);
  race->not_settled++;
}

static gboolean
race_done (NatterTestSessions *t,
           gconstpointer       data)
{
  return ((const Race *) data)->pending == 0;
}

static void
test_concurrent_one_wins (Fixture       *f,
                          gconstpointer  data)
{
  guint n = GPOINTER_TO_UINT (data);
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autoptr(NatterSendOptions) config = natter_test_send_options ("helper", NULL, NULL);
  Race race = { 0 };

  natter_test_sessions_script (&f->t, NATTER_FAKE_STEP_HOLD, NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = g_strdup_printf ("message %u", i);
      g_autoptr(JsonObject) input = user_message (text);

      race.pending++;
      natter_sessions_send_message_async (f->t.sessions, sid, input, config, NULL, race_cb, &race);
    }
  natter_test_sessions_wait_until (&f->t, race_done, &race);
  g_assert_cmpuint (race.won, ==, 1);
  g_assert_cmpuint (race.not_settled, ==, n - 1);
  g_assert_cmpuint (n_files (f->t.w->turn_repo), ==, 1);
  assert_types (f->t.w->session_repo, sid, "session_created turn_appended title_changed");
  /* The first caller in lock order wins. */
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (f->t.index, sid)),
                   ==, "message 0");

  natter_fake_model_wait_held (f->t.w->fakes->model, 1, TIMEOUT_MS);
  natter_fake_model_release (f->t.w->fakes->model);
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  natter_test_sessions_wait_until (&f->t, no_live_advance, race.winner);
  g_free (race.winner);
}

static void
test_config_lands_on_turn (Fixture       *f,
                           gconstpointer  data)
{
  static const char * const appended_members[] = {
    "type", "sessionId", "ts", "turnId", "sessionSeq", "agentId", "model", NULL
  };
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", "q", "n");
  g_autoptr(JsonObject) created = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GList) members = NULL;
  JsonObject *config;
  JsonObject *model;
  NatterSessionIndexEntry *entry;
  g_autofree char *model_string = NULL;

  natter_send_options_set_auto_permission (options, TRUE);
  natter_send_options_set_max_model_calls (options, 7);
  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NULL);
  tid = natter_test_sessions_send_with (&f->t, sid, "hi", options, NULL);
  g_assert_nonnull (tid);
  created = turn_created (f, tid);
  config = json_object_get_object_member (created, "config");
  g_assert_true (json_object_get_boolean_member (config, "autoPermission"));
  g_assert_true (json_object_get_boolean_member (config, "humanAvailable"));
  g_assert_cmpint (json_object_get_int_member (config, "maxModelCalls"), ==, 7);

  /* The session file: only the denormalized agent and model. */
  events = natter_test_sessions_read (f->t.w->session_repo, sid);
  members = json_object_get_members (event_at (events, 1));
  g_assert_cmpuint (g_list_length (members), ==, g_strv_length ((GStrv) appended_members));
  for (GList *l = members; l != NULL; l = l->next)
    g_assert_true (g_strv_contains (appended_members, l->data));
  model = json_object_get_object_member (event_at (events, 1), "model");
  g_assert_cmpuint (json_object_get_size (model), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (model, "provider"), ==, "q");
  g_assert_cmpstr (json_object_get_string_member (model, "model"), ==, "n");

  natter_test_sessions_wait_status (&f->t, sid, "completed");
  entry = natter_session_index_lookup (f->t.index, sid);
  g_assert_cmpstr (natter_session_index_entry_get_last_agent_id (entry), ==, "helper");
  model_string = natter_session_index_entry_dup_last_model_string (entry);
  g_assert_cmpstr (model_string, ==, "q/n");
}

/* docs/sessions.md §7 ordering and crash simulation */

static void
test_crash_at_step (Fixture       *f,
                    gconstpointer  data)
{
  NatterSessionsStep step = GPOINTER_TO_INT (data);
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *first = NULL;
  g_autofree char *retry = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  guint turns_before;

  /* A settled first turn, so every step of docs/sessions.md §9.1 runs. */
  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = send (f, sid, "first");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  before = types_of (f->t.w->session_repo, sid);
  turns_before = n_files (f->t.w->turn_repo);

  send_crashing_at (f, sid, "second", step);
  after = types_of (f->t.w->session_repo, sid);

  switch (step)
    {
    case NATTER_SESSIONS_STEP_READ_SESSION:
    case NATTER_SESSIONS_STEP_CHECK_LATEST:
      /* Nothing was written anywhere. */
      g_assert_cmpstr (after, ==, before);
      g_assert_cmpuint (n_files (f->t.w->turn_repo), ==, turns_before);
      retry = send (f, sid, "second");
      natter_test_sessions_wait_status (&f->t, sid, "completed");
      break;

    case NATTER_SESSIONS_STEP_CREATE_TURN:
      {
        g_auto(GStrv) ids = NULL;
        g_autoptr(GError) error = NULL;
        const char *orphan;

        /* An orphan turn file, the session unchanged. */
        g_assert_cmpstr (after, ==, before);
        g_assert_cmpuint (n_files (f->t.w->turn_repo), ==, turns_before + 1);
        ids = natter_jsonl_repo_list_ids_sync (f->t.w->turn_repo, NULL, &error);
        orphan = ids[turns_before];
        assert_types (f->t.w->turn_repo, orphan, "turn_created");
        /* The retry makes a fresh turn; the orphan is never advanced. */
        retry = send (f, sid, "second");
        g_assert_cmpstr (retry, !=, orphan);
        natter_test_sessions_wait_status (&f->t, sid, "completed");
        assert_types (f->t.w->turn_repo, orphan, "turn_created");
        assert_types (f->t.w->session_repo, sid, "session_created turn_appended title_changed turn_appended");
      }
      break;

    case NATTER_SESSIONS_STEP_APPEND:
      /* Referenced but never advanced: idle, and the session waits for
       * an explicit resume. */
      assert_types (f->t.w->session_repo, sid, "session_created turn_appended title_changed turn_appended");
      natter_test_sessions_wait_status (&f->t, sid, "idle");
      assert_not_settled (f, sid, "was interrupted; resume it or stop it");
      resume (f, sid, NULL);
      natter_test_sessions_wait_status (&f->t, sid, "completed");
      break;

    case NATTER_SESSIONS_STEP_ADVANCE:
      /* The advance had started: the turn runs to its end regardless. */
      assert_types (f->t.w->session_repo, sid, "session_created turn_appended title_changed turn_appended");
      natter_test_sessions_wait_status (&f->t, sid, "completed");
      break;

    default:
      g_assert_not_reached ();
    }
}

typedef struct
{
  Fixture  *f;
  char     *session_id;
  gboolean  checked;
} OrderCheck;

static void
processing_start_cb (NatterTurnEventHub *hub,
                     const char         *turn_id,
                     OrderCheck         *check)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (check->f->t.w->session_repo, check->session_id);
  gboolean found = FALSE;

  for (guint i = 0; i < events->len; i++)
    if (g_strcmp0 (json_object_get_string_member_with_default (event_at (events, i), "turnId", NULL),
                   turn_id) == 0)
      found = TRUE;
  g_assert_true (found);
  check->checked = TRUE;
}

static void
test_turn_appended_before_advance (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  OrderCheck check = { f, sid, FALSE };
  gulong id;

  id = g_signal_connect (f->t.w->hub, "turn-processing-start", G_CALLBACK (processing_start_cb), &check);
  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  g_assert_true (check.checked);
  g_signal_handler_disconnect (f->t.w->hub, id);
}

/* docs/sessions.md §9.2 external inputs */

static NatterTurnOutcome *
respond_permission (Fixture     *f,
                    const char  *tid,
                    const char  *call,
                    const char  *decision,
                    GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_respond_to_permission_async (f->t.sessions, tid, call, decision, NULL, NULL, natter_test_result_cb, &result);
  return natter_sessions_respond_to_permission_finish (f->t.sessions, natter_test_sessions_wait_result (&result), error);
}

static NatterTurnOutcome *
deliver (Fixture     *f,
         const char  *tid,
         const char  *call,
         GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonObject) tool_result = object_literal ("{\"output\":\"x\",\"isError\":false}");

  natter_sessions_deliver_async_tool_result_async (f->t.sessions, tid, call, tool_result, NULL, natter_test_result_cb, &result);
  return natter_sessions_deliver_async_tool_result_finish (f->t.sessions, natter_test_sessions_wait_result (&result), error);
}

static void
test_input_permission (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(JsonObject) resolved = NULL;

  g_hash_table_add (f->t.w->fakes->needs_permission, g_strdup ("sa"));
  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("A", "sa", "{}")), NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");
  outcome = respond_permission (f, tid, "A", "allow", NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  resolved = last_of_type (f, tid, "tool_permission_resolved");
  g_assert_cmpstr (json_object_get_string_member (resolved, "toolCallId"), ==, "A");
  g_assert_cmpstr (json_object_get_string_member (resolved, "decision"), ==, "allow");
  g_assert_cmpstr (json_object_get_string_member (resolved, "source"), ==, "human");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
}

static void
test_input_ask_human (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(JsonObject) tool_result = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *data_object;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("Q", "ask_human", "{}")), NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");

  /* sendMessage never answers a pending ask-human. */
  before = types_of (f->t.w->turn_repo, tid);
  assert_not_settled (f, sid, "suspended");
  after = types_of (f->t.w->turn_repo, tid);
  g_assert_cmpstr (before, ==, after);

  natter_sessions_respond_to_ask_human_async (f->t.sessions, tid, "Q", "42", NULL, natter_test_result_cb, &result);
  outcome = natter_sessions_respond_to_ask_human_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  tool_result = last_of_type (f, tid, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (tool_result, "toolCallId"), ==, "Q");
  g_assert_cmpstr (json_object_get_string_member (tool_result, "source"), ==, "async");
  data_object = json_object_get_object_member (tool_result, "result");
  g_assert_cmpstr (json_object_get_string_member (data_object, "output"), ==, "42");
  g_assert_false (json_object_get_boolean_member (data_object, "isError"));
  natter_test_sessions_wait_status (&f->t, sid, "completed");
}

static void
test_input_async_result (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(JsonObject) tool_result = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("B", "ab", "{}")), NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");
  outcome = deliver (f, tid, "B", NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  tool_result = last_of_type (f, tid, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (tool_result, "toolCallId"), ==, "B");
  g_assert_cmpstr (json_object_get_string_member (tool_result, "source"), ==, "async");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
}

static void
test_input_rejections_pass_through (Fixture       *f,
                                    gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autofree char *ghost = NULL;
  g_autoptr(GError) unknown = NULL;
  g_autoptr(GError) ended = NULL;
  g_autoptr(GError) missing = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("B", "ab", "{}")), NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");

  g_assert_null (respond_permission (f, tid, "X", "allow", &unknown));
  g_assert_error (unknown, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_INPUT);
  g_assert_null (deliver (f, tid, "X", &unknown == NULL ? NULL : &missing));
  g_assert_error (missing, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_INPUT);
  g_clear_error (&missing);

  g_clear_pointer (&ended, g_error_free);
  natter_turn_outcome_unref (deliver (f, tid, "B", NULL));
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  g_assert_null (deliver (f, tid, "B", &ended));
  g_assert_error (ended, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_TURN_ENDED);

  ghost = natter_id_generator_next (f->t.w->ids);
  g_assert_null (deliver (f, ghost, "B", &missing));
  g_assert_error (missing, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  ADD ("send/first-turn", test_first_turn, NULL);
  ADD ("send/subsequent-turn", test_subsequent_turn, NULL);
  ADD ("send/not-settled-running", test_not_settled_running, NULL);
  ADD ("send/not-settled-suspended", test_not_settled_suspended, NULL);
  ADD ("send/not-settled-idle-then-resume", test_not_settled_idle, NULL);
  ADD ("send/resume-with-provider-gone-says-why", test_resume_provider_gone, NULL);
  ADD ("send/continue-after-failed", test_continue_after_failure, GINT_TO_POINTER (FALSE));
  ADD ("send/continue-after-model-call-limit", test_continue_after_failure, GINT_TO_POINTER (TRUE));
  ADD ("send/concurrent-two-one-wins", test_concurrent_one_wins, GUINT_TO_POINTER (2));
  ADD ("send/concurrent-1000-one-wins", test_concurrent_one_wins, GUINT_TO_POINTER (1000));
  ADD ("send/config-lands-on-turn", test_config_lands_on_turn, NULL);
  ADD ("crash/after-read-session", test_crash_at_step, GINT_TO_POINTER (NATTER_SESSIONS_STEP_READ_SESSION));
  ADD ("crash/after-check-latest", test_crash_at_step, GINT_TO_POINTER (NATTER_SESSIONS_STEP_CHECK_LATEST));
  ADD ("crash/between-create-turn-and-turn-appended", test_crash_at_step,
       GINT_TO_POINTER (NATTER_SESSIONS_STEP_CREATE_TURN));
  ADD ("crash/after-turn-appended-before-advance", test_crash_at_step,
       GINT_TO_POINTER (NATTER_SESSIONS_STEP_APPEND));
  ADD ("crash/after-advance-started", test_crash_at_step, GINT_TO_POINTER (NATTER_SESSIONS_STEP_ADVANCE));
  ADD ("order/turn-appended-before-first-advance", test_turn_appended_before_advance, NULL);
  ADD ("input/permission-decision", test_input_permission, NULL);
  ADD ("input/ask-human-answer-and-send-never-routes", test_input_ask_human, NULL);
  ADD ("input/async-tool-result", test_input_async_result, NULL);
  ADD ("input/runtime-rejections-pass-through", test_input_rejections_pass_through, NULL);
  sessions_add_stop_tests ();
  sessions_add_index_tests ();
  sessions_add_damage_tests ();

  return g_test_run ();
}
