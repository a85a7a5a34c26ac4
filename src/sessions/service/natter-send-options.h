/* natter-send-options.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "natter-generation-parameters.h"

G_BEGIN_DECLS

#define NATTER_TYPE_SEND_OPTIONS (natter_send_options_get_type ())

typedef struct _NatterSendOptions NatterSendOptions;

GType              natter_send_options_get_type            (void) G_GNUC_CONST;
NatterSendOptions *natter_send_options_new                 (const char              *agent_id);
NatterSendOptions *natter_send_options_copy                (const NatterSendOptions *self);
void               natter_send_options_free                (NatterSendOptions       *self);

void               natter_send_options_set_agent_id        (NatterSendOptions       *self,
                                                            const char              *agent_id);
const char        *natter_send_options_get_agent_id        (const NatterSendOptions *self);
void               natter_send_options_set_model           (NatterSendOptions       *self,
                                                            const char              *provider,
                                                            const char              *model);
void               natter_send_options_set_model_descriptor (NatterSendOptions *self,
                                                             JsonObject        *descriptor);
gboolean           natter_send_options_has_model           (const NatterSendOptions *self);
const char        *natter_send_options_get_provider        (const NatterSendOptions *self);
const char        *natter_send_options_get_model           (const NatterSendOptions *self);
void               natter_send_options_set_auto_permission (NatterSendOptions       *self,
                                                            gboolean                 auto_permission);
gboolean           natter_send_options_get_auto_permission (const NatterSendOptions *self);
void               natter_send_options_set_max_model_calls (NatterSendOptions       *self,
                                                            guint                    max_model_calls);
guint              natter_send_options_get_max_model_calls (const NatterSendOptions *self);
void               natter_send_options_set_max_tokens      (NatterSendOptions       *self,
                                                            guint                    max_tokens);
guint              natter_send_options_get_max_tokens      (const NatterSendOptions *self);
void               natter_send_options_set_parameters      (NatterSendOptions       *self,
                                                            const NatterGenerationParameters *parameters);
const NatterGenerationParameters *
                   natter_send_options_get_parameters      (const NatterSendOptions *self);
void               natter_send_options_set_no_tools        (NatterSendOptions       *self,
                                                            gboolean                 no_tools);
gboolean           natter_send_options_get_no_tools        (const NatterSendOptions *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSendOptions, natter_send_options_free)

G_END_DECLS
