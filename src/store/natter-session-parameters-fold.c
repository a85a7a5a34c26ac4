/* natter-session-parameters-fold.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fold of what session schema version 3 added (docs/format.md §3.5):
 * the conversation's generation parameters. Each event states the whole
 * set, so the last one wins and no
 * event can name something missing: there is nothing to check beyond the
 * version, which the version-2 fold's check already does for every
 * event. Shared by the reducer and the startup scan.
 */

#define G_LOG_DOMAIN "natter-session-reducer"

#include "natter-session-parameters-event.h"
#include "natter-session-reducer-private.h"
#include "natter-session-parameters-state.h"

void
natter_session_v3_fold_clear (NatterSessionV3Fold *fold)
{
  g_clear_pointer (&fold->parameters, natter_generation_parameters_free);
}

/* Folds an event the reducer accepted (its version checked); events of
 * other types change nothing here. */
void
natter_session_v3_fold_commit (NatterSessionV3Fold *fold,
                               JsonObject          *event,
                               const char          *type)
{
  if (g_str_equal (type, "parameters_changed"))
    {
      NatterGenerationParameters *parameters =
        natter_generation_parameters_new_from_json (json_object_get_object_member (event, "parameters"),
                                                    json_object_get_string_member_with_default (event,
                                                                                                "systemInstruction",
                                                                                                NULL));

      g_clear_pointer (&fold->parameters, natter_generation_parameters_free);
      if (natter_generation_parameters_is_empty (parameters))
        natter_generation_parameters_free (parameters);
      else
        fold->parameters = parameters;
    }
}

/**
 * natter_session_state_get_parameters:
 * @self: a #NatterSessionState
 *
 * The generation parameters of the session's last `parameters_changed`.
 *
 * Returns: (transfer none) (nullable): the parameters, or %NULL when none
 *   are kept; valid until @self is freed or has another event applied
 */
const NatterGenerationParameters *
natter_session_state_get_parameters (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->v3.parameters;
}
