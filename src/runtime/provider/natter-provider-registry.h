/* natter-provider-registry.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model registry of the application: configured OpenAI-compatible
 * providers by id, ad-hoc endpoints by URL, and the API key looked up
 * afresh on every resolve (docs/runtime.md §6 step 4, §12).
 */

#pragma once

#include "natter-model-library.h"
#include "natter-model-registry.h"
#include "natter-openai-model.h"
#include "natter-openai-provider.h"

G_BEGIN_DECLS

/**
 * NATTER_DEFAULT_PROVIDER_ID:
 *
 * The provider every registry knows from the start: Ollama on
 * %NATTER_DEFAULT_PROVIDER_URL (docs/runtime.md §12).
 */
#define NATTER_DEFAULT_PROVIDER_ID "ollama"

/**
 * NATTER_DEFAULT_PROVIDER_URL:
 *
 * The base URL of %NATTER_DEFAULT_PROVIDER_ID.
 */
#define NATTER_DEFAULT_PROVIDER_URL "http://localhost:11434/v1"

/**
 * NATTER_DEFAULT_IDLE_TIMEOUT:
 *
 * Seconds without a byte from a server after which a model call fails,
 * until natter_provider_registry_set_idle_timeout() says otherwise: long
 * enough for a local server to load a large model.
 */
#define NATTER_DEFAULT_IDLE_TIMEOUT 300

/**
 * NATTER_API_KEY_ENV:
 *
 * The environment variable natter_env_key_lookup() reads.
 */
#define NATTER_API_KEY_ENV "NATTER_API_KEY"

/**
 * NatterKeyLookupFunc:
 * @provider: the `provider` of a model descriptor: a configured
 *   provider's id, or an ad-hoc endpoint's URL
 * @user_data: the data given with the function
 *
 * Looks up the API key of a provider. Called on every resolve, so a
 * changed key takes effect at the next advance; the key is never stored
 * in a turn.
 *
 * Returns: (transfer full) (nullable): the key, or %NULL (or "") for none
 */
typedef char *(*NatterKeyLookupFunc) (const char *provider,
                                      gpointer    user_data);

char *natter_env_key_lookup (const char *provider,
                             gpointer    user_data);

#define NATTER_TYPE_PROVIDER_REGISTRY (natter_provider_registry_get_type ())
G_DECLARE_FINAL_TYPE (NatterProviderRegistry, natter_provider_registry, NATTER, PROVIDER_REGISTRY, GObject)

NatterProviderRegistry *natter_provider_registry_new                (NatterKeyLookupFunc      key_lookup,
                                                                     gpointer                 key_lookup_data,
                                                                     GDestroyNotify           key_lookup_destroy);

void                    natter_provider_registry_add_provider       (NatterProviderRegistry  *self,
                                                                     const char              *provider_id,
                                                                     const char              *display_name,
                                                                     const char              *base_url);
gboolean                natter_provider_registry_remove_provider    (NatterProviderRegistry  *self,
                                                                     const char              *provider_id);
GStrv                   natter_provider_registry_list_providers     (NatterProviderRegistry  *self);
void                    natter_provider_registry_keep_default_provider (NatterProviderRegistry *self);
gboolean                natter_provider_registry_is_offered         (NatterProviderRegistry  *self,
                                                                     const char              *provider_id);
gboolean                natter_provider_registry_offers_model       (NatterProviderRegistry  *self,
                                                                     JsonObject              *descriptor);

void                    natter_provider_registry_set_idle_timeout   (NatterProviderRegistry  *self,
                                                                     guint                    seconds);
guint                   natter_provider_registry_get_idle_timeout   (NatterProviderRegistry  *self);

NatterOpenaiProvider   *natter_provider_registry_get_provider       (NatterProviderRegistry  *self,
                                                                     const char              *provider,
                                                                     GError                 **error);

void                    natter_provider_registry_resolve_model_async  (NatterProviderRegistry  *self,
                                                                       const char              *provider,
                                                                       const char              *model,
                                                                       GCancellable            *cancellable,
                                                                       GAsyncReadyCallback      callback,
                                                                       gpointer                 user_data);
JsonObject             *natter_provider_registry_resolve_model_finish (NatterProviderRegistry  *self,
                                                                       GAsyncResult            *result,
                                                                       GError                 **error);

gboolean                natter_provider_id_is_endpoint                (const char              *provider_id);

NatterModelLibrary     *natter_provider_registry_new_library          (NatterProviderRegistry  *self,
                                                                       const char              *provider,
                                                                       GError                 **error);

G_END_DECLS
