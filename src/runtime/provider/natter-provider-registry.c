/* natter-provider-registry.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-provider-registry"

#include <string.h>

#include "natter-json.h"
#include "natter-provider-registry.h"
#include "natter-runtime-error.h"

typedef struct
{
  char    *display_name;
  char    *base_url;
  /* Known without being one of the person's providers: the default,
   * kept so that the out-of-the-box model keeps working. */
  gboolean implicit;
} Configured;

/* A live provider, reused while its address and key stay the same so
 * its SoupSession keeps connections alive between calls. */
typedef struct
{
  NatterOpenaiProvider *provider;
  char                 *base_url;
  /* A digest, not the key: enough to notice a change without a second
   * copy of the secret. */
  char                 *key_digest;
} Cached;

struct _NatterProviderRegistry
{
  GObject              parent_instance;

  NatterKeyLookupFunc  key_lookup;
  gpointer             key_lookup_data;
  GDestroyNotify       key_lookup_destroy;
  GHashTable          *configured;   /* id → Configured */
  GHashTable          *cache;        /* descriptor provider → Cached */
  guint                idle_timeout;
};

static void natter_provider_registry_iface_init (NatterModelRegistryInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterProviderRegistry, natter_provider_registry, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_MODEL_REGISTRY,
                                                      natter_provider_registry_iface_init))

static void
configured_free (gpointer data)
{
  Configured *configured = data;

  g_free (configured->display_name);
  g_free (configured->base_url);
  g_free (configured);
}

static void
cached_free (gpointer data)
{
  Cached *cached = data;

  g_clear_object (&cached->provider);
  g_free (cached->base_url);
  g_free (cached->key_digest);
  g_free (cached);
}

static void
natter_provider_registry_finalize (GObject *object)
{
  NatterProviderRegistry *self = NATTER_PROVIDER_REGISTRY (object);

  if (self->key_lookup_destroy != NULL)
    self->key_lookup_destroy (self->key_lookup_data);
  g_clear_pointer (&self->configured, g_hash_table_unref);
  g_clear_pointer (&self->cache, g_hash_table_unref);

  G_OBJECT_CLASS (natter_provider_registry_parent_class)->finalize (object);
}

