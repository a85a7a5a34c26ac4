/* natter-session-markdown.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A conversation as Markdown for people to read: the title, then each
 * turn's message and answer, tool calls folded into <details> blocks
 * with their results, attachments named. Written from the JSON archive
 * (natter-session-archive.c), so both exports show the same turns.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-json.h"
#include "natter-session-markdown.h"

/* A fence longer than any run of backticks in @text, so that no text
 * can close it early. */
static void
append_fenced (GString    *out,
               const char *language,
               const char *text)
{
  guint longest = 0;
  guint run = 0;
  g_autofree char *fence = NULL;

  for (const char *p = text; *p != '\0'; p++)
    {
      run = *p == '`' ? run + 1 : 0;
      longest = MAX (longest, run);
    }
  fence = g_strnfill (MAX (3, longest + 1), '`');
  g_string_append_printf (out, "%s%s\n%s%s%s\n\n", fence, language, text,
                          g_str_has_suffix (text, "\n") ? "" : "\n", fence);
}

/* Whether @line (up to its newline) is a code fence in CommonMark's
 * sense: at most three spaces, then three or more backticks or tildes.
 * Sets @fence_char and @fence_length, and @bare when nothing but white
 * space follows (only such a line closes a block). */
static gboolean
is_fence (const char *line,
          char       *fence_char,
          guint      *fence_length,
          gboolean   *bare)
{
  const char *p = line;
  guint n = 0;

  while (*p == ' ' && p - line < 3)
    p++;
  if (*p != '`' && *p != '~')
    return FALSE;
  *fence_char = *p;
  while (*p == *fence_char)
    {
      p++;
      n++;
    }
  if (n < 3)
    return FALSE;
  *fence_length = n;
  *bare = TRUE;
  for (; *p != '\0' && *p != '\n'; p++)
    if (*p != ' ' && *p != '\t' && *p != '\r')
      *bare = FALSE;
  return TRUE;
}

/* The level of the ATX heading @line starts, 0 when it starts none. */
static guint
heading_level (const char *line)
{
  const char *p = line;
  guint n = 0;

  while (*p == ' ' && p - line < 3)
    p++;
  while (p[n] == '#')
    n++;
  if (n > 6 || (p[n] != ' ' && p[n] != '\t' && p[n] != '\r' && p[n] != '\n' && p[n] != '\0'))
    return 0;
  return n;
}

/* Whether @line is nothing but a run of '=' or '-' (a setext underline:
 * after a line of a paragraph it makes that paragraph a heading of level
 * one or two). */
static gboolean
is_underline (const char *line)
{
  const char *p = line;
  char c;

  while (*p == ' ' && p - line < 3)
    p++;
  c = *p;
  if (c != '=' && c != '-')
    return FALSE;
  while (*p == c)
    p++;
  for (; *p != '\0' && *p != '\n'; p++)
    if (*p != ' ' && *p != '\t' && *p != '\r')
      return FALSE;
  return TRUE;
}

/* Whether @line starts one of the HTML blocks of CommonMark that end
 * only at a marker of their own, not at a blank line: a comment, a
 * processing instruction, a declaration, CDATA, or a `script`, `pre`,
 * `style` or `textarea` element. Left open (a message cut off, an
 * example typed without its end), such a block runs to the end of the
 * document, and a viewer shows the rest of the conversation as nothing
 * or as code. */
static gboolean
starts_open_ended_html (const char *line)
{
  static const char *const elements[] = { "script", "pre", "style", "textarea" };
  const char *p = line;

  while (*p == ' ' && p - line < 3)
    p++;
  if (*p != '<')
    return FALSE;
  p++;
  if (*p == '?' || (*p == '!' && (g_ascii_isalpha (p[1]) || p[1] == '[' || g_str_has_prefix (p + 1, "--"))))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (elements); i++)
    {
      gsize n = strlen (elements[i]);

      if (g_ascii_strncasecmp (p, elements[i], n) == 0 &&
          (p[n] == '>' || p[n] == ' ' || p[n] == '\t' || p[n] == '\r' || p[n] == '\n' || p[n] == '\0'))
        return TRUE;
    }
  return FALSE;
}

