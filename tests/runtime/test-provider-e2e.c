/* test-provider-e2e.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OpenAI-compatible provider end to end THROUGH the turn runtime
 * (docs/runtime.md §3, §5, §9, §12): a localhost SoupServer plays a
 * scripted model, the real NatterProviderRegistry resolves the turn's
 * model descriptor, and the real runtime writes the turn file in a
 * temporary directory. Every test ends by scanning every request body,
 * every file on disk and every log line for the API key.
 */

#include <string.h>

#include <libsoup/soup.h>

#include "natter-provider-registry.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-runtime.h"
#include "natter-test-fakes.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define API_KEY "sk-e2e-SECRET-42"
#define WAIT_MS 10000
#define SYSTEM_PROMPT "You are the e2e model."

static gboolean key_logged;
static guint natter_log_lines;

/* ------------------------------------------------------------------ */
/* The scripted server                                                 */
/* ------------------------------------------------------------------ */


/* Server-Sent Event pieces of an OpenAI-compatible stream. */
#define SSE "text/event-stream"
#define CHUNK(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" delta "\"}}]}\n\n"
#define REASONING(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"" delta "\"}}]}\n\n"
#define FINISH(reason) "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" reason "\"}]}\n\n"
#define USAGE "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3,\"total_tokens\":10}}\n\n"
#define DONE "data: [DONE]\n\n"
#define TOOL_START(id, name) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"" id "\"," \
  "\"type\":\"function\",\"function\":{\"name\":\"" name "\",\"arguments\":\"\"}}]}}]}\n\n"
#define TOOL_ARGS(fragment) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"" \
  fragment "\"}}]}}]}\n\n"

/* "Hello world" in three reads, with usage. */
#define ANSWER \
  { .status = 200, .content_type = SSE, \
    .chunks = NATTER_TEST_CHUNKS (CHUNK ("Hel") CHUNK ("lo"), CHUNK (" world"), FINISH ("stop") USAGE DONE) }
/* echo({"text":"ping"}) as call_1, its arguments in two fragments. */
#define ECHO_CALL \
  { .status = 200, .content_type = SSE, \
    .chunks = NATTER_TEST_CHUNKS (TOOL_START ("call_1", "echo"), TOOL_ARGS ("{\\\"text\\\":"), \
                TOOL_ARGS ("\\\"ping\\\"}") FINISH ("tool_calls") DONE) }

/* ------------------------------------------------------------------ */
/* Fakes: agent, permission checker, classifier, tools                 */
/* ------------------------------------------------------------------ */

#define FAKE_TYPE_WORLD (fake_world_get_type ())
G_DECLARE_FINAL_TYPE (FakeWorld, fake_world, FAKE, WORLD, GObject)

struct _FakeWorld
{
  GObject  parent_instance;
  char    *provider;   /* the agent's model provider */
};

static void agent_resolver_iface_init (NatterAgentResolverInterface *iface);
static void checker_iface_init (NatterPermissionCheckerInterface *iface);
static void classifier_iface_init (NatterPermissionClassifierInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FakeWorld, fake_world, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_AGENT_RESOLVER, agent_resolver_iface_init)
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_PERMISSION_CHECKER, checker_iface_init)
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_PERMISSION_CLASSIFIER, classifier_iface_init))

#define ECHO_TOOL \
  "{\"toolId\":\"t.echo\",\"name\":\"echo\",\"description\":\"Echoes text\"," \
  "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}," \
  "\"execution\":\"sync\",\"requiresHuman\":false}"
#define GUARDED_TOOL \
  "{\"toolId\":\"t.guarded\",\"name\":\"guarded\",\"description\":\"Needs a yes\"," \
  "\"inputSchema\":{\"type\":\"object\"},\"execution\":\"sync\",\"requiresHuman\":false}"

static JsonObject *
world_resolve_agent (NatterAgentResolver  *resolver,
                     JsonObject           *requested,
                     GError              **error)
{
  FakeWorld *self = FAKE_WORLD (resolver);
  g_autofree char *text = g_strdup_printf ("{\"agentId\":\"helper\",\"systemPrompt\":\"" SYSTEM_PROMPT "\","
                                           "\"model\":{\"provider\":\"%s\",\"model\":\"e2e-model\"},"
                                           "\"tools\":[" ECHO_TOOL "," GUARDED_TOOL "]}",
                                           self->provider);
  g_autoptr(JsonNode) agent = natter_test_json (text);

  return json_object_ref (json_node_get_object (agent));
}

static void
agent_resolver_iface_init (NatterAgentResolverInterface *iface)
{
  iface->resolve = world_resolve_agent;
}

/* Only "guarded" needs a yes; echo runs without a human. */
static gboolean
world_check (NatterPermissionChecker  *checker,
             JsonObject               *descriptor,
             JsonObject               *input,
             gboolean                 *out_required,
             JsonNode                **out_request,
             GError                  **error)
{
  *out_required = g_str_equal (json_object_get_string_member (descriptor, "name"), "guarded");
  if (*out_required)
    *out_request = natter_test_json ("{\"ask\":\"may I?\"}");
  return TRUE;
}

