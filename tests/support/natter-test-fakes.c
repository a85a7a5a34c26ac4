/* natter-test-fakes.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-chat-stream.h"
#include "natter-provider-error.h"
#include "natter-test-fakes.h"
#include "natter-turn-context-resolver.h"

/* Fake model */

struct _NatterFakeModel
{
  GObject    parent_instance;
  GPtrArray *script;     /* char* */
  guint      next;
  GPtrArray *requests;   /* JsonObject */
  GPtrArray *held;       /* GTask */
  JsonObject *usage;     /* reported by every answer, or NULL */
  GFunc      hook;       /* run by a NATTER_FAKE_STEP_HOOK step */
  gpointer   hook_data;
  /* The sink of the last held call, for natter_fake_model_stream_text() */
  NatterModelStepSink held_sink;
  gpointer   held_sink_data;
};

static void fake_model_iface_init (NatterModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterFakeModel, natter_fake_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_MODEL, fake_model_iface_init))

static void
answer (GTask      *task,
        const char *step)
{
  g_autoptr(JsonNode) message = natter_test_json (step);
  NatterFakeModel *self = g_task_get_source_object (task);

  g_task_return_pointer (task, natter_model_step_result_new (message, "stop", self->usage),
                         (GDestroyNotify) natter_model_step_result_free);
}

static void
hang_cancelled_cb (GCancellable *cancellable,
                   GTask        *task)
{
  NatterFakeModel *self = g_task_get_source_object (task);

  /* Whichever comes first, release or cancel, answers the task. */
  if (g_ptr_array_remove (self->held, task) || g_task_get_task_data (task) != NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
}

static void
fake_model_stream_step_async (NatterModel               *model,
                              JsonObject                *request,
                              const NatterModelStepSink *sink,
                              gpointer                   sink_data,
                              GCancellable              *cancellable,
                              GAsyncReadyCallback        callback,
                              gpointer                   user_data)
{
  NatterFakeModel *self = NATTER_FAKE_MODEL (model);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const char *step;

  g_ptr_array_add (self->requests, json_object_ref (request));
  g_assert_cmpuint (self->next, <, self->script->len);
  step = g_ptr_array_index (self->script, self->next++);

  if (g_str_equal (step, NATTER_FAKE_STEP_ERROR))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "provider p: HTTP 500");
      return;
    }
  if (g_str_equal (step, NATTER_FAKE_STEP_UNREACHABLE))
    {
      g_task_return_new_error (task, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_UNREACHABLE,
                               "Could not reach Ollama at http://127.0.0.1:9 — is it running?");
      return;
    }
  if (g_str_equal (step, NATTER_FAKE_STEP_OVERFLOW))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               "provider p: HTTP 400: This model's maximum context length is 8192 tokens. "
                               "[context_length_exceeded]");
      return;
    }
  if (g_str_equal (step, NATTER_FAKE_STEP_BAD_CHUNK))
    {
      g_autoptr(NatterChatStream) stream = natter_chat_stream_new ("fake");
      static const char chunk[] = "{\"choices\": [";
      GError *failure = NULL;

      g_assert_false (natter_chat_stream_feed_sse_data (stream, chunk, strlen (chunk), &failure));
      g_task_return_error (task, failure);
      return;
    }
  if (g_str_equal (step, NATTER_FAKE_STEP_HOOK))
    {
      g_assert_nonnull (self->hook);
      self->hook (self, self->hook_data);
      step = NATTER_FAKE_TEXT_STEP;
    }
  if (g_str_equal (step, NATTER_FAKE_STEP_HANG))
    {
      g_task_set_task_data (task, GINT_TO_POINTER (1), NULL);
      g_cancellable_connect (cancellable, G_CALLBACK (hang_cancelled_cb),
                             g_object_ref (task), g_object_unref);
      return;
    }
  if (g_str_equal (step, NATTER_FAKE_STEP_HOLD))
    {
      g_ptr_array_add (self->held, g_object_ref (task));
      self->held_sink = *sink;
      self->held_sink_data = sink_data;
      g_cancellable_connect (cancellable, G_CALLBACK (hang_cancelled_cb),
                             g_object_ref (task), g_object_unref);
      return;
    }
  if (step[0] == '+')
    {
      g_autoptr(JsonNode) event = natter_test_json ("{\"type\":\"text-end\"}");

      step++;
      sink->reasoning_delta ("hm", sink_data);
      sink->step_event (json_node_get_object (event), sink_data);
    }
  sink->text_delta ("del", sink_data);
  sink->text_delta ("ta", sink_data);
  answer (task, step);
}

