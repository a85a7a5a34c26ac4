/* natter-settings.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The application's one view of the `io.github.natter.Natter` settings:
 * every key is a property bound to GSettings with g_settings_bind(), so
 * a change from anywhere (Preferences, dconf, a test) arrives as a
 * property notification, and the code that reads a setting never names
 * a key. It also owns the codec of the `providers` key, an a(sss) of
 * (id, name, base URL), with the one set of rules every reader and
 * writer applies: natter_provider_config_validate().
 *
 * Without the schema installed (an uninstalled command-line run) the
 * properties keep the schema's defaults, built in here, and changes
 * live only in memory.
 */

#define G_LOG_DOMAIN "natter-settings"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "natter-attachment-content.h"
#include "natter-mcp-client.h"
#include "natter-provider-registry.h"
#include "natter-settings.h"
#include "natter-turn-runtime.h"

G_DEFINE_QUARK (natter-settings-error-quark, natter_settings_error)

/* NatterProviderConfig */

G_DEFINE_BOXED_TYPE (NatterProviderConfig, natter_provider_config,
                     natter_provider_config_copy, natter_provider_config_free)

/**
 * natter_provider_config_new:
 * @id: the provider's id
 * @name: its display name
 * @base_url: its API root
 *
 * Returns: (transfer full): a new entry, not yet validated
 */
NatterProviderConfig *
natter_provider_config_new (const char *id,
                            const char *name,
                            const char *base_url)
{
  NatterProviderConfig *config = g_new0 (NatterProviderConfig, 1);

  g_return_val_if_fail (id != NULL && name != NULL && base_url != NULL, NULL);

  config->id = g_strdup (id);
  config->name = g_strdup (name);
  config->base_url = g_strdup (base_url);
  return config;
}

/**
 * natter_provider_config_copy:
 * @config: an entry
 *
 * Returns: (transfer full): a copy of @config
 */
NatterProviderConfig *
natter_provider_config_copy (const NatterProviderConfig *config)
{
  g_return_val_if_fail (config != NULL, NULL);

  return natter_provider_config_new (config->id, config->name, config->base_url);
}

/**
 * natter_provider_config_free:
 * @config: (nullable): an entry
 *
 * Frees @config.
 */
void
natter_provider_config_free (NatterProviderConfig *config)
{
  if (config == NULL)
    return;
  g_free (config->id);
  g_free (config->name);
  g_free (config->base_url);
  g_free (config);
}

/**
 * natter_provider_base_url_is_valid:
 * @base_url: a would-be API root
 *
 * Returns: whether @base_url is an absolute http or https URL with a
 *   host, the only kind a provider can be reached at
 */
gboolean
natter_provider_base_url_is_valid (const char *base_url)
{
  g_autoptr(GUri) uri = NULL;
  const char *host;

  g_return_val_if_fail (base_url != NULL, FALSE);

  uri = g_uri_parse (base_url, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL)
    return FALSE;
  host = g_uri_get_host (uri);
  return host != NULL && host[0] != '\0' &&
         (g_strcmp0 (g_uri_get_scheme (uri), "http") == 0 || g_strcmp0 (g_uri_get_scheme (uri), "https") == 0);
}

static gboolean
is_blank (const char *text)
{
  for (; *text != '\0'; text++)
    if (!g_ascii_isspace (*text))
      return FALSE;
  return TRUE;
}

/**
 * natter_provider_config_validate:
 * @config: an entry of the `providers` setting
 * @error: return location for a #GError
 *
 * The one rule for an entry, applied by everything that reads or writes
 * the setting: the id is not empty and is not an endpoint URL
 * (natter_provider_id_is_endpoint(): a descriptor naming it would reach
 * that URL instead), the name is not blank, and the base URL passes
 * natter_provider_base_url_is_valid().
 *
 * Returns: %TRUE when @config is usable; else %FALSE with
 *   %NATTER_SETTINGS_ERROR_INVALID_PROVIDER saying which rule it breaks
 */
gboolean
natter_provider_config_validate (const NatterProviderConfig  *config,
                                 GError                     **error)
{
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (config->id[0] == '\0')
    {
      g_set_error_literal (error, NATTER_SETTINGS_ERROR, NATTER_SETTINGS_ERROR_INVALID_PROVIDER,
                           _("A provider needs an id"));
      return FALSE;
    }
  if (natter_provider_id_is_endpoint (config->id))
    {
      /* Translators: %s is what was given as a provider id, a URL */
      g_set_error (error, NATTER_SETTINGS_ERROR, NATTER_SETTINGS_ERROR_INVALID_PROVIDER,
                   _("A provider’s id cannot be a URL: %s"), config->id);
      return FALSE;
    }
  if (is_blank (config->name))
    {
      g_set_error_literal (error, NATTER_SETTINGS_ERROR, NATTER_SETTINGS_ERROR_INVALID_PROVIDER,
                           _("A provider needs a name"));
      return FALSE;
    }
  if (!natter_provider_base_url_is_valid (config->base_url))
    {
      g_set_error_literal (error, NATTER_SETTINGS_ERROR, NATTER_SETTINGS_ERROR_INVALID_PROVIDER,
                           _("The base URL must start with http:// or https://"));
      return FALSE;
    }
  return TRUE;
}

