/* test-queue.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Queued messages (docs/sessions.md §4; docs/format.md §3.3,
 * §3.4) through the session service, a real runtime and a fake model:
 * FIFO promotion after a completed turn only, edits and removals, the
 * session lock, and recovery of a promotion lost between settling and
 * promoting, without sending anything twice.
 */

#include <string.h>

#include "natter-session-grants-queue.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-queue.h"
#include "natter-test-sessions.h"

typedef NatterTestSessions Fixture;

static JsonObject *
user_message (const char *text)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", "user");
  json_object_set_string_member (message, "content", text);
  return message;
}

static char *
queue (Fixture    *f,
       const char *sid,
       const char *text,
       gboolean    only_if_busy)
{
  g_autoptr(JsonObject) input = user_message (text);
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *id;

  natter_sessions_queue_message_async (f->sessions, sid, input, options, only_if_busy, NULL,
                                       natter_test_result_cb, &result);
  id = natter_sessions_queue_message_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  return id;
}

static char *
send_text (Fixture    *f,
           const char *sid,
           const char *text)
{
  g_autoptr(GError) error = NULL;
  char *tid = natter_test_sessions_send (f, sid, text, &error);

  g_assert_no_error (error);
  return tid;
}

typedef struct
{
  const char *sid;
  guint       n_turns;
  const char *status;
} Settled;

/* The session has @n_turns, the latest with @status, and nothing runs. */
static gboolean
settled_at (NatterTestSessions *t,
            gconstpointer       data)
{
  const Settled *s = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (t->index, s->sid);

  return entry != NULL && natter_sessions_get_n_advances (t->sessions) == 0 &&
         natter_session_index_entry_get_turn_count (entry) == s->n_turns &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), s->status) == 0;
}

static void
wait_settled (Fixture    *f,
              const char *sid,
              guint       n_turns,
              const char *status)
{
  Settled s = { sid, n_turns, status };

  natter_test_sessions_wait_until (f, settled_at, &s);
  /* A promotion may have been started by the last settle: let it run. */
  natter_test_drain_main_context ();
  natter_test_sessions_wait_until (f, settled_at, &s);
}


/* The text the turn @index (0-based) of @sid was created with, and the
 * queue ids its turn_appended consumed ("" for none). */
static void
assert_turn (Fixture    *f,
             const char *sid,
             guint       index,
             const char *text,
             const char *consumed)
{
  g_autoptr(NatterSessionState) state = natter_test_sessions_get (f, sid);
  const NatterSessionTurn *turn = natter_session_state_get_turn (state, index);
  g_autoptr(GPtrArray) turn_events = natter_test_sessions_read (f->w->turn_repo, turn->turn_id);
  g_autoptr(GPtrArray) session_events = natter_test_sessions_read (f->w->session_repo, sid);
  JsonObject *created = json_node_get_object (g_ptr_array_index (turn_events, 0));
  JsonArray *ids = NULL;

  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (created, "input"), "content"),
                   ==, text);
  for (guint i = 0; i < session_events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (session_events, i));

      if (g_strcmp0 (json_object_get_string_member_with_default (event, "turnId", NULL), turn->turn_id) == 0 &&
          json_object_has_member (event, "consumedQueueIds"))
        ids = json_object_get_array_member (event, "consumedQueueIds");
    }
  if (consumed[0] == '\0')
    g_assert_null (ids);
  else
    {
      g_assert_nonnull (ids);
      g_assert_cmpuint (json_array_get_length (ids), ==, 1);
      g_assert_cmpstr (json_array_get_string_element (ids, 0), ==, consumed);
    }
}

static guint
n_queued (Fixture    *f,
          const char *sid)
{
  g_autoptr(NatterSessionState) state = natter_test_sessions_get (f, sid);

  return natter_session_state_get_n_queued (state);
}

