/* natter-secret-store.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define NATTER_TYPE_SECRET_STORE (natter_secret_store_get_type ())

G_DECLARE_INTERFACE (NatterSecretStore, natter_secret_store, NATTER, SECRET_STORE, GObject)

/**
 * NatterSecretStoreInterface:
 * @lookup_sync: the key of a provider, blocking
 * @lookup_async: starts looking the key of a provider up
 * @store_async: starts storing (or replacing) the key of a provider
 * @clear_async: starts removing the key of a provider
 *
 * Where API keys live (architecture.md: "API keys in the Secret Service
 * through libsecret"). Keys are addressed by the provider's id (or an
 * ad-hoc endpoint's URL). An implementation never writes a key to a log
 * or into an error message, and answers each asynchronous operation
 * through a #GTask whose source object is the store (a pointer for a
 * lookup, a boolean for a change), which the finish functions read.
 */
struct _NatterSecretStoreInterface
{
  GTypeInterface parent_iface;

  char     *(*lookup_sync)   (NatterSecretStore    *self,
                              const char           *provider,
                              GCancellable         *cancellable,
                              GError              **error);
  void      (*lookup_async)  (NatterSecretStore    *self,
                              const char           *provider,
                              GCancellable         *cancellable,
                              GAsyncReadyCallback   callback,
                              gpointer              user_data);
  void      (*store_async)   (NatterSecretStore    *self,
                              const char           *provider,
                              const char           *key,
                              GCancellable         *cancellable,
                              GAsyncReadyCallback   callback,
                              gpointer              user_data);
  void      (*clear_async)   (NatterSecretStore    *self,
                              const char           *provider,
                              GCancellable         *cancellable,
                              GAsyncReadyCallback   callback,
                              gpointer              user_data);
};

char     *natter_secret_store_lookup_sync   (NatterSecretStore    *self,
                                             const char           *provider,
                                             GCancellable         *cancellable,
                                             GError              **error);
void      natter_secret_store_lookup_async  (NatterSecretStore    *self,
                                             const char           *provider,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
char     *natter_secret_store_lookup_finish (NatterSecretStore    *self,
                                             GAsyncResult         *result,
                                             GError              **error);
void      natter_secret_store_store_async   (NatterSecretStore    *self,
                                             const char           *provider,
                                             const char           *key,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
gboolean  natter_secret_store_store_finish  (NatterSecretStore    *self,
                                             GAsyncResult         *result,
                                             GError              **error);
void      natter_secret_store_clear_async   (NatterSecretStore    *self,
                                             const char           *provider,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
gboolean  natter_secret_store_clear_finish  (NatterSecretStore    *self,
                                             GAsyncResult         *result,
                                             GError              **error);

G_END_DECLS