static GPtrArray *
new_provider_array (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) natter_provider_config_free);
}

/* Every entry as stored, without judging it. */
static GPtrArray *
read_entries (GVariant *value)
{
  GPtrArray *providers = new_provider_array ();
  GVariantIter iter;
  const char *id, *name, *url;

  g_variant_iter_init (&iter, value);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &id, &name, &url))
    g_ptr_array_add (providers, natter_provider_config_new (id, name, url));
  return providers;
}

/* Validates every entry and that no two share an id. */
static gboolean
check_entries (GPtrArray  *providers,
               GError    **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < providers->len; i++)
    {
      NatterProviderConfig *config = g_ptr_array_index (providers, i);

      if (!natter_provider_config_validate (config, error))
        return FALSE;
      if (!g_hash_table_add (seen, config->id))
        {
          /* Translators: %s is a provider id */
          g_set_error (error, NATTER_SETTINGS_ERROR, NATTER_SETTINGS_ERROR_DUPLICATE_PROVIDER,
                       _("Two providers have the id “%s”"), config->id);
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * natter_settings_decode_providers:
 * @value: a value of the `providers` key
 * @error: return location for a #GError
 *
 * Decodes @value strictly: every entry must pass
 * natter_provider_config_validate() and ids must be unique.
 *
 * Returns: (transfer container) (element-type NatterProviderConfig): the
 *   entries in order; or %NULL with %NATTER_SETTINGS_ERROR_INVALID_TYPE,
 *   %NATTER_SETTINGS_ERROR_INVALID_PROVIDER or
 *   %NATTER_SETTINGS_ERROR_DUPLICATE_PROVIDER
 */
GPtrArray *
natter_settings_decode_providers (GVariant  *value,
                                  GError   **error)
{
  g_autoptr(GPtrArray) providers = NULL;

  g_return_val_if_fail (value != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_variant_is_of_type (value, G_VARIANT_TYPE ("a(sss)")))
    {
      g_set_error (error, NATTER_SETTINGS_ERROR, NATTER_SETTINGS_ERROR_INVALID_TYPE,
                   "The providers are of type %s, not a(sss)", g_variant_get_type_string (value));
      return NULL;
    }
  providers = read_entries (value);
  if (!check_entries (providers, error))
    return NULL;
  return g_steal_pointer (&providers);
}

/**
 * natter_settings_encode_providers:
 * @providers: (element-type NatterProviderConfig): the entries
 * @error: return location for a #GError
 *
 * The inverse of natter_settings_decode_providers(), with the same rules.
 *
 * Returns: (transfer floating): the a(sss) value; or %NULL with
 *   %NATTER_SETTINGS_ERROR_INVALID_PROVIDER or
 *   %NATTER_SETTINGS_ERROR_DUPLICATE_PROVIDER
 */
GVariant *
natter_settings_encode_providers (GPtrArray  *providers,
                                  GError    **error)
{
  GVariantBuilder builder;

  g_return_val_if_fail (providers != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_entries (providers, error))
    return NULL;
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  for (guint i = 0; i < providers->len; i++)
    {
      NatterProviderConfig *config = g_ptr_array_index (providers, i);

      g_variant_builder_add (&builder, "(sss)", config->id, config->name, config->base_url);
    }
  return g_variant_builder_end (&builder);
}

/* NatterSettings */

struct _NatterSettings
{
  GObject    parent_instance;

  GSettings *settings;       /* nullable: the built-in defaults */

  GVariant  *providers;
  char      *default_provider;
  char      *default_model;
  guint      max_model_calls;
  guint      attachment_size_limit;   /* MB */
  guint      mcp_timeout;             /* s */
  gboolean   auto_permission;
  gboolean   auto_title;
  gboolean   auto_compact;
  char      *last_session;
  int        window_width;
  int        window_height;
  gboolean   window_maximized;
};

G_DEFINE_FINAL_TYPE (NatterSettings, natter_settings, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_SETTINGS,
  PROP_PROVIDERS,
  PROP_DEFAULT_PROVIDER,
  PROP_DEFAULT_MODEL,
  PROP_MAX_MODEL_CALLS,
  PROP_ATTACHMENT_SIZE_LIMIT,
  PROP_MCP_TIMEOUT,
  PROP_AUTO_PERMISSION,
  PROP_AUTO_TITLE,
  PROP_AUTO_COMPACT,
  PROP_LAST_SESSION,
  PROP_WINDOW_WIDTH,
  PROP_WINDOW_HEIGHT,
  PROP_WINDOW_MAXIMIZED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Which key each bound property follows. */
static const struct
{
  guint       prop;
  const char *key;
} bound_keys[] = {
  { PROP_DEFAULT_PROVIDER, "default-provider" },
  { PROP_DEFAULT_MODEL, "default-model" },
  { PROP_MAX_MODEL_CALLS, "max-model-calls" },
  { PROP_ATTACHMENT_SIZE_LIMIT, "attachment-size-limit" },
  { PROP_MCP_TIMEOUT, "mcp-timeout" },
  { PROP_AUTO_PERMISSION, "auto-permission" },
  { PROP_AUTO_TITLE, "auto-title" },
  { PROP_AUTO_COMPACT, "auto-compact" },
  { PROP_LAST_SESSION, "last-session" },
  { PROP_WINDOW_WIDTH, "window-width" },
  { PROP_WINDOW_HEIGHT, "window-height" },
  { PROP_WINDOW_MAXIMIZED, "window-maximized" },
};

static GVariant *
default_providers (void)
{
  return g_variant_new_parsed ("[(%s, 'Ollama', %s)]", NATTER_DEFAULT_PROVIDER_ID, NATTER_DEFAULT_PROVIDER_URL);
}

static void
set_string (NatterSettings  *self,
            char           **field,
            const char      *value,
            guint            prop)
{
  if (value == NULL)
    value = "";
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
set_providers_value (NatterSettings *self,
                     GVariant       *value)
{
  g_autoptr(GVariant) sunk = g_variant_ref_sink (value);

  if (self->providers != NULL && g_variant_equal (self->providers, sunk))
    return;
  g_clear_pointer (&self->providers, g_variant_unref);
  self->providers = g_steal_pointer (&sunk);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROVIDERS]);
}

#define SET_SCALAR(field, value, prop)                                        \
  G_STMT_START {                                                              \
    if (self->field != (value))                                               \
      {                                                                       \
        self->field = (value);                                                \
        g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);         \
      }                                                                       \
  } G_STMT_END

static void
natter_settings_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NatterSettings *self = NATTER_SETTINGS (object);

  switch (prop_id)
    {
    case PROP_SETTINGS: g_value_set_object (value, self->settings); break;
    case PROP_PROVIDERS: g_value_set_variant (value, self->providers); break;
    case PROP_DEFAULT_PROVIDER: g_value_set_string (value, self->default_provider); break;
    case PROP_DEFAULT_MODEL: g_value_set_string (value, self->default_model); break;
    case PROP_MAX_MODEL_CALLS: g_value_set_uint (value, self->max_model_calls); break;
    case PROP_ATTACHMENT_SIZE_LIMIT: g_value_set_uint (value, self->attachment_size_limit); break;
    case PROP_MCP_TIMEOUT: g_value_set_uint (value, self->mcp_timeout); break;
    case PROP_AUTO_PERMISSION: g_value_set_boolean (value, self->auto_permission); break;
    case PROP_AUTO_TITLE: g_value_set_boolean (value, self->auto_title); break;
    case PROP_AUTO_COMPACT: g_value_set_boolean (value, self->auto_compact); break;
    case PROP_LAST_SESSION: g_value_set_string (value, self->last_session); break;
    case PROP_WINDOW_WIDTH: g_value_set_int (value, self->window_width); break;
    case PROP_WINDOW_HEIGHT: g_value_set_int (value, self->window_height); break;
    case PROP_WINDOW_MAXIMIZED: g_value_set_boolean (value, self->window_maximized); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_settings_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  NatterSettings *self = NATTER_SETTINGS (object);

  switch (prop_id)
    {
    case PROP_SETTINGS: self->settings = g_value_dup_object (value); break;
    case PROP_PROVIDERS: set_providers_value (self, g_value_get_variant (value)); break;
    case PROP_DEFAULT_PROVIDER:
      set_string (self, &self->default_provider, g_value_get_string (value), prop_id);
      break;
    case PROP_DEFAULT_MODEL: set_string (self, &self->default_model, g_value_get_string (value), prop_id); break;
    case PROP_MAX_MODEL_CALLS: SET_SCALAR (max_model_calls, g_value_get_uint (value), prop_id); break;
    case PROP_ATTACHMENT_SIZE_LIMIT:
      SET_SCALAR (attachment_size_limit, g_value_get_uint (value), prop_id);
      break;
    case PROP_MCP_TIMEOUT: SET_SCALAR (mcp_timeout, g_value_get_uint (value), prop_id); break;
    case PROP_AUTO_PERMISSION: SET_SCALAR (auto_permission, g_value_get_boolean (value), prop_id); break;
    case PROP_AUTO_TITLE: SET_SCALAR (auto_title, g_value_get_boolean (value), prop_id); break;
    case PROP_AUTO_COMPACT: SET_SCALAR (auto_compact, g_value_get_boolean (value), prop_id); break;
    case PROP_LAST_SESSION: set_string (self, &self->last_session, g_value_get_string (value), prop_id); break;
    case PROP_WINDOW_WIDTH: SET_SCALAR (window_width, g_value_get_int (value), prop_id); break;
    case PROP_WINDOW_HEIGHT: SET_SCALAR (window_height, g_value_get_int (value), prop_id); break;
    case PROP_WINDOW_MAXIMIZED: SET_SCALAR (window_maximized, g_value_get_boolean (value), prop_id); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gboolean
variant_get_mapping (GValue   *value,
                     GVariant *variant,
                     gpointer  user_data)
{
  g_value_set_variant (value, variant);
  return TRUE;
}

static GVariant *
variant_set_mapping (const GValue       *value,
                     const GVariantType *expected_type,
                     gpointer            user_data)
{
  return g_value_dup_variant (value);
}

static void
natter_settings_constructed (GObject *object)
{
  NatterSettings *self = NATTER_SETTINGS (object);

  G_OBJECT_CLASS (natter_settings_parent_class)->constructed (object);

  if (self->settings == NULL)
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (bound_keys); i++)
    g_settings_bind (self->settings, bound_keys[i].key, self,
                     g_param_spec_get_name (properties[bound_keys[i].prop]), G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (self->settings, "providers", self, "providers", G_SETTINGS_BIND_DEFAULT,
                                variant_get_mapping, variant_set_mapping, NULL, NULL);
}

static void
natter_settings_dispose (GObject *object)
{
  NatterSettings *self = NATTER_SETTINGS (object);

  /* The bindings hold the GSettings; drop them before it. */
  if (self->settings != NULL)
    {
      for (gsize i = 0; i < G_N_ELEMENTS (bound_keys); i++)
        g_settings_unbind (self, g_param_spec_get_name (properties[bound_keys[i].prop]));
      g_settings_unbind (self, "providers");
    }
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (natter_settings_parent_class)->dispose (object);
}

static void
natter_settings_finalize (GObject *object)
{
  NatterSettings *self = NATTER_SETTINGS (object);

  g_clear_pointer (&self->providers, g_variant_unref);
  g_free (self->default_provider);
  g_free (self->default_model);
  g_free (self->last_session);

  G_OBJECT_CLASS (natter_settings_parent_class)->finalize (object);
}

static void
natter_settings_class_init (NatterSettingsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->get_property = natter_settings_get_property;
  object_class->set_property = natter_settings_set_property;
  object_class->constructed = natter_settings_constructed;
  object_class->dispose = natter_settings_dispose;
  object_class->finalize = natter_settings_finalize;

  /**
   * NatterSettings:settings: (nullable)
   *
   * The `io.github.natter.Natter` settings every property is bound to;
   * %NULL keeps the schema's defaults in memory.
   */
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterSettings:providers:
   *
   * The `providers` key, a(sss) of (id, name, base URL), as stored;
   * decode it with natter_settings_dup_providers() or
   * natter_settings_dup_usable_providers().
   */
  properties[PROP_PROVIDERS] =
    g_param_spec_variant ("providers", NULL, NULL, G_VARIANT_TYPE ("a(sss)"), NULL, flags);
  /** NatterSettings:default-provider: the `default-provider` key */
  properties[PROP_DEFAULT_PROVIDER] =
    g_param_spec_string ("default-provider", NULL, NULL, "", flags);
  /** NatterSettings:default-model: the `default-model` key; "" for the provider's first */
  properties[PROP_DEFAULT_MODEL] = g_param_spec_string ("default-model", NULL, NULL, "", flags);
  /** NatterSettings:max-model-calls: the `max-model-calls` key, model calls per turn */
  properties[PROP_MAX_MODEL_CALLS] =
    g_param_spec_uint ("max-model-calls", NULL, NULL, 1, 1000, NATTER_DEFAULT_MAX_MODEL_CALLS, flags);
  /** NatterSettings:attachment-size-limit: the `attachment-size-limit` key, in MB (10⁶ bytes) */
  properties[PROP_ATTACHMENT_SIZE_LIMIT] =
    g_param_spec_uint ("attachment-size-limit", NULL, NULL, 1, 1000, NATTER_DEFAULT_ATTACHMENT_SIZE_LIMIT, flags);
  /** NatterSettings:mcp-timeout: the `mcp-timeout` key, how long a tool server call waits, in seconds */
  properties[PROP_MCP_TIMEOUT] =
    g_param_spec_uint ("mcp-timeout", NULL, NULL, 1, 3600, NATTER_MCP_DEFAULT_TIMEOUT_SECONDS, flags);
  /** NatterSettings:auto-permission: the `auto-permission` key */
  properties[PROP_AUTO_PERMISSION] = g_param_spec_boolean ("auto-permission", NULL, NULL, FALSE, flags);
  /** NatterSettings:auto-title: the `auto-title` key */
  properties[PROP_AUTO_TITLE] = g_param_spec_boolean ("auto-title", NULL, NULL, TRUE, flags);
  /** NatterSettings:auto-compact: the `auto-compact` key */
  properties[PROP_AUTO_COMPACT] = g_param_spec_boolean ("auto-compact", NULL, NULL, TRUE, flags);
  /** NatterSettings:last-session: the `last-session` key, a session id or "" */
  properties[PROP_LAST_SESSION] = g_param_spec_string ("last-session", NULL, NULL, "", flags);
  /** NatterSettings:window-width: the `window-width` key, in pixels */
  properties[PROP_WINDOW_WIDTH] = g_param_spec_int ("window-width", NULL, NULL, G_MININT, G_MAXINT, 1000, flags);
  /** NatterSettings:window-height: the `window-height` key, in pixels */
  properties[PROP_WINDOW_HEIGHT] = g_param_spec_int ("window-height", NULL, NULL, G_MININT, G_MAXINT, 700, flags);
  /** NatterSettings:window-maximized: the `window-maximized` key */
  properties[PROP_WINDOW_MAXIMIZED] = g_param_spec_boolean ("window-maximized", NULL, NULL, FALSE, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
natter_settings_init (NatterSettings *self)
{
  self->providers = g_variant_ref_sink (default_providers ());
  self->default_provider = g_strdup ("");
  self->default_model = g_strdup ("");
  self->max_model_calls = NATTER_DEFAULT_MAX_MODEL_CALLS;
  self->auto_title = TRUE;
  self->auto_compact = TRUE;
  self->attachment_size_limit = NATTER_DEFAULT_ATTACHMENT_SIZE_LIMIT;
  self->mcp_timeout = NATTER_MCP_DEFAULT_TIMEOUT_SECONDS;
  self->last_session = g_strdup ("");
  self->window_width = 1000;
  self->window_height = 700;
}

/**
 * natter_settings_new:
 * @settings: (nullable): the `io.github.natter.Natter` settings (tests
 *   pass a memory-backed one); %NULL keeps the schema's defaults in
 *   memory
 *
 * Binds a property to each key of @settings: changing either changes
 * the other at once.
 *
 * Returns: (transfer full): the settings object
 */
NatterSettings *
natter_settings_new (GSettings *settings)
{
  g_return_val_if_fail (settings == NULL || G_IS_SETTINGS (settings), NULL);

  return g_object_new (NATTER_TYPE_SETTINGS, "settings", settings, NULL);
}

/**
 * natter_settings_new_default:
 *
 * natter_settings_new() over the installed `io.github.natter.Natter`
 * schema, or over none (the built-in defaults) when it is not installed.
 *
 * Returns: (transfer full): the settings object
 */
NatterSettings *
natter_settings_new_default (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettings) settings = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema != NULL)
    settings = g_settings_new_full (schema, NULL, NULL);
  else
    g_debug ("The schema %s is not installed; using the built-in defaults", APP_ID);
  return natter_settings_new (settings);
}

/**
 * natter_settings_get_gsettings:
 * @self: the settings
 *
 * Returns: (transfer none) (nullable): the bound #GSettings; %NULL when
 *   nothing is stored (the schema is not installed)
 */
GSettings *
natter_settings_get_gsettings (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), NULL);
  return self->settings;
}

/**
 * natter_settings_get_providers:
 * @self: the settings
 *
 * Returns: (transfer none): the `providers` value as stored
 */
GVariant *
natter_settings_get_providers (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), NULL);
  return self->providers;
}

