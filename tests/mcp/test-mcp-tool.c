/* test-mcp-tool.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tool servers' tools as the model and the turn see them: the names
 * (sanitized, at most 64 characters, collisions resolved the same way
 * every time), the results (text, images, resource links, isError,
 * structured content), and whole turns through the real runtime, the
 * fail-closed permission checker and the fake MCP server of tests/data/mcp:
 * a call allowed, a call denied (the server never sees it), and the
 * turn read back once the server is gone.
 */

#include "natter-builtin-agent-resolver.h"
#include "natter-builtin-tools.h"
#include "natter-config-agent-resolver.h"
#include "natter-runtime-error.h"
#include "natter-json.h"
#include "natter-default-permission-checker.h"
#include "natter-mcp-manager.h"
#include "natter-mcp-tool.h"
#include "natter-test-fakes.h"
#include "natter-test-support.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-runtime.h"

#define WAIT_MS 20000

/* ---- names --------------------------------------------------------- */

static void
assert_alphabet (const char *name)
{
  g_assert_cmpuint (strlen (name), <=, NATTER_MCP_TOOL_NAME_MAX);
  for (const char *p = name; *p != '\0'; p++)
    g_assert_true (g_ascii_isalnum (*p) || *p == '_' || *p == '-');
}

static void
test_names_sanitized (void)
{
  g_autofree char *plain = natter_mcp_tool_name ("everything", "get-sum");
  g_autofree char *odd = natter_mcp_tool_name ("my server", "get.weather/now é");
  g_autofree char *long_name = natter_mcp_tool_name ("a-server-with-a-rather-long-name",
                                                     "and_a_tool_whose_name_goes_on_and_on_and_on");
  g_autofree char *again = natter_mcp_tool_name ("a-server-with-a-rather-long-name",
                                                 "and_a_tool_whose_name_goes_on_and_on_and_on");

  g_assert_cmpstr (plain, ==, "mcp__everything__get-sum");
  g_assert_cmpstr (odd, ==, "mcp__my_server__get_weather_now___");
  assert_alphabet (odd);
  g_assert_cmpuint (strlen (long_name), ==, NATTER_MCP_TOOL_NAME_MAX);
  assert_alphabet (long_name);
  g_assert_true (g_str_has_prefix (long_name, "mcp__a-server-with-a-rather-long-name__and_a_tool"));
  g_assert_cmpstr (long_name, ==, again);
}

static void
test_names_collisions (void)
{
  const char *servers[] = { "a b", "a_b", "a.b", "other", NULL };
  const char *tools[] = { "x", "x", "x", "x", NULL };
  g_auto(GStrv) names = natter_mcp_tool_names_assign (servers, tools);
  g_auto(GStrv) same = natter_mcp_tool_names_assign (servers, tools);

  g_assert_cmpuint (g_strv_length (names), ==, 4);
  /* The first keeps the plain name; the later ones get a suffix of
   * their own, the same on every run. */
  g_assert_cmpstr (names[0], ==, "mcp__a_b__x");
  g_assert_true (g_str_has_prefix (names[1], "mcp__a_b__x_"));
  g_assert_cmpuint (strlen (names[1]), ==, strlen ("mcp__a_b__x_") + 8);
  g_assert_true (g_str_has_prefix (names[2], "mcp__a_b__x_"));
  g_assert_cmpstr (names[1], !=, names[2]);
  g_assert_cmpstr (names[3], ==, "mcp__other__x");
  for (guint i = 0; names[i] != NULL; i++)
    {
      assert_alphabet (names[i]);
      g_assert_cmpstr (names[i], ==, same[i]);
    }
}

/* ---- results ------------------------------------------------------- */

static void
test_result_mapping (void)
{
  g_autoptr(JsonNode) answer = natter_test_json (
    "{\"content\": ["
    "  {\"type\": \"text\", \"text\": \"Here it is:\"},"
    "  {\"type\": \"image\", \"mimeType\": \"image/png\", \"data\": \"iVBORw0KGgo=\"},"
    "  {\"type\": \"resource_link\", \"uri\": \"file:///tmp/a.txt\", \"name\": \"a.txt\"}],"
    " \"structuredContent\": {\"sum\": 5}}");
  g_autoptr(JsonNode) failed = natter_test_json ("{\"content\": [{\"type\": \"text\", \"text\": \"no\"}],"
                                                 " \"isError\": true}");
  g_autoptr(JsonObject) result = natter_mcp_tool_map_result ("srv", "tool", json_node_get_object (answer));
  g_autoptr(JsonObject) error = natter_mcp_tool_map_result ("srv", "tool", json_node_get_object (failed));
  g_autoptr(JsonNode) result_node = json_node_init_object (json_node_alloc (), result);
  JsonObject *mcp;

  g_assert_cmpstr (json_object_get_string_member (result, "output"), ==,
                   "Here it is:\n[image: image/png]\n[resource link: a.txt] file:///tmp/a.txt");
  g_assert_false (json_object_get_boolean_member (result, "isError"));
  mcp = json_object_get_object_member (json_object_get_object_member (result, "metadata"), "mcp");
  g_assert_cmpstr (json_object_get_string_member (mcp, "server"), ==, "srv");
  /* The text is in the output; the image and the link only here. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (mcp, "content")), ==, 2);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (mcp, "structuredContent"), "sum"), ==, 5);
  /* A result goes into a turn file as it is: it must be lossless JSON. */
  g_assert_true (natter_json_check_lossless (result_node, NULL));

  g_assert_true (json_object_get_boolean_member (error, "isError"));
  g_assert_cmpstr (json_object_get_string_member (error, "output"), ==, "no");
}

