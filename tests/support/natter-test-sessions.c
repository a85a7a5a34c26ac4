/* natter-test-sessions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-test-sessions.h"

#include "natter-session-schema-upgrade.h"

static void
changed_cb (NatterSessions     *sessions,
            const char         *session_id,
            NatterTestSessions *t)
{
  t->n_changed++;
}

void
natter_test_sessions_set_up (NatterTestSessions *t,
                             gconstpointer       data)
{
  t->w = natter_test_world_new ();
  t->index = natter_session_index_new ();
  t->sessions = natter_sessions_new (t->w->session_repo, t->w->turn_repo, t->w->runtime, t->w->hub,
                                     NATTER_CLOCK (t->w->clock), t->w->ids, t->index);
  g_signal_connect (t->sessions, "session-index-changed", G_CALLBACK (changed_cb), t);
}

/* The same, with a blob store in the world's storage that the runtime
 * reads attachments from. */
void
natter_test_sessions_set_up_with_blobs (NatterTestSessions *t,
                                        gconstpointer       data)
{
  natter_test_sessions_set_up (t, data);
  t->blobs = natter_blob_store_new (t->w->storage);
  natter_turn_runtime_set_blob_store (t->w->runtime, t->blobs);
}

static gboolean
all_advances_done (NatterTestSessions *t,
                   gconstpointer       data)
{
  return natter_sessions_get_n_advances (t->sessions) == 0;
}

void
natter_test_sessions_tear_down (NatterTestSessions *t,
                                gconstpointer       data)
{
  natter_test_sessions_wait_idle (t);
  natter_test_drain_main_context ();
  natter_test_wait_finalized (g_steal_pointer (&t->sessions), NATTER_TEST_TIMEOUT_MS);
  g_assert_finalize_object (t->index);
  natter_test_world_free (t->w);
  g_clear_object (&t->blobs);
}

GAsyncResult *
natter_test_sessions_wait_result (GAsyncResult **slot)
{
  natter_test_wait_for_pointer ((gpointer *) slot, NATTER_TEST_TIMEOUT_MS);
  return *slot;
}

static gboolean
wake_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* The periodic wake-up only makes the condition be checked again; it
 * never decides anything. */
void
natter_test_sessions_wait_until_at (NatterTestSessions  *t,
                                    NatterTestCondition  condition,
                                    gconstpointer        data,
                                    const char          *condition_name,
                                    const char          *location)
{
  gint64 deadline = g_get_monotonic_time () + NATTER_TEST_TIMEOUT_MS * 1000;
  guint id = g_timeout_add (10, wake_cb, NULL);

  while (!condition (t, data))
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("Timed out waiting for %s (%s)", condition_name, location);
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (id);
}

static gboolean
status_is (NatterTestSessions *t,
           gconstpointer       data)
{
  const char * const *pair = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (t->index, pair[0]);

  return entry != NULL && g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), pair[1]) == 0;
}

void
natter_test_sessions_wait_status (NatterTestSessions *t,
                                  const char         *session_id,
                                  const char         *status)
{
  const char *pair[] = { session_id, status };

  natter_test_sessions_wait_until (t, status_is, pair);
}

/* Waits until no turn of the service advances any more. */
void
natter_test_sessions_wait_idle (NatterTestSessions *t)
{
  natter_test_sessions_wait_until (t, all_advances_done, NULL);
}

void
natter_test_sessions_script (NatterTestSessions *t,
                             const char         *first,
                             ...)
{
  va_list args;

  va_start (args, first);
  for (const char *step = first; step != NULL; step = va_arg (args, const char *))
    natter_fake_model_script (t->w->fakes->model, step, NULL);
  va_end (args);
}

char *
natter_test_sessions_create (NatterTestSessions *t)
{
  return natter_test_sessions_create_titled (t, NULL);
}

char *
natter_test_sessions_create_titled (NatterTestSessions *t,
                                    const char         *title)
{
  return natter_test_sessions_create_full (t, title, NULL);
}

/* Forks @session_id at @turn_id (NULL: its latest turn), the new session
 * titled @title (NULL: none, a branch made on purpose; the title of the
 * conversation: a version, as Edit and Try Again make one). */