/**
 * natter_settings_dup_providers:
 * @self: the settings
 *
 * Every entry as stored, valid or not, so that Preferences can show (and
 * let the user fix) one that natter_provider_config_validate() refuses.
 *
 * Returns: (transfer container) (element-type NatterProviderConfig): the
 *   entries in order
 */
GPtrArray *
natter_settings_dup_providers (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), NULL);
  return read_entries (self->providers);
}

/**
 * natter_settings_dup_usable_providers:
 * @self: the settings
 *
 * The entries a registry may use: those that pass
 * natter_provider_config_validate() and whose id no earlier entry took.
 * Each one left out is logged (at debug level, with the rule it breaks),
 * since a hand-edited setting should not stop the application.
 *
 * Returns: (transfer container) (element-type NatterProviderConfig): the
 *   usable entries in order
 */
GPtrArray *
natter_settings_dup_usable_providers (NatterSettings *self)
{
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *usable = new_provider_array ();

  g_return_val_if_fail (NATTER_IS_SETTINGS (self), NULL);

  all = read_entries (self->providers);
  for (guint i = 0; i < all->len; i++)
    {
      NatterProviderConfig *config = g_ptr_array_index (all, i);
      g_autoptr(GError) error = NULL;

      if (!natter_provider_config_validate (config, &error))
        {
          g_debug ("Ignoring the provider entry (%s, %s): %s", config->id, config->base_url, error->message);
          continue;
        }
      if (!g_hash_table_add (seen, config->id))
        {
          g_debug ("Ignoring a second provider entry with the id %s", config->id);
          continue;
        }
      g_ptr_array_add (usable, natter_provider_config_copy (config));
    }
  return usable;
}