static NatterModelStepResult *
fake_model_stream_step_finish (NatterModel   *model,
                               GAsyncResult  *result,
                               GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
fake_model_iface_init (NatterModelInterface *iface)
{
  iface->stream_step_async = fake_model_stream_step_async;
  iface->stream_step_finish = fake_model_stream_step_finish;
}

static void
natter_fake_model_finalize (GObject *object)
{
  NatterFakeModel *self = NATTER_FAKE_MODEL (object);

  g_ptr_array_unref (self->script);
  g_ptr_array_unref (self->requests);
  g_ptr_array_unref (self->held);
  g_clear_pointer (&self->usage, json_object_unref);
  G_OBJECT_CLASS (natter_fake_model_parent_class)->finalize (object);
}

static void
natter_fake_model_class_init (NatterFakeModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_fake_model_finalize;
}

static void
natter_fake_model_init (NatterFakeModel *self)
{
  self->script = g_ptr_array_new_with_free_func (g_free);
  self->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  self->held = g_ptr_array_new_with_free_func (g_object_unref);
}

void
natter_fake_model_script (NatterFakeModel *self,
                          const char      *first_step,
                          ...)
{
  va_list args;

  va_start (args, first_step);
  for (const char *step = first_step; step != NULL; step = va_arg (args, const char *))
    g_ptr_array_add (self->script, g_strdup (step));
  va_end (args);
}

guint
natter_fake_model_get_n_requests (NatterFakeModel *self)
{
  return self->requests->len;
}

JsonObject *
natter_fake_model_get_request (NatterFakeModel *self,
                               guint            index)
{
  g_assert_cmpuint (index, <, self->requests->len);
  return g_ptr_array_index (self->requests, index);
}

guint
natter_fake_model_get_n_held (NatterFakeModel *self)
{
  return self->held->len;
}

static gboolean
holds_enough (gpointer data)
{
  gpointer *pair = data;

  return ((NatterFakeModel *) pair[0])->held->len >= GPOINTER_TO_UINT (pair[1]);
}

/* Iterates the default main context until at least @n calls are held
 * (NATTER_FAKE_STEP_HOLD); fails the test after @timeout_ms. */
void
natter_fake_model_wait_held (NatterFakeModel *self,
                             guint            n,
                             guint            timeout_ms)
{
  gpointer pair[] = { self, GUINT_TO_POINTER (n) };

  if (!natter_test_wait_until (holds_enough, pair, timeout_ms))
    g_error ("Timed out after %u ms waiting for %u held model calls (%u held)", timeout_ms, n, self->held->len);
}

/* Answers every held call with @step (a message literal). */
void
natter_fake_model_release_with (NatterFakeModel *self,
                                const char      *step)
{
  g_autoptr(GPtrArray) held = g_steal_pointer (&self->held);

  self->held = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < held->len; i++)
    answer (g_ptr_array_index (held, i), step);
}

/* Answers every held call with NATTER_FAKE_TEXT_STEP. */
void
natter_fake_model_release (NatterFakeModel *self)
{
  natter_fake_model_release_with (self, NATTER_FAKE_TEXT_STEP);
}

/* Streams @delta as answer text of the last held call, as a real model
 * does through its sink while the answer arrives. */
void
natter_fake_model_stream_text (NatterFakeModel *self,
                               const char      *delta)
{
  g_assert_cmpuint (self->held->len, >, 0);
  self->held_sink.text_delta (delta, self->held_sink_data);
}