/* ---- turns --------------------------------------------------------- */

typedef struct
{
  GFile                      *dir;
  char                       *config;
  NatterJsonlRepo            *repo;
  NatterFakeClock            *clock;
  NatterFakeWorld            *world;
  NatterToolRegistry         *tools;
  NatterBuiltinAgentResolver *agents;
  NatterMcpManager           *mcp;
  NatterTurnEventHub         *hub;
  NatterTurnRuntime          *runtime;
} Fixture;

static void
refreshed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_assert_true (natter_mcp_manager_refresh_finish (NATTER_MCP_MANAGER (object), result, NULL));
  *(gboolean *) user_data = TRUE;
}

/* @data: NULL, or one more argument for the fake server ("--odd"). */
static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  g_autofree char *text = NULL;
  g_autoptr(NatterIdGenerator) ids = NULL;
  g_autoptr(NatterTurnContextResolver) contexts = NULL;
  g_autoptr(NatterDefaultPermissionChecker) checker = NULL;
  g_autoptr(GError) error = NULL;
  gboolean refreshed = FALSE;

  f->dir = natter_test_make_temp_dir ();
  f->config = g_build_filename (g_file_peek_path (f->dir), "mcp.json", NULL);
  /* @data: one more argument for the server, or NULL. */
  text = g_strdup_printf ("{\"mcpServers\": {\"fake\": {\"command\": \"%s\", \"args\": [\"%s\"%s%s%s]}}}", python,
                          script, data != NULL ? ", \"" : "", data != NULL ? (const char *) data : "",
                          data != NULL ? "\"" : "");
  g_file_set_contents (f->config, text, -1, &error);
  g_assert_no_error (error);

  f->repo = natter_turn_repo_new (f->dir);
  f->clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  ids = natter_id_generator_new (NATTER_CLOCK (f->clock));
  f->world = g_object_new (NATTER_TYPE_FAKE_WORLD, NULL);
  f->tools = natter_tool_registry_new ();
  natter_builtin_tools_register (f->tools, NATTER_CLOCK (f->clock));
  f->agents = natter_builtin_agent_resolver_new (f->tools);
  natter_builtin_agent_resolver_set_default_model (f->agents, "p", "m");
  f->mcp = natter_mcp_manager_new (f->config, f->tools);
  natter_mcp_manager_refresh_async (f->mcp, NULL, refreshed_cb, &refreshed);
  natter_test_wait_for_flag (&refreshed, WAIT_MS);
  natter_builtin_agent_resolver_set_extra_tools (f->agents, natter_mcp_manager_get_descriptors (f->mcp));

  f->hub = natter_turn_event_hub_new ();
  contexts = natter_turn_context_resolver_new (f->repo);
  checker = natter_default_permission_checker_new (f->tools, NULL);
  f->runtime = natter_turn_runtime_new (f->repo, ids, NATTER_CLOCK (f->clock), NATTER_AGENT_RESOLVER (f->agents),
                                        NATTER_MODEL_REGISTRY (f->world), f->tools,
                                        NATTER_CONTEXT_RESOLVER (contexts), NATTER_PERMISSION_CHECKER (checker),
                                        NATTER_PERMISSION_CLASSIFIER (f->world), f->hub, NULL, 0);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  natter_test_drain_main_context ();
  g_clear_object (&f->runtime);
  g_clear_object (&f->mcp);
  g_clear_object (&f->agents);
  g_clear_object (&f->tools);
  g_clear_object (&f->world);
  g_clear_object (&f->hub);
  g_clear_object (&f->repo);
  g_clear_object (&f->clock);
  g_free (f->config);
  natter_test_remove_tree (f->dir);
  g_clear_object (&f->dir);
}

static char *
create_turn (Fixture *f)
{
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\": \"assistant\"}");
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\": \"user\", \"content\": \"echo hi\"}");
  g_autoptr(JsonNode) config = natter_test_json ("{\"humanAvailable\": true}");

  return natter_test_create_turn_full (f->runtime, json_node_get_object (agent), NULL,
                                       json_node_get_object (input), json_node_get_object (config));
}

static NatterTurnOutcome *
advance (Fixture    *f,
         const char *turn_id,
         const char *input)
{
  g_autoptr(JsonNode) node = input != NULL ? natter_test_json (input) : NULL;
  g_autoptr(NatterTurnExecution) execution = NULL;
  NatterTestWait wait = { 0 };

  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, node != NULL ? json_node_get_object (node) : NULL,
                                                NULL);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  return wait.outcome;
}

