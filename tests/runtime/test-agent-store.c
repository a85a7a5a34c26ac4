/* test-agent-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * User-defined agents: the agent files in the configuration
 * folder (strict validation, errored entries instead of skipped files,
 * atomic saves, deletes, ids), the resolver that answers both the
 * built-in "assistant" and stored agents, and a stored agent's id used
 * end to end: a turn created with it through NatterServices calls a
 * scripted OpenAI-compatible server with the agent's prompt, model,
 * tools and the key from the secret store.
 */

#include <string.h>

#include "natter-builtin-tools.h"
#include "natter-config-agent-resolver.h"
#include "natter-memory-secret-store.h"
#include "natter-runtime-error.h"
#include "natter-services.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define WAIT_MS 10000

typedef struct
{
  GFile            *config;  /* what NATTER_CONFIG_DIR names */
  GFile            *dir;     /* config/agents */
  NatterAgentStore *store;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *path = NULL;

  f->config = natter_test_make_temp_dir ();
  path = g_file_get_path (f->config);
  g_setenv (NATTER_CONFIG_DIR_ENV, path, TRUE);
  f->dir = natter_agent_store_get_default_dir ();
  f->store = natter_agent_store_new (f->dir);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_assert_finalize_object (f->store);
  natter_test_remove_tree (f->config);
  g_clear_object (&f->dir);
  g_clear_object (&f->config);
  g_unsetenv (NATTER_CONFIG_DIR_ENV);
}

static JsonObject *
object_from (const char *literal)
{
  g_autoptr(JsonNode) node = natter_test_json (literal);

  return json_object_ref (json_node_get_object (node));
}

static void
write_agent_file (Fixture    *f,
                  const char *name,
                  const char *contents)
{
  g_autofree char *dir = g_file_get_path (f->dir);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

static gboolean
agent_file_exists (Fixture    *f,
                   const char *agent_id)
{
  g_autofree char *name = g_strconcat (agent_id, ".json", NULL);
  g_autoptr(GFile) file = g_file_get_child (f->dir, name);

  return g_file_query_exists (file, NULL);
}

#define REVIEWER \
  "{\"agentId\":\"reviewer\",\"name\":\"Code Reviewer\",\"systemPrompt\":\"Review the code.\"," \
  "\"model\":{\"provider\":\"srv\",\"model\":\"rev-model\"},\"tools\":[\"natter.current_time\"]}"

static void
test_default_dir (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GFile) expected = g_file_get_child (f->config, "agents");
  g_autoptr(GFile) fallback = NULL;
  g_autofree char *fallback_path = NULL;
  g_autofree char *expected_path = NULL;

  g_assert_true (g_file_equal (natter_agent_store_get_dir (f->store), expected));

  g_setenv (NATTER_CONFIG_DIR_ENV, "", TRUE);
  fallback = natter_agent_store_get_default_dir ();
  fallback_path = g_file_get_path (fallback);
  expected_path = g_build_filename (g_get_user_config_dir (), "natter", "agents", NULL);
  g_assert_cmpstr (fallback_path, ==, expected_path);
}

static void
test_save_load_round_trip (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(JsonObject) agent = object_from (REVIEWER);
  g_autoptr(JsonObject) loaded = NULL;
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileEnumerator) enumerator = NULL;
  guint n_files = 0;

  g_assert_true (natter_agent_store_save (f->store, agent, &error));
  g_assert_no_error (error);
  g_assert_true (agent_file_exists (f, "reviewer"));

  loaded = natter_agent_store_load (f->store, "reviewer", &error);
  g_assert_no_error (error);
  g_assert_true (json_object_equal (loaded, agent));

  /* Saved again (an edit): replaced in place, no temp file left. */
  json_object_set_string_member (agent, "systemPrompt", "Review harder.");
  g_assert_true (natter_agent_store_save (f->store, agent, &error));
  g_assert_no_error (error);
  g_clear_pointer (&loaded, json_object_unref);
  loaded = natter_agent_store_load (f->store, "reviewer", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (loaded, "systemPrompt"), ==, "Review harder.");

  enumerator = g_file_enumerate_children (f->dir, G_FILE_ATTRIBUTE_STANDARD_NAME, 0, NULL, &error);
  g_assert_no_error (error);
  for (;;)
    {
      GFileInfo *info = NULL;

      g_assert_true (g_file_enumerator_iterate (enumerator, &info, NULL, NULL, &error));
      if (info == NULL)
        break;
      g_assert_cmpstr (g_file_info_get_name (info), ==, "reviewer.json");
      n_files++;
    }
  g_assert_cmpuint (n_files, ==, 1);

  agents = natter_agent_store_list (f->store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (agents->len, ==, 1);
  g_assert_true (json_object_equal (g_ptr_array_index (agents, 0), agent));
}

