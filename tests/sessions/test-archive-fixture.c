/* test-archive-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-archive share: conversations to export, and
 * readers of what an import wrote.
 */

#include "test-archive.h"

char *
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

GFile *
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

/* What the import of @file said, or NULL with @error. */
NatterImportReport *
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
GStrv
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

char *
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

guint
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
char *
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
char *
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

/* The types of the session file of @id, space-separated, each with the
 * schemaVersion it carries ("session_created:1"). */
char *
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
char *
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
void
assert_imported_as (Fixture    *f,
                    const char *archive,
                    const char *expected)
{
  g_autofree char *id = import_one (f, archive);
  g_autofree char *types = session_types (f, id);

  g_assert_cmpstr (types, ==, expected);
}

/* Replaces the first @from in @text by @to. */
char *
replace_once (const char *text,
              const char *from,
              const char *to)
{
  const char *at = strstr (text, from);

  g_assert_nonnull (at);
  return g_strdup_printf ("%.*s%s%s", (int) (at - text), text, to, at + strlen (from));
}

void
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

NatterTurnState *
read_turn (Fixture    *f,
           const char *turn_id)
{
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->w->turn_repo, turn_id, NULL, NULL);

  g_assert_nonnull (events);
  return natter_turn_reduce (events, NULL);
}

/* The imported conversation's report, with nothing left unread. */
NatterImportReport *
import_chatgpt_text (Fixture    *f,
                     const char *text)
{
  g_autoptr(GFile) file = write_temp (f, "conversations.json", text);
  g_autoptr(GError) error = NULL;
  NatterImportReport *report = import_report (f, file, "chatgpt", &error);

  g_assert_no_error (error);
  return report;
}

void
assert_defective (NatterImportReport *report,
                  guint               index,
                  const char         *expected)
{
  g_assert_cmpuint (index, <, report->defective->len);
  if (strstr (g_ptr_array_index (report->defective, index), expected) == NULL)
    g_error ("“%s” does not say “%s”", (const char *) g_ptr_array_index (report->defective, index), expected);
}

NatterSessionState *
read_session (Fixture    *f,
              const char *session_id)
{
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->w->session_repo, session_id, NULL, NULL);

  g_assert_nonnull (events);
  return natter_session_reduce (events, NULL);
}

/* "question → answer" of turn @index of @session_id, the answer being
 * the final text, or "(failed: code)". */
char *
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

/* The sessions whose parent is @parent, in id order. */
GPtrArray *
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

guint
n_all_files (Fixture *f)
{
  return n_files (f->w->session_repo) + n_files (f->w->turn_repo);
}
