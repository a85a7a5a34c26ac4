/* test-types.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every public GObject type below the UI can be made with the least its
 * constructor needs and is finalized when its last reference goes (no
 * cycle keeps it alive), and the session layer's properties notify once
 * per change and never for an equal value; each boxed type's copy stands
 * on its own once the original is freed. Interfaces are covered by the
 * types that implement them. Two types are left out here: a
 * NatterTurnExecution exists only for a turn the runtime advances
 * (test-turn-runtime finalizes them), and the system clock is a process
 * singleton.
 */

#include "natter-agent-store.h"
#include "natter-attachment-intake.h"
#include "natter-blob-store.h"
#include "natter-mcp-client.h"
#include "natter-mcp-manager.h"
#include "natter-mcp-tool.h"
#include "natter-search-index.h"
#include "natter-send-options.h"
#include "natter-session-grant-view.h"
#include "natter-settings.h"
#include "natter-turn-created.h"
#include "natter-turn-execution.h"
#include "natter-turn-reducer.h"
#include "natter-builtin-agent-resolver.h"
#include "natter-builtin-tools.h"
#include "natter-chat-stream.h"
#include "natter-cli-application.h"
#include "natter-config-agent-resolver.h"
#include "natter-data-dir-lock.h"
#include "natter-default-permission-checker.h"
#include "natter-headless-runner.h"
#include "natter-keyed-mutex.h"
#include "natter-libsecret-store.h"
#include "natter-memory-secret-store.h"
#include "natter-model-permission-classifier.h"
#include "natter-openai-model.h"
#include "natter-provider-registry.h"
#include "natter-search-provider.h"
#include "natter-services.h"
#include "natter-session-index-entry-private.h"
#include "natter-session-index.h"
#include "natter-sessions.h"
#include "natter-turn-context-resolver.h"
#include "natter-test-fakes.h"

/* What the constructors draw on: a runtime over real repos in a temp dir. */
typedef struct
{
  NatterTestWorld *w;
} Fixture;

typedef GObject *(*MakeFunc) (Fixture *f);

typedef struct
{
  const char *name;
  MakeFunc    make;
} TypeCase;

static GObject *
make_openai_provider (Fixture *f)
{
  return G_OBJECT (natter_openai_provider_new ("p", "P", "http://127.0.0.1:9/v1", NULL, 30, 1 << 20));
}

static GObject *
make_openai_model (Fixture *f)
{
  g_autoptr(NatterOpenaiProvider) provider = natter_openai_provider_new ("p", "P", "http://127.0.0.1:9/v1",
                                                                         NULL, 30, 1 << 20);

  return G_OBJECT (natter_openai_model_new (provider, "m"));
}

static GObject *
make_model_permission_classifier (Fixture *f)
{
  return G_OBJECT (natter_model_permission_classifier_new ());
}

static GObject *
make_tool_registry (Fixture *f)
{
  return G_OBJECT (natter_tool_registry_new ());
}

static GObject *
make_provider_registry (Fixture *f)
{
  return G_OBJECT (natter_provider_registry_new (NULL, NULL, NULL));
}

static GObject *
make_tool_ask_human (Fixture *f)
{
  return G_OBJECT (natter_tool_ask_human_new ());
}

static GObject *
make_tool_read_file (Fixture *f)
{
  return G_OBJECT (natter_tool_read_file_new ());
}

static GObject *
make_tool_list_directory (Fixture *f)
{
  return G_OBJECT (natter_tool_list_directory_new ());
}

static GObject *
make_tool_current_time (Fixture *f)
{
  return G_OBJECT (natter_tool_current_time_new (NATTER_CLOCK (f->w->clock)));
}

static GObject *
make_builtin_agent_resolver (Fixture *f)
{
  g_autoptr(NatterToolRegistry) tools = natter_tool_registry_new ();

  return G_OBJECT (natter_builtin_agent_resolver_new (tools));
}

