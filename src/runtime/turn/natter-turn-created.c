/* natter-turn-created.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What create_turn wrote: the turn's id and the agent and model it
 * resolved. The caller learns them from the runtime that had them in hand
 * rather than reading back the file the runtime has just created.
 */

#define G_LOG_DOMAIN "natter-turn-runtime"

#include "natter-turn-created.h"

struct _NatterTurnCreated
{
  gatomicrefcount  ref_count;
  JsonObject      *event;
  JsonObject      *resolved;   /* borrowed from @event: agent.resolved */
  JsonObject      *model;      /* borrowed from @event: agent.resolved.model */
};

G_DEFINE_BOXED_TYPE (NatterTurnCreated, natter_turn_created,
                     natter_turn_created_ref, natter_turn_created_unref)

/**
 * natter_turn_created_new_from_event:
 * @turn_created: (transfer none): a validated `turn_created` event
 *   (docs/runtime.md §3), with `agent.resolved.{agentId, model}`
 *
 * Wraps a turn's definition. The runtime builds it only from an event the
 * reducer has accepted, so the members it reads are known to be there.
 *
 * Returns: (transfer full): the record, holding a reference to @turn_created
 */
NatterTurnCreated *
natter_turn_created_new_from_event (JsonObject *turn_created)
{
  NatterTurnCreated *self;

  g_return_val_if_fail (turn_created != NULL, NULL);

  self = g_new0 (NatterTurnCreated, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->event = json_object_ref (turn_created);
  self->resolved = json_object_get_object_member (json_object_get_object_member (turn_created, "agent"),
                                                  "resolved");
  self->model = json_object_get_object_member (self->resolved, "model");
  return self;
}

/**
 * natter_turn_created_ref:
 * @self: a #NatterTurnCreated
 *
 * Returns: (transfer full): @self
 */
NatterTurnCreated *
natter_turn_created_ref (NatterTurnCreated *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * natter_turn_created_unref:
 * @self: (transfer full): a #NatterTurnCreated
 */
void
natter_turn_created_unref (NatterTurnCreated *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_object_unref (self->event);
  g_free (self);
}

/**
 * natter_turn_created_get_turn_id:
 * @self: a #NatterTurnCreated
 *
 * Returns: (transfer none): the new turn's id
 */
const char *
natter_turn_created_get_turn_id (NatterTurnCreated *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return json_object_get_string_member (self->event, "turnId");
}

/**
 * natter_turn_created_get_agent_id:
 * @self: a #NatterTurnCreated
 *
 * Returns: (transfer none): the resolved agent's id (`agent.resolved.agentId`)
 */
const char *
natter_turn_created_get_agent_id (NatterTurnCreated *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return json_object_get_string_member (self->resolved, "agentId");
}

/**
 * natter_turn_created_get_provider:
 * @self: a #NatterTurnCreated
 *
 * Returns: (transfer none): the provider of the model the turn resolved
 *   (`agent.resolved.model.provider`), after the model precedence of
 *   docs/runtime.md §1
 */
const char *
natter_turn_created_get_provider (NatterTurnCreated *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return json_object_get_string_member (self->model, "provider");
}

/**
 * natter_turn_created_get_model:
 * @self: a #NatterTurnCreated
 *
 * Returns: (transfer none): the model name the turn resolved
 *   (`agent.resolved.model.model`)
 */
const char *
natter_turn_created_get_model (NatterTurnCreated *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return json_object_get_string_member (self->model, "model");
}

/**
 * natter_turn_created_get_event:
 * @self: a #NatterTurnCreated
 *
 * Returns: (transfer none): the `turn_created` event as written to the
 *   turn file; do not modify it
 */
JsonObject *
natter_turn_created_get_event (NatterTurnCreated *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->event;
}
