/* natter-json.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-json"

#include <math.h>
#include <string.h>

#include "natter-json-private.h"

/* The walk is iterative so that a hostile, deeply nested line cannot
 * exhaust the stack of a worker thread. Each pending node carries the
 * number of arrays and objects around it. */
typedef struct
{
  JsonNode *node;
  guint     depth;
} Pending;

static gboolean
check_string (const char  *value,
              const char  *what,
              GError     **error)
{
  if (value == NULL || !g_utf8_validate (value, -1, NULL))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS,
                   "%s is not valid UTF-8", what);
      return FALSE;
    }
  return TRUE;
}

/**
 * natter_json_check_lossless:
 * @node: (transfer none): any JSON node
 * @error: return location for a #GError
 *
 * Checks that @node can be stored and read back unchanged: every number is
 * finite (no NaN, no Infinity) and every string and member name is valid
 * UTF-8 without embedded NUL, and arrays and objects nest at most
 * %NATTER_JSON_MAX_DEPTH deep (json-glib recurses once per level when it
 * parses, writes or frees a value). This is the value check shared by
 * natter_json_to_line() (every append) and natter_json_from_line() (every
 * read). Implements the lossless-JSON rule of docs/runtime.md §2 and
 * dsh-session.md.
 *
 * Returns: %TRUE if lossless; else %FALSE with
 *   %NATTER_STORE_ERROR_NOT_LOSSLESS naming the offending value.
 */
gboolean
natter_json_check_lossless (JsonNode  *node,
                            GError   **error)
{
  g_autoptr(GArray) stack = NULL;
  Pending root = { node, 0 };

  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  stack = g_array_new (FALSE, FALSE, sizeof (Pending));
  g_array_append_val (stack, root);

  while (stack->len > 0)
    {
      Pending pending = g_array_index (stack, Pending, stack->len - 1);
      JsonNode *current = pending.node;

      g_array_set_size (stack, stack->len - 1);

      if ((JSON_NODE_HOLDS_OBJECT (current) || JSON_NODE_HOLDS_ARRAY (current)) &&
          pending.depth >= NATTER_JSON_MAX_DEPTH)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS,
                       "The value nests deeper than %u levels", NATTER_JSON_MAX_DEPTH);
          return FALSE;
        }

      switch (JSON_NODE_TYPE (current))
        {
        case JSON_NODE_OBJECT:
          {
            JsonObjectIter iter;
            const char *name;
            JsonNode *member;

            json_object_iter_init (&iter, json_node_get_object (current));
            while (json_object_iter_next (&iter, &name, &member))
              {
                Pending child = { member, pending.depth + 1 };

                if (!check_string (name, "A member name", error))
                  return FALSE;
                g_array_append_val (stack, child);
              }
          }
          break;

        case JSON_NODE_ARRAY:
          {
            JsonArray *array = json_node_get_array (current);
            guint n = json_array_get_length (array);

            for (guint i = 0; i < n; i++)
              {
                Pending child = { json_array_get_element (array, i), pending.depth + 1 };

                g_array_append_val (stack, child);
              }
          }
          break;

        case JSON_NODE_VALUE:
          {
            GType type = json_node_get_value_type (current);

            if (type == G_TYPE_DOUBLE)
              {
                double value = json_node_get_double (current);

                if (!isfinite (value))
                  {
                    g_set_error (error, NATTER_STORE_ERROR,
                                 NATTER_STORE_ERROR_NOT_LOSSLESS,
                                 "A number is not finite (NaN or Infinity)");
                    return FALSE;
                  }
              }
            else if (type == G_TYPE_STRING)
              {
                if (!check_string (json_node_get_string (current), "A string", error))
                  return FALSE;
              }
            else if (type != G_TYPE_INT64 && type != G_TYPE_BOOLEAN)
              {
                g_set_error (error, NATTER_STORE_ERROR,
                             NATTER_STORE_ERROR_NOT_LOSSLESS,
                             "A value of type %s has no JSON form",
                             g_type_name (type));
                return FALSE;
              }
          }
          break;

        case JSON_NODE_NULL:
        default:
          break;
        }
    }

  return TRUE;
}

/* json-glib's generator, as it is: the spelling of stored lines up to the
 * version that began escaping U+001F, which such lines still have. */
static char *
generate (JsonNode *node,
          gboolean  pretty,
          gsize    *length)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_pretty (generator, pretty);
  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, length);
}

