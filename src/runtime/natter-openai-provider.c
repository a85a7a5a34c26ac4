/* natter-openai-provider.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-openai-provider"

#include <string.h>

#include <libsoup/soup.h>

#include "natter-openai-provider.h"
#include "natter-sse-parser.h"

/* Bodies are read in pieces of this size: large enough that a fast local
 * server costs few main-loop round trips, small enough that deltas reach
 * the screen as they arrive. */
#define READ_CHUNK_BYTES (16 * 1024)

/* An HTTP error body is only read for its message; a proxy's HTML page or
 * a runaway server must not be read whole. */
#define MAX_ERROR_BODY_BYTES (64 * 1024)

/* Server text quoted in an error message is cut to this many characters. */
#define MAX_QUOTED_CHARS 300

struct _NatterOpenaiProvider
{
  GObject      parent_instance;

  char        *id;
  char        *display_name;
  char        *base_url;      /* without a trailing '/' */
  char        *display_base;  /* scheme://host[:port]: what messages show */
  char        *api_key;       /* NULL when none; only ever sent as a header */
  guint        idle_timeout;  /* seconds; 0 = never */
  gsize        max_event_bytes;
  SoupSession *session;
};

G_DEFINE_FINAL_TYPE (NatterOpenaiProvider, natter_openai_provider, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_DISPLAY_NAME,
  PROP_BASE_URL,
  PROP_API_KEY,
  PROP_IDLE_TIMEOUT,
  PROP_MAX_EVENT_BYTES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
natter_openai_provider_finalize (GObject *object)
{
  NatterOpenaiProvider *self = (NatterOpenaiProvider *) object;

  g_free (self->id);
  g_free (self->display_name);
  g_free (self->base_url);
  g_free (self->display_base);
  if (self->api_key != NULL)
    {
      /* The key should not linger in freed memory. */
      memset (self->api_key, 0, strlen (self->api_key));
      g_free (self->api_key);
    }
  g_clear_object (&self->session);

  G_OBJECT_CLASS (natter_openai_provider_parent_class)->finalize (object);
}

/* scheme://host[:port] of the base URL: no user info, path or query, so a
 * message can name the server without leaking credentials. */
static char *
make_display_base (const char *base_url)
{
  g_autoptr(GUri) uri = g_uri_parse (base_url, G_URI_FLAGS_NONE, NULL);

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return g_strdup (base_url);

  return g_uri_join (G_URI_FLAGS_NONE, g_uri_get_scheme (uri), NULL,
                     g_uri_get_host (uri), g_uri_get_port (uri), "", NULL, NULL);
}

static void
natter_openai_provider_constructed (GObject *object)
{
  NatterOpenaiProvider *self = (NatterOpenaiProvider *) object;
  gsize len;

  G_OBJECT_CLASS (natter_openai_provider_parent_class)->constructed (object);

  if (self->base_url == NULL)
    self->base_url = g_strdup ("");
  len = strlen (self->base_url);
  while (len > 0 && self->base_url[len - 1] == '/')
    self->base_url[--len] = '\0';

  if (self->id == NULL)
    self->id = g_strdup (self->base_url);
  if (self->display_name == NULL || self->display_name[0] == '\0')
    {
      g_free (self->display_name);
      self->display_name = g_strdup (self->id);
    }

  self->display_base = make_display_base (self->base_url);
  if (self->max_event_bytes == 0)
    self->max_event_bytes = NATTER_SSE_PARSER_DEFAULT_MAX_EVENT_BYTES;

  /* The idle timer below watches every request, so libsoup's own I/O
   * timeout stays off: a local model may take minutes to load before the
   * first byte, which the idle timeout (if any) already bounds. */
  self->session = soup_session_new_with_options ("user-agent", "Natter ",
                                                 "timeout", 0,
                                                 "idle-timeout", 60,
                                                 NULL);
}

static void
natter_openai_provider_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  NatterOpenaiProvider *self = NATTER_OPENAI_PROVIDER (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;

    case PROP_DISPLAY_NAME:
      g_value_set_string (value, self->display_name);
      break;

    case PROP_BASE_URL:
      g_value_set_string (value, self->base_url);
      break;

    case PROP_IDLE_TIMEOUT:
      g_value_set_uint (value, self->idle_timeout);
      break;

    case PROP_MAX_EVENT_BYTES:
      g_value_set_uint64 (value, self->max_event_bytes);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_openai_provider_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  NatterOpenaiProvider *self = NATTER_OPENAI_PROVIDER (object);
  const char *key;

  switch (prop_id)
    {
    case PROP_ID:
      g_free (self->id);
      self->id = g_value_dup_string (value);
      break;

    case PROP_DISPLAY_NAME:
      g_free (self->display_name);
      self->display_name = g_value_dup_string (value);
      break;

    case PROP_BASE_URL:
      g_free (self->base_url);
      self->base_url = g_value_dup_string (value);
      break;

    case PROP_API_KEY:
      key = g_value_get_string (value);
      g_free (self->api_key);
      /* Pitfall 9: an empty key means "no key", not "Bearer ". */
      self->api_key = key != NULL && key[0] != '\0' ? g_strdup (key) : NULL;
      break;

    case PROP_IDLE_TIMEOUT:
      self->idle_timeout = g_value_get_uint (value);
      break;

    case PROP_MAX_EVENT_BYTES:
      self->max_event_bytes = g_value_get_uint64 (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_openai_provider_class_init (NatterOpenaiProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_openai_provider_finalize;
  object_class->constructed = natter_openai_provider_constructed;
  object_class->get_property = natter_openai_provider_get_property;
  object_class->set_property = natter_openai_provider_set_property;

  /**
   * NatterOpenaiProvider:id:
   *
   * The configured provider's id (e.g. "ollama"), or the endpoint URL of
   * an ad-hoc one: the `provider` of a model descriptor (§12).
   */
  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterOpenaiProvider:display-name:
   *
   * The name error messages give the server, e.g. "Ollama".
   */
  properties[PROP_DISPLAY_NAME] =
    g_param_spec_string ("display-name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterOpenaiProvider:base-url:
   *
   * The API root, e.g. "http://localhost:11434/v1"; trailing slashes are
   * dropped.
   */
  properties[PROP_BASE_URL] =
    g_param_spec_string ("base-url", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterOpenaiProvider:api-key:
   *
   * The key sent as `Authorization: Bearer …`; %NULL or "" sends no
   * Authorization header at all. Write-only, so that no property dump or
   * binding can show it.
   */
  properties[PROP_API_KEY] =
    g_param_spec_string ("api-key", NULL, NULL, NULL,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterOpenaiProvider:idle-timeout:
   *
   * Seconds without a byte from the server (waiting for the headers or
   * between body reads) after which a call fails with
   * %NATTER_PROVIDER_ERROR_TIMEOUT; 0 waits for ever.
   */
  properties[PROP_IDLE_TIMEOUT] =
    g_param_spec_uint ("idle-timeout", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                       G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterOpenaiProvider:max-event-bytes:
   *
   * The largest Server-Sent Event, and the largest non-streamed body,
   * accepted; 0 means %NATTER_SSE_PARSER_DEFAULT_MAX_EVENT_BYTES.
   */
  properties[PROP_MAX_EVENT_BYTES] =
    g_param_spec_uint64 ("max-event-bytes", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
natter_openai_provider_init (NatterOpenaiProvider *self)
{
}

/**
 * natter_openai_provider_new:
 * @provider_id: the provider id of a model descriptor: a configured
 *   provider's id ("ollama") or, for an ad-hoc endpoint, its URL
 * @display_name: (nullable): the name messages use ("Ollama"); %NULL
 *   uses @provider_id
 * @base_url: the API root, e.g. "http://localhost:11434/v1"
 * @api_key: (nullable): the key; %NULL or "" sends no Authorization
 *   header (pitfall 9: a local server needs none)
 * @idle_timeout_seconds: fail a call after this many seconds without a
 *   byte from the server; 0 never
 * @max_event_bytes: the cap on one Server-Sent Event and on a whole
 *   non-streamed body; 0 for %NATTER_SSE_PARSER_DEFAULT_MAX_EVENT_BYTES
 *
 * Creates an OpenAI-compatible provider owning one #SoupSession
 * (turn-runtime.md §12). The key is only ever put in the Authorization
 * header: it appears in no request body, log line or error message.
 *
 * Returns: (transfer full): a new provider
 */
NatterOpenaiProvider *
natter_openai_provider_new (const char *provider_id,
                            const char *display_name,
                            const char *base_url,
                            const char *api_key,
                            guint       idle_timeout_seconds,
                            gsize       max_event_bytes)
{
  g_return_val_if_fail (provider_id != NULL, NULL);
  g_return_val_if_fail (base_url != NULL, NULL);

  return g_object_new (NATTER_TYPE_OPENAI_PROVIDER,
                       "id", provider_id,
                       "display-name", display_name,
                       "base-url", base_url,
                       "api-key", api_key,
                       "idle-timeout", idle_timeout_seconds,
                       "max-event-bytes", (guint64) max_event_bytes,
                       NULL);
}

/**
 * natter_openai_provider_get_id:
 * @self: a provider
 *
 * Returns: (transfer none): the provider id
 */
const char *
natter_openai_provider_get_id (NatterOpenaiProvider *self)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);

  return self->id;
}

/**
 * natter_openai_provider_get_display_name:
 * @self: a provider
 *
 * Returns: (transfer none): the name messages give the server
 */
const char *
natter_openai_provider_get_display_name (NatterOpenaiProvider *self)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);

  return self->display_name;
}

/**
 * natter_openai_provider_get_base_url:
 * @self: a provider
 *
 * Returns: (transfer none): the API root, without a trailing slash
 */
const char *
natter_openai_provider_get_base_url (NatterOpenaiProvider *self)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);

  return self->base_url;
}

/**
 * natter_openai_provider_get_idle_timeout:
 * @self: a provider
 *
 * Returns: the idle timeout in seconds; 0 for none
 */
guint
natter_openai_provider_get_idle_timeout (NatterOpenaiProvider *self)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), 0);

  return self->idle_timeout;
}

/* ------------------------------------------------------------------ */
/* Request encoding                                                    */
/* ------------------------------------------------------------------ */

static const char *
get_string (JsonObject *object,
            const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
invalid (GError     **error,
         const char  *format,
         ...) G_GNUC_PRINTF (2, 3);

static gboolean
invalid (GError     **error,
         const char  *format,
         ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               "Cannot encode the request: %s", message);
  return FALSE;
}

static void
append_paragraph (GString    *text,
                  const char *paragraph)
{
  if (text->len > 0)
    g_string_append (text, "\n\n");
  g_string_append (text, paragraph);
}

static JsonObject *
encode_user (JsonObject  *message,
             guint        position,
             GError     **error)
{
  JsonNode *content = json_object_get_member (message, "content");
  g_autoptr(JsonObject) out = json_object_new ();
  g_autoptr(GString) text = g_string_new (NULL);

  if (content != NULL && JSON_NODE_HOLDS_VALUE (content)
      && json_node_get_value_type (content) == G_TYPE_STRING)
    g_string_append (text, json_node_get_string (content));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *node = json_array_get_element (parts, i);
          JsonObject *part = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
          const char *type = get_string (part, "type");

          if (g_strcmp0 (type, "text") == 0 && get_string (part, "text") != NULL)
            append_paragraph (text, get_string (part, "text"));
          else if (g_strcmp0 (type, "attachment") == 0)
            {
              /* Attachments are not uploaded yet; the model at least
               * learns that the user attached something. */
              const char *filename = get_string (part, "filename");
              g_autofree char *note = g_strdup_printf ("[attachment: %s]",
                                                       filename != NULL ? filename : "unnamed");

              append_paragraph (text, note);
            }
          else
            {
              invalid (error, "message %u has a user content part of unknown type", position);
              return NULL;
            }
        }
    }
  else
    {
      invalid (error, "message %u (user) has no content", position);
      return NULL;
    }

  json_object_set_string_member (out, "role", "user");
  json_object_set_string_member (out, "content", text->str);
  return g_steal_pointer (&out);
}

