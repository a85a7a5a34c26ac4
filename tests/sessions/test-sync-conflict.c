/* test-sync-conflict.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A data folder kept in step by a file synchroniser (docs/format.md §9):
 * the copy Syncthing keeps of a log two devices changed at once is read
 * as a version of the conversation, the same on both devices, and
 * nothing is written for it; a malformed copy is an error, never passed
 * over. Its main runs the scenarios of files not yet arrived, too
 * (test-sync-arriving.c).
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-folder-log.h"
#include "natter-folders.h"
#include "natter-log-read.h"
#include "natter-session-families.h"
#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"
#include "natter-sync-conflict.h"
#include "natter-test-sessions.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-reducer.h"
#include "test-sync-conflict.h"

/* The stamp and device every copy of these tests carries. */
#define STAMP ".sync-conflict-20261205-011213-ABCDEF2"

typedef struct
{
  char *session;
  char *shared;     /* the turn both devices have */
  char *here;       /* the turn the log has after it */
  char *there;      /* the turn the copy has after it */
  char *copy;       /* the copy's name */
} Diverged;

static void
diverged_clear (Diverged *d)
{
  g_free (d->session);
  g_free (d->shared);
  g_free (d->here);
  g_free (d->there);
  g_free (d->copy);
}

/* A conversation continued on two devices while apart, as Syncthing
 * leaves it on both: the log holds one continuation, the copy beside it
 * the other (written here the way the other device wrote it: the same
 * service, on the log as it was before). */
static void
diverge (Fixture  *f,
         Diverged *d)
{
  g_autofree char *path = NULL;
  g_autofree char *before = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *copy_path = NULL;

  d->session = natter_test_sessions_create_titled (f, "Trip");
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  d->shared = natter_test_sessions_send_and_wait (f, d->session, "Where to?");
  path = path_of (f->w->session_repo, d->session);
  before = contents_of (path);
  d->there = natter_test_sessions_send_and_wait (f, d->session, "By train, then");
  theirs = contents_of (path);
  write_file (path, before);
  d->here = natter_test_sessions_send_and_wait (f, d->session, "By car, then");
  d->copy = g_strconcat (d->session, STAMP, NULL);
  copy_path = path_of (f->w->session_repo, d->copy);
  write_file (copy_path, theirs);
}