/* @text (transfer full), json-glib's output, as RFC 8259 JSON: the one
 * control character json-glib 1.6 writes raw (U+001F: it escapes only
 * those below it) becomes `\u001f`. The generator writes no control
 * character outside a string (and none at all in compact form), so every
 * such byte is inside one. Invalid UTF-8, which a string of a JsonNode
 * may hold, becomes U+FFFD: the result is always UTF-8. */
static char *
make_strict (char  *text,
             gsize *length)
{
  g_autofree char *owned = text;
  GString *strict;
  const char *p;
  const char *end = text + *length;

  if (memchr (text, 0x1f, *length) == NULL && g_utf8_validate_len (text, *length, NULL))
    return g_steal_pointer (&owned);

  strict = g_string_sized_new (*length + 16);
  for (p = text; p < end;)
    {
      const char *unit = memchr (p, 0x1f, end - p);
      const char *stop = unit != NULL ? unit : end;
      const char *valid;

      while (!g_utf8_validate_len (p, stop - p, &valid))
        {
          g_string_append_len (strict, p, valid - p);
          g_string_append (strict, "\xef\xbf\xbd");
          p = valid + 1;
        }
      g_string_append_len (strict, p, stop - p);
      p = stop;
      if (unit != NULL)
        {
          g_string_append (strict, "\\u001f");
          p++;
        }
    }
  *length = strict->len;
  return g_string_free (strict, FALSE);
}

/**
 * natter_json_to_text:
 * @node: (transfer none): the value to write
 * @pretty: whether to indent (two spaces, a member or element a line),
 *   as json_to_string() does
 * @length: (out) (optional): the length of the result in bytes
 *
 * Writes @node as JSON that every strict reader accepts (RFC 8259):
 * json-glib's serialization, with every control character in a string
 * escaped (json-glib 1.6 writes U+001F raw, which Python's json module,
 * JavaScript's JSON.parse and strict servers refuse) and always valid
 * UTF-8 (bytes of a string that are not are written as U+FFFD). This is
 * the one writer of JSON that leaves Natter: stored lines
 * (natter_json_to_line()), request bodies, tool-server messages, archives
 * and `--json` output (docs/format.md §2, "Lossless, canonical JSON").
 * Unlike natter_json_to_line() it checks nothing else: a NaN is written
 * as json-glib writes it.
 *
 * Returns: (transfer full): the text, nul-terminated
 */
char *
natter_json_to_text (JsonNode *node,
                     gboolean  pretty,
                     gsize    *length)
{
  gsize text_length = 0;
  char *text;

  g_return_val_if_fail (node != NULL, NULL);

  text = make_strict (generate (node, pretty, &text_length), &text_length);
  if (length != NULL)
    *length = text_length;
  return text;
}

/* The shortest text g_ascii_strtod() reads back as @value, as `%g`
 * writes it: 0.3 rather than %.17g's 0.29999999999999999. */
static void
format_shortest (char   *buffer,
                 double  value)
{
  for (int precision = 1; precision <= 17; precision++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", precision);
      g_ascii_formatd (buffer, G_ASCII_DTOSTR_BUF_SIZE, format, value);
      if (g_ascii_strtod (buffer, NULL) == value)
        return;
    }
}

/* Appends the number of @text that @len bytes spell, a double respelled
 * by format_shortest(), still with a point or an exponent so that it
 * reads as a double. json-glib's `1e+22.0` is the double it meant. */
static void
append_number (GString    *out,
               const char *text,
               gsize       len)
{
  g_autofree char *token = g_strndup (text, len);
  char buffer[G_ASCII_DTOSTR_BUF_SIZE + 2];
  char *end = NULL;
  double value;

  if (strpbrk (token, ".eE") == NULL)
    {
      g_string_append (out, token);
      return;
    }
  value = g_ascii_strtod (token, &end);
  if (end == token || !isfinite (value) || (*end != '\0' && strcmp (end, ".0") != 0))
    {
      g_string_append (out, token);
      return;
    }
  format_shortest (buffer, value);
  if (strpbrk (buffer, ".eE") == NULL)
    strcat (buffer, ".0");
  g_string_append (out, buffer);
}

/**
 * natter_json_to_output_text:
 * @node: (transfer none): the value to write
 * @pretty: whether to indent, as natter_json_to_text()
 *
 * natter_json_to_text() for people and scripts reading `--json` output:
 * each double is written as the shortest text that reads back as the
 * same value (`0.3`, not `0.29999999999999999`), with a point or an
 * exponent. Never for stored lines, whose spelling is json-glib's
 * (natter_json_to_line()).
 *
 * Returns: (transfer full): the text, nul-terminated
 */
