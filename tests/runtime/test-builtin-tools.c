/* test-builtin-tools.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The built-in tools and the default permission checker
 * (docs/runtime.md §7, §8): each tool on its own against a temporary
 * directory, then ask_human and read_file through the real runtime with a
 * scripted fake model.
 */

#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <glib/gstdio.h>

#include "natter-builtin-tools.h"
#include "natter-default-permission-checker.h"
#include "natter-model-permission-classifier.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-runtime.h"
#include "natter-test-fakes.h"

/* Direct tool runs */

typedef struct
{
  GFile           *dir;
  char            *path;
  NatterFakeClock *clock;
  NatterToolRegistry *tools;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = natter_test_make_temp_dir ();
  f->path = g_file_get_path (f->dir);
  f->clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  f->tools = natter_tool_registry_new ();
  natter_builtin_tools_register (f->tools, NATTER_CLOCK (f->clock));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_assert_finalize_object (f->tools);
  g_clear_object (&f->clock);
  natter_test_remove_tree (f->dir);
  g_clear_object (&f->dir);
  g_clear_pointer (&f->path, g_free);
}

static void
write_file (Fixture    *f,
            const char *name,
            const char *contents,
            gssize      length)
{
  g_autofree char *path = g_build_filename (f->path, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, length, &error);
  g_assert_no_error (error);
}

/* Runs @tool_id with the arguments literal in @cwd. */
static JsonObject *
run (Fixture     *f,
     const char  *tool_id,
     const char  *arguments,
     const char  *cwd,
     GError     **error)
{
  g_autoptr(JsonNode) input = natter_test_json (arguments);
  NatterTool *tool = natter_tool_registry_lookup (f->tools, tool_id);

  g_assert_nonnull (tool);
  return natter_tool_run_in (tool, json_node_get_object (input), cwd, NULL, NULL, NULL, error);
}

