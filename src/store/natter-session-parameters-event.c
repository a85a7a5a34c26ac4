/* natter-session-parameters-event.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session events of schema version 3: their validation (called by
 * natter_session_event_validate()) and their builders. Each states the
 * whole of what it changes — the full set of parameters — so the last one of a kind is all a reader needs and no event
 * depends on another (the fold is in natter-session-parameters-fold.c).
 */

#define G_LOG_DOMAIN "natter-session-schema"

#include "natter-json.h"
#include "natter-session-parameters-event.h"
#include "natter-session-schema-private.h"
#include "natter-store-error.h"

static const char * const parameters_changed_members[] = {
  "type", "sessionId", "ts", "parameters", "systemInstruction", NULL
};

/**
 * natter_session_event_is_v3_type:
 * @type: a session event type
 *
 * Returns: whether @type is one of the event types session schema
 *   version 3 added (docs/format.md §3.5)
 */
gboolean
natter_session_event_is_v3_type (const char *type)
{
  g_return_val_if_fail (type != NULL, FALSE);

  return g_str_equal (type, "parameters_changed");
}

static gboolean
validate_parameters_changed (JsonObject  *event,
                             GError     **error)
{
  JsonObject *parameters;
  const char *instruction = NULL;

  if (!natter_session_schema_check_members (event, parameters_changed_members, "parameters_changed", error))
    return FALSE;
  parameters = natter_json_require_object (event, "parameters", error);
  if (parameters == NULL)
    return FALSE;
  if (!natter_generation_parameters_validate_json (parameters, error))
    {
      g_prefix_error (error, "Field “parameters”: ");
      return FALSE;
    }
  if (!natter_json_optional_string (event, "systemInstruction", &instruction, error))
    return FALSE;
  if (instruction != NULL && instruction[0] == '\0')
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                           "Field “systemInstruction” must not be empty (leave it out for none)");
      return FALSE;
    }
  return TRUE;
}

/**
 * natter_session_schema_validate_v3: (skip)
 * @type: the event's type, one of natter_session_event_is_v3_type()
 * @event: the event, whose `type`, `sessionId` and `ts` were checked
 * @error: return location for a #GError
 *
 * The per-type half of natter_session_event_validate() for the events of
 * schema version 3.
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA
 */
gboolean
natter_session_schema_validate_v3 (const char  *type,
                                   JsonObject  *event,
                                   GError     **error)
{
  g_assert (g_str_equal (type, "parameters_changed"));
  return validate_parameters_changed (event, error);
}


/**
 * natter_session_event_new_parameters_changed:
 * @session_id: the session's id
 * @ts: an ISO-8601 UTC timestamp
 * @parameters: (nullable): the conversation's parameters from now on, in
 *   full; %NULL or empty clears them
 *
 * Builds a `parameters_changed` event (docs/format.md §3.5). Write it
 * with the session layer's writer of later-version events, which raises
 * the file first. It does not validate.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_event_new_parameters_changed (const char                       *session_id,
                                             const char                       *ts,
                                             const NatterGenerationParameters *parameters)
{
  JsonObject *object;

  g_return_val_if_fail (session_id != NULL && ts != NULL, NULL);

  object = natter_session_event_begin ("parameters_changed", session_id, ts);
  if (parameters != NULL)
    {
      json_object_set_object_member (object, "parameters", natter_generation_parameters_to_json (parameters));
      if (parameters->system_instruction != NULL)
        json_object_set_string_member (object, "systemInstruction", parameters->system_instruction);
    }
  else
    json_object_set_object_member (object, "parameters", json_object_new ());
  return natter_session_event_wrap (object);
}