char *
natter_json_to_output_text (JsonNode *node,
                            gboolean  pretty)
{
  g_autofree char *text = NULL;
  GString *out;
  const char *p;

  g_return_val_if_fail (node != NULL, NULL);

  text = natter_json_to_text (node, pretty, NULL);
  out = g_string_sized_new (strlen (text));
  for (p = text; *p != '\0';)
    {
      if (*p == '"')
        {
          /* A string, escapes and all, as it is. */
          const char *q = p + 1;

          while (*q != '\0' && *q != '"')
            q += (*q == '\\' && q[1] != '\0') ? 2 : 1;
          if (*q == '"')
            q++;
          g_string_append_len (out, p, q - p);
          p = q;
        }
      else if (*p == '-' || g_ascii_isdigit (*p))
        {
          gsize len = strspn (p, "0123456789+-.eE");

          append_number (out, p, len);
          p += len;
        }
      else
        g_string_append_c (out, *p++);
    }
  return g_string_free (out, FALSE);
}

/**
 * natter_json_node_depth:
 * @node: (transfer none): any JSON node
 *
 * How deep arrays and objects nest in @node (`1` is 0, `[]` 1,
 * `[[1]]` 2), measured without recursion, so that a value can be checked
 * against %NATTER_JSON_MAX_DEPTH before it is put a few levels down in
 * an event.
 *
 * Returns: the depth
 */
guint
natter_json_node_depth (JsonNode *node)
{
  g_autoptr(GArray) stack = NULL;
  Pending root = { node, 0 };
  guint deepest = 0;

  g_return_val_if_fail (node != NULL, 0);

  stack = g_array_new (FALSE, FALSE, sizeof (Pending));
  g_array_append_val (stack, root);
  while (stack->len > 0)
    {
      Pending pending = g_array_index (stack, Pending, stack->len - 1);

      g_array_set_size (stack, stack->len - 1);
      if (JSON_NODE_HOLDS_OBJECT (pending.node))
        {
          JsonObjectIter iter;
          JsonNode *member;

          deepest = MAX (deepest, pending.depth + 1);
          json_object_iter_init (&iter, json_node_get_object (pending.node));
          while (json_object_iter_next (&iter, NULL, &member))
            {
              Pending child = { member, pending.depth + 1 };

              g_array_append_val (stack, child);
            }
        }
      else if (JSON_NODE_HOLDS_ARRAY (pending.node))
        {
          JsonArray *array = json_node_get_array (pending.node);

          deepest = MAX (deepest, pending.depth + 1);
          for (guint i = 0; i < json_array_get_length (array); i++)
            {
              Pending child = { json_array_get_element (array, i), pending.depth + 1 };

              g_array_append_val (stack, child);
            }
        }
    }
  return deepest;
}

/**
 * natter_json_to_line:
 * @node: (transfer none): the value to serialize
 * @length: (out) (optional): the length of the result in bytes
 * @error: return location for a #GError
 *
 * Serializes @node to its canonical one-line form (natter_json_to_text(),
 * compact, no trailing newline) after natter_json_check_lossless(). The
 * canonical form is a fixed point: natter_json_from_line() accepts exactly
 * such lines, and the line is read back before it is returned, so a value
 * json-glib writes in a form it cannot parse (a double like 1e22 becomes
 * `1e+22.0`) is refused here rather than stored.
 *
 * Returns: (transfer full) (nullable): the line, or %NULL with
 *   %NATTER_STORE_ERROR_NOT_LOSSLESS.
 */
char *
natter_json_to_line (JsonNode  *node,
                     gsize     *length,
                     GError   **error)
{
  g_autoptr(JsonNode) read_back = NULL;
  g_autofree char *line = NULL;
  gsize line_length = 0;
  gboolean too_deep = FALSE;

  g_return_val_if_fail (node != NULL, NULL);

  if (!natter_json_check_lossless (node, error))
    return NULL;

  line = natter_json_to_text (node, FALSE, &line_length);

  /* What json-glib writes is not always what it can read: a double such as
   * 1e22 comes out as `1e+22.0`. A line that cannot be read back would make
   * its whole log corrupt for ever, so every line is read back, strictly,
   * before anyone may append it. */
  read_back = natter_json_line_parse (line, line_length, &too_deep);
  if (read_back == NULL || !json_node_equal (read_back, node))
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS,
                           "The value has no JSON form that reads back unchanged "
                           "(a number such as 1e22 is written as “1e+22.0”)");
      return NULL;
    }

  if (length != NULL)
    *length = line_length;
  return g_steal_pointer (&line);
}