static void
checker_iface_init (NatterPermissionCheckerInterface *iface)
{
  iface->check = world_check;
}

static void
world_classify_async (NatterPermissionClassifier *classifier,
                      JsonArray                  *calls,
                      GCancellable               *cancellable,
                      GAsyncReadyCallback         callback,
                      gpointer                    user_data)
{
  g_autoptr(GTask) task = g_task_new (classifier, cancellable, callback, user_data);

  /* No test turns autoPermission on. */
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "no classifier");
}

static JsonArray *
world_classify_finish (NatterPermissionClassifier  *classifier,
                       GAsyncResult                *result,
                       GError                     **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
classifier_iface_init (NatterPermissionClassifierInterface *iface)
{
  iface->classify_async = world_classify_async;
  iface->classify_finish = world_classify_finish;
}

static void
fake_world_finalize (GObject *object)
{
  g_free (FAKE_WORLD (object)->provider);
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
  self->provider = g_strdup ("e2e");
}

/* echo answers "echo:<text>"; guarded answers "guarded ran". */
static JsonObject *
fake_tool_run (JsonObject              *descriptor,
               JsonObject              *input,
               NatterToolProgressFunc   progress,
               gpointer                 progress_data,
               GCancellable            *cancellable,
               gpointer                 run_data,
               GError                 **error)
{
  const char *name = json_object_get_string_member (descriptor, "name");
  JsonObject *result = json_object_new ();

  if (g_str_equal (name, "echo"))
    {
      g_autofree char *output = g_strconcat ("echo:", json_object_get_string_member_with_default (input, "text", ""),
                                             NULL);

      json_object_set_string_member (result, "output", output);
    }
  else
    json_object_set_string_member (result, "output", "guarded ran");
  json_object_set_boolean_member (result, "isError", FALSE);
  return result;
}

/* The key store of the tests: one key for every provider, and a count
 * of lookups, so a test can see that each advance looks the key up. */
typedef struct
{
  guint      n_lookups;
  GPtrArray *providers;   /* char*: the provider of each lookup */
} Keys;

static char *
fake_key_lookup (const char *provider,
                 gpointer    user_data)
{
  Keys *keys = user_data;

  keys->n_lookups++;
  g_ptr_array_add (keys->providers, g_strdup (provider));
  return g_strdup (API_KEY);
}

/* ------------------------------------------------------------------ */
/* Fixture                                                             */
/* ------------------------------------------------------------------ */

typedef struct
{
  GFile                  *dir;
  NatterJsonlRepo        *repo;
  NatterFakeClock        *clock;
  FakeWorld              *world;
  NatterTurnEventHub     *hub;
  NatterProviderRegistry *registry;
  NatterTurnRuntime      *runtime;
  Keys                    keys;
  NatterTestServer             *server;
  GPtrArray              *errors;   /* char*: every error message seen */
} Fixture;

static void
make_runtime (Fixture *f)
{
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NATTER_CLOCK (f->clock));
  g_autoptr(NatterToolRegistry) tools = natter_tool_registry_new ();
  g_autoptr(NatterTurnContextResolver) contexts = natter_turn_context_resolver_new (f->repo);

  natter_test_tools_add (tools, ECHO_TOOL, fake_tool_run, NULL);
  natter_test_tools_add (tools, GUARDED_TOOL, fake_tool_run, NULL);
  f->registry = natter_provider_registry_new (fake_key_lookup, &f->keys, NULL);
  f->runtime = natter_turn_runtime_new (f->repo, ids, NATTER_CLOCK (f->clock),
                                        NATTER_AGENT_RESOLVER (f->world),
                                        NATTER_MODEL_REGISTRY (f->registry), tools,
                                        NATTER_CONTEXT_RESOLVER (contexts),
                                        NATTER_PERMISSION_CHECKER (f->world),
                                        NATTER_PERMISSION_CLASSIFIER (f->world),
                                        f->hub, NULL, 0);
}

static void
drop_runtime (Fixture *f)
{
  /* Pending idles (a cancel kick after settlement) hold the execution. */
  natter_test_drain_main_context ();
  g_assert_finalize_object (f->runtime);
  f->runtime = NULL;
  g_assert_finalize_object (f->registry);
  f->registry = NULL;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = natter_test_make_temp_dir ();
  f->repo = natter_turn_repo_new (f->dir);
  f->clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  f->world = g_object_new (FAKE_TYPE_WORLD, NULL);
  f->hub = natter_turn_event_hub_new ();
  f->keys.providers = g_ptr_array_new_with_free_func (g_free);
  f->errors = g_ptr_array_new_with_free_func (g_free);
  key_logged = FALSE;
  make_runtime (f);
}

