/* natter-services.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The composition root of the application below the UI: one object that
 * builds every service of architecture.md from a data directory and the
 * settings, in dependency order — repos, ids, clock, event hub, tools,
 * permission checker, model registry (providers from the settings, keys
 * from the Secret Service or NATTER_API_KEY), agent resolver, context
 * resolver, turn runtime, index, session service, headless runner — so
 * the window and the command line run against the very same objects.
 * Nothing here touches GTK.
 */

#define G_LOG_DOMAIN "natter-services"

#include "config.h"

#include "natter-builtin-tools.h"
#include "natter-mcp-config.h"
#include "natter-mcp-manager.h"
#include "natter-config-agent-resolver.h"
#include "natter-data-dir-lock.h"
#include "natter-folder-log.h"
#include "natter-default-permission-checker.h"
#include "natter-model-permission-classifier.h"
#include "natter-services.h"
#include "natter-turn-context-resolver.h"

struct _NatterServices
{
  GObject                     parent_instance;

  GFile                      *data_dir;
  GFile                      *storage_dir;
  NatterSettings             *settings;

  NatterClock                *clock;
  NatterIdGenerator          *ids;
  NatterJsonlRepo            *turn_repo;
  NatterJsonlRepo            *session_repo;
  NatterJsonlRepo            *folder_repo;
  NatterFolders              *folders;
  NatterBlobStore            *blobs;
  NatterDraftStore           *drafts;
  NatterStreamKeep           *keep;
  NatterTurnEventHub         *hub;
  NatterToolRegistry         *tools;
  NatterProviderRegistry     *providers;
  NatterBuiltinAgentResolver *agents;
  NatterAgentStore           *agent_store;
  NatterConfigAgentResolver  *config_agents;
  NatterMcpManager           *mcp;
  NatterSecretStore          *secrets;
  NatterTurnRuntime          *runtime;
  NatterSessionIndex         *index;
  NatterSessions             *sessions;
  NatterHeadlessRunner       *headless;
  NatterSendPipeline         *pipeline;
  NatterSearchIndex          *search;
  NatterStoreWatch           *watch;      /* nullable: until natter_services_watch_store() */

  NatterDataDirLock          *lock;
  guint                       lock_retry;  /* natter_services_watch_writer_lock() */

  gboolean                    loading;
  gboolean                    folders_loaded;
  GPtrArray                  *load_waiters;   /* GTask */
  GError                     *load_error;
};

G_DEFINE_FINAL_TYPE (NatterServices, natter_services, G_TYPE_OBJECT)

static void
natter_services_dispose (GObject *object)
{
  NatterServices *self = NATTER_SERVICES (object);

  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  if (self->mcp != NULL)
    g_signal_handlers_disconnect_by_data (self->mcp, self);
  g_clear_handle_id (&self->lock_retry, g_source_remove);

  G_OBJECT_CLASS (natter_services_parent_class)->dispose (object);
}

static void
natter_services_finalize (GObject *object)
{
  NatterServices *self = NATTER_SERVICES (object);

  /* Dependents first, so each object dies holding what it needs. */
  g_clear_object (&self->watch);
  g_clear_object (&self->search);
  g_clear_object (&self->headless);
  g_clear_object (&self->pipeline);
  g_clear_object (&self->sessions);
  g_clear_object (&self->index);
  g_clear_object (&self->runtime);
  g_clear_object (&self->config_agents);
  g_clear_object (&self->mcp);
  g_clear_object (&self->agent_store);
  g_clear_object (&self->agents);
  g_clear_object (&self->providers);
  g_clear_object (&self->tools);
  g_clear_object (&self->hub);
  g_clear_object (&self->session_repo);
  g_clear_object (&self->folders);
  g_clear_object (&self->folder_repo);
  g_clear_object (&self->turn_repo);
  g_clear_object (&self->blobs);
  g_clear_object (&self->drafts);
  g_clear_object (&self->keep);
  g_clear_object (&self->ids);
  g_clear_object (&self->clock);
  g_clear_object (&self->lock);
  g_clear_object (&self->secrets);
  g_clear_object (&self->settings);
  g_clear_object (&self->storage_dir);
  g_clear_object (&self->data_dir);
  g_clear_pointer (&self->load_waiters, g_ptr_array_unref);
  g_clear_error (&self->load_error);

  G_OBJECT_CLASS (natter_services_parent_class)->finalize (object);
}

