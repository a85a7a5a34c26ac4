/* test-turn-runtime.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The loop of docs/runtime.md §6–§10 against a fake model, fake tools and
 * a real repository in a temporary directory. Each scenario asserts the
 * exact event types written to disk and the outcome.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-store-error.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-reducer.h"
#include "natter-turn-runtime.h"
#include "natter-test-fakes.h"

/* The fakes (model script steps, the one object that plays registry,
 * resolver, checker and classifier, the tools) are the shared ones of
 * tests/support/natter-test-fakes.c; these tools report progress. */

/* Fixture */

typedef struct
{
  GFile              *dir;
  NatterJsonlRepo    *repo;
  NatterFakeClock    *clock;
  NatterFakeWorld    *world;
  NatterTurnEventHub *hub;
  NatterTurnRuntime  *runtime;
  guint               hub_deltas;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(NatterIdGenerator) ids = NULL;
  g_autoptr(NatterToolRegistry) tools = natter_fake_tools_new_with_progress ();
  g_autoptr(NatterTurnContextResolver) contexts = NULL;

  f->dir = natter_test_make_temp_dir ();
  f->repo = natter_turn_repo_new (f->dir);
  f->clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  ids = natter_id_generator_new (NATTER_CLOCK (f->clock));
  f->world = g_object_new (NATTER_TYPE_FAKE_WORLD, NULL);
  f->hub = natter_turn_event_hub_new ();
  contexts = natter_turn_context_resolver_new (f->repo);
  f->runtime = natter_turn_runtime_new (f->repo, ids, NATTER_CLOCK (f->clock),
                                        NATTER_AGENT_RESOLVER (f->world),
                                        NATTER_MODEL_REGISTRY (f->world), tools,
                                        NATTER_CONTEXT_RESOLVER (contexts),
                                        NATTER_PERMISSION_CHECKER (f->world),
                                        NATTER_PERMISSION_CLASSIFIER (f->world),
                                        f->hub, NULL, 0);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  /* Pending idles (a cancel kick after settlement) hold the execution. */
  natter_test_drain_main_context ();
  g_assert_finalize_object (f->runtime);
  g_clear_object (&f->world);
  g_clear_object (&f->hub);
  g_clear_object (&f->repo);
  g_clear_object (&f->clock);
  natter_test_remove_tree (f->dir);
  g_clear_object (&f->dir);
}

static void
script (Fixture    *f,
        const char *first,
        ...)
{
  va_list args;

  va_start (args, first);
  for (const char *step = first; step != NULL; step = va_arg (args, const char *))
    natter_fake_model_script (f->world->model, step, NULL);
  va_end (args);
}

static char *
create_turn (Fixture    *f,
             gboolean    auto_permission,
             gboolean    human,
             guint       max_calls)
{
  g_autofree char *max = max_calls > 0 ? g_strdup_printf (",\"maxModelCalls\":%u", max_calls) : g_strdup ("");
  g_autofree char *config = g_strdup_printf ("{\"autoPermission\":%s,\"humanAvailable\":%s%s}",
                                             auto_permission ? "true" : "false", human ? "true" : "false", max);

  return natter_test_create_turn (f->runtime, NULL, config);
}

static char *
create_turn_with_context (Fixture    *f,
                          const char *context)
{
  g_autoptr(JsonNode) context_node = natter_test_json (context);

  return natter_test_create_turn (f->runtime, context_node, "{\"humanAvailable\":true}");
}

static void
created_record_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  NatterTurnCreated **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  g_assert_no_error (error);
}

static NatterTurnCreated *
create_turn_record (Fixture    *f,
                    const char *requested)
{
  g_autoptr(JsonNode) agent = natter_test_json (requested);
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\":\"user\",\"content\":\"hi\"}");
  g_autoptr(JsonNode) config = natter_test_json ("{\"humanAvailable\":true}");
  NatterTurnCreated *created = NULL;

  natter_turn_runtime_create_turn_async (f->runtime, json_node_get_object (agent), NULL, NULL,
                                         json_node_get_object (input), json_node_get_object (config),
                                         NULL, created_record_cb, &created);
  natter_test_wait_for_pointer ((gpointer *) &created, 5000);
  return created;
}

/* The caller learns the agent and model a turn resolved from create
 * itself, and they are exactly what the turn file says. */
static void
test_create_returns_resolution (Fixture       *f,
                                gconstpointer  data)
{
  g_autoptr(NatterTurnCreated) plain = create_turn_record (f, "{\"agentId\":\"helper\"}");
  g_autoptr(NatterTurnCreated) overridden =
    create_turn_record (f, "{\"agentId\":\"helper\",\"overrides\":{\"model\":{\"provider\":\"q\",\"model\":\"n\"}}}");
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *resolved;

  g_assert_cmpstr (natter_turn_created_get_agent_id (plain), ==, "helper");
  g_assert_cmpstr (natter_turn_created_get_provider (plain), ==, "p");
  g_assert_cmpstr (natter_turn_created_get_model (plain), ==, "m");
  /* A per-turn override wins over the agent's own model. */
  g_assert_cmpstr (natter_turn_created_get_agent_id (overridden), ==, "helper");
  g_assert_cmpstr (natter_turn_created_get_provider (overridden), ==, "q");
  g_assert_cmpstr (natter_turn_created_get_model (overridden), ==, "n");
  g_assert_cmpstr (natter_turn_created_get_turn_id (plain), !=, natter_turn_created_get_turn_id (overridden));

  events = natter_jsonl_repo_read_sync (f->repo, natter_turn_created_get_turn_id (overridden),
                                        NULL, NULL);
  g_assert_nonnull (events);
  resolved = json_object_get_object_member (json_object_get_object_member (json_node_get_object (g_ptr_array_index (events, 0)),
                                                                           "agent"),
                                            "resolved");
  g_assert_cmpstr (json_object_get_string_member (resolved, "agentId"), ==, "helper");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (resolved, "model"), "provider"), ==, "q");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (resolved, "model"), "model"), ==, "n");
  g_assert_true (json_object_equal (natter_turn_created_get_event (overridden),
                                    json_node_get_object (g_ptr_array_index (events, 0))));
}

