/* test-model-library.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The models on a provider's server (docs/runtime.md §13), against the
 * scripted Ollama of tests/support and a plain OpenAI-compatible server:
 * listing with each model described, pulls that succeed, fail halfway,
 * lose their connection or are cancelled, deletes, and a server that is
 * not running.
 */

#include "natter-error-words.h"
#include "natter-model-library.h"
#include "natter-provider-error.h"
#include "natter-provider-registry.h"
#include "natter-test-ollama.h"
#include "natter-test-support.h"

#define WAIT_MS 10000

typedef struct
{
  NatterTestOllama       *ollama;
  NatterProviderRegistry *registry;
  NatterModelLibrary     *library;
  GPtrArray              *changed;   /* char*: the registry's models-changed, in order */
} Fixture;

static void
models_changed_cb (NatterProviderRegistry *registry,
                   const char             *provider,
                   Fixture                *f)
{
  g_ptr_array_add (f->changed, g_strdup (provider));
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->ollama = natter_test_ollama_new ("llama3.2:latest", "qwen2.5:7b", NULL);
  f->registry = natter_provider_registry_new (NULL, NULL, NULL);
  natter_provider_registry_add_provider (f->registry, "ollama", "Ollama", f->ollama->server->base_url);
  f->changed = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (f->registry, "models-changed", G_CALLBACK (models_changed_cb), f);
  f->library = natter_provider_registry_new_library (f->registry, "ollama", &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_assert_finalize_object (f->library);
  g_object_unref (f->registry);
  g_ptr_array_unref (f->changed);
  natter_test_ollama_free (f->ollama);
}

static GPtrArray *
list (NatterModelLibrary  *library,
      GError             **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_model_library_list_async (library, NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, WAIT_MS);
  return natter_model_library_list_finish (library, result, error);
}

static gboolean
pull_settled (gpointer data)
{
  return natter_model_pull_get_state (data) != NATTER_MODEL_PULL_RUNNING;
}

/* Starts pulling @name and returns the running pull. */
static NatterModelPull *
start_pull (Fixture    *f,
            const char *name)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterModelPull *pull;

  natter_model_library_pull_async (f->library, name, NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, WAIT_MS);
  pull = natter_model_library_pull_finish (f->library, result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (pull);
  return pull;
}

/* Pulls @name as @script says the server goes on, until it fails. */
static NatterModelPull *
settled_pull (Fixture              *f,
              NatterTestPullScript  script,
              const char           *name)
{
  NatterModelPull *pull;

  f->ollama->pull = script;
  pull = start_pull (f, name);
  g_assert_true (natter_test_wait_until (pull_settled, pull, WAIT_MS));
  g_assert_cmpint (natter_model_pull_get_state (pull), ==, NATTER_MODEL_PULL_FAILED);
  return pull;
}

static void
count_progress_cb (NatterModelPull *pull,
                   guint           *n)
{
  (*n)++;
}

/* A "translation" that marks which sentence a message was read as. */
static const char *
mark_sentence (const char *msgid,
               gpointer    user_data)
{
  GHashTable *marked = user_data;
  char *mark = g_hash_table_lookup (marked, msgid);

  if (mark == NULL)
    {
      mark = g_strconcat ("«", msgid, "»", NULL);
      g_hash_table_insert (marked, (gpointer) msgid, mark);
    }
  return mark;
}

/* Every reader shows a failure in its own language: the message is one
 * of the sentences natter-error-words.c translates, @sentence. */
static void
assert_sentence (const GError *error,
                 const char   *sentence)
{
  g_autoptr(GHashTable) marked = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autofree char *read = natter_error_words_translate (error->message, mark_sentence, marked);

  /* Read as that sentence (and its parts as theirs), the whole of it. */
  g_assert_nonnull (g_hash_table_lookup (marked, sentence));
  g_assert_true (g_str_has_prefix (read, "«"));
  g_assert_true (g_str_has_suffix (read, "»"));
}

/* ---- listing ------------------------------------------------------- */

static void
test_list_ollama (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) models = list (f->library, &error);
  NatterModelInfo *info;
  g_autoptr(JsonNode) json = NULL;
  g_autofree char *modified = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (natter_model_library_get_kind (f->library), ==, NATTER_MODEL_SERVER_OLLAMA);
  g_assert_cmpuint (models->len, ==, 2);
  info = g_ptr_array_index (models, 0);
  g_assert_cmpstr (info->name, ==, "llama3.2:latest");
  g_assert_cmpint (info->size, ==, 2019393189);
  g_assert_cmpstr (info->parameter_size, ==, "3.2B");
  g_assert_cmpint (info->parameter_count, ==, 3212749888);
  g_assert_cmpstr (info->quantization, ==, "Q4_K_M");
  g_assert_cmpint (info->context_length, ==, 131072);
  /* Kept in UTC, whatever zone the server wrote. */
  modified = g_date_time_format_iso8601 (info->modified);
  g_assert_cmpstr (modified, ==, "2026-11-10T09:00:00Z");
  g_assert_cmpstr (((NatterModelInfo *) g_ptr_array_index (models, 1))->name, ==, "qwen2.5:7b");
  /* Every model described once, after the one question what the server is. */
  g_assert_cmpuint (natter_test_ollama_count (f->ollama, "/api/version"), ==, 1);
  g_assert_cmpuint (natter_test_ollama_count (f->ollama, "/api/show"), ==, 2);

  json = natter_model_info_to_json (info);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (json), "parameterCount"), ==, 3212749888);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json), "modified"), ==,
                   "2026-11-10T09:00:00Z");
}

