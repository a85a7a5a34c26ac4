/* test-settings.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * NatterSettings: every key a property bound to GSettings (a change on
 * either side reaches the other, with one notification), the codec of
 * the `providers` key with its one set of rules, and the endpoint-id
 * rule the registry, the window and the command line share. Runs over
 * the memory GSettings backend; each test starts from the defaults.
 */

#include "config.h"

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "natter-mcp-manager.h"
#include "natter-provider-registry.h"
#include "natter-services.h"
#include "natter-settings.h"
#include "natter-test-support.h"

typedef struct
{
  GSettings      *gsettings;
  NatterSettings *settings;
} Fixture;

static const char * const keys[] = {
  "window-width", "window-height", "window-maximized", "last-session", "max-model-calls",
  "auto-permission", "auto-title", "default-provider", "default-model", "providers", "mcp-timeout",
  "recent-model",
};

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();

  f->gsettings = g_settings_new_with_backend (APP_ID, backend);
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    g_settings_reset (f->gsettings, keys[i]);
  f->settings = natter_settings_new (f->gsettings);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_assert_finalize_object (f->settings);
  natter_test_drain_main_context ();
  g_assert_finalize_object (f->gsettings);
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *count)
{
  (*count)++;
}

static GPtrArray *
providers_of (const char *text)
{
  g_autoptr(GVariant) value = g_variant_ref_sink (g_variant_new_parsed (text));
  g_autoptr(GError) error = NULL;
  GPtrArray *providers = natter_settings_decode_providers (value, &error);

  g_assert_no_error (error);
  return providers;
}

static void
test_new_finalize (void)
{
  NatterSettings *settings = natter_settings_new (NULL);
  g_autofree char *provider = NULL;

  /* Without a GSettings the schema's defaults hold. */
  g_assert_null (natter_settings_get_gsettings (settings));
  g_assert_cmpstr (natter_settings_get_default_provider (settings), ==, "");
  provider = natter_settings_dup_effective_provider (settings);
  g_assert_cmpstr (provider, ==, NATTER_DEFAULT_PROVIDER_ID);
  g_assert_cmpstr (natter_settings_get_default_model (settings), ==, "");
  g_assert_cmpuint (natter_settings_get_max_model_calls (settings), ==, 50);
  g_assert_false (natter_settings_get_auto_permission (settings));
  g_assert_true (natter_settings_get_auto_title (settings));
  g_assert_finalize_object (settings);
}

static void
test_defaults (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GPtrArray) providers = natter_settings_dup_usable_providers (f->settings);
  NatterProviderConfig *ollama;
  int width, height;
  gboolean maximized;

  g_assert_cmpuint (providers->len, ==, 1);
  ollama = g_ptr_array_index (providers, 0);
  g_assert_cmpstr (ollama->id, ==, "ollama");
  g_assert_cmpstr (ollama->name, ==, "Ollama");
  g_assert_cmpstr (ollama->base_url, ==, NATTER_DEFAULT_PROVIDER_URL);
  natter_settings_get_window_size (f->settings, &width, &height, &maximized);
  g_assert_cmpint (width, ==, 1000);
  g_assert_cmpint (height, ==, 700);
  g_assert_false (maximized);
  g_assert_true (natter_settings_get_auto_title (f->settings));
}

static void
test_key_change_notifies (Fixture       *f,
                          gconstpointer  data)
{
  guint provider_count = 0, model_count = 0, calls_count = 0, permission_count = 0, providers_count = 0;

  g_signal_connect (f->settings, "notify::default-provider", G_CALLBACK (count_notify_cb), &provider_count);
  g_signal_connect (f->settings, "notify::default-model", G_CALLBACK (count_notify_cb), &model_count);
  g_signal_connect (f->settings, "notify::max-model-calls", G_CALLBACK (count_notify_cb), &calls_count);
  g_signal_connect (f->settings, "notify::auto-permission", G_CALLBACK (count_notify_cb), &permission_count);
  g_signal_connect (f->settings, "notify::providers", G_CALLBACK (count_notify_cb), &providers_count);

  g_settings_set_string (f->gsettings, "default-provider", "local");
  g_assert_cmpuint (provider_count, ==, 1);
  g_assert_cmpstr (natter_settings_get_default_provider (f->settings), ==, "local");

  /* The same value again is no change. */
  g_settings_set_string (f->gsettings, "default-provider", "local");
  g_assert_cmpuint (provider_count, ==, 1);

  g_settings_set_uint (f->gsettings, "max-model-calls", 7);
  g_assert_cmpuint (calls_count, ==, 1);
  g_assert_cmpuint (natter_settings_get_max_model_calls (f->settings), ==, 7);

  g_settings_set_boolean (f->gsettings, "auto-permission", TRUE);
  g_assert_cmpuint (permission_count, ==, 1);
  g_assert_true (natter_settings_get_auto_permission (f->settings));

  g_settings_set_boolean (f->gsettings, "auto-title", FALSE);
  g_assert_false (natter_settings_get_auto_title (f->settings));

  g_settings_set_value (f->gsettings, "providers",
                        g_variant_new_parsed ("[('local', 'Local', 'http://127.0.0.1:1/v1')]"));
  g_assert_cmpuint (providers_count, ==, 1);

  g_assert_cmpuint (model_count, ==, 0);
}

