/* test-session-params.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A conversation's generation parameters (docs/format.md §3.5,
 * docs/sessions.md §15): `parameters_changed` is a closed event of session
 * schema version 3, refused in a file at an older version and read back
 * by the reducer and the fast scan alike; the session service keeps them
 * in the original of a conversation, raising its file one version at a
 * time, and every later turn of any of its versions carries them, under
 * a message's own.
 */

#include <string.h>

#include "natter-jsonl-repo.h"
#include "natter-session-parameters-event.h"
#include "natter-session-scan.h"
#include "natter-session-schema.h"
#include "natter-session-grants-queue.h"
#include "natter-session-parameters-state.h"
#include "natter-sessions-queue.h"
#include "natter-sessions-settings.h"
#include "natter-store-error.h"
#include "natter-test-sessions.h"
#include "natter-test-support.h"

#define SID "2026-11-30T09-14-03Z-0000001-000"
#define TS  "2026-11-30T09:14:03.100Z"
#define HEAD(type) "{\"type\":\"" type "\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\""

#define CREATED(v) HEAD ("session_created") ",\"schemaVersion\":" #v "}"
#define UPGRADED(v) HEAD ("schema_upgraded") ",\"schemaVersion\":" #v "}"
#define PARAMS(body) HEAD ("parameters_changed") "," body "}"

typedef NatterTestSessions Fixture;

/* The event */

static void
test_validation (void)
{
  static const struct { const char *line; int code; } cases[] = {
    { PARAMS ("\"parameters\":{}"), 0 },
    { PARAMS ("\"parameters\":{\"temperature\":0.7,\"top_p\":1,\"max_tokens\":512,\"seed\":-3},"
              "\"systemInstruction\":\"Be brief.\""), 0 },
    { PARAMS ("\"parameters\":{\"temperature\":2}"), 0 },
    { PARAMS ("\"parameters\":{\"temperature\":2.5}"), NATTER_STORE_ERROR_SCHEMA },
    { PARAMS ("\"parameters\":{\"temperature\":\"0.7\"}"), NATTER_STORE_ERROR_SCHEMA },
    { PARAMS ("\"parameters\":{\"top_p\":-0.1}"), NATTER_STORE_ERROR_SCHEMA },
    { PARAMS ("\"parameters\":{\"max_tokens\":0}"), NATTER_STORE_ERROR_SCHEMA },
    { PARAMS ("\"parameters\":{\"max_tokens\":1.5}"), NATTER_STORE_ERROR_SCHEMA },
    { PARAMS ("\"parameters\":{\"seed\":1.5}"), NATTER_STORE_ERROR_SCHEMA },
    { PARAMS ("\"parameters\":{\"stop\":[\"x\"]}"), NATTER_STORE_ERROR_SCHEMA },
    { PARAMS ("\"parameters\":{},\"systemInstruction\":\"\""), NATTER_STORE_ERROR_SCHEMA },
    { PARAMS ("\"parameters\":{},\"systemInstruction\":7"), NATTER_STORE_ERROR_SCHEMA },
    { PARAMS ("\"parameters\":{},\"pinned\":true"), NATTER_STORE_ERROR_SCHEMA },
    { HEAD ("parameters_changed") "}", NATTER_STORE_ERROR_SCHEMA },
    { HEAD ("parameters_renamed") ",\"parameters\":{}}", NATTER_STORE_ERROR_UNKNOWN_TYPE },
    { CREATED (3), 0 },
    { CREATED (5), NATTER_STORE_ERROR_UNSUPPORTED_VERSION },
    { UPGRADED (3), 0 },
    { UPGRADED (5), NATTER_STORE_ERROR_UNSUPPORTED_VERSION },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    natter_test_assert_session_event (cases[i].line, SID, cases[i].code);
}

static NatterSessionState *
reduce (const char  *first,
        ...)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  NatterSessionState *state;
  const char *line;
  va_list args;

  va_start (args, first);
  for (line = first; line != NULL; line = va_arg (args, const char *))
    g_ptr_array_add (events, natter_test_json (line));
  va_end (args);
  state = natter_session_reduce (events, &error);
  if (state == NULL)
    g_test_message ("%s", error->message);
  return state;
}