/* The event of @type on disk (the last one). */
static JsonObject *
event_on_disk (Fixture    *f,
               const char *turn_id,
               const char *type)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);
  JsonObject *found = NULL;

  g_assert_no_error (error);
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i));

      if (g_str_equal (json_object_get_string_member (event, "type"), type))
        found = event;
    }
  g_assert_nonnull (found);
  return json_object_ref (found);
}

typedef struct
{
  gboolean      done;
  GAsyncResult *result;
} Wait;

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = g_object_ref (result);
  wait->done = TRUE;
}

/* What the fake server was asked to run (its hidden "seen" tool). */
static char *
server_saw (Fixture *f)
{
  NatterMcpClient *client = g_ptr_array_index (natter_mcp_manager_get_clients (f->mcp), 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  Wait wait = { 0 };

  natter_mcp_client_call_tool_async (client, "seen", NULL, NULL, wait_cb, &wait);
  natter_test_wait_for_flag (&wait.done, WAIT_MS);
  result = natter_mcp_client_call_tool_finish (client, wait.result, &error);
  g_object_unref (wait.result);
  g_assert_no_error (error);
  return g_strdup (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (result, "content"), 0), "text"));
}

/* Only the call: the turn is expected to stop at the permission question. */
static void
script_echo_call (Fixture *f)
{
  natter_fake_model_script (f->world->model,
                            "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"toolCallId\":\"c1\","
                            "\"toolName\":\"mcp__fake__echo\",\"arguments\":{\"message\":\"hi\"}}]}", NULL);
}

static void
script_echo (Fixture *f)
{
  natter_fake_model_script (f->world->model,
                            "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"toolCallId\":\"c1\","
                            "\"toolName\":\"mcp__fake__echo\",\"arguments\":{\"message\":\"hi\"}}]}", NULL);
  natter_fake_model_script (f->world->model, "{\"role\":\"assistant\",\"content\":\"done\"}", NULL);
}

static void
test_turn_denied (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) second = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *saw = NULL;

  script_echo (f);
  first = advance (f, turn_id, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  second = advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"c1\",\"decision\":\"deny\"}");
  g_assert_cmpint (second->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  result = event_on_disk (f, turn_id, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (result, "source"), ==, "runtime");
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (result, "result"), "isError"));
  saw = server_saw (f);
  g_assert_cmpstr (saw, ==, "[]");
}

static void
test_turn_allowed (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) second = NULL;
  g_autoptr(JsonObject) required = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonNode) request = NULL;
  JsonObject *payload;
  JsonArray *tools;
  gboolean offered = FALSE;

  script_echo (f);
  first = advance (f, turn_id, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);

  /* The model was offered the server's tool with its description and
   * schema. */
  payload = natter_fake_model_get_request (f->world->model, 0);
  tools = json_object_get_array_member (payload, "tools");
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (tool, "name", NULL), "mcp__fake__echo") == 0)
        {
          g_assert_cmpstr (json_object_get_string_member (tool, "description"), ==, "Says the message back");
          g_assert_true (json_object_has_member (json_object_get_object_member (json_object_get_object_member (tool, "inputSchema"), "properties"), "message"));
          offered = TRUE;
        }
    }
  g_assert_true (offered);

  /* Permission is asked, naming the server. */
  required = event_on_disk (f, turn_id, "tool_permission_required");
  request = json_node_copy (json_object_get_member (required, "request"));
  natter_test_assert_json_equal (request, "{\"server\": \"fake\", \"tool\": \"echo\", \"arguments\": {\"message\": \"hi\"}}");

  second = advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"c1\",\"decision\":\"allow\"}");
  g_assert_cmpint (second->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  result = event_on_disk (f, turn_id, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "result"), "output"), ==,
                   "echo: hi");
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (result, "result"), "isError"));

  g_autofree char *saw = server_saw (f);

  g_assert_cmpstr (saw, ==, "[\"echo\"]");
  /* The server is removed: the turn reads back whole. */
  g_clear_object (&f->mcp);
  {
    g_autoptr(JsonObject) again = event_on_disk (f, turn_id, "tool_result");
    JsonObject *mcp = json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (again, "result"), "metadata"), "mcp");

    g_assert_cmpstr (json_object_get_string_member (mcp, "server"), ==, "fake");
    g_assert_cmpstr (json_object_get_string_member (mcp, "tool"), ==, "echo");
  }
}

/* A result holding what no stored string can (a lone surrogate, NUL)
 * does not stall the turn: it is stored with U+FFFD in their place
 * (docs/format.md §2), U+001F exactly, and reads back. */
static void
test_turn_odd_result (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) second = NULL;
  g_autoptr(JsonObject) result = NULL;

  natter_fake_model_script (f->world->model,
                            "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"toolCallId\":\"c1\","
                            "\"toolName\":\"mcp__fake__odd\",\"arguments\":{}}]}", NULL);
  natter_fake_model_script (f->world->model, "{\"role\":\"assistant\",\"content\":\"done\"}", NULL);
  first = advance (f, turn_id, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  second = advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"c1\",\"decision\":\"allow\"}");
  g_assert_cmpint (second->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  result = event_on_disk (f, turn_id, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "result"), "output"), ==,
                   "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\x1f" "d");
}

