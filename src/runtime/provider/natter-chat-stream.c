/* natter-chat-stream.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A chat stream: its state machine and public API (what may be fed when,
 * SSE events and whole bodies, sticky failures, settling) and the chunk
 * decoder beneath it, which reads the loosely typed JSON of a chunk or a
 * whole body into text, reasoning, usage and finish reason and assembles
 * tool calls from their fragments up to the settled, read-only calls
 * handed out. The two are one object: the decoder fails the stream and
 * emits its deltas, the state machine feeds the decoder, so they share a
 * file rather than call each other across two.
 */

#define G_LOG_DOMAIN "natter-chat-stream"

#include <string.h>

#include "natter-chat-stream.h"
#include "natter-json.h"
#include "natter-sse-parser.h"

/* Error text quoted from a server is cut here so that a hostile or broken
 * server cannot put megabytes into a turn file's error field. */
#define MAX_QUOTED_CHARS 1000

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

static gboolean    fail                  (NatterChatStream  *self,
                                          GError           **error,
                                          GError            *failure);
static gboolean    fail_stream_error     (NatterChatStream  *self,
                                          GError           **error,
                                          const char        *server_message);
static char       *describe_server_error (JsonNode          *node);
static void        append_text           (NatterChatStream  *self,
                                          const char        *delta);
static void        append_reasoning      (NatterChatStream  *self,
                                          const char        *delta);
static void        trim                  (const char       **data,
                                          gsize             *len);
static void        tool_call_free        (gpointer           data);
static const char *get_nonempty_string   (JsonObject        *object,
                                          const char        *member);
static gboolean    apply_object          (NatterChatStream  *self,
                                          JsonObject        *object,
                                          gboolean           is_body,
                                          GError           **error);
static void        settle_tool_calls     (NatterChatStream  *self);

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
  self->tool_calls = g_ptr_array_new_with_free_func (tool_call_free);
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

static gboolean
fail (NatterChatStream  *self,
      GError           **error,
      GError            *failure)
{
  return natter_provider_error_keep (&self->failure, failure, error);
}

static gboolean
fail_stream_error (NatterChatStream  *self,
                   GError           **error,
                   const char        *server_message)
{
  return fail (self, error,
               g_error_new (NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR,
                            "The provider reported an error: %s", server_message));
}

/* The text of an `error` member: a string, or an object with a message
 * (and maybe a code), as OpenAI, OpenRouter, vLLM and Ollama send. */
