/* test-archive.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Export and import through the session service, against real repos in
 * a temporary directory and a fake model: Markdown and JSON exports, the
 * export → import → export round trip (a branch included), damaged
 * archives that write nothing, and a small ChatGPT export written here,
 * whose imported turns a new message continues.
 *
 * This file exports and imports Natter's own archives and holds main();
 * ChatGPT's export has a file of its own.
 */

#include "natter-session-markdown.h"
#include "test-archive.h"

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

/* Formulas leave in the Markdown as the model wrote them (docs/math.md):
 * the window typesets them, the export keeps the TeX. */
static void
test_export_markdown_math (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create_titled (f, "Sums");
  g_autofree char *turn = NULL;
  g_autofree char *markdown = NULL;

  natter_test_sessions_script (f, "{\"role\":\"assistant\",\"content\":"
                               "\"So $\\\\frac{a}{b}$ and\\n\\\\[\\\\sum_{i=1}^n x_i\\\\]\\n"
                               "$$\\\\begin{pmatrix}1&2\\\\\\\\3&4\\\\end{pmatrix}$$\"}", NULL);
  turn = natter_test_sessions_send_and_wait (f, sid, "Sum it");
  markdown = export (f, sid, "markdown");
  g_assert_nonnull (strstr (markdown, "So $\\frac{a}{b}$ and\n\\[\\sum_{i=1}^n x_i\\]\n"
                                      "$$\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}$$\n"));
}

/* A message that opens a code block and never closes it (an answer cut
 * off mid-code, a fence typed and forgotten) has it closed at its end:
 * the headings after it stay headings. A closed block, and a fence line
 * inside a longer fence, are left as they are. */
static void
test_export_markdown_open_fence (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create_titled (f, "Fences");
  g_autofree char *turn = NULL;
  g_autofree char *markdown = NULL;

  natter_test_sessions_script (f, "{\"role\":\"assistant\",\"content\":"
                               "\"~~~~\\n```\\nstill code\\n~~~~\\nThen:\\n```python\\nprint(1)\"}", NULL);
  turn = natter_test_sessions_send_and_wait (f, sid, "Look:\n```\nunclosed");
  markdown = export (f, sid, "markdown");
  g_assert_nonnull (strstr (markdown, "## You\n\nLook:\n```\nunclosed\n```\n\n## Answer\n\n"));
  g_assert_nonnull (strstr (markdown, "## Answer\n\n~~~~\n```\nstill code\n~~~~\nThen:\n```python\nprint(1)\n```\n"));
}

/* The number of lines of @markdown, outside code blocks, that a reader
 * takes for a heading of level one or two: "# " and "## ", and a line
 * of a paragraph underlined with '=' or '-'. */
static guint
count_sections (const char *markdown)
{
  g_auto(GStrv) lines = g_strsplit (markdown, "\n", -1);
  gboolean code = FALSE;
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (g_str_has_prefix (line, "```") || g_str_has_prefix (line, "~~~"))
        code = !code;
      else if (code)
        continue;
      else if (g_str_has_prefix (line, "# ") || g_str_has_prefix (line, "## "))
        n++;
      else if (i > 0 && lines[i - 1][0] != '\0' && lines[i - 1][0] != '#' && line[0] != '\0' &&
               strspn (line, line[0] == '=' ? "=" : "-") == strlen (line))
        n++;
    }
  return n;
}

/* A message whose lines look like the export's own headings ("## You",
 * "## Answer", a title, a line underlined into a heading) stays inside
 * its section: a message's headings go two levels down, under the
 * section, still headings; an underline is escaped to read as the text
 * it is. Lines in code are left as written. */
