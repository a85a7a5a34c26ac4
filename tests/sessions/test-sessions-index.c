/* test-sessions-index.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session index (docs/sessions.md §8): a fold from the files equals
 * the write-through, damage shows on the entry, mutations publish;
 * live events in order, forks, flush, titles, and reads of a session
 * shared by the requests made before they began.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "test-sessions.h"

/* docs/sessions.md §8 index */

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


void
sessions_add_index_tests (void)
{
  ADD ("send/create-rejects-bad-cwd", test_create_rejects_bad_cwd, NULL);
  ADD ("index/fold-equals-write-through-every-status", test_fold_equals_write_through, NULL);
  ADD ("index/corrupt-session-and-latest-turn-are-errored", test_corrupt_entries, NULL);
  ADD ("index/mutations-publish-and-delete-keeps-turns", test_mutations_publish, NULL);
  ADD ("events/tagged-in-order-and-settlement-updates-status", test_events_tagged_in_order, NULL);
  ADD ("fork/first-turn-references-fork-point", test_fork, NULL);
  ADD ("fork/unsettled-turn-refused", test_fork_unsettled_refused, NULL);
  ADD ("flush/waits-for-begun-operations-only", test_flush, NULL);
  ADD ("titles/pitfall-4-odd-titles-delete-one-each", test_pitfall_titles, NULL);
  ADD ("titles/pitfall-6-user-title-stays", test_rename_then_send, NULL);
  ADD ("titles/derivation", test_title_derivation, NULL);
  ADD ("get-session/requests-before-the-read-share-it", test_get_session_shared_read, NULL);
}
