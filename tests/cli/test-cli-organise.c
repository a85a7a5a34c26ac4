/* test-cli-organise.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Keeping conversations in order from the command line: grants,
 * parameters, pins and folders, the queue, titles, forks and deletes,
 * versions (another device's copy among them) and search.
 */

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "test-cli.h"

/* "Always allow": allow --always answers the call and grants its tool;
 * the next call of the tool in the session runs without asking; grants
 * lists it (text and JSON); revoke removes it; ask_human and unknown
 * tools cannot be granted. */
static void
test_grants (Fixture       *f,
             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *grant_id = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *listed = NULL;
  g_autoptr(JsonNode) json = NULL;
  JsonObject *entry;

  script (f, &f->server->read_step, &ANSWER, &f->server->read_step, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "read", "my", "notes");

  natter_test_run_clear (&r);
  RUN (f, &r, "allow", "--always", turn_id, "call_1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "grant "));
  grant_id = g_strndup (r.out + strlen ("grant "), strcspn (r.out + strlen ("grant "), "\n"));
  g_assert_true (natter_id_validate (grant_id, NULL));
  expected = g_strdup_printf ("grant %s\nsession %s\nturn %s\n\nHello world\n", grant_id, session_id, turn_id);
  g_assert_cmpstr (r.out, ==, expected);

  natter_test_run_clear (&r);
  RUN (f, &r, "grants", session_id);
  g_assert_cmpint (r.status, ==, 0);
  listed = g_strdup_printf ("%s\tnatter.read_file\t", grant_id);
  g_assert_true (g_str_has_prefix (r.out, listed));
  g_assert_true (g_str_has_suffix (r.out, "Z\n"));
  g_assert_cmpuint (count_lines (r.out), ==, 1);

  natter_test_run_clear (&r);
  RUN (f, &r, "grants", session_id, "--json");
  g_assert_cmpint (r.status, ==, 0);
  json = natter_test_json (r.out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (json)), ==, 1);
  entry = json_array_get_object_element (json_node_get_array (json), 0);
  g_assert_cmpstr (json_object_get_string_member (entry, "grantId"), ==, grant_id);
  g_assert_cmpstr (json_object_get_string_member (entry, "toolId"), ==, "natter.read_file");
  g_assert_true (json_object_has_member (entry, "ts"));

  /* The next read runs at once: the turn completes. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "again");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_null (strstr (r.out, "waiting:"));

  natter_test_run_clear (&r);
  RUN (f, &r, "revoke", session_id, grant_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
  natter_test_run_clear (&r);
  RUN (f, &r, "grants", session_id);
  g_assert_cmpstr (r.out, ==, "");
  natter_test_run_clear (&r);
  RUN (f, &r, "revoke", session_id, grant_id);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: "));

  natter_test_run_clear (&r);
  RUN (f, &r, "grant", session_id, "ask_human");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "natter: ask_human can never be always allowed"));
  natter_test_run_clear (&r);
  RUN (f, &r, "grant", session_id, "no_such_tool");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.err, ==, "natter: There is no tool “no_such_tool”\n");
  natter_test_run_clear (&r);
  RUN (f, &r, "grant", session_id, "read_file");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "grant "));
}

/* Generation parameters: `send --temperature …` reaches the server for
 * that message only; `params` keeps a conversation's, which every later
 * message sends under its own, prints them as text or JSON, refuses a
 * value out of range without writing, and --clear forgets them. The file
 * is raised one version at a time before its first parameters_changed. */
static void
test_params (Fixture       *f,
             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) second = NULL;
  g_autoptr(JsonObject) third = NULL;
  g_autoptr(JsonNode) json = NULL;
  JsonObject *system;
  g_autofree char *types = NULL;
  g_autofree char *turn_id = NULL;

  script (f, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1",
       "--temperature", "0,5", "--seed", "7", "hi");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, NULL);
  first = request_body (f, 0);
  g_assert_cmpfloat (json_object_get_double_member (first, "temperature"), ==, 0.5);
  g_assert_cmpint (json_object_get_int_member (first, "seed"), ==, 7);
  g_assert_false (json_object_has_member (first, "top_p"));

  /* The message's own were not kept. */
  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");

  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--temperature", "1.2", "--max-tokens", "64", "--system", "Answer in French.");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "temperature\t1.2\nmax_tokens\t64\nsystem\tAnswer in French.\n");

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--top-p", "0.9", "again");
  g_assert_cmpint (r.status, ==, 0);
  second = request_body (f, 1);
  g_assert_cmpfloat (json_object_get_double_member (second, "temperature"), ==, 1.2);
  g_assert_cmpfloat (json_object_get_double_member (second, "top_p"), ==, 0.9);
  g_assert_cmpint (json_object_get_int_member (second, "max_tokens"), ==, 64);
  g_assert_false (json_object_has_member (second, "seed"));
  system = json_array_get_object_element (json_object_get_array_member (second, "messages"), 0);
  g_assert_cmpstr (json_object_get_string_member (system, "role"), ==, "system");
  g_assert_true (g_str_has_suffix (json_object_get_string_member (system, "content"), "\n\nAnswer in French."));

  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--json");
  json = natter_test_json (r.out);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (json), "temperature"), ==, 1.2);
  /* The shortest spelling that reads back the same, not %.17g's. */
  g_assert_nonnull (strstr (r.out, "\"temperature\" : 1.2,"));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (json), "max_tokens"), ==, 64);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json), "systemInstruction"), ==,
                   "Answer in French.");

  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--temperature", "3");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "natter: Temperature must be a number from 0 to 2\n");
  /* Decimal numbers only, as a person types them. */
  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--top-p", "0x1p-1");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "natter: Top-p must be a number from 0 to 1\n");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--seed", "x", "never sent");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "natter: The seed must be a whole number\n");
  g_assert_cmpuint (f->server->bodies->len, ==, 2);

  contents = session_file_contents (f, session_id);
  types = session_types (contents);
  g_assert_nonnull (strstr (types, " schema_upgraded:2 schema_upgraded:3 parameters_changed "));
  g_assert_cmpuint (count_substring (types, "parameters_changed"), ==, 1);

  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--clear", "--seed", "3", "--top-p", "-0");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "top_p\t0\nseed\t3\n");
  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--clear");
  g_assert_cmpstr (r.out, ==, "");

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "third");
  g_assert_cmpint (r.status, ==, 0);
  third = request_body (f, 2);
  g_assert_false (json_object_has_member (third, "temperature"));
  g_assert_false (json_object_has_member (third, "seed"));
  system = json_array_get_object_element (json_object_get_array_member (third, "messages"), 0);
  g_assert_null (strstr (json_object_get_string_member_with_default (system, "content", ""), "French"));

  /* 0.3 is 0.29999999999999999 to 17 digits. */
  natter_test_run_clear (&r);
  g_clear_pointer (&json, json_node_unref);
  RUN (f, &r, "params", session_id, "--temperature", "0.3", "--seed", "5", "--json");
  json = natter_test_json (r.out);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (json), "temperature"), ==, 0.3);
  g_assert_nonnull (strstr (r.out, "\"temperature\" : 0.3,"));

  /* `send --system ""`: this message goes without the conversation's
   * instruction, and so does the same message sent again. */
  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--system", "Answer in French.");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, NULL, &turn_id, "send", "--session", session_id, "--system", "", "plainly");
  g_assert_cmpint (r.status, ==, 0);
  for (guint i = 3; i < 5; i++)
    {
      g_autoptr(JsonObject) body = request_body (f, i);

      system = json_array_get_object_element (json_object_get_array_member (body, "messages"), 0);
      g_assert_null (strstr (json_object_get_string_member_with_default (system, "content", ""), "French"));
      g_assert_cmpfloat (json_object_get_double_member (body, "temperature"), ==, 0.3);
      if (i == 3)
        {
          g_autofree char *path = turn_file_path (f, turn_id);
          g_autofree char *turn = natter_test_read_file (path, NULL);

          g_assert_nonnull (strstr (turn, "\"messageParameters\":{\"parameters\":{},\"systemInstruction\":\"\"}"));
          natter_test_run_clear (&r);
          RUN (f, &r, "retry", turn_id);
          g_assert_cmpint (r.status, ==, 0);
        }
    }
}