/* Names: exactly `<id>.sync-conflict-<YYYYMMDD>-<HHMMSS>-<device>`. */
static void
test_names (void)
{
  static const char *const bad[] = {
    "2026-12-05T01-12-13Z-0000001-000.sync-conflict-20261305-011213-ABCDEF2",  /* month 13 */
    "2026-12-05T01-12-13Z-0000001-000.sync-conflict-20261205-251213-ABCDEF2",  /* hour 25 */
    "2026-12-05T01-12-13Z-0000001-000.sync-conflict-20261205-011213-abcdef2",  /* not a device id */
    "2026-12-05T01-12-13Z-0000001-000.sync-conflict-20261205-011213-ABCDEF",   /* too short */
    "2026-12-05T01-12-13Z-0000001-000.sync-conflict-20261205-011213-ABCDEF2.sync-conflict-20261205-011214-ABCDEF3",
    "2026-12-05T01-12-13Z-0000001-0000.sync-conflict-20261205-011213-ABCDEF2", /* not an id */
    "../2026-12-05T01-12-13Z-000.sync-conflict-20261205-011213-ABCDEF2",
  };

  g_assert_true (natter_sync_conflict_is_name ("2026-12-05T01-12-13Z-0000001-000" STAMP));
  g_assert_true (natter_store_name_validate ("2026-12-05T01-12-13Z-0000001-000" STAMP, NULL));
  g_assert_true (natter_store_name_validate ("2026-12-05T01-12-13Z-0000001-000", NULL));
  g_assert_false (natter_sync_conflict_is_candidate ("2026-12-05T01-12-13Z-0000001-000"));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (natter_sync_conflict_is_candidate (bad[i]));
      g_assert_false (natter_store_name_validate (bad[i], &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_assert_nonnull (strstr (error->message, "not a conflict copy"));
    }
}

/* The copy of a session file is a version of the conversation: branched
 * after the last turn both devices had, its own turn the one the other
 * device added; found as a version of that message, and listed as a
 * version of the conversation. Nothing is written for it, and it takes
 * no message: it is read only. */
static void
test_session_copy (Fixture       *f,
                   gconstpointer  data)
{
  Diverged d = { 0 };
  g_autoptr(NatterSessionIndex) index = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionFamilies) families = NULL;
  g_autoptr(NatterSessions) started = NULL;
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) after = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GHashTable) versions = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *refused = NULL;
  NatterSessionIndexEntry *entry;
  GPtrArray *of_here;

  diverge (f, &d);
  before = snapshot (f);

  index = scan (f->w->session_repo, f->w->turn_repo);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (index)), ==, 2);
  entry = lookup (index, d.session);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, 2);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (entry), ==, d.here);
  entry = lookup (index, d.copy);
  g_assert_null (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, d.session);
  g_assert_true (natter_session_index_entry_get_is_version (entry));
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, 1);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (entry), ==, d.there);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "completed");
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "Trip");
  families = natter_session_families_new (G_LIST_MODEL (index));
  g_assert_cmpstr (natter_session_families_get_original (families, d.copy), ==, d.session);
  g_assert_cmpuint (natter_session_families_get_n_versions (families, d.session), ==, 2);
  /* The conversation opens where one can go on, whichever was later. */
  g_assert_cmpstr (natter_session_families_get_head (families, d.copy), ==, d.session);

  /* What the window and `natter show` read. */
  state = natter_test_sessions_get (f, d.copy);
  g_assert_cmpstr (natter_session_state_get_session_id (state), ==, d.copy);
  g_assert_cmpstr (natter_session_state_get_parent_session (state), ==, d.session);
  g_assert_cmpstr (natter_session_state_get_forked_from_turn_id (state), ==, d.shared);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpstr (natter_session_state_get_turn (state, 0)->turn_id, ==, d.there);
  g_assert_cmpint (natter_session_state_get_turn (state, 0)->session_seq, ==, 1);

  /* The message after the shared turn has two versions: this device's
   * and the other's, for a service over the scanned files (a start). */
  started = natter_sessions_new (f->w->session_repo, f->w->turn_repo, f->w->runtime, f->w->hub,
                                 NATTER_CLOCK (f->w->clock), f->w->ids, index);
  natter_sessions_list_versions_async (started, d.session, NULL, natter_test_result_cb, &result);
  versions = natter_sessions_list_versions_finish (started, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  of_here = g_hash_table_lookup (versions, d.here);
  g_assert_nonnull (of_here);
  g_assert_cmpuint (of_here->len, ==, 2);
  g_assert_cmpstr (((NatterTurnVersion *) g_ptr_array_index (of_here, 1))->session_id, ==, d.copy);
  g_assert_cmpstr (((NatterTurnVersion *) g_ptr_array_index (of_here, 1))->turn_id, ==, d.there);

  /* Read only: a message, a rename, a branch of it are refused. */
  refused = natter_test_sessions_send (f, d.copy, "And back?", &error);
  g_assert_null (refused);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_clear_object (&result);
  natter_sessions_fork_async (f->sessions, d.copy, d.there, NULL, NULL, natter_test_result_cb, &result);
  g_assert_null (natter_sessions_fork_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_READ_ONLY);

  after = snapshot (f);
  assert_same_files (before, after);
  diverged_clear (&d);
}

/* The roles and texts of the messages a model request holds, one
 * "role: text" a line (the agent's system prompt left out). */
