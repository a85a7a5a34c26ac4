/* natter-chat-stream-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the two halves of NatterChatStream share: the instance and its
 * tool calls under assembly. natter-chat-stream.c holds the state machine
 * and the public API, natter-chat-stream-decoder.c reads chunks and
 * assembles tool calls from their fragments.
 */

#pragma once

#include "natter-chat-stream.h"

G_BEGIN_DECLS

typedef struct
{
  NatterChatToolCall  pub;        /* the read-only view handed out */
  gint64              index;      /* the server's `index`, or -1 */
  char               *server_id;
  char               *name;
  GString            *arguments;
  char               *minted_id;
  JsonNode           *parsed;
  gsize               parsed_len; /* arguments->len when last parsed */
  gboolean            parsed_once;
} ToolCall;

struct _NatterChatStream
{
  GObject     parent_instance;

  char       *seed;
  JsonParser *parser;       /* reused for every chunk: no per-chunk parser */
  GString    *text;
  GString    *reasoning;
  GPtrArray  *tool_calls;   /* of ToolCall, in the model's order */
  char       *finish_reason;
  JsonObject *usage;
  GError     *failure;      /* sticky: the first error */
  guint       done : 1;     /* `[DONE]` seen, or a whole body read */
  guint       finished : 1; /* natter_chat_stream_finish() called */
};

/* natter-chat-stream.c */
gboolean    _natter_chat_stream_fail                  (NatterChatStream  *self,
                                                       GError           **error,
                                                       GError            *failure);
gboolean    _natter_chat_stream_fail_stream_error     (NatterChatStream  *self,
                                                       GError           **error,
                                                       const char        *server_message);
char       *_natter_chat_stream_describe_server_error (JsonNode          *node);
void        _natter_chat_stream_append_text           (NatterChatStream  *self,
                                                       const char        *delta);
void        _natter_chat_stream_append_reasoning      (NatterChatStream  *self,
                                                       const char        *delta);
void        _natter_chat_stream_trim                  (const char       **data,
                                                       gsize             *len);

/* natter-chat-stream-decoder.c */
void        _natter_chat_stream_tool_call_free        (gpointer           data);
const char *_natter_chat_stream_get_nonempty_string   (JsonObject        *object,
                                                       const char        *member);
gboolean    _natter_chat_stream_apply_object          (NatterChatStream  *self,
                                                       JsonObject        *object,
                                                       gboolean           is_body,
                                                       GError           **error);
void        _natter_chat_stream_settle_tool_calls     (NatterChatStream  *self);

G_END_DECLS