enum {
  MODELS_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
natter_provider_registry_class_init (NatterProviderRegistryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_provider_registry_finalize;

  /**
   * NatterProviderRegistry::models-changed:
   * @self: the registry
   * @provider: the provider id (or endpoint URL) whose server's models
   *   changed
   *
   * A library of natter_provider_registry_new_library() pulled or
   * deleted a model: every list of that provider's models (the model
   * picker's, Preferences') is out of date.
   */
  signals[MODELS_CHANGED] =
    g_signal_new ("models-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
natter_provider_registry_init (NatterProviderRegistry *self)
{
  self->configured = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, configured_free);
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cached_free);
  self->idle_timeout = NATTER_DEFAULT_IDLE_TIMEOUT;
}

/**
 * natter_env_key_lookup:
 * @provider: the provider id or endpoint URL (unused)
 * @user_data: unused
 *
 * A #NatterKeyLookupFunc reading %NATTER_API_KEY_ENV, the fallback when
 * no secret store holds a key (architecture.md): the same key for every
 * provider.
 *
 * Returns: (transfer full) (nullable): the key, or %NULL when unset
 */
char *
natter_env_key_lookup (const char *provider,
                       gpointer    user_data)
{
  return g_strdup (g_getenv (NATTER_API_KEY_ENV));
}

/**
 * natter_provider_registry_new:
 * @key_lookup: (nullable) (scope notified): finds a provider's key at each
 *   resolve; %NULL sends no key to anyone
 * @key_lookup_data: data for @key_lookup
 * @key_lookup_destroy: (nullable): frees @key_lookup_data with the registry
 *
 * Creates the model registry of docs/runtime.md §12, knowing
 * %NATTER_DEFAULT_PROVIDER_ID ("Ollama" at %NATTER_DEFAULT_PROVIDER_URL)
 * from the start. A model descriptor `{provider, model}` resolves to a
 * #NatterOpenaiModel: `provider` is a configured provider's id, or the
 * http(s) URL of an ad-hoc endpoint, so the descriptor stored in a turn is
 * enough to reach the same endpoint at every later advance. The key is
 * looked up afresh each time and only ever reaches an Authorization
 * header.
 *
 * Returns: (transfer full): a new registry
 */
NatterProviderRegistry *
natter_provider_registry_new (NatterKeyLookupFunc key_lookup,
                              gpointer            key_lookup_data,
                              GDestroyNotify      key_lookup_destroy)
{
  NatterProviderRegistry *self = g_object_new (NATTER_TYPE_PROVIDER_REGISTRY, NULL);

  self->key_lookup = key_lookup;
  self->key_lookup_data = key_lookup_data;
  self->key_lookup_destroy = key_lookup_destroy;
  natter_provider_registry_keep_default_provider (self);
  return self;
}

/**
 * natter_provider_registry_keep_default_provider:
 * @self: a registry
 *
 * Knows %NATTER_DEFAULT_PROVIDER_ID at %NATTER_DEFAULT_PROVIDER_URL
 * unless it is configured already: it resolves, and is listed, but is
 * not offered (natter_provider_registry_is_offered()) until a call of
 * natter_provider_registry_add_provider() configures it. What lets the
 * out-of-the-box default go on working when the person's list of
 * providers does not name it, without showing it among theirs.
 */
void
natter_provider_registry_keep_default_provider (NatterProviderRegistry *self)
{
  Configured *configured;

  g_return_if_fail (NATTER_IS_PROVIDER_REGISTRY (self));

  if (g_hash_table_contains (self->configured, NATTER_DEFAULT_PROVIDER_ID))
    return;
  natter_provider_registry_add_provider (self, NATTER_DEFAULT_PROVIDER_ID, "Ollama", NATTER_DEFAULT_PROVIDER_URL);
  configured = g_hash_table_lookup (self->configured, NATTER_DEFAULT_PROVIDER_ID);
  configured->implicit = TRUE;
}

/**
 * natter_provider_registry_is_offered:
 * @self: a registry
 * @provider_id: a provider id
 *
 * Whether @provider_id is one of the person's providers, to be offered
 * where providers are chosen: configured, and not only kept as the
 * default (natter_provider_registry_keep_default_provider()).
 *
 * Returns: %TRUE if configured by natter_provider_registry_add_provider()
 */
gboolean
natter_provider_registry_is_offered (NatterProviderRegistry *self,
                                     const char             *provider_id)
{
  Configured *configured;

  g_return_val_if_fail (NATTER_IS_PROVIDER_REGISTRY (self), FALSE);
  g_return_val_if_fail (provider_id != NULL, FALSE);

  configured = g_hash_table_lookup (self->configured, provider_id);
  return configured != NULL && !configured->implicit;
}

/**
 * natter_provider_registry_add_provider:
 * @self: a registry
 * @provider_id: the id model descriptors use, e.g. "openrouter"; not an
 *   http(s) URL
 * @display_name: (nullable): the name messages use, e.g. "OpenRouter";
 *   %NULL uses @provider_id
 * @base_url: the API root, e.g. "https://openrouter.ai/api/v1"
 *
 * Configures a provider, or replaces the one with this id; calls already
 * running keep the old endpoint, the next resolve uses the new one.
 */
void
natter_provider_registry_add_provider (NatterProviderRegistry *self,
                                       const char             *provider_id,
                                       const char             *display_name,
                                       const char             *base_url)
{
  Configured *configured;

  g_return_if_fail (NATTER_IS_PROVIDER_REGISTRY (self));
  g_return_if_fail (provider_id != NULL && provider_id[0] != '\0');
  g_return_if_fail (base_url != NULL);

  configured = g_new0 (Configured, 1);
  configured->display_name = g_strdup (display_name != NULL && display_name[0] != '\0'
                                       ? display_name : provider_id);
  configured->base_url = g_strdup (base_url);
  g_hash_table_replace (self->configured, g_strdup (provider_id), configured);
  g_hash_table_remove (self->cache, provider_id);
}

/**
 * natter_provider_registry_remove_provider:
 * @self: a registry
 * @provider_id: a configured provider's id
 *
 * Forgets a configured provider. Turns that name it can still be
 * cancelled (docs/runtime.md §6 step 3), but no longer advanced.
 *
 * Returns: %TRUE if it was configured
 */
gboolean
natter_provider_registry_remove_provider (NatterProviderRegistry *self,
                                          const char             *provider_id)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_REGISTRY (self), FALSE);
  g_return_val_if_fail (provider_id != NULL, FALSE);

  g_hash_table_remove (self->cache, provider_id);
  return g_hash_table_remove (self->configured, provider_id);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/**
 * natter_provider_registry_list_providers:
 * @self: a registry
 *
 * Returns: (transfer full): the configured provider ids, sorted
 */