/**
 * natter_settings_set_providers:
 * @self: the settings
 * @providers: (element-type NatterProviderConfig): the new list
 * @error: return location for a #GError
 *
 * Stores @providers after natter_settings_encode_providers()'s checks.
 *
 * Returns: %TRUE when stored; else %FALSE, nothing changed, with a
 *   #NATTER_SETTINGS_ERROR
 */
gboolean
natter_settings_set_providers (NatterSettings  *self,
                               GPtrArray       *providers,
                               GError         **error)
{
  GVariant *value;

  g_return_val_if_fail (NATTER_IS_SETTINGS (self), FALSE);
  g_return_val_if_fail (providers != NULL, FALSE);

  value = natter_settings_encode_providers (providers, error);
  if (value == NULL)
    return FALSE;
  g_object_set (self, "providers", value, NULL);
  return TRUE;
}

/**
 * natter_settings_get_default_provider:
 * @self: the settings
 *
 * Returns: (transfer none): the `default-provider` key as stored, maybe
 *   "" (the first provider of the list:
 *   natter_settings_dup_effective_provider() says which one is used)
 */
const char *
natter_settings_get_default_provider (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), NULL);
  return self->default_provider;
}

/**
 * natter_settings_dup_effective_provider:
 * @self: the settings
 *
 * The provider a message that names none goes to, the one rule the
 * window and the command line share: the `default-provider` key when it
 * is set; else the first usable entry of `providers`
 * (natter_settings_dup_usable_providers()); else, with none, the built-in
 * %NATTER_DEFAULT_PROVIDER_ID. A person who replaced the list without
 * choosing a default thus talks to a server of theirs, never to an
 * Ollama they did not ask for. It changes with both keys: follow
 * #NatterSettings:default-provider and #NatterSettings:providers.
 *
 * Returns: (transfer full): a provider id, never empty
 */