/* Whether @line can be a line of a paragraph, so that an underline
 * after it would make a heading: not blank, not a heading or fence of
 * its own, not a list item or quote (an underline of '-' after those is
 * a rule). */
static gboolean
is_paragraph_line (const char *line)
{
  const char *p = line;
  const char *digits;
  char fence_char;
  guint fence_length;
  gboolean bare;

  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '\0' || *p == '\n' || *p == '\r' || *p == '>' || heading_level (line) > 0)
    return FALSE;
  if ((*p == '-' || *p == '*' || *p == '+') && (p[1] == ' ' || p[1] == '\t'))
    return FALSE;
  digits = p;
  while (g_ascii_isdigit (*p))
    p++;
  if (p > digits && (*p == '.' || *p == ')'))
    return FALSE;
  return !is_fence (line, &fence_char, &fence_length, &bare);
}

/* @text as one message of the export. Its text is Markdown already and
 * goes as it was said, except where it could pass for the export's own
 * structure. The export's sections are headings of level one and two,
 * so a message's own ATX headings go two levels down (to six at most):
 * an answer's "# Plan" and "## Steps" read as headings under its
 * "Answer", and a typed "## Answer" can make no section of its own. A
 * line underlined with '=' or '-' into a heading of level one or two
 * has its first mark escaped instead, so that it reads as the text it
 * is (its words are on the lines before, already written); so has a line
 * that opens an HTML block only its own end marker closes (a comment,
 * `<script>`, `<pre>`…: starts_open_ended_html()); and a code block
 * it opens and never closes (a message cut off, a fence typed and
 * forgotten) is closed at its end, or every heading after it would read
 * as code. Lines inside code blocks are left alone. */
static void
append_text (GString    *out,
             const char *text)
{
  char open_char = 0;
  guint open_length = 0;
  gboolean after_paragraph = FALSE;

  for (const char *line = text; line != NULL && *line != '\0';)
    {
      const char *next = strchr (line, '\n');
      const char *end = next != NULL ? next + 1 : line + strlen (line);
      char fence_char;
      guint fence_length;
      gboolean bare;
      gboolean paragraph = FALSE;

      if (is_fence (line, &fence_char, &fence_length, &bare))
        {
          if (open_char == 0)
            {
              open_char = fence_char;
              open_length = fence_length;
            }
          else if (fence_char == open_char && fence_length >= open_length && bare)
            open_char = 0;
        }
      else if (open_char == 0 && heading_level (line) > 0)
        {
          const char *mark = line + strspn (line, " ");
          guint level = heading_level (line);

          g_string_append_len (out, line, mark - line);
          for (guint i = level; i < MIN (level + 2, 6); i++)
            g_string_append_c (out, '#');
          line = mark;
        }
      else if (open_char == 0 && ((is_underline (line) && after_paragraph) || starts_open_ended_html (line)))
        {
          const char *mark = line + strspn (line, " ");

          /* Escaped, the line is text of a paragraph itself. */
          g_string_append_len (out, line, mark - line);
          g_string_append_c (out, '\\');
          line = mark;
          paragraph = TRUE;
        }
      else if (open_char == 0)
        paragraph = is_paragraph_line (line);
      g_string_append_len (out, line, end - line);
      after_paragraph = paragraph;
      line = next != NULL ? next + 1 : NULL;
    }
  if (open_char != 0)
    {
      g_autofree char *fence = g_strnfill (open_length, open_char);

      g_string_append_printf (out, "%s%s", g_str_has_suffix (text, "\n") ? "" : "\n", fence);
    }
  g_string_append (out, "\n\n");
}

/* @text (a file name, an error, a tool's name, the title) for a line
 * the export writes around it: on that one line, its Markdown marks
 * escaped, so that it can neither start a section of its own nor end
 * the line's emphasis. */