static void
test_property_writes_key (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *session = NULL;
  guint count = 0;

  g_signal_connect (f->settings, "notify::last-session", G_CALLBACK (count_notify_cb), &count);
  natter_settings_set_last_session (f->settings, "s-1");
  g_assert_cmpuint (count, ==, 1);
  session = g_settings_get_string (f->gsettings, "last-session");
  g_assert_cmpstr (session, ==, "s-1");

  natter_settings_set_window_size (f->settings, 900, 640, TRUE);
  g_assert_cmpint (g_settings_get_int (f->gsettings, "window-width"), ==, 900);
  g_assert_cmpint (g_settings_get_int (f->gsettings, "window-height"), ==, 640);
  g_assert_true (g_settings_get_boolean (f->gsettings, "window-maximized"));
}

static void
test_providers_round_trip (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GPtrArray) providers = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_provider_config_free);
  g_autoptr(GPtrArray) back = NULL;
  g_autoptr(GVariant) stored = NULL;
  g_autoptr(GVariant) expected = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (providers, natter_provider_config_new ("local", "Local “Server”", "http://127.0.0.1:8080/v1"));
  g_ptr_array_add (providers, natter_provider_config_new ("remote", "Remote", "https://example.org/api/v1"));
  g_assert_true (natter_settings_set_providers (f->settings, providers, &error));
  g_assert_no_error (error);

  stored = g_settings_get_value (f->gsettings, "providers");
  expected = g_variant_ref_sink (g_variant_new_parsed ("[('local', 'Local “Server”', 'http://127.0.0.1:8080/v1'), "
                                                       "('remote', 'Remote', 'https://example.org/api/v1')]"));
  g_assert_true (g_variant_equal (stored, expected));
  back = natter_settings_decode_providers (stored, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      NatterProviderConfig *a = g_ptr_array_index (providers, i);
      NatterProviderConfig *b = g_ptr_array_index (back, i);

      g_assert_cmpstr (a->id, ==, b->id);
      g_assert_cmpstr (a->name, ==, b->name);
      g_assert_cmpstr (a->base_url, ==, b->base_url);
    }
}

static void
assert_refused (const char *text,
                int         code)
{
  g_autoptr(GVariant) value = g_variant_ref_sink (g_variant_new_parsed (text));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) providers = natter_settings_decode_providers (value, &error);

  g_assert_error (error, NATTER_SETTINGS_ERROR, code);
  g_assert_null (providers);
  g_assert_cmpstr (error->message, !=, "");
}

