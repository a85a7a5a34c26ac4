/* natter-json-line.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fast half of natter_json_from_line(): one pass over a stored line
 * that accepts exactly the bytes natter_json_to_line() writes for a
 * lossless value (json-glib 1.6's compact JsonGenerator, made RFC 8259
 * JSON), or wrote before U+001F was escaped, and builds the JsonNode tree
 * as it goes.
 * Accepting only the generator's output is what makes the strict read
 * cheap: there is one spelling of every value, so the check that a line
 * "round-trips" becomes a check of each token against that spelling, with
 * no second parse and no regeneration. Everything the generator cannot
 * have written is refused here and left to the reference path
 * (natter_json_from_line_reference()) to classify.
 *
 * The spelling, as json-glib 1.6.6 writes it and natter_json_to_text()
 * completes it:
 *   - no whitespace anywhere; members in insertion order, `"name":value`,
 *     separated by `,`;
 *   - strings: `"` and `\` are backslash-escaped; 0x08 0x09 0x0a 0x0c 0x0d
 *     become \b \t \n \f \r; the other bytes 0x01–0x1f and 0x7f become
 *     `\u00xx` with lowercase hex; `/` and every non-ASCII byte are
 *     written raw. json-glib itself writes 0x1f raw (an off-by-one), and
 *     lines written before Natter escaped it hold it so: such a line reads
 *     as long as it spells 0x1f one way only, since no version wrote both;
 *   - integers: `%" G_GINT64_FORMAT "`, so no `-0`, no leading zero;
 *   - doubles: g_ascii_dtostr() (`%.17g`), then `.0` appended whenever the
 *     text has no `.` — even after an exponent, so `1e+22` is written as
 *     the unparsable `1e+22.0` and such values can never be read back;
 *   - true, false, null.
 */

#define G_LOG_DOMAIN "natter-json"

#include <math.h>
#include <string.h>

#include "natter-json-private.h"

/* The longest text g_ascii_dtostr() writes is 24 bytes
 * ("-2.2250738585072014e-308"); anything longer cannot be canonical. */
#define MAX_DOUBLE_TEXT 32

/* A growable byte buffer that starts on the stack: nearly every string
 * and member name of an event fits, so a line costs no scratch malloc. */
typedef struct
{
  char  *data;
  gsize  len;
  gsize  cap;
  char   inline_data[256];
} Buffer;

static void
buffer_init (Buffer *buffer)
{
  buffer->data = buffer->inline_data;
  buffer->len = 0;
  buffer->cap = sizeof buffer->inline_data;
}

static void
buffer_clear (Buffer *buffer)
{
  if (buffer->data != buffer->inline_data)
    g_free (buffer->data);
}

static void
buffer_reserve (Buffer *buffer,
                gsize   extra)
{
  gsize need = buffer->len + extra;

  if (need <= buffer->cap)
    return;
  while (buffer->cap < need)
    buffer->cap *= 2;
  if (buffer->data == buffer->inline_data)
    {
      buffer->data = g_malloc (buffer->cap);
      memcpy (buffer->data, buffer->inline_data, buffer->len);
    }
  else
    buffer->data = g_realloc (buffer->data, buffer->cap);
}

static inline void
buffer_append (Buffer     *buffer,
               const char *bytes,
               gsize       n)
{
  buffer_reserve (buffer, n + 1);
  memcpy (buffer->data + buffer->len, bytes, n);
  buffer->len += n;
}

static inline void
buffer_append_c (Buffer *buffer,
                 char    c)
{
  buffer_reserve (buffer, 2);
  buffer->data[buffer->len++] = c;
}

/* Bytes that may appear raw inside a canonical string: everything but
 * `"`, `\`, the control bytes 0x00–0x1e and DEL. 1 marks ASCII; 2 marks
 * the bytes of multi-byte UTF-8 sequences, whose runs are UTF-8 checked;
 * 4 marks 0x1f, raw only in the lines of earlier versions. */
