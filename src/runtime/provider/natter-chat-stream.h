/* natter-chat-stream.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The assembler of one model step from an OpenAI-compatible chat
 * completion: streamed `chat.completion.chunk` objects or one
 * `chat.completion` body (docs/runtime.md §3, §12).
 */

#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "natter-provider-error.h"

G_BEGIN_DECLS

/**
 * NatterChatToolCall:
 * @id: the tool call id: the server's, or a minted
 *   `call_<seed>_<position>` when the server sent none (or repeated an id
 *   already used by an earlier call of the same step)
 * @id_generated: %TRUE when @id was minted
 * @name: the tool name; "" if the server never sent one
 * @arguments: the raw arguments text exactly as concatenated from the
 *   fragments ("" if none were sent)
 * @parsed_arguments: (nullable): the arguments as a JSON object; an empty
 *   @arguments gives `{}`; %NULL when @malformed
 * @malformed: %TRUE when @arguments is not one JSON object (unparseable,
 *   another JSON type, or not storable losslessly). Such a call must not be
 *   executed: the runtime answers it with an error result.
 *
 * One assembled tool call, owned by the #NatterChatStream; read-only.
 */
typedef struct
{
  const char *id;
  gboolean    id_generated;
  const char *name;
  const char *arguments;
  JsonNode   *parsed_arguments;
  gboolean    malformed;
} NatterChatToolCall;

#define NATTER_TYPE_CHAT_STREAM (natter_chat_stream_get_type ())
G_DECLARE_FINAL_TYPE (NatterChatStream, natter_chat_stream, NATTER, CHAT_STREAM, GObject)

NatterChatStream         *natter_chat_stream_new                      (const char        *tool_call_id_seed);

gboolean                  natter_chat_stream_feed_chunk               (NatterChatStream  *self,
                                                                       JsonObject        *chunk,
                                                                       GError           **error);
gboolean                  natter_chat_stream_feed_sse_event           (NatterChatStream  *self,
                                                                       const char        *event_name,
                                                                       const char        *data,
                                                                       gsize              len,
                                                                       GError           **error);
gboolean                  natter_chat_stream_feed_sse_data            (NatterChatStream  *self,
                                                                       const char        *data,
                                                                       gsize              len,
                                                                       GError           **error);
gboolean                  natter_chat_stream_feed_json_body           (NatterChatStream  *self,
                                                                       const char        *body,
                                                                       gsize              len,
                                                                       GError           **error);
gboolean                  natter_chat_stream_finish                   (NatterChatStream  *self,
                                                                       GError           **error);

gboolean                  natter_chat_stream_get_done                 (NatterChatStream  *self);
const char               *natter_chat_stream_get_text                 (NatterChatStream  *self);
const char               *natter_chat_stream_get_reasoning            (NatterChatStream  *self);
guint                     natter_chat_stream_get_n_tool_calls         (NatterChatStream  *self);
const NatterChatToolCall *natter_chat_stream_get_tool_call            (NatterChatStream  *self,
                                                                       guint              position);
const char               *natter_chat_stream_get_finish_reason        (NatterChatStream  *self);
const char               *natter_chat_stream_get_server_finish_reason (NatterChatStream  *self);
JsonObject               *natter_chat_stream_get_usage                (NatterChatStream  *self);
JsonNode                 *natter_chat_stream_build_message            (NatterChatStream  *self);

G_END_DECLS
