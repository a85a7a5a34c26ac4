/* bench-runtime.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Turn runtime figures: one model response with 200 sync tool
 * calls run through the whole loop of docs/runtime.md §6, and a 1,000-turn
 * previousTurnId chain materialized cold and warm (docs/runtime.md §11) — the
 * warm materialization must read about one file, not a thousand.
 */

#include "natter-bench.h"
#include "natter-clock.h"
#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-runtime.h"

#define N_TOOL_CALLS 200
#define N_CHAIN      1000

/* Fakes: one object is the model, the model registry, the agent resolver
 * and the permission checker; FastTool answers at once. */

#define BENCH_TYPE_WORLD (bench_world_get_type ())
G_DECLARE_FINAL_TYPE (BenchWorld, bench_world, BENCH, WORLD, GObject)

struct _BenchWorld
{
  GObject parent_instance;
  guint   n_steps;
};

static void model_iface_init (NatterModelInterface *iface);
static void model_registry_iface_init (NatterModelRegistryInterface *iface);
static void agent_resolver_iface_init (NatterAgentResolverInterface *iface);
static void checker_iface_init (NatterPermissionCheckerInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (BenchWorld, bench_world, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_MODEL, model_iface_init)
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_MODEL_REGISTRY, model_registry_iface_init)
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_AGENT_RESOLVER, agent_resolver_iface_init)
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_PERMISSION_CHECKER, checker_iface_init))

static JsonNode *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  if (node == NULL)
    g_error ("bad fixture: %s", error->message);
  return node;
}

static void
world_stream_step_async (NatterModel               *model,
                         JsonObject                *request,
                         const NatterModelStepSink *sink,
                         gpointer                   sink_data,
                         GCancellable              *cancellable,
                         GAsyncReadyCallback        callback,
                         gpointer                   user_data)
{
  BenchWorld *self = BENCH_WORLD (model);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GString) text = g_string_new ("{\"role\":\"assistant\",\"content\":");
  g_autoptr(JsonNode) message = NULL;

  /* The first step asks for every tool at once, the second answers. */
  if (self->n_steps++ == 0)
    {
      g_string_append_c (text, '[');
      for (guint i = 0; i < N_TOOL_CALLS; i++)
        g_string_append_printf (text, "%s{\"type\":\"tool-call\",\"toolCallId\":\"c%u\","
                                "\"toolName\":\"fast\",\"arguments\":{\"n\":%u}}",
                                i > 0 ? "," : "", i, i);
      g_string_append (text, "]}");
    }
  else
    {
      sink->text_delta ("done", sink_data);
      g_string_append (text, "\"done\"}");
    }
  message = parse (text->str);
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

#define FAST_DESCRIPTOR \
  "{\"toolId\":\"bench.fast\",\"name\":\"fast\",\"description\":\"\",\"inputSchema\":{}," \
  "\"execution\":\"sync\",\"requiresHuman\":false}"

static JsonObject *
world_resolve_agent (NatterAgentResolver  *resolver,
                     JsonObject           *requested,
                     GError              **error)
{
  g_autoptr(JsonNode) agent = parse ("{\"agentId\":\"bench\",\"systemPrompt\":\"\","
                                     "\"model\":{\"provider\":\"p\",\"model\":\"m\"},"
                                     "\"tools\":[" FAST_DESCRIPTOR "]}");

  return json_object_ref (json_node_get_object (agent));
}

static void
agent_resolver_iface_init (NatterAgentResolverInterface *iface)
{
  iface->resolve = world_resolve_agent;
}

static gboolean
world_check (NatterPermissionChecker  *checker,
             JsonObject               *descriptor,
             JsonObject               *input,
             gboolean                 *out_required,
             JsonNode                **out_request,
             GError                  **error)
{
  *out_required = FALSE;
  return TRUE;
}

static void
checker_iface_init (NatterPermissionCheckerInterface *iface)
{
  iface->check = world_check;
}

