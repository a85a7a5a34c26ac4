/* natter-session-schema.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-types.h"

G_BEGIN_DECLS

gboolean natter_session_event_validate (JsonObject  *event,
                                        const char  *session_id,
                                        GError     **error);

G_END_DECLS