static char *
describe_server_error (JsonNode *node)
{
  g_autofree char *serialized = NULL;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return quote_server_text (json_node_get_string (node), -1);

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      const char *message = get_nonempty_string (object, "message");
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

static void
append_text (NatterChatStream *self,
             const char       *delta)
{
  if (delta == NULL || delta[0] == '\0')
    return;
  g_string_append (self->text, delta);
  g_signal_emit (self, signals[TEXT_DELTA], 0, delta);
}

static void
append_reasoning (NatterChatStream *self,
                  const char       *delta)
{
  if (delta == NULL || delta[0] == '\0')
    return;
  g_string_append (self->reasoning, delta);
  g_signal_emit (self, signals[REASONING_DELTA], 0, delta);
}

/* The chunk decoder: a chunk's or a body's JSON into the stream. */

static void
tool_call_free (gpointer data)
{
  ToolCall *call = data;

  g_free (call->server_id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call->minted_id);
  g_clear_pointer (&call->parsed, json_node_unref);
  g_free (call);
}

/* Helpers reading the loosely typed JSON of many servers: a member that is
 * absent, null or of another type counts as absent. */

static const char *
get_nonempty_string (JsonObject *object,
                     const char *member)
{
  const char *value = natter_json_loose_string (object, member);

  return value != NULL && value[0] != '\0' ? value : NULL;
}

static JsonArray *
get_array (JsonObject *object,
           const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

static gboolean
get_count (JsonObject *object,
           const char *member,
           gint64     *out_value)
{
  JsonNode *node = json_object_get_member (object, member);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out_value = json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    {
      /* Some servers print integers as 12.0. */
      double d = json_node_get_double (node);

      if (d != (double) (gint64) d)
        return FALSE;
      *out_value = (gint64) d;
    }
  else
    return FALSE;

  return *out_value >= 0;
}

/* Mistral's reasoning models send content as an array of parts:
 * {type:"text", text} and {type:"thinking", thinking:[{type:"text", text}]}. */
static void
append_content_parts (NatterChatStream *self,
                      JsonArray        *parts,
                      gboolean          as_reasoning)
{
  guint n = json_array_get_length (parts);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      JsonObject *part;
      const char *type;

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        {
          if (as_reasoning)
            append_reasoning (self, json_node_get_string (node));
          else
            append_text (self, json_node_get_string (node));
          continue;
        }
      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;

      part = json_node_get_object (node);
      type = natter_json_loose_string (part, "type");
      if (g_strcmp0 (type, "text") == 0)
        {
          if (as_reasoning)
            append_reasoning (self, natter_json_loose_string (part, "text"));
          else
            append_text (self, natter_json_loose_string (part, "text"));
        }
      else if (g_strcmp0 (type, "thinking") == 0)
        {
          JsonArray *thinking = get_array (part, "thinking");

          if (thinking != NULL)
            append_content_parts (self, thinking, TRUE);
          else
            append_reasoning (self, natter_json_loose_string (part, "thinking"));
        }
    }
}

static ToolCall *
find_call_by_index (NatterChatStream *self,
                    gint64            index)
{
  /* From the end: a server that reuses an index for a new call means the
   * newest one. */
  for (guint i = self->tool_calls->len; i > 0; i--)
    {
      ToolCall *call = g_ptr_array_index (self->tool_calls, i - 1);

      if (call->index == index)
        return call;
    }
  return NULL;
}

static ToolCall *
find_call_by_id (NatterChatStream *self,
                 const char       *id)
{
  for (guint i = 0; i < self->tool_calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (self->tool_calls, i);

      if (g_strcmp0 (call->server_id, id) == 0)
        return call;
    }
  return NULL;
}

static ToolCall *
last_call (NatterChatStream *self)
{
  if (self->tool_calls->len == 0)
    return NULL;
  return g_ptr_array_index (self->tool_calls, self->tool_calls->len - 1);
}

/* One element of `tool_calls` in a delta (a fragment) or in a whole
 * message (a complete call). */
static void
apply_tool_call (NatterChatStream *self,
                 JsonObject       *fragment)
{
  JsonObject *function = natter_json_loose_object (fragment, "function");
  const char *id = get_nonempty_string (fragment, "id");
  const char *name = function != NULL ? get_nonempty_string (function, "name") : NULL;
  JsonNode *arguments_node = function != NULL ? json_object_get_member (function, "arguments") : NULL;
  g_autofree char *serialized = NULL;
  const char *arguments = NULL;
  gint64 index = -1;
  gboolean has_index;
  ToolCall *call;

  if (arguments_node != NULL)
    {
      if (JSON_NODE_HOLDS_VALUE (arguments_node)
          && json_node_get_value_type (arguments_node) == G_TYPE_STRING)
        arguments = json_node_get_string (arguments_node);
      else if (JSON_NODE_HOLDS_OBJECT (arguments_node) || JSON_NODE_HOLDS_ARRAY (arguments_node))
        /* Some servers send the arguments already parsed. */
        arguments = serialized = natter_json_to_text (arguments_node, FALSE, NULL);
    }

  has_index = get_count (fragment, "index", &index);

  if (has_index)
    {
      call = find_call_by_index (self, index);
      /* A different id at a known index is a new call from a server that
       * numbers every call 0; the same id again is just repeated. */
      if (call != NULL && id != NULL && call->server_id != NULL
          && strcmp (call->server_id, id) != 0)
        call = NULL;
    }
  else if (id != NULL)
    call = find_call_by_id (self, id);
  else if (name != NULL)
    {
      /* No index and no id: a name starts a new call unless the last call
       * is still waiting for its name. */
      call = last_call (self);
      if (call != NULL && call->name != NULL)
        call = NULL;
    }
  else
    /* A bare fragment continues the call being streamed. */
    call = last_call (self);

  if (call == NULL)
    {
      if (id == NULL && name == NULL && (arguments == NULL || arguments[0] == '\0'))
        return;

      call = g_new0 (ToolCall, 1);
      call->index = has_index ? index : -1;
      call->arguments = g_string_new (NULL);
      g_ptr_array_add (self->tool_calls, call);
    }

  /* Ids and names are set once: later (repeated, null or empty) values are
   * ignored. */
  if (call->server_id == NULL && id != NULL)
    call->server_id = g_strdup (id);
  if (call->name == NULL && name != NULL)
    call->name = g_strdup (name);
  if (arguments != NULL)
    g_string_append (call->arguments, arguments);
}

/* A `delta` of a chunk or the `message` of a whole body. */
static void
apply_message (NatterChatStream *self,
               JsonObject       *message)
{
  JsonNode *content = json_object_get_member (message, "content");
  const char *reasoning;
  JsonArray *tool_calls;

  /* Servers differ in the name of the reasoning field and some send both
   * with the same text; taking one per chunk never doubles it. */
  reasoning = get_nonempty_string (message, "reasoning_content");
  if (reasoning == NULL)
    reasoning = get_nonempty_string (message, "reasoning");
  append_reasoning (self, reasoning);

  if (content != NULL)
    {
      if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
        append_text (self, json_node_get_string (content));
      else if (JSON_NODE_HOLDS_ARRAY (content))
        append_content_parts (self, json_node_get_array (content), FALSE);
    }

  tool_calls = get_array (message, "tool_calls");
  if (tool_calls != NULL)
    {
      guint n = json_array_get_length (tool_calls);

      for (guint i = 0; i < n; i++)
        {
          JsonNode *node = json_array_get_element (tool_calls, i);

          if (JSON_NODE_HOLDS_OBJECT (node))
            apply_tool_call (self, json_node_get_object (node));
        }
    }
}

static void
copy_count (JsonObject *from,
            const char *from_member,
            JsonObject *to,
            const char *to_member)
{
  gint64 value;

  if (from != NULL && get_count (from, from_member, &value))
    json_object_set_int_member (to, to_member, value);
}

static void
apply_usage (NatterChatStream *self,
             JsonObject       *usage)
{
  g_autoptr(JsonObject) mapped = json_object_new ();

  copy_count (usage, "prompt_tokens", mapped, "inputTokens");
  copy_count (usage, "completion_tokens", mapped, "outputTokens");
  copy_count (usage, "total_tokens", mapped, "totalTokens");
  copy_count (natter_json_loose_object (usage, "completion_tokens_details"), "reasoning_tokens",
              mapped, "reasoningTokens");
  copy_count (natter_json_loose_object (usage, "prompt_tokens_details"), "cached_tokens",
              mapped, "cachedInputTokens");

  /* The last report wins: servers that repeat usage send running totals. */
  if (json_object_get_size (mapped) > 0)
    {
      g_clear_pointer (&self->usage, json_object_unref);
      self->usage = g_steal_pointer (&mapped);
    }
}

/* Some servers report the usage only in a vendor extension object of the
 * final chunk (Groq: `x_groq.usage`), after a partial `usage` earlier or
 * in the same chunk: applied after the standard member, so it wins. */
static void
apply_vendor_usage (NatterChatStream *self,
                    JsonObject       *object)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &name, &member))
    {
      JsonObject *usage;

      if (!g_str_has_prefix (name, "x_") || !JSON_NODE_HOLDS_OBJECT (member))
        continue;
      usage = natter_json_loose_object (json_node_get_object (member), "usage");
      if (usage != NULL)
        apply_usage (self, usage);
    }
}