static JsonObject *
encode_tool_call (JsonObject  *part,
                  guint        position,
                  GError     **error)
{
  const char *id = get_string (part, "toolCallId");
  const char *name = get_string (part, "toolName");
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
    serialized = json_to_string (arguments, FALSE);

  function = json_object_new ();
  json_object_set_string_member (function, "name", name);
  json_object_set_string_member (function, "arguments", serialized);

  out = json_object_new ();
  json_object_set_string_member (out, "id", id);
  json_object_set_string_member (out, "type", "function");
  json_object_set_object_member (out, "function", function);
  return out;
}

static JsonObject *
encode_assistant (JsonObject  *message,
                  guint        position,
                  GError     **error)
{
  JsonNode *content = json_object_get_member (message, "content");
  g_autoptr(JsonObject) out = json_object_new ();
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(JsonArray) tool_calls = json_array_new ();

  if (content != NULL && JSON_NODE_HOLDS_VALUE (content)
      && json_node_get_value_type (content) == G_TYPE_STRING)
    g_string_append (text, json_node_get_string (content));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *node = json_array_get_element (parts, i);
          JsonObject *part = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
          const char *type = get_string (part, "type");

          if (g_strcmp0 (type, "text") == 0 && get_string (part, "text") != NULL)
            append_paragraph (text, get_string (part, "text"));
          else if (g_strcmp0 (type, "reasoning") == 0)
            /* Reasoning is the model's scratchpad: servers reject it or
             * bill it again, so it is never sent back. */
            continue;
          else if (g_strcmp0 (type, "tool-call") == 0)
            {
              JsonObject *call = encode_tool_call (part, position, error);

              if (call == NULL)
                return NULL;
              json_array_add_object_element (tool_calls, call);
            }
          else
            {
              invalid (error, "message %u has an assistant content part of unknown type", position);
              return NULL;
            }
        }
    }
  else
    {
      invalid (error, "message %u (assistant) has no content", position);
      return NULL;
    }

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
  const char *id = get_string (message, "toolCallId");
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
      g_autofree char *serialized = json_to_string (content, FALSE);

      json_object_set_string_member (out, "content", serialized);
    }
  return out;
}

