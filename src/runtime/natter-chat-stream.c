/* natter-chat-stream.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The state machine of a chat stream and its public API: what may be fed
 * when, SSE events and whole bodies, sticky failures, settling. Reading a
 * chunk and assembling tool calls is in natter-chat-stream-decoder.c.
 */

#define G_LOG_DOMAIN "natter-chat-stream"

#include <string.h>

#include "natter-chat-stream-private.h"
#include "natter-json.h"
#include "natter-sse-parser.h"

/* Error text quoted from a server is cut here so that a hostile or broken
 * server cannot put megabytes into a turn file's error field. */
#define MAX_QUOTED_CHARS 1000

G_DEFINE_FINAL_TYPE (NatterChatStream, natter_chat_stream, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TOOL_CALL_ID_SEED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  TEXT_DELTA,
  REASONING_DELTA,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
natter_chat_stream_finalize (GObject *object)
{
  NatterChatStream *self = (NatterChatStream *) object;

  g_free (self->seed);
  g_clear_object (&self->parser);
  g_string_free (self->text, TRUE);
  g_string_free (self->reasoning, TRUE);
  g_ptr_array_unref (self->tool_calls);
  g_free (self->finish_reason);
  g_clear_pointer (&self->usage, json_object_unref);
  g_clear_error (&self->failure);

  G_OBJECT_CLASS (natter_chat_stream_parent_class)->finalize (object);
}

static void
natter_chat_stream_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  NatterChatStream *self = NATTER_CHAT_STREAM (object);

  switch (prop_id)
    {
    case PROP_TOOL_CALL_ID_SEED:
      g_value_set_string (value, self->seed);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_chat_stream_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  NatterChatStream *self = NATTER_CHAT_STREAM (object);

  switch (prop_id)
    {
    case PROP_TOOL_CALL_ID_SEED:
      g_free (self->seed);
      self->seed = g_value_dup_string (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_chat_stream_class_init (NatterChatStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_chat_stream_finalize;
  object_class->get_property = natter_chat_stream_get_property;
  object_class->set_property = natter_chat_stream_set_property;

  /**
   * NatterChatStream:tool-call-id-seed:
   *
   * Makes minted tool call ids unique per model call and stable across
   * re-reads, e.g. "<turnId>-<modelCallIndex>".
   */
  properties[PROP_TOOL_CALL_ID_SEED] =
    g_param_spec_string ("tool-call-id-seed", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterChatStream::text-delta:
   * @self: the stream
   * @delta: the text just received, never empty
   *
   * Emitted for every piece of assistant text as it arrives: the live-only
   * `text_delta` of docs/runtime.md §3.
   */
  signals[TEXT_DELTA] =
    g_signal_new ("text-delta",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * NatterChatStream::reasoning-delta:
   * @self: the stream
   * @delta: the reasoning just received, never empty
   *
   * Emitted for every piece of reasoning as it arrives: the live-only
   * `reasoning_delta` of docs/runtime.md §3.
   */
  signals[REASONING_DELTA] =
    g_signal_new ("reasoning-delta",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
natter_chat_stream_init (NatterChatStream *self)
{
  self->parser = json_parser_new ();
  self->text = g_string_new (NULL);
  self->reasoning = g_string_new (NULL);
  self->tool_calls = g_ptr_array_new_with_free_func (_natter_chat_stream_tool_call_free);
}

/**
 * natter_chat_stream_new:
 * @tool_call_id_seed: (nullable): makes minted tool call ids unique per
 *   model call, e.g. "<turnId>-<modelCallIndex>"
 *
 * Creates the assembler of one model step (docs/runtime.md §12). A tool
 * call the server sent without an id gets `call_<seed>_<position>`, where
 * position is its 0-based place among the step's tool calls; so the same
 * bytes always give the same ids, however they were split. Without a seed
 * the id is `call_<position>`.
 *
 * Returns: (transfer full): a new stream
 */
NatterChatStream *
natter_chat_stream_new (const char *tool_call_id_seed)
{
  return g_object_new (NATTER_TYPE_CHAT_STREAM,
                       "tool-call-id-seed", tool_call_id_seed,
                       NULL);
}

/* Server text quoted in an error message: valid UTF-8, bounded. */
static char *
quote_server_text (const char *text,
                   gssize      len)
{
  g_autofree char *valid = g_utf8_make_valid (text, len);

  g_strstrip (valid);
  if (g_utf8_strlen (valid, -1) > MAX_QUOTED_CHARS)
    {
      char *cut = g_utf8_offset_to_pointer (valid, MAX_QUOTED_CHARS);

      return g_strdup_printf ("%.*s…", (int) (cut - valid), valid);
    }
  return g_steal_pointer (&valid);
}

gboolean
_natter_chat_stream_fail (NatterChatStream  *self,
                          GError           **error,
                          GError            *failure)
{
  g_assert (self->failure == NULL);

  self->failure = failure;
  g_propagate_error (error, g_error_copy (failure));
  return FALSE;
}

static gboolean
check_failed (NatterChatStream  *self,
              GError           **error)
{
  if (self->failure == NULL)
    return FALSE;
  g_propagate_error (error, g_error_copy (self->failure));
  return TRUE;
}

gboolean
_natter_chat_stream_fail_stream_error (NatterChatStream  *self,
                                       GError           **error,
                                       const char        *server_message)
{
  return _natter_chat_stream_fail (self, error,
                                   g_error_new (NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR,
                                                "The provider reported an error: %s", server_message));
}

/* The text of an `error` member: a string, or an object with a message
 * (and maybe a code), as OpenAI, OpenRouter, vLLM and Ollama send. */
char *
_natter_chat_stream_describe_server_error (JsonNode *node)
{
  g_autofree char *serialized = NULL;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return quote_server_text (json_node_get_string (node), -1);

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      const char *message = _natter_chat_stream_get_nonempty_string (object, "message");
      JsonNode *code = json_object_get_member (object, "code");
      g_autofree char *quoted = NULL;

      if (message != NULL)
        {
          quoted = quote_server_text (message, -1);
          if (code != NULL && JSON_NODE_HOLDS_VALUE (code))
            {
              if (json_node_get_value_type (code) == G_TYPE_INT64)
                return g_strdup_printf ("%s (code %" G_GINT64_FORMAT ")", quoted,
                                        json_node_get_int (code));
              if (json_node_get_value_type (code) == G_TYPE_STRING)
                {
                  g_autofree char *quoted_code = quote_server_text (json_node_get_string (code), -1);

                  return g_strdup_printf ("%s (code %s)", quoted, quoted_code);
                }
            }
          return g_steal_pointer (&quoted);
        }
    }

  serialized = natter_json_to_text (node, FALSE, NULL);
  return quote_server_text (serialized, -1);
}

void
_natter_chat_stream_append_text (NatterChatStream *self,
                                 const char       *delta)
{
  if (delta == NULL || delta[0] == '\0')
    return;
  g_string_append (self->text, delta);
  g_signal_emit (self, signals[TEXT_DELTA], 0, delta);
}

void
_natter_chat_stream_append_reasoning (NatterChatStream *self,
                                      const char       *delta)
{
  if (delta == NULL || delta[0] == '\0')
    return;
  g_string_append (self->reasoning, delta);
  g_signal_emit (self, signals[REASONING_DELTA], 0, delta);
}

/**
 * natter_chat_stream_feed_chunk:
 * @self: a stream
 * @chunk: (transfer none): one `chat.completion.chunk` object
 * @error: return location for a #GError
 *
 * Applies one chunk (docs/runtime.md §12): text deltas (emitting
 * #NatterChatStream::text-delta), reasoning from `reasoning_content` or
 * `reasoning` (only one of them per chunk, `reasoning_content` preferred;
 * emitting #NatterChatStream::reasoning-delta), tool call fragments
 * assembled by `index`, the finish reason of choice 0, and `usage` (also
 * from a usage-only chunk with empty `choices`, and from a vendor
 * extension object such as Groq's `x_groq.usage`, which wins over a
 * standard `usage` reported before it; the last report wins).
 *
 * Returns: %TRUE on success; %FALSE with
 *   %NATTER_PROVIDER_ERROR_STREAM_ERROR when the chunk carries an `error`
 *   (its message quoted) or finishes with reason "error". Everything
 *   received before, and the rest of the failing chunk, stays readable.
 *   After a failure every feed fails again with a copy of the same error.
 */
gboolean
natter_chat_stream_feed_chunk (NatterChatStream  *self,
                               JsonObject        *chunk,
                               GError           **error)
{
  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), FALSE);
  g_return_val_if_fail (chunk != NULL, FALSE);
  g_return_val_if_fail (!self->finished, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (check_failed (self, error))
    return FALSE;

  return _natter_chat_stream_apply_object (self, chunk, FALSE, error);
}

static JsonObject *
parse_object (NatterChatStream  *self,
              const char        *data,
              gsize              len,
              const char        *what,
              GError           **error)
{
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;

  if (!natter_json_parser_load_external (self->parser, data, len, &local_error))
    {
      g_autofree char *quoted = quote_server_text (data, MIN (len, 200));

      _natter_chat_stream_fail (self, error,
                                g_error_new (NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                             "The provider sent %s that is not JSON (%s): %s",
                                             what, local_error->message, quoted));
      return NULL;
    }

  root = json_parser_get_root (self->parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *quoted = quote_server_text (data, MIN (len, 200));

      _natter_chat_stream_fail (self, error,
                                g_error_new (NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                             "The provider sent %s that is not a JSON object: %s",
                                             what, quoted));
      return NULL;
    }

  return json_node_get_object (root);
}

static gboolean
is_json_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void
_natter_chat_stream_trim (const char **data,
                          gsize       *len)
{
  while (*len > 0 && is_json_space ((*data)[0]))
    {
      (*data)++;
      (*len)--;
    }
  while (*len > 0 && is_json_space ((*data)[*len - 1]))
    (*len)--;
}

/* `event: error`: the data is an error object, a bare message object, or
 * plain text. */
static gboolean
fail_from_error_event (NatterChatStream  *self,
                       const char        *data,
                       gsize              len,
                       GError           **error)
{
  g_autofree char *message = NULL;

  if (len > 0 && natter_json_parser_load_external (self->parser, data, len, NULL))
    {
      JsonNode *root = json_parser_get_root (self->parser);
      JsonObject *object = root != NULL && JSON_NODE_HOLDS_OBJECT (root)
                           ? json_node_get_object (root) : NULL;
      JsonNode *inner = object != NULL ? json_object_get_member (object, "error") : NULL;

      if (inner != NULL && !JSON_NODE_HOLDS_NULL (inner))
        message = _natter_chat_stream_describe_server_error (inner);
      else if (root != NULL)
        message = _natter_chat_stream_describe_server_error (root);
    }

  if (message == NULL)
    message = len > 0 ? quote_server_text (data, len) : g_strdup ("no details given");

  return _natter_chat_stream_fail_stream_error (self, error, message);
}

/* A bare JSON line where `data:` lines were expected: a server's way to
 * report a failure, `{"error":…}`. Any other such line is not part of the
 * stream, as the standard has it, and is left alone. */
static gboolean
apply_bare_json_line (NatterChatStream  *self,
                      const char        *data,
                      gsize              len,
                      GError           **error)
{
  JsonNode *root;
  JsonNode *inner;
  g_autofree char *message = NULL;

  if (len == 0 || !natter_json_parser_load_external (self->parser, data, len, NULL))
    return TRUE;
  root = json_parser_get_root (self->parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return TRUE;
  inner = json_object_get_member (json_node_get_object (root), "error");
  if (inner == NULL || JSON_NODE_HOLDS_NULL (inner))
    {
      g_debug ("Ignoring a JSON line outside the stream's events");
      return TRUE;
    }
  message = _natter_chat_stream_describe_server_error (inner);
  return _natter_chat_stream_fail_stream_error (self, error, message);
}

/**
 * natter_chat_stream_feed_sse_event:
 * @self: a stream
 * @event_name: (nullable): the SSE event type, as a #NatterSseEventFunc
 *   receives it
 * @data: (array length=len): the event's data
 * @len: the length of @data in bytes
 * @error: return location for a #GError
 *
 * Applies one Server-Sent Event of a streamed completion
 * (docs/runtime.md §12). Empty data (a keep-alive) is skipped; `[DONE]`
 * marks the end, after which events are ignored; anything else must be a
 * chunk object for natter_chat_stream_feed_chunk(). An event named "error"
 * (also the parser's form of an `error:` field line) fails the stream
 * with the server's message; so does an event of type
 * %NATTER_SSE_BARE_JSON_EVENT holding an `{"error":…}` object (other bare
 * lines are ignored); events with other names than "message" are not
 * chunks and are ignored.
 *
 * Returns: %TRUE on success; %FALSE with
 *   %NATTER_PROVIDER_ERROR_STREAM_ERROR for an error event or error object
 *   (the server's message quoted), or %NATTER_PROVIDER_ERROR_BAD_RESPONSE
 *   for data that is not a JSON object.
 */
gboolean
natter_chat_stream_feed_sse_event (NatterChatStream  *self,
                                   const char        *event_name,
                                   const char        *data,
                                   gsize              len,
                                   GError           **error)
{
  JsonObject *chunk;

  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (!self->finished, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (check_failed (self, error))
    return FALSE;

  _natter_chat_stream_trim (&data, &len);

  if (g_strcmp0 (event_name, "error") == 0)
    return fail_from_error_event (self, data, len, error);

  if (g_strcmp0 (event_name, NATTER_SSE_BARE_JSON_EVENT) == 0)
    return apply_bare_json_line (self, data, len, error);

  if ((event_name != NULL && strcmp (event_name, "message") != 0)
      || self->done || len == 0)
    return TRUE;

  if (len == 6 && memcmp (data, "[DONE]", 6) == 0)
    {
      self->done = TRUE;
      return TRUE;
    }

  chunk = parse_object (self, data, len, "a chunk", error);
  if (chunk == NULL)
    return FALSE;

  return _natter_chat_stream_apply_object (self, chunk, FALSE, error);
}

/**
 * natter_chat_stream_feed_sse_data:
 * @self: a stream
 * @data: (array length=len): the data of an event of the default type
 * @len: the length of @data in bytes
 * @error: return location for a #GError
 *
 * natter_chat_stream_feed_sse_event() for an event without a name.
 *
 * Returns: as natter_chat_stream_feed_sse_event()
 */
gboolean
natter_chat_stream_feed_sse_data (NatterChatStream  *self,
                                  const char        *data,
                                  gsize              len,
                                  GError           **error)
{
  return natter_chat_stream_feed_sse_event (self, NULL, data, len, error);
}

/**
 * natter_chat_stream_feed_json_body:
 * @self: a stream
 * @body: (array length=len): a whole `application/json` response body
 * @len: the length of @body in bytes
 * @error: return location for a #GError
 *
 * Reads a non-streamed `chat.completion` (a server that ignored
 * `"stream": true`; the caller decides by Content-Type): `message.content`,
 * `message.reasoning_content`/`reasoning`, `message.tool_calls`,
 * `finish_reason` and `usage`, exactly as if they had been streamed (the
 * delta signals are emitted once). The body counts as complete: call
 * natter_chat_stream_finish() next (docs/runtime.md §12).
 *
 * Returns: %TRUE on success; %FALSE with
 *   %NATTER_PROVIDER_ERROR_BAD_RESPONSE when the body is not a JSON object
 *   with `choices`, or %NATTER_PROVIDER_ERROR_STREAM_ERROR when it is an
 *   `{"error":…}` object.
 */
gboolean
natter_chat_stream_feed_json_body (NatterChatStream  *self,
                                   const char        *body,
                                   gsize              len,
                                   GError           **error)
{
  JsonObject *object;

  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), FALSE);
  g_return_val_if_fail (body != NULL || len == 0, FALSE);
  g_return_val_if_fail (!self->finished, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (check_failed (self, error))
    return FALSE;

  object = parse_object (self, body != NULL ? body : "", len, "a response", error);
  if (object == NULL)
    return FALSE;

  if (!_natter_chat_stream_apply_object (self, object, TRUE, error))
    return FALSE;

  self->done = TRUE;
  return TRUE;
}

/**
 * natter_chat_stream_finish:
 * @self: a stream
 * @error: return location for a #GError
 *
 * Ends the input and settles the tool calls (arguments parsed, missing ids
 * minted). A stream that ended after a finish reason is complete even
 * without `[DONE]`, and one with `[DONE]` but no finish reason too
 * (docs/runtime.md §12). No more feeding afterwards.
 *
 * Returns: %TRUE if the step is complete; %FALSE with
 *   %NATTER_PROVIDER_ERROR_TRUNCATED_STREAM ("truncated stream") when the
 *   input ended before any finish reason and without `[DONE]`, or with a
 *   copy of an earlier feed error. The partial results stay readable.
 */
gboolean
natter_chat_stream_finish (NatterChatStream  *self,
                           GError           **error)
{
  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  self->finished = TRUE;
  _natter_chat_stream_settle_tool_calls (self);

  if (check_failed (self, error))
    return FALSE;

  if (!self->done && self->finish_reason == NULL)
    return _natter_chat_stream_fail (self, error,
                                     g_error_new_literal (NATTER_PROVIDER_ERROR,
                                                          NATTER_PROVIDER_ERROR_TRUNCATED_STREAM,
                                                          "The provider's response was a truncated stream: "
                                                          "it ended before the model finished"));

  return TRUE;
}

/**
 * natter_chat_stream_get_done:
 * @self: a stream
 *
 * Returns: %TRUE once `[DONE]` was read or a whole body was fed: the
 *   caller may stop reading.
 */
gboolean
natter_chat_stream_get_done (NatterChatStream *self)
{
  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), FALSE);

  return self->done;
}

/**
 * natter_chat_stream_get_text:
 * @self: a stream
 *
 * Returns: (transfer none): the assistant text so far; "" if none
 */
const char *
natter_chat_stream_get_text (NatterChatStream *self)
{
  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), NULL);

  return self->text->str;
}

/**
 * natter_chat_stream_get_reasoning:
 * @self: a stream
 *
 * Returns: (transfer none): the reasoning so far; "" if none
 */
const char *
natter_chat_stream_get_reasoning (NatterChatStream *self)
{
  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), NULL);

  return self->reasoning->str;
}

/**
 * natter_chat_stream_get_n_tool_calls:
 * @self: a stream
 *
 * Returns: the number of tool calls so far
 */
guint
natter_chat_stream_get_n_tool_calls (NatterChatStream *self)
{
  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), 0);

  return self->tool_calls->len;
}