GStrv
natter_provider_registry_list_providers (NatterProviderRegistry *self)
{
  g_autofree const char **keys = NULL;
  guint n;
  GStrv ids;

  g_return_val_if_fail (NATTER_IS_PROVIDER_REGISTRY (self), NULL);

  keys = (const char **) g_hash_table_get_keys_as_array (self->configured, &n);
  qsort (keys, n, sizeof (char *), compare_strings);
  ids = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    ids[i] = g_strdup (keys[i]);
  return ids;
}

/**
 * natter_provider_registry_set_idle_timeout:
 * @self: a registry
 * @seconds: seconds without a byte from a server after which a call
 *   fails with %NATTER_PROVIDER_ERROR_TIMEOUT; 0 waits for ever
 *
 * Sets the idle timeout of the providers resolved from now on (default
 * %NATTER_DEFAULT_IDLE_TIMEOUT).
 */
void
natter_provider_registry_set_idle_timeout (NatterProviderRegistry *self,
                                           guint                   seconds)
{
  g_return_if_fail (NATTER_IS_PROVIDER_REGISTRY (self));

  if (self->idle_timeout == seconds)
    return;
  self->idle_timeout = seconds;
  /* The timeout is fixed at a provider's construction. */
  g_hash_table_remove_all (self->cache);
}

/**
 * natter_provider_registry_get_idle_timeout:
 * @self: a registry
 *
 * Returns: the idle timeout in seconds; 0 for none
 */
guint
natter_provider_registry_get_idle_timeout (NatterProviderRegistry *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_REGISTRY (self), 0);

  return self->idle_timeout;
}

/**
 * natter_provider_id_is_endpoint:
 * @provider_id: the `provider` of a model descriptor, or a would-be
 *   provider id
 *
 * Whether @provider_id names a server directly (an ad-hoc endpoint of
 * docs/runtime.md §12) rather than a configured provider: it starts with
 * `http://` or `https://`. The one rule for every layer: the registry
 * resolves such ids as endpoints, so no configured provider may carry
 * one, and the window shows them as "not one of your providers".
 * Whether the URL is usable (has a host) is the registry's resolve's
 * business, which fails with a clear error when it is not.
 *
 * Returns: %TRUE for an endpoint URL
 */
gboolean
natter_provider_id_is_endpoint (const char *provider_id)
{
  g_return_val_if_fail (provider_id != NULL, FALSE);

  return g_str_has_prefix (provider_id, "http://") || g_str_has_prefix (provider_id, "https://");
}

/* An ad-hoc endpoint: an absolute http(s) URL with a host. */
static GUri *
parse_endpoint (const char *provider)
{
  g_autoptr(GUri) uri = NULL;

  if (!natter_provider_id_is_endpoint (provider))
    return NULL;
  uri = g_uri_parse (provider, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0')
    return NULL;
  return g_steal_pointer (&uri);
}

static void
set_unknown_provider (GError     **error,
                      const char  *provider)
{
  g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND,
               "No provider “%s” is configured — add it in the preferences, "
               "or give the endpoint’s http(s) URL instead", provider);
}

