/* test-provider-e2e-registry.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The provider registry: resolving a turn's model, a changed key, the
 * key from the environment, and an unknown provider that makes no turn.
 */

#include "test-provider-e2e.h"

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

void
provider_e2e_add_registry_tests (void)
{
  ADD ("registry/resolve", test_registry_resolve);
  ADD ("unknown-provider-makes-no-turn", test_unknown_provider_makes_no_turn);
  g_test_add_func ("/provider-e2e/registry/key-change", test_registry_key_change);
  g_test_add_func ("/provider-e2e/registry/env-key", test_env_key_lookup);
}