/* pin, unpin and folder (docs/sessions.md §16): each is one event in the
 * conversation's file, raised to version 4 one step at a time before the
 * first; `folder SESSION NAME` makes the folder when none of that name
 * (whatever its case) exists, and the folder outlives the process, also
 * once nothing is in it; `sessions --json` says `pinned` and `folder`. */
static void
test_pins_folders (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *types = NULL;
  g_autoptr(JsonObject) entry = NULL;
  g_autoptr(GPtrArray) folders = NULL;

  script (f, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, NULL, NEW_SESSION (f), "hi");
  entry = listed_entry (f, session_id);
  g_assert_false (json_object_get_boolean_member (entry, "pinned"));
  g_assert_false (json_object_has_member (entry, "folder"));
  g_clear_pointer (&entry, json_object_unref);

  natter_test_run_clear (&r);
  RUN (f, &r, "pin", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "Work Stuff");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  entry = listed_entry (f, session_id);
  g_assert_true (json_object_get_boolean_member (entry, "pinned"));
  g_assert_cmpstr (json_object_get_string_member (entry, "folder"), ==, "Work Stuff");
  g_clear_pointer (&entry, json_object_unref);
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id);
  g_assert_cmpstr (r.out, ==, "Work Stuff\n");

  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "Work", "--none");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "natter: Give a folder name or --none, not both\n");
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "--none");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "unpin", session_id);
  g_assert_cmpint (r.status, ==, 0);
  entry = listed_entry (f, session_id);
  g_assert_false (json_object_get_boolean_member (entry, "pinned"));
  g_assert_false (json_object_has_member (entry, "folder"));
  g_clear_pointer (&entry, json_object_unref);

  /* The empty folder is still there: the same name, in other case,
   * finds it rather than making a second. */
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "work stuff");
  g_assert_cmpint (r.status, ==, 0);
  entry = listed_entry (f, session_id);
  g_assert_cmpstr (json_object_get_string_member (entry, "folder"), ==, "Work Stuff");
  folders = natter_test_list_files (f->dir, "storage/folders");
  g_assert_cmpuint (folders->len, ==, 1);

  /* A name is one line: a tab in it is refused, no folder made, the
   * conversation left where it is. */
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "Home\tWork");
  g_assert_cmpint (r.status, !=, 0);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, "A folder name cannot hold line breaks, tabs or other control characters"));
  /* A Unicode line separator breaks the line as a newline does: the
   * sidebar showed "Home" U+2028 "Work" as "Ho…". */
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "Home\xe2\x80\xa8Work");
  g_assert_cmpint (r.status, !=, 0);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, "A folder name cannot hold line breaks, tabs or other control characters"));
  /* Bytes that are not UTF-8 (a name from a Latin-1 script) are refused
   * with the reason, not compared with the folders' names: that
   * comparison crashed the command, and the window it was forwarded to. */
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "Caf\xe9");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, "A folder name must be text in UTF-8"));
  g_clear_pointer (&folders, g_ptr_array_unref);
  folders = natter_test_list_files (f->dir, "storage/folders");
  g_assert_cmpuint (folders->len, ==, 1);
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id);
  g_assert_cmpstr (r.out, ==, "Work Stuff\n");

  natter_test_run_clear (&r);
  RUN (f, &r, "pin", "not-an-id");
  g_assert_cmpint (r.status, !=, 0);
  g_assert_cmpstr (r.out, ==, "");

  contents = session_file_contents (f, session_id);
  types = session_types (contents);
  g_assert_nonnull (strstr (types, " schema_upgraded:2 schema_upgraded:3 schema_upgraded:4 pin_changed "
                                   "folder_changed folder_changed pin_changed folder_changed "));
}

/* Queued messages: send --queue while the turn waits prints `queued
 * <id>`; queue lists them (text and JSON); unqueue removes one; when the
 * turn completes the oldest is sent and reported after it; send --queue
 * on a settled session sends at once. */
static void
test_queue (Fixture       *f,
            gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *promoted = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_auto(GStrv) reports = NULL;
  JsonObject *entry;

  script (f, &f->server->read_step, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "read", "my", "notes");

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "first", "queued");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "queued "));
  first = g_strndup (r.out + strlen ("queued "), strlen (r.out) - strlen ("queued ") - 1);
  g_assert_true (natter_id_validate (first, NULL));
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "second");
  second = g_strndup (r.out + strlen ("queued "), strlen (r.out) - strlen ("queued ") - 1);
  g_assert_true (natter_id_validate (second, NULL));

  natter_test_run_clear (&r);
  RUN (f, &r, "queue", session_id);
  g_assert_cmpint (r.status, ==, 0);
  listed = g_strdup_printf ("%s\t", first);
  g_assert_true (g_str_has_prefix (r.out, listed));
  g_assert_nonnull (strstr (r.out, "\tfirst queued\n"));
  g_assert_cmpuint (count_lines (r.out), ==, 2);

  natter_test_run_clear (&r);
  RUN (f, &r, "queue", session_id, "--json");
  json = natter_test_json (r.out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (json)), ==, 2);
  entry = json_array_get_object_element (json_node_get_array (json), 1);
  g_assert_cmpstr (json_object_get_string_member (entry, "queueId"), ==, second);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (entry, "message"), "content"),
                   ==, "second");
  g_assert_true (json_object_has_member (entry, "ts"));

  natter_test_run_clear (&r);
  RUN (f, &r, "unqueue", session_id, second);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");

  /* Allowing completes the turn; the queued message is sent after it and
   * reported too. */
  natter_test_run_clear (&r);
  RUN (f, &r, "allow", turn_id, "call_1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  reports = g_strsplit (r.out, "\n\nsession ", -1);
  g_assert_cmpuint (g_strv_length (reports), ==, 2);
  parse_ids (r.out, NULL, NULL);
  g_assert_true (g_str_has_suffix (reports[0], "\n\nHello world"));
  g_assert_true (g_str_has_suffix (reports[1], "\n\nHello world\n"));
  promoted = g_strdup_printf ("session %s", reports[1]);
  parse_ids (promoted, NULL, NULL);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "first queued"));

  natter_test_run_clear (&r);
  RUN (f, &r, "queue", session_id);
  g_assert_cmpstr (r.out, ==, "");

  /* Settled: --queue sends at once. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "right", "away");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 4);
}

/* A message queued behind an answer that was stopped goes along with
 * the answer's new try: `retry` says so, reports the new answer and then
 * the queued message's, sent in the new version; the version left
 * behind keeps nothing queued. */