static char *
strip_slashes (const char *url)
{
  char *copy = g_strdup (url);
  gsize len = strlen (copy);

  while (len > 0 && copy[len - 1] == '/')
    copy[--len] = '\0';
  return copy;
}

/**
 * natter_provider_registry_offers_model:
 * @self: the registry
 * @descriptor: (nullable): a recorded `{provider, model}`, e.g. the
 *   model of an imported turn
 *
 * Whether the person using this registry has @descriptor: its provider
 * is one of their configured providers, named by its id, and it names a
 * model. The one test of whether a model someone else recorded (an
 * imported conversation, docs/format.md §7.3) may be used here: an
 * endpoint URL never passes, so no recorded address ever receives the
 * person's messages or keys. Whether the server still serves the model
 * is not asked (that needs the network); a model it no longer has fails
 * the turn with the server's own words.
 *
 * Returns: %TRUE if messages may go to @descriptor
 */
gboolean
natter_provider_registry_offers_model (NatterProviderRegistry *self,
                                       JsonObject             *descriptor)
{
  const char *provider;
  const char *model;

  g_return_val_if_fail (NATTER_IS_PROVIDER_REGISTRY (self), FALSE);

  if (descriptor == NULL)
    return FALSE;
  provider = natter_json_loose_string (descriptor, "provider");
  model = natter_json_loose_string (descriptor, "model");
  return provider != NULL && model != NULL && model[0] != '\0' &&
         !natter_provider_id_is_endpoint (provider) && g_hash_table_contains (self->configured, provider);
}

static void
scrub (char *key)
{
  if (key == NULL)
    return;
  /* The key should not linger in freed memory. */
  memset (key, 0, strlen (key));
  g_free (key);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Cached, cached_free)

/**
 * natter_provider_registry_get_provider:
 * @self: a registry
 * @provider: a configured provider's id, or an http(s) endpoint URL
 * @error: return location for a #GError
 *
 * The live provider for the `provider` of a model descriptor
 * (docs/runtime.md §12), with the key the lookup gives now. An endpoint
 * URL makes an ad-hoc provider named after its host (or after the
 * configured provider with the same base URL). Providers are reused while
 * their address, key and idle timeout stay the same.
 *
 * Returns: (transfer full) (nullable): the provider, or %NULL with
 *   %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND when @provider is neither
 *   configured nor an http(s) URL
 */
NatterOpenaiProvider *
natter_provider_registry_get_provider (NatterProviderRegistry  *self,
                                       const char              *provider,
                                       GError                 **error)
{
  Configured *configured;
  g_autoptr(GUri) endpoint = NULL;
  g_autofree char *display_name = NULL;
  const char *base_url;
  char *key = NULL;
  g_autofree char *digest = NULL;
  Cached *cached;
  g_autoptr(Cached) fresh = NULL;

  g_return_val_if_fail (NATTER_IS_PROVIDER_REGISTRY (self), NULL);
  g_return_val_if_fail (provider != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  configured = g_hash_table_lookup (self->configured, provider);
  if (configured != NULL)
    {
      display_name = g_strdup (configured->display_name);
      base_url = configured->base_url;
    }
  else if ((endpoint = parse_endpoint (provider)) != NULL)
    {
      GHashTableIter iter;
      gpointer value;
      g_autofree char *wanted = strip_slashes (provider);

      /* The same server as a configured one keeps its friendly name. */
      g_hash_table_iter_init (&iter, self->configured);
      while (display_name == NULL && g_hash_table_iter_next (&iter, NULL, &value))
        {
          Configured *known = value;
          g_autofree char *known_url = strip_slashes (known->base_url);

          if (g_ascii_strcasecmp (known_url, wanted) == 0)
            display_name = g_strdup (known->display_name);
        }
      if (display_name == NULL)
        display_name = g_strdup (g_uri_get_host (endpoint));
      base_url = provider;
    }
  else
    {
      set_unknown_provider (error, provider);
      return NULL;
    }

  key = self->key_lookup != NULL ? self->key_lookup (provider, self->key_lookup_data) : NULL;
  digest = key != NULL && key[0] != '\0'
           ? g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1)
           : g_strdup ("");

  cached = g_hash_table_lookup (self->cache, provider);
  if (cached != NULL
      && g_str_equal (cached->base_url, base_url)
      && g_str_equal (cached->key_digest, digest)
      && g_str_equal (natter_openai_provider_get_display_name (cached->provider), display_name))
    {
      scrub (key);
      return g_object_ref (cached->provider);
    }

  g_debug ("New provider %s at %s (%s key)", provider, base_url,
           digest[0] != '\0' ? "with a" : "no");
  fresh = g_new0 (Cached, 1);
  fresh->provider = natter_openai_provider_new (provider, display_name, base_url, key,
                                                self->idle_timeout, 0);
  fresh->base_url = g_strdup (base_url);
  fresh->key_digest = g_steal_pointer (&digest);
  scrub (key);

  cached = g_steal_pointer (&fresh);
  g_hash_table_replace (self->cache, g_strdup (provider), cached);
  return g_object_ref (cached->provider);
}