static void
assert_refused (const char *message_part,
                const char *first,
                ...)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  const char *line;
  va_list args;

  va_start (args, first);
  for (line = first; line != NULL; line = va_arg (args, const char *))
    g_ptr_array_add (events, natter_test_json (line));
  va_end (args);
  state = natter_session_reduce (events, &error);
  g_assert_null (state);
  g_assert_nonnull (error);
  if (strstr (error->message, message_part) == NULL)
    g_error ("“%s” does not say “%s”", error->message, message_part);
}

/* The text a cache keeps is read as any file is: one nested 100,000
 * deep is refused with its reason (json-glib would overflow the stack). */
static void
test_text_too_deep_refused (void)
{
  g_autofree char *open = g_strnfill (100000, '[');
  g_autofree char *close = g_strnfill (100000, ']');
  g_autofree char *text = g_strdup_printf ("{\"parameters\":{\"temperature\":%s%s}}", open, close);
  g_autoptr(NatterGenerationParameters) parameters = NULL;
  g_autoptr(GError) error = NULL;

  parameters = natter_generation_parameters_new_from_text (text, &error);
  g_assert_null (parameters);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_TOO_DEEP);
}

/* Version 3 is reached one step at a time, from files created at 1. */
static void
test_needs_version_3 (void)
{
  g_autoptr(NatterSessionState) raised = NULL;
  g_autoptr(NatterSessionState) created_at_3 = NULL;

  assert_refused ("parameters_changed needs session schema version 3; the file is at version 1",
                  CREATED (1), PARAMS ("\"parameters\":{}"), NULL);
  assert_refused ("parameters_changed needs session schema version 3; the file is at version 2",
                  CREATED (1), UPGRADED (2), PARAMS ("\"parameters\":{}"), NULL);
  assert_refused ("schema_upgraded to version 3 in a file at version 1", CREATED (1), UPGRADED (3), NULL);
  assert_refused ("schema_upgraded to version 3 in a file at version 3", CREATED (3), UPGRADED (3), NULL);

  raised = reduce (CREATED (1), UPGRADED (2), UPGRADED (3), PARAMS ("\"parameters\":{\"seed\":1}"), NULL);
  g_assert_nonnull (raised);
  g_assert_cmpint (natter_session_state_get_schema_version (raised), ==, 3);
  created_at_3 = reduce (CREATED (3), PARAMS ("\"parameters\":{\"seed\":1}"), NULL);
  g_assert_nonnull (created_at_3);
}

/* The last parameters_changed is the whole truth; `{}` clears. */
static void
test_last_one_wins (void)
{
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionState) cleared = NULL;
  const NatterGenerationParameters *parameters;

  state = reduce (CREATED (3),
                  PARAMS ("\"parameters\":{\"temperature\":0.2,\"seed\":5},\"systemInstruction\":\"Old.\""),
                  PARAMS ("\"parameters\":{\"top_p\":0.5},\"systemInstruction\":\"New.\""), NULL);
  parameters = natter_session_state_get_parameters (state);
  g_assert_nonnull (parameters);
  g_assert_false (parameters->has_temperature);
  g_assert_false (parameters->has_seed);
  g_assert_true (parameters->has_top_p);
  g_assert_cmpfloat (parameters->top_p, ==, 0.5);
  g_assert_cmpstr (parameters->system_instruction, ==, "New.");

  cleared = reduce (CREATED (3), PARAMS ("\"parameters\":{\"temperature\":0.2}"), PARAMS ("\"parameters\":{}"),
                    NULL);
  g_assert_null (natter_session_state_get_parameters (cleared));
}

/* The startup scan reads what the reducer reads, and refuses what it
 * refuses (lines as Natter writes them: a double such as 0.3 is stored
 * as 0.29999999999999999, so exact binary fractions are used here). */