static void
test_missing_folder_is_empty (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GError) error = NULL;

  agents = natter_agent_store_list (f->store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (agents->len, ==, 0);
}

static void
assert_invalid (const char *literal,
                const char *fragment)
{
  g_autoptr(JsonObject) agent = object_from (literal);
  g_autoptr(GError) error = NULL;

  g_assert_false (natter_agent_store_validate (agent, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  if (strstr (error->message, fragment) == NULL)
    g_error ("“%s” does not mention “%s”", error->message, fragment);
}

static void
test_validation (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(JsonObject) minimal = object_from ("{\"agentId\":\"a_1-b\",\"name\":\"A\",\"systemPrompt\":\"\",\"tools\":[]}");
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_agent_store_validate (minimal, &error));
  g_assert_no_error (error);

  assert_invalid ("{\"name\":\"A\",\"systemPrompt\":\"\",\"tools\":[]}", "agentId");
  assert_invalid ("{\"agentId\":\"Bad Id\",\"name\":\"A\",\"systemPrompt\":\"\",\"tools\":[]}", "Bad Id");
  assert_invalid ("{\"agentId\":\"assistant\",\"name\":\"A\",\"systemPrompt\":\"\",\"tools\":[]}", "assistant");
  assert_invalid ("{\"agentId\":\"a\",\"name\":\"  \",\"systemPrompt\":\"\",\"tools\":[]}", "name");
  assert_invalid ("{\"agentId\":\"a\",\"name\":\"A\",\"systemPrompt\":3,\"tools\":[]}", "systemPrompt");
  assert_invalid ("{\"agentId\":\"a\",\"name\":\"A\",\"systemPrompt\":\"\"}", "tools");
  assert_invalid ("{\"agentId\":\"a\",\"name\":\"A\",\"systemPrompt\":\"\",\"tools\":[1]}", "tools");
  assert_invalid ("{\"agentId\":\"a\",\"name\":\"A\",\"systemPrompt\":\"\",\"tools\":[\"x\",\"x\"]}", "twice");
  assert_invalid ("{\"agentId\":\"a\",\"name\":\"A\",\"systemPrompt\":\"\",\"tools\":[],\"extra\":1}", "extra");
  assert_invalid ("{\"agentId\":\"a\",\"name\":\"A\",\"systemPrompt\":\"\",\"tools\":[],\"model\":\"m\"}", "model");
  assert_invalid ("{\"agentId\":\"a\",\"name\":\"A\",\"systemPrompt\":\"\",\"tools\":[],"
                  "\"model\":{\"provider\":\"p\"}}", "model");
  assert_invalid ("{\"agentId\":\"a\",\"name\":\"A\",\"systemPrompt\":\"\",\"tools\":[],"
                  "\"model\":{\"provider\":\"p\",\"model\":\"m\",\"x\":1}}", "x");

  /* An invalid agent is not saved. */
  {
    g_autoptr(JsonObject) bad = object_from ("{\"agentId\":\"bad\",\"name\":\"\",\"systemPrompt\":\"\",\"tools\":[]}");

    g_assert_false (natter_agent_store_save (f->store, bad, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_false (agent_file_exists (f, "bad"));
  }
}

static JsonObject *
find_agent (GPtrArray  *agents,
            const char *agent_id)
{
  for (guint i = 0; i < agents->len; i++)
    if (g_str_equal (json_object_get_string_member (g_ptr_array_index (agents, i), "agentId"), agent_id))
      return g_ptr_array_index (agents, i);
  g_error ("No entry %s", agent_id);
}

static void
assert_errored (GPtrArray  *agents,
                const char *agent_id,
                const char *fragment)
{
  JsonObject *entry = find_agent (agents, agent_id);
  const char *message = json_object_get_string_member_with_default (entry, "error", NULL);

  g_assert_nonnull (message);
  if (strstr (message, fragment) == NULL)
    g_error ("“%s” does not mention “%s”", message, fragment);
}

static void
test_bad_files_listed_as_errored (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) loaded = NULL;
  g_autofree char *open = g_strnfill (100000, '[');
  g_autofree char *close = g_strnfill (100000, ']');
  g_autofree char *deep = g_strdup_printf ("{\"agentId\":\"deep\",\"tools\":%s%s}", open, close);

  write_agent_file (f, "reviewer.json", REVIEWER);
  write_agent_file (f, "broken.json", "{\"agentId\":");
  /* Nested 100,000 deep: it crashed every process that listed agents. */
  write_agent_file (f, "deep.json", deep);
  write_agent_file (f, "array.json", "[1,2]");
  write_agent_file (f, "renamed.json", REVIEWER);
  write_agent_file (f, "strict.json", "{\"agentId\":\"strict\",\"name\":\"S\",\"systemPrompt\":\"\",\"tools\":[],\"x\":1}");
  write_agent_file (f, "Bad Name.json", REVIEWER);
  write_agent_file (f, "notes.txt", "not an agent");
  write_agent_file (f, ".hidden.json", "{}");
  write_agent_file (f, "reviewer.json.AB12CD", "{");   /* a save in progress */

  agents = natter_agent_store_list (f->store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (agents->len, ==, 7);

  g_assert_false (json_object_has_member (find_agent (agents, "reviewer"), "error"));
  assert_errored (agents, "broken", "broken.json is not valid JSON");
  assert_errored (agents, "deep", "deep.json is not valid JSON: 1:546: the JSON nests deeper than 520 levels");
  assert_errored (agents, "array", "array.json does not hold a JSON object");
  assert_errored (agents, "renamed", "holds the agent “reviewer”");
  assert_errored (agents, "strict", "Unknown member “x”");
  assert_errored (agents, "Bad Name", "not a valid agent id");

  /* Loading one gives the same reason, as an error. */
  loaded = natter_agent_store_load (f->store, "broken", &error);
  g_assert_null (loaded);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  loaded = natter_agent_store_load (f->store, "nobody", &error);
  g_assert_null (loaded);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  loaded = natter_agent_store_load (f->store, "../escape", &error);
  g_assert_null (loaded);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

static void
test_delete (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(JsonObject) agent = object_from (REVIEWER);
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_agent_store_save (f->store, agent, &error));
  g_assert_true (natter_agent_store_delete (f->store, "reviewer", &error));
  g_assert_no_error (error);
  g_assert_false (agent_file_exists (f, "reviewer"));

  g_assert_false (natter_agent_store_delete (f->store, "reviewer", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (natter_agent_store_delete (f->store, "assistant", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* A broken file can be deleted: how the user gets rid of it. */
  write_agent_file (f, "broken.json", "{");
  g_assert_true (natter_agent_store_delete (f->store, "broken", &error));
  g_assert_no_error (error);
}

static void
test_make_id (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(JsonObject) agent = object_from (REVIEWER);
  g_autoptr(GError) error = NULL;
  char *id;

  id = natter_agent_store_make_id (f->store, "Code Reviewer!");
  g_assert_cmpstr (id, ==, "code-reviewer");
  g_free (id);
  id = natter_agent_store_make_id (f->store, "  Über   Agent ");
  g_assert_cmpstr (id, ==, "uber-agent");
  g_free (id);
  id = natter_agent_store_make_id (f->store, "???");
  g_assert_cmpstr (id, ==, "agent");
  g_free (id);
  id = natter_agent_store_make_id (f->store, "Assistant");
  g_assert_cmpstr (id, ==, "assistant-2");
  g_free (id);

  g_assert_true (natter_agent_store_save (f->store, agent, &error));
  id = natter_agent_store_make_id (f->store, "Reviewer");
  g_assert_cmpstr (id, ==, "reviewer-2");
  g_free (id);
}

/* The resolver */

static NatterConfigAgentResolver *
resolver_new (Fixture                     *f,
              NatterToolRegistry         **out_tools,
              NatterBuiltinAgentResolver **out_builtin)
{
  NatterToolRegistry *tools = natter_tool_registry_new ();
  NatterBuiltinAgentResolver *builtin = NULL;

  natter_builtin_tools_register (tools, natter_clock_get_system ());
  builtin = natter_builtin_agent_resolver_new (tools);
  natter_builtin_agent_resolver_set_default_model (builtin, "ollama", "default-model");
  *out_tools = tools;
  *out_builtin = builtin;
  return natter_config_agent_resolver_new (builtin, f->store, tools);
}

static JsonObject *
resolve (NatterConfigAgentResolver  *resolver,
         const char                 *agent_id,
         GError                    **error)
{
  g_autoptr(JsonObject) requested = json_object_new ();

  json_object_set_string_member (requested, "agentId", agent_id);
  return natter_agent_resolver_resolve (NATTER_AGENT_RESOLVER (resolver), requested, error);
}

static void
test_resolver (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(NatterToolRegistry) tools = NULL;
  g_autoptr(NatterBuiltinAgentResolver) builtin = NULL;
  g_autoptr(NatterConfigAgentResolver) resolver = resolver_new (f, &tools, &builtin);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) assistant = NULL;
  g_autoptr(JsonObject) reviewer = NULL;
  g_autoptr(JsonObject) plain = NULL;
  g_autoptr(JsonObject) missing = NULL;
  g_autoptr(JsonObject) bad_tool = NULL;
  g_autoptr(JsonObject) broken = NULL;
  g_autoptr(JsonObject) expected = NULL;
  JsonArray *descriptors;

  /* The built-in agent is untouched. */
  assistant = resolve (resolver, "assistant", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (assistant, "agentId"), ==, "assistant");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (assistant, "tools")), ==, 4);

  /* A stored agent: its prompt, model and only its tools, as descriptors. */
  write_agent_file (f, "reviewer.json", REVIEWER);
  reviewer = resolve (resolver, "reviewer", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (reviewer, "agentId"), ==, "reviewer");
  g_assert_cmpstr (json_object_get_string_member (reviewer, "systemPrompt"), ==, "Review the code.");
  expected = object_from ("{\"provider\":\"srv\",\"model\":\"rev-model\"}");
  g_assert_true (json_object_equal (json_object_get_object_member (reviewer, "model"), expected));
  descriptors = json_object_get_array_member (reviewer, "tools");
  g_assert_cmpuint (json_array_get_length (descriptors), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (descriptors, 0), "toolId"),
                   ==, NATTER_TOOL_ID_CURRENT_TIME);
  g_assert_false (json_object_has_member (reviewer, "name"));

  /* Without a model it gets the default model. */
  write_agent_file (f, "plain.json", "{\"agentId\":\"plain\",\"name\":\"Plain\",\"systemPrompt\":\"P\",\"tools\":[]}");
  plain = resolve (resolver, "plain", &error);
  g_assert_no_error (error);
  g_clear_pointer (&expected, json_object_unref);
  expected = object_from ("{\"provider\":\"ollama\",\"model\":\"default-model\"}");
  g_assert_true (json_object_equal (json_object_get_object_member (plain, "model"), expected));

  missing = resolve (resolver, "nobody", &error);
  g_assert_null (missing);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT);
  g_assert_cmpstr (error->message, ==, "Unknown agent “nobody”");
  g_clear_error (&error);

  write_agent_file (f, "tooly.json",
                    "{\"agentId\":\"tooly\",\"name\":\"T\",\"systemPrompt\":\"\",\"tools\":[\"natter.read_file\",\"web.search\"]}");
  bad_tool = resolve (resolver, "tooly", &error);
  g_assert_null (bad_tool);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT);
  g_assert_cmpstr (error->message, ==, "The agent “tooly” uses the unknown tool “web.search”");
  g_clear_error (&error);

  write_agent_file (f, "broken.json", "{");
  broken = resolve (resolver, "broken", &error);
  g_assert_null (broken);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT);
  g_assert_nonnull (strstr (error->message, "broken.json is not valid JSON"));
}