static char *
inline_text (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '\n' || *p == '\r')
        {
          g_string_append_c (out, ' ');
          continue;
        }
      if (strchr ("\\`*_<[]", *p) != NULL)
        g_string_append_c (out, '\\');
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static char *
json_text (JsonNode *node)
{
  if (node == NULL)
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return natter_json_to_text (node, TRUE, NULL);
}

/* The text of a message, and its attachments as a list of names. */
static void
append_message (GString    *out,
                JsonObject *message,
                GPtrArray  *tool_calls)
{
  JsonNode *content = json_object_get_member (message, "content");
  JsonArray *parts;

  if (content == NULL)
    return;
  if (JSON_NODE_HOLDS_VALUE (content))
    {
      append_text (out, json_node_get_string (content));
      return;
    }
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return;
  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonObject *part = json_array_get_object_element (parts, i);
      const char *type = json_object_get_string_member_with_default (part, "type", "");

      const char *name = NULL;

      if (g_str_equal (type, "text"))
        append_text (out, json_object_get_string_member_with_default (part, "text", ""));
      else if (g_str_equal (type, "attachment"))
        name = json_object_get_string_member_with_default (part, "filename", "");
      else if (g_str_equal (type, "blob"))
        name = json_object_get_string_member_with_default (part, "name", "");
      else if (g_str_equal (type, "tool-call") && tool_calls != NULL)
        g_ptr_array_add (tool_calls, json_object_ref (part));
      if (name != NULL)
        {
          g_autofree char *escaped = inline_text (name);

          g_string_append_printf (out, _("*Attachment: %s*\n\n"), escaped);
        }
    }
}

static void
append_tool_call (GString    *out,
                  JsonObject *call,
                  JsonObject *result)
{
  g_autofree char *arguments = json_text (json_object_get_member (call, "arguments"));
  g_autofree char *name = g_strdelimit (g_strdup (json_object_get_string_member_with_default (call, "toolName", "")),
                                        "\r\n", ' ');
  g_autofree char *escaped = g_markup_escape_text (name, -1);

  /* The name is HTML here, and on one line: a blank line would end the
   * block and let the rest of it read as Markdown. */
  g_string_append_printf (out, "<details>\n<summary>%s</summary>\n\n", escaped);
  g_string_append_printf (out, "%s\n\n", _("Arguments:"));
  append_fenced (out, "json", arguments);
  if (result != NULL)
    {
      JsonObject *value = json_object_get_object_member (result, "result");
      g_autofree char *output = json_text (value != NULL ? json_object_get_member (value, "output") : NULL);
      gboolean is_error = value != NULL && json_object_get_boolean_member_with_default (value, "isError", FALSE);

      g_string_append_printf (out, "%s\n\n", is_error ? _("Result (an error):") : _("Result:"));
      append_fenced (out, "", output);
    }
  else
    g_string_append_printf (out, "%s\n\n", _("No result."));
  g_string_append (out, "</details>\n\n");
}

/* The tool calls of a response, each with its result when the turn has one. */
static void
append_tool_calls (GString   *out,
                   GPtrArray *calls,
                   GPtrArray *events)
{
  for (guint i = 0; i < calls->len; i++)
    {
      JsonObject *call = g_ptr_array_index (calls, i);
      const char *id = json_object_get_string_member_with_default (call, "toolCallId", "");
      JsonObject *result = NULL;

      for (guint j = 1; j < events->len; j++)
        {
          JsonObject *event = g_ptr_array_index (events, j);

          if (g_strcmp0 (json_object_get_string_member_with_default (event, "type", ""), "tool_result") == 0 &&
              g_strcmp0 (json_object_get_string_member_with_default (event, "toolCallId", ""), id) == 0)
            result = event;
        }
      append_tool_call (out, call, result);
    }
}

