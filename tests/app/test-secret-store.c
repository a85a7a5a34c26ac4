/* test-secret-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where API keys are kept: the NatterSecretStore contract on
 * the memory store (store, look up, replace, clear; errors that never
 * carry the key), NatterServices reading model-call keys from the store
 * it was given, and the libsecret store against a real Secret Service
 * when the session bus has one (skipped otherwise: CI has no keyring).
 */

#include <string.h>

#include "natter-libsecret-store.h"
#include "natter-memory-secret-store.h"
#include "natter-services.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define WAIT_MS 10000
#define KEY "sk-test-SECRET-1"

static GAsyncResult *
wait_result (GAsyncResult **result)
{
  natter_test_wait_for_pointer ((gpointer *) result, WAIT_MS);
  return *result;
}

static char *
lookup (NatterSecretStore  *store,
        const char         *provider,
        GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_secret_store_lookup_async (store, provider, NULL, natter_test_result_cb, &result);
  return natter_secret_store_lookup_finish (store, wait_result (&result), error);
}

static gboolean
store_key (NatterSecretStore  *store,
           const char         *provider,
           const char         *key,
           GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_secret_store_store_async (store, provider, key, NULL, natter_test_result_cb, &result);
  return natter_secret_store_store_finish (store, wait_result (&result), error);
}

static gboolean
clear_key (NatterSecretStore  *store,
           const char         *provider,
           GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_secret_store_clear_async (store, provider, NULL, natter_test_result_cb, &result);
  return natter_secret_store_clear_finish (store, wait_result (&result), error);
}

/* The contract, on any store. */
static void
check_contract (NatterSecretStore *store,
                const char        *provider)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *none = NULL;
  g_autofree char *found = NULL;
  g_autofree char *sync = NULL;
  g_autofree char *replaced = NULL;
  g_autofree char *cleared = NULL;

  none = lookup (store, provider, &error);
  g_assert_no_error (error);
  g_assert_null (none);

  g_assert_true (store_key (store, provider, KEY, &error));
  g_assert_no_error (error);
  found = lookup (store, provider, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, KEY);
  sync = natter_secret_store_lookup_sync (store, provider, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sync, ==, KEY);

  g_assert_true (store_key (store, provider, "sk-other", &error));
  replaced = lookup (store, provider, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (replaced, ==, "sk-other");

  g_assert_true (clear_key (store, provider, &error));
  g_assert_no_error (error);
  cleared = lookup (store, provider, &error);
  g_assert_no_error (error);
  g_assert_null (cleared);
  /* Clearing what is not there is not an error. */
  g_assert_true (clear_key (store, provider, &error));
  g_assert_no_error (error);
}

static void
test_memory_contract (void)
{
  g_autoptr(NatterMemorySecretStore) store = natter_memory_secret_store_new ();
  g_autoptr(GError) error = NULL;

  check_contract (NATTER_SECRET_STORE (store), "openai");

  /* Keys are per provider. */
  g_assert_true (store_key (NATTER_SECRET_STORE (store), "a", "key-a", &error));
  g_assert_true (store_key (NATTER_SECRET_STORE (store), "b", "key-b", &error));
  g_assert_cmpstr (natter_memory_secret_store_peek (store, "a"), ==, "key-a");
  g_assert_cmpstr (natter_memory_secret_store_peek (store, "b"), ==, "key-b");
  g_assert_cmpuint (natter_memory_secret_store_get_n_keys (store), ==, 2);
  g_assert_finalize_object (g_steal_pointer (&store));
}