enum
{
  SIGNAL_PROVIDER_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum
{
  PROP_0,
  PROP_HAS_WRITER_LOCK,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
natter_services_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NatterServices *self = NATTER_SERVICES (object);

  switch (prop_id)
    {
    case PROP_HAS_WRITER_LOCK:
      g_value_set_boolean (value, natter_services_has_writer_lock (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_services_class_init (NatterServicesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = natter_services_dispose;
  object_class->finalize = natter_services_finalize;
  object_class->get_property = natter_services_get_property;

  /**
   * NatterServices:has-writer-lock:
   *
   * Whether this process holds the data directory's writer lock
   * (natter_services_acquire_writer_lock()). Notifies once it is taken,
   * also on a later try (natter_services_watch_writer_lock()): whoever
   * started what only the writer does then starts it.
   */
  properties[PROP_HAS_WRITER_LOCK] =
    g_param_spec_boolean ("has-writer-lock", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterServices::provider-changed:
   * @self: the services
   * @provider_id: the provider's id
   *
   * What a request to the provider goes out with changed where the
   * `providers` setting does not say so (its key was stored or
   * forgotten), or a connection test with what Preferences shows
   * succeeded: what was said about reaching it may no longer hold.
   * Emitted by natter_services_provider_changed().
   */
  signals[SIGNAL_PROVIDER_CHANGED] = g_signal_new ("provider-changed", G_TYPE_FROM_CLASS (klass),
                                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                   G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
natter_services_init (NatterServices *self)
{
  self->load_waiters = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * natter_services_get_default_data_dir:
 *
 * The data directory of architecture.md, "Process and data":
 * `$NATTER_DATA_DIR` when set and not empty, else
 * `$XDG_DATA_HOME/natter`. Turn and session files live in its `storage`
 * folder.
 *
 * Returns: (transfer full): the directory (it may not exist yet)
 */
GFile *
natter_services_get_default_data_dir (void)
{
  const char *env = g_getenv (NATTER_DATA_DIR_ENV);

  if (env != NULL && env[0] != '\0')
    return g_file_new_for_commandline_arg (env);
  return g_file_new_build_filename (g_get_user_data_dir (), "natter", NULL);
}

/**
 * natter_services_secret_key_lookup:
 * @provider: a configured provider's id or an endpoint URL
 * @user_data: unused
 *
 * The application's #NatterKeyLookupFunc: the key stored in the Secret
 * Service under %NATTER_API_KEY_SCHEMA_NAME with `provider` = @provider,
 * else the %NATTER_API_KEY_ENV environment variable (architecture.md:
 * "API keys in the Secret Service through libsecret (env var
 * fallback)"). An unreachable Secret Service (no session bus, no keyring)
 * is not an error: the fallback applies. Called at every resolve, so a
 * changed key takes effect at the next advance; never cached here.
 *
 * Returns: (transfer full) (nullable): the key, or %NULL for none
 */
char *
natter_services_secret_key_lookup (const char *provider,
                                   gpointer    user_data)
{
  g_autoptr(GError) error = NULL;
  char *secret;

  g_return_val_if_fail (provider != NULL, NULL);

  secret = secret_password_lookup_sync (natter_libsecret_store_get_schema (), NULL, &error,
                                        "provider", provider, NULL);
  if (secret != NULL && secret[0] != '\0')
    {
      char *key = g_strdup (secret);

      secret_password_free (secret);
      return key;
    }
  if (secret != NULL)
    secret_password_free (secret);
  if (error != NULL)
    g_debug ("No Secret Service key for %s: %s", provider, error->message);
  return natter_env_key_lookup (provider, NULL);
}

/* The default key lookup: the injected secret store (the Secret Service
 * unless natter_services_set_secret_store() replaced it), then the
 * environment. @user_data is the services, which own the registry that
 * calls this, so no reference is held. */
static char *
services_key_lookup (const char *provider,
                     gpointer    user_data)
{
  NatterServices *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  key = natter_secret_store_lookup_sync (self->secrets, provider, NULL, &error);
  if (key != NULL && key[0] != '\0')
    return g_steal_pointer (&key);
  if (error != NULL)
    g_debug ("No stored key for %s: %s", provider, error->message);
  return natter_env_key_lookup (provider, NULL);
}

/* The tool servers' secret header values live in the same store as the
 * API keys (the Secret Service unless a test put another), read at each
 * connection. The lookup holds the services weakly: they own the
 * manager, and a client made for a check may outlive them. */
static char *
mcp_secret_lookup (const char  *key,
                   gpointer     user_data,
                   GError     **error)
{
  g_autoptr(NatterServices) self = g_weak_ref_get (user_data);

  /* Gone means Natter is shutting down: nothing is stored any more. */
  if (self == NULL)
    return NULL;
  return natter_secret_store_lookup_sync (self->secrets, key, NULL, error);
}

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

/* Settings */

static void
mcp_tools_changed_cb (NatterServices *self)
{
  natter_builtin_agent_resolver_set_extra_tools (self->agents, natter_mcp_manager_get_descriptors (self->mcp));
}

static void
load_providers (NatterServices *self)
{
  g_auto(GStrv) known = natter_provider_registry_list_providers (self->providers);
  g_autoptr(GPtrArray) providers = natter_settings_dup_usable_providers (self->settings);

  /* The list replaces whatever was configured; Ollama stays known even
   * when the list drops it, so the out-of-the-box default keeps working,
   * but is offered only when the list names it. */
  for (guint i = 0; known[i] != NULL; i++)
    natter_provider_registry_remove_provider (self->providers, known[i]);
  natter_provider_registry_keep_default_provider (self->providers);

  for (guint i = 0; i < providers->len; i++)
    {
      NatterProviderConfig *config = g_ptr_array_index (providers, i);

      natter_provider_registry_add_provider (self->providers, config->id, config->name, config->base_url);
    }
}

static void
load_default_model (NatterServices *self)
{
  g_autofree char *provider = natter_services_dup_default_provider (self);
  g_autofree char *model = natter_services_dup_default_model (self);

  natter_builtin_agent_resolver_set_default_model (self->agents, provider, model);
  if (self->sessions != NULL)
    natter_sessions_set_own_model (self->sessions, self->providers, provider, model);
  if (self->pipeline != NULL)
    natter_send_pipeline_set_provider_registry (self->pipeline, self->providers, provider, model);
}

/* Which device this is, for a data folder shared with others
 * (docs/format.md §4.5): turns record it, and another device's are not
 * advanced here. Only read here: nothing of the data folder is written
 * before the writer lock is held (docs/sessions.md §8.3), so a missing
 * identity is made when the lock is taken (take_device()). Without one,
 * every turn counts as this device's, as before. */
static void
read_device (NatterServices *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterDevice) device = natter_device_load_sync (self->data_dir, &error);

  if (device == NULL)
    g_debug ("No device identity yet: %s", error->message);
  natter_turn_runtime_set_device (self->runtime, device);
}

/**
 * natter_services_new:
 * @data_dir: (nullable): the data directory; %NULL for
 *   natter_services_get_default_data_dir()
 * @settings: (nullable): the settings; %NULL for
 *   natter_settings_new_default() (tests pass one over a memory-backed
 *   #GSettings)
 * @key_lookup: (nullable) (scope notified): the API key lookup; %NULL
 *   reads natter_services_get_secret_store() (the Secret Service), then
 *   %NATTER_API_KEY_ENV
 * @key_lookup_data: data for @key_lookup
 * @key_lookup_destroy: (nullable): frees @key_lookup_data
 *
 * Builds every service of the application below the UI over @data_dir's
 * `storage` folder: repos, id generator, system clock, turn event hub,
 * the built-in tools (docs/runtime.md §8) with the fail-closed default
 * permission checker and the model's permission classifier
 * (docs/runtime.md §7), the provider registry with the configured providers
 * (docs/runtime.md §12), the built-in agent with the default model and the
 * user's agents (natter_agent_store_get_default_dir()), the context resolver
 * (docs/runtime.md §11), the turn runtime (docs/runtime.md §5), the session
 * index and service (docs/sessions.md §8, §9) and the headless runner
 * (docs/sessions.md §11). The provider list, the default model and the tool
 * servers' call timeout follow @settings live.
 *
 * Nothing is read or written yet: take the single-writer lock with
 * natter_services_acquire_writer_lock() and load the index with
 * natter_services_load_async() before using the session service.
 *
 * Returns: (transfer full): the services
 */
NatterServices *
natter_services_new (GFile               *data_dir,
                     NatterSettings      *settings,
                     NatterKeyLookupFunc  key_lookup,
                     gpointer             key_lookup_data,
                     GDestroyNotify       key_lookup_destroy)
{
  NatterServices *self;
  g_autoptr(NatterDefaultPermissionChecker) checker = NULL;
  g_autoptr(NatterTurnContextResolver) contexts = NULL;
  g_autoptr(NatterModelPermissionClassifier) classifier = NULL;

  g_return_val_if_fail (data_dir == NULL || G_IS_FILE (data_dir), NULL);
  g_return_val_if_fail (settings == NULL || NATTER_IS_SETTINGS (settings), NULL);

  self = g_object_new (NATTER_TYPE_SERVICES, NULL);
  self->secrets = natter_libsecret_store_new ();
  self->data_dir = data_dir != NULL ? g_object_ref (data_dir) : natter_services_get_default_data_dir ();
  self->storage_dir = g_file_get_child (self->data_dir, "storage");
  self->settings = settings != NULL ? g_object_ref (settings) : natter_settings_new_default ();

  self->clock = g_object_ref (natter_clock_get_system ());
  self->ids = natter_id_generator_new (self->clock);
  self->turn_repo = natter_turn_repo_new (self->storage_dir);
  self->session_repo = natter_session_repo_new (self->storage_dir);
  self->folder_repo = natter_folder_repo_new (self->storage_dir);
  self->blobs = natter_blob_store_new (self->storage_dir);
  self->drafts = natter_draft_store_new (self->data_dir);
  self->keep = natter_stream_keep_new (self->data_dir);
  self->hub = natter_turn_event_hub_new ();

  self->tools = natter_tool_registry_new ();
  natter_builtin_tools_register (self->tools, self->clock);
  checker = natter_default_permission_checker_new (self->tools, NULL);

  if (key_lookup == NULL)
    self->providers = natter_provider_registry_new (services_key_lookup, self, NULL);
  else
    self->providers = natter_provider_registry_new (key_lookup, key_lookup_data, key_lookup_destroy);
  load_providers (self);

  self->agents = natter_builtin_agent_resolver_new (self->tools);
  load_default_model (self);
  {
    g_autoptr(GFile) agents_dir = natter_agent_store_get_default_dir ();

    self->agent_store = natter_agent_store_new (agents_dir);
  }
  self->config_agents = natter_config_agent_resolver_new (self->agents, self->agent_store, self->tools);
  {
    g_autofree char *mcp_path = natter_mcp_config_default_path ();

    /* The tool servers' tools join the Assistant's as each refresh
     * registers them; nothing starts until someone refreshes. */
    GWeakRef *weak = g_new0 (GWeakRef, 1);
    g_autoptr(NatterMcpSecrets) secrets = NULL;

    g_weak_ref_init (weak, self);
    secrets = natter_mcp_secrets_new (mcp_secret_lookup, weak, weak_ref_free);
    self->mcp = natter_mcp_manager_new (mcp_path, self->tools);
    natter_mcp_manager_set_secrets (self->mcp, secrets);
    g_signal_connect_swapped (self->mcp, "tools-changed", G_CALLBACK (mcp_tools_changed_cb), self);
    /* A call's timeout follows Preferences live; an mcp.json entry's
     * own `timeout` still wins. */
    g_object_bind_property (self->settings, "mcp-timeout", self->mcp, "default-timeout", G_BINDING_SYNC_CREATE);
  }

  contexts = natter_turn_context_resolver_new (self->turn_repo);
  /* autoPermission turns ask their own model first (docs/runtime.md §7); its
   * answer is an opinion, anything unusable counts as defer. */
  classifier = natter_model_permission_classifier_new ();
  self->runtime = natter_turn_runtime_new (self->turn_repo, self->ids, self->clock,
                                           NATTER_AGENT_RESOLVER (self->config_agents),
                                           NATTER_MODEL_REGISTRY (self->providers),
                                           self->tools,
                                           NATTER_CONTEXT_RESOLVER (contexts),
                                           NATTER_PERMISSION_CHECKER (checker),
                                           NATTER_PERMISSION_CLASSIFIER (classifier),
                                           self->hub, NULL,
                                           natter_services_get_max_model_calls (self));
  natter_turn_runtime_set_blob_store (self->runtime, self->blobs);
  natter_turn_runtime_set_stream_keep (self->runtime, self->keep);
  read_device (self);
  self->index = natter_session_index_new ();
  {
    /* Also a cache beside the logs (docs/format.md §1): the startup scan
     * reads only the sessions whose files changed since it was written. */
    g_autoptr(GFile) index_cache = g_file_resolve_relative_path (self->data_dir, "cache/session-index");

    natter_session_index_set_cache_file (self->index, index_cache);
  }
  self->sessions = natter_sessions_new (self->session_repo, self->turn_repo, self->runtime,
                                        self->hub, self->clock, self->ids, self->index);
  /* A conversation is named after its first answer whoever brings it
   * (docs/sessions.md §13): the session layer follows the setting
   * live, whatever front end sent the message. */
  g_object_bind_property (self->settings, "auto-title", self->sessions, "auto-title", G_BINDING_SYNC_CREATE);
  self->folders = natter_folders_new (self->folder_repo, self->clock, self->ids);
  self->headless = natter_headless_runner_new (self->runtime);
  self->pipeline = natter_send_pipeline_new (self->sessions, self->settings);
  natter_send_pipeline_set_blob_store (self->pipeline, self->blobs);
  natter_send_pipeline_set_agent_store (self->pipeline, self->agent_store);
  load_default_model (self);
  {
    /* A cache beside the logs, never inside storage/ (docs/format.md §1). */
    g_autoptr(GFile) search_file = g_file_resolve_relative_path (self->data_dir, "cache/search.sqlite");

    self->search = natter_search_index_new (search_file, self->session_repo, self->turn_repo, self->sessions);
  }

  /* Connected before anyone else can be: whoever follows the same
   * properties finds the registry already updated. */
  g_signal_connect_swapped (self->settings, "notify::providers", G_CALLBACK (load_providers), self);
  /* Without a default set, the default is the list's first provider. */
  g_signal_connect_swapped (self->settings, "notify::providers", G_CALLBACK (load_default_model), self);
  g_signal_connect_swapped (self->settings, "notify::default-provider", G_CALLBACK (load_default_model), self);
  g_signal_connect_swapped (self->settings, "notify::default-model", G_CALLBACK (load_default_model), self);
  return self;
}

/**
 * natter_services_get_mcp_manager:
 * @self: the services
 *
 * The tool servers of mcp.json (src/mcp/). The window refreshes it when
 * it starts, `natter send` and `ask` before they send; its tools are
 * offered by the built-in Assistant.
 *
 * Returns: (transfer none): the manager
 */
NatterMcpManager *
natter_services_get_mcp_manager (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->mcp;
}

/* Without the lock, nothing of the data directory is this process's to
 * write: the repositories and the blob store refuse every write with
 * %NATTER_SESSION_ERROR_LOCKED, whatever kept the lock from being taken
 * (another process holds it, or the lock file cannot be opened). @why
 * %NULL lifts the refusal: the lock was taken on a later try. */
static void
refuse_writes (NatterServices *self,
               const GError   *why)
{
  g_autoptr(GError) refusal = NULL;

  if (why == NULL)
    ;
  else if (g_error_matches (why, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED))
    refusal = g_error_copy (why);
  else
    refusal = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED,
                           "Natter cannot be sure it is the only one writing this data folder: %s", why->message);
  natter_jsonl_repo_refuse_writes (self->folder_repo, refusal);
  natter_blob_store_refuse_writes (self->blobs, refusal);
  natter_draft_store_refuse_writes (self->drafts, refusal);
  natter_stream_keep_refuse_writes (self->keep, refusal);
  /* Last, since it notifies: whoever follows it finds the folders, the
   * attachments and the drafts as writable as the conversations. */
  natter_sessions_refuse_writes (self->sessions, refusal);
}

/* With the lock held: this device's identity, made and written now
 * when the data folder has none yet (or one made on another machine),
 * which no process wrote before it held the lock. */
static void
take_device (NatterServices *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterDevice) device = NULL;
  NatterDevice *known = natter_turn_runtime_get_device (self->runtime);

  device = natter_device_load_or_create_sync (self->data_dir, &error);
  if (device == NULL)
    {
      g_debug ("No device identity: %s", error->message);
      return;
    }
  /* The identity read before stays when it is this one: whoever holds
   * it keeps the same object. */
  if (known != NULL && g_str_equal (natter_device_get_id (known), natter_device_get_id (device)))
    return;
  natter_turn_runtime_set_device (self->runtime, device);
}

/**
 * natter_services_acquire_writer_lock:
 * @self: the services
 * @error: return location for a #GError
 *
 * Takes the advisory single-writer lock of the storage directory
 * (architecture.md, "Process and data"; natter_data_dir_lock_acquire()),
 * held until @self is finalized. Idempotent. While it is held, no other
 * process writes the directory, so
 * natter_services_remove_leftover_temp_files_async() may remove what
 * interrupted writes left there. Once it is taken, this device's
 * identity is made and written when the data folder has none yet
 * (natter_device_load_or_create_sync()): before, it was only read.
 *
 * When the lock cannot be taken, @self becomes read only until a later
 * call takes it (docs/sessions.md §8.3; natter_services_watch_writer_lock()
 * makes those calls until one does): the session, turn and folder
 * repositories and the blob store refuse every write
 * (natter_jsonl_repo_refuse_writes(), natter_blob_store_refuse_writes()),
 * so that every write of the session and folder services, every advance
 * of a turn (resume, answer, cancel) and every attachment fails with
 * %NATTER_SESSION_ERROR_LOCKED and the lock's message
 * (natter_sessions_get_write_refusal()), while every read goes on.
 * Housekeeping stays off (natter_services_has_writer_lock()).
 *
 * Returns: %TRUE when this process may write the data directory; else
 *   %FALSE with %NATTER_SESSION_ERROR_LOCKED ("Another Natter process is
 *   using …") or a %G_IO_ERROR
 */
gboolean
natter_services_acquire_writer_lock (NatterServices  *self,
                                     GError         **error)
{
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (NATTER_IS_SERVICES (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->lock != NULL)
    return TRUE;
  self->lock = natter_data_dir_lock_acquire (self->storage_dir, &local_error);
  if (self->lock == NULL)
    {
      refuse_writes (self, local_error);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  /* Taken after all, on a later try: this process writes from now on. */
  take_device (self);
  refuse_writes (self, NULL);
  g_clear_handle_id (&self->lock_retry, g_source_remove);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_WRITER_LOCK]);

  /* Ids carry the 100 ns slot they were made in, so the next writer's
   * ids sort after this one's even within the same second: nothing to
   * wait for here. */
  return TRUE;
}

/* How often a process that reads only tries the writer lock again. */
#define LOCK_RETRY_SECONDS 2

static gboolean
retry_writer_lock_cb (gpointer user_data)
{
  NatterServices *self = user_data;

  /* Taken: natter_services_acquire_writer_lock() removed this source. */
  if (natter_services_acquire_writer_lock (self, NULL))
    return G_SOURCE_REMOVE;
  return G_SOURCE_CONTINUE;
}

/**
 * natter_services_watch_writer_lock:
 * @self: the services, which could not take the writer lock
 *
 * Tries the data directory's writer lock again every few seconds until
 * it is taken (docs/sessions.md §8.3): the lock is free the moment the
 * process that held it ends — it quits, crashes or is killed, flock()
 * locks going with the process — and nothing else tells a reader so
 * (the lock file does not change, and a file monitor sees no descriptor
 * close that wrote nothing). Once taken, this process is the writer, as
 * if it had just started: its refusals are lifted (#NatterSessions:read-only
 * notifies), this device's identity is made if there is none, and
 * #NatterServices:has-writer-lock notifies, for whoever starts the
 * writer's housekeeping. An answer the other process left unfinished is
 * then an interrupted one, as after a restart; nothing resumes it on its
 * own. Of two readers, the lock goes to one; the other goes on reading.
 * Does nothing while the lock is held, or already watched.
 */
void
natter_services_watch_writer_lock (NatterServices *self)
{
  g_return_if_fail (NATTER_IS_SERVICES (self));

  if (self->lock != NULL || self->lock_retry != 0)
    return;
  self->lock_retry = g_timeout_add_seconds (LOCK_RETRY_SECONDS, retry_writer_lock_cb, self);
}

/**
 * natter_services_has_writer_lock:
 * @self: the services
 *
 * Returns: whether natter_services_acquire_writer_lock() succeeded
 */
gboolean
natter_services_has_writer_lock (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), FALSE);

  return self->lock != NULL;
}

/* Loading the index */

/* Every waiter of natter_services_load_async() gets the verdict of this
 * load: the index and the folders, or the first error. */
static void
complete_load (NatterServices *self)
{
  g_autoptr(GPtrArray) waiters = NULL;

  self->loading = FALSE;
  waiters = g_steal_pointer (&self->load_waiters);
  self->load_waiters = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiters->len; i++)
    {
      GTask *task = g_ptr_array_index (waiters, i);

      if (self->load_error != NULL)
        g_task_return_error (task, g_error_copy (self->load_error));
      else
        g_task_return_boolean (task, TRUE);
    }
  /* A failed load may be retried by the next caller. */
  g_clear_error (&self->load_error);
}

static void
folders_loaded_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(NatterServices) self = user_data;
  GError *error = NULL;

  if (!natter_folders_load_finish (NATTER_FOLDERS (object), result, &error))
    self->load_error = error;
  else
    self->folders_loaded = TRUE;
  complete_load (self);
}

static void
index_loaded_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(NatterServices) self = user_data;
  GError *error = NULL;

  if (!natter_session_index_load_finish (NATTER_SESSION_INDEX (object), result, &error))
    self->load_error = error;
  /* The folders' names come with the list that shows them: an empty
   * folder is a folder too (docs/format.md §8). */
  if (self->load_error != NULL || self->folders_loaded)
    {
      complete_load (self);
      return;
    }
  natter_folders_load_async (self->folders, NULL, folders_loaded_cb, g_object_ref (self));
}

/**
 * natter_services_load_async:
 * @self: the services
 * @cancellable: (nullable): cancels this wait, not the scan
 * @callback: called on the main context once the index is loaded
 * @user_data: data for @callback
 *
 * Loads the session index by the startup scan of docs/sessions.md
 * §8.2, once: callers arriving during the scan wait for it, later callers
 * complete at once.
 */
void
natter_services_load_async (NatterServices      *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NATTER_IS_SERVICES (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_services_load_async);
  g_task_set_return_on_cancel (task, TRUE);

  if (natter_session_index_get_loaded (self->index) && self->folders_loaded)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_ptr_array_add (self->load_waiters, g_steal_pointer (&task));
  if (self->loading)
    return;
  self->loading = TRUE;
  if (natter_session_index_get_loaded (self->index))
    {
      natter_folders_load_async (self->folders, NULL, folders_loaded_cb, g_object_ref (self));
      return;
    }
  natter_session_index_load_async (self->index, self->session_repo, self->turn_repo, NULL,
                                   index_loaded_cb, g_object_ref (self));
}

/**
 * natter_services_load_finish:
 * @self: the services
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once the index is loaded; else %FALSE with the scan's
 *   error (an I/O error listing the storage; corrupt sessions are
 *   errored entries, not errors) or %G_IO_ERROR_CANCELLED
 */
gboolean
natter_services_load_finish (NatterServices  *self,
                             GAsyncResult    *result,
                             GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_services_load_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Resolving a model descriptor */

static void
model_resolved_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonObject *descriptor;

  descriptor = natter_provider_registry_resolve_model_finish (NATTER_PROVIDER_REGISTRY (object), result, &error);
  if (descriptor == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, descriptor, (GDestroyNotify) json_object_unref);
}

/**
 * natter_services_resolve_model_async:
 * @self: the services
 * @provider: (nullable): a configured provider's id or an http(s)
 *   endpoint URL; %NULL or empty for the `default-provider` setting
 * @model: (nullable): a model name; %NULL or empty for the
 *   `default-model` setting
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Completes a model descriptor `{provider, model}` for a new turn
 * (docs/runtime.md §1, §12). When no model name is given or configured,
 * the provider's first model is asked for (`GET {baseUrl}/models`), the
 * schema's "empty picks the provider's first model".
 */
void
natter_services_resolve_model_async (NatterServices      *self,
                                     const char          *provider,
                                     const char          *model,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *default_provider = NULL;
  g_autofree char *default_model = NULL;

  g_return_if_fail (NATTER_IS_SERVICES (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_services_resolve_model_async);

  if (provider == NULL || provider[0] == '\0')
    provider = default_provider = natter_services_dup_default_provider (self);
  if (model == NULL || model[0] == '\0')
    model = default_model = natter_services_dup_default_model (self);

  /* The provider's first model is the registry's rule, shared with the
   * window. */
  natter_provider_registry_resolve_model_async (self->providers, provider, model, cancellable,
                                                model_resolved_cb, g_steal_pointer (&task));
}

/**
 * natter_services_resolve_model_finish:
 * @self: the services
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the descriptor `{provider, model}`;
 *   or %NULL with %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND (an unknown
 *   provider, or one without models) or the provider's
 *   %NATTER_PROVIDER_ERROR (unreachable, HTTP error, …)
 */
JsonObject *
natter_services_resolve_model_finish (NatterServices  *self,
                                      GAsyncResult    *result,
                                      GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_services_resolve_model_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Getters */

/**
 * natter_services_get_data_dir:
 * @self: the services
 *
 * Returns: (transfer none): the data directory
 */
GFile *
natter_services_get_data_dir (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->data_dir;
}

/**
 * natter_services_uses_data_dir:
 * @self: the services
 * @dir: a directory
 *
 * Whether @dir is @self's data directory: the same path, or the same
 * directory reached through another path (a symbolic link). Another
 * Natter process that names a different one must not be served from
 * this one's data.
 *
 * Returns: %TRUE when @dir is the data directory
 */
gboolean
natter_services_uses_data_dir (NatterServices *self,
                               GFile          *dir)
{
  g_autoptr(GFileInfo) info_ours = NULL;
  g_autoptr(GFileInfo) info_theirs = NULL;
  const char *id_ours;
  const char *id_theirs;

  g_return_val_if_fail (NATTER_IS_SERVICES (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (dir), FALSE);

  if (g_file_equal (self->data_dir, dir))
    return TRUE;
  info_ours = g_file_query_info (self->data_dir, G_FILE_ATTRIBUTE_ID_FILE, G_FILE_QUERY_INFO_NONE, NULL, NULL);
  info_theirs = g_file_query_info (dir, G_FILE_ATTRIBUTE_ID_FILE, G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info_ours == NULL || info_theirs == NULL)
    return FALSE;
  id_ours = g_file_info_get_attribute_string (info_ours, G_FILE_ATTRIBUTE_ID_FILE);
  id_theirs = g_file_info_get_attribute_string (info_theirs, G_FILE_ATTRIBUTE_ID_FILE);
  return id_ours != NULL && g_strcmp0 (id_ours, id_theirs) == 0;
}

/**
 * natter_services_get_settings:
 * @self: the services
 *
 * Returns: (transfer none): the settings the services follow; without
 *   the schema installed they hold the built-in defaults
 *   (natter_settings_get_gsettings() is then %NULL)
 */
NatterSettings *
natter_services_get_settings (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->settings;
}

/**
 * natter_services_watch_store:
 * @self: the services, their index loaded
 *
 * Follows, from now on, the conversations and turns another process or
 * device writes into the data directory while this one runs
 * (docs/sessions.md §8.5; docs/sync.md): the index, and whatever shows a
 * changed turn, are brought up to date without a restart. For the
 * window; a command lives too briefly to need it. Idempotent.
 */
void
natter_services_watch_store (NatterServices *self)
{
  g_return_if_fail (NATTER_IS_SERVICES (self));

  if (self->watch != NULL)
    return;
  self->watch = natter_store_watch_new (self->sessions, self->folders, self->storage_dir);
  natter_store_watch_start (self->watch);
}

/**
 * natter_services_get_store_watch:
 * @self: the services
 *
 * Returns: (transfer none) (nullable): the watch of
 *   natter_services_watch_store(), for tests
 */
NatterStoreWatch *
natter_services_get_store_watch (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->watch;
}

/**
 * natter_services_get_sessions:
 * @self: the services
 *
 * Returns: (transfer none): the session service (docs/sessions.md §9)
 */
NatterSessions *
natter_services_get_sessions (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->sessions;
}

/**
 * natter_services_get_index:
 * @self: the services
 *
 * Returns: (transfer none): the session index, a #GListModel of
 *   #NatterSessionIndexEntry (docs/sessions.md §8)
 */
NatterSessionIndex *
natter_services_get_index (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->index;
}

/**
 * natter_services_get_runtime:
 * @self: the services
 *
 * Returns: (transfer none): the turn runtime
 */
NatterTurnRuntime *
natter_services_get_runtime (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->runtime;
}

/**
 * natter_services_get_hub:
 * @self: the services
 *
 * Returns: (transfer none): the process-wide turn event hub
 */
NatterTurnEventHub *
natter_services_get_hub (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->hub;
}

/**
 * natter_services_get_headless_runner:
 * @self: the services
 *
 * Returns: (transfer none): the runner of standalone turns
 *   (docs/sessions.md §11)
 */
NatterHeadlessRunner *
natter_services_get_headless_runner (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->headless;
}

/**
 * natter_services_get_send_pipeline:
 * @self: the services
 *
 * Returns: (transfer none): the one way a message becomes a turn
 *   (natter-send-pipeline.c), with the configured providers, the default
 *   model, the blob store and the user's agents
 */
NatterSendPipeline *
natter_services_get_send_pipeline (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->pipeline;
}

/**
 * natter_services_get_search_index:
 * @self: the services
 *
 * The full-text search index over the data directory's sessions
 * (`cache/search.sqlite`). It does nothing until someone who searches
 * calls natter_search_index_start() (the window, `natter search`).
 *
 * Returns: (transfer none): the search index
 */
NatterSearchIndex *
natter_services_get_search_index (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);

  return self->search;
}

/**
 * natter_services_get_provider_registry:
 * @self: the services
 *
 * Returns: (transfer none): the model registry
 */
NatterProviderRegistry *
natter_services_get_provider_registry (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->providers;
}

/**
 * natter_services_get_tools:
 * @self: the services
 *
 * Returns: (transfer none): the tool registry with the built-in tools
 */
NatterToolRegistry *
natter_services_get_tools (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->tools;
}

/**
 * natter_services_get_turn_repo:
 * @self: the services
 *
 * Returns: (transfer none): the turn repository
 */
NatterJsonlRepo *
natter_services_get_turn_repo (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->turn_repo;
}

/**
 * natter_services_get_folders:
 * @self: the services
 *
 * The folders conversations can be put in (docs/format.md §8), loaded
 * with the index by natter_services_load_async().
 *
 * Returns: (transfer none): the folder list
 */
NatterFolders *
natter_services_get_folders (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);

  return self->folders;
}

/**
 * natter_services_get_folder_repo:
 * @self: the services
 *
 * Returns: (transfer none): the repository of folder logs
 *   (docs/format.md §8)
 */
NatterJsonlRepo *
natter_services_get_folder_repo (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);

  return self->folder_repo;
}

/**
 * natter_services_get_session_repo:
 * @self: the services
 *
 * Returns: (transfer none): the session repository
 */
NatterJsonlRepo *
natter_services_get_session_repo (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->session_repo;
}

/**
 * natter_services_dup_default_provider:
 * @self: the services
 *
 * Returns: (transfer full): the provider a message that names none goes
 *   to (natter_settings_dup_effective_provider())
 */
char *
natter_services_dup_default_provider (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);

