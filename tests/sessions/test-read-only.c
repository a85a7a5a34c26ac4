/* test-read-only.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A process without the data directory's single-writer lock
 * (docs/sessions.md §8.3): a second set of the real services over a
 * directory whose lock the first one holds. Every kind of write of the
 * session and folder services, every advance of a turn (one that looks
 * interrupted there because the writer runs it above all) and every
 * attachment is refused with %NATTER_SESSION_ERROR_LOCKED and the lock's
 * message, no model is asked, and every file of the storage directory
 * keeps every byte, as the caches beside it do; reads go on.
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "natter-blob-store.h"
#include "natter-folders.h"
#include "natter-search-index.h"
#include "natter-generation-parameters.h"
#include "natter-session-error.h"
#include "natter-session-index-internal.h"
#include "natter-sessions-grants.h"
#include "natter-sessions-queue.h"
#include "natter-sessions-settings.h"
#include "natter-test-services.h"
#include "natter-test-support.h"

typedef struct
{
  NatterTestServices  t;           /* the writer: holds the lock */
  char               *session;     /* one answered message, in a folder */
  char               *turn;
  char               *interrupted; /* its turn asked the model, then nothing */
  char               *interrupted_turn;
  char               *folder;
  NatterServices     *reader;      /* the services that could not take the lock */
  NatterSessions     *sessions;    /* the reader's */
  GHashTable         *before;      /* storage path → contents, once the reader loaded */
} Fixture;

static char *
no_key (const char *provider,
        gpointer    user_data)
{
  return NULL;
}

/* Every file under @dir but the lock file: path → contents. */
static void
snapshot_into (GHashTable *files,
               const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  if (listing == NULL)
    return;
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      char *contents = NULL;

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          snapshot_into (files, path);
          continue;
        }
      if (g_str_equal (name, ".lock"))
        continue;
      g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
      g_hash_table_insert (files, g_steal_pointer (&path), contents);
    }
}

static GHashTable *
snapshot (Fixture *f)
{
  GHashTable *files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GFile) storage = g_file_get_child (f->t.dir, "storage");
  g_autofree char *path = g_file_get_path (storage);

  snapshot_into (files, path);
  return files;
}

static void
assert_unchanged (Fixture *f)
{
  g_autoptr(GHashTable) after = snapshot (f);
  GHashTableIter iter;
  gpointer path, contents;

  g_hash_table_iter_init (&iter, f->before);
  while (g_hash_table_iter_next (&iter, &path, &contents))
    {
      const char *now = g_hash_table_lookup (after, path);

      g_assert_nonnull (now);
      g_assert_cmpstr (now, ==, contents);
    }
  /* Nothing new either: no file, no folder of a file. */
  g_assert_cmpuint (g_hash_table_size (after), ==, g_hash_table_size (f->before));
}

static void
assert_locked (const GError *error,
               const char   *what)
{
  if (!g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED))
    g_error ("%s: expected the lock's refusal, got %s", what, error != NULL ? error->message : "success");
  g_assert_nonnull (strstr (error->message, "Another Natter process is using"));
}

/* Runs @start (which reports to natter_test_result_cb with slot_), then
 * @finish (which reads result_ and sets &error_), and asserts the lock's
 * refusal. */