char *
natter_settings_dup_effective_provider (NatterSettings *self)
{
  g_autoptr(GPtrArray) usable = NULL;

  g_return_val_if_fail (NATTER_IS_SETTINGS (self), NULL);

  if (self->default_provider != NULL && self->default_provider[0] != '\0')
    return g_strdup (self->default_provider);
  usable = natter_settings_dup_usable_providers (self);
  if (usable->len > 0)
    return g_strdup (((NatterProviderConfig *) g_ptr_array_index (usable, 0))->id);
  return g_strdup (NATTER_DEFAULT_PROVIDER_ID);
}

/**
 * natter_settings_set_default_provider:
 * @self: the settings
 * @provider_id: the provider messages naming none use
 *
 * Sets the `default-provider` key.
 */
void
natter_settings_set_default_provider (NatterSettings *self,
                                      const char     *provider_id)
{
  g_return_if_fail (NATTER_IS_SETTINGS (self));
  g_object_set (self, "default-provider", provider_id, NULL);
}

/**
 * natter_settings_get_default_model:
 * @self: the settings
 *
 * Returns: (transfer none): the `default-model` key; "" for the
 *   provider's first model
 */
const char *
natter_settings_get_default_model (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), NULL);
  return self->default_model;
}

/**
 * natter_settings_set_default_model:
 * @self: the settings
 * @model: the model, "" for the provider's first
 *
 * Sets the `default-model` key.
 */
