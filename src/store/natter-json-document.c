/* natter-json-document.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading JSON that came from outside: a file (mcp.json, an agent, an
 * archive, a ChatGPT export), an HTTP body, a Server-Sent Events payload,
 * a tool server's message, a model's arguments. All of it goes through
 * json-glib's parser, which recurses once per level of nesting: a
 * document nested 100,000 deep exhausts the stack and kills the process
 * before json-glib could say anything. So the nesting is measured first,
 * by a pass that does not recurse, and a document deeper than
 * %NATTER_JSON_DOCUMENT_MAX_DEPTH (the limit the log reader has, and the
 * few levels an archive wraps stored values in) never reaches json-glib.
 *
 * The pass must never count fewer brackets than json-glib will see.
 * json-glib 1.6 also reads text no JSON writer produces: strings in
 * single quotes, and stretches after a `/` as comments; brackets inside
 * those are hidden from it, and where exactly such a stretch ends has
 * changed between json-glib versions. Rather than guess, a `'` or a `/`
 * outside a double-quoted string makes the document refused: it is not
 * JSON, and with it gone, json-glib and this pass split the text into
 * strings and the rest alike (a double-quoted string ends at the first
 * `"` not escaped by a backslash, for both).
 */

#define G_LOG_DOMAIN "natter-json"

#include <string.h>

#include "natter-json-private.h"

/**
 * natter_json_scan:
 * @text: the document's bytes
 * @length: their length
 * @max_depth: the deepest nesting allowed
 * @out_depth: (out) (optional): the deepest nesting of `[` and `{`
 *   outside strings, as far as the scan went
 * @out_offset: (out) (optional): where the scan stopped (the bracket
 *   that went past the limit, or the lenient character), else @length
 *
 * The non-recursive pass that guards json-glib's parser: it follows
 * double-quoted strings (a backslash escapes the next byte) and counts
 * the nesting of the brackets outside them, stopping as soon as it
 * passes @max_depth or meets a `'` or `/` outside a string
 * (which json-glib would read as a string or a comment).
 *
 * Returns: what the scan found
 */
NatterJsonScan
natter_json_scan (const char *text,
                  gsize       length,
                  guint       max_depth,
                  guint      *out_depth,
                  gsize      *out_offset)
{
  NatterJsonScan found = NATTER_JSON_SCAN_OK;
  gboolean in_string = FALSE;
  guint depth = 0;
  guint deepest = 0;
  gsize i;

  for (i = 0; i < length && found == NATTER_JSON_SCAN_OK; i++)
    {
      char c = text[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;
        case '[':
        case '{':
          depth++;
          deepest = MAX (deepest, depth);
          if (depth > max_depth)
            found = NATTER_JSON_SCAN_TOO_DEEP;
          break;
        case ']':
        case '}':
          if (depth > 0)
            depth--;
          break;
        case '\'':
        case '/':
          found = NATTER_JSON_SCAN_LENIENT;
          break;
        default:
          break;
        }
    }
  if (out_depth != NULL)
    *out_depth = deepest;
  if (out_offset != NULL)
    *out_offset = found == NATTER_JSON_SCAN_OK ? length : i - 1;
  return found;
}

/* Line and column (both from 1, the column in bytes) of @offset. */
static void
position_of (const char *text,
             gsize       offset,
             guint      *line,
             guint      *column)
{
  const char *last_newline = NULL;

  *line = 1;
  for (const char *p = text; p < text + offset; p++)
    if (*p == '\n')
      {
        (*line)++;
        last_newline = p;
      }
  *column = (guint) (text + offset - (last_newline != NULL ? last_newline + 1 : text)) + 1;
}

/**
 * natter_json_parser_load:
 * @parser: a #JsonParser (it may be reused between documents)
 * @text: the document
 * @length: its length in bytes, or -1 when nul-terminated
 * @error: return location for a #GError
 *
 * json_parser_load_from_data(), guarded: refused, without asking
 * json-glib, when @text nests deeper than %NATTER_JSON_DOCUMENT_MAX_DEPTH
 * (json-glib recurses once per level and would overflow the stack) or
 * holds a `'` or `/` outside a string (not JSON; json-glib would hide
 * brackets there). Every reader of JSON goes through it:
 * natter_json_parser_load_external() for text from outside that is kept
 * (it also replaces what no string can hold), natter_json_parse() for a
 * whole document, and this function itself where the text must be read
 * exactly as written or not at all (a tool call's arguments, mcp.json).
 *
 * Returns: %TRUE when @parser holds the document (its root may be %NULL
 *   for an empty one); else %FALSE with %NATTER_STORE_ERROR_TOO_DEEP,
 *   %NATTER_STORE_ERROR_MALFORMED, or json-glib's #JsonParserError for a
 *   syntax error
 */
gboolean
natter_json_parser_load (JsonParser  *parser,
                         const char  *text,
                         gssize       length,
                         GError     **error)
{
  gsize offset = 0;
  guint line;
  guint column;

  g_return_val_if_fail (JSON_IS_PARSER (parser), FALSE);
  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (length < 0)
    length = strlen (text);

  switch (natter_json_scan (text, length, NATTER_JSON_DOCUMENT_MAX_DEPTH, NULL, &offset))
    {
    case NATTER_JSON_SCAN_TOO_DEEP:
      position_of (text, offset, &line, &column);
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_TOO_DEEP,
                   "%u:%u: the JSON nests deeper than %u levels", line, column, NATTER_JSON_DOCUMENT_MAX_DEPTH);
      return FALSE;
    case NATTER_JSON_SCAN_LENIENT:
      position_of (text, offset, &line, &column);
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                   "%u:%u: “%c” outside a string is not JSON", line, column, text[offset]);
      return FALSE;
    case NATTER_JSON_SCAN_OK:
    default:
      break;
    }
  return json_parser_load_from_data (parser, text, length, error);
}

