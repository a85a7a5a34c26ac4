/* test-jsonl-repo.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The JSONL repository of turns and sessions: the scenarios of
 * docs/sessions.md §6.3 for both kinds, the storage rules of
 * docs/runtime.md §2 and pitfalls.md 1–3.
 *
 * Most tests use small test validators (type, owner id, ts,
 * schemaVersion), so they pin the repo's own behaviour whatever the real
 * schemas accept. The "/real-validator" variants run the same corruption
 * cases through natter_turn_repo_new() / natter_session_repo_new().
 */

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "natter-id.h"
#include "natter-json.h"
#include "natter-jsonl-repo.h"
#include "natter-session-schema.h"
#include "natter-store-error.h"
#include "natter-test-support.h"
#include "natter-turn-schema.h"

#define TIMEOUT_MS 10000
#define TS "2026-11-30T09:14:03.000Z"

#define ID_A "2026-11-30T09-14-03Z-0000000-000"
#define ID_B "2026-11-30T09-14-03Z-0000001-000"
#define ID_C "2026-12-01T00-00-00Z-0000000-000"
#define ID_D "2027-01-05T23-59-59Z-0000007-000"

typedef struct
{
  const char            *prefix;
  const char            *kind;
  const char            *created_type;
  const char            *owner_member;
  NatterEventValidator   test_validator;
  NatterJsonlRepo      *(*real_new) (GFile *storage_dir);
  NatterEventValidator   real_validator;
  /* Valid under the real schema; templates as in CorruptCase below. */
  const char            *real_created;
  const char            *real_event;
} KindInfo;

/* Test validators */

static gboolean
validate_test_event (JsonObject  *event,
                     const char  *owner_member,
                     const char  *created_type,
                     const char  *owner_id,
                     GError     **error)
{
  static const char * const known[] = {
    "turn_created", "session_created", "note", "turn_completed", NULL
  };
  const char *type;
  const char *owner;

  if ((type = natter_json_require_string (event, "type", error)) == NULL)
    return FALSE;
  if (!g_strv_contains (known, type))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNKNOWN_TYPE,
                   "Unknown event type “%s”", type);
      return FALSE;
    }
  if ((owner = natter_json_require_string (event, owner_member, error)) == NULL)
    return FALSE;
  if (strcmp (owner, owner_id) != 0)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “%s” is “%s”, expected “%s”", owner_member, owner, owner_id);
      return FALSE;
    }
  if (natter_json_require_timestamp (event, "ts", error) == NULL)
    return FALSE;
  if (strcmp (type, created_type) == 0)
    {
      gint64 version;

      if (!natter_json_require_int (event, "schemaVersion", &version, error))
        return FALSE;
      if (version != 1)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNSUPPORTED_VERSION,
                       "Unsupported schemaVersion %" G_GINT64_FORMAT, version);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
validate_test_turn (JsonObject  *event,
                    const char  *owner_id,
                    GError     **error)
{
  return validate_test_event (event, "turnId", "turn_created", owner_id, error);
}

static gboolean
validate_test_session (JsonObject  *event,
                       const char  *owner_id,
                       GError     **error)
{
  return validate_test_event (event, "sessionId", "session_created", owner_id, error);
}

static const KindInfo turn_kind = {
  "/turn-repo", "turns", "turn_created", "turnId",
  validate_test_turn, natter_turn_repo_new, natter_turn_event_validate,
  "{\"type\":\"turn_created\",\"turnId\":\"%3$s\",\"ts\":\"" TS "\",\"schemaVersion\":%5$s,"
  "\"sessionId\":null,\"agent\":{\"requested\":{},\"resolved\":{\"model\":{\"provider\":\"ollama\","
  "\"model\":\"llama3\"},\"systemPrompt\":\"\",\"tools\":[]}},\"context\":[],"
  "\"input\":{\"role\":\"user\",\"content\":\"hi\"},"
  "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}",
  "{\"type\":\"%6$s\",\"turnId\":\"%3$s\",\"ts\":\"" TS "\",\"usage\":{}}",
};

static const KindInfo session_kind = {
  "/session-repo", "sessions", "session_created", "sessionId",
  validate_test_session, natter_session_repo_new, natter_session_event_validate,
  "{\"type\":\"session_created\",\"sessionId\":\"%3$s\",\"ts\":\"" TS "\",\"schemaVersion\":%5$s}",
  "{\"type\":\"%6$s\",\"sessionId\":\"%3$s\",\"ts\":\"" TS "\",\"title\":\"t\"}",
};

/* Fixture */

typedef struct
{
  const KindInfo  *info;
  GFile           *root;
  GFile           *storage;
  char            *root_path;
  char            *storage_path;
  NatterJsonlRepo *repo;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->info = data;
  f->root = natter_test_make_temp_dir ();
  f->storage = g_file_get_child (f->root, "storage");
  f->root_path = g_file_get_path (f->root);
  f->storage_path = g_file_get_path (f->storage);
  f->repo = natter_jsonl_repo_new (f->storage, f->info->kind, f->info->created_type,
                                   f->info->test_validator);
}

/* A worker thread drops its reference to a GTask (and so to the repo) a
 * moment after the result was posted to the main context; wait for that
 * instead of racing it. */
static void
wait_for_last_ref (gpointer object)
{
  gint64 deadline = g_get_monotonic_time () + TIMEOUT_MS * 1000;

  while (g_atomic_int_get (&G_OBJECT (object)->ref_count) > 1)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_thread_yield ();
    }
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  wait_for_last_ref (f->repo);
  g_assert_finalize_object (f->repo);
  natter_test_remove_tree (f->root);
  g_clear_object (&f->storage);
  g_clear_object (&f->root);
  g_clear_pointer (&f->root_path, g_free);
  g_clear_pointer (&f->storage_path, g_free);
}

/* Helpers */

static char *
created_line (const KindInfo *info,
              const char     *id)
{
  return g_strdup_printf ("{\"type\":\"%s\",\"%s\":\"%s\",\"ts\":\"" TS "\",\"schemaVersion\":1}",
                          info->created_type, info->owner_member, id);
}

static char *
note_line (const KindInfo *info,
           const char     *id,
           const char     *text)
{
  return g_strdup_printf ("{\"type\":\"note\",\"%s\":\"%s\",\"ts\":\"" TS "\",\"text\":\"%s\"}",
                          info->owner_member, id, text);
}