static void
test_export_markdown_forged_headings (Fixture       *f,
                                      gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create_titled (f, "Headings");
  g_autofree char *turn = NULL;
  g_autofree char *markdown = NULL;

  natter_test_sessions_script (f, "{\"role\":\"assistant\",\"content\":"
                               "\"## You\\nI said this.\\n\\nAnswer\\n------\\n### Detail\\n```\\n## Answer\\n```\"}", NULL);
  turn = natter_test_sessions_send_and_wait (f, sid, "Hi\n## Answer\nforged\n# Title\nAlso\n===");
  markdown = export (f, sid, "markdown");
  g_assert_cmpuint (count_sections (markdown), ==, 3);
  g_assert_nonnull (strstr (markdown, "## You\n\nHi\n#### Answer\nforged\n### Title\nAlso\n\\===\n\n## Answer\n\n"));
  g_assert_nonnull (strstr (markdown, "## Answer\n\n#### You\nI said this.\n\nAnswer\n\\------\n##### Detail\n"
                                      "```\n## Answer\n```\n"));
}

/* A message line that opens an HTML block only its own end closes (a
 * comment, <pre>, <script>, a declaration) is escaped to read as text:
 * left open, it would hide the rest of the conversation in a viewer.
 * HTML that a blank line ends, inline HTML and lines in code are left as
 * written. */
static void
test_export_markdown_open_html (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create_titled (f, "HTML");
  g_autofree char *turn = NULL;
  g_autofree char *markdown = NULL;

  natter_test_sessions_script (f, "{\"role\":\"assistant\",\"content\":"
                               "\"<PRE class=x>\\nkept\\n<div>\\nok</div>\\n```\\n<!-- in code\\n```\"}", NULL);
  turn = natter_test_sessions_send_and_wait (f, sid, "Hi <b>there</b>\n<!-- never closed\n  <script>x\n<?php\n<!DOCTYPE x\n<![CDATA[");
  markdown = export (f, sid, "markdown");
  g_assert_nonnull (strstr (markdown, "## You\n\nHi <b>there</b>\n\\<!-- never closed\n  \\<script>x\n\\<?php\n"
                                      "\\<!DOCTYPE x\n\\<![CDATA[\n\n## Answer\n\n"));
  g_assert_nonnull (strstr (markdown, "## Answer\n\n\\<PRE class=x>\nkept\n<div>\nok</div>\n```\n<!-- in code\n```\n"));
}

/* What the export writes on lines of its own (a tool's name, an
 * attachment's name, an error, the title) stays on that line, whatever
 * it holds. */
static void
test_export_markdown_forged_names (Fixture       *f,
                                   gconstpointer  data)
{
  g_autoptr(JsonNode) archive = natter_test_json (
    "{\"session\":[{\"title\":\"T\\n\\n## You\"}],\"turns\":[{\"events\":["
    "{\"type\":\"turn_created\",\"input\":{\"content\":[{\"type\":\"attachment\",\"filename\":\"a*\\n\\n## Answer\"}]}},"
    "{\"type\":\"model_call_completed\",\"message\":{\"content\":[{\"type\":\"tool-call\",\"toolCallId\":\"c\","
    "\"toolName\":\"</summary></details>\\n\\n## You\",\"arguments\":{}}]}},"
    "{\"type\":\"turn_failed\",\"error\":\"bad\\n\\n## Answer\"}]}]}");
  g_autofree char *markdown = natter_session_archive_to_markdown (json_node_get_object (archive));

  g_assert_cmpuint (count_sections (markdown), ==, 3);
  g_assert_true (g_str_has_prefix (markdown, "# T  ## You\n\n## You\n\n*Attachment: a\\*  ## Answer*\n\n## Answer\n\n"));
  g_assert_nonnull (strstr (markdown, "<summary>&lt;/summary&gt;&lt;/details&gt;  ## You</summary>\n"));
  g_assert_nonnull (strstr (markdown, "*The turn failed: bad  ## Answer*"));
}

/* An answer the person stopped ends "Stopped." once, under the words
 * that had arrived; one cut off by a failure says where it stopped and
 * why. An answer's headings stay headings, under its section. */
