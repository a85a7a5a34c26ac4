/* test-sessions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session service against a real turn runtime with a fake model,
 * fake tools and real repos in a temporary directory: sending, with a
 * crash simulated at each step, the order of writes, answers, stop and
 * resume, the index, live events (docs/sessions.md §7, §8, §9, §10),
 * forks, flush, and the title pitfalls. Each test asserts the files on
 * disk and the events.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-session-index-private.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"
#include "natter-test-sessions.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-reducer.h"

#define TIMEOUT_MS 20000

typedef struct
{
  NatterTestSessions  t;            /* first: a Fixture is a NatterTestSessions */
  GPtrArray          *changed;      /* session ids of session-index-changed */
  GPtrArray          *events;       /* "session turn type offset" */
  guint               items_changed;
} Fixture;

static void
changed_cb (NatterSessions *sessions,
            const char     *session_id,
            Fixture        *f)
{
  g_ptr_array_add (f->changed, g_strdup (session_id));
}

static void
turn_event_cb (NatterSessions *sessions,
               const char     *session_id,
               const char     *turn_id,
               JsonObject     *event,
               guint64         offset,
               Fixture        *f)
{
  g_ptr_array_add (f->events, g_strdup_printf ("%s %s %s %" G_GUINT64_FORMAT,
                                               session_id != NULL ? session_id : "null", turn_id,
                                               json_object_get_string_member (event, "type"), offset));
}

static void
items_changed_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Fixture    *f)
{
  f->items_changed++;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  natter_test_sessions_set_up (&f->t, data);
  f->changed = g_ptr_array_new_with_free_func (g_free);
  f->events = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (f->t.sessions, "session-index-changed", G_CALLBACK (changed_cb), f);
  g_signal_connect (f->t.sessions, "turn-event", G_CALLBACK (turn_event_cb), f);
  g_signal_connect (f->t.index, "items-changed", G_CALLBACK (items_changed_cb), f);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  /* Settled advances may still be refreshing their index entry: the
   * support's tear-down waits for them. */
  natter_test_sessions_tear_down (&f->t, data);
  g_ptr_array_unref (f->changed);
  g_ptr_array_unref (f->events);
}

/* Driving */

static gboolean
no_live_advance (NatterTestSessions *t,
                 gconstpointer       data)
{
  return natter_sessions_get_n_live_advances (t->sessions, data) == 0;
}

static JsonObject *
object_literal (const char *literal)
{
  g_autoptr(JsonNode) node = natter_test_json (literal);

  return json_object_ref (json_node_get_object (node));
}

static JsonObject *
user_message (const char *text)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", "user");
  json_object_set_string_member (message, "content", text);
  return message;
}

static char *
send (Fixture    *f,
      const char *session_id,
      const char *text)
{
  g_autoptr(GError) error = NULL;
  char *turn_id = natter_test_sessions_send (&f->t, session_id, text, &error);

  g_assert_no_error (error);
  return turn_id;
}

static JsonObject *
event_at (GPtrArray *events,
          guint      index)
{
  g_assert_cmpuint (index, <, events->len);
  return json_node_get_object (g_ptr_array_index (events, index));
}

static char *
types_of (NatterJsonlRepo *repo,
          const char      *id)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (repo, id);
  g_autoptr(GString) types = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    g_string_append_printf (types, "%s%s", i > 0 ? " " : "",
                            json_object_get_string_member (event_at (events, i), "type"));
  return g_string_free (g_steal_pointer (&types), FALSE);
}

/* The schemaVersion a session file was created with. */
static gint64
created_version (Fixture    *f,
                 const char *id)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->t.w->session_repo, id);

  return json_object_get_int_member (event_at (events, 0), "schemaVersion");
}

#define assert_types(repo, id, expected) \
  G_STMT_START { \
    g_autofree char *types_ = types_of ((repo), (id)); \
    g_assert_cmpstr (types_, ==, (expected)); \
  } G_STMT_END

static guint
n_files (NatterJsonlRepo *repo)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = natter_jsonl_repo_list_ids_sync (repo, NULL, &error);

  g_assert_no_error (error);
  return g_strv_length (ids);
}

static JsonObject *
turn_created (Fixture    *f,
              const char *turn_id)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->t.w->turn_repo, turn_id);

  return json_object_ref (event_at (events, 0));
}

static char *
context_of (Fixture    *f,
            const char *turn_id)
{
  g_autoptr(JsonObject) created = turn_created (f, turn_id);

  return json_to_string (json_object_get_member (created, "context"), FALSE);
}

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

static gboolean
fail_at_step (NatterSessionsStep   step,
              const char          *session_id,
              gpointer             user_data,
              GError             **error)
{
  if (step != (NatterSessionsStep) GPOINTER_TO_INT (user_data))
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE, "simulated crash at step %d", step);
  return FALSE;
}

/* Sends with a simulated crash at @step; returns nothing. */
static void
send_crashing_at (Fixture            *f,
                  const char         *sid,
                  const char         *text,
                  NatterSessionsStep  step)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tid = NULL;

  natter_sessions_set_fault_func (f->t.sessions, fail_at_step, GINT_TO_POINTER (step));
  tid = natter_test_sessions_send (&f->t, sid, text, &error);
  natter_sessions_set_fault_func (f->t.sessions, NULL, NULL);
  g_assert_null (tid);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE);
}

static void
resume (Fixture    *f,
        const char *sid,
        GError    **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *tid = NULL;

  natter_sessions_resume_turn_async (f->t.sessions, sid, NULL, natter_test_result_cb, &result);
  tid = natter_sessions_resume_turn_finish (f->t.sessions, natter_test_sessions_wait_result (&result), error);
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
  assert_not_settled (f, sid, "idle");

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
      assert_not_settled (f, sid, "idle");
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

static JsonObject *
last_of_type (Fixture    *f,
              const char *tid,
              const char *type)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->t.w->turn_repo, tid);

  for (guint i = events->len; i > 0; i--)
    if (g_str_equal (json_object_get_string_member (event_at (events, i - 1), "type"), type))
      return json_object_ref (event_at (events, i - 1));
  g_assert_not_reached ();
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

/* docs/sessions.md §9.3 stopTurn */

