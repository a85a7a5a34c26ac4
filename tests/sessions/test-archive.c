/* test-archive.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Export and import through the session service, against real repos in
 * a temporary directory and a fake model: Markdown and JSON exports, the
 * export → import → export round trip (a branch included), damaged
 * archives that write nothing, and a small ChatGPT export written here,
 * whose imported turns a new message continues.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-blob-store.h"
#include "natter-session-archive.h"
#include "natter-session-grants-queue.h"
#include "natter-session-index-private.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-private.h"
#include "natter-sessions-settings.h"
#include "natter-test-sessions.h"
#include "natter-turn-reducer.h"

typedef NatterTestSessions Fixture;

static char *
export (Fixture    *f,
        const char *session_id,
        const char *format)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *text;

  natter_sessions_export_async (f->sessions, session_id, format, NULL, natter_test_result_cb, &result);
  text = natter_sessions_export_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  return text;
}

static GFile *
write_temp (Fixture    *f,
            const char *name,
            const char *contents)
{
  GFile *file = g_file_get_child (f->w->dir, name);
  g_autoptr(GError) error = NULL;

  g_file_replace_contents (file, contents, strlen (contents), NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL, &error);
  g_assert_no_error (error);
  return file;
}

static NatterImportReport *
import_report (Fixture     *f,
               GFile       *file,
               const char  *from,
               GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_import_async (f->sessions, file, from, NULL, natter_test_result_cb, &result);
  return natter_sessions_import_finish (f->sessions, natter_test_sessions_wait_result (&result), error);
}

/* The ids of the conversations an import made. */
static GStrv
import (Fixture     *f,
        GFile       *file,
        const char  *from,
        GError     **error)
{
  g_autoptr(NatterImportReport) report = import_report (f, file, from, error);

  if (report == NULL)
    return NULL;
  g_ptr_array_add (report->session_ids, NULL);
  return g_strdupv ((char **) report->session_ids->pdata);
}

static char *
import_one (Fixture    *f,
            const char *archive)
{
  g_autoptr(GFile) file = write_temp (f, "archive.json", archive);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = import (f, file, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 1);
  return g_strdup (ids[0]);
}

static guint
n_files (NatterJsonlRepo *repo)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = natter_jsonl_repo_list_ids_sync (repo, NULL, &error);

  g_assert_no_error (error);
  return g_strv_length (ids);
}

/* @text with every id replaced by its order of first appearance, the
 * export's own time and the mark of imported turns removed: what must be
 * equal between two exports of the same conversation under other ids. */
static char *
without_ids (const char *text)
{
  g_autoptr(GRegex) id = g_regex_new ("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}Z-[0-9]{7}-[0-9]{3}",
                                      0, 0, NULL);
  g_autoptr(GRegex) exported = g_regex_new ("\"exportedAt\":\"[^\"]*\"", 0, 0, NULL);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GMatchInfo) match = NULL;
  GString *out = g_string_new (NULL);
  g_autoptr(GRegex) mark = g_regex_new (",\"imported\":\\{\"from\":\"natter-archive\"\\}", 0, 0, NULL);
  g_autofree char *unmarked = g_regex_replace_literal (mark, text, -1, 0, "", 0, NULL);
  g_autofree char *plain = g_regex_replace_literal (exported, unmarked, -1, 0, "\"exportedAt\":\"\"", 0, NULL);
  gint last = 0;

  g_regex_match (id, plain, 0, &match);
  while (g_match_info_matches (match))
    {
      g_autofree char *found = g_match_info_fetch (match, 0);
      const char *name;
      gint start, end;

      g_match_info_fetch_pos (match, 0, &start, &end);
      name = g_hash_table_lookup (seen, found);
      if (name == NULL)
        {
          name = g_strdup_printf ("ID%u", g_hash_table_size (seen) + 1);
          g_hash_table_insert (seen, g_strdup (found), (gpointer) name);
        }
      g_string_append_len (out, plain + last, start - last);
      g_string_append (out, name);
      last = end;
      g_match_info_next (match, NULL);
    }
  g_string_append (out, plain + last);
  return g_string_free (out, FALSE);
}

/* A session with a plain turn and a turn with a tool call. */
static char *
make_conversation (Fixture *f)
{
  g_autofree char *sid = natter_test_sessions_create_titled (f, "Weather talk");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  natter_test_sessions_script (f, "{\"role\":\"assistant\",\"content\":\"It is sunny.\"}",
          NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{\"city\":\"Oslo\"}")),
          "{\"role\":\"assistant\",\"content\":\"Oslo is cold.\"}", NULL);
  first = natter_test_sessions_send_and_wait (f, sid, "How is the weather?");
  second = natter_test_sessions_send_and_wait (f, sid, "And in Oslo?");
  return g_steal_pointer (&sid);
}

static void
test_export_markdown (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *markdown = export (f, sid, "markdown");
  const char *weather;
  const char *oslo;

  g_assert_true (g_str_has_prefix (markdown, "# Weather talk\n\n## You\n\nHow is the weather?\n\n## Answer\n\nIt is sunny.\n"));
  weather = strstr (markdown, "It is sunny.");
  oslo = strstr (markdown, "And in Oslo?");
  g_assert_nonnull (oslo);
  g_assert_true (weather < oslo);
  /* The tool call is folded away, with its arguments and its result. */
  g_assert_nonnull (strstr (oslo, "<details>\n<summary>sa</summary>\n"));
  g_assert_nonnull (strstr (oslo, "\"city\" : \"Oslo\""));
  g_assert_nonnull (strstr (oslo, "Result:"));
  g_assert_nonnull (strstr (oslo, "</details>\n\nOslo is cold.\n"));
  g_assert_null (strstr (markdown, "2026-"));
}

