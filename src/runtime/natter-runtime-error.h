/* natter-runtime-error.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * NATTER_RUNTIME_ERROR:
 *
 * The error domain of the turn runtime (docs/runtime.md §5–§11); codes
 * are #NatterRuntimeError. Errors of this domain are infrastructure or
 * caller errors: the turn file is left exactly as it was.
 */
#define NATTER_RUNTIME_ERROR (natter_runtime_error_quark ())

/**
 * NatterRuntimeError:
 * @NATTER_RUNTIME_ERROR_AGENT: the agent cannot be resolved, or resolves
 *   to no model (docs/runtime.md §1, §5).
 * @NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND: no model implementation for the
 *   snapshot's `{provider, model}` (docs/runtime.md §6 step 4).
 * @NATTER_RUNTIME_ERROR_TOOL_NOT_FOUND: a snapshot tool has no
 *   implementation, or one whose execution kind differs (docs/runtime.md §6
 *   step 4).
 * @NATTER_RUNTIME_ERROR_INVALID_INPUT: an external input is malformed or
 *   names a call that is not pending (docs/runtime.md §5).
 * @NATTER_RUNTIME_ERROR_TURN_ENDED: an input for a terminal turn
 *   (docs/runtime.md §9).
 * @NATTER_RUNTIME_ERROR_CONTEXT: a context reference is missing, corrupt
 *   or cyclic (docs/runtime.md §11).
 * @NATTER_RUNTIME_ERROR_INVALID_ARGUMENT: a malformed argument to
 *   create_turn (config, context, input).
 * @NATTER_RUNTIME_ERROR_APPEND_REJECTED: the append gate (the reducer)
 *   refused a batch the runtime built; nothing was written. A bug.
 * @NATTER_RUNTIME_ERROR_CLASSIFIER: the permission classifier had no
 *   model, or its model's answer was not the JSON asked for; every call
 *   it should have classified counts as `defer` (docs/runtime.md §7).
 * @NATTER_RUNTIME_ERROR_ELSEWHERE: the turn runs on another device
 *   (docs/format.md §4.5): it is not advanced, resumed or stopped here
 *   unless taken over (natter_turn_runtime_take_over_turn()). The message
 *   names the device.
 *
 * Error codes of %NATTER_RUNTIME_ERROR.
 */
typedef enum
{
  NATTER_RUNTIME_ERROR_AGENT,
  NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND,
  NATTER_RUNTIME_ERROR_TOOL_NOT_FOUND,
  NATTER_RUNTIME_ERROR_INVALID_INPUT,
  NATTER_RUNTIME_ERROR_TURN_ENDED,
  NATTER_RUNTIME_ERROR_CONTEXT,
  NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
  NATTER_RUNTIME_ERROR_APPEND_REJECTED,
  NATTER_RUNTIME_ERROR_CLASSIFIER,
  NATTER_RUNTIME_ERROR_ELSEWHERE,
} NatterRuntimeError;

GQuark natter_runtime_error_quark (void);

G_END_DECLS
