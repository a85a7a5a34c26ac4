/* test-stream-keep.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The words of an answer still streaming, kept on disk
 * (docs/format.md §11): read back for the call they belong to and no
 * other; writes and the removal applied in the order asked, the last
 * one winning; a file that is no such record left as it is and told; a
 * process that is not the writer writes nothing; the sweep at start
 * removes the words of closed calls, of turns that are gone and the
 * leftovers of cut writes, and keeps the words of an open call and what
 * it cannot read.
 */

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "natter-jsonl-repo.h"
#include "natter-store-error.h"
#include "natter-stream-keep.h"
#include "natter-test-support.h"

#define TURN   "2026-12-07T10-00-02Z-0000003-000"
#define CLOSED "2026-12-07T10-00-03Z-0000004-000"
#define GONE   "2026-12-07T10-00-04Z-0000005-000"
#define SESSION "2026-12-07T10-00-00Z-0000001-000"

#define WAIT_MS 10000

typedef struct
{
  GFile            *data_dir;
  NatterStreamKeep *keep;
} Fixture;

static void
set_up (Fixture       *f,
        gconstpointer  data)
{
  f->data_dir = natter_test_make_temp_dir ();
  f->keep = natter_stream_keep_new (f->data_dir);
}

static void
tear_down (Fixture       *f,
           gconstpointer  data)
{
  g_clear_object (&f->keep);
  natter_test_remove_tree (f->data_dir);
  g_clear_object (&f->data_dir);
}

static char *
keep_path (Fixture    *f,
           const char *name)
{
  return g_build_filename (g_file_peek_path (f->data_dir), NATTER_STREAMS_DIR_NAME, name, NULL);
}

static gboolean
settled (gpointer data)
{
  return !natter_stream_keep_is_busy (data);
}

/* Waits for every write and removal asked of the keep. */
static void
settle (Fixture *f)
{
  g_assert_true (natter_test_wait_until (settled, f->keep, WAIT_MS));
}

static JsonNode *
message (const char *text)
{
  g_autofree char *literal = g_strdup_printf ("{\"role\":\"assistant\",\"content\":"
                                              "[{\"type\":\"reasoning\",\"text\":\"hmm\"},"
                                              "{\"type\":\"text\",\"text\":\"%s\"}]}", text);

  return natter_test_json (literal);
}

static void
test_read_back (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(JsonNode) partial = message ("Once upon");
  g_autoptr(JsonNode) loaded = NULL;
  g_autoptr(JsonNode) other = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = keep_path (f, TURN ".json");
  GStatBuf st;

  natter_stream_keep_save (f->keep, TURN, 2, partial);
  g_assert_true (natter_stream_keep_is_busy (f->keep));
  settle (f);

  loaded = natter_stream_keep_load_sync (f->keep, TURN, 2, &error);
  g_assert_no_error (error);
  g_assert_true (json_node_equal (loaded, partial));
  /* The words of another call of the turn are not this call's. */
  other = natter_stream_keep_load_sync (f->keep, TURN, 1, &error);
  g_assert_no_error (error);
  g_assert_null (other);
  /* Nothing kept for a turn: no words, no error. */
  g_assert_null (natter_stream_keep_load_sync (f->keep, CLOSED, 0, &error));
  g_assert_no_error (error);

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
}

static void
test_order (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(JsonNode) first = message ("Once");
  g_autoptr(JsonNode) second = message ("Once upon");
  g_autoptr(JsonNode) third = message ("Once upon a time");
  g_autoptr(JsonNode) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = keep_path (f, TURN ".json");

  /* A removal asked while a write runs comes after it: nothing stays. */
  natter_stream_keep_save (f->keep, TURN, 0, first);
  natter_stream_keep_save (f->keep, TURN, 0, second);
  natter_stream_keep_forget (f->keep, TURN);
  settle (f);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* A write asked after a removal is the one that stays. */
  natter_stream_keep_save (f->keep, TURN, 0, first);
  natter_stream_keep_forget (f->keep, TURN);
  natter_stream_keep_save (f->keep, TURN, 0, third);
  settle (f);
  loaded = natter_stream_keep_load_sync (f->keep, TURN, 0, &error);
  g_assert_no_error (error);
  g_assert_true (json_node_equal (loaded, third));

  /* Forgetting what was never kept is no error. */
  natter_stream_keep_forget (f->keep, CLOSED);
  settle (f);
}

