/* natter-tool-call-card.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-turn-reducer.h"

G_BEGIN_DECLS

#define NATTER_TYPE_TOOL_CALL_CARD (natter_tool_call_card_get_type ())

G_DECLARE_FINAL_TYPE (NatterToolCallCard, natter_tool_call_card, NATTER, TOOL_CALL_CARD, GtkWidget)

GtkWidget  *natter_tool_call_card_new           (NatterTurnToolCall *call);
const char *natter_tool_call_card_get_name      (NatterToolCallCard *self);
const char *natter_tool_call_card_get_status    (NatterToolCallCard *self);
const char *natter_tool_call_card_get_icon_name (NatterToolCallCard *self);
const char *natter_tool_call_card_get_rule      (NatterToolCallCard *self);
const char *natter_tool_call_card_get_arguments (NatterToolCallCard *self);
const char *natter_tool_call_card_get_progress  (NatterToolCallCard *self);
const char *natter_tool_call_card_get_result    (NatterToolCallCard *self);
gboolean    natter_tool_call_card_get_failed    (NatterToolCallCard *self);
gboolean    natter_tool_call_card_get_expanded  (NatterToolCallCard *self);
void        natter_tool_call_card_set_expanded  (NatterToolCallCard *self,
                                                 gboolean            expanded);

G_END_DECLS