/* ---- grants -------------------------------------------------------- */

/* The session grants the runtime consults, kept in a table of
 * "session tool" → grant id, so a test grants and revokes directly. */
#define TEST_TYPE_GRANTS (test_grants_get_type ())
G_DECLARE_FINAL_TYPE (TestGrants, test_grants, TEST, GRANTS, GObject)

struct _TestGrants
{
  GObject     parent_instance;
  GHashTable *grants;
};

static char *
test_grants_lookup (NatterPermissionGrants *grants,
                    const char             *session_id,
                    const char             *tool_id)
{
  g_autofree char *key = g_strdup_printf ("%s %s", session_id, tool_id);

  return g_strdup (g_hash_table_lookup (TEST_GRANTS (grants)->grants, key));
}

static void
test_grants_iface_init (NatterPermissionGrantsInterface *iface)
{
  iface->lookup = test_grants_lookup;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestGrants, test_grants, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_PERMISSION_GRANTS, test_grants_iface_init))

static void
test_grants_finalize (GObject *object)
{
  g_hash_table_unref (TEST_GRANTS (object)->grants);
  G_OBJECT_CLASS (test_grants_parent_class)->finalize (object);
}

static void
test_grants_class_init (TestGrantsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_grants_finalize;
}

static void
test_grants_init (TestGrants *self)
{
  self->grants = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static void
created_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterTurnCreated) created = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  g_assert_no_error (error);
  *(char **) user_data = g_strdup (natter_turn_created_get_turn_id (created));
}

/* A turn of the session @session_id, so its calls may be granted. */
static char *
create_session_turn (Fixture    *f,
                     const char *session_id)
{
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\": \"assistant\"}");
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\": \"user\", \"content\": \"echo hi\"}");
  g_autoptr(JsonNode) config = natter_test_json ("{\"humanAvailable\": true}");
  char *turn_id = NULL;

  natter_turn_runtime_create_turn_async (f->runtime, json_node_get_object (agent), session_id, NULL,
                                         json_node_get_object (input), json_node_get_object (config), NULL,
                                         created_cb, &turn_id);
  natter_test_wait_for_pointer ((gpointer *) &turn_id, WAIT_MS);
  return turn_id;
}

/* A grant for a server's tool covers its calls exactly as it does a
 * built-in tool's: the call runs without asking and the turn records the
 * grant; the grant belongs to one session; once revoked, the tool asks
 * again. */
static void
test_turn_granted (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(TestGrants) grants = g_object_new (TEST_TYPE_GRANTS, NULL);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NATTER_CLOCK (f->clock));
  g_autofree char *s1 = natter_id_generator_next (ids);
  g_autofree char *s2 = natter_id_generator_next (ids);
  g_autofree char *key = NULL;
  g_autofree char *granted_turn = NULL;
  g_autofree char *other_session_turn = NULL;
  g_autofree char *revoked_turn = NULL;
  g_autoptr(NatterTurnOutcome) granted = NULL;
  g_autoptr(NatterTurnOutcome) other_session = NULL;
  g_autoptr(NatterTurnOutcome) revoked = NULL;
  g_autoptr(JsonObject) invocation = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *saw = NULL;

  natter_turn_runtime_set_permission_grants (f->runtime, NATTER_PERMISSION_GRANTS (grants));
  key = g_strdup_printf ("%s mcp:fake/echo", s1);
  g_hash_table_insert (grants->grants, g_strdup (key), g_strdup ("g1"));

  granted_turn = create_session_turn (f, s1);
  script_echo (f);
  granted = advance (f, granted_turn, NULL);
  g_assert_cmpint (granted->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  invocation = event_on_disk (f, granted_turn, "tool_invocation_requested");
  g_assert_cmpstr (json_object_get_string_member (invocation, "toolId"), ==, "mcp:fake/echo");
  g_assert_cmpstr (json_object_get_string_member (invocation, "grantId"), ==, "g1");
  result = event_on_disk (f, granted_turn, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "result"), "output"), ==,
                   "echo: hi");
  saw = server_saw (f);
  g_assert_cmpstr (saw, ==, "[\"echo\"]");

  /* Another session is not covered. */
  other_session_turn = create_session_turn (f, s2);
  script_echo_call (f);
  other_session = advance (f, other_session_turn, NULL);
  g_assert_cmpint (other_session->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);

  /* Revoked: the same tool in the same session asks again. */
  g_hash_table_remove (grants->grants, key);
  revoked_turn = create_session_turn (f, s1);
  script_echo_call (f);
  revoked = advance (f, revoked_turn, NULL);
  g_assert_cmpint (revoked->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  {
    g_autoptr(JsonObject) required = event_on_disk (f, revoked_turn, "tool_permission_required");

    g_assert_cmpstr (json_object_get_string_member (required, "toolCallId"), ==, "c1");
  }
  natter_turn_runtime_set_permission_grants (f->runtime, NULL);
}