#define ASSERT_REFUSED(start, finish) \
  G_STMT_START { \
    g_autoptr(GAsyncResult) result_ = NULL; \
    g_autoptr(GError) error_ = NULL; \
    GAsyncResult **slot_ = &result_; \
    start; \
    natter_test_services_wait_result (slot_); \
    (void) (finish); \
    assert_locked (error_, #start); \
  } G_STMT_END

static char *
create_folder (NatterFolders *folders,
               const char    *name)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *folder_id;

  natter_folders_create_async (folders, name, NULL, natter_test_result_cb, &result);
  folder_id = natter_folders_create_finish (folders, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  return folder_id;
}

static void
set_up (Fixture       *f,
        gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_services_set_up_without_titles (&f->t, data);
  f->interrupted = natter_test_services_write_interrupted (&f->t, "Still answering", &f->interrupted_turn);
  /* The one answer the writer gets; the reader must never ask. */
  NATTER_TEST_SERVE (&f->t, "/v1/chat/completions", NATTER_TEST_SAY ("Hello"));
  f->session = natter_test_services_create_session (&f->t);
  f->turn = natter_test_services_send (&f->t, f->session, "Hi");
  natter_test_services_settle (&f->t, f->turn);
  f->folder = create_folder (natter_services_get_folders (f->t.services), "Work");
  natter_sessions_set_folder_async (f->t.sessions, f->session, f->folder, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_folder_finish (f->t.sessions, natter_test_services_wait_result (&result),
                                                    &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  /* A second Natter over the same folder, as `dbus-run-session -- natter`
   * starts one while the first runs. */
  f->reader = natter_services_new (f->t.dir, f->t.settings, no_key, NULL, NULL);
  g_assert_false (natter_services_acquire_writer_lock (f->reader, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED);
  g_clear_error (&error);
  g_assert_false (natter_services_has_writer_lock (f->reader));
  natter_services_load_async (f->reader, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_services_load_finish (f->reader, natter_test_services_wait_result (&result), &error));
  g_assert_no_error (error);
  f->sessions = natter_services_get_sessions (f->reader);
  f->before = snapshot (f);
  g_assert_cmpuint (g_hash_table_size (f->before), >, 4);
}

static void
tear_down (Fixture       *f,
           gconstpointer  data)
{
  if (f->reader != NULL)
    {
      g_assert_true (natter_services_flush_blocking (f->reader, NATTER_TEST_SERVICES_WAIT_MS));
      f->sessions = NULL;
      g_assert_finalize_object (g_steal_pointer (&f->reader));
    }
  g_clear_pointer (&f->before, g_hash_table_unref);
  g_free (f->session);
  g_free (f->turn);
  g_free (f->interrupted);
  g_free (f->interrupted_turn);
  g_free (f->folder);
  natter_test_services_tear_down (&f->t, data);
}

/* The reader says why it writes nothing; the writer writes. */
static void
test_refusal_is_known (Fixture       *f,
                       gconstpointer  data)
{
  assert_locked (natter_sessions_get_write_refusal (f->sessions), "the reader's refusal");
  g_assert_null (natter_sessions_get_write_refusal (f->t.sessions));
}

/* Every write to a conversation or its turns. */
static void
test_session_writes_refused (Fixture       *f,
                             gconstpointer  data)
{
  NatterSessions *ro = f->sessions;
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();

  natter_send_options_set_model (options, "test", "m");
  /* Every write below would change the file: an unchanged setting
   * writes nothing anyway. */
  natter_generation_parameters_set_system_instruction (parameters, "Answer in French.");
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "From the second window");

  ASSERT_REFUSED (natter_sessions_create_session_async (ro, "New", NULL, NULL, NULL, NULL, natter_test_result_cb, slot_),
                  natter_sessions_create_session_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_fork_async (ro, f->session, f->turn, NULL, NULL, natter_test_result_cb, slot_),
                  natter_sessions_fork_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_fork_async (ro, f->session, f->turn, "A version", NULL, natter_test_result_cb, slot_),
                  natter_sessions_fork_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_create_first_version_async (ro, f->session, f->session, "V", NULL, NULL,
                                                              natter_test_result_cb, slot_),
                  natter_sessions_create_first_version_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_continue_copy_async (ro, f->session, NULL, natter_test_result_cb, slot_),
                  natter_sessions_continue_copy_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_send_message_async (ro, f->session, input, options, NULL, natter_test_result_cb,
                                                      slot_),
                  natter_sessions_send_message_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_queue_message_async (ro, f->session, input, options, FALSE, NULL,
                                                       natter_test_result_cb, slot_),
                  natter_sessions_queue_message_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_set_title_async (ro, f->session, "Renamed", NULL, natter_test_result_cb, slot_),
                  natter_sessions_set_title_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_set_conversation_title_async (ro, f->session, "Renamed", NULL,
                                                                natter_test_result_cb, slot_),
                  natter_sessions_set_conversation_title_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_set_pinned_async (ro, f->session, TRUE, NULL, natter_test_result_cb, slot_),
                  natter_sessions_set_pinned_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_set_folder_async (ro, f->session, NULL, NULL, natter_test_result_cb, slot_),
                  natter_sessions_set_folder_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_set_parameters_async (ro, f->session, parameters, NULL, natter_test_result_cb,
                                                        slot_),
                  natter_sessions_set_parameters_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_add_grant_async (ro, f->session, "read_file", NULL, natter_test_result_cb, slot_),
                  natter_sessions_add_grant_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_remove_grant_async (ro, f->session, "no-such-grant", NULL, natter_test_result_cb,
                                                      slot_),
                  natter_sessions_remove_grant_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_compact_async (ro, f->session, 1, NULL, natter_test_result_cb, slot_),
                  natter_sessions_compact_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_recover_async (ro, f->session, NULL, natter_test_result_cb, slot_),
                  natter_sessions_recover_finish (ro, result_, NULL, &error_));
  ASSERT_REFUSED (natter_sessions_delete_session_async (ro, f->session, NULL, natter_test_result_cb, slot_),
                  natter_sessions_delete_session_finish (ro, result_, &error_));
  assert_unchanged (f);
  g_assert_cmpuint (f->t.server->paths->len, ==, 1);
}

/* A turn that looks interrupted here, because the writer may be running
 * it: never resumed, answered, taken over or stopped from here. */
static void
test_turn_advances_refused (Fixture       *f,
                            gconstpointer  data)
{
  NatterSessions *ro = f->sessions;
  g_autoptr(JsonObject) tool_result = json_object_new ();

  json_object_set_string_member (tool_result, "output", "done");
  json_object_set_boolean_member (tool_result, "isError", FALSE);

  ASSERT_REFUSED (natter_sessions_resume_turn_async (ro, f->interrupted, NULL, natter_test_result_cb, slot_),
                  natter_sessions_resume_turn_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_take_over_turn_async (ro, f->interrupted, NULL, natter_test_result_cb, slot_),
                  natter_sessions_take_over_turn_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_stop_turn_async (ro, f->interrupted_turn, "Stopped", NULL, natter_test_result_cb,
                                                   slot_),
                  natter_sessions_stop_turn_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_respond_to_permission_async (ro, f->interrupted_turn, "call-1", "allow", NULL, NULL,
                                                               natter_test_result_cb, slot_),
                  natter_sessions_respond_to_permission_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_respond_to_ask_human_async (ro, f->interrupted_turn, "call-1", "Yes", NULL,
                                                              natter_test_result_cb, slot_),
                  natter_sessions_respond_to_ask_human_finish (ro, result_, &error_));
  ASSERT_REFUSED (natter_sessions_deliver_async_tool_result_async (ro, f->interrupted_turn, "call-1", tool_result,
                                                                   NULL, natter_test_result_cb, slot_),
                  natter_sessions_deliver_async_tool_result_finish (ro, result_, &error_));
  g_assert_false (natter_sessions_is_turn_running (ro, f->interrupted_turn));
  assert_unchanged (f);
  /* The interrupted turn's model was never asked again. */
  g_assert_cmpuint (f->t.server->paths->len, ==, 1);
}

/* Folders, attachments, imports and housekeeping. */
static void
test_other_writes_refused (Fixture       *f,
                           gconstpointer  data)
{
  NatterFolders *folders = natter_services_get_folders (f->reader);
  NatterBlobStore *blobs = natter_services_get_blob_store (f->reader);
  g_autoptr(GBytes) bytes = g_bytes_new_static ("attached", 8);
  g_autoptr(GError) error = NULL;
  g_autofree char *hash = NULL;
  g_autoptr(GFile) archive = g_file_get_child (f->t.dir, "export.natter");
  g_autofree char *exported = NULL;

  ASSERT_REFUSED (natter_folders_create_async (folders, "Home", NULL, natter_test_result_cb, slot_),
                  natter_folders_create_finish (folders, result_, &error_));
  ASSERT_REFUSED (natter_folders_rename_async (folders, f->folder, "Play", NULL, natter_test_result_cb, slot_),
                  natter_folders_rename_finish (folders, result_, &error_));
  ASSERT_REFUSED (natter_folders_delete_async (folders, f->folder, NULL, natter_test_result_cb, slot_),
                  natter_folders_delete_finish (folders, result_, &error_));
  g_assert_nonnull (natter_folders_lookup (folders, f->folder));

  hash = natter_blob_store_put_sync (blobs, bytes, &error);
  g_assert_null (hash);
  assert_locked (error, "natter_blob_store_put_sync");
  g_clear_error (&error);

  /* An export reads; bringing it back in writes. */
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autofree char *json = NULL;

    natter_sessions_export_async (f->sessions, f->session, "json", NULL, natter_test_result_cb, &result);
    json = natter_sessions_export_finish (f->sessions, natter_test_services_wait_result (&result), &error);
    g_assert_no_error (error);
    g_assert_nonnull (json);
    g_assert_true (g_file_replace_contents (archive, json, strlen (json), NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL,
                                            &error));
    g_assert_no_error (error);
  }
  ASSERT_REFUSED (natter_sessions_import_async (f->sessions, archive, NULL, NULL, natter_test_result_cb, slot_),
                  natter_sessions_import_finish (f->sessions, result_, &error_));
  {
    g_autoptr(GAsyncResult) result = NULL;

    natter_services_remove_leftover_temp_files_async (f->reader, NULL, natter_test_result_cb, &result);
    g_assert_cmpint (natter_services_remove_leftover_temp_files_finish (f->reader, natter_test_services_wait_result (&result),
                                                                        &error), <, 0);
    g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED);
  }
  assert_unchanged (f);
}

/* What the reader shows is what the writer wrote. */
static void
test_reads_go_on (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  NatterSessionIndex *index = natter_sessions_list_sessions (f->sessions);
  NatterFolders *folders = natter_services_get_folders (f->reader);

  g_assert_nonnull (natter_session_index_lookup (index, f->session));
  g_assert_nonnull (natter_session_index_lookup (index, f->interrupted));
  g_assert_nonnull (natter_folders_lookup (folders, f->folder));
  g_assert_cmpstr (natter_sessions_get_folder_id (f->sessions, f->session), ==, f->folder);

  natter_sessions_get_session_async (f->sessions, f->session, NULL, natter_test_result_cb, &result);
  state = natter_sessions_get_session_finish (f->sessions, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_clear_object (&result);

  {
    g_autoptr(GPtrArray) events = NULL;

    natter_sessions_get_turn_async (f->sessions, f->turn, NULL, natter_test_result_cb, &result);
    events = natter_sessions_get_turn_finish (f->sessions, natter_test_services_wait_result (&result), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (events->len, >, 1);
  }
  assert_unchanged (f);
}

/* Loads a second reader over the folder, as another Natter started now
 * would, and returns what it lists. */
static NatterSessionIndex *
load_reader (Fixture         *f,
             NatterServices **out_reader)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  *out_reader = natter_services_new (f->t.dir, f->t.settings, no_key, NULL, NULL);
  g_assert_false (natter_services_acquire_writer_lock (*out_reader, NULL));
  natter_services_load_async (*out_reader, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_services_load_finish (*out_reader, natter_test_services_wait_result (&result), &error));
  g_assert_no_error (error);
  return natter_sessions_list_sessions (natter_services_get_sessions (*out_reader));
}

/* The session index cache (docs/sessions.md §8.4) is the writer's: a
 * reader that finds none makes none, and one that finds it stale reads
 * the changed sessions into memory and leaves every byte of it. */
static void
test_index_cache_untouched (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GFile) cache = g_file_resolve_relative_path (f->t.dir, "cache/session-index");
  g_autoptr(NatterServices) reader = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *written = NULL;
  g_autofree char *after = NULL;
  g_autofree char *newer = NULL;
  gsize written_length = 0;
  gsize after_length = 0;
  NatterSessionIndex *index;

  /* Without one, a reader lists every conversation and makes none. */
  g_assert_true (g_file_delete (cache, NULL, &error));
  g_assert_no_error (error);
  index = load_reader (f, &reader);
  g_assert_nonnull (natter_session_index_lookup (index, f->session));
  g_assert_nonnull (natter_session_index_lookup (index, f->interrupted));
  g_assert_false (g_file_query_exists (cache, NULL));
  g_assert_true (natter_services_flush_blocking (reader, NATTER_TEST_SERVICES_WAIT_MS));
  g_assert_finalize_object (g_steal_pointer (&reader));

  /* The writer's cache, as its next start would write it. */
  entries = natter_session_index_scan_cached_sync (natter_services_get_session_repo (f->t.services),
                                                   natter_services_get_turn_repo (f->t.services),
                                                   cache, 1, FALSE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (entries);
  g_assert_true (g_file_load_contents (cache, NULL, &written, &written_length, NULL, &error));
  g_assert_no_error (error);

  /* Stale from now on: a new conversation the cache does not hold. */
  newer = natter_test_services_create_session (&f->t);

  index = load_reader (f, &reader);
  g_assert_nonnull (natter_session_index_lookup (index, f->session));
  g_assert_nonnull (natter_session_index_lookup (index, newer));
  g_assert_true (g_file_load_contents (cache, NULL, &after, &after_length, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (after, after_length, written, written_length);

  g_assert_true (natter_services_flush_blocking (reader, NATTER_TEST_SERVICES_WAIT_MS));
  g_assert_finalize_object (g_steal_pointer (&reader));
}

/* Every file and folder under @dir, the data folder itself included:
 * path → "size mtime" of a file, "folder mtime" of a folder (one
 * created and removed again in it would change its time). */
static void
stat_tree_into (GHashTable *entries,
                const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  GStatBuf info;

  g_assert_cmpint (g_stat (dir, &info), ==, 0);
  g_hash_table_insert (entries, g_strdup (dir),
                       g_strdup_printf ("folder %" G_GINT64_FORMAT ".%09ld", (gint64) info.st_mtim.tv_sec,
                                        info.st_mtim.tv_nsec));
  if (listing == NULL)
    return;
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_assert_cmpint (g_lstat (path, &info), ==, 0);
      if (S_ISDIR (info.st_mode))
        {
          stat_tree_into (entries, path);
          continue;
        }
      g_hash_table_insert (entries, g_steal_pointer (&path),
                           g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT ".%09ld", (gint64) info.st_size,
                                            (gint64) info.st_mtim.tv_sec, info.st_mtim.tv_nsec));
    }
}

static GHashTable *
stat_tree (GFile *dir)
{
  GHashTable *entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  stat_tree_into (entries, g_file_peek_path (dir));
  return entries;
}

/* The same names, each of the same size and modification time. */
static void
assert_tree_unchanged (GHashTable *before,
                       GHashTable *after)
{
  GHashTableIter iter;
  gpointer path, stamp;

  g_hash_table_iter_init (&iter, after);
  while (g_hash_table_iter_next (&iter, &path, &stamp))
    if (!g_hash_table_contains (before, path))
      g_error ("The reader made %s", (const char *) path);
  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &path, &stamp))
    {
      const char *now = g_hash_table_lookup (after, path);

      if (now == NULL)
        g_error ("The reader removed %s", (const char *) path);
      if (!g_str_equal (now, stamp))
        g_error ("The reader changed %s: %s, then %s", (const char *) path, (const char *) stamp, now);
    }
}

