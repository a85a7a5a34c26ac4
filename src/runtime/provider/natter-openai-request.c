/* natter-openai-request.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The body of `POST {baseUrl}/chat/completions`, encoded from a composed
 * request (docs/runtime.md §3, §12). Pure: no I/O and no key, so every
 * shape can be tested without a server. Also the provider's memory of
 * the name each model takes its token limit under, which the encoding
 * reads and the HTTP call changes when a server refuses a name.
 */

#define G_LOG_DOMAIN "natter-openai-provider"

#include <string.h>

#include "natter-json.h"
#include "natter-openai-provider-private.h"
#include "natter-store-error.h"

/* Every encoding error names what could not be encoded; @... is a format
 * literal and its arguments. */
#define invalid(error, ...) \
  natter_set_error_false ((error), G_IO_ERROR, G_IO_ERROR_INVALID_DATA, \
                          "Cannot encode the request: " __VA_ARGS__)

static void
append_paragraph (GString    *text,
                  const char *paragraph)
{
  if (text->len > 0)
    g_string_append (text, "\n\n");
  g_string_append (text, paragraph);
}

static gboolean
has_attachment_parts (JsonArray *parts)
{
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      const char *type = natter_json_loose_string (JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL,
                                                   "type");

      if (g_strcmp0 (type, "attachment-image") == 0 || g_strcmp0 (type, "attachment-text") == 0)
        return TRUE;
    }
  return FALSE;
}

/* A user message with attachments read from their blobs
 * (natter-attachment-content.c): an array of text and `image_url` parts,
 * the OpenAI-compatible vision shape that Ollama's /v1 accepts too. */
static JsonObject *
encode_user_parts (JsonArray  *parts,
                   guint       position,
                   GError    **error)
{
  g_autoptr(JsonObject) out = json_object_new ();
  g_autoptr(JsonArray) content = json_array_new ();

  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      JsonObject *part = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *type = natter_json_loose_string (part, "type");
      JsonObject *wire = json_object_new ();

      json_array_add_object_element (content, wire);
      if ((g_strcmp0 (type, "text") == 0 || g_strcmp0 (type, "attachment-text") == 0) &&
          natter_json_loose_string (part, "text") != NULL)
        {
          json_object_set_string_member (wire, "type", "text");
          json_object_set_string_member (wire, "text", natter_json_loose_string (part, "text"));
        }
      else if (g_strcmp0 (type, "attachment-image") == 0 && natter_json_loose_string (part, "url") != NULL)
        {
          JsonObject *image_url = json_object_new ();

          json_object_set_string_member (image_url, "url", natter_json_loose_string (part, "url"));
          json_object_set_string_member (wire, "type", "image_url");
          json_object_set_object_member (wire, "image_url", image_url);
        }
      else
        {
          invalid (error, "message %u has a user content part of unknown type", position);
          return NULL;
        }
    }
  json_object_set_string_member (out, "role", "user");
  json_object_set_array_member (out, "content", g_steal_pointer (&content));
  return g_steal_pointer (&out);
}

/* What encode_content() does with a part of a message's content that is
 * not text: @type is its `type`. Returns %FALSE with @error set to
 * refuse the message. */
typedef gboolean (*EncodePartFunc) (const char  *type,
                                    JsonObject  *part,
                                    guint        position,
                                    gpointer     data,
                                    GError     **error);

/* What a user's and an assistant's message share: their `content`, a
 * string or an array of parts, read into @text (the `text` parts a
 * paragraph each), every other part handed to @other. Content with
 * attachment parts is encoded as a whole instead, into *@out_parts
 * (encode_user_parts()). Returns %FALSE with @error set when the message
 * has no content or a part is refused; @role names the message in the
 * error. */
static gboolean
encode_content (JsonObject      *message,
                const char      *role,
                guint            position,
                EncodePartFunc   other,
                gpointer         other_data,
                GString         *text,
                JsonObject     **out_parts,
                GError         **error)
{
  JsonNode *content = json_object_get_member (message, "content");

  if (content != NULL && JSON_NODE_HOLDS_VALUE (content)
      && json_node_get_value_type (content) == G_TYPE_STRING)
    g_string_append (text, json_node_get_string (content));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content) &&
           has_attachment_parts (json_node_get_array (content)))
    return (*out_parts = encode_user_parts (json_node_get_array (content), position, error)) != NULL;
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *node = json_array_get_element (parts, i);
          JsonObject *part = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
          const char *type = natter_json_loose_string (part, "type");

          if (g_strcmp0 (type, "text") == 0 && natter_json_loose_string (part, "text") != NULL)
            append_paragraph (text, natter_json_loose_string (part, "text"));
          else if (!other (type, part, position, other_data, error))
            return FALSE;
        }
    }
  else
    {
      invalid (error, "message %u (%s) has no content", position, role);
      return FALSE;
    }
  return TRUE;
}