static void
test_promotes_fifo_after_completion (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *first = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = send_text (f, sid, "first");
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  a = queue (f, sid, "A", TRUE);
  b = queue (f, sid, "B", TRUE);
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_cmpuint (n_queued (f, sid), ==, 2);

  natter_fake_model_release (f->w->fakes->model);
  wait_settled (f, sid, 3, "completed");
  assert_turn (f, sid, 1, "A", a);
  assert_turn (f, sid, 2, "B", b);
  g_assert_cmpuint (n_queued (f, sid), ==, 0);
}

/* A turn that settles with nothing queued promotes nothing without
 * reading the session file again (nor waiting for its lock): the service
 * saw the queue empty when it last read or wrote the file under the lock.
 * A message queued while a turn runs is still promoted when it settles,
 * and one queued behind a settled turn at once. */
static void
test_nothing_queued_reads_nothing (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  guint reads;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_STEP_HOLD,
                               NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = send_text (f, sid, "first");
  wait_settled (f, sid, 1, "completed");

  /* The send reads the session once, under its lock; the promotion after
   * its turn settles reads nothing. */
  reads = natter_sessions_get_n_session_reads (f->sessions);
  second = send_text (f, sid, "second");
  wait_settled (f, sid, 2, "completed");
  g_assert_cmpuint (natter_sessions_get_n_session_reads (f->sessions) - reads, ==, 1);

  third = send_text (f, sid, "third");
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  a = queue (f, sid, "A", TRUE);
  natter_fake_model_release (f->w->fakes->model);
  wait_settled (f, sid, 4, "completed");
  assert_turn (f, sid, 3, "A", a);

  b = queue (f, sid, "B", FALSE);
  wait_settled (f, sid, 5, "completed");
  assert_turn (f, sid, 4, "B", b);
  g_assert_cmpuint (n_queued (f, sid), ==, 0);
}

/* A held queue is not promoted by a completed turn; released without
 * promoting it waits, released to promote it goes on; holds nest. */
static void
test_held_queue_waits (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *first = NULL;
  g_autofree char *a = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  first = send_text (f, sid, "first");
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  a = queue (f, sid, "A", TRUE);
  natter_sessions_hold_queue (f->sessions, sid);
  natter_sessions_hold_queue (f->sessions, sid);
  g_assert_true (natter_sessions_is_queue_held (f->sessions, sid));

  natter_fake_model_release (f->w->fakes->model);
  wait_settled (f, sid, 1, "completed");
  g_assert_cmpuint (n_queued (f, sid), ==, 1);

  natter_sessions_release_queue (f->sessions, sid, TRUE);
  g_assert_true (natter_sessions_is_queue_held (f->sessions, sid));
  wait_settled (f, sid, 1, "completed");
  g_assert_cmpuint (n_queued (f, sid), ==, 1);

  natter_sessions_release_queue (f->sessions, sid, TRUE);
  g_assert_false (natter_sessions_is_queue_held (f->sessions, sid));
  wait_settled (f, sid, 2, "completed");
  assert_turn (f, sid, 1, "A", a);
  g_assert_cmpuint (n_queued (f, sid), ==, 0);
}