/**
 * natter_json_line_nesting:
 * @line: the bytes of one line
 * @length: the length of @line in bytes
 *
 * How deep json-glib's recursive parser would go on @line, as
 * natter_json_scan() measures it: the deepest run of `[` and `{` outside
 * double-quoted strings.
 * natter_json_from_line() hands a refused line to the reference path
 * only when this is within %NATTER_JSON_MAX_DEPTH.
 *
 * Returns: the nesting depth, or %G_MAXUINT when a `'` or `/` outside a
 *   string would make json-glib read a stretch of the line as a string
 *   or a comment, hiding brackets from the count
 */
guint
natter_json_line_nesting (const char *line,
                          gsize       length)
{
  guint depth = 0;

  if (natter_json_scan (line, length, G_MAXUINT, &depth, NULL) == NATTER_JSON_SCAN_LENIENT)
    return G_MAXUINT;
  return depth;
}

/**
 * natter_json_from_line:
 * @line: the bytes of one line, without its newline
 * @length: the length of @line in bytes, or -1 if nul-terminated
 * @error: return location for a #GError
 *
 * Parses one stored line strictly: it must be valid UTF-8 without NUL,
 * parse as JSON, pass natter_json_check_lossless(), and be byte-for-byte
 * the canonical serialization natter_json_to_line() would write for the
 * parsed value — or the one earlier versions wrote, with U+001F raw
 * (docs/format.md §2), but never both in one line. The last rule rejects
 * everything json-glib cannot round-trip: duplicate member names,
 * integers beyond 64 bits, numbers that overflow to Infinity, `\u0000`
 * escapes, and any hand-made formatting.
 *
 * Every line is read by one single pass that accepts only the canonical
 * form and builds the tree directly (natter-json-line.c), several times
 * faster than parsing with JsonParser and regenerating. A refused line is
 * handed to that slower reference path only to name the error, so the
 * codes are the reference's, which refuses a line nested deeper than
 * %NATTER_JSON_MAX_DEPTH (512, counting brackets outside strings), or
 * holding a `'` or `/` outside a string, with
 * %NATTER_STORE_ERROR_NOT_LOSSLESS without asking json-glib, whose parser
 * recurses once per level and would overflow the stack.
 *
 * Returns: (transfer full) (nullable): the parsed node, or %NULL with
 *   %NATTER_STORE_ERROR_MALFORMED (not UTF-8, not JSON) or
 *   %NATTER_STORE_ERROR_NOT_LOSSLESS (does not round-trip, or nested
 *   deeper than %NATTER_JSON_MAX_DEPTH).
 */
JsonNode *
natter_json_from_line (const char  *line,
                       gssize       length,
                       GError     **error)
{
  gboolean too_deep = FALSE;
  JsonNode *node;

  g_return_val_if_fail (line != NULL, NULL);

  if (length < 0)
    length = strlen (line);

  node = natter_json_line_parse (line, length, &too_deep);
  if (node != NULL)
    return node;

  if (too_deep)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS,
                   "The line nests deeper than %u levels", NATTER_JSON_MAX_DEPTH);
      return NULL;
    }

  /* The reference path measures the nesting before json-glib sees the
   * line. */
  return natter_json_from_line_reference (line, length, error);
}

/**
 * natter_json_from_line_reference:
 * @line: the bytes of one line, without its newline
 * @length: the length of @line in bytes, or -1 if nul-terminated
 * @error: return location for a #GError
 *
 * The reference strict read that natter_json_from_line() must agree with,
 * and which it asks for the error of every line its fast path refuses:
 * json-glib's JsonParser, then regenerate and compare. It parses one
 * stored line strictly: it must be valid UTF-8 without NUL,
 * parse as JSON, pass natter_json_check_lossless(), and be byte-for-byte
 * the canonical serialization natter_json_to_line() would write for the
 * parsed value, or json-glib's own (U+001F raw, as lines written before
 * it was escaped have it). The last rule rejects everything json-glib cannot
 * round-trip: duplicate member names, integers beyond 64 bits, numbers that
 * overflow to Infinity, `\u0000` escapes, and any hand-made formatting.
 * json-glib never sees a line that natter_json_scan() finds too deep or
 * lenient: such a line does not round-trip either.
 *
 * Returns: (transfer full) (nullable): the parsed node, or %NULL with
 *   %NATTER_STORE_ERROR_MALFORMED (not UTF-8, not JSON) or
 *   %NATTER_STORE_ERROR_NOT_LOSSLESS (does not round-trip, nested too
 *   deep, or a `'` or `/` outside a string).
 */