/* Whether the turn of @events ends with the person stopping it. */
static gboolean
ends_cancelled (GPtrArray *events)
{
  JsonObject *last = g_ptr_array_index (events, events->len - 1);

  return g_strcmp0 (json_object_get_string_member_with_default (last, "type", ""), "turn_cancelled") == 0;
}

static void
append_turn (GString   *out,
             JsonArray *array)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new ();
  JsonObject *created;

  for (guint i = 0; i < json_array_get_length (array); i++)
    g_ptr_array_add (events, json_array_get_object_element (array, i));
  if (events->len == 0)
    return;
  created = g_ptr_array_index (events, 0);
  g_string_append_printf (out, "## %s\n\n", _("You"));
  if (json_object_get_object_member (created, "input") != NULL)
    append_message (out, json_object_get_object_member (created, "input"), NULL);
  g_string_append_printf (out, "## %s\n\n", _("Answer"));

  for (guint i = 1; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);
      const char *type = json_object_get_string_member_with_default (event, "type", "");

      if (g_str_equal (type, "model_call_completed"))
        {
          g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

          append_message (out, json_object_get_object_member (event, "message"), calls);
          append_tool_calls (out, calls, events);
        }
      else if (g_str_equal (type, "model_call_failed") && json_object_has_member (event, "partial"))
        {
          append_message (out, json_object_get_object_member (event, "partial"), NULL);
          /* A turn the person stopped says "Stopped." at its end, which
           * is why the answer stopped: said once. */
          if (!ends_cancelled (events))
            g_string_append_printf (out, "*%s*\n\n", _("(The answer stopped here.)"));
        }
      else if (g_str_equal (type, "turn_failed"))
        {
          g_autofree char *error = inline_text (json_object_get_string_member_with_default (event, "error", ""));

          g_string_append_printf (out, _("*The turn failed: %s*\n\n"), error);
        }
      else if (g_str_equal (type, "turn_cancelled"))
        g_string_append_printf (out, "*%s*\n\n", _("Stopped."));
    }
}

static char *
archive_title (JsonArray *session)
{
  const char *title = NULL;

  for (guint i = 0; i < json_array_get_length (session); i++)
    {
      JsonObject *event = json_array_get_object_element (session, i);

      if (json_object_has_member (event, "title"))
        title = json_object_get_string_member_with_default (event, "title", NULL);
    }
  return inline_text (title != NULL && title[0] != '\0' ? title : _("Untitled conversation"));
}

/**
 * natter_session_archive_to_markdown:
 * @archive: an archive made by natter_session_archive_new()
 *
 * The conversation of @archive as Markdown: the title as a heading, then
 * per turn the user's message (attachments by file name) and the answer:
 * the text of every response, each tool call as a collapsed `<details>`
 * block with its arguments and result, a partial answer, and how a turn
 * that did not complete ended. Text is written as it was said: it is
 * Markdown already; only what could pass for the export's own structure
 * is changed: a message's headings go two levels down, under the
 * export's sections; a line underlined into a heading of level one or
 * two, and a line that opens an HTML block that only its own end marker
 * closes (a comment, `<pre>`, `<script>`…), are escaped to read as
 * text, and a code block a message
 * leaves open is closed at its end, so that
 * no message can make a section or swallow the rest of the conversation.
 * Names, errors and the title go on their lines with their marks escaped.
 *
 * Returns: (transfer full): the Markdown text, ending in one newline
 */
char *
natter_session_archive_to_markdown (JsonObject *archive)
{
  GString *out = g_string_new (NULL);
  JsonArray *turns;
  g_autofree char *title = NULL;

  g_return_val_if_fail (archive != NULL, NULL);

  title = archive_title (json_object_get_array_member (archive, "session"));
  g_string_append_printf (out, "# %s\n\n", title);
  turns = json_object_get_array_member (archive, "turns");
  for (guint i = 0; i < json_array_get_length (turns); i++)
    append_turn (out, json_object_get_array_member (json_array_get_object_element (turns, i), "events"));
  while (g_str_has_suffix (out->str, "\n\n"))
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}