static char *
path_of (Fixture    *f,
         const char *id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->repo, id, &error);

  g_assert_no_error (error);
  return g_file_get_path (file);
}

static void
create (Fixture    *f,
        const char *id)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = created_line (f->info, id);
  g_autoptr(JsonNode) event = natter_test_json (line);

  g_assert_true (natter_jsonl_repo_create_sync (f->repo, id, event, NULL, &error));
  g_assert_no_error (error);
}

static void
append_notes (Fixture    *f,
              const char *id,
              guint       n,
              const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *line = note_line (f->info, id, text);

      g_ptr_array_add (events, natter_test_json (line));
    }
  g_assert_true (natter_jsonl_repo_append_sync (f->repo, id, events, NULL, &error));
  g_assert_no_error (error);
}

/* Writes raw bytes where the repo keeps @id, as damage or a crash would. */
static char *
write_raw (Fixture    *f,
           const char *id,
           const char *contents,
           gssize      length)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = path_of (f, id);
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, contents, length, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static char *
file_bytes (const char *path,
            gsize      *length)
{
  return natter_test_read_file (path, length);
}

static guint
mode_of (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_mode & 07777;
}

static void
assert_corrupt_read (NatterJsonlRepo *repo,
                     const char      *id,
                     const char      *path,
                     guint            line,
                     const char      *reason)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (repo, id, NULL, &error);
  g_autofree char *prefix = g_strdup_printf ("%s:%u: ", path, line);

  g_assert_null (events);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  if (!g_str_has_prefix (error->message, prefix))
    g_error ("Expected the message to start with “%s”, got “%s”", prefix, error->message);
  if (reason != NULL && strstr (error->message, reason) == NULL)
    g_error ("Expected “%s” in the message “%s”", reason, error->message);
}

static void
wait_for_result (GAsyncResult **result)
{
  natter_test_wait_for_pointer ((gpointer *) result, TIMEOUT_MS);
}

static void
store_result_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GAsyncResult **out = user_data;

  /* Results are delivered on the caller's main context. */
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  *out = g_object_ref (result);
}

/* docs/sessions.md §6.3: date-partitioned paths */

static void
test_date_partitioned_paths (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *expected = g_build_filename (f->storage_path, f->info->kind,
                                                "2026", "11", "30", ID_A ".jsonl", NULL);
  g_autofree char *kind_dir = g_build_filename (f->storage_path, f->info->kind, NULL);
  g_autofree char *year_dir = g_build_filename (kind_dir, "2026", NULL);
  g_autofree char *month_dir = g_build_filename (year_dir, "11", NULL);
  g_autofree char *day_dir = g_build_filename (month_dir, "30", NULL);
  g_autofree char *other = NULL;
  mode_t old_umask;

  g_assert_cmpstr (path, ==, expected);
  /* get_file touches nothing. */
  g_assert_false (g_file_test (f->storage_path, G_FILE_TEST_EXISTS));

  /* Modes are enforced whatever the umask. */
  old_umask = umask (0);
  create (f, ID_A);
  umask (old_umask);

  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint (mode_of (path), ==, 0600);
  g_assert_cmpuint (mode_of (day_dir), ==, 0700);
  g_assert_cmpuint (mode_of (month_dir), ==, 0700);
  g_assert_cmpuint (mode_of (year_dir), ==, 0700);
  g_assert_cmpuint (mode_of (kind_dir), ==, 0700);
  g_assert_cmpuint (mode_of (f->storage_path), ==, 0700);

  old_umask = umask (0077);
  create (f, ID_D);
  umask (old_umask);
  other = path_of (f, ID_D);
  g_assert_true (g_str_has_suffix (other, "/2027/01/05/" ID_D ".jsonl"));
  g_assert_cmpuint (mode_of (other), ==, 0600);
}

/* docs/sessions.md §6.3: id validation (the full list is in test-id.c) */

