/* natter-turn-runtime.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-agent-resolver.h"
#include "natter-blob-store.h"
#include "natter-clock.h"
#include "natter-context-resolver.h"
#include "natter-device.h"
#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-model-registry.h"
#include "natter-permission-checker.h"
#include "natter-permission-grants.h"
#include "natter-permission-classifier.h"
#include "natter-runtime-error.h"
#include "natter-stream-keep.h"
#include "natter-tool-registry.h"
#include "natter-turn-created.h"
#include "natter-turn-event-hub.h"
#include "natter-turn-execution.h"

G_BEGIN_DECLS

/**
 * NATTER_DEFAULT_MAX_MODEL_CALLS:
 *
 * The built-in `maxModelCalls` (docs/runtime.md §5).
 */
#define NATTER_DEFAULT_MAX_MODEL_CALLS 50

#define NATTER_TYPE_TURN_RUNTIME (natter_turn_runtime_get_type ())

G_DECLARE_FINAL_TYPE (NatterTurnRuntime, natter_turn_runtime, NATTER, TURN_RUNTIME, GObject)

NatterTurnRuntime   *natter_turn_runtime_new            (NatterJsonlRepo            *turn_repo,
                                                         NatterIdGenerator          *ids,
                                                         NatterClock                *clock,
                                                         NatterAgentResolver        *agents,
                                                         NatterModelRegistry        *models,
                                                         NatterToolRegistry         *tools,
                                                         NatterContextResolver      *contexts,
                                                         NatterPermissionChecker    *checker,
                                                         NatterPermissionClassifier *classifier,
                                                         NatterTurnEventHub         *hub,
                                                         JsonObject                 *default_model,
                                                         guint                       max_model_calls);

NatterToolRegistry  *natter_turn_runtime_get_tools          (NatterTurnRuntime      *self);
void                 natter_turn_runtime_set_permission_grants (NatterTurnRuntime      *self,
                                                                NatterPermissionGrants *grants);

void                 natter_turn_runtime_create_turn_async  (NatterTurnRuntime    *self,
                                                             JsonObject           *requested_agent,
                                                             const char           *session_id,
                                                             JsonNode             *context,
                                                             JsonObject           *input,
                                                             JsonObject           *config,
                                                             GCancellable         *cancellable,
                                                             GAsyncReadyCallback   callback,
                                                             gpointer              user_data);
NatterTurnCreated   *natter_turn_runtime_create_turn_finish (NatterTurnRuntime    *self,
                                                             GAsyncResult         *result,
                                                             GError              **error);

NatterTurnExecution *natter_turn_runtime_advance_turn       (NatterTurnRuntime    *self,
                                                             const char           *turn_id,
                                                             JsonObject           *input,
                                                             GCancellable         *cancellable);
NatterTurnExecution *natter_turn_runtime_take_over_turn     (NatterTurnRuntime    *self,
                                                             const char           *turn_id,
                                                             GCancellable         *cancellable);

void                 natter_turn_runtime_get_turn_async     (NatterTurnRuntime    *self,
                                                             const char           *turn_id,
                                                             GCancellable         *cancellable,
                                                             GAsyncReadyCallback   callback,
                                                             gpointer              user_data);
GPtrArray           *natter_turn_runtime_get_turn_finish    (NatterTurnRuntime    *self,
                                                             GAsyncResult         *result,
                                                             GError              **error);

void                 natter_turn_runtime_get_turn_state_async  (NatterTurnRuntime    *self,
                                                                const char           *turn_id,
                                                                GCancellable         *cancellable,
                                                                GAsyncReadyCallback   callback,
                                                                gpointer              user_data);
NatterTurnState     *natter_turn_runtime_get_turn_state_finish (NatterTurnRuntime    *self,
                                                                GAsyncResult         *result,
                                                                GError              **error);

NatterContextResolver *natter_turn_runtime_get_context_resolver (NatterTurnRuntime *self);
gboolean               natter_turn_runtime_check_model          (NatterTurnRuntime  *self,
                                                                 NatterTurnState    *state,
                                                                 GError            **error);
guint                  natter_turn_runtime_get_n_state_reads    (NatterTurnRuntime *self);
void                 natter_turn_runtime_set_blob_store (NatterTurnRuntime          *self,
                                                         NatterBlobStore            *blobs);
NatterBlobStore     *natter_turn_runtime_get_blob_store (NatterTurnRuntime          *self);
void                 natter_turn_runtime_set_stream_keep (NatterTurnRuntime         *self,
                                                          NatterStreamKeep          *keep);
NatterStreamKeep    *natter_turn_runtime_get_stream_keep (NatterTurnRuntime         *self);
void                 natter_turn_runtime_set_device     (NatterTurnRuntime          *self,
                                                         NatterDevice               *device);
NatterDevice        *natter_turn_runtime_get_device     (NatterTurnRuntime          *self);

G_END_DECLS