JsonNode *
natter_json_from_line_reference (const char  *line,
                                 gssize       length,
                                 GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *canonical = NULL;
  gsize canonical_length = 0;
  gsize offset = 0;
  const char *bad = NULL;
  JsonNode *root;

  g_return_val_if_fail (line != NULL, NULL);

  if (length < 0)
    length = strlen (line);

  /* json-glib's parser recurses once per level: a line nested too deep
   * never reaches it, nor one with a `'` or `/` outside a string, which
   * json-glib would read leniently (a string, a comment) and which no
   * canonical line holds. */
  switch (natter_json_scan (line, length, NATTER_JSON_MAX_DEPTH, NULL, &offset))
    {
    case NATTER_JSON_SCAN_TOO_DEEP:
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS,
                   "The line nests deeper than %u levels", NATTER_JSON_MAX_DEPTH);
      return NULL;
    case NATTER_JSON_SCAN_LENIENT:
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS,
                   "The line is not canonical JSON: “%c” outside a string at byte %" G_GSIZE_FORMAT,
                   line[offset], offset + 1);
      return NULL;
    case NATTER_JSON_SCAN_OK:
    default:
      break;
    }

  if (!g_utf8_validate_len (line, length, &bad))
    {
      /* Named with its place, so that whoever opens the file finds it;
       * and a NUL as what it is: nobody looks for one when told "not
       * UTF-8". */
      if (*bad == '\0')
        g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                     "The line holds a NUL byte at byte %" G_GSIZE_FORMAT, (gsize) (bad - line) + 1);
      else
        g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                     "The line is not valid UTF-8 at byte %" G_GSIZE_FORMAT, (gsize) (bad - line) + 1);
      return NULL;
    }

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, line, length, &local_error))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                   "The line is not JSON: %s", local_error->message);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                           "The line holds no JSON value");
      return NULL;
    }

  canonical = natter_json_to_line (root, &canonical_length, error);
  if (canonical == NULL)
    return NULL;

  /* A line written before U+001F was escaped holds it raw: it reads if it
   * is exactly what json-glib wrote then. */
  if ((canonical_length != (gsize) length || memcmp (canonical, line, length) != 0) &&
      memchr (line, 0x1f, length) != NULL)
    {
      g_free (canonical);
      canonical = generate (root, FALSE, &canonical_length);
    }

  if (canonical_length != (gsize) length || memcmp (canonical, line, length) != 0)
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS,
                           "The line does not round-trip losslessly "
                           "(duplicate member, out-of-range number or non-canonical form)");
      return NULL;
    }

  return json_node_ref (root);
}

/**
 * natter_json_array_add_copies:
 * @to: (transfer none): the array to extend
 * @from: (transfer none) (nullable): the elements to add; %NULL adds none
 *
 * Appends a deep copy (json_node_copy()) of each element of @from to
 * @to, in order, so that @to shares no node with @from.
 */
void
natter_json_array_add_copies (JsonArray *to,
                              JsonArray *from)
{
  g_return_if_fail (to != NULL);

  if (from == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (from); i++)
    json_array_add_element (to, json_node_copy (json_array_get_element (from, i)));
}

/**
 * natter_json_require_member:
 * @object: a JSON object
 * @member: a member name
 * @error: return location for a %NATTER_STORE_ERROR_SCHEMA error
 *
 * Returns: (transfer none) (nullable): the member, of any type, or %NULL
 *   when it is missing (with @error set)
 */
JsonNode *
natter_json_require_member (JsonObject  *object,
                            const char  *member,
                            GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL)
    g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                 "Field “%s” is missing", member);
  return node;
}

static gboolean
is_value_of (JsonNode *node,
             GType     type)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

static void
set_type_error (GError     **error,
                const char  *member,
                const char  *expected)
{
  g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
               "Field “%s” must be %s", member, expected);
}

/**
 * natter_json_require_string:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @error: return location for a #GError
 *
 * Schema helper: @member must be present and a string.
 *
 * Returns: (transfer none) (nullable): the string, owned by @object, or
 *   %NULL with %NATTER_STORE_ERROR_SCHEMA.
 */
const char *
natter_json_require_string (JsonObject  *object,
                            const char  *member,
                            GError     **error)
{
  JsonNode *node = natter_json_require_member (object, member, error);

  if (node == NULL)
    return NULL;
  if (!is_value_of (node, G_TYPE_STRING))
    {
      set_type_error (error, member, "a string");
      return NULL;
    }
  return json_node_get_string (node);
}