/* Every file under the data directory, and the key nowhere in it. */
static void
assert_no_key_on_disk (GFile *dir)
{
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GError) error = NULL;
  GFileInfo *info;
  GFile *child;

  children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                        NULL, &error);
  g_assert_no_error (error);
  while (g_file_enumerator_iterate (children, &info, &child, NULL, &error) && info != NULL)
    {
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        assert_no_key_on_disk (child);
      else
        {
          g_autofree char *path = g_file_get_path (child);
          g_autofree char *contents = natter_test_read_file (path, NULL);

          g_assert_null (strstr (contents, API_KEY));
        }
    }
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  if (f->runtime != NULL)
    drop_runtime (f);

  /* docs/runtime.md §12: the key reaches no file, no body, no error and no log
   * line; it travels only in the Authorization header. */
  assert_no_key_on_disk (f->dir);
  for (guint i = 0; i < f->errors->len; i++)
    g_assert_null (strstr (g_ptr_array_index (f->errors, i), API_KEY));
  if (f->server != NULL)
    {
      for (guint i = 0; i < f->server->bodies->len; i++)
        {
          g_assert_null (strstr (g_ptr_array_index (f->server->bodies, i), API_KEY));
          g_assert_cmpstr (g_ptr_array_index (f->server->authorizations, i), ==, "Bearer " API_KEY);
        }
      g_clear_pointer (&f->server, natter_test_server_free);
    }
  g_assert_false (key_logged);

  g_clear_object (&f->world);
  g_clear_object (&f->hub);
  g_clear_object (&f->repo);
  g_clear_object (&f->clock);
  g_ptr_array_unref (f->keys.providers);
  g_ptr_array_unref (f->errors);
  natter_test_remove_tree (f->dir);
  g_clear_object (&f->dir);
}

/* Starts the scripted server and configures it as provider "e2e". */
static void
serve (Fixture                  *f,
       const NatterTestResponse *script,
       guint                     n_script)
{
  f->server = natter_test_server_new (script, n_script);
  f->server->expected_path = "/v1/chat/completions";
  natter_provider_registry_add_provider (f->registry, "e2e", "E2E Model", f->server->base_url);
}

#define SERVE(f, ...) \
  G_STMT_START { \
    const NatterTestResponse script_[] = { __VA_ARGS__ }; \
    serve ((f), script_, G_N_ELEMENTS (script_)); \
  } G_STMT_END

/* ------------------------------------------------------------------ */
/* Driving turns                                                       */
/* ------------------------------------------------------------------ */

static char *
create_turn_full (Fixture    *f,
                  const char *agent_literal,
                  const char *context_literal,
                  const char *text)
{
  g_autoptr(JsonNode) agent = natter_test_json (agent_literal);
  g_autoptr(JsonNode) context = context_literal != NULL ? natter_test_json (context_literal) : NULL;
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(JsonObject) config = json_object_new ();

  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  json_object_set_boolean_member (config, "autoPermission", FALSE);
  json_object_set_boolean_member (config, "humanAvailable", TRUE);
  return natter_test_create_turn_full (f->runtime, json_node_get_object (agent), context, input, config);
}

static char *
create_turn_with_parameters (Fixture    *f,
                             const char *parameters_literal)
{
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"helper\"}");
  g_autoptr(JsonNode) parameters = natter_test_json (parameters_literal);
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(JsonObject) config = json_object_new ();

  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "Say ping");
  json_object_set_boolean_member (config, "humanAvailable", TRUE);
  json_object_set_member (config, "parameters", g_steal_pointer (&parameters));
  return natter_test_create_turn_full (f->runtime, json_node_get_object (agent), NULL, input, config);
}

static char *
create_turn (Fixture *f)
{
  return create_turn_full (f, "{\"agentId\":\"helper\"}", NULL, "Say ping");
}

typedef struct
{
  gboolean           done;
  NatterTurnOutcome *outcome;
  GError            *error;
  GPtrArray         *deltas;         /* "text:…" / "reasoning:…" */
  GCancellable      *cancel_on_delta;
  guint              late_deltas;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->outcome, natter_turn_outcome_unref);
  g_clear_error (&run->error);
  g_clear_pointer (&run->deltas, g_ptr_array_unref);
}

static void
delta_cb (NatterTurnExecution *execution,
          guint                model_call_index,
          int                  kind,
          const char          *text,
          Run                 *run)
{
  if (run->cancel_on_delta != NULL && g_cancellable_is_cancelled (run->cancel_on_delta))
    run->late_deltas++;
  g_ptr_array_add (run->deltas, g_strdup_printf ("%u:%s:%s", model_call_index,
                                                 kind == NATTER_DELTA_TEXT ? "text" : "reasoning", text));
  if (run->cancel_on_delta != NULL)
    g_cancellable_cancel (run->cancel_on_delta);
}

static void
waited_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Run *run = user_data;

  run->outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &run->error);
  run->done = TRUE;
}

