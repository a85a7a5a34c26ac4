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

/**
 * natter_error_is_unreadable_reply:
 * @message: (nullable): an error message of a model call, as the turn
 *   file keeps it (`model_call_failed.error`, `turn_failed.error`)
 *
 * Whether a model call failed because the server's reply (a streamed
 * chunk, or the whole response) could not be read as JSON, as the chat
 * stream words it (natter-chat-stream.c), whatever name the provider
 * put in place of "The provider". Its message is the parser's,
 * with the bytes that did not parse: for whoever looks into it, not
 * for the headline of the failure. Pure.
 *
 * Returns: %TRUE for a reply that could not be read
 */
gboolean
natter_error_is_unreadable_reply (const char *message)
{
  const char *sent;

  /* The stream's words begin "The provider sent …", and a provider names
   * itself in them before the turn keeps them ("Ollama sent …",
   * natter_openai_provider_stream_error()): the name is not looked at. */
  sent = message != NULL ? strstr (message, " sent ") : NULL;
  if (sent == NULL)
    return FALSE;
  return strstr (sent, " that is not JSON (") != NULL || strstr (sent, " that is not a JSON object: ") != NULL;
}

/**
 * natter_provider_error_keep:
 * @sticky: where a reader of a stream keeps its first error, %NULL so far
 * @failure: (transfer full): that error
 * @error: return location for a #GError: a copy of @failure
 *
 * Keeps @failure as the stream's sticky error, which every later read
 * repeats (natter_provider_error_repeat()): a stream that failed once
 * stays failed (docs/runtime.md §12).
 *
 * Returns: %FALSE, always, for `return natter_provider_error_keep (…);`
 */
gboolean
natter_provider_error_keep (GError  **sticky,
                            GError   *failure,
                            GError  **error)
{
  g_assert (*sticky == NULL);

  *sticky = failure;
  g_propagate_error (error, g_error_copy (failure));
  return FALSE;
}

/**
 * natter_provider_error_repeat:
 * @sticky: (nullable): a stream's sticky error (natter_provider_error_keep())
 * @error: return location for a #GError: a copy of @sticky
 *
 * Repeats a stream's sticky error, if it has one (docs/runtime.md §12).
 *
 * Returns: %TRUE when @sticky was set (and @error now holds a copy of
 *   it), %FALSE when the stream has not failed
 */
gboolean
natter_provider_error_repeat (GError  *sticky,
                              GError **error)
{
  if (sticky == NULL)
    return FALSE;
  g_propagate_error (error, g_error_copy (sticky));
  return TRUE;
}