static void
created_error_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GError **out = user_data;
  g_autoptr(NatterTurnCreated) created = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, out);
  g_assert_null (created);
}

static JsonArray *
resolved_tools (NatterTurnCreated *created)
{
  JsonObject *agent = json_object_get_object_member (natter_turn_created_get_event (created), "agent");

  return json_object_get_array_member (json_object_get_object_member (agent, "resolved"), "tools");
}

/* `overrides.tools: []` offers the model no tools (a summary, a title);
 * any other tool list is refused, not half applied. */
static void
test_create_without_tools (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(NatterTurnCreated) plain = create_turn_record (f, "{\"agentId\":\"helper\"}");
  g_autoptr(NatterTurnCreated) bare = create_turn_record (f, "{\"agentId\":\"helper\",\"overrides\":{\"tools\":[]}}");
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"helper\",\"overrides\":{\"tools\":[\"sa\"]}}");
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\":\"user\",\"content\":\"hi\"}");
  g_autoptr(JsonNode) config = natter_test_json ("{\"humanAvailable\":true}");
  GError *error = NULL;

  g_assert_cmpuint (json_array_get_length (resolved_tools (plain)), >, 0);
  g_assert_cmpuint (json_array_get_length (resolved_tools (bare)), ==, 0);

  natter_turn_runtime_create_turn_async (f->runtime, json_node_get_object (agent), NULL, NULL,
                                         json_node_get_object (input), json_node_get_object (config),
                                         NULL, created_error_cb, &error);
  natter_test_wait_for_pointer ((gpointer *) &error, 5000);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
}

/* Advances with an optional input literal and waits for the outcome. */
static NatterTurnOutcome *
advance (Fixture     *f,
         const char  *turn_id,
         const char  *input,
         GError     **error)
{
  g_autoptr(JsonNode) node = input != NULL ? natter_test_json (input) : NULL;
  g_autoptr(NatterTurnExecution) execution = NULL;
  NatterTestWait wait = { 0 };

  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id,
                                                node != NULL ? json_node_get_object (node) : NULL,
                                                NULL);
  natter_test_wait_execution (execution, &wait);
  g_assert_true (natter_turn_execution_get_settled (execution));
  if (error != NULL)
    *error = wait.error;
  else
    g_assert_no_error (wait.error);
  return wait.outcome;
}

/* The event types on disk, space separated. */
static char *
types_on_disk (Fixture    *f,
               const char *turn_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);
  g_autoptr(GString) types = g_string_new (NULL);

  g_assert_no_error (error);
  for (guint i = 1; i < events->len; i++)
    g_string_append_printf (types, "%s%s", i > 1 ? " " : "",
                            json_object_get_string_member (json_node_get_object (g_ptr_array_index (events, i)),
                                                           "type"));
  return g_string_free (g_steal_pointer (&types), FALSE);
}

static void
assert_types (Fixture    *f,
              const char *turn_id,
              const char *expected)
{
  g_autofree char *types = types_on_disk (f, turn_id);

  g_assert_cmpstr (types, ==, expected);
}

#define CALL(id, name, args) \
  "{\"type\":\"tool-call\",\"toolCallId\":\"" id "\",\"toolName\":\"" name "\",\"arguments\":" args "}"
#define TOOL_STEP(calls) "{\"role\":\"assistant\",\"content\":[" calls "]}"
#define TEXT_STEP "{\"role\":\"assistant\",\"content\":\"done\"}"

static void
test_plain_response (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(NatterTurnOutcome) again = NULL;

  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpstr (outcome->finish_reason, ==, "stop");
  g_assert_cmpstr (json_object_get_string_member (outcome->output, "content"), ==, "done");
  /* Deltas never reach the file. */
  assert_types (f, turn_id, "model_call_requested model_call_completed turn_completed");

  /* A terminal turn returns its outcome and writes nothing. */
  again = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (again->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed turn_completed");
}

static void
test_provider_failure (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  script (f, "ERROR", NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_cmpstr (outcome->error, ==, "provider p: HTTP 500");
  assert_types (f, turn_id, "model_call_requested model_call_failed turn_failed");
}

static void
test_sync_tool_round_trip (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  JsonArray *messages;

  script (f, TOOL_STEP (CALL ("c1", "sa", "{}")), TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_invocation_requested "
                "tool_progress tool_result model_call_requested model_call_completed turn_completed");
  messages = json_object_get_array_member (natter_fake_model_get_request (f->world->model, 1), "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "content"),
                   ==, "t.a");
}

static void
test_sync_tool_throws (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  JsonArray *messages;

  script (f, TOOL_STEP (CALL ("c1", "fail", "{}") "," CALL ("c2", "nosuch", "{}") "," CALL ("c3", "sa", "\"{bad\"")),
          TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_invocation_requested "
                "tool_result tool_result tool_result model_call_requested model_call_completed turn_completed");
  messages = json_object_get_array_member (natter_fake_model_get_request (f->world->model, 1), "messages");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "content"),
                   ==, "tool exploded");
}