/* A second Natter over the folder, from its start to its end, doing
 * what a reader's window does: it loads the list, follows the store,
 * starts its search index (which reads the writer's) and searches. */
static void
run_reader (Fixture *f)
{
  g_autoptr(NatterServices) reader = NULL;
  g_autoptr(GPtrArray) hits = NULL;
  g_autoptr(GError) error = NULL;
  NatterSearchIndex *search;
  NatterSessionIndex *index;

  index = load_reader (f, &reader);
  g_assert_nonnull (natter_session_index_lookup (index, f->session));
  natter_services_watch_store (reader);
  search = natter_services_get_search_index (reader);
  natter_search_index_start (search);
  hits = natter_search_index_search_sync (search, "Hello", 50, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (hits->len, ==, 1);
  g_assert_cmpstr (((NatterSearchHit *) g_ptr_array_index (hits, 0))->turn_id, ==, f->turn);
  g_assert_true (natter_services_flush_blocking (reader, NATTER_TEST_SERVICES_WAIT_MS));
  g_assert_finalize_object (g_steal_pointer (&reader));
}

static void
search_waited_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (natter_search_index_wait_finish (NATTER_SEARCH_INDEX (object), result, NULL));
  *done = TRUE;
}

static void
wait_search_idle (NatterSearchIndex *search)
{
  gboolean done = FALSE;

  natter_search_index_wait_async (search, NULL, search_waited_cb, &done);
  natter_test_wait_for_flag (&done, NATTER_TEST_SERVICES_WAIT_MS);
}

