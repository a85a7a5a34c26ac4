/* natter-json-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The two halves of natter_json_from_line(), exposed for the differential
 * tests, the fuzzer and the benchmark: the fast single-pass parser of
 * canonical lines (natter-json-line.c) and the reference strict read it
 * must agree with (json-glib's JsonParser, then regenerate and compare).
 */

#pragma once

#include <string.h>

#include "natter-json.h"

G_BEGIN_DECLS

/**
 * NatterJsonScan:
 * @NATTER_JSON_SCAN_OK: nested at most as deep as the limit
 * @NATTER_JSON_SCAN_TOO_DEEP: nested deeper
 * @NATTER_JSON_SCAN_LENIENT: a `'` or `/` outside a double-quoted string,
 *   which json-glib would read as the start of a string or a comment
 *
 * What natter_json_scan() found before json-glib may see a text.
 */
typedef enum
{
  NATTER_JSON_SCAN_OK,
  NATTER_JSON_SCAN_TOO_DEEP,
  NATTER_JSON_SCAN_LENIENT,
} NatterJsonScan;

NatterJsonScan natter_json_scan           (const char  *text,
                                           gsize        length,
                                           guint        max_depth,
                                           guint       *out_depth,
                                           gsize       *out_offset);

JsonNode *natter_json_line_parse          (const char  *line,
                                           gsize        length,
                                           gboolean    *out_too_deep);
guint     natter_json_line_nesting        (const char  *line,
                                           gsize        length);
JsonNode *natter_json_from_line_reference (const char  *line,
                                           gssize       length,
                                           GError     **error);

/**
 * NatterJsonSpanKind:
 * @NATTER_JSON_SPAN_STRING: a string; the span is its raw text between
 *   the quotes
 * @NATTER_JSON_SPAN_INT: an integer (no fraction, no exponent)
 * @NATTER_JSON_SPAN_DOUBLE: any other number
 * @NATTER_JSON_SPAN_BOOLEAN: `true` or `false`
 * @NATTER_JSON_SPAN_NULL: `null`
 * @NATTER_JSON_SPAN_OBJECT: an object; the span is its whole text
 * @NATTER_JSON_SPAN_ARRAY: an array; the span is its whole text
 *
 * The kind of a member value found by natter_json_line_scan_object().
 */
typedef enum
{
  NATTER_JSON_SPAN_STRING,
  NATTER_JSON_SPAN_INT,
  NATTER_JSON_SPAN_DOUBLE,
  NATTER_JSON_SPAN_BOOLEAN,
  NATTER_JSON_SPAN_NULL,
  NATTER_JSON_SPAN_OBJECT,
  NATTER_JSON_SPAN_ARRAY,
} NatterJsonSpanKind;

/**
 * NatterJsonMember:
 * @name: the raw text of the member name, between its quotes (not
 *   nul-terminated; points into the scanned line)
 * @name_length: its length in bytes
 * @name_escaped: whether @name holds a backslash escape
 * @value: the raw text of the value: between the quotes for a string,
 *   else the whole token or container
 * @value_length: its length in bytes
 * @kind: the value's kind
 * @escaped: for a string, whether @value holds a backslash escape (so
 *   the raw text is the string itself exactly when this is %FALSE)
 * @int_value: the value of an integer; 1 or 0 for a boolean
 *
 * One member of the top-level object of a line, as spans into the line.
 * The line is canonical, so two names are equal exactly when their raw
 * spans are.
 */
typedef struct
{
  const char         *name;
  gsize               name_length;
  gboolean            name_escaped;
  const char         *value;
  gsize               value_length;
  NatterJsonSpanKind  kind;
  gboolean            escaped;
  gint64              int_value;
} NatterJsonMember;

gboolean  natter_json_line_scan_object    (const char        *line,
                                           gsize              length,
                                           NatterJsonMember  *members,
                                           guint              max_members,
                                           guint             *n_members);
char     *natter_json_span_dup_string     (const char        *value,
                                           gsize              value_length);
gboolean  natter_json_span_walk           (const char        *value,
                                           gsize              value_length,
                                           NatterJsonMember  *items,
                                           guint              max_items,
                                           guint             *n_items);

/* Whether a span of a scanned line (@data, @length bytes) is exactly
 * @text (@text_length bytes); the fast scans compare names and values
 * so many times a line that this is inline. */
static inline gboolean
natter_json_span_equals (const char *data,
                         gsize       length,
                         const char *text,
                         gsize       text_length)
{
  return length == text_length && memcmp (data, text, length) == 0;
}

/* natter_json_span_equals() with a string literal, whose length is
 * known at compile time. */
#define natter_json_span_is(data, length, literal) \
  natter_json_span_equals ((data), (length), (literal), sizeof (literal) - 1)

G_END_DECLS