static void
test_id_validation (Fixture       *f,
                    gconstpointer  data)
{
  const char *bad[] = {
    "../../etc/passwd", "/etc/passwd", "2026-13-45T09-14-03Z-0000042-000",
    "2026-02-30T09-14-03Z-0000042-000", "2026-11-30T24-14-03Z-0000042-000", "",
  };
  g_autofree char *line = created_line (f->info, ID_A);
  g_autoptr(JsonNode) event = natter_test_json (line);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GPtrArray) events = natter_test_json_array ("{}", NULL);
      NatterLockGuard *guard;

      g_assert_false (natter_jsonl_repo_create_sync (f->repo, bad[i], event, NULL, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);

      /* Even an empty append refuses a bad id. */
      g_ptr_array_set_size (events, 0);
      g_assert_false (natter_jsonl_repo_append_sync (f->repo, bad[i], events, NULL, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);

      natter_jsonl_repo_create_async (f->repo, bad[i], event, NULL, store_result_cb, &result);
      wait_for_result (&result);
      g_assert_false (natter_jsonl_repo_create_finish (f->repo, result, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);
      g_clear_object (&result);

      natter_jsonl_repo_read_async (f->repo, bad[i], NULL, store_result_cb, &result);
      wait_for_result (&result);
      g_assert_null (natter_jsonl_repo_read_finish (f->repo, result, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);
      g_clear_object (&result);

      natter_jsonl_repo_delete_async (f->repo, bad[i], NULL, store_result_cb, &result);
      wait_for_result (&result);
      g_assert_false (natter_jsonl_repo_delete_finish (f->repo, result, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);
      g_clear_object (&result);

      natter_jsonl_repo_lock_async (f->repo, bad[i], NULL, store_result_cb, &result);
      wait_for_result (&result);
      guard = natter_jsonl_repo_lock_finish (f->repo, result, &error);
      g_assert_null (guard);
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
      g_clear_error (&error);
    }

  g_assert_false (g_file_test (f->storage_path, G_FILE_TEST_EXISTS));
}

/* docs/sessions.md §6.3: create-if-absent */

static void
assert_create_fails (Fixture    *f,
                     const char *id,
                     const char *literal,
                     int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) event = natter_test_json (literal);

  g_assert_false (natter_jsonl_repo_create_sync (f->repo, id, event, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, code);
}

static void
test_create_if_absent (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *created = created_line (f->info, ID_A);
  g_autofree char *expected = g_strconcat (created, "\n", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *other_line = NULL;
  g_autofree char *wrong_owner = NULL;
  g_autofree char *version_3 = NULL;
  g_autofree char *b_path = path_of (f, ID_B);
  g_autoptr(JsonNode) nan_event = NULL;
  g_autoptr(GError) error = NULL;

  create (f, ID_A);
  before = file_bytes (path, NULL);
  g_assert_cmpstr (before, ==, expected);

  /* A second create fails and leaves the file alone. */
  other_line = created_line (f->info, ID_A);
  assert_create_fails (f, ID_A, other_line, NATTER_STORE_ERROR_EXISTS);
  after = file_bytes (path, NULL);
  g_assert_cmpstr (after, ==, before);

  /* The first event must be a valid created event; nothing is written
   * otherwise, not even a directory's worth of file. */
  wrong_owner = created_line (f->info, ID_A);
  assert_create_fails (f, ID_B, wrong_owner, NATTER_STORE_ERROR_SCHEMA);
  {
    g_autofree char *note = note_line (f->info, ID_B, "x");

    assert_create_fails (f, ID_B, note, NATTER_STORE_ERROR_SCHEMA);
  }
  assert_create_fails (f, ID_B, "[1,2]", NATTER_STORE_ERROR_SCHEMA);
  version_3 = g_strdup_printf ("{\"type\":\"%s\",\"%s\":\"%s\",\"ts\":\"" TS "\",\"schemaVersion\":9}",
                               f->info->created_type, f->info->owner_member, ID_B);
  assert_create_fails (f, ID_B, version_3, NATTER_STORE_ERROR_UNSUPPORTED_VERSION);

  /* Not lossless: a NaN can only come from a program, not a literal. */
  {
    g_autofree char *line = created_line (f->info, ID_B);

    nan_event = natter_test_json (line);
    json_object_set_double_member (json_node_get_object (nan_event), "n", NAN);
    g_assert_false (natter_jsonl_repo_create_sync (f->repo, ID_B, nan_event, NULL, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS);
  }

  g_assert_false (g_file_test (b_path, G_FILE_TEST_EXISTS));
}

/* Appends */

static void
test_append_complete_lines (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;

  create (f, ID_A);
  append_notes (f, ID_A, 3, "one");
  append_notes (f, ID_A, 1, "two");

  {
    g_autofree char *created = created_line (f->info, ID_A);
    g_autofree char *one = note_line (f->info, ID_A, "one");
    g_autofree char *two = note_line (f->info, ID_A, "two");

    g_string_append_printf (expected, "%s\n%s\n%s\n%s\n%s\n", created, one, one, one, two);
  }

  contents = file_bytes (path, NULL);
  g_assert_cmpstr (contents, ==, expected->str);

  /* An empty batch is a no-op success. */
  g_assert_true (natter_jsonl_repo_append_sync (f->repo, ID_A, empty, NULL, &error));
  g_assert_no_error (error);
  g_free (contents);
  contents = file_bytes (path, NULL);
  g_assert_cmpstr (contents, ==, expected->str);
}

/* Create writes its first line beside the log and links it into place: no
 * temporary file stays behind, and one left by a kill mid-create is never
 * listed as a log nor blocks the create of its id. */
static void
test_create_is_all_or_nothing (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *dir = NULL;
  g_autofree char *stray = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;
  GDir *listing;
  guint entries = 0;

  create (f, ID_A);
  dir = g_path_get_dirname (path);
  listing = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (listing);
  while (g_dir_read_name (listing) != NULL)
    entries++;
  g_dir_close (listing);
  g_assert_cmpuint (entries, ==, 1);

  /* What a kill between the write and the link leaves. */
  stray = g_strdup_printf ("%s/.%s.jsonl.AbC123", dir, ID_B);
  g_assert_true (g_file_set_contents (stray, "{\"half", -1, NULL));
  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 1);
  g_assert_cmpstr (ids[0], ==, ID_A);
  create (f, ID_B);
}

static void
test_append_never_creates (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *line = note_line (f->info, ID_A, "x");
  g_autoptr(GPtrArray) events = natter_test_json_array (line, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_false (natter_jsonl_repo_append_sync (f->repo, ID_A, events, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static void
assert_append_refused (Fixture    *f,
                       const char *path,
                       GPtrArray  *events,
                       int         code)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  gsize before_length, after_length;

  before = file_bytes (path, &before_length);
  g_assert_false (natter_jsonl_repo_append_sync (f->repo, ID_A, events, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, code);
  after = file_bytes (path, &after_length);
  g_assert_cmpmem (after, after_length, before, before_length);
}

static void
test_append_validation_failure_writes_nothing (Fixture       *f,
                                               gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *good = note_line (f->info, ID_A, "good");
  g_autofree char *created = created_line (f->info, ID_A);
  g_autofree char *other_owner = note_line (f->info, ID_B, "stray");
  g_autofree char *no_owner = g_strdup_printf ("{\"type\":\"note\",\"ts\":\"" TS "\"}");
  g_autofree char *unknown = g_strdup_printf ("{\"type\":\"bogus\",\"%s\":\"%s\",\"ts\":\"" TS "\"}",
                                              f->info->owner_member, ID_A);

  create (f, ID_A);
  append_notes (f, ID_A, 1, "first");

  /* One bad event in the middle of a batch: none of the batch is written. */
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, other_owner, good, NULL);

    assert_append_refused (f, path, events, NATTER_STORE_ERROR_SCHEMA);
  }
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, no_owner, NULL);

    assert_append_refused (f, path, events, NATTER_STORE_ERROR_SCHEMA);
  }
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, unknown, NULL);

    assert_append_refused (f, path, events, NATTER_STORE_ERROR_UNKNOWN_TYPE);
  }
  /* The created event belongs on line 1 only. */
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, created, NULL);

    assert_append_refused (f, path, events, NATTER_STORE_ERROR_SCHEMA);
  }
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, "[]", NULL);

    assert_append_refused (f, path, events, NATTER_STORE_ERROR_SCHEMA);
  }
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, good, NULL);

    json_object_set_double_member (json_node_get_object (events->pdata[1]), "n", INFINITY);
    assert_append_refused (f, path, events, NATTER_STORE_ERROR_NOT_LOSSLESS);
  }
  {
    g_autoptr(GPtrArray) events = natter_test_json_array (good, NULL);

    json_object_set_string_member (json_node_get_object (events->pdata[0]), "text", "\xff\xfe");
    assert_append_refused (f, path, events, NATTER_STORE_ERROR_NOT_LOSSLESS);
  }

  /* The file is still a valid two-line log. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) read = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (read->len, ==, 2);
  }
}

static void
test_append_refuses_torn_tail (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *created = created_line (f->info, ID_A);
  g_autofree char *note = note_line (f->info, ID_A, "next");
  g_autofree char *contents = g_strdup_printf ("%s\n{\"type\":\"no", created);
  g_autofree char *path = write_raw (f, ID_A, contents, -1);
  g_autoptr(GPtrArray) events = natter_test_json_array (note, NULL);

  assert_append_refused (f, path, events, NATTER_STORE_ERROR_CORRUPT);

  /* An empty file has no created line to append to. */
  g_free (write_raw (f, ID_A, "", 0));
  assert_append_refused (f, path, events, NATTER_STORE_ERROR_CORRUPT);
}

