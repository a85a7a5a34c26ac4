/* natter-memory-secret-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A NatterSecretStore in process memory: what tests (and a future
 * keyring-less mode) put in place of the Secret Service. Operations
 * complete asynchronously from the main context like the real store, so
 * callers cannot come to depend on a synchronous answer.
 */

#define G_LOG_DOMAIN "natter-memory-secret-store"

#include "natter-memory-secret-store.h"

struct _NatterMemorySecretStore
{
  GObject     parent_instance;
  GHashTable *keys;      /* provider → key */
  gboolean    failing;
};

static void secret_store_iface_init (NatterSecretStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterMemorySecretStore, natter_memory_secret_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_SECRET_STORE, secret_store_iface_init))

static gboolean
check_available (NatterMemorySecretStore  *self,
                 GError                  **error)
{
  if (!self->failing)
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED, "The secret store is not available");
  return FALSE;
}

static char *
natter_memory_secret_store_lookup_sync (NatterSecretStore  *store,
                                        const char         *provider,
                                        GCancellable       *cancellable,
                                        GError            **error)
{
  NatterMemorySecretStore *self = NATTER_MEMORY_SECRET_STORE (store);

  if (!check_available (self, error))
    return NULL;
  return g_strdup (g_hash_table_lookup (self->keys, provider));
}

static void
natter_memory_secret_store_lookup_async (NatterSecretStore   *store,
                                         const char          *provider,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (store, cancellable, callback, user_data);
  GError *error = NULL;
  char *key;

  g_task_set_source_tag (task, natter_memory_secret_store_lookup_async);
  key = natter_memory_secret_store_lookup_sync (store, provider, cancellable, &error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, key, g_free);
}

/* The task of a change to the keys, or %NULL when the store is not
 * available: then the task has returned that error already. */
static GTask *
change_task_new (NatterSecretStore   *store,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data,
                 gpointer             source_tag)
{
  g_autoptr(GTask) task = g_task_new (store, cancellable, callback, user_data);
  GError *error = NULL;

  g_task_set_source_tag (task, source_tag);
  if (!check_available (NATTER_MEMORY_SECRET_STORE (store), &error))
    {
      g_task_return_error (task, error);
      return NULL;
    }
  return g_steal_pointer (&task);
}

static void
natter_memory_secret_store_store_async (NatterSecretStore   *store,
                                        const char          *provider,
                                        const char          *key,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  NatterMemorySecretStore *self = NATTER_MEMORY_SECRET_STORE (store);
  g_autoptr(GTask) task = change_task_new (store, cancellable, callback, user_data,
                                           natter_memory_secret_store_store_async);

  if (task == NULL)
    return;
  g_hash_table_replace (self->keys, g_strdup (provider), g_strdup (key));
  g_task_return_boolean (task, TRUE);
}

static void
natter_memory_secret_store_clear_async (NatterSecretStore   *store,
                                        const char          *provider,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  NatterMemorySecretStore *self = NATTER_MEMORY_SECRET_STORE (store);
  g_autoptr(GTask) task = change_task_new (store, cancellable, callback, user_data,
                                           natter_memory_secret_store_clear_async);

  if (task == NULL)
    return;
  g_hash_table_remove (self->keys, provider);
  g_task_return_boolean (task, TRUE);
}

static void
secret_store_iface_init (NatterSecretStoreInterface *iface)
{
  iface->lookup_sync = natter_memory_secret_store_lookup_sync;
  iface->lookup_async = natter_memory_secret_store_lookup_async;
  iface->store_async = natter_memory_secret_store_store_async;
  iface->clear_async = natter_memory_secret_store_clear_async;
}

static void
natter_memory_secret_store_finalize (GObject *object)
{
  NatterMemorySecretStore *self = NATTER_MEMORY_SECRET_STORE (object);

  g_clear_pointer (&self->keys, g_hash_table_unref);
  G_OBJECT_CLASS (natter_memory_secret_store_parent_class)->finalize (object);
}

static void
natter_memory_secret_store_class_init (NatterMemorySecretStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_memory_secret_store_finalize;
}

static void
natter_memory_secret_store_init (NatterMemorySecretStore *self)
{
  self->keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/**
 * natter_memory_secret_store_new:
 *
 * Creates an empty store of API keys in memory.
 *
 * Returns: (transfer full): the store
 */
NatterMemorySecretStore *
natter_memory_secret_store_new (void)
{
  return g_object_new (NATTER_TYPE_MEMORY_SECRET_STORE, NULL);
}

/**
 * natter_memory_secret_store_peek:
 * @self: the store
 * @provider: a provider's id or an endpoint URL
 *
 * Returns: (transfer none) (nullable): the key stored for @provider,
 *   for a test to check
 */
const char *
natter_memory_secret_store_peek (NatterMemorySecretStore *self,
                                 const char              *provider)
{
  g_return_val_if_fail (NATTER_IS_MEMORY_SECRET_STORE (self), NULL);

  return g_hash_table_lookup (self->keys, provider);
}

/**
 * natter_memory_secret_store_get_n_keys:
 * @self: the store
 *
 * Returns: how many keys are stored
 */
guint
natter_memory_secret_store_get_n_keys (NatterMemorySecretStore *self)
{
  g_return_val_if_fail (NATTER_IS_MEMORY_SECRET_STORE (self), 0);

  return g_hash_table_size (self->keys);
}

/**
 * natter_memory_secret_store_set_failing:
 * @self: the store
 * @failing: whether every operation fails
 *
 * Makes every operation fail with %G_IO_ERROR_NOT_CONNECTED, the way the
 * Secret Service fails without a keyring.
 */
void
natter_memory_secret_store_set_failing (NatterMemorySecretStore *self,
                                        gboolean                 failing)
{
  g_return_if_fail (NATTER_IS_MEMORY_SECRET_STORE (self));

  self->failing = failing;
}