/* Completing a model descriptor */

static void
first_model_listed_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterOpenaiProvider *provider = NATTER_OPENAI_PROVIDER (object);
  g_auto(GStrv) models = NULL;
  JsonObject *descriptor;
  GError *error = NULL;

  models = natter_openai_provider_list_models_finish (provider, result, &error);
  if (models == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (models[0] == NULL)
    {
      g_task_return_new_error (task, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND,
                               "%s offers no model; name one explicitly",
                               natter_openai_provider_get_display_name (provider));
      return;
    }
  descriptor = json_object_new ();
  json_object_set_string_member (descriptor, "provider", g_task_get_task_data (task));
  json_object_set_string_member (descriptor, "model", models[0]);
  g_task_return_pointer (task, descriptor, (GDestroyNotify) json_object_unref);
}

/**
 * natter_provider_registry_resolve_model_async:
 * @self: the registry
 * @provider: a configured provider's id or an http(s) endpoint URL
 * @model: (nullable): a model name; %NULL or empty for the provider's
 *   first model
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the thread-default main context
 * @user_data: data for @callback
 *
 * Completes a model descriptor `{provider, model}` for a new turn
 * (docs/runtime.md §1, §12). An empty model means "the provider's first
 * model" (the `default-model` setting's out-of-the-box value): the
 * provider is asked for its list (`GET {baseUrl}/models`) and the first
 * entry is taken. This is the one place that rule lives; the command
 * line and the window both go through it, so they cannot disagree on
 * which model a message goes to.
 */
void
natter_provider_registry_resolve_model_async (NatterProviderRegistry *self,
                                              const char             *provider,
                                              const char             *model,
                                              GCancellable           *cancellable,
                                              GAsyncReadyCallback     callback,
                                              gpointer                user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(NatterOpenaiProvider) live = NULL;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_PROVIDER_REGISTRY (self));
  g_return_if_fail (provider != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_provider_registry_resolve_model_async);

  live = natter_provider_registry_get_provider (self, provider, &error);
  if (live == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (model != NULL && model[0] != '\0')
    {
      JsonObject *descriptor = json_object_new ();

      json_object_set_string_member (descriptor, "provider", provider);
      json_object_set_string_member (descriptor, "model", model);
      g_task_return_pointer (task, descriptor, (GDestroyNotify) json_object_unref);
      return;
    }
  g_task_set_task_data (task, g_strdup (provider), g_free);
  natter_openai_provider_list_models_async (live, cancellable, first_model_listed_cb, g_steal_pointer (&task));
}

/**
 * natter_provider_registry_resolve_model_finish:
 * @self: the registry
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the descriptor `{provider, model}`;
 *   or %NULL with %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND (an unknown
 *   provider, or one without models) or the provider's
 *   %NATTER_PROVIDER_ERROR (unreachable, HTTP error, …)
 */
