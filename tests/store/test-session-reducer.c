/* test-session-reducer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pure session reducer and its rules (docs/format.md §3.2): valid
 * logs, every invariant broken, and how the title folds.
 */

#include <string.h>

#include "natter-session-reducer.h"
#include "natter-session-schema.h"
#include "natter-store-error.h"
#include "natter-test-support.h"

#define SID   "2026-11-30T09-14-03Z-0000001-000"
#define OTHER "2026-11-30T09-14-03Z-0000002-000"

/* Turn n's id and timestamp; distinct and valid for every n < 10^7. */
static char *
turn_id (guint n)
{
  return g_strdup_printf ("2026-11-30T09-15-00Z-%07u-000", n);
}

static char *
ts_at (guint second)
{
  return g_strdup_printf ("2026-11-30T%02u:%02u:%02u.000Z",
                          10 + second / 3600, (second / 60) % 60, second % 60);
}

static char *
created_json (const char *session_id,
              guint       second,
              const char *extra)
{
  g_autofree char *ts = ts_at (second);

  return g_strdup_printf ("{\"type\":\"session_created\",\"sessionId\":\"%s\",\"ts\":\"%s\","
                          "\"schemaVersion\":1%s}", session_id, ts, extra != NULL ? extra : "");
}

static char *
turn_json (const char *session_id,
           guint       second,
           guint       turn,
           gint64      seq)
{
  g_autofree char *ts = ts_at (second);
  g_autofree char *id = turn_id (turn);

  return g_strdup_printf ("{\"type\":\"turn_appended\",\"sessionId\":\"%s\",\"ts\":\"%s\","
                          "\"turnId\":\"%s\",\"sessionSeq\":%" G_GINT64_FORMAT ","
                          "\"agentId\":\"agent-%u\",\"model\":{\"provider\":\"ollama\","
                          "\"model\":\"model-%u\"}}", session_id, ts, id, seq, turn, turn);
}

static char *
title_json (const char *session_id,
            guint       second,
            const char *title)
{
  g_autofree char *ts = ts_at (second);

  return g_strdup_printf ("{\"type\":\"title_changed\",\"sessionId\":\"%s\",\"ts\":\"%s\","
                          "\"title\":\"%s\"}", session_id, ts, title);
}

static GPtrArray *
events_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
}

/* Takes ownership of json. */
static void
add (GPtrArray *events,
     char      *json)
{
  g_ptr_array_add (events, natter_test_json (json));
  g_free (json);
}

static NatterSessionState *
reduce_ok (GPtrArray *events)
{
  g_autoptr(GError) error = NULL;
  NatterSessionState *state = natter_session_reduce (events, &error);

  g_assert_no_error (error);
  g_assert_nonnull (state);
  return state;
}

static void
assert_reduce_fails (GPtrArray *events,
                     int        code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionState) state = natter_session_reduce (events, &error);

  g_assert_error (error, NATTER_STORE_ERROR, code);
  g_assert_null (state);
}