static GObject *
make_config_agent_resolver (Fixture *f)
{
  g_autoptr(NatterToolRegistry) tools = natter_tool_registry_new ();
  g_autoptr(NatterBuiltinAgentResolver) builtin = natter_builtin_agent_resolver_new (tools);
  g_autoptr(GFile) dir = g_file_get_child (f->w->dir, "agents");
  g_autoptr(NatterAgentStore) store = natter_agent_store_new (dir);

  return G_OBJECT (natter_config_agent_resolver_new (builtin, store, tools));
}

static GObject *
make_chat_stream (Fixture *f)
{
  return G_OBJECT (natter_chat_stream_new ("seed"));
}

static GObject *
make_default_permission_checker (Fixture *f)
{
  g_autoptr(NatterToolRegistry) tools = natter_tool_registry_new ();

  return G_OBJECT (natter_default_permission_checker_new (tools, NULL));
}

static GObject *
make_turn_event_hub (Fixture *f)
{
  return G_OBJECT (natter_turn_event_hub_new ());
}

static GObject *
make_turn_context_resolver (Fixture *f)
{
  return G_OBJECT (natter_turn_context_resolver_new (f->w->turn_repo));
}

static GObject *
make_agent_store (Fixture *f)
{
  g_autoptr(GFile) dir = g_file_get_child (f->w->dir, "agents");

  return G_OBJECT (natter_agent_store_new (dir));
}

static GObject *
make_turn_runtime (Fixture *f)
{
  g_autoptr(NatterToolRegistry) tools = natter_tool_registry_new ();
  g_autoptr(NatterTurnContextResolver) contexts = natter_turn_context_resolver_new (f->w->turn_repo);

  return G_OBJECT (natter_turn_runtime_new (f->w->turn_repo, f->w->ids, NATTER_CLOCK (f->w->clock),
                                            NATTER_AGENT_RESOLVER (f->w->fakes),
                                            NATTER_MODEL_REGISTRY (f->w->fakes), tools,
                                            NATTER_CONTEXT_RESOLVER (contexts),
                                            NATTER_PERMISSION_CHECKER (f->w->fakes),
                                            NATTER_PERMISSION_CLASSIFIER (f->w->fakes),
                                            f->w->hub, NULL, 0));
}

static GObject *
make_memory_secret_store (Fixture *f)
{
  return G_OBJECT (natter_memory_secret_store_new ());
}

static GObject *
make_libsecret_store (Fixture *f)
{
  /* Contacts nothing until a key is used. */
  return G_OBJECT (natter_libsecret_store_new ());
}

static GObject *
make_search_provider (Fixture *f)
{
  g_autoptr(NatterSessionIndex) index = natter_session_index_new ();

  return G_OBJECT (natter_search_provider_new (index));
}

static GObject *
make_services (Fixture *f)
{
  g_autoptr(GFile) dir = g_file_get_child (f->w->dir, "services");

  return G_OBJECT (natter_services_new (dir, NULL, NULL, NULL, NULL));
}

static GObject *
make_data_dir_lock (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  NatterDataDirLock *lock = natter_data_dir_lock_acquire (f->w->storage, &error);

  g_assert_no_error (error);
  return G_OBJECT (lock);
}

static GObject *
make_sessions (Fixture *f)
{
  g_autoptr(NatterSessionIndex) index = natter_session_index_new ();

  return G_OBJECT (natter_sessions_new (f->w->session_repo, f->w->turn_repo, f->w->runtime, f->w->hub,
                                        NATTER_CLOCK (f->w->clock), f->w->ids, index));
}

static GObject *
make_session_index_entry (Fixture *f)
{
  return G_OBJECT (natter_session_index_entry_new ("s"));
}

static GObject *
make_session_index (Fixture *f)
{
  return G_OBJECT (natter_session_index_new ());
}

static GObject *
make_headless_runner (Fixture *f)
{
  return G_OBJECT (natter_headless_runner_new (f->w->runtime));
}

static GObject *
make_cli_application (Fixture *f)
{
  return G_OBJECT (natter_cli_application_new ("io.github.natter.Natter.Test"));
}

static GObject *
make_keyed_mutex (Fixture *f)
{
  return G_OBJECT (natter_keyed_mutex_new ());
}