static JsonObject *
encode_tool_descriptor (JsonObject  *descriptor,
                        guint        position,
                        GError     **error)
{
  const char *name = get_string (descriptor, "name");
  const char *description = get_string (descriptor, "description");
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

/**
 * natter_openai_provider_encode_request:
 * @self: a provider
 * @composed: the composed request of turn-runtime.md §3:
 *   `{systemPrompt?, messages: [user/assistant/tool messages], tools?:
 *   [tool descriptors], parameters?: {…}}`
 * @model: the model name sent as `model`
 * @error: return location for a #GError
 *
 * Encodes the body of `POST {baseUrl}/chat/completions` (§12), purely: no
 * I/O, and no key (the key only ever travels in a header). The body holds,
 * in order: `model`; `messages` (the system prompt first when present and
 * non-empty; user content as a string, text parts joined by a blank line
 * and an attachment as the note "[attachment: filename]"; assistant
 * `content` as a string, or null when it only calls tools, its reasoning
 * dropped, `tool_calls` only when there are some, each
 * `{id, type:"function", function:{name, arguments}}` with the arguments
 * serialized to a string, or a malformed call's raw string as it is; tool
 * results as `{role:"tool", tool_call_id, content}` with a string
 * content); `tools` as `{type:"function", function:{name, description,
 * parameters}}`, omitted when there are none; `stream: true` and
 * `stream_options: {include_usage: true}`; then every member of
 * `parameters` except those that would override the members above.
 *
 * Returns: (transfer full) (nullable): the body object, or %NULL with
 *   %G_IO_ERROR_INVALID_DATA when @composed does not have the shape above
 *   (a message of unknown role — a `system` message included — or a
 *   content part of unknown type, a tool call without id or name).
 */
JsonNode *
natter_openai_provider_encode_request (NatterOpenaiProvider  *self,
                                       JsonObject            *composed,
                                       const char            *model,
                                       GError               **error)
{
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(JsonArray) messages = json_array_new ();
  JsonNode *node;
  const char *system_prompt;
  JsonObject *stream_options;
  JsonNode *root;

  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);
  g_return_val_if_fail (composed != NULL, NULL);
  g_return_val_if_fail (model != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  system_prompt = get_string (composed, "systemPrompt");
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
      const char *role = get_string (message, "role");
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

  json_object_set_string_member (body, "model", model);
  json_object_set_array_member (body, "messages", g_steal_pointer (&messages));

  node = json_object_get_member (composed, "tools");
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
            {
              invalid (error, "tool %u is not an object", i);
              return NULL;
            }
          tool = encode_tool_descriptor (json_node_get_object (element), i, error);
          if (tool == NULL)
            return NULL;
          json_array_add_object_element (tools, tool);
        }
      json_object_set_array_member (body, "tools", g_steal_pointer (&tools));
    }
  else if (node != NULL && !JSON_NODE_HOLDS_NULL (node) && !JSON_NODE_HOLDS_ARRAY (node))
    {
      invalid (error, "tools is not an array");
      return NULL;
    }

  json_object_set_boolean_member (body, "stream", TRUE);
  stream_options = json_object_new ();
  json_object_set_boolean_member (stream_options, "include_usage", TRUE);
  json_object_set_object_member (body, "stream_options", stream_options);

  node = json_object_get_member (composed, "parameters");
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
          json_object_set_member (body, name, json_node_copy (value));
        }
    }
  else if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      invalid (error, "parameters is not an object");
      return NULL;
    }

  root = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (root, g_steal_pointer (&body));
  return root;
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/* Every message the provider produces goes through here: whatever a
 * server echoes back, the key never reaches a GError (and so never a turn
 * file). */