static void
test_scan_agrees (void)
{
  static const struct { const char *contents; gboolean valid; } files[] = {
    { CREATED (1) "\n" UPGRADED (2) "\n" UPGRADED (3) "\n"
      PARAMS ("\"parameters\":{\"temperature\":0.25,\"max_tokens\":9},\"systemInstruction\":\"Hi\"") "\n", TRUE },
    { CREATED (3) "\n" PARAMS ("\"parameters\":{\"seed\":2}") "\n" PARAMS ("\"parameters\":{}") "\n", TRUE },
    { CREATED (1) "\n" PARAMS ("\"parameters\":{}") "\n", FALSE },
    { CREATED (2) "\n" PARAMS ("\"parameters\":{}") "\n", FALSE },
    { CREATED (3) "\n" PARAMS ("\"parameters\":{\"temperature\":9}") "\n", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
      g_auto(GStrv) lines = g_strsplit (files[i].contents, "\n", -1);
      g_autoptr(NatterSessionState) state = NULL;
      g_auto(NatterSessionScanResult) fast = { 0 };
      gboolean fast_ok;

      for (guint j = 0; lines[j] != NULL && lines[j][0] != '\0'; j++)
        g_ptr_array_add (events, natter_test_json (lines[j]));
      state = natter_session_reduce (events, NULL);
      fast_ok = natter_session_scan_contents (files[i].contents, strlen (files[i].contents), SID, &fast);
      g_test_message ("%s", files[i].contents);
      g_assert_cmpint (state != NULL, ==, files[i].valid);
      g_assert_cmpint (fast_ok, ==, files[i].valid);
      if (state != NULL)
        g_assert_true (natter_generation_parameters_equal (fast.parameters,
                                                           natter_session_state_get_parameters (state)));
    }
}

/* Through the session service */

static void
set_parameters (Fixture                          *f,
                const char                       *session_id,
                const NatterGenerationParameters *parameters)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_parameters_async (f->sessions, session_id, parameters, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_parameters_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                        &error));
  g_assert_no_error (error);
}

static JsonObject *
turn_created (Fixture    *f,
              const char *turn_id)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->w->turn_repo, turn_id);

  return json_object_ref (natter_test_find_type (events, "turn_created"));
}

static void
test_kept_for_every_version (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create_titled (f, "Kept");
  g_autofree char *first = NULL;
  g_autofree char *version = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autoptr(NatterGenerationParameters) own = natter_generation_parameters_new ();
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionState) version_state = NULL;
  g_autoptr(JsonObject) plain = NULL;
  g_autoptr(JsonObject) kept = NULL;
  g_autoptr(JsonObject) overlaid = NULL;
  g_autoptr(GFile) file = NULL;
  JsonObject *config_parameters;
  JsonObject *agent;
  JsonObject *overrides;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = natter_test_sessions_send_and_wait (f, sid, "one");
  plain = turn_created (f, first);
  g_assert_false (json_object_has_member (json_object_get_object_member (plain, "config"), "parameters"));

  /* Kept from a version: written to the original, read by both. */
  version = natter_test_sessions_fork (f, sid, first, "Kept");
  parameters->has_temperature = TRUE;
  parameters->temperature = 0.25;
  parameters->max_tokens = 100;
  natter_generation_parameters_set_system_instruction (parameters, "  Answer in French.\n");
  set_parameters (f, version, parameters);
  state = natter_test_sessions_get (f, sid);
  g_assert_cmpint (natter_session_state_get_schema_version (state), ==, 3);
  g_assert_true (natter_generation_parameters_equal (natter_session_state_get_parameters (state), parameters));
  version_state = natter_test_sessions_get (f, version);
  g_assert_null (natter_session_state_get_parameters (version_state));
  g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->sessions, version),
                                                     parameters));

  /* The same again writes nothing. */
  file = natter_jsonl_repo_get_file (f->w->session_repo, sid, NULL);
  before = natter_test_read_file (g_file_peek_path (file), NULL);
  set_parameters (f, sid, parameters);
  after = natter_test_read_file (g_file_peek_path (file), NULL);
  g_assert_cmpstr (before, ==, after);

  second = natter_test_sessions_send_and_wait (f, version, "two");
  kept = turn_created (f, second);
  config_parameters = json_object_get_object_member (json_object_get_object_member (kept, "config"), "parameters");
  g_assert_cmpfloat (json_object_get_double_member (config_parameters, "temperature"), ==, 0.25);
  g_assert_cmpint (json_object_get_int_member (config_parameters, "max_tokens"), ==, 100);
  g_assert_cmpuint (json_object_get_size (config_parameters), ==, 2);
  agent = json_object_get_object_member (kept, "agent");
  overrides = json_object_get_object_member (json_object_get_object_member (agent, "requested"), "overrides");
  g_assert_cmpstr (json_object_get_string_member (overrides, "systemInstruction"), ==, "Answer in French.");
  g_assert_true (g_str_has_suffix (json_object_get_string_member (json_object_get_object_member (agent, "resolved"),
                                                                  "systemPrompt"), "Answer in French."));

  /* A message's own win member by member, for that turn only. */
  {
    g_autoptr(JsonObject) input = json_object_new ();
    g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GAsyncResult) waited = NULL;
    g_autoptr(GError) error = NULL;

    own->has_temperature = TRUE;
    own->temperature = 1.5;
    own->has_seed = TRUE;
    own->seed = 42;
    natter_send_options_set_parameters (options, own);
    json_object_set_string_member (input, "role", "user");
    json_object_set_string_member (input, "content", "three");
    natter_sessions_send_message_async (f->sessions, sid, input, options, NULL, natter_test_result_cb, &result);
    third = natter_sessions_send_message_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
    g_assert_no_error (error);
    natter_sessions_wait_for_turn_async (f->sessions, third, NULL, natter_test_result_cb, &waited);
    g_assert_true (natter_sessions_wait_for_turn_finish (f->sessions, natter_test_sessions_wait_result (&waited),
                                                         &error));
    natter_test_sessions_wait_idle (f);
  }
  overlaid = turn_created (f, third);
  config_parameters = json_object_get_object_member (json_object_get_object_member (overlaid, "config"),
                                                     "parameters");
  g_assert_cmpfloat (json_object_get_double_member (config_parameters, "temperature"), ==, 1.5);
  g_assert_cmpint (json_object_get_int_member (config_parameters, "seed"), ==, 42);
  g_assert_cmpint (json_object_get_int_member (config_parameters, "max_tokens"), ==, 100);
  g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->sessions, sid),
                                                     parameters));
}

