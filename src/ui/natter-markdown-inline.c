/* natter-markdown-inline.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The inline content of a Markdown block (emphasis, code spans, links,
 * images) as Pango markup for a GtkLabel. Every piece of text is escaped
 * before it becomes markup, and only web and mail links are kept, so
 * nothing in an answer is interpreted as markup or opens anything else.
 */

#define G_LOG_DOMAIN "natter-markdown"

#include "config.h"

#include <string.h>

#include <cmark.h>

#include "natter-markdown-render-private.h"
#include "natter-visible-label.h"

/**
 * natter_markdown_uri_is_allowed:
 * @uri: (nullable): a link target from an answer
 *
 * Links are only opened, and only shown as links, for web and mail
 * addresses: a model must not be able to make a click run a file: or a
 * custom scheme handler.
 *
 * Returns: whether @uri may be opened through the desktop
 */
gboolean
natter_markdown_uri_is_allowed (const char *uri)
{
  g_autofree char *scheme = NULL;

  if (uri == NULL)
    return FALSE;
  scheme = g_uri_parse_scheme (uri);
  return scheme != NULL &&
         (g_ascii_strcasecmp (scheme, "http") == 0 ||
          g_ascii_strcasecmp (scheme, "https") == 0 ||
          g_ascii_strcasecmp (scheme, "mailto") == 0);
}

/* A model's control characters show as their control pictures, as on
 * the command line (natter-plain-text.c), not as tofu boxes; they are
 * made visible before the text is escaped for markup. */
static void
append_escaped (GString    *out,
                const char *text)
{
  g_autofree char *escaped = NULL;

  if (text == NULL || *text == '\0')
    return;
  escaped = natter_visible_markup (text);
  g_string_append (out, escaped);
}

/* Where a "~~" that opens a strikethrough starts in @text at or after
 * @from (followed by something other than white space or another "~"),
 * or NULL. */
static const char *
find_strike_open (const char *text,
                  const char *from)
{
  for (const char *p = strstr (from, "~~"); p != NULL; p = strstr (p + 1, "~~"))
    if (p[2] != '\0' && p[2] != '~' && !g_ascii_isspace (p[2]) && (p == text || p[-1] != '~'))
      return p;
  return NULL;
}

/* The "~~" that closes a strikethrough opened before @from (preceded by
 * something other than white space), or NULL. */
static const char *
find_strike_close (const char *from)
{
  for (const char *p = strstr (from, "~~"); p != NULL; p = strstr (p + 1, "~~"))
    if (!g_ascii_isspace (p[-1]) && p[2] != '~')
      return p;
  return NULL;
}

/* @text escaped, its ~~struck~~ words struck through as GitHub's
 * Markdown does (cmark has no such extension). Only within one text
 * run, so that the markup always nests: "~~a *b* c~~" stays as typed. */
static void
append_text (GString    *out,
             const char *text)
{
  const char *p = text;
  const char *open;

  if (text == NULL)
    return;
  while ((open = find_strike_open (text, p)) != NULL)
    {
      const char *close = find_strike_close (open + 3);
      g_autofree char *before = NULL;
      g_autofree char *inside = NULL;

      if (close == NULL)
        break;
      before = g_strndup (p, open - p);
      inside = g_strndup (open + 2, close - open - 2);
      append_escaped (out, before);
      g_string_append (out, "<s>");
      append_escaped (out, inside);
      g_string_append (out, "</s>");
      p = close + 2;
    }
  append_escaped (out, p);
}

/**
 * natter_markdown_append_plain_text:
 * @out: where the text goes
 * @node: a cmark node
 *
 * The plain text of a node's inline content, e.g. an image's alt text.
 * Appended as it is, not escaped.
 */
