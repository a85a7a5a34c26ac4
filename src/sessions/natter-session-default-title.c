/* natter-session-default-title.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The default title of a session, derived from its first message: a
 * pure function of the message, kept apart from the service.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-session-default-title.h"


/**
 * natter_derive_session_title:
 * @message: (transfer none): a user message `{role, content}`; content a
 *   string or an array of parts (`{type: "text", text}` ones count)
 *
 * The default title of docs/sessions.md §9.1 step 6: the first non-empty line
 * of the message's text, whitespace-trimmed, cut to
 * %NATTER_SESSION_TITLE_MAX_CHARS characters with "…" when longer.
 *
 * Returns: (transfer full) (nullable): the title, or %NULL if the message
 *   has no text
 */
char *
natter_derive_session_title (JsonObject *message)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *valid = NULL;
  JsonNode *content;
  char **lines;
  char *title = NULL;

  g_return_val_if_fail (message != NULL, NULL);

  content = json_object_get_member (message, "content");
  if (content != NULL && JSON_NODE_HOLDS_VALUE (content) &&
      json_node_get_value_type (content) == G_TYPE_STRING)
    g_string_append (text, json_node_get_string (content));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *part = json_array_get_element (parts, i);
          JsonObject *object;

          if (!JSON_NODE_HOLDS_OBJECT (part))
            continue;
          object = json_node_get_object (part);
          if (g_strcmp0 (json_object_get_string_member_with_default (object, "type", NULL), "text") == 0)
            g_string_append_printf (text, "%s\n",
                                    json_object_get_string_member_with_default (object, "text", ""));
        }
    }

  valid = g_utf8_make_valid (text->str, text->len);
  lines = g_strsplit_set (valid, "\r\n", -1);
  for (guint i = 0; lines[i] != NULL && title == NULL; i++)
    {
      char *line = g_strstrip (lines[i]);

      if (*line == '\0')
        continue;
      if (g_utf8_strlen (line, -1) <= NATTER_SESSION_TITLE_MAX_CHARS)
        title = g_strdup (line);
      else
        {
          g_autofree char *cut = g_utf8_substring (line, 0, NATTER_SESSION_TITLE_MAX_CHARS);

          title = g_strconcat (g_strchomp (cut), "…", NULL);
        }
    }
  g_strfreev (lines);
  return title;
}