void
natter_settings_set_default_model (NatterSettings *self,
                                   const char     *model)
{
  g_return_if_fail (NATTER_IS_SETTINGS (self));
  g_object_set (self, "default-model", model, NULL);
}

/**
 * natter_settings_get_max_model_calls:
 * @self: the settings
 *
 * Returns: the `max-model-calls` key, model calls per turn
 */
guint
natter_settings_get_max_model_calls (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), NATTER_DEFAULT_MAX_MODEL_CALLS);
  return self->max_model_calls;
}

/**
 * natter_settings_get_attachment_size_limit:
 * @self: the settings
 *
 * Returns: the `attachment-size-limit` key: the most one message's
 *   attachments may weigh together, in bytes
 */
guint64
natter_settings_get_attachment_size_limit (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), 0);
  return (guint64) self->attachment_size_limit * 1000 * 1000;
}

/**
 * natter_settings_get_auto_permission:
 * @self: the settings
 *
 * Returns: the `auto-permission` key
 */
gboolean
natter_settings_get_auto_permission (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), FALSE);
  return self->auto_permission;
}

/**
 * natter_settings_get_auto_compact:
 * @self: the settings
 *
 * Whether a conversation is compacted before a message is sent once the
 * last model call's prompt passed 80% of the model's context window
 * (docs/sessions.md §5).
 *
 * Returns: the `auto-compact` key
 */
gboolean
natter_settings_get_auto_compact (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), TRUE);

  return self->auto_compact;
}

/* Writes the dictionary key @key (a{s…}) with its entry @name set to
 * @value (floating, taken), or without it when @value is %NULL, every
 * other entry kept as it is. */
static void
set_dict_entry (NatterSettings *self,
                const char     *key,
                const char     *name,
                GVariant       *value)
{
  g_autoptr(GVariant) dict = g_settings_get_value (self->settings, key);
  GVariantBuilder builder;
  GVariantIter iter;
  GVariant *entry;

  g_variant_builder_init (&builder, g_variant_get_type (dict));
  g_variant_iter_init (&iter, dict);
  while ((entry = g_variant_iter_next_value (&iter)) != NULL)
    {
      const char *entry_name;

      g_variant_get_child (entry, 0, "&s", &entry_name);
      if (!g_str_equal (entry_name, name))
        g_variant_builder_add_value (&builder, entry);
      g_variant_unref (entry);
    }
  if (value != NULL)
    g_variant_builder_add_value (&builder, g_variant_new_dict_entry (g_variant_new_string (name), value));
  g_settings_set_value (self->settings, key, g_variant_builder_end (&builder));
}

/**
 * natter_settings_get_context_window:
 * @self: the settings
 * @provider: a provider id
 * @model: a model name
 *
 * The context window the user set for @model of @provider: the entry
 * "@provider/@model" of the `context-windows` key. It wins over what the
 * server reports.
 *
 * Returns: the window in tokens, or 0 when the user set none (or the
 *   settings are the built-in defaults)
 */
