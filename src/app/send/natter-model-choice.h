/* natter-model-choice.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * NatterModelChoice:
 * @picked: (nullable): the `{provider, model}` the user picked for the
 *   session in the model picker
 * @agent_own: (nullable): the model the chosen agent names itself
 *   (`agent.model`)
 * @last: (nullable): the `{provider, model?}` of the session's last turn
 * @default_provider: (nullable): the provider of the default model
 *   (Preferences)
 * @default_model: (nullable): the default model; %NULL or empty means the
 *   provider's first model
 * @has_registry: whether providers can be listed and resolved at all; without
 *   them only an explicit pick counts
 * @recent: (nullable): the `{provider, model?}` most recently picked or
 *   used in another conversation, which stands in for the default of a
 *   conversation with no model of its own; the caller gives it only
 *   when Preferences name no default, so a default set there wins
 *
 * What is known about the open session when deciding which model its next
 * message goes to. The members are borrowed: the caller keeps them alive
 * while it asks.
 */
typedef struct
{
  JsonObject *picked;
  JsonObject *agent_own;
  JsonObject *last;
  const char *default_provider;
  const char *default_model;
  gboolean    has_registry;
  JsonObject *recent;
} NatterModelChoice;

void        natter_model_choice_shown               (const NatterModelChoice  *choice,
                                                     const char              **provider,
                                                     const char              **model);
JsonObject *natter_model_choice_dup_descriptor      (const NatterModelChoice  *choice);
const char *natter_model_choice_provider_to_resolve (const NatterModelChoice  *choice);
JsonObject *natter_model_choice_later_recent        (JsonObject               *remembered,
                                                     const char               *remembered_at,
                                                     JsonObject               *used,
                                                     const char               *used_at);

G_END_DECLS
