/* natter-ask-human-card.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-sessions.h"

G_BEGIN_DECLS

#define NATTER_TYPE_ASK_HUMAN_CARD (natter_ask_human_card_get_type ())

G_DECLARE_FINAL_TYPE (NatterAskHumanCard, natter_ask_human_card, NATTER, ASK_HUMAN_CARD, GtkWidget)

GtkWidget  *natter_ask_human_card_new              (NatterSessions     *sessions,
                                                    const char         *turn_id,
                                                    const char         *tool_call_id,
                                                    const char         *question);
const char *natter_ask_human_card_get_tool_call_id (NatterAskHumanCard *self);
void        natter_ask_human_card_set_answer       (NatterAskHumanCard *self,
                                                    const char         *answer);
void        natter_ask_human_card_send             (NatterAskHumanCard *self);
gboolean    natter_ask_human_card_focus_default    (NatterAskHumanCard *self);

G_END_DECLS