/* Streams @delta as reasoning of the last held call. */
void
natter_fake_model_stream_reasoning (NatterFakeModel *self,
                                    const char      *delta)
{
  g_assert_cmpuint (self->held->len, >, 0);
  self->held_sink.reasoning_delta (delta, self->held_sink_data);
}

/* Fake registries, resolver, checker, classifier: one object plays all. */

/* Every later answer reports @usage_literal (a JSON object) as its usage. */
void
natter_fake_model_set_usage (NatterFakeModel *self,
                             const char      *usage_literal)
{
  g_autoptr(JsonNode) node = natter_test_json (usage_literal);

  g_clear_pointer (&self->usage, json_object_unref);
  self->usage = json_object_ref (json_node_get_object (node));
}

/* A NATTER_FAKE_STEP_HOOK step calls @hook (self, @hook_data) before it
 * answers: a test's way to act in the middle of a model call. */
void
natter_fake_model_set_hook (NatterFakeModel *self,
                            GFunc            hook,
                            gpointer         hook_data)
{
  self->hook = hook;
  self->hook_data = hook_data;
}

static void model_registry_iface_init (NatterModelRegistryInterface *iface);
static void agent_resolver_iface_init (NatterAgentResolverInterface *iface);
static void checker_iface_init (NatterPermissionCheckerInterface *iface);
static void classifier_iface_init (NatterPermissionClassifierInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterFakeWorld, natter_fake_world, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_MODEL_REGISTRY, model_registry_iface_init)
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_AGENT_RESOLVER, agent_resolver_iface_init)
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_PERMISSION_CHECKER, checker_iface_init)
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_PERMISSION_CLASSIFIER, classifier_iface_init))

static NatterModel *
world_resolve_model (NatterModelRegistry  *registry,
                     JsonObject           *descriptor,
                     GError              **error)
{
  NatterFakeWorld *self = NATTER_FAKE_WORLD (registry);

  g_ptr_array_add (self->resolved_models, json_object_ref (descriptor));
  if (self->model == NULL)
    {
      g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND, "gone");
      return NULL;
    }
  return g_object_ref (NATTER_MODEL (self->model));
}

/* The provider is there exactly while the world has a model. */
static gboolean
world_check_model (NatterModelRegistry  *registry,
                   JsonObject           *descriptor,
                   GError              **error)
{
  if (NATTER_FAKE_WORLD (registry)->model != NULL)
    return TRUE;
  g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND, "No provider “%s” is configured",
               json_object_get_string_member_with_default (descriptor, "provider", ""));
  return FALSE;
}

static void
model_registry_iface_init (NatterModelRegistryInterface *iface)
{
  iface->resolve = world_resolve_model;
  iface->check = world_check_model;
}

#define TOOL(id, name, execution, human) \
  "{\"toolId\":\"" id "\",\"name\":\"" name "\",\"description\":\"\",\"inputSchema\":{}," \
  "\"execution\":\"" execution "\",\"requiresHuman\":" human "}"

static const char *tool_descriptors[] = {
  TOOL ("t.a", "sa", "sync", "false"),
  TOOL ("t.b", "ab", "async", "false"),
  TOOL ("t.c", "sc", "sync", "false"),
  TOOL ("t.d", "ad", "async", "false"),
  TOOL ("t.fail", "fail", "sync", "false"),
  TOOL ("t.ask", "ask_human", "async", "true"),
  TOOL ("t.slow", "slow", "sync", "false"),
  TOOL ("t.read", "read_file", "sync", "false"),
};