static void
test_export_json (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *text = export (f, sid, "json");
  g_autoptr(JsonNode) node = natter_test_json (text);
  JsonObject *archive = json_node_get_object (node);
  JsonArray *turns = json_object_get_array_member (archive, "turns");
  g_autoptr(GPtrArray) session = natter_jsonl_repo_read_sync (f->w->session_repo, sid, NULL, NULL);
  JsonArray *events = json_object_get_array_member (archive, "session");

  g_assert_cmpstr (json_object_get_string_member (archive, "format"), ==, "natter-archive");
  g_assert_cmpint (json_object_get_int_member (archive, "version"), ==, 1);
  /* The session's own log, line for line. */
  g_assert_cmpuint (json_array_get_length (events), ==, session->len);
  for (guint i = 0; i < session->len; i++)
    g_assert_true (json_node_equal (json_array_get_element (events, i), g_ptr_array_index (session, i)));
  /* And every turn's whole log. */
  g_assert_cmpuint (json_array_get_length (turns), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *turn = json_array_get_object_element (turns, i);
      g_autoptr(GPtrArray) log = natter_jsonl_repo_read_sync (f->w->turn_repo,
                                                              json_object_get_string_member (turn, "turnId"),
                                                              NULL, NULL);
      JsonArray *turn_events = json_object_get_array_member (turn, "events");

      g_assert_cmpuint (json_array_get_length (turn_events), ==, log->len);
      for (guint j = 0; j < log->len; j++)
        g_assert_true (json_node_equal (json_array_get_element (turn_events, j), g_ptr_array_index (log, j)));
    }
}

static void
test_round_trip (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *first = export (f, sid, "json");
  g_autofree char *imported = import_one (f, first);
  g_autofree char *second = export (f, imported, "json");
  g_autofree char *again = import_one (f, first);
  g_autofree char *a = without_ids (first);
  g_autofree char *b = without_ids (second);
  NatterSessionIndexEntry *entry = natter_session_index_lookup (f->index, imported);

  g_assert_cmpstr (imported, !=, sid);
  g_assert_cmpstr (again, !=, imported);
  g_assert_cmpstr (a, ==, b);
  g_assert_nonnull (entry);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "Weather talk");
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "completed");
  /* Nothing was overwritten: the original, and two copies of 1 + 2 files. */
  g_assert_cmpuint (n_files (f->w->session_repo), ==, 3);
  g_assert_cmpuint (n_files (f->w->turn_repo), ==, 6);
}

/* The types of the session file of @id, space-separated, each with the
 * schemaVersion it carries ("session_created:1"). */
static char *
session_types (Fixture    *f,
               const char *id)
{
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->w->session_repo, id, NULL, NULL);
  g_autoptr(GString) types = g_string_new (NULL);

  g_assert_nonnull (events);
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i));

      g_string_append_printf (types, "%s%s", i > 0 ? " " : "", json_object_get_string_member (event, "type"));
      if (json_object_has_member (event, "schemaVersion"))
        g_string_append_printf (types, ":%" G_GINT64_FORMAT, json_object_get_int_member (event, "schemaVersion"));
    }
  return g_string_free (g_steal_pointer (&types), FALSE);
}

/* @archive with its session_created at @version and its schema_upgraded
 * events left out: what a Natter that created every file at version 2
 * exported. */
static char *
archive_created_at (const char *archive,
                    gint64      version)
{
  g_autoptr(JsonNode) node = natter_test_json (archive);
  JsonArray *session = json_object_get_array_member (json_node_get_object (node), "session");
  g_autoptr(JsonArray) kept = json_array_new ();

  for (guint i = 0; i < json_array_get_length (session); i++)
    {
      JsonObject *event = json_array_get_object_element (session, i);

      if (g_str_equal (json_object_get_string_member (event, "type"), "schema_upgraded"))
        continue;
      if (i == 0)
        json_object_set_int_member (event, "schemaVersion", version);
      json_array_add_element (kept, json_node_copy (json_array_get_element (session, i)));
    }
  json_object_set_array_member (json_node_get_object (node), "session", g_steal_pointer (&kept));
  return json_to_string (node, FALSE);
}

/* Imports @archive and asserts the types of the new session file. */
static void
assert_imported_as (Fixture    *f,
                    const char *archive,
                    const char *expected)
{
  g_autofree char *id = import_one (f, archive);
  g_autofree char *types = session_types (f, id);

  g_assert_cmpstr (types, ==, expected);
}

/* An imported session is created at the lowest version that expresses
 * it, whatever version its archive's file had: 1, raised by
 * schema_upgraded right before its first version-2 event
 * (docs/format.md §3.3). A grant revoked in the archive is history and
 * comes along (an active one would stay behind, docs/format.md §7.1). */
static void
test_import_lowest_version (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *plain = export (f, sid, "json");
  g_autofree char *plain_at_2 = archive_created_at (plain, 2);
  g_autofree char *granted = NULL;
  g_autofree char *granted_at_2 = NULL;
  g_autoptr(GPtrArray) grant = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *v1 = "session_created:1 turn_appended turn_appended";
  const char *v2 = "session_created:1 turn_appended turn_appended schema_upgraded:2 permission_grant_added "
                   "permission_grant_removed";

  assert_imported_as (f, plain, v1);
  assert_imported_as (f, plain_at_2, v1);

  g_ptr_array_add (grant, natter_session_event_new_grant_added (sid, "2026-11-30T10:00:00.000Z",
                                                                "2026-11-30T10-00-00Z-0000001-000", "sa"));
  g_ptr_array_add (grant, natter_session_event_new_grant_removed (sid, "2026-11-30T10:00:01.000Z",
                                                                  "2026-11-30T10-00-00Z-0000001-000"));
  natter_sessions_append_events_async (f->sessions, sid, grant, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_append_events_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                       &error));
  g_assert_no_error (error);
  granted = export (f, sid, "json");
  granted_at_2 = archive_created_at (granted, 2);

  assert_imported_as (f, granted, v2);
  assert_imported_as (f, granted_at_2, v2);
}

