/* natter-turn-row-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared between natter-turn-row.c and natter-turn-row-tools.c: the
 * presentation of tool calls and prompts inside a turn row.
 */

#pragma once

#include "natter-turn-row.h"

G_BEGIN_DECLS

char       *natter_turn_row_ask_human_question       (NatterTurnToolCall *call);
GtkWidget  *natter_turn_row_answered_question_new    (NatterTurnToolCall *call);
void        natter_turn_row_append_tool_call_card    (GtkBox             *activity_box,
                                                      GtkWidget          *card);
gboolean    natter_turn_row_waits_for_user           (NatterTurnState    *state);
char       *natter_turn_row_pending_async_tool_names (NatterTurnState    *state);
GHashTable *natter_turn_row_prompted_calls           (NatterTurnState    *state);

G_END_DECLS