static GObject *
make_jsonl_repo (Fixture *f)
{
  return G_OBJECT (natter_turn_repo_new (f->w->storage));
}

static GObject *
make_id_generator (Fixture *f)
{
  return G_OBJECT (natter_id_generator_new (NATTER_CLOCK (f->w->clock)));
}

static GObject *
make_blob_store (Fixture *f)
{
  return G_OBJECT (natter_blob_store_new (f->w->storage));
}

static GObject *
make_search_index (Fixture *f)
{
  g_autoptr(NatterSessions) sessions = NATTER_SESSIONS (make_sessions (f));
  g_autoptr(GFile) cache = g_file_get_child (f->w->dir, "search.sqlite");

  return G_OBJECT (natter_search_index_new (cache, f->w->session_repo, f->w->turn_repo, sessions));
}

static GObject *
make_session_grant_view (Fixture *f)
{
  return G_OBJECT (natter_session_grant_view_new (f->w->session_repo));
}

/* Over no GSettings schema: the built-in defaults, kept in memory. */
static GObject *
make_settings (Fixture *f)
{
  return G_OBJECT (natter_settings_new (NULL));
}

static NatterMcpServerConfig *
mcp_config (void)
{
  g_autoptr(JsonNode) entry = natter_test_json ("{\"command\":\"true\"}");
  g_autoptr(GError) error = NULL;
  NatterMcpServerConfig *config = natter_mcp_server_config_parse ("files", entry, &error);

  g_assert_no_error (error);
  return config;
}

/* Never started: a client starts its server on the first call. */
static GObject *
make_mcp_client (Fixture *f)
{
  g_autoptr(NatterMcpServerConfig) config = mcp_config ();

  return G_OBJECT (natter_mcp_client_new (config));
}

static GObject *
make_mcp_tool (Fixture *f)
{
  g_autoptr(NatterMcpServerConfig) config = mcp_config ();
  g_autoptr(NatterMcpClient) client = natter_mcp_client_new (config);
  g_autoptr(JsonNode) tool = natter_test_json ("{\"name\":\"echo\",\"description\":\"Echoes.\","
                                               "\"inputSchema\":{\"type\":\"object\"}}");

  return G_OBJECT (natter_mcp_tool_new (client, json_node_get_object (tool), "mcp__files__echo"));
}

/* Over a configuration file that does not exist: no server. */
static GObject *
make_mcp_manager (Fixture *f)
{
  g_autoptr(NatterToolRegistry) tools = natter_tool_registry_new ();
  g_autoptr(GFile) file = g_file_get_child (f->w->dir, "mcp.json");
  g_autofree char *path = g_file_get_path (file);

  return G_OBJECT (natter_mcp_manager_new (path, tools));
}

static const TypeCase type_cases[] = {
  { "NatterOpenaiProvider", make_openai_provider },
  { "NatterOpenaiModel", make_openai_model },
  { "NatterModelPermissionClassifier", make_model_permission_classifier },
  { "NatterToolRegistry", make_tool_registry },
  { "NatterProviderRegistry", make_provider_registry },
  { "NatterToolAskHuman", make_tool_ask_human },
  { "NatterToolReadFile", make_tool_read_file },
  { "NatterToolListDirectory", make_tool_list_directory },
  { "NatterToolCurrentTime", make_tool_current_time },
  { "NatterBuiltinAgentResolver", make_builtin_agent_resolver },
  { "NatterConfigAgentResolver", make_config_agent_resolver },
  { "NatterChatStream", make_chat_stream },
  { "NatterDefaultPermissionChecker", make_default_permission_checker },
  { "NatterTurnEventHub", make_turn_event_hub },
  { "NatterTurnContextResolver", make_turn_context_resolver },
  { "NatterAgentStore", make_agent_store },
  { "NatterTurnRuntime", make_turn_runtime },
  { "NatterMemorySecretStore", make_memory_secret_store },
  { "NatterLibsecretStore", make_libsecret_store },
  { "NatterSearchProvider", make_search_provider },
  { "NatterServices", make_services },
  { "NatterDataDirLock", make_data_dir_lock },
  { "NatterSessions", make_sessions },
  { "NatterSessionIndexEntry", make_session_index_entry },
  { "NatterSessionIndex", make_session_index },
  { "NatterHeadlessRunner", make_headless_runner },
  { "NatterCliApplication", make_cli_application },
  { "NatterKeyedMutex", make_keyed_mutex },
  { "NatterJsonlRepo", make_jsonl_repo },
  { "NatterIdGenerator", make_id_generator },
  { "NatterBlobStore", make_blob_store },
  { "NatterSearchIndex", make_search_index },
  { "NatterSessionGrantView", make_session_grant_view },
  { "NatterSettings", make_settings },
  { "NatterMcpClient", make_mcp_client },
  { "NatterMcpTool", make_mcp_tool },
  { "NatterMcpManager", make_mcp_manager },
};