/* A conversation's generation parameters are the person's settings,
 * not authority: they come along, in a file raised one version at a time
 * (docs/format.md §3.5, §7.1). */
static void
test_import_keeps_parameters (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *archive = NULL;
  g_autofree char *id = NULL;
  g_autofree char *types = NULL;
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  parameters->has_top_p = TRUE;
  parameters->top_p = 0.5;
  natter_generation_parameters_set_system_instruction (parameters, "Be kind.");
  natter_sessions_set_parameters_async (f->sessions, sid, parameters, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_parameters_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                        &error));
  g_assert_no_error (error);
  archive = export (f, sid, "json");
  id = import_one (f, archive);
  types = session_types (f, id);
  g_assert_cmpstr (types, ==, "session_created:1 turn_appended turn_appended schema_upgraded:2 schema_upgraded:3 "
                   "parameters_changed");
  g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->sessions, id),
                                                     parameters));
}

static void
test_round_trip_branch (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autoptr(NatterSessionState) parent = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *branch = NULL;
  g_autofree char *turn = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *archive = NULL;
  g_autofree char *imported = NULL;
  g_autofree char *markdown_again = NULL;
  g_autofree char *first_turn = NULL;
  g_autofree char *exported = NULL;
  JsonObject *created;
  g_autoptr(JsonNode) node = NULL;

  {
    g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->w->session_repo, sid, NULL, NULL);

    parent = natter_session_reduce (events, NULL);
    first_turn = g_strdup (natter_session_state_get_turn (parent, 0)->turn_id);
  }
  natter_sessions_fork_async (f->sessions, sid, first_turn, "Elsewhere", NULL, natter_test_result_cb, &result);
  branch = natter_sessions_fork_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  natter_test_sessions_script (f, "{\"role\":\"assistant\",\"content\":\"Bergen is wet.\"}", NULL);
  turn = natter_test_sessions_send_and_wait (f, branch, "And in Bergen?");

  markdown = export (f, branch, "markdown");
  g_assert_nonnull (strstr (markdown, "How is the weather?"));
  g_assert_nonnull (strstr (markdown, "Bergen is wet."));
  g_assert_null (strstr (markdown, "And in Oslo?"));

  archive = export (f, branch, "json");
  imported = import_one (f, archive);
  markdown_again = export (f, imported, "markdown");
  g_assert_cmpstr (markdown_again, ==, markdown);

  /* The branch comes in as a conversation of its own. */
  exported = export (f, imported, "json");
  node = natter_test_json (exported);
  created = json_array_get_object_element (json_object_get_array_member (json_node_get_object (node), "session"), 0);
  g_assert_false (json_object_has_member (created, "parentSession"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (node), "turns")), ==, 2);
}

/* Replaces the first @from in @text by @to. */
static char *
replace_once (const char *text,
              const char *from,
              const char *to)
{
  const char *at = strstr (text, from);

  g_assert_nonnull (at);
  return g_strdup_printf ("%.*s%s%s", (int) (at - text), text, to, at + strlen (from));
}

static void
assert_refused (Fixture    *f,
                const char *contents,
                const char *from,
                const char *expected)
{
  g_autoptr(GFile) file = write_temp (f, "damaged.json", contents);
  g_autoptr(GError) error = NULL;
  guint n_sessions = n_files (f->w->session_repo);
  guint n_turns = n_files (f->w->turn_repo);
  guint n_entries = g_list_model_get_n_items (G_LIST_MODEL (f->index));
  guint n_changed = f->n_changed;
  g_auto(GStrv) ids = import (f, file, from, &error);

  g_assert_null (ids);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE);
  if (strstr (error->message, expected) == NULL)
    g_error ("“%s” does not say “%s”", error->message, expected);
  g_assert_cmpuint (n_files (f->w->session_repo), ==, n_sessions);
  g_assert_cmpuint (n_files (f->w->turn_repo), ==, n_turns);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, n_entries);
  g_assert_cmpuint (f->n_changed, ==, n_changed);
}

static void
test_damaged_archive (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *archive = export (f, sid, "json");
  g_autofree char *half = g_strndup (archive, strlen (archive) / 2);
  g_autofree char *bad_type = replace_once (archive, "\"type\":\"model_call_completed\"", "\"type\":\"model_call_done\"");
  g_autofree char *no_turn = replace_once (archive, "{\"turnId\":", "{\"turn\":");
  g_autofree char *other = replace_once (archive, "natter-archive", "other-archive");
  g_autofree char *version = replace_once (archive, "\"version\":1", "\"version\":2");
  g_autofree char *title = replace_once (archive, "\"title\":\"Weather talk\"", "\"title\":7");
  g_autofree char *missing = NULL;

  {
    g_autoptr(JsonNode) node = natter_test_json (archive);
    JsonArray *array = json_object_get_array_member (json_node_get_object (node), "turns");

    json_array_remove_element (array, 1);
    missing = json_to_string (node, FALSE);
  }

  assert_refused (f, half, NULL, "not valid JSON");
  assert_refused (f, bad_type, NULL, "model_call_done");
  assert_refused (f, no_turn, NULL, "Entry 1 of “turns”");
  assert_refused (f, other, NULL, "not a Natter archive");
  assert_refused (f, version, NULL, "version");
  assert_refused (f, title, NULL, "The session, event 1");
  assert_refused (f, missing, NULL, "not in the archive");
}

/* Hostile archives are refused quickly, with nothing written and the
 * conversations already here untouched: one nested far deeper than any
 * archive (json-glib would recurse once per level), and one whose
 * summary keeps a turn of the store rather than of the archive. */