static void
test_mixed_sync_async (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(NatterTurnOutcome) middle = NULL;
  g_autoptr(NatterTurnOutcome) last = NULL;
  JsonArray *messages;

  script (f, TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("B", "ab", "{}") "," CALL ("C", "sc", "{}") "," CALL ("D", "ad", "{}")),
          TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (outcome->pending_async_tools), ==, 2);
  g_assert_cmpuint (json_array_get_length (outcome->pending_permissions), ==, 0);

  /* Results arrive in reverse. */
  middle = advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"D\","
                    "\"result\":{\"output\":\"d\",\"isError\":false}}", NULL);
  g_assert_cmpint (middle->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (middle->pending_async_tools), ==, 1);
  last = advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"B\","
                  "\"result\":{\"output\":\"b\",\"isError\":false}}", NULL);
  g_assert_cmpint (last->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  /* The next request holds the results in the model's order. */
  messages = json_object_get_array_member (natter_fake_model_get_request (f->world->model, 1), "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 6);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "toolCallId"), ==, "A");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 3), "toolCallId"), ==, "B");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 4), "toolCallId"), ==, "C");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 5), "toolCallId"), ==, "D");
}

static void
test_human_permission (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) second = NULL;
  g_autoptr(NatterTurnOutcome) third = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  g_hash_table_add (f->world->needs_permission, g_strdup ("sc"));
  script (f, TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("C", "sc", "{}")), TEXT_STEP, NULL);
  first = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (first->pending_permissions), ==, 2);

  /* An input for a call that is not pending leaves the file as it is. */
  before = types_on_disk (f, turn_id);
  g_assert_null (advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"X\","
                          "\"decision\":\"allow\"}", &error));
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_INPUT);
  after = types_on_disk (f, turn_id);
  g_assert_cmpstr (before, ==, after);

  /* One approval runs its tool at once; the other stays pending. */
  second = advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"A\","
                    "\"decision\":\"allow\"}", NULL);
  g_assert_cmpint (second->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (second->pending_permissions), ==, 1);
  third = advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"C\","
                   "\"decision\":\"deny\"}", NULL);
  g_assert_cmpint (third->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed "
                "tool_permission_required tool_permission_required turn_suspended "
                "tool_permission_resolved tool_invocation_requested tool_progress tool_result turn_suspended "
                "tool_permission_resolved tool_result "
                "model_call_requested model_call_completed turn_completed");
}

static void
test_no_human_denies (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, FALSE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  script (f, TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("Q", "ask_human", "{}")), TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_permission_required tool_result "
                "tool_permission_resolved tool_result "
                "model_call_requested model_call_completed turn_completed");
}

static void
test_classifier_batch (Fixture       *f,
                       gconstpointer  data)
{
  gboolean human = GPOINTER_TO_INT (data);
  g_autofree char *turn_id = create_turn (f, TRUE, human, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  g_hash_table_add (f->world->needs_permission, g_strdup ("sc"));
  g_hash_table_add (f->world->needs_permission, g_strdup ("ab"));
  f->world->classifier_answer = g_strdup ("[{\"toolCallId\":\"A\",\"decision\":\"allow\",\"reason\":\"safe\"},"
                                          "{\"toolCallId\":\"C\",\"decision\":\"deny\",\"reason\":\"no\"},"
                                          "{\"toolCallId\":\"B\",\"decision\":\"defer\",\"reason\":\"?\"}]");
  script (f, TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("B", "ab", "{}") "," CALL ("C", "sc", "{}")),
          TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  if (human)
    {
      g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
      g_assert_cmpuint (json_array_get_length (outcome->pending_permissions), ==, 2);
      assert_types (f, turn_id,
                    "model_call_requested model_call_completed "
                    "tool_permission_required tool_permission_required tool_permission_required "
                    "tool_permission_classified tool_permission_classified tool_permission_classified "
                    "tool_permission_resolved tool_invocation_requested "
                    "tool_progress tool_result turn_suspended");
    }
  else
    {
      g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
      assert_types (f, turn_id,
                    "model_call_requested model_call_completed "
                    "tool_permission_required tool_permission_required tool_permission_required "
                    "tool_permission_classified tool_permission_classified tool_permission_classified "
                    "tool_permission_resolved tool_invocation_requested "
                    "tool_permission_resolved tool_result tool_permission_resolved tool_result "
                    "tool_progress tool_result "
                    "model_call_requested model_call_completed turn_completed");
    }
}

static void
test_classifier_failure (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, TRUE, FALSE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  script (f, TOOL_STEP (CALL ("A", "sa", "{}")), TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_permission_required "
                "tool_permission_classification_failed tool_permission_resolved tool_result "
                "model_call_requested model_call_completed turn_completed");
}

static void
test_checker_failure_fails_closed (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *required;

  f->world->checker_fails = TRUE;
  script (f, TOOL_STEP (CALL ("A", "sa", "{}")), NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_permission_required turn_suspended");
  events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);
  g_assert_no_error (error);
  required = json_node_get_object (g_ptr_array_index (events, 3));
  g_assert_cmpstr (json_object_get_string_member (required, "checkerError"), ==, "checker broke");
}

static void
test_model_call_limit (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 10);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GString) expected = g_string_new (NULL);

  for (guint i = 0; i < 10; i++)
    {
      g_autofree char *step = g_strdup_printf (TOOL_STEP (CALL ("c%u", "sa", "{}")), i);

      script (f, step, NULL);
      g_string_append (expected, "model_call_requested model_call_completed tool_invocation_requested "
                                 "tool_progress tool_result ");
    }
  g_string_append (expected, "turn_failed");
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_cmpstr (outcome->code, ==, "model-call-limit");
  g_assert_cmpstr (outcome->error, ==, "The turn reached its limit of 10 model calls");
  assert_types (f, turn_id, expected->str);
}

static void
test_cancel_while_suspended (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) cancelled = NULL;
  g_autoptr(GError) error = NULL;

  script (f, TOOL_STEP (CALL ("B", "ab", "{}")), NULL);
  first = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);

  /* The provider is gone, yet the turn can still be cancelled. */
  g_clear_object (&f->world->model);
  cancelled = advance (f, turn_id, "{\"type\":\"cancel\",\"reason\":\"user\"}", NULL);
  g_assert_cmpint (cancelled->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  g_assert_cmpstr (cancelled->reason, ==, "user");
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "turn_suspended tool_result turn_cancelled");

  /* Late inputs are rejected afterwards. */
  g_assert_null (advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"B\","
                          "\"result\":{\"output\":\"b\",\"isError\":false}}", &error));
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_TURN_ENDED);
}

