/* test-session-scan.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tree-free session file scan of the startup scan
 * (natter-session-scan.c, natter_json_line_scan_object()) against the full
 * read it replaces there (natter_jsonl_repo_read_sync(), then
 * natter_session_reduce_validated()): the same files accepted, the same
 * index fields folded, the same errors for the rest (docs/sessions.md
 * §6.2, docs/format.md §3.2, docs/sessions.md §8.2). Random but deterministic:
 * one fixed seed.
 */

#include <string.h>

#include "natter-id.h"
#include "natter-json-private.h"
#include "natter-log-read.h"
#include "natter-session-index-entry-private.h"
#include "natter-session-index-internal.h"
#include "natter-session-reducer.h"
#include "natter-session-scan.h"
#include "natter-session-schema.h"
#include "natter-store-error.h"
#include "natter-test-support.h"

#define SEED 0x7363616e

typedef struct
{
  GFile           *dir;
  NatterJsonlRepo *sessions;
  NatterJsonlRepo *turns;
  GRand           *rand;
  guint            accepted;
  guint            refused;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->dir = natter_test_make_temp_dir ();
  fixture->sessions = natter_session_repo_new (fixture->dir);
  fixture->turns = natter_turn_repo_new (fixture->dir);
  fixture->rand = g_rand_new_with_seed (SEED);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_test_message ("%u files accepted, %u refused", fixture->accepted, fixture->refused);
  g_clear_object (&fixture->sessions);
  g_clear_object (&fixture->turns);
  natter_test_remove_tree (fixture->dir);
  g_clear_object (&fixture->dir);
  g_rand_free (fixture->rand);
}

static char *
make_id (guint n)
{
  return g_strdup_printf ("2024-03-%02uT10-20-30Z-%07u-%03u", 1 + n % 28, n, n % 1000);
}

static void
assert_result_matches_state (const NatterSessionScanResult *result,
                             NatterSessionState            *state)
{
  guint n_turns = natter_session_state_get_n_turns (state);

  g_assert_cmpstr (result->title, ==, natter_session_state_get_title (state));
  g_assert_cmpint (result->title_is_explicit, ==, natter_session_state_get_title_is_explicit (state));
  g_assert_cmpstr (result->created_at, ==, natter_session_state_get_created_at (state));
  g_assert_cmpstr (result->updated_at, ==, natter_session_state_get_updated_at (state));
  g_assert_cmpuint (result->turn_count, ==, n_turns);
  g_assert_cmpstr (result->cwd, ==, natter_session_state_get_cwd (state));
  g_assert_cmpstr (result->parent_session, ==, natter_session_state_get_parent_session (state));
  if (n_turns == 0)
    {
      g_assert_null (result->last_agent_id);
      g_assert_null (result->first_turn_id);
      g_assert_null (result->latest_turn_id);
      g_assert_null (result->latest_turn_at);
      g_assert_null (result->last_model);
    }
  else
    {
      const NatterSessionTurn *last = natter_session_state_get_turn (state, n_turns - 1);

      g_assert_cmpstr (result->last_agent_id, ==, last->agent_id);
      g_assert_cmpstr (result->first_turn_id, ==, natter_session_state_get_turn (state, 0)->turn_id);
      g_assert_cmpstr (result->latest_turn_id, ==, last->turn_id);
      g_assert_cmpstr (result->latest_turn_at, ==, last->ts);
      g_assert_nonnull (result->last_model);
      g_assert_true (json_object_equal (result->last_model, last->model));
      g_assert_cmpuint (json_object_get_size (result->last_model), ==, 2);
    }
}

/* Writes @bytes as the session file of @id and holds the scan to the full
 * read on it. Returns whether the full read accepted it. */