static void
test_hostile_archive (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *archive = export (f, sid, "json");
  g_autoptr(GPtrArray) before = natter_test_sessions_read (f->w->session_repo, sid);
  g_autoptr(GPtrArray) after = NULL;
  g_autoptr(NatterSessionState) state = natter_test_sessions_get (f, sid);
  g_autoptr(GString) deep = g_string_new ("{\"format\":\"natter-archive\",\"version\":1,\"session\":");
  g_autofree char *foreign = NULL;
  guint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < 300000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 300000; i++)
    g_string_append_c (deep, ']');
  g_string_append (deep, ",\"turns\":[]}");
  assert_refused (f, deep->str, NULL, "the JSON nests deeper than 520 levels");

  {
    g_autoptr(JsonNode) node = natter_test_json (archive);
    JsonArray *session = json_object_get_array_member (json_node_get_object (node), "session");
    g_autoptr(JsonNode) compacted = NULL;

    compacted = natter_session_event_new_conversation_compacted (
      sid, "2026-11-30T10:00:02.000Z", "2026-11-30T10-00-02Z-0000009-000", "A summary",
      "2026-11-30T10-00-02Z-0000008-000");
    json_object_set_int_member (json_array_get_object_element (session, 0), "schemaVersion", 2);
    json_array_add_element (session, g_steal_pointer (&compacted));
    foreign = json_to_string (node, FALSE);
  }
  assert_refused (f, foreign, NULL, "its summary keeps turn 2026-11-30T10-00-02Z-0000008-000, which is not in the "
                                    "archive");

  after = natter_test_sessions_read (f->w->session_repo, sid);
  g_assert_cmpuint (after->len, ==, before->len);
  for (guint i = 0; i < before->len; i++)
    g_assert_true (json_node_equal (g_ptr_array_index (after, i), g_ptr_array_index (before, i)));
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 2);
  g_assert_cmpuint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
}

#define TEST_SHA256 "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

/* An attachment travels inside the archive: it comes back with the
 * import even where it is not stored, and damaged bytes are refused. */
static void
test_attachments (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create_titled (f, "With a file");
  g_autoptr(GBytes) bytes = g_bytes_new_static ("test", 4);
  g_autoptr(JsonNode) input = natter_test_json (
    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Read this\"},"
    "{\"type\":\"blob\",\"sha256\":\"" TEST_SHA256 "\","
    "\"mediaType\":\"text/plain\",\"name\":\"t.txt\",\"size\":4}]}");
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) waited = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *sha256 = natter_blob_store_put_sync (f->blobs, bytes, &error);
  g_autofree char *path = natter_blob_store_dup_path (f->blobs, TEST_SHA256);
  g_autofree char *turn_id = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *archive = NULL;
  g_autofree char *imported = NULL;
  g_autofree char *again = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *damaged = NULL;
  g_autofree char *without = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (sha256, ==, TEST_SHA256);
  natter_test_sessions_script (f, "{\"role\":\"assistant\",\"content\":\"It says test.\"}", NULL);
  natter_sessions_send_message_async (f->sessions, sid, json_node_get_object (input), options, NULL,
                                      natter_test_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  natter_sessions_wait_for_turn_async (f->sessions, turn_id, NULL, natter_test_result_cb, &waited);
  g_assert_true (natter_sessions_wait_for_turn_finish (f->sessions, natter_test_sessions_wait_result (&waited),
                                                       &error));
  natter_test_sessions_wait_idle (f);

  markdown = export (f, sid, "markdown");
  g_assert_nonnull (strstr (markdown, "## You\n\nRead this\n\n*Attachment: t.txt*\n\n## Answer\n\nIt says test.\n"));
  archive = export (f, sid, "json");
  g_assert_nonnull (strstr (archive, "\"blobs\":[{\"sha256\":\"" TEST_SHA256 "\",\"data\":\"dGVzdA==\"}]"));

  damaged = replace_once (archive, "dGVzdA==", "dGVzcw==");
  assert_refused (f, damaged, NULL, "damaged");

  /* Where the file is not stored, the archive brings it. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  without = replace_once (archive, ",\"blobs\":[{\"sha256\":\"" TEST_SHA256 "\",\"data\":\"dGVzdA==\"}]", "");
  assert_refused (f, without, NULL, "neither in the archive nor stored here");
  imported = import_one (f, archive);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  again = export (f, imported, "json");
  a = without_ids (archive);
  b = without_ids (again);
  g_assert_cmpstr (a, ==, b);
}

/* A ChatGPT export: the first conversation was edited (its first message
 * has two versions; current_node is on the second) and has two
 * exchanges; the second ends with a question without an answer. */
static const char CHATGPT[] =
  "[{\"title\":\"Trip planning\",\"create_time\":1700000000.5,\"update_time\":1700000100.0,"
  "\"conversation_id\":\"conv-1\",\"current_node\":\"a2\",\"mapping\":{"
  "\"root\":{\"id\":\"root\",\"message\":null,\"parent\":null,\"children\":[\"sys\"]},"
  "\"sys\":{\"id\":\"sys\",\"message\":{\"id\":\"sys\",\"author\":{\"role\":\"system\"},\"create_time\":null,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"\"]},\"metadata\":{\"is_visually_hidden_from_conversation\":true}},"
  "\"parent\":\"root\",\"children\":[\"u1old\",\"u1\"]},"
  "\"u1old\":{\"id\":\"u1old\",\"message\":{\"id\":\"u1old\",\"author\":{\"role\":\"user\"},\"create_time\":1700000001.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"Where to go in Spain?\"]}},\"parent\":\"sys\",\"children\":[]},"
  "\"u1\":{\"id\":\"u1\",\"message\":{\"id\":\"u1\",\"author\":{\"role\":\"user\"},\"create_time\":1700000010.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"Where to go in Norway?\"]}},\"parent\":\"sys\",\"children\":[\"a1\"]},"
  "\"a1\":{\"id\":\"a1\",\"message\":{\"id\":\"a1\",\"author\":{\"role\":\"assistant\"},\"create_time\":1700000011.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"Try the fjords.\"]},\"metadata\":{\"model_slug\":\"gpt-4o\"}},"
  "\"parent\":\"u1\",\"children\":[\"u2\"]},"
  "\"u2\":{\"id\":\"u2\",\"message\":{\"id\":\"u2\",\"author\":{\"role\":\"user\"},\"create_time\":1700000020.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"When?\"]}},\"parent\":\"a1\",\"children\":[\"a2\"]},"
  "\"a2\":{\"id\":\"a2\",\"message\":{\"id\":\"a2\",\"author\":{\"role\":\"assistant\"},\"create_time\":1700000021.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"In June.\"]},\"metadata\":{\"model_slug\":\"gpt-4o\"}},"
  "\"parent\":\"u2\",\"children\":[]}}},"
  "{\"title\":\"Unanswered\",\"create_time\":1700001000,\"conversation_id\":\"conv-2\",\"current_node\":\"q\","
  "\"mapping\":{\"q\":{\"id\":\"q\",\"message\":{\"id\":\"q\",\"author\":{\"role\":\"user\"},\"create_time\":1700001001.0,"
  "\"content\":{\"content_type\":\"text\",\"parts\":[\"Hello?\"]}},\"parent\":null,\"children\":[]}}}]";

static NatterTurnState *
read_turn (Fixture    *f,
           const char *turn_id)
{
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->w->turn_repo, turn_id, NULL, NULL);

  g_assert_nonnull (events);
  return natter_turn_reduce (events, NULL);
}

