/* test-provider-e2e-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The scripted model, the fakes around the real provider registry (agent,
 * permission checker, classifier, tools, key store), and the check that
 * ends every test of test-provider-e2e: the key is in no request body,
 * file or log line.
 */

#include "test-provider-e2e.h"

gboolean key_logged;
guint natter_log_lines;

/* The agent of every turn: the e2e provider's model, with echo, which
 * runs without a human, and guarded, which needs a yes. */
#define E2E_AGENT "{\"agentId\":\"helper\",\"systemPrompt\":\"" SYSTEM_PROMPT "\"," \
                  "\"model\":{\"provider\":\"e2e\",\"model\":\"e2e-model\"}," \
                  "\"tools\":[" ECHO_TOOL "," GUARDED_TOOL "]}"

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

static char *
fake_key_lookup (const char *provider,
                 gpointer    user_data)
{
  Keys *keys = user_data;

  keys->n_lookups++;
  g_ptr_array_add (keys->providers, g_strdup (provider));
  return g_strdup (API_KEY);
}

void
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

void
drop_runtime (Fixture *f)
{
  /* Pending idles (a cancel kick after settlement) hold the execution. */
  natter_test_drain_main_context ();
  g_assert_finalize_object (f->runtime);
  f->runtime = NULL;
  g_assert_finalize_object (f->registry);
  f->registry = NULL;
}

void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = natter_test_make_temp_dir ();
  f->repo = natter_turn_repo_new (f->dir);
  f->clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  f->world = g_object_new (NATTER_TYPE_FAKE_WORLD, NULL);
  f->world->agent = g_strdup (E2E_AGENT);
  g_hash_table_add (f->world->needs_permission, g_strdup ("guarded"));
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

void
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
void
serve (Fixture                  *f,
       const NatterTestResponse *script,
       guint                     n_script)
{
  f->server = natter_test_server_new (script, n_script);
  f->server->expected_path = "/v1/chat/completions";
  natter_provider_registry_add_provider (f->registry, "e2e", "E2E Model", f->server->base_url);
}

char *
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

char *
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

char *
create_turn (Fixture *f)
{
  return create_turn_full (f, "{\"agentId\":\"helper\"}", NULL, "Say ping");
}

void
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
void
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

void
advance (Fixture    *f,
         const char *turn_id,
         const char *input,
         Run        *run)
{
  advance_full (f, turn_id, input, NULL, run);
  g_assert_no_error (run->error);
}

GPtrArray *
read_events (Fixture    *f,
             const char *turn_id)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *events = natter_jsonl_repo_read_sync (f->repo, turn_id, NULL, &error);

  g_assert_no_error (error);
  return events;
}

JsonObject *
event_at (GPtrArray *events,
          guint      index)
{
  return json_node_get_object (g_ptr_array_index (events, index));
}

/* The event types after turn_created, space separated. */
void
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
JsonObject *
find_event (GPtrArray  *events,
            const char *type)
{
  for (guint i = 0; i < events->len; i++)
    if (g_str_equal (json_object_get_string_member (event_at (events, i), "type"), type))
      return event_at (events, i);
  g_error ("No %s event", type);
  return NULL;
}

void
assert_object_equal (JsonObject *actual,
                     const char *expected_literal)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), actual);

  natter_test_assert_json_equal (node, expected_literal);
}

/* The request body the server received for call @index. */
JsonObject *
request_body (Fixture *f,
              guint    index)
{
  g_autoptr(JsonNode) node = NULL;

  g_assert_cmpuint (index, <, f->server->bodies->len);
  node = natter_test_json (g_ptr_array_index (f->server->bodies, index));
  return json_object_ref (json_node_get_object (node));
}

void
assert_messages (Fixture    *f,
                 guint       index,
                 const char *expected_literal)
{
  g_autoptr(JsonObject) body = request_body (f, index);

  natter_test_assert_json_equal (json_object_get_member (body, "messages"), expected_literal);
}

char *
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

void
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

/* A changed key takes effect at the next resolve. */
char *
changing_key_lookup (const char *provider,
                     gpointer    user_data)
{
  guint *n = user_data;

  return g_strdup_printf ("sk-change-%u", (*n)++ / 2);
}

GLogWriterOutput
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