static void
test_queue_retry_takes_it (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *version_id = NULL;
  g_auto(GStrv) reports = NULL;

  script (f, &f->server->read_step, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "read", "my", "notes");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "first", "queued");
  g_assert_true (g_str_has_prefix (r.out, "queued "));
  natter_test_run_clear (&r);
  RUN (f, &r, "stop", turn_id);
  g_assert_cmpint (r.status, ==, 0);

  natter_test_run_clear (&r);
  RUN (f, &r, "retry", turn_id);
  g_assert_cmpstr (r.err, ==, "1 queued message now waits behind this answer\n");
  g_assert_cmpint (r.status, ==, 0);
  reports = g_strsplit (r.out, "\n\nsession ", -1);
  g_assert_cmpuint (g_strv_length (reports), ==, 2);
  parse_ids (r.out, &version_id, NULL);
  g_assert_cmpstr (version_id, !=, session_id);
  g_assert_true (g_str_has_prefix (reports[1], version_id));
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "read my notes"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "first queued"));

  natter_test_run_clear (&r);
  RUN (f, &r, "queue", session_id);
  g_assert_cmpstr (r.out, ==, "");
  natter_test_run_clear (&r);
  RUN (f, &r, "queue", version_id);
  g_assert_cmpstr (r.out, ==, "");
}

/* A 1×1 PNG, to attach. */
static const guint8 TINY_PNG[] = {
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
  0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
  0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
  0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

/* `queue` lists a queued message with a file by its words and the
 * file's name, each a field of its own, never as the message's JSON. */
static void
test_queue_lists_files (Fixture       *f,
                        gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *queue_id = NULL;
  g_autofree char *dir = g_dir_make_tmp ("natter-queue-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "red.png", NULL);
  g_autofree char *expected = NULL;
  g_autoptr(GError) error = NULL;

  g_file_set_contents (png, (const char *) TINY_PNG, sizeof TINY_PNG, &error);
  g_assert_no_error (error);
  script (f, &f->server->read_step, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "read", "my", "notes");

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "--attach", png, "queued with\tan image");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "queued "));
  queue_id = g_strndup (r.out + strlen ("queued "), strlen (r.out) - strlen ("queued ") - 1);

  natter_test_run_clear (&r);
  RUN (f, &r, "queue", session_id);
  g_assert_cmpint (r.status, ==, 0);
  expected = g_strdup_printf ("%s\t", queue_id);
  g_assert_true (g_str_has_prefix (r.out, expected));
  g_clear_pointer (&expected, g_free);
  /* The tab in the words does not start a field. */
  g_assert_true (g_str_has_suffix (r.out, "\tqueued with an image\tred.png\n"));
  g_assert_cmpuint (count_lines (r.out), ==, 1);

  g_unlink (png);
  g_rmdir (dir);
}

/* A plain send finds the queue first in line: it is refused, and the
 * oldest queued message, sent instead, runs to its answer before the
 * command exits (never left interrupted for `resume`). */
static void
test_queue_first_send_refused (Fixture       *f,
                               gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *promoted = NULL;
  g_autofree char *status = NULL;

  script (f, &ANSWER, &ANSWER, NULL);
  session_id = lose_a_promotion (f, "left behind");

  RUN (f, &r, "send", "--session", session_id, "not", "sent");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: The latest turn "));
  g_assert_nonnull (strstr (r.err, "queued messages"));
  g_assert_true (g_str_has_prefix (r.out, "session "));
  parse_ids (r.out, &promoted, NULL);
  g_assert_cmpstr (promoted, ==, session_id);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "left behind"));
  g_assert_null (strstr (g_ptr_array_index (f->server->bodies, 1), "not sent"));

  status = session_status (f, session_id);
  g_assert_cmpstr (status, ==, "completed 2");
}

/* send --queue behind what a crash left queued: the message is queued
 * after it, and both are sent, each after the answer before it, and
 * reported, before the command exits. */