static void
cancel_on_notification_cb (NatterMcpClient *client,
                           const char      *method,
                           JsonObject      *params,
                           GCancellable    *stop)
{
  if (g_str_equal (method, "notifications/message"))
    g_cancellable_cancel (stop);
}

/* Stop while the server works on a call: the turn is cancelled and the
 * server is told with notifications/cancelled. */
static void
test_turn_stopped (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(GCancellable) stop = g_cancellable_new ();
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonNode) input = natter_test_json ("{\"type\":\"permission_decision\",\"toolCallId\":\"c1\","
                                                "\"decision\":\"allow\"}");
  NatterMcpClient *client = g_ptr_array_index (natter_mcp_manager_get_clients (f->mcp), 0);
  NatterTestWait wait = { 0 };
  Wait call = { 0 };
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonNode) cancelled = NULL;
  g_autoptr(GError) error = NULL;

  natter_fake_model_script (f->world->model,
                            "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"toolCallId\":\"c1\","
                            "\"toolName\":\"mcp__fake__hang\",\"arguments\":{}}]}", NULL);
  first = advance (f, turn_id, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_signal_connect (client, "notification", G_CALLBACK (cancel_on_notification_cb), stop);
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id, json_node_get_object (input), stop);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpint (wait.outcome->kind, ==, NATTER_TURN_OUTCOME_CANCELLED);
  g_clear_pointer (&wait.outcome, natter_turn_outcome_unref);
  result = event_on_disk (f, turn_id, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "result"), "output"), ==,
                   "cancelled");

  natter_mcp_client_call_tool_async (client, "last_cancelled", NULL, NULL, wait_cb, &call);
  natter_test_wait_for_flag (&call.done, WAIT_MS);
  answer = natter_mcp_client_call_tool_finish (client, call.result, &error);
  g_object_unref (call.result);
  g_assert_no_error (error);
  cancelled = natter_test_json (json_object_get_string_member (
    json_array_get_object_element (json_object_get_array_member (answer, "content"), 0), "text"));
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (cancelled), "reason"), ==,
                   "stopped by the user");
  g_signal_handlers_disconnect_by_data (client, stop);
}

static void
set_flag_cb (gpointer  data,
             GObject  *where_the_object_was)
{
  *(gboolean *) data = TRUE;
}

/* A server that never answers its handshake holds up the first refresh
 * that asks it at most the handshake limit, offering the other server's
 * tools meanwhile, and never a later refresh: a command forwarded to the
 * running window (its `send`, `mcp list`) does not wait for it again. */
static void
test_hung_server_waited_once (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autofree char *config = g_build_filename (g_file_peek_path (dir), "mcp.json", NULL);
  g_autofree char *text = g_strdup_printf ("{\"mcpServers\": {"
                                           " \"fake\": {\"command\": \"%s\", \"args\": [\"%s\"]},"
                                           " \"hung\": {\"command\": \"%s\", \"args\": [\"%s\", \"--hang-handshake\"]}}}",
                                           python, script, python, script);
  g_autoptr(NatterToolRegistry) tools = natter_tool_registry_new ();
  g_autoptr(GError) error = NULL;
  NatterMcpManager *mcp;
  NatterMcpClient *fake;
  NatterMcpClient *hung;
  gboolean refreshed = FALSE;
  gboolean again = FALSE;
  gboolean finalized = FALSE;
  gint64 started;

  g_file_set_contents (config, text, -1, &error);
  g_assert_no_error (error);
  mcp = natter_mcp_manager_new (config, tools);
  fake = natter_mcp_manager_find_client (mcp, "fake");
  hung = natter_mcp_manager_find_client (mcp, "hung");

  natter_mcp_manager_refresh_async (mcp, NULL, refreshed_cb, &refreshed);
  natter_test_wait_for_flag (&refreshed, WAIT_MS);
  g_assert_nonnull (natter_mcp_manager_get_server_tools (mcp, fake));
  g_assert_null (natter_mcp_manager_get_server_tools (mcp, hung));
  g_assert_cmpint (natter_mcp_client_get_state (hung), ==, NATTER_MCP_CLIENT_STATE_CONNECTING);
  g_assert_nonnull (natter_tool_registry_lookup (tools, "mcp:fake/echo"));
  for (guint i = 0; i < json_array_get_length (natter_mcp_manager_get_descriptors (mcp)); i++)
    g_assert_false (g_str_has_prefix (json_object_get_string_member (
      json_array_get_object_element (natter_mcp_manager_get_descriptors (mcp), i), "name"), "mcp__hung__"));

  /* The next refresh asks the good server for its list again but does
   * not wait for the hung one: it ends with the hung server still
   * starting, before a second handshake limit could have passed. */
  started = g_get_monotonic_time ();
  natter_mcp_manager_refresh_async (mcp, NULL, refreshed_cb, &again);
  natter_test_wait_for_flag (&again, WAIT_MS);
  g_assert_cmpint (g_get_monotonic_time () - started, <, NATTER_MCP_HANDSHAKE_TIMEOUT_SECONDS * G_USEC_PER_SEC);
  g_assert_cmpint (natter_mcp_client_get_state (hung), ==, NATTER_MCP_CLIENT_STATE_CONNECTING);

  /* Stopped, the servers let go of the lists still asked for. */
  g_object_weak_ref (G_OBJECT (mcp), set_flag_cb, &finalized);
  natter_mcp_client_stop (hung);
  natter_mcp_client_stop (fake);
  g_object_unref (mcp);
  natter_test_wait_for_flag (&finalized, WAIT_MS);
  natter_test_remove_tree (dir);
}