static void
bench_world_class_init (BenchWorldClass *klass)
{
}

static void
bench_world_init (BenchWorld *self)
{
}

#define BENCH_TYPE_FAST_TOOL (bench_fast_tool_get_type ())
G_DECLARE_FINAL_TYPE (BenchFastTool, bench_fast_tool, BENCH, FAST_TOOL, GObject)

struct _BenchFastTool
{
  GObject     parent_instance;
  JsonObject *descriptor;
};

static void tool_iface_init (NatterToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (BenchFastTool, bench_fast_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_TOOL, tool_iface_init))

static JsonObject *
fast_get_descriptor (NatterTool *tool)
{
  return BENCH_FAST_TOOL (tool)->descriptor;
}

static JsonObject *
fast_run (NatterTool              *tool,
          JsonObject              *input,
          NatterToolProgressFunc   progress,
          gpointer                 progress_data,
          GCancellable            *cancellable,
          GError                 **error)
{
  JsonObject *result = json_object_new ();

  json_object_set_string_member (result, "output", "ok");
  json_object_set_boolean_member (result, "isError", FALSE);
  return result;
}

static void
tool_iface_init (NatterToolInterface *iface)
{
  iface->get_descriptor = fast_get_descriptor;
  iface->run = fast_run;
}

static void
bench_fast_tool_finalize (GObject *object)
{
  json_object_unref (BENCH_FAST_TOOL (object)->descriptor);
  G_OBJECT_CLASS (bench_fast_tool_parent_class)->finalize (object);
}

static void
bench_fast_tool_class_init (BenchFastToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bench_fast_tool_finalize;
}

static void
bench_fast_tool_init (BenchFastTool *self)
{
  g_autoptr(JsonNode) node = parse (FAST_DESCRIPTOR);

  self->descriptor = json_object_ref (json_node_get_object (node));
}

/* Main-loop helpers */

static void
wait_for (gboolean *flag)
{
  while (!*flag)
    g_main_context_iteration (NULL, TRUE);
}

static void
created_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  char **out = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterTurnCreated) created = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  if (created == NULL)
    g_error ("create_turn: %s", error->message);
  *out = g_strdup (natter_turn_created_get_turn_id (created));
}

static void
settled_cb (NatterTurnExecution *execution,
            gboolean            *done)
{
  *done = TRUE;
}

static void
bench_batch_200_tools (void)
{
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autoptr(NatterJsonlRepo) repo = natter_turn_repo_new (dir);
  g_autoptr(NatterClock) clock = natter_clock_get_system ();
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (clock);
  g_autoptr(BenchWorld) world = g_object_new (BENCH_TYPE_WORLD, NULL);
  g_autoptr(NatterToolRegistry) tools = natter_tool_registry_new ();
  g_autoptr(BenchFastTool) fast = g_object_new (BENCH_TYPE_FAST_TOOL, NULL);
  g_autoptr(NatterTurnContextResolver) contexts = natter_turn_context_resolver_new (repo);
  g_autoptr(NatterTurnEventHub) hub = natter_turn_event_hub_new ();
  g_autoptr(NatterTurnRuntime) runtime = NULL;
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(JsonNode) agent = parse ("{\"agentId\":\"bench\"}");
  g_autoptr(JsonNode) input = parse ("{\"role\":\"user\",\"content\":\"go\"}");
  g_autoptr(JsonNode) config = parse ("{\"humanAvailable\":false}");
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  gboolean done = FALSE;
  double start;
  double seconds;

  natter_tool_registry_add (tools, NATTER_TOOL (fast));
  runtime = natter_turn_runtime_new (repo, ids, clock, NATTER_AGENT_RESOLVER (world),
                                     NATTER_MODEL_REGISTRY (world), tools,
                                     NATTER_CONTEXT_RESOLVER (contexts),
                                     NATTER_PERMISSION_CHECKER (world), NULL, hub, NULL, 0);
  natter_turn_runtime_create_turn_async (runtime, json_node_get_object (agent), NULL, NULL,
                                         json_node_get_object (input),
                                         json_node_get_object (config), NULL, created_cb, &turn_id);
  while (turn_id == NULL)
    g_main_context_iteration (NULL, TRUE);

  start = natter_bench_now ();
  execution = natter_turn_runtime_advance_turn (runtime, turn_id, NULL, NULL);
  g_signal_connect (execution, "settled", G_CALLBACK (settled_cb), &done);
  wait_for (&done);
  seconds = natter_bench_now () - start;

  events = natter_jsonl_repo_read_sync (repo, turn_id, NULL, &error);
  if (events == NULL)
    g_error ("%s", error->message);
  /* 2 model calls × 2 events, 200 × (invocation + result), completion. */
  if (events->len != 1 + 4 + 2 * N_TOOL_CALLS + 1)
    g_error ("unexpected event count %u", events->len);
  natter_bench_row ("runtime batch-200-tools", "wall time", seconds * 1000.0, "ms");
  natter_bench_row ("runtime batch-200-tools", "events written", events->len - 1, "events");
  natter_bench_row ("runtime batch-200-tools", "throughput", (events->len - 1) / seconds, "events/s");
  natter_bench_row ("runtime batch-200-tools", "peak RSS", natter_bench_peak_rss_kib () / 1024.0, "MiB");
  natter_bench_remove_tree (dir);
}