static void
test_queue_first_send_queue (Fixture       *f,
                             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *status = NULL;
  g_auto(GStrv) reports = NULL;

  script (f, &ANSWER, &ANSWER, &ANSWER, NULL);
  session_id = lose_a_promotion (f, "left behind");

  RUN (f, &r, "send", "--session", session_id, "--queue", "next");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "queued "));
  reports = g_strsplit (r.out, "\n\nsession ", -1);
  g_assert_cmpuint (g_strv_length (reports), ==, 3);
  g_assert_true (g_str_has_suffix (reports[1], "\n\nHello world"));
  g_assert_true (g_str_has_suffix (reports[2], "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "left behind"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "next"));

  status = session_status (f, session_id);
  g_assert_cmpstr (status, ==, "completed 3");
  natter_test_run_clear (&r);
  RUN (f, &r, "queue", session_id);
  g_assert_cmpstr (r.out, ==, "");
}

/* Allowing a turn with two messages queued behind it, on a machine so
 * loaded that the command reads the session only after the first turn
 * the queue made has answered and made the second: every turn is
 * reported and the command stays until the last one settles, instead of
 * leaving it mid-call with no process to finish it. The test point
 * NATTER_TEST_FOLLOW_LATE makes the command read the session that late. */
static void
test_queue_follow_late (Fixture       *f,
                        gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *status = NULL;
  g_auto(GStrv) reports = NULL;

  script (f, &f->server->read_step, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "read", "my", "notes");
  parse_ids (r.out, &session_id, &turn_id);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "first");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "second");
  g_assert_cmpint (r.status, ==, 0);

  natter_test_run_clear (&r);
  f->test_point = "NATTER_TEST_FOLLOW_LATE";
  RUN (f, &r, "allow", turn_id, "call_1");
  f->test_point = NULL;
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  reports = g_strsplit (r.out, "\n\nsession ", -1);
  g_assert_cmpuint (g_strv_length (reports), ==, 3);
  g_assert_true (g_str_has_suffix (reports[1], "\n\nHello world"));
  g_assert_true (g_str_has_suffix (reports[2], "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 4);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "first"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 3), "second"));

  status = session_status (f, session_id);
  g_assert_cmpstr (status, ==, "completed 3");
}

static void
test_title_fork_delete (Fixture       *f,
                        gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *fork_id = NULL;
  g_autofree char *drafts = NULL;
  g_autofree char *deleted_draft = NULL;
  g_autofree char *fork_draft = NULL;
  guint n_turn_files;

  script (f, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "hello");

  natter_test_run_clear (&r);
  RUN (f, &r, "title", session_id, "Greetings", "and", "more");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_true (g_str_has_suffix (r.out, "\tGreetings and more\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "fork", session_id, turn_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  fork_id = natter_test_session_of (r.out);
  g_assert_true (natter_id_validate (fork_id, NULL));
  g_assert_cmpstr (fork_id, !=, session_id);

  natter_test_run_clear (&r);
  RUN (f, &r, "show", fork_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, session_id));

  n_turn_files = count_turn_files (f);
  g_assert_cmpuint (n_turn_files, ==, 1);
  /* Words left in both conversations' message fields (docs/format.md §10). */
  drafts = g_build_filename (g_file_peek_path (f->dir), "drafts", NULL);
  deleted_draft = g_strdup_printf ("%s/%s.json", drafts, session_id);
  fork_draft = g_strdup_printf ("%s/%s.json", drafts, fork_id);
  g_assert_cmpint (g_mkdir_with_parents (drafts, 0700), ==, 0);
  g_assert_true (g_file_set_contents (deleted_draft, "{\"text\":\"never sent\"}", -1, NULL));
  g_assert_true (g_file_set_contents (fork_draft, "{\"text\":\"still to send\"}", -1, NULL));
  natter_test_run_clear (&r);
  RUN (f, &r, "delete", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  /* docs/sessions.md §9.4: the turn files stay. */
  g_assert_cmpuint (count_turn_files (f), ==, n_turn_files);
  /* The deleted conversation's draft goes with it; the other's stays. */
  g_assert_false (g_file_test (deleted_draft, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (fork_draft, G_FILE_TEST_EXISTS));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_true (g_str_has_prefix (r.out, fork_id));
  g_assert_null (strstr (r.out, session_id));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: No session "));

  /* The fork still sends the deleted parent's turn to the model, so it
   * shows it, from the turn file, marked as coming from it. */
  natter_test_run_clear (&r);
  RUN (f, &r, "show", fork_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\nThe earlier messages come from a conversation that was deleted:\n"));
  g_assert_nonnull (strstr (r.out, turn_id));
  g_assert_nonnull (strstr (r.out, "user: hello\nassistant: Hello world\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", fork_id, "--json");
  g_assert_cmpint (r.status, ==, 0);
  {
    g_autoptr(JsonNode) json = natter_test_json (r.out);
    JsonObject *object = json_node_get_object (json);
    JsonArray *inherited = json_object_get_array_member (object, "inheritedTurns");
    JsonObject *turn;

    g_assert_cmpuint (json_array_get_length (inherited), ==, 1);
    turn = json_array_get_object_element (inherited, 0);
    g_assert_cmpstr (json_object_get_string_member (turn, "turnId"), ==, turn_id);
    g_assert_cmpstr (json_object_get_string_member (turn, "sessionId"), ==, session_id);
    g_assert_cmpstr (json_object_get_string_member (turn, "input"), ==, "hello");
    g_assert_cmpstr (json_object_get_string_member (turn, "answer"), ==, "Hello world");
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "turns")), ==, 0);
  }
}

/* A conversation of @messages (each answered), with seed 5, pinned and
 * in the folder "Work"; another answer to its last message, a version
 * that shows the earlier ones from it; then the conversation deleted.
 * @turns gets each message's turn id (transfer full, as many as
 * @messages). Returns the version's session id (transfer full). */
static char *
version_of_deleted_original (Fixture     *f,
                             const char **messages,
                             char       **turns)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  char *version_id = NULL;
  guint n;

  for (n = 0; messages[n] != NULL; n++)
    {
      natter_test_run_clear (&r);
      if (n == 0)
        RUN_IDS (f, &r, &session_id, &turns[n], NEW_SESSION (f), messages[n]);
      else
        RUN_IDS (f, &r, NULL, &turns[n], "send", "--session", session_id, messages[n]);
    }
  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--seed", "5");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "pin", session_id);
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "Work");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &version_id, NULL, "retry", turns[n - 1]);
  natter_test_run_clear (&r);
  RUN (f, &r, "delete", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  return version_id;
}

/* `natter fork VERSION TURN` at a message the version shows from its
 * original, once the original is deleted: the branch is made, with
 * the history the version showed up to there, and it starts with the
 * conversation's settings and folder but not its pin. */
static void
test_fork_deleted_original (Fixture       *f,
                            gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_auto(GStrv) turns = g_new0 (char *, 3);
  g_autofree char *version_id = NULL;
  g_autofree char *fork_id = NULL;
  g_autoptr(JsonObject) entry = NULL;
  g_autoptr(JsonObject) body = NULL;
  g_autoptr(JsonNode) json = NULL;
  const char *sent = NULL;

  script (f, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, NULL);
  version_id = version_of_deleted_original (f, (const char *[]) { "hello", "and then", NULL }, turns);

  natter_test_run_clear (&r);
  RUN (f, &r, "fork", version_id, turns[0]);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  fork_id = natter_test_session_of (r.out);

  entry = listed_entry (f, fork_id);
  g_assert_false (json_object_get_boolean_member (entry, "pinned"));
  g_assert_cmpstr (json_object_get_string_member (entry, "folder"), ==, "Work");
  natter_test_run_clear (&r);
  RUN (f, &r, "params", fork_id, "--json");
  json = natter_test_json (r.out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (json), "seed"), ==, 5);

  natter_test_run_clear (&r);
  RUN (f, &r, "show", fork_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\nThe earlier messages come from a conversation that was deleted:\n"));
  g_assert_nonnull (strstr (r.out, "user: hello\nassistant: Hello world\n"));
  g_assert_null (strstr (r.out, "and then"));

  /* The model receives the first exchange, not the second. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", fork_id, "elsewhere");
  g_assert_cmpint (r.status, ==, 0);
  for (guint i = 0; i < f->server->bodies->len; i++)
    if (strstr (g_ptr_array_index (f->server->bodies, i), "\"content\":\"elsewhere\"") != NULL)
      {
        body = request_body (f, i);
        sent = g_ptr_array_index (f->server->bodies, i);
      }
  g_assert_nonnull (body);
  g_assert_cmpint (json_object_get_int_member (body, "seed"), ==, 5);
  g_assert_nonnull (strstr (sent, "\"content\":\"hello\""));
  g_assert_null (strstr (sent, "and then"));
}

/* `natter retry --session VERSION TURN` at a message the version shows
 * from its original, once the original is deleted (its first message,
 * and one after it): a new version of the message is made and
 * answered, with the history the version showed before it, and the
 * conversation's settings and folder but not its pin. */
static void
test_retry_deleted_original (Fixture       *f,
                             gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_auto(GStrv) turns = g_new0 (char *, 4);
  g_autofree char *middle_id = NULL;
  g_autofree char *version_id = NULL;
  g_autofree char *again_id = NULL;
  g_autofree char *again_turn = NULL;
  g_autoptr(JsonObject) entry = NULL;
  g_autoptr(JsonObject) body = NULL;
  g_autoptr(JsonNode) json = NULL;
  const char *sent;
  guint n_requests;

  script (f, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, NULL);
  version_id = version_of_deleted_original (f, (const char *[]) { "hello", "and then", "at last", NULL }, turns);

  /* Without --session, no conversation holds the turn: which of those
   * that show it the new version goes on from is asked, nothing made. */
  n_requests = f->server->bodies->len;
  natter_test_run_clear (&r);
  RUN (f, &r, "retry", turns[0]);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, "which was deleted"));
  g_assert_nonnull (strstr (r.err, "--session"));
  g_assert_cmpuint (f->server->bodies->len, ==, n_requests);

  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &again_id, &again_turn, "retry", "--session", version_id, turns[0]);
  g_assert_nonnull (again_turn);
  g_assert_cmpstr (again_id, !=, version_id);

  entry = listed_entry (f, again_id);
  g_assert_false (json_object_get_boolean_member (entry, "pinned"));
  g_assert_cmpstr (json_object_get_string_member (entry, "folder"), ==, "Work");
  g_clear_pointer (&entry, json_object_unref);
  entry = listed_entry (f, version_id);
  g_assert_true (json_object_get_boolean_member (entry, "pinned"));
  natter_test_run_clear (&r);
  RUN (f, &r, "params", again_id, "--json");
  json = natter_test_json (r.out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (json), "seed"), ==, 5);

  /* The first message went again, alone, as the first one does. */
  body = request_body (f, f->server->bodies->len - 1);
  sent = g_ptr_array_index (f->server->bodies, f->server->bodies->len - 1);
  g_assert_cmpint (json_object_get_int_member (body, "seed"), ==, 5);
  g_assert_nonnull (strstr (sent, "\"content\":\"hello\""));
  g_assert_null (strstr (sent, "and then"));
  natter_test_run_clear (&r);
  RUN (f, &r, "show", again_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "user: hello\nassistant: Hello world\n"));
  g_assert_null (strstr (r.out, "and then"));

  /* The second message goes again after the first, as the version
   * showed them, and not before the last. */
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &middle_id, NULL, "retry", "--session", version_id, turns[1]);
  sent = g_ptr_array_index (f->server->bodies, f->server->bodies->len - 1);
  g_assert_nonnull (strstr (sent, "\"content\":\"hello\""));
  g_assert_nonnull (strstr (sent, "\"content\":\"and then\""));
  g_assert_null (strstr (sent, "at last"));
  g_clear_pointer (&entry, json_object_unref);
  entry = listed_entry (f, middle_id);
  g_assert_false (json_object_get_boolean_member (entry, "pinned"));
  g_assert_cmpstr (json_object_get_string_member (entry, "folder"), ==, "Work");
}