static void
test_valid_sequence (void)
{
  g_autoptr(GPtrArray) events = events_new ();
  g_autoptr(NatterSessionState) state = NULL;
  g_autofree char *t1 = turn_id (1);
  g_autofree char *t2 = turn_id (2);
  g_autofree char *t9 = turn_id (9);
  g_autofree char *extra = g_strdup_printf (",\"title\":\"Plans\",\"cwd\":\"/home/ada\","
                                            "\"parentSession\":\"%s\",\"forkedFromTurnId\":\"%s\"",
                                            OTHER, t9);
  const NatterSessionTurn *turn;
  JsonObject *definition;

  add (events, created_json (SID, 0, extra));
  add (events, turn_json (SID, 1, 1, 1));
  add (events, title_json (SID, 2, "Trip to Lisbon"));
  add (events, turn_json (SID, 3, 2, 2));
  state = reduce_ok (events);

  g_assert_cmpstr (natter_session_state_get_session_id (state), ==, SID);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Trip to Lisbon");
  g_assert_cmpstr (natter_session_state_get_cwd (state), ==, "/home/ada");
  g_assert_cmpstr (natter_session_state_get_parent_session (state), ==, OTHER);
  g_assert_cmpstr (natter_session_state_get_forked_from_turn_id (state), ==, t9);
  g_assert_cmpstr (natter_session_state_get_created_at (state), ==, "2026-11-30T10:00:00.000Z");
  g_assert_cmpstr (natter_session_state_get_updated_at (state), ==, "2026-11-30T10:00:03.000Z");
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 2);
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==, t2);
  g_assert_cmpint (natter_session_state_get_next_session_seq (state), ==, 3);

  definition = natter_session_state_get_definition (state);
  g_assert_nonnull (definition);
  g_assert_true (json_node_equal (json_object_get_member (definition, "type"),
                                  json_object_get_member (json_node_get_object (events->pdata[0]), "type")));
  g_assert_cmpint (json_object_get_size (definition), ==, 8);
  g_assert_cmpint (json_object_get_int_member (definition, "schemaVersion"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (definition, "title"), ==, "Plans");

  turn = natter_session_state_get_turn (state, 0);
  g_assert_cmpstr (turn->turn_id, ==, t1);
  g_assert_cmpint (turn->session_seq, ==, 1);
  g_assert_cmpstr (turn->agent_id, ==, "agent-1");
  g_assert_cmpstr (json_object_get_string_member (turn->model, "provider"), ==, "ollama");
  g_assert_cmpstr (json_object_get_string_member (turn->model, "model"), ==, "model-1");
  g_assert_cmpint (json_object_get_size (turn->model), ==, 2);
  g_assert_cmpstr (turn->ts, ==, "2026-11-30T10:00:01.000Z");

  turn = natter_session_state_get_turn (state, 1);
  g_assert_cmpstr (turn->turn_id, ==, t2);
  g_assert_cmpint (turn->session_seq, ==, 2);
  g_assert_cmpstr (turn->agent_id, ==, "agent-2");
  g_assert_cmpstr (json_object_get_string_member (turn->model, "model"), ==, "model-2");
  g_assert_cmpstr (turn->ts, ==, "2026-11-30T10:00:03.000Z");

  g_assert_true (natter_session_state_find_turn (state, t1) == natter_session_state_get_turn (state, 0));
  g_assert_true (natter_session_state_find_turn (state, t2) == natter_session_state_get_turn (state, 1));
  g_assert_null (natter_session_state_find_turn (state, t9));
}

static void
test_valid_sequence_without_turns (void)
{
  g_autoptr(GPtrArray) events = events_new ();
  g_autoptr(NatterSessionState) state = NULL;

  add (events, created_json (SID, 5, NULL));
  state = reduce_ok (events);

  g_assert_cmpstr (natter_session_state_get_session_id (state), ==, SID);
  g_assert_null (natter_session_state_get_title (state));
  g_assert_false (natter_session_state_get_title_is_explicit (state));
  g_assert_null (natter_session_state_get_cwd (state));
  g_assert_null (natter_session_state_get_parent_session (state));
  g_assert_null (natter_session_state_get_forked_from_turn_id (state));
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 0);
  g_assert_null (natter_session_state_get_latest_turn_id (state));
  g_assert_cmpint (natter_session_state_get_next_session_seq (state), ==, 1);
  g_assert_cmpstr (natter_session_state_get_created_at (state), ==, "2026-11-30T10:00:05.000Z");
  g_assert_cmpstr (natter_session_state_get_updated_at (state), ==, "2026-11-30T10:00:05.000Z");
}