/* chain-1000 */

#define TS "\"ts\":\"2026-11-30T09:14:03.000Z\""

static void
write_completed_turn (NatterJsonlRepo *repo,
                      const char      *turn_id,
                      const char      *previous)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  g_autofree char *context = previous != NULL
                             ? g_strdup_printf ("{\"previousTurnId\":\"%s\"}", previous)
                             : g_strdup ("[]");
  g_autofree char *context_ref = previous != NULL
                                 ? g_strdup_printf ("\"contextRef\":{\"previousTurnId\":\"%s\"},", previous)
                                 : g_strdup ("");
  g_autofree char *created = NULL;
  g_autofree char *requested = NULL;
  g_autofree char *completed = NULL;
  g_autofree char *done = NULL;
  g_autoptr(JsonNode) created_node = NULL;

  created = g_strdup_printf ("{\"type\":\"turn_created\",\"turnId\":\"%s\"," TS ",\"schemaVersion\":1,"
                             "\"sessionId\":null,\"agent\":{\"requested\":{\"agentId\":\"a\"},"
                             "\"resolved\":{\"agentId\":\"a\",\"systemPrompt\":\"\","
                             "\"model\":{\"provider\":\"p\",\"model\":\"m\"},\"tools\":[]}},"
                             "\"context\":%s,\"input\":{\"role\":\"user\",\"content\":\"question %s\"},"
                             "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,"
                             "\"maxModelCalls\":5}}",
                             turn_id, context, turn_id);
  requested = g_strdup_printf ("{\"type\":\"model_call_requested\",\"turnId\":\"%s\"," TS ","
                               "\"modelCallIndex\":0,\"request\":{%s\"messages\":[\"input\"],"
                               "\"parameters\":{}}}", turn_id, context_ref);
  completed = g_strdup_printf ("{\"type\":\"model_call_completed\",\"turnId\":\"%s\"," TS ","
                               "\"modelCallIndex\":0,\"finishReason\":\"stop\",\"usage\":{},"
                               "\"message\":{\"role\":\"assistant\",\"content\":\"An answer of a "
                               "few words to keep the transcript realistic.\"}}", turn_id);
  done = g_strdup_printf ("{\"type\":\"turn_completed\",\"turnId\":\"%s\"," TS ","
                          "\"finishReason\":\"stop\",\"usage\":{},"
                          "\"output\":{\"role\":\"assistant\",\"content\":\"An answer.\"}}", turn_id);
  created_node = parse (created);
  if (!natter_jsonl_repo_create_sync (repo, turn_id, created_node, NULL, &error))
    g_error ("%s", error->message);
  g_ptr_array_add (lines, parse (requested));
  g_ptr_array_add (lines, parse (completed));
  g_ptr_array_add (lines, parse (done));
  if (!natter_jsonl_repo_append_sync (repo, turn_id, lines, NULL, &error))
    g_error ("%s", error->message);
}