static GError *
provider_error_literal (NatterOpenaiProvider *self,
                        NatterProviderError   code,
                        const char           *message)
{
  if (self->api_key != NULL && strstr (message, self->api_key) != NULL)
    {
      g_auto(GStrv) pieces = g_strsplit (message, self->api_key, -1);
      g_autofree char *scrubbed = g_strjoinv ("[redacted]", pieces);

      return g_error_new_literal (NATTER_PROVIDER_ERROR, code, scrubbed);
    }
  return g_error_new_literal (NATTER_PROVIDER_ERROR, code, message);
}

static GError *
provider_error (NatterOpenaiProvider *self,
                NatterProviderError   code,
                const char           *format,
                ...) G_GNUC_PRINTF (3, 4);

static GError *
provider_error (NatterOpenaiProvider *self,
                NatterProviderError   code,
                const char           *format,
                ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  return provider_error_literal (self, code, message);
}

/* Server text for a message: valid UTF-8, one line, bounded. */
static char *
quote_server_text (const char *text,
                   gssize      len)
{
  g_autofree char *valid = g_utf8_make_valid (text, len);
  g_autoptr(GString) out = g_string_new (NULL);
  gboolean space = FALSE;
  glong n = 0;

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c) || g_unichar_iscntrl (c))
        {
          space = out->len > 0;
          continue;
        }
      if (n >= MAX_QUOTED_CHARS)
        {
          g_string_append (out, "…");
          break;
        }
      if (space)
        g_string_append_c (out, ' ');
      space = FALSE;
      g_string_append_unichar (out, c);
      n++;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
stringify_node (JsonNode *node)
{
  g_autofree char *serialized = NULL;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return quote_server_text (json_node_get_string (node), -1);
  serialized = json_to_string (node, FALSE);
  return quote_server_text (serialized, -1);
}

/* The human part of an HTTP error body, in the shapes servers use:
 * {"error":{"message"}} (OpenAI, vLLM), {"error":"…"} (Ollama),
 * {"message":…} (many proxies), {"detail":…} (FastAPI servers), or a
 * short plain-text body. NULL when nothing readable is in it. */
static char *
describe_error_body (const char *body,
                     gsize       len)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *object;
  JsonNode *member;

  if (len == 0)
    return NULL;

  if (json_parser_load_from_data (parser, body, len, NULL)
      && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      object = json_node_get_object (json_parser_get_root (parser));

      member = json_object_get_member (object, "error");
      if (member != NULL && JSON_NODE_HOLDS_OBJECT (member))
        {
          JsonObject *inner = json_node_get_object (member);
          JsonNode *message = json_object_get_member (inner, "message");

          if (message != NULL && !JSON_NODE_HOLDS_NULL (message))
            return stringify_node (message);
          return stringify_node (member);
        }
      if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
        return stringify_node (member);

      member = json_object_get_member (object, "message");
      if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
        return stringify_node (member);

      member = json_object_get_member (object, "detail");
      if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
        return stringify_node (member);

      return quote_server_text (body, len);
    }

  /* An HTML page (a proxy's error page) says nothing useful in one line. */
  for (gsize i = 0; i < len; i++)
    {
      if (g_ascii_isspace (body[i]))
        continue;
      if (body[i] == '<')
        return NULL;
      break;
    }

  {
    g_autofree char *quoted = quote_server_text (body, len);

    return quoted[0] != '\0' ? g_steal_pointer (&quoted) : NULL;
  }
}

/* Seconds to wait from a Retry-After value: delta-seconds or an HTTP
 * date. -1 when absent or unreadable. */
static gint64
parse_retry_after (const char *value)
{
  g_autoptr(GDateTime) date = NULL;
  g_autoptr(GDateTime) now = NULL;
  const char *end = NULL;
  guint64 seconds;

  if (value == NULL)
    return -1;
  while (g_ascii_isspace (*value))
    value++;

  if (g_ascii_isdigit (*value))
    {
      seconds = g_ascii_strtoull (value, (char **) &end, 10);
      while (end != NULL && g_ascii_isspace (*end))
        end++;
      if (end != NULL && *end == '\0')
        return (gint64) MIN (seconds, (guint64) G_MAXINT32);
      return -1;
    }

  date = soup_date_time_new_from_http_string (value);
  if (date == NULL)
    return -1;
  now = g_date_time_new_now_utc ();
  return MAX (0, g_date_time_difference (date, now) / G_TIME_SPAN_SECOND);
}

static GError *
http_error (NatterOpenaiProvider *self,
            SoupMessage          *msg,
            const char           *body,
            gsize                 len)
{
  guint status = soup_message_get_status (msg);
  const char *phrase = soup_message_get_reason_phrase (msg);
  g_autofree char *detail = describe_error_body (body, len);
  g_autofree char *status_text = NULL;
  g_autofree char *suffix = NULL;
  g_autoptr(GString) message = g_string_new (NULL);

  /* libsoup 3.2 has no phrase for 429, and a libsoup server sends
   * "Unknown Error" for it. */
  if (status == 429 && (phrase == NULL || phrase[0] == '\0'
                        || strcmp (phrase, "Unknown Error") == 0))
    phrase = "Too Many Requests";
  if (phrase == NULL || phrase[0] == '\0')
    phrase = soup_status_get_phrase (status);
  status_text = g_strdup_printf ("HTTP %u %s", status, phrase);
  suffix = detail != NULL ? g_strdup_printf (": %s", detail) : g_strdup ("");

  if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN)
    {
      if (self->api_key != NULL)
        g_string_printf (message, "%s refused the API key (%s)%s — check the key in the provider settings",
                         self->display_name, status_text, suffix);
      else
        g_string_printf (message, "%s needs an API key (%s)%s — set one in the provider settings",
                         self->display_name, status_text, suffix);
    }
  else if (status == 429 /* Too Many Requests: not in libsoup 3.2 */)
    {
      SoupMessageHeaders *headers = soup_message_get_response_headers (msg);
      gint64 retry = parse_retry_after (soup_message_headers_get_one (headers, "Retry-After"));

      g_string_printf (message, "%s is limiting requests (%s)%s", self->display_name,
                       status_text, suffix);
      if (retry >= 0)
        g_string_append_printf (message, "; try again in %" G_GINT64_FORMAT " s", retry);
      else
        g_string_append (message, "; try again later");
    }
  else
    g_string_printf (message, "%s returned %s%s", self->display_name, status_text, suffix);

  return provider_error_literal (self, NATTER_PROVIDER_ERROR_HTTP, message->str);
}