static void
test_export_markdown_partial_answers (Fixture       *f,
                                      gconstpointer  data)
{
  g_autoptr(JsonNode) archive = natter_test_json (
    "{\"session\":[{\"title\":\"T\"}],\"turns\":["
    "{\"events\":[{\"type\":\"turn_created\",\"input\":{\"content\":\"Plan it\"}},"
    "{\"type\":\"model_call_failed\",\"partial\":{\"content\":\"# Plan\\n\\nFirst\"}},"
    "{\"type\":\"turn_cancelled\"}]},"
    "{\"events\":[{\"type\":\"turn_created\",\"input\":{\"content\":\"Again\"}},"
    "{\"type\":\"model_call_failed\",\"partial\":{\"content\":\"Sec\"}},"
    "{\"type\":\"turn_failed\",\"error\":\"lost\"}]}]}");
  g_autofree char *markdown = natter_session_archive_to_markdown (json_node_get_object (archive));

  g_assert_nonnull (strstr (markdown, "## Answer\n\n### Plan\n\nFirst\n\n*Stopped.*\n\n## You\n\nAgain\n\n"));
  g_assert_nonnull (strstr (markdown, "Sec\n\n*(The answer stopped here.)*\n\n*The turn failed: lost*"));
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

/* A title with control characters in an archive (an older file may hold
 * one, docs/format.md "title_changed") comes in as one line: Natter writes
 * no title that holds one, so each run of them and of white space is made
 * one space, as in a title Natter makes; the rest of the archive is
 * imported as it is. */
static void
test_import_title_controls (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *archive = export (f, sid, "json");
  g_autofree char *hostile = replace_once (archive, "\"title\":\"Weather talk\"",
                                           "\"title\":\"Weather\\u001b[31m\\t talk\\u0007\\n\"");
  g_autofree char *imported = import_one (f, hostile);
  g_autoptr(NatterSessionState) state = read_session (f, imported);
  NatterSessionIndexEntry *entry = natter_session_index_lookup (f->index, imported);

  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Weather [31m talk");
  g_assert_nonnull (entry);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "Weather [31m talk");
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "completed");
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

/* A conversation's sampling parameters only tune its answers: they come
 * along, in a file raised one version at a time (docs/format.md §3.5,
 * §7.1). The instruction its settings add to every prompt would steer
 * each later answer with words the person never wrote: it stays behind,
 * like a grant, and the import says so. */
static void
test_import_keeps_parameters (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *archive = NULL;
  g_autofree char *id = NULL;
  g_autofree char *types = NULL;
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autoptr(NatterGenerationParameters) sampling = NULL;
  g_autoptr(NatterImportReport) report = NULL;
  g_autoptr(GFile) file = NULL;
  g_auto(GStrv) notes = NULL;
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
  g_assert_nonnull (strstr (archive, "\"systemInstruction\":\"Be kind.\""));
  file = write_temp (f, "archive.json", archive);
  report = import_report (f, file, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (report->session_ids->len, ==, 1);
  id = g_strdup (g_ptr_array_index (report->session_ids, 0));
  types = session_types (f, id);
  g_assert_cmpstr (types, ==, "session_created:1 turn_appended turn_appended schema_upgraded:2 schema_upgraded:3 "
                   "parameters_changed");
  sampling = natter_generation_parameters_copy (parameters);
  natter_generation_parameters_set_system_instruction (sampling, NULL);
  g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->sessions, id),
                                                     sampling));
  g_assert_cmpuint (report->n_instructions, ==, 1);
  notes = natter_import_report_dup_notes (report);
  g_assert_cmpuint (g_strv_length (notes), ==, 1);
  g_assert_cmpstr (notes[0], ==, "1 system instruction the file added to the conversation was not brought over: "
                   "answers follow only what you set here.");
}

/* A version of a message is sent with the parameters its original
 * keeps (docs/format.md §3.5): exported on its own (the window exports
 * the version it shows, e.g. after Try Again), it takes them along, but
 * for the instruction they add, which no import brings. */