static void
test_memory_failing (void)
{
  g_autoptr(NatterMemorySecretStore) store = natter_memory_secret_store_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  natter_memory_secret_store_set_failing (store, TRUE);
  g_assert_false (store_key (NATTER_SECRET_STORE (store), "p", KEY, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED);
  g_assert_null (strstr (error->message, KEY));
  g_clear_error (&error);
  key = lookup (NATTER_SECRET_STORE (store), "p", &error);
  g_assert_null (key);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED);
  g_clear_error (&error);
  g_assert_false (clear_key (NATTER_SECRET_STORE (store), "p", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED);
  g_assert_cmpuint (natter_memory_secret_store_get_n_keys (store), ==, 0);
}

/* NatterServices asks its secret store for the key of every model call:
 * a scripted /models answers only with the right Authorization. */
static void
models_cb (NatterTestServer   *server,
           guint               index,
           const char         *path,
           const char         *body,
           NatterTestResponse *response,
           gpointer            user_data)
{
  g_assert_cmpstr (path, ==, "/v1/models");
  if (g_strcmp0 (g_ptr_array_index (server->authorizations, index), "Bearer " KEY) != 0)
    {
      response->status = 401;
      return;
    }
  response->status = 200;
  response->content_type = "application/json";
  response->body = "{\"object\":\"list\",\"data\":[{\"id\":\"first\"},{\"id\":\"second\"}]}";
}

static JsonObject *
resolve_first_model (NatterServices  *services,
                     GError         **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_services_resolve_model_async (services, "srv", "", NULL, natter_test_result_cb, &result);
  return natter_services_resolve_model_finish (services, wait_result (&result), error);
}

static void
test_services_use_the_store (void)
{
  g_autoptr(NatterTestServer) server = natter_test_server_new_responder (models_cb, NULL);
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(NatterMemorySecretStore) store = natter_memory_secret_store_new ();
  g_autoptr(NatterServices) services = NULL;
  g_autoptr(JsonObject) denied = NULL;
  g_autoptr(JsonObject) model = NULL;
  g_autoptr(GError) error = NULL;

  g_unsetenv (NATTER_API_KEY_ENV);

  services = natter_services_new (dir, NULL, NULL, NULL, NULL);
  g_assert_true (NATTER_IS_LIBSECRET_STORE (natter_services_get_secret_store (services)));
  natter_services_set_secret_store (services, NATTER_SECRET_STORE (store));
  g_assert_true (natter_services_get_secret_store (services) == NATTER_SECRET_STORE (store));
  natter_provider_registry_add_provider (natter_services_get_provider_registry (services), "srv", "Server",
                                         server->base_url);

  /* No key yet: refused. */
  denied = resolve_first_model (services, &error);
  g_assert_null (denied);
  g_assert_nonnull (error);
  g_assert_null (strstr (error->message, KEY));
  g_clear_error (&error);

  /* Stored: the next call carries it, no restart needed. */
  g_assert_true (store_key (NATTER_SECRET_STORE (store), "srv", KEY, &error));
  model = resolve_first_model (services, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (model, "model"), ==, "first");

  g_assert_finalize_object (g_steal_pointer (&services));
  natter_test_remove_tree (dir);
}

static void
test_libsecret (void)
{
  g_autoptr(NatterSecretStore) store = natter_libsecret_store_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *provider = g_strdup_printf ("natter-test-%d", (int) getpid ());
  g_autofree char *probe = NULL;
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);

  g_assert_cmpstr (natter_libsecret_store_get_schema ()->name, ==, "io.github.natter.Natter.ApiKey");

  /* Only a Secret Service already running is used: activating one (or
   * an unlock prompt) is not something a test may do. */
  if (bus == NULL)
    {
      g_test_skip ("No session bus");
      return;
    }
  {
    g_autoptr(GVariant) owner = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                             "org.freedesktop.DBus", "NameHasOwner",
                                                             g_variant_new ("(s)", "org.freedesktop.secrets"),
                                                             G_VARIANT_TYPE ("(b)"), G_DBUS_CALL_FLAGS_NONE,
                                                             -1, NULL, NULL);
    gboolean has_owner = FALSE;

    if (owner != NULL)
      g_variant_get (owner, "(b)", &has_owner);
    if (!has_owner)
      {
        g_test_skip ("No Secret Service on the session bus");
        return;
      }
  }
  probe = lookup (store, provider, &error);
  if (error != NULL)
    {
      g_test_skip_printf ("The Secret Service does not answer: %s", error->message);
      return;
    }
  check_contract (store, provider);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/secret-store/memory/contract", test_memory_contract);
  g_test_add_func ("/secret-store/memory/failing", test_memory_failing);
  g_test_add_func ("/secret-store/services-use-the-store", test_services_use_the_store);
  g_test_add_func ("/secret-store/libsecret", test_libsecret);

  return g_test_run ();
}
