/* natter-session-default-title.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The default title of a session, derived from its first message. Apart
 * from the service's header, so that an import, which derives the titles
 * of the conversations it brings in, needs nothing of the service.
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * NATTER_SESSION_TITLE_MAX_CHARS:
 *
 * The longest default title derived from a first message, in characters
 * (not bytes), before the ellipsis (docs/sessions.md §9.1 step 6).
 */
#define NATTER_SESSION_TITLE_MAX_CHARS 60

char     *natter_session_message_text (JsonNode    *content);
char     *natter_derive_session_title (JsonObject  *message);
gboolean  natter_session_title_check  (const char  *title,
                                       GError     **error);
char     *natter_session_title_clean  (const char  *text);

G_END_DECLS
