/* test-jsonl-repo-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-jsonl-repo share: the fixture (a repository of
 * either kind in a temporary directory), lines to write, and the
 * checks on what the files hold.
 */

#include "test-jsonl-repo.h"

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

const KindInfo turn_kind = {
  "/turn-repo", "turns", "turn_created", "turnId",
  validate_test_turn, natter_turn_repo_new, natter_turn_event_validate,
  "{\"type\":\"turn_created\",\"turnId\":\"%3$s\",\"ts\":\"" TS "\",\"schemaVersion\":%5$s,"
  "\"sessionId\":null,\"agent\":{\"requested\":{},\"resolved\":{\"model\":{\"provider\":\"ollama\","
  "\"model\":\"llama3\"},\"systemPrompt\":\"\",\"tools\":[]}},\"context\":[],"
  "\"input\":{\"role\":\"user\",\"content\":\"hi\"},"
  "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}",
  "{\"type\":\"%6$s\",\"turnId\":\"%3$s\",\"ts\":\"" TS "\",\"usage\":{}}",
};

const KindInfo session_kind = {
  "/session-repo", "sessions", "session_created", "sessionId",
  validate_test_session, natter_session_repo_new, natter_session_event_validate,
  "{\"type\":\"session_created\",\"sessionId\":\"%3$s\",\"ts\":\"" TS "\",\"schemaVersion\":%5$s}",
  "{\"type\":\"%6$s\",\"sessionId\":\"%3$s\",\"ts\":\"" TS "\",\"title\":\"t\"}",
};

void
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
void
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

void
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

char *
created_line (const KindInfo *info,
              const char     *id)
{
  return g_strdup_printf ("{\"type\":\"%s\",\"%s\":\"%s\",\"ts\":\"" TS "\",\"schemaVersion\":1}",
                          info->created_type, info->owner_member, id);
}

char *
note_line (const KindInfo *info,
           const char     *id,
           const char     *text)
{
  return g_strdup_printf ("{\"type\":\"note\",\"%s\":\"%s\",\"ts\":\"" TS "\",\"text\":\"%s\"}",
                          info->owner_member, id, text);
}

char *
path_of (Fixture    *f,
         const char *id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->repo, id, &error);

  g_assert_no_error (error);
  return g_file_get_path (file);
}

void
create (Fixture    *f,
        const char *id)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = created_line (f->info, id);
  g_autoptr(JsonNode) event = natter_test_json (line);

  g_assert_true (natter_jsonl_repo_create_sync (f->repo, id, event, NULL, &error));
  g_assert_no_error (error);
}

void
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
char *
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

char *
file_bytes (const char *path,
            gsize      *length)
{
  return natter_test_read_file (path, length);
}

guint
mode_of (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_mode & 07777;
}

void
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

void
wait_for_result (GAsyncResult **result)
{
  natter_test_wait_for_pointer ((gpointer *) result, TIMEOUT_MS);
}

void
store_result_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GAsyncResult **out = user_data;

  /* Results are delivered on the caller's main context. */
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  *out = g_object_ref (result);
}

void
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

void
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

void
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

char *
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

void
touch (const char *dir,
       const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, "junk\n", -1, &error);
  g_assert_no_error (error);
}

void
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

void
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