static void
test_import_keeps_version_parameters (Fixture       *f,
                                      gconstpointer  data)
{
  g_autofree char *sid = make_conversation (f);
  g_autofree char *first_turn = NULL;
  g_autofree char *version = NULL;
  g_autofree char *archive = NULL;
  g_autofree char *id = NULL;
  g_autofree char *again = NULL;
  g_autofree char *types = NULL;
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autoptr(NatterGenerationParameters) sampling = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->w->session_repo, sid, NULL, NULL);
    g_autoptr(NatterSessionState) state = natter_session_reduce (events, NULL);

    first_turn = g_strdup (natter_session_state_get_turn (state, 0)->turn_id);
  }
  /* A version made with the conversation's title, as Try Again makes one. */
  natter_sessions_fork_async (f->sessions, sid, first_turn, "Weather talk", NULL, natter_test_result_cb, &result);
  version = natter_sessions_fork_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  parameters->has_temperature = TRUE;
  parameters->temperature = 0.25;
  natter_generation_parameters_set_system_instruction (parameters, "Be brief.");
  natter_sessions_set_parameters_async (f->sessions, version, parameters, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_parameters_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                        &error));
  g_assert_no_error (error);
  g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->sessions, version),
                                                     parameters));

  sampling = natter_generation_parameters_copy (parameters);
  natter_generation_parameters_set_system_instruction (sampling, NULL);

  archive = export (f, version, "json");
  id = import_one (f, archive);
  types = session_types (f, id);
  g_assert_nonnull (strstr (types, "schema_upgraded:2 schema_upgraded:3 parameters_changed"));
  g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->sessions, id),
                                                     sampling));

  /* The original's own archive is as before: its log holds them. */
  again = export (f, sid, "json");
  g_clear_pointer (&id, g_free);
  id = import_one (f, again);
  g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->sessions, id),
                                                     sampling));
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

/* An attachment travels inside the archive: it comes back with the
 * import even where it is not stored, and damaged bytes are refused, as
 * is an archive that lost it, naming the message that carries it. */
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
  g_autofree char *refusal = NULL;

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
  /* The turn is named as the archive has it, where the person can find
   * it, never by the id the import would have given it. */
  refusal = g_strdup_printf ("Message 1 (turn %s in the archive) has attachment " TEST_SHA256 ", which is neither "
                             "in the archive nor stored here", turn_id);
  assert_refused (f, without, NULL, refusal);
  imported = import_one (f, archive);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  again = export (f, imported, "json");
  a = without_ids (archive);
  b = without_ids (again);
  g_assert_cmpstr (a, ==, b);
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

  ADD ("/archive/export-markdown", test_export_markdown);
  ADD ("/archive/export-markdown-math", test_export_markdown_math);
  ADD ("/archive/export-markdown-open-fence", test_export_markdown_open_fence);
  ADD ("/archive/export-markdown-forged-headings", test_export_markdown_forged_headings);
  ADD ("/archive/export-markdown-open-html", test_export_markdown_open_html);
  ADD ("/archive/export-markdown-forged-names", test_export_markdown_forged_names);
  ADD ("/archive/export-markdown-partial-answers", test_export_markdown_partial_answers);
  ADD ("/archive/export-json", test_export_json);
  ADD ("/archive/round-trip", test_round_trip);
  ADD ("/archive/import-keeps-parameters", test_import_keeps_parameters);
  ADD ("/archive/import-keeps-version-parameters", test_import_keeps_version_parameters);
  ADD ("/archive/round-trip-branch", test_round_trip_branch);
  ADD ("/archive/import-lowest-version", test_import_lowest_version);
  ADD ("/archive/damaged", test_damaged_archive);
  ADD ("/archive/import-title-controls", test_import_title_controls);
  ADD ("/archive/hostile-nesting", test_hostile_nesting);
  ADD ("/archive/hostile", test_hostile_archive);
  ADD ("/archive/attachments", test_attachments);
  ADD ("/archive/marks-imported", test_archive_marks_imported);

  archive_add_chatgpt_tests ();

  return g_test_run ();
}
