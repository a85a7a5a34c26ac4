/* natter-session-markdown.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

char *natter_session_archive_to_markdown (JsonObject *archive);

G_END_DECLS