  return natter_settings_dup_effective_provider (self->settings);
}

/**
 * natter_services_dup_default_model:
 * @self: the services
 *
 * Returns: (transfer full): the `default-model` setting; "" (the
 *   built-in default) means the provider's first model
 */
char *
natter_services_dup_default_model (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);

  return g_strdup (natter_settings_get_default_model (self->settings));
}

/**
 * natter_services_get_blob_store:
 * @self: the services
 *
 * Returns: (transfer none): the attachments of every turn, stored by
 *   content under `storage/blobs` (docs/format.md §1)
 */
NatterBlobStore *
natter_services_get_blob_store (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->blobs;
}

/**
 * natter_services_get_draft_store:
 * @self: the services
 *
 * Returns: (transfer none): the words waiting, not yet sent, in the
 *   message fields, kept under `drafts` (docs/format.md §10); they refuse
 *   writes while this process is not the writer (docs/sessions.md §8.3)
 */
NatterDraftStore *
natter_services_get_draft_store (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->drafts;
}

/**
 * natter_services_get_max_model_calls:
 * @self: the services
 *
 * Returns: the `max-model-calls` setting (built in:
 *   %NATTER_DEFAULT_MAX_MODEL_CALLS)
 */
guint
natter_services_get_max_model_calls (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NATTER_DEFAULT_MAX_MODEL_CALLS);

  return natter_settings_get_max_model_calls (self->settings);
}