/* ------------------------------------------------------------------ */
/* One HTTP call                                                       */
/* ------------------------------------------------------------------ */

typedef enum
{
  CALL_CHAT,
  CALL_MODELS,
} CallKind;

typedef enum
{
  BODY_SSE,
  BODY_JSON,
  BODY_ERROR,
} BodyMode;

/* The state of one request, the task data of both operations. */
typedef struct
{
  CallKind          kind;
  SoupMessage      *msg;
  GInputStream     *body;
  /* Our own cancellable, given to libsoup: the caller's cancellable and
   * the idle timer both cancel it. */
  GCancellable     *cancellable;
  GCancellable     *user_cancellable;
  gulong            user_cancel_id;
  GSource          *idle_source;
  gint64            last_activity;
  gboolean          timed_out;
  gboolean          got_headers;
  gboolean          returned;
  BodyMode          mode;
  GByteArray       *collected;  /* BODY_JSON / BODY_ERROR */
  gsize             collect_limit;
  NatterChatStream *stream;     /* CALL_CHAT */
  NatterSseParser  *parser;     /* CALL_CHAT and BODY_SSE */
} Call;

static void
call_free (gpointer data)
{
  Call *call = data;

  g_assert (call->idle_source == NULL);
  g_assert (call->user_cancel_id == 0);

  g_clear_object (&call->msg);
  g_clear_object (&call->body);
  g_clear_object (&call->cancellable);
  g_clear_object (&call->user_cancellable);
  g_clear_pointer (&call->collected, g_byte_array_unref);
  g_clear_object (&call->stream);
  g_clear_pointer (&call->parser, natter_sse_parser_free);
  g_free (call);
}

static void
user_cancelled_cb (GCancellable *user_cancellable,
                   gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

static gboolean
idle_source_dispatch (GSource     *source,
                      GSourceFunc  callback,
                      gpointer     user_data)
{
  return callback (user_data);
}

static GSourceFuncs idle_source_funcs = {
  .dispatch = idle_source_dispatch,
};

static gboolean
idle_timeout_cb (gpointer user_data)
{
  GTask *task = user_data;
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  gint64 deadline = call->last_activity + (gint64) self->idle_timeout * G_USEC_PER_SEC;

  /* Activity only moves last_activity; the source is re-armed here, so a
   * fast stream costs no timer work per read. */
  if (g_get_monotonic_time () < deadline)
    {
      g_source_set_ready_time (call->idle_source, deadline);
      return G_SOURCE_CONTINUE;
    }

  g_debug ("%s sent nothing for %u s; aborting the request", self->id, self->idle_timeout);
  call->timed_out = TRUE;
  g_source_set_ready_time (call->idle_source, -1);
  g_cancellable_cancel (call->cancellable);
  return G_SOURCE_CONTINUE;
}

static void
call_touch (Call *call)
{
  call->last_activity = g_get_monotonic_time ();
}

/* Stops the timer and the cancellation link; runs once per call. */
static gboolean
call_settle (GTask *task)
{
  Call *call = g_task_get_task_data (task);

  if (call->returned)
    return FALSE;
  call->returned = TRUE;

  if (call->idle_source != NULL)
    {
      g_source_destroy (call->idle_source);
      g_clear_pointer (&call->idle_source, g_source_unref);
    }
  if (call->user_cancel_id != 0)
    {
      g_cancellable_disconnect (call->user_cancellable, call->user_cancel_id);
      call->user_cancel_id = 0;
    }
  return TRUE;
}

/* Rewords an error of the stream assembler so that it names the server;
 * keeps its code. */
static GError *
rebrand_stream_error (NatterOpenaiProvider *self,
                      const GError         *error)
{
  if (error->domain != NATTER_PROVIDER_ERROR)
    return provider_error (self, NATTER_PROVIDER_ERROR_BAD_RESPONSE, "%s: %s",
                           self->display_name, error->message);

  if (error->code == NATTER_PROVIDER_ERROR_TRUNCATED_STREAM)
    return provider_error (self, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM,
                           "The connection to %s at %s was lost mid-answer: "
                           "the response ended before the model finished",
                           self->display_name, self->display_base);

  if (g_str_has_prefix (error->message, "The provider"))
    return provider_error (self, error->code, "%s%s", self->display_name,
                           error->message + strlen ("The provider"));

  return provider_error (self, error->code, "%s: %s", self->display_name, error->message);
}

static void
call_return_error (GTask  *task,
                   GError *error)
{
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);

  if (!call_settle (task))
    {
      g_error_free (error);
      return;
    }

  /* Settle the tool calls of what did arrive, so that the partial
   * answer stays readable; its own verdict is not the one reported. */
  if (call->stream != NULL)
    natter_chat_stream_finish (call->stream, NULL);

  g_debug ("%s: call failed (code %d)", self->id, error->code);
  g_task_return_error (task, error);
}

