/* test-sync-arriving.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A file a log names that has not arrived yet (docs/format.md §9): in a
 * folder a synchroniser shares, a turn or a blob not there yet is shown
 * as arriving and holds back a message that would build on it, nothing
 * written, and all is as on the device that wrote it once it arrives;
 * where no synchroniser shares the folder, a missing turn is damage.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-log-read.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-reducer.h"
#include "test-sync-conflict.h"

static char *
move_away (Fixture    *f,
           const char *turn_id)
{
  g_autofree char *path = path_of (f->w->turn_repo, turn_id);
  char *aside = g_strconcat (path, ".aside", NULL);

  g_assert_cmpint (g_rename (path, aside), ==, 0);
  return aside;
}

static void
bring_back (Fixture    *f,
            const char *turn_id,
            const char *aside)
{
  g_autofree char *path = path_of (f->w->turn_repo, turn_id);

  g_assert_cmpint (g_rename (aside, path), ==, 0);
}

/* In a shared folder, a session whose latest turn has not arrived lists
 * it as arriving, not damaged; a message waits for it (refused, nothing
 * written, retried the same once the file is there); reading the turn
 * says it has not arrived. Then it arrives, and all is as on the device
 * that wrote it. */
void
test_latest_turn_arriving (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *session = natter_test_sessions_create_titled (f, "Plans");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *aside = NULL;
  g_autofree char *refused = NULL;
  g_autofree char *third = NULL;
  g_autoptr(NatterSessionIndex) index = NULL;
  g_autoptr(NatterSessionIndex) arrived = NULL;
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) after = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionIndexEntry *entry;

  share_folder (f);
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = natter_test_sessions_send_and_wait (f, session, "Monday?");
  second = natter_test_sessions_send_and_wait (f, session, "Tuesday?");
  aside = move_away (f, second);

  index = scan (f->w->session_repo, f->w->turn_repo);
  entry = lookup (index, session);
  g_assert_null (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "arriving");

  events = natter_jsonl_repo_read_sync (f->w->turn_repo, second, NULL, &error);
  g_assert_null (events);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED);
  g_clear_error (&error);

  before = snapshot (f);
  refused = natter_test_sessions_send (f, session, "Wednesday?", &error);
  g_assert_null (refused);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_ARRIVING);
  g_clear_error (&error);
  after = snapshot (f);
  assert_same_files (before, after);

  bring_back (f, second, aside);
  arrived = scan (f->w->session_repo, f->w->turn_repo);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (lookup (arrived, session)), ==, "completed");
  third = natter_test_sessions_send_and_wait (f, session, "Wednesday?");
  g_assert_nonnull (third);
}

/* An earlier turn not arrived holds the history back the same way: a
 * device that has not read it (a resolver of its own) is told it has not
 * arrived, not that the history is damaged. */
void
test_history_arriving (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *session = natter_test_sessions_create_titled (f, "Plans");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *aside = NULL;
  g_autoptr(NatterTurnContextResolver) resolver = natter_turn_context_resolver_new (f->w->turn_repo);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonArray) history = NULL;
  g_autoptr(GError) error = NULL;

  share_folder (f);
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = natter_test_sessions_send_and_wait (f, session, "Monday?");
  second = natter_test_sessions_send_and_wait (f, session, "Tuesday?");
  aside = move_away (f, first);
  natter_context_resolver_materialize_async (NATTER_CONTEXT_RESOLVER (resolver), second, NULL,
                                             natter_test_result_cb, &result);
  history = natter_context_resolver_materialize_finish (NATTER_CONTEXT_RESOLVER (resolver),
                                                        natter_test_sessions_wait_result (&result), &error);
  g_assert_null (history);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED);
  bring_back (f, first, aside);
}

/* An earlier turn whose copy here ends before the turn does (an older
 * copy: the conversation went on after it) is, in a shared folder, a file
 * on its way as a missing one is: a message waits for it, refused as
 * arriving with nothing written, and goes through once the whole copy is
 * there. Where no synchroniser shares the folder it is damage
 * (test-sessions-damage.c). */
void
test_older_copy_arriving (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *session = natter_test_sessions_create_titled (f, "Plans");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *path = NULL;
  g_autofree char *whole = NULL;
  g_autofree char *refused = NULL;
  g_autofree char *third = NULL;
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) after = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *changed[2] = { NULL, NULL };
  char *end;

  share_folder (f);
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = natter_test_sessions_send_and_wait (f, session, "Monday?");
  second = natter_test_sessions_send_and_wait (f, session, "Tuesday?");
  path = path_of (f->w->turn_repo, first);
  whole = contents_of (path);
  /* The copy of the first turn as it was before its answer ended. */
  end = strchr (strchr (whole, '\n') + 1, '\n');
  {
    g_autofree char *older = g_strndup (whole, end + 1 - whole);

    write_file (path, older);
  }
  changed[0] = first;
  natter_sessions_refresh_async (f->sessions, NULL, changed, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_refresh_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);

  before = snapshot (f);
  refused = natter_test_sessions_send (f, session, "Wednesday?", &error);
  g_assert_null (refused);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_ARRIVING);
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);
  after = snapshot (f);
  assert_same_files (before, after);

  write_file (path, whole);
  g_clear_object (&result);
  natter_sessions_refresh_async (f->sessions, NULL, changed, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_refresh_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  third = natter_test_sessions_send_and_wait (f, session, "Wednesday?");
  g_assert_nonnull (third);
}

/* Where no synchroniser shares the folder, a missing turn is what it
 * always was: a dangling reference, damage. */
void
test_missing_unshared_is_damage (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *session = natter_test_sessions_create_titled (f, "Plans");
  g_autofree char *first = NULL;
  g_autofree char *aside = NULL;
  g_autoptr(NatterSessionIndex) index = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionIndexEntry *entry;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
  first = natter_test_sessions_send_and_wait (f, session, "Monday?");
  aside = move_away (f, first);
  index = scan (f->w->session_repo, f->w->turn_repo);
  entry = lookup (index, session);
  g_assert_nonnull (natter_session_index_entry_get_error (entry));
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), "damaged"));
  events = natter_jsonl_repo_read_sync (f->w->turn_repo, first, NULL, &error);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  bring_back (f, first, aside);
}

/* A blob a turn names that is not there: missing where no synchroniser
 * shares the folder, on its way where one does. */
void
test_blob_arriving (Fixture       *f,
                    gconstpointer  data)
{
  static const char hash[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  g_autoptr(NatterBlobStore) blobs = natter_blob_store_new (f->w->storage);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  bytes = natter_blob_store_read_sync (blobs, hash, &error);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  share_folder (f);
  bytes = natter_blob_store_read_sync (blobs, hash, &error);
  g_assert_null (bytes);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED);
  g_clear_error (&error);
  g_assert_false (natter_blob_store_check_present (blobs, hash, 4, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED);
}