static const guint8 raw_in_string[256] = {
  [0x1f] = 4,
  [0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  [0x30] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  [0x40] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  [0x50] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
  [0x60] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  [0x70] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
  [0x80 ... 0xff] = 2,
};

/* The bytes among the eight at @p that are not raw ASCII in a string
 * (kind 1 of raw_in_string: 0x20–0x7e but `"` and `\`): the classic
 * "has a byte less than n" and "has a byte equal to v" word tricks, one
 * high bit per byte, in the order of the bytes (the first byte the
 * lowest). A borrow only runs from a byte that is itself marked into
 * the bytes after it, so the lowest mark is exact: it is the first such
 * byte, and none means all eight are plain. */
static inline guint64
special_bytes_8 (const char *p)
{
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 highs = G_GUINT64_CONSTANT (0x8080808080808080);
  guint64 x, quote, backslash, del;

  memcpy (&x, p, sizeof x);
  x = GUINT64_FROM_LE (x);
  quote = x ^ (ones * '"');
  backslash = x ^ (ones * '\\');
  del = x ^ (ones * 0x7f);
  return (x & highs) |
         ((x - ones * 0x20) & ~x & highs) |
         ((quote - ones) & ~quote & highs) |
         ((backslash - ones) & ~backslash & highs) |
         ((del - ones) & ~del & highs);
}

/* Whether byte @c is written as `\u00xx`: the control bytes without a
 * short escape, and DEL. */
static gboolean
is_unicode_escaped (guint c)
{
  switch (c)
    {
    case 0x08: case 0x09: case 0x0a: case 0x0c: case 0x0d:
      return FALSE;
    default:
      return (c >= 0x01 && c <= 0x1f) || c == 0x7f;
    }
}

/* How a line spells U+001F so far: escaped as now, raw as before, or both,
 * which no version of Natter wrote. */
typedef enum
{
  UNIT_SEPARATOR_RAW     = 1 << 0,
  UNIT_SEPARATOR_ESCAPED = 1 << 1,
} UnitSeparator;

static int
lower_hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* Reads the canonical string at *@p (which is `"`) and moves *@p past its
 * closing quote. With @out, decodes it there, nul-terminated; without,
 * only checks it (the span scanner), setting *@out_escaped when the raw
 * text holds a backslash escape. *@spelling gathers how the line spells
 * U+001F (UnitSeparator); a string that makes it both fails. One reader
 * for both consumers keeps a single copy of the canonical string rules. */
static gboolean
read_string (const char **p,
             const char  *end,
             Buffer      *out,
             gboolean    *out_escaped,
             guint       *spelling)
{
  const char *s = *p + 1;
  gboolean escaped = FALSE;

  if (out != NULL)
    out->len = 0;
  for (;;)
    {
      const char *run = s;
      guint kinds = 0;
      char c;

      for (;;)
        {
          /* Eight plain ASCII bytes at a time, the bulk of every string,
           * then straight to the first byte that is not. */
          while (end - s >= 8)
            {
              guint64 special = special_bytes_8 (s);

              if (special != 0)
                {
                  s += __builtin_ctzll (special) / 8;
                  break;
                }
              s += 8;
            }
          /* That byte, or one of the last few of the line: a byte that
           * may stand raw is taken, and the words go on after it. */
          if (s == end || raw_in_string[(guchar) *s] == 0)
            break;
          kinds |= raw_in_string[(guchar) *s++];
        }
      /* A run ends at an ASCII byte, which never falls inside a UTF-8
       * sequence, so checking runs one by one checks the whole line:
       * outside strings only ASCII is accepted at all. */
      if ((kinds & 2) != 0 && !g_utf8_validate_len (run, s - run, NULL))
        return FALSE;
      if ((kinds & 4) != 0)
        {
          *spelling |= UNIT_SEPARATOR_RAW;
          if (*spelling & UNIT_SEPARATOR_ESCAPED)
            return FALSE;
        }
      if (out != NULL)
        buffer_append (out, run, s - run);
      if (s == end)
        return FALSE;

      c = *s++;
      if (c == '"')
        break;
      if (c != '\\' || s == end)
        return FALSE;

      escaped = TRUE;
      switch (*s++)
        {
        case '"':  c = '"';  break;
        case '\\': c = '\\'; break;
        case 'b':  c = '\b'; break;
        case 'f':  c = '\f'; break;
        case 'n':  c = '\n'; break;
        case 'r':  c = '\r'; break;
        case 't':  c = '\t'; break;
        case 'u':
          {
            int high, low;

            if (end - s < 4 || s[0] != '0' || s[1] != '0')
              return FALSE;
            high = lower_hex_value (s[2]);
            low = lower_hex_value (s[3]);
            if (high < 0 || low < 0 || !is_unicode_escaped (high * 16 + low))
              return FALSE;
            c = (char) (high * 16 + low);
            if (c == 0x1f)
              {
                *spelling |= UNIT_SEPARATOR_ESCAPED;
                if (*spelling & UNIT_SEPARATOR_RAW)
                  return FALSE;
              }
            s += 4;
          }
          break;
        default:
          /* Includes `\/`: the generator writes `/` raw. */
          return FALSE;
        }
      if (out != NULL)
        buffer_append_c (out, c);
    }

  if (out != NULL)
    out->data[out->len] = '\0';
  if (out_escaped != NULL)
    *out_escaped = escaped;
  *p = s;
  return TRUE;
}

/* read_string() for the span scanner, which only checks: the common
 * string — plain ASCII up to its closing quote, at least eight bytes
 * before the end of the line — is passed over here a word at a time
 * without a call; anything else (an escape, UTF-8, U+001F, the last
 * bytes of the line) is read by read_string() from the start. */
static inline gboolean
check_string (const char **p,
              const char  *end,
              gboolean    *out_escaped,
              guint       *spelling)
{
  const char *s = *p + 1;

  while (end - s >= 8)
    {
      guint64 special = special_bytes_8 (s);

      if (special != 0)
        {
          s += __builtin_ctzll (special) / 8;
          if (*s != '"')
            break;
          *out_escaped = FALSE;
          *p = s + 1;
          return TRUE;
        }
      s += 8;
    }
  return read_string (p, end, NULL, out_escaped, spelling);
}

static inline gboolean
is_digit (const char *p,
          const char *end)
{
  return p < end && *p >= '0' && *p <= '9';
}

typedef struct
{
  gboolean is_double;
  gint64   int_value;
  double   double_value;
} Number;

/* Reads the canonical number at *@p into @number: an integer if it has
 * neither fraction nor exponent (as json-glib parses it), else a double. */
static gboolean
read_number (const char **p,
             const char  *end,
             Number      *number)
{
  const char *start = *p;
  const char *s = start;
  const char *digits;
  gboolean negative = FALSE;
  gboolean is_double = FALSE;

  if (*s == '-')
    {
      negative = TRUE;
      s++;
    }
  digits = s;
  if (!is_digit (s, end))
    return FALSE;
  if (*s == '0')
    s++;
  else
    while (is_digit (s, end))
      s++;
  if (s < end && *s == '.')
    {
      is_double = TRUE;
      s++;
      if (!is_digit (s, end))
        return FALSE;
      while (is_digit (s, end))
        s++;
    }
  if (s < end && (*s == 'e' || *s == 'E'))
    {
      is_double = TRUE;
      s++;
      if (s < end && (*s == '+' || *s == '-'))
        s++;
      if (!is_digit (s, end))
        return FALSE;
      while (is_digit (s, end))
        s++;
    }

  if (!is_double)
    {
      gsize n_digits = s - digits;
      guint64 magnitude = 0;
      gint64 value;

      /* "-0" parses as the integer 0, which is written "0". More than 19
       * digits is past 64 bits (json-glib would wrap it). */
      if (n_digits > 19 || (negative && *digits == '0'))
        return FALSE;
      for (const char *d = digits; d < s; d++)
        magnitude = magnitude * 10 + (guint64) (*d - '0');
      if (negative)
        {
          if (magnitude > (guint64) G_MAXINT64 + 1)
            return FALSE;
          value = magnitude == (guint64) G_MAXINT64 + 1 ? G_MININT64 : -(gint64) magnitude;
        }
      else
        {
          if (magnitude > (guint64) G_MAXINT64)
            return FALSE;
          value = (gint64) magnitude;
        }
      *p = s;
      number->is_double = FALSE;
      number->int_value = value;
      return TRUE;
    }
  else
    {
      char text[MAX_DOUBLE_TEXT + 1];
      char canonical[G_ASCII_DTOSTR_BUF_SIZE + 2];
      gsize n = s - start;
      char *parsed_end = NULL;
      double value;

      /* Doubles are rare in events: parse, print the way the generator
       * does, and accept only the identical text. */
      if (n > MAX_DOUBLE_TEXT)
        return FALSE;
      memcpy (text, start, n);
      text[n] = '\0';
      value = g_ascii_strtod (text, &parsed_end);
      if (parsed_end != text + n || !isfinite (value))
        return FALSE;
      g_ascii_dtostr (canonical, G_ASCII_DTOSTR_BUF_SIZE, value);
      if (strchr (canonical, '.') == NULL)
        strcat (canonical, ".0");
      if (strlen (canonical) != n || memcmp (canonical, text, n) != 0)
        return FALSE;
      *p = s;
      number->is_double = TRUE;
      number->double_value = value;
      return TRUE;
    }
}

static JsonNode *
number_node (const Number *number)
{
  if (number->is_double)
    return json_node_init_double (json_node_alloc (), number->double_value);
  return json_node_init_int (json_node_alloc (), number->int_value);
}

static gboolean
read_literal (const char **p,
              const char  *end,
              const char  *literal,
              gsize        n)
{
  if ((gsize) (end - *p) < n || memcmp (*p, literal, n) != 0)
    return FALSE;
  *p += n;
  return TRUE;
}

typedef struct
{
  JsonNode *node;       /* (unowned): owned by its parent, or the root */
  gboolean  is_object;
} Frame;

/* Reads `"name":` into @key. */
static gboolean
read_member_name (const char **p,
                  const char  *end,
                  Buffer      *key,
                  guint       *spelling)
{
  if (*p == end || **p != '"' || !read_string (p, end, key, NULL, spelling))
    return FALSE;
  if (*p == end || **p != ':')
    return FALSE;
  (*p)++;
  return TRUE;
}

/* Hands @value (transfer full) to the innermost open container, or makes
 * it the root. A member name seen twice is refused: json-glib's parser
 * would keep only the last value, so the line cannot round-trip. */
static gboolean
attach (JsonNode  **root,
        Frame      *frames,
        guint       depth,
        Buffer     *key,
        JsonNode   *value)
{
  Frame *top;

  if (depth == 0)
    {
      *root = value;
      return TRUE;
    }

  top = &frames[depth - 1];
  if (top->is_object)
    {
      JsonObject *object = json_node_get_object (top->node);
      guint before = json_object_get_size (object);

      json_object_set_member (object, key->data, value);
      return json_object_get_size (object) != before;
    }

  json_array_add_element (json_node_get_array (top->node), value);
  return TRUE;
}

/* The state of one natter_json_line_parse(): the open containers, the
 * tree built so far and the reader's position. */
typedef struct
{
  Frame       frames[NATTER_JSON_MAX_DEPTH];
  guint       depth;
  JsonNode   *root;
  Buffer      key;
  Buffer      text;
  const char *p;
  const char *end;
  gboolean    too_deep;
  guint       spelling;   /* UnitSeparator */
} Parser;

/* What the reader does after one step. */
typedef enum
{
  STEP_FAIL,        /* the line is not canonical */
  STEP_NEXT_VALUE,  /* a value (with its member name read) starts at p */
  STEP_AFTER_VALUE, /* a value ended at p */
  STEP_DONE,        /* the top-level value ended at the end of the line */
} Step;

/* Reads the scalar value at p: a string, a literal or a number. */
static JsonNode *
parse_scalar (Parser *parser)
{
  switch (*parser->p)
    {
    case '"':
      if (!read_string (&parser->p, parser->end, &parser->text, NULL, &parser->spelling))
        return NULL;
      return json_node_init_string (json_node_alloc (), parser->text.data);

    case 't':
      if (!read_literal (&parser->p, parser->end, "true", 4))
        return NULL;
      return json_node_init_boolean (json_node_alloc (), TRUE);

    case 'f':
      if (!read_literal (&parser->p, parser->end, "false", 5))
        return NULL;
      return json_node_init_boolean (json_node_alloc (), FALSE);

    case 'n':
      if (!read_literal (&parser->p, parser->end, "null", 4))
        return NULL;
      return json_node_init_null (json_node_alloc ());

    default:
      {
        Number number;

        if (*parser->p != '-' && !(*parser->p >= '0' && *parser->p <= '9'))
          return NULL;
        if (!read_number (&parser->p, parser->end, &number))
          return NULL;
        return number_node (&number);
      }
    }
}

/* Opens the object or array at p; an empty one is closed at once. */
static Step
parse_open_container (Parser *parser)
{
  gboolean is_object = *parser->p == '{';
  JsonNode *value;

  if (parser->depth == NATTER_JSON_MAX_DEPTH)
    {
      parser->too_deep = TRUE;
      return STEP_FAIL;
    }
  value = json_node_alloc ();
  if (is_object)
    {
      json_node_init (value, JSON_NODE_OBJECT);
      json_node_take_object (value, json_object_new ());
    }
  else
    {
      json_node_init (value, JSON_NODE_ARRAY);
      json_node_take_array (value, json_array_new ());
    }
  if (!attach (&parser->root, parser->frames, parser->depth, &parser->key, value))
    return STEP_FAIL;
  parser->frames[parser->depth].node = value;
  parser->frames[parser->depth].is_object = is_object;
  parser->depth++;
  parser->p++;

  if (parser->p < parser->end && *parser->p == (is_object ? '}' : ']'))
    {
      parser->p++;
      parser->depth--;
      return STEP_AFTER_VALUE;
    }
  if (is_object && !read_member_name (&parser->p, parser->end, &parser->key, &parser->spelling))
    return STEP_FAIL;
  return STEP_NEXT_VALUE;
}

/* Reads one value at p (its member name, if any, already in key). */
static Step
parse_value (Parser *parser)
{
  JsonNode *value;

  if (parser->p == parser->end)
    return STEP_FAIL;
  if (*parser->p == '{' || *parser->p == '[')
    return parse_open_container (parser);

  value = parse_scalar (parser);
  if (value == NULL || !attach (&parser->root, parser->frames, parser->depth, &parser->key, value))
    return STEP_FAIL;
  return STEP_AFTER_VALUE;
}

/* After a value: a separator, or the ends of enclosing containers. */
static Step
parse_after_value (Parser *parser)
{
  for (;;)
    {
      Frame *top;

      if (parser->depth == 0)
        return parser->p == parser->end ? STEP_DONE : STEP_FAIL;
      if (parser->p == parser->end)
        return STEP_FAIL;

      top = &parser->frames[parser->depth - 1];
      if (*parser->p == ',')
        {
          parser->p++;
          if (top->is_object && !read_member_name (&parser->p, parser->end, &parser->key, &parser->spelling))
            return STEP_FAIL;
          return STEP_NEXT_VALUE;
        }
      if (*parser->p != (top->is_object ? '}' : ']'))
        return STEP_FAIL;
      parser->p++;
      parser->depth--;
    }
}

/**
 * natter_json_line_parse:
 * @line: the bytes of one line, without its newline
 * @length: the length of @line in bytes
 * @out_too_deep: (out) (optional): set to %TRUE when the line was refused
 *   only because it nests deeper than %NATTER_JSON_MAX_DEPTH
 *
 * The fast strict read: accepts @line only if it is valid UTF-8 and
 * exactly the line natter_json_to_line() writes for a lossless value (or
 * wrote before it escaped U+001F), and
 * builds that value's tree in the same pass, sealed as json-glib's
 * immutable parser seals it. The accepted lines and the trees built are
 * those of natter_json_from_line_reference(); the tests and
 * fuzz/fuzz-json-line.c hold the two to it. Implements the lossless read
 * of docs/runtime.md §2 and dsh-session.md.
 *
 * Returns: (transfer full) (nullable): the value, or %NULL when the line
 *   is not canonical (no reason given: the caller asks the reference path).
 */
JsonNode *
natter_json_line_parse (const char *line,
                        gsize       length,
                        gboolean   *out_too_deep)
{
  Parser parser;
  Step step;

  parser.depth = 0;
  parser.root = NULL;
  parser.p = line;
  parser.end = line + length;
  parser.too_deep = FALSE;
  parser.spelling = 0;
  buffer_init (&parser.key);
  buffer_init (&parser.text);

  /* Each pass reads one value at p, then closes as many containers as
   * end there. */
  do
    {
      step = parse_value (&parser);
      if (step == STEP_AFTER_VALUE)
        step = parse_after_value (&parser);
    }
  while (step == STEP_NEXT_VALUE);

  buffer_clear (&parser.key);
  buffer_clear (&parser.text);
  if (out_too_deep != NULL)
    *out_too_deep = parser.too_deep;
  if (step != STEP_DONE)
    {
      g_clear_pointer (&parser.root, json_node_unref);
      return NULL;
    }
  json_node_seal (parser.root);
  return parser.root;
}

/* The span scanner: the same grammar as natter_json_line_parse(), with
 * the same readers, but nothing is built. Member names of open objects
 * are kept as spans to refuse a duplicate; this many fit on the stack,
 * and a line with more open names at once (never an event) is decided by
 * the tree builder instead. */
#define SCAN_MAX_NAMES 64

typedef struct
{
  const char *name;
  gsize       length;
} NameSpan;

typedef struct
{
  gboolean is_object;
  guint    first_name;    /* index in the names stack of its first name */
} ScanFrame;

/* Reads `"name":` as a span and refuses it if the innermost open object
 * already has that name. The line spells U+001F one way only, so equal
 * names have equal spans. */
static gboolean
scan_member_name (const char **p,
                  const char  *end,
                  ScanFrame   *top,
                  NameSpan    *names,
                  guint       *n_names,
                  gboolean    *overflow,
                  gboolean    *out_escaped,
                  guint       *spelling)
{
  const char *start = *p + 1;
  gsize length;

  if (*p == end || **p != '"' || !check_string (p, end, out_escaped, spelling))
    return FALSE;
  length = (gsize) (*p - start) - 1;
  if (*p == end || **p != ':')
    return FALSE;
  (*p)++;

  for (guint i = top->first_name; i < *n_names; i++)
    if (names[i].length == length && memcmp (names[i].name, start, length) == 0)
      return FALSE;
  if (*n_names == SCAN_MAX_NAMES)
    {
      *overflow = TRUE;
      return TRUE;
    }
  names[*n_names].name = start;
  names[*n_names].length = length;
  (*n_names)++;
  return TRUE;
}

/* The state of one natter_json_line_scan_object(). */
typedef struct
{
  ScanFrame         frames[NATTER_JSON_MAX_DEPTH];
  NameSpan          names[SCAN_MAX_NAMES];
  guint             n_names;
  guint             depth;
  const char       *p;
  const char       *end;
  /* More names were open at once than fit in names. */
  gboolean          overflow;
  NatterJsonMember *members;
  guint             max_members;
  guint             count;
  /* The member of the top-level object being read. */
  NatterJsonMember *member;
  guint             spelling;   /* UnitSeparator */
} Scanner;

/* Reads the member name at p in the innermost open object @top; a name
 * of the top-level object starts a new member. */
static gboolean
scanner_member_name (Scanner   *scanner,
                     ScanFrame *top)
{
  gboolean name_escaped = FALSE;

  if (scanner->depth == 1)
    {
      if (scanner->count == scanner->max_members)
        return FALSE;
      scanner->member = &scanner->members[scanner->count++];
      scanner->member->name = scanner->p + 1;
    }
  if (!scan_member_name (&scanner->p, scanner->end, top, scanner->names, &scanner->n_names,
                         &scanner->overflow, &name_escaped, &scanner->spelling))
    return FALSE;
  if (scanner->depth == 1)
    {
      scanner->member->name_length = (gsize) (scanner->p - scanner->member->name) - 2;
      scanner->member->name_escaped = name_escaped;
    }
  return TRUE;
}

/* Reads the scalar value at p: a string, a literal or a number. */
static gboolean
scanner_scalar (Scanner            *scanner,
                NatterJsonSpanKind *kind,
                gboolean           *escaped,
                gint64             *int_value)
{
  switch (*scanner->p)
    {
    case '"':
      *kind = NATTER_JSON_SPAN_STRING;
      return check_string (&scanner->p, scanner->end, escaped, &scanner->spelling);

    case 't':
      *kind = NATTER_JSON_SPAN_BOOLEAN;
      *int_value = 1;
      return read_literal (&scanner->p, scanner->end, "true", 4);

    case 'f':
      *kind = NATTER_JSON_SPAN_BOOLEAN;
      return read_literal (&scanner->p, scanner->end, "false", 5);

    case 'n':
      *kind = NATTER_JSON_SPAN_NULL;
      return read_literal (&scanner->p, scanner->end, "null", 4);

    default:
      {
        Number number;

        if (*scanner->p != '-' && !(*scanner->p >= '0' && *scanner->p <= '9'))
          return FALSE;
        if (!read_number (&scanner->p, scanner->end, &number))
          return FALSE;
        *kind = number.is_double ? NATTER_JSON_SPAN_DOUBLE : NATTER_JSON_SPAN_INT;
        *int_value = number.int_value;
        return TRUE;
      }
    }
}

/* Opens the object or array at p; an empty one is closed at once and its
 * kind stored in @kind. */
static Step
scanner_open_container (Scanner            *scanner,
                        NatterJsonSpanKind *kind)
{
  gboolean is_object = *scanner->p == '{';

  if (scanner->depth == NATTER_JSON_MAX_DEPTH)
    return STEP_FAIL;
  if (scanner->depth == 1)
    scanner->member->value = scanner->p;
  scanner->frames[scanner->depth].is_object = is_object;
  scanner->frames[scanner->depth].first_name = scanner->n_names;
  scanner->depth++;
  scanner->p++;

  if (scanner->p < scanner->end && *scanner->p == (is_object ? '}' : ']'))
    {
      scanner->p++;
      scanner->depth--;
      *kind = is_object ? NATTER_JSON_SPAN_OBJECT : NATTER_JSON_SPAN_ARRAY;
      return STEP_AFTER_VALUE;
    }
  if (is_object && !scanner_member_name (scanner, &scanner->frames[scanner->depth - 1]))
    return STEP_FAIL;
  return STEP_NEXT_VALUE;
}

/* Reads one value at p (its member name, if any, already read). A value
 * of the top-level object that ends here, right after a scalar or an
 * empty container, is stored in its member. */
static Step
scanner_value (Scanner *scanner)
{
  const char *value_start = scanner->p;
  NatterJsonSpanKind kind;
  gboolean escaped = FALSE;
  gint64 int_value = 0;
  NatterJsonMember *member;

  if (scanner->p == scanner->end)
    return STEP_FAIL;
  if (*scanner->p == '{' || *scanner->p == '[')
    {
      Step step = scanner_open_container (scanner, &kind);

      if (step != STEP_AFTER_VALUE)
        return step;
    }
  else if (!scanner_scalar (scanner, &kind, &escaped, &int_value))
    return STEP_FAIL;

  if (scanner->depth != 1)
    return STEP_AFTER_VALUE;
  member = scanner->member;
  member->kind = kind;
  member->escaped = escaped;
  member->int_value = int_value;
  if (kind == NATTER_JSON_SPAN_STRING)
    {
      member->value = value_start + 1;
      member->value_length = (gsize) (scanner->p - value_start) - 2;
    }
  else
    {
      member->value = value_start;
      member->value_length = (gsize) (scanner->p - value_start);
    }
  return STEP_AFTER_VALUE;
}

/* After a value: a separator, or the ends of enclosing containers. */
static Step
scanner_after_value (Scanner *scanner)
{
  for (;;)
    {
      ScanFrame *top;

      if (scanner->depth == 0)
        return scanner->p == scanner->end ? STEP_DONE : STEP_FAIL;
      if (scanner->p == scanner->end)
        return STEP_FAIL;

      top = &scanner->frames[scanner->depth - 1];
      if (*scanner->p == ',')
        {
          scanner->p++;
          if (top->is_object && !scanner_member_name (scanner, top))
            return STEP_FAIL;
          return STEP_NEXT_VALUE;
        }
      if (*scanner->p != (top->is_object ? '}' : ']'))
        return STEP_FAIL;
      scanner->p++;
      scanner->n_names = top->first_name;
      scanner->depth--;
      /* A container that was a member value of the top-level object
       * just closed. */
      if (scanner->depth == 1)
        {
          NatterJsonMember *member = scanner->member;

          member->kind = scanner->frames[1].is_object ? NATTER_JSON_SPAN_OBJECT
                                                      : NATTER_JSON_SPAN_ARRAY;
          member->escaped = FALSE;
          member->int_value = 0;
          member->value_length = (gsize) (scanner->p - member->value);
        }
    }
}

/**
 * natter_json_line_scan_object:
 * @line: the bytes of one line, without its newline
 * @length: the length of @line in bytes
 * @members: (out caller-allocates) (array length=max_members): where the
 *   members of the top-level object are stored, in line order
 * @max_members: the length of @members
 * @n_members: (out): how many members the object has (only meaningful on
 *   success)
 *
 * The strict read of natter_json_line_parse() without the tree: accepts
 * exactly the lines that function accepts (canonical form,
 * valid UTF-8, at most %NATTER_JSON_MAX_DEPTH deep, no member name twice
 * in any object) and, for a top-level object, describes its members as
 * spans into @line. Nothing is allocated for an event-sized line; a line
 * with more than 64 member names open at once is decided by the tree
 * builder. The differential tests and fuzz/fuzz-session-scan.c hold it to
 * natter_json_line_parse(). Serves the startup scan of
 * docs/sessions.md §8.2.
 *
 * Returns: %TRUE if @line is canonical, is an object and has at most
 *   @max_members members; %FALSE otherwise (no reason is given: a caller
 *   that must explain asks natter_json_from_line()).
 */
gboolean
natter_json_line_scan_object (const char       *line,
                              gsize             length,
                              NatterJsonMember *members,
                              guint             max_members,
                              guint            *n_members)
{
  Scanner scanner;
  Step step;

  g_return_val_if_fail (n_members != NULL, FALSE);

  *n_members = 0;
  if (length == 0 || line[0] != '{')
    return FALSE;

  scanner.n_names = 0;
  scanner.depth = 0;
  scanner.p = line;
  scanner.end = line + length;
  scanner.overflow = FALSE;
  scanner.members = members;
  scanner.max_members = max_members;
  scanner.count = 0;
  scanner.member = NULL;
  scanner.spelling = 0;

  do
    {
      step = scanner_value (&scanner);
      if (step == STEP_AFTER_VALUE)
        step = scanner_after_value (&scanner);
    }
  while (step == STEP_NEXT_VALUE);

  if (step != STEP_DONE)
    return FALSE;
  *n_members = scanner.count;
  if (G_UNLIKELY (scanner.overflow))
    {
      g_autoptr(JsonNode) node = natter_json_line_parse (line, length, NULL);

      return node != NULL;
    }
  return TRUE;
}

/**
 * natter_json_span_dup_string:
 * @value: the raw text of a string value or member name, as
 *   natter_json_line_scan_object() returned it (the span must lie in the
 *   line it scanned: the closing quote after it is read)
 * @value_length: its length in bytes
 *
 * Decodes a string span of an accepted line.
 *
 * Returns: (transfer full): the string, nul-terminated
 */
char *
natter_json_span_dup_string (const char *value,
                             gsize       value_length)
{
  const char *p = value - 1;
  guint spelling = 0;
  Buffer text;
  char *result;

  buffer_init (&text);
  if (!read_string (&p, value + value_length + 1, &text, NULL, &spelling))
    g_return_val_if_reached (g_strndup (value, value_length));
  result = g_strndup (text.data, text.len);
  buffer_clear (&text);
  return result;
}

/* The end of the string that starts at @p (its opening quote) in an
 * accepted line, and whether it holds an escape. */
static const char *
walk_string (const char *p,
             const char *end,
             gboolean   *escaped)
{
  for (p++; p < end; p++)
    {
      if (*p == '"')
        return p + 1;
      if (*p == '\\')
        {
          *escaped = TRUE;
          p++;
        }
    }
  return NULL;
}

/* Reads the value at *@p of an accepted line into @member's value fields
 * and moves past it. Containers are skipped by counting brackets outside
 * strings: the line was checked whole, so nothing inside is checked again. */
static gboolean
walk_value (const char       **p,
            const char        *end,
            NatterJsonMember  *member)
{
  const char *start = *p;

  member->escaped = FALSE;
  member->int_value = 0;
  if (start >= end)
    return FALSE;
  switch (*start)
    {
    case '"':
      {
        const char *after = walk_string (start, end, &member->escaped);

        if (after == NULL)
          return FALSE;
        member->kind = NATTER_JSON_SPAN_STRING;
        member->value = start + 1;
        member->value_length = (gsize) (after - start) - 2;
        *p = after;
        return TRUE;
      }

    case '{':
    case '[':
      {
        const char *s = start;
        guint depth = 0;

        while (s < end)
          {
            if (*s == '"')
              {
                gboolean ignored = FALSE;

                s = walk_string (s, end, &ignored);
                if (s == NULL)
                  return FALSE;
                continue;
              }
            if (*s == '{' || *s == '[')
              depth++;
            else if ((*s == '}' || *s == ']') && --depth == 0)
              break;
            s++;
          }
        if (s == end)
          return FALSE;
        member->kind = *start == '{' ? NATTER_JSON_SPAN_OBJECT : NATTER_JSON_SPAN_ARRAY;
        member->value = start;
        member->value_length = (gsize) (s + 1 - start);
        *p = s + 1;
        return TRUE;
      }

    case 't':
    case 'f':
    case 'n':
      {
        gsize n = *start == 'f' ? 5 : 4;

        if ((gsize) (end - start) < n)
          return FALSE;
        member->kind = *start == 'n' ? NATTER_JSON_SPAN_NULL : NATTER_JSON_SPAN_BOOLEAN;
        member->int_value = *start == 't';
        member->value = start;
        member->value_length = n;
        *p = start + n;
        return TRUE;
      }

    default:
      {
        Number number;

        if (!read_number (p, end, &number))
          return FALSE;
        member->kind = number.is_double ? NATTER_JSON_SPAN_DOUBLE : NATTER_JSON_SPAN_INT;
        member->int_value = number.int_value;
        member->value = start;
        member->value_length = (gsize) (*p - start);
        return TRUE;
      }
    }
}

/**
 * natter_json_span_walk:
 * @value: the whole text of an object or array value of a line that
 *   natter_json_line_scan_object() accepted (a member's @value with kind
 *   %NATTER_JSON_SPAN_OBJECT or %NATTER_JSON_SPAN_ARRAY, or one found by
 *   this function)
 * @value_length: its length in bytes
 * @items: (out caller-allocates) (array length=max_items): the members of
 *   the object (name and value), or the elements of the array (value
 *   only, @name %NULL), as spans into the line
 * @max_items: the length of @items
 * @n_items: (out): how many there are (only meaningful on success)
 *
 * Lists what a container of an accepted line holds without checking it
 * again: the line scan has already held every byte of it to the
 * canonical spelling, so this only finds where each value starts and
 * ends. Names are unique within an object, and two names are equal
 * exactly when their raw spans are. Serves the tree-free reads of the
 * startup scan (docs/sessions.md §8.2).
 *
 * Returns: %TRUE with @items filled; %FALSE if the container holds more
 *   than @max_items items (or, for a span not taken from an accepted
 *   line, is not well formed)
 */
gboolean
natter_json_span_walk (const char       *value,
                       gsize             value_length,
                       NatterJsonMember *items,
                       guint             max_items,
                       guint            *n_items)
{
  const char *end = value + value_length;
  const char *p;
  gboolean is_object;
  char close;

  g_return_val_if_fail (n_items != NULL, FALSE);

  *n_items = 0;
  if (value_length < 2)
    return FALSE;
  is_object = value[0] == '{';
  close = is_object ? '}' : ']';
  if ((!is_object && value[0] != '[') || end[-1] != close)
    return FALSE;
  end--;
  p = value + 1;
  if (p == end)
    return TRUE;

  for (;;)
    {
      NatterJsonMember *item;

      if (*n_items == max_items)
        return FALSE;
      item = &items[(*n_items)++];
      item->name = NULL;
      item->name_length = 0;
      item->name_escaped = FALSE;
      if (is_object)
        {
          const char *after = walk_string (p, end, &item->name_escaped);

          if (*p != '"' || after == NULL || after >= end || *after != ':')
            return FALSE;
          item->name = p + 1;
          item->name_length = (gsize) (after - p) - 2;
          p = after + 1;
        }
      if (!walk_value (&p, end, item))
        return FALSE;
      if (p == end)
        return TRUE;
      if (*p != ',')
        return FALSE;
      p++;
    }
}