/* `natter retry --session VERSION TURN` at the version's own first
 * message, once the original it was made of is deleted: the new version
 * is made at the turn before it, which the deleted original has as its
 * own, as it would have been before the delete (docs/format.md §3.2),
 * and the model receives the history the version showed. */
static void
test_retry_version_of_deleted_original (Fixture       *f,
                                        gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *second_turn = NULL;
  g_autofree char *version_id = NULL;
  g_autofree char *version_turn = NULL;
  g_autofree char *again_id = NULL;
  g_autofree char *again_turn = NULL;
  const char *sent;

  script (f, &ANSWER, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, NULL, NEW_SESSION (f), "hello");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, NULL, &second_turn, "send", "--session", session_id, "and then");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &version_id, &version_turn, "retry", second_turn);
  natter_test_run_clear (&r);
  RUN (f, &r, "delete", session_id);
  g_assert_cmpint (r.status, ==, 0);

  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &again_id, &again_turn, "retry", "--session", version_id, version_turn);
  g_assert_nonnull (again_turn);
  g_assert_cmpstr (again_id, !=, version_id);
  sent = g_ptr_array_index (f->server->bodies, f->server->bodies->len - 1);
  g_assert_nonnull (strstr (sent, "\"content\":\"hello\""));
  g_assert_nonnull (strstr (sent, "\"content\":\"and then\""));
  natter_test_run_clear (&r);
  RUN (f, &r, "show", again_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "user: hello\n"));
}

/* `natter retry TURN` at the first message of a version of a
 * conversation's first message, once that conversation is deleted: the
 * new version names the deleted one as its parent, as one made before
 * the delete would (docs/sessions.md §9.4), and the message is sent. */
static void
test_retry_first_version_of_deleted_original (Fixture       *f,
                                              gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *first_turn = NULL;
  g_autofree char *version_id = NULL;
  g_autofree char *version_turn = NULL;
  g_autofree char *again_id = NULL;
  g_autofree char *again_turn = NULL;
  g_autofree char *branch_id = NULL;
  g_autofree char *untitled_id = NULL;
  g_autoptr(JsonObject) entry = NULL;
  guint n_requests;

  script (f, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &first_turn, NEW_SESSION (f), "hello");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &version_id, &version_turn, "retry", first_turn);
  natter_test_run_clear (&r);
  RUN (f, &r, "delete", session_id);
  g_assert_cmpint (r.status, ==, 0);

  n_requests = f->server->bodies->len;
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &again_id, &again_turn, "retry", version_turn);
  g_assert_nonnull (again_turn);
  g_assert_cmpstr (again_id, !=, version_id);
  g_assert_cmpuint (f->server->bodies->len, ==, n_requests + 1);

  /* Asked of a branch made there that has no message (and so no title)
   * of its own: the new version is made without one, and named after
   * its message and answer as any untitled conversation is. */
  natter_test_run_clear (&r);
  RUN (f, &r, "fork", version_id, version_turn);
  g_assert_cmpint (r.status, ==, 0);
  branch_id = natter_test_session_of (r.out);
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &untitled_id, NULL, "retry", "--session", branch_id, version_turn);
  entry = listed_entry (f, untitled_id);
  g_assert_true (json_object_has_member (entry, "title"));
  g_assert_false (json_object_has_member (entry, "versionOf"));
}

/* search finds words of messages and answers, best first, one line per
 * turn; --json adds the title; a deleted session is no longer found. */