static void
test_providers_validation (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GPtrArray) bad = providers_of ("[('ok', 'Ok', 'http://127.0.0.1:1/v1')]");
  g_autoptr(GVariant) before = NULL;
  g_autoptr(GVariant) after = NULL;
  g_autoptr(GError) error = NULL;

  assert_refused ("[('', 'No Id', 'http://127.0.0.1:1/v1')]", NATTER_SETTINGS_ERROR_INVALID_PROVIDER);
  assert_refused ("[('http://127.0.0.1:1/v1', 'Url Id', 'http://127.0.0.1:1/v1')]",
                  NATTER_SETTINGS_ERROR_INVALID_PROVIDER);
  assert_refused ("[('blank', '  ', 'http://127.0.0.1:1/v1')]", NATTER_SETTINGS_ERROR_INVALID_PROVIDER);
  assert_refused ("[('ftp', 'Ftp', 'ftp://127.0.0.1/v1')]", NATTER_SETTINGS_ERROR_INVALID_PROVIDER);
  assert_refused ("[('nohost', 'No Host', 'http:///v1')]", NATTER_SETTINGS_ERROR_INVALID_PROVIDER);
  assert_refused ("[('a', 'A', 'http://a/v1'), ('a', 'B', 'http://b/v1')]",
                  NATTER_SETTINGS_ERROR_DUPLICATE_PROVIDER);
  assert_refused ("[('a', 'A')]", NATTER_SETTINGS_ERROR_INVALID_TYPE);

  /* A refused list is not stored. */
  before = g_settings_get_value (f->gsettings, "providers");
  ((NatterProviderConfig *) g_ptr_array_index (bad, 0))->base_url[0] = 'x';
  g_assert_false (natter_settings_set_providers (f->settings, bad, &error));
  g_assert_error (error, NATTER_SETTINGS_ERROR, NATTER_SETTINGS_ERROR_INVALID_PROVIDER);
  after = g_settings_get_value (f->gsettings, "providers");
  g_assert_true (g_variant_equal (before, after));
}

static void
test_usable_providers (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GPtrArray) usable = NULL;

  /* A hand-edited list: the readers keep what the rules allow. */
  g_settings_set_value (f->gsettings, "providers",
                        g_variant_new_parsed ("[('good', 'Good', 'http://127.0.0.1:1/v1'), "
                                              "('https://x', 'Url', 'http://127.0.0.1:1/v1'), "
                                              "('', 'Empty', 'http://127.0.0.1:1/v1'), "
                                              "('good', 'Again', 'http://127.0.0.1:2/v1'), "
                                              "('nourl', 'No Url', '')]"));
  all = natter_settings_dup_providers (f->settings);
  g_assert_cmpuint (all->len, ==, 5);
  usable = natter_settings_dup_usable_providers (f->settings);
  g_assert_cmpuint (usable->len, ==, 1);
  g_assert_cmpstr (((NatterProviderConfig *) g_ptr_array_index (usable, 0))->name, ==, "Good");
}

static void
test_services_follow (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  NatterServices *services = natter_services_new (dir, f->settings, NULL, NULL, NULL);
  NatterProviderRegistry *registry = natter_services_get_provider_registry (services);
  g_auto(GStrv) before = natter_provider_registry_list_providers (registry);
  g_auto(GStrv) after = NULL;
  g_autofree char *provider = NULL;

  g_assert_true (natter_services_get_settings (services) == f->settings);
  g_assert_false (g_strv_contains ((const char * const *) before, "local"));
  g_settings_set_value (f->gsettings, "providers",
                        g_variant_new_parsed ("[('local', 'Local', 'http://127.0.0.1:1/v1'), "
                                              "('http://bad', 'Bad', 'http://127.0.0.1:1/v1')]"));
  g_settings_set_string (f->gsettings, "default-provider", "local");
  after = natter_provider_registry_list_providers (registry);
  g_assert_true (g_strv_contains ((const char * const *) after, "local"));
  g_assert_false (g_strv_contains ((const char * const *) after, "http://bad"));
  provider = natter_services_dup_default_provider (services);
  g_assert_cmpstr (provider, ==, "local");

  g_assert_finalize_object (services);
  natter_test_remove_tree (dir);
}

/* A person who replaced the list of providers and chose no default
 * talks to the first provider of their list, in the window and on the
 * command line alike (both ask the services); the built-in Ollama only
 * when the list is empty or names it, and a default that is set wins. */