static void
promoted_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* A promotion asked while the queue is held, or already under way when
 * the hold began, sends nothing even when it reads the file after the
 * hold was released without promoting: the person answered "keep it"
 * or "clear it" meanwhile (the window's Stop question), and a slow read
 * must not send the message they kept back. */
static void
test_held_promotion_sends_nothing_after_release (Fixture       *f,
                                                 gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *first = NULL;
  g_autofree char *a = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  first = send_text (f, sid, "first");
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  a = queue (f, sid, "A", TRUE);
  natter_sessions_hold_queue (f->sessions, sid);
  natter_fake_model_release (f->w->fakes->model);
  wait_settled (f, sid, 1, "completed");

  for (guint started_before_hold = 0; started_before_hold < 2; started_before_hold++)
    {
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *turn_id = NULL;

      if (started_before_hold)
        {
          /* Its read still to come when the hold begins. */
          natter_sessions_release_queue (f->sessions, sid, FALSE);
          natter_sessions_promote_queue_async (f->sessions, sid, NULL, promoted_cb, &result);
          natter_sessions_hold_queue (f->sessions, sid);
        }
      else
        natter_sessions_promote_queue_async (f->sessions, sid, NULL, promoted_cb, &result);
      natter_sessions_release_queue (f->sessions, sid, FALSE);
      turn_id = natter_sessions_promote_queue_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                      &error);
      g_assert_no_error (error);
      g_assert_null (turn_id);
      g_assert_cmpuint (n_queued (f, sid), ==, 1);
      natter_sessions_hold_queue (f->sessions, sid);
    }
  natter_sessions_release_queue (f->sessions, sid, TRUE);
  wait_settled (f, sid, 2, "completed");
  assert_turn (f, sid, 1, "A", a);
}

typedef struct
{
  Fixture    *f;
  const char *sid;
  gboolean    flushed;
  guint       turns_after_flush;
} FlushAfterWait;

static void
flushed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  FlushAfterWait *w = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_sessions_flush_finish (NATTER_SESSIONS (object), result, &error));
  g_assert_no_error (error);
  w->turns_after_flush =
    natter_session_index_entry_get_turn_count (natter_session_index_lookup (w->f->index, w->sid));
  w->flushed = TRUE;
}

static void
waited_then_flush_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  FlushAfterWait *w = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_sessions_wait_for_turn_finish (NATTER_SESSIONS (object), result, &error));
  g_assert_no_error (error);
  natter_sessions_flush_async (NATTER_SESSIONS (object), NULL, flushed_cb, w);
}

static gboolean
flushed (NatterTestSessions *t,
         gconstpointer       data)
{
  return ((const FlushAfterWait *) data)->flushed;
}

/* A process that waits for its turn and then flushes before it exits
 * (the command line) finds the queued message already sent: the
 * promotion the settling starts is under way before any waiter hears of
 * the turn, so the flush waits for it. */
static void
test_waiter_flush_waits_for_the_promotion (Fixture       *f,
                                           gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *first = NULL;
  g_autofree char *a = NULL;
  FlushAfterWait w = { f, NULL, FALSE, 0 };

  natter_test_sessions_script (f, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  first = send_text (f, sid, "first");
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  a = queue (f, sid, "A", TRUE);
  w.sid = sid;
  natter_sessions_wait_for_turn_async (f->sessions, first, NULL, waited_then_flush_cb, &w);

  natter_fake_model_release (f->w->fakes->model);
  natter_test_sessions_wait_until (f, flushed, &w);
  g_assert_cmpuint (w.turns_after_flush, ==, 2);
  wait_settled (f, sid, 2, "completed");
  assert_turn (f, sid, 1, "A", a);
}

static void
test_does_not_promote_after_failure_or_cancel (Fixture       *f,
                                               gconstpointer  data)
{
  g_autofree char *failed = natter_test_sessions_create (f);
  g_autofree char *stopped = natter_test_sessions_create (f);
  g_autofree char *turn = NULL;
  g_autofree char *q1 = NULL;
  g_autofree char *q2 = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  /* One model call only: answering with a tool call fails the turn. */
  natter_test_sessions_script (f, NATTER_FAKE_STEP_HOLD, NULL);
  {
    g_autoptr(JsonObject) input = user_message ("will fail");
    g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
    g_autoptr(GAsyncResult) sent = NULL;

    natter_send_options_set_max_model_calls (options, 1);
    natter_sessions_send_message_async (f->sessions, failed, input, options, NULL, natter_test_result_cb, &sent);
    g_free (natter_sessions_send_message_finish (f->sessions, natter_test_sessions_wait_result (&sent), &error));
    g_assert_no_error (error);
  }
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  q1 = queue (f, failed, "after failure", TRUE);
  natter_fake_model_release_with (f->w->fakes->model, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("x", "sa", "{}")));
  wait_settled (f, failed, 1, "failed");
  g_assert_cmpuint (n_queued (f, failed), ==, 1);

  natter_test_sessions_script (f, NATTER_FAKE_STEP_HOLD, NULL);
  turn = send_text (f, stopped, "will be stopped");
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  q2 = queue (f, stopped, "after stop", TRUE);
  natter_sessions_stop_turn_async (f->sessions, turn, NULL, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_stop_turn_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  wait_settled (f, stopped, 1, "cancelled");
  g_assert_cmpuint (n_queued (f, stopped), ==, 1);
}

static gboolean
crash_after_append (NatterSessionsStep   step,
                    const char          *session_id,
                    gpointer             user_data,
                    GError             **error)
{
  if (step != NATTER_SESSIONS_STEP_APPEND)
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "simulated crash");
  return FALSE;
}

