/* natter-provider-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include "natter-provider-error.h"

G_DEFINE_QUARK (natter-provider-error-quark, natter_provider_error)

/* How each server says that the conversation does not fit the model's
 * context window, lowercase. The provider adds OpenAI's error code (and
 * llama.cpp's error type) to its message in brackets, so the codes are
 * matched like wording. */
static const char * const overflow_wordings[] = {
  "context_length_exceeded",              /* OpenAI's error code */
  "exceed_context_size_error",            /* llama.cpp's error type */
  "exceeds the available context size",   /* llama.cpp */
  "maximum context length",               /* vLLM; OpenAI's message */
  "is too long to fit into the model",    /* vLLM's prompt check */
  "exceeds the context length",           /* Ollama */
  "input exceeds context length",         /* Ollama's runner */
  "exceeded max context length",          /* Ollama */
  "when context the overflows",           /* LM Studio ("Trying to keep the first N tokens …") */
  "is greater than the context length",   /* LM Studio ("The number of tokens to keep …") */
  "cannot truncate prompt with n_keep",   /* LM Studio's llama.cpp engine */
  NULL
};

/**
 * natter_error_is_context_overflow:
 * @message: (nullable): an error message of a model call, as the turn
 *   file keeps it (`model_call_failed.error`, `turn_failed.error`)
 *
 * Whether a model call failed because the conversation no longer fits
 * the model's context window (docs/sessions.md §5), as
 * OpenAI (`context_length_exceeded`), llama.cpp ("exceeds the available
 * context size"), vLLM ("maximum context length"), Ollama ("exceeds the
 * context length") and LM Studio ("tokens to keep … greater than the
 * context length") word it. Compacting the conversation is the way on.
 * Pure; matches case-insensitively.
 *
 * Returns: %TRUE for a context overflow
 */
gboolean
natter_error_is_context_overflow (const char *message)
{
  g_autofree char *lower = NULL;

  if (message == NULL)
    return FALSE;
  lower = g_utf8_strdown (message, -1);
  for (guint i = 0; overflow_wordings[i] != NULL; i++)
    if (strstr (lower, overflow_wordings[i]) != NULL)
      return TRUE;
  return FALSE;
}