static void
stop (Fixture     *f,
      const char  *tid,
      const char  *reason,
      GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  gboolean ok;

  natter_sessions_stop_turn_async (f->t.sessions, tid, reason, NULL, natter_test_result_cb, &result);
  ok = natter_sessions_stop_turn_finish (f->t.sessions, natter_test_sessions_wait_result (&result), error);
  g_assert_true (ok == (error == NULL || *error == NULL));
}

typedef struct
{
  gboolean  done;
  GError   *error;
} Pending;

static void
pending_permission_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Pending *pending = user_data;
  NatterTurnOutcome *outcome;

  outcome = natter_sessions_respond_to_permission_finish (NATTER_SESSIONS (object), result, &pending->error);
  g_clear_pointer (&outcome, natter_turn_outcome_unref);
  pending->done = TRUE;
}

static void
pending_deliver_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Pending *pending = user_data;
  NatterTurnOutcome *outcome;

  outcome = natter_sessions_deliver_async_tool_result_finish (NATTER_SESSIONS (object), result, &pending->error);
  g_clear_pointer (&outcome, natter_turn_outcome_unref);
  pending->done = TRUE;
}

static guint
count_type (Fixture    *f,
            const char *tid,
            const char *type)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->t.w->turn_repo, tid);

  return natter_test_count_type (events, type);
}

static void
test_stop_aborts_every_live_advance (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  Pending queued = { 0 };

  natter_test_sessions_script (&f->t, NATTER_FAKE_STEP_HOLD, NULL);
  tid = send (f, sid, "hi");
  /* A second invocation queues on the turn lock behind the running one. */
  natter_sessions_respond_to_permission_async (f->t.sessions, tid, "X", "allow", NULL, NULL,
                                               pending_permission_cb, &queued);
  g_assert_cmpuint (natter_sessions_get_n_live_advances (f->t.sessions, tid), ==, 2);
  natter_fake_model_wait_held (f->t.w->fakes->model, 1, TIMEOUT_MS);

  stop (f, tid, "ignored", NULL);
  g_assert_cmpuint (natter_sessions_get_n_live_advances (f->t.sessions, tid), ==, 0);
  natter_test_wait_for_flag (&queued.done, TIMEOUT_MS);
  /* The queued one saw the turn ended when the lock freed. */
  g_assert_error (queued.error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_TURN_ENDED);
  g_clear_error (&queued.error);
  g_assert_cmpuint (count_type (f, tid, "turn_cancelled"), ==, 1);
  natter_test_sessions_wait_status (&f->t, sid, "cancelled");
}

static void
test_stop_keeps_later_advance_tracked (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autoptr(JsonObject) tool_result = object_literal ("{\"output\":\"x\",\"isError\":false}");
  g_autoptr(JsonObject) cancelled = NULL;
  Pending first = { 0 };
  Pending second = { 0 };

  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("B", "ab", "{}") "," NATTER_FAKE_CALL ("D", "ad", "{}")),
          NATTER_FAKE_STEP_HOLD, NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");

  /* Two concurrent invocations: the earlier settles (B still pending),
   * the later starts a model call that holds. */
  natter_sessions_deliver_async_tool_result_async (f->t.sessions, tid, "D", tool_result, NULL,
                                                   pending_deliver_cb, &first);
  natter_sessions_deliver_async_tool_result_async (f->t.sessions, tid, "B", tool_result, NULL,
                                                   pending_deliver_cb, &second);
  natter_test_wait_for_flag (&first.done, TIMEOUT_MS);
  g_assert_no_error (first.error);
  g_assert_cmpuint (natter_sessions_get_n_live_advances (f->t.sessions, tid), ==, 1);
  natter_fake_model_wait_held (f->t.w->fakes->model, 1, TIMEOUT_MS);

  stop (f, tid, "by input", NULL);
  natter_test_wait_for_flag (&second.done, TIMEOUT_MS);
  g_assert_no_error (second.error);
  /* Aborted through its cancellable, not a cancel input (which would
   * carry the reason). */
  cancelled = last_of_type (f, tid, "turn_cancelled");
  g_assert_false (json_object_has_member (cancelled, "reason"));
  natter_test_sessions_wait_status (&f->t, sid, "cancelled");
}

static void
untracked_waited_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Pending *pending = user_data;
  NatterTurnOutcome *outcome;

  outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &pending->error);
  g_clear_pointer (&outcome, natter_turn_outcome_unref);
  pending->done = TRUE;
}

typedef struct
{
  Fixture    *f;
  const char *tid;
  gboolean    done;
  GError     *error;
} StopCall;

static void
stop_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  StopCall *call = user_data;

  natter_sessions_stop_turn_finish (NATTER_SESSIONS (object), result, &call->error);
  call->done = TRUE;
}

static void
test_stop_lost_race_is_success (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autoptr(NatterTurnExecution) foreign = NULL;
  const char *tid;
  Pending pending = { 0 };
  StopCall call = { 0 };

  /* A turn advanced by someone else (not tracked by the service). */
  send_crashing_at (f, sid, "hi", NATTER_SESSIONS_STEP_APPEND);
  tid = natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (f->t.index, sid));
  natter_test_sessions_script (&f->t, NATTER_FAKE_STEP_HOLD, NULL);
  foreign = natter_turn_runtime_advance_turn (f->t.w->runtime, tid, NULL, NULL);
  natter_turn_execution_wait_async (foreign, NULL, untracked_waited_cb, &pending);
  natter_fake_model_wait_held (f->t.w->fakes->model, 1, TIMEOUT_MS);

  /* The cancel input queues on the turn lock; the turn completes first. */
  natter_sessions_stop_turn_async (f->t.sessions, tid, "user", NULL, stop_done_cb, &call);
  natter_fake_model_release (f->t.w->fakes->model);
  natter_test_wait_for_flag (&call.done, TIMEOUT_MS);
  g_assert_no_error (call.error);
  natter_test_wait_for_flag (&pending.done, TIMEOUT_MS);
  g_assert_no_error (pending.error);
  g_assert_cmpuint (count_type (f, tid, "turn_completed"), ==, 1);
  g_assert_cmpuint (count_type (f, tid, "turn_cancelled"), ==, 0);
  natter_test_sessions_wait_status (&f->t, sid, "completed");
}

static void
test_stop_rejection_surfaces (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *ghost = natter_id_generator_next (f->t.w->ids);
  g_autoptr(GError) error = NULL;

  stop (f, ghost, NULL, &error);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
}