static char *
request_transcript (JsonObject *request)
{
  JsonArray *messages = json_object_get_array_member (request, "messages");
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      JsonNode *content = json_object_get_member (message, "content");
      const char *role = json_object_get_string_member (message, "role");

      if (g_strcmp0 (role, "system") == 0)
        continue;
      g_string_append_printf (out, "%s: ", role);
      if (JSON_NODE_HOLDS_VALUE (content))
        g_string_append (out, json_node_get_string (content));
      else
        for (guint k = 0; k < json_array_get_length (json_node_get_array (content)); k++)
          {
            JsonObject *part = json_array_get_object_element (json_node_get_array (content), k);

            g_string_append (out, json_object_get_string_member_with_default (part, "text", ""));
          }
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

static char *
continue_copy (Fixture     *f,
               const char  *copy,
               GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_continue_copy_async (f->sessions, copy, NULL, natter_test_result_cb, &result);
  return natter_sessions_continue_copy_finish (f->sessions, natter_test_sessions_wait_result (&result), error);
}

static char **
find_turn (NatterSessions *sessions,
           const char     *turn_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char **holders;

  natter_sessions_find_turn_async (sessions, turn_id, NULL, natter_test_result_cb, &result);
  holders = natter_sessions_find_turn_finish (sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (holders);
  return holders;
}

/* Try Again of the message after @turn_id in @session_id, as the window
 * does it: a version of @session_id branched at @turn_id, with its
 * title, where @text is sent again. Returns the new version. */
static char *
try_again (Fixture    *f,
           const char *session_id,
           const char *turn_id,
           const char *text)
{
  g_autoptr(NatterSessionState) state = natter_test_sessions_get (f, session_id);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *id;

  natter_sessions_fork_async (f->sessions, session_id, turn_id, natter_session_state_get_title (state), NULL,
                              natter_test_result_cb, &result);
  id = natter_sessions_fork_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_free (natter_test_sessions_send_and_wait (f, id, text));
  return id;
}

/* Asserts that the arrows of a conversation whose versions are @versions
 * (natter_sessions_list_versions_async() of @open) reach @n sessions in
 * all, @open included. */
static void
assert_reached (GHashTable *versions,
                const char *open,
                guint       n)
{
  g_autoptr(GHashTable) reached = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer value;

  g_hash_table_add (reached, (gpointer) open);
  g_hash_table_iter_init (&iter, versions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GPtrArray *of_turn = value;

      for (guint i = 0; i < of_turn->len; i++)
        g_hash_table_add (reached, ((NatterTurnVersion *) g_ptr_array_index (of_turn, i))->session_id);
    }
  g_assert_cmpuint (g_hash_table_size (reached), ==, n);
}

/* Going on from the copy (docs/format.md §9.1): a new ordinary version,
 * branched where the copy is, whose own turns are the copy's own turns,
 * referenced; the message sent there has exactly the copy's history
 * before it. Neither the copy nor the log is written, and the message
 * where the devices parted lists the copy once, as the new version. */
static void
test_continue_copy (Fixture       *f,
                    gconstpointer  data)
{
  Diverged d = { 0 };
  g_autofree char *log_path = NULL;
  g_autofree char *copy_path = NULL;
  g_autofree char *log_before = NULL;
  g_autofree char *copy_before = NULL;
  g_autofree char *log_after = NULL;
  g_autofree char *copy_after = NULL;
  g_autofree char *version = NULL;
  g_autofree char *turn = NULL;
  g_autofree char *sent = NULL;
  g_autofree char *copy_history = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterTurnState) answer = NULL;
  g_autoptr(NatterSessionIndex) index = NULL;
  g_autoptr(NatterSessions) started = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GHashTable) versions = NULL;
  g_autoptr(NatterSessionFamilies) families = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *context;
  GPtrArray *of_here;
  char **holders;
  guint n;

  diverge (f, &d);
  log_path = path_of (f->w->session_repo, d.session);
  copy_path = path_of (f->w->session_repo, d.copy);
  log_before = contents_of (log_path);
  copy_before = contents_of (copy_path);
  /* What the other device sent when it asked "By train, then": the
   * copy's history up to its last message. */
  copy_history = request_transcript (natter_fake_model_get_request (f->w->fakes->model, 1));
  g_assert_cmpstr (copy_history, ==, "user: Where to?\nassistant: done\nuser: By train, then\n");

  version = continue_copy (f, d.copy, &error);
  g_assert_no_error (error);
  g_assert_nonnull (version);
  g_assert_false (natter_sync_conflict_is_candidate (version));
  state = natter_test_sessions_get (f, version);
  g_assert_cmpstr (natter_session_state_get_parent_session (state), ==, d.session);
  g_assert_cmpstr (natter_session_state_get_forked_from_turn_id (state), ==, d.shared);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Trip");
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpstr (natter_session_state_get_turn (state, 0)->turn_id, ==, d.there);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (natter_session_index_lookup (f->index, version)),
                   ==, "completed");

  natter_test_sessions_script (f, "{\"role\":\"assistant\",\"content\":\"And back by train.\"}", NULL);
  n = natter_fake_model_get_n_requests (f->w->fakes->model);
  turn = natter_test_sessions_send_and_wait (f, version, "And back?");
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->w->fakes->model), ==, n + 1);
  sent = request_transcript (natter_fake_model_get_request (f->w->fakes->model, n));
  expected = g_strconcat (copy_history, "assistant: done\nuser: And back?\n", NULL);
  g_assert_cmpstr (sent, ==, expected);
  answer = natter_turn_reduce_file_sync (f->w->turn_repo, turn, NULL, NULL, &error);
  g_assert_no_error (error);
  context = json_object_get_object_member (natter_turn_state_get_definition (answer), "context");
  g_assert_cmpstr (json_object_get_string_member (context, "previousTurnId"), ==, d.there);
  g_clear_pointer (&state, natter_session_state_unref);
  state = natter_test_sessions_get (f, version);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 2);
  g_assert_cmpstr (natter_session_state_get_turn (state, 1)->turn_id, ==, turn);

  /* Neither the copy nor the log changed. */
  log_after = contents_of (log_path);
  copy_after = contents_of (copy_path);
  g_assert_cmpstr (log_after, ==, log_before);
  g_assert_cmpstr (copy_after, ==, copy_before);

  /* Where the devices parted: this device's message and the new
   * version's, which shows all the copy shows; not the copy again. */
  index = scan (f->w->session_repo, f->w->turn_repo);
  started = natter_sessions_new (f->w->session_repo, f->w->turn_repo, f->w->runtime, f->w->hub,
                                 NATTER_CLOCK (f->w->clock), f->w->ids, index);
  natter_sessions_list_versions_async (started, d.session, NULL, natter_test_result_cb, &result);
  versions = natter_sessions_list_versions_finish (started, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  of_here = g_hash_table_lookup (versions, d.here);
  g_assert_nonnull (of_here);
  g_assert_cmpuint (of_here->len, ==, 2);
  g_assert_cmpstr (((NatterTurnVersion *) g_ptr_array_index (of_here, 1))->session_id, ==, version);
  g_assert_cmpstr (((NatterTurnVersion *) g_ptr_array_index (of_here, 1))->turn_id, ==, d.there);
  /* The copy is still there, and still a version of the conversation. */
  g_assert_true (natter_session_index_entry_get_is_version (lookup (index, d.copy)));
  g_assert_true (natter_session_index_entry_get_is_version (lookup (index, version)));
  /* The list counts the versions the arrows reach: the copy is the new
   * version's, not a third; the copy still opens by its name. */
  families = natter_session_families_new (G_LIST_MODEL (index));
  g_assert_cmpuint (natter_session_families_get_n_versions (families, d.session), ==, 2);
  g_assert_cmpstr (natter_session_families_get_original (families, d.copy), ==, d.session);
  g_assert_cmpstr (natter_session_families_get_head (families, d.session), ==, version);
  /* Another try of the message sent there: a version of the new
   * version, which the arrows reach, and so does the count. */
  {
    g_autofree char *again = NULL;
    g_autoptr(NatterSessionFamilies) after_retry = NULL;

    natter_test_sessions_script (f, "{\"role\":\"assistant\",\"content\":\"Or by bus.\"}", NULL);
    again = try_again (f, version, d.there, "And back?");
    g_clear_object (&started);
    g_clear_object (&index);
    index = scan (f->w->session_repo, f->w->turn_repo);
    after_retry = natter_session_families_new (G_LIST_MODEL (index));
    g_assert_cmpuint (natter_session_families_get_n_versions (after_retry, d.session), ==, 3);
    started = natter_sessions_new (f->w->session_repo, f->w->turn_repo, f->w->runtime, f->w->hub,
                                   NATTER_CLOCK (f->w->clock), f->w->ids, index);
    g_clear_pointer (&versions, g_hash_table_unref);
    g_clear_object (&result);
    natter_sessions_list_versions_async (started, again, NULL, natter_test_result_cb, &result);
    versions = natter_sessions_list_versions_finish (started, natter_test_sessions_wait_result (&result), &error);
    g_assert_no_error (error);
    assert_reached (versions, again, 3);
  }

  /* The copy's turn was first sent in the log's session, which does not
   * hold it: the copy and the new version do, and a turn asked for
   * without its conversation is found in both (natter retry TURN). */
  holders = find_turn (started, d.there);
  g_assert_cmpuint (g_strv_length (holders), ==, 2);
  g_assert_true (g_strv_contains ((const char * const *) holders, d.copy));
  g_assert_true (g_strv_contains ((const char * const *) holders, version));
  g_strfreev (holders);
  holders = find_turn (started, d.here);
  g_assert_cmpuint (g_strv_length (holders), ==, 1);
  g_assert_cmpstr (holders[0], ==, d.session);
  g_strfreev (holders);
  holders = find_turn (started, turn);
  g_assert_cmpuint (g_strv_length (holders), ==, 1);
  g_assert_cmpstr (holders[0], ==, version);
  g_strfreev (holders);
  /* The copy deleted, the new version alone holds it. */
  g_assert_cmpint (g_unlink (copy_path), ==, 0);
  g_clear_object (&started);
  g_clear_object (&index);
  index = scan (f->w->session_repo, f->w->turn_repo);
  started = natter_sessions_new (f->w->session_repo, f->w->turn_repo, f->w->runtime, f->w->hub,
                                 NATTER_CLOCK (f->w->clock), f->w->ids, index);
  holders = find_turn (started, d.there);
  g_assert_cmpuint (g_strv_length (holders), ==, 1);
  g_assert_cmpstr (holders[0], ==, version);
  g_strfreev (holders);
  diverged_clear (&d);
}

