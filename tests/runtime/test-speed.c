/* test-speed.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The speed of model calls (docs/format.md §4.2): the runtime records when
 * each call's first text arrived (`firstTokenTs`, on the event that
 * closes it), and the time to first token and the tokens per second are
 * read from that, the request's `ts`, the end's `ts` and the usage —
 * under a fake clock, so the figures are exact. A call that streamed no
 * text has none; a malformed `firstTokenTs` makes the file unreadable.
 */

#include <string.h>

#include "natter-turn-reducer.h"
#include "natter-turn-schema.h"
#include "natter-store-error.h"
#include "natter-test-sessions.h"
#include "natter-test-support.h"

typedef NatterTestSessions Fixture;


static NatterTurnState *
reduce_turn (Fixture    *f,
             const char *turn_id)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->w->turn_repo, turn_id);
  g_autoptr(GError) error = NULL;
  NatterTurnState *state = natter_turn_reduce (events, &error);

  g_assert_no_error (error);
  return state;
}

/* Sends a message whose answer of @output_tokens comes in two parts:
 * the first @first_us after the request, the second @between_us later,
 * the call's end @after_us after that. Returns the settled turn's id. */
static char *
answer_in_two_parts (Fixture    *f,
                     const char *sid,
                     gint64      output_tokens,
                     gint64      first_us,
                     gint64      between_us,
                     gint64      after_us)
{
  g_autofree char *usage = g_strdup_printf ("{\"inputTokens\":10,\"outputTokens\":%" G_GINT64_FORMAT
                                            ",\"totalTokens\":%" G_GINT64_FORMAT "}",
                                            output_tokens, output_tokens + 10);
  g_autoptr(GError) error = NULL;
  char *turn_id;

  natter_fake_model_set_usage (f->w->fakes->model, usage);
  natter_test_sessions_script (f, NATTER_FAKE_STEP_HOLD, NULL);
  turn_id = natter_test_sessions_send (f, sid, "count", &error);
  g_assert_no_error (error);
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  natter_fake_clock_advance (f->w->clock, first_us);
  natter_fake_model_stream_text (f->w->fakes->model, "One, ");
  natter_fake_clock_advance (f->w->clock, between_us);
  natter_fake_model_stream_text (f->w->fakes->model, "two, ");
  natter_fake_clock_advance (f->w->clock, after_us);
  natter_fake_model_release (f->w->fakes->model);
  natter_test_sessions_wait_status (f, sid, "completed");
  return turn_id;
}

static void
test_first_token_and_speed (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GDateTime) requested = NULL;
  g_autoptr(GDateTime) first = NULL;
  JsonObject *completed;
  gint64 first_ms;
  double speed;

  /* 400 ms until the first words, then 2 s for the rest. */
  turn_id = answer_in_two_parts (f, sid, 100, 400 * 1000, 1000 * 1000, 1000 * 1000);

  events = natter_test_sessions_read (f->w->turn_repo, turn_id);
  completed = natter_test_find_type (events, "model_call_completed");
  requested = g_date_time_new_from_iso8601 (json_object_get_string_member (
                natter_test_find_type (events, "model_call_requested"), "ts"), NULL);
  first = g_date_time_new_from_iso8601 (json_object_get_string_member (completed, "firstTokenTs"), NULL);
  g_assert_nonnull (first);
  g_assert_cmpint (g_date_time_difference (first, requested), ==, 400 * 1000);

  state = reduce_turn (f, turn_id);
  g_assert_cmpint (natter_turn_model_call_get_time_to_first_token_ms (natter_turn_state_get_model_call (state, 0)),
                   ==, 400);
  g_assert_cmpfloat (natter_turn_model_call_get_tokens_per_second (natter_turn_state_get_model_call (state, 0)),
                     ==, 50.0);
  g_assert_true (natter_turn_state_get_speed (state, &first_ms, &speed));
  g_assert_cmpint (first_ms, ==, 400);
  g_assert_cmpfloat (speed, ==, 50.0);
}

/* An answer whose words all came within a few milliseconds (a proxy
 * that buffered the stream, a burst read after a busy main loop) has a
 * time to its first token but no speed: thousands of tokens a second
 * would be the timing's, not the model's. */
static void
test_burst_has_no_speed (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  gint64 first_ms;
  double speed;

  turn_id = answer_in_two_parts (f, sid, 57, 900 * 1000, 2 * 1000, 0);

  state = reduce_turn (f, turn_id);
  g_assert_cmpfloat (natter_turn_model_call_get_tokens_per_second (natter_turn_state_get_model_call (state, 0)),
                     ==, -1);
  g_assert_true (natter_turn_state_get_speed (state, &first_ms, &speed));
  g_assert_cmpint (first_ms, ==, 900);
  g_assert_cmpfloat (speed, ==, -1);
}

/* An answer that streamed nothing (tool calls only, or all at once, as
 * a held call released without deltas): no figures, never a made-up
 * one, as for a file from before the field. */
static void
test_no_first_token (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GPtrArray) events = NULL;
  gint64 first_ms;
  double speed;

  g_autoptr(GError) error = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_STEP_HOLD, NULL);
  turn_id = natter_test_sessions_send (f, sid, "hello", &error);
  g_assert_no_error (error);
  natter_fake_model_wait_held (f->w->fakes->model, 1, NATTER_TEST_TIMEOUT_MS);
  natter_fake_clock_advance (f->w->clock, 300 * 1000);
  natter_fake_model_release (f->w->fakes->model);
  natter_test_sessions_wait_status (f, sid, "completed");
  events = natter_test_sessions_read (f->w->turn_repo, turn_id);
  g_assert_false (json_object_has_member (natter_test_find_type (events, "model_call_completed"), "firstTokenTs"));
  state = reduce_turn (f, turn_id);
  g_assert_false (natter_turn_state_get_speed (state, &first_ms, &speed));
  g_assert_cmpint (first_ms, ==, -1);
  g_assert_cmpfloat (speed, ==, -1);
}

static void
test_malformed_first_token_ts (void)
{
  g_autoptr(JsonNode) event = natter_test_json (
    "{\"type\":\"model_call_completed\",\"turnId\":\"2026-11-30T09-14-03Z-0000002-000\","
    "\"ts\":\"2026-11-30T09:14:03.100Z\",\"modelCallIndex\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finishReason\":\"stop\","
    "\"usage\":{},\"firstTokenTs\":\"yesterday\"}");
  g_autoptr(GError) error = NULL;

  g_assert_false (natter_turn_event_validate (json_node_get_object (event), NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
  g_assert_nonnull (strstr (error->message, "firstTokenTs"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/speed/first-token-and-speed", Fixture, NULL, natter_test_sessions_set_up,
              test_first_token_and_speed, natter_test_sessions_tear_down);
  g_test_add ("/speed/no-first-token", Fixture, NULL, natter_test_sessions_set_up,
              test_no_first_token, natter_test_sessions_tear_down);
  g_test_add ("/speed/burst-has-no-speed", Fixture, NULL, natter_test_sessions_set_up,
              test_burst_has_no_speed, natter_test_sessions_tear_down);
  g_test_add_func ("/speed/malformed-first-token-ts", test_malformed_first_token_ts);
  return g_test_run ();
}