static void
test_stop_suspended_with_input (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autoptr(JsonObject) cancelled = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("B", "ab", "{}")), NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");
  natter_test_sessions_wait_until (&f->t, no_live_advance, tid);
  stop (f, tid, "user", NULL);
  cancelled = last_of_type (f, tid, "turn_cancelled");
  g_assert_cmpstr (json_object_get_string_member (cancelled, "reason"), ==, "user");
  natter_test_sessions_wait_status (&f->t, sid, "cancelled");
}

/* docs/sessions.md §8 index */

static NatterSessionIndex *
fresh_scan (Fixture *f)
{
  NatterSessionIndex *index = natter_session_index_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_session_index_load_async (index, f->t.w->session_repo, f->t.w->turn_repo, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_session_index_load_finish (index, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  return index;
}

static void
test_fold_equals_write_through (Fixture       *f,
                                gconstpointer  data)
{
  const char *statuses[] = { "none", "completed", "failed", "cancelled", "suspended", "idle" };
  char *ids[G_N_ELEMENTS (statuses)] = { NULL };
  g_autofree char *tid = NULL;
  g_autofree char *cancelled_tid = NULL;
  g_autoptr(NatterSessionIndex) scanned = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_STEP_ERROR,
          NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("B", "ab", "{}")),
          NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("B", "ab", "{}")), NULL);
  for (guint i = 0; i < G_N_ELEMENTS (statuses); i++)
    ids[i] = natter_test_sessions_create_full (&f->t, i == 0 ? "empty" : NULL, i == 1 ? "/home/me" : NULL);
  g_free (send (f, ids[1], "done"));
  natter_test_sessions_wait_status (&f->t, ids[1], "completed");
  g_free (send (f, ids[2], "fails"));
  natter_test_sessions_wait_status (&f->t, ids[2], "failed");
  cancelled_tid = send (f, ids[3], "to cancel");
  natter_test_sessions_wait_status (&f->t, ids[3], "suspended");
  natter_test_sessions_wait_until (&f->t, no_live_advance, cancelled_tid);
  stop (f, cancelled_tid, NULL, NULL);
  natter_test_sessions_wait_status (&f->t, ids[3], "cancelled");
  tid = send (f, ids[4], "waits");
  natter_test_sessions_wait_status (&f->t, ids[4], "suspended");
  send_crashing_at (f, ids[5], "crashed", NATTER_SESSIONS_STEP_APPEND);

  scanned = fresh_scan (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (scanned)), ==, G_N_ELEMENTS (statuses));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->t.index)), ==, G_N_ELEMENTS (statuses));
  for (guint i = 0; i < G_N_ELEMENTS (statuses); i++)
    {
      NatterSessionIndexEntry *live = natter_session_index_lookup (f->t.index, ids[i]);
      NatterSessionIndexEntry *folded = natter_session_index_lookup (scanned, ids[i]);
      g_autoptr(NatterSessionIndexEntry) at = g_list_model_get_item (G_LIST_MODEL (scanned), i);

      g_assert_true (at == folded);
      g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (folded), ==, statuses[i]);
      g_assert_true (natter_session_index_entry_equal (live, folded));
    }
  g_assert_cmpstr (natter_session_index_entry_get_cwd (natter_session_index_lookup (scanned, ids[1])),
                   ==, "/home/me");
  for (guint i = 0; i < G_N_ELEMENTS (statuses); i++)
    g_free (ids[i]);
}

static void
corrupt_file (NatterJsonlRepo *repo,
              const char      *id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (repo, id, NULL);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *contents = NULL;
  g_autofree char *torn = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  torn = g_strconcat (contents, "{\"type\":\"title_ch", NULL);
  g_assert_true (g_file_set_contents (path, torn, -1, NULL));
}

static void
test_corrupt_entries (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *good = natter_test_sessions_create_titled (&f->t, "good");
  g_autofree char *bad_session = natter_test_sessions_create_titled (&f->t, "bad");
  g_autofree char *bad_turn = natter_test_sessions_create_titled (&f->t, "bad turn");
  g_autofree char *tid = NULL;
  g_autoptr(NatterSessionIndex) scanned = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionIndexEntry *entry;
  g_autoptr(JsonNode) json = NULL;
  JsonObject *object;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, bad_turn, "hi");
  natter_test_sessions_wait_status (&f->t, bad_turn, "completed");
  corrupt_file (f->t.w->session_repo, bad_session);
  corrupt_file (f->t.w->turn_repo, tid);

  scanned = fresh_scan (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (scanned)), ==, 3);
  g_assert_null (natter_session_index_entry_get_error (natter_session_index_lookup (scanned, good)));

  entry = natter_session_index_lookup (scanned, bad_session);
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), "torn"));
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "none");
  json = natter_session_index_entry_to_json (entry);
  object = json_node_get_object (json);
  g_assert_true (json_object_has_member (object, "error"));
  g_assert_cmpstr (json_object_get_string_member (object, "createdAt"), ==,
                   natter_session_index_entry_get_created_at (natter_session_index_lookup (f->t.index, bad_session)));

  entry = natter_session_index_lookup (scanned, bad_turn);
  g_assert_nonnull (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "bad turn");
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, 1);

  /* An errored session is excluded from interaction. */
  g_assert_null (natter_test_sessions_send (&f->t, bad_session, "x", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT);
  g_clear_error (&error);
  g_assert_null (natter_test_sessions_send (&f->t, bad_turn, "x", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT);
}

static gboolean
has_changed (Fixture    *f,
             const char *sid)
{
  for (guint i = 0; i < f->changed->len; i++)
    if (g_str_equal (g_ptr_array_index (f->changed, i), sid))
      return TRUE;
  return FALSE;
}

static gboolean
delete_session (Fixture     *f,
                const char  *sid,
                GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_delete_session_async (f->t.sessions, sid, NULL, natter_test_result_cb, &result);
  return natter_sessions_delete_session_finish (f->t.sessions, natter_test_sessions_wait_result (&result), error);
}

static void
set_title (Fixture    *f,
           const char *sid,
           const char *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_title_async (f->t.sessions, sid, title, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_title_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
}

static void
test_mutations_publish (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *sid = NULL;
  g_autofree char *tid = NULL;
  g_autoptr(GError) error = NULL;
  guint turns;

  sid = natter_test_sessions_create (&f->t);
  g_assert_true (has_changed (f, sid));
  g_assert_cmpuint (f->items_changed, ==, 1);

  g_ptr_array_set_size (f->changed, 0);
  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "hi");
  g_assert_true (has_changed (f, sid));            /* the append */
  g_ptr_array_set_size (f->changed, 0);
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  g_assert_true (has_changed (f, sid));            /* the settled outcome */

  g_ptr_array_set_size (f->changed, 0);
  set_title (f, sid, "Renamed");
  g_assert_true (has_changed (f, sid));
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (f->t.index, sid)),
                   ==, "Renamed");

  /* Deletion removes the entry and the session file, never turn files. */
  g_ptr_array_set_size (f->changed, 0);
  turns = n_files (f->t.w->turn_repo);
  g_assert_true (delete_session (f, sid, NULL));
  g_assert_true (has_changed (f, sid));
  g_assert_null (natter_session_index_lookup (f->t.index, sid));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->t.index)), ==, 0);
  g_assert_cmpuint (n_files (f->t.w->session_repo), ==, 0);
  g_assert_cmpuint (n_files (f->t.w->turn_repo), ==, turns);
  assert_types (f->t.w->turn_repo, tid, "turn_created model_call_requested model_call_completed turn_completed");

  g_assert_false (delete_session (f, sid, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND);
}