static void
test_read_file_relative (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;

  write_file (f, "hello.txt", "héllo\nworld\n", -1);
  result = run (f, NATTER_TOOL_ID_READ_FILE, "{\"path\":\"hello.txt\"}", f->path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "output"), ==, "héllo\nworld\n");
  g_assert_false (json_object_get_boolean_member (result, "isError"));
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (result, "metadata"),
                                                  "truncated"));

  /* Without a working directory a relative path is refused. */
  g_assert_null (run (f, NATTER_TOOL_ID_READ_FILE, "{\"path\":\"hello.txt\"}", NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (run (f, NATTER_TOOL_ID_READ_FILE, "{\"path\":42}", f->path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (run (f, NATTER_TOOL_ID_READ_FILE, "{\"path\":\"nope.txt\"}", f->path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

static void
test_read_file_refuses_non_regular (Fixture       *f,
                                    gconstpointer  data)
{
  g_autofree char *fifo = g_build_filename (f->path, "pipe", NULL);
  g_autofree char *sub = g_build_filename (f->path, "sub", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  g_assert_null (run (f, NATTER_TOOL_ID_READ_FILE, "{\"path\":\"sub\"}", f->path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY);
  g_clear_error (&error);

  /* A FIFO with no writer would block an open or a read forever; the
   * tool returns at once instead (a hang here is a test timeout). */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_null (run (f, NATTER_TOOL_ID_READ_FILE, "{\"path\":\"pipe\"}", f->path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_clear_error (&error);

  g_assert_null (run (f, NATTER_TOOL_ID_READ_FILE, "{\"path\":\"/dev/null\"}", NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
}

static void
test_read_file_bounded (Fixture       *f,
                        gconstpointer  data)
{
  gsize size = NATTER_READ_FILE_MAX_BYTES + 100;
  g_autofree char *big = g_malloc (size);
  g_autofree char *note = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *output;

  memset (big, 'a', size);
  write_file (f, "big.txt", big, size);
  result = run (f, NATTER_TOOL_ID_READ_FILE, "{\"path\":\"big.txt\"}", f->path, &error);
  g_assert_no_error (error);
  output = json_object_get_string_member (result, "output");
  note = g_strdup_printf ("\n[truncated: %d of %" G_GSIZE_FORMAT " bytes shown]",
                          NATTER_READ_FILE_MAX_BYTES, size);
  g_assert_true (g_str_has_suffix (output, note));
  g_assert_cmpuint (strlen (output), ==, NATTER_READ_FILE_MAX_BYTES + strlen (note));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (result, "metadata"),
                                                 "truncated"));
}

static void
test_read_file_binary (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) with_nul = NULL;
  g_autoptr(GError) error = NULL;

  write_file (f, "blob", "\x7f" "ELF\xff\xfe", 6);
  result = run (f, NATTER_TOOL_ID_READ_FILE, "{\"path\":\"blob\"}", f->path, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (result, "output"), "[binary file:"));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (result, "metadata"),
                                                 "binary"));

  write_file (f, "nul", "a\0b", 3);
  with_nul = run (f, NATTER_TOOL_ID_READ_FILE, "{\"path\":\"nul\"}", f->path, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (with_nul, "output"), "[binary file:"));
}

static void
test_list_directory_sorted (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *sub = g_build_filename (f->path, "a", NULL);
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;

  write_file (f, "b.txt", "", 0);
  write_file (f, "C", "", 0);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  result = run (f, NATTER_TOOL_ID_LIST_DIRECTORY, "{\"path\":\".\"}", f->path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "output"), ==, "C\na/\nb.txt");

  g_assert_null (run (f, NATTER_TOOL_ID_LIST_DIRECTORY, "{\"path\":\"b.txt\"}", f->path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY);
}

static void
test_list_directory_bounded (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;

  for (guint i = 0; i < NATTER_LIST_DIRECTORY_MAX_ENTRIES + 5; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%05u", i);

      write_file (f, name, "", 0);
    }
  result = run (f, NATTER_TOOL_ID_LIST_DIRECTORY, "{\"path\":\".\"}", f->path, &error);
  g_assert_no_error (error);
  lines = g_strsplit (json_object_get_string_member (result, "output"), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, NATTER_LIST_DIRECTORY_MAX_ENTRIES + 1);
  g_assert_cmpstr (lines[0], ==, "f00000");
  g_assert_cmpstr (lines[NATTER_LIST_DIRECTORY_MAX_ENTRIES - 1], ==, "f00999");
  g_assert_cmpstr (lines[NATTER_LIST_DIRECTORY_MAX_ENTRIES], ==, "[truncated: 1000 of 1005 entries shown]");
}

static void
test_current_time (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;

  result = run (f, NATTER_TOOL_ID_CURRENT_TIME, "{}", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (result, "output"),
                                   "UTC: 2026-11-18T11:06:40Z\nLocal: "));
}

static void
assert_check (NatterPermissionChecker *checker,
              NatterToolRegistry      *tools,
              const char              *tool_id,
              const char              *descriptor_literal,
              const char              *arguments,
              const char              *cwd,
              const char              *expected_request)
{
  g_autoptr(JsonNode) input = natter_test_json (arguments);
  g_autoptr(JsonNode) request = NULL;
  g_autoptr(JsonNode) descriptor = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean required = FALSE;
  NatterTool *tool = natter_tool_registry_lookup (tools, tool_id);

  if (tool != NULL)
    {
      descriptor = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (descriptor, natter_tool_get_descriptor (tool));
    }
  else
    {
      descriptor = natter_test_json (descriptor_literal);
    }
  g_assert_true (natter_permission_checker_check_in (checker, json_node_get_object (descriptor),
                                                     json_node_get_object (input), cwd,
                                                     &required, &request, &error));
  g_assert_no_error (error);
  if (expected_request == NULL)
    {
      g_assert_false (required);
      g_assert_null (request);
      return;
    }
  g_assert_true (required);
  text = json_to_string (request, FALSE);
  g_assert_cmpstr (text, ==, expected_request);
}

static void
test_default_checker (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(NatterDefaultPermissionChecker) checker = natter_default_permission_checker_new (f->tools, NULL);
  NatterPermissionChecker *c = NATTER_PERMISSION_CHECKER (checker);

  assert_check (c, f->tools, NATTER_TOOL_ID_CURRENT_TIME, NULL, "{}", NULL, NULL);
  assert_check (c, f->tools, NATTER_TOOL_ID_ASK_HUMAN, NULL, "{\"question\":\"?\"}", NULL, NULL);
  assert_check (c, f->tools, NATTER_TOOL_ID_READ_FILE, NULL, "{\"path\":\"src/../a.c\"}", "/home/u/p",
                "{\"action\":\"read\",\"path\":\"/home/u/p/a.c\"}");
  assert_check (c, f->tools, NATTER_TOOL_ID_LIST_DIRECTORY, NULL, "{\"path\":\"/etc\"}", NULL,
                "{\"action\":\"list\",\"path\":\"/etc\"}");
  /* A tool nobody declared free requires permission: fail closed. */
  assert_check (c, f->tools, "x.shell",
                "{\"toolId\":\"x.shell\",\"name\":\"shell\",\"description\":\"\",\"inputSchema\":{},"
                "\"execution\":\"sync\",\"requiresHuman\":false}",
                "{\"cmd\":\"rm\"}", NULL, "{\"tool\":\"shell\",\"arguments\":{\"cmd\":\"rm\"}}");
}

/* Through the runtime */

#define FAKE_TYPE_WORLD (fake_world_get_type ())
G_DECLARE_FINAL_TYPE (FakeWorld, fake_world, FAKE, WORLD, GObject)

/* Plays the model (a script of assistant message literals), the model
 * registry and the agent resolver (every built-in tool). */
struct _FakeWorld
{
  GObject             parent_instance;
  NatterToolRegistry *tools;
  GPtrArray          *script;
  guint               next;
  GPtrArray          *requests;
};

static void model_iface_init (NatterModelInterface *iface);
static void model_registry_iface_init (NatterModelRegistryInterface *iface);
static void agent_resolver_iface_init (NatterAgentResolverInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FakeWorld, fake_world, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_MODEL, model_iface_init)
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_MODEL_REGISTRY, model_registry_iface_init)
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_AGENT_RESOLVER, agent_resolver_iface_init))

static void
world_stream_step_async (NatterModel               *model,
                         JsonObject                *request,
                         const NatterModelStepSink *sink,
                         gpointer                   sink_data,
                         GCancellable              *cancellable,
                         GAsyncReadyCallback        callback,
                         gpointer                   user_data)
{
  FakeWorld *self = FAKE_WORLD (model);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(JsonNode) message = NULL;

  g_ptr_array_add (self->requests, json_object_ref (request));
  g_assert_cmpuint (self->next, <, self->script->len);
  message = natter_test_json (g_ptr_array_index (self->script, self->next++));
  g_task_return_pointer (task, natter_model_step_result_new (message, "stop", NULL),
                         (GDestroyNotify) natter_model_step_result_free);
}

static NatterModelStepResult *
world_stream_step_finish (NatterModel   *model,
                          GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
model_iface_init (NatterModelInterface *iface)
{
  iface->stream_step_async = world_stream_step_async;
  iface->stream_step_finish = world_stream_step_finish;
}

static NatterModel *
world_resolve_model (NatterModelRegistry  *registry,
                     JsonObject           *descriptor,
                     GError              **error)
{
  return g_object_ref (NATTER_MODEL (registry));
}

static void
model_registry_iface_init (NatterModelRegistryInterface *iface)
{
  iface->resolve = world_resolve_model;
}

static JsonObject *
world_resolve_agent (NatterAgentResolver  *resolver,
                     JsonObject           *requested,
                     GError              **error)
{
  FakeWorld *self = FAKE_WORLD (resolver);
  JsonObject *agent = json_object_new ();
  g_autoptr(JsonNode) model = natter_test_json ("{\"provider\":\"p\",\"model\":\"m\"}");

  json_object_set_string_member (agent, "agentId", "helper");
  json_object_set_string_member (agent, "systemPrompt", "Help.");
  json_object_set_member (agent, "model", json_node_ref (model));
  json_object_set_array_member (agent, "tools", natter_builtin_tools_descriptors (self->tools));
  return agent;
}

static void
agent_resolver_iface_init (NatterAgentResolverInterface *iface)
{
  iface->resolve = world_resolve_agent;
}

static void
fake_world_finalize (GObject *object)
{
  FakeWorld *self = FAKE_WORLD (object);

  g_ptr_array_unref (self->script);
  g_ptr_array_unref (self->requests);
  G_OBJECT_CLASS (fake_world_parent_class)->finalize (object);
}

static void
fake_world_class_init (FakeWorldClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fake_world_finalize;
}

static void
fake_world_init (FakeWorld *self)
{
  self->script = g_ptr_array_new_with_free_func (g_free);
  self->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
}

typedef struct
{
  Fixture             base;
  NatterJsonlRepo    *repo;
  FakeWorld          *world;
  NatterTurnRuntime  *runtime;
} RuntimeFixture;

static void
runtime_set_up (RuntimeFixture *f,
                gconstpointer   data)
{
  g_autoptr(NatterIdGenerator) ids = NULL;
  g_autoptr(NatterTurnContextResolver) contexts = NULL;
  g_autoptr(NatterDefaultPermissionChecker) checker = NULL;
  g_autoptr(NatterTurnEventHub) hub = natter_turn_event_hub_new ();
  g_autoptr(NatterModelPermissionClassifier) classifier = natter_model_permission_classifier_new ();

  fixture_set_up (&f->base, data);
  f->repo = natter_turn_repo_new (f->base.dir);
  ids = natter_id_generator_new (NATTER_CLOCK (f->base.clock));
  contexts = natter_turn_context_resolver_new (f->repo);
  checker = natter_default_permission_checker_new (f->base.tools, NULL);
  f->world = g_object_new (FAKE_TYPE_WORLD, NULL);
  f->world->tools = f->base.tools;
  f->runtime = natter_turn_runtime_new (f->repo, ids, NATTER_CLOCK (f->base.clock),
                                        NATTER_AGENT_RESOLVER (f->world),
                                        NATTER_MODEL_REGISTRY (f->world), f->base.tools,
                                        NATTER_CONTEXT_RESOLVER (contexts),
                                        NATTER_PERMISSION_CHECKER (checker),
                                        NATTER_PERMISSION_CLASSIFIER (classifier), hub, NULL, 0);
}

static void
runtime_tear_down (RuntimeFixture *f,
                   gconstpointer   data)
{
  natter_test_drain_main_context ();
  g_assert_finalize_object (f->runtime);
  g_assert_finalize_object (f->world);
  g_clear_object (&f->repo);
  fixture_tear_down (&f->base, data);
}

static char *
create_turn (RuntimeFixture *f,
             const char     *config)
{
  return natter_test_create_turn (f->runtime, NULL, config);
}

static NatterTurnOutcome *
advance (RuntimeFixture *f,
         const char     *turn_id,
         const char     *input)
{
  g_autoptr(JsonNode) node = input != NULL ? natter_test_json (input) : NULL;
  g_autoptr(NatterTurnExecution) execution = NULL;
  NatterTestWait wait = { 0 };

  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id,
                                                node != NULL ? json_node_get_object (node) : NULL,
                                                NULL);
  natter_test_wait_execution (execution, &wait);
  g_assert_no_error (wait.error);
  return wait.outcome;
}

static GPtrArray *
read_events (RuntimeFixture *f,
             const char     *turn_id)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);

  g_assert_no_error (error);
  return events;
}