/**
 * natter_services_get_auto_permission:
 * @self: the services
 *
 * Returns: the `auto-permission` setting (built in: %FALSE)
 */
gboolean
natter_services_get_auto_permission (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), FALSE);

  return natter_settings_get_auto_permission (self->settings);
}

/**
 * natter_services_get_auto_title:
 * @self: the services
 *
 * Returns: the `auto-title` setting (built in: %TRUE)
 */
gboolean
natter_services_get_auto_title (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), TRUE);

  return natter_settings_get_auto_title (self->settings);
}

/**
 * natter_services_get_agent_store:
 * @self: the services
 *
 * Returns: (transfer none): the user-defined agents, in
 *   natter_agent_store_get_default_dir()
 */
NatterAgentStore *
natter_services_get_agent_store (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->agent_store;
}

/**
 * natter_services_get_agent_resolver:
 * @self: the services
 *
 * Returns: (transfer none): the resolver the runtime uses: the built-in
 *   `assistant` and the stored agents (#NatterConfigAgentResolver)
 */
NatterAgentResolver *
natter_services_get_agent_resolver (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return NATTER_AGENT_RESOLVER (self->config_agents);
}

/**
 * natter_services_get_secret_store:
 * @self: the services
 *
 * Returns: (transfer none): where API keys are kept: the Secret Service
 *   (#NatterLibsecretStore) unless natter_services_set_secret_store()
 *   replaced it
 */