static gboolean
encode_user_part (const char  *type,
                  JsonObject  *part,
                  guint        position,
                  gpointer     data,
                  GError     **error)
{
  GString *text = data;

  if (g_strcmp0 (type, "attachment") == 0)
    {
      /* Attachments are not uploaded yet; the model at least
       * learns that the user attached something. */
      const char *filename = natter_json_loose_string (part, "filename");
      g_autofree char *note = g_strdup_printf ("[attachment: %s]",
                                               filename != NULL ? filename : "unnamed");

      append_paragraph (text, note);
      return TRUE;
    }
  invalid (error, "message %u has a user content part of unknown type", position);
  return FALSE;
}

static JsonObject *
encode_user (JsonObject  *message,
             guint        position,
             GError     **error)
{
  g_autoptr(JsonObject) out = json_object_new ();
  g_autoptr(GString) text = g_string_new (NULL);
  JsonObject *parts = NULL;

  if (!encode_content (message, "user", position, encode_user_part, text, text, &parts, error))
    return NULL;
  if (parts != NULL)
    return parts;

  json_object_set_string_member (out, "role", "user");
  json_object_set_string_member (out, "content", text->str);
  return g_steal_pointer (&out);
}

static JsonObject *
encode_tool_call (JsonObject  *part,
                  guint        position,
                  GError     **error)
{
  const char *id = natter_json_loose_string (part, "toolCallId");
  const char *name = natter_json_loose_string (part, "toolName");
  JsonNode *arguments = json_object_get_member (part, "arguments");
  JsonObject *function;
  JsonObject *out;
  g_autofree char *serialized = NULL;

  if (id == NULL || name == NULL)
    {
      invalid (error, "a tool call of message %u lacks toolCallId or toolName", position);
      return NULL;
    }

  if (arguments == NULL || JSON_NODE_HOLDS_NULL (arguments))
    serialized = g_strdup ("{}");
  else if (JSON_NODE_HOLDS_VALUE (arguments)
           && json_node_get_value_type (arguments) == G_TYPE_STRING)
    /* A malformed call keeps the model's raw text (natter-chat-stream
     * stores it as a string): the model sees exactly what it wrote. */
    serialized = g_strdup (json_node_get_string (arguments));
  else
    serialized = natter_json_to_text (arguments, FALSE, NULL);

  function = json_object_new ();
  json_object_set_string_member (function, "name", name);
  json_object_set_string_member (function, "arguments", serialized);

  out = json_object_new ();
  json_object_set_string_member (out, "id", id);
  json_object_set_string_member (out, "type", "function");
  json_object_set_object_member (out, "function", function);
  return out;
}

static gboolean
encode_assistant_part (const char  *type,
                       JsonObject  *part,
                       guint        position,
                       gpointer     data,
                       GError     **error)
{
  JsonArray *tool_calls = data;

  /* Reasoning is the model's scratchpad: servers reject it or
   * bill it again, so it is never sent back. */
  if (g_strcmp0 (type, "reasoning") == 0)
    return TRUE;
  if (g_strcmp0 (type, "tool-call") == 0)
    {
      JsonObject *call = encode_tool_call (part, position, error);

      if (call == NULL)
        return FALSE;
      json_array_add_object_element (tool_calls, call);
      return TRUE;
    }
  invalid (error, "message %u has an assistant content part of unknown type", position);
  return FALSE;
}

static JsonObject *
encode_assistant (JsonObject  *message,
                  guint        position,
                  GError     **error)
{
  g_autoptr(JsonObject) out = json_object_new ();
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(JsonArray) tool_calls = json_array_new ();
  JsonObject *parts = NULL;

  if (!encode_content (message, "assistant", position, encode_assistant_part, tool_calls, text, &parts,
                       error))
    return NULL;
  if (parts != NULL)
    return parts;

  json_object_set_string_member (out, "role", "assistant");
  if (text->len == 0 && json_array_get_length (tool_calls) > 0)
    json_object_set_null_member (out, "content");
  else
    json_object_set_string_member (out, "content", text->str);

  /* An empty `tool_calls` array is rejected by several servers. */
  if (json_array_get_length (tool_calls) > 0)
    json_object_set_array_member (out, "tool_calls", g_steal_pointer (&tool_calls));

  return g_steal_pointer (&out);
}