static const char *
event_type (GPtrArray *events,
            guint      i)
{
  return json_object_get_string_member (json_node_get_object (g_ptr_array_index (events, i)), "type");
}

/* The content of the tool message in the last request. */
static const char *
last_tool_message (RuntimeFixture *f)
{
  JsonObject *request = g_ptr_array_index (f->world->requests, f->world->requests->len - 1);
  JsonArray *messages = json_object_get_array_member (request, "messages");
  JsonObject *message = json_array_get_object_element (messages, json_array_get_length (messages) - 1);

  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "tool");
  return json_object_get_string_member (message, "content");
}

#define ASK_STEP \
  "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"toolCallId\":\"q1\"," \
  "\"toolName\":\"ask_human\",\"arguments\":{\"question\":\"Which file?\"}}]}"
#define TEXT_STEP "{\"role\":\"assistant\",\"content\":\"done\"}"

static void
test_ask_human_through_runtime (RuntimeFixture *f,
                                gconstpointer   data)
{
  g_autofree char *turn_id = create_turn (f, "{\"humanAvailable\":true}");
  g_autoptr(NatterTurnOutcome) suspended = NULL;
  g_autoptr(NatterTurnOutcome) completed = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *pending;

  g_ptr_array_add (f->world->script, g_strdup (ASK_STEP));
  g_ptr_array_add (f->world->script, g_strdup (TEXT_STEP));
  suspended = advance (f, turn_id, NULL);
  g_assert_cmpint (suspended->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (suspended->pending_permissions), ==, 0);
  g_assert_cmpuint (json_array_get_length (suspended->pending_async_tools), ==, 1);
  pending = json_array_get_object_element (suspended->pending_async_tools, 0);
  g_assert_cmpstr (json_object_get_string_member (pending, "toolId"), ==, NATTER_TOOL_ID_ASK_HUMAN);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (pending, "input"),
                                                  "question"), ==, "Which file?");

  /* The human's answer is the tool result. */
  completed = advance (f, turn_id, "{\"type\":\"async_tool_result\",\"toolCallId\":\"q1\","
                       "\"result\":{\"output\":\"README.md\",\"isError\":false}}");
  g_assert_cmpint (completed->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpstr (last_tool_message (f), ==, "README.md");
  events = read_events (f, turn_id);
  g_assert_cmpuint (events->len, ==, 9);
  g_assert_cmpstr (event_type (events, 3), ==, "tool_invocation_requested");
  g_assert_cmpstr (event_type (events, 4), ==, "turn_suspended");
  g_assert_cmpstr (event_type (events, 5), ==, "tool_result");
}