static void
cancel_on_event_cb (NatterTurnExecution *execution,
                    JsonObject          *event,
                    guint64              offset,
                    GCancellable        *cancellable)
{
  if (g_str_equal (json_object_get_string_member (event, "type"), "model_call_requested"))
    g_cancellable_cancel (cancellable);
}

static void
cancel_on_invocation_cb (NatterTurnExecution *execution,
                         JsonObject          *event,
                         guint64              offset,
                         GCancellable        *cancellable)
{
  if (g_str_equal (json_object_get_string_member (event, "type"), "tool_invocation_requested"))
    g_cancellable_cancel (cancellable);
}

static void
test_cancel_during_model_call (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  NatterTestWait wait = { 0 };

  script (f, "HANG", NULL);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, cancellable);
  g_signal_connect (execution, "event", G_CALLBACK (cancel_on_event_cb), cancellable);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  outcome = wait.outcome;
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  assert_types (f, turn_id, "model_call_requested model_call_failed turn_cancelled");
}

static void
test_cancel_during_sync_tool (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  NatterTurnExecution *execution = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *result;
  NatterTestWait wait = { 0 };

  /* t.slow runs until its cancellable fires: the turn is cancelled while
   * the worker is inside the tool. */
  script (f, TOOL_STEP (CALL ("S", "slow", "{}")), NULL);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, cancellable);
  g_signal_connect (execution, "event", G_CALLBACK (cancel_on_invocation_cb), cancellable);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  outcome = wait.outcome;
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  /* A sync tool's worker holds the execution until it has returned. */
  natter_test_wait_finalized (g_steal_pointer (&execution), 10000);

  /* The worker's late answer is dropped: one runtime "cancelled" result. */
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "tool_result turn_cancelled");
  events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);
  g_assert_no_error (error);
  result = json_node_get_object (g_ptr_array_index (events, 4));
  g_assert_cmpstr (json_object_get_string_member (result, "source"), ==, "runtime");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "result"),
                                                  "output"), ==, "cancelled");
}

static void
test_cancel_before_start (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  NatterTestWait wait = { 0 };

  /* Cancelled before the lock is even taken, with the provider gone:
   * the cancellation is still written, nothing is materialized. */
  g_clear_object (&f->world->model);
  g_cancellable_cancel (cancellable);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, cancellable);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  outcome = wait.outcome;
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  assert_types (f, turn_id, "turn_cancelled");
}

static void
test_async_progress (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) progress = NULL;
  g_autoptr(NatterTurnOutcome) last = NULL;

  script (f, TOOL_STEP (CALL ("B", "ab", "{}")), TEXT_STEP, NULL);
  first = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);

  /* Progress is recorded; the call stays pending and the turn suspended. */
  progress = advance (f, turn_id, "{\"type\":\"async_tool_progress\",\"toolCallId\":\"B\","
                      "\"progress\":{\"percent\":50}}", NULL);
  g_assert_cmpint (progress->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (progress->pending_async_tools), ==, 1);
  last = advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"B\","
                  "\"result\":{\"output\":\"b\",\"isError\":false}}", NULL);
  g_assert_cmpint (last->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "turn_suspended tool_progress turn_suspended tool_result "
                            "model_call_requested model_call_completed turn_completed");
}

static void
test_async_failure (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) last = NULL;
  JsonArray *messages;

  script (f, TOOL_STEP (CALL ("B", "ab", "{}")), TEXT_STEP, NULL);
  first = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);

  /* A failed async tool is a result the model reads, not a failed turn. */
  last = advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"B\","
                  "\"result\":{\"output\":\"disk on fire\",\"isError\":true}}", NULL);
  g_assert_cmpint (last->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "turn_suspended tool_result model_call_requested model_call_completed "
                            "turn_completed");
  messages = json_object_get_array_member (natter_fake_model_get_request (f->world->model, 1), "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "content"),
                   ==, "disk on fire");
}

static void
test_recovery_open_model_call (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_strdup_printf ("{\"type\":\"model_call_requested\",\"turnId\":\"%s\","
                                           "\"ts\":\"2026-11-30T09:14:03.000Z\",\"modelCallIndex\":0,"
                                           "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}",
                                           turn_id);

  /* A crash left a request without its result. */
  g_ptr_array_add (batch, natter_test_json (line));
  natter_jsonl_repo_append_sync (f->repo, turn_id, batch, NULL, &error);
  g_assert_no_error (error);

  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_failed model_call_requested "
                            "model_call_completed turn_completed");
}

static void
test_recovery_sync_invocation (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  const char *lines[] = {
    "{\"type\":\"model_call_requested\",\"turnId\":\"%s\",\"ts\":\"2026-11-30T09:14:03.000Z\","
    "\"modelCallIndex\":0,\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}",
    "{\"type\":\"model_call_completed\",\"turnId\":\"%s\",\"ts\":\"2026-11-30T09:14:03.000Z\","
    "\"modelCallIndex\":0,\"finishReason\":\"tool_calls\",\"usage\":{},\"message\":"
    TOOL_STEP (CALL ("A", "sa", "{}")) "}",
    "{\"type\":\"tool_invocation_requested\",\"turnId\":\"%s\",\"ts\":\"2026-11-30T09:14:03.000Z\","
    "\"toolCallId\":\"A\",\"toolId\":\"t.a\",\"toolName\":\"sa\",\"execution\":\"sync\",\"input\":{}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr(GString) line = g_string_new (lines[i]);

      g_string_replace (line, "%s", turn_id, 0);

      g_ptr_array_add (batch, natter_test_json (line->str));
    }
  natter_jsonl_repo_append_sync (f->repo, turn_id, batch, NULL, &error);
  g_assert_no_error (error);

  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  /* Never re-run: an error result, then the next call. */
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "tool_result model_call_requested model_call_completed turn_completed");
}

