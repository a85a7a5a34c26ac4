/* test-provider-e2e-failures.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A provider that fails: an HTTP error, a stream cut mid-answer, a
 * cancel mid-stream, nothing listening. Each ends the turn with the
 * error in plain words and keeps what had arrived.
 */

#include "natter-provider-error.h"
#include "test-provider-e2e.h"

/* (4) */
static void
test_http_error (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  const char *expected = "E2E Model returned HTTP 500 Internal Server Error: boom";
  Run run = { 0 };

  SERVE (f, { .status = 500, .content_type = "application/json", .body = "{\"error\":{\"message\":\"boom\"}}" });
  turn_id = create_turn (f);
  advance (f, turn_id, NULL, &run);

  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_cmpstr (run.outcome->error, ==, expected);
  assert_types (f, turn_id, "model_call_requested model_call_failed turn_failed");
  events = read_events (f, turn_id);
  g_assert_cmpstr (json_object_get_string_member (find_event (events, "model_call_failed"), "error"), ==, expected);
  g_assert_cmpstr (json_object_get_string_member (find_event (events, "turn_failed"), "error"), ==, expected);
  run_clear (&run);
}

/* (5) */
static void
test_mid_stream_disconnect (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *turn_id = NULL;
  g_autofree char *prefix = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *failed;
  const char *error;
  Run run = { 0 };

  SERVE (f, { .disconnect = TRUE, .chunks = NATTER_TEST_CHUNKS (CHUNK ("Hello"), CHUNK (" wor")) });
  turn_id = create_turn (f);
  advance (f, turn_id, NULL, &run);

  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  prefix = g_strdup_printf ("The connection to E2E Model at %.*s was lost mid-answer",
                            (int) (strlen (f->server->base_url) - strlen ("/v1")), f->server->base_url);
  g_assert_true (g_str_has_prefix (run.outcome->error, prefix));
  g_assert_true (g_str_has_suffix (run.outcome->error, "(9 characters of the answer had arrived; they are kept)"));

  /* The partial answer is kept in the file, on the failure that settles
   * the call: an event every reader of the format knows. */
  assert_types (f, turn_id, "model_call_requested model_call_failed turn_failed");
  events = read_events (f, turn_id);
  failed = find_event (events, "model_call_failed");
  natter_test_assert_json_equal (json_object_get_member (failed, "partial"),
                                 "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Hello wor\"}]}");
  error = json_object_get_string_member (failed, "error");
  g_assert_cmpstr (error, ==, run.outcome->error);
  g_assert_cmpuint (run.deltas->len, ==, 2);
  run_clear (&run);
}

/* (6) */
static void
test_cancel_mid_stream (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *turn_id = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GPtrArray) events = NULL;
  Run run = { 0 };

  /* Three deltas in one read, and the server then goes silent: the
   * cancel in the first delta's handler must stop the other two. */
  SERVE (f, { .status = 200, .content_type = SSE, .keep_open = TRUE,
              .chunks = NATTER_TEST_CHUNKS (CHUNK ("one") CHUNK ("two") CHUNK ("three")) });
  turn_id = create_turn (f);
  advance_full (f, turn_id, NULL, cancellable, &run);

  g_assert_no_error (run.error);
  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  g_assert_cmpuint (run.deltas->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 0), ==, "0:text:one");
  g_assert_cmpuint (run.late_deltas, ==, 0);
  assert_types (f, turn_id, "model_call_requested model_call_failed turn_cancelled");
  events = read_events (f, turn_id);
  g_assert_cmpstr (json_object_get_string_member (find_event (events, "model_call_failed"), "error"),
                   ==, "cancelled");
  /* What was shown before the stop is kept with it, and nothing later. */
  natter_test_assert_json_equal (json_object_get_member (find_event (events, "model_call_failed"), "partial"),
                                 "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"one\"}]}");
  run_clear (&run);
}

/* (7) */
static void
test_connection_refused (Fixture       *f,
                         gconstpointer  data)
{
  guint16 port = natter_test_closed_port ();
  g_autofree char *base_url = g_strdup_printf ("http://127.0.0.1:%u/v1", port);
  g_autofree char *expected = g_strdup_printf ("Could not reach E2E Model at http://127.0.0.1:%u — is it running?",
                                               port);
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  Run run = { 0 };

  natter_provider_registry_add_provider (f->registry, "e2e", "E2E Model", base_url);
  turn_id = create_turn (f);
  advance (f, turn_id, NULL, &run);

  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_cmpstr (run.outcome->error, ==, expected);
  assert_types (f, turn_id, "model_call_requested model_call_failed turn_failed");
  events = read_events (f, turn_id);
  g_assert_cmpstr (json_object_get_string_member (find_event (events, "model_call_failed"), "error"), ==, expected);
  run_clear (&run);
}

/* A reply that cannot be read (@garbled, after a good chunk): the turn
 * fails with the provider named in the words the window recognises as
 * an unreadable reply (natter_error_is_unreadable_reply()), which it
 * says in plain words. */
static void
assert_garbled_chunk_fails (Fixture    *f,
                            const char *garbled)
{
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  const char *error;
  Run run = { 0 };

  SERVE (f, { .status = 200, .content_type = SSE, .chunks = NATTER_TEST_CHUNKS (CHUNK ("Hello"), garbled) });
  turn_id = create_turn (f);
  advance (f, turn_id, NULL, &run);

  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_true (g_str_has_prefix (run.outcome->error, "E2E Model sent a chunk that is not "));
  events = read_events (f, turn_id);
  error = json_object_get_string_member (find_event (events, "turn_failed"), "error");
  g_assert_cmpstr (error, ==, run.outcome->error);
  g_assert_true (natter_error_is_unreadable_reply (error));
  g_assert_false (natter_error_is_unreadable_reply ("E2E Model returned HTTP 500 Internal Server Error: boom"));
  run_clear (&run);
}

/* A chunk cut off inside its JSON. */
static void
test_garbled_chunk_cut (Fixture       *f,
                        gconstpointer  data)
{
  assert_garbled_chunk_fails (f, "data: {\"id\":\"c1\",\"choices\":[{\"delta\":{\"content\":\"bro\n\n");
}

/* A chunk that is JSON, but no object. */
static void
test_garbled_chunk_array (Fixture       *f,
                          gconstpointer  data)
{
  assert_garbled_chunk_fails (f, "data: [1,2,3]\n\n");
}

void
provider_e2e_add_failures_tests (void)
{
  ADD ("http-error", test_http_error);
  ADD ("mid-stream-disconnect", test_mid_stream_disconnect);
  ADD ("cancel-mid-stream", test_cancel_mid_stream);
  ADD ("connection-refused", test_connection_refused);
  ADD ("garbled-chunk/cut", test_garbled_chunk_cut);
  ADD ("garbled-chunk/array", test_garbled_chunk_array);
}