/* Reads */

static void
test_read_round_trip (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autofree char *created = created_line (f->info, ID_A);
  const char *texts[] = { "a", "é ✓ \\\"quoted\\\"", "line\\nbreak", "" };

  create (f, ID_A);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autofree char *line = note_line (f->info, ID_A, texts[i]);

      g_ptr_array_add (batch, natter_test_json (line));
    }
  g_assert_true (natter_jsonl_repo_append_sync (f->repo, ID_A, batch, NULL, &error));
  g_assert_no_error (error);

  events = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 1 + G_N_ELEMENTS (texts));

  /* Element i is line i + 1, byte for byte what was given. */
  for (guint i = 0; i < events->len; i++)
    {
      g_autofree char *got = natter_json_to_line (events->pdata[i], NULL, &error);
      g_autofree char *want = i == 0
        ? g_strdup (created)
        : natter_json_to_line (batch->pdata[i - 1], NULL, NULL);

      g_assert_no_error (error);
      g_assert_cmpstr (got, ==, want);
    }

  /* A missing file is NOT_FOUND, not corrupt. */
  g_clear_pointer (&events, g_ptr_array_unref);
  events = natter_jsonl_repo_read_sync (f->repo, ID_B, NULL, &error);
  g_assert_null (events);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
}

/* docs/sessions.md §6.3: strict line validation; corrupt files rejected
 * whole */

typedef struct
{
  const char *name;
  /* template: %1$s = created type, %2$s = owner member, %3$s = id,
   * %4$s = another id. */
  const char *contents;
  guint       line;
  const char *reason;
} CorruptCase;

#define CREATED "{\"type\":\"%1$s\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\",\"schemaVersion\":1}"
#define NOTE "{\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\"}"

static const CorruptCase corrupt_cases[] = {
  { "empty file", "", 1, "empty" },
  { "malformed first line", "{\"type\":\"%1$s\",\n" NOTE "\n", 1, "not JSON" },
  { "malformed middle line", CREATED "\n{oops}\n" NOTE "\n", 2, "not JSON" },
  { "malformed last line", CREATED "\n" NOTE "\n" NOTE "x\n", 3, "not JSON" },
  { "torn last line", CREATED "\n" NOTE "\n{\"type\":\"note\",\"%2$s\"", 3, "torn" },
  { "valid JSON without final newline", CREATED "\n" NOTE, 2, "torn" },
  { "NaN", CREATED "\n{\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\",\"n\":NaN}\n", 2, NULL },
  { "invalid UTF-8", CREATED "\n{\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\",\"t\":\"\xc3\x28\"}\n", 2, "UTF-8" },
  { "embedded NUL", CREATED "\n{\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\",\"t\":\"a\\u0000b\"}\n", 2, NULL },
  { "wrong id inside", CREATED "\n" NOTE "\n{\"type\":\"note\",\"%2$s\":\"%4$s\",\"ts\":\"" TS "\"}\n", 3, "%4$s" },
  { "owner id missing", CREATED "\n{\"type\":\"note\",\"ts\":\"" TS "\"}\n", 2, "Field “%2$s” is missing" },
  { "unknown event type", CREATED "\n{\"type\":\"bogus\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\"}\n", 2, "bogus" },
  { "schemaVersion 2", "{\"type\":\"%1$s\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\",\"schemaVersion\":2}\n", 1, NULL },
  { "first line not created", NOTE "\n", 1, "%1$s" },
  { "created twice", CREATED "\n" NOTE "\n" CREATED "\n", 3, "%1$s" },
  { "not an object", CREATED "\n[]\n", 2, "object" },
  { "blank line", CREATED "\n\n" NOTE "\n", 2, NULL },
  { "CRLF", CREATED "\r\n" NOTE "\r\n", 1, NULL },
  { "non-canonical spacing", CREATED "\n{\"type\": \"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\"}\n", 2, "round-trip" },
  { "duplicate member", CREATED "\n{\"type\":\"note\",\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\"}\n", 2, NULL },
  { "bad ts", CREATED "\n{\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"yesterday\"}\n", 2, "ts" },
};

/* Plain substitution rather than printf: a template need not use every
 * placeholder, which positional printf arguments do not allow. */
static char *
expand (const char *template,
        const char *created_type,
        const char *owner_member,
        const char *id,
        const char *other_id)
{
  GString *out = g_string_new (template);

  g_string_replace (out, "%1$s", created_type, 0);
  g_string_replace (out, "%2$s", owner_member, 0);
  g_string_replace (out, "%3$s", id, 0);
  g_string_replace (out, "%4$s", other_id, 0);
  return g_string_free (out, FALSE);
}