static void
test_chatgpt (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GFile) file = write_temp (f, "conversations.json", CHATGPT);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = import (f, file, "chatgpt", &error);
  g_autoptr(NatterSessionState) trip = NULL;
  g_autoptr(NatterTurnState) first = NULL;
  g_autoptr(NatterTurnState) second = NULL;
  g_autoptr(NatterTurnState) unanswered = NULL;
  g_autofree char *final = NULL;
  g_autofree char *markdown = NULL;
  JsonObject *config;
  NatterSessionIndexEntry *entry;

  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 2);
  {
    g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->w->session_repo, ids[0], NULL, NULL);

    trip = natter_session_reduce (events, NULL);
  }
  g_assert_cmpstr (natter_session_state_get_title (trip), ==, "Trip planning");
  g_assert_cmpint (natter_session_state_get_schema_version (trip), ==, 1);
  g_assert_cmpstr (natter_session_state_get_created_at (trip), ==, "2023-11-14T22:13:20.500Z");
  g_assert_cmpuint (natter_session_state_get_n_turns (trip), ==, 2);

  first = read_turn (f, natter_session_state_get_turn (trip, 0)->turn_id);
  second = read_turn (f, natter_session_state_get_turn (trip, 1)->turn_id);
  g_assert_cmpint (natter_derive_turn_status (first), ==, NATTER_TURN_STATUS_COMPLETED);
  config = json_object_get_object_member (natter_turn_state_get_definition (first), "config");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (config, "imported"), "from"), ==,
                   "chatgpt");
  final = natter_turn_state_dup_final_text (second);
  g_assert_cmpstr (final, ==, "In June.");

  /* The edited version is the one on the main branch. */
  markdown = export (f, ids[0], "markdown");
  g_assert_nonnull (strstr (markdown, "Where to go in Norway?"));
  g_assert_null (strstr (markdown, "Spain"));
  g_assert_nonnull (strstr (markdown, "Try the fjords."));

  entry = natter_session_index_lookup (f->index, ids[1]);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "Unanswered");
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "failed");
}

/* An imported conversation goes on like any other: the model is sent
 * the imported history, and nothing calls a model for the import. */
static void
test_chatgpt_continue (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GFile) file = write_temp (f, "conversations.json", CHATGPT);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = import (f, file, "chatgpt", &error);
  g_autofree char *turn = NULL;
  g_autofree char *request = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->w->fakes->model), ==, 0);
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
  turn = natter_test_sessions_send_and_wait (f, ids[0], "And the weather?");
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->w->fakes->model), ==, 1);
  request = json_to_string (json_object_get_member (natter_fake_model_get_request (f->w->fakes->model, 0), "messages"),
                            FALSE);
  g_assert_nonnull (strstr (request, "Where to go in Norway?"));
  g_assert_nonnull (strstr (request, "In June."));
  g_assert_nonnull (strstr (request, "And the weather?"));
}

/* The imported conversation's report, with nothing left unread. */
static NatterImportReport *
import_chatgpt_text (Fixture    *f,
                     const char *text)
{
  g_autoptr(GFile) file = write_temp (f, "conversations.json", text);
  g_autoptr(GError) error = NULL;
  NatterImportReport *report = import_report (f, file, "chatgpt", &error);

  g_assert_no_error (error);
  return report;
}

static void
assert_defective (NatterImportReport *report,
                  guint               index,
                  const char         *expected)
{
  g_assert_cmpuint (index, <, report->defective->len);
  if (strstr (g_ptr_array_index (report->defective, index), expected) == NULL)
    g_error ("“%s” does not say “%s”", (const char *) g_ptr_array_index (report->defective, index), expected);
}

/* A file that is not a list of conversations is refused whole; a
 * conversation that cannot be read is named, and the others come in. */