static void
test_ask_human_unavailable (RuntimeFixture *f,
                            gconstpointer   data)
{
  g_autofree char *turn_id = create_turn (f, "{\"humanAvailable\":false}");
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *result;

  g_ptr_array_add (f->world->script, g_strdup (ASK_STEP));
  g_ptr_array_add (f->world->script, g_strdup (TEXT_STEP));
  outcome = advance (f, turn_id, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpstr (last_tool_message (f), ==, "human input is unavailable for this turn");
  events = read_events (f, turn_id);
  g_assert_cmpstr (event_type (events, 3), ==, "tool_result");
  result = json_node_get_object (g_ptr_array_index (events, 3));
  g_assert_cmpstr (json_object_get_string_member (result, "source"), ==, "runtime");
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (result, "result"),
                                                 "isError"));
}

static void
test_read_file_through_runtime (RuntimeFixture *f,
                                gconstpointer   data)
{
  g_autofree char *config = g_strdup_printf ("{\"humanAvailable\":true,\"cwd\":\"%s\"}", f->base.path);
  g_autofree char *turn_id = create_turn (f, config);
  g_autofree char *expected = NULL;
  g_autoptr(NatterTurnOutcome) suspended = NULL;
  g_autoptr(NatterTurnOutcome) completed = NULL;
  JsonObject *pending;
  g_autoptr(JsonNode) request = NULL;
  g_autofree char *request_text = NULL;

  write_file (&f->base, "notes.txt", "remember the milk", -1);
  g_ptr_array_add (f->world->script,
                   g_strdup ("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\","
                             "\"toolCallId\":\"r1\",\"toolName\":\"read_file\","
                             "\"arguments\":{\"path\":\"notes.txt\"}}]}"));
  g_ptr_array_add (f->world->script, g_strdup (TEXT_STEP));

  /* read_file needs permission; the request names the absolute path. */
  suspended = advance (f, turn_id, NULL);
  g_assert_cmpint (suspended->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (suspended->pending_permissions), ==, 1);
  pending = json_array_get_object_element (suspended->pending_permissions, 0);
  request = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (request, json_object_get_object_member (pending, "request"));
  request_text = json_to_string (request, FALSE);
  expected = g_strdup_printf ("{\"action\":\"read\",\"path\":\"%s/notes.txt\"}", f->base.path);
  g_assert_cmpstr (request_text, ==, expected);

  completed = advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"r1\","
                       "\"decision\":\"allow\"}");
  g_assert_cmpint (completed->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpstr (last_tool_message (f), ==, "remember the milk");
}