static void
test_search (Fixture       *f,
             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *wombat_session = NULL;
  g_autofree char *wombat_turn = NULL;
  g_autofree char *koala_session = NULL;
  g_autofree char *koala_turn = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *hit;

  script (f, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &wombat_session, &wombat_turn, NEW_SESSION (f), "Tell me about wombats");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &koala_session, &koala_turn, NEW_SESSION (f), "And\tkoalas?");

  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombat");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  expected = g_strdup_printf ("%s\t%s\tTell me about wombats\n", wombat_session, wombat_turn);
  g_assert_cmpstr (r.out, ==, expected);

  /* The answer's words, in both sessions; a tab in a message is no
   * column of its own. */
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "koalas", "world");
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("%s\t%s\tAnd koalas?\n", koala_session, koala_turn);
  g_assert_cmpstr (r.out, ==, expected);

  natter_test_run_clear (&r);
  RUN (f, &r, "search", "--json", "hello");
  g_assert_cmpint (r.status, ==, 0);
  json = json_from_string (r.out, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (json)), ==, 2);
  hit = json_array_get_object_element (json_node_get_array (json), 0);
  g_assert_cmpuint (json_object_get_size (hit), ==, 4);
  g_assert_true (g_str_equal (json_object_get_string_member (hit, "sessionId"), wombat_session) ||
                 g_str_equal (json_object_get_string_member (hit, "sessionId"), koala_session));
  g_assert_nonnull (json_object_get_string_member (hit, "turnId"));
  g_assert_nonnull (json_object_get_string_member (hit, "title"));
  g_assert_cmpstr (json_object_get_string_member (hit, "snippet"), ==, "Hello world");

  natter_test_run_clear (&r);
  RUN (f, &r, "delete", wombat_session);
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombats");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");

  /* Syntax of the index's query language is only words. */
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "\"koalas", "(", "*");
  g_assert_cmpint (r.status, ==, 0);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("%s\t%s\tAnd koalas?\n", koala_session, koala_turn);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpstr (r.out, ==, expected);

  /* An earlier message whose file lost its end: its words cannot be
   * found, and the search says which conversation it could not read
   * in full rather than miss them without a word. */
  script (f, &ANSWER, NULL);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", koala_session, "More", "please");
  g_assert_cmpint (r.status, ==, 0);
  append_to_turn_file (f, koala_turn, "{\"type\":");
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "koalas");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("Damaged, not searched in full: %s", koala_session);
  g_assert_true (g_str_has_prefix (r.err, expected));
  g_assert_cmpuint (count_lines (r.err), ==, 1);
}

/* The result of @sql's first row, first column, on a connection of its
 * own to the search cache of @f. */
static char *
query_cache (Fixture    *f,
             const char *sql)
{
  g_autoptr(GFile) cache = g_file_resolve_relative_path (f->dir, "cache/search.sqlite");

  return natter_test_sqlite_query (g_file_peek_path (cache), sql);
}

/* Writes @length bytes of garbage over the search cache of @f at
 * @offset, in place, as another program would; @truncate: the rest of
 * the file goes too. */
static void
damage_cache (Fixture *f,
              goffset  offset,
              gsize    length,
              gboolean truncate)
{
  g_autoptr(GFile) cache = g_file_resolve_relative_path (f->dir, "cache/search.sqlite");
  g_autofree char *checkpointed = query_cache (f, "PRAGMA wal_checkpoint(TRUNCATE)");
  g_autofree char *garbage = g_malloc (length);
  int fd;

  /* Everything in the file itself first: what is written over it is
   * what the next search reads. */
  g_assert_cmpstr (checkpointed, ==, "0");
  memset (garbage, 0x5a, length);
  fd = open (g_file_peek_path (cache), O_WRONLY | (truncate ? O_TRUNC : 0));
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (pwrite (fd, garbage, length, offset), ==, (gssize) length);
  g_assert_cmpint (close (fd), ==, 0);
}

/* Every file of storage/ and its bytes. */
static char *
storage_contents (Fixture *f)
{
  g_autoptr(GPtrArray) paths = natter_test_list_files (f->dir, "storage");
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < paths->len; i++)
    {
      g_autofree char *contents = NULL;

      g_assert_true (g_file_get_contents (g_ptr_array_index (paths, i), &contents, NULL, NULL));
      g_string_append_printf (out, "%s\n%s\n", (char *) g_ptr_array_index (paths, i), contents);
    }
  return g_string_free (out, FALSE);
}

/* One conversation, "Tell me about wombats", answered and then found by
 * `natter search`, which builds the search index on the way. Returns the
 * line the search printed for it. */
static char *
searched_wombats (Fixture  *f,
                  char    **session_id,
                  char    **turn_id)
{
  g_auto(NatterTestRun) r = { 0 };
  char *expected;

  script (f, &ANSWER, NULL);
  RUN_IDS (f, &r, session_id, turn_id, NEW_SESSION (f), "Tell me about wombats");
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombat");
  g_assert_cmpint (r.status, ==, 0);
  expected = g_strdup_printf ("%s\t%s\tTell me about wombats\n", *session_id, *turn_id);
  g_assert_cmpstr (r.out, ==, expected);
  return expected;
}

/* A search cache damaged where only a search reads it (a page of the
 * words' text, read for a hit), then one overwritten whole: `natter
 * search` has it built again from the logs and answers as from a whole
 * one, as it does when the cache is missing; nothing else is touched. */
static void
test_search_damaged_cache (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *storage = NULL;
  g_autofree char *page_size = NULL;
  g_autofree char *root = NULL;
  g_autofree char *check = NULL;

  expected = searched_wombats (f, &session_id, &turn_id);
  storage = storage_contents (f);

  page_size = query_cache (f, "PRAGMA page_size");
  root = query_cache (f, "SELECT rootpage FROM sqlite_master WHERE name = 'turn_text_content'");
  g_assert_cmpint (atoi (root), >, 1);
  damage_cache (f, (goffset) (atoi (root) - 1) * atoi (page_size), atoi (page_size), FALSE);
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombat");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, expected);
  check = query_cache (f, "PRAGMA integrity_check");
  g_assert_cmpstr (check, ==, "ok");

  damage_cache (f, 0, 4096, TRUE);
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombat");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, expected);
  {
    g_autofree char *storage_after = storage_contents (f);

    g_assert_cmpstr (storage_after, ==, storage);
  }
}

/* Every file and folder under @dir, recursively, as "path size mtime"
 * lines (a folder's size is left out), sorted. */