/* Maps a GIO/libsoup error of the transport. */
static GError *
transport_error (NatterOpenaiProvider *self,
                 Call                 *call,
                 const GError         *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      if (call->timed_out && call->got_headers)
        return provider_error (self, NATTER_PROVIDER_ERROR_TIMEOUT,
                               "%s at %s stopped sending for %u s",
                               self->display_name, self->display_base, self->idle_timeout);
      if (call->timed_out)
        return provider_error (self, NATTER_PROVIDER_ERROR_TIMEOUT,
                               "%s at %s did not answer within %u s",
                               self->display_name, self->display_base, self->idle_timeout);
      return provider_error (self, NATTER_PROVIDER_ERROR_CANCELLED,
                             "The request to %s was cancelled", self->display_name);
    }

  if (call->got_headers)
    return provider_error (self, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM,
                           "The connection to %s at %s was lost mid-answer (%s)",
                           self->display_name, self->display_base, error->message);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
    return provider_error (self, NATTER_PROVIDER_ERROR_UNREACHABLE,
                           "Could not reach %s at %s — is it running?",
                           self->display_name, self->display_base);

  if (error->domain == G_RESOLVER_ERROR
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND))
    return provider_error (self, NATTER_PROVIDER_ERROR_UNREACHABLE,
                           "Could not reach %s at %s: the host name was not found — "
                           "check the address and the network connection",
                           self->display_name, self->display_base);

  if (error->domain == G_TLS_ERROR)
    return provider_error (self, NATTER_PROVIDER_ERROR_UNREACHABLE,
                           "Could not make a secure connection to %s at %s (%s)",
                           self->display_name, self->display_base, error->message);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    return provider_error (self, NATTER_PROVIDER_ERROR_TIMEOUT,
                           "%s at %s did not answer in time",
                           self->display_name, self->display_base);

  return provider_error (self, NATTER_PROVIDER_ERROR_UNREACHABLE,
                         "Could not reach %s at %s (%s)",
                         self->display_name, self->display_base, error->message);
}

static gboolean
sse_event_cb (const char  *event_name,
              const char  *data,
              gsize        data_len,
              gpointer     user_data,
              GError     **error)
{
  Call *call = user_data;

  /* A delta handler may cancel; the rest of this read must then reach
   * nobody. */
  if (g_cancellable_is_cancelled (call->cancellable))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
      return FALSE;
    }

  return natter_chat_stream_feed_sse_event (call->stream, event_name, data, data_len, error);
}

static void read_next (GTask *task);

static void
parse_models (GTask      *task,
              const char *body,
              gsize       len)
{
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonObject *root;
  JsonNode *list = NULL;
  const char *key = "id";

  if (!json_parser_load_from_data (parser, body, len, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      call_return_error (task, provider_error (self, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                               "%s sent a model list that is not JSON",
                                               self->display_name));
      return;
    }

  root = json_node_get_object (json_parser_get_root (parser));
  list = json_object_get_member (root, "data");
  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    {
      /* Ollama's native /api/tags shape. */
      list = json_object_get_member (root, "models");
      key = "name";
    }
  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    {
      call_return_error (task, provider_error (self, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                               "%s sent a model list without “data” or “models”",
                                               self->display_name));
      return;
    }

  for (guint i = 0; i < json_array_get_length (json_node_get_array (list)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (list), i);
      JsonObject *entry = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      const char *name = get_string (entry, key);

      if (name == NULL)
        name = get_string (entry, "model");
      if (name != NULL && name[0] != '\0')
        g_strv_builder_add (builder, name);
    }

  call_settle (task);
  g_task_return_pointer (task, g_strv_builder_end (builder), (GDestroyNotify) g_strfreev);
}

/* The whole body is in (or the read failed): decide the outcome. */
static void
finish_body (GTask *task)
{
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  switch (call->mode)
    {
    case BODY_ERROR:
      call_return_error (task, http_error (self, call->msg,
                                           (const char *) call->collected->data,
                                           call->collected->len));
      return;

    case BODY_JSON:
      if (call->kind == CALL_MODELS)
        {
          parse_models (task, (const char *) call->collected->data, call->collected->len);
          return;
        }
      if (!natter_chat_stream_feed_json_body (call->stream,
                                              (const char *) call->collected->data,
                                              call->collected->len, &error))
        {
          call_return_error (task, rebrand_stream_error (self, error));
          return;
        }
      break;

    case BODY_SSE:
      /* A partial trailing event is dropped by the standard; whether the
       * answer is complete is the assembler's call. */
      natter_sse_parser_finish (call->parser, NULL);
      break;

    default:
      g_assert_not_reached ();
    }

  if (!call_settle (task))
    return;

  if (!natter_chat_stream_finish (call->stream, &error))
    {
      g_debug ("%s: the answer ended early", self->id);
      g_task_return_error (task, rebrand_stream_error (self, error));
      return;
    }

  g_task_return_boolean (task, TRUE);
}

static void
read_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const guint8 *data;
  gsize len;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);

  if (call->returned)
    return;

  /* Bytes that raced with a cancellation are dropped: after a cancel no
   * delta may reach a listener. */
  if (bytes != NULL && g_cancellable_is_cancelled (call->cancellable))
    {
      g_clear_pointer (&bytes, g_bytes_unref);
      g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
    }

  if (bytes == NULL)
    {
      /* Once `[DONE]` was read the answer is whole; a server that then
       * hangs or drops the connection has not lost anything. */
      if (call->kind == CALL_CHAT && call->mode == BODY_SSE
          && natter_chat_stream_get_done (call->stream)
          && !(g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && !call->timed_out))
        {
          finish_body (task);
          return;
        }
      if (call->mode == BODY_ERROR && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* The status says enough even if the body was cut. */
          finish_body (task);
          return;
        }
      /* A server that writes its failure reason and then drops the
       * connection: the reason may still sit unterminated in the parser,
       * and it says more than "the connection was lost". */
      if (call->kind == CALL_CHAT && call->mode == BODY_SSE
          && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autoptr(GError) reported = NULL;

          if (!natter_sse_parser_finish (call->parser, &reported)
              && g_error_matches (reported, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR))
            {
              call_return_error (task, rebrand_stream_error (self, reported));
              return;
            }
        }
      call_return_error (task, transport_error (self, call, error));
      return;
    }

  call_touch (call);
  data = g_bytes_get_data (bytes, &len);

  if (len == 0)
    {
      finish_body (task);
      return;
    }

  switch (call->mode)
    {
    case BODY_SSE:
      if (!natter_sse_parser_feed (call->parser, data, len, &error))
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            call_return_error (task, transport_error (self, call, error));
          else
            call_return_error (task, rebrand_stream_error (self, error));
          return;
        }
      break;

    case BODY_ERROR:
      g_byte_array_append (call->collected, data, MIN (len, call->collect_limit - call->collected->len));
      if (call->collected->len >= call->collect_limit)
        {
          finish_body (task);
          return;
        }
      break;

    case BODY_JSON:
      if (call->collected->len + len > call->collect_limit)
        {
          call_return_error (task, provider_error (self, NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE,
                                                   "%s sent a response larger than the limit of %"
                                                   G_GSIZE_FORMAT " bytes",
                                                   self->display_name, call->collect_limit));
          return;
        }
      g_byte_array_append (call->collected, data, len);
      break;

    default:
      g_assert_not_reached ();
    }

  read_next (g_steal_pointer (&task));
}