static void
test_missing_session_created (void)
{
  g_autoptr(GPtrArray) empty = events_new ();
  g_autoptr(GPtrArray) turn_first = events_new ();
  g_autoptr(GPtrArray) title_first = events_new ();

  assert_reduce_fails (empty, NATTER_STORE_ERROR_INVARIANT);

  add (turn_first, turn_json (SID, 1, 1, 1));
  add (turn_first, created_json (SID, 2, NULL));
  assert_reduce_fails (turn_first, NATTER_STORE_ERROR_INVARIANT);

  add (title_first, title_json (SID, 1, "Hello"));
  assert_reduce_fails (title_first, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_duplicate_session_created (void)
{
  g_autoptr(GPtrArray) events = events_new ();
  g_autoptr(GPtrArray) back_to_back = events_new ();

  add (events, created_json (SID, 0, NULL));
  add (events, turn_json (SID, 1, 1, 1));
  add (events, created_json (SID, 2, ",\"title\":\"again\""));
  assert_reduce_fails (events, NATTER_STORE_ERROR_INVARIANT);

  add (back_to_back, created_json (SID, 0, NULL));
  add (back_to_back, created_json (SID, 0, NULL));
  assert_reduce_fails (back_to_back, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_mismatched_session_id (void)
{
  g_autoptr(GPtrArray) turn = events_new ();
  g_autoptr(GPtrArray) title = events_new ();
  g_autoptr(GPtrArray) created = events_new ();

  add (turn, created_json (SID, 0, NULL));
  add (turn, turn_json (OTHER, 1, 1, 1));
  assert_reduce_fails (turn, NATTER_STORE_ERROR_INVARIANT);

  add (title, created_json (SID, 0, NULL));
  add (title, turn_json (SID, 1, 1, 1));
  add (title, title_json (OTHER, 2, "x"));
  assert_reduce_fails (title, NATTER_STORE_ERROR_INVARIANT);

  /* A second session's definition is foreign before it is a duplicate. */
  add (created, created_json (SID, 0, NULL));
  add (created, created_json (OTHER, 1, NULL));
  assert_reduce_fails (created, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_non_monotonic_session_seq (void)
{
  g_autoptr(GPtrArray) repeated = events_new ();
  g_autoptr(GPtrArray) backwards = events_new ();

  add (repeated, created_json (SID, 0, NULL));
  add (repeated, turn_json (SID, 1, 1, 1));
  add (repeated, turn_json (SID, 2, 2, 2));
  add (repeated, turn_json (SID, 3, 3, 2));
  assert_reduce_fails (repeated, NATTER_STORE_ERROR_INVARIANT);

  add (backwards, created_json (SID, 0, NULL));
  add (backwards, turn_json (SID, 1, 1, 1));
  add (backwards, turn_json (SID, 2, 2, 2));
  add (backwards, turn_json (SID, 3, 3, 1));
  assert_reduce_fails (backwards, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_gapped_session_seq (void)
{
  g_autoptr(GPtrArray) gap = events_new ();
  g_autoptr(GPtrArray) late_start = events_new ();

  add (gap, created_json (SID, 0, NULL));
  add (gap, turn_json (SID, 1, 1, 1));
  add (gap, turn_json (SID, 2, 2, 3));
  assert_reduce_fails (gap, NATTER_STORE_ERROR_INVARIANT);

  /* sessionSeq starts at 1, not at whatever the first turn says. */
  add (late_start, created_json (SID, 0, NULL));
  add (late_start, turn_json (SID, 1, 1, 2));
  assert_reduce_fails (late_start, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_duplicate_turn_ids (void)
{
  g_autoptr(GPtrArray) adjacent = events_new ();
  g_autoptr(GPtrArray) apart = events_new ();

  add (adjacent, created_json (SID, 0, NULL));
  add (adjacent, turn_json (SID, 1, 7, 1));
  add (adjacent, turn_json (SID, 2, 7, 2));
  assert_reduce_fails (adjacent, NATTER_STORE_ERROR_INVARIANT);

  add (apart, created_json (SID, 0, NULL));
  add (apart, turn_json (SID, 1, 7, 1));
  add (apart, turn_json (SID, 2, 8, 2));
  add (apart, title_json (SID, 3, "t"));
  add (apart, turn_json (SID, 4, 7, 3));
  assert_reduce_fails (apart, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_unknown_type (void)
{
  g_autoptr(GPtrArray) later = events_new ();
  g_autoptr(GPtrArray) first = events_new ();

  add (later, created_json (SID, 0, NULL));
  add (later, g_strdup ("{\"type\":\"conversation_steered\",\"sessionId\":\"" SID "\","
                        "\"ts\":\"2026-11-30T10:00:01.000Z\",\"queueId\":\"q\"}"));
  assert_reduce_fails (later, NATTER_STORE_ERROR_UNKNOWN_TYPE);

  add (first, g_strdup ("{\"type\":\"turn_created\",\"turnId\":\"" SID "\",\"ts\":\"2026-11-30T10:00:01.000Z\"}"));
  assert_reduce_fails (first, NATTER_STORE_ERROR_UNKNOWN_TYPE);
}

static void
test_unknown_version (void)
{
  g_autoptr(GPtrArray) events = events_new ();

  add (events, g_strdup ("{\"type\":\"session_created\",\"sessionId\":\"" SID "\","
                         "\"ts\":\"2026-11-30T10:00:00.000Z\",\"schemaVersion\":5}"));
  add (events, turn_json (SID, 1, 1, 1));
  assert_reduce_fails (events, NATTER_STORE_ERROR_UNSUPPORTED_VERSION);
}

static void
test_title_folding_default (void)
{
  g_autoptr(GPtrArray) titled = events_new ();
  g_autoptr(GPtrArray) untitled = events_new ();
  g_autoptr(NatterSessionState) titled_state = NULL;
  g_autoptr(NatterSessionState) untitled_state = NULL;

  add (titled, created_json (SID, 0, ",\"title\":\"Plans\""));
  add (titled, turn_json (SID, 1, 1, 1));
  titled_state = reduce_ok (titled);
  g_assert_cmpstr (natter_session_state_get_title (titled_state), ==, "Plans");
  g_assert_false (natter_session_state_get_title_is_explicit (titled_state));

  add (untitled, created_json (SID, 0, NULL));
  add (untitled, turn_json (SID, 1, 1, 1));
  untitled_state = reduce_ok (untitled);
  g_assert_null (natter_session_state_get_title (untitled_state));
  g_assert_false (natter_session_state_get_title_is_explicit (untitled_state));
}

static void
test_title_folding_explicit_changes (void)
{
  g_autoptr(GPtrArray) from_none = events_new ();
  g_autoptr(GPtrArray) over_default = events_new ();
  g_autoptr(NatterSessionState) from_none_state = NULL;
  g_autoptr(NatterSessionState) over_default_state = NULL;

  /* The docs/sessions.md §9.1 shape: first turn, then the title derived from
   * its message. */
  add (from_none, created_json (SID, 0, NULL));
  add (from_none, turn_json (SID, 1, 1, 1));
  add (from_none, title_json (SID, 2, "How do I boil an egg"));
  from_none_state = reduce_ok (from_none);
  g_assert_cmpstr (natter_session_state_get_title (from_none_state), ==, "How do I boil an egg");
  g_assert_true (natter_session_state_get_title_is_explicit (from_none_state));
  g_assert_cmpstr (natter_session_state_get_updated_at (from_none_state), ==, "2026-11-30T10:00:02.000Z");

  add (over_default, created_json (SID, 0, ",\"title\":\"Plans\""));
  add (over_default, title_json (SID, 1, "Renamed"));
  over_default_state = reduce_ok (over_default);
  g_assert_cmpstr (natter_session_state_get_title (over_default_state), ==, "Renamed");
  g_assert_true (natter_session_state_get_title_is_explicit (over_default_state));
  /* The definition keeps the creation title; only the folded title moves. */
  g_assert_cmpstr (json_object_get_string_member (natter_session_state_get_definition (over_default_state),
                                                  "title"), ==, "Plans");
}

/* Only the title written with the first turn, in a session created
 * without one, is the derived default an automatic title may replace. */
static void
test_title_is_default (void)
{
  g_autoptr(GPtrArray) derived = events_new ();
  g_autoptr(GPtrArray) before_turn = events_new ();
  g_autoptr(GPtrArray) created_titled = events_new ();
  g_autoptr(GPtrArray) later_turn = events_new ();
  g_autoptr(NatterSessionState) state = NULL;

  add (derived, created_json (SID, 0, NULL));
  state = reduce_ok (derived);
  g_assert_false (natter_session_state_get_title_is_default (state));
  g_clear_pointer (&state, natter_session_state_unref);

  add (derived, turn_json (SID, 1, 1, 1));
  add (derived, title_json (SID, 1, "How do I boil an egg"));
  state = reduce_ok (derived);
  g_assert_true (natter_session_state_get_title_is_default (state));
  g_clear_pointer (&state, natter_session_state_unref);

  /* A rename, or the automatic title itself: never default again. */
  add (derived, title_json (SID, 2, "Boiling eggs"));
  state = reduce_ok (derived);
  g_assert_false (natter_session_state_get_title_is_default (state));
  g_clear_pointer (&state, natter_session_state_unref);
  add (derived, turn_json (SID, 3, 2, 2));
  add (derived, title_json (SID, 3, "Again"));
  state = reduce_ok (derived);
  g_assert_false (natter_session_state_get_title_is_default (state));
  g_clear_pointer (&state, natter_session_state_unref);

  /* Named before the first message: the first turn brings no default. */
  add (before_turn, created_json (SID, 0, NULL));
  add (before_turn, title_json (SID, 1, "Mine"));
  add (before_turn, turn_json (SID, 2, 1, 1));
  state = reduce_ok (before_turn);
  g_assert_false (natter_session_state_get_title_is_default (state));
  g_clear_pointer (&state, natter_session_state_unref);

  /* A title given at creation is the user's. */
  add (created_titled, created_json (SID, 0, ",\"title\":\"Plans\""));
  add (created_titled, turn_json (SID, 1, 1, 1));
  add (created_titled, title_json (SID, 1, "Plans for Monday"));
  state = reduce_ok (created_titled);
  g_assert_false (natter_session_state_get_title_is_default (state));
  g_clear_pointer (&state, natter_session_state_unref);

  /* A title after a later turn is no default either. */
  add (later_turn, created_json (SID, 0, NULL));
  add (later_turn, turn_json (SID, 1, 1, 1));
  add (later_turn, turn_json (SID, 2, 2, 2));
  add (later_turn, title_json (SID, 2, "Late"));
  state = reduce_ok (later_turn);
  g_assert_false (natter_session_state_get_title_is_default (state));
}

static void
test_title_folding_last_wins (void)
{
  g_autoptr(GPtrArray) events = events_new ();
  g_autoptr(GPtrArray) emptied = events_new ();
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionState) emptied_state = NULL;

  add (events, created_json (SID, 0, ",\"title\":\"Zero\""));
  add (events, title_json (SID, 1, "One"));
  add (events, turn_json (SID, 2, 1, 1));
  add (events, title_json (SID, 3, "Two"));
  add (events, turn_json (SID, 4, 2, 2));
  add (events, title_json (SID, 5, "Three"));
  state = reduce_ok (events);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Three");
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 2);

  /* An empty title is still a title, and it wins too. */
  add (emptied, created_json (SID, 0, ",\"title\":\"Zero\""));
  add (emptied, title_json (SID, 1, "One"));
  add (emptied, title_json (SID, 2, ""));
  emptied_state = reduce_ok (emptied);
  g_assert_cmpstr (natter_session_state_get_title (emptied_state), ==, "");
}

typedef struct
{
  guint n_turns;
  char *title;
  char *updated_at;
  char *latest;
} Snapshot;

static void
snapshot_take (NatterSessionState *state,
               Snapshot           *out)
{
  out->n_turns = natter_session_state_get_n_turns (state);
  out->title = g_strdup (natter_session_state_get_title (state));
  out->updated_at = g_strdup (natter_session_state_get_updated_at (state));
  out->latest = g_strdup (natter_session_state_get_latest_turn_id (state));
}

static void
snapshot_clear (Snapshot *snapshot)
{
  g_clear_pointer (&snapshot->title, g_free);
  g_clear_pointer (&snapshot->updated_at, g_free);
  g_clear_pointer (&snapshot->latest, g_free);
}

static void
apply_fails_unchanged (NatterSessionState *state,
                       char               *json,
                       int                 code)
{
  g_autoptr(JsonNode) node = natter_test_json (json);
  g_autoptr(GError) error = NULL;
  Snapshot before = { 0 };
  Snapshot after = { 0 };

  g_test_message ("event: %s", json);
  g_free (json);

  snapshot_take (state, &before);
  g_assert_false (natter_session_state_apply (state, json_node_get_object (node), &error));
  g_assert_error (error, NATTER_STORE_ERROR, code);
  snapshot_take (state, &after);

  g_assert_cmpuint (before.n_turns, ==, after.n_turns);
  g_assert_cmpstr (before.title, ==, after.title);
  g_assert_cmpstr (before.updated_at, ==, after.updated_at);
  g_assert_cmpstr (before.latest, ==, after.latest);
  g_assert_cmpint (natter_session_state_get_next_session_seq (state), ==, before.n_turns + 1);

  snapshot_clear (&before);
  snapshot_clear (&after);
}

static void
apply_ok (NatterSessionState *state,
          char               *json)
{
  g_autoptr(JsonNode) node = natter_test_json (json);
  g_autoptr(GError) error = NULL;

  g_free (json);
  g_assert_true (natter_session_state_apply (state, json_node_get_object (node), &error));
  g_assert_no_error (error);
}

static void
test_apply_is_atomic (void)
{
  g_autoptr(NatterSessionState) state = natter_session_state_new ();
  g_autofree char *t1 = turn_id (1);
  g_autofree char *t2 = turn_id (2);

  /* Before the definition: nothing but session_created is accepted. */
  apply_fails_unchanged (state, turn_json (SID, 1, 1, 1), NATTER_STORE_ERROR_INVARIANT);
  g_assert_null (natter_session_state_get_session_id (state));
  g_assert_null (natter_session_state_get_definition (state));
  apply_fails_unchanged (state, g_strdup ("{\"type\":\"session_created\",\"sessionId\":\"" SID "\","
                                          "\"ts\":\"2026-11-30T10:00:00.000Z\",\"schemaVersion\":9}"),
                         NATTER_STORE_ERROR_UNSUPPORTED_VERSION);
  g_assert_null (natter_session_state_get_session_id (state));

  apply_ok (state, created_json (SID, 0, ",\"title\":\"Plans\""));
  apply_ok (state, turn_json (SID, 1, 1, 1));

  apply_fails_unchanged (state, turn_json (SID, 2, 2, 3), NATTER_STORE_ERROR_INVARIANT);
  apply_fails_unchanged (state, turn_json (SID, 2, 2, 1), NATTER_STORE_ERROR_INVARIANT);
  apply_fails_unchanged (state, turn_json (SID, 2, 1, 2), NATTER_STORE_ERROR_INVARIANT);
  apply_fails_unchanged (state, turn_json (OTHER, 2, 2, 2), NATTER_STORE_ERROR_INVARIANT);
  apply_fails_unchanged (state, title_json (OTHER, 2, "Foreign"), NATTER_STORE_ERROR_INVARIANT);
  apply_fails_unchanged (state, created_json (SID, 2, NULL), NATTER_STORE_ERROR_INVARIANT);
  apply_fails_unchanged (state, g_strdup ("{\"type\":\"title_changed\",\"sessionId\":\"" SID "\","
                                          "\"ts\":\"2026-11-30T10:00:02.000Z\",\"title\":5}"),
                         NATTER_STORE_ERROR_SCHEMA);
  apply_fails_unchanged (state, g_strdup ("{\"type\":\"conversation_steered\",\"sessionId\":\"" SID "\","
                                          "\"ts\":\"2026-11-30T10:00:02.000Z\"}"),
                         NATTER_STORE_ERROR_UNKNOWN_TYPE);

  /* The state is still usable and continues where it was. */
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==, t1);
  apply_ok (state, turn_json (SID, 3, 2, 2));
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 2);
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==, t2);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Plans");
  g_assert_cmpstr (natter_session_state_get_updated_at (state), ==, "2026-11-30T10:00:03.000Z");
}

static void
test_incremental_equals_batch (void)
{
  g_autoptr(GPtrArray) events = events_new ();
  g_autoptr(NatterSessionState) batch = NULL;
  g_autoptr(NatterSessionState) incremental = natter_session_state_new ();

  add (events, created_json (SID, 0, ",\"cwd\":\"/srv\""));
  for (guint i = 1; i <= 5; i++)
    {
      add (events, turn_json (SID, i * 2, i, i));
      add (events, title_json (SID, i * 2 + 1, i % 2 ? "odd" : "even"));
    }
  batch = reduce_ok (events);

  for (guint i = 0; i < events->len; i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (natter_session_state_apply (incremental,
                                                 json_node_get_object (events->pdata[i]), &error));
      g_assert_no_error (error);
    }

  g_assert_cmpstr (natter_session_state_get_title (incremental), ==, natter_session_state_get_title (batch));
  g_assert_cmpstr (natter_session_state_get_title (batch), ==, "odd");
  g_assert_cmpstr (natter_session_state_get_cwd (incremental), ==, "/srv");
  g_assert_cmpuint (natter_session_state_get_n_turns (incremental), ==, 5);
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (incremental), ==,
                   natter_session_state_get_latest_turn_id (batch));
  g_assert_cmpstr (natter_session_state_get_updated_at (incremental), ==,
                   natter_session_state_get_updated_at (batch));
}

static void
test_state_keeps_copies (void)
{
  g_autoptr(NatterSessionState) state = natter_session_state_new ();
  g_autoptr(JsonNode) created = natter_session_event_new_created (SID, "2026-11-30T10:00:00Z", "Plans",
                                                                  "/home/ada", NULL, NULL);
  g_autoptr(JsonNode) model = natter_test_json ("{\"provider\":\"ollama\",\"model\":\"llama3\"}");
  g_autofree char *t1 = turn_id (1);
  g_autoptr(JsonNode) appended = NULL;
  g_autoptr(GError) error = NULL;
  const NatterSessionTurn *turn;

  appended = natter_session_event_new_turn_appended (SID, "2026-11-30T10:00:01Z", t1, 1, "default",
                                                     json_node_get_object (model));
  g_assert_true (natter_session_state_apply (state, json_node_get_object (created), &error));
  g_assert_no_error (error);
  g_assert_true (natter_session_state_apply (state, json_node_get_object (appended), &error));
  g_assert_no_error (error);

  /* Editing the caller's events afterwards does not reach the state. */
  json_object_set_string_member (json_node_get_object (created), "title", "Edited");
  json_object_set_string_member (json_node_get_object (created), "cwd", "/elsewhere");
  json_object_set_string_member (json_node_get_object (model), "model", "other");
  json_object_set_string_member (json_node_get_object (appended), "agentId", "other");

  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Plans");
  g_assert_cmpstr (natter_session_state_get_cwd (state), ==, "/home/ada");
  turn = natter_session_state_get_turn (state, 0);
  g_assert_cmpstr (turn->agent_id, ==, "default");
  g_assert_cmpstr (json_object_get_string_member (turn->model, "model"), ==, "llama3");

  /* And what the state hands out is sealed against edits. */
  g_assert_true (json_object_is_immutable (natter_session_state_get_definition (state)));
  g_assert_true (json_object_is_immutable (turn->model));
}

/* Events as the repository hands them over: already validated, sealed. */
static GPtrArray *
sealed (GPtrArray *events)
{
  for (guint i = 0; i < events->len; i++)
    json_node_seal (g_ptr_array_index (events, i));
  return events;
}

static void
assert_reduce_validated_fails (GPtrArray *events,
                               int        code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionState) state = natter_session_reduce_validated (sealed (events), &error);

  g_assert_null (state);
  g_assert_error (error, NATTER_STORE_ERROR, code);
}

static void
test_reduce_validated (void)
{
  g_autoptr(GPtrArray) events = events_new ();
  g_autoptr(GPtrArray) gap = events_new ();
  g_autoptr(GPtrArray) twice = events_new ();
  g_autoptr(GPtrArray) foreign = events_new ();
  g_autoptr(GPtrArray) headless = events_new ();
  g_autoptr(GPtrArray) recreated = events_new ();
  g_autoptr(NatterSessionState) reference = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;

  add (events, created_json (SID, 0, NULL));
  add (events, turn_json (SID, 1, 1, 1));
  add (events, title_json (SID, 2, "Named"));
  add (events, turn_json (SID, 3, 2, 2));
  reference = reduce_ok (events);
  state = natter_session_reduce_validated (sealed (events), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, natter_session_state_get_title (reference));
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 2);
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==,
                   natter_session_state_get_latest_turn_id (reference));
  /* Sealed parts are shared, not copied, and stay sealed. */
  g_assert_true (natter_session_state_get_definition (state) ==
                 json_node_get_object (g_ptr_array_index (events, 0)));
  g_assert_true (natter_session_state_get_turn (state, 0)->model ==
                 json_object_get_object_member (json_node_get_object (g_ptr_array_index (events, 1)), "model"));
  g_assert_true (json_object_is_immutable (natter_session_state_get_turn (state, 1)->model));

  /* Only the schema check is skipped: every invariant still holds. */
  add (gap, created_json (SID, 0, NULL));
  add (gap, turn_json (SID, 1, 1, 2));
  assert_reduce_validated_fails (gap, NATTER_STORE_ERROR_INVARIANT);

  add (twice, created_json (SID, 0, NULL));
  add (twice, turn_json (SID, 1, 1, 1));
  add (twice, turn_json (SID, 2, 1, 2));
  assert_reduce_validated_fails (twice, NATTER_STORE_ERROR_INVARIANT);

  add (foreign, created_json (SID, 0, NULL));
  add (foreign, turn_json (OTHER, 1, 1, 1));
  assert_reduce_validated_fails (foreign, NATTER_STORE_ERROR_INVARIANT);

  add (headless, turn_json (SID, 1, 1, 1));
  assert_reduce_validated_fails (headless, NATTER_STORE_ERROR_INVARIANT);

  add (recreated, created_json (SID, 0, NULL));
  add (recreated, created_json (SID, 1, NULL));
  assert_reduce_validated_fails (recreated, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_non_object_event (void)
{
  g_autoptr(GPtrArray) events = events_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionState) state = NULL;

  add (events, created_json (SID, 0, NULL));
  add (events, g_strdup ("[\"turn_appended\"]"));
  state = natter_session_reduce (events, &error);
  g_assert_null (state);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
  g_assert_nonnull (strstr (error->message, "Session event 2"));
}

static void
test_error_names_event_position (void)
{
  g_autoptr(GPtrArray) events = events_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionState) state = NULL;

  add (events, created_json (SID, 0, NULL));
  add (events, turn_json (SID, 1, 1, 1));
  add (events, turn_json (SID, 2, 2, 5));
  state = natter_session_reduce (events, &error);
  g_assert_null (state);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_assert_nonnull (strstr (error->message, "Session event 3"));

  /* A NULL error location is allowed. */
  g_assert_null (natter_session_reduce (events, NULL));
}

static void
test_boxed_type (void)
{
  g_autoptr(GPtrArray) events = events_new ();
  NatterSessionState *state;
  NatterSessionState *copy;

  add (events, created_json (SID, 0, NULL));
  state = reduce_ok (events);

  g_assert_true (G_TYPE_IS_BOXED (NATTER_TYPE_SESSION_STATE));
  copy = g_boxed_copy (NATTER_TYPE_SESSION_STATE, state);
  g_assert_true (copy == state);
  natter_session_state_unref (state);
  g_assert_cmpstr (natter_session_state_get_session_id (copy), ==, SID);
  g_boxed_free (NATTER_TYPE_SESSION_STATE, copy);
}

static void
test_ten_thousand_turns (void)
{
  const guint n = 10000;
  g_autoptr(GPtrArray) events = events_new ();
  g_autoptr(NatterSessionState) state = NULL;
  g_autofree char *last = turn_id (n);
  g_autofree char *middle = turn_id (n / 2);
  const NatterSessionTurn *turn;

  add (events, created_json (SID, 0, NULL));
  for (guint i = 1; i <= n; i++)
    add (events, turn_json (SID, i, i, i));

  state = reduce_ok (events);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, n);
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==, last);
  turn = natter_session_state_find_turn (state, middle);
  g_assert_nonnull (turn);
  g_assert_cmpint (turn->session_seq, ==, n / 2);
  g_assert_true (turn == natter_session_state_get_turn (state, n / 2 - 1));
  g_assert_cmpint (natter_session_state_get_next_session_seq (state), ==, n + 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/session-reducer/valid-sequence", test_valid_sequence);
  g_test_add_func ("/session-reducer/valid-sequence-without-turns", test_valid_sequence_without_turns);
  g_test_add_func ("/session-reducer/missing-session-created", test_missing_session_created);
  g_test_add_func ("/session-reducer/duplicate-session-created", test_duplicate_session_created);
  g_test_add_func ("/session-reducer/mismatched-session-id", test_mismatched_session_id);
  g_test_add_func ("/session-reducer/non-monotonic-session-seq", test_non_monotonic_session_seq);
  g_test_add_func ("/session-reducer/gapped-session-seq", test_gapped_session_seq);
  g_test_add_func ("/session-reducer/duplicate-turn-ids", test_duplicate_turn_ids);
  g_test_add_func ("/session-reducer/unknown-type", test_unknown_type);
  g_test_add_func ("/session-reducer/unknown-version", test_unknown_version);
  g_test_add_func ("/session-reducer/title-folding-default", test_title_folding_default);
  g_test_add_func ("/session-reducer/title-folding-explicit-changes", test_title_folding_explicit_changes);
  g_test_add_func ("/session-reducer/title-folding-last-wins", test_title_folding_last_wins);
  g_test_add_func ("/session-reducer/title-is-default", test_title_is_default);
  g_test_add_func ("/session-reducer/apply-is-atomic", test_apply_is_atomic);
  g_test_add_func ("/session-reducer/incremental-equals-batch", test_incremental_equals_batch);
  g_test_add_func ("/session-reducer/state-keeps-copies", test_state_keeps_copies);
  g_test_add_func ("/session-reducer/reduce-validated", test_reduce_validated);
  g_test_add_func ("/session-reducer/non-object-event", test_non_object_event);
  g_test_add_func ("/session-reducer/error-names-event-position", test_error_names_event_position);
  g_test_add_func ("/session-reducer/boxed-type", test_boxed_type);
  g_test_add_func ("/session-reducer/ten-thousand-turns", test_ten_thousand_turns);

  return g_test_run ();
}