static void
test_chatgpt_damaged (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *lost = replace_once (CHATGPT, "\"current_node\":\"a2\"", "\"current_node\":\"zz\"");
  g_autofree char *loop = replace_once (CHATGPT, "\"parent\":\"u2\"", "\"parent\":\"a2\"");
  g_autofree char *cut = g_strndup (CHATGPT, strlen (CHATGPT) - 40);
  g_autoptr(NatterImportReport) report = NULL;

  assert_refused (f, "{\"not\":\"a list\"}", "chatgpt", "not a ChatGPT");
  assert_refused (f, "", "chatgpt", "not a ChatGPT");
  assert_refused (f, "[7]", "chatgpt", "Conversation 1: it is not a JSON object");

  report = import_chatgpt_text (f, lost);
  assert_defective (report, 0, "Conversation 1 (“Trip planning”): message zz is not in its “mapping”");
  g_assert_cmpuint (report->defective->len, ==, 1);
  g_assert_cmpuint (report->session_ids->len, ==, 1);
  g_clear_pointer (&report, natter_import_report_free);

  /* The second conversation came in with the file before. */
  report = import_chatgpt_text (f, loop);
  assert_defective (report, 0, "Conversation 1 (“Trip planning”): its messages are their own parents");
  g_assert_cmpuint (report->session_ids->len, ==, 0);
  g_assert_cmpuint (report->already->len, ==, 1);
  g_clear_pointer (&report, natter_import_report_free);

  /* Cut short: what came before the cut is imported, the rest is
   * named. */
  report = import_chatgpt_text (f, cut);
  assert_defective (report, 0, "The rest of the file, from conversation 2: The file ends in the middle of entry 2");
  g_assert_cmpuint (report->defective->len, ==, 1);
  g_assert_cmpuint (report->session_ids->len, ==, 1);
}

/* Hostile shapes are refused quickly, each for itself: a conversation
 * nested far deeper than json-glib can parse, one that is not UTF-8, a
 * cycle of parents through the whole tree. */
static void
test_chatgpt_hostile (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GString) text = g_string_new ("[");
  g_autoptr(NatterImportReport) report = NULL;
  guint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < 200000; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < 200000; i++)
    g_string_append_c (text, ']');
  g_string_append (text, ",{\"title\":\"\xff\xfe\",\"mapping\":{}},");
  g_string_append (text, "{\"title\":\"Circle\",\"current_node\":\"a\",\"mapping\":{"
                         "\"a\":{\"parent\":\"b\",\"message\":null},\"b\":{\"parent\":\"a\",\"message\":null}}},");
  g_string_append (text, CHATGPT + 1);
  report = import_chatgpt_text (f, text->str);
  assert_defective (report, 0, "Conversation 1: It nests deeper than 512 levels");
  assert_defective (report, 1, "Conversation 2: It is not valid UTF-8");
  assert_defective (report, 2, "Conversation 3 (“Circle”): its messages are their own parents");
  g_assert_cmpuint (report->defective->len, ==, 3);
  g_assert_cmpuint (report->session_ids->len, ==, 2);
  /* Bounded: well within a few seconds on any machine. */
  g_assert_cmpuint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
}

static NatterSessionState *
read_session (Fixture    *f,
              const char *session_id)
{
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->w->session_repo, session_id, NULL, NULL);

  g_assert_nonnull (events);
  return natter_session_reduce (events, NULL);
}

/* "question → answer" of turn @index of @session_id, the answer being
 * the final text, or "(failed: code)". */
static char *
exchange_of (Fixture    *f,
             const char *session_id,
             guint       index)
{
  g_autoptr(NatterSessionState) state = read_session (f, session_id);
  g_autoptr(NatterTurnState) turn = read_turn (f, natter_session_state_get_turn (state, index)->turn_id);
  JsonObject *input = json_object_get_object_member (natter_turn_state_get_definition (turn), "input");
  g_autofree char *answer = natter_turn_state_dup_final_text (turn);
  JsonObject *terminal = natter_turn_state_get_terminal_event (turn);

  if (g_str_equal (json_object_get_string_member (terminal, "type"), "turn_failed"))
    return g_strdup_printf ("%s → (failed: %s)", json_object_get_string_member (input, "content"),
                            json_object_get_string_member (terminal, "code"));
  return g_strdup_printf ("%s → %s", json_object_get_string_member (input, "content"), answer);
}

#define assert_exchange(f, sid, index, expected) \
  G_STMT_START { \
    g_autofree char *exchange_ = exchange_of ((f), (sid), (index)); \
    g_assert_cmpstr (exchange_, ==, (expected)); \
  } G_STMT_END

/* The sessions whose parent is @parent, in id order. */
static GPtrArray *
versions_of (Fixture    *f,
             const char *parent)
{
  GPtrArray *found = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_session_state_unref);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (f->index));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (f->index), i);

      if (g_strcmp0 (natter_session_index_entry_get_parent_session (entry), parent) == 0)
        g_ptr_array_add (found, read_session (f, natter_session_index_entry_get_session_id (entry)));
    }
  return found;
}

/* The branch shown is the conversation; every other branch of ChatGPT's
 * tree (an edited first message, a regenerated answer, an edited second
 * message) is a version of its message, made as an edit makes one: the
 * conversation's title, its parent, and the turn before the message. */