/* The value of the four hex digits at @p (either case), or -1. */
static int
hex4 (const char *p,
      const char *end)
{
  int value = 0;

  if (end - p < 4)
    return -1;
  for (guint i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (p[i]);

      if (digit < 0)
        return -1;
      value = value * 16 + digit;
    }
  return value;
}

/* @data with each `\u` escape that no string of a JsonNode can hold
 * replaced by `\ufffd`: U+0000 (json-glib ends the string there) and a
 * surrogate that is not half of a pair (json-glib writes invalid UTF-8
 * for it and drops the character after it, or refuses the text). %NULL
 * when there is none. Escapes are walked from the start, so `\\u0000`
 * (an escaped backslash) is left alone. */
static char *
replace_unholdable_escapes (const char *data,
                            gsize       length,
                            gsize      *out_length)
{
  const char *end = data + length;
  const char *copied = data;
  const char *p = data;
  GString *out = NULL;

  while ((p = memchr (p, '\\', end - p)) != NULL && end - p >= 2)
    {
      int unit;

      if (p[1] != 'u' || (unit = hex4 (p + 2, end)) < 0)
        {
          p += 2;
          continue;
        }
      if (unit >= 0xd800 && unit <= 0xdbff && end - p >= 12 && p[6] == '\\' && p[7] == 'u')
        {
          int next = hex4 (p + 8, end);

          if (next >= 0xdc00 && next <= 0xdfff)
            {
              p += 12;
              continue;
            }
        }
      if (unit != 0 && (unit < 0xd800 || unit > 0xdfff))
        {
          p += 6;
          continue;
        }
      if (out == NULL)
        out = g_string_sized_new (length + 8);
      g_string_append_len (out, copied, p - copied);
      g_string_append (out, "\\ufffd");
      p += 6;
      copied = p;
    }

  if (out == NULL)
    return NULL;
  g_string_append_len (out, copied, end - copied);
  *out_length = out->len;
  return g_string_free (out, FALSE);
}

/**
 * natter_json_parser_load_external:
 * @parser: the parser to load
 * @data: JSON text that came from outside Natter: a server's answer or
 *   stream, a tool server's message, a file to import
 * @length: the length of @data in bytes, or -1 if nul-terminated
 * @error: return location for a #GError
 *
 * json_parser_load_from_data() for text Natter did not write, where a
 * string may hold what no string of a JsonNode (a C string of valid
 * UTF-8) can: `\u0000`, which json-glib would silently end the string
 * at, and a lone surrogate (`\ud800` without its other half), which it
 * would turn into invalid UTF-8 that no log line can store. Each such
 * escape is read as U+FFFD (REPLACEMENT CHARACTER) instead, so the text
 * arrives whole with the mark where a character was lost, and whatever
 * is stored of it reads back exactly (docs/format.md §2). Everything
 * else is natter_json_parser_load()'s reading: nesting deeper than
 * %NATTER_JSON_MAX_DEPTH and a `'` or `/` outside a string are refused
 * before json-glib sees the text, bytes that are not UTF-8 are an error.
 *
 * Returns: %TRUE on success; %FALSE with %NATTER_STORE_ERROR_TOO_DEEP,
 *   %NATTER_STORE_ERROR_MALFORMED, or json-glib's #JsonParserError (or
 *   its %G_IO_ERROR for data that is not UTF-8)
 */
gboolean
natter_json_parser_load_external (JsonParser  *parser,
                                  const char  *data,
                                  gssize       length,
                                  GError     **error)
{
  g_autofree char *replaced = NULL;
  gsize replaced_length = 0;

  g_return_val_if_fail (JSON_IS_PARSER (parser), FALSE);
  g_return_val_if_fail (data != NULL, FALSE);

  if (length < 0)
    length = strlen (data);
  replaced = replace_unholdable_escapes (data, length, &replaced_length);
  /* Nested too deep, it never reaches json-glib's recursive parser. */
  if (replaced != NULL)
    return natter_json_parser_load (parser, replaced, replaced_length, error);
  return natter_json_parser_load (parser, data, length, error);
}

/**
 * natter_json_parse:
 * @text: a JSON document that came from outside
 * @length: its length in bytes, or -1 when nul-terminated
 * @error: return location for a #GError
 *
 * Parses @text as natter_json_parser_load_external() does, in a parser
 * of its own.
 *
 * Returns: (transfer full) (nullable): the document's root, or %NULL
 *   with an error of natter_json_parser_load_external(), or
 *   %NATTER_STORE_ERROR_MALFORMED for an empty document
 */
JsonNode *
natter_json_parse (const char  *text,
                   gssize       length,
                   GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  g_return_val_if_fail (text != NULL, NULL);

  if (!natter_json_parser_load_external (parser, text, length, error))
    return NULL;
  root = json_parser_steal_root (parser);
  if (root == NULL)
    g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED, "There is no JSON value");
  return root;
}