/* Boxed types: a copy stands on its own, whether the type copies or
 * counts references. The original goes first; the copy is then copied
 * and freed again (under ASan a copy that shared what the original
 * freed is a use after free). */
typedef struct
{
  const char *name;
  GType     (*get_type) (void);
  gpointer  (*make) (Fixture *f);
} BoxedCase;

static gpointer
make_send_options (Fixture *f)
{
  NatterSendOptions *options = natter_send_options_new ("assistant");

  natter_send_options_set_max_model_calls (options, 7);
  return options;
}

static gpointer
make_provider_config (Fixture *f)
{
  return natter_provider_config_new ("local", "Local", "http://127.0.0.1:9/v1");
}

static gpointer
make_session_damage (Fixture *f)
{
  NatterSessionDamage *damage = g_new0 (NatterSessionDamage, 1);

  damage->title = g_strdup ("Plans");
  damage->file = g_file_get_child (f->w->dir, "s.jsonl");
  damage->line = 3;
  damage->reason = g_strdup ("not JSON");
  damage->message = g_strdup ("What to pack?");
  damage->left_out = TRUE;
  damage->message_read = TRUE;
  damage->last_agent_id = g_strdup ("assistant");
  damage->last_model = json_object_new ();
  json_object_set_string_member (damage->last_model, "provider", "ollama");
  return damage;
}

static gpointer
make_session_state (Fixture *f)
{
  return natter_session_state_new ();
}

static gpointer
make_turn_state (Fixture *f)
{
  return natter_turn_state_new ();
}

static gpointer
make_turn_outcome (Fixture *f)
{
  g_autoptr(JsonNode) event = natter_test_json ("{\"type\":\"turn_completed\",\"turnId\":\"t\",\"ts\":1,\"usage\":{}}");

  return natter_turn_outcome_new_from_event (json_node_get_object (event));
}

static gpointer
make_turn_created (Fixture *f)
{
  g_autoptr(JsonNode) event = natter_test_json ("{\"type\":\"turn_created\",\"turnId\":\"t\","
                                                "\"agent\":{\"resolved\":{\"agentId\":\"a\","
                                                "\"model\":{\"provider\":\"p\",\"model\":\"m\"}}}}");

  return natter_turn_created_new_from_event (json_node_get_object (event));
}

static gpointer
make_mcp_server_config (Fixture *f)
{
  return mcp_config ();
}

static gpointer
make_attachment_source (Fixture *f)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static ("hello", 5);

  return natter_attachment_source_new_for_bytes (bytes, "hello.txt", "text/plain");
}

static const BoxedCase boxed_cases[] = {
  { "NatterSendOptions", natter_send_options_get_type, make_send_options },
  { "NatterProviderConfig", natter_provider_config_get_type, make_provider_config },
  { "NatterSessionDamage", natter_session_damage_get_type, make_session_damage },
  { "NatterSessionState", natter_session_state_get_type, make_session_state },
  { "NatterTurnState", natter_turn_state_get_type, make_turn_state },
  { "NatterTurnOutcome", natter_turn_outcome_get_type, make_turn_outcome },
  { "NatterTurnCreated", natter_turn_created_get_type, make_turn_created },
  { "NatterMcpServerConfig", natter_mcp_server_config_get_type, make_mcp_server_config },
  { "NatterAttachmentSource", natter_attachment_source_get_type, make_attachment_source },
};