static gboolean
check_file (Fixture    *fixture,
            const char *id,
            const char *bytes,
            gsize       length)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (fixture->sessions, id, NULL);
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autoptr(GError) full_error = NULL;
  g_autoptr(GError) scan_error = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_auto(NatterSessionScanResult) fast = { 0 };
  g_auto(NatterSessionScanResult) from_file = { 0 };
  gboolean fast_ok, file_ok;

  g_assert_true (g_mkdir_with_parents (g_file_peek_path (parent), 0700) == 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (file), bytes, length, NULL));

  state = natter_session_reduce_file_sync (fixture->sessions, id, NULL, NULL, &full_error);

  fast_ok = natter_session_scan_contents (bytes, length, id, &fast);
  if (fast_ok != (state != NULL))
    {
      g_autofree char *shown = g_strescape (bytes, NULL);

      g_test_message ("disagreement (scan %s, full read %s: %s) on: %s",
                      fast_ok ? "accepts" : "refuses", state != NULL ? "accepts" : "refuses",
                      full_error != NULL ? full_error->message : "", shown);
      g_assert_cmpint (fast_ok, ==, state != NULL);
    }

  file_ok = natter_session_scan_file_sync (fixture->sessions, id, &from_file, NULL, &scan_error);
  g_assert_cmpint (file_ok, ==, state != NULL);
  if (state != NULL)
    {
      g_assert_no_error (scan_error);
      assert_result_matches_state (&fast, state);
      assert_result_matches_state (&from_file, state);
      fixture->accepted++;
      return TRUE;
    }

  g_assert_nonnull (scan_error);
  g_assert_true (scan_error->domain == full_error->domain);
  g_assert_cmpint (scan_error->code, ==, full_error->code);
  g_assert_cmpstr (scan_error->message, ==, full_error->message);
  if (g_error_matches (scan_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT))
    {
      g_autofree char *prefix = g_strdup_printf ("%s:", g_file_peek_path (file));

      /* `<path>:<line>: <reason>` */
      g_assert_true (g_str_has_prefix (scan_error->message, prefix));
      g_assert_true (g_ascii_isdigit (scan_error->message[strlen (prefix)]));
    }
  fixture->refused++;
  return FALSE;
}

/* Event generation. */

static const char * const titles[] = {
  "Hello", "", "a \"quoted\" word", "back\\slash", "two\nlines", "\x01" "ctl\x1f" "x\x7f",
  "tab\tand\rcr\b\f", "é ü ß — 😀", "/slash/", "\\u0041 is not A", "日本語のタイトル",
};

static const char * const cwds[] = {
  "/", "/home/user", "/home/user/project x", "/srv/ü/ß", "/a/\"q\"/b\\c", "/tmp/new\nline",
};

static JsonObject *
new_model (GRand *rand)
{
  JsonObject *model = json_object_new ();

  if (g_rand_boolean (rand))
    {
      json_object_set_string_member (model, "provider", "openai");
      json_object_set_string_member (model, "model", g_rand_boolean (rand) ? "gpt-4o" : "m \"x\" é");
    }
  else
    {
      json_object_set_string_member (model, "model", "llama3");
      json_object_set_string_member (model, "provider", "local\\ollama");
    }
  return model;
}

static const char *
random_ts (GRand *rand)
{
  static const char * const stamps[] = {
    "2024-03-01T10:20:30Z", "2024-03-01T10:20:30.123Z", "2024-02-29T23:59:59.999999Z",
    "2025-12-31T00:00:00Z", "2024-06-30T23:59:60Z",
  };

  return stamps[g_rand_int_range (rand, 0, G_N_ELEMENTS (stamps))];
}

/* A valid session of random shape, as event objects. */
static GPtrArray *
generate_events (GRand      *rand,
                 const char *id,
                 guint       n)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  JsonObject *created = json_object_new ();
  guint n_events = g_rand_int_range (rand, 0, 8);
  gint64 seq = 0;

  json_object_set_string_member (created, "type", "session_created");
  json_object_set_string_member (created, "sessionId", id);
  if (g_rand_int_range (rand, 0, 4) == 0)
    {
      /* Another member order: the schema does not fix one. */
      json_object_set_int_member (created, "schemaVersion", 1);
      json_object_set_string_member (created, "ts", random_ts (rand));
    }
  else
    {
      json_object_set_string_member (created, "ts", random_ts (rand));
      json_object_set_int_member (created, "schemaVersion", 1);
    }
  if (g_rand_boolean (rand))
    json_object_set_string_member (created, "title", titles[g_rand_int_range (rand, 0, G_N_ELEMENTS (titles))]);
  if (g_rand_boolean (rand))
    json_object_set_string_member (created, "cwd", cwds[g_rand_int_range (rand, 0, G_N_ELEMENTS (cwds))]);
  if (g_rand_int_range (rand, 0, 3) == 0)
    {
      g_autofree char *parent = make_id (n + 100000);

      json_object_set_string_member (created, "parentSession", parent);
      if (g_rand_boolean (rand))
        {
          g_autofree char *fork = make_id (n + 200000);

          json_object_set_string_member (created, "forkedFromTurnId", fork);
        }
    }
  g_ptr_array_add (events, created);

  for (guint i = 0; i < n_events; i++)
    {
      JsonObject *event = json_object_new ();

      json_object_set_string_member (event, "type", "");
      json_object_set_string_member (event, "sessionId", id);
      json_object_set_string_member (event, "ts", random_ts (rand));
      if (g_rand_int_range (rand, 0, 4) == 0)
        {
          json_object_set_string_member (event, "type", "title_changed");
          json_object_set_string_member (event, "title", titles[g_rand_int_range (rand, 0, G_N_ELEMENTS (titles))]);
        }
      else
        {
          g_autofree char *turn_id = make_id (n * 16 + i + 300000);

          json_object_set_string_member (event, "type", "turn_appended");
          json_object_set_string_member (event, "turnId", turn_id);
          json_object_set_int_member (event, "sessionSeq", ++seq);
          json_object_set_string_member (event, "agentId", g_rand_boolean (rand) ? "default" : "agent \"ü\"");
          json_object_set_object_member (event, "model", new_model (rand));
        }
      g_ptr_array_add (events, event);
    }
  return events;
}

