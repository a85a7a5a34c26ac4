/* test-cli-control.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a server or a user can put in the text a command prints: control
 * characters reach the terminal only as visible stand-ins (README.md,
 * "Command line"), a title never holds one, and words of white space
 * only are no message.
 */

#include "test-cli.h"

#include "natter-session-schema.h"

/* An answer with ESC and BEL, as a server may send them. */
static const Step COLOURED = {
  CHUNK ("crimson \\u001b[31mX\\u0007 end") FINISH ("stop") DONE, FALSE
};

/* No raw ESC or BEL (nor any other C0 but newline and tab) in @text. */
static void
assert_no_control (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    if ((guchar) *p < 0x20 && *p != '\n' && *p != '\t')
      g_error ("raw control character 0x%02x in output: %s", (guchar) *p, text);
}

static void
test_answer_control_shown (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;

  script (f, &COLOURED, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "say", "red");
  g_assert_cmpint (r.status, ==, 0);
  assert_no_control (r.out);
  g_assert_nonnull (strstr (r.out, "crimson ␛[31mX␇ end"));
  parse_ids (r.out, &session_id, NULL);

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 0);
  assert_no_control (r.out);
  g_assert_nonnull (strstr (r.out, "assistant: crimson ␛[31mX␇ end\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "search", "crimson");
  g_assert_cmpint (r.status, ==, 0);
  assert_no_control (r.out);
  g_assert_nonnull (strstr (r.out, "␛[31mX␇"));

  /* JSON stays exact: its own escapes, the text as stored. */
  natter_test_run_clear (&r);
  RUN (f, &r, "show", "--json", session_id);
  g_assert_cmpint (r.status, ==, 0);
  assert_no_control (r.out);
  g_assert_nonnull (strstr (r.out, "crimson \\u001b[31mX\\u0007 end"));
}

static void
test_title_control_refused (Fixture       *f,
                            gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *title = NULL;

  script (f, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, NULL, NEW_SESSION (f), "hello");

  natter_test_run_clear (&r);
  RUN (f, &r, "title", session_id, "multi\nline\ttitle\x1b[31mX");
  /* Understood and refused, as a folder name with one is: a failure,
   * not a command line that could not be understood. */
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.err, ==, "natter: A title cannot hold line breaks, tabs or other control characters\n");

  /* A line or paragraph separator (U+2028, U+2029) breaks the line as a
   * newline does. */
  for (guint i = 0; i < 2; i++)
    {
      natter_test_run_clear (&r);
      RUN (f, &r, "title", session_id, i == 0 ? "two\xe2\x80\xa8lines" : "two\xe2\x80\xa9paragraphs");
      g_assert_cmpint (r.status, ==, 1);
      g_assert_cmpstr (r.err, ==, "natter: A title cannot hold line breaks, tabs or other control characters\n");
    }
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "hello");
}

/* A title stored with control characters before Natter refused them
 * (files are never rewritten) still lists on one line of four columns. */
static void
test_stored_title_one_line (Fixture       *f,
                            gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *line = NULL;
  g_autofree char *appended = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(JsonNode) last = NULL;
  g_autoptr(JsonNode) event = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) columns = NULL;
  const char *listed = NULL;
  guint n;

  script (f, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, NULL, NEW_SESSION (f), "hello");

  /* A title_changed at the time of the file's last event, as an older
   * Natter could write it. */
  contents = session_file_contents (f, session_id);
  lines = g_strsplit (contents, "\n", -1);
  n = g_strv_length (lines);
  g_assert_cmpuint (n, >=, 2);
  last = natter_test_json (lines[n - 2]);
  event = natter_session_event_new_title_changed (session_id,
                                                  json_object_get_string_member (json_node_get_object (last), "ts"),
                                                  "multi\nline\ttitle\x1b[31mX\xe2\x80\xa8Y");
  line = natter_json_to_text (event, FALSE, NULL);
  appended = g_strconcat (contents, line, "\n", NULL);
  relative = g_strdup_printf ("storage/sessions/%.4s/%.2s/%.2s/%s.jsonl", session_id,
                              session_id + 5, session_id + 8, session_id);
  file = g_file_resolve_relative_path (f->dir, relative);
  g_assert_true (g_file_set_contents (g_file_peek_path (file), appended, -1, NULL));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  assert_no_control (r.out);
  g_assert_cmpuint (count_lines (r.out), ==, 1);
  columns = g_strsplit (r.out, "\t", -1);
  g_assert_cmpuint (g_strv_length (columns), ==, 4);
  listed = columns[3];
  g_assert_cmpstr (listed, ==, "multi␤line␉title␛[31mX\\u2028Y\n");

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\ntitle multi␤line␉title␛[31mX\\u2028Y\n"));
}

/* A right-to-left override in a title would turn the rest of its line
 * around ("photo" RLO "gnp.exe" reads "photoexe.png"), and in the
 * listing the columns after it: a title, the listing's and the header of
 * `show`, shows it as an escape. The message keeps it, as right-to-left
 * writing may need it; `--json` is exact. */
