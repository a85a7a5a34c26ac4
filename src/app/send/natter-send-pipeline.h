/* natter-send-pipeline.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-agent-store.h"
#include "natter-blob-store.h"
#include "natter-message-request.h"
#include "natter-provider-registry.h"
#include "natter-sessions.h"
#include "natter-settings.h"

G_BEGIN_DECLS

/**
 * NatterSendResult:
 * @session_id: the conversation the message went to: the one asked for,
 *   or a new one (a first message, a new version)
 * @turn_id: (nullable): the turn made of the message, or %NULL when it
 *   was queued
 * @queue_id: (nullable): the message's place in the queue, or %NULL
 *   when it was sent
 * @created: whether @session_id was made for this message (a new
 *   conversation or a new version)
 * @compaction_id: (nullable): the compaction made before the message
 * @compaction_error: (nullable): why the automatic compaction before the
 *   message failed; the message was sent all the same, with the whole
 *   conversation. A notice, said once per conversation.
 * @n_moved: how many queued messages went on to wait in a new version
 *   (docs/sessions.md §4): those that waited behind the answer it tries
 *   again
 * @move_error: (nullable): why queued messages could not all go on to
 *   the new version; they wait where they were (a notice: the message was
 *   sent)
 *
 * What became of a message (natter_send_pipeline_send_finish()).
 */
typedef struct
{
  char     *session_id;
  char     *turn_id;
  char     *queue_id;
  gboolean  created;
  char     *compaction_id;
  GError   *compaction_error;
  guint     n_moved;
  GError   *move_error;
} NatterSendResult;

GType             natter_send_result_get_type (void) G_GNUC_CONST;
NatterSendResult *natter_send_result_copy     (const NatterSendResult *result);
void              natter_send_result_free     (NatterSendResult       *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSendResult, natter_send_result_free)

#define NATTER_TYPE_SEND_PIPELINE (natter_send_pipeline_get_type ())

G_DECLARE_FINAL_TYPE (NatterSendPipeline, natter_send_pipeline, NATTER, SEND_PIPELINE, GObject)

NatterSendPipeline *natter_send_pipeline_new                   (NatterSessions         *sessions,
                                                                NatterSettings         *settings);
void                natter_send_pipeline_set_provider_registry (NatterSendPipeline     *self,
                                                                NatterProviderRegistry *registry,
                                                                const char             *default_provider,
                                                                const char             *default_model);
void                natter_send_pipeline_set_blob_store        (NatterSendPipeline     *self,
                                                                NatterBlobStore        *blobs);
void                natter_send_pipeline_set_agent_store       (NatterSendPipeline     *self,
                                                                NatterAgentStore       *agents);
NatterSessions     *natter_send_pipeline_get_sessions          (NatterSendPipeline     *self);

char               *natter_send_pipeline_dup_agent             (NatterSendPipeline     *self,
                                                                const char             *session_id,
                                                                gboolean               *gone);
gboolean            natter_send_pipeline_provider_is_missing   (NatterSendPipeline     *self,
                                                                const char             *provider);
JsonObject         *natter_send_pipeline_get_continued_model   (NatterSendPipeline      *self,
                                                                NatterSessionIndexEntry *entry);

void                natter_send_pipeline_send_async            (NatterSendPipeline     *self,
                                                                NatterMessageRequest   *request,
                                                                GCancellable           *cancellable,
                                                                GAsyncReadyCallback     callback,
                                                                gpointer                user_data);
NatterSendResult   *natter_send_pipeline_send_finish           (NatterSendPipeline     *self,
                                                                GAsyncResult           *result,
                                                                GError                **error);

gboolean            natter_send_error_can_retry                (const GError           *error);

G_END_DECLS
