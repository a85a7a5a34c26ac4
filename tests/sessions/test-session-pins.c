/* test-session-pins.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pins and folders (docs/format.md §3.6 and §8, docs/sessions.md §16):
 * `pin_changed` and `folder_changed` are closed events of session schema
 * version 4, refused in a file at an older version and read back by the
 * reducer and the fast scan alike; the session service keeps them in the
 * original of a conversation, raising a version-1 file one version at a
 * time; folders are logs of their own that outlive a restart empty, whose
 * deletion leaves every conversation's file as it was and whose undo puts
 * them back. The seams: an import brings no pin or folder, a version
 * shares its conversation's, a deliberate branch has its own, and
 * deleting a conversation leaves its folder.
 */

#include <string.h>

#include "natter-folder-log.h"
#include "natter-folders.h"
#include "natter-import-report.h"
#include "natter-jsonl-repo.h"
#include "natter-session-grants-queue.h"
#include "natter-session-parameters-state.h"
#include "natter-session-placement-state.h"
#include "natter-session-scan.h"
#include "natter-session-schema.h"
#include "natter-sessions-settings.h"
#include "natter-store-error.h"
#include "natter-test-sessions.h"
#include "natter-test-support.h"

#define SID "2026-11-30T09-14-03Z-0000001-000"
#define FID "2026-11-30T09-14-03Z-0000077-000"
#define TS  "2026-11-30T09:14:03.100Z"
#define HEAD(type) "{\"type\":\"" type "\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\""

#define CREATED(v) HEAD ("session_created") ",\"schemaVersion\":" #v "}"
#define UPGRADED(v) HEAD ("schema_upgraded") ",\"schemaVersion\":" #v "}"
#define PIN(value) HEAD ("pin_changed") ",\"pinned\":" #value "}"
#define FOLDER HEAD ("folder_changed") ",\"folderId\":\"" FID "\"}"
#define NO_FOLDER HEAD ("folder_changed") "}"

typedef NatterTestSessions Fixture;

/* The events */

static void
test_validation (void)
{
  static const struct { const char *line; int code; } cases[] = {
    { PIN (true), 0 },
    { PIN (false), 0 },
    { FOLDER, 0 },
    { NO_FOLDER, 0 },
    { CREATED (4), 0 },
    { UPGRADED (4), 0 },
    { HEAD ("pin_changed") "}", NATTER_STORE_ERROR_SCHEMA },
    { HEAD ("pin_changed") ",\"pinned\":1}", NATTER_STORE_ERROR_SCHEMA },
    { HEAD ("pin_changed") ",\"pinned\":true,\"folderId\":\"" FID "\"}", NATTER_STORE_ERROR_SCHEMA },
    { HEAD ("folder_changed") ",\"folderId\":\"Work\"}", NATTER_STORE_ERROR_SCHEMA },
    { HEAD ("folder_changed") ",\"folderId\":null}", NATTER_STORE_ERROR_SCHEMA },
    { HEAD ("folder_changed") ",\"folder\":\"Work\"}", NATTER_STORE_ERROR_SCHEMA },
    /* An event no version knows still fails loudly. */
    { HEAD ("pin_toggled") ",\"pinned\":true}", NATTER_STORE_ERROR_UNKNOWN_TYPE },
    { HEAD ("folder_renamed") ",\"name\":\"Work\"}", NATTER_STORE_ERROR_UNKNOWN_TYPE },
    { CREATED (5), NATTER_STORE_ERROR_UNSUPPORTED_VERSION },
    { UPGRADED (5), NATTER_STORE_ERROR_UNSUPPORTED_VERSION },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    natter_test_assert_session_event (cases[i].line, SID, cases[i].code);
}

/* Reduces @contents (lines ended by \n) both ways: the full reducer and
 * the startup scan must agree on the verdict and on what they read. */
static NatterSessionState *
reduce_both (const char *contents,
             GError    **error)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);
  g_auto(NatterSessionScanResult) fast = { 0 };
  NatterSessionState *state;
  gboolean fast_ok;

  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    g_ptr_array_add (events, natter_test_json (lines[i]));
  state = natter_session_reduce (events, error);
  fast_ok = natter_session_scan_contents (contents, strlen (contents), SID, &fast);
  g_assert_cmpint (fast_ok, ==, state != NULL);
  if (state != NULL)
    {
      g_assert_cmpint (fast.pinned, ==, natter_session_state_get_pinned (state));
      g_assert_cmpstr (fast.folder_id, ==, natter_session_state_get_folder_id (state));
    }
  return state;
}