/* End to end through NatterServices and a scripted server */

#define API_KEY "sk-agent-SECRET-7"
#define SSE_ANSWER \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Looks good\"}}]}\n\n" \
  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" \
  "data: [DONE]\n\n"

static void
created_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  char **out = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterTurnCreated) created = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  g_assert_no_error (error);
  *out = g_strdup (natter_turn_created_get_turn_id (created));
}

static void
waited_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  NatterTurnOutcome **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &error);
  g_assert_no_error (error);
}

static void
test_stored_agent_end_to_end (Fixture       *f,
                              gconstpointer  data)
{
  const NatterTestResponse answer = { .status = 200, .content_type = "text/event-stream", .body = SSE_ANSWER };
  g_autoptr(NatterTestServer) server = natter_test_server_new (&answer, 1);
  g_autoptr(GFile) data_dir = natter_test_make_temp_dir ();
  g_autoptr(NatterMemorySecretStore) secrets = natter_memory_secret_store_new ();
  g_autoptr(NatterServices) services = NULL;
  g_autoptr(JsonObject) requested = object_from ("{\"agentId\":\"reviewer\"}");
  g_autoptr(JsonObject) input = object_from ("{\"role\":\"user\",\"content\":\"Check this\"}");
  g_autoptr(JsonObject) config = object_from ("{\"autoPermission\":false,\"humanAvailable\":true}");
  g_autoptr(JsonObject) agent = object_from (REVIEWER);
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(JsonNode) body_node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  NatterTurnOutcome *outcome = NULL;
  JsonObject *body;
  JsonArray *messages;
  JsonArray *tools;

  server->expected_path = "/v1/chat/completions";

  /* The agent as Preferences saves it, the key as Preferences stores it. */
  g_assert_true (natter_agent_store_save (f->store, agent, &error));
  g_assert_no_error (error);
  natter_secret_store_store_async (NATTER_SECRET_STORE (secrets), "srv", API_KEY, NULL, NULL, NULL);

  services = natter_services_new (data_dir, NULL, NULL, NULL, NULL);
  natter_services_set_secret_store (services, NATTER_SECRET_STORE (secrets));
  natter_provider_registry_add_provider (natter_services_get_provider_registry (services), "srv", "Server",
                                         server->base_url);

  natter_turn_runtime_create_turn_async (natter_services_get_runtime (services), requested, NULL, NULL,
                                         input, config, NULL, created_cb, &turn_id);
  natter_test_wait_for_pointer ((gpointer *) &turn_id, WAIT_MS);
  execution = natter_turn_runtime_advance_turn (natter_services_get_runtime (services), turn_id, NULL, NULL);
  natter_turn_execution_wait_async (execution, NULL, waited_cb, &outcome);
  natter_test_wait_for_pointer ((gpointer *) &outcome, WAIT_MS);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  natter_turn_outcome_unref (outcome);

  /* The request carried the stored agent's model, prompt and tools, and
   * the key from the secret store. */
  g_assert_cmpuint (server->bodies->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (server->authorizations, 0), ==, "Bearer " API_KEY);
  body_node = natter_test_json (g_ptr_array_index (server->bodies, 0));
  body = json_node_get_object (body_node);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "rev-model");
  messages = json_object_get_array_member (body, "messages");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "role"), ==, "system");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "content"),
                   ==, "Review the code.");
  tools = json_object_get_array_member (body, "tools");
  g_assert_cmpuint (json_array_get_length (tools), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_array_get_object_element (tools, 0),
                                                                                 "function"), "name"),
                   ==, "current_time");

  g_clear_object (&execution);
  g_assert_finalize_object (g_steal_pointer (&services));
  natter_test_remove_tree (data_dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("/agent-store/default-dir", test_default_dir);
  ADD ("/agent-store/save-load-round-trip", test_save_load_round_trip);
  ADD ("/agent-store/missing-folder-is-empty", test_missing_folder_is_empty);
  ADD ("/agent-store/validation", test_validation);
  ADD ("/agent-store/bad-files-listed-as-errored", test_bad_files_listed_as_errored);
  ADD ("/agent-store/delete", test_delete);
  ADD ("/agent-store/make-id", test_make_id);
  ADD ("/agent-store/resolver", test_resolver);
  ADD ("/agent-store/stored-agent-end-to-end", test_stored_agent_end_to_end);

#undef ADD

  return g_test_run ();
}