char *
natter_test_sessions_fork (NatterTestSessions *t,
                           const char         *session_id,
                           const char         *turn_id,
                           const char         *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *id;

  natter_sessions_fork_async (t->sessions, session_id, turn_id, title, NULL, natter_test_result_cb, &result);
  id = natter_sessions_fork_finish (t->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  return id;
}

/* Creates a session with @title and the working folder @cwd (either may
 * be NULL). */
char *
natter_test_sessions_create_full (NatterTestSessions *t,
                                  const char         *title,
                                  const char         *cwd)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *id;

  natter_sessions_create_session_async (t->sessions, title, cwd, NULL, NULL, NULL, natter_test_result_cb, &result);
  id = natter_sessions_create_session_finish (t->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  return id;
}

/* Sends @text as the fake "helper" agent. */
char *
natter_test_sessions_send (NatterTestSessions  *t,
                           const char          *session_id,
                           const char          *text,
                           GError             **error)
{
  return natter_test_sessions_send_with (t, session_id, text, NULL, error);
}

/* Sends @text with @options, or as the fake "helper" agent on its own
 * model when @options is NULL. */
char *
natter_test_sessions_send_with (NatterTestSessions  *t,
                                const char          *session_id,
                                const char          *text,
                                NatterSendOptions   *options,
                                GError             **error)
{
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) fallback = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(GAsyncResult) result = NULL;

  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_send_message_async (t->sessions, session_id, input, options != NULL ? options : fallback,
                                      NULL, natter_test_result_cb, &result);
  return natter_sessions_send_message_finish (t->sessions, natter_test_sessions_wait_result (&result), error);
}

/* Sends @text as the fake "helper" agent and waits until the turn has
 * settled and the service is idle. */
char *
natter_test_sessions_send_and_wait (NatterTestSessions *t,
                                    const char         *session_id,
                                    const char         *text)
{
  g_autoptr(GAsyncResult) waited = NULL;
  g_autoptr(GError) error = NULL;
  char *turn_id = natter_test_sessions_send (t, session_id, text, &error);

  g_assert_no_error (error);
  natter_sessions_wait_for_turn_async (t->sessions, turn_id, NULL, natter_test_result_cb, &waited);
  g_assert_true (natter_sessions_wait_for_turn_finish (t->sessions, natter_test_sessions_wait_result (&waited),
                                                       &error));
  g_assert_no_error (error);
  natter_test_sessions_wait_idle (t);
  return turn_id;
}

NatterSessionState *
natter_test_sessions_get (NatterTestSessions *t,
                          const char         *session_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionState *state;

  natter_sessions_get_session_async (t->sessions, session_id, NULL, natter_test_result_cb, &result);
  state = natter_sessions_get_session_finish (t->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  return state;
}

GPtrArray *
natter_test_sessions_read (NatterJsonlRepo *repo,
                           const char      *id)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *events = natter_jsonl_repo_read_sync (repo, id, NULL, &error);

  g_assert_no_error (error);
  return events;
}

guint
natter_test_count_type (GPtrArray  *events,
                        const char *type)
{
  guint n = 0;

  for (guint i = 0; i < events->len; i++)
    if (g_str_equal (json_object_get_string_member (json_node_get_object (g_ptr_array_index (events, i)), "type"),
                     type))
      n++;
  return n;
}

/* The last event of @type; there must be one. */
JsonObject *
natter_test_find_type (GPtrArray  *events,
                       const char *type)
{
  for (guint i = events->len; i > 0; i--)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i - 1));

      if (g_str_equal (json_object_get_string_member (event, "type"), type))
        return event;
    }
  g_error ("No %s event", type);
}

/* Appends a message queued for the fake "helper" agent with nothing
 * after it: what a process that stopped between settling a turn and
 * promoting the queue leaves in the log (a completed latest turn and a
 * pending message). Returns the queue id (transfer full). Works on any
 * service, so that the window's tests can use it too. */
char *
natter_test_lose_a_promotion (NatterSessions    *sessions,
                              NatterIdGenerator *ids,
                              const char        *session_id,
                              const char        *text)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *queue_id = natter_id_generator_next (ids);
  gboolean appended;

  g_ptr_array_add (events, natter_test_message_queued_new (session_id, "2026-11-30T09:14:03Z", queue_id, text,
                                                           "helper", NULL, NULL));
  natter_sessions_append_events_async (sessions, session_id, events, NULL, natter_test_result_cb, &result);
  appended = natter_sessions_append_events_finish (sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_true (appended);
  return queue_id;
}