/* A user agent offers the tools of the servers it lists; a server that
 * offers none now stops the turn before it starts. */
static void
test_agent_tool_servers (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GFile) agents_dir = g_file_get_child (f->dir, "agents");
  g_autoptr(NatterAgentStore) store = natter_agent_store_new (agents_dir);
  g_autoptr(NatterConfigAgentResolver) resolver = natter_config_agent_resolver_new (f->agents, store, f->tools);
  g_autoptr(JsonNode) uses = natter_test_json ("{\"agentId\":\"helper\",\"name\":\"Helper\",\"systemPrompt\":\"\","
                                               "\"tools\":[],\"toolServers\":[\"fake\"]}");
  g_autoptr(JsonNode) ghost = natter_test_json ("{\"agentId\":\"ghostly\",\"name\":\"Ghostly\",\"systemPrompt\":\"\","
                                                "\"tools\":[],\"toolServers\":[\"ghost\"]}");
  g_autoptr(JsonNode) twice = natter_test_json ("{\"agentId\":\"x\",\"name\":\"X\",\"systemPrompt\":\"\","
                                                "\"tools\":[],\"toolServers\":[\"a\",\"a\"]}");
  g_autoptr(JsonNode) requested = natter_test_json ("{\"agentId\":\"helper\"}");
  g_autoptr(JsonNode) requested_ghost = natter_test_json ("{\"agentId\":\"ghostly\"}");
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(JsonObject) none = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *tools;

  g_assert_true (natter_agent_store_save (store, json_node_get_object (uses), &error));
  g_assert_no_error (error);
  g_assert_true (natter_agent_store_save (store, json_node_get_object (ghost), &error));
  g_assert_no_error (error);
  g_assert_false (natter_agent_store_validate (json_node_get_object (twice), &error));
  g_assert_nonnull (strstr (error->message, "“toolServers” lists “a” twice"));
  g_clear_error (&error);

  agent = natter_agent_resolver_resolve (NATTER_AGENT_RESOLVER (resolver), json_node_get_object (requested), &error);
  g_assert_no_error (error);
  tools = json_object_get_array_member (agent, "tools");
  g_assert_cmpuint (json_array_get_length (tools), ==, 6);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 0), "name"), ==,
                   "mcp__fake__echo");

  none = natter_agent_resolver_resolve (NATTER_AGENT_RESOLVER (resolver), json_node_get_object (requested_ghost),
                                        &error);
  g_assert_null (none);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT);
  g_assert_nonnull (strstr (error->message, "uses the tool server “ghost”, which offers no tools now"));
}

/* ---- mcp.json followed while running ------------------------------ */

static void
flag_cb (gpointer  instance,
         gboolean *flag)
{
  *flag = TRUE;
}

/* Writes @text as mcp.json (replaced whole, as editors and
 * natter_mcp_config_update() do) and waits until the manager read it
 * and, when @tools_too, registered the tools of the servers it found. */
static void
rewrite_and_wait (Fixture    *f,
                  const char *text,
                  gboolean    tools_too)
{
  g_autoptr(GError) error = NULL;
  gboolean read = FALSE;
  gboolean listed = FALSE;
  gulong read_id = g_signal_connect (f->mcp, "config-changed", G_CALLBACK (flag_cb), &read);
  gulong listed_id = g_signal_connect (f->mcp, "tools-changed", G_CALLBACK (flag_cb), &listed);

  g_file_set_contents (f->config, text, -1, &error);
  g_assert_no_error (error);
  natter_test_wait_for_flag (&read, WAIT_MS);
  if (tools_too)
    natter_test_wait_for_flag (&listed, WAIT_MS);
  g_signal_handler_disconnect (f->mcp, read_id);
  g_signal_handler_disconnect (f->mcp, listed_id);
}

/* A server added, changed or removed in mcp.json while Natter runs is
 * picked up without a restart; an unchanged server keeps running; a file
 * that does not parse is said and the servers from before stay. */