static void
test_boxed_copy_free (gconstpointer data)
{
  const BoxedCase *boxed_case = data;
  Fixture f = { natter_test_world_new () };
  GType type = boxed_case->get_type ();
  gpointer original = boxed_case->make (&f);
  gpointer copy, second;

  g_assert_cmpstr (g_type_name (type), ==, boxed_case->name);
  g_assert_true (G_TYPE_IS_BOXED (type));
  g_assert_nonnull (original);
  copy = g_boxed_copy (type, original);
  g_assert_nonnull (copy);
  g_boxed_free (type, original);
  second = g_boxed_copy (type, copy);
  g_boxed_free (type, copy);
  g_boxed_free (type, second);
  natter_test_world_free (f.w);
}

static void
test_new_finalize (gconstpointer data)
{
  const TypeCase *type_case = data;
  Fixture f = { natter_test_world_new () };
  GObject *object = type_case->make (&f);

  g_assert_nonnull (object);
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (object), ==, type_case->name);
  /* Whatever the constructor started (a directory monitor, an idle)
   * runs out before the last reference goes. */
  natter_test_drain_main_context ();
  g_assert_finalize_object (object);
  natter_test_world_free (f.w);
}

/* The index entry's properties are read-only: the index sets them
 * through the entry's private setters, and the sidebar rows follow their
 * notifications. */
static void
test_session_index_entry_notify (void)
{
  g_autoptr(NatterSessionIndexEntry) entry = natter_session_index_entry_new ("s");
  g_autoptr(JsonNode) model_a = natter_test_json ("{\"provider\":\"p\",\"model\":\"a\"}");
  g_autoptr(JsonNode) model_b = natter_test_json ("{\"provider\":\"p\",\"model\":\"b\"}");

  natter_test_setter_notify (entry, "title", natter_session_index_entry_set_title, "One", "Two");
  natter_test_setter_notify (entry, "title", natter_session_index_entry_set_title, NULL, "Two");
  natter_test_setter_notify (entry, "created-at", natter_session_index_entry_set_created_at,
                             "2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z");
  natter_test_setter_notify (entry, "updated-at", natter_session_index_entry_set_updated_at,
                             "2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z");
  natter_test_setter_notify (entry, "turn-count", natter_session_index_entry_set_turn_count, 1, 2);
  natter_test_setter_notify (entry, "last-agent-id", natter_session_index_entry_set_last_agent_id,
                             "helper", "other");
  natter_test_setter_notify (entry, "last-model", natter_session_index_entry_set_last_model,
                             json_node_get_object (model_a), json_node_get_object (model_b));
  natter_test_setter_notify (entry, "latest-turn-id", natter_session_index_entry_set_latest_turn_id, "t1", "t2");
  natter_test_setter_notify (entry, "latest-turn-at", natter_session_index_entry_set_latest_turn_at,
                             "2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z");
  natter_test_setter_notify (entry, "latest-turn-status", natter_session_index_entry_set_latest_turn_status,
                             NATTER_LATEST_TURN_STATUS_NONE, "running");
  natter_test_setter_notify (entry, "error", natter_session_index_entry_set_error, NULL, "damaged");
  natter_test_setter_notify (entry, "cwd", natter_session_index_entry_set_cwd, "/a", "/b");
  natter_test_setter_notify (entry, "parent-session", natter_session_index_entry_set_parent_session, "p1", "p2");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (type_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/types/new-finalize/%s", type_cases[i].name);

      g_test_add_data_func (path, &type_cases[i], test_new_finalize);
    }
  for (guint i = 0; i < G_N_ELEMENTS (boxed_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/types/boxed-copy-free/%s", boxed_cases[i].name);

      g_test_add_data_func (path, &boxed_cases[i], test_boxed_copy_free);
    }
  g_test_add_func ("/types/notify/session-index-entry", test_session_index_entry_notify);

  return g_test_run ();
}
