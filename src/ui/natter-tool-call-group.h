/* natter-tool-call-group.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-tool-call-card.h"

G_BEGIN_DECLS

#define NATTER_TYPE_TOOL_CALL_GROUP (natter_tool_call_group_get_type ())

G_DECLARE_FINAL_TYPE (NatterToolCallGroup, natter_tool_call_group, NATTER, TOOL_CALL_GROUP, GtkBox)

GtkWidget  *natter_tool_call_group_new     (NatterToolCallCard  *first,
                                            const char          *key);
const char *natter_tool_call_group_get_key (NatterToolCallGroup *self);
void        natter_tool_call_group_add     (NatterToolCallGroup *self,
                                            NatterToolCallCard  *card);

G_END_DECLS