static void
run_corrupt_cases (NatterJsonlRepo *repo,
                   Fixture         *f)
{
  /* A healthy neighbour in the same partition must stay readable
   * (pitfalls.md 2). */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *line = created_line (f->info, ID_B);
    g_autoptr(JsonNode) event = natter_test_json (line);

    g_assert_true (natter_jsonl_repo_create_sync (repo, ID_B, event, NULL, &error));
    g_assert_no_error (error);
  }

  for (guint i = 0; i < G_N_ELEMENTS (corrupt_cases); i++)
    {
      const CorruptCase *c = &corrupt_cases[i];
      g_autofree char *contents = expand (c->contents, f->info->created_type,
                                          f->info->owner_member, ID_A, ID_B);
      g_autofree char *reason = c->reason != NULL
        ? expand (c->reason, f->info->created_type, f->info->owner_member, ID_A, ID_B)
        : NULL;
      g_autofree char *path = NULL;
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) ids = NULL;

      g_test_message ("Case: %s", c->name);
      path = write_raw (f, ID_A, contents, -1);
      assert_corrupt_read (repo, ID_A, path, c->line, reason);

      /* The async read says the same. */
      natter_jsonl_repo_read_async (repo, ID_A, NULL, store_result_cb, &result);
      wait_for_result (&result);
      g_assert_null (natter_jsonl_repo_read_finish (repo, result, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);

      /* Listing does not read files: the damaged one is still listed. */
      ids = natter_jsonl_repo_list_ids_sync (repo, NULL, NULL);
      g_assert_cmpuint (g_strv_length (ids), ==, 2);

      /* The neighbour is untouched by the damage. */
      {
        g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (repo, ID_B, NULL, NULL);

        g_assert_nonnull (events);
        g_assert_cmpuint (events->len, ==, 1);
      }
    }
}

static void
test_strict_line_validation (Fixture       *f,
                             gconstpointer  data)
{
  run_corrupt_cases (f->repo, f);
}

static char *
real_line (const char *template,
           const char *id,
           const char *version,
           const char *type)
{
  g_autofree char *partial = expand (template, "", "", id, "");
  GString *out = g_string_new (partial);

  g_string_replace (out, "%5$s", version != NULL ? version : "", 0);
  g_string_replace (out, "%6$s", type != NULL ? type : "", 0);
  return g_string_free (out, FALSE);
}

/* The same strictness through the real schemas (natter-turn-schema.c,
 * natter-session-schema.c): the wrong owner id, an unknown type and a
 * future schema version each reject the whole file at their line. */
