/* natter-message-request.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "natter-attachment-intake.h"
#include "natter-generation-parameters.h"

G_BEGIN_DECLS

#define NATTER_TYPE_MESSAGE_REQUEST (natter_message_request_get_type ())

typedef struct _NatterMessageRequest NatterMessageRequest;

GType                 natter_message_request_get_type            (void) G_GNUC_CONST;
NatterMessageRequest *natter_message_request_new                 (const char                 *text);
NatterMessageRequest *natter_message_request_new_again           (const char                 *turn_id);
NatterMessageRequest *natter_message_request_copy                (const NatterMessageRequest *self);
void                  natter_message_request_free                (NatterMessageRequest       *self);

const char           *natter_message_request_get_text            (const NatterMessageRequest *self);
const char           *natter_message_request_get_again           (const NatterMessageRequest *self);

void                  natter_message_request_set_session         (NatterMessageRequest       *self,
                                                                  const char                 *session_id);
const char           *natter_message_request_get_session         (const NatterMessageRequest *self);
void                  natter_message_request_set_cwd             (NatterMessageRequest       *self,
                                                                  const char                 *cwd);
const char           *natter_message_request_get_cwd             (const NatterMessageRequest *self);
void                  natter_message_request_add_attachment      (NatterMessageRequest       *self,
                                                                  NatterAttachmentSource     *source);
GPtrArray            *natter_message_request_get_attachments     (const NatterMessageRequest *self);
void                  natter_message_request_set_version_of      (NatterMessageRequest       *self,
                                                                  const char                 *turn_id);
const char           *natter_message_request_get_version_of      (const NatterMessageRequest *self);
void                  natter_message_request_set_agent           (NatterMessageRequest       *self,
                                                                  const char                 *agent_id);
const char           *natter_message_request_get_agent           (const NatterMessageRequest *self);
void                  natter_message_request_set_model           (NatterMessageRequest       *self,
                                                                  const char                 *provider,
                                                                  const char                 *model);
const char           *natter_message_request_get_provider        (const NatterMessageRequest *self);
const char           *natter_message_request_get_model           (const NatterMessageRequest *self);
void                  natter_message_request_set_auto_permission (NatterMessageRequest       *self,
                                                                  gboolean                    auto_permission);
gboolean              natter_message_request_get_auto_permission (const NatterMessageRequest *self);
void                  natter_message_request_set_max_model_calls (NatterMessageRequest       *self,
                                                                  guint                       max_model_calls);
guint                 natter_message_request_get_max_model_calls (const NatterMessageRequest *self);
void                  natter_message_request_set_auto_title      (NatterMessageRequest       *self,
                                                                  gboolean                    auto_title);
gboolean              natter_message_request_get_auto_title      (const NatterMessageRequest *self);
void                  natter_message_request_set_queue          (NatterMessageRequest       *self,
                                                                  gboolean                    queue);
gboolean              natter_message_request_get_queue           (const NatterMessageRequest *self);
void                  natter_message_request_set_compact_first   (NatterMessageRequest       *self,
                                                                  gboolean                    compact_first);
gboolean              natter_message_request_get_compact_first   (const NatterMessageRequest *self);

void                  natter_message_request_set_parameters      (NatterMessageRequest       *self,
                                                                  const NatterGenerationParameters *parameters);
const NatterGenerationParameters *
                      natter_message_request_get_parameters      (const NatterMessageRequest *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterMessageRequest, natter_message_request_free)

G_END_DECLS