/* Version 4 is reached one step at a time, from files created at 1; a
 * pin in a version-1 file, unraised, is damage. */
static void
test_needs_version_4 (void)
{
  static const struct { const char *contents; const char *message; } refused[] = {
    { CREATED (1) "\n" PIN (true) "\n", "pin_changed needs session schema version 4; the file is at version 1" },
    { CREATED (1) "\n" UPGRADED (2) "\n" UPGRADED (3) "\n" FOLDER "\n",
      "folder_changed needs session schema version 4; the file is at version 3" },
    { CREATED (1) "\n" UPGRADED (4) "\n", "schema_upgraded to version 4 in a file at version 1" },
    { CREATED (4) "\n" UPGRADED (4) "\n", "schema_upgraded to version 4 in a file at version 4" },
  };
  g_autoptr(NatterSessionState) raised = NULL;
  g_autoptr(NatterSessionState) created_at_4 = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(GError) refusal = NULL;
      g_autoptr(NatterSessionState) state = reduce_both (refused[i].contents, &refusal);

      g_assert_null (state);
      g_assert_nonnull (refusal);
      if (strstr (refusal->message, refused[i].message) == NULL)
        g_error ("“%s” does not say “%s”", refusal->message, refused[i].message);
    }

  raised = reduce_both (CREATED (1) "\n" UPGRADED (2) "\n" UPGRADED (3) "\n" UPGRADED (4) "\n" PIN (true) "\n",
                        &error);
  g_assert_no_error (error);
  g_assert_cmpint (natter_session_state_get_schema_version (raised), ==, 4);
  g_assert_true (natter_session_state_get_pinned (raised));
  created_at_4 = reduce_both (CREATED (4) "\n" FOLDER "\n", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (natter_session_state_get_folder_id (created_at_4), ==, FID);
}

/* The last event of each kind is the whole truth. */
static void
test_replay (void)
{
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionState) plain = NULL;
  g_autoptr(GError) error = NULL;

  state = reduce_both (CREATED (4) "\n" PIN (true) "\n" FOLDER "\n" PIN (false) "\n" PIN (true) "\n" NO_FOLDER "\n",
                       &error);
  g_assert_no_error (error);
  g_assert_true (natter_session_state_get_pinned (state));
  g_assert_null (natter_session_state_get_folder_id (state));

  plain = reduce_both (CREATED (1) "\n", &error);
  g_assert_false (natter_session_state_get_pinned (plain));
  g_assert_null (natter_session_state_get_folder_id (plain));
}

/* Through the session service */

static void
set_pinned (Fixture    *f,
            const char *session_id,
            gboolean    pinned)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_pinned_async (f->sessions, session_id, pinned, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_pinned_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
}

static void
set_folder (Fixture    *f,
            const char *session_id,
            const char *folder_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_folder_async (f->sessions, session_id, folder_id, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_folder_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
}

static void
assert_types (GPtrArray          *events,
              const char * const *types)
{
  g_assert_cmpuint (events->len, ==, g_strv_length ((char **) types));
  for (guint i = 0; i < events->len; i++)
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (g_ptr_array_index (events, i)), "type"),
                     ==, types[i]);
}

static char *
read_session_file (Fixture    *f,
                   const char *session_id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->w->session_repo, session_id, NULL);

  return natter_test_read_file (g_file_peek_path (file), NULL);
}

/* A pin in a version-1 file raises it 1 → 2 → 3 → 4 in the same write;
 * the same again writes nothing; unpinning is one more line. */
