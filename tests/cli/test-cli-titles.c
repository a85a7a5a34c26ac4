/* test-cli-titles.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Automatic titles after each way a turn can end, and compaction:
 * asked for, automatic when the context fills, and the hint after an
 * overflow.
 */

#include "test-cli.h"

/* A new session is named by its model after the first answer, before
 * `send` exits (the auto-title setting is on by default); with
 * --no-auto-title nothing is asked and the first message stays the title. */
static void
test_send_auto_title (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *plain_id = NULL;
  g_autofree char *expected = NULL;

  script (f, &ANSWER, &TITLE, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, NULL, "send", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "Write a title for the conversation below"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "\"max_tokens\":64"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "\"model\":\"m1\""));

  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &plain_id, NULL, NEW_SESSION (f), "hello", "again");
  g_assert_cmpuint (f->server->bodies->len, ==, 3);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  expected = g_strdup_printf ("%s\t", session_id);
  g_assert_nonnull (strstr (r.out, "\tGreeting the World\n"));
  g_assert_nonnull (strstr (r.out, "\thello again\n"));
  g_assert_nonnull (strstr (r.out, expected));
}

/* The title belongs to the conversation: its first answer arrives
 * through `allow`, in another process than the `send` that started it,
 * and that process asks the model for the title (once) before it
 * exits. */
static void
test_auto_title_after_allow (Fixture       *f,
                             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *title = NULL;

  script (f, &f->server->read_step, &ANSWER, &TITLE, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, "send", "--base-url", f->server->base_url, "--model", "m1", "read", "my", "notes");
  g_assert_cmpuint (f->server->bodies->len, ==, 1);

  natter_test_run_clear (&r);
  RUN (f, &r, "allow", turn_id, "call_1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "Write a title for the conversation below"));
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "Greeting the World");
}

/* The same when the first answer comes with the answer to the model's
 * question. */
static void
test_auto_title_after_answer (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *title = NULL;

  script (f, &ASK_COLOUR, &ANSWER, &TITLE, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, "send", "--base-url", f->server->base_url, "--model", "m1", "paint", "it");

  natter_test_run_clear (&r);
  RUN (f, &r, "answer", turn_id, "call_1", "deep", "blue");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "Greeting the World");
}

/* The process that sent the first message was killed mid-answer; the
 * `resume` that finishes the answer names the conversation. */
static void
test_auto_title_after_resume (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *title = NULL;

  script (f, &HANG, &ANSWER, &TITLE, NULL);
  session_id = send_killed_mid_answer (f, NULL);

  natter_test_run_clear (&r);
  RUN (f, &r, "resume", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "Greeting the World");
}

/* The server was not running yet: the first message fails, `retry`
 * fails again, and the third try is answered. The version that
 * answered still has the title its first message derived, so it is
 * named (one title request), and `sessions` lists the conversation
 * under the model's title. A conversation renamed before its `retry`
 * keeps the user's title, and one renamed on an older version is listed
 * under it. */
static void
test_auto_title_after_retries (Fixture       *f,
                               gconstpointer  data)
{
  static const Step DOWN = { "data: {\"error\":{\"message\":\"Bad gateway\"}}\n\n", FALSE };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *failed1 = NULL;
  g_autofree char *failed2 = NULL;
  g_autofree char *version1 = NULL;
  g_autofree char *version2 = NULL;
  g_autofree char *renamed_id = NULL;
  g_autofree char *renamed_failed = NULL;
  g_autofree char *renamed_version = NULL;
  g_autofree char *title = NULL;

  script (f, &DOWN, &DOWN, &ANSWER, &TITLE, &DOWN, &ANSWER, NULL);
  RUN (f, &r, "send", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 1);
  parse_ids (r.out, &session_id, &failed1);
  natter_test_run_clear (&r);
  RUN (f, &r, "retry", failed1);
  g_assert_cmpint (r.status, ==, 1);
  parse_ids (r.out, &version1, &failed2);
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &version2, NULL, "retry", failed2);
  g_assert_cmpuint (f->server->bodies->len, ==, 4);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 3), "Write a title for the conversation below"));
  title = listed_title (f, version2);
  g_assert_cmpstr (title, ==, "Greeting the World");

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--base-url", f->server->base_url, "--model", "m1", "hi there");
  g_assert_cmpint (r.status, ==, 1);
  parse_ids (r.out, &renamed_id, &renamed_failed);
  natter_test_run_clear (&r);
  RUN (f, &r, "title", renamed_id, "Mine");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN_IDS (f, &r, &renamed_version, NULL, "retry", renamed_failed);
  g_assert_cmpuint (f->server->bodies->len, ==, 6);
  g_clear_pointer (&title, g_free);
  title = listed_title (f, renamed_version);
  g_assert_cmpstr (title, ==, "Mine");

  /* Renamed on its first, failed version, the conversation is listed
   * under the new title: every version took it. */
  natter_test_run_clear (&r);
  RUN (f, &r, "title", session_id, "Both");
  g_assert_cmpint (r.status, ==, 0);
  g_clear_pointer (&title, g_free);
  title = listed_title (f, version2);
  g_assert_cmpstr (title, ==, "Both");
}