static void
read_next (GTask *task)
{
  Call *call = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (call->body, READ_CHUNK_BYTES, G_PRIORITY_DEFAULT,
                                   call->cancellable, read_cb, task);
}

static gboolean
is_json_type (const char *type)
{
  return g_ascii_strcasecmp (type, "application/json") == 0
         || (strlen (type) > 5 && g_ascii_strcasecmp (type + strlen (type) - 5, "+json") == 0);
}

static void
send_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers;
  const char *type;
  guint status;

  call->body = soup_session_send_finish (SOUP_SESSION (source), result, &error);

  if (call->returned)
    return;

  if (call->body == NULL)
    {
      call_return_error (task, transport_error (self, call, error));
      return;
    }

  call->got_headers = TRUE;
  call_touch (call);

  status = soup_message_get_status (call->msg);
  headers = soup_message_get_response_headers (call->msg);
  type = soup_message_headers_get_content_type (headers, NULL);

  g_debug ("%s: HTTP %u, %s", self->id, status, type != NULL ? type : "no content type");

  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      call->mode = BODY_ERROR;
      call->collected = g_byte_array_new ();
      call->collect_limit = MAX_ERROR_BODY_BYTES;
    }
  else if (call->kind == CALL_MODELS)
    {
      call->mode = BODY_JSON;
      call->collected = g_byte_array_new ();
      call->collect_limit = self->max_event_bytes;
    }
  else if (type != NULL && g_ascii_strcasecmp (type, "text/event-stream") == 0)
    {
      call->mode = BODY_SSE;
      call->parser = natter_sse_parser_new (self->max_event_bytes, sse_event_cb, call, NULL);
    }
  else if (type != NULL && is_json_type (type))
    {
      /* A server that ignored "stream": true. */
      call->mode = BODY_JSON;
      call->collected = g_byte_array_new ();
      call->collect_limit = self->max_event_bytes;
    }
  else
    {
      g_autofree char *quoted = type != NULL ? quote_server_text (type, -1) : NULL;

      call_return_error (task, provider_error (self, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                               "%s answered with %s%s%s instead of a chat completion",
                                               self->display_name,
                                               quoted != NULL ? "“" : "no content type",
                                               quoted != NULL ? quoted : "",
                                               quoted != NULL ? "” content" : ""));
      return;
    }

  read_next (g_steal_pointer (&task));
}

/* Starts one request; the task (owned by the caller) carries a Call. */
static void
call_start (NatterOpenaiProvider *self,
            GTask                *task,
            Call                 *call,
            const char           *method,
            const char           *path,
            GBytes               *body,
            GCancellable         *cancellable)
{
  g_autofree char *url = g_strconcat (self->base_url, path, NULL);
  g_autoptr(GUri) uri = g_uri_parse (url, SOUP_HTTP_URI_FLAGS, NULL);
  SoupMessageHeaders *headers;

  call->cancellable = g_cancellable_new ();
  g_task_set_task_data (task, call, call_free);
  /* Cancellation is reported as NATTER_PROVIDER_ERROR_CANCELLED, not as
   * GTask's G_IO_ERROR_CANCELLED. */
  g_task_set_check_cancellable (task, FALSE);

  if (uri == NULL
      || (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0
          && g_strcmp0 (g_uri_get_scheme (uri), "https") != 0))
    {
      call_return_error (task, provider_error (self, NATTER_PROVIDER_ERROR_UNREACHABLE,
                                               "The address of %s (%s) is not an http or https URL",
                                               self->display_name, self->display_base));
      g_object_unref (task);
      return;
    }

  call->msg = soup_message_new_from_uri (method, uri);
  headers = soup_message_get_request_headers (call->msg);
  soup_message_headers_replace (headers, "Accept",
                                call->kind == CALL_CHAT ? "text/event-stream, application/json"
                                                        : "application/json");
  if (self->api_key != NULL)
    {
      g_autofree char *authorization = g_strconcat ("Bearer ", self->api_key, NULL);

      soup_message_headers_replace (headers, "Authorization", authorization);
    }
  if (body != NULL)
    soup_message_set_request_body_from_bytes (call->msg, "application/json", body);

  if (cancellable != NULL)
    {
      call->user_cancellable = g_object_ref (cancellable);
      /* Runs at once if already cancelled; libsoup then fails promptly. */
      call->user_cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (user_cancelled_cb),
                                                    g_object_ref (call->cancellable),
                                                    g_object_unref);
    }

  if (self->idle_timeout > 0)
    {
      call->idle_source = g_source_new (&idle_source_funcs, sizeof (GSource));
      g_source_set_name (call->idle_source, "[natter] provider idle timeout");
      g_source_set_callback (call->idle_source, idle_timeout_cb, task, NULL);
      g_source_set_ready_time (call->idle_source,
                               g_get_monotonic_time ()
                               + (gint64) self->idle_timeout * G_USEC_PER_SEC);
      g_source_attach (call->idle_source, g_task_get_context (task));
    }
  call_touch (call);

  g_debug ("%s: %s %s%s", self->id, method, self->display_base, path);

  soup_session_send_async (self->session, call->msg, G_PRIORITY_DEFAULT,
                           call->cancellable, send_cb, task);
}

