/* natter-parameters-input.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Generation parameters as people type them: the text of a command-line
 * option or of a field of the window's Model Settings, read and checked
 * the same way for both front ends.
 */

#pragma once

#include "natter-generation-parameters.h"

G_BEGIN_DECLS

/**
 * NatterParameter:
 * @NATTER_PARAMETER_TEMPERATURE: `temperature`, 0 to 2
 * @NATTER_PARAMETER_TOP_P: `top_p`, 0 to 1
 * @NATTER_PARAMETER_MAX_TOKENS: `max_tokens`, a whole number ≥ 1
 * @NATTER_PARAMETER_SEED: `seed`, a whole number
 *
 * The sampling members of #NatterGenerationParameters a person types.
 */
typedef enum
{
  NATTER_PARAMETER_TEMPERATURE,
  NATTER_PARAMETER_TOP_P,
  NATTER_PARAMETER_MAX_TOKENS,
  NATTER_PARAMETER_SEED,
} NatterParameter;

gboolean natter_parameters_input_set    (NatterGenerationParameters       *self,
                                         NatterParameter                   which,
                                         const char                       *text,
                                         GError                          **error);
char    *natter_parameters_input_format (const NatterGenerationParameters *self,
                                         NatterParameter                   which);

G_END_DECLS