/* One schema- or invariant-level change to a random event, most of which
 * make the session invalid. */
static void
mutate_event (GRand     *rand,
              GPtrArray *events,
              guint      n)
{
  JsonObject *event = g_ptr_array_index (events, g_rand_int_range (rand, 0, events->len));
  g_autoptr(GList) names = json_object_get_members (event);
  const char *some_member = g_list_nth_data (names, g_rand_int_range (rand, 0, g_list_length (names)));
  g_autofree char *other_id = make_id (n + 400000);

  switch (g_rand_int_range (rand, 0, 24))
    {
    case 0: json_object_remove_member (event, some_member); break;
    case 1: json_object_set_int_member (event, "extra", 1); break;
    case 2: json_object_set_string_member (event, "sessionId", other_id); break;
    case 3: json_object_set_int_member (event, "sessionSeq", g_rand_int_range (rand, -1, 4)); break;
    case 4: json_object_set_double_member (event, "sessionSeq", 1.5); break;
    case 5: json_object_set_int_member (event, "schemaVersion", g_rand_int_range (rand, 0, 3)); break;
    case 6: json_object_set_string_member (event, "schemaVersion", "1"); break;
    case 7:
      {
        static const char * const types[] = {
          "unknown", "session_created", "turn_appended", "title_changed", "Session_created", "",
        };

        json_object_set_string_member (event, "type", types[g_rand_int_range (rand, 0, G_N_ELEMENTS (types))]);
      }
      break;
    case 8: json_object_set_int_member (event, "title", 7); break;
    case 9: json_object_set_null_member (event, some_member); break;
    case 10: json_object_set_string_member (event, "agentId", ""); break;
    case 11:
      {
        JsonObject *model = new_model (rand);

        switch (g_rand_int_range (rand, 0, 4))
          {
          case 0: json_object_set_int_member (model, "x", 1); break;
          case 1: json_object_remove_member (model, "provider"); break;
          case 2: json_object_set_string_member (model, "model", ""); break;
          default: json_object_set_int_member (model, "provider", 3); break;
          }
        json_object_set_object_member (event, "model", model);
      }
      break;
    case 12: json_object_set_string_member (event, "model", "gpt"); break;
    case 13:
      {
        /* A turn id that an earlier turn may already have. */
        g_autofree char *turn_id = make_id (n * 16 + g_rand_int_range (rand, 0, 3) + 300000);

        json_object_set_string_member (event, "turnId", turn_id);
      }
      break;
    case 14: json_object_set_string_member (event, "turnId", "not-an-id"); break;
    case 15:
      {
        static const char * const stamps[] = {
          "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-03-01 10:20:30Z",
          "2024-03-01T10:20:30", "2024-03-01T10:20:30.Z", "2024-03-01T10:20:30.12345678901234567890Z",
          "2024-03-01T10:20:30.1234567890123456789Z",
        };

        json_object_set_string_member (event, "ts", stamps[g_rand_int_range (rand, 0, G_N_ELEMENTS (stamps))]);
      }
      break;
    case 16:
      {
        static const char * const bad[] = { "/a/../b", "rel", "/a/", "//", "/a/./b", "" };

        json_object_set_string_member (event, "cwd", bad[g_rand_int_range (rand, 0, G_N_ELEMENTS (bad))]);
      }
      break;
    case 17: json_object_set_string_member (event, "forkedFromTurnId", other_id); break;
    case 18: json_object_set_string_member (event, "parentSession", "2024-02-30T10-20-30Z-0000001-001"); break;
    case 19: json_object_set_string_member (event, "title", titles[g_rand_int_range (rand, 0, G_N_ELEMENTS (titles))]); break;
    case 20: json_object_set_string_member (event, "cwd", cwds[g_rand_int_range (rand, 0, G_N_ELEMENTS (cwds))]); break;
    case 21: json_object_set_array_member (event, "title", json_array_new ()); break;
    case 22:
      {
        /* Swap two events. */
        guint a = g_rand_int_range (rand, 0, events->len);
        guint b = g_rand_int_range (rand, 0, events->len);
        gpointer t = events->pdata[a];

        events->pdata[a] = events->pdata[b];
        events->pdata[b] = t;
      }
      break;
    default:
      /* Appended twice. */
      g_ptr_array_add (events, json_object_ref (event));
      break;
    }
}