static void
test_pin_raises_v1 (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  const char *types[] = { "session_created", "schema_upgraded", "schema_upgraded", "schema_upgraded",
                          "pin_changed", "pin_changed", "folder_changed", NULL };

  g_assert_false (natter_sessions_get_pinned (f->sessions, sid));
  set_pinned (f, sid, TRUE);
  g_assert_true (natter_sessions_get_pinned (f->sessions, sid));
  before = read_session_file (f, sid);
  set_pinned (f, sid, TRUE);
  after = read_session_file (f, sid);
  g_assert_cmpstr (before, ==, after);
  set_pinned (f, sid, FALSE);
  set_folder (f, sid, FID);
  g_assert_cmpstr (natter_sessions_get_folder_id (f->sessions, sid), ==, FID);

  events = natter_test_sessions_read (f->w->session_repo, sid);
  assert_types (events, types);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (g_ptr_array_index (events, 0)),
                                               "schemaVersion"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (g_ptr_array_index (events, 3)),
                                               "schemaVersion"), ==, 4);
  state = natter_test_sessions_get (f, sid);
  g_assert_false (natter_session_state_get_pinned (state));
  g_assert_cmpstr (natter_session_state_get_folder_id (state), ==, FID);
}

/* A version is pinned and filed with its conversation, whichever of them
 * is named: the original's file keeps it. A branch made on purpose is a
 * conversation of its own, which starts where the person made it: in
 * the same folder and with the same model settings, written to its own
 * file, but unpinned, so that the list does not pin one conversation
 * twice over. */
static void
test_versions_and_branches (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create_titled (f, "Kept");
  g_autofree char *turn = NULL;
  g_autofree char *version = NULL;
  g_autofree char *branch = NULL;
  g_autofree char *later = NULL;
  g_autoptr(NatterSessionState) version_state = NULL;
  g_autoptr(NatterSessionState) state = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
  turn = natter_test_sessions_send_and_wait (f, sid, "one");
  version = natter_test_sessions_fork (f, sid, turn, "Kept");
  set_pinned (f, version, TRUE);
  set_folder (f, version, FID);

  state = natter_test_sessions_get (f, sid);
  g_assert_true (natter_session_state_get_pinned (state));
  g_assert_cmpstr (natter_session_state_get_folder_id (state), ==, FID);
  version_state = natter_test_sessions_get (f, version);
  g_assert_false (natter_session_state_get_pinned (version_state));
  g_assert_cmpint (natter_session_state_get_schema_version (version_state), ==, 1);
  g_assert_true (natter_sessions_get_pinned (f->sessions, version));
  g_assert_cmpstr (natter_sessions_get_folder_id (f->sessions, version), ==, FID);

  /* A version made later is in the same place at once. */
  later = natter_test_sessions_fork (f, sid, turn, "Kept");
  g_assert_true (natter_sessions_get_pinned (f->sessions, later));

  /* Made from the version, at the original's turn it shows. */
  {
    g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) events = NULL;
    g_autoptr(GPtrArray) turn_events = NULL;
    g_autoptr(NatterSessionState) branch_state = NULL;
    g_autofree char *own = NULL;
    JsonObject *config;
    const char *types[] = { "session_created", "schema_upgraded", "schema_upgraded", "parameters_changed",
                            "schema_upgraded", "folder_changed", "turn_appended", "title_changed", NULL };

    parameters->has_seed = TRUE;
    parameters->seed = 7;
    natter_generation_parameters_set_system_instruction (parameters, "Be brief.");
    natter_sessions_set_parameters_async (f->sessions, version, parameters, NULL, natter_test_result_cb, &result);
    g_assert_true (natter_sessions_set_parameters_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                          &error));
    g_assert_no_error (error);

    branch = natter_test_sessions_fork (f, version, turn, NULL);
    g_assert_false (natter_sessions_get_pinned (f->sessions, branch));
    g_assert_cmpstr (natter_sessions_get_folder_id (f->sessions, branch), ==, FID);
    g_assert_cmpstr (natter_sessions_get_conversation_id (f->sessions, branch), ==, branch);
    g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->sessions, branch),
                                                       parameters));

    /* Its first message is sent with them. */
    natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
    own = natter_test_sessions_send_and_wait (f, branch, "two");
    events = natter_test_sessions_read (f->w->session_repo, branch);
    assert_types (events, types);
    branch_state = natter_test_sessions_get (f, branch);
    g_assert_false (natter_session_state_get_pinned (branch_state));
    turn_events = natter_test_sessions_read (f->w->turn_repo, own);
    config = json_object_get_object_member (natter_test_find_type (turn_events, "turn_created"), "config");
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (config, "parameters"), "seed"),
                     ==, 7);

    /* Made from the original at its own turn, alike. */
    {
      g_autofree char *plain = natter_test_sessions_fork (f, sid, turn, NULL);

      g_assert_false (natter_sessions_get_pinned (f->sessions, plain));
      g_assert_cmpstr (natter_sessions_get_folder_id (f->sessions, plain), ==, FID);
      g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->sessions, plain),
                                                         parameters));
    }

    /* Changing the branch's settings leaves the conversation's. */
    parameters->seed = 8;
    g_clear_object (&result);
    natter_sessions_set_parameters_async (f->sessions, branch, parameters, NULL, natter_test_result_cb, &result);
    g_assert_true (natter_sessions_set_parameters_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                          &error));
    g_assert_cmpint (natter_sessions_get_kept_parameters (f->sessions, sid)->seed, ==, 7);
  }
}