guint
natter_settings_get_context_window (NatterSettings *self,
                                    const char     *provider,
                                    const char     *model)
{
  g_autoptr(GVariant) windows = NULL;
  g_autofree char *key = NULL;
  gint32 window = 0;

  g_return_val_if_fail (NATTER_IS_SETTINGS (self), 0);
  g_return_val_if_fail (provider != NULL && model != NULL, 0);

  if (self->settings == NULL)
    return 0;
  windows = g_settings_get_value (self->settings, "context-windows");
  key = g_strconcat (provider, "/", model, NULL);
  if (!g_variant_lookup (windows, key, "i", &window) || window <= 0)
    return 0;
  return (guint) window;
}

/**
 * natter_settings_set_context_window:
 * @self: the settings
 * @provider: a provider id
 * @model: a model name (not empty)
 * @tokens: the window in tokens, at most %G_MAXINT32; 0 forgets the
 *   user's window, so that the server's counts again
 *
 * Sets the entry "@provider/@model" of the `context-windows` key
 * (docs/sessions.md §5: it wins over what the server reports),
 * keeping every other entry. Does nothing on the built-in defaults
 * (settings without a #GSettings).
 */
void
natter_settings_set_context_window (NatterSettings *self,
                                    const char     *provider,
                                    const char     *model,
                                    guint           tokens)
{
  g_autofree char *name = NULL;

  g_return_if_fail (NATTER_IS_SETTINGS (self));
  g_return_if_fail (provider != NULL && model != NULL && *model != '\0');
  g_return_if_fail (tokens <= G_MAXINT32);

  if (self->settings == NULL)
    return;
  name = g_strconcat (provider, "/", model, NULL);
  set_dict_entry (self, "context-windows", name, tokens > 0 ? g_variant_new_int32 ((gint32) tokens) : NULL);
}

/**
 * natter_settings_dup_transcription_model:
 * @self: the settings
 * @provider: a provider id
 *
 * The model @provider transcribes dictation with, through its
 * `/audio/transcriptions` (docs/runtime.md §14): the entry @provider of
 * the `transcription-models` key.
 *
 * Returns: (transfer full) (nullable): the model, or %NULL when the user
 *   set none (or the settings are the built-in defaults)
 */
char *
natter_settings_dup_transcription_model (NatterSettings *self,
                                         const char     *provider)
{
  g_autoptr(GVariant) models = NULL;
  const char *model = NULL;

  g_return_val_if_fail (NATTER_IS_SETTINGS (self), NULL);
  g_return_val_if_fail (provider != NULL, NULL);

  if (self->settings == NULL)
    return NULL;
  models = g_settings_get_value (self->settings, "transcription-models");
  if (!g_variant_lookup (models, provider, "&s", &model) || model[0] == '\0')
    return NULL;
  return g_strdup (model);
}

/**
 * natter_settings_set_transcription_model:
 * @self: the settings
 * @provider: a provider id
 * @model: (nullable): the model; %NULL or empty forgets it
 *
 * Sets the entry @provider of the `transcription-models` key, keeping
 * every other entry. Does nothing on the built-in defaults (settings
 * without a #GSettings).
 */
void
natter_settings_set_transcription_model (NatterSettings *self,
                                         const char     *provider,
                                         const char     *model)
{
  g_autofree char *stripped = NULL;

  g_return_if_fail (NATTER_IS_SETTINGS (self));
  g_return_if_fail (provider != NULL);

  if (self->settings == NULL)
    return;
  stripped = g_strstrip (g_strdup (model != NULL ? model : ""));
  set_dict_entry (self, "transcription-models", provider, stripped[0] != '\0' ? g_variant_new_string (stripped) : NULL);
}

/**
 * natter_settings_dup_recent_model:
 * @self: the settings
 * @provider: (out) (transfer full) (optional) (nullable): the provider id
 * @model: (out) (transfer full) (optional) (nullable): the model; %NULL
 *   for the provider's first
 * @at: (out) (transfer full) (optional) (nullable): when it was picked or
 *   sent with, as natter_format_ts() writes it; %NULL when not known
 *
 * The model the window remembers as last picked or sent with, across
 * restarts: the `recent-model` key (docs/sessions.md §1, "Who answers").
 * The outputs are left %NULL when none is remembered (or the settings
 * are the built-in defaults, which remember nothing).
 *
 * Returns: whether a model is remembered
 */
gboolean
natter_settings_dup_recent_model (NatterSettings  *self,
                                  char           **provider,
                                  char           **model,
                                  char           **at)
{
  g_autoptr(GVariant) value = NULL;
  const char *stored_provider = "";
  const char *stored_model = "";
  const char *stored_at = "";

  g_return_val_if_fail (NATTER_IS_SETTINGS (self), FALSE);

  if (provider != NULL)
    *provider = NULL;
  if (model != NULL)
    *model = NULL;
  if (at != NULL)
    *at = NULL;
  if (self->settings == NULL)
    return FALSE;
  value = g_settings_get_value (self->settings, "recent-model");
  g_variant_get (value, "(&s&s&s)", &stored_provider, &stored_model, &stored_at);
  if (stored_provider[0] == '\0')
    return FALSE;
  if (provider != NULL)
    *provider = g_strdup (stored_provider);
  if (model != NULL && stored_model[0] != '\0')
    *model = g_strdup (stored_model);
  if (at != NULL && stored_at[0] != '\0')
    *at = g_strdup (stored_at);
  return TRUE;
}

