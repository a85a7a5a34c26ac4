/* natter-tool-registry.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-tool.h"

G_BEGIN_DECLS

#define NATTER_TYPE_TOOL_REGISTRY (natter_tool_registry_get_type ())

G_DECLARE_FINAL_TYPE (NatterToolRegistry, natter_tool_registry, NATTER, TOOL_REGISTRY, GObject)

NatterToolRegistry *natter_tool_registry_new    (void);
void                natter_tool_registry_add    (NatterToolRegistry *self,
                                                 NatterTool         *tool);
void                natter_tool_registry_remove (NatterToolRegistry *self,
                                                 const char         *tool_id);
NatterTool         *natter_tool_registry_lookup (NatterToolRegistry *self,
                                                 const char         *tool_id);
NatterTool         *natter_tool_registry_lookup_id_or_name (NatterToolRegistry *self,
                                                            const char         *id_or_name);

G_END_DECLS
