/* natter-generation-parameters.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a person may set about how a model answers, for a conversation
 * (kept in its log, docs/format.md §3.5) or for one message: the typed
 * form the session layer merges, and the JSON form the logs and turns
 * hold. One validator serves both the session schema and the writers, so
 * that what is written is exactly what reads back.
 */

#define G_LOG_DOMAIN "natter-store"

#include <math.h>
#include <string.h>

#include "natter-generation-parameters.h"
#include "natter-json.h"
#include "natter-store-error.h"

G_DEFINE_BOXED_TYPE (NatterGenerationParameters, natter_generation_parameters,
                     natter_generation_parameters_copy, natter_generation_parameters_free)

/**
 * natter_generation_parameters_new:
 *
 * Returns: (transfer full): parameters with nothing set: every model
 *   default applies
 */
NatterGenerationParameters *
natter_generation_parameters_new (void)
{
  return g_new0 (NatterGenerationParameters, 1);
}

/**
 * natter_generation_parameters_copy:
 * @self: parameters
 *
 * Returns: (transfer full): an independent copy of @self
 */
NatterGenerationParameters *
natter_generation_parameters_copy (const NatterGenerationParameters *self)
{
  NatterGenerationParameters *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_memdup2 (self, sizeof *self);
  copy->system_instruction = g_strdup (self->system_instruction);
  return copy;
}

/**
 * natter_generation_parameters_free:
 * @self: (transfer full) (nullable): parameters
 */
void
natter_generation_parameters_free (NatterGenerationParameters *self)
{
  if (self == NULL)
    return;
  g_free (self->system_instruction);
  g_free (self);
}

/**
 * natter_generation_parameters_is_empty:
 * @self: (nullable): parameters
 *
 * Returns: whether nothing is set (%NULL counts as empty)
 */
gboolean
natter_generation_parameters_is_empty (const NatterGenerationParameters *self)
{
  return self == NULL ||
         (!self->has_temperature && !self->has_top_p && self->max_tokens == 0 &&
          !self->has_seed && self->system_instruction == NULL && !self->removes_system_instruction);
}

/**
 * natter_generation_parameters_equal:
 * @a: (nullable): parameters
 * @b: (nullable): other parameters
 *
 * %NULL equals an empty set.
 *
 * Returns: whether @a and @b set the same members to the same values
 */
gboolean
natter_generation_parameters_equal (const NatterGenerationParameters *a,
                                    const NatterGenerationParameters *b)
{
  if (a == NULL || b == NULL)
    return natter_generation_parameters_is_empty (a) && natter_generation_parameters_is_empty (b);
  return a->has_temperature == b->has_temperature &&
         (!a->has_temperature || a->temperature == b->temperature) &&
         a->has_top_p == b->has_top_p &&
         (!a->has_top_p || a->top_p == b->top_p) &&
         a->max_tokens == b->max_tokens &&
         a->has_seed == b->has_seed &&
         (!a->has_seed || a->seed == b->seed) &&
         g_strcmp0 (a->system_instruction, b->system_instruction) == 0 &&
         a->removes_system_instruction == b->removes_system_instruction;
}

/**
 * natter_generation_parameters_overlay:
 * @self: parameters, changed in place
 * @top: (nullable): parameters that win
 *
 * Sets every member @top sets, keeping the others of @self: a message's
 * own parameters over its conversation's (docs/sessions.md §15). A
 * message that removes the instruction leaves @self without one.
 */
void
natter_generation_parameters_overlay (NatterGenerationParameters       *self,
                                      const NatterGenerationParameters *top)
{
  g_return_if_fail (self != NULL);

  if (top == NULL)
    return;
  if (top->has_temperature)
    {
      self->has_temperature = TRUE;
      self->temperature = top->temperature;
    }
  if (top->has_top_p)
    {
      self->has_top_p = TRUE;
      self->top_p = top->top_p;
    }
  if (top->max_tokens > 0)
    self->max_tokens = top->max_tokens;
  if (top->has_seed)
    {
      self->has_seed = TRUE;
      self->seed = top->seed;
    }
  if (top->system_instruction != NULL || top->removes_system_instruction)
    natter_generation_parameters_set_system_instruction (self, top->system_instruction);
}

/**
 * natter_generation_parameters_set_system_instruction:
 * @self: parameters
 * @instruction: (nullable): the added instruction; %NULL, empty or only
 *   white space removes it
 *
 * Sets the instruction without its leading and trailing white space,
 * in place of any, or of natter_generation_parameters_remove_system_instruction().
 */
void
natter_generation_parameters_set_system_instruction (NatterGenerationParameters *self,
                                                     const char                 *instruction)
{
  g_autofree char *stripped = NULL;

  g_return_if_fail (self != NULL);

  if (instruction != NULL)
    stripped = g_strstrip (g_strdup (instruction));
  g_free (self->system_instruction);
  self->system_instruction = stripped != NULL && stripped[0] != '\0' ? g_steal_pointer (&stripped) : NULL;
  self->removes_system_instruction = FALSE;
}