static JsonObject *
world_resolve_agent (NatterAgentResolver  *resolver,
                     JsonObject           *requested,
                     GError              **error)
{
  g_autoptr(JsonNode) agent = NULL;
  g_autoptr(GString) text = g_string_new ("{\"agentId\":\"helper\",\"systemPrompt\":\"Help.\","
                                          "\"model\":{\"provider\":\"p\",\"model\":\"m\"},\"tools\":[");

  if (!g_str_equal (json_object_get_string_member (requested, "agentId"), "helper"))
    {
      g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT, "no such agent");
      return NULL;
    }
  if (NATTER_FAKE_WORLD (resolver)->agent != NULL)
    {
      agent = natter_test_json (NATTER_FAKE_WORLD (resolver)->agent);
      return json_object_ref (json_node_get_object (agent));
    }
  for (guint i = 0; i < G_N_ELEMENTS (tool_descriptors); i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "," : "", tool_descriptors[i]);
  g_string_append (text, "]}");
  agent = natter_test_json (text->str);
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
  NatterFakeWorld *self = NATTER_FAKE_WORLD (checker);
  const char *name = json_object_get_string_member (descriptor, "name");

  if (self->checker_fails)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "checker broke");
      return FALSE;
    }
  *out_required = g_hash_table_contains (self->needs_permission, name);
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
  NatterFakeWorld *self = NATTER_FAKE_WORLD (classifier);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  if (self->classifier_answer == NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "classifier broke");
  else
    {
      g_autoptr(JsonNode) answer_node = natter_test_json (self->classifier_answer);

      g_task_return_pointer (task, json_array_ref (json_node_get_array (answer_node)),
                             (GDestroyNotify) json_array_unref);
    }
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
natter_fake_world_finalize (GObject *object)
{
  NatterFakeWorld *self = NATTER_FAKE_WORLD (object);

  g_clear_object (&self->model);
  g_hash_table_unref (self->needs_permission);
  g_free (self->classifier_answer);
  g_ptr_array_unref (self->resolved_models);
  g_free (self->agent);
  G_OBJECT_CLASS (natter_fake_world_parent_class)->finalize (object);
}

static void
natter_fake_world_class_init (NatterFakeWorldClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_fake_world_finalize;
}

static void
natter_fake_world_init (NatterFakeWorld *self)
{
  self->model = g_object_new (NATTER_TYPE_FAKE_MODEL, NULL);
  self->needs_permission = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->resolved_models = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
}

/* Fake tools */

struct _NatterTestTool
{
  GObject             parent_instance;
  JsonObject         *descriptor;
  NatterTestToolFunc  run;
  gpointer            run_data;
};

static void test_tool_iface_init (NatterToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterTestTool, natter_test_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_TOOL, test_tool_iface_init))

static JsonObject *
test_tool_get_descriptor (NatterTool *tool)
{
  return NATTER_TEST_TOOL (tool)->descriptor;
}

static JsonObject *
test_tool_run (NatterTool              *tool,
               JsonObject              *input,
               NatterToolProgressFunc   progress,
               gpointer                 progress_data,
               GCancellable            *cancellable,
               GError                 **error)
{
  NatterTestTool *self = NATTER_TEST_TOOL (tool);

  return self->run (self->descriptor, input, progress, progress_data, cancellable, self->run_data, error);
}

static void
test_tool_iface_init (NatterToolInterface *iface)
{
  iface->get_descriptor = test_tool_get_descriptor;
  iface->run = test_tool_run;
}

static void
natter_test_tool_finalize (GObject *object)
{
  json_object_unref (NATTER_TEST_TOOL (object)->descriptor);
  G_OBJECT_CLASS (natter_test_tool_parent_class)->finalize (object);
}

static void
natter_test_tool_class_init (NatterTestToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_test_tool_finalize;
}

static void
natter_test_tool_init (NatterTestTool *self)
{
}

/**
 * natter_test_tool_new:
 * @descriptor_literal: the tool's descriptor, a JSON object literal
 * @run: what a run of the tool does
 * @run_data: passed to @run
 *
 * A tool whose runs call @run with its descriptor, so that a test says
 * only what its tools answer.
 *
 * Returns: (transfer full): the tool
 */
