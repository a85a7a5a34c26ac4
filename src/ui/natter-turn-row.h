/* natter-turn-row.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-blob-store.h"
#include "natter-sessions.h"
#include "natter-turn-item.h"

G_BEGIN_DECLS

#define NATTER_TYPE_TURN_ROW (natter_turn_row_get_type ())

G_DECLARE_FINAL_TYPE (NatterTurnRow, natter_turn_row, NATTER, TURN_ROW, GtkWidget)

GtkWidget      *natter_turn_row_new      (NatterSessions  *sessions,
                                          NatterBlobStore *blobs);
void            natter_turn_row_set_item (NatterTurnRow  *self,
                                          NatterTurnItem *item);
NatterTurnItem *natter_turn_row_get_item (NatterTurnRow  *self);
GtkWidget      *natter_turn_row_get_version_switcher (NatterTurnRow *self);

gboolean   natter_turn_row_read_aloud              (NatterTurnRow *self);
gboolean   natter_turn_row_get_read_aloud_revealed (NatterTurnRow *self);

G_END_DECLS