/* `send --no-auto-title` keeps the first line as the conversation's
 * title for good: the `allow` that brings the first answer asks for
 * nothing. */
static void
test_no_auto_title_after_allow (Fixture       *f,
                                gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *title = NULL;

  script (f, &f->server->read_step, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, &turn_id, NEW_SESSION (f), "read", "my", "notes");
  natter_test_run_clear (&r);
  RUN (f, &r, "allow", turn_id, "call_1");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "read my notes");
}

/* `natter compact SESSION [--keep N]` summarizes the earlier turns and
 * prints `compacted <id>`; the next send carries the summary. */
static void
test_compact (Fixture       *f,
              gconstpointer  data)
{
  static const Step SUMMARY = { CHUNK ("They said hello twice.") FINISH ("stop") DONE, FALSE };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;

  script (f, &ANSWER, &ANSWER, &SUMMARY, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, NULL, NEW_SESSION (f), "hello");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "hello", "again");
  g_assert_cmpint (r.status, ==, 0);

  natter_test_run_clear (&r);
  RUN (f, &r, "compact", session_id, "--keep", "0");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "natter: --keep must be at least 1\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "compact", session_id, "--keep", "1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "compacted "));
  g_assert_true (natter_id_validate (g_strstrip (r.out + strlen ("compacted ")), NULL));
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "Summarize the conversation below"));

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "third");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 3), "They said hello twice."));
}

/* `send` follows the auto-compact setting (on by default): the last
 * prompt took 900 of the 1,000 tokens the server reports for m1, so the
 * earlier turns are summarized first, said on stderr, and the message
 * goes out with the summary; stdout stays the ids. */
static void
test_send_auto_compact (Fixture       *f,
                        gconstpointer  data)
{
#define USAGE(prompt) "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":" #prompt ",\"completion_tokens\":2}}\n\n"
  static const Step SMALL = { CHUNK ("Hello") FINISH ("stop") USAGE (10) DONE, FALSE };
  static const Step LARGE = { CHUNK ("Hello") FINISH ("stop") USAGE (900) DONE, FALSE };
  static const Step SUMMARY = { CHUNK ("They said hello thrice.") FINISH ("stop") DONE, FALSE };
#undef USAGE
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;

  f->server->models = "{\"object\":\"list\",\"data\":[{\"id\":\"m1\",\"max_model_len\":1000}]}";
  script (f, &SMALL, &SMALL, &LARGE, &SUMMARY, &ANSWER, NULL);
  RUN_IDS (f, &r, &session_id, NULL, NEW_SESSION (f), "hello");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "hello", "again");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "hello", "thrice");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpuint (f->server->bodies->len, ==, 3);

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "fourth");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.err, "Compacted the conversation before sending ("));
  g_assert_true (g_str_has_prefix (r.out, "session "));
  /* Each process asks once: the window is kept in memory only. */
  g_assert_cmpuint (f->server->n_models, ==, 3);
  g_assert_cmpuint (f->server->bodies->len, ==, 5);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 3), "Summarize the conversation below"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 4), "They said hello thrice."));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 4), "fourth"));
}

/* A turn that fails because the conversation no longer fits the model's
 * context window says that `natter compact SESSION` helps. */
static void
test_overflow_hint (Fixture       *f,
                    gconstpointer  data)
{
  static const Step OVERFLOW = {
    "data: {\"error\":{\"message\":\"This model's maximum context length is 8192 tokens.\","
    "\"code\":\"context_length_exceeded\"}}\n\n", FALSE
  };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *hint = NULL;

  script (f, &OVERFLOW, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 1);
  parse_ids (r.out, &session_id, &turn_id);
  g_assert_true (g_str_has_prefix (r.err, "natter: The turn failed: "));
  g_assert_nonnull (strstr (r.err, "maximum context length"));
  hint = g_strdup_printf ("“natter retry --compact %s” summarizes its earlier turns and sends the message again)\n",
                          turn_id);
  g_assert_true (g_str_has_suffix (r.err, hint));
  /* One line. */
  g_assert_cmpint (strchr (r.err, '\n') - r.err, ==, (int) strlen (r.err) - 1);
}

void
cli_add_titles_tests (void)
{
  ADD ("/cli/send/auto-title", test_send_auto_title);
  ADD ("/cli/auto-title/after-allow", test_auto_title_after_allow);
  ADD ("/cli/auto-title/after-answer", test_auto_title_after_answer);
  ADD ("/cli/auto-title/after-resume", test_auto_title_after_resume);
  ADD ("/cli/auto-title/after-retries", test_auto_title_after_retries);
  ADD ("/cli/auto-title/not-after-no-auto-title", test_no_auto_title_after_allow);
  ADD ("/cli/compact", test_compact);
  ADD ("/cli/send-auto-compact", test_send_auto_compact);
  ADD ("/cli/overflow-hint", test_overflow_hint);
}