/* The writer's search index, built and then closed, as a writer leaves
 * it that has not opened it since it started (or closed it): the file
 * alone, its last connection having folded the -wal into it and
 * removed the -wal and the -shm. */
static void
build_closed_search_file (Fixture *f)
{
  g_autoptr(GFile) file = g_file_resolve_relative_path (f->t.dir, "cache/search.sqlite");
  g_autofree char *wal = g_strconcat (g_file_peek_path (file), "-wal", NULL);
  g_autofree char *shm = g_strconcat (g_file_peek_path (file), "-shm", NULL);
  NatterSearchIndex *search;

  search = natter_search_index_new (file, natter_services_get_session_repo (f->t.services),
                                    natter_services_get_turn_repo (f->t.services), NULL);
  natter_search_index_start (search);
  wait_search_idle (search);
  g_assert_finalize_object (search);
  g_assert_true (g_file_query_exists (file, NULL));
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (shm, G_FILE_TEST_EXISTS));
}

/* A reader, from its start to its end, leaves every file and folder of
 * the data folder as it found it, names, sizes and times — with the
 * writer's search file there but open in no process, where SQLite
 * would make a -wal and a -shm for any connection, and without this
 * device's identity, which only the writer makes (docs/sessions.md
 * §8.3). */
static void
test_reader_changes_no_file (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(GFile) device = g_file_get_child (f->t.dir, "device");
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) after = NULL;

  build_closed_search_file (f);
  g_assert_true (g_file_delete (device, NULL, NULL));
  before = stat_tree (f->t.dir);
  run_reader (f);
  after = stat_tree (f->t.dir);
  assert_tree_unchanged (before, after);
}