JsonObject *
natter_provider_registry_resolve_model_finish (NatterProviderRegistry  *self,
                                               GAsyncResult            *result,
                                               GError                 **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_provider_registry_resolve_model_async,
                        NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The provider and the model a descriptor `{provider, model}` names,
 * both non-empty, or %FALSE with %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND:
 * what resolving a model and checking one both require first. */
static gboolean
descriptor_names (JsonObject  *descriptor,
                  const char **out_provider,
                  const char **out_model,
                  GError     **error)
{
  *out_provider = natter_json_loose_string (descriptor, "provider");
  *out_model = natter_json_loose_string (descriptor, "model");
  if (*out_provider == NULL || (*out_provider)[0] == '\0' || *out_model == NULL || (*out_model)[0] == '\0')
    {
      g_set_error_literal (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND,
                           "The model descriptor does not name a provider and a model");
      return FALSE;
    }
  return TRUE;
}

static NatterModel *
natter_provider_registry_resolve (NatterModelRegistry  *registry,
                                  JsonObject           *descriptor,
                                  GError              **error)
{
  NatterProviderRegistry *self = NATTER_PROVIDER_REGISTRY (registry);
  const char *provider;
  const char *model;
  g_autoptr(NatterOpenaiProvider) live = NULL;

  if (!descriptor_names (descriptor, &provider, &model, error))
    return NULL;

  live = natter_provider_registry_get_provider (self, provider, error);
  if (live == NULL)
    return NULL;
  return NATTER_MODEL (natter_openai_model_new (live, model));
}

/* A descriptor is served when it names a model of a configured provider
 * or of an endpoint URL: what natter_provider_registry_get_provider()
 * accepts, told without looking up a key. */
static gboolean
natter_provider_registry_check (NatterModelRegistry  *registry,
                                JsonObject           *descriptor,
                                GError              **error)
{
  NatterProviderRegistry *self = NATTER_PROVIDER_REGISTRY (registry);
  const char *provider;
  const char *model;
  g_autoptr(GUri) endpoint = NULL;

  if (!descriptor_names (descriptor, &provider, &model, error))
    return FALSE;
  if (g_hash_table_contains (self->configured, provider) || (endpoint = parse_endpoint (provider)) != NULL)
    return TRUE;
  set_unknown_provider (error, provider);
  return FALSE;
}

static void
natter_provider_registry_iface_init (NatterModelRegistryInterface *iface)
{
  iface->resolve = natter_provider_registry_resolve;
  iface->check = natter_provider_registry_check;
}

/* Model libraries */

static void
library_changed_cb (NatterModelLibrary     *library,
                    NatterProviderRegistry *self)
{
  NatterOpenaiProvider *provider = natter_model_library_get_provider (library);

  g_signal_emit (self, signals[MODELS_CHANGED], 0, natter_openai_provider_get_id (provider));
}

/**
 * natter_provider_registry_new_library:
 * @self: a registry
 * @provider: a configured provider's id, or an http(s) endpoint URL
 * @error: return location for a #GError
 *
 * The models on @provider's server (docs/runtime.md §13), reached with
 * the key the lookup gives now. A model it pulls
 * or deletes makes the registry emit
 * #NatterProviderRegistry::models-changed, so every list of them, in
 * whichever window or command, can follow.
 *
 * Returns: (transfer full) (nullable): a new library, or %NULL with
 *   %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND as for
 *   natter_provider_registry_get_provider()
 */
NatterModelLibrary *
natter_provider_registry_new_library (NatterProviderRegistry  *self,
                                      const char              *provider,
                                      GError                 **error)
{
  g_autoptr(NatterOpenaiProvider) live = NULL;
  NatterModelLibrary *library;

  g_return_val_if_fail (NATTER_IS_PROVIDER_REGISTRY (self), NULL);
  g_return_val_if_fail (provider != NULL, NULL);

  live = natter_provider_registry_get_provider (self, provider, error);
  if (live == NULL)
    return NULL;
  library = natter_model_library_new (live);
  g_signal_connect_object (library, "changed", G_CALLBACK (library_changed_cb), self, 0);
  return library;
}