static void
test_config_watched (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  g_autofree char *two = g_strdup_printf ("{\"mcpServers\": {\"fake\": {\"command\": \"%s\", \"args\": [\"%s\"]},"
                                          " \"second\": {\"command\": \"%s\", \"args\": [\"%s\"]}}}",
                                          python, script, python, script);
  g_autofree char *one = g_strdup_printf ("{\"mcpServers\": {\"fake\": {\"command\": \"%s\", \"args\": [\"%s\"]}}}",
                                          python, script);
  GPtrArray *clients = natter_mcp_manager_get_clients (f->mcp);
  g_autoptr(NatterMcpClient) first = g_object_ref (g_ptr_array_index (clients, 0));

  natter_mcp_manager_watch (f->mcp);
  g_assert_cmpuint (natter_mcp_manager_count_tools (f->mcp, "fake"), ==, 6);

  rewrite_and_wait (f, two, TRUE);
  clients = natter_mcp_manager_get_clients (f->mcp);
  g_assert_cmpuint (clients->len, ==, 2);
  g_assert_true (g_ptr_array_index (clients, 0) == first);
  g_assert_cmpint (natter_mcp_client_get_state (first), ==, NATTER_MCP_CLIENT_STATE_READY);
  g_assert_cmpuint (natter_mcp_manager_count_tools (f->mcp, "second"), ==, 6);
  g_assert_null (natter_mcp_manager_get_config_error (f->mcp));

  rewrite_and_wait (f, "{\"mcpServers\": {\"fake\": ", FALSE);
  g_assert_nonnull (natter_mcp_manager_get_config_error (f->mcp));
  g_assert_nonnull (strstr (natter_mcp_manager_get_config_error (f->mcp), "is not valid JSON"));
  clients = natter_mcp_manager_get_clients (f->mcp);
  g_assert_cmpuint (clients->len, ==, 2);
  g_assert_cmpuint (natter_mcp_manager_count_tools (f->mcp, "second"), ==, 6);

  rewrite_and_wait (f, one, TRUE);
  g_assert_null (natter_mcp_manager_get_config_error (f->mcp));
  clients = natter_mcp_manager_get_clients (f->mcp);
  g_assert_cmpuint (clients->len, ==, 1);
  g_assert_true (g_ptr_array_index (clients, 0) == first);
  g_assert_cmpuint (natter_mcp_manager_count_tools (f->mcp, "second"), ==, 0);
  g_assert_cmpuint (natter_mcp_manager_count_tools (f->mcp, "fake"), ==, 6);
}

/* A text of @size bytes as the fake server's "big" makes it. */
static char *
big_text (gsize size)
{
  GString *text = g_string_new (NULL);

  while (text->len < size - 3)
    g_string_append (text, "0123456789");
  g_string_truncate (text, size - 3);
  g_string_append (text, "END");
  return g_string_free (text, FALSE);
}

/* A result is kept once: a text that fits is the output and nothing
 * else (a server-filesystem read repeats it as structuredContent, which
 * stored it three times), and structuredContent that is not a copy of a
 * text stays. */
static void
test_result_stored_once (void)
{
  g_autofree char *text = big_text (100000);
  g_autoptr(JsonObject) answer = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) other = natter_test_json ("{\"content\": [{\"type\": \"text\", \"text\": \"3 files\"}],"
                                                " \"structuredContent\": {\"count\": 3}}");
  g_autoptr(JsonObject) summarized = NULL;
  g_autofree char *line = NULL;
  JsonObject *item = json_object_new ();
  JsonObject *structured = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *mcp;

  json_object_set_string_member (item, "type", "text");
  json_object_set_string_member (item, "text", text);
  json_array_add_object_element (content, item);
  json_object_set_array_member (answer, "content", content);
  json_object_set_string_member (structured, "content", text);
  json_object_set_object_member (answer, "structuredContent", structured);

  result = natter_mcp_tool_map_result ("files", "read", answer);
  g_assert_cmpstr (json_object_get_string_member (result, "output"), ==, text);
  mcp = json_object_get_object_member (json_object_get_object_member (result, "metadata"), "mcp");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (mcp, "content")), ==, 0);
  g_assert_false (json_object_has_member (mcp, "structuredContent"));
  g_assert_false (json_object_has_member (mcp, "truncated"));
  node = json_node_init_object (json_node_alloc (), result);
  line = natter_json_to_line (node, NULL, NULL);
  g_assert_cmpuint (strlen (line), <, 100000 + 200);

  summarized = natter_mcp_tool_map_result ("files", "count", json_node_get_object (other));
  mcp = json_object_get_object_member (json_object_get_object_member (summarized, "metadata"), "mcp");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (mcp, "structuredContent"), "count"), ==, 3);
}

/* A tool server's 5 MB result reaches the model cut to 256 KiB, saying
 * so and how long the whole was; the turn file keeps what the model read,
 * once, and notes the cut. */
