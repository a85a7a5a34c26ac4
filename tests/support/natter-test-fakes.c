/* natter-test-fakes.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

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

static void
model_registry_iface_init (NatterModelRegistryInterface *iface)
{
  iface->resolve = world_resolve_model;
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

#define FAKE_TYPE_TOOL (fake_tool_get_type ())
G_DECLARE_FINAL_TYPE (FakeTool, fake_tool, FAKE, TOOL, GObject)

struct _FakeTool
{
  GObject     parent_instance;
  JsonObject *descriptor;
  gboolean    progress;   /* reports "half" before it answers */
};

static void fake_tool_iface_init (NatterToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FakeTool, fake_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_TOOL, fake_tool_iface_init))

static JsonObject *
fake_tool_get_descriptor (NatterTool *tool)
{
  return FAKE_TOOL (tool)->descriptor;
}

static JsonObject *
fake_tool_run (NatterTool              *tool,
               JsonObject              *input,
               NatterToolProgressFunc   progress,
               gpointer                 progress_data,
               GCancellable            *cancellable,
               GError                 **error)
{
  const char *id = json_object_get_string_member (FAKE_TOOL (tool)->descriptor, "toolId");
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
  if (FAKE_TOOL (tool)->progress)
    {
      g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), "half");

      progress (node, progress_data);
    }
  result = json_object_new ();
  /* A plausible file for pictures of a conversation (test-screenshots). */
  if (g_str_equal (id, "t.read"))
    json_object_set_string_member (result, "output", "numbers = [1, 2, 3, 4]\n");
  else
    json_object_set_string_member (result, "output", id);
  json_object_set_boolean_member (result, "isError", FALSE);
  return result;
}

static void
fake_tool_iface_init (NatterToolInterface *iface)
{
  iface->get_descriptor = fake_tool_get_descriptor;
  iface->run = fake_tool_run;
}

static void
fake_tool_finalize (GObject *object)
{
  json_object_unref (FAKE_TOOL (object)->descriptor);
  G_OBJECT_CLASS (fake_tool_parent_class)->finalize (object);
}

static void
fake_tool_class_init (FakeToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fake_tool_finalize;
}

static void
fake_tool_init (FakeTool *self)
{
}

static NatterToolRegistry *
fake_tools_new (gboolean progress)
{
  NatterToolRegistry *tools = natter_tool_registry_new ();

  for (guint i = 0; i < G_N_ELEMENTS (tool_descriptors); i++)
    {
      FakeTool *tool = g_object_new (FAKE_TYPE_TOOL, NULL);
      g_autoptr(JsonNode) node = natter_test_json (tool_descriptors[i]);

      tool->descriptor = json_object_ref (json_node_get_object (node));
      tool->progress = progress;
      natter_tool_registry_add (tools, NATTER_TOOL (tool));
      g_object_unref (tool);
    }
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
