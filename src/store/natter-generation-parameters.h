/* natter-generation-parameters.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The generation parameters a person sets for a conversation or for one
 * message (docs/format.md §3.5 `parameters_changed`): temperature, top-p,
 * the answer's token limit, the seed and an added system instruction.
 */

#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * NATTER_TEMPERATURE_MAX:
 *
 * The highest `temperature` kept: OpenAI's range is 0 to 2, and the local
 * servers Natter talks to accept it.
 */
#define NATTER_TEMPERATURE_MAX 2.0

#define NATTER_TYPE_GENERATION_PARAMETERS (natter_generation_parameters_get_type ())

/**
 * NatterGenerationParameters:
 * @has_temperature: whether @temperature is set
 * @temperature: how varied the answer is, 0 to %NATTER_TEMPERATURE_MAX
 * @has_top_p: whether @top_p is set
 * @top_p: nucleus sampling, 0 to 1
 * @max_tokens: the most tokens one model call may answer with; 0: not set
 * @has_seed: whether @seed is set
 * @seed: the sampling seed
 * @system_instruction: (nullable): words added to the agent's system
 *   prompt; never empty
 * @removes_system_instruction: one message's only: it is sent without
 *   its conversation's instruction (@system_instruction is then %NULL)
 *
 * Each member is either set or left to the model's default. The sampling
 * members travel in a turn's `config.parameters` under their wire names
 * (`temperature`, `top_p`, `max_tokens`, `seed`); the instruction in its
 * agent snapshot (docs/format.md §4.2).
 */
typedef struct
{
  gboolean  has_temperature;
  double    temperature;
  gboolean  has_top_p;
  double    top_p;
  gint64    max_tokens;
  gboolean  has_seed;
  gint64    seed;
  char     *system_instruction;
  gboolean  removes_system_instruction;
} NatterGenerationParameters;

GType                       natter_generation_parameters_get_type      (void) G_GNUC_CONST;
NatterGenerationParameters *natter_generation_parameters_new           (void);
NatterGenerationParameters *natter_generation_parameters_copy          (const NatterGenerationParameters *self);
void                        natter_generation_parameters_free          (NatterGenerationParameters       *self);

gboolean                    natter_generation_parameters_is_empty      (const NatterGenerationParameters *self);
gboolean                    natter_generation_parameters_equal         (const NatterGenerationParameters *a,
                                                                        const NatterGenerationParameters *b);
void                        natter_generation_parameters_overlay       (NatterGenerationParameters       *self,
                                                                        const NatterGenerationParameters *top);
void                        natter_generation_parameters_set_system_instruction
                                                                       (NatterGenerationParameters       *self,
                                                                        const char                       *instruction);
void                        natter_generation_parameters_remove_system_instruction
                                                                       (NatterGenerationParameters       *self);

gboolean                    natter_generation_parameters_validate_json (JsonObject                       *parameters,
                                                                        GError                          **error);
NatterGenerationParameters *natter_generation_parameters_new_from_json (JsonObject                       *parameters,
                                                                        const char                       *system_instruction);
JsonObject                 *natter_generation_parameters_to_json       (const NatterGenerationParameters *self);
JsonObject                 *natter_generation_parameters_to_object     (const NatterGenerationParameters *self);
NatterGenerationParameters *natter_generation_parameters_new_from_object (JsonObject                     *object,
                                                                          GError                        **error);
char                       *natter_generation_parameters_to_text       (const NatterGenerationParameters *self);
NatterGenerationParameters *natter_generation_parameters_new_from_text (const char                       *text,
                                                                        GError                          **error);
void                        natter_generation_parameters_add_to_json   (const NatterGenerationParameters *self,
                                                                        JsonObject                       *parameters);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterGenerationParameters, natter_generation_parameters_free)

G_END_DECLS
