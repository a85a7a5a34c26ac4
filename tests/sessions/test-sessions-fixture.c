/* test-sessions-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fixture of the session service tests and the drivers several of
 * their files use: sends, stops, crashes at a step, damage to a file,
 * a restart over the same files, and readers of what is on disk.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "test-sessions.h"

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

void
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

void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  /* Settled advances may still be refreshing their index entry: the
   * support's tear-down waits for them. */
  natter_test_sessions_tear_down (&f->t, data);
  g_ptr_array_unref (f->changed);
  g_ptr_array_unref (f->events);
}

gboolean
no_live_advance (NatterTestSessions *t,
                 gconstpointer       data)
{
  return natter_sessions_get_n_live_advances (t->sessions, data) == 0;
}

JsonObject *
object_literal (const char *literal)
{
  g_autoptr(JsonNode) node = natter_test_json (literal);

  return json_object_ref (json_node_get_object (node));
}

JsonObject *
user_message (const char *text)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", "user");
  json_object_set_string_member (message, "content", text);
  return message;
}

char *
send (Fixture    *f,
      const char *session_id,
      const char *text)
{
  g_autoptr(GError) error = NULL;
  char *turn_id = natter_test_sessions_send (&f->t, session_id, text, &error);

  g_assert_no_error (error);
  return turn_id;
}

JsonObject *
event_at (GPtrArray *events,
          guint      index)
{
  g_assert_cmpuint (index, <, events->len);
  return json_node_get_object (g_ptr_array_index (events, index));
}

char *
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
gint64
created_version (Fixture    *f,
                 const char *id)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->t.w->session_repo, id);

  return json_object_get_int_member (event_at (events, 0), "schemaVersion");
}

guint
n_files (NatterJsonlRepo *repo)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = natter_jsonl_repo_list_ids_sync (repo, NULL, &error);

  g_assert_no_error (error);
  return g_strv_length (ids);
}

JsonObject *
turn_created (Fixture    *f,
              const char *turn_id)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->t.w->turn_repo, turn_id);

  return json_object_ref (event_at (events, 0));
}

char *
context_of (Fixture    *f,
            const char *turn_id)
{
  g_autoptr(JsonObject) created = turn_created (f, turn_id);

  return json_to_string (json_object_get_member (created, "context"), FALSE);
}

gboolean
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
void
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

void
resume (Fixture    *f,
        const char *sid,
        GError    **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *tid = NULL;

  natter_sessions_resume_turn_async (f->t.sessions, sid, NULL, natter_test_result_cb, &result);
  tid = natter_sessions_resume_turn_finish (f->t.sessions, natter_test_sessions_wait_result (&result), error);
}

JsonObject *
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

void
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

NatterSessionIndex *
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

void
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

gboolean
delete_session (Fixture     *f,
                const char  *sid,
                GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_delete_session_async (f->t.sessions, sid, NULL, natter_test_result_cb, &result);
  return natter_sessions_delete_session_finish (f->t.sessions, natter_test_sessions_wait_result (&result), error);
}

void
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

char *
fork_session (Fixture     *f,
              const char  *sid,
              const char  *tid,
              GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_fork_async (f->t.sessions, sid, tid, NULL, NULL, natter_test_result_cb, &result);
  return natter_sessions_fork_finish (f->t.sessions, natter_test_sessions_wait_result (&result), error);
}

/* A process restart over the same files: a new turn runtime (with an
 * empty context cache) and a new session service. */
void
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

char *
turn_path (Fixture    *f,
           const char *turn_id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->t.w->turn_repo, turn_id, NULL);

  return g_file_get_path (file);
}