/* Advances with an optional input literal until the outcome. */
static void
advance_full (Fixture      *f,
              const char   *turn_id,
              const char   *input,
              GCancellable *cancellable,
              Run          *run)
{
  g_autoptr(JsonNode) node = input != NULL ? natter_test_json (input) : NULL;
  g_autoptr(NatterTurnExecution) execution = NULL;

  run->deltas = g_ptr_array_new_with_free_func (g_free);
  run->cancel_on_delta = cancellable;
  execution = natter_turn_runtime_advance_turn (f->runtime, turn_id,
                                                node != NULL ? json_node_get_object (node) : NULL,
                                                cancellable);
  g_signal_connect (execution, "delta", G_CALLBACK (delta_cb), run);
  natter_turn_execution_wait_async (execution, NULL, waited_cb, run);
  natter_test_wait_for_flag (&run->done, WAIT_MS);
  g_assert_true (natter_turn_execution_get_settled (execution));

  /* Whatever is still queued runs now: a late delta would show. */
  natter_test_drain_main_context ();
  g_signal_handlers_disconnect_by_func (execution, delta_cb, run);

  if (run->error != NULL)
    g_ptr_array_add (f->errors, g_strdup (run->error->message));
  if (run->outcome != NULL && run->outcome->error != NULL)
    g_ptr_array_add (f->errors, g_strdup (run->outcome->error));
}

static void
advance (Fixture    *f,
         const char *turn_id,
         const char *input,
         Run        *run)
{
  advance_full (f, turn_id, input, NULL, run);
  g_assert_no_error (run->error);
}

static GPtrArray *
read_events (Fixture    *f,
             const char *turn_id)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);

  g_assert_no_error (error);
  return events;
}

static JsonObject *
event_at (GPtrArray *events,
          guint      index)
{
  return json_node_get_object (g_ptr_array_index (events, index));
}

/* The event types after turn_created, space separated. */
static void
assert_types (Fixture    *f,
              const char *turn_id,
              const char *expected)
{
  g_autoptr(GPtrArray) events = read_events (f, turn_id);
  g_autoptr(GString) types = g_string_new (NULL);

  for (guint i = 1; i < events->len; i++)
    g_string_append_printf (types, "%s%s", i > 1 ? " " : "",
                            json_object_get_string_member (event_at (events, i), "type"));
  g_assert_cmpstr (types->str, ==, expected);
}

/* The first event of a type. */
static JsonObject *
find_event (GPtrArray  *events,
            const char *type)
{
  for (guint i = 0; i < events->len; i++)
    if (g_str_equal (json_object_get_string_member (event_at (events, i), "type"), type))
      return event_at (events, i);
  g_error ("No %s event", type);
  return NULL;
}

static void
assert_object_equal (JsonObject *actual,
                     const char *expected_literal)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), actual);

  natter_test_assert_json_equal (node, expected_literal);
}

/* The request body the server received for call @index. */
static JsonObject *
request_body (Fixture *f,
              guint    index)
{
  g_autoptr(JsonNode) node = NULL;

  g_assert_cmpuint (index, <, f->server->bodies->len);
  node = natter_test_json (g_ptr_array_index (f->server->bodies, index));
  return json_object_ref (json_node_get_object (node));
}

static void
assert_messages (Fixture    *f,
                 guint       index,
                 const char *expected_literal)
{
  g_autoptr(JsonObject) body = request_body (f, index);

  natter_test_assert_json_equal (json_object_get_member (body, "messages"), expected_literal);
}

static char *
file_text (Fixture    *f,
           const char *turn_id)
{
  g_autoptr(GPtrArray) events = read_events (f, turn_id);
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    {
      g_autofree char *line = json_to_string (g_ptr_array_index (events, i), FALSE);

      g_string_append_printf (text, "%s\n", line);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

#define SYSTEM_MESSAGE "{\"role\":\"system\",\"content\":\"" SYSTEM_PROMPT "\"}"
#define USER_MESSAGE(text) "{\"role\":\"user\",\"content\":\"" text "\"}"
#define ECHO_CALL_MESSAGE(id) \
  "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"" id "\",\"type\":\"function\"," \
  "\"function\":{\"name\":\"echo\",\"arguments\":\"{\\\"text\\\":\\\"ping\\\"}\"}}]}"
#define TOOL_MESSAGE(id, text) "{\"role\":\"tool\",\"tool_call_id\":\"" id "\",\"content\":\"" text "\"}"

/* ------------------------------------------------------------------ */
/* Scenarios                                                           */
/* ------------------------------------------------------------------ */

/* (1) */
static void
test_streamed_answer (Fixture       *f,
                      gconstpointer  data)
{
  const NatterTestResponse with_reasoning = {
    .status = 200, .content_type = SSE,
    .chunks = NATTER_TEST_CHUNKS (REASONING ("Think"), CHUNK ("Hel") CHUNK ("lo"), CHUNK (" world"), FINISH ("stop") USAGE DONE),
  };
  g_autofree char *turn_id = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) body = NULL;
  Run run = { 0 };

  serve (f, &with_reasoning, 1);
  turn_id = create_turn (f);
  advance (f, turn_id, NULL, &run);

  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  g_assert_cmpstr (run.outcome->finish_reason, ==, "stop");
  assert_object_equal (run.outcome->output,
                     "{\"role\":\"assistant\",\"content\":[{\"type\":\"reasoning\",\"text\":\"Think\"},"
                     "{\"type\":\"text\",\"text\":\"Hello world\"}]}");
  g_assert_cmpint (json_object_get_int_member (run.outcome->usage, "inputTokens"), ==, 7);
  g_assert_cmpint (json_object_get_int_member (run.outcome->usage, "outputTokens"), ==, 3);

  /* Deltas arrived live, in order, through the execution. */
  g_assert_cmpuint (run.deltas->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 0), ==, "0:reasoning:Think");
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 1), ==, "0:text:Hel");
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 2), ==, "0:text:lo");
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 3), ==, "0:text: world");

  /* ...and never reached the file. */
  assert_types (f, turn_id, "model_call_requested model_call_completed turn_completed");
  text = file_text (f, turn_id);
  g_assert_null (strstr (text, "delta"));
  g_assert_null (strstr (text, "\"Hel\""));

  /* The request: model, system prompt + input, tools, streaming. */
  body = request_body (f, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "e2e-model");
  g_assert_true (json_object_get_boolean_member (body, "stream"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (body, "tools")), ==, 2);
  assert_messages (f, 0, "[" SYSTEM_MESSAGE "," USER_MESSAGE ("Say ping") "]");
  run_clear (&run);
}