static void
test_chatgpt_branches (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *text = natter_test_chatgpt_fixture_subset (1, 0);
  g_autoptr(NatterImportReport) report = import_chatgpt_text (f, text);
  g_autoptr(GPtrArray) versions = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GHashTable) listed = NULL;
  g_autoptr(NatterSessionState) trip = NULL;
  g_autoptr(GError) error = NULL;
  const char *trip_id;
  GPtrArray *first_versions;

  g_assert_cmpuint (report->session_ids->len, ==, 1);
  trip_id = g_ptr_array_index (report->session_ids, 0);
  trip = read_session (f, trip_id);
  g_assert_cmpuint (natter_session_state_get_n_turns (trip), ==, 2);
  assert_exchange (f, trip_id, 0, "Where to go in Norway? → Try the fjords.");

  versions = versions_of (f, trip_id);
  g_assert_cmpuint (versions->len, ==, 3);
  for (guint i = 0; i < versions->len; i++)
    g_assert_cmpstr (natter_session_state_get_title (g_ptr_array_index (versions, i)), ==, "Trip planning");
  g_assert_null (natter_session_state_get_forked_from_turn_id (g_ptr_array_index (versions, 0)));
  assert_exchange (f, natter_session_state_get_session_id (g_ptr_array_index (versions, 0)), 0,
                   "Where to go in Spain? → Try Andalusia.");
  g_assert_null (natter_session_state_get_forked_from_turn_id (g_ptr_array_index (versions, 1)));
  assert_exchange (f, natter_session_state_get_session_id (g_ptr_array_index (versions, 1)), 0,
                   "Where to go in Norway? → Go to Lofoten.");
  g_assert_cmpstr (natter_session_state_get_forked_from_turn_id (g_ptr_array_index (versions, 2)), ==,
                   natter_session_state_get_turn (trip, 0)->turn_id);
  assert_exchange (f, natter_session_state_get_session_id (g_ptr_array_index (versions, 2)), 0,
                   "And in winter? → For the northern lights.");
  g_assert_cmpuint (report->n_versions, ==, 3);

  /* The version switcher finds them. */
  natter_sessions_list_versions_async (f->sessions, trip_id, NULL, natter_test_result_cb, &result);
  listed = natter_sessions_list_versions_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  first_versions = g_hash_table_lookup (listed, natter_session_state_get_turn (trip, 0)->turn_id);
  g_assert_nonnull (first_versions);
  g_assert_cmpuint (first_versions->len, ==, 3);
  g_assert_cmpuint (((GPtrArray *) g_hash_table_lookup (listed, natter_session_state_get_turn (trip, 1)->turn_id))->len,
                    ==, 2);
}

/* "Continue generating" carries an answer cut off at the token limit on
 * mid-sentence: the pieces are one answer, joined without a break. */
static void
test_chatgpt_continuation (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *text = natter_test_chatgpt_fixture_subset (1, 0);
  g_autoptr(NatterImportReport) report = import_chatgpt_text (f, text);

  assert_exchange (f, g_ptr_array_index (report->session_ids, 0), 1, "When? → In June, when the days are longest.");
}

/* What the assistant addressed to a tool, and the tools' output, are not
 * the answer; an image a tool made is named where it was; a question
 * only a tool answered has no answer. */
static void
test_chatgpt_tool_messages (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *text = natter_test_chatgpt_fixture_subset (2, 0);
  g_autoptr(NatterImportReport) report = import_chatgpt_text (f, text);
  const char *tools_id = g_ptr_array_index (report->session_ids, 0);

  assert_exchange (f, tools_id, 0, "How is the weather in Oslo today? → It is 5 °C and cloudy.");
  assert_exchange (f, tools_id, 1, "Draw a cat on a fjord. → [image: file-CatOnFjord]");
  assert_exchange (f, tools_id, 2, "Search the forecast for tomorrow. → (failed: imported-unanswered)");
  g_assert_cmpuint (report->n_images, ==, 1);
}

/* A message that was only an image is a turn of its own, first or not,
 * its image named. */
static void
test_chatgpt_image_messages (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *text = natter_test_chatgpt_fixture_subset (3, 0);
  g_autoptr(NatterImportReport) report = import_chatgpt_text (f, text);
  const char *photo_id = g_ptr_array_index (report->session_ids, 0);

  assert_exchange (f, photo_id, 0, "[image: file-Heron] → That is a grey heron.");
  assert_exchange (f, photo_id, 1, "[image: file-Nest] → And that is its nest.");
  assert_exchange (f, photo_id, 2, "Thanks! → You're welcome.");
  g_assert_cmpuint (report->n_images, ==, 2);
}

/* A conversation of whitespace, or of the person's instructions only,
 * is not a conversation: nothing is made of it, and the report says so. */
static void
test_chatgpt_empty_conversations (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *text = natter_test_chatgpt_fixture_subset (4, 5, 7, 0);
  g_autoptr(NatterImportReport) report = import_chatgpt_text (f, text);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, 1);
  g_assert_cmpuint (report->session_ids->len, ==, 1);
  g_assert_cmpuint (report->n_empty, ==, 2);
}

/* One damaged conversation costs only itself: it is named, the others
 * come in. */
static void
test_chatgpt_defective_named (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *text = natter_test_chatgpt_fixture_subset (6, 7, 0);
  g_autoptr(NatterImportReport) report = import_chatgpt_text (f, text);

  g_assert_cmpuint (report->session_ids->len, ==, 1);
  assert_exchange (f, g_ptr_array_index (report->session_ids, 0), 0, "Still there? → Yes.");
  g_assert_cmpuint (report->defective->len, ==, 1);
  assert_defective (report, 0, "Conversation 1 (“Damaged”): message gone is not in its “mapping”");
}

/* The whole fixture (tests/data/chatgpt/conversations.json, written from
 * OpenAI's published export shape) at once. */
