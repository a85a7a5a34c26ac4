/* test-json.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The lossless-JSON check (docs/runtime.md §2, dsh-session.md).
 */

#include <math.h>
#include <string.h>

#include "natter-json-array-reader.h"
#include "natter-json.h"
#include "natter-test-support.h"

static void
test_canonical_round_trip (void)
{
  const char *lines[] = {
    "{\"type\":\"turn_created\",\"n\":1,\"f\":0.5,\"s\":\"é\\n\\\"\",\"a\":[true,false,null]}",
    "[]",
    "{}",
    "\"text\"",
    "{\"big\":9223372036854775807,\"neg\":-0.0}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = natter_json_from_line (lines[i], -1, &error);
      g_autofree char *again = NULL;

      g_assert_no_error (error);
      again = natter_json_to_line (node, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (again, ==, lines[i]);
    }
}

static void
assert_line_rejected (const char *line,
                      gssize      length,
                      int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = natter_json_from_line (line, length, &error);

  g_assert_null (node);
  g_assert_error (error, NATTER_STORE_ERROR, code);
}

/* RFC 8259 §7: every control character in a string or a member name is
 * written escaped (json-glib's generator writes U+001F raw), so that any
 * strict reader accepts the line; the line reads back exactly. */
static void
test_every_control_character_escaped (void)
{
  g_autoptr(GString) text = g_string_new ("<");
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;

  for (guint c = 0x01; c < 0x20; c++)
    g_string_append_c (text, (char) c);
  g_string_append (text, "\x7f\"\\/>");
  json_object_set_string_member (object, "text", text->str);
  json_object_set_int_member (object, text->str, 1);
  json_node_set_object (node, object);

  line = natter_json_to_line (node, NULL, &error);
  g_assert_no_error (error);
  for (const char *p = line; *p != '\0'; p++)
    if ((guchar) *p < 0x20)
      g_error ("The line holds the control character 0x%02x raw: %s", *p, line);
  g_assert_nonnull (strstr (line, "\\u001e\\u001f\\u007f"));

  back = natter_json_from_line (line, -1, &error);
  g_assert_no_error (error);
  g_assert_true (json_node_equal (back, node));
}

/* What leaves Natter other than log lines (request bodies, archives,
 * `--json` output) is as strict, pretty or not, and always UTF-8: bytes
 * of a string that are not UTF-8 (which a JsonNode can hold) are
 * written as U+FFFD rather than passed on. */
static void
test_to_text_is_strict (void)
{
  g_autoptr(JsonNode) node = natter_test_json ("{\"a\":[\"x\\u001fy\"],\"b\\u001f\":1.5}");
  g_autoptr(JsonNode) bad = json_node_new (JSON_NODE_VALUE);
  g_autofree char *compact = NULL;
  g_autofree char *pretty = NULL;
  g_autofree char *replaced = NULL;
  gsize length = 0;

  compact = natter_json_to_text (node, FALSE, &length);
  g_assert_cmpstr (compact, ==, "{\"a\":[\"x\\u001fy\"],\"b\\u001f\":1.5}");
  g_assert_cmpuint (length, ==, strlen (compact));
  pretty = natter_json_to_text (node, TRUE, NULL);
  g_assert_cmpstr (pretty, ==, "{\n  \"a\" : [\n    \"x\\u001fy\"\n  ],\n  \"b\\u001f\" : 1.5\n}");

  json_node_set_string (bad, "a\xff\x1f" "b\xc3");
  replaced = natter_json_to_text (bad, FALSE, &length);
  g_assert_cmpstr (replaced, ==, "\"a\xef\xbf\xbd\\u001fb\xef\xbf\xbd\"");
  g_assert_cmpuint (length, ==, strlen (replaced));
}

/* JSON from outside: what no stored string can hold (U+0000, a lone
 * surrogate) is read as U+FFFD, everything else as json-glib reads it
 * (docs/format.md §2, "Text a string cannot hold"). */
static void
test_load_external (void)
{
  static const struct { const char *json; const char *text; } cases[] = {
    { "\"a\\u0000b\"", "a\xef\xbf\xbd" "b" },
    { "\"\\ud800\"", "\xef\xbf\xbd" },
    { "\"\\udc00x\"", "\xef\xbf\xbd" "x" },
    { "\"\\ud800\\u0041\"", "\xef\xbf\xbd" "A" },
    { "\"\\ud800\\ud800\\udc00\"", "\xef\xbf\xbd\xf0\x90\x80\x80" },
    { "\"\\ud83d\\ude00\\uD83D\\uDE00\"", "\xf0\x9f\x98\x80\xf0\x9f\x98\x80" },
    { "\"\\\\u0000 \\\\ud800\"", "\\u0000 \\ud800" },
    { "\"\\u001f\\u00e9\"", "\x1f\xc3\xa9" },
    { "\"plain\"", "plain" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;

      g_test_message ("%s", cases[i].json);
      g_assert_true (natter_json_parser_load_external (parser, cases[i].json, -1, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (json_node_get_string (json_parser_get_root (parser)), ==, cases[i].text);
    }

  /* Not JSON stays not JSON. */
  {
    g_autoptr(JsonParser) parser = json_parser_new ();
    g_autoptr(GError) error = NULL;

    g_assert_false (natter_json_parser_load_external (parser, "\"\\u12\"", -1, &error));
    g_assert_nonnull (error);
  }
}

/* Lines written before U+001F was escaped hold it raw: they still read,
 * as the same value. A line that spells it both ways was written by no
 * version of Natter and is refused. */
static void
test_lines_written_raw_still_read (void)
{
  const char *raw = "{\"type\":\"title_changed\",\"title\":\"unit\x1fseparator\",\"k\x1f\":[\"\x1f\"]}";
  const char *escaped = "{\"type\":\"title_changed\",\"title\":\"unit\\u001fseparator\",\"k\\u001f\":[\"\\u001f\"]}";
  g_autoptr(JsonNode) old_node = NULL;
  g_autoptr(JsonNode) new_node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *again = NULL;

  old_node = natter_json_from_line (raw, -1, &error);
  g_assert_no_error (error);
  new_node = natter_json_from_line (escaped, -1, &error);
  g_assert_no_error (error);
  g_assert_true (json_node_equal (old_node, new_node));
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (old_node), "title"), ==,
                   "unit\x1fseparator");

  /* What is written now is the escaped form. */
  again = natter_json_to_line (old_node, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (again, ==, escaped);

  assert_line_rejected ("{\"a\":\"\x1f\\u001f\"}", -1, NATTER_STORE_ERROR_NOT_LOSSLESS);
  assert_line_rejected ("{\"a\x1f\":\"\\u001f\"}", -1, NATTER_STORE_ERROR_NOT_LOSSLESS);
}

static void
test_rejects_non_lossless_lines (void)
{
  /* NaN and Infinity are not JSON; 1e400 overflows to Infinity. */
  assert_line_rejected ("{\"n\":NaN}", -1, NATTER_STORE_ERROR_MALFORMED);
  assert_line_rejected ("{\"n\":Infinity}", -1, NATTER_STORE_ERROR_MALFORMED);
  assert_line_rejected ("{\"n\":1e400}", -1, NATTER_STORE_ERROR_NOT_LOSSLESS);
  /* Silently lost by a parse: duplicate members, huge integers, NUL escapes. */
  assert_line_rejected ("{\"a\":1,\"a\":2}", -1, NATTER_STORE_ERROR_NOT_LOSSLESS);
  assert_line_rejected ("{\"z\":123456789012345678901234}", -1, NATTER_STORE_ERROR_NOT_LOSSLESS);
  assert_line_rejected ("{\"s\":\"a\\u0000b\"}", -1, NATTER_STORE_ERROR_NOT_LOSSLESS);
  /* Not the canonical form Natter writes. */
  assert_line_rejected ("{\"a\": 1}", -1, NATTER_STORE_ERROR_NOT_LOSSLESS);
  /* Invalid UTF-8 and embedded NUL bytes. */
  assert_line_rejected ("{\"s\":\"\xff\xfe\"}", -1, NATTER_STORE_ERROR_MALFORMED);
  assert_line_rejected ("{\"s\":\"a\0b\"}", 10, NATTER_STORE_ERROR_MALFORMED);
  /* Not JSON at all, or nothing. */
  assert_line_rejected ("{\"a\":", -1, NATTER_STORE_ERROR_MALFORMED);
  assert_line_rejected ("", -1, NATTER_STORE_ERROR_MALFORMED);
}

static void
test_rejects_non_finite_values (void)
{
  g_autoptr(JsonNode) object = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonObject) o = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;

  json_object_set_double_member (o, "x", NAN);
  json_node_set_object (object, o);
  line = natter_json_to_line (object, NULL, &error);
  g_assert_null (line);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS);
  g_clear_error (&error);

  json_object_set_double_member (o, "x", INFINITY);
  g_assert_false (natter_json_check_lossless (object, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS);
}

/* json-glib 1.6 writes the double 1e22 as `1e+22.0`, which no JSON parser
 * reads; storing it would make the whole log unreadable for ever. */
static void
test_rejects_values_that_do_not_read_back (void)
{
  g_autoptr(JsonNode) object = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonObject) o = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *fine = NULL;

  json_object_set_double_member (o, "x", 1e22);
  json_node_set_object (object, o);
  line = natter_json_to_line (object, NULL, &error);
  g_assert_null (line);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS);
  g_clear_error (&error);

  json_object_set_double_member (o, "x", 1.5e-7);
  fine = natter_json_to_line (object, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fine);
}