/* Generation parameters from the turn reach the wire with every call and
 * are recorded in the durable request (issue: "generation parameters from
 * the turn"). */
static void
test_generation_parameters (Fixture       *f,
                            gconstpointer  data)
{
  const NatterTestResponse answer = {
    .status = 200, .content_type = SSE,
    .chunks = NATTER_TEST_CHUNKS (CHUNK ("pong") FINISH ("stop") DONE),
  };
  g_autofree char *turn_id = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) body = NULL;
  Run run = { 0 };

  serve (f, &answer, 1);
  turn_id = create_turn_with_parameters (f, "{\"temperature\":0.25,\"max_tokens\":64}");
  advance (f, turn_id, NULL, &run);
  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  body = request_body (f, 0);
  g_assert_cmpfloat (json_object_get_double_member (body, "temperature"), ==, 0.25);
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 64);
  g_assert_true (json_object_get_boolean_member (body, "stream"));

  text = file_text (f, turn_id);
  g_assert_nonnull (strstr (text, "\"parameters\":{\"temperature\":0.25,\"max_tokens\":64}"));
  run_clear (&run);
}

/* (2) */
static void
test_tool_round_trip (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *result;
  Run run = { 0 };

  SERVE (f, ECHO_CALL, ANSWER);
  turn_id = create_turn (f);
  advance (f, turn_id, NULL, &run);

  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_invocation_requested tool_result "
                "model_call_requested model_call_completed turn_completed");
  events = read_events (f, turn_id);
  result = find_event (events, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (result, "toolCallId"), ==, "call_1");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "result"), "output"),
                   ==, "echo:ping");

  /* The second request carries the whole materialized context. */
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  assert_messages (f, 1, "[" SYSTEM_MESSAGE "," USER_MESSAGE ("Say ping") ","
                         ECHO_CALL_MESSAGE ("call_1") "," TOOL_MESSAGE ("call_1", "echo:ping") "]");
  g_assert_cmpuint (run.deltas->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (run.deltas, 0), ==, "1:text:Hel");
  run_clear (&run);
}