static JsonObject *
encode_tool_result (JsonObject  *message,
                    guint        position,
                    GError     **error)
{
  const char *id = natter_json_loose_string (message, "toolCallId");
  JsonNode *content = json_object_get_member (message, "content");
  JsonObject *out;

  if (id == NULL || content == NULL)
    {
      invalid (error, "message %u (tool) lacks toolCallId or content", position);
      return NULL;
    }

  out = json_object_new ();
  json_object_set_string_member (out, "role", "tool");
  json_object_set_string_member (out, "tool_call_id", id);
  /* The content of a tool message is always a string on the wire: some
   * servers reject anything else. */
  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    json_object_set_string_member (out, "content", json_node_get_string (content));
  else
    {
      g_autofree char *serialized = natter_json_to_text (content, FALSE, NULL);

      json_object_set_string_member (out, "content", serialized);
    }
  return out;
}

static JsonObject *
encode_tool_descriptor (JsonObject  *descriptor,
                        guint        position,
                        GError     **error)
{
  const char *name = natter_json_loose_string (descriptor, "name");
  const char *description = natter_json_loose_string (descriptor, "description");
  JsonNode *schema = json_object_get_member (descriptor, "inputSchema");
  JsonObject *function;
  JsonObject *out;

  if (name == NULL)
    {
      invalid (error, "tool %u has no name", position);
      return NULL;
    }

  function = json_object_new ();
  json_object_set_string_member (function, "name", name);
  if (description != NULL)
    json_object_set_string_member (function, "description", description);
  if (schema != NULL && JSON_NODE_HOLDS_OBJECT (schema))
    json_object_set_member (function, "parameters", json_node_copy (schema));
  else
    {
      /* OpenAI requires a schema; "no parameters" is an empty object. */
      JsonObject *empty = json_object_new ();

      json_object_set_string_member (empty, "type", "object");
      json_object_set_object_member (empty, "properties", json_object_new ());
      json_object_set_object_member (function, "parameters", empty);
    }

  out = json_object_new ();
  json_object_set_string_member (out, "type", "function");
  json_object_set_object_member (out, "function", function);
  return out;
}

static gboolean
is_reserved_parameter (const char *name)
{
  static const char * const reserved[] = {
    "model", "messages", "tools", "stream", "stream_options",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (reserved); i++)
    if (strcmp (name, reserved[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The system prompt and the messages, in order. */
static JsonArray *
encode_messages (JsonObject  *composed,
                 GError     **error)
{
  g_autoptr(JsonArray) messages = json_array_new ();
  const char *system_prompt;
  JsonNode *node;

  system_prompt = natter_json_loose_string (composed, "systemPrompt");
  if (system_prompt != NULL && system_prompt[0] != '\0')
    {
      JsonObject *system = json_object_new ();

      json_object_set_string_member (system, "role", "system");
      json_object_set_string_member (system, "content", system_prompt);
      json_array_add_object_element (messages, system);
    }

  node = json_object_get_member (composed, "messages");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      invalid (error, "there is no messages array");
      return NULL;
    }

  for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (node), i);
      JsonObject *message = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      const char *role = natter_json_loose_string (message, "role");
      JsonObject *encoded;

      if (g_strcmp0 (role, "user") == 0)
        encoded = encode_user (message, i, error);
      else if (g_strcmp0 (role, "assistant") == 0)
        encoded = encode_assistant (message, i, error);
      else if (g_strcmp0 (role, "tool") == 0)
        encoded = encode_tool_result (message, i, error);
      else
        {
          invalid (error, "message %u has an unknown role", i);
          return NULL;
        }

      if (encoded == NULL)
        return NULL;
      json_array_add_object_element (messages, encoded);
    }
  return g_steal_pointer (&messages);
}

/* Sets `tools` on @body unless @node (the composed `tools`) is missing,
 * null or empty. */
static gboolean
encode_tools (JsonObject  *body,
              JsonNode    *node,
              GError     **error)
{
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node)
      && json_array_get_length (json_node_get_array (node)) > 0)
    {
      JsonArray *descriptors = json_node_get_array (node);
      g_autoptr(JsonArray) tools = json_array_new ();

      for (guint i = 0; i < json_array_get_length (descriptors); i++)
        {
          JsonNode *element = json_array_get_element (descriptors, i);
          JsonObject *tool;

          if (!JSON_NODE_HOLDS_OBJECT (element))
            return invalid (error, "tool %u is not an object", i);
          tool = encode_tool_descriptor (json_node_get_object (element), i, error);
          if (tool == NULL)
            return FALSE;
          json_array_add_object_element (tools, tool);
        }
      json_object_set_array_member (body, "tools", g_steal_pointer (&tools));
    }
  else if (node != NULL && !JSON_NODE_HOLDS_NULL (node) && !JSON_NODE_HOLDS_ARRAY (node))
    return invalid (error, "tools is not an array");
  return TRUE;
}

static gboolean
is_token_limit (const char *name)
{
  return strcmp (name, NATTER_OPENAI_MAX_TOKENS) == 0 ||
         strcmp (name, NATTER_OPENAI_MAX_COMPLETION_TOKENS) == 0;
}