/* docs/sessions.md §10 event forwarding */

static void
status_notify_cb (NatterSessionIndexEntry *entry,
                  GParamSpec              *pspec,
                  GPtrArray               *seen)
{
  g_ptr_array_add (seen, g_strdup (natter_session_index_entry_get_latest_turn_status (entry)));
}

static void
test_events_tagged_in_order (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autoptr(GPtrArray) file = NULL;
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  NatterSessionIndexEntry *entry = natter_session_index_lookup (f->t.index, sid);

  g_signal_connect (entry, "notify::latest-turn-status", G_CALLBACK (status_notify_cb), seen);
  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("A", "sa", "{}")), NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  g_signal_handlers_disconnect_by_data (entry, seen);

  file = natter_test_sessions_read (f->t.w->turn_repo, tid);
  g_assert_cmpuint (f->events->len, ==, file->len - 1);
  for (guint i = 0; i < f->events->len; i++)
    {
      g_autofree char *expected = g_strdup_printf ("%s %s %s %u", sid, tid,
                                                   json_object_get_string_member (event_at (file, i + 1), "type"),
                                                   i + 2);

      g_assert_cmpstr (g_ptr_array_index (f->events, i), ==, expected);
    }
  /* Settlement moved the entry from idle (referenced) to completed. */
  g_assert_cmpuint (seen->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (seen, 0), ==, "idle");
  g_assert_cmpstr (g_ptr_array_index (seen, 1), ==, "completed");
}

/* Forks, flush, titles */

static char *
fork_session (Fixture     *f,
              const char  *sid,
              const char  *tid,
              GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_fork_async (f->t.sessions, sid, tid, NULL, NULL, natter_test_result_cb, &result);
  return natter_sessions_fork_finish (f->t.sessions, natter_test_sessions_wait_result (&result), error);
}

static void
test_fork (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *parent = natter_test_sessions_create_full (&f->t, NULL, "/srv/project");
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *child = NULL;
  g_autofree char *child_turn = NULL;
  g_autofree char *context = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *parent_before = NULL;
  g_autofree char *parent_after = NULL;
  g_autofree char *refused = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionIndexEntry *entry;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  t1 = send (f, parent, "one");
  natter_test_sessions_wait_status (&f->t, parent, "completed");
  t2 = send (f, parent, "two");
  natter_test_sessions_wait_status (&f->t, parent, "completed");
  parent_before = types_of (f->t.w->session_repo, parent);

  child = fork_session (f, parent, t1, &error);
  g_assert_no_error (error);
  /* The lowest version that expresses it (docs/format.md §3.3). */
  g_assert_cmpint (created_version (f, child), ==, 1);
  state = natter_test_sessions_get (&f->t, child);
  g_assert_cmpstr (natter_session_state_get_parent_session (state), ==, parent);
  g_assert_cmpstr (natter_session_state_get_forked_from_turn_id (state), ==, t1);
  g_assert_cmpstr (natter_session_state_get_cwd (state), ==, "/srv/project");
  entry = natter_session_index_lookup (f->t.index, child);
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, parent);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "none");

  child_turn = send (f, child, "branch");
  context = context_of (f, child_turn);
  expected = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", t1);
  g_assert_cmpstr (context, ==, expected);
  natter_test_sessions_wait_status (&f->t, child, "completed");
  parent_after = types_of (f->t.w->session_repo, parent);
  g_assert_cmpstr (parent_before, ==, parent_after);

  /* A turn of another session is not a fork point of this one. */
  refused = fork_session (f, child, t2, &error);
  g_assert_null (refused);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND);
}

static void
test_fork_unsettled_refused (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autofree char *child = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("B", "ab", "{}")), NULL);
  tid = send (f, sid, "hi");
  natter_test_sessions_wait_status (&f->t, sid, "suspended");
  child = fork_session (f, sid, NULL, &error);
  g_assert_null (child);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED);
}

typedef struct
{
  Fixture  *f;
  char     *sid;
  gboolean  flushed;
} FlushCheck;

static void
flushed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  FlushCheck *check = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_sessions_flush_finish (NATTER_SESSIONS (object), result, &error));
  /* Everything begun before the flush is on disk now. */
  assert_types (check->f->t.w->session_repo, check->sid,
                "session_created title_changed turn_appended");
  check->flushed = TRUE;
}

static void
ignore_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (user_data == natter_sessions_set_title_async)
    natter_sessions_set_title_finish (NATTER_SESSIONS (object), result, &error);
  else
    g_free (natter_sessions_send_message_finish (NATTER_SESSIONS (object), result, &error));
  g_assert_no_error (error);
}