/* A turn left idle by a crash (created and appended, never advanced):
 * the queue waits for the person to resume it. */
static void
test_does_not_promote_after_a_crash (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *queued = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionState) state = NULL;

  natter_sessions_set_fault_func (f->sessions, crash_after_append, NULL);
  g_assert_null (natter_test_sessions_send (f, sid, "interrupted", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  natter_sessions_set_fault_func (f->sessions, NULL, NULL);

  queued = queue (f, sid, "after the crash", TRUE);
  g_assert_nonnull (queued);
  natter_test_drain_main_context ();
  state = natter_test_sessions_get (f, sid);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 1);
}

/* The process stops between settling a turn and promoting the queue. */
static char *
lose_a_promotion (Fixture    *f,
                  const char *sid,
                  const char *text)
{
  return natter_test_lose_a_promotion (f->sessions, f->w->ids, sid, text);
}

/* A new service over the same files, as after a restart. */
static void
restart (Fixture *f)
{
  natter_test_wait_finalized (g_steal_pointer (&f->sessions), NATTER_TEST_TIMEOUT_MS);
  g_assert_finalize_object (f->index);
  f->index = natter_session_index_new ();
  f->sessions = natter_sessions_new (f->w->session_repo, f->w->turn_repo, f->w->runtime, f->w->hub,
                                     NATTER_CLOCK (f->w->clock), f->w->ids, f->index);
}

static void
test_survives_restart_and_kill_between_settle_and_promotion (Fixture       *f,
                                                             gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *lost = NULL;
  g_autofree char *next = NULL;
  g_autofree char *again = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                               NATTER_FAKE_TEXT_STEP, NULL);
  g_free (send_text (f, sid, "first"));
  natter_test_sessions_wait_status (f, sid, "completed");
  lost = lose_a_promotion (f, sid, "lost");
  restart (f);

  /* The next queue recovers: the lost message goes first, once. */
  next = queue (f, sid, "next", TRUE);
  g_assert_nonnull (next);
  wait_settled (f, sid, 3, "completed");
  assert_turn (f, sid, 1, "lost", lost);
  assert_turn (f, sid, 2, "next", next);

  /* So does the next send, which then is not sent: the queue was first. */
  g_free (lose_a_promotion (f, sid, "lost again"));
  restart (f);
  again = natter_test_sessions_send (f, sid, "not sent", &error);
  g_assert_null (again);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED);
  wait_settled (f, sid, 4, "completed");
  g_assert_cmpuint (n_queued (f, sid), ==, 0);
  {
    g_autoptr(NatterSessionState) state = natter_test_sessions_get (f, sid);
    g_autoptr(GPtrArray) events = natter_test_sessions_read (f->w->turn_repo,
                                                             natter_session_state_get_turn (state, 3)->turn_id);

    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                       json_node_get_object (g_ptr_array_index (events, 0)), "input"), "content"), ==, "lost again");
  }
}

