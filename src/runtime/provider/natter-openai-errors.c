/* natter-openai-errors.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How the OpenAI-compatible provider words what went wrong: HTTP error
 * statuses and the bodies servers send with them, transport failures,
 * and errors of the stream assembler, each mapped to a
 * %NATTER_PROVIDER_ERROR code with a message in plain words that names
 * the server and never holds the key.
 */

#define G_LOG_DOMAIN "natter-openai-provider"

#include <string.h>

#include "natter-error-words.h"
#include "natter-json.h"
#include "natter-openai-provider-private.h"

/* Server text quoted in an error message is cut to this many characters. */
#define MAX_QUOTED_CHARS 300

/**
 * natter_openai_provider_error_literal:
 * @self: a provider
 * @code: the error code
 * @message: the message, in plain words
 *
 * Every message the provider produces goes through here: whatever a
 * server echoes back, the key never reaches a GError (and so never a turn
 * file).
 *
 * Returns: (transfer full): a %NATTER_PROVIDER_ERROR with @code and
 *   @message, the key replaced by "[redacted]"
 */
GError *
natter_openai_provider_error_literal (NatterOpenaiProvider *self,
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

/**
 * natter_openai_provider_error:
 * @self: a provider
 * @code: the error code
 * @format: printf() format of the message
 * @...: its arguments
 *
 * natter_openai_provider_error_literal() with a formatted message.
 *
 * Returns: (transfer full): the error
 */
GError *
natter_openai_provider_error (NatterOpenaiProvider *self,
                              NatterProviderError   code,
                              const char           *format,
                              ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  return natter_openai_provider_error_literal (self, code, message);
}

/**
 * natter_openai_quote_server_text:
 * @text: text a server sent
 * @len: its length in bytes, or -1 when nul-terminated
 *
 * Server text for a message: valid UTF-8, one line, bounded.
 *
 * Returns: (transfer full): the quotable text: at most 300 characters,
 *   then an ellipsis
 */
char *
natter_openai_quote_server_text (const char *text,
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
    return natter_openai_quote_server_text (json_node_get_string (node), -1);
  serialized = natter_json_to_text (node, FALSE, NULL);
  return natter_openai_quote_server_text (serialized, -1);
}

/* OpenAI's `code` or llama.cpp's `type` when it names a context
 * overflow, else NULL. */
static const char *
overflow_code (JsonObject *error)
{
  const char *members[] = { "code", "type" };

  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    {
      JsonNode *node = json_object_get_member (error, members[i]);
      const char *value;

      /* llama.cpp's `code` is the HTTP status, a number. */
      if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        continue;
      value = json_node_get_string (node);
      if (g_strcmp0 (value, "context_length_exceeded") == 0 || g_strcmp0 (value, "exceed_context_size_error") == 0)
        return value;
    }
  return NULL;
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

  if (natter_json_parser_load_external (parser, body, len, NULL)
      && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      object = json_node_get_object (json_parser_get_root (parser));

      member = json_object_get_member (object, "error");
      if (member != NULL && JSON_NODE_HOLDS_OBJECT (member))
        {
          JsonObject *inner = json_node_get_object (member);
          JsonNode *message = json_object_get_member (inner, "message");

          if (message != NULL && !JSON_NODE_HOLDS_NULL (message))
            {
              g_autofree char *text = stringify_node (message);
              const char *code = overflow_code (inner);

              /* The code says "context overflow" where the wording may not. */
              if (code != NULL)
                return g_strdup_printf ("%s [%s]", text, code);
              return g_steal_pointer (&text);
            }
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

      return natter_openai_quote_server_text (body, len);
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
    g_autofree char *quoted = natter_openai_quote_server_text (body, len);

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

/**
 * natter_openai_error_body_refuses_parameter: (skip)
 * @body: (array length=len): the start of the body of an HTTP 400 answer
 * @len: its length in bytes
 * @name: a parameter the request sent, e.g. "max_tokens"
 *
 * Whether the server refused the request because of @name. OpenAI names
 * it: `{"error": {"message": "Unsupported parameter: 'max_tokens' is not
 * supported with this model. Use 'max_completion_tokens' instead.",
 * "param": "max_tokens", "code": "unsupported_parameter"}}`; other
 * servers only say it in words ("Extra inputs are not permitted",
 * "unrecognized", "unknown"), so a message that quotes @name and says it
 * is not taken counts too.
 *
 * Returns: %TRUE when the body refuses @name
 */
gboolean
natter_openai_error_body_refuses_parameter (const char *body,
                                            gsize       len,
                                            const char *name)
{
  static const char * const refusals[] = {
    "unsupported", "not supported", "not permitted", "not allowed", "unrecognized", "unknown", "extra",
  };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *message = NULL;
  g_autofree char *folded = NULL;
  JsonObject *error = NULL;
  JsonNode *root;

  if (len == 0 || !natter_json_parser_load_external (parser, body, len, NULL))
    return FALSE;
  root = json_parser_get_root (parser);
  if (JSON_NODE_HOLDS_OBJECT (root))
    {
      JsonNode *member = json_object_get_member (json_node_get_object (root), "error");

      error = member != NULL && JSON_NODE_HOLDS_OBJECT (member) ? json_node_get_object (member)
                                                                : json_node_get_object (root);
    }
  if (error == NULL)
    return FALSE;
  if (g_strcmp0 (natter_json_loose_string (error, "param"), name) == 0)
    return TRUE;

  message = g_strdup (natter_json_loose_string (error, "message"));
  if (message == NULL)
    {
      g_autoptr(JsonGenerator) generator = json_generator_new ();

      json_generator_set_root (generator, root);
      message = json_generator_to_data (generator, NULL);
    }
  if (strstr (message, name) == NULL)
    return FALSE;
  folded = g_ascii_strdown (message, -1);
  for (gsize i = 0; i < G_N_ELEMENTS (refusals); i++)
    if (strstr (folded, refusals[i]) != NULL)
      return TRUE;
  return FALSE;
}

/**
 * natter_openai_provider_http_error:
 * @self: a provider
 * @msg: a message answered with an HTTP error status
 * @body: (array length=len): the start of the error body
 * @len: its length in bytes
 *
 * Says in plain words what an HTTP error means for the person: a key
 * refused or missing, a rate limit (with the Retry-After wait), or the
 * status, each with the server's own message when the body has one.
 *
 * Returns: (transfer full): a %NATTER_PROVIDER_ERROR_HTTP error
 */
GError *
natter_openai_provider_http_error (NatterOpenaiProvider *self,
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

  return natter_openai_provider_error_literal (self, NATTER_PROVIDER_ERROR_HTTP, message->str);
}

/**
 * natter_openai_provider_stream_error:
 * @self: a provider
 * @error: an error of the stream assembler (#NatterChatStream)
 *
 * Rewords an error of the stream assembler so that it names the server.
 *
 * Returns: (transfer full): the reworded error, with the code of @error
 *   (%NATTER_PROVIDER_ERROR_BAD_RESPONSE for one of another domain)
 */
GError *
natter_openai_provider_stream_error (NatterOpenaiProvider *self,
                                     const GError         *error)
{
  if (error->domain != NATTER_PROVIDER_ERROR)
    return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_BAD_RESPONSE, "%s: %s",
                           self->display_name, error->message);

  if (error->code == NATTER_PROVIDER_ERROR_TRUNCATED_STREAM)
    return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM,
                           "The connection to %s at %s was lost mid-answer: "
                           "the response ended before the model finished",
                           self->display_name, self->display_base);

  if (g_str_has_prefix (error->message, "The provider"))
    return natter_openai_provider_error (self, error->code, "%s%s", self->display_name,
                           error->message + strlen ("The provider"));

  return natter_openai_provider_error (self, error->code, "%s: %s", self->display_name, error->message);
}

/**
 * natter_openai_provider_transport_error:
 * @self: a provider
 * @timed_out: whether the idle timer cancelled the call
 * @got_headers: whether the response headers had arrived
 * @error: a GIO, resolver, TLS or libsoup error of the transport
 *
 * Maps a failure of the transport to what the person can do about it:
 * the call timed out, was cancelled, lost its connection mid-answer, or
 * never reached the server (and why, when that is known).
 *
 * Returns: (transfer full): a %NATTER_PROVIDER_ERROR: %TIMEOUT,
 *   %CANCELLED, %TRUNCATED_STREAM or %UNREACHABLE
 */
GError *
natter_openai_provider_transport_error (NatterOpenaiProvider *self,
                                        gboolean              timed_out,
                                        gboolean              got_headers,
                                        const GError         *error)
{
  /* The message is stored in the turn: Natter's untranslated words for
   * the lower layer's failure, not GIO's in the window's language. */
  g_autofree char *reason = natter_error_reason (error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      if (timed_out && got_headers)
        return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_TIMEOUT,
                               "%s at %s stopped sending for %u s",
                               self->display_name, self->display_base, self->idle_timeout);
      if (timed_out)
        return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_TIMEOUT,
                               "%s at %s did not answer within %u s",
                               self->display_name, self->display_base, self->idle_timeout);
      return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_CANCELLED,
                             "The request to %s was cancelled", self->display_name);
    }

  if (got_headers)
    return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM,
                           "The connection to %s at %s was lost mid-answer (%s)",
                           self->display_name, self->display_base, reason);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
    return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_UNREACHABLE,
                           "Could not reach %s at %s — is it running?",
                           self->display_name, self->display_base);

  if (error->domain == G_RESOLVER_ERROR
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND))
    return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_UNREACHABLE,
                           "Could not reach %s at %s: the host name was not found — "
                           "check the address and the network connection",
                           self->display_name, self->display_base);

  if (error->domain == G_TLS_ERROR)
    return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_UNREACHABLE,
                           "Could not make a secure connection to %s at %s (%s)",
                           self->display_name, self->display_base, reason);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_TIMEOUT,
                           "%s at %s did not answer in time",
                           self->display_name, self->display_base);

  return natter_openai_provider_error (self, NATTER_PROVIDER_ERROR_UNREACHABLE,
                         "Could not reach %s at %s (%s)",
                         self->display_name, self->display_base, reason);
}