/* (3) */
static void
test_previous_turn_context (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *context = NULL;
  Run run1 = { 0 };
  Run run2 = { 0 };

  SERVE (f, ECHO_CALL, ANSWER, ANSWER);
  first = create_turn (f);
  advance (f, first, NULL, &run1);
  g_assert_cmpint (run1.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  context = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", first);
  second = create_turn_full (f, "{\"agentId\":\"helper\"}", context, "And again?");
  advance (f, second, NULL, &run2);
  g_assert_cmpint (run2.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  /* The previous turn's closed transcript, then the new input. */
  assert_messages (f, 2, "[" SYSTEM_MESSAGE "," USER_MESSAGE ("Say ping") ","
                         ECHO_CALL_MESSAGE ("call_1") "," TOOL_MESSAGE ("call_1", "echo:ping") ","
                         "{\"role\":\"assistant\",\"content\":\"Hello world\"},"
                         USER_MESSAGE ("And again?") "]");
  run_clear (&run1);
  run_clear (&run2);
}

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

/* (8) A server that echoes the key back in its error must not get it
 * into the turn: the tear-down scans bodies, files, errors and logs. */
static void
test_key_never_leaks (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *ok_turn = NULL;
  g_autofree char *failed_turn = NULL;
  g_autofree char *text = NULL;
  Run run1 = { 0 };
  Run run2 = { 0 };

  SERVE (f, ECHO_CALL, ANSWER,
         { .status = 401, .content_type = "application/json",
           .body = "{\"error\":{\"message\":\"Incorrect API key provided: " API_KEY "\"}}" });
  ok_turn = create_turn (f);
  advance (f, ok_turn, NULL, &run1);
  g_assert_cmpint (run1.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);

  failed_turn = create_turn (f);
  advance (f, failed_turn, NULL, &run2);
  g_assert_cmpint (run2.outcome->kind, ==, NATTER_TURN_OUTCOME_FAILED);
  g_assert_cmpstr (run2.outcome->error, ==,
                   "E2E Model refused the API key (HTTP 401 Unauthorized): Incorrect API key provided: "
                   "[redacted] — check the key in the provider settings");
  text = file_text (f, failed_turn);
  g_assert_null (strstr (text, API_KEY));

  /* Sent in the header of every call, and looked up for each advance. */
  g_assert_cmpuint (f->server->authorizations->len, ==, 3);
  g_assert_cmpuint (f->keys.n_lookups, ==, 2);
  /* The log check in the tear-down did see the provider's lines. */
  g_assert_cmpuint (natter_log_lines, >, 0);
  run_clear (&run1);
  run_clear (&run2);
}

/* (9) */
static void
test_ad_hoc_endpoint (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *agent = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonObject) second = NULL;
  JsonObject *model;
  JsonObject *requested;
  Run run1 = { 0 };
  Run run2 = { 0 };

  SERVE (f, { .status = 200, .content_type = SSE,
              .chunks = NATTER_TEST_CHUNKS (TOOL_START ("call_g", "guarded"), FINISH ("tool_calls") DONE) },
         ANSWER);

  /* The per-turn override names the endpoint itself, as --base-url. */
  agent = g_strdup_printf ("{\"agentId\":\"helper\",\"model\":{\"provider\":\"%s\",\"model\":\"adhoc-model\"}}",
                           f->server->base_url);
  turn_id = create_turn_full (f, agent, NULL, "Do the guarded thing");
  advance (f, turn_id, NULL, &run1);
  g_assert_cmpint (run1.outcome->kind, ==, NATTER_TURN_OUTCOME_SUSPENDED);
  g_assert_cmpuint (json_array_get_length (run1.outcome->pending_permissions), ==, 1);

  /* The turn names its endpoint; nothing else is needed to go on. */
  events = read_events (f, turn_id);
  model = json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (event_at (events, 0),
                                                                                                         "agent"),
                                                                        "resolved"),
                                         "model");
  g_assert_cmpstr (json_object_get_string_member (model, "provider"), ==, f->server->base_url);
  g_assert_cmpstr (json_object_get_string_member (model, "model"), ==, "adhoc-model");
  /* The request keeps the override where the reference format has it. */
  requested = json_object_get_object_member (json_object_get_object_member (event_at (events, 0), "agent"),
                                             "requested");
  g_assert_false (json_object_has_member (requested, "model"));
  g_assert_cmpstr (json_object_get_string_member (requested, "agentId"), ==, "helper");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_object_get_object_member (requested,
                                                                                                                 "overrides"),
                                                                                 "model"),
                                                  "model"),
                   ==, "adhoc-model");

  /* A later process: a fresh registry that configures nothing. */
  drop_runtime (f);
  make_runtime (f);
  advance (f, turn_id, "{\"type\":\"permission_decision\",\"toolCallId\":\"call_g\",\"decision\":\"allow\"}", &run2);
  g_assert_cmpint (run2.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_permission_required turn_suspended "
                "tool_permission_resolved tool_invocation_requested tool_result "
                "model_call_requested model_call_completed turn_completed");

  /* The key was looked up again, for the endpoint, at each advance. */
  g_assert_cmpuint (f->keys.n_lookups, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->keys.providers, 0), ==, f->server->base_url);
  g_assert_cmpstr (g_ptr_array_index (f->keys.providers, 1), ==, f->server->base_url);

  second = request_body (f, 1);
  g_assert_cmpstr (json_object_get_string_member (second, "model"), ==, "adhoc-model");
  g_assert_cmpstr (run2.outcome->error, ==, NULL);
  run_clear (&run1);
  run_clear (&run2);
}

/* (10) A server that answers tool calls without streaming (as the
 * mock-llm package does), and repeats its tool call id every time. */