/**
 * natter_json_require_nonempty_string:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @error: return location for a #GError
 *
 * Schema helper: @member must be present and a string that is not empty.
 *
 * Returns: (transfer none) (nullable): the string, owned by @object, or
 *   %NULL with %NATTER_STORE_ERROR_SCHEMA.
 */
const char *
natter_json_require_nonempty_string (JsonObject  *object,
                                     const char  *member,
                                     GError     **error)
{
  const char *value = natter_json_require_string (object, member, error);

  if (value != NULL && *value == '\0')
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “%s” must not be empty", member);
      return NULL;
    }
  return value;
}

/**
 * natter_json_optional_string:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @out_value: (out) (optional) (transfer none) (nullable): the string or
 *   %NULL when absent
 * @error: return location for a #GError
 *
 * Schema helper: @member may be absent; if present it must be a string
 * (not null).
 *
 * Returns: %FALSE with %NATTER_STORE_ERROR_SCHEMA if present and not a
 *   string.
 */
gboolean
natter_json_optional_string (JsonObject  *object,
                             const char  *member,
                             const char **out_value,
                             GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (out_value != NULL)
    *out_value = NULL;
  if (node == NULL)
    return TRUE;
  if (!is_value_of (node, G_TYPE_STRING))
    {
      set_type_error (error, member, "a string when present");
      return FALSE;
    }
  if (out_value != NULL)
    *out_value = json_node_get_string (node);
  return TRUE;
}

/**
 * natter_json_loose_string:
 * @object: (nullable): a JSON object from another program (a server's
 *   answer), or an optional part of a stored event
 * @member: a member name
 *
 * Reads the loosely typed JSON of other programs, where a member that
 * is absent, `null` or of another type all mean "not given", and an
 * optional member of what Natter stored and already validated, where a
 * missing object means the same. For what Natter stores,
 * natter_json_optional_string() refuses the wrong type instead.
 *
 * Returns: (transfer none) (nullable): the member's string, or %NULL
 *   (also when @object is %NULL)
 */
const char *
natter_json_loose_string (JsonObject *object,
                          const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !is_value_of (node, G_TYPE_STRING))
    return NULL;
  return json_node_get_string (node);
}

/**
 * natter_json_content_text:
 * @content: (nullable): a message's `content` (docs/format.md §4.1): a
 *   string, or an array of parts of which the `{type: "text", text}` ones
 *   count
 * @part_end: what follows each text part's text ("" to join them as
 *   they are); not added after a string content
 *
 * The text of a message, the one reading of its `content` for every
 * place that wants what a message says: a string as it is; of an array,
 * the `text` of each part whose `type` is "text", in order, each followed
 * by @part_end. Loose, as natter_json_loose_string(): a part that is not
 * an object, or whose `type` or `text` is not a string, adds nothing, and
 * a content that is neither a string nor an array has no text. The bytes
 * are the message's own (not made valid UTF-8).
 *
 * Returns: (transfer full): the text; empty when @content has none
 */
char *
natter_json_content_text (JsonNode   *content,
                          const char *part_end)
{
  GString *text;

  g_return_val_if_fail (part_end != NULL, NULL);

  text = g_string_new (NULL);

  if (content != NULL && is_value_of (content, G_TYPE_STRING))
    g_string_append (text, json_node_get_string (content));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *part = json_array_get_element (parts, i);
          JsonObject *object = JSON_NODE_HOLDS_OBJECT (part) ? json_node_get_object (part) : NULL;
          const char *part_text = natter_json_loose_string (object, "text");

          if (g_strcmp0 (natter_json_loose_string (object, "type"), "text") == 0 && part_text != NULL)
            {
              g_string_append (text, part_text);
              g_string_append (text, part_end);
            }
        }
    }
  return g_string_free (text, FALSE);
}

/**
 * natter_json_loose_object:
 * @object: (nullable): a JSON object from another program, or an
 *   optional part of a stored event
 * @member: a member name
 *
 * natter_json_loose_string() for a member that is an object: absent,
 * `null` or of another type all mean "not given".
 *
 * Returns: (transfer none) (nullable): the member's object, or %NULL
 *   (also when @object is %NULL)
 */