NatterTestTool *
natter_test_tool_new (const char         *descriptor_literal,
                      NatterTestToolFunc  run,
                      gpointer            run_data)
{
  NatterTestTool *self = g_object_new (NATTER_TYPE_TEST_TOOL, NULL);
  g_autoptr(JsonNode) node = natter_test_json (descriptor_literal);

  self->descriptor = json_object_ref (json_node_get_object (node));
  self->run = run;
  self->run_data = run_data;
  return self;
}

/**
 * natter_test_tools_add:
 * @tools: the registry
 * @descriptor_literal: the tool's descriptor, a JSON object literal
 * @run: what a run of the tool does
 * @run_data: passed to @run
 *
 * Adds natter_test_tool_new() to @tools.
 */
void
natter_test_tools_add (NatterToolRegistry *tools,
                       const char         *descriptor_literal,
                       NatterTestToolFunc  run,
                       gpointer            run_data)
{
  g_autoptr(NatterTestTool) tool = natter_test_tool_new (descriptor_literal, run, run_data);

  natter_tool_registry_add (tools, NATTER_TOOL (tool));
}

/* The tools of the fake agent: @run_data is whether a successful run
 * first reports the progress "half". */
static JsonObject *
fake_tool_run (JsonObject              *descriptor,
               JsonObject              *input,
               NatterToolProgressFunc   progress,
               gpointer                 progress_data,
               GCancellable            *cancellable,
               gpointer                 run_data,
               GError                 **error)
{
  const char *id = json_object_get_string_member (descriptor, "toolId");
  JsonObject *result;

  if (g_str_equal (id, "t.fail"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "tool exploded");
      return NULL;
    }
  if (g_str_equal (id, "t.slow"))
    {
      while (!g_cancellable_is_cancelled (cancellable))
        g_usleep (1000);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
      return NULL;
    }
  if (GPOINTER_TO_INT (run_data))
    {
      g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), "half");

      progress (node, progress_data);
    }
  result = json_object_new ();
  /* A plausible file for pictures of a conversation (test-screenshots). */
  if (g_str_equal (id, "t.read"))
    json_object_set_string_member (result, "output", "numbers = [1, 2, 3, 4]\n");
  /* A result that a test chooses (test-long-words): "sa" answers its
   * "echo" argument when it has one. */
  else if (g_str_equal (id, "t.a") && input != NULL && json_object_has_member (input, "echo"))
    json_object_set_string_member (result, "output", json_object_get_string_member (input, "echo"));
  else
    json_object_set_string_member (result, "output", id);
  json_object_set_boolean_member (result, "isError", FALSE);
  return result;
}

static NatterToolRegistry *
fake_tools_new (gboolean progress)
{
  NatterToolRegistry *tools = natter_tool_registry_new ();

  for (guint i = 0; i < G_N_ELEMENTS (tool_descriptors); i++)
    natter_test_tools_add (tools, tool_descriptors[i], fake_tool_run, GINT_TO_POINTER (progress));
  return tools;
}

NatterToolRegistry *
natter_fake_tools_new (void)
{
  return fake_tools_new (FALSE);
}

NatterToolRegistry *
natter_fake_tools_new_with_progress (void)
{
  return fake_tools_new (TRUE);
}

/* Driving turns */

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

/**
 * natter_test_create_turn_full:
 * @runtime: the runtime
 * @agent: the agent reference ({"agentId": …} or an inline agent)
 * @context: (nullable): the turn's context, or %NULL for none
 * @input: the user message
 * @config: the turn config
 *
 * Creates a turn and iterates the main context until it exists; fails the
 * test if creating it fails or takes longer than 10 s.
 *
 * Returns: (transfer full): the new turn's id
 */
char *
natter_test_create_turn_full (NatterTurnRuntime *runtime,
                              JsonObject        *agent,
                              JsonNode          *context,
                              JsonObject        *input,
                              JsonObject        *config)
{
  char *turn_id = NULL;

  natter_turn_runtime_create_turn_async (runtime, agent, NULL, context, input, config, NULL,
                                         created_cb, &turn_id);
  natter_test_wait_for_pointer ((gpointer *) &turn_id, 10000);
  return turn_id;
}

