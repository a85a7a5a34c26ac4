/* test-strict-json.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What Natter writes is JSON for every reader, not only for its own: a
 * plain chat through the real services (a scripted OpenAI-compatible
 * server on loopback, automatic titles on), and one whose text holds
 * every control character, typed, and NUL and lone surrogates, streamed;
 * then every line of every file in the store and every request body the
 * server received, read by parsers written by others — Python's json
 * module (/usr/bin/python3) and node's JSON.parse — each through a small
 * script in tests/data/strict-json. Each must accept every line, and the
 * values it reads must be the values Natter reads (docs/format.md §2,
 * "Lossless, canonical JSON"). A reader that is missing is skipped with a
 * message. A plain chat's files are also at version 1 of both formats,
 * where the reference's readers read them (docs/format.md §3.3).
 */

#include "config.h"

#include <string.h>

#include "natter-json.h"
#include "natter-test-services.h"
#include "natter-test-support.h"
#include "natter-turn-reducer.h"

#define SAY NATTER_TEST_SAY
#define SERVE(f, ...) NATTER_TEST_SERVE ((f), "/v1/chat/completions", __VA_ARGS__)

/* Typed text with every control character a C string can hold (all but
 * NUL) and DEL, the characters JSON escapes with a backslash,
 * JavaScript's line separators, a byte order mark, and a character
 * beyond the Basic Multilingual Plane. */
#define ODD_TYPED                                                                   \
  "unit\x1fseparator \x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f"        \
  "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f"            \
  " \" \\ / \xe2\x80\xa8 \xe2\x80\xa9 \xef\xbb\xbf \xf0\x9f\x98\x80 \xc3\xa9"

/* A server's answer with NUL, lone surrogates of both halves, a pair,
 * and escaped control characters, as JSON escapes in its stream. */
#define ODD_STREAMED "a\\u0000b\\ud800c\\udc00d\\ud83d\\ude00e\\u0001\\u001f\\u007f"
/* What Natter keeps of it: U+FFFD where a string cannot hold the
 * character (docs/format.md §2), everything else exactly. */
#define ODD_STORED "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd" "d\xf0\x9f\x98\x80" "e\x01\x1f\x7f"

typedef NatterTestServices Fixture;

static void
result_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Adds the files under @dir whose names end in .jsonl to @paths. */
static void
collect_logs (GFile     *dir,
              GPtrArray *paths)
{
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GError) error = NULL;
  GFileInfo *info;
  GFile *child;

  children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, &error);
  g_assert_no_error (error);
  while (g_file_enumerator_iterate (children, &info, &child, NULL, &error) && info != NULL)
    {
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        collect_logs (child, paths);
      else if (g_str_has_suffix (g_file_info_get_name (info), ".jsonl"))
        g_ptr_array_add (paths, g_file_get_path (child));
    }
  g_assert_no_error (error);
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Every value in @paths as Natter reads it, in file and line order: the
 * store's strict read for a log line, json-glib for a request body. */
static GPtrArray *
values_natter_reads (GPtrArray *paths)
{
  GPtrArray *values = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autofree char *contents = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
      g_assert_no_error (error);
      if (g_str_has_suffix (path, ".jsonl"))
        {
          g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);
          guint n = g_strv_length (lines);

          g_assert_cmpuint (n, >=, 2);
          g_assert_cmpstr (lines[n - 1], ==, "");
          for (guint j = 0; j + 1 < n; j++)
            {
              JsonNode *node = natter_json_from_line (lines[j], -1, &error);

              g_assert_no_error (error);
              g_ptr_array_add (values, node);
            }
        }
      else
        {
          JsonNode *node = json_from_string (contents, &error);

          g_assert_no_error (error);
          g_ptr_array_add (values, node);
        }
    }
  return values;
}

/* Runs @argv (a reader and its script) over @paths; it must accept every
 * line, and each value it prints must equal what Natter reads. */