/* Appends literal lines (each "%s" is the turn id) as if an earlier
 * process had written them and crashed. */
static void
append_lines (Fixture    *f,
              const char *turn_id,
              const char *first,
              ...)
{
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  va_list args;

  va_start (args, first);
  for (const char *text = first; text != NULL; text = va_arg (args, const char *))
    {
      g_autoptr(GString) line = g_string_new (text);

      g_string_replace (line, "%s", turn_id, 0);
      g_ptr_array_add (batch, natter_test_json (line->str));
    }
  va_end (args);
  natter_jsonl_repo_append_sync (f->repo, turn_id, batch, NULL, &error);
  g_assert_no_error (error);
}

static char *
file_contents (Fixture    *f,
               const char *turn_id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->repo, turn_id, NULL);
  g_autofree char *path = g_file_get_path (file);
  char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return contents;
}

#define LINE_HEAD "\"turnId\":\"%s\",\"ts\":\"2026-11-30T09:14:03.000Z\""
#define REQUESTED_0 \
  "{\"type\":\"model_call_requested\"," LINE_HEAD ",\"modelCallIndex\":0," \
  "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}"
#define COMPLETED_0(message) \
  "{\"type\":\"model_call_completed\"," LINE_HEAD ",\"modelCallIndex\":0," \
  "\"finishReason\":\"tool_calls\",\"usage\":{},\"message\":" message "}"
#define PERMISSION_REQUIRED(id, name) \
  "{\"type\":\"tool_permission_required\"," LINE_HEAD ",\"toolCallId\":\"" id "\"," \
  "\"toolName\":\"" name "\",\"request\":{\"ask\":\"may I?\"}}"
#define PERMISSION_ALLOWED(id) \
  "{\"type\":\"tool_permission_resolved\"," LINE_HEAD ",\"toolCallId\":\"" id "\"," \
  "\"decision\":\"allow\",\"source\":\"human\"}"
#define INVOCATION(id, tool_id, name, execution) \
  "{\"type\":\"tool_invocation_requested\"," LINE_HEAD ",\"toolCallId\":\"" id "\"," \
  "\"toolId\":\"" tool_id "\",\"toolName\":\"" name "\",\"execution\":\"" execution "\",\"input\":{}}"
#define RESULT(id, name) \
  "{\"type\":\"tool_result\"," LINE_HEAD ",\"toolCallId\":\"" id "\",\"toolName\":\"" name "\"," \
  "\"source\":\"sync\",\"result\":{\"output\":\"ok\",\"isError\":false}}"

static void
test_recovery_only_created (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  /* A crash right after create: the first model call is made. */
  assert_types (f, turn_id, "");
  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed turn_completed");
}

static void
test_recovery_permissions_partly_done (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  /* The crash came after A's permission record, before C's. */
  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  g_hash_table_add (f->world->needs_permission, g_strdup ("sc"));
  append_lines (f, turn_id, REQUESTED_0,
                COMPLETED_0 (TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("C", "sc", "{}"))),
                PERMISSION_REQUIRED ("A", "sa"), NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (outcome->pending_permissions), ==, 2);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_permission_required "
                            "tool_permission_required turn_suspended");
}

static void
test_recovery_allow_without_invocation (Fixture       *f,
                                        gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;

  g_hash_table_add (f->world->needs_permission, g_strdup ("sa"));
  append_lines (f, turn_id, REQUESTED_0, COMPLETED_0 (TOOL_STEP (CALL ("A", "sa", "{}"))),
                PERMISSION_REQUIRED ("A", "sa"), PERMISSION_ALLOWED ("A"), NULL);
  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_permission_required "
                            "tool_permission_resolved tool_invocation_requested tool_progress "
                            "tool_result model_call_requested model_call_completed turn_completed");
}

static void
test_recovery_async_invocation (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(NatterTurnOutcome) again = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  /* Exposed but never suspended: the suspension is written, nothing is
   * re-run, and the turn stays suspended. */
  append_lines (f, turn_id, REQUESTED_0, COMPLETED_0 (TOOL_STEP (CALL ("B", "ab", "{}"))),
                INVOCATION ("B", "t.b", "ab", "async"), NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (outcome->pending_async_tools), ==, 1);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "turn_suspended");

  before = file_contents (f, turn_id);
  again = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (again->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  after = file_contents (f, turn_id);
  g_assert_cmpstr (before, ==, after);
}

static void
test_recovery_all_results (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  JsonObject *request;

  append_lines (f, turn_id, REQUESTED_0, COMPLETED_0 (TOOL_STEP (CALL ("A", "sa", "{}"))),
                INVOCATION ("A", "t.a", "sa", "sync"), RESULT ("A", "sa"), NULL);
  script (f, TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "tool_result model_call_requested model_call_completed turn_completed");
  /* The next call carries the whole transcript: input, answer, result. */
  request = natter_fake_model_get_request (f->world->model, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (request, "messages")), ==, 3);
}

static void
test_recovery_terminal (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  append_lines (f, turn_id, REQUESTED_0,
                "{\"type\":\"model_call_failed\"," LINE_HEAD ",\"modelCallIndex\":0,\"error\":\"boom\"}",
                "{\"type\":\"turn_failed\"," LINE_HEAD ",\"error\":\"boom\",\"usage\":{}}", NULL);
  before = file_contents (f, turn_id);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_cmpstr (outcome->error, ==, "boom");
  after = file_contents (f, turn_id);
  g_assert_cmpstr (before, ==, after);
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->world->model), ==, 0);
}

