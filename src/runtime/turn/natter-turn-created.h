/* natter-turn-created.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define NATTER_TYPE_TURN_CREATED (natter_turn_created_get_type ())

typedef struct _NatterTurnCreated NatterTurnCreated;

GType               natter_turn_created_get_type       (void) G_GNUC_CONST;
NatterTurnCreated  *natter_turn_created_new_from_event (JsonObject        *turn_created);
NatterTurnCreated  *natter_turn_created_ref            (NatterTurnCreated *self);
void                natter_turn_created_unref          (NatterTurnCreated *self);
const char         *natter_turn_created_get_turn_id    (NatterTurnCreated *self);
const char         *natter_turn_created_get_agent_id   (NatterTurnCreated *self);
const char         *natter_turn_created_get_provider   (NatterTurnCreated *self);
const char         *natter_turn_created_get_model      (NatterTurnCreated *self);
JsonObject         *natter_turn_created_get_event      (NatterTurnCreated *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterTurnCreated, natter_turn_created_unref)

G_END_DECLS