static void
test_chatgpt_fixture (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *text = natter_test_chatgpt_fixture ();
  g_autoptr(NatterImportReport) report = import_chatgpt_text (f, text);
  g_auto(GStrv) notes = natter_import_report_dup_notes (report);

  g_assert_cmpuint (report->session_ids->len, ==, 4);
  g_assert_cmpuint (report->n_versions, ==, 3);
  g_assert_cmpuint (report->n_images, ==, 3);
  g_assert_cmpuint (report->n_empty, ==, 2);
  g_assert_cmpuint (report->defective->len, ==, 1);
  assert_defective (report, 0, "Conversation 6 (“Damaged”): message gone is not in its “mapping”");
  g_assert_cmpuint (g_strv_length (notes), ==, 3);
  g_assert_cmpstr (notes[0], ==, "3 regenerated answers or edited messages were kept as other versions of their "
                                 "messages.");
  g_assert_cmpstr (notes[1], ==, "3 images or files are not in the file: placeholders name them.");
  g_assert_cmpstr (notes[2], ==, "2 conversations without messages were left out.");
}

static guint
n_all_files (Fixture *f)
{
  return n_files (f->w->session_repo) + n_files (f->w->turn_repo);
}

/* The same export imported again brings nothing twice. */
static void
test_chatgpt_twice (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *text = natter_test_chatgpt_fixture_subset (1, 2, 3, 7, 0);
  g_autoptr(NatterImportReport) first = import_chatgpt_text (f, text);
  g_autoptr(NatterImportReport) second = NULL;
  guint n_before = n_all_files (f);
  guint n_entries = g_list_model_get_n_items (G_LIST_MODEL (f->index));

  second = import_chatgpt_text (f, text);
  g_assert_cmpuint (second->session_ids->len, ==, 0);
  g_assert_cmpuint (second->already->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (second->already, 0), ==, "Conversation 1 (“Trip planning”)");
  g_assert_cmpuint (second->n_versions, ==, 0);
  g_assert_cmpuint (n_all_files (f), ==, n_before);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, n_entries);
}

/* An archive's turns are marked imported, and so is the index entry of
 * its conversation, as a fresh scan of the files would say. */
static void
test_archive_marks_imported (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *archive = export (f, sid, "json");
  g_autofree char *imported = import_one (f, archive);
  g_autofree char *again = export (f, imported, "json");
  g_autofree char *twice = import_one (f, again);
  g_autoptr(NatterSessionState) state = read_session (f, twice);
  g_autoptr(NatterSessionIndexEntry) scanned = NULL;

  for (guint i = 0; i < natter_session_state_get_n_turns (state); i++)
    {
      g_autoptr(NatterTurnState) turn = read_turn (f, natter_session_state_get_turn (state, i)->turn_id);
      JsonObject *config = json_object_get_object_member (natter_turn_state_get_definition (turn), "config");

      g_assert_true (natter_turn_state_is_imported (turn));
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (config, "imported"), "from"), ==,
                       "natter-archive");
    }
  g_assert_true (natter_session_index_entry_get_latest_turn_imported (natter_session_index_lookup (f->index, twice)));
  scanned = natter_session_index_fold_one_sync (f->w->session_repo, f->w->turn_repo, twice, NULL);
  g_assert_true (natter_session_index_entry_equal (scanned, natter_session_index_lookup (f->index, twice)));
  g_assert_false (natter_session_index_entry_get_latest_turn_imported (natter_session_index_lookup (f->index, sid)));
}

/* An archive or an export nested 100,000 deep (a hostile file) is
 * refused with a clear error before json-glib's recursive parser sees
 * it: nothing is written, the conversations already there read on. */
static void
test_hostile_nesting (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *before = export (f, sid, "json");
  g_autofree char *after = NULL;
  g_autofree char *open = g_strnfill (100000, '[');
  g_autofree char *close = g_strnfill (100000, ']');
  g_autofree char *archive = g_strdup_printf ("{\"format\":\"natter-archive\",\"version\":1,\"session\":%s%s,"
                                              "\"turns\":[]}", open, close);
  g_autofree char *chatgpt = g_strdup_printf ("[{\"title\":\"x\",\"mapping\":%s%s}]", open, close);

  assert_refused (f, archive, NULL, "deeper than 520 levels");
  assert_refused (f, chatgpt, "chatgpt", "nests deeper than 512 levels");
  after = export (f, sid, "json");
  g_assert_cmpstr (after, ==, before);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, natter_test_sessions_set_up_with_blobs, func, natter_test_sessions_tear_down)
  ADD ("/archive/export-markdown", test_export_markdown);
  ADD ("/archive/export-json", test_export_json);
  ADD ("/archive/round-trip", test_round_trip);
  ADD ("/archive/import-keeps-parameters", test_import_keeps_parameters);
  ADD ("/archive/round-trip-branch", test_round_trip_branch);
  ADD ("/archive/import-lowest-version", test_import_lowest_version);
  ADD ("/archive/damaged", test_damaged_archive);
  ADD ("/archive/hostile-nesting", test_hostile_nesting);
  ADD ("/archive/hostile", test_hostile_archive);
  ADD ("/archive/attachments", test_attachments);
  ADD ("/archive/chatgpt", test_chatgpt);
  ADD ("/archive/chatgpt-continue", test_chatgpt_continue);
  ADD ("/archive/chatgpt-damaged", test_chatgpt_damaged);
  ADD ("/archive/chatgpt-hostile", test_chatgpt_hostile);
  ADD ("/archive/chatgpt-branches", test_chatgpt_branches);
  ADD ("/archive/chatgpt-continuation", test_chatgpt_continuation);
  ADD ("/archive/chatgpt-tool-messages", test_chatgpt_tool_messages);
  ADD ("/archive/chatgpt-image-messages", test_chatgpt_image_messages);
  ADD ("/archive/chatgpt-empty-conversations", test_chatgpt_empty_conversations);
  ADD ("/archive/chatgpt-defective-named", test_chatgpt_defective_named);
  ADD ("/archive/chatgpt-fixture", test_chatgpt_fixture);
  ADD ("/archive/chatgpt-twice", test_chatgpt_twice);
  ADD ("/archive/marks-imported", test_archive_marks_imported);
#undef ADD

  return g_test_run ();
}
