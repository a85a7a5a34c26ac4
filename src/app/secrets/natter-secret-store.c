/* natter-secret-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The interface between the application and wherever API keys are kept:
 * the Secret Service in the application (NatterLibsecretStore), memory
 * in tests (NatterMemorySecretStore). Preferences store and clear keys
 * through it; the provider registry's key lookup reads them.
 */

#define G_LOG_DOMAIN "natter-secret-store"

#include "natter-secret-store.h"

G_DEFINE_INTERFACE (NatterSecretStore, natter_secret_store, G_TYPE_OBJECT)

static void
natter_secret_store_default_init (NatterSecretStoreInterface *iface)
{
}

/**
 * natter_secret_store_lookup_sync:
 * @self: the store
 * @provider: a provider's id or an endpoint URL
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Looks the key of @provider up, blocking. For the provider registry's
 * key lookup, which is synchronous by contract (docs/runtime.md §6 step
 * 4); the UI uses natter_secret_store_lookup_async().
 *
 * Returns: (transfer full) (nullable): the key; %NULL with @error unset
 *   when none is stored, %NULL with @error set when the store cannot be
 *   reached (a %G_IO_ERROR or the Secret Service's error)
 */
char *
natter_secret_store_lookup_sync (NatterSecretStore  *self,
                                 const char         *provider,
                                 GCancellable       *cancellable,
                                 GError            **error)
{
  g_return_val_if_fail (NATTER_IS_SECRET_STORE (self), NULL);
  g_return_val_if_fail (provider != NULL, NULL);

  return NATTER_SECRET_STORE_GET_IFACE (self)->lookup_sync (self, provider, cancellable, error);
}

/**
 * natter_secret_store_lookup_async:
 * @self: the store
 * @provider: a provider's id or an endpoint URL
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the thread-default main context
 * @user_data: data for @callback
 *
 * Looks the key of @provider up without blocking.
 */
void
natter_secret_store_lookup_async (NatterSecretStore   *self,
                                  const char          *provider,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SECRET_STORE (self));
  g_return_if_fail (provider != NULL);

  NATTER_SECRET_STORE_GET_IFACE (self)->lookup_async (self, provider, cancellable, callback, user_data);
}

/**
 * natter_secret_store_lookup_finish:
 * @self: the store
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): as natter_secret_store_lookup_sync()
 */
char *
natter_secret_store_lookup_finish (NatterSecretStore  *self,
                                   GAsyncResult       *result,
                                   GError            **error)
{
  g_return_val_if_fail (NATTER_IS_SECRET_STORE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_secret_store_store_async:
 * @self: the store
 * @provider: a provider's id or an endpoint URL
 * @key: the API key; not empty (use natter_secret_store_clear_async()
 *   to remove a key)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the thread-default main context
 * @user_data: data for @callback
 *
 * Stores @key for @provider, replacing any key stored before.
 */
void
natter_secret_store_store_async (NatterSecretStore   *self,
                                 const char          *provider,
                                 const char          *key,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SECRET_STORE (self));
  g_return_if_fail (provider != NULL);
  g_return_if_fail (key != NULL && key[0] != '\0');

  NATTER_SECRET_STORE_GET_IFACE (self)->store_async (self, provider, key, cancellable, callback, user_data);
}

/**
 * natter_secret_store_store_finish:
 * @self: the store
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the key is stored; else %FALSE with the store's
 *   error (never containing the key)
 */
gboolean
natter_secret_store_store_finish (NatterSecretStore  *self,
                                  GAsyncResult       *result,
                                  GError            **error)
{
  g_return_val_if_fail (NATTER_IS_SECRET_STORE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * natter_secret_store_clear_async:
 * @self: the store
 * @provider: a provider's id or an endpoint URL
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the thread-default main context
 * @user_data: data for @callback
 *
 * Removes the key of @provider; removing a key that is not there is not
 * an error.
 */
void
natter_secret_store_clear_async (NatterSecretStore   *self,
                                 const char          *provider,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SECRET_STORE (self));
  g_return_if_fail (provider != NULL);

  NATTER_SECRET_STORE_GET_IFACE (self)->clear_async (self, provider, cancellable, callback, user_data);
}

/**
 * natter_secret_store_clear_finish:
 * @self: the store
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE when no key is stored for the provider any more; else
 *   %FALSE with the store's error
 */
gboolean
natter_secret_store_clear_finish (NatterSecretStore  *self,
                                  GAsyncResult       *result,
                                  GError            **error)
{
  g_return_val_if_fail (NATTER_IS_SECRET_STORE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