static void
test_flush (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autoptr(JsonObject) input = user_message ("hi");
  g_autoptr(NatterSendOptions) config = natter_test_send_options ("helper", NULL, NULL);
  FlushCheck check = { f, sid, FALSE };
  g_autoptr(GAsyncResult) idle = NULL;

  /* Nothing in flight: a flush completes at once. */
  natter_sessions_flush_async (f->t.sessions, NULL, natter_test_result_cb, &idle);
  g_assert_true (natter_sessions_flush_finish (f->t.sessions, natter_test_sessions_wait_result (&idle), NULL));

  natter_test_sessions_script (&f->t, NATTER_FAKE_STEP_HOLD, NULL);
  natter_sessions_set_title_async (f->t.sessions, sid, "Mine", NULL, ignore_cb, natter_sessions_set_title_async);
  natter_sessions_send_message_async (f->t.sessions, sid, input, config, NULL, ignore_cb, NULL);
  natter_sessions_flush_async (f->t.sessions, NULL, flushed_cb, &check);
  natter_test_wait_for_flag (&check.flushed, TIMEOUT_MS);

  /* A flush never waits for the model. */
  natter_fake_model_wait_held (f->t.w->fakes->model, 1, TIMEOUT_MS);
  natter_fake_model_release (f->t.w->fakes->model);
  natter_test_sessions_wait_status (&f->t, sid, "completed");
}

static void
test_pitfall_titles (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *long_title = g_strnfill (5000, 'a');
  const char *titles[] = { "", "/", "..", long_title, "plain" };
  char *ids[G_N_ELEMENTS (titles)] = { NULL };

  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    ids[i] = natter_test_sessions_create_full (&f->t, titles[i], NULL);
  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    {
      g_autoptr(NatterSessionState) state = natter_test_sessions_get (&f->t, ids[i]);

      g_assert_cmpstr (natter_session_state_get_title (state), ==, titles[i]);
      g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (f->t.index, ids[i])),
                       ==, titles[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    {
      g_assert_true (delete_session (f, ids[i], NULL));
      g_assert_cmpuint (n_files (f->t.w->session_repo), ==, G_N_ELEMENTS (titles) - i - 1);
      for (guint j = i + 1; j < G_N_ELEMENTS (titles); j++)
        {
          g_autoptr(NatterSessionState) state = natter_test_sessions_get (&f->t, ids[j]);

          g_assert_cmpstr (natter_session_state_get_title (state), ==, titles[j]);
        }
    }
  /* The storage dir itself is intact. */
  g_assert_true (g_file_query_exists (f->t.w->storage, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    g_free (ids[i]);
}

static void
test_rename_then_send (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *renamed = natter_test_sessions_create (&f->t);
  g_autofree char *empty_title = natter_test_sessions_create_titled (&f->t, "");
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;

  set_title (f, renamed, "Mine");
  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  t1 = send (f, renamed, "hello");
  natter_test_sessions_wait_status (&f->t, renamed, "completed");
  assert_types (f->t.w->session_repo, renamed, "session_created title_changed turn_appended");
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (f->t.index, renamed)),
                   ==, "Mine");

  /* A title set to "" at creation is the user's too. */
  t2 = send (f, empty_title, "hello");
  natter_test_sessions_wait_status (&f->t, empty_title, "completed");
  assert_types (f->t.w->session_repo, empty_title, "session_created turn_appended");
}

static void
test_title_derivation (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *long_line = g_strnfill (100, 'x');
  g_autofree char *long_text = g_strdup_printf ("\n\n %s \nrest", long_line);
  g_autoptr(JsonObject) plain = user_message ("  Fix the build  \nplease");
  g_autoptr(JsonObject) wide = user_message (long_text);
  g_autoptr(JsonObject) blank = user_message (" \n\t\n");
  g_autoptr(JsonObject) parts = object_literal ("{\"role\":\"user\",\"content\":[{\"type\":\"image\"},"
                                                "{\"type\":\"text\",\"text\":\"Caption\"}]}");
  g_autofree char *a = natter_derive_session_title (plain);
  g_autofree char *b = natter_derive_session_title (wide);
  g_autofree char *c = natter_derive_session_title (blank);
  g_autofree char *d = natter_derive_session_title (parts);

  g_assert_cmpstr (a, ==, "Fix the build");
  g_assert_cmpuint (g_utf8_strlen (b, -1), ==, NATTER_SESSION_TITLE_MAX_CHARS + 1);
  g_assert_true (g_str_has_suffix (b, "…"));
  g_assert_null (c);
  g_assert_cmpstr (d, ==, "Caption");
}

static void
test_create_rejects_bad_cwd (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;

  natter_sessions_create_session_async (f->t.sessions, NULL, "relative/path", NULL, NULL, NULL, natter_test_result_cb, &result);
  id = natter_sessions_create_session_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_null (id);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (n_files (f->t.w->session_repo), ==, 0);
}

/* A process restart over the same files: a new turn runtime (with an
 * empty context cache) and a new session service. */
static void
restart (Fixture *f)
{
  g_autoptr(NatterToolRegistry) tools = natter_fake_tools_new ();
  g_autoptr(NatterTurnContextResolver) contexts = natter_turn_context_resolver_new (f->t.w->turn_repo);
  NatterTurnRuntime *old = f->t.w->runtime;

  natter_test_sessions_wait_idle (&f->t);
  natter_test_drain_main_context ();
  natter_test_wait_finalized (f->t.sessions, TIMEOUT_MS);
  f->t.w->runtime = natter_turn_runtime_new (f->t.w->turn_repo, f->t.w->ids, NATTER_CLOCK (f->t.w->clock),
                                           NATTER_AGENT_RESOLVER (f->t.w->fakes),
                                           NATTER_MODEL_REGISTRY (f->t.w->fakes), tools,
                                           NATTER_CONTEXT_RESOLVER (contexts),
                                           NATTER_PERMISSION_CHECKER (f->t.w->fakes),
                                           NATTER_PERMISSION_CLASSIFIER (f->t.w->fakes),
                                           f->t.w->hub, NULL, 0);
  natter_test_wait_finalized (old, TIMEOUT_MS);
  f->t.sessions = natter_sessions_new (f->t.w->session_repo, f->t.w->turn_repo, f->t.w->runtime, f->t.w->hub,
                                     NATTER_CLOCK (f->t.w->clock), f->t.w->ids, f->t.index);
  g_signal_connect (f->t.sessions, "session-index-changed", G_CALLBACK (changed_cb), f);
  g_signal_connect (f->t.sessions, "turn-event", G_CALLBACK (turn_event_cb), f);
}

static char *
turn_path (Fixture    *f,
           const char *turn_id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->t.w->turn_repo, turn_id, NULL);

  return g_file_get_path (file);
}