/* A server without Ollama's API lists its `/models`; pulling and
 * deleting are refused without asking it. */
static void
test_list_openai (void)
{
  const NatterTestResponse script[] = {
    { .status = 404, .content_type = "text/plain", .body = "Not Found" },
    { .status = 200, .content_type = "application/json",
      .body = "{\"object\":\"list\",\"data\":[{\"id\":\"gpt-4o\",\"created\":1715367049},{\"id\":\"o3\"}]}" },
  };
  g_autoptr(NatterTestServer) server = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(NatterOpenaiProvider) provider = natter_openai_provider_new ("openai", "OpenAI", server->base_url,
                                                                          NULL, 30, 0);
  g_autoptr(NatterModelLibrary) library = natter_model_library_new (provider);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) models = list (library, &error);
  g_autoptr(NatterModelPull) pull = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (natter_model_library_get_kind (library), ==, NATTER_MODEL_SERVER_OPENAI);
  g_assert_cmpuint (models->len, ==, 2);
  g_assert_cmpstr (((NatterModelInfo *) g_ptr_array_index (models, 0))->name, ==, "gpt-4o");
  g_assert_nonnull (((NatterModelInfo *) g_ptr_array_index (models, 0))->modified);
  g_assert_cmpint (((NatterModelInfo *) g_ptr_array_index (models, 1))->size, ==, -1);
  g_assert_cmpstr (g_ptr_array_index (server->paths, 0), ==, "/api/version");
  g_assert_cmpstr (g_ptr_array_index (server->paths, 1), ==, "/v1/models");

  natter_model_library_pull_async (library, "llama3.2", NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, WAIT_MS);
  pull = natter_model_library_pull_finish (library, result, &error);
  g_assert_null (pull);
  g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "not an Ollama server"));
  assert_sentence (error, "%s at %s is not an Ollama server: its models can be listed here, but pulled and "
                          "deleted only with its own tools");
  g_assert_cmpuint (server->paths->len, ==, 2);
}

static void
test_server_down (void)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());
  g_autoptr(NatterOpenaiProvider) provider = natter_openai_provider_new ("ollama", "Ollama", url, NULL, 30, 0);
  g_autoptr(NatterModelLibrary) library = natter_model_library_new (provider);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) models = list (library, &error);

  g_assert_null (models);
  g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_UNREACHABLE);
  g_assert_nonnull (strstr (error->message, "is it running?"));
  /* Not known yet: the next call asks again. */
  g_assert_cmpint (natter_model_library_get_kind (library), ==, NATTER_MODEL_SERVER_UNKNOWN);
}

/* ---- pulling ------------------------------------------------------- */