static void
assert_reader_agrees (const char * const *argv,
                      GPtrArray          *paths,
                      GPtrArray          *expected)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(NatterTestRun) run = { 0 };
  g_auto(GStrv) lines = NULL;

  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) argv[i]);
  for (guint i = 0; i < paths->len; i++)
    g_ptr_array_add (args, g_ptr_array_index (paths, i));
  g_ptr_array_add (args, NULL);

  process = g_subprocess_newv ((const char * const *) args->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  natter_test_communicate (process, &run);
  natter_test_wait_for_flag (&run.done, NATTER_TEST_SERVICES_WAIT_MS);
  if (run.status != 0)
    g_error ("%s refused a file Natter wrote: %s", argv[0], run.err);

  lines = g_strsplit (run.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, expected->len + 1);
  for (guint i = 0; i < expected->len; i++)
    {
      g_autoptr(JsonNode) seen = json_from_string (lines[i], &error);

      g_assert_no_error (error);
      if (!json_node_equal (seen, g_ptr_array_index (expected, i)))
        {
          g_autofree char *natter = json_to_string (g_ptr_array_index (expected, i), FALSE);

          g_error ("%s read %s where Natter reads %s", argv[0], lines[i], natter);
        }
    }
}

/* Every log in the store and every request body the server received,
 * read by each strict reader there is. */
static void
assert_strict_readers_agree (Fixture *f)
{
  g_autofree char *python_script = g_test_build_filename (G_TEST_DIST, "data", "strict-json", "read_lines.py", NULL);
  g_autofree char *node_script = g_test_build_filename (G_TEST_DIST, "data", "strict-json", "read_lines.js", NULL);
  g_autofree char *node = g_find_program_in_path ("node");
  g_autoptr(GFile) storage = g_file_get_child (f->dir, "storage");
  g_autoptr(GFile) bodies = g_file_get_child (f->dir, "bodies");
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) expected = NULL;
  g_autoptr(GError) error = NULL;
  guint n_logs;
  gboolean read = FALSE;

  collect_logs (storage, paths);
  g_ptr_array_sort (paths, compare_paths);
  n_logs = paths->len;
  g_assert_cmpuint (n_logs, >=, 2);

  /* The bodies as the server received them. */
  g_assert_true (g_file_make_directory (bodies, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f->server->bodies->len, >, 0);
  for (guint i = 0; i < f->server->bodies->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("body-%02u.json", i);
      g_autofree char *path = g_build_filename (g_file_peek_path (bodies), name, NULL);
      const char *body = g_ptr_array_index (f->server->bodies, i);

      g_assert_true (g_file_set_contents (path, body, -1, &error));
      g_assert_no_error (error);
      g_ptr_array_add (paths, g_steal_pointer (&path));
    }
  expected = values_natter_reads (paths);

  if (g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      const char *argv[] = { "/usr/bin/python3", python_script, NULL };

      assert_reader_agrees (argv, paths, expected);
      read = TRUE;
    }
  else
    g_test_message ("/usr/bin/python3 is missing: Python's json module did not read the files");

  if (node != NULL)
    {
      const char *argv[] = { node, node_script, NULL };

      assert_reader_agrees (argv, paths, expected);
      read = TRUE;
    }
  else
    g_test_message ("node is missing: JSON.parse did not read the files");

  if (!read)
    g_test_skip ("Neither /usr/bin/python3 nor node is here to read the files");
  else
    g_test_message ("%u logs and %u request bodies read strictly", n_logs, paths->len - n_logs);
}

/* The stored text of the user's message and the answer of @turn_id. */
static void
assert_turn_text (Fixture    *f,
                  const char *turn_id,
                  const char *typed,
                  const char *answer)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *final = NULL;
  JsonObject *input;

  events = natter_jsonl_repo_read_sync (natter_services_get_turn_repo (f->services), turn_id, NULL, &error);
  g_assert_no_error (error);
  state = natter_turn_reduce (events, &error);
  g_assert_no_error (error);
  input = json_object_get_object_member (natter_turn_state_get_definition (state), "input");
  g_assert_cmpstr (json_object_get_string_member (input, "content"), ==, typed);
  final = natter_turn_state_dup_final_text (state);
  g_assert_cmpstr (final, ==, answer);
}

/* The content of the first message of @role in a request body. */
static const char *
first_content (JsonArray  *messages,
               const char *role)
{
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (g_str_equal (json_object_get_string_member (message, "role"), role))
        return json_object_get_string_member (message, "content");
    }
  g_assert_not_reached ();
}

/* A plain chat uses only what version 1 of both formats expresses, so
 * its files are at version 1, where every reader of the first version
 * (the reference's included) reads them (docs/format.md §3.3, §4.4). */
