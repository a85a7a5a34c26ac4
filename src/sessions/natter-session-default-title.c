/* natter-session-default-title.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The default title of a session, derived from its first message: a
 * pure function of the message, kept apart from the service.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-session-default-title.h"
#include "natter-session-error.h"
#include "natter-json.h"
#include "natter-plain-text.h"

/**
 * natter_session_title_check:
 * @title: a title the user gave (a rename, `natter title`)
 * @error: return location for a #GError
 *
 * The rule of docs/format.md "title_changed": a title is one line of
 * text, so one given by the user that holds a control character (a
 * newline, a tab, ESC, …) is refused, never cleaned behind their back.
 *
 * Returns: %TRUE when @title may be stored; %FALSE with
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT when it may not
 */
gboolean
natter_session_title_check (const char  *title,
                            GError     **error)
{
  if (!natter_text_has_control (title))
    return TRUE;
  g_set_error_literal (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                       _("A title cannot hold line breaks, tabs or other control characters"));
  return FALSE;
}

/**
 * natter_session_title_clean:
 * @text: (nullable): a title Natter made (derived from a first message,
 *   or a model's answer to the title request)
 *
 * @text as a storable title (docs/format.md "title_changed"): every run of
 * control characters and white space becomes one space, and the ends
 * are trimmed; invalid UTF-8 becomes U+FFFD.
 *
 * Returns: (transfer full) (nullable): the title, %NULL when nothing is left
 */
char *
natter_session_title_clean (const char *text)
{
  g_autofree char *valid = NULL;
  g_autoptr(GString) out = NULL;
  gboolean space = FALSE;

  if (text == NULL)
    return NULL;
  valid = g_utf8_make_valid (text, -1);
  out = g_string_new (NULL);
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c) || g_unichar_iscntrl (c))
        {
          space = out->len > 0;
          continue;
        }
      if (space)
        g_string_append_c (out, ' ');
      space = FALSE;
      g_string_append_unichar (out, c);
    }
  return out->len > 0 ? g_strdup (out->str) : NULL;
}


/**
 * natter_session_message_text:
 * @content: (transfer none) (nullable): a message's `content`: a string,
 *   or an array of parts of which the `{type: "text", text}` ones count
 *
 * The text of a message, as the default title (docs/sessions.md §9.1
 * step 6) and the automatic title's request (docs/sessions.md §13) read
 * it: a string as it is, each text part followed by a newline
 * (natter_json_content_text()); bytes that are not UTF-8 made U+FFFD
 * (g_utf8_make_valid()).
 *
 * Returns: (transfer full): the text; empty when @content has none
 */
char *
natter_session_message_text (JsonNode *content)
{
  g_autofree char *text = natter_json_content_text (content, "\n");

  return g_utf8_make_valid (text, -1);
}

/**
 * natter_derive_session_title:
 * @message: (transfer none): a user message `{role, content}`; content a
 *   string or an array of parts (`{type: "text", text}` ones count)
 *
 * The default title of docs/sessions.md §9.1 step 6: the first non-empty line
 * of the message's text, whitespace-trimmed and with its control
 * characters made spaces (natter_session_title_clean()), cut to
 * %NATTER_SESSION_TITLE_MAX_CHARS characters with "…" when longer.
 *
 * Returns: (transfer full) (nullable): the title, or %NULL if the message
 *   has no text
 */
char *
natter_derive_session_title (JsonObject *message)
{
  g_autofree char *valid = NULL;
  char **lines;
  char *title = NULL;

  g_return_val_if_fail (message != NULL, NULL);

  valid = natter_session_message_text (json_object_get_member (message, "content"));
  lines = g_strsplit_set (valid, "\r\n", -1);
  for (guint i = 0; lines[i] != NULL && title == NULL; i++)
    {
      g_autofree char *line = natter_session_title_clean (lines[i]);

      if (line == NULL)
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