static void
test_pull_succeeds (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(NatterModelPull) pull = start_pull (f, "gemma3:1b");
  g_autoptr(GPtrArray) models = NULL;
  g_autoptr(GError) error = NULL;
  const NatterModelPullLayer *layer;
  guint n_progress = 0;

  g_signal_connect (pull, "progress", G_CALLBACK (count_progress_cb), &n_progress);
  g_assert_true (natter_test_wait_until (pull_settled, pull, WAIT_MS));
  g_assert_cmpint (natter_model_pull_get_state (pull), ==, NATTER_MODEL_PULL_SUCCEEDED);
  g_assert_null (natter_model_pull_get_error (pull));
  /* One progress per line of the stream. */
  g_assert_cmpuint (n_progress, ==, 9);
  g_assert_cmpstr (natter_model_pull_get_status (pull), ==, "success");
  g_assert_cmpuint (natter_model_pull_get_n_layers (pull), ==, 2);
  layer = natter_model_pull_get_layer (pull, 1);
  g_assert_cmpstr (layer->digest, ==, NATTER_TEST_OLLAMA_SMALL_DIGEST);
  g_assert_cmpint (natter_model_pull_get_total (pull), ==,
                   NATTER_TEST_OLLAMA_LAYER_BYTES + NATTER_TEST_OLLAMA_SMALL_BYTES);
  g_assert_cmpint (natter_model_pull_get_completed (pull), ==, natter_model_pull_get_total (pull));
  /* The request asked for a stream, by the documented name. */
  g_assert_nonnull (strstr (g_ptr_array_index (f->ollama->server->bodies, f->ollama->last_pull),
                            "\"model\":\"gemma3:1b\""));
  g_assert_nonnull (strstr (g_ptr_array_index (f->ollama->server->bodies, f->ollama->last_pull),
                            "\"stream\":true"));

  /* Every list of the provider's models hears of it. */
  g_assert_cmpuint (f->changed->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->changed, 0), ==, "ollama");
  models = list (f->library, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (models->len, ==, 3);
  g_assert_cmpstr (((NatterModelInfo *) g_ptr_array_index (models, 2))->name, ==, "gemma3:1b");
}

static void
test_pull_fails_halfway (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(NatterModelPull) pull = NULL;
  const GError *error;

  pull = settled_pull (f, NATTER_TEST_PULL_FAILS_HALFWAY, "gemma3:1b");
  error = natter_model_pull_get_error (pull);
  g_assert_error ((GError *) error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_DISK_FULL);
  g_assert_nonnull (strstr (error->message, "is full"));
  g_assert_nonnull (strstr (error->message, "no space left on device"));
  assert_sentence (error, "The disk of %s at %s is full: “%s” could not be pulled. Delete a model there or "
                          "free space, then pull it again (%s)");
  /* What came before the error stays as the server said it. */
  g_assert_cmpint (natter_model_pull_get_completed (pull), ==, NATTER_TEST_OLLAMA_LAYER_BYTES / 2);
  g_assert_cmpuint (f->changed->len, ==, 0);
  g_assert_false (natter_test_ollama_has_model (f->ollama, "gemma3:1b"));
}

static void
test_pull_drops_halfway (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(NatterModelPull) pull = NULL;
  const GError *error;

  pull = settled_pull (f, NATTER_TEST_PULL_DROPS_HALFWAY, "gemma3:1b");
  error = natter_model_pull_get_error (pull);
  g_assert_error ((GError *) error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM);
  g_assert_nonnull (strstr (error->message, "pulling it again goes on where it stopped"));
  assert_sentence (error, "%s stopped answering before “%s” was pulled; pulling it again goes on where it "
                          "stopped");
  g_assert_cmpuint (f->changed->len, ==, 0);
}

static void
test_pull_unknown (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(NatterModelPull) pull = NULL;
  const GError *error;

  pull = settled_pull (f, NATTER_TEST_PULL_UNKNOWN, "no-such-model");
  error = natter_model_pull_get_error (pull);
  g_assert_error ((GError *) error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_MODEL_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "“no-such-model”"));
  assert_sentence (error, "%s found no model “%s” to pull: check the name in the Ollama library (%s)");
}

static gboolean
pull_held (gpointer data)
{
  return natter_test_ollama_pull_is_held (data);
}

static gboolean
half_done (gpointer data)
{
  return natter_model_pull_get_completed (data) == NATTER_TEST_OLLAMA_LAYER_BYTES / 2;
}

