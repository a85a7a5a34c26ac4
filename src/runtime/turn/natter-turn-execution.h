/* natter-turn-execution.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-turn-outcome.h"

G_BEGIN_DECLS

#define NATTER_TYPE_TURN_EXECUTION (natter_turn_execution_get_type ())

G_DECLARE_FINAL_TYPE (NatterTurnExecution, natter_turn_execution, NATTER, TURN_EXECUTION, GObject)

const char        *natter_turn_execution_get_turn_id   (NatterTurnExecution  *self);
gboolean           natter_turn_execution_get_settled   (NatterTurnExecution  *self);
NatterTurnOutcome *natter_turn_execution_get_outcome   (NatterTurnExecution  *self);
gboolean           natter_turn_execution_get_streamed  (NatterTurnExecution  *self,
                                                        guint                *model_call_index,
                                                        const char          **text,
                                                        const char          **reasoning);
void               natter_turn_execution_set_cancel_reason (NatterTurnExecution *self,
                                                            const char          *reason);
void               natter_turn_execution_wait_async    (NatterTurnExecution  *self,
                                                        GCancellable         *cancellable,
                                                        GAsyncReadyCallback   callback,
                                                        gpointer              user_data);
NatterTurnOutcome *natter_turn_execution_wait_finish   (NatterTurnExecution  *self,
                                                        GAsyncResult         *result,
                                                        GError              **error);

G_END_DECLS