static void
test_strict_line_validation_real_validator (Fixture       *f,
                                            gconstpointer  data)
{
  const KindInfo *info = f->info;
  const char *event_type = info == &turn_kind ? "turn_cancelled" : "title_changed";
  g_autoptr(NatterJsonlRepo) repo = info->real_new (f->storage);
  g_autofree char *created = real_line (info->real_created, ID_A, "1", NULL);
  g_autofree char *created_v9 = real_line (info->real_created, ID_A, "9", NULL);
  g_autofree char *created_b_v9 = real_line (info->real_created, ID_B, "9", NULL);
  g_autofree char *event = real_line (info->real_event, ID_A, NULL, event_type);
  g_autofree char *other_owner = real_line (info->real_event, ID_B, NULL, event_type);
  g_autofree char *unknown = real_line (info->real_event, ID_A, NULL, "surely_not_a_type");
  g_autofree char *path = path_of (f, ID_A);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;

  /* The fixtures are valid, so what fails below fails for its own reason. */
  {
    g_autoptr(JsonNode) node = natter_test_json (created);
    g_autoptr(GPtrArray) batch = natter_test_json_array (event, event, NULL);

    g_assert_true (natter_jsonl_repo_create_sync (repo, ID_A, node, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (natter_jsonl_repo_append_sync (repo, ID_A, batch, NULL, &error));
    g_assert_no_error (error);
    events = natter_jsonl_repo_read_sync (repo, ID_A, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (events->len, ==, 3);
  }

  /* The real schemas refuse the same events on append. */
  {
    g_autoptr(GPtrArray) batch = natter_test_json_array (event, other_owner, NULL);

    g_assert_false (natter_jsonl_repo_append_sync (repo, ID_A, batch, NULL, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
    g_clear_error (&error);
  }
  {
    g_autoptr(GPtrArray) batch = natter_test_json_array (unknown, NULL);

    g_assert_false (natter_jsonl_repo_append_sync (repo, ID_A, batch, NULL, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNKNOWN_TYPE);
    g_clear_error (&error);
  }
  {
    g_autoptr(JsonNode) node = natter_test_json (created_b_v9);

    g_assert_false (natter_jsonl_repo_create_sync (repo, ID_B, node, NULL, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_UNSUPPORTED_VERSION);
    g_clear_error (&error);
  }

  /* And on read, naming the line. */
  {
    g_autofree char *contents = g_strdup_printf ("%s\n%s\n%s\n", created, event, other_owner);

    g_free (write_raw (f, ID_A, contents, -1));
    assert_corrupt_read (repo, ID_A, path, 3, ID_B);
  }
  {
    g_autofree char *contents = g_strdup_printf ("%s\n%s\n%s\n", created, unknown, event);

    g_free (write_raw (f, ID_A, contents, -1));
    assert_corrupt_read (repo, ID_A, path, 2, "surely_not_a_type");
  }
  {
    g_autofree char *contents = g_strdup_printf ("%s\n%s\n", created_v9, event);

    g_free (write_raw (f, ID_A, contents, -1));
    assert_corrupt_read (repo, ID_A, path, 1, NULL);
  }
  {
    g_autofree char *contents = g_strdup_printf ("%s\n%s\n%s\n", created, event, created);

    g_free (write_raw (f, ID_A, contents, -1));
    assert_corrupt_read (repo, ID_A, path, 3, info->created_type);
  }

  wait_for_last_ref (repo);
  g_assert_finalize_object (g_steal_pointer (&repo));
}

static void
test_corrupt_files_rejected_whole (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *path = path_of (f, ID_A);
  g_autofree char *good = NULL;
  gsize length;

  /* A healthy log of several batches, then every possible kill point: a
   * prefix of the file is either a complete log of the first lines or
   * rejected whole as torn. Never a silently shortened event, never a
   * skipped line (pitfalls.md 1, 3). */
  create (f, ID_A);
  append_notes (f, ID_A, 2, "batch one");
  append_notes (f, ID_A, 3, "batch two");
  good = file_bytes (path, &length);

  for (gsize cut = 0; cut <= length; cut++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) events = NULL;
      guint complete_lines = 0;

      for (gsize i = 0; i < cut; i++)
        if (good[i] == '\n')
          complete_lines++;

      g_free (write_raw (f, ID_A, good, cut));
      events = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);

      if (cut > 0 && good[cut - 1] == '\n')
        {
          g_assert_no_error (error);
          g_assert_cmpuint (events->len, ==, complete_lines);
        }
      else
        {
          g_assert_null (events);
          g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
        }
    }
}

/* docs/sessions.md §6.3: listing across partitions */

static void
touch (const char *dir,
       const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, "junk\n", -1, &error);
  g_assert_no_error (error);
}

static void
test_list_ids_across_partitions (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *kind_dir = g_build_filename (f->storage_path, f->info->kind, NULL);
  g_autofree char *day_a = g_build_filename (kind_dir, "2026", "11", "30", NULL);
  g_autofree char *other_kind = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  /* A directory named like a log is listed: reading it reports it. */
  const char *expected[] = { ID_A, ID_B, "2026-11-30T09-14-03Z-0000005-000", ID_C, ID_D, NULL };

  /* No kind directory yet: an empty list, not an error. */
  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ids);
  g_assert_cmpuint (g_strv_length (ids), ==, 0);
  g_clear_pointer (&ids, g_strfreev);

  /* Created out of order, across three days, two months, two years. */
  create (f, ID_D);
  create (f, ID_B);
  create (f, ID_C);
  create (f, ID_A);

  /* Things that are not ids of this kind. */
  touch (day_a, "not-an-id.jsonl");
  touch (day_a, "README");
  touch (day_a, ID_C ".jsonl");               /* the wrong partition */
  touch (day_a, "." ID_A ".jsonl.tmp");
  touch (day_a, "2026-11-30T09-14-03Z-0000042-000.json");
  touch (kind_dir, ID_A ".jsonl");            /* not in a partition */
  {
    g_autofree char *odd = g_build_filename (kind_dir, "2026", "xx", "30", NULL);
    g_autofree char *short_year = g_build_filename (kind_dir, "226", "11", "30", NULL);
    g_autofree char *dir_named_like_id = g_build_filename (day_a, "2026-11-30T09-14-03Z-0000005-000.jsonl", NULL);

    touch (odd, "2026-11-30T09-14-03Z-0000009-000.jsonl");
    touch (short_year, "2026-11-30T09-14-03Z-0000009-000.jsonl");
    g_assert_cmpint (g_mkdir_with_parents (dir_named_like_id, 0700), ==, 0);
  }
  /* A stray file where a year directory would be. */
  touch (kind_dir, "2025");

  /* The other kind's files are not listed. */
  other_kind = g_build_filename (f->storage_path,
                                 strcmp (f->info->kind, "turns") == 0 ? "sessions" : "turns",
                                 "2026", "11", "30", NULL);
  touch (other_kind, "2026-11-30T09-14-03Z-0000003-000.jsonl");

  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (ids, expected);
  g_clear_pointer (&ids, g_strfreev);

  natter_jsonl_repo_list_ids_async (f->repo, NULL, store_result_cb, &result);
  wait_for_result (&result);
  ids = natter_jsonl_repo_list_ids_finish (f->repo, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (ids, expected);
}

/* docs/sessions.md §6.3: deletion removes only the file */

static void
test_deletion_removes_only_the_file (Fixture       *f,
                                     gconstpointer  data)
{
  g_autoptr(NatterJsonlRepo) other = NULL;
  g_autofree char *a_path = path_of (f, ID_A);
  g_autofree char *b_path = path_of (f, ID_B);
  g_autofree char *a_dir = g_path_get_dirname (a_path);
  g_autofree char *b_before = NULL;
  g_autofree char *b_after = NULL;
  g_autofree char *other_before = NULL;
  g_autofree char *other_after = NULL;
  g_autofree char *other_path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GFile) other_file = NULL;
  g_auto(GStrv) ids = NULL;
  const char *other_kind = strcmp (f->info->kind, "turns") == 0 ? "sessions" : "turns";
  const KindInfo *other_info = strcmp (f->info->kind, "turns") == 0 ? &session_kind : &turn_kind;
  g_autofree char *other_line = created_line (other_info, ID_A);
  g_autoptr(JsonNode) other_event = natter_test_json (other_line);

  /* The other kind with the same id in the same partition, e.g. a turn
   * referenced by a session (docs/sessions.md §9.4: left as a harmless
   * orphan). */
  other = natter_jsonl_repo_new (f->storage, other_kind, other_info->created_type,
                                 other_info->test_validator);
  g_assert_true (natter_jsonl_repo_create_sync (other, ID_A, other_event, NULL, &error));
  g_assert_no_error (error);
  other_file = natter_jsonl_repo_get_file (other, ID_A, NULL);
  other_path = g_file_get_path (other_file);

  create (f, ID_A);
  create (f, ID_B);
  append_notes (f, ID_B, 2, "keep");
  b_before = file_bytes (b_path, NULL);
  other_before = file_bytes (other_path, NULL);

  g_assert_true (natter_jsonl_repo_delete_sync (f->repo, ID_A, NULL, &error));
  g_assert_no_error (error);

  g_assert_false (g_file_test (a_path, G_FILE_TEST_EXISTS));
  /* The partition stays, even if it were empty. */
  g_assert_true (g_file_test (a_dir, G_FILE_TEST_IS_DIR));
  b_after = file_bytes (b_path, NULL);
  g_assert_cmpstr (b_after, ==, b_before);
  other_after = file_bytes (other_path, NULL);
  g_assert_cmpstr (other_after, ==, other_before);

  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 1);
  g_assert_cmpstr (ids[0], ==, ID_B);

  /* Deleting again: NOT_FOUND, nothing else happens. */
  g_assert_false (natter_jsonl_repo_delete_sync (f->repo, ID_A, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* The async form, on the last one: the partition directory survives. */
  natter_jsonl_repo_delete_async (f->repo, ID_B, NULL, store_result_cb, &result);
  wait_for_result (&result);
  g_assert_true (natter_jsonl_repo_delete_finish (f->repo, result, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (b_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (a_dir, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (other_path, G_FILE_TEST_IS_REGULAR));

  wait_for_last_ref (other);
  g_assert_finalize_object (g_steal_pointer (&other));
}

/* A create killed before its link leaves `.<id>.jsonl.XXXXXX` alone; one
 * killed after the link leaves it as a second name of the live log. */
static void
test_leftover_temp_files_removed (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *a_path = path_of (f, ID_A);
  g_autofree char *c_path = path_of (f, ID_C);
  g_autofree char *dir = g_path_get_dirname (a_path);
  g_autofree char *c_dir = g_path_get_dirname (c_path);
  g_autofree char *b_line = created_line (f->info, ID_B);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_auto(GStrv) ids = NULL;
  struct stat st;
  guint removed = 99;
  const char *removed_names[] = {
    "." ID_A ".jsonl.Ab12Cd",   /* a hard link to the live log */
    "." ID_B ".jsonl.xY34zW",   /* a first line never linked */
  };
  const char *kept_names[] = {
    "." ID_A ".jsonl.tmp",      /* not six characters */
    "." ID_A ".jsonl.ABCDEFG",
    "." ID_A ".jsonl.AB-DEF",   /* not what g_mkstemp() makes */
    "." ID_C ".jsonl.Zx78Cv",   /* not in its id's partition */
    ".not-an-id.jsonl.AAAAAA",
    "notes.txt",
  };
  g_autofree char *c_leftover = g_build_filename (c_dir, "." ID_C ".jsonl.Qw56Er", NULL);
  g_autofree char *dir_leftover = g_build_filename (dir, "." ID_B ".jsonl.Dir123", NULL);
  g_autofree char *symlink_leftover = g_build_filename (dir, "." ID_B ".jsonl.Lnk456", NULL);

  create (f, ID_A);
  append_notes (f, ID_A, 2, "kept");
  before = file_bytes (a_path, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (removed_names); i++)
    {
      g_autofree char *path = g_build_filename (dir, removed_names[i], NULL);

      if (i == 0)
        g_assert_cmpint (link (a_path, path), ==, 0);
      else
        {
          g_file_set_contents (path, b_line, -1, &error);
          g_assert_no_error (error);
        }
    }
  for (gsize i = 0; i < G_N_ELEMENTS (kept_names); i++)
    {
      g_autofree char *path = g_build_filename (dir, kept_names[i], NULL);

      g_file_set_contents (path, "x", -1, &error);
      g_assert_no_error (error);
    }
  g_assert_cmpint (g_mkdir_with_parents (c_dir, 0700), ==, 0);
  g_file_set_contents (c_leftover, "", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir (dir_leftover, 0700), ==, 0);
  g_assert_cmpint (symlink (a_path, symlink_leftover), ==, 0);
  g_assert_cmpint (stat (a_path, &st), ==, 0);
  g_assert_cmpuint (st.st_nlink, ==, 2);

  g_assert_true (natter_jsonl_repo_remove_leftover_temp_files_sync (f->repo, &removed, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (removed, ==, 3);

  for (gsize i = 0; i < G_N_ELEMENTS (removed_names); i++)
    {
      g_autofree char *path = g_build_filename (dir, removed_names[i], NULL);

      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    }
  g_assert_false (g_file_test (c_leftover, G_FILE_TEST_EXISTS));
  for (gsize i = 0; i < G_N_ELEMENTS (kept_names); i++)
    {
      g_autofree char *path = g_build_filename (dir, kept_names[i], NULL);

      g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    }
  g_assert_true (g_file_test (dir_leftover, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (symlink_leftover, G_FILE_TEST_IS_SYMLINK));

  /* The live log lost only its second name: every byte is there, it reads
   * and takes appends as before. */
  g_assert_cmpint (stat (a_path, &st), ==, 0);
  g_assert_cmpuint (st.st_nlink, ==, 1);
  after = file_bytes (a_path, NULL);
  g_assert_cmpstr (after, ==, before);
  events = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 3);
  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 1);
  g_assert_cmpstr (ids[0], ==, ID_A);
  append_notes (f, ID_A, 1, "after");

  /* Nothing left to do the second time; no storage at all is no error. */
  g_assert_true (natter_jsonl_repo_remove_leftover_temp_files_sync (f->repo, &removed, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (removed, ==, 0);
}

static void
test_leftover_temp_files_without_storage (Fixture       *f,
                                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  guint removed = 99;

  g_assert_false (g_file_test (f->storage_path, G_FILE_TEST_EXISTS));
  g_assert_true (natter_jsonl_repo_remove_leftover_temp_files_sync (f->repo, &removed, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (removed, ==, 0);
}

/* Async forms and the lock */

static void
test_async_round_trip (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *created = created_line (f->info, ID_A);
  g_autofree char *note = note_line (f->info, ID_A, "async");
  g_autoptr(JsonNode) event = natter_test_json (created);
  g_autoptr(GPtrArray) batch = natter_test_json_array (note, note, NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();

  natter_jsonl_repo_create_async (f->repo, ID_A, event, NULL, store_result_cb, &result);
  wait_for_result (&result);
  g_assert_true (natter_jsonl_repo_create_finish (f->repo, result, &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  natter_jsonl_repo_create_async (f->repo, ID_A, event, NULL, store_result_cb, &result);
  wait_for_result (&result);
  g_assert_false (natter_jsonl_repo_create_finish (f->repo, result, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_EXISTS);
  g_clear_error (&error);
  g_clear_object (&result);

  natter_jsonl_repo_append_async (f->repo, ID_A, batch, NULL, store_result_cb, &result);
  /* The batch was serialized at the call: the caller may reuse it. */
  g_ptr_array_set_size (batch, 0);
  wait_for_result (&result);
  g_assert_true (natter_jsonl_repo_append_finish (f->repo, result, &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  /* Empty batches complete too. */
  natter_jsonl_repo_append_async (f->repo, ID_A, batch, NULL, store_result_cb, &result);
  wait_for_result (&result);
  g_assert_true (natter_jsonl_repo_append_finish (f->repo, result, &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  natter_jsonl_repo_read_async (f->repo, ID_A, NULL, store_result_cb, &result);
  wait_for_result (&result);
  events = natter_jsonl_repo_read_finish (f->repo, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 3);
  g_clear_object (&result);

  /* A cancelled call does no work. */
  g_cancellable_cancel (cancelled);
  {
    g_autoptr(GPtrArray) more = natter_test_json_array (note, NULL);

    natter_jsonl_repo_append_async (f->repo, ID_A, more, cancelled, store_result_cb, &result);
  }
  wait_for_result (&result);
  g_assert_false (natter_jsonl_repo_append_finish (f->repo, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_clear_pointer (&events, g_ptr_array_unref);
  events = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 3);
}

typedef struct
{
  GPtrArray *guards;
  guint      completed;
} LockState;

static void
locked_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  LockState *state = user_data;
  g_autoptr(GError) error = NULL;
  NatterLockGuard *guard = natter_jsonl_repo_lock_finish (NATTER_JSONL_REPO (source), result, &error);

  g_assert_no_error (error);
  g_ptr_array_add (state->guards, guard);
  state->completed++;
}

static void
test_lock (Fixture       *f,
           gconstpointer  data)
{
  LockState state = { g_ptr_array_new (), 0 };

  natter_jsonl_repo_lock_async (f->repo, ID_A, NULL, locked_cb, &state);
  natter_jsonl_repo_lock_async (f->repo, ID_A, NULL, locked_cb, &state);
  natter_jsonl_repo_lock_async (f->repo, ID_B, NULL, locked_cb, &state);

  natter_test_wait_for_count (&state.completed, 2, TIMEOUT_MS);
  natter_test_drain_main_context ();

  /* One holder for A, one for B; the second A waits. */
  g_assert_cmpuint (state.completed, ==, 2);
  natter_lock_guard_release (g_ptr_array_steal_index (state.guards, 0));
  natter_test_wait_for_count (&state.completed, 3, TIMEOUT_MS);

  while (state.guards->len > 0)
    natter_lock_guard_release (g_ptr_array_steal_index (state.guards, 0));
  g_ptr_array_unref (state.guards);
}

/* Concurrent appends: every line complete (pitfalls.md 1) */

#define N_BATCHES 64

typedef struct
{
  guint completed;
  guint failed;
} AppendState;

static void
appended_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  AppendState *state = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_jsonl_repo_append_finish (NATTER_JSONL_REPO (source), result, &error))
    {
      g_test_message ("Append failed: %s", error->message);
      state->failed++;
    }
  state->completed++;
}

static void
test_concurrent_appends_keep_lines_whole (Fixture       *f,
                                          gconstpointer  data)
{
  AppendState state = { 0, 0 };
  g_autofree char *padding = g_strnfill (16 * 1024, 'p');
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  guint expected_lines = 1;
  int last_batch = -1;
  guint seen_batches = 0;

  create (f, ID_A);

  /* Big lines from many worker threads at once: interleaved bytes would
   * show up as a malformed line. No lock on purpose: each batch must be
   * one write on its own. */
  for (guint b = 0; b < N_BATCHES; b++)
    {
      g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
      guint size = 1 + b % 5;

      for (guint i = 0; i < size; i++)
        {
          g_autofree char *line = g_strdup_printf ("{\"type\":\"note\",\"%s\":\"%s\",\"ts\":\"" TS "\","
                                                   "\"batch\":%u,\"index\":%u,\"pad\":\"%s\"}",
                                                   f->info->owner_member, ID_A, b, i, padding);

          g_ptr_array_add (batch, natter_test_json (line));
        }
      expected_lines += size;
      natter_jsonl_repo_append_async (f->repo, ID_A, batch, NULL, appended_cb, &state);
    }

  natter_test_wait_for_count (&state.completed, N_BATCHES, TIMEOUT_MS);
  g_assert_cmpuint (state.failed, ==, 0);

  events = natter_jsonl_repo_read_sync (f->repo, ID_A, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, expected_lines);

  /* Each batch is contiguous and in its own order. */
  for (guint i = 1; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (events->pdata[i]);
      int batch = json_object_get_int_member (event, "batch");
      guint index = json_object_get_int_member (event, "index");

      if (batch != last_batch)
        {
          g_assert_cmpuint (index, ==, 0);
          last_batch = batch;
          seen_batches++;
        }
      else
        {
          JsonObject *previous = json_node_get_object (events->pdata[i - 1]);

          g_assert_cmpuint (index, ==, json_object_get_int_member (previous, "index") + 1);
        }
    }
  g_assert_cmpuint (seen_batches, ==, N_BATCHES);
}

static const char *
f_name_list_ids (const KindInfo *info)
{
  return info == &turn_kind ? "list-turn-ids-across-partitions"
                            : "list-session-ids-across-partitions";
}

static const char *
f_name_delete (const KindInfo *info)
{
  return info == &turn_kind ? "deletion-removes-only-the-turn-file"
                            : "deletion-removes-only-the-session-file";
}

static void
add_kind_tests (const KindInfo *info)
{
  struct
  {
    const char *name;
    void (*func) (Fixture *, gconstpointer);
  } tests[] = {
    { "date-partitioned-paths", test_date_partitioned_paths },
    { "id-validation", test_id_validation },
    { "create-if-absent", test_create_if_absent },
    { "create-is-all-or-nothing", test_create_is_all_or_nothing },
    { "append-complete-lines", test_append_complete_lines },
    { "append-never-creates", test_append_never_creates },
    { "append-validation-failure-writes-nothing", test_append_validation_failure_writes_nothing },
    { "append-refuses-torn-tail", test_append_refuses_torn_tail },
    { "read-round-trip", test_read_round_trip },
    { "strict-line-validation", test_strict_line_validation },
    { "strict-line-validation/real-validator", test_strict_line_validation_real_validator },
    { "corrupt-files-rejected-whole", test_corrupt_files_rejected_whole },
    { f_name_list_ids (info), test_list_ids_across_partitions },
    { f_name_delete (info), test_deletion_removes_only_the_file },
    { "leftover-temp-files-removed", test_leftover_temp_files_removed },
    { "leftover-temp-files-without-storage", test_leftover_temp_files_without_storage },
    { "async-round-trip", test_async_round_trip },
    { "with-lock", test_lock },
    { "concurrent-appends-keep-lines-whole", test_concurrent_appends_keep_lines_whole },
  };

  for (guint i = 0; i < G_N_ELEMENTS (tests); i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/%s", info->prefix, tests[i].name);

      g_test_add (path, Fixture, info, fixture_set_up, tests[i].func, fixture_tear_down);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  add_kind_tests (&session_kind);
  add_kind_tests (&turn_kind);

  return g_test_run ();
}
