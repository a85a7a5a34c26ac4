/* test-session-schema.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session event schemas (docs/sessions.md §6.2, docs/format.md §3.1) and
 * the session header fields of dsh-session.md.
 */

#include <string.h>

#include "natter-json.h"
#include "natter-session-schema.h"
#include "natter-store-error.h"
#include "natter-test-support.h"

#define SID   "2026-11-30T09-14-03Z-0000001-000"
#define OTHER "2026-11-30T09-14-03Z-0000002-000"
#define TID   "2026-11-30T09-14-05Z-0000003-000"
#define TS    "2026-11-30T09:14:03.123Z"

/* Each case is one event, as a literal, with the result expected when it
 * is validated for the session SID: 0 for valid, else the error code. */
typedef struct
{
  const char *name;
  const char *json;
  int         code;
} Case;

static void
check_case (const Case *c,
            const char *session_id)
{
  g_autoptr(JsonNode) node = natter_test_json (c->json);
  g_autoptr(GError) error = NULL;
  gboolean ok;

  g_test_message ("case: %s", c->name);
  ok = natter_session_event_validate (json_node_get_object (node), session_id, &error);
  if (c->code == 0)
    {
      g_assert_no_error (error);
      g_assert_true (ok);
    }
  else
    {
      g_assert_error (error, NATTER_STORE_ERROR, c->code);
      g_assert_false (ok);
    }
}

static void
check_cases (const Case *cases,
             gsize       n_cases)
{
  for (gsize i = 0; i < n_cases; i++)
    check_case (&cases[i], SID);
}

#define CREATED_HEAD "{\"type\":\"session_created\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\""
#define APPENDED_HEAD "{\"type\":\"turn_appended\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\""
#define MODEL "\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"}"
#define APPENDED_OK APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"default\"," MODEL "}"