static void
test_model_call_limit_answer (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 10);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GString) expected = g_string_new (NULL);

  /* Nine tool rounds, then a tool-free answer on call 10: completed. */
  for (guint i = 0; i < 9; i++)
    {
      g_autofree char *step = g_strdup_printf (TOOL_STEP (CALL ("c%u", "sa", "{}")), i);

      script (f, step, NULL);
      g_string_append (expected, "model_call_requested model_call_completed tool_invocation_requested "
                                 "tool_progress tool_result ");
    }
  script (f, TEXT_STEP, NULL);
  g_string_append (expected, "model_call_requested model_call_completed turn_completed");
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->world->model), ==, 10);
  assert_types (f, turn_id, expected->str);
}

/* Swaps the turn file for a directory while the model streams, so the
 * next append fails in the repo. */
static void
break_file_hook (gpointer model,
                 gpointer user_data)
{
  char **paths = user_data;

  g_assert_cmpint (g_rename (paths[0], paths[1]), ==, 0);
  g_assert_cmpint (g_mkdir (paths[0], 0700), ==, 0);
}

static void
count_event_cb (NatterTurnExecution *execution,
                JsonObject          *event,
                guint64              offset,
                GPtrArray           *types)
{
  g_ptr_array_add (types, g_strdup (json_object_get_string_member (event, "type")));
}

static void
test_repository_error (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->repo, turn_id, NULL);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *aside = g_strconcat (path, ".aside", NULL);
  char *paths[] = { path, aside };
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(GPtrArray) streamed = g_ptr_array_new_with_free_func (g_free);
  NatterTestWait wait = { 0 };

  natter_fake_model_set_hook (f->world->model, break_file_hook, paths);
  script (f, NATTER_FAKE_STEP_HOOK, NULL);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, NULL);
  g_signal_connect (execution, "event", G_CALLBACK (count_event_cb), streamed);
  natter_test_wait_execution (execution, &wait);

  /* The outcome is the repo's error; the stream carried only what was
   * written; no turn_failed was appended for an infrastructure error. */
  g_assert_null (wait.outcome);
  g_assert_nonnull (wait.error);
  g_assert_true (wait.error->domain == G_IO_ERROR || wait.error->domain == NATTER_STORE_ERROR);
  g_clear_error (&wait.error);
  g_assert_cmpuint (streamed->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (streamed, 0), ==, "model_call_requested");

  g_assert_cmpint (g_rmdir (path), ==, 0);
  g_assert_cmpint (g_rename (aside, path), ==, 0);
  assert_types (f, turn_id, "model_call_requested");
}

typedef struct
{
  NatterTurnState *live;
  guint64          next_offset;
} Live;

static void
live_event_cb (NatterTurnExecution *execution,
               JsonObject          *event,
               guint64              offset,
               Live                *live)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (offset, ==, live->next_offset);
  live->next_offset++;
  natter_turn_state_apply (live->live, event, &error);
  g_assert_no_error (error);
}

/* Advances once while applying each emitted event to @live. */
static NatterTurnOutcome *
advance_live (Fixture    *f,
              const char *turn_id,
              const char *input,
              Live       *live)
{
  g_autoptr(JsonNode) node = input != NULL ? natter_test_json (input) : NULL;
  g_autoptr(NatterTurnExecution) execution = NULL;
  NatterTestWait wait = { 0 };

  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id,
                                                node != NULL ? json_node_get_object (node) : NULL,
                                                NULL);
  g_signal_connect (execution, "event", G_CALLBACK (live_event_cb), live);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  return wait.outcome;
}

static void
test_live_equals_replay (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GPtrArray) start = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) replay = NULL;
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) last = NULL;
  g_autoptr(GError) error = NULL;
  Live live = { 0 };

  g_hash_table_add (f->world->needs_permission, g_strdup ("sc"));
  script (f, "+" TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("B", "ab", "{}") "," CALL ("C", "sc", "{}")),
          "+" TEXT_STEP, NULL);

  start = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);
  g_assert_no_error (error);
  live.live = natter_turn_reduce (start, &error);
  g_assert_no_error (error);
  live.next_offset = 2;

  first = advance_live (f, turn_id, NULL, &live);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_clear_pointer (&first, natter_turn_outcome_unref);
  first = advance_live (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"C\","
                        "\"decision\":\"allow\"}", &live);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  last = advance_live (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"B\","
                       "\"result\":{\"output\":\"b\",\"isError\":false}}", &live);
  g_assert_cmpint (last->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (live.next_offset, ==, events->len + 1);
  replay = natter_turn_reduce (events, &error);
  g_assert_no_error (error);
  g_assert_true (natter_turn_state_equal (live.live, replay));
  natter_turn_state_unref (live.live);
}

typedef struct
{
  GString *text;
  GString *reasoning;
  guint    n_hub;
} Deltas;

static void
execution_delta_cb (NatterTurnExecution *execution,
                    guint                model_call_index,
                    int                  kind,
                    const char          *text,
                    Deltas              *deltas)
{
  g_string_append (kind == NATTER_DELTA_TEXT ? deltas->text : deltas->reasoning, text);
}

static void
hub_delta_cb (NatterTurnEventHub *hub,
              const char         *turn_id,
              guint               model_call_index,
              int                 kind,
              const char         *text,
              Deltas             *deltas)
{
  deltas->n_hub++;
}

static void
test_deltas_never_written (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *contents = NULL;
  Deltas deltas = { g_string_new (NULL), g_string_new (NULL), 0 };
  gulong hub_id;
  NatterTestWait wait = { 0 };

  script (f, "+" TEXT_STEP, NULL);
  hub_id = g_signal_connect (f->hub, "delta", G_CALLBACK (hub_delta_cb), &deltas);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, NULL);
  g_signal_connect (execution, "delta", G_CALLBACK (execution_delta_cb), &deltas);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  outcome = wait.outcome;
  g_signal_handler_disconnect (f->hub, hub_id);

  /* The listeners had every delta... */
  g_assert_cmpstr (deltas.text->str, ==, "delta");
  g_assert_cmpstr (deltas.reasoning->str, ==, "hm");
  g_assert_cmpuint (deltas.n_hub, ==, 3);
  /* ...the file has none, only the normalized step event. */
  assert_types (f, turn_id, "model_call_requested model_step_event model_call_completed turn_completed");
  contents = file_contents (f, turn_id);
  g_assert_null (strstr (contents, "_delta"));
  g_assert_null (strstr (contents, "\"hm\""));
  g_assert_null (strstr (contents, "\"del\""));
  g_string_free (deltas.text, TRUE);
  g_string_free (deltas.reasoning, TRUE);
}