static void
test_services_default_is_first_of_list (Fixture       *f,
                                        gconstpointer  data)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  NatterServices *services = natter_services_new (dir, f->settings, NULL, NULL, NULL);
  g_autofree char *out_of_the_box = natter_services_dup_default_provider (services);
  g_autofree char *first = NULL;
  g_autofree char *chosen = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *none = NULL;

  g_assert_cmpstr (out_of_the_box, ==, NATTER_DEFAULT_PROVIDER_ID);
  /* Out of the box no default is chosen: the list's first is used. */
  g_assert_cmpstr (natter_settings_get_default_provider (f->settings), ==, "");
  g_settings_set_value (f->gsettings, "providers",
                        g_variant_new_parsed ("[('http://bad', 'Bad', 'http://127.0.0.1:1/v1'), "
                                              "('work', 'Work', 'http://127.0.0.1:2/v1'), "
                                              "('lab', 'Lab', 'http://127.0.0.1:3/v1')]"));
  /* An entry the registry cannot use is not the default either. */
  first = natter_services_dup_default_provider (services);
  g_assert_cmpstr (first, ==, "work");

  g_settings_set_string (f->gsettings, "default-provider", "lab");
  chosen = natter_services_dup_default_provider (services);
  g_assert_cmpstr (chosen, ==, "lab");

  g_settings_reset (f->gsettings, "default-provider");
  g_settings_set_value (f->gsettings, "providers",
                        g_variant_new_parsed ("[('lab', 'Lab', 'http://127.0.0.1:3/v1'), "
                                              "('ollama', 'Ollama', 'http://localhost:11434/v1')]"));
  listed = natter_services_dup_default_provider (services);
  g_assert_cmpstr (listed, ==, "lab");

  g_settings_set_value (f->gsettings, "providers", g_variant_new_parsed ("@a(sss) []"));
  none = natter_services_dup_default_provider (services);
  g_assert_cmpstr (none, ==, NATTER_DEFAULT_PROVIDER_ID);

  g_assert_finalize_object (services);
  natter_test_remove_tree (dir);
}

/* The tool server call timeout of Preferences reaches every client whose
 * mcp.json entry names none, live and after mcp.json is read again; an
 * entry's own timeout wins. */
static void
test_services_mcp_timeout (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autofree char *config = g_build_filename (g_file_peek_path (dir), "mcp.json", NULL);
  g_autofree char *old_config_dir = g_strdup (g_getenv ("NATTER_CONFIG_DIR"));
  g_autoptr(GError) error = NULL;
  NatterServices *services;
  NatterMcpManager *manager;
  GPtrArray *clients;

  g_file_set_contents (config, "{\"mcpServers\": {\"plain\": {\"command\": \"true\"},"
                               " \"slow\": {\"command\": \"true\", \"timeout\": 5}}}", -1, &error);
  g_assert_no_error (error);
  g_setenv ("NATTER_CONFIG_DIR", g_file_peek_path (dir), TRUE);
  g_assert_cmpuint (g_settings_get_uint (f->gsettings, "mcp-timeout"), ==, 60);

  services = natter_services_new (dir, f->settings, NULL, NULL, NULL);
  manager = natter_services_get_mcp_manager (services);
  clients = natter_mcp_manager_get_clients (manager);
  g_assert_cmpuint (clients->len, ==, 2);
  g_assert_cmpuint (natter_mcp_client_get_timeout (g_ptr_array_index (clients, 0)), ==, 60);
  g_assert_cmpuint (natter_mcp_client_get_timeout (g_ptr_array_index (clients, 1)), ==, 5);

  g_settings_set_uint (f->gsettings, "mcp-timeout", 90);
  g_assert_cmpuint (natter_mcp_manager_get_default_timeout (manager), ==, 90);
  g_assert_cmpuint (natter_mcp_client_get_timeout (g_ptr_array_index (clients, 0)), ==, 90);
  g_assert_cmpuint (natter_mcp_client_get_timeout (g_ptr_array_index (clients, 1)), ==, 5);

  natter_mcp_manager_reload (manager);
  clients = natter_mcp_manager_get_clients (manager);
  g_assert_cmpuint (natter_mcp_client_get_timeout (g_ptr_array_index (clients, 0)), ==, 90);
  g_assert_cmpuint (natter_mcp_client_get_timeout (g_ptr_array_index (clients, 1)), ==, 5);

  g_assert_finalize_object (services);
  if (old_config_dir != NULL)
    g_setenv ("NATTER_CONFIG_DIR", old_config_dir, TRUE);
  else
    g_unsetenv ("NATTER_CONFIG_DIR");
  natter_test_remove_tree (dir);
}

/* Each provider's transcription model is an entry of one dictionary:
 * setting one keeps the others, a blank one forgets it. */