static void inspect_cb (GObject *object, GAsyncResult *result, gpointer user_data);

/* An earlier turn's file damaged (or gone) after a restart: the history
 * the next message continues cannot be read whole. The message is
 * refused — no turn is made, the session file is not touched — naming
 * the file (and line), and so is every later one: a turn with a
 * silently shortened history is never made. The way out is a copy of
 * the readable part, which ends before the damaged turn. The damaged
 * file stays as it is. */
static void
test_unreadable_earlier_turn (Fixture       *f,
                              gconstpointer  data)
{
  gboolean missing = GPOINTER_TO_INT (data);
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *path = NULL;
  g_autofree char *damaged = NULL;
  g_autofree char *after = NULL;
  g_autofree char *log_before = NULL;
  g_autofree char *log_after = NULL;
  g_autofree char *session_path = NULL;
  g_autoptr(GFile) session_file = natter_jsonl_repo_get_file (f->t.w->session_repo, sid, NULL);
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  guint turn_files;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  three = send (f, sid, "three");
  natter_test_sessions_wait_status (&f->t, sid, "completed");

  path = turn_path (f, one);
  if (missing)
    g_assert_cmpint (g_unlink (path), ==, 0);
  else
    {
      corrupt_file (f->t.w->turn_repo, one);
      g_assert_true (g_file_get_contents (path, &damaged, NULL, NULL));
    }
  restart (f);
  session_path = g_file_get_path (session_file);
  g_assert_true (g_file_get_contents (session_path, &log_before, NULL, NULL));
  turn_files = n_files (f->t.w->turn_repo);

  /* Sent twice, as a person trying again would: refused both times. */
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *refused = natter_test_sessions_send (&f->t, sid, "four", &error);

      g_assert_null (refused);
      g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
      g_assert_nonnull (strstr (error->message, path));
      if (!missing)
        {
          g_autofree char *with_line = g_strdup_printf ("%s:5:", path);

          g_assert_nonnull (strstr (error->message, with_line));
        }
      g_clear_error (&error);
    }
  g_assert_cmpuint (n_files (f->t.w->turn_repo), ==, turn_files);
  g_assert_true (g_file_get_contents (session_path, &log_after, NULL, NULL));
  g_assert_cmpstr (log_after, ==, log_before);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (f->t.index, sid)), ==,
                   three);

  /* The way out: the readable part, which ends before the first turn. */
  natter_sessions_recover_async (f->t.sessions, sid, NULL, natter_test_result_cb, &result);
  copy = natter_sessions_recover_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  state = natter_test_sessions_get (&f->t, copy);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 0);

  if (!missing)
    {
      g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
      g_assert_cmpstr (after, ==, damaged);
    }
  else
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* A branch at a turn that cannot be read would continue a history no
 * message of it could be sent on: refused as a damaged history (the way
 * a new version of the message after it is refused, docs/sessions.md §2),
 * and no session is made. */
static void
test_fork_at_unreadable_turn (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *branch = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  guint sessions;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  corrupt_file (f->t.w->turn_repo, one);
  restart (f);
  sessions = n_files (f->t.w->session_repo);

  branch = fork_session (f, sid, one, &error);
  g_assert_null (branch);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
  path = turn_path (f, one);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_cmpuint (n_files (f->t.w->session_repo), ==, sessions);
}

/* An earlier turn whose lines are each well formed but out of order (an
 * event after its terminal one): the history cannot be read either, and
 * the refusal names the file and the line, as for a torn line. */
static void
test_earlier_turn_out_of_order (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *path = NULL;
  g_autofree char *late = NULL;
  g_autofree char *with_line = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  path = turn_path (f, one);
  late = g_strdup_printf ("{\"type\":\"turn_cancelled\",\"turnId\":\"%s\",\"ts\":\"2026-11-18T11:10:00.000Z\","
                          "\"usage\":{}}\n", one);
  natter_test_append_file (path, late);
  restart (f);

  g_free (natter_test_sessions_send (&f->t, sid, "three", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
  with_line = g_strdup_printf ("%s:5:", path);
  g_assert_nonnull (strstr (error->message, with_line));
}

/* The damage in the middle: the readable part is every turn before it,
 * and the copy goes on from there with the whole of that history. */
static void
test_recover_before_damaged_middle_turn (Fixture       *f,
                                         gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *next = NULL;
  g_autofree char *context = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *damage_path = NULL;
  g_autofree char *path = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionDamage) damage = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  three = send (f, sid, "three");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  set_title (f, sid, "Chosen");
  corrupt_file (f->t.w->turn_repo, two);
  path = turn_path (f, two);
  restart (f);

  natter_sessions_inspect_damage_async (f->t.sessions, sid, NULL, inspect_cb, &result);
  damage = natter_sessions_inspect_damage_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  damage_path = g_file_get_path (damage->file);
  g_assert_cmpstr (damage_path, ==, path);
  g_assert_cmpuint (damage->n_turns, ==, 1);

  natter_sessions_recover_async (f->t.sessions, sid, NULL, natter_test_result_cb, &result);
  copy = natter_sessions_recover_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  state = natter_test_sessions_get (&f->t, copy);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==, one);
  /* The copy has the conversation's title, and it is nobody's default:
   * no automatic title will replace it. */
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Chosen");
  g_assert_false (natter_session_state_get_title_is_default (state));

  next = send (f, copy, "again");
  natter_test_sessions_wait_status (&f->t, copy, "completed");
  context = context_of (f, next);
  expected = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", one);
  g_assert_cmpstr (context, ==, expected);
}

/* A turn_appended whose turn file is missing is a dangling reference:
 * corruption (docs/sessions.md §7), said as such, naming the file. */
static void
test_dangling_latest_turn (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autofree char *path = NULL;
  g_autoptr(NatterSessionIndex) scanned = NULL;
  g_autoptr(GError) error = NULL;
  const char *message;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  path = turn_path (f, tid);
  g_assert_cmpint (g_unlink (path), ==, 0);

  scanned = fresh_scan (f);
  message = natter_session_index_entry_get_error (natter_session_index_lookup (scanned, sid));
  g_assert_nonnull (message);
  g_assert_nonnull (strstr (message, "damaged"));
  g_assert_nonnull (strstr (message, path));

  restart (f);
  g_free (natter_test_sessions_send (&f->t, sid, "two", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "damaged"));
  g_assert_nonnull (strstr (error->message, path));
}