/* Two devices that both go on from the same copy each make a version of
 * their own: two new files, never one file written twice. What is no
 * copy, or a copy that is not there, is refused with nothing written. */
static void
test_continue_copy_twice (Fixture       *f,
                          gconstpointer  data)
{
  Diverged d = { 0 };
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) after = NULL;
  g_autofree char *none = NULL;

  diverge (f, &d);
  one = continue_copy (f, d.copy, &error);
  g_assert_no_error (error);
  two = continue_copy (f, d.copy, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (one, !=, two);
  /* Both list the copy's message once each, and the list counts what the
   * arrows reach: the log, and the two that went on; not the copy. */
  {
    g_autoptr(NatterSessionIndex) index = scan (f->w->session_repo, f->w->turn_repo);
    g_autoptr(NatterSessionFamilies) families = natter_session_families_new (G_LIST_MODEL (index));
    g_autoptr(NatterSessions) started = natter_sessions_new (f->w->session_repo, f->w->turn_repo, f->w->runtime,
                                                             f->w->hub, NATTER_CLOCK (f->w->clock), f->w->ids,
                                                             index);
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GHashTable) versions = NULL;

    g_assert_cmpuint (natter_session_families_get_n_versions (families, d.session), ==, 3);
    natter_sessions_list_versions_async (started, d.session, NULL, natter_test_result_cb, &result);
    versions = natter_sessions_list_versions_finish (started, natter_test_sessions_wait_result (&result), &error);
    g_assert_no_error (error);
    assert_reached (versions, d.session, 3);
  }

  /* Not a copy's name; a copy of nothing. */
  none = continue_copy (f, d.session, &error);
  g_assert_null (none);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  before = snapshot (f);
  none = continue_copy (f, "2026-01-01T00-00-00Z-0000009-000" STAMP, &error);
  g_assert_null (none);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND);
  after = snapshot (f);
  assert_same_files (before, after);
  diverged_clear (&d);
}