static void
create_failed_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GError **out = user_data;
  g_autoptr(NatterTurnCreated) created = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, out);
  g_assert_null (created);
}

static void
test_relative_cwd_rejected (RuntimeFixture *f,
                            gconstpointer   data)
{
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"helper\"}");
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\":\"user\",\"content\":\"hi\"}");
  g_autoptr(JsonNode) config = natter_test_json ("{\"humanAvailable\":true,\"cwd\":\"src/../x\"}");
  g_auto(GStrv) ids = NULL;
  GError *error = NULL;

  /* config.cwd must be a normalized absolute path; nothing is created. */
  natter_turn_runtime_create_turn_async (f->runtime, json_node_get_object (agent), NULL, NULL,
                                         json_node_get_object (input), json_node_get_object (config),
                                         NULL, create_failed_cb, &error);
  natter_test_wait_for_pointer ((gpointer *) &error, 5000);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 0);
}

static void
test_model_classifier_through_runtime (RuntimeFixture *f,
                                       gconstpointer   data)
{
  g_autofree char *config = g_strdup_printf ("{\"humanAvailable\":false,\"autoPermission\":true,"
                                             "\"cwd\":\"%s\"}", f->base.path);
  g_autofree char *turn_id = create_turn (f, config);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *classified;
  JsonObject *asked;

  /* The turn's own model answers the classification (call 2 of the
   * script), which allows r1 and leaves r2 out: r2 counts as defer, and
   * with no human that is a denial. */
  write_file (&f->base, "notes.txt", "remember the milk", -1);
  g_ptr_array_add (f->world->script,
                   g_strdup ("{\"role\":\"assistant\",\"content\":["
                             "{\"type\":\"tool-call\",\"toolCallId\":\"r1\",\"toolName\":\"read_file\","
                             "\"arguments\":{\"path\":\"notes.txt\"}},"
                             "{\"type\":\"tool-call\",\"toolCallId\":\"r2\",\"toolName\":\"list_directory\","
                             "\"arguments\":{\"path\":\"/\"}}]}"));
  g_ptr_array_add (f->world->script,
                   g_strdup ("{\"role\":\"assistant\",\"content\":\"{\\\"decisions\\\":[{\\\"toolCallId\\\":"
                             "\\\"r1\\\",\\\"decision\\\":\\\"allow\\\",\\\"reason\\\":\\\"reads a note\\\"}]}\"}"));
  g_ptr_array_add (f->world->script, g_strdup (TEXT_STEP));
  outcome = advance (f, turn_id, NULL);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  asked = g_ptr_array_index (f->world->requests, 1);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (asked, "tools")), ==, 0);
  events = read_events (f, turn_id);
  g_assert_cmpstr (event_type (events, 5), ==, "tool_permission_classified");
  classified = json_node_get_object (g_ptr_array_index (events, 5));
  g_assert_cmpstr (json_object_get_string_member (classified, "reason"), ==, "reads a note");
  g_assert_cmpstr (event_type (events, 6), ==, "tool_permission_classification_failed");
  g_assert_cmpstr (last_tool_message (f), ==, "Permission denied");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/builtin-tools/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
#define ADD_RUNTIME(path, func) \
  g_test_add ("/builtin-tools/" path, RuntimeFixture, NULL, runtime_set_up, func, runtime_tear_down)

  ADD ("read-file-relative-to-cwd", test_read_file_relative);
  ADD ("read-file-refuses-directory-and-fifo", test_read_file_refuses_non_regular);
  ADD ("read-file-bounded", test_read_file_bounded);
  ADD ("read-file-binary", test_read_file_binary);
  ADD ("list-directory-sorted", test_list_directory_sorted);
  ADD ("list-directory-bounded", test_list_directory_bounded);
  ADD ("current-time", test_current_time);
  ADD ("default-checker", test_default_checker);
  ADD_RUNTIME ("ask-human-through-runtime", test_ask_human_through_runtime);
  ADD_RUNTIME ("ask-human-unavailable", test_ask_human_unavailable);
  ADD_RUNTIME ("read-file-through-runtime", test_read_file_through_runtime);
  ADD_RUNTIME ("model-classifier-through-runtime", test_model_classifier_through_runtime);
  ADD_RUNTIME ("relative-cwd-rejected", test_relative_cwd_rejected);

  return g_test_run ();
}
