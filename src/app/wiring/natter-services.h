/* natter-services.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-agent-store.h"
#include "natter-builtin-agent-resolver.h"
#include "natter-draft-store.h"
#include "natter-folders.h"
#include "natter-headless-runner.h"
#include "natter-libsecret-store.h"
#include "natter-mcp-manager.h"
#include "natter-provider-registry.h"
#include "natter-search-index.h"
#include "natter-send-pipeline.h"
#include "natter-secret-store.h"
#include "natter-session-index.h"
#include "natter-sessions.h"
#include "natter-settings.h"
#include "natter-store-watch.h"

G_BEGIN_DECLS

/**
 * NATTER_DATA_DIR_ENV:
 *
 * The environment variable that overrides the data directory
 * (architecture.md, "Process and data").
 */
#define NATTER_DATA_DIR_ENV "NATTER_DATA_DIR"

#define NATTER_TYPE_SERVICES (natter_services_get_type ())

G_DECLARE_FINAL_TYPE (NatterServices, natter_services, NATTER, SERVICES, GObject)

GFile                  *natter_services_get_default_data_dir     (void);
char                   *natter_services_secret_key_lookup        (const char           *provider,
                                                                  gpointer              user_data);

NatterServices         *natter_services_new                      (GFile                *data_dir,
                                                                  NatterSettings       *settings,
                                                                  NatterKeyLookupFunc   key_lookup,
                                                                  gpointer              key_lookup_data,
                                                                  GDestroyNotify        key_lookup_destroy);

gboolean                natter_services_acquire_writer_lock      (NatterServices       *self,
                                                                  GError              **error);
gboolean                natter_services_has_writer_lock          (NatterServices       *self);
void                    natter_services_watch_writer_lock        (NatterServices       *self);
void                    natter_services_remove_leftover_temp_files_async
                                                                 (NatterServices       *self,
                                                                  GCancellable         *cancellable,
                                                                  GAsyncReadyCallback   callback,
                                                                  gpointer              user_data);
int                     natter_services_remove_leftover_temp_files_finish
                                                                 (NatterServices       *self,
                                                                  GAsyncResult         *result,
                                                                  GError              **error);
void                    natter_services_watch_store              (NatterServices       *self);
NatterStoreWatch       *natter_services_get_store_watch          (NatterServices       *self);
void                    natter_services_clean_up_leftovers       (NatterServices       *self,
                                                                  GApplication         *app);

void                    natter_services_load_async               (NatterServices       *self,
                                                                  GCancellable         *cancellable,
                                                                  GAsyncReadyCallback   callback,
                                                                  gpointer              user_data);
gboolean                natter_services_load_finish              (NatterServices       *self,
                                                                  GAsyncResult         *result,
                                                                  GError              **error);

void                    natter_services_resolve_model_async      (NatterServices       *self,
                                                                  const char           *provider,
                                                                  const char           *model,
                                                                  GCancellable         *cancellable,
                                                                  GAsyncReadyCallback   callback,
                                                                  gpointer              user_data);
JsonObject             *natter_services_resolve_model_finish     (NatterServices       *self,
                                                                  GAsyncResult         *result,
                                                                  GError              **error);

gboolean                natter_services_flush_blocking           (NatterServices       *self,
                                                                  guint                 timeout_ms);

GFile                  *natter_services_get_data_dir             (NatterServices       *self);
gboolean                natter_services_uses_data_dir            (NatterServices       *self,
                                                                  GFile                *dir);
NatterSettings         *natter_services_get_settings             (NatterServices       *self);
NatterSessions         *natter_services_get_sessions             (NatterServices       *self);
NatterSessionIndex     *natter_services_get_index                (NatterServices       *self);
NatterFolders          *natter_services_get_folders              (NatterServices       *self);
NatterJsonlRepo        *natter_services_get_folder_repo          (NatterServices       *self);
NatterTurnRuntime      *natter_services_get_runtime              (NatterServices       *self);
NatterTurnEventHub     *natter_services_get_hub                  (NatterServices       *self);
NatterHeadlessRunner   *natter_services_get_headless_runner      (NatterServices       *self);
NatterSendPipeline     *natter_services_get_send_pipeline        (NatterServices       *self);
NatterSearchIndex      *natter_services_get_search_index         (NatterServices       *self);
NatterProviderRegistry *natter_services_get_provider_registry    (NatterServices       *self);
NatterToolRegistry     *natter_services_get_tools                (NatterServices       *self);
NatterMcpManager       *natter_services_get_mcp_manager          (NatterServices       *self);
NatterJsonlRepo        *natter_services_get_turn_repo            (NatterServices       *self);
NatterBlobStore        *natter_services_get_blob_store           (NatterServices       *self);
NatterDraftStore       *natter_services_get_draft_store          (NatterServices       *self);
NatterJsonlRepo        *natter_services_get_session_repo         (NatterServices       *self);
NatterAgentStore       *natter_services_get_agent_store          (NatterServices       *self);
NatterAgentResolver    *natter_services_get_agent_resolver       (NatterServices       *self);
NatterSecretStore      *natter_services_get_secret_store         (NatterServices       *self);
void                    natter_services_set_secret_store         (NatterServices       *self,
                                                                  NatterSecretStore    *store);

char                   *natter_services_dup_default_provider     (NatterServices       *self);
char                   *natter_services_dup_default_model        (NatterServices       *self);
guint                   natter_services_get_max_model_calls      (NatterServices       *self);
gboolean                natter_services_get_auto_permission      (NatterServices       *self);
gboolean                natter_services_get_auto_title           (NatterServices       *self);
void                    natter_services_provider_changed         (NatterServices       *self,
                                                                  const char           *provider_id);

G_END_DECLS