/* Two devices in step hold the same files, and read the same
 * conversations and versions from them: the copy's identity is its name,
 * nothing either device chose. */
static void
test_both_devices_read_the_same (Fixture       *f,
                                 gconstpointer  data)
{
  Diverged d = { 0 };
  g_autofree char *here = g_file_get_path (f->w->dir);
  g_autofree char *there = g_strconcat (here, "-other-device", NULL);
  g_autofree char *command = NULL;
  g_autofree char *there_storage = g_build_filename (there, "storage", NULL);
  g_autoptr(GFile) storage = g_file_new_for_path (there_storage);
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(NatterSessionIndex) mine = NULL;
  g_autoptr(NatterSessionIndex) theirs = NULL;
  g_autofree char *mine_listing = NULL;
  g_autofree char *their_listing = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  diverge (f, &d);
  command = g_strdup_printf ("cp -a '%s' '%s'", here, there);
  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  mine = scan (f->w->session_repo, f->w->turn_repo);
  theirs = scan (sessions, turns);
  mine_listing = listing (mine);
  their_listing = listing (theirs);
  g_assert_cmpstr (mine_listing, ==, their_listing);
  g_assert_nonnull (strstr (mine_listing, d.copy));
  state = natter_session_reduce_file_sync (sessions, d.copy, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (natter_session_state_get_turn (state, 0)->turn_id, ==, d.there);

  g_free (command);
  command = g_strdup_printf ("rm -rf '%s'", there);
  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, &status, NULL));
  diverged_clear (&d);
}