static void
test_pull_cancelled (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(NatterModelPull) pull = NULL;
  guint n_progress = 0;

  f->ollama->pull = NATTER_TEST_PULL_HOLDS_HALFWAY;
  pull = start_pull (f, "gemma3:1b");
  g_assert_true (natter_test_wait_until (pull_held, f->ollama, WAIT_MS));
  g_assert_true (natter_test_wait_until (half_done, pull, WAIT_MS));
  g_assert_cmpint (natter_model_pull_get_state (pull), ==, NATTER_MODEL_PULL_RUNNING);
  g_assert_cmpstr (natter_model_pull_get_status (pull), ==, "pulling " NATTER_TEST_OLLAMA_DIGEST);

  g_signal_connect (pull, "progress", G_CALLBACK (count_progress_cb), &n_progress);
  natter_model_pull_cancel (pull);
  g_assert_true (natter_test_wait_until (pull_settled, pull, WAIT_MS));
  g_assert_cmpint (natter_model_pull_get_state (pull), ==, NATTER_MODEL_PULL_CANCELLED);
  g_assert_null (natter_model_pull_get_error (pull));
  /* Whatever the server still sends reaches nobody. */
  natter_test_ollama_finish_pull (f->ollama);
  natter_test_drain_main_context ();
  g_assert_cmpuint (n_progress, ==, 0);
  g_assert_cmpuint (f->changed->len, ==, 0);
  /* Cancelling again does nothing. */
  natter_model_pull_cancel (pull);
  g_assert_cmpint (natter_model_pull_get_state (pull), ==, NATTER_MODEL_PULL_CANCELLED);
}

/* ---- deleting and describing --------------------------------------- */

static gboolean
delete (NatterModelLibrary  *library,
        const char          *name,
        GError             **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_model_library_delete_async (library, name, NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, WAIT_MS);
  return natter_model_library_delete_finish (library, result, error);
}

static void
test_delete (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (delete (f->library, "qwen2.5:7b", &error));
  g_assert_no_error (error);
  g_assert_false (natter_test_ollama_has_model (f->ollama, "qwen2.5:7b"));
  g_assert_true (natter_test_ollama_has_model (f->ollama, "llama3.2:latest"));
  g_assert_cmpuint (f->changed->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->ollama->server->bodies, f->ollama->server->bodies->len - 1),
                            "\"model\":\"qwen2.5:7b\""));

  /* A model the server does not have (deleted elsewhere meanwhile). */
  g_assert_false (delete (f->library, "qwen2.5:7b", &error));
  g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_MODEL_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "has no model “qwen2.5:7b”"));
  assert_sentence (error, "%s at %s has no model “%s” (%s)");
  g_assert_cmpuint (f->changed->len, ==, 1);
}

static void
test_show (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) missing = NULL;
  g_autoptr(NatterModelInfo) info = NULL;
  g_autoptr(GError) error = NULL;

  natter_model_library_show_async (f->library, "llama3.2:latest", NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, WAIT_MS);
  info = natter_model_library_show_finish (f->library, result, &error);
  g_assert_no_error (error);
  g_assert_cmpint (info->parameter_count, ==, 3212749888);
  g_assert_cmpstr (info->family, ==, "llama");

  natter_model_library_show_async (f->library, "nope", NULL, natter_test_result_cb, &missing);
  natter_test_wait_for_pointer ((gpointer *) &missing, WAIT_MS);
  g_assert_null (natter_model_library_show_finish (f->library, missing, &error));
  g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_MODEL_NOT_FOUND);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("/model-library/list/ollama", test_list_ollama);
  g_test_add_func ("/model-library/list/openai", test_list_openai);
  g_test_add_func ("/model-library/list/server-down", test_server_down);
  ADD ("/model-library/pull/succeeds", test_pull_succeeds);
  ADD ("/model-library/pull/fails-halfway", test_pull_fails_halfway);
  ADD ("/model-library/pull/drops-halfway", test_pull_drops_halfway);
  ADD ("/model-library/pull/unknown", test_pull_unknown);
  ADD ("/model-library/pull/cancelled", test_pull_cancelled);
  ADD ("/model-library/delete", test_delete);
  ADD ("/model-library/show", test_show);
#undef ADD

  return g_test_run ();
}