typedef struct
{
  gboolean   done;
  JsonArray *messages;
} Materialized;

static void
materialized_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Materialized *m = user_data;
  g_autoptr(GError) error = NULL;

  m->messages = natter_context_resolver_materialize_finish (NATTER_CONTEXT_RESOLVER (object),
                                                            result, &error);
  if (m->messages == NULL)
    g_error ("%s", error->message);
  m->done = TRUE;
}

/* Materializes the context of a turn that references @previous. */
static double
materialize (NatterTurnContextResolver *resolver,
             const char                *previous,
             guint                     *out_messages)
{
  Materialized m = { 0 };
  double start = natter_bench_now ();

  natter_context_resolver_materialize_async (NATTER_CONTEXT_RESOLVER (resolver), previous, NULL,
                                             materialized_cb, &m);
  wait_for (&m.done);
  *out_messages = json_array_get_length (m.messages);
  json_array_unref (m.messages);
  return natter_bench_now () - start;
}

static void
bench_chain_1000 (void)
{
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autoptr(NatterJsonlRepo) repo = natter_turn_repo_new (dir);
  g_autoptr(NatterClock) clock = natter_clock_get_system ();
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (clock);
  g_autoptr(NatterTurnContextResolver) resolver = NULL;
  g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func (g_free);
  guint reads_before;
  guint n_messages;
  double cold;
  double warm;

  for (guint i = 0; i < N_CHAIN; i++)
    {
      char *turn_id = natter_id_generator_next (ids);

      write_completed_turn (repo, turn_id, i > 0 ? g_ptr_array_index (chain, i - 1) : NULL);
      g_ptr_array_add (chain, turn_id);
    }

  /* Cold: a fresh resolver (a new process) sending message 1,001. */
  resolver = natter_turn_context_resolver_new (repo);
  cold = materialize (resolver, g_ptr_array_index (chain, N_CHAIN - 1), &n_messages);
  natter_bench_row ("runtime chain-1000", "cold materialize", cold * 1000.0, "ms");
  natter_bench_row ("runtime chain-1000", "cold turn files read",
                    natter_turn_context_resolver_get_n_reads (resolver), "files");
  natter_bench_row ("runtime chain-1000", "transcript length", n_messages, "messages");

  /* Warm: turn 1,001 is written, message 1,002 is sent. */
  {
    char *turn_id = natter_id_generator_next (ids);

    write_completed_turn (repo, turn_id, g_ptr_array_index (chain, N_CHAIN - 1));
    g_ptr_array_add (chain, turn_id);
  }
  reads_before = natter_turn_context_resolver_get_n_reads (resolver);
  warm = materialize (resolver, g_ptr_array_index (chain, N_CHAIN), &n_messages);
  natter_bench_row ("runtime chain-1000", "warm materialize", warm * 1000.0, "ms");
  natter_bench_row ("runtime chain-1000", "warm turn files read",
                    natter_turn_context_resolver_get_n_reads (resolver) - reads_before, "files");
  natter_bench_row ("runtime chain-1000", "peak RSS", natter_bench_peak_rss_kib () / 1024.0, "MiB");
  if (natter_turn_context_resolver_get_n_reads (resolver) - reads_before > 1)
    g_error ("the warm materialization re-read the chain");
  natter_bench_remove_tree (dir);
}

static const NatterBenchCase cases[] = {
  { "batch-200-tools", bench_batch_200_tools },
  { "chain-1000", bench_chain_1000 },
};

int
main (int   argc,
      char *argv[])
{
  return natter_bench_main (argc, argv, cases, G_N_ELEMENTS (cases));
}