/* The copy of a turn file (the same turn went on on both devices) is
 * another answer to its message: a version made where the conversation
 * has the turn, whose one turn is the copy, read under its name. Only a
 * shared folder is searched for one. */
static void
test_turn_copy (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *session = natter_test_sessions_create_titled (f, "Poem");
  g_autofree char *turn = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) parts = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *copy_path = NULL;
  g_autoptr(NatterSessionIndex) index = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterTurnState) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *turn_path = NULL;
  NatterSessionIndexEntry *entry;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
  turn = natter_test_sessions_send_and_wait (f, session, "A poem, please");
  turn_path = path_of (f->w->turn_repo, turn);
  contents = contents_of (turn_path);
  /* The other device's answer: the same lines, other words. */
  parts = g_strsplit (contents, "\"content\":\"done\"", -1);
  theirs = g_strjoinv ("\"content\":\"Roses are red\"", parts);
  g_assert_cmpstr (theirs, !=, contents);
  copy = g_strconcat (turn, STAMP, NULL);
  copy_path = path_of (f->w->turn_repo, copy);
  write_file (copy_path, theirs);

  index = scan (f->w->session_repo, f->w->turn_repo);
  g_assert_null (natter_session_index_lookup (index, copy));
  g_clear_object (&index);
  share_folder (f);
  index = scan (f->w->session_repo, f->w->turn_repo);
  entry = lookup (index, copy);
  g_assert_null (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, session);
  g_assert_true (natter_session_index_entry_get_is_version (entry));
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (entry), ==, copy);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "completed");

  state = natter_session_reduce_file_sync (f->w->session_repo, copy, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (natter_session_state_get_forked_from_turn_id (state));
  g_assert_cmpstr (natter_session_state_get_turn (state, 0)->turn_id, ==, copy);
  answer = natter_turn_reduce_file_sync (f->w->turn_repo, copy, NULL, NULL, &error);
  g_assert_no_error (error);
  text = natter_turn_state_dup_final_text (answer);
  g_assert_cmpstr (text, ==, "Roses are red");

  /* Its one turn is the copy itself, which no other session can name:
   * nothing goes on from it, and nothing is written. */
  g_assert_null (continue_copy (f, copy, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_READ_ONLY);
  g_clear_object (&index);
  index = scan (f->w->session_repo, f->w->turn_repo);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (index)), ==, 2);
}

/* A copy that cannot be read, by its name or by its lines, is listed
 * with its error: never passed over. */
static void
test_malformed_copies (Fixture       *f,
                       gconstpointer  data)
{
  Diverged d = { 0 };
  g_autoptr(NatterSessionIndex) index = NULL;
  g_autofree char *copy_path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *odd_name = NULL;
  g_autofree char *odd_path = NULL;
  g_autofree char *torn = NULL;
  g_autofree char *contents = NULL;
  NatterSessionIndexEntry *entry;

  diverge (f, &d);
  copy_path = path_of (f->w->session_repo, d.copy);
  contents = contents_of (copy_path);
  torn = g_strconcat (contents, "{\"type\":\"title_ch", NULL);
  write_file (copy_path, torn);
  dir = g_path_get_dirname (copy_path);
  odd_name = g_strconcat (d.session, ".sync-conflict-yesterday.jsonl", NULL);
  odd_path = g_build_filename (dir, odd_name, NULL);
  write_file (odd_path, contents);

  index = scan (f->w->session_repo, f->w->turn_repo);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (index)), ==, 3);
  entry = lookup (index, d.copy);
  g_assert_nonnull (natter_session_index_entry_get_error (entry));
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), STAMP ".jsonl:"));
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), "torn"));
  odd_name[strlen (odd_name) - strlen (".jsonl")] = '\0';
  entry = lookup (index, odd_name);
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), "not a conflict copy"));
  /* The conversation itself reads as before. */
  g_assert_null (natter_session_index_entry_get_error (lookup (index, d.session)));
  diverged_clear (&d);
}

