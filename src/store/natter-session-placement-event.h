/* natter-session-placement-event.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session events of schema version 4 (docs/format.md §3.6): where a
 * conversation is placed in the person's list — pinned to its top, or
 * in a folder.
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

gboolean  natter_session_event_is_v4_type         (const char *type);

JsonNode *natter_session_event_new_pin_changed    (const char *session_id,
                                                   const char *ts,
                                                   gboolean    pinned);
JsonNode *natter_session_event_new_folder_changed (const char *session_id,
                                                   const char *ts,
                                                   const char *folder_id);

G_END_DECLS