/* A directory where a session file should be: listed, as damaged. */
static void
test_directory_as_session (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *good = natter_test_sessions_create_titled (&f->t, "good");
  g_autofree char *gone = natter_test_sessions_create_titled (&f->t, "gone");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->t.w->session_repo, gone, NULL);
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(NatterSessionIndex) scanned = NULL;
  NatterSessionIndexEntry *entry;

  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);

  scanned = fresh_scan (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (scanned)), ==, 2);
  g_assert_null (natter_session_index_entry_get_error (natter_session_index_lookup (scanned, good)));
  entry = natter_session_index_lookup (scanned, gone);
  g_assert_nonnull (entry);
  g_assert_nonnull (natter_session_index_entry_get_error (entry));
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), path));
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), "is a directory"));
  g_assert_cmpint (g_rmdir (path), ==, 0);
}

/* An interrupted turn whose history became unreadable: resuming it ends
 * it (failed, naming the file) instead of failing the same way for ever. */
static void
test_resume_unreadable_context (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  const char *latest;
  JsonObject *terminal;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  send_crashing_at (f, sid, "two", NATTER_SESSIONS_STEP_APPEND);
  path = turn_path (f, one);
  corrupt_file (f->t.w->turn_repo, one);
  restart (f);

  resume (f, sid, &error);
  g_assert_no_error (error);
  natter_test_sessions_wait_status (&f->t, sid, "failed");
  latest = natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (f->t.index, sid));
  events = natter_test_sessions_read (f->t.w->turn_repo, latest);
  terminal = event_at (events, events->len - 1);
  g_assert_cmpstr (json_object_get_string_member (terminal, "code"), ==, NATTER_TURN_FAILED_CONTEXT_UNREADABLE);
  g_assert_nonnull (strstr (json_object_get_string_member (terminal, "error"), path));

  /* The history is still damaged: the next message is refused. */
  g_free (natter_test_sessions_send (&f->t, sid, "three", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
  g_assert_nonnull (strstr (error->message, path));
}

static void
inspect_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Replaces line @n (1-based) of @path with @text. */
static void
damage_line (const char *path,
             guint       n,
             const char *text)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *joined = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), >, n);
  g_free (lines[n - 1]);
  lines[n - 1] = g_strdup (text);
  joined = g_strjoinv ("\n", lines);
  g_assert_true (g_file_set_contents (path, joined, -1, NULL));
}

/* A damaged session: what is left of it is found (title, file, line,
 * reason), and copied to a new session whose turns are the readable
 * prefix's; the damaged file is byte for byte what it was. */
static void
test_recover_readable_prefix (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *next = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *path = NULL;
  g_autofree char *damage_path = NULL;
  g_autofree char *context = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->t.w->session_repo, sid, NULL);
  g_autoptr(NatterSessionIndex) scanned = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionDamage) damage = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionIndexEntry *entry;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  three = send (f, sid, "three");
  natter_test_sessions_wait_status (&f->t, sid, "completed");

  /* session_created, turn_appended, title_changed, turn_appended ×2:
   * the second turn_appended is damaged. */
  path = g_file_get_path (file);
  damage_line (path, 4, "{\"type\":\"turn_appended\",");
  g_assert_true (g_file_get_contents (path, &before, NULL, NULL));

  scanned = fresh_scan (f);
  entry = natter_session_index_lookup (scanned, sid);
  g_assert_nonnull (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "one");

  natter_sessions_inspect_damage_async (f->t.sessions, sid, NULL, inspect_cb, &result);
  damage = natter_sessions_inspect_damage_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_cmpstr (damage->title, ==, "one");
  damage_path = g_file_get_path (damage->file);
  g_assert_cmpstr (damage_path, ==, path);
  g_assert_cmpuint (damage->line, ==, 4);
  g_assert_nonnull (damage->reason);
  g_assert_cmpuint (damage->n_turns, ==, 1);
  g_assert_true (damage->can_copy);

  natter_sessions_recover_async (f->t.sessions, sid, NULL, natter_test_result_cb, &result);
  copy = natter_sessions_recover_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (copy);
  g_assert_cmpstr (copy, !=, sid);
  g_assert_cmpint (created_version (f, copy), ==, 1);

  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);

  state = natter_test_sessions_get (&f->t, copy);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpstr (natter_session_state_get_turn (state, 0)->turn_id, ==, one);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "one");
  entry = natter_session_index_lookup (f->t.index, copy);
  g_assert_nonnull (entry);
  g_assert_null (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "completed");
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "one");

  /* The copy goes on from its last turn. */
  next = send (f, copy, "four");
  natter_test_sessions_wait_status (&f->t, copy, "completed");
  context = context_of (f, next);
  expected = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", one);
  g_assert_cmpstr (context, ==, expected);
  g_clear_pointer (&after, g_free);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
}

/* The session log whole but its latest turn's damaged: the damage is
 * that turn file, and the copy is everything before it. */
static void
test_recover_without_damaged_latest_turn (Fixture       *f,
                                          gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *path = NULL;
  g_autofree char *damage_path = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionDamage) damage = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  corrupt_file (f->t.w->turn_repo, two);
  path = turn_path (f, two);

  natter_sessions_inspect_damage_async (f->t.sessions, sid, NULL, inspect_cb, &result);
  damage = natter_sessions_inspect_damage_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  damage_path = g_file_get_path (damage->file);
  g_assert_cmpstr (damage_path, ==, path);
  g_assert_cmpuint (damage->line, ==, 5);
  g_assert_cmpuint (damage->n_turns, ==, 1);

  natter_sessions_recover_async (f->t.sessions, sid, NULL, natter_test_result_cb, &result);
  copy = natter_sessions_recover_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  state = natter_test_sessions_get (&f->t, copy);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==, one);
}

/* docs/sessions.md §9 getSession: requests made before a read begins share it
 * (opening a conversation asks from several views at once); a request made
 * after a write finished never joins a read begun before it; one requester
 * cancelling does not fail the others. */