/* A chunk or a whole body; @is_body selects the `message` of a body over
 * the `delta` of a chunk (either is accepted in both). */
static gboolean
apply_object (NatterChatStream  *self,
              JsonObject        *object,
              gboolean           is_body,
              GError           **error)
{
  JsonNode *error_node = json_object_get_member (object, "error");
  JsonArray *choices = get_array (object, "choices");
  JsonObject *usage = natter_json_loose_object (object, "usage");
  gboolean finished_with_error = FALSE;

  if (choices != NULL)
    {
      guint n = json_array_get_length (choices);

      for (guint i = 0; i < n; i++)
        {
          JsonNode *node = json_array_get_element (choices, i);
          JsonObject *choice;
          JsonObject *message;
          const char *finish_reason;
          gint64 index = 0;

          if (!JSON_NODE_HOLDS_OBJECT (node))
            continue;
          choice = json_node_get_object (node);

          /* Natter asks for one choice (n = 1); others are not ours. A
           * missing or null index is that one choice. */
          if (get_count (choice, "index", &index) && index != 0)
            continue;

          message = natter_json_loose_object (choice, is_body ? "message" : "delta");
          if (message == NULL)
            message = natter_json_loose_object (choice, is_body ? "delta" : "message");
          if (message != NULL)
            apply_message (self, message);

          finish_reason = get_nonempty_string (choice, "finish_reason");
          if (finish_reason != NULL)
            {
              g_free (self->finish_reason);
              self->finish_reason = g_strdup (finish_reason);
              if (strcmp (finish_reason, "error") == 0)
                finished_with_error = TRUE;
            }
        }
    }
  else if (is_body && (error_node == NULL || JSON_NODE_HOLDS_NULL (error_node)))
    return fail (self, error,
                 g_error_new_literal (NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                      "The provider's response has no choices"));

  if (usage != NULL)
    apply_usage (self, usage);
  apply_vendor_usage (self, object);

  /* Checked after the choices so that text in the same chunk is kept. */
  if (error_node != NULL && !JSON_NODE_HOLDS_NULL (error_node))
    {
      g_autofree char *message = describe_server_error (error_node);

      return fail_stream_error (self, error, message);
    }

  if (finished_with_error)
    return fail_stream_error (self, error, "the response ended with finish reason \"error\"");

  return TRUE;
}
/* json-glib cuts a string at an escaped NUL, so such arguments would
 * silently lose their tail: refuse them instead. Walking the escapes from
 * the start keeps "\\u0000" (an escaped backslash) apart. */