static gboolean
edit (Fixture    *f,
      const char *sid,
      const char *queue_id,
      const char *text,
      GError    **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  if (text != NULL)
    {
      g_autoptr(JsonObject) input = user_message (text);

      natter_sessions_replace_queued_message_async (f->sessions, sid, queue_id, input, NULL,
                                                    natter_test_result_cb, &result);
      return natter_sessions_replace_queued_message_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                            error);
    }
  natter_sessions_remove_queued_message_async (f->sessions, sid, queue_id, NULL, natter_test_result_cb, &result);
  return natter_sessions_remove_queued_message_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                       error);
}

static void
test_edit_and_remove (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  g_free (send_text (f, sid, "first"));
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  a = queue (f, sid, "A", TRUE);
  b = queue (f, sid, "B", TRUE);
  g_assert_true (edit (f, sid, a, "A, edited", &error));
  g_assert_true (edit (f, sid, b, NULL, &error));
  g_assert_no_error (error);

  natter_fake_model_release (f->w->fakes->model);
  wait_settled (f, sid, 2, "completed");
  assert_turn (f, sid, 1, "A, edited", a);

  /* Sent or removed messages are gone for good. */
  g_assert_false (edit (f, sid, a, "too late", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (edit (f, sid, b, NULL, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND);
}

static void
test_concurrent_queue_and_send_serialize (Fixture       *f,
                                          gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autoptr(JsonObject) input = user_message ("S");
  g_autoptr(JsonObject) queued = user_message ("Q");
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(GAsyncResult) sent = NULL;
  g_autoptr(GAsyncResult) enqueued = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *queue_id = NULL;
  g_autoptr(GPtrArray) events = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  g_free (send_text (f, sid, "first"));
  natter_test_sessions_wait_status (f, sid, "completed");

  /* Both at once: the send takes the lock first, so the queue finds a
   * running turn and waits behind it. */
  natter_sessions_send_message_async (f->sessions, sid, input, options, NULL, natter_test_result_cb, &sent);
  natter_sessions_queue_message_async (f->sessions, sid, queued, options, TRUE, NULL, natter_test_result_cb,
                                       &enqueued);
  turn_id = natter_sessions_send_message_finish (f->sessions, natter_test_sessions_wait_result (&sent), &error);
  g_assert_no_error (error);
  queue_id = natter_sessions_queue_message_finish (f->sessions, natter_test_sessions_wait_result (&enqueued),
                                                   &error);
  g_assert_no_error (error);
  g_assert_nonnull (queue_id);

  /* The file, created at version 1, is raised right before the queue's
   * first event. */
  events = natter_test_sessions_read (f->w->session_repo, sid);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (g_ptr_array_index (events, events->len - 3)),
                                                  "turnId"), ==, turn_id);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (g_ptr_array_index (events, events->len - 2)),
                                                  "type"), ==, "schema_upgraded");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (g_ptr_array_index (events, events->len - 1)),
                                                  "queueId"), ==, queue_id);

  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  natter_fake_model_release (f->w->fakes->model);
  wait_settled (f, sid, 3, "completed");
  assert_turn (f, sid, 1, "S", "");
  assert_turn (f, sid, 2, "Q", queue_id);
}

/* `send --queue` on a settled session sends as send does. */
static void
test_only_if_busy_leaves_a_settled_session_alone (Fixture       *f,
                                                  gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *queued = queue (f, sid, "now", TRUE);
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->w->session_repo, sid);

  g_assert_null (queued);
  g_assert_cmpuint (events->len, ==, 1);
}

static gint
move_queue (Fixture    *f,
            const char *from,
            const char *replaced,
            const char *to)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  gint moved;

  natter_sessions_move_queue_async (f->sessions, from, replaced, to, natter_test_result_cb, &result);
  moved = natter_sessions_move_queue_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  return moved;
}

/* Messages queued behind an answer that was stopped (or failed) wait
 * behind its new try: moved in the order queued, each once, with new
 * ids, sent there as that answer completes; the version left behind
 * keeps its stopped turn and no queue. A new try of an earlier message
 * moves nothing. */