/* The same with the writer's search index open and idle: the reader
 * reads through the writer's -wal and -shm and writes neither. */
static void
test_reader_changes_no_file_beside_writer (Fixture       *f,
                                           gconstpointer  data)
{
  g_autoptr(GFile) file = g_file_resolve_relative_path (f->t.dir, "cache/search.sqlite");
  g_autofree char *wal = g_strconcat (g_file_peek_path (file), "-wal", NULL);
  g_autofree char *shm = g_strconcat (g_file_peek_path (file), "-shm", NULL);
  NatterSearchIndex *search = natter_services_get_search_index (f->t.services);
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) after = NULL;

  natter_search_index_start (search);
  wait_search_idle (search);
  g_assert_true (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (shm, G_FILE_TEST_EXISTS));
  before = stat_tree (f->t.dir);
  run_reader (f);
  after = stat_tree (f->t.dir);
  assert_tree_unchanged (before, after);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add ((path), Fixture, NULL, set_up, (func), tear_down)
  ADD ("/read-only/refusal-is-known", test_refusal_is_known);
  ADD ("/read-only/session-writes-refused", test_session_writes_refused);
  ADD ("/read-only/turn-advances-refused", test_turn_advances_refused);
  ADD ("/read-only/other-writes-refused", test_other_writes_refused);
  ADD ("/read-only/reads-go-on", test_reads_go_on);
  ADD ("/read-only/index-cache-untouched", test_index_cache_untouched);
  ADD ("/read-only/reader-changes-no-file", test_reader_changes_no_file);
  ADD ("/read-only/reader-changes-no-file-beside-writer", test_reader_changes_no_file_beside_writer);
#undef ADD

  return g_test_run ();
}
