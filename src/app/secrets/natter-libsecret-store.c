/* natter-libsecret-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * API keys in the Secret Service through libsecret (architecture.md),
 * one item per provider under the schema %NATTER_API_KEY_SCHEMA_NAME.
 * The key itself is only ever handed to libsecret and back to the
 * caller; messages name the provider, never the key.
 */

#define G_LOG_DOMAIN "natter-libsecret-store"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-libsecret-store.h"

struct _NatterLibsecretStore
{
  GObject parent_instance;
};

static void secret_store_iface_init (NatterSecretStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterLibsecretStore, natter_libsecret_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_SECRET_STORE, secret_store_iface_init))

/**
 * natter_libsecret_store_get_schema:
 *
 * The libsecret schema of API keys: %NATTER_API_KEY_SCHEMA_NAME with the
 * string attribute `provider`.
 *
 * Returns: (transfer none): the schema
 */
const SecretSchema *
natter_libsecret_store_get_schema (void)
{
  static const SecretSchema schema = {
    NATTER_API_KEY_SCHEMA_NAME, SECRET_SCHEMA_NONE,
    {
      { "provider", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    },
  };

  return &schema;
}

/* The key in @secret (taken), which libsecret keeps in non-pageable
 * memory, as a plain string the caller frees with g_free(); %NULL for
 * none or an empty one. */
static char *
key_of_secret (char *secret)
{
  char *key;

  if (secret == NULL)
    return NULL;
  key = secret[0] != '\0' ? g_strdup (secret) : NULL;
  secret_password_free (secret);
  return key;
}

static char *
natter_libsecret_store_lookup_sync (NatterSecretStore  *store,
                                    const char         *provider,
                                    GCancellable       *cancellable,
                                    GError            **error)
{
  return key_of_secret (secret_password_lookup_sync (natter_libsecret_store_get_schema (), cancellable, error,
                                                     "provider", provider, NULL));
}

static void
lookup_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  char *secret;

  secret = secret_password_lookup_finish (result, &error);
  if (error != NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, key_of_secret (secret), g_free);
}

static void
natter_libsecret_store_lookup_async (NatterSecretStore   *store,
                                     const char          *provider,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task = g_task_new (store, cancellable, callback, user_data);

  g_task_set_source_tag (task, natter_libsecret_store_lookup_async);
  secret_password_lookup (natter_libsecret_store_get_schema (), cancellable, lookup_done_cb, task,
                          "provider", provider, NULL);
}

static void
store_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!secret_password_store_finish (result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
natter_libsecret_store_store_async (NatterSecretStore   *store,
                                    const char          *provider,
                                    const char          *key,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  /* The label is what Passwords and Keys shows. */
  g_autofree char *label = g_strdup_printf (_("Natter API key for %s"), provider);

  g_task_set_source_tag (task, natter_libsecret_store_store_async);
  secret_password_store (natter_libsecret_store_get_schema (), SECRET_COLLECTION_DEFAULT, label, key,
                         cancellable, store_done_cb, task, "provider", provider, NULL);
}

static void
clear_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  /* FALSE without an error means there was nothing to remove. */
  secret_password_clear_finish (result, &error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
natter_libsecret_store_clear_async (NatterSecretStore   *store,
                                    const char          *provider,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task = g_task_new (store, cancellable, callback, user_data);

  g_task_set_source_tag (task, natter_libsecret_store_clear_async);
  secret_password_clear (natter_libsecret_store_get_schema (), cancellable, clear_done_cb, task,
                         "provider", provider, NULL);
}

static void
secret_store_iface_init (NatterSecretStoreInterface *iface)
{
  iface->lookup_sync = natter_libsecret_store_lookup_sync;
  iface->lookup_async = natter_libsecret_store_lookup_async;
  iface->store_async = natter_libsecret_store_store_async;
  iface->clear_async = natter_libsecret_store_clear_async;
}

static void
natter_libsecret_store_class_init (NatterLibsecretStoreClass *klass)
{
}

static void
natter_libsecret_store_init (NatterLibsecretStore *self)
{
}

/**
 * natter_libsecret_store_new:
 *
 * Creates the store of API keys in the user's Secret Service (the
 * default collection, usually the login keyring). Nothing is contacted
 * until a key is looked up, stored or cleared; without a Secret Service
 * on the session bus those operations fail with its error.
 *
 * Returns: (transfer full): the store
 */
NatterSecretStore *
natter_libsecret_store_new (void)
{
  return g_object_new (NATTER_TYPE_LIBSECRET_STORE, NULL);
}