static gboolean
has_nul_escape (const char *text,
                gsize       len)
{
  for (gsize i = 0; i + 1 < len; i++)
    {
      if (text[i] != '\\')
        continue;
      if (text[i + 1] == 'u' && i + 5 < len && memcmp (text + i + 2, "0000", 4) == 0)
        return TRUE;
      i++;
    }
  return FALSE;
}

/* Parses the arguments once they stop changing; called lazily, so a
 * reader between chunks sees the current state and a finished stream
 * parses each call exactly once. */
static void
parse_arguments (NatterChatStream *self,
                 ToolCall         *call)
{
  const char *text = call->arguments->str;
  gsize len = call->arguments->len;
  JsonNode *root;

  if (call->parsed_once && call->parsed_len == call->arguments->len)
    return;

  call->parsed_once = TRUE;
  call->parsed_len = call->arguments->len;
  g_clear_pointer (&call->parsed, json_node_unref);

  trim (&text, &len);
  if (len == 0)
    {
      /* Servers send "" for a call without parameters. */
      call->parsed = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (call->parsed, json_object_new ());
      return;
    }

  if (has_nul_escape (text, len)
      || !natter_json_parser_load (self->parser, text, len, NULL))
    return;

  root = json_parser_steal_root (self->parser);
  if (root != NULL && JSON_NODE_HOLDS_VALUE (root)
      && json_node_get_value_type (root) == G_TYPE_STRING)
    {
      /* Some models encode the arguments twice: "{\"a\":1}". */
      const char *inner = json_node_get_string (root);

      if (!has_nul_escape (inner, strlen (inner)) && natter_json_parser_load (self->parser, inner, -1, NULL))
        {
          g_clear_pointer (&root, json_node_unref);
          root = json_parser_steal_root (self->parser);
        }
    }

  /* Tool input is an object, and it must survive the turn file. */
  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root) && natter_json_check_lossless (root, NULL))
    call->parsed = g_steal_pointer (&root);

  g_clear_pointer (&root, json_node_unref);
}

static void
settle_tool_calls (NatterChatStream *self)
{
  for (guint i = 0; i < self->tool_calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (self->tool_calls, i);
      gboolean use_server_id = call->server_id != NULL;

      parse_arguments (self, call);

      /* An id repeated by a later call would make tool results ambiguous. */
      for (guint j = 0; use_server_id && j < i; j++)
        {
          ToolCall *earlier = g_ptr_array_index (self->tool_calls, j);

          if (g_strcmp0 (earlier->pub.id, call->server_id) == 0)
            use_server_id = FALSE;
        }

      if (!use_server_id && call->minted_id == NULL)
        call->minted_id = self->seed != NULL
                          ? g_strdup_printf ("call_%s_%u", self->seed, i)
                          : g_strdup_printf ("call_%u", i);

      call->pub.id = use_server_id ? call->server_id : call->minted_id;
      call->pub.id_generated = !use_server_id;
      call->pub.name = call->name != NULL ? call->name : "";
      call->pub.arguments = call->arguments->str;
      call->pub.parsed_arguments = call->parsed;
      call->pub.malformed = call->parsed == NULL;
    }
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

  if (natter_provider_error_repeat (self->failure, error))
    return FALSE;

  return apply_object (self, chunk, FALSE, error);
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

      fail (self, error,
            g_error_new (NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                         "The provider sent %s that is not JSON (%s): %s",
                         what, local_error->message, quoted));
      return NULL;
    }

  root = json_parser_get_root (self->parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *quoted = quote_server_text (data, MIN (len, 200));

      fail (self, error,
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

static void
trim (const char **data,
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
        message = describe_server_error (inner);
      else if (root != NULL)
        message = describe_server_error (root);
    }

  if (message == NULL)
    message = len > 0 ? quote_server_text (data, len) : g_strdup ("no details given");

  return fail_stream_error (self, error, message);
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
  message = describe_server_error (inner);
  return fail_stream_error (self, error, message);
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

  if (natter_provider_error_repeat (self->failure, error))
    return FALSE;

  trim (&data, &len);

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

  return apply_object (self, chunk, FALSE, error);
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

  if (natter_provider_error_repeat (self->failure, error))
    return FALSE;

  object = parse_object (self, body != NULL ? body : "", len, "a response", error);
  if (object == NULL)
    return FALSE;

  if (!apply_object (self, object, TRUE, error))
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
  settle_tool_calls (self);

  if (natter_provider_error_repeat (self->failure, error))
    return FALSE;

  if (!self->done && self->finish_reason == NULL)
    return fail (self, error,
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

  settle_tool_calls (self);
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

  settle_tool_calls (self);

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