static void
test_common_fields (void)
{
  static const Case cases[] = {
    { "valid", CREATED_HEAD ",\"schemaVersion\":1}", 0 },
    { "type missing", "{\"sessionId\":\"" SID "\",\"ts\":\"" TS "\",\"schemaVersion\":1}",
      NATTER_STORE_ERROR_SCHEMA },
    { "type not a string", "{\"type\":7,\"sessionId\":\"" SID "\",\"ts\":\"" TS "\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "type unknown", "{\"type\":\"conversation_steered\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\"}",
      NATTER_STORE_ERROR_UNKNOWN_TYPE },
    { "type of another file kind", "{\"type\":\"turn_created\",\"sessionId\":\"" SID "\"}",
      NATTER_STORE_ERROR_UNKNOWN_TYPE },
    { "sessionId missing", "{\"type\":\"title_changed\",\"ts\":\"" TS "\",\"title\":\"t\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "sessionId null", "{\"type\":\"title_changed\",\"sessionId\":null,\"ts\":\"" TS "\",\"title\":\"t\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "sessionId of another session",
      "{\"type\":\"title_changed\",\"sessionId\":\"" OTHER "\",\"ts\":\"" TS "\",\"title\":\"t\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "sessionId path-like",
      "{\"type\":\"title_changed\",\"sessionId\":\"../../etc/passwd\",\"ts\":\"" TS "\",\"title\":\"t\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "ts missing", "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"title\":\"t\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "ts not ISO", "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":\"yesterday\",\"title\":\"t\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "ts with an offset",
      "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":\"2026-11-30T09:14:03+01:00\",\"title\":\"t\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "ts a number", "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":1,\"title\":\"t\"}",
      NATTER_STORE_ERROR_SCHEMA },
  };

  check_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_null_session_id_accepts_any_valid_id (void)
{
  static const Case ok = {
    "another valid id", "{\"type\":\"title_changed\",\"sessionId\":\"" OTHER "\",\"ts\":\"" TS "\",\"title\":\"t\"}", 0
  };
  static const Case bad = {
    "invalid id", "{\"type\":\"title_changed\",\"sessionId\":\"x\",\"ts\":\"" TS "\",\"title\":\"t\"}",
    NATTER_STORE_ERROR_SCHEMA
  };

  check_case (&ok, NULL);
  check_case (&bad, NULL);
}

static void
test_session_created (void)
{
  static const Case cases[] = {
    { "minimal", CREATED_HEAD ",\"schemaVersion\":1}", 0 },
    { "every field", CREATED_HEAD ",\"schemaVersion\":1,\"title\":\"Plans\",\"cwd\":\"/home/ada/src\","
      "\"parentSession\":\"" OTHER "\",\"forkedFromTurnId\":\"" TID "\"}", 0 },
    { "empty title", CREATED_HEAD ",\"schemaVersion\":1,\"title\":\"\"}", 0 },
    { "schemaVersion 2", CREATED_HEAD ",\"schemaVersion\":2}", 0 },
    { "schemaVersion 3", CREATED_HEAD ",\"schemaVersion\":3}", 0 },
    { "schemaVersion 4", CREATED_HEAD ",\"schemaVersion\":4}", 0 },
    { "schemaVersion 5", CREATED_HEAD ",\"schemaVersion\":5}", NATTER_STORE_ERROR_UNSUPPORTED_VERSION },
    { "schemaVersion 0", CREATED_HEAD ",\"schemaVersion\":0}", NATTER_STORE_ERROR_UNSUPPORTED_VERSION },
    { "schemaVersion 5 with new fields", CREATED_HEAD ",\"schemaVersion\":5,\"grants\":[]}",
      NATTER_STORE_ERROR_UNSUPPORTED_VERSION },
    { "schemaVersion missing", CREATED_HEAD "}", NATTER_STORE_ERROR_SCHEMA },
    { "schemaVersion a string", CREATED_HEAD ",\"schemaVersion\":\"1\"}", NATTER_STORE_ERROR_SCHEMA },
    { "schemaVersion a fraction", CREATED_HEAD ",\"schemaVersion\":1.0}", NATTER_STORE_ERROR_SCHEMA },
    { "title a number", CREATED_HEAD ",\"schemaVersion\":1,\"title\":3}", NATTER_STORE_ERROR_SCHEMA },
    { "title null", CREATED_HEAD ",\"schemaVersion\":1,\"title\":null}", NATTER_STORE_ERROR_SCHEMA },
    { "unknown member", CREATED_HEAD ",\"schemaVersion\":1,\"colour\":\"red\"}", NATTER_STORE_ERROR_SCHEMA },
    { "cwd root", CREATED_HEAD ",\"schemaVersion\":1,\"cwd\":\"/\"}", 0 },
    { "cwd relative", CREATED_HEAD ",\"schemaVersion\":1,\"cwd\":\"src/natter\"}", NATTER_STORE_ERROR_SCHEMA },
    { "cwd with ..", CREATED_HEAD ",\"schemaVersion\":1,\"cwd\":\"/home/ada/../root\"}", NATTER_STORE_ERROR_SCHEMA },
    { "cwd ending in ..", CREATED_HEAD ",\"schemaVersion\":1,\"cwd\":\"/home/..\"}", NATTER_STORE_ERROR_SCHEMA },
    { "cwd with .", CREATED_HEAD ",\"schemaVersion\":1,\"cwd\":\"/home/./ada\"}", NATTER_STORE_ERROR_SCHEMA },
    { "cwd with //", CREATED_HEAD ",\"schemaVersion\":1,\"cwd\":\"/home//ada\"}", NATTER_STORE_ERROR_SCHEMA },
    { "cwd with a trailing /", CREATED_HEAD ",\"schemaVersion\":1,\"cwd\":\"/home/ada/\"}", NATTER_STORE_ERROR_SCHEMA },
    { "cwd empty", CREATED_HEAD ",\"schemaVersion\":1,\"cwd\":\"\"}", NATTER_STORE_ERROR_SCHEMA },
    { "cwd a number", CREATED_HEAD ",\"schemaVersion\":1,\"cwd\":1}", NATTER_STORE_ERROR_SCHEMA },
    { "cwd with dotted names", CREATED_HEAD ",\"schemaVersion\":1,\"cwd\":\"/srv/.config/...x/a..b\"}", 0 },
    { "parentSession invalid", CREATED_HEAD ",\"schemaVersion\":1,\"parentSession\":\"2026-13-30T09-14-03Z-0000002-000\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "parentSession path-like", CREATED_HEAD ",\"schemaVersion\":1,\"parentSession\":\"../x\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "parentSession null", CREATED_HEAD ",\"schemaVersion\":1,\"parentSession\":null}", NATTER_STORE_ERROR_SCHEMA },
    { "parentSession alone", CREATED_HEAD ",\"schemaVersion\":1,\"parentSession\":\"" OTHER "\"}", 0 },
    { "forkedFromTurnId without parentSession", CREATED_HEAD ",\"schemaVersion\":1,\"forkedFromTurnId\":\"" TID "\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "forkedFromTurnId invalid", CREATED_HEAD ",\"schemaVersion\":1,\"parentSession\":\"" OTHER "\","
      "\"forkedFromTurnId\":\"turn-1\"}", NATTER_STORE_ERROR_SCHEMA },
  };

  check_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_turn_appended (void)
{
  static const Case cases[] = {
    { "valid", APPENDED_OK, 0 },
    { "large sessionSeq", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":9007199254740993,\"agentId\":\"a\"," MODEL "}", 0 },
    { "turnId missing", APPENDED_HEAD ",\"sessionSeq\":1,\"agentId\":\"a\"," MODEL "}", NATTER_STORE_ERROR_SCHEMA },
    { "turnId invalid", APPENDED_HEAD ",\"turnId\":\"t1\",\"sessionSeq\":1,\"agentId\":\"a\"," MODEL "}",
      NATTER_STORE_ERROR_SCHEMA },
    { "sessionSeq 0", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":0,\"agentId\":\"a\"," MODEL "}",
      NATTER_STORE_ERROR_SCHEMA },
    { "sessionSeq negative", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":-1,\"agentId\":\"a\"," MODEL "}",
      NATTER_STORE_ERROR_SCHEMA },
    { "sessionSeq a fraction", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1.5,\"agentId\":\"a\"," MODEL "}",
      NATTER_STORE_ERROR_SCHEMA },
    { "sessionSeq a string", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":\"1\",\"agentId\":\"a\"," MODEL "}",
      NATTER_STORE_ERROR_SCHEMA },
    { "sessionSeq missing", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"agentId\":\"a\"," MODEL "}",
      NATTER_STORE_ERROR_SCHEMA },
    { "agentId missing", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1," MODEL "}",
      NATTER_STORE_ERROR_SCHEMA },
    { "agentId empty", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"\"," MODEL "}",
      NATTER_STORE_ERROR_SCHEMA },
    { "agentId a number", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":4," MODEL "}",
      NATTER_STORE_ERROR_SCHEMA },
    { "model missing", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"a\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "model a string", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"a\",\"model\":\"llama3\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "model missing provider", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"a\","
      "\"model\":{\"model\":\"llama3\"}}", NATTER_STORE_ERROR_SCHEMA },
    { "model missing model", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"a\","
      "\"model\":{\"provider\":\"ollama\"}}", NATTER_STORE_ERROR_SCHEMA },
    { "model provider a number", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"a\","
      "\"model\":{\"provider\":1,\"model\":\"llama3\"}}", NATTER_STORE_ERROR_SCHEMA },
    { "model name empty", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"a\","
      "\"model\":{\"provider\":\"ollama\",\"model\":\"\"}}", NATTER_STORE_ERROR_SCHEMA },
    { "model with an unknown member", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"a\","
      "\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\",\"apiKey\":\"sk\"}}", NATTER_STORE_ERROR_SCHEMA },
    { "unknown member", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"a\"," MODEL
      ",\"status\":\"completed\"}", NATTER_STORE_ERROR_SCHEMA },
    { "schemaVersion on a non-created event", APPENDED_HEAD ",\"turnId\":\"" TID "\",\"sessionSeq\":1,"
      "\"agentId\":\"a\"," MODEL ",\"schemaVersion\":1}", NATTER_STORE_ERROR_SCHEMA },
  };

  check_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_title_changed (void)
{
  static const Case cases[] = {
    { "valid", "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\",\"title\":\"Trip\"}", 0 },
    { "empty title", "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\",\"title\":\"\"}", 0 },
    { "title missing", "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\"}",
      NATTER_STORE_ERROR_SCHEMA },
    { "title null", "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\",\"title\":null}",
      NATTER_STORE_ERROR_SCHEMA },
    { "title an array", "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\",\"title\":[]}",
      NATTER_STORE_ERROR_SCHEMA },
    { "unknown member", "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\",\"title\":\"a\","
      "\"by\":\"user\"}", NATTER_STORE_ERROR_SCHEMA },
  };

  check_cases (cases, G_N_ELEMENTS (cases));
}

static void
assert_cwd (const char *cwd,
            gboolean    valid)
{
  g_autoptr(GError) error = NULL;
  /* Escaped: a raw invalid byte in the TAP stream is an error to meson. */
  g_autofree char *shown = cwd != NULL ? g_strescape (cwd, NULL) : g_strdup ("(null)");

  g_test_message ("cwd: %s", shown);
  if (valid)
    {
      g_assert_true (natter_session_cwd_validate (cwd, &error));
      g_assert_no_error (error);
    }
  else
    {
      g_assert_false (natter_session_cwd_validate (cwd, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
    }
}

static void
test_cwd_validate (void)
{
  g_autofree char *longest = NULL;
  g_autofree char *too_long = NULL;

  assert_cwd ("/", TRUE);
  assert_cwd ("/home/ada/Projects/natter", TRUE);
  assert_cwd ("/home/ada/Prøjects", TRUE);
  assert_cwd ("/.hidden/..x/x..", TRUE);
  assert_cwd (NULL, FALSE);
  assert_cwd ("", FALSE);
  assert_cwd (".", FALSE);
  assert_cwd ("..", FALSE);
  assert_cwd ("home/ada", FALSE);
  assert_cwd ("~/src", FALSE);
  assert_cwd ("/..", FALSE);
  assert_cwd ("/.", FALSE);
  assert_cwd ("/a/./b", FALSE);
  assert_cwd ("/a/../b", FALSE);
  assert_cwd ("/a/b/..", FALSE);
  assert_cwd ("//", FALSE);
  assert_cwd ("//a", FALSE);
  assert_cwd ("/a/", FALSE);
  assert_cwd ("/a\xff/b", FALSE);

  /* The length bound is inclusive of NATTER_SESSION_CWD_MAX. */
  longest = g_malloc (NATTER_SESSION_CWD_MAX + 1);
  longest[0] = '/';
  memset (longest + 1, 'a', NATTER_SESSION_CWD_MAX - 1);
  longest[NATTER_SESSION_CWD_MAX] = '\0';
  assert_cwd (longest, TRUE);
  too_long = g_strconcat (longest, "b", NULL);
  assert_cwd (too_long, FALSE);
}

static void
assert_line (JsonNode   *node,
             const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;

  g_assert_true (natter_session_event_validate (json_node_get_object (node), SID, &error));
  g_assert_no_error (error);
  line = natter_json_to_line (node, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line, ==, expected);
}

static void
test_constructors (void)
{
  g_autoptr(JsonNode) minimal = natter_session_event_new_created (SID, TS, NULL, NULL, NULL, NULL);
  g_autoptr(JsonNode) full = natter_session_event_new_created (SID, TS, "Plans", "/home/ada", OTHER, TID);
  g_autoptr(JsonNode) model = natter_test_json ("{\"provider\":\"ollama\",\"model\":\"llama3\"}");
  g_autoptr(JsonNode) appended = natter_session_event_new_turn_appended (SID, TS, TID, 1, "default",
                                                                          json_node_get_object (model));
  g_autoptr(JsonNode) titled = natter_session_event_new_title_changed (SID, TS, "Trip");

  /* Absent optional fields are omitted, never written as null. */
  assert_line (minimal,
               "{\"type\":\"session_created\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\",\"schemaVersion\":1}");
  assert_line (full,
               "{\"type\":\"session_created\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\",\"schemaVersion\":1,"
               "\"title\":\"Plans\",\"cwd\":\"/home/ada\",\"parentSession\":\"" OTHER "\","
               "\"forkedFromTurnId\":\"" TID "\"}");
  assert_line (appended, APPENDED_OK);
  assert_line (titled,
               "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\",\"title\":\"Trip\"}");
}

static void
test_constructed_lines_read_back (void)
{
  g_autoptr(JsonNode) created = natter_session_event_new_created (SID, TS, "é \"quoted\"\n", "/tmp", NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = natter_json_to_line (created, NULL, &error);
  g_autoptr(JsonNode) back = NULL;

  g_assert_no_error (error);
  back = natter_json_from_line (line, -1, &error);
  g_assert_no_error (error);
  g_assert_true (natter_session_event_validate (json_node_get_object (back), SID, &error));
  g_assert_no_error (error);
  g_assert_true (json_node_equal (created, back));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/session-schema/common-fields", test_common_fields);
  g_test_add_func ("/session-schema/null-session-id-accepts-any-valid-id",
                   test_null_session_id_accepts_any_valid_id);
  g_test_add_func ("/session-schema/session-created", test_session_created);
  g_test_add_func ("/session-schema/turn-appended", test_turn_appended);
  g_test_add_func ("/session-schema/title-changed", test_title_changed);
  g_test_add_func ("/session-schema/cwd-validate", test_cwd_validate);
  g_test_add_func ("/session-schema/constructors", test_constructors);
  g_test_add_func ("/session-schema/constructed-lines-read-back", test_constructed_lines_read_back);

  return g_test_run ();
}