NatterSecretStore *
natter_services_get_secret_store (NatterServices *self)
{
  g_return_val_if_fail (NATTER_IS_SERVICES (self), NULL);
  return self->secrets;
}

/**
 * natter_services_set_secret_store:
 * @self: the services
 * @store: where API keys are kept from now on
 *
 * Replaces the store of API keys; tests put a #NatterMemorySecretStore
 * here. When @self was made without a key lookup function, model calls
 * read their key from @store too (then %NATTER_API_KEY_ENV).
 */
void
natter_services_set_secret_store (NatterServices    *self,
                                  NatterSecretStore *store)
{
  g_return_if_fail (NATTER_IS_SERVICES (self));
  g_return_if_fail (NATTER_IS_SECRET_STORE (store));

  g_set_object (&self->secrets, store);
}

/**
 * natter_services_provider_changed:
 * @self: the services
 * @provider_id: a configured provider's id
 *
 * Says that @provider_id's key changed, or that a connection test with
 * its settings succeeded, to every window: emits
 * #NatterServices::provider-changed.
 */
void
natter_services_provider_changed (NatterServices *self,
                                  const char     *provider_id)
{
  g_return_if_fail (NATTER_IS_SERVICES (self));
  g_return_if_fail (provider_id != NULL);

  g_signal_emit (self, signals[SIGNAL_PROVIDER_CHANGED], 0, provider_id);
}