static void
test_json_body_tool_calls (Fixture       *f,
                           gconstpointer  data)
{
#define JSON_TOOL_CALL \
  "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":" \
  "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\"," \
  "\"function\":{\"name\":\"echo\",\"arguments\":\"{\\\"text\\\":\\\"ping\\\"}\"}}]}," \
  "\"finish_reason\":\"tool_calls\"}]}"
  g_autofree char *turn_id = NULL;
  g_autoptr(JsonObject) last = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonArray *messages;
  const char *renamed;
  Run run = { 0 };

  SERVE (f,
         { .status = 200, .content_type = "application/json", .body = JSON_TOOL_CALL },
         { .status = 200, .content_type = "application/json", .body = JSON_TOOL_CALL },
         { .status = 200, .content_type = "application/json",
           .body = "{\"id\":\"chatcmpl-3\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                   "\"message\":{\"role\":\"assistant\",\"content\":\"pong\"},\"finish_reason\":\"stop\"}],"
                   "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1,\"total_tokens\":6}}" });
  turn_id = create_turn (f);
  advance (f, turn_id, NULL, &run);

  g_assert_cmpint (run.outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  assert_object_equal (run.outcome->output,
                     "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"pong\"}]}");
  assert_types (f, turn_id,
                "model_call_requested model_call_completed tool_invocation_requested tool_result "
                "model_call_requested model_call_completed tool_invocation_requested tool_result "
                "model_call_requested model_call_completed turn_completed");

  /* The repeated id was renamed, so each call keeps its own result. */
  events = read_events (f, turn_id);
  last = request_body (f, 2);
  messages = json_object_get_array_member (last, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 6);
  renamed = json_object_get_string_member (json_array_get_object_element (messages, 5), "tool_call_id");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 3), "tool_call_id"),
                   ==, "call_1");
  g_assert_cmpstr (renamed, !=, "call_1");
  g_assert_true (g_str_has_prefix (renamed, "call_"));
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_object_get_array_member (json_array_get_object_element (messages, 4), "tool_calls"), 0),
                     "id"),
                   ==, renamed);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 5), "content"),
                   ==, "echo:ping");
  run_clear (&run);
#undef JSON_TOOL_CALL
}

static void
create_failed_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GError **error = user_data;
  g_autoptr(NatterTurnCreated) created = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, error);
  g_assert_null (created);
  g_assert_nonnull (*error);
}

/* A model whose provider is not configured (a deleted provider, a
 * default naming one that is gone) makes no turn: a turn created for it
 * could never make its first call and would wait forever, unfinished.
 * The error says which provider is missing; no key is looked up. */
static void
test_unknown_provider_makes_no_turn (Fixture       *f,
                                     gconstpointer  data)
{
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"helper\","
                                                "\"model\":{\"provider\":\"gone\",\"model\":\"m\"}}");
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(JsonObject) config = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;

  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "Say ping");
  json_object_set_boolean_member (config, "humanAvailable", TRUE);
  natter_turn_runtime_create_turn_async (f->runtime, json_node_get_object (agent), NULL, NULL, input, config,
                                         NULL, create_failed_cb, &error);
  natter_test_wait_for_pointer ((gpointer *) &error, 10000);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "No provider “gone” is configured"));
  g_clear_error (&error);
  ids = natter_jsonl_repo_list_ids_sync (f->repo, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 0);
  g_assert_cmpuint (f->keys.n_lookups, ==, 0);
}

/* Resolving: unknown ids fail clearly; URLs need no configuration. */
static void
test_registry_resolve (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) unknown = natter_test_json ("{\"provider\":\"nowhere\",\"model\":\"m\"}");
  g_autoptr(JsonNode) ollama = natter_test_json ("{\"provider\":\"ollama\",\"model\":\"llama3.2\"}");
  g_autoptr(JsonNode) url = natter_test_json ("{\"provider\":\"https://llm.example.org/v1\",\"model\":\"m\"}");
  g_autoptr(JsonNode) no_model = natter_test_json ("{\"provider\":\"ollama\"}");
  g_autoptr(NatterModel) model = NULL;
  g_autoptr(NatterModel) again = NULL;
  g_autoptr(NatterModel) remote = NULL;
  g_auto(GStrv) ids = NULL;
  NatterOpenaiProvider *provider;

  g_assert_null (natter_model_registry_resolve (NATTER_MODEL_REGISTRY (f->registry),
                                                json_node_get_object (unknown), &error));
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "“nowhere”"));
  g_clear_error (&error);

  g_assert_null (natter_model_registry_resolve (NATTER_MODEL_REGISTRY (f->registry),
                                                json_node_get_object (no_model), &error));
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND);
  g_clear_error (&error);

  /* The default: Ollama on localhost. */
  model = natter_model_registry_resolve (NATTER_MODEL_REGISTRY (f->registry), json_node_get_object (ollama), &error);
  g_assert_no_error (error);
  provider = natter_openai_model_get_provider (NATTER_OPENAI_MODEL (model));
  g_assert_cmpstr (natter_openai_provider_get_display_name (provider), ==, "Ollama");
  g_assert_cmpstr (natter_openai_provider_get_base_url (provider), ==, NATTER_DEFAULT_PROVIDER_URL);
  g_assert_cmpuint (natter_openai_provider_get_idle_timeout (provider), ==, NATTER_DEFAULT_IDLE_TIMEOUT);
  g_assert_cmpstr (natter_openai_model_get_name (NATTER_OPENAI_MODEL (model)), ==, "llama3.2");

  /* Same key: the same provider (and its connections) again. */
  again = natter_model_registry_resolve (NATTER_MODEL_REGISTRY (f->registry), json_node_get_object (ollama), &error);
  g_assert_no_error (error);
  g_assert_true (natter_openai_model_get_provider (NATTER_OPENAI_MODEL (again)) == provider);
  g_assert_cmpuint (f->keys.n_lookups, ==, 2);

  remote = natter_model_registry_resolve (NATTER_MODEL_REGISTRY (f->registry), json_node_get_object (url), &error);
  g_assert_no_error (error);
  provider = natter_openai_model_get_provider (NATTER_OPENAI_MODEL (remote));
  g_assert_cmpstr (natter_openai_provider_get_display_name (provider), ==, "llm.example.org");
  g_assert_cmpstr (natter_openai_provider_get_id (provider), ==, "https://llm.example.org/v1");

  ids = natter_provider_registry_list_providers (f->registry);
  g_assert_cmpuint (g_strv_length (ids), ==, 1);
  g_assert_cmpstr (ids[0], ==, "ollama");
  g_assert_true (natter_provider_registry_remove_provider (f->registry, "ollama"));
  g_assert_false (natter_provider_registry_remove_provider (f->registry, "ollama"));
}