static void
test_valid_shapes (Fixture       *fixture,
                   gconstpointer  data)
{
  for (guint n = 0; n < 300; n++)
    {
      g_autofree char *id = make_id (n);
      g_autoptr(GPtrArray) events = generate_events (fixture->rand, id, n);
      g_autoptr(GString) text = natter_test_serialize_events (events);

      g_assert_true (check_file (fixture, id, text->str, text->len));
    }
}

static void
test_known_fields (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *id = make_id (1);
  g_autofree char *parent = make_id (2);
  g_autofree char *turn = make_id (3);
  g_autofree char *text = g_strdup_printf (
    "{\"type\":\"session_created\",\"sessionId\":\"%s\",\"ts\":\"2024-03-01T10:20:30Z\","
    "\"schemaVersion\":1,\"title\":\"first\",\"cwd\":\"/a/\\\"b\\\"\",\"parentSession\":\"%s\"}\n"
    "{\"type\":\"turn_appended\",\"sessionId\":\"%s\",\"ts\":\"2024-03-01T10:21:00Z\","
    "\"turnId\":\"%s\",\"sessionSeq\":1,\"agentId\":\"ag\",\"model\":{\"provider\":\"p\",\"model\":\"m\\u0001\"}}\n"
    "{\"type\":\"title_changed\",\"sessionId\":\"%s\",\"ts\":\"2024-03-01T10:22:00.5Z\","
    "\"title\":\"Caf\xc3\xa9 \\\\ \\n\"}\n",
    id, parent, id, turn, id);
  g_auto(NatterSessionScanResult) result = { 0 };

  g_assert_true (natter_session_scan_contents (text, strlen (text), id, &result));
  g_assert_cmpstr (result.title, ==, "Caf\xc3\xa9 \\ \n");
  g_assert_true (result.title_is_explicit);
  g_assert_cmpstr (result.created_at, ==, "2024-03-01T10:20:30Z");
  g_assert_cmpstr (result.updated_at, ==, "2024-03-01T10:22:00.5Z");
  g_assert_cmpuint (result.turn_count, ==, 1);
  g_assert_cmpstr (result.latest_turn_id, ==, turn);
  g_assert_cmpstr (result.last_agent_id, ==, "ag");
  g_assert_cmpstr (json_object_get_string_member (result.last_model, "model"), ==, "m\x01");
  g_assert_cmpstr (result.cwd, ==, "/a/\"b\"");
  g_assert_cmpstr (result.parent_session, ==, parent);
  g_assert_true (check_file (fixture, id, text, strlen (text)));
}

/* U+001F as earlier versions wrote it (raw) and as it is written now
 * (escaped): the scan reads both as the full read does, one spelling per
 * line (docs/format.md §2). */
static void
test_unit_separator_spellings (Fixture       *fixture,
                               gconstpointer  data)
{
  g_autofree char *id = make_id (1);
  g_autofree char *created = g_strdup_printf ("{\"type\":\"session_created\",\"sessionId\":\"%s\","
                                              "\"ts\":\"2024-03-01T10:20:30Z\",\"schemaVersion\":1}\n", id);
  g_autofree char *raw = g_strdup_printf ("%s{\"type\":\"title_changed\",\"sessionId\":\"%s\","
                                          "\"ts\":\"2024-03-01T10:22:00Z\",\"title\":\"a\x1f" "b\"}\n", created, id);
  g_autofree char *escaped = g_strdup_printf ("%s{\"type\":\"title_changed\",\"sessionId\":\"%s\","
                                              "\"ts\":\"2024-03-01T10:22:00Z\",\"title\":\"a\\u001fb\"}\n",
                                              created, id);
  g_autofree char *both = g_strdup_printf ("%s{\"type\":\"title_changed\",\"sessionId\":\"%s\","
                                           "\"ts\":\"2024-03-01T10:22:00Z\",\"title\":\"a\x1f\\u001fb\"}\n",
                                           created, id);
  const char *lines[] = { raw, escaped };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_auto(NatterSessionScanResult) result = { 0 };

      g_assert_true (natter_session_scan_contents (lines[i], strlen (lines[i]), id, &result));
      g_assert_cmpstr (result.title, ==, "a\x1f" "b");
      g_assert_true (check_file (fixture, id, lines[i], strlen (lines[i])));
    }
  g_assert_false (check_file (fixture, id, both, strlen (both)));
}