JsonObject *
natter_json_loose_object (JsonObject *object,
                          const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/**
 * natter_json_require_int:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @out_value: (out) (optional): the integer
 * @error: return location for a #GError
 *
 * Schema helper: @member must be present and an integer (a JSON number
 * without fraction or exponent).
 *
 * Returns: %FALSE with %NATTER_STORE_ERROR_SCHEMA otherwise.
 */
gboolean
natter_json_require_int (JsonObject  *object,
                         const char  *member,
                         gint64      *out_value,
                         GError     **error)
{
  JsonNode *node = natter_json_require_member (object, member, error);

  if (node == NULL)
    return FALSE;
  if (!is_value_of (node, G_TYPE_INT64))
    {
      set_type_error (error, member, "an integer");
      return FALSE;
    }
  if (out_value != NULL)
    *out_value = json_node_get_int (node);
  return TRUE;
}

/**
 * natter_json_require_int_at_least:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @minimum: the smallest value allowed
 * @out_value: (out) (optional): the integer
 * @error: return location for a #GError
 *
 * Schema helper: natter_json_require_int() of an integer that is at
 * least @minimum (a count, a size, a limit).
 *
 * Returns: %FALSE with %NATTER_STORE_ERROR_SCHEMA otherwise.
 */
gboolean
natter_json_require_int_at_least (JsonObject  *object,
                                  const char  *member,
                                  gint64       minimum,
                                  gint64      *out_value,
                                  GError     **error)
{
  gint64 value;

  if (!natter_json_require_int (object, member, &value, error))
    return FALSE;
  if (value < minimum)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “%s” must be at least %" G_GINT64_FORMAT, member, minimum);
      return FALSE;
    }
  if (out_value != NULL)
    *out_value = value;
  return TRUE;
}

/**
 * natter_json_require_boolean:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @out_value: (out) (optional): the boolean
 * @error: return location for a #GError
 *
 * Schema helper: @member must be present and `true` or `false`.
 *
 * Returns: %FALSE with %NATTER_STORE_ERROR_SCHEMA otherwise.
 */
gboolean
natter_json_require_boolean (JsonObject  *object,
                             const char  *member,
                             gboolean    *out_value,
                             GError     **error)
{
  JsonNode *node = natter_json_require_member (object, member, error);

  if (node == NULL)
    return FALSE;
  if (!is_value_of (node, G_TYPE_BOOLEAN))
    {
      set_type_error (error, member, "a boolean");
      return FALSE;
    }
  if (out_value != NULL)
    *out_value = json_node_get_boolean (node);
  return TRUE;
}

/**
 * natter_json_require_object:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @error: return location for a #GError
 *
 * Schema helper: @member must be present and an object.
 *
 * Returns: (transfer none) (nullable): the object, or %NULL with
 *   %NATTER_STORE_ERROR_SCHEMA.
 */
JsonObject *
natter_json_require_object (JsonObject  *object,
                            const char  *member,
                            GError     **error)
{
  JsonNode *node = natter_json_require_member (object, member, error);

  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      set_type_error (error, member, "an object");
      return NULL;
    }
  return json_node_get_object (node);
}

/**
 * natter_json_require_array:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @error: return location for a #GError
 *
 * Schema helper: @member must be present and an array.
 *
 * Returns: (transfer none) (nullable): the array, or %NULL with
 *   %NATTER_STORE_ERROR_SCHEMA.
 */
JsonArray *
natter_json_require_array (JsonObject  *object,
                           const char  *member,
                           GError     **error)
{
  JsonNode *node = natter_json_require_member (object, member, error);

  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      set_type_error (error, member, "an array");
      return NULL;
    }
  return json_node_get_array (node);
}

/**
 * natter_json_require_string_list:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @nonempty_strings: whether each string must be non-empty too
 * @error: return location for a #GError
 *
 * Schema helper: @member must be a non-empty array of strings (of
 * non-empty strings, when @nonempty_strings), the shape of the lists of
 * ids in docs/format.md §3.3 and §4.2.
 *
 * Returns: (transfer none) (nullable): the array, or %NULL with
 *   %NATTER_STORE_ERROR_SCHEMA.
 */
JsonArray *
natter_json_require_string_list (JsonObject  *object,
                                 const char  *member,
                                 gboolean     nonempty_strings,
                                 GError     **error)
{
  JsonArray *list = natter_json_require_array (object, member, error);
  guint n;

  if (list == NULL)
    return NULL;
  n = json_array_get_length (list);
  if (n == 0)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “%s” must not be empty", member);
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (list, i);

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING ||
          (nonempty_strings && *json_node_get_string (node) == '\0'))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       nonempty_strings ? "Field “%s”: element %u is not a non-empty string"
                                        : "Field “%s”: element %u is not a string",
                       member, i);
          return NULL;
        }
    }
  return list;
}

