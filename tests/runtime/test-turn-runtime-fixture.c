/* test-turn-runtime-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fixture of the turn runtime tests (real repos, fake model and
 * tools), the turns they create and the assertions on their files.
 */

#include "test-turn-runtime.h"

void
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

void
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

void
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

char *
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

char *
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

NatterTurnCreated *
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

void
created_error_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GError **out = user_data;
  g_autoptr(NatterTurnCreated) created = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, out);
  g_assert_null (created);
}

JsonArray *
resolved_tools (NatterTurnCreated *created)
{
  JsonObject *agent = json_object_get_object_member (natter_turn_created_get_event (created), "agent");

  return json_object_get_array_member (json_object_get_object_member (agent, "resolved"), "tools");
}

/* Advances with an optional input literal and waits for the outcome. */
NatterTurnOutcome *
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
char *
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

void
assert_types (Fixture    *f,
              const char *turn_id,
              const char *expected)
{
  g_autofree char *types = types_on_disk (f, turn_id);

  g_assert_cmpstr (types, ==, expected);
}

void
cancel_on_event_cb (NatterTurnExecution *execution,
                    JsonObject          *event,
                    guint64              offset,
                    GCancellable        *cancellable)
{
  if (g_str_equal (json_object_get_string_member (event, "type"), "model_call_requested"))
    g_cancellable_cancel (cancellable);
}

void
cancel_on_invocation_cb (NatterTurnExecution *execution,
                         JsonObject          *event,
                         guint64              offset,
                         GCancellable        *cancellable)
{
  if (g_str_equal (json_object_get_string_member (event, "type"), "tool_invocation_requested"))
    g_cancellable_cancel (cancellable);
}

/* Appends literal lines (each "%s" is the turn id) as if an earlier
 * process had written them and crashed. */
void
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

char *
file_contents (Fixture    *f,
               const char *turn_id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->repo, turn_id, NULL);
  g_autofree char *path = g_file_get_path (file);
  char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return contents;
}

/* Swaps the turn file for a directory while the model streams, so the
 * next append fails in the repo. */
void
break_file_hook (gpointer model,
                 gpointer user_data)
{
  char **paths = user_data;

  g_assert_cmpint (g_rename (paths[0], paths[1]), ==, 0);
  g_assert_cmpint (g_mkdir (paths[0], 0700), ==, 0);
}

void
count_event_cb (NatterTurnExecution *execution,
                JsonObject          *event,
                guint64              offset,
                GPtrArray           *types)
{
  g_ptr_array_add (types, g_strdup (json_object_get_string_member (event, "type")));
}

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
NatterTurnOutcome *
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

void
execution_delta_cb (NatterTurnExecution *execution,
                    guint                model_call_index,
                    int                  kind,
                    const char          *text,
                    Deltas              *deltas)
{
  g_string_append (kind == NATTER_DELTA_TEXT ? deltas->text : deltas->reasoning, text);
}

void
hub_delta_cb (NatterTurnEventHub *hub,
              const char         *turn_id,
              guint               model_call_index,
              int                 kind,
              const char         *text,
              Deltas             *deltas)
{
  deltas->n_hub++;
}

void
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

gboolean
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

void
processing_end_cb (NatterTurnEventHub *hub,
                   const char         *turn_id,
                   gboolean           *ended)
{
  *ended = TRUE;
}

void
got_turn_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GPtrArray **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = natter_turn_runtime_get_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  g_assert_no_error (error);
}