static void
assert_version_1 (Fixture    *f,
                  const char *session_id)
{
  static const char * const v1_types[] = { "session_created", "turn_appended", "title_changed", NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;

  events = natter_jsonl_repo_read_sync (natter_services_get_session_repo (f->services), session_id, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (g_ptr_array_index (events, 0)), "schemaVersion"),
                   ==, 1);
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i));

      g_assert_true (g_strv_contains (v1_types, json_object_get_string_member (event, "type")));
      if (g_str_equal (json_object_get_string_member (event, "type"), "turn_appended"))
        {
          g_autoptr(GPtrArray) turn = natter_jsonl_repo_read_sync (natter_services_get_turn_repo (f->services),
                                                                   json_object_get_string_member (event, "turnId"),
                                                                   NULL, &error);

          g_assert_no_error (error);
          g_assert_cmpint (json_object_get_int_member (json_node_get_object (g_ptr_array_index (turn, 0)),
                                                       "schemaVersion"), ==, 1);
        }
    }
}

/* Two turns of a conversation anyone would have, with its title. */
static void
test_plain_chat (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  SERVE (f, SAY ("Hello! How can I help?"), SAY ("Greetings"), SAY ("Paris is the capital of France."));
  session_id = natter_test_services_create_session (f);
  first = natter_test_services_send (f, session_id, "Hello");
  natter_test_services_settle (f, first);
  second = natter_test_services_send (f, session_id, "What is the capital of France?");
  natter_test_services_settle (f, second);

  assert_turn_text (f, second, "What is the capital of France?", "Paris is the capital of France.");
  assert_version_1 (f, session_id);
  assert_strict_readers_agree (f);
}

/* The same with every character that JSON must escape, typed, and NUL
 * and lone surrogates from the server: the second turn sends the first
 * answer back, so its request body carries them all. */
static void
test_odd_characters (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autoptr(JsonObject) body = NULL;
  JsonArray *messages;

  SERVE (f, SAY (ODD_STREAMED), SAY ("Odd \\u001f title \\u0000"), SAY ("Fine."));
  session_id = natter_test_services_create_session (f);
  first = natter_test_services_send (f, session_id, ODD_TYPED);
  natter_test_services_settle (f, first);
  second = natter_test_services_send (f, session_id, ODD_TYPED);
  natter_test_services_settle (f, second);

  assert_turn_text (f, first, ODD_TYPED, ODD_STORED);
  assert_turn_text (f, second, ODD_TYPED, "Fine.");
  body = natter_test_services_request_body (f, 2);
  messages = json_object_get_array_member (body, "messages");
  g_assert_cmpstr (first_content (messages, "user"), ==, ODD_TYPED);
  g_assert_cmpstr (first_content (messages, "assistant"), ==, ODD_STORED);
  assert_strict_readers_agree (f);
}

/* Typed text is UTF-8 without NUL (a C string from GTK or the command
 * line); bytes that are not UTF-8 — such as a lone surrogate encoded as
 * UTF-8 would be — are refused before anything is written, so the
 * message is not sent rather than sent changed (docs/format.md §2). */
static void
test_typed_text_not_utf8_refused (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) turns = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(JsonObject) appended = NULL;

  SERVE (f, SAY ("unused"));
  session_id = natter_test_services_create_session (f);
  natter_send_options_set_model (options, "test", "m");
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "a lone \xed\xa0\x80 surrogate");
  natter_sessions_send_message_async (f->sessions, session_id, input, options, NULL, result_cb, &result);
  turn_id = natter_sessions_send_message_finish (f->sessions, natter_test_services_wait_result (&result), &error);
  g_assert_null (turn_id);
  g_assert_nonnull (error);
  g_test_message ("refused: %s", error->message);
  g_assert_nonnull (strstr (error->message, "UTF-8"));

  appended = natter_test_services_last_event (f, session_id, "turn_appended");
  g_assert_null (appended);
  turns = g_file_resolve_relative_path (f->dir, "storage/turns");
  g_assert_false (g_file_query_exists (turns, NULL));
  g_assert_cmpuint (f->server->bodies->len, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/strict-json/plain-chat", Fixture, NULL,
              natter_test_services_set_up, test_plain_chat, natter_test_services_tear_down);
  g_test_add ("/strict-json/odd-characters", Fixture, NULL,
              natter_test_services_set_up, test_odd_characters, natter_test_services_tear_down);

  g_test_add ("/strict-json/typed-text-not-utf8-refused", Fixture, NULL,
              natter_test_services_set_up, test_typed_text_not_utf8_refused, natter_test_services_tear_down);

  return g_test_run ();
}