static void
test_mutated (Fixture       *fixture,
              gconstpointer  data)
{
  guint rounds = natter_test_mutated_rounds ();

  for (guint n = 0; n < rounds; n++)
    {
      g_autofree char *id = make_id (n);
      g_autoptr(GPtrArray) events = generate_events (fixture->rand, id, n);
      g_autoptr(GString) text = natter_test_mutate_log (fixture->rand, events, mutate_event, n);

      check_file (fixture, id, text->str, text->len);
    }
  /* Both verdicts must be well represented for the comparison to mean
   * anything. */
  g_assert_cmpuint (fixture->accepted, >, rounds / 20);
  g_assert_cmpuint (fixture->refused, >, rounds / 2);
}

static void
test_file_errors (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *id = make_id (5);
  g_autofree char *missing = make_id (6);
  g_autofree char *line = g_strdup_printf (
    "{\"type\":\"session_created\",\"sessionId\":\"%s\",\"ts\":\"2024-03-01T10:20:30Z\",\"schemaVersion\":1}", id);
  g_autofree char *two = g_strdup_printf ("%s\n%s", line, line);
  g_auto(NatterSessionScanResult) result = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_false (check_file (fixture, id, "", 0));
  g_assert_false (check_file (fixture, id, line, strlen (line)));
  g_assert_false (check_file (fixture, id, two, strlen (two)));

  g_assert_false (natter_session_scan_file_sync (fixture->sessions, missing, &result, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (natter_session_scan_file_sync (fixture->sessions, "../x", &result, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
  g_assert_null (result.title);
}

/* The index's fold of a session file is what the state gave before. */
static void
test_index_fold (Fixture       *fixture,
                 gconstpointer  data)
{
  for (guint n = 0; n < 50; n++)
    {
      g_autofree char *id = make_id (n);
      g_autoptr(GPtrArray) events = generate_events (fixture->rand, id, n);
      g_autoptr(GString) text = natter_test_serialize_events (events);
      g_autoptr(GPtrArray) nodes = NULL;
      g_autoptr(NatterSessionState) state = NULL;
      g_autoptr(NatterSessionIndexEntry) expected = NULL;
      g_autoptr(NatterSessionIndexEntry) entry = NULL;

      g_assert_true (check_file (fixture, id, text->str, text->len));
      nodes = natter_jsonl_repo_read_sync (fixture->sessions, id, NULL, NULL);
      state = natter_session_reduce_validated (nodes, NULL);
      expected = natter_session_index_entry_new_from_state (state);
      entry = natter_session_index_fold_one_sync (fixture->sessions, fixture->turns, id, NULL);
      if (natter_session_state_get_n_turns (state) > 0)
        {
          /* No turn files here: the entry says so, and the rest is the same. */
          g_assert_nonnull (natter_session_index_entry_get_error (entry));
          natter_session_index_entry_set_error (entry, NULL);
          natter_session_index_entry_set_latest_turn_status (expected, "idle");
        }
      g_assert_true (natter_session_index_entry_equal (entry, expected));
    }
}

/* The span scanner on its own: member spans and kinds, and the lines it
 * must refuse although they are JSON. */
static void
test_span_scanner (void)
{
  static const char line[] =
    "{\"s\":\"a\\\"b\",\"i\":-12,\"d\":1.5,\"t\":true,\"f\":false,\"n\":null,"
    "\"o\":{\"x\":[1,{}]},\"a\":[],\"e\\n\":\"\"}";
  static const char * const refused[] = {
    "", "[]", "1", "\"s\"", "{\"a\":1,\"a\":2}", "{\"o\":{\"x\":1,\"x\":1}}", "{\"a\":1 }",
    "{\"a\":-0}", "{\"a\":1.0e5}", "{\"a\":\"\\/\"}", "{\"a\":\"\\u001F\"}", "{\"a\":\"\x01\"}",
    "{\"a\":\"\xc3\"}", "{\"a\":[{\"b\":1,\"b\":1}]}",
    "{\"a\":\"\x1f\\u001f\"}", "{\"a\\u001f\":1,\"a\x1f\":2}", "{\"o\":{\"\x1f\":1},\"p\":\"\\u001f\"}",
  };
  NatterJsonMember members[16];
  guint n = 0;
  g_autofree char *decoded = NULL;

  g_assert_true (natter_json_line_scan_object (line, strlen (line), members, G_N_ELEMENTS (members), &n));
  g_assert_cmpuint (n, ==, 9);
  g_assert_cmpint (members[0].kind, ==, NATTER_JSON_SPAN_STRING);
  g_assert_true (members[0].escaped);
  decoded = natter_json_span_dup_string (members[0].value, members[0].value_length);
  g_assert_cmpstr (decoded, ==, "a\"b");
  g_assert_cmpint (members[1].kind, ==, NATTER_JSON_SPAN_INT);
  g_assert_cmpint (members[1].int_value, ==, -12);
  g_assert_cmpint (members[2].kind, ==, NATTER_JSON_SPAN_DOUBLE);
  g_assert_cmpint (members[3].kind, ==, NATTER_JSON_SPAN_BOOLEAN);
  g_assert_cmpint (members[3].int_value, ==, 1);
  g_assert_cmpint (members[4].int_value, ==, 0);
  g_assert_cmpint (members[5].kind, ==, NATTER_JSON_SPAN_NULL);
  g_assert_cmpint (members[6].kind, ==, NATTER_JSON_SPAN_OBJECT);
  g_assert_cmpmem (members[6].value, members[6].value_length, "{\"x\":[1,{}]}", 12);
  g_assert_cmpint (members[7].kind, ==, NATTER_JSON_SPAN_ARRAY);
  g_assert_cmpmem (members[7].value, members[7].value_length, "[]", 2);
  g_assert_true (members[8].name_escaped);
  g_assert_cmpmem (members[8].name, members[8].name_length, "e\\n", 3);
  g_assert_cmpuint (members[8].value_length, ==, 0);

  /* Too many members for the caller's array. */
  g_assert_false (natter_json_line_scan_object (line, strlen (line), members, 8, &n));

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(JsonNode) tree = natter_json_line_parse (refused[i], strlen (refused[i]), NULL);

      g_assert_false (natter_json_line_scan_object (refused[i], strlen (refused[i]), members,
                                                    G_N_ELEMENTS (members), &n));
      g_assert_true (tree == NULL || !JSON_NODE_HOLDS_OBJECT (tree));
    }
}

/* More distinct names open at once than the scanner keeps on its stack:
 * the tree builder decides, duplicates included. */
static void
test_span_scanner_many_names (void)
{
  g_autoptr(GString) line = g_string_new ("{\"o\":{");
  NatterJsonMember members[4];
  guint n = 0;

  for (guint i = 0; i < 100; i++)
    g_string_append_printf (line, "%s\"m%u\":%u", i > 0 ? "," : "", i, i);
  g_string_append (line, "}}");
  g_assert_true (natter_json_line_scan_object (line->str, line->len, members, 4, &n));
  g_assert_cmpuint (n, ==, 1);

  g_string_truncate (line, line->len - 2);
  g_string_append (line, ",\"m99\":1}}");
  g_assert_false (natter_json_line_scan_object (line->str, line->len, members, 4, &n));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/session-scan/span-scanner", test_span_scanner);
  g_test_add_func ("/session-scan/span-scanner-many-names", test_span_scanner_many_names);
  g_test_add ("/session-scan/known-fields", Fixture, NULL, fixture_set_up, test_known_fields, fixture_tear_down);
  g_test_add ("/session-scan/unit-separator-spellings", Fixture, NULL, fixture_set_up, test_unit_separator_spellings,
              fixture_tear_down);
  g_test_add ("/session-scan/valid-shapes", Fixture, NULL, fixture_set_up, test_valid_shapes, fixture_tear_down);
  g_test_add ("/session-scan/file-errors", Fixture, NULL, fixture_set_up, test_file_errors, fixture_tear_down);
  g_test_add ("/session-scan/index-fold", Fixture, NULL, fixture_set_up, test_index_fold, fixture_tear_down);
  g_test_add ("/session-scan/mutated", Fixture, NULL, fixture_set_up, test_mutated, fixture_tear_down);

  return g_test_run ();
}
