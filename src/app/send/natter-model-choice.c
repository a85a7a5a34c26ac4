/* natter-model-choice.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which model the next message of a conversation goes to. The precedence
 * is the user's: a model picked for this conversation wins; else the
 * chosen agent's own model (the runtime resolves it, so the window sends
 * no override); else the model of the conversation's last turn, so a
 * conversation keeps its model; else, for a conversation with none of its
 * own while Preferences name no default, the model most recently picked
 * or used, so that a new chat goes on where the person was (a pick
 * remembered from an earlier run weighed by time against what the
 * conversations used since, natter_model_choice_later_recent()); else the
 * default from Preferences. A
 * provider without a model name means its first model, which the provider
 * registry is asked for before sending, the same rule the command line
 * uses. Kept apart from the window so the rule can be read, and tested,
 * on its own.
 */

#include "config.h"

#include <string.h>

#include "natter-model-choice.h"

/**
 * natter_model_choice_shown:
 * @choice: what is known about the session
 * @provider: (out) (transfer none) (nullable): the provider id
 * @model: (out) (transfer none) (nullable): the model name; %NULL or empty
 *   for the provider's first model
 *
 * The `{provider, model?}` the model picker shows for the session: the
 * pick, else the agent's own model, else the last turn's, else the
 * recent one, else the default. The strings belong to @choice's members.
 */
void
natter_model_choice_shown (const NatterModelChoice  *choice,
                           const char              **provider,
                           const char              **model)
{
  JsonObject *chosen;

  g_return_if_fail (choice != NULL && provider != NULL && model != NULL);

  chosen = choice->picked != NULL ? choice->picked : choice->agent_own != NULL ? choice->agent_own : choice->last;
  if (chosen == NULL)
    chosen = choice->recent;
  if (chosen != NULL)
    {
      *provider = json_object_get_string_member_with_default (chosen, "provider", NULL);
      *model = json_object_get_string_member_with_default (chosen, "model", NULL);
      return;
    }
  *provider = choice->default_provider;
  *model = choice->default_model;
}

/**
 * natter_model_choice_dup_descriptor:
 * @choice: what is known about the session
 *
 * What the send configuration's `agent.model` (docs/sessions.md §9)
 * carries: the pick, else (with a registry) the last turn's model, so a
 * conversation keeps the model and provider of its last turn, else the
 * recent one. An agent
 * naming its own model gets no override unless the user picked one, so the
 * runtime's resolver uses the agent's. A choice without a model name gives
 * no descriptor either.
 *
 * Returns: (transfer full) (nullable): a new `{provider, model}` object,
 *   or %NULL to leave the choice to the agent
 */
JsonObject *
natter_model_choice_dup_descriptor (const NatterModelChoice *choice)
{
  JsonObject *chosen;
  JsonObject *descriptor;

  g_return_val_if_fail (choice != NULL, NULL);

  if (choice->picked == NULL && choice->agent_own != NULL)
    return NULL;
  chosen = choice->picked;
  if (chosen == NULL && choice->has_registry)
    chosen = choice->last != NULL ? choice->last : choice->recent;
  if (chosen == NULL || !json_object_has_member (chosen, "model"))
    return NULL;
  descriptor = json_object_new ();
  json_object_set_string_member (descriptor, "provider", json_object_get_string_member (chosen, "provider"));
  json_object_set_string_member (descriptor, "model", json_object_get_string_member (chosen, "model"));
  return descriptor;
}

/**
 * natter_model_choice_provider_to_resolve:
 * @choice: what is known about the session
 *
 * When no model is named anywhere, the message goes to a provider's first
 * model, which has to be asked for before sending. This says which
 * provider, if any: only when natter_model_choice_dup_descriptor() gives
 * nothing, there is a registry to ask, the agent names no model of its
 * own, and the model shown has no name.
 *
 * Returns: (transfer none) (nullable): the provider id whose first model
 *   the message goes to, or %NULL if nothing is to be resolved
 */
const char *
natter_model_choice_provider_to_resolve (const NatterModelChoice *choice)
{
  g_autoptr(JsonObject) descriptor = NULL;
  const char *provider = NULL;
  const char *model = NULL;

  g_return_val_if_fail (choice != NULL, NULL);

  descriptor = natter_model_choice_dup_descriptor (choice);
  if (descriptor != NULL || !choice->has_registry || choice->agent_own != NULL)
    return NULL;
  natter_model_choice_shown (choice, &provider, &model);
  if (provider == NULL || (model != NULL && model[0] != '\0'))
    return NULL;
  return provider;
}

/**
 * natter_model_choice_later_recent:
 * @remembered: (nullable): the `{provider, model?}` last picked or sent
 *   with in the window, as remembered across restarts (the settings'
 *   `recent-model`)
 * @remembered_at: (nullable): when, as natter_format_ts() writes it;
 *   %NULL when not known
 * @used: (nullable): the model of the conversation with the latest
 *   activity (natter_session_index_get_recent_model())
 * @used_at: (nullable): when that conversation was last active
 *   (natter_session_index_get_recent_model()'s @out_at)
 *
 * Which of the two a new conversation goes on with as
 * #NatterModelChoice.recent when the window has seen no pick or send of
 * its own yet (docs/sessions.md §1, "Who answers"): the later one. A
 * model picked in an empty conversation and never sent with thus
 * survives a restart, yet a conversation continued afterwards (from the
 * command line, or on another device) counts as the later choice.
 * Timestamps of one width in UTC sort as text; at the same moment the
 * pick wins, as it was made to be used. A pick whose time is not known
 * gives way to any model used.
 *
 * Returns: (transfer none) (nullable): @remembered or @used, or %NULL
 *   when both are %NULL
 */
JsonObject *
natter_model_choice_later_recent (JsonObject *remembered,
                                  const char *remembered_at,
                                  JsonObject *used,
                                  const char *used_at)
{
  if (remembered == NULL)
    return used;
  if (used == NULL)
    return remembered;
  if (remembered_at == NULL || remembered_at[0] == '\0')
    return used;
  if (used_at == NULL || used_at[0] == '\0')
    return remembered;
  return strcmp (remembered_at, used_at) >= 0 ? remembered : used;
}