/* A changed key takes effect at the next resolve. */
static char *
changing_key_lookup (const char *provider,
                     gpointer    user_data)
{
  guint *n = user_data;

  return g_strdup_printf ("sk-change-%u", (*n)++ / 2);
}

static void
test_registry_key_change (void)
{
  guint n = 0;
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (changing_key_lookup, &n, NULL);
  g_autoptr(NatterOpenaiProvider) first = natter_provider_registry_get_provider (registry, "ollama", NULL);
  g_autoptr(NatterOpenaiProvider) same = natter_provider_registry_get_provider (registry, "ollama", NULL);
  g_autoptr(NatterOpenaiProvider) changed = natter_provider_registry_get_provider (registry, "ollama", NULL);
  g_autoptr(NatterOpenaiProvider) retimed = NULL;

  g_assert_true (first == same);
  g_assert_true (first != changed);

  natter_provider_registry_set_idle_timeout (registry, 5);
  retimed = natter_provider_registry_get_provider (registry, "ollama", NULL);
  g_assert_cmpuint (natter_openai_provider_get_idle_timeout (retimed), ==, 5);
  g_assert_cmpuint (natter_provider_registry_get_idle_timeout (registry), ==, 5);
}

static void
test_env_key_lookup (void)
{
  g_autofree char *key = NULL;

  g_setenv (NATTER_API_KEY_ENV, "sk-env", TRUE);
  key = natter_env_key_lookup ("ollama", NULL);
  g_assert_cmpstr (key, ==, "sk-env");
  g_unsetenv (NATTER_API_KEY_ENV);
  g_clear_pointer (&key, g_free);
  key = natter_env_key_lookup ("ollama", NULL);
  g_assert_null (key);
}

static GLogWriterOutput
log_writer (GLogLevelFlags   log_level,
            const GLogField *fields,
            gsize            n_fields,
            gpointer         user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    {
      if (fields[i].length >= 0)
        continue;
      if (strcmp (fields[i].key, "MESSAGE") == 0 && strstr (fields[i].value, API_KEY) != NULL)
        key_logged = TRUE;
      if (strcmp (fields[i].key, "GLIB_DOMAIN") == 0 && g_str_has_prefix (fields[i].value, "natter-"))
        natter_log_lines++;
    }

  /* Debug lines are only inspected, not printed. */
  if (log_level & G_LOG_LEVEL_DEBUG)
    return G_LOG_WRITER_HANDLED;
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

#define ADD(path, func) \
  g_test_add ("/provider-e2e/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

int
main (int   argc,
      char *argv[])
{
  /* Every debug line reaches the writer, so the key check sees them. */
  g_setenv ("G_MESSAGES_DEBUG", "all", TRUE);
  g_log_set_writer_func (log_writer, NULL, NULL);

  g_test_init (&argc, &argv, NULL);

  ADD ("streamed-answer", test_streamed_answer);
  ADD ("generation-parameters", test_generation_parameters);
  ADD ("tool-round-trip", test_tool_round_trip);
  ADD ("previous-turn-context", test_previous_turn_context);
  ADD ("http-error", test_http_error);
  ADD ("mid-stream-disconnect", test_mid_stream_disconnect);
  ADD ("cancel-mid-stream", test_cancel_mid_stream);
  ADD ("connection-refused", test_connection_refused);
  ADD ("key-never-leaks", test_key_never_leaks);
  ADD ("ad-hoc-endpoint", test_ad_hoc_endpoint);
  ADD ("json-body-tool-calls", test_json_body_tool_calls);
  ADD ("registry/resolve", test_registry_resolve);
  ADD ("unknown-provider-makes-no-turn", test_unknown_provider_makes_no_turn);
  g_test_add_func ("/provider-e2e/registry/key-change", test_registry_key_change);
  g_test_add_func ("/provider-e2e/registry/env-key", test_env_key_lookup);

  return g_test_run ();
}