static void
test_turn_big_result (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *turn_id = create_turn (f);
  g_autoptr(NatterTurnOutcome) first = NULL;
  g_autoptr(NatterTurnOutcome) second = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autofree char *note = g_strdup_printf ("\n[truncated: %d of 5000000 bytes shown]", NATTER_TOOL_OUTPUT_MAX_BYTES);
  g_autofree char *start = big_text (1000);
  JsonObject *request;
  JsonArray *messages;
  JsonObject *tool_message;
  const char *output;
  const char *sent;
  JsonObject *mcp;

  natter_fake_model_script (f->world->model,
                            "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"toolCallId\":\"c1\","
                            "\"toolName\":\"mcp__fake__big\",\"arguments\":{\"bytes\":5000000}}]}", NULL);
  natter_fake_model_script (f->world->model, "{\"role\":\"assistant\",\"content\":\"done\"}", NULL);
  first = advance (f, turn_id, NULL);
  g_assert_cmpint (first->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  second = advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"c1\",\"decision\":\"allow\"}");
  g_assert_cmpint (second->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  result = event_on_disk (f, turn_id, "tool_result");
  output = json_object_get_string_member (json_object_get_object_member (result, "result"), "output");
  start[990] = '\0';
  g_assert_true (g_str_has_prefix (output, start));
  g_assert_true (g_str_has_suffix (output, note));
  g_assert_cmpuint (strlen (output), ==, NATTER_TOOL_OUTPUT_MAX_BYTES + strlen (note));
  mcp = json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (result, "result"),
                                                                      "metadata"), "mcp");
  g_assert_true (json_object_get_boolean_member (mcp, "truncated"));
  g_assert_cmpint (json_object_get_int_member (mcp, "textBytes"), ==, 5000000);
  g_assert_false (json_object_has_member (mcp, "structuredContent"));

  /* The whole turn file: the cut text once, and little else. */
  {
    g_autoptr(GError) error = NULL;

    file = natter_jsonl_repo_get_file (f->repo, turn_id, &error);
    g_assert_no_error (error);
    info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE, 0, NULL, &error);
    g_assert_no_error (error);
  }
  g_assert_cmpint (g_file_info_get_size (info), <, NATTER_TOOL_OUTPUT_MAX_BYTES + 20000);

  request = natter_fake_model_get_request (f->world->model, 1);
  messages = json_object_get_array_member (request, "messages");
  tool_message = json_array_get_object_element (messages, json_array_get_length (messages) - 1);
  sent = json_object_get_string_member (tool_message, "content");
  g_assert_cmpstr (sent, ==, output);
}

/* A server's content item nested past what a turn line may hold is left
 * out, and counted, so that the rest of the result is kept at all; the
 * result then reads back from a line. */
static void
test_result_too_deep_left_out (void)
{
  g_autofree char *open = g_strnfill (510, '[');
  g_autofree char *close = g_strnfill (510, ']');
  g_autofree char *literal = g_strdup_printf ("{\"content\": [{\"type\": \"text\", \"text\": \"deep\"},"
                                              " {\"type\": \"odd\", \"value\": %s%s}]}", open, close);
  g_autoptr(JsonNode) answer = natter_test_json (literal);
  g_autoptr(JsonObject) result = natter_mcp_tool_map_result ("srv", "tool", json_node_get_object (answer));
  g_autoptr(JsonObject) event = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *line = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *mcp = json_object_get_object_member (json_object_get_object_member (result, "metadata"), "mcp");

  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (mcp, "content")), ==, 0);
  g_assert_cmpint (json_object_get_int_member (mcp, "omitted"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (result, "output"), ==, "deep\n[odd]");
  json_object_set_string_member (event, "type", "tool_result");
  json_object_set_object_member (event, "result", json_object_ref (result));
  node = json_node_init_object (json_node_alloc (), event);
  line = natter_json_to_line (node, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mcp/tool/names-sanitized", test_names_sanitized);
  g_test_add_func ("/mcp/tool/names-collisions", test_names_collisions);
  g_test_add_func ("/mcp/tool/result-mapping", test_result_mapping);
  g_test_add_func ("/mcp/tool/result-stored-once", test_result_stored_once);
  g_test_add_func ("/mcp/tool/result-too-deep-left-out", test_result_too_deep_left_out);
  g_test_add_func ("/mcp/tool/hung-server-waited-once", test_hung_server_waited_once);
  g_test_add ("/mcp/tool/turn-big-result", Fixture, "--hostile-tools", fixture_set_up, test_turn_big_result,
              fixture_tear_down);
  g_test_add ("/mcp/tool/config-watched", Fixture, NULL, fixture_set_up, test_config_watched, fixture_tear_down);
  g_test_add ("/mcp/tool/turn-allowed", Fixture, NULL, fixture_set_up, test_turn_allowed, fixture_tear_down);
  g_test_add ("/mcp/tool/turn-granted", Fixture, NULL, fixture_set_up, test_turn_granted, fixture_tear_down);
  g_test_add ("/mcp/tool/turn-odd-result", Fixture, "--odd", fixture_set_up, test_turn_odd_result, fixture_tear_down);
  g_test_add ("/mcp/tool/turn-denied", Fixture, NULL, fixture_set_up, test_turn_denied, fixture_tear_down);
  g_test_add ("/mcp/tool/turn-stopped", Fixture, NULL, fixture_set_up, test_turn_stopped, fixture_tear_down);
  g_test_add ("/mcp/tool/agent-tool-servers", Fixture, NULL, fixture_set_up, test_agent_tool_servers,
              fixture_tear_down);

  return g_test_run ();
}