static void
test_rejects_invalid_utf8_values (void)
{
  g_autoptr(JsonNode) object = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonObject) o = json_object_new ();
  g_autoptr(GError) error = NULL;

  json_object_set_string_member (o, "x", "bad \xc3\x28");
  json_node_set_object (object, o);
  g_assert_false (natter_json_check_lossless (object, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS);
  g_clear_error (&error);

  json_object_remove_member (o, "x");
  json_object_set_int_member (o, "bad \xff", 1);
  g_assert_false (natter_json_check_lossless (object, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS);
}

static void
test_deep_nesting_does_not_overflow (void)
{
  g_autoptr(GString) line = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  for (guint i = 0; i < 5000; i++)
    g_string_append_c (line, '[');
  for (guint i = 0; i < 5000; i++)
    g_string_append_c (line, ']');
  /* Either outcome is acceptable; what matters is a clean return. */
  node = natter_json_from_line (line->str, line->len, &error);
  g_assert_true ((node != NULL) != (error != NULL));
}

static void
test_schema_helpers (void)
{
  g_autoptr(JsonNode) node = natter_test_json ("{\"s\":\"x\",\"i\":3,\"f\":1.5,\"b\":true,"
                                               "\"o\":{},\"a\":[],\"n\":null,"
                                               "\"ts\":\"2026-11-30T09:14:03.123Z\","
                                               "\"bad_ts\":\"2026-11-30 09:14:03\"}");
  JsonObject *o = json_node_get_object (node);
  const char * const kinds[] = { "x", "y", NULL };
  g_autoptr(GError) error = NULL;
  const char *value = NULL;
  gint64 i = 0;
  gboolean b = FALSE;

  g_assert_cmpstr (natter_json_require_string (o, "s", &error), ==, "x");
  g_assert_null (natter_json_require_string (o, "i", &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
  g_clear_error (&error);
  g_assert_null (natter_json_require_string (o, "missing", &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
  g_clear_error (&error);

  g_assert_true (natter_json_optional_string (o, "missing", &value, &error));
  g_assert_null (value);
  g_assert_false (natter_json_optional_string (o, "n", &value, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
  g_clear_error (&error);

  g_assert_true (natter_json_require_int (o, "i", &i, &error));
  g_assert_cmpint (i, ==, 3);
  g_assert_false (natter_json_require_int (o, "f", &i, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
  g_clear_error (&error);

  g_assert_true (natter_json_require_boolean (o, "b", &b, &error));
  g_assert_true (b);
  g_assert_nonnull (natter_json_require_object (o, "o", &error));
  g_assert_null (natter_json_require_object (o, "a", &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
  g_clear_error (&error);
  g_assert_nonnull (natter_json_require_array (o, "a", &error));

  g_assert_cmpstr (natter_json_require_enum (o, "s", kinds, &error), ==, "x");
  g_assert_null (natter_json_require_enum (o, "ts", kinds, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
  g_clear_error (&error);

  g_assert_nonnull (natter_json_require_timestamp (o, "ts", &error));
  g_assert_null (natter_json_require_timestamp (o, "bad_ts", &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
}

static void
test_timestamps (void)
{
  g_assert_true (natter_json_is_timestamp ("2026-11-30T09:14:03Z"));
  g_assert_true (natter_json_is_timestamp ("2026-11-30T09:14:03.123Z"));
  g_assert_false (natter_json_is_timestamp ("2026-11-30T09:14:03.Z"));
  g_assert_false (natter_json_is_timestamp ("2026-11-30T09:14:03+01:00"));
  g_assert_false (natter_json_is_timestamp ("2026-13-45T09:14:03Z"));
  g_assert_false (natter_json_is_timestamp ("2026-11-30T25:14:03Z"));
  g_assert_false (natter_json_is_timestamp (""));
}

/* The hand-written check must accept exactly what it accepted when it
 * asked g_date_time_new_from_iso8601(): each verdict below is the one
 * GLib 2.74 gives. */
static void
test_timestamp_edges (void)
{
  const struct
  {
    const char *value;
    gboolean    valid;
  } cases[] = {
    /* Calendar: leap years by the Gregorian rule. */
    { "2024-02-29T00:00:00Z", TRUE },
    { "2023-02-29T00:00:00Z", FALSE },
    { "1900-02-29T00:00:00Z", FALSE },
    { "2000-02-29T00:00:00Z", TRUE },
    { "2023-02-28T00:00:00Z", TRUE },
    { "2024-04-30T00:00:00Z", TRUE },
    { "2024-04-31T00:00:00Z", FALSE },
    { "2024-12-31T00:00:00Z", TRUE },
    { "2024-01-32T00:00:00Z", FALSE },
    { "2024-13-01T00:00:00Z", FALSE },
    { "2024-00-01T00:00:00Z", FALSE },
    { "2024-01-00T00:00:00Z", FALSE },
    { "0000-01-01T00:00:00Z", FALSE },
    { "0001-01-01T00:00:00Z", TRUE },
    { "9999-12-31T23:59:59Z", TRUE },
    /* Time of day. */
    { "2024-01-01T23:59:59Z", TRUE },
    { "2024-01-01T24:00:00Z", FALSE },
    { "2024-01-01T23:60:00Z", FALSE },
    /* GLib reads leap seconds 60 and 61 as 59. */
    { "2024-12-31T23:59:60Z", TRUE },
    { "2024-12-31T23:59:61Z", TRUE },
    { "2024-12-31T23:59:60.5Z", TRUE },
    { "2024-12-31T23:59:62Z", FALSE },
    /* Fractions: at least one digit, within GLib's 64-bit accumulator,
     * and below 60 s once divided as a double. */
    { "2024-01-01T00:00:00.0Z", TRUE },
    { "2024-01-01T00:00:00.Z", FALSE },
    { "2024-01-01T00:00:00.999999999999Z", TRUE },
    { "2024-01-01T00:00:00.0000000000000000001Z", TRUE },
    { "2024-01-01T00:00:00.00000000000000000001Z", FALSE },
    { "2024-01-01T00:00:59.999999999999Z", TRUE },
    { "2024-01-01T00:00:59.99999999999999999Z", FALSE },
    { "2024-01-01T00:00:18.446744073709551615Z", TRUE },
    { "2024-01-01T00:00:18.446744073709551616Z", FALSE },
    /* Shape. */
    { "2024-01-01T00:00:00z", FALSE },
    { "2024-01-01t00:00:00Z", FALSE },
    { "2024-01-01T00:00:00,5Z", FALSE },
    { "2024-01-01T00:00:0aZ", FALSE },
    { "2024-01-01T-1:00:00Z", FALSE },
    { "2024-01-01T00:00:+1Z", FALSE },
    { " 024-01-01T00:00:00Z", FALSE },
    { "+024-01-01T00:00:00Z", FALSE },
    { "2024-01-01T00:00:00Z ", FALSE },
    { "2024-01-01T00:00:00", FALSE },
    { "2024-01-01", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s", cases[i].value);
      g_assert_cmpint (natter_json_is_timestamp (cases[i].value), ==, cases[i].valid);
    }
  g_assert_false (natter_json_is_timestamp (NULL));
}

/* A document of @n nested arrays around @inner, with @prefix inside the
 * outermost one. */
static char *
nested (guint       n,
        const char *prefix,
        const char *inner)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      g_string_append_c (text, '[');
      if (i == 0)
        g_string_append (text, prefix);
    }
  g_string_append (text, inner);
  for (guint i = 0; i < n; i++)
    g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

/* JSON from outside (mcp.json, an archive, a body, a server's message)
 * nested 100,000 deep is refused before json-glib's recursive parser
 * sees it; the limit is the log reader's, 512, counted the same way, and
 * the 8 levels an archive may wrap stored values in. */
static void
test_parse_refuses_deep_documents (void)
{
  g_autofree char *hostile = nested (100000, "", "");
  g_autofree char *at_limit = nested (NATTER_JSON_DOCUMENT_MAX_DEPTH, "", "1");
  g_autofree char *past_limit = nested (NATTER_JSON_DOCUMENT_MAX_DEPTH + 1, "", "1");
  g_autofree char *in_strings = g_strnfill (100000, '[');
  g_autofree char *quoted = g_strdup_printf ("{\"text\": \"%s\\\"%s\"}", in_strings, in_strings);
  g_autoptr(GString) objects = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  node = natter_json_parse (hostile, -1, &error);
  g_assert_null (node);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_TOO_DEEP);
  g_assert_nonnull (strstr (error->message, "deeper than 520 levels"));
  g_clear_error (&error);

  for (guint i = 0; i < 100000; i++)
    g_string_append (objects, "{\"a\":");
  g_assert_false (natter_json_parser_load (parser, objects->str, objects->len, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_TOO_DEEP);
  g_clear_error (&error);

  node = natter_json_parse (at_limit, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  g_clear_pointer (&node, json_node_unref);
  node = natter_json_parse (past_limit, -1, &error);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_TOO_DEEP);
  g_clear_error (&error);

  /* Brackets in strings, escaped quotes among them, are text. */
  node = natter_json_parse (quoted, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (json_object_get_string_member (json_node_get_object (node), "text")), ==, 200001);
}

/* json-glib also reads single-quoted strings and comments, and would
 * not count the brackets it hid in them: a document whose `'` or `/`
 * outside a string could hide a deeper one from the count is refused as
 * not JSON, whatever follows; the stored-line reader refuses it too. A
 * syntax error is json-glib's own. */
static void
test_parse_refuses_lenient_documents (void)
{
  g_autofree char *single = nested (100000, "'\"', ", "");
  g_autofree char *comment = nested (100000, "/*\"*/ ", "");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  node = natter_json_parse (single, -1, &error);
  g_assert_null (node);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED);
  g_assert_cmpstr (error->message, ==, "1:2: “'” outside a string is not JSON");
  g_clear_error (&error);
  node = natter_json_parse (comment, -1, &error);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED);
  g_clear_error (&error);
  node = natter_json_parse ("{\n  \"a\": 1,\n  /* note */ \"b\": 2}", -1, &error);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED);
  g_assert_cmpstr (error->message, ==, "3:3: “/” outside a string is not JSON");
  g_clear_error (&error);

  assert_line_rejected (single, -1, NATTER_STORE_ERROR_NOT_LOSSLESS);
  assert_line_rejected (comment, -1, NATTER_STORE_ERROR_NOT_LOSSLESS);

  /* Inside strings, both are text; a syntax error is json-glib's. */
  node = natter_json_parse ("{\"url\": \"https://example.com/it's\"}", -1, &error);
  g_assert_no_error (error);
  g_clear_pointer (&node, json_node_unref);
  node = natter_json_parse ("{\"a\": }", -1, &error);
  g_assert_nonnull (error);
  g_assert_true (error->domain == JSON_PARSER_ERROR);
  g_clear_error (&error);
  node = natter_json_parse ("", -1, &error);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED);
}

/* An export of many conversations is read one at a time: when the first
 * element comes, the reader has taken no more of the stream than that
 * element and the chunk it ends in, whatever the file's size; so an
 * import needs the memory of one conversation, not of the document. */
static void
test_array_reader_streams (void)
{
  const guint n = 160;
  g_autofree char *filler = g_strnfill (60000, 'w');
  g_autoptr(GString) document = g_string_new ("[");
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(NatterJsonArrayReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  guint read = 0;

  for (guint i = 0; i < n; i++)
    g_string_append_printf (document, "%s{\"n\":%u,\"text\":\"%s\"}", i > 0 ? "," : "", i, filler);
  g_string_append_c (document, ']');
  stream = g_memory_input_stream_new_from_data (g_memdup2 (document->str, document->len), document->len, g_free);
  reader = natter_json_array_reader_new (stream, 1000000);

  for (;;)
    {
      g_autoptr(JsonNode) element = NULL;

      g_assert_true (natter_json_array_reader_next (reader, &element, NULL, &error));
      g_assert_no_error (error);
      if (element == NULL)
        break;
      g_assert_cmpint (json_object_get_int_member (json_node_get_object (element), "n"), ==, read);
      /* At most this element and one more of it, in chunks of 64 KiB. */
      g_assert_cmpint (g_seekable_tell (G_SEEKABLE (stream)), <=, (read + 2) * 60100 + 2 * 64 * 1024);
      read++;
    }
  g_assert_cmpuint (read, ==, n);
  g_assert_cmpint (g_seekable_tell (G_SEEKABLE (stream)), ==, document->len);
}

/* Output for people and scripts spells each double the shortest way that
 * reads back the same; integers, strings that look like numbers and
 * member names stay as they are. */
static void
test_output_text_shortest_doubles (void)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *pretty = NULL;
  JsonObject *object = json_object_new ();

  json_object_set_double_member (object, "t", 0.3);
  json_object_set_double_member (object, "one", 1.0);
  json_object_set_double_member (object, "tiny", -1.5e-300);
  json_object_set_double_member (object, "big", 1e22);
  json_object_set_double_member (object, "pi", 3.141592653589793);
  json_object_set_int_member (object, "n", -12345678901234);
  json_object_set_string_member (object, "s", "0.29999999999999999 \"1.0\" e5");
  node = json_node_init_object (json_node_alloc (), object);
  json_object_unref (object);

  text = natter_json_to_output_text (node, FALSE);
  g_assert_cmpstr (text, ==, "{\"t\":0.3,\"one\":1.0,\"tiny\":-1.5e-300,\"big\":1e+22,\"pi\":3.141592653589793,"
                   "\"n\":-12345678901234,\"s\":\"0.29999999999999999 \\\"1.0\\\" e5\"}");
  pretty = natter_json_to_output_text (node, TRUE);
  g_assert_nonnull (strstr (pretty, "\"t\" : 0.3,\n"));
  /* Each reads back as the same value. */
  g_clear_pointer (&node, json_node_unref);
  node = json_from_string (text, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (node), "t"), ==, 0.3);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (node), "big"), ==, 1e22);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (node), "pi"), ==, 3.141592653589793);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/canonical-round-trip", test_canonical_round_trip);
  g_test_add_func ("/json/output-text-shortest-doubles", test_output_text_shortest_doubles);
  g_test_add_func ("/json/every-control-character-escaped", test_every_control_character_escaped);
  g_test_add_func ("/json/lines-written-raw-still-read", test_lines_written_raw_still_read);
  g_test_add_func ("/json/to-text-is-strict", test_to_text_is_strict);
  g_test_add_func ("/json/load-external", test_load_external);
  g_test_add_func ("/json/rejects-non-lossless-lines", test_rejects_non_lossless_lines);
  g_test_add_func ("/json/rejects-non-finite-values", test_rejects_non_finite_values);
  g_test_add_func ("/json/rejects-invalid-utf8-values", test_rejects_invalid_utf8_values);
  g_test_add_func ("/json/rejects-values-that-do-not-read-back", test_rejects_values_that_do_not_read_back);
  g_test_add_func ("/json/deep-nesting", test_deep_nesting_does_not_overflow);
  g_test_add_func ("/json/parse/deep-documents", test_parse_refuses_deep_documents);
  g_test_add_func ("/json/parse/lenient-documents", test_parse_refuses_lenient_documents);
  g_test_add_func ("/json/schema-helpers", test_schema_helpers);
  g_test_add_func ("/json/timestamps", test_timestamps);
  g_test_add_func ("/json/timestamp-edges", test_timestamp_edges);
  g_test_add_func ("/json/array-reader-streams", test_array_reader_streams);

  return g_test_run ();
}