static void
test_transcription_models (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GVariant) models = NULL;
  g_autofree char *groq = NULL;
  g_autofree char *openai = NULL;

  g_assert_null (natter_settings_dup_transcription_model (f->settings, "groq"));
  natter_settings_set_transcription_model (f->settings, "groq", "whisper-large-v3");
  natter_settings_set_transcription_model (f->settings, "openai", "  gpt-4o-transcribe ");
  natter_settings_set_transcription_model (f->settings, "groq", "whisper-large-v3-turbo");
  groq = natter_settings_dup_transcription_model (f->settings, "groq");
  openai = natter_settings_dup_transcription_model (f->settings, "openai");
  g_assert_cmpstr (groq, ==, "whisper-large-v3-turbo");
  g_assert_cmpstr (openai, ==, "gpt-4o-transcribe");

  natter_settings_set_transcription_model (f->settings, "openai", " ");
  natter_settings_set_transcription_model (f->settings, "absent", NULL);
  models = g_settings_get_value (f->gsettings, "transcription-models");
  g_assert_cmpuint (g_variant_n_children (models), ==, 1);
  g_assert_null (natter_settings_dup_transcription_model (f->settings, "openai"));
  natter_settings_set_transcription_model (f->settings, "groq", NULL);
  g_assert_null (natter_settings_dup_transcription_model (f->settings, "groq"));
}

/* The model last picked in the window, with when, kept across restarts;
 * an empty provider forgets it, and the built-in defaults remember
 * nothing. */
static void
test_recent_model (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(NatterSettings) defaults = natter_settings_new (NULL);
  g_autoptr(GVariant) stored = NULL;
  g_autoptr(GVariant) user_value = NULL;
  g_autofree char *printed = NULL;
  g_autofree char *provider = g_strdup ("unset");
  g_autofree char *model = g_strdup ("unset");
  g_autofree char *at = g_strdup ("unset");

  g_assert_false (natter_settings_dup_recent_model (f->settings, NULL, NULL, NULL));
  natter_settings_set_recent_model (f->settings, "mine", "beta", "2026-12-01T10:00:00.000Z");
  stored = g_settings_get_value (f->gsettings, "recent-model");
  printed = g_variant_print (stored, FALSE);
  g_assert_cmpstr (printed, ==, "('mine', 'beta', '2026-12-01T10:00:00.000Z')");
  g_clear_pointer (&provider, g_free);
  g_clear_pointer (&model, g_free);
  g_clear_pointer (&at, g_free);
  g_assert_true (natter_settings_dup_recent_model (f->settings, &provider, &model, &at));
  g_assert_cmpstr (provider, ==, "mine");
  g_assert_cmpstr (model, ==, "beta");
  g_assert_cmpstr (at, ==, "2026-12-01T10:00:00.000Z");

  /* A provider's first model, of unknown time: both come back NULL. */
  natter_settings_set_recent_model (f->settings, "mine", NULL, NULL);
  g_clear_pointer (&provider, g_free);
  g_clear_pointer (&model, g_free);
  g_clear_pointer (&at, g_free);
  g_assert_true (natter_settings_dup_recent_model (f->settings, &provider, &model, &at));
  g_assert_cmpstr (provider, ==, "mine");
  g_assert_null (model);
  g_assert_null (at);

  natter_settings_set_recent_model (f->settings, "", "beta", NULL);
  g_clear_pointer (&provider, g_free);
  g_assert_false (natter_settings_dup_recent_model (f->settings, &provider, NULL, NULL));
  g_assert_null (provider);
  /* Forgotten is the key's default again, not a value of its own. */
  user_value = g_settings_get_user_value (f->gsettings, "recent-model");
  g_assert_null (user_value);

  natter_settings_set_recent_model (defaults, "mine", "beta", NULL);
  g_assert_false (natter_settings_dup_recent_model (defaults, NULL, NULL, NULL));
}

/* Adds an entry (@id, "Mine", a local URL) to the `providers` key. */
static void
add_provider (Fixture    *f,
              const char *id)
{
  g_autoptr(GPtrArray) providers = natter_settings_dup_providers (f->settings);
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (providers, natter_provider_config_new (id, "Mine", "http://127.0.0.1:8080/v1"));
  g_assert_true (natter_settings_set_providers (f->settings, providers, &error));
  g_assert_no_error (error);
}

/* The first-run rule: the first provider a person adds of their own,
 * before any model was chosen, picked or used, becomes the default, so
 * a message goes to it and not to the built-in Ollama; anything chosen
 * before keeps it from changing what was chosen. */