/**
 * natter_generation_parameters_remove_system_instruction:
 * @self: one message's parameters
 *
 * Makes the message go without its conversation's added instruction
 * (`natter send --system ""`): laid over the conversation's parameters
 * (natter_generation_parameters_overlay()) they have none, and a turn's
 * `config.messageParameters` says so with an empty `systemInstruction`
 * (docs/format.md §3.5).
 */
void
natter_generation_parameters_remove_system_instruction (NatterGenerationParameters *self)
{
  g_return_if_fail (self != NULL);

  g_clear_pointer (&self->system_instruction, g_free);
  self->removes_system_instruction = TRUE;
}

static gboolean
number_member (JsonObject  *object,
               const char  *member,
               double       max,
               double      *out_value,
               GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);
  GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  double value;

  if (type == G_TYPE_INT64)
    value = (double) json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    value = json_node_get_double (node);
  else
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “%s” must be a number", member);
      return FALSE;
    }
  if (!isfinite (value) || value < 0 || value > max)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “%s” must be between 0 and %g", member, max);
      return FALSE;
    }
  if (out_value != NULL)
    *out_value = value;
  return TRUE;
}

/**
 * natter_generation_parameters_validate_json:
 * @parameters: (transfer none): a `parameters` object of
 *   `parameters_changed`
 * @error: return location for a #GError
 *
 * Checks the closed object of docs/format.md §3.5: each member optional,
 * `temperature` a number from 0 to %NATTER_TEMPERATURE_MAX, `top_p` a
 * number from 0 to 1, `max_tokens` an integer ≥ 1, `seed` an integer, and
 * no other member.
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA
 */
gboolean
natter_generation_parameters_validate_json (JsonObject  *parameters,
                                            GError     **error)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  g_return_val_if_fail (parameters != NULL, FALSE);

  json_object_iter_init (&iter, parameters);
  while (json_object_iter_next (&iter, &name, &member))
    {
      gboolean ok;

      if (g_str_equal (name, "temperature"))
        ok = number_member (parameters, name, NATTER_TEMPERATURE_MAX, NULL, error);
      else if (g_str_equal (name, "top_p"))
        ok = number_member (parameters, name, 1.0, NULL, error);
      else if (g_str_equal (name, "max_tokens"))
        ok = natter_json_require_int_at_least (parameters, name, 1, NULL, error);
      else if (g_str_equal (name, "seed"))
        ok = natter_json_require_int_at_least (parameters, name, G_MININT64, NULL, error);
      else
        {
          g_autofree char *shown = g_utf8_make_valid (name, MIN (strlen (name), 64));

          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "The generation parameters have the unknown field “%s”", shown);
          ok = FALSE;
        }
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/**
 * natter_generation_parameters_new_from_json:
 * @parameters: (transfer none) (nullable): a valid `parameters` object
 *   (natter_generation_parameters_validate_json())
 * @system_instruction: (nullable): the added instruction
 *
 * Returns: (transfer full): the typed parameters
 */
NatterGenerationParameters *
natter_generation_parameters_new_from_json (JsonObject *parameters,
                                            const char *system_instruction)
{
  NatterGenerationParameters *self = natter_generation_parameters_new ();

  if (parameters != NULL)
    {
      self->has_temperature = json_object_has_member (parameters, "temperature") &&
                              number_member (parameters, "temperature", NATTER_TEMPERATURE_MAX,
                                             &self->temperature, NULL);
      self->has_top_p = json_object_has_member (parameters, "top_p") &&
                        number_member (parameters, "top_p", 1.0, &self->top_p, NULL);
      if (json_object_has_member (parameters, "max_tokens"))
        natter_json_require_int_at_least (parameters, "max_tokens", 1, &self->max_tokens, NULL);
      self->has_seed = json_object_has_member (parameters, "seed") &&
                       natter_json_require_int_at_least (parameters, "seed", G_MININT64, &self->seed, NULL);
    }
  natter_generation_parameters_set_system_instruction (self, system_instruction);
  return self;
}

/**
 * natter_generation_parameters_add_to_json:
 * @self: parameters
 * @parameters: (transfer none): an object, such as a turn's
 *   `config.parameters` being built
 *
 * Sets the sampling members @self sets on @parameters under their wire
 * names, replacing members of those names. The instruction is not a
 * sampling parameter and is left out.
 */