static void
test_title_bidi_visible (Fixture       *f,
                         gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_auto(GStrv) columns = NULL;

  script (f, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1",
       "open photo\u202Egnp.exe");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, NULL);

  natter_test_run_clear (&r);
  RUN (f, &r, "title", session_id, "photo\u202Egnp.exe \u2067x\u2069 \u200Fmark");
  g_assert_cmpint (r.status, ==, 0);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  columns = g_strsplit (r.out, "\t", -1);
  g_assert_cmpuint (g_strv_length (columns), ==, 4);
  g_assert_cmpstr (columns[3], ==, "photo\\u202Egnp.exe \\u2067x\\u2069 \u200Fmark\n");

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\ntitle photo\\u202Egnp.exe \\u2067x\\u2069 \u200Fmark\n"));
  g_assert_nonnull (strstr (r.out, "user: open photo\u202Egnp.exe\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions", "--json");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "photo\u202Egnp.exe \u2067x\u2069 \u200Fmark"));
}

/* The model's title loses its control characters before it is stored. */
static const Step TITLE_CONTROL = {
  CHUNK ("Red\\u001b[31m\\tAlert\\u0007") FINISH ("stop") DONE, FALSE
};

static void
test_auto_title_cleaned (Fixture       *f,
                         gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *title = NULL;

  script (f, &ANSWER, &TITLE_CONTROL, NULL);
  RUN_IDS (f, &r, &session_id, NULL, "send", "--base-url", f->server->base_url, "--model", "m1", "hello");
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "Red [31m Alert");
}

/* Words of white space only are no message, as in the window; nor are
 * invisible characters (zero width space, joiners, word joiner, byte
 * order mark) or letters drawn as nothing (Hangul fillers, the Braille
 * blank), which show as nothing. */
static void
test_blank_send_refused (Fixture       *f,
                         gconstpointer  data)
{
  g_auto(NatterTestRun) r;

  script (f, &ANSWER, NULL);
  RUN (f, &r, "send", "--base-url", f->server->base_url, "--model", "m1", "   ", "\t");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "natter: The text is empty\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 0);

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--base-url", f->server->base_url, "--model", "m1",
       "\u200B\u200C", "\u200D\u2060\uFEFF\u00A0");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "natter: The text is empty\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 0);

  /* Letters drawn as nothing: Hangul fillers, the Braille blank, a
   * variation selector. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--base-url", f->server->base_url, "--model", "m1",
       "\u3164\u115F\u1160", "\uFFA0\u2800\uFE0F\u034F");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "natter: The text is empty\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 0);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
}

/* A stream of only `data: [DONE]` is no answer: the turn fails in plain
 * words, and nothing is titled after it. */
static const Step NOTHING = { DONE, FALSE };

static void
test_empty_answer_fails (Fixture       *f,
                         gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *status = NULL;
  g_autofree char *title = NULL;

  script (f, &NOTHING, &TITLE, NULL);
  RUN (f, &r, "send", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "The model sent an empty answer"));
  parse_ids (r.out, &session_id, NULL);
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  status = session_status (f, session_id);
  g_assert_cmpstr (status, ==, "failed 1");
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "hello");
}

/* A stream that ends before its answer does: the turn fails, and the
 * words that had arrived, which the window shows marked, are shown by
 * `show` too, marked as cut off, and given in `--json` beside a null
 * answer. */
static const Step CUT_OFF = { CHUNK ("Half an ") CHUNK ("answer"), FALSE };

static void
test_cut_off_answer_shown (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autoptr(JsonNode) json = NULL;
  JsonObject *turn;

  script (f, &CUT_OFF, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 1);
  session_id = natter_test_session_of (r.out);

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\nassistant (cut off mid-answer): Half an answer\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", "--json", session_id);
  g_assert_cmpint (r.status, ==, 0);
  json = natter_test_json (r.out);
  turn = json_array_get_object_element (json_object_get_array_member (json_node_get_object (json), "turns"), 0);
  g_assert_true (json_object_get_null_member (turn, "answer"));
  g_assert_cmpstr (json_object_get_string_member (turn, "partialAnswer"), ==, "Half an answer");
  g_assert_cmpstr (json_object_get_string_member (turn, "partialEnd"), ==, "cut-off");
}

void
cli_add_control_tests (void)
{
  ADD ("/cli/control/answer-shown", test_answer_control_shown);
  ADD ("/cli/control/title-refused", test_title_control_refused);
  ADD ("/cli/control/stored-title-one-line", test_stored_title_one_line);
  ADD ("/cli/control/title-bidi-visible", test_title_bidi_visible);
  ADD ("/cli/control/auto-title-cleaned", test_auto_title_cleaned);
  ADD ("/cli/cut-off-answer-shown", test_cut_off_answer_shown);
  ADD ("/cli/control/blank-send-refused", test_blank_send_refused);
  ADD ("/cli/control/empty-answer-fails", test_empty_answer_fails);
}
