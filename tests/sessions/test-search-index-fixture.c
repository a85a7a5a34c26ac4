/* test-search-index-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the scenarios of test-search-index share: the fixture, an
 * exchange with the fake model, the index started and caught up, a
 * search's hits as lines.
 */

#include "test-search-index.h"

/* The support's session fixture, and where the index's cache file goes. */
void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  natter_test_sessions_set_up (&f->t, data);
  f->cache = g_file_resolve_relative_path (f->t.w->dir, "cache/search.sqlite");
}

/* Lets the service settle, asserts that the index (if started) is
 * finalized, and tears the session fixture down. */
void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  natter_test_sessions_wait_idle (&f->t);
  if (f->search != NULL)
    g_assert_finalize_object (f->search);
  g_object_unref (f->cache);
  natter_test_sessions_tear_down (&f->t, data);
}

/* Sends @text to @session_id, the fake model answering @answer, and waits
 * until the turn completed. */
char *
exchange (Fixture    *f,
          const char *session_id,
          const char *text,
          const char *answer)
{
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(JsonObject) step = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *step_text = NULL;
  char *turn_id;

  json_object_set_string_member (step, "role", "assistant");
  json_object_set_string_member (step, "content", answer);
  json_node_set_object (node, step);
  step_text = json_to_string (node, FALSE);
  natter_fake_model_script (f->t.w->fakes->model, step_text, NULL);

  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_send_message_async (f->t.sessions, session_id, input, options, NULL, natter_test_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  natter_test_sessions_wait_status (&f->t, session_id, "completed");
  natter_test_sessions_wait_idle (&f->t);
  return turn_id;
}

/* The index over @f's sessions in @f's cache file, started (transfer
 * none: @f keeps it). */
NatterSearchIndex *
start_search (Fixture *f)
{
  g_clear_object (&f->search);
  f->search = natter_search_index_new (f->cache, f->t.w->session_repo, f->t.w->turn_repo, f->t.sessions);
  natter_search_index_start (f->search);
  return f->search;
}

/* Waits until @f's index has caught up with the files. */
void
wait_indexed (Fixture *f)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_search_index_wait_async (f->search, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_search_index_wait_finish (f->search, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  g_assert_false (natter_search_index_get_indexing (f->search));
}

/* "session turn" of every hit, in order, one per line. */
char *
search (Fixture    *f,
        const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) hits = natter_search_index_search_sync (f->search, text, 50, NULL, NULL, &error);
  GString *out = g_string_new (NULL);

  g_assert_no_error (error);
  for (guint i = 0; i < hits->len; i++)
    {
      NatterSearchHit *hit = g_ptr_array_index (hits, i);

      g_string_append_printf (out, "%s %s\n", hit->session_id, hit->turn_id);
    }
  return g_string_free (out, FALSE);
}

/* The line search() gives for a hit in @turn_id of @session_id
 * (transfer full). */
char *
hit_line (const char *session_id,
          const char *turn_id)
{
  return g_strdup_printf ("%s %s\n", session_id, turn_id);
}

/* Deletes @session_id as `natter delete` does, at once. */
void
delete_session (Fixture    *f,
                const char *session_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_delete_session_async (f->t.sessions, session_id, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_delete_session_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
}