static void
test_adopt_first_provider (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *effective = NULL;

  add_provider (f, "provider-1");
  effective = natter_settings_dup_effective_provider (f->settings);
  g_assert_cmpstr (effective, ==, NATTER_DEFAULT_PROVIDER_ID);

  /* Something chosen or used before: nothing changes. */
  g_assert_false (natter_settings_adopt_first_provider (f->settings, "provider-1", TRUE));
  natter_settings_set_recent_model (f->settings, NATTER_DEFAULT_PROVIDER_ID, "llama3.2", "2026-12-01T10:00:00.000Z");
  g_assert_false (natter_settings_adopt_first_provider (f->settings, "provider-1", FALSE));
  natter_settings_set_recent_model (f->settings, NULL, NULL, NULL);
  natter_settings_set_default_model (f->settings, "llama3.2");
  g_assert_false (natter_settings_adopt_first_provider (f->settings, "provider-1", FALSE));
  natter_settings_set_default_model (f->settings, "");
  natter_settings_set_default_provider (f->settings, NATTER_DEFAULT_PROVIDER_ID);
  g_assert_false (natter_settings_adopt_first_provider (f->settings, "provider-1", FALSE));
  natter_settings_set_default_provider (f->settings, "");
  /* Not a provider of their own, or not one that is listed. */
  g_assert_false (natter_settings_adopt_first_provider (f->settings, NATTER_DEFAULT_PROVIDER_ID, FALSE));
  g_assert_false (natter_settings_adopt_first_provider (f->settings, "absent", FALSE));
  g_assert_cmpstr (natter_settings_get_default_provider (f->settings), ==, "");

  /* Nothing chosen: the provider added is the default from now on, for
   * the window and the command line alike. */
  g_assert_true (natter_settings_adopt_first_provider (f->settings, "provider-1", FALSE));
  g_assert_cmpstr (natter_settings_get_default_provider (f->settings), ==, "provider-1");
  g_assert_cmpstr (natter_settings_get_default_model (f->settings), ==, "");
  g_clear_pointer (&effective, g_free);
  effective = natter_settings_dup_effective_provider (f->settings);
  g_assert_cmpstr (effective, ==, "provider-1");

  /* A second provider of their own is no first one: the default stays,
   * even were it unset again. */
  add_provider (f, "provider-2");
  g_assert_false (natter_settings_adopt_first_provider (f->settings, "provider-2", FALSE));
  natter_settings_set_default_provider (f->settings, "");
  g_assert_false (natter_settings_adopt_first_provider (f->settings, "provider-2", FALSE));

  /* The built-in provider taken out of the list is no provider of their
   * own either. */
  g_settings_set_value (f->gsettings, "providers",
                        g_variant_new_parsed ("[('provider-3', 'Mine', 'http://127.0.0.1:8080/v1')]"));
  g_assert_true (natter_settings_adopt_first_provider (f->settings, "provider-3", FALSE));
  g_assert_cmpstr (natter_settings_get_default_provider (f->settings), ==, "provider-3");
}

static void
test_endpoint_ids (void)
{
  g_assert_true (natter_provider_id_is_endpoint ("http://localhost:8080/v1"));
  g_assert_true (natter_provider_id_is_endpoint ("https://openrouter.ai/api/v1"));
  g_assert_false (natter_provider_id_is_endpoint ("ollama"));
  g_assert_false (natter_provider_id_is_endpoint ("httpbin"));
  g_assert_false (natter_provider_id_is_endpoint (""));
}

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/settings/new-finalize", test_new_finalize);
  g_test_add_func ("/settings/endpoint-ids", test_endpoint_ids);
  ADD ("/settings/defaults", test_defaults);
  ADD ("/settings/key-change-notifies", test_key_change_notifies);
  ADD ("/settings/property-writes-key", test_property_writes_key);
  ADD ("/settings/providers/round-trip", test_providers_round_trip);
  ADD ("/settings/providers/validation", test_providers_validation);
  ADD ("/settings/providers/usable", test_usable_providers);
  ADD ("/settings/services-follow", test_services_follow);
  ADD ("/settings/default-provider/first-of-list", test_services_default_is_first_of_list);
  ADD ("/settings/services-mcp-timeout", test_services_mcp_timeout);
  ADD ("/settings/transcription-models", test_transcription_models);
  ADD ("/settings/recent-model", test_recent_model);
  ADD ("/settings/default-provider/adopt-first-provider", test_adopt_first_provider);

  return g_test_run ();
}