void
natter_generation_parameters_add_to_json (const NatterGenerationParameters *self,
                                          JsonObject                       *parameters)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (parameters != NULL);

  if (self->has_temperature)
    json_object_set_double_member (parameters, "temperature", self->temperature);
  if (self->has_top_p)
    json_object_set_double_member (parameters, "top_p", self->top_p);
  if (self->max_tokens > 0)
    json_object_set_int_member (parameters, "max_tokens", self->max_tokens);
  if (self->has_seed)
    json_object_set_int_member (parameters, "seed", self->seed);
}

/**
 * natter_generation_parameters_to_json:
 * @self: parameters
 *
 * Returns: (transfer full): a new object with the sampling members @self
 *   sets (natter_generation_parameters_add_to_json()); `{}` when none is
 */
JsonObject *
natter_generation_parameters_to_json (const NatterGenerationParameters *self)
{
  JsonObject *parameters = json_object_new ();

  g_return_val_if_fail (self != NULL, parameters);

  natter_generation_parameters_add_to_json (self, parameters);
  return parameters;
}

/**
 * natter_generation_parameters_to_object:
 * @self: parameters
 *
 * The parameters as the members of `parameters_changed` (docs/format.md
 * §3.5), `{"parameters": {…}, "systemInstruction"?: …}`: the shape a
 * turn's `config.messageParameters` (docs/format.md §4.2) and the index
 * cache share.
 *
 * Returns: (transfer full): a new object
 */
JsonObject *
natter_generation_parameters_to_object (const NatterGenerationParameters *self)
{
  JsonObject *object = json_object_new ();

  g_return_val_if_fail (self != NULL, object);

  json_object_set_object_member (object, "parameters", natter_generation_parameters_to_json (self));
  if (self->system_instruction != NULL)
    json_object_set_string_member (object, "systemInstruction", self->system_instruction);
  /* One message's: sent without its conversation's instruction. */
  else if (self->removes_system_instruction)
    json_object_set_string_member (object, "systemInstruction", "");
  return object;
}

/**
 * natter_generation_parameters_new_from_object:
 * @object: (transfer none): what natter_generation_parameters_to_object()
 *   made, as read from a file
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the parameters, or %NULL with
 *   %NATTER_STORE_ERROR_SCHEMA when @object is not such an object (a
 *   `parameters` of natter_generation_parameters_validate_json()'s rules,
 *   a string `systemInstruction` if any)
 */
NatterGenerationParameters *
natter_generation_parameters_new_from_object (JsonObject  *object,
                                              GError     **error)
{
  NatterGenerationParameters *self;
  JsonNode *parameters;
  JsonNode *instruction;

  g_return_val_if_fail (object != NULL, NULL);

  parameters = json_object_get_member (object, "parameters");
  instruction = json_object_get_member (object, "systemInstruction");
  if (parameters == NULL || !JSON_NODE_HOLDS_OBJECT (parameters) ||
      !natter_generation_parameters_validate_json (json_node_get_object (parameters), error) ||
      (instruction != NULL && (!JSON_NODE_HOLDS_VALUE (instruction) ||
                               json_node_get_value_type (instruction) != G_TYPE_STRING)))
    {
      if (error != NULL && *error == NULL)
        g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                             "Not a set of generation parameters");
      return NULL;
    }
  self = natter_generation_parameters_new_from_json (json_node_get_object (parameters),
                                                     instruction != NULL ? json_node_get_string (instruction) : NULL);
  /* Empty: a message's, sent without its conversation's instruction. */
  if (instruction != NULL && self->system_instruction == NULL)
    natter_generation_parameters_remove_system_instruction (self);
  return self;
}

/**
 * natter_generation_parameters_to_text:
 * @self: parameters
 *
 * The parameters as one line of JSON, `{"parameters": {…},
 * "systemInstruction"?: …}` — the members of `parameters_changed`
 * (docs/format.md §3.5) — for a cache to keep beside an index entry.
 *
 * Returns: (transfer full): the text
 */
char *
natter_generation_parameters_to_text (const NatterGenerationParameters *self)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);

  g_return_val_if_fail (self != NULL, NULL);

  json_node_take_object (root, natter_generation_parameters_to_object (self));
  return natter_json_to_text (root, FALSE, NULL);
}

/**
 * natter_generation_parameters_new_from_text:
 * @text: what natter_generation_parameters_to_text() wrote
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the parameters, or %NULL with
 *   %NATTER_STORE_ERROR_SCHEMA (or an error of natter_json_parse(), such
 *   as %NATTER_STORE_ERROR_TOO_DEEP) when @text is not such a line
 */
NatterGenerationParameters *
natter_generation_parameters_new_from_text (const char  *text,
                                            GError     **error)
{
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (text != NULL, NULL);

  /* A cache file is a file: read with the depth limit of every read. */
  root = natter_json_parse (text, -1, error);
  if (root == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA, "Not a set of generation parameters");
      return NULL;
    }
  return natter_generation_parameters_new_from_object (json_node_get_object (root), error);
}
