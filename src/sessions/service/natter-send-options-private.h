/* natter-send-options-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one place where send options become the JSON the turn runtime
 * takes; only the session layer calls these.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-send-options.h"

G_BEGIN_DECLS

JsonObject *natter_send_options_to_requested_agent (const NatterSendOptions *self);
JsonObject *natter_send_options_to_queued_options  (const NatterSendOptions *self);
JsonObject *natter_send_options_to_turn_config     (const NatterSendOptions *self,
                                                    gboolean                 human_available,
                                                    const char              *cwd);

G_END_DECLS