/**
 * natter_test_create_turn:
 * @runtime: the runtime
 * @context: (nullable): the turn's context, or %NULL for none
 * @config_literal: the turn config, a JSON object literal
 *
 * natter_test_create_turn_full() for the fake agent "helper" and the user
 * message "hi".
 *
 * Returns: (transfer full): the new turn's id
 */
char *
natter_test_create_turn (NatterTurnRuntime *runtime,
                         JsonNode          *context,
                         const char        *config_literal)
{
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"helper\"}");
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\":\"user\",\"content\":\"hi\"}");
  g_autoptr(JsonNode) config = natter_test_json (config_literal);

  return natter_test_create_turn_full (runtime, json_node_get_object (agent), context,
                                       json_node_get_object (input), json_node_get_object (config));
}

static void
waited_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  NatterTestWait *wait = user_data;

  wait->outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &wait->error);
  wait->done = TRUE;
}

/**
 * natter_test_wait_execution:
 * @execution: a running execution
 * @wait: (out caller-allocates): zeroed; receives the outcome or the error
 *
 * Waits (iterating the main context, 10 s at most) until @execution
 * settles. The caller owns @wait's outcome and error.
 */
void
natter_test_wait_execution (NatterTurnExecution *execution,
                            NatterTestWait      *wait)
{
  natter_turn_execution_wait_async (execution, NULL, waited_cb, wait);
  natter_test_wait_for_flag (&wait->done, 10000);
}

/* The world */

NatterTestWorld *
natter_test_world_new (void)
{
  NatterTestWorld *world = g_new0 (NatterTestWorld, 1);
  g_autoptr(NatterToolRegistry) tools = natter_fake_tools_new ();
  g_autoptr(NatterTurnContextResolver) contexts = NULL;

  world->dir = natter_test_make_temp_dir ();
  world->storage = g_file_get_child (world->dir, "storage");
  world->turn_repo = natter_turn_repo_new (world->storage);
  world->session_repo = natter_session_repo_new (world->storage);
  world->clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  world->ids = natter_id_generator_new (NATTER_CLOCK (world->clock));
  world->fakes = g_object_new (NATTER_TYPE_FAKE_WORLD, NULL);
  world->hub = natter_turn_event_hub_new ();
  contexts = natter_turn_context_resolver_new (world->turn_repo);
  world->runtime = natter_turn_runtime_new (world->turn_repo, world->ids, NATTER_CLOCK (world->clock),
                                            NATTER_AGENT_RESOLVER (world->fakes),
                                            NATTER_MODEL_REGISTRY (world->fakes), tools,
                                            NATTER_CONTEXT_RESOLVER (contexts),
                                            NATTER_PERMISSION_CHECKER (world->fakes),
                                            NATTER_PERMISSION_CLASSIFIER (world->fakes),
                                            world->hub, NULL, 0);
  return world;
}

void
natter_test_world_free (NatterTestWorld *world)
{
  gpointer weak = world->runtime;
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  /* Pending idles (a cancel kick after settlement) hold executions, and
   * a worker thread may drop a finished GTask (holding the runtime as its
   * source object) just after the task's callback ran. */
  g_object_add_weak_pointer (G_OBJECT (world->runtime), &weak);
  g_object_unref (world->runtime);
  while (weak != NULL)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("The turn runtime was not finalized");
      if (!g_main_context_iteration (NULL, FALSE))
        g_thread_yield ();
    }
  world->runtime = NULL;
  g_clear_object (&world->fakes);
  g_clear_object (&world->hub);
  g_clear_object (&world->ids);
  g_clear_object (&world->turn_repo);
  g_clear_object (&world->session_repo);
  g_clear_object (&world->clock);
  natter_test_remove_tree (world->dir);
  g_clear_object (&world->storage);
  g_clear_object (&world->dir);
  g_free (world);
}