/**
 * natter_openai_provider_stream_async:
 * @self: a provider
 * @composed: the composed request (turn-runtime.md §3), as for
 *   natter_openai_provider_encode_request()
 * @model: the model name
 * @stream: a fresh #NatterChatStream, created by the caller, who connects
 *   to its #NatterChatStream::text-delta and
 *   #NatterChatStream::reasoning-delta signals to see the answer live
 * @cancellable: (nullable): cancels the call; the HTTP request is aborted
 *   at once and no delta is emitted after the cancellation
 * @callback: called when the call is over
 * @user_data: data for @callback
 *
 * Streams one model step (turn-runtime.md §12): `POST
 * {baseUrl}/chat/completions` with the encoded request and the
 * Authorization header (when there is a key), and feeds the response into
 * @stream: `text/event-stream` through the Server-Sent Events parser,
 * `application/json` (a server that ignored `stream`) as one body. Deltas
 * are emitted on the thread-default main context of this call. Reading
 * stops at `[DONE]` or the end of the body; natter_chat_stream_finish()
 * has then been called on @stream in every case, so its text, reasoning
 * and tool calls are readable even after a failure.
 */
void
natter_openai_provider_stream_async (NatterOpenaiProvider *self,
                                     JsonObject           *composed,
                                     const char           *model,
                                     NatterChatStream     *stream,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonNode) request = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonGenerator) generator = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autofree char *text = NULL;
  gsize len;
  Call *call;

  g_return_if_fail (NATTER_IS_OPENAI_PROVIDER (self));
  g_return_if_fail (composed != NULL);
  g_return_if_fail (model != NULL);
  g_return_if_fail (NATTER_IS_CHAT_STREAM (stream));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_openai_provider_stream_async);

  call = g_new0 (Call, 1);
  call->kind = CALL_CHAT;
  call->stream = g_object_ref (stream);

  request = natter_openai_provider_encode_request (self, composed, model, &error);
  if (request == NULL)
    {
      g_task_set_task_data (task, call, call_free);
      call->returned = TRUE;
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  generator = json_generator_new ();
  json_generator_set_root (generator, request);
  text = json_generator_to_data (generator, &len);
  body = g_bytes_new_take (g_steal_pointer (&text), len);

  call_start (self, g_steal_pointer (&task), call, SOUP_METHOD_POST, "/chat/completions",
              body, cancellable);
}

/**
 * natter_openai_provider_stream_finish:
 * @self: a provider
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_openai_provider_stream_async(). On success the stream
 * holds the complete step: natter_chat_stream_build_message(), the finish
 * reason and the usage. On failure the stream keeps what arrived.
 *
 * Returns: %TRUE when the model finished its step; %FALSE with an error
 *   whose message names the provider and never contains the key:
 *   %NATTER_PROVIDER_ERROR_UNREACHABLE (refused connection, unknown host,
 *   TLS failure), %NATTER_PROVIDER_ERROR_HTTP (status ≥ 400, with the
 *   server's message; 401/403 say the key was refused or is needed, 429
 *   says when to try again), %NATTER_PROVIDER_ERROR_TIMEOUT (the idle
 *   timeout passed), %NATTER_PROVIDER_ERROR_CANCELLED,
 *   %NATTER_PROVIDER_ERROR_TRUNCATED_STREAM (the connection was lost or
 *   the body ended mid-answer), %NATTER_PROVIDER_ERROR_STREAM_ERROR (the
 *   server reported an error inside the stream),
 *   %NATTER_PROVIDER_ERROR_BAD_RESPONSE (not a chat completion),
 *   %NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE; or %G_IO_ERROR_INVALID_DATA
 *   when the composed request could not be encoded (nothing was sent).
 */
gboolean
natter_openai_provider_stream_finish (NatterOpenaiProvider  *self,
                                      GAsyncResult          *result,
                                      GError               **error)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_openai_provider_stream_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * natter_openai_provider_list_models_async:
 * @self: a provider
 * @cancellable: (nullable): cancels the request at once
 * @callback: called when the list is read
 * @user_data: data for @callback
 *
 * Lists the server's models for the model picker: `GET {baseUrl}/models`
 * (turn-runtime.md §12), reading OpenAI's `{"data":[{"id"}]}` and
 * Ollama's `{"models":[{"name"}]}`. Errors map as for
 * natter_openai_provider_stream_async().
 */
void
natter_openai_provider_list_models_async (NatterOpenaiProvider *self,
                                          GCancellable         *cancellable,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data)
{
  GTask *task;
  Call *call;

  g_return_if_fail (NATTER_IS_OPENAI_PROVIDER (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_openai_provider_list_models_async);

  call = g_new0 (Call, 1);
  call->kind = CALL_MODELS;
  call_start (self, task, call, SOUP_METHOD_GET, "/models", NULL, cancellable);
}

/**
 * natter_openai_provider_list_models_finish:
 * @self: a provider
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_openai_provider_list_models_async().
 *
 * Returns: (transfer full) (nullable): the model ids in the server's
 *   order (possibly empty), or %NULL with a %NATTER_PROVIDER_ERROR
 *   (%NATTER_PROVIDER_ERROR_BAD_RESPONSE for a list of an unknown shape)
 */
GStrv
natter_openai_provider_list_models_finish (NatterOpenaiProvider  *self,
                                           GAsyncResult          *result,
                                           GError               **error)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_openai_provider_list_models_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