/* An archive is data: where the conversation sat in the sender's list
 * (a pin, a folder of theirs) does not come with it, and nothing else
 * of the log is lost for it. */
static void
test_import_leaves_place_behind (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create_titled (f, "Travelled");
  g_autofree char *turn = NULL;
  g_autofree char *archive = NULL;
  g_autoptr(GAsyncResult) exported = NULL;
  g_autoptr(GAsyncResult) imported = NULL;
  g_autoptr(NatterImportReport) report = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  const char *new_id;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
  turn = natter_test_sessions_send_and_wait (f, sid, "one");
  set_pinned (f, sid, TRUE);
  set_folder (f, sid, FID);
  natter_sessions_export_async (f->sessions, sid, "json", NULL, natter_test_result_cb, &exported);
  archive = natter_sessions_export_finish (f->sessions, natter_test_sessions_wait_result (&exported), &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (archive, "\"pin_changed\""));

  file = g_file_get_child (f->w->dir, "archive.json");
  g_file_replace_contents (file, archive, strlen (archive), NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL, &error);
  g_assert_no_error (error);
  natter_sessions_import_async (f->sessions, file, NULL, NULL, natter_test_result_cb, &imported);
  report = natter_sessions_import_finish (f->sessions, natter_test_sessions_wait_result (&imported), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (report->session_ids->len, ==, 1);
  new_id = g_ptr_array_index (report->session_ids, 0);

  g_assert_false (natter_sessions_get_pinned (f->sessions, new_id));
  g_assert_null (natter_sessions_get_folder_id (f->sessions, new_id));
  events = natter_test_sessions_read (f->w->session_repo, new_id);
  g_assert_cmpuint (natter_test_count_type (events, "pin_changed"), ==, 0);
  g_assert_cmpuint (natter_test_count_type (events, "folder_changed"), ==, 0);
  /* Nothing of a later version is left, so no upgrade either. */
  g_assert_cmpuint (natter_test_count_type (events, "schema_upgraded"), ==, 0);
  g_assert_cmpuint (natter_test_count_type (events, "turn_appended"), ==, 1);
}

/* Folders */

static NatterFolders *
folders_new (Fixture *f)
{
  g_autoptr(NatterJsonlRepo) repo = natter_folder_repo_new (f->w->storage);

  return natter_folders_new (repo, NATTER_CLOCK (f->w->clock), f->w->ids);
}

static void
load (Fixture       *f,
      NatterFolders *folders)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_folders_load_async (folders, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_folders_load_finish (folders, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
}

static char *
create (Fixture       *f,
        NatterFolders *folders,
        const char    *name,
        GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_folders_create_async (folders, name, NULL, natter_test_result_cb, &result);
  return natter_folders_create_finish (folders, natter_test_sessions_wait_result (&result), error);
}

static const char *
name_at (NatterFolders *folders,
         guint          position)
{
  g_autoptr(NatterFolder) folder = g_list_model_get_item (G_LIST_MODEL (folders), position);

  return natter_folder_get_name (folder);
}

/* An empty folder survives a restart; a rename is one line in its own
 * log; names are told apart without case or the space around them. */
static void
test_folders_kept (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(NatterFolders) folders = folders_new (f);
  g_autoptr(NatterFolders) again = folders_new (f);
  g_autoptr(NatterJsonlRepo) repo = natter_folder_repo_new (f->w->storage);
  g_autoptr(GAsyncResult) renamed = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *work = NULL;
  g_autofree char *home = NULL;
  g_autofree char *twin = NULL;
  g_autofree char *cafe = NULL;

  load (f, folders);
  work = create (f, folders, "  Work ", &error);
  g_assert_no_error (error);
  home = create (f, folders, "Home", &error);
  g_assert_no_error (error);
  twin = create (f, folders, "work", &error);
  g_assert_null (twin);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (create (f, folders, "   ", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* Names that differ only in what cannot be seen are one name. */
  g_assert_null (create (f, folders, "W\u200Bork", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  cafe = create (f, folders, "Caf\u00E9", &error);
  g_assert_nonnull (cafe);
  g_assert_no_error (error);
  g_assert_null (create (f, folders, "Cafe\u0301", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  natter_folders_rename_async (folders, home, "Errands", NULL, natter_test_result_cb, &renamed);
  g_assert_true (natter_folders_rename_finish (folders, natter_test_sessions_wait_result (&renamed), &error));
  g_assert_no_error (error);
  events = natter_test_sessions_read (repo, home);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (g_ptr_array_index (events, 1)), "type"),
                   ==, "folder_renamed");

  load (f, again);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (again)), ==, 3);
  g_assert_cmpstr (name_at (again, 0), ==, "Caf\u00E9");
  g_assert_cmpstr (name_at (again, 1), ==, "Errands");
  g_assert_cmpstr (name_at (again, 2), ==, "Work");
  g_assert_nonnull (natter_folders_find_by_name (again, "WORK"));
}

/* Deleting a folder touches no conversation's file: its conversations
 * are in none; the undo creates it again under its id, and they are in
 * it again. Deleting a conversation leaves its folder. */
static void
test_folder_delete_and_undo (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(NatterFolders) folders = folders_new (f);
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *other = natter_test_sessions_create (f);
  g_autofree char *folder_id = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GAsyncResult) deleted = NULL;
  g_autoptr(GAsyncResult) restored = NULL;
  g_autoptr(GAsyncResult) gone = NULL;
  g_autoptr(GError) error = NULL;

  load (f, folders);
  folder_id = create (f, folders, "Work", &error);
  g_assert_no_error (error);
  set_folder (f, sid, folder_id);
  set_folder (f, other, folder_id);
  before = read_session_file (f, sid);

  natter_folders_delete_async (folders, folder_id, NULL, natter_test_result_cb, &deleted);
  g_assert_true (natter_folders_delete_finish (folders, natter_test_sessions_wait_result (&deleted), &error));
  g_assert_no_error (error);
  g_assert_null (natter_folders_lookup (folders, folder_id));
  after = read_session_file (f, sid);
  g_assert_cmpstr (before, ==, after);
  g_assert_nonnull (natter_session_index_lookup (f->index, sid));

  natter_folders_restore_async (folders, folder_id, "Work", NULL, natter_test_result_cb, &restored);
  g_assert_true (natter_folders_restore_finish (folders, natter_test_sessions_wait_result (&restored), &error));
  g_assert_no_error (error);
  g_assert_cmpstr (natter_folder_get_name (natter_folders_lookup (folders, folder_id)), ==, "Work");
  g_assert_cmpstr (natter_sessions_get_folder_id (f->sessions, sid), ==, folder_id);

  natter_sessions_delete_session_async (f->sessions, other, NULL, natter_test_result_cb, &gone);
  g_assert_true (natter_sessions_delete_session_finish (f->sessions, natter_test_sessions_wait_result (&gone),
                                                        &error));
  g_assert_no_error (error);
  g_assert_nonnull (natter_folders_lookup (folders, folder_id));
}

/* A folder name is one line (docs/format.md §8): a name with a control
 * character is refused when made or renamed to, nothing written; one an
 * older version let through still reads, is kept apart from a plain name
 * like it, and comes back as it was when its deletion is undone. */
static void
test_folder_name_controls (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(NatterFolders) folders = folders_new (f);
  g_autoptr(NatterFolders) again = folders_new (f);
  g_autoptr(NatterJsonlRepo) repo = natter_folder_repo_new (f->w->storage);
  g_autoptr(GPtrArray) older = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GAsyncResult) renamed = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GAsyncResult) deleted = NULL;
  g_autoptr(GAsyncResult) restored = NULL;
  g_auto(GStrv) ids = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *work = NULL;

  load (f, folders);
  g_assert_null (create (f, folders, "Home\tWork", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "A folder name cannot hold line breaks, tabs or other control characters");
  g_clear_error (&error);
  g_assert_false (natter_folders_check_name (folders, "\x1b[31mRed", NULL, NULL));
  ids = natter_jsonl_repo_list_ids_sync (repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 0);

  work = create (f, folders, "Work", &error);
  g_assert_no_error (error);
  natter_folders_rename_async (folders, work, "Work\nLate", NULL, natter_test_result_cb, &renamed);
  g_assert_false (natter_folders_rename_finish (folders, natter_test_sessions_wait_result (&renamed), &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  events = natter_test_sessions_read (repo, work);
  g_assert_cmpuint (events->len, ==, 1);
  /* The name a folder has, or another folder's, as the dialogs ask. */
  g_assert_true (natter_folders_check_name (folders, "work ", work, NULL));
  g_assert_false (natter_folders_check_name (folders, "work ", NULL, &error));
  g_assert_cmpstr (error->message, ==, "There is a folder “Work” already");
  g_clear_error (&error);

  /* An older version's name, written as it wrote it. */
  g_ptr_array_add (older, natter_folder_event_new_renamed (work, "2026-01-01T00:00:00.000Z", "Work\tOld"));
  g_assert_true (natter_jsonl_repo_append_sync (repo, work, older, NULL, &error));
  g_assert_no_error (error);
  load (f, again);
  g_assert_cmpstr (name_at (again, 0), ==, "Work\tOld");
  g_assert_null (natter_folders_find_by_name (again, "Work Old"));

  natter_folders_delete_async (again, work, NULL, natter_test_result_cb, &deleted);
  g_assert_true (natter_folders_delete_finish (again, natter_test_sessions_wait_result (&deleted), &error));
  g_assert_no_error (error);
  natter_folders_restore_async (again, work, "Work\tOld", NULL, natter_test_result_cb, &restored);
  g_assert_true (natter_folders_restore_finish (again, natter_test_sessions_wait_result (&restored), &error));
  g_assert_no_error (error);
  g_assert_cmpstr (natter_folder_get_name (natter_folders_lookup (again, work)), ==, "Work\tOld");
}

/* A name of invisible characters only is no name, as a blank one: a new
 * folder is refused it. One an older version let through still comes
 * back as it was when its deletion is undone. */
static void
test_folder_name_invisible (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(NatterFolders) folders = folders_new (f);
  g_autoptr(NatterFolders) again = folders_new (f);
  g_autoptr(NatterJsonlRepo) repo = natter_folder_repo_new (f->w->storage);
  g_autoptr(GPtrArray) older = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GAsyncResult) deleted = NULL;
  g_autoptr(GAsyncResult) restored = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *work = NULL;

  load (f, folders);
  g_assert_null (create (f, folders, "\u200B\u2060 \uFEFF", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "A folder needs a name");
  g_clear_error (&error);

  work = create (f, folders, "Work", &error);
  g_assert_no_error (error);
  g_ptr_array_add (older, natter_folder_event_new_renamed (work, "2026-01-01T00:00:00.000Z", "\u200B"));
  g_assert_true (natter_jsonl_repo_append_sync (repo, work, older, NULL, &error));
  g_assert_no_error (error);
  load (f, again);
  natter_folders_delete_async (again, work, NULL, natter_test_result_cb, &deleted);
  g_assert_true (natter_folders_delete_finish (again, natter_test_sessions_wait_result (&deleted), &error));
  g_assert_no_error (error);
  natter_folders_restore_async (again, work, "\u200B", NULL, natter_test_result_cb, &restored);
  g_assert_true (natter_folders_restore_finish (again, natter_test_sessions_wait_result (&restored), &error));
  g_assert_no_error (error);
  g_assert_cmpstr (natter_folder_get_name (natter_folders_lookup (again, work)), ==, "\u200B");
}

/* The name a deleted folder comes back under when another took its
 * name: its own if free, else the first free number after it. */
static void
test_folder_unused_name (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(NatterFolders) folders = folders_new (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *work = NULL;
  g_autofree char *work2 = NULL;
  g_autofree char *free_name = NULL;
  g_autofree char *numbered = NULL;
  g_autofree char *next = NULL;

  load (f, folders);
  free_name = natter_folders_unused_name (folders, "Work");
  g_assert_cmpstr (free_name, ==, "Work");
  work = create (f, folders, "Work", &error);
  g_assert_no_error (error);
  numbered = natter_folders_unused_name (folders, "work ");
  g_assert_cmpstr (numbered, ==, "work (2)");
  work2 = create (f, folders, "Work (2)", &error);
  g_assert_no_error (error);
  next = natter_folders_unused_name (folders, "Work");
  g_assert_cmpstr (next, ==, "Work (3)");
}

/* A folder log that cannot be read is listed with its reason, never
 * dropped: the conversations in it must not vanish without a word. */
static void
test_damaged_folder_listed (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(NatterFolders) folders = folders_new (f);
  g_autoptr(NatterFolders) again = folders_new (f);
  g_autoptr(NatterJsonlRepo) repo = natter_folder_repo_new (f->w->storage);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *folder_id = NULL;
  g_autoptr(NatterFolder) folder = NULL;

  load (f, folders);
  folder_id = create (f, folders, "Work", &error);
  g_assert_no_error (error);
  file = natter_jsonl_repo_get_file (repo, folder_id, &error);
  g_assert_no_error (error);
  /* Half a line, as a killed write leaves it. */
  natter_test_append_file (g_file_peek_path (file), "{\"type\":\"folder_renamed\"");
  load (f, again);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (again)), ==, 1);
  folder = g_list_model_get_item (G_LIST_MODEL (again), 0);
  g_assert_cmpstr (natter_folder_get_id (folder), ==, folder_id);
  g_assert_null (natter_folder_get_name (folder));
  g_assert_nonnull (natter_folder_get_error (folder));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/session-pins/validation", test_validation);
  g_test_add_func ("/session-pins/needs-version-4", test_needs_version_4);
  g_test_add_func ("/session-pins/replay", test_replay);
  g_test_add ("/session-pins/pin-raises-v1", Fixture, NULL, natter_test_sessions_set_up,
              test_pin_raises_v1, natter_test_sessions_tear_down);
  g_test_add ("/session-pins/versions-and-branches", Fixture, NULL, natter_test_sessions_set_up,
              test_versions_and_branches, natter_test_sessions_tear_down);
  g_test_add ("/session-pins/import-leaves-place-behind", Fixture, NULL, natter_test_sessions_set_up,
              test_import_leaves_place_behind, natter_test_sessions_tear_down);
  g_test_add ("/session-pins/folders-kept", Fixture, NULL, natter_test_sessions_set_up,
              test_folders_kept, natter_test_sessions_tear_down);
  g_test_add ("/session-pins/folder-delete-and-undo", Fixture, NULL, natter_test_sessions_set_up,
              test_folder_delete_and_undo, natter_test_sessions_tear_down);
  g_test_add ("/session-pins/folder-name-controls", Fixture, NULL, natter_test_sessions_set_up,
              test_folder_name_controls, natter_test_sessions_tear_down);
  g_test_add ("/session-pins/folder-name-invisible", Fixture, NULL, natter_test_sessions_set_up,
              test_folder_name_invisible, natter_test_sessions_tear_down);
  g_test_add ("/session-pins/folder-unused-name", Fixture, NULL, natter_test_sessions_set_up,
              test_folder_unused_name, natter_test_sessions_tear_down);
  g_test_add ("/session-pins/damaged-folder-listed", Fixture, NULL, natter_test_sessions_set_up,
              test_damaged_folder_listed, natter_test_sessions_tear_down);
  return g_test_run ();
}