static void
tree_stamps_into (GPtrArray  *lines,
                  const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  GStatBuf info;

  g_assert_cmpint (g_stat (dir, &info), ==, 0);
  g_ptr_array_add (lines, g_strdup_printf ("%s/ %" G_GINT64_FORMAT ".%09ld", dir, (gint64) info.st_mtim.tv_sec,
                                           info.st_mtim.tv_nsec));
  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_assert_cmpint (g_lstat (path, &info), ==, 0);
      if (S_ISDIR (info.st_mode))
        tree_stamps_into (lines, path);
      else
        g_ptr_array_add (lines, g_strdup_printf ("%s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT ".%09ld", path,
                                                 (gint64) info.st_size, (gint64) info.st_mtim.tv_sec,
                                                 info.st_mtim.tv_nsec));
    }
}

static int
compare_lines (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static char *
tree_stamps (Fixture *f)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

  tree_stamps_into (lines, g_file_peek_path (f->dir));
  g_ptr_array_sort (lines, compare_lines);
  g_ptr_array_add (lines, NULL);
  return g_strjoinv ("\n", (char **) lines->pdata);
}

/* `natter search` while another Natter writes the data folder (here this
 * test holds its lock): it answers read only from the writer's search
 * index, as a window there does (docs/sessions.md §8.3), and leaves every
 * file and folder as it found it, names, sizes and times; an index
 * behind what is on disk gives what it has and says the other Natter is
 * still building it, and a missing one is an error that says so. */
static void
test_search_while_locked (Fixture       *f,
                          gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autoptr(GFile) storage = g_file_get_child (f->dir, "storage");
  g_autoptr(GFile) cache = g_file_resolve_relative_path (f->dir, "cache/search.sqlite");
  g_autoptr(NatterDataDirLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *newer = NULL;

  /* The index as its writer left it, closed. */
  expected = searched_wombats (f, &session_id, &turn_id);

  lock = natter_data_dir_lock_acquire (storage, &error);
  g_assert_no_error (error);
  before = tree_stamps (f);
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombat");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, expected);
  after = tree_stamps (f);
  g_assert_cmpstr (after, ==, before);

  /* The writer wrote a conversation its index does not hold yet. */
  newer = natter_test_store_session (f->dir, "Kangaroos", NULL, NULL);
  g_clear_pointer (&before, g_free);
  g_clear_pointer (&after, g_free);
  before = tree_stamps (f);
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombat");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, expected);
  g_assert_cmpstr (r.err, ==, "The other Natter using this data folder is still building the search index: "
                              "conversations it has not indexed yet are not searched.\n");
  after = tree_stamps (f);
  g_assert_cmpstr (after, ==, before);

  /* No index at all: nothing to answer from, and none is made. */
  g_assert_true (g_file_delete (cache, NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&before, g_free);
  g_clear_pointer (&after, g_free);
  before = tree_stamps (f);
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombat");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_cmpstr (r.err, ==, "natter: The search index is still being built by the other Natter using this data "
                              "folder. Search again once it has finished.\n");
  after = tree_stamps (f);
  g_assert_cmpstr (after, ==, before);

  /* A command that writes is still refused. */
  natter_test_run_clear (&r);
  RUN (f, &r, "title", session_id, "Wombats");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: Another Natter process is using "));
}

/* A message a version shows from its original is found in the original
 * while it is there; once `natter delete` removed it, in the version,
 * which still shows it, though the index was built before the delete
 * and the version's files did not change. */
static void
test_search_deleted_original (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *first_turn = NULL;
  g_autofree char *second_turn = NULL;
  g_autofree char *version_id = NULL;
  g_autofree char *expected = NULL;

  script (f, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &first_turn, NEW_SESSION (f), "Tell me about wombats");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, NULL, &second_turn, "send", "--session", session_id, "and then");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &version_id, NULL, "retry", second_turn);

  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombats");
  g_assert_cmpint (r.status, ==, 0);
  expected = g_strdup_printf ("%s\t%s\tTell me about wombats\n", session_id, first_turn);
  g_assert_cmpstr (r.out, ==, expected);

  natter_test_run_clear (&r);
  RUN (f, &r, "delete", session_id);
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombats");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("%s\t%s\tTell me about wombats\n", version_id, first_turn);
  g_assert_cmpstr (r.out, ==, expected);
}

/* An earlier answer whose file lost its last lines at a line's end: each
 * line reads, but the turn never ended though the conversation went on.
 * `show` and `export` name the file and the way out, as for a torn file,
 * rather than show or archive the history as if it were whole. */
static void
test_show_earlier_turn_lost_end (Fixture       *f,
                                 gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *hint = NULL;
  const char *formats[] = { "markdown", "json" };

  script (f, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session, &first, NEW_SESSION (f), "Tell me about wombats");
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, NULL, &second, "send", "--session", session, "And", "koalas?");
  keep_first_line_of_turn_file (f, first);
  hint = g_strdup_printf ("natter recover %s", session);

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "the file ends before the turn does"));
  g_assert_nonnull (strstr (r.err, hint));
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      natter_test_run_clear (&r);
      RUN (f, &r, "export", session, "--format", formats[i]);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_cmpstr (r.out, ==, "");
      g_assert_nonnull (strstr (r.err, "the file ends before the turn does"));
      g_assert_nonnull (strstr (r.err, hint));
    }
}

/* The "version of" mark of `natter sessions` for @id: the original's id,
 * or "" when @id is listed as a conversation of its own. */
static char *
listed_version_of (const char *out,
                   const char *id)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], id))
      {
        const char *mark = strstr (lines[i], "\tversion of ");

        return g_strdup (mark != NULL ? mark + strlen ("\tversion of ") : "");
      }
  g_assert_not_reached ();
}

/* The `versionOf` of @id in `natter sessions --json`, "" without one. */
static char *
json_version_of (const char *out,
                 const char *id)
{
  g_autoptr(JsonNode) json = natter_test_json (out);
  JsonArray *entries = json_node_get_array (json);

  for (guint i = 0; i < json_array_get_length (entries); i++)
    {
      JsonObject *entry = json_array_get_object_element (entries, i);

      if (g_str_equal (json_object_get_string_member (entry, "sessionId"), id))
        return g_strdup (json_object_get_string_member_with_default (entry, "versionOf", ""));
    }
  g_assert_not_reached ();
}

#define assert_version_of(out, json_out, id, expected) \
  G_STMT_START { \
    g_autofree char *text_ = listed_version_of ((out), (id)); \
    g_autofree char *json_ = json_version_of ((json_out), (id)); \
    g_assert_cmpstr (text_, ==, (expected)); \
    g_assert_cmpstr (json_, ==, (expected)); \
  } G_STMT_END

/* `natter sessions` says which conversation a version (what Edit and
 * Try Again make in the window: a branch created with the title of the
 * conversation it was made from) continues, from the stored lineage: a
 * fork made on purpose is a conversation of its own even under its
 * parent's title; a renamed version and a version of a version still
 * say where they came from. */