/* A consumer that falls behind: it only queues what the hub hands it and
 * drains later, from low-priority idles. Signals are synchronous, so a
 * listener that blocks the main loop blocks everything on it; what the
 * runtime promises is that emission is never a barrier on its progress
 * (it never waits for a listener to acknowledge or drain, and keeps no
 * per-listener buffer). So the turn must settle while this consumer has
 * processed nothing, and the consumer must then find every event, in
 * order, with contiguous offsets. */
typedef struct
{
  const char *turn_id;
  GQueue      queue;        /* JsonObject, not yet processed */
  gboolean    draining;
  guint64     last_offset;
  GPtrArray  *processed;    /* char *type */
  gboolean    done;
} SlowConsumer;

static void
slow_hub_event_cb (NatterTurnEventHub *hub,
                   const char         *turn_id,
                   JsonObject         *event,
                   guint64             offset,
                   SlowConsumer       *consumer)
{
  JsonObject *copy = json_object_new ();

  if (g_strcmp0 (turn_id, consumer->turn_id) != 0)
    return;
  /* The event is read-only and belongs to the runtime: keep a copy. */
  json_object_set_string_member (copy, "type", json_object_get_string_member (event, "type"));
  json_object_set_int_member (copy, "offset", (gint64) offset);
  g_queue_push_tail (&consumer->queue, copy);
}

static gboolean
slow_drain_one (gpointer data)
{
  SlowConsumer *consumer = data;
  g_autoptr(JsonObject) event = g_queue_pop_head (&consumer->queue);

  if (event == NULL)
    {
      consumer->done = TRUE;
      return G_SOURCE_REMOVE;
    }
  g_assert_cmpuint ((guint64) json_object_get_int_member (event, "offset"), ==,
                    consumer->last_offset + 1);
  consumer->last_offset++;
  g_ptr_array_add (consumer->processed,
                   g_strdup (json_object_get_string_member (event, "type")));
  return G_SOURCE_CONTINUE;
}

static void
test_slow_listener (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *joined = NULL;
  g_autofree char *types = NULL;
  SlowConsumer consumer = { 0 };
  gulong id;

  consumer.turn_id = turn_id;
  consumer.last_offset = 1;   /* the consumer read turn_created itself */
  consumer.processed = g_ptr_array_new_with_free_func (g_free);
  g_queue_init (&consumer.queue);
  id = g_signal_connect (f->hub, "event", G_CALLBACK (slow_hub_event_cb), &consumer);

  script (f, TOOL_STEP (CALL ("A", "sa", "{}") "," CALL ("C", "sc", "{}")), TEXT_STEP, NULL);
  outcome = advance (f, turn_id, NULL, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpuint (consumer.processed->len, ==, 0);
  g_assert_cmpuint (consumer.queue.length, ==, 11);

  g_idle_add_full (G_PRIORITY_LOW, slow_drain_one, &consumer, NULL);
  natter_test_wait_for_flag (&consumer.done, 5000);
  g_signal_handler_disconnect (f->hub, id);
  g_ptr_array_add (consumer.processed, NULL);
  joined = g_strjoinv (" ", (char **) consumer.processed->pdata);
  types = types_on_disk (f, turn_id);
  g_assert_cmpstr (joined, ==, types);
  g_ptr_array_unref (consumer.processed);
}

static void
processing_end_cb (NatterTurnEventHub *hub,
                   const char         *turn_id,
                   gboolean           *ended)
{
  *ended = TRUE;
}

static void
test_absent_listener (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  NatterTurnExecution *execution;
  gboolean ended = FALSE;
  gpointer weak;
  gulong id;

  /* Nobody connects and the caller drops the execution at once: it is
   * hot, so the turn still runs to its end and then goes away. */
  script (f, TOOL_STEP (CALL ("A", "sa", "{}")), TEXT_STEP, NULL);
  id = g_signal_connect (f->hub, "turn-processing-end", G_CALLBACK (processing_end_cb), &ended);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, NULL, NULL);
  weak = execution;
  g_object_add_weak_pointer (G_OBJECT (execution), &weak);
  g_object_unref (execution);
  g_assert_nonnull (weak);
  natter_test_wait_for_flag (&ended, 10000);
  g_signal_handler_disconnect (f->hub, id);
  assert_types (f, turn_id, "model_call_requested model_call_completed tool_invocation_requested "
                            "tool_progress tool_result model_call_requested model_call_completed "
                            "turn_completed");
  while (weak != NULL)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_previous_turn_context (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *first = create_turn (f, FALSE, TRUE, 0);
  g_autofree char *second = NULL;
  g_autofree char *context = NULL;
  g_autoptr(NatterTurnOutcome) one = NULL;
  g_autoptr(NatterTurnOutcome) two = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *request;
  JsonArray *messages;

  script (f, TOOL_STEP (CALL ("A", "sa", "{}")), TEXT_STEP, TEXT_STEP, NULL);
  one = advance (f, first, NULL, NULL);
  g_assert_cmpint (one->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  context = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", first);
  second = create_turn_with_context (f, context);
  two = advance (f, second, NULL, NULL);
  g_assert_cmpint (two->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  /* The file stores a reference; the wire carries the closed transcript
   * of the first turn, then the new input. */
  events = natter_jsonl_repo_read_sync (f->repo, second, NULL, &error);
  g_assert_no_error (error);
  request = json_object_get_object_member (json_node_get_object (g_ptr_array_index (events, 1)),
                                           "request");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (request, "contextRef"),
                                                  "previousTurnId"), ==, first);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (request, "messages")), ==, 1);

  messages = json_object_get_array_member (natter_fake_model_get_request (f->world->model, 2), "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "role"), ==, "user");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 1), "role"), ==, "assistant");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "role"), ==, "tool");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 3), "content"), ==, "done");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 4), "content"), ==, "hi");
}