/**
 * natter_openai_request_has_token_limit: (skip)
 * @composed: a composed request (docs/runtime.md §3)
 *
 * Returns: whether its `parameters` limit the answer's tokens, under
 *   either of the names OpenAI-compatible servers know
 */
gboolean
natter_openai_request_has_token_limit (JsonObject *composed)
{
  JsonNode *node = json_object_get_member (composed, "parameters");

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;
  return json_object_has_member (json_node_get_object (node), NATTER_OPENAI_MAX_TOKENS) ||
         json_object_has_member (json_node_get_object (node), NATTER_OPENAI_MAX_COMPLETION_TOKENS);
}

/* Copies the generation parameters of @node (the composed `parameters`)
 * onto @body, except those the encoding sets itself. The limit on the
 * answer's tokens goes under @limit_name whichever name the turn stored
 * it under: the two names mean the same, and servers know one or both
 * (docs/runtime.md, "The token limit"). */
static gboolean
copy_parameters (JsonObject  *body,
                 JsonNode    *node,
                 const char  *limit_name,
                 GError     **error)
{
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, &name, &value))
        {
          if (is_reserved_parameter (name))
            {
              g_debug ("Ignoring the generation parameter “%s”: the provider sets it", name);
              continue;
            }
          if (is_token_limit (name))
            {
              if (!json_object_has_member (body, limit_name))
                json_object_set_member (body, limit_name, json_node_copy (value));
              continue;
            }
          json_object_set_member (body, name, json_node_copy (value));
        }
    }
  else if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    return invalid (error, "parameters is not an object");
  return TRUE;
}

/**
 * natter_openai_provider_get_token_limit_name: (skip)
 * @self: a provider
 * @model: a model name
 *
 * The name the limit on @model's answer is sent under: `max_tokens`,
 * which every OpenAI-compatible server reads (some ignore the newer
 * name), unless @model refused it in this process.
 *
 * Returns: (transfer none): %NATTER_OPENAI_MAX_TOKENS or
 *   %NATTER_OPENAI_MAX_COMPLETION_TOKENS
 */
const char *
natter_openai_provider_get_token_limit_name (NatterOpenaiProvider *self,
                                             const char           *model)
{
  return g_hash_table_contains (self->completion_token_models, model) ? NATTER_OPENAI_MAX_COMPLETION_TOKENS
                                                                      : NATTER_OPENAI_MAX_TOKENS;
}

/**
 * natter_openai_provider_remember_token_limit_name: (skip)
 * @self: a provider
 * @model: a model name
 * @limit_name: the name @model took after refusing the other
 *
 * Sends @model's token limit under @limit_name from now on, so that only
 * its first request is refused.
 */
void
natter_openai_provider_remember_token_limit_name (NatterOpenaiProvider *self,
                                                  const char           *model,
                                                  const char           *limit_name)
{
  if (g_str_equal (limit_name, NATTER_OPENAI_MAX_COMPLETION_TOKENS))
    g_hash_table_add (self->completion_token_models, g_strdup (model));
  else
    g_hash_table_remove (self->completion_token_models, model);
}

/**
 * natter_openai_encode_request_with_limit: (skip)
 * @self: a provider
 * @composed: as for natter_openai_provider_encode_request()
 * @model: the model name
 * @limit_name: the name the token limit is sent under,
 *   %NATTER_OPENAI_MAX_TOKENS or %NATTER_OPENAI_MAX_COMPLETION_TOKENS
 * @error: return location for a #GError
 *
 * natter_openai_provider_encode_request() with the token limit's name
 * given, for the second try after a server refused the other.
 *
 * Returns: (transfer full) (nullable): as natter_openai_provider_encode_request()
 */
JsonNode *
natter_openai_encode_request_with_limit (NatterOpenaiProvider  *self,
                                         JsonObject            *composed,
                                         const char            *model,
                                         const char            *limit_name,
                                         GError               **error)
{
  g_autoptr(JsonObject) body = json_object_new ();
  JsonArray *messages;
  JsonObject *stream_options;
  JsonNode *root;

  messages = encode_messages (composed, error);
  if (messages == NULL)
    return NULL;

  json_object_set_string_member (body, "model", model);
  json_object_set_array_member (body, "messages", messages);

  if (!encode_tools (body, json_object_get_member (composed, "tools"), error))
    return NULL;

  json_object_set_boolean_member (body, "stream", TRUE);
  stream_options = json_object_new ();
  json_object_set_boolean_member (stream_options, "include_usage", TRUE);
  json_object_set_object_member (body, "stream_options", stream_options);

  if (!copy_parameters (body, json_object_get_member (composed, "parameters"), limit_name, error))
    return NULL;

  root = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (root, g_steal_pointer (&body));
  return root;
}