static void
write_file (Fixture    *f,
            const char *name,
            const char *contents)
{
  g_autofree char *dir = keep_path (f, "");
  g_autofree char *path = keep_path (f, name);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

static void
test_unreadable (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = keep_path (f, TURN ".json");

  write_file (f, TURN ".json", "{\"turnId\": \"" TURN "\", \"modelCallIndex\": 0, \"partial\"");
  g_assert_null (natter_stream_keep_load_sync (f->keep, TURN, 0, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  /* A record of another turn under this turn's name is not its words. */
  write_file (f, TURN ".json", "{\"turnId\": \"" CLOSED "\", \"modelCallIndex\": 0, "
              "\"partial\": {\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"x\"}]}}");
  g_assert_null (natter_stream_keep_load_sync (f->keep, TURN, 0, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, CLOSED));
  g_clear_error (&error);

  /* Nor a message that is no assistant's. */
  write_file (f, TURN ".json", "{\"turnId\": \"" TURN "\", \"modelCallIndex\": 0, "
              "\"partial\": {\"role\": \"user\", \"content\": \"x\"}}");
  g_assert_null (natter_stream_keep_load_sync (f->keep, TURN, 0, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  g_clear_error (&error);

  /* A folder in its place is said the same way, with the system's reason. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  g_assert_null (natter_stream_keep_load_sync (f->keep, TURN, 0, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR);
  {
    g_autofree char *said = g_strdup_printf ("The words kept in “%s” cannot be read: %s", path, g_strerror (EISDIR));

    g_assert_cmpstr (error->message, ==, said);
  }
  g_assert_cmpint (g_rmdir (path), ==, 0);
  g_clear_error (&error);

  /* A turn id that is no id never becomes a path. */
  g_assert_null (natter_stream_keep_load_sync (f->keep, "../" TURN, 0, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
}

static void
test_refused (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(JsonNode) partial = message ("Once");
  g_autoptr(GError) refusal = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_BUSY, "another process writes here");
  g_autofree char *path = keep_path (f, TURN ".json");

  write_file (f, TURN ".json", "kept by the writer");
  natter_stream_keep_refuse_writes (f->keep, refusal);
  natter_stream_keep_save (f->keep, TURN, 0, partial);
  natter_stream_keep_forget (f->keep, TURN);
  g_assert_false (natter_stream_keep_is_busy (f->keep));
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));

  /* Once it may write, it does. */
  natter_stream_keep_refuse_writes (f->keep, NULL);
  natter_stream_keep_forget (f->keep, TURN);
  settle (f);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* A turn whose model call 0 is open, or with @closed, closed. */
static void
store_turn (NatterJsonlRepo *repo,
            const char      *turn_id,
            gboolean         closed)
{
  g_autofree char *created = g_strdup_printf (
    "{\"type\":\"turn_created\",\"turnId\":\"%s\",\"ts\":\"2026-12-07T10:00:02.000Z\",\"schemaVersion\":1,"
    "\"sessionId\":\"" SESSION "\",\"agent\":{\"requested\":{\"agentId\":\"assistant\"},"
    "\"resolved\":{\"agentId\":\"assistant\",\"systemPrompt\":\"\",\"model\":{\"provider\":\"p\",\"model\":\"m\"},"
    "\"tools\":[]}},\"context\":[],\"input\":{\"role\":\"user\",\"content\":\"Tell me a story\"},"
    "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}", turn_id);
  g_autofree char *requested = g_strdup_printf (
    "{\"type\":\"model_call_requested\",\"turnId\":\"%s\",\"ts\":\"2026-12-07T10:00:02.100Z\",\"modelCallIndex\":0,"
    "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}", turn_id);
  g_autofree char *failed = g_strdup_printf (
    "{\"type\":\"model_call_failed\",\"turnId\":\"%s\",\"ts\":\"2026-12-07T10:00:03.000Z\",\"modelCallIndex\":0,"
    "\"error\":\"interrupted\"}", turn_id);
  g_autoptr(JsonNode) created_node = natter_test_json (created);
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;

  natter_jsonl_repo_create_sync (repo, turn_id, created_node, NULL, &error);
  g_assert_no_error (error);
  g_ptr_array_add (events, natter_test_json (requested));
  if (closed)
    g_ptr_array_add (events, natter_test_json (failed));
  natter_jsonl_repo_append_sync (repo, turn_id, events, NULL, &error);
  g_assert_no_error (error);
}

static void
test_sweep (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GFile) storage = g_file_get_child (f->data_dir, "storage");
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(GFile) streams = g_file_get_child (f->data_dir, NATTER_STREAMS_DIR_NAME);
  g_autoptr(JsonNode) partial = message ("Once");
  g_autoptr(GError) error = NULL;
  g_autofree char *open_path = keep_path (f, TURN ".json");
  g_autofree char *other_call_path = keep_path (f, CLOSED ".json");
  g_autofree char *gone_path = keep_path (f, GONE ".json");
  g_autofree char *leftover_path = keep_path (f, TURN ".json.X1Y2Z3");
  g_autofree char *unreadable_path = keep_path (f, "2026-12-07T10-00-05Z-0000006-000.json");
  g_autofree char *foreign_path = keep_path (f, "notes.txt");
  guint removed = 99;

  store_turn (turns, TURN, FALSE);
  store_turn (turns, CLOSED, TRUE);
  natter_stream_keep_save (f->keep, TURN, 0, partial);
  natter_stream_keep_save (f->keep, CLOSED, 0, partial);
  natter_stream_keep_save (f->keep, GONE, 0, partial);
  settle (f);
  write_file (f, TURN ".json.X1Y2Z3", "{\"turnId\"");
  write_file (f, "2026-12-07T10-00-05Z-0000006-000.json", "not JSON");
  write_file (f, "notes.txt", "a person's own file");

  g_assert_true (natter_stream_keep_sweep_sync (f->keep, turns, &removed, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (removed, ==, 3);
  /* The open call's words stay for its recovery. */
  g_assert_true (g_file_test (open_path, G_FILE_TEST_EXISTS));
  /* The closed call's, the gone turn's and the cut write's go. */
  g_assert_false (g_file_test (other_call_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (gone_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (leftover_path, G_FILE_TEST_EXISTS));
  /* What cannot be read, and what is not Natter's, stays. */
  g_assert_true (g_file_test (unreadable_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (foreign_path, G_FILE_TEST_EXISTS));

  /* No folder at all is nothing to sweep. */
  natter_test_remove_tree (streams);
  g_assert_true (natter_stream_keep_sweep_sync (f->keep, turns, &removed, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (removed, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, set_up, func, tear_down)

  ADD ("/stream-keep/read-back", test_read_back);
  ADD ("/stream-keep/order", test_order);
  ADD ("/stream-keep/unreadable", test_unreadable);
  ADD ("/stream-keep/refused", test_refused);
  ADD ("/stream-keep/sweep", test_sweep);

  return g_test_run ();
}