static void
test_corrupt_file_appends_nothing (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->repo, turn_id, NULL);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *contents = NULL;
  g_autofree char *torn = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  torn = g_strconcat (contents, "{\"type\":\"model_call_req", NULL);
  g_assert_true (g_file_set_contents (path, torn, -1, NULL));

  g_assert_null (advance (f, turn_id, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, torn);
}

static void
test_missing_model_appends_nothing (Fixture       *f,
                                    gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GError) error = NULL;

  g_clear_object (&f->world->model);
  g_assert_null (advance (f, turn_id, NULL, &error));
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND);
  assert_types (f, turn_id, "");
}

static void
got_turn_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GPtrArray **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = natter_turn_runtime_get_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  g_assert_no_error (error);
}

static void
test_get_turn_read_only (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f, FALSE, TRUE, 0);
  g_autoptr(GPtrArray) events = NULL;

  natter_turn_runtime_get_turn_async (f->runtime, turn_id, NULL, got_turn_cb, &events);
  natter_test_wait_for_pointer ((gpointer *) &events, 5000);
  g_assert_cmpuint (events->len, ==, 1);
  assert_types (f, turn_id, "");
}

static void
test_unknown_agent_creates_nothing (Fixture       *f,
                                    gconstpointer  data)
{
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"nobody\"}");
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\":\"user\",\"content\":\"hi\"}");
  g_autoptr(JsonNode) config = natter_test_json ("{\"humanAvailable\":true}");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;

  natter_turn_runtime_create_turn_async (f->runtime, json_node_get_object (agent), NULL, NULL,
                                         json_node_get_object (input), json_node_get_object (config),
                                         NULL, NULL, NULL);
  /* Runs synchronously up to the resolver; nothing was created. */
  natter_test_drain_main_context ();
  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func, data) \
  g_test_add ("/turn-runtime/" path, Fixture, data, fixture_set_up, func, fixture_tear_down)

  ADD ("plain-response", test_plain_response, NULL);
  ADD ("create-returns-resolution", test_create_returns_resolution, NULL);
  ADD ("create-without-tools", test_create_without_tools, NULL);
  ADD ("provider-failure", test_provider_failure, NULL);
  ADD ("sync-tool-round-trip", test_sync_tool_round_trip, NULL);
  ADD ("sync-tool-throws", test_sync_tool_throws, NULL);
  ADD ("mixed-sync-async", test_mixed_sync_async, NULL);
  ADD ("human-permission-partial", test_human_permission, NULL);
  ADD ("no-human-denies", test_no_human_denies, NULL);
  ADD ("classifier-batch-with-human", test_classifier_batch, GINT_TO_POINTER (TRUE));
  ADD ("classifier-batch-without-human", test_classifier_batch, GINT_TO_POINTER (FALSE));
  ADD ("classifier-failure", test_classifier_failure, NULL);
  ADD ("checker-failure-fails-closed", test_checker_failure_fails_closed, NULL);
  ADD ("model-call-limit-tools-on-last-call", test_model_call_limit, NULL);
  ADD ("model-call-limit-answer-on-last-call", test_model_call_limit_answer, NULL);
  ADD ("cancel-while-suspended", test_cancel_while_suspended, NULL);
  ADD ("cancel-provider-gone", test_cancel_while_suspended, NULL);
  ADD ("cancel-during-model-call", test_cancel_during_model_call, NULL);
  ADD ("cancel-during-sync-tool", test_cancel_during_sync_tool, NULL);
  ADD ("cancel-before-start", test_cancel_before_start, NULL);
  ADD ("async-progress", test_async_progress, NULL);
  ADD ("async-failure", test_async_failure, NULL);
  ADD ("recovery-only-created", test_recovery_only_created, NULL);
  ADD ("recovery-open-model-call", test_recovery_open_model_call, NULL);
  ADD ("recovery-permissions-partly-done", test_recovery_permissions_partly_done, NULL);
  ADD ("recovery-allow-without-invocation", test_recovery_allow_without_invocation, NULL);
  ADD ("recovery-sync-invocation", test_recovery_sync_invocation, NULL);
  ADD ("recovery-async-invocation-stays-suspended", test_recovery_async_invocation, NULL);
  ADD ("recovery-all-results-next-call", test_recovery_all_results, NULL);
  ADD ("recovery-terminal-writes-nothing", test_recovery_terminal, NULL);
  ADD ("recovery-corrupt-file", test_corrupt_file_appends_nothing, NULL);
  ADD ("repository-error", test_repository_error, NULL);
  ADD ("live-equals-replay", test_live_equals_replay, NULL);
  ADD ("deltas-never-written", test_deltas_never_written, NULL);
  ADD ("slow-listener", test_slow_listener, NULL);
  ADD ("absent-listener", test_absent_listener, NULL);
  ADD ("previous-turn-context", test_previous_turn_context, NULL);
  ADD ("corrupt-file-appends-nothing", test_corrupt_file_appends_nothing, NULL);
  ADD ("missing-model-appends-nothing", test_missing_model_appends_nothing, NULL);
  ADD ("get-turn-read-only", test_get_turn_read_only, NULL);
  ADD ("unknown-agent-creates-nothing", test_unknown_agent_creates_nothing, NULL);

  return g_test_run ();
}
