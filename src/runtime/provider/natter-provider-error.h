/* natter-provider-error.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * NATTER_PROVIDER_ERROR:
 *
 * The error domain of a model provider call in the runtime layer; codes
 * are #NatterProviderError (docs/runtime.md §9, §12).
 */
#define NATTER_PROVIDER_ERROR (natter_provider_error_quark ())

/**
 * NatterProviderError:
 * @NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE: one Server-Sent Event (or one of
 *   its lines) exceeds the configured cap; nothing was truncated silently.
 * @NATTER_PROVIDER_ERROR_TRUNCATED_STREAM: the response ended before the
 *   model said it was finished (no finish reason and no `[DONE]`), or in
 *   the middle of an event.
 * @NATTER_PROVIDER_ERROR_STREAM_ERROR: the server reported an error inside
 *   the response: an `{"error":…}` object, an `event: error`, or a
 *   `finish_reason` of `"error"`. The message carries the server's text.
 * @NATTER_PROVIDER_ERROR_BAD_RESPONSE: a body or chunk is not the JSON an
 *   OpenAI-compatible server sends (unparseable, or not an object).
 * @NATTER_PROVIDER_ERROR_HTTP: the server answered with an HTTP error
 *   status.
 * @NATTER_PROVIDER_ERROR_UNREACHABLE: the endpoint could not be reached
 *   (DNS, refused connection, TLS failure).
 * @NATTER_PROVIDER_ERROR_TIMEOUT: the server stopped answering for longer
 *   than the allowed time.
 * @NATTER_PROVIDER_ERROR_CANCELLED: the call was cancelled by the user.
 * @NATTER_PROVIDER_ERROR_UNSUPPORTED: the server does not offer what was
 *   asked of it, e.g. pulling a model from a server that is not Ollama
 *   (docs/runtime.md §13).
 * @NATTER_PROVIDER_ERROR_MODEL_NOT_FOUND: the server has no model of
 *   that name: Ollama's 404 for a model it was asked to describe or
 *   delete, or a pull of a name its library does not have
 *   (docs/runtime.md §13).
 * @NATTER_PROVIDER_ERROR_DISK_FULL: the server ran out of disk space
 *   while pulling a model (docs/runtime.md §13).
 *
 * Error codes of %NATTER_PROVIDER_ERROR.
 */
typedef enum
{
  NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE,
  NATTER_PROVIDER_ERROR_TRUNCATED_STREAM,
  NATTER_PROVIDER_ERROR_STREAM_ERROR,
  NATTER_PROVIDER_ERROR_BAD_RESPONSE,
  NATTER_PROVIDER_ERROR_HTTP,
  NATTER_PROVIDER_ERROR_UNREACHABLE,
  NATTER_PROVIDER_ERROR_TIMEOUT,
  NATTER_PROVIDER_ERROR_CANCELLED,
  NATTER_PROVIDER_ERROR_UNSUPPORTED,
  NATTER_PROVIDER_ERROR_MODEL_NOT_FOUND,
  NATTER_PROVIDER_ERROR_DISK_FULL,
} NatterProviderError;

GQuark   natter_provider_error_quark      (void);
gboolean natter_error_is_context_overflow (const char *message);
gboolean natter_error_is_unreadable_reply (const char *message);
gboolean natter_provider_error_keep       (GError    **sticky,
                                           GError     *failure,
                                           GError    **error);
gboolean natter_provider_error_repeat     (GError     *sticky,
                                           GError    **error);

G_END_DECLS