void
natter_markdown_append_plain_text (GString    *out,
                                   cmark_node *node)
{
  cmark_iter *iter = cmark_iter_new (node);
  cmark_event_type ev;

  while ((ev = cmark_iter_next (iter)) != CMARK_EVENT_DONE)
    {
      cmark_node *cur = cmark_iter_get_node (iter);

      if (ev != CMARK_EVENT_ENTER)
        continue;
      switch (cmark_node_get_type (cur))
        {
        case CMARK_NODE_TEXT:
        case CMARK_NODE_CODE:
        case CMARK_NODE_HTML_INLINE:
        case CMARK_NODE_CODE_BLOCK:
        case CMARK_NODE_HTML_BLOCK:
          g_string_append (out, cmark_node_get_literal (cur));
          break;
        case CMARK_NODE_SOFTBREAK:
          g_string_append_c (out, ' ');
          break;
        case CMARK_NODE_LINEBREAK:
          g_string_append_c (out, '\n');
          break;
        case CMARK_NODE_PARAGRAPH:
        case CMARK_NODE_HEADING:
          if (out->len > 0 && out->str[out->len - 1] != '\n')
            g_string_append_c (out, '\n');
          break;
        default:
          break;
        }
    }
  cmark_iter_free (iter);
}

/**
 * natter_markdown_inline_markup:
 * @block: a cmark block node with inline children
 *
 * Pango markup (with GtkLabel's <a>) for the inline children of @block.
 * Iterative, so deeply nested emphasis cannot exhaust the stack. Every
 * literal is escaped; links only for natter_markdown_uri_is_allowed().
 *
 * Returns: (transfer full): the markup
 */
char *
natter_markdown_inline_markup (cmark_node *block)
{
  GString *out = g_string_new (NULL);
  cmark_iter *iter = cmark_iter_new (block);
  cmark_event_type ev;
  cmark_node *open_link = NULL;

  while ((ev = cmark_iter_next (iter)) != CMARK_EVENT_DONE)
    {
      cmark_node *cur = cmark_iter_get_node (iter);
      gboolean enter = ev == CMARK_EVENT_ENTER;

      if (cur == block)
        continue;

      switch (cmark_node_get_type (cur))
        {
        case CMARK_NODE_TEXT:
          append_text (out, cmark_node_get_literal (cur));
          break;
        case CMARK_NODE_HTML_INLINE:
          /* Inline HTML is shown as the text it is, never interpreted. */
          append_escaped (out, cmark_node_get_literal (cur));
          break;
        case CMARK_NODE_CODE:
          g_string_append (out, "<tt>");
          append_escaped (out, cmark_node_get_literal (cur));
          g_string_append (out, "</tt>");
          break;
        case CMARK_NODE_SOFTBREAK:
          g_string_append_c (out, ' ');
          break;
        case CMARK_NODE_LINEBREAK:
          g_string_append_c (out, '\n');
          break;
        case CMARK_NODE_EMPH:
          g_string_append (out, enter ? "<i>" : "</i>");
          break;
        case CMARK_NODE_STRONG:
          g_string_append (out, enter ? "<b>" : "</b>");
          break;
        case CMARK_NODE_LINK:
          if (enter && open_link == NULL &&
              natter_markdown_uri_is_allowed (cmark_node_get_url (cur)))
            {
              g_autofree char *href = g_markup_escape_text (cmark_node_get_url (cur), -1);

              g_string_append_printf (out, "<a href=\"%s\">", href);
              open_link = cur;
            }
          else if (!enter && open_link == cur)
            {
              g_string_append (out, "</a>");
              open_link = NULL;
            }
          break;
        case CMARK_NODE_IMAGE:
          {
            /* Never fetched: the alt text stands in, linking to the
             * image where that is safe. */
            g_autoptr(GString) alt = g_string_new (NULL);
            const char *url = cmark_node_get_url (cur);

            natter_markdown_append_plain_text (alt, cur);
            if (alt->len == 0)
              g_string_assign (alt, url != NULL ? url : "");
            if (open_link == NULL && natter_markdown_uri_is_allowed (url))
              {
                g_autofree char *href = g_markup_escape_text (url, -1);

                g_string_append_printf (out, "<a href=\"%s\">", href);
                append_escaped (out, alt->str);
                g_string_append (out, "</a>");
              }
            else
              {
                append_escaped (out, alt->str);
              }
            cmark_iter_reset (iter, cur, CMARK_EVENT_EXIT);
          }
          break;
        default:
          break;
        }
    }
  cmark_iter_free (iter);
  return g_string_free (out, FALSE);
}