static void
test_sessions_mark_versions (Fixture       *f,
                             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_auto(NatterTestRun) j;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *fork_id = NULL;
  g_autofree char *version = NULL;
  g_autofree char *inner = NULL;

  script (f, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "hello");
  natter_test_run_clear (&r);
  RUN (f, &r, "title", session_id, "Greetings");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "fork", session_id, turn_id);
  g_assert_cmpint (r.status, ==, 0);
  fork_id = natter_test_session_of (r.out);
  /* An edit of the first message, as the window makes one. */
  version = natter_test_store_session (f->dir, "Greetings", session_id, NULL);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  RUN (f, &j, "sessions", "--json");
  g_assert_cmpint (j.status, ==, 0);
  assert_version_of (r.out, j.out, session_id, "");
  assert_version_of (r.out, j.out, fork_id, "");
  assert_version_of (r.out, j.out, version, session_id);

  /* The fork under its parent's title is still its own. */
  natter_test_run_clear (&r);
  RUN (f, &r, "title", fork_id, "Greetings");
  g_assert_cmpint (r.status, ==, 0);
  /* The version renamed is still a version. */
  natter_test_run_clear (&r);
  RUN (f, &r, "title", version, "Salutations");
  g_assert_cmpint (r.status, ==, 0);
  /* An edit made in the version: a version of the version. */
  inner = natter_test_store_session (f->dir, "Salutations", version, NULL);

  natter_test_run_clear (&r);
  natter_test_run_clear (&j);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  RUN (f, &j, "sessions", "--json");
  assert_version_of (r.out, j.out, fork_id, "");
  assert_version_of (r.out, j.out, version, session_id);
  assert_version_of (r.out, j.out, inner, session_id);
  assert_version_of (r.out, j.out, session_id, "");
  g_assert_nonnull (strstr (r.out, "\tGreetings\n"));
  g_assert_nonnull (strstr (r.out, "\tSalutations\tversion of "));
}

/* The path of session @name's file (an id, or a conflict copy's name
 * that begins with one). */
static char *
session_path (Fixture    *f,
              const char *name)
{
  g_autofree char *relative = g_strdup_printf ("storage/sessions/%.4s/%.2s/%.2s/%s.jsonl", name, name + 5,
                                               name + 8, name);
  g_autoptr(GFile) file = g_file_resolve_relative_path (f->dir, relative);

  return g_file_get_path (file);
}

/* The user messages of the model request @index, joined by "|". */
static char *
request_user_texts (Fixture *f,
                    guint    index)
{
  g_autoptr(JsonObject) body = request_body (f, index);
  JsonArray *messages = json_object_get_array_member (body, "messages");
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      JsonNode *content = json_object_get_member (message, "content");
      g_autofree char *text = JSON_NODE_HOLDS_VALUE (content) ? g_strdup (json_node_get_string (content))
                                                              : json_to_string (content, FALSE);

      if (g_strcmp0 (json_object_get_string_member (message, "role"), "user") == 0)
        g_string_append_printf (out, "%s%s", out->len > 0 ? "|" : "", text);
    }
  return g_string_free (out, FALSE);
}

/* `natter send --session` with the name of the copy Syncthing kept of a
 * conversation both devices continued (docs/format.md §9.1): the
 * message goes on from the copy in a new version, whose id the command
 * prints; the model gets the copy's history; neither the copy nor the
 * log is written; the new version is listed as a version of the
 * conversation. */
static void
test_send_in_copy (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *version = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *copy_path = NULL;
  g_autofree char *before = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *log_before = NULL;
  g_autofree char *log_after = NULL;
  g_autofree char *copy_after = NULL;
  g_autofree char *users = NULL;
  g_autofree char *listed = NULL;

  script (f, &ANSWER, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, NULL, NEW_SESSION (f), "Where to?");
  log_path = session_path (f, session_id);
  g_assert_true (g_file_get_contents (log_path, &before, NULL, NULL));
  /* The other device's continuation, then this one's on the log as it
   * was: what Syncthing leaves is the log and the other as the copy. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--base-url", f->server->base_url, "--model", "m1", "By train, then");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (log_path, &theirs, NULL, NULL));
  g_assert_true (g_file_set_contents (log_path, before, -1, NULL));
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--base-url", f->server->base_url, "--model", "m1", "By car, then");
  g_assert_cmpint (r.status, ==, 0);
  copy = g_strconcat (session_id, ".sync-conflict-20261205-011213-ABCDEF2", NULL);
  copy_path = session_path (f, copy);
  g_assert_true (g_file_set_contents (copy_path, theirs, -1, NULL));
  g_assert_true (g_file_get_contents (log_path, &log_before, NULL, NULL));

  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &version, NULL, "send", "--session", copy, "--base-url", f->server->base_url, "--model", "m1", "And back?");
  g_assert_cmpstr (version, !=, session_id);
  g_assert_nonnull (strstr (r.out, "Hello world"));
  users = request_user_texts (f, 3);
  g_assert_cmpstr (users, ==, "Where to?|By train, then|And back?");

  g_assert_true (g_file_get_contents (copy_path, &copy_after, NULL, NULL));
  g_assert_cmpstr (copy_after, ==, theirs);
  g_assert_true (g_file_get_contents (log_path, &log_after, NULL, NULL));
  g_assert_cmpstr (log_after, ==, log_before);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  listed = listed_version_of (r.out, version);
  g_assert_cmpstr (listed, ==, session_id);
}

void
cli_add_organise_tests (void)
{
  ADD ("/cli/grants/allow-always-grant-list-revoke", test_grants);
  ADD ("/cli/params/send-keep-clear", test_params);
  ADD ("/cli/pins-folders", test_pins_folders);
  ADD ("/cli/queue/send-queue-list-unqueue-promote", test_queue);
  ADD ("/cli/queue/lists-files", test_queue_lists_files);
  ADD ("/cli/queue/first-send-refused", test_queue_first_send_refused);
  ADD ("/cli/queue/retry-takes-it", test_queue_retry_takes_it);
  ADD ("/cli/fork-deleted-original", test_fork_deleted_original);
  ADD ("/cli/retry-deleted-original", test_retry_deleted_original);
  ADD ("/cli/retry-version-of-deleted-original", test_retry_version_of_deleted_original);
  ADD ("/cli/retry-first-version-of-deleted-original", test_retry_first_version_of_deleted_original);
  ADD ("/cli/queue/first-send-queue", test_queue_first_send_queue);
  ADD ("/cli/queue/follow-late", test_queue_follow_late);
  ADD ("/cli/title-fork-delete", test_title_fork_delete);
  ADD ("/cli/sessions-mark-versions", test_sessions_mark_versions);
  ADD ("/cli/send/in-conflict-copy", test_send_in_copy);
  ADD ("/cli/search", test_search);
  ADD ("/cli/search-deleted-original", test_search_deleted_original);
  ADD ("/cli/search-damaged-cache", test_search_damaged_cache);
  ADD ("/cli/search-while-locked", test_search_while_locked);
  ADD ("/cli/show/earlier-turn-lost-its-end", test_show_earlier_turn_lost_end);
}