/* A folder renamed on two devices at once: the name given last wins on
 * both, from the same files; a copy that cannot be read is the folder's
 * error. */
static void
test_folder_copy (Fixture       *f,
                  gconstpointer  data)
{
  static const char id[] = "2026-01-01T00-00-00Z-0000001-000";
  g_autoptr(NatterJsonlRepo) repo = natter_folder_repo_new (f->w->storage);
  g_autoptr(NatterFolders) folders = natter_folders_new (repo, NATTER_CLOCK (f->w->clock), f->w->ids);
  g_autoptr(JsonNode) created = natter_folder_event_new_created (id, "2026-01-01T00:00:00Z", "Work");
  g_autoptr(JsonNode) renamed = natter_folder_event_new_renamed (id, "2026-01-01T00:00:02Z", "Office");
  g_autoptr(GPtrArray) events = g_ptr_array_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *copy_path = NULL;
  g_autofree char *first_line = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *copy_contents = NULL;
  char *newline;

  g_assert_true (natter_jsonl_repo_create_sync (repo, id, created, NULL, &error));
  g_ptr_array_add (events, renamed);
  g_assert_true (natter_jsonl_repo_append_sync (repo, id, events, NULL, &error));
  g_assert_no_error (error);
  log_path = path_of (repo, id);
  contents = contents_of (log_path);
  newline = strchr (contents, '\n');
  first_line = g_strndup (contents, newline - contents + 1);
  copy = g_strconcat (id, STAMP, NULL);
  copy_path = path_of (repo, copy);
  copy_contents = g_strconcat (first_line, "{\"type\":\"folder_renamed\",\"folderId\":\"", id,
                               "\",\"ts\":\"2026-01-01T00:00:03Z\",\"name\":\"Desk\"}\n", NULL);
  write_file (copy_path, copy_contents);

  natter_folders_load_async (folders, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_folders_load_finish (folders, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  g_assert_cmpstr (natter_folder_get_name (natter_folders_lookup (folders, id)), ==, "Desk");
  g_assert_null (natter_folder_get_error (natter_folders_lookup (folders, id)));

  write_file (copy_path, "{\"type\":\"folder_renamed\"\n");
  g_clear_object (&result);
  natter_folders_load_async (folders, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_folders_load_finish (folders, natter_test_sessions_wait_result (&result), &error));
  g_assert_nonnull (natter_folder_get_error (natter_folders_lookup (folders, id)));
  g_assert_nonnull (strstr (natter_folder_get_error (natter_folders_lookup (folders, id)), STAMP));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, natter_test_sessions_set_up, func, natter_test_sessions_tear_down)
  g_test_add_func ("/sync-conflict/names", test_names);
  ADD ("/sync-conflict/session-copy", test_session_copy);
  ADD ("/sync-conflict/both-devices-read-the-same", test_both_devices_read_the_same);
  ADD ("/sync-conflict/continue-copy", test_continue_copy);
  ADD ("/sync-conflict/continue-copy-twice", test_continue_copy_twice);
  ADD ("/sync-conflict/turn-copy", test_turn_copy);
  ADD ("/sync-conflict/malformed-copies", test_malformed_copies);
  ADD ("/sync-conflict/folder-copy", test_folder_copy);
  ADD ("/sync-arriving/latest-turn", test_latest_turn_arriving);
  ADD ("/sync-arriving/history", test_history_arriving);
  ADD ("/sync-arriving/older-copy-of-earlier-turn", test_older_copy_arriving);
  ADD ("/sync-arriving/unshared-is-damage", test_missing_unshared_is_damage);
  ADD ("/sync-arriving/blob", test_blob_arriving);
#undef ADD

  return g_test_run ();
}