/* The file is raised 1 → 2 → 3 in the write of its first
 * parameters_changed; clearing is one more event, never a rewrite. */
static void
test_raised_then_cleared (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  const char *types[] = { "session_created", "schema_upgraded", "schema_upgraded", "parameters_changed",
                          "parameters_changed" };

  parameters->has_seed = TRUE;
  parameters->seed = 9;
  set_parameters (f, sid, parameters);
  set_parameters (f, sid, NULL);
  events = natter_test_sessions_read (f->w->session_repo, sid);
  g_assert_cmpuint (events->len, ==, G_N_ELEMENTS (types));
  for (guint i = 0; i < events->len; i++)
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (g_ptr_array_index (events, i)), "type"),
                     ==, types[i]);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (g_ptr_array_index (events, 0)),
                                               "schemaVersion"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (g_ptr_array_index (events, 2)),
                                               "schemaVersion"), ==, 3);
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (
                      json_node_get_object (g_ptr_array_index (events, 4)), "parameters")), ==, 0);
  state = natter_test_sessions_get (f, sid);
  g_assert_null (natter_session_state_get_parameters (state));
  g_assert_null (natter_sessions_get_kept_parameters (f->sessions, sid));
}

/* A message with parameters of its own never waits in the queue, which
 * keeps none: it is refused with a reason, and nothing is written. */
static void
test_own_parameters_not_queued (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (f);
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(NatterGenerationParameters) own = natter_generation_parameters_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *queue_id = NULL;

  own->max_tokens = 5;
  natter_send_options_set_parameters (options, own);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "later");
  natter_sessions_queue_message_async (f->sessions, sid, input, options, FALSE, NULL, natter_test_result_cb, &result);
  queue_id = natter_sessions_queue_message_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_null (queue_id);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "cannot wait in the queue"));
  events = natter_test_sessions_read (f->w->session_repo, sid);
  g_assert_cmpuint (events->len, ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/session-params/validation", test_validation);
  g_test_add_func ("/session-params/needs-version-3", test_needs_version_3);
  g_test_add_func ("/session-params/text-too-deep-refused", test_text_too_deep_refused);
  g_test_add_func ("/session-params/last-one-wins", test_last_one_wins);
  g_test_add_func ("/session-params/scan-agrees", test_scan_agrees);
  g_test_add ("/session-params/kept-for-every-version", Fixture, NULL, natter_test_sessions_set_up,
              test_kept_for_every_version, natter_test_sessions_tear_down);
  g_test_add ("/session-params/raised-then-cleared", Fixture, NULL, natter_test_sessions_set_up,
              test_raised_then_cleared, natter_test_sessions_tear_down);
  g_test_add ("/session-params/own-parameters-not-queued", Fixture, NULL, natter_test_sessions_set_up,
              test_own_parameters_not_queued, natter_test_sessions_tear_down);
  return g_test_run ();
}
