/* natter-permission-card.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-sessions.h"

G_BEGIN_DECLS

#define NATTER_TYPE_PERMISSION_CARD (natter_permission_card_get_type ())

G_DECLARE_FINAL_TYPE (NatterPermissionCard, natter_permission_card, NATTER, PERMISSION_CARD, GtkWidget)

GtkWidget  *natter_permission_card_new              (NatterSessions       *sessions,
                                                     const char           *turn_id,
                                                     const char           *tool_call_id,
                                                     const char           *tool_name,
                                                     JsonNode             *request,
                                                     JsonNode             *arguments);
char       *natter_permission_card_describe         (const char           *tool_name,
                                                     JsonNode             *request,
                                                     JsonNode             *arguments);
const char *natter_permission_card_get_description  (NatterPermissionCard *self);
const char *natter_permission_card_get_details      (NatterPermissionCard *self);
void        natter_permission_card_set_details_expanded (NatterPermissionCard *self,
                                                         gboolean              expanded);
const char *natter_permission_card_get_turn_id      (NatterPermissionCard *self);
const char *natter_permission_card_get_tool_call_id (NatterPermissionCard *self);
gboolean    natter_permission_card_focus_default    (NatterPermissionCard *self);

G_END_DECLS