/**
 * natter_chat_stream_get_tool_call:
 * @self: a stream
 * @position: 0-based, in the model's order (first appearance)
 *
 * Gets a tool call as assembled so far; after natter_chat_stream_finish()
 * it is final. Arguments are parsed (and ids minted) when read, so reading
 * mid-stream is allowed but costs a parse.
 *
 * Returns: (transfer none): the call, valid until the next feed or the
 *   stream's finalization
 */
const NatterChatToolCall *
natter_chat_stream_get_tool_call (NatterChatStream *self,
                                  guint             position)
{
  ToolCall *call;

  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), NULL);
  g_return_val_if_fail (position < self->tool_calls->len, NULL);

  _natter_chat_stream_settle_tool_calls (self);
  call = g_ptr_array_index (self->tool_calls, position);
  return &call->pub;
}

/**
 * natter_chat_stream_get_server_finish_reason:
 * @self: a stream
 *
 * Returns: (nullable): the last finish reason the server sent, as sent
 */
const char *
natter_chat_stream_get_server_finish_reason (NatterChatStream *self)
{
  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), NULL);

  return self->finish_reason;
}

/**
 * natter_chat_stream_get_finish_reason:
 * @self: a stream
 *
 * The effective finish reason (docs/runtime.md §12): "tool_calls" whenever
 * tool calls were made, whatever the server said; else the server's
 * reason, where a claimed "tool_calls" without any call becomes "stop"
 * (nothing to run); "stop" for a stream that ended with `[DONE]` but no
 * reason.
 *
 * Returns: (nullable): the reason; %NULL only while none is known
 */