/**
 * natter_settings_set_recent_model:
 * @self: the settings
 * @provider: (nullable): the provider id; %NULL or empty forgets the
 *   model remembered
 * @model: (nullable): the model; %NULL or empty for the provider's first
 * @at: (nullable): when it was picked or sent with, as
 *   natter_format_ts() writes it
 *
 * Sets the `recent-model` key. Does nothing on the built-in defaults
 * (settings without a #GSettings).
 */
void
natter_settings_set_recent_model (NatterSettings *self,
                                  const char     *provider,
                                  const char     *model,
                                  const char     *at)
{
  g_return_if_fail (NATTER_IS_SETTINGS (self));

  if (self->settings == NULL)
    return;
  if (provider == NULL || provider[0] == '\0')
    {
      g_settings_reset (self->settings, "recent-model");
      return;
    }
  g_settings_set_value (self->settings, "recent-model",
                        g_variant_new ("(sss)", provider, model != NULL ? model : "", at != NULL ? at : ""));
}

/**
 * natter_settings_adopt_first_provider:
 * @self: the settings
 * @provider_id: a provider the person just added to `providers`
 * @model_used: whether any conversation has a model of its own (the
 *   index's natter_session_index_get_recent_model())
 *
 * The first-run rule of README, "Pointing Natter at a server": the
 * first provider a person adds of their own becomes the default, so a
 * message never goes to the built-in Ollama they did not choose (and
 * that may not run) while the server they set up waits. Only while
 * nothing was chosen: no default provider or model is set, no model is
 * remembered as picked (natter_settings_dup_recent_model()), no
 * conversation has a model, and every other entry of `providers` is the
 * built-in one. Otherwise what the person chose or used goes on, and
 * nothing changes.
 *
 * Returns: whether `default-provider` is now @provider_id
 */
gboolean
natter_settings_adopt_first_provider (NatterSettings *self,
                                      const char     *provider_id,
                                      gboolean        model_used)
{
  g_autoptr(GPtrArray) providers = NULL;
  gboolean listed = FALSE;

  g_return_val_if_fail (NATTER_IS_SETTINGS (self), FALSE);
  g_return_val_if_fail (provider_id != NULL, FALSE);

  if (model_used || g_str_equal (provider_id, NATTER_DEFAULT_PROVIDER_ID) || self->default_provider[0] != '\0' ||
      self->default_model[0] != '\0' || natter_settings_dup_recent_model (self, NULL, NULL, NULL))
    return FALSE;
  providers = natter_settings_dup_providers (self);
  for (guint i = 0; i < providers->len; i++)
    {
      NatterProviderConfig *config = g_ptr_array_index (providers, i);

      if (g_str_equal (config->id, provider_id))
        listed = TRUE;
      else if (!g_str_equal (config->id, NATTER_DEFAULT_PROVIDER_ID))
        return FALSE;
    }
  if (!listed)
    return FALSE;
  natter_settings_set_default_provider (self, provider_id);
  return TRUE;
}

/**
 * natter_settings_get_auto_title:
 * @self: the settings
 *
 * Whether a conversation is named by its model after its first answer
 * (docs/sessions.md §13).
 *
 * Returns: the `auto-title` key
 */
gboolean
natter_settings_get_auto_title (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), TRUE);

  return self->auto_title;
}

/**
 * natter_settings_get_last_session:
 * @self: the settings
 *
 * Returns: (transfer none): the `last-session` key, maybe ""
 */
const char *
natter_settings_get_last_session (NatterSettings *self)
{
  g_return_val_if_fail (NATTER_IS_SETTINGS (self), NULL);
  return self->last_session;
}

/**
 * natter_settings_set_last_session:
 * @self: the settings
 * @session_id: the conversation shown
 *
 * Sets the `last-session` key.
 */
void
natter_settings_set_last_session (NatterSettings *self,
                                  const char     *session_id)
{
  g_return_if_fail (NATTER_IS_SETTINGS (self));
  g_object_set (self, "last-session", session_id, NULL);
}

/**
 * natter_settings_get_window_size:
 * @self: the settings
 * @width: (out) (optional): the `window-width` key, in pixels
 * @height: (out) (optional): the `window-height` key, in pixels
 * @maximized: (out) (optional): the `window-maximized` key
 *
 * The main window's state to restore.
 */
void
natter_settings_get_window_size (NatterSettings *self,
                                 int            *width,
                                 int            *height,
                                 gboolean       *maximized)
{
  g_return_if_fail (NATTER_IS_SETTINGS (self));

  if (width != NULL)
    *width = self->window_width;
  if (height != NULL)
    *height = self->window_height;
  if (maximized != NULL)
    *maximized = self->window_maximized;
}

/**
 * natter_settings_set_window_size:
 * @self: the settings
 * @width: the unmaximized width, in pixels
 * @height: the unmaximized height, in pixels
 * @maximized: whether the window is maximized
 *
 * Stores the main window's state.
 */
void
natter_settings_set_window_size (NatterSettings *self,
                                 int             width,
                                 int             height,
                                 gboolean        maximized)
{
  g_return_if_fail (NATTER_IS_SETTINGS (self));
  g_object_set (self, "window-width", width, "window-height", height, "window-maximized", maximized, NULL);
}