static void
test_moves_to_the_new_try (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *zero = NULL;
  g_autofree char *failed = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *version = NULL;
  g_autofree char *retried = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  guint reads;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_STEP_HOLD,
                               NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  zero = send_text (f, sid, "zero");
  wait_settled (f, sid, 1, "completed");
  failed = send_text (f, sid, "first");
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  a = queue (f, sid, "A", TRUE);
  b = queue (f, sid, "B", TRUE);
  natter_sessions_stop_turn_async (f->sessions, failed, NULL, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_stop_turn_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  wait_settled (f, sid, 2, "cancelled");
  g_assert_cmpuint (n_queued (f, sid), ==, 2);

  /* A new version of the first message is no new try of the failed one. */
  version = natter_test_sessions_fork (f, sid, zero, "Version");
  g_assert_cmpint (move_queue (f, sid, zero, version), ==, 0);
  g_assert_cmpuint (n_queued (f, sid), ==, 2);
  g_assert_cmpuint (n_queued (f, version), ==, 0);

  retried = send_text (f, version, "first");
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  g_assert_cmpint (move_queue (f, sid, failed, version), ==, 2);
  g_assert_cmpuint (n_queued (f, sid), ==, 0);
  state = natter_test_sessions_get (f, version);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (natter_session_state_get_queued (state, 0)->message, "content"),
                   ==, "A");
  g_assert_cmpstr (json_object_get_string_member (natter_session_state_get_queued (state, 1)->message, "content"),
                   ==, "B");
  g_assert_cmpstr (natter_session_state_get_queued (state, 0)->queue_id, !=, a);

  /* Moved again, nothing is left to move, and the service knows it
   * without reading the file. */
  reads = natter_sessions_get_n_session_reads (f->sessions);
  g_assert_cmpint (move_queue (f, sid, failed, version), ==, 0);
  g_assert_cmpuint (natter_sessions_get_n_session_reads (f->sessions), ==, reads);

  natter_fake_model_release (f->w->fakes->model);
  wait_settled (f, version, 3, "completed");
  assert_turn (f, version, 0, "first", "");
  assert_turn (f, version, 1, "A", natter_session_state_get_queued (state, 0)->queue_id);
  assert_turn (f, version, 2, "B", natter_session_state_get_queued (state, 1)->queue_id);
  g_assert_cmpuint (n_queued (f, version), ==, 0);
  wait_settled (f, sid, 2, "cancelled");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/queue/" path, Fixture, NULL, natter_test_sessions_set_up, func, natter_test_sessions_tear_down)
  ADD ("promotes-fifo-after-completion", test_promotes_fifo_after_completion);
  ADD ("waiter-flush-waits-for-the-promotion", test_waiter_flush_waits_for_the_promotion);
  ADD ("nothing-queued-reads-nothing", test_nothing_queued_reads_nothing);
  ADD ("does-not-promote-after-failure-or-cancel", test_does_not_promote_after_failure_or_cancel);
  ADD ("does-not-promote-after-a-crash", test_does_not_promote_after_a_crash);
  ADD ("survives-restart-and-kill-between-settle-and-promotion-without-double-send",
       test_survives_restart_and_kill_between_settle_and_promotion);
  ADD ("held-queue-waits", test_held_queue_waits);
  ADD ("held-promotion-sends-nothing-after-release", test_held_promotion_sends_nothing_after_release);
  ADD ("edit-and-remove", test_edit_and_remove);
  ADD ("concurrent-queue-and-send-serialize-under-the-session-lock", test_concurrent_queue_and_send_serialize);
  ADD ("only-if-busy-leaves-a-settled-session-alone", test_only_if_busy_leaves_a_settled_session_alone);
  ADD ("moves-to-the-new-try", test_moves_to_the_new_try);
#undef ADD

  return g_test_run ();
}