const char *
natter_chat_stream_get_finish_reason (NatterChatStream *self)
{
  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), NULL);

  if (self->tool_calls->len > 0)
    return "tool_calls";
  if (self->finish_reason != NULL)
    return strcmp (self->finish_reason, "tool_calls") == 0 ? "stop" : self->finish_reason;
  if (self->done)
    return "stop";
  return NULL;
}

/**
 * natter_chat_stream_get_usage:
 * @self: a stream
 *
 * The last usage the server reported, in the turn schema's names
 * (docs/runtime.md §3): `prompt_tokens` → `inputTokens`,
 * `completion_tokens` → `outputTokens`, `total_tokens` → `totalTokens`,
 * `completion_tokens_details.reasoning_tokens` → `reasoningTokens`,
 * `prompt_tokens_details.cached_tokens` → `cachedInputTokens`; only the
 * counts present (non-negative integers).
 *
 * Returns: (transfer none) (nullable): the usage, or %NULL if none came
 */
JsonObject *
natter_chat_stream_get_usage (NatterChatStream *self)
{
  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), NULL);

  return self->usage;
}

/**
 * natter_chat_stream_build_message:
 * @self: a stream
 *
 * Builds the turn-schema assistant message (docs/runtime.md §3):
 * `{role:"assistant", content:[…]}` with, in this order, a
 * `{type:"reasoning", text}` part if there was reasoning, a
 * `{type:"text", text}` part if there was text, and one
 * `{type:"tool-call", toolCallId, toolName, arguments}` part per tool
 * call. `arguments` is the parsed object; for a malformed call it is the
 * raw text as a JSON string, which is how a malformed call is recognised
 * (valid arguments are always an object). `content` is `[]` when the
 * model said nothing.
 *
 * Returns: (transfer full): the message
 */
JsonNode *
natter_chat_stream_build_message (NatterChatStream *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (NATTER_IS_CHAT_STREAM (self), NULL);

  _natter_chat_stream_settle_tool_calls (self);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "assistant");
  json_builder_set_member_name (builder, "content");
  json_builder_begin_array (builder);

  if (self->reasoning->len > 0)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "reasoning");
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, self->reasoning->str);
      json_builder_end_object (builder);
    }

  if (self->text->len > 0)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "text");
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, self->text->str);
      json_builder_end_object (builder);
    }

  for (guint i = 0; i < self->tool_calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (self->tool_calls, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "tool-call");
      json_builder_set_member_name (builder, "toolCallId");
      json_builder_add_string_value (builder, call->pub.id);
      json_builder_set_member_name (builder, "toolName");
      json_builder_add_string_value (builder, call->pub.name);
      json_builder_set_member_name (builder, "arguments");
      if (call->parsed != NULL)
        json_builder_add_value (builder, json_node_copy (call->parsed));
      else
        json_builder_add_string_value (builder, call->arguments->str);
      json_builder_end_object (builder);
    }

  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