static void
test_get_session_shared_read (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create_titled (&f->t, "Before");
  g_autofree char *ghost = natter_id_generator_next (f->t.w->ids);
  g_autoptr(GAsyncResult) a = NULL;
  g_autoptr(GAsyncResult) b = NULL;
  g_autoptr(GAsyncResult) c = NULL;
  g_autoptr(GAsyncResult) d = NULL;
  g_autoptr(GAsyncResult) renamed = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(NatterSessionState) state_a = NULL;
  g_autoptr(NatterSessionState) state_b = NULL;
  g_autoptr(NatterSessionState) state_c = NULL;
  g_autoptr(NatterSessionState) state_d = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_get_session_async (f->t.sessions, sid, NULL, natter_test_result_cb, &a);
  natter_sessions_get_session_async (f->t.sessions, sid, cancellable, natter_test_result_cb, &b);
  g_cancellable_cancel (cancellable);
  natter_sessions_get_session_async (f->t.sessions, sid, NULL, natter_test_result_cb, &c);
  state_a = natter_sessions_get_session_finish (f->t.sessions, natter_test_sessions_wait_result (&a), &error);
  g_assert_no_error (error);
  state_b = natter_sessions_get_session_finish (f->t.sessions, natter_test_sessions_wait_result (&b), &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (state_b);
  g_clear_error (&error);
  state_c = natter_sessions_get_session_finish (f->t.sessions, natter_test_sessions_wait_result (&c), &error);
  g_assert_no_error (error);
  /* One read: the very same state. */
  g_assert_true (state_a == state_c);
  g_assert_cmpstr (natter_session_state_get_title (state_a), ==, "Before");

  /* A read begins; a rename finishes while it may still run; a request
   * after the rename sees it. */
  g_clear_object (&a);
  natter_sessions_get_session_async (f->t.sessions, sid, NULL, natter_test_result_cb, &a);
  natter_sessions_set_title_async (f->t.sessions, sid, "After", NULL, natter_test_result_cb, &renamed);
  g_assert_true (natter_sessions_set_title_finish (f->t.sessions, natter_test_sessions_wait_result (&renamed), &error));
  g_assert_no_error (error);
  natter_sessions_get_session_async (f->t.sessions, sid, NULL, natter_test_result_cb, &d);
  state_d = natter_sessions_get_session_finish (f->t.sessions, natter_test_sessions_wait_result (&d), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (natter_session_state_get_title (state_d), ==, "After");
  g_clear_pointer (&state_a, natter_session_state_unref);
  state_a = natter_sessions_get_session_finish (f->t.sessions, natter_test_sessions_wait_result (&a), &error);
  g_assert_no_error (error);
  g_assert_true (state_a != state_d);

  /* A session that is not there fails every requester alike. */
  g_clear_object (&a);
  g_clear_object (&b);
  natter_sessions_get_session_async (f->t.sessions, ghost, NULL, natter_test_result_cb, &a);
  natter_sessions_get_session_async (f->t.sessions, ghost, NULL, natter_test_result_cb, &b);
  g_assert_null (natter_sessions_get_session_finish (f->t.sessions, natter_test_sessions_wait_result (&a), &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (natter_sessions_get_session_finish (f->t.sessions, natter_test_sessions_wait_result (&b), &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func, data) \
  g_test_add ("/sessions/" path, Fixture, data, fixture_set_up, func, fixture_tear_down)

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
  ADD ("send/create-rejects-bad-cwd", test_create_rejects_bad_cwd, NULL);
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
  ADD ("stop/aborts-every-live-advance", test_stop_aborts_every_live_advance, NULL);
  ADD ("stop/earlier-settle-keeps-later-tracked", test_stop_keeps_later_advance_tracked, NULL);
  ADD ("stop/cancel-that-lost-the-race-succeeds", test_stop_lost_race_is_success, NULL);
  ADD ("stop/non-terminal-rejection-surfaces", test_stop_rejection_surfaces, NULL);
  ADD ("stop/suspended-turn-gets-cancel-input", test_stop_suspended_with_input, NULL);
  ADD ("index/fold-equals-write-through-every-status", test_fold_equals_write_through, NULL);
  ADD ("index/corrupt-session-and-latest-turn-are-errored", test_corrupt_entries, NULL);
  ADD ("index/mutations-publish-and-delete-keeps-turns", test_mutations_publish, NULL);
  ADD ("index/dangling-latest-turn-is-damage", test_dangling_latest_turn, NULL);
  ADD ("index/directory-as-session-is-damaged", test_directory_as_session, NULL);
  ADD ("send/damaged-earlier-turn-refused", test_unreadable_earlier_turn, GINT_TO_POINTER (FALSE));
  ADD ("fork/at-a-damaged-turn-is-a-damaged-history", test_fork_at_unreadable_turn, NULL);
  ADD ("send/missing-earlier-turn-refused", test_unreadable_earlier_turn, GINT_TO_POINTER (TRUE));
  ADD ("send/resume-with-damaged-history-fails-then-refuses", test_resume_unreadable_context, NULL);
  ADD ("recover/copies-readable-prefix-leaves-file", test_recover_readable_prefix, NULL);
  ADD ("recover/leaves-out-damaged-latest-turn", test_recover_without_damaged_latest_turn, NULL);
  ADD ("recover/ends-before-damaged-middle-turn", test_recover_before_damaged_middle_turn, NULL);
  ADD ("send/earlier-turn-out-of-order-named", test_earlier_turn_out_of_order, NULL);
  ADD ("events/tagged-in-order-and-settlement-updates-status", test_events_tagged_in_order, NULL);
  ADD ("fork/first-turn-references-fork-point", test_fork, NULL);
  ADD ("fork/unsettled-turn-refused", test_fork_unsettled_refused, NULL);
  ADD ("flush/waits-for-begun-operations-only", test_flush, NULL);
  ADD ("titles/pitfall-4-odd-titles-delete-one-each", test_pitfall_titles, NULL);
  ADD ("titles/pitfall-6-user-title-stays", test_rename_then_send, NULL);
  ADD ("titles/derivation", test_title_derivation, NULL);
  ADD ("get-session/requests-before-the-read-share-it", test_get_session_shared_read, NULL);

  return g_test_run ();
}
