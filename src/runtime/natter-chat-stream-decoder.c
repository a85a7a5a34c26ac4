/* natter-chat-stream-decoder.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chunk decoder of NatterChatStream: reading the loosely typed JSON
 * of a chunk or a whole body into text, reasoning, usage and finish
 * reason, and assembling tool calls from their fragments up to the
 * settled, read-only calls handed out. The stream's state machine (what
 * may be fed when, failures, the public API) is in natter-chat-stream.c.
 */

#define G_LOG_DOMAIN "natter-chat-stream"

#include <string.h>

#include "natter-chat-stream-private.h"
#include "natter-json.h"

void
_natter_chat_stream_tool_call_free (gpointer data)
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

const char *
_natter_chat_stream_get_nonempty_string (JsonObject *object,
                                         const char *member)
{
  const char *value = natter_json_loose_string (object, member);

  return value != NULL && value[0] != '\0' ? value : NULL;
}

static JsonObject *
get_object (JsonObject *object,
            const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
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
            _natter_chat_stream_append_reasoning (self, json_node_get_string (node));
          else
            _natter_chat_stream_append_text (self, json_node_get_string (node));
          continue;
        }
      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;

      part = json_node_get_object (node);
      type = natter_json_loose_string (part, "type");
      if (g_strcmp0 (type, "text") == 0)
        {
          if (as_reasoning)
            _natter_chat_stream_append_reasoning (self, natter_json_loose_string (part, "text"));
          else
            _natter_chat_stream_append_text (self, natter_json_loose_string (part, "text"));
        }
      else if (g_strcmp0 (type, "thinking") == 0)
        {
          JsonArray *thinking = get_array (part, "thinking");

          if (thinking != NULL)
            append_content_parts (self, thinking, TRUE);
          else
            _natter_chat_stream_append_reasoning (self, natter_json_loose_string (part, "thinking"));
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
  JsonObject *function = get_object (fragment, "function");
  const char *id = _natter_chat_stream_get_nonempty_string (fragment, "id");
  const char *name = function != NULL ? _natter_chat_stream_get_nonempty_string (function, "name") : NULL;
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
  reasoning = _natter_chat_stream_get_nonempty_string (message, "reasoning_content");
  if (reasoning == NULL)
    reasoning = _natter_chat_stream_get_nonempty_string (message, "reasoning");
  _natter_chat_stream_append_reasoning (self, reasoning);

  if (content != NULL)
    {
      if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
        _natter_chat_stream_append_text (self, json_node_get_string (content));
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
  copy_count (get_object (usage, "completion_tokens_details"), "reasoning_tokens",
              mapped, "reasoningTokens");
  copy_count (get_object (usage, "prompt_tokens_details"), "cached_tokens",
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
      usage = get_object (json_node_get_object (member), "usage");
      if (usage != NULL)
        apply_usage (self, usage);
    }
}

/* A chunk or a whole body; @is_body selects the `message` of a body over
 * the `delta` of a chunk (either is accepted in both). */
gboolean
_natter_chat_stream_apply_object (NatterChatStream  *self,
                                  JsonObject        *object,
                                  gboolean           is_body,
                                  GError           **error)
{
  JsonNode *error_node = json_object_get_member (object, "error");
  JsonArray *choices = get_array (object, "choices");
  JsonObject *usage = get_object (object, "usage");
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

          message = get_object (choice, is_body ? "message" : "delta");
          if (message == NULL)
            message = get_object (choice, is_body ? "delta" : "message");
          if (message != NULL)
            apply_message (self, message);

          finish_reason = _natter_chat_stream_get_nonempty_string (choice, "finish_reason");
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
    return _natter_chat_stream_fail (self, error,
                                     g_error_new_literal (NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                                          "The provider's response has no choices"));

  if (usage != NULL)
    apply_usage (self, usage);
  apply_vendor_usage (self, object);

  /* Checked after the choices so that text in the same chunk is kept. */
  if (error_node != NULL && !JSON_NODE_HOLDS_NULL (error_node))
    {
      g_autofree char *message = _natter_chat_stream_describe_server_error (error_node);

      return _natter_chat_stream_fail_stream_error (self, error, message);
    }

  if (finished_with_error)
    return _natter_chat_stream_fail_stream_error (self, error, "the response ended with finish reason \"error\"");

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

  _natter_chat_stream_trim (&text, &len);
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

void
_natter_chat_stream_settle_tool_calls (NatterChatStream *self)
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
