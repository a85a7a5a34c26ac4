/* natter-sse-parser.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A byte-exact Server-Sent Events reader (the WHATWG EventSource parsing
 * rules), the one piece of HTTP-adjacent code Natter writes itself
 * because libsoup has no SSE reader (docs/runtime.md §12).
 */

#pragma once

#include <glib.h>

#include "natter-provider-error.h"

G_BEGIN_DECLS

/**
 * NATTER_SSE_PARSER_DEFAULT_MAX_EVENT_BYTES:
 *
 * The cap used when natter_sse_parser_new() is given 0: 16 MiB, far above
 * any chat-completion chunk yet small enough that a runaway server cannot
 * exhaust memory.
 */
#define NATTER_SSE_PARSER_DEFAULT_MAX_EVENT_BYTES ((gsize) 16 * 1024 * 1024)

/**
 * NATTER_SSE_BARE_JSON_EVENT:
 *
 * The event type under which natter_sse_parser_new()'s parser hands over
 * a line that is not a field but a bare JSON object (it starts with '{'),
 * which some servers write instead of `data:` lines to report a failure.
 */
#define NATTER_SSE_BARE_JSON_EVENT "natter-bare-json-line"

typedef struct _NatterSseParser NatterSseParser;

/**
 * NatterSseEventFunc:
 * @event_name: (nullable): the value of the event's last `event:` field,
 *   or %NULL when it had none or an empty one (the default "message" type)
 * @data: the event's `data:` lines joined with '\n', NUL-terminated
 *   (`data[data_len] == '\0'`); it may itself contain NUL bytes from the
 *   wire, so @data_len is authoritative. Valid only during the call.
 * @data_len: the length of @data in bytes
 * @user_data: the data given to natter_sse_parser_new()
 * @error: return location for a #GError
 *
 * Receives one complete event. Returning %FALSE (with @error set) stops
 * the parser: the pending natter_sse_parser_feed() returns %FALSE with
 * that error and every later feed fails the same way. The function must
 * not feed or free the parser it is called from.
 *
 * Returns: %TRUE to go on reading
 */
typedef gboolean (*NatterSseEventFunc) (const char  *event_name,
                                        const char  *data,
                                        gsize        data_len,
                                        gpointer     user_data,
                                        GError     **error);

NatterSseParser *natter_sse_parser_new    (gsize               max_event_bytes,
                                           NatterSseEventFunc  event_func,
                                           gpointer            user_data,
                                           GDestroyNotify      user_data_destroy);
void             natter_sse_parser_free   (NatterSseParser    *self);
gboolean         natter_sse_parser_feed   (NatterSseParser    *self,
                                           const guint8       *data,
                                           gsize               len,
                                           GError            **error);
gboolean         natter_sse_parser_finish (NatterSseParser    *self,
                                           GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSseParser, natter_sse_parser_free)

G_END_DECLS