/**
 * natter_json_require_enum:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @allowed: (array zero-terminated=1): the allowed values
 * @error: return location for a #GError
 *
 * Schema helper: @member must be a string equal to one of @allowed.
 *
 * Returns: (transfer none) (nullable): the value, or %NULL with
 *   %NATTER_STORE_ERROR_SCHEMA.
 */
const char *
natter_json_require_enum (JsonObject          *object,
                          const char          *member,
                          const char * const  *allowed,
                          GError             **error)
{
  const char *value = natter_json_require_string (object, member, error);

  if (value == NULL)
    return NULL;
  if (!g_strv_contains (allowed, value))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “%s” has the unknown value “%s”", member, value);
      return NULL;
    }
  return value;
}

/* The value of @n ASCII digits at @text, or -1 if any is not a digit. */
static int
parse_digits (const char *text,
              guint       n)
{
  int value = 0;

  for (guint i = 0; i < n; i++)
    {
      if (text[i] < '0' || text[i] > '9')
        return -1;
      value = value * 10 + (text[i] - '0');
    }
  return value;
}

/**
 * natter_json_is_timestamp:
 * @value: a string
 *
 * Whether @value is an ISO-8601 UTC timestamp as Natter writes it:
 * `YYYY-MM-DDTHH:MM:SS[.fff…]Z`, a real calendar date and time.
 *
 * The accepted set is exactly the one this function had when it asked
 * g_date_time_new_from_iso8601() (GLib 2.74) after checking the shape —
 * including that parser's quirks, so that no stored file changes verdict
 * — but checked by hand: creating a GDateTime takes GLib's global time
 * zone lock, which serialized the startup scan's worker threads on every
 * `ts` of every event. Year 0001–9999; month 01–12; a day that exists in
 * that month of the proleptic Gregorian calendar; hour 00–23; minute
 * 00–59; second 00–59, or 60 and 61 read as 59 (leap seconds); a fraction
 * of at least one digit, as long as the second and its fraction fit
 * GLib's 64-bit accumulator and the value stays below 60 as a double
 * (`59.99999999999999999` rounds to 60 and is refused).
 *
 * Returns: %TRUE if it is.
 */
gboolean
natter_json_is_timestamp (const char *value)
{
  static const guint8 days_in_month[2][13] = {
    { 0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 },
    { 0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 },
  };
  int year, month, day, hour, minute, second;
  guint64 v, divisor = 1;
  gboolean leap;
  gsize length;

  if (value == NULL)
    return FALSE;
  length = strlen (value);
  if (length < 20 || length == 21 || value[length - 1] != 'Z' || value[4] != '-' ||
      value[7] != '-' || value[10] != 'T' || value[13] != ':' || value[16] != ':' ||
      (length > 20 && value[19] != '.'))
    return FALSE;

  year = parse_digits (value, 4);
  month = parse_digits (value + 5, 2);
  day = parse_digits (value + 8, 2);
  hour = parse_digits (value + 11, 2);
  minute = parse_digits (value + 14, 2);
  second = parse_digits (value + 17, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
      minute < 0 || minute > 59 || second < 0 || second > 61)
    return FALSE;
  leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (day > days_in_month[leap][month])
    return FALSE;

  /* GLib's get_iso8601_seconds(): 60 and 61 become 59, then the fraction's
   * digits are accumulated into one guint64 with a scale, failing on
   * overflow of either. */
  v = second >= 60 ? 59 : (guint64) second;
  for (gsize i = 20; i + 1 < length; i++)
    {
      guint c = (guchar) value[i] - '0';

      if (c > 9 || v > (G_MAXUINT64 - c) / 10 || divisor > G_MAXUINT64 / 10)
        return FALSE;
      v = v * 10 + c;
      divisor *= 10;
    }
  return (double) v / divisor < 60.0;
}

/**
 * natter_json_require_timestamp:
 * @object: (transfer none): an event or nested object
 * @member: the field name, usually `ts`
 * @error: return location for a #GError
 *
 * Schema helper: @member must be an ISO-8601 UTC timestamp
 * (natter_json_is_timestamp()).
 *
 * Returns: (transfer none) (nullable): the value, or %NULL with
 *   %NATTER_STORE_ERROR_SCHEMA.
 */
const char *
natter_json_require_timestamp (JsonObject  *object,
                               const char  *member,
                               GError     **error)
{
  const char *value = natter_json_require_string (object, member, error);

  if (value == NULL)
    return NULL;
  if (!natter_json_is_timestamp (value))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “%s” is not an ISO-8601 UTC timestamp: “%s”", member, value);
      return NULL;
    }
  return value;
}
