/* test-archive-chatgpt.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Importing ChatGPT's export: conversations, continuing one, damaged
 * and hostile files, branches, continuations, tool and image messages,
 * empty and defective conversations, the real fixture, importing twice.
 */

#include "test-archive.h"

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

/* A ChatGPT title with control characters comes in as one line
 * (docs/format.md "title_changed"): each run of them and of white space
 * is one space. */
static void
test_chatgpt_title_controls (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *text = replace_once (CHATGPT, "\"title\":\"Trip planning\"",
                                        "\"title\":\"Trip\\n\\u001b[1mplanning\\u0007\"");
  g_autoptr(NatterImportReport) report = import_chatgpt_text (f, text);
  g_autoptr(NatterSessionState) trip = NULL;

  g_assert_cmpuint (report->session_ids->len, ==, 2);
  trip = read_session (f, g_ptr_array_index (report->session_ids, 0));
  g_assert_cmpstr (natter_session_state_get_title (trip), ==, "Trip [1mplanning");
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

void
archive_add_chatgpt_tests (void)
{
  ADD ("/archive/chatgpt", test_chatgpt);
  ADD ("/archive/chatgpt-continue", test_chatgpt_continue);
  ADD ("/archive/chatgpt-damaged", test_chatgpt_damaged);
  ADD ("/archive/chatgpt-hostile", test_chatgpt_hostile);
  ADD ("/archive/chatgpt-title-controls", test_chatgpt_title_controls);
  ADD ("/archive/chatgpt-branches", test_chatgpt_branches);
  ADD ("/archive/chatgpt-continuation", test_chatgpt_continuation);
  ADD ("/archive/chatgpt-tool-messages", test_chatgpt_tool_messages);
  ADD ("/archive/chatgpt-image-messages", test_chatgpt_image_messages);
  ADD ("/archive/chatgpt-empty-conversations", test_chatgpt_empty_conversations);
  ADD ("/archive/chatgpt-defective-named", test_chatgpt_defective_named);
  ADD ("/archive/chatgpt-fixture", test_chatgpt_fixture);
  ADD ("/archive/chatgpt-twice", test_chatgpt_twice);
}
