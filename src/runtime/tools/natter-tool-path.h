/* natter-tool-path.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Helpers shared by the built-in tools that take a `path` argument
 * (docs/runtime.md §8): internal to the built-in tools
 * (src/runtime/tools/) and the tool servers' tools (src/mcp/).
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

char       *natter_tool_path_resolve  (JsonObject  *input,
                                       const char  *cwd,
                                       GError     **error);
JsonNode   *natter_tool_path_request  (const char  *action,
                                       JsonObject  *input,
                                       const char  *cwd);
JsonObject *natter_tool_descriptor_new (const char *tool_id,
                                        const char *name,
                                        const char *description,
                                        const char *input_schema,
                                        gboolean    is_async,
                                        gboolean    requires_human);
JsonObject *natter_tool_result_new    (const char *output,
                                       JsonObject *metadata);

G_END_DECLS
