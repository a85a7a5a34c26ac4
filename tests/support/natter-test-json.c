/* natter-test-json.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * JSON in tests: literals, equality, session event lines checked against
 * the schema, serialized event lists, and the damage a differential test
 * does to a log.
 */

#include <string.h>

#include "natter-json.h"
#include "natter-test-support.h"

#include "natter-session-reducer.h"
#include "natter-session-schema.h"

JsonNode *
natter_test_json (const char *literal)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (literal, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

/* Checks one session event line against the session schema: valid when
 * @code is 0, else refused with that %NATTER_STORE_ERROR code. */
void
natter_test_assert_session_event (const char *line,
                                  const char *session_id,
                                  int         code)
{
  g_autoptr(JsonNode) event = natter_test_json (line);
  g_autoptr(GError) error = NULL;
  gboolean ok = natter_session_event_validate (json_node_get_object (event), session_id, &error);

  g_test_message ("%s", line);
  if (code == 0)
    {
      g_assert_no_error (error);
      g_assert_true (ok);
    }
  else
    {
      g_assert_false (ok);
      g_assert_error (error, NATTER_STORE_ERROR, code);
    }
}

GPtrArray *
natter_test_json_array (const char *first_literal,
                        ...)
{
  GPtrArray *array = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  va_list args;

  va_start (args, first_literal);
  for (const char *literal = first_literal; literal != NULL; literal = va_arg (args, const char *))
    g_ptr_array_add (array, natter_test_json (literal));
  va_end (args);
  return array;
}

/**
 * natter_test_assert_json_equal:
 * @actual: what the code under test made
 * @expected_literal: what it should be, a JSON literal
 *
 * Fails the test, printing both documents, unless @actual equals
 * @expected_literal as JSON (json_node_equal(): members in any order,
 * 1 and 1.0 differ).
 */
void
natter_test_assert_json_equal (JsonNode   *actual,
                               const char *expected_literal)
{
  g_autoptr(JsonNode) expected = natter_test_json (expected_literal);

  if (!json_node_equal (actual, expected))
    {
      g_autofree char *a = json_to_string (actual, TRUE);
      g_autofree char *e = json_to_string (expected, TRUE);

      g_error ("JSON differs.\nactual:\n%s\nexpected:\n%s", a, e);
    }
}

/**
 * natter_test_serialize_events:
 * @events: (element-type JsonObject): events
 *
 * Returns: (transfer full): the events as the lines of a log, each in
 *   its canonical form (natter_json_to_line()) and ended by a newline
 */
GString *
natter_test_serialize_events (GPtrArray *events)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      g_autofree char *line = NULL;
      gsize length = 0;

      json_node_set_object (node, g_ptr_array_index (events, i));
      line = natter_json_to_line (node, &length, NULL);
      g_assert_nonnull (line);
      g_string_append_len (text, line, length);
      g_string_append_c (text, '\n');
    }
  return text;
}

/**
 * natter_test_mutated_rounds:
 *
 * Returns: how many damaged logs a differential test of a tree-free read
 *   against the full read tries: a few thousand, ten times more with
 *   `-m slow`
 */
guint
natter_test_mutated_rounds (void)
{
  return g_test_slow () ? 40000 : 6000;
}

/**
 * natter_test_mutate_log:
 * @rand: the test's random source
 * @events: (element-type JsonObject): round @n's valid events, changed
 *   in place
 * @mutate_event: the test's schema-level change to one event
 * @n: the round
 *
 * One round's input of a differential test: @events damaged at the
 * schema level (one or two calls of @mutate_event), at the byte level
 * (natter_test_mutate_bytes()), both, or not at all, in equal shares.
 *
 * Returns: (transfer full): the log's lines
 */
GString *
natter_test_mutate_log (GRand                     *rand,
                        GPtrArray                 *events,
                        NatterTestMutateEventFunc  mutate_event,
                        guint                      n)
{
  /* 0: schema-level changes, 1: byte-level, 2: both, 3: none. */
  guint kind = g_rand_int_range (rand, 0, 4);
  GString *text;

  if (kind == 0 || kind == 2)
    for (guint i = g_rand_int_range (rand, 1, 3); i > 0; i--)
      mutate_event (rand, events, n);
  text = natter_test_serialize_events (events);
  if (kind == 1 || kind == 2)
    natter_test_mutate_bytes (rand, text);
  return text;
}

/**
 * natter_test_mutate_bytes:
 * @rand: the test's random source
 * @text: the lines of a log, changed in place
 *
 * One byte-level change to a log, for the line grammar and the file
 * framing: a byte replaced, inserted or removed, the file cut short or
 * emptied, its last newline dropped or a blank line added, a member
 * repeated, a valid but non-canonical spelling, a number made longer.
 * For the differential tests of a tree-free read against the full one.
 */
void
natter_test_mutate_bytes (GRand   *rand,
                          GString *text)
{
  static const char interesting[] = "\"\\,:{}[]01-. aeE\n\x7f\x1f";
  guint pos = text->len > 0 ? g_rand_int_range (rand, 0, text->len) : 0;

  switch (g_rand_int_range (rand, 0, 11))
    {
    case 0:
      if (text->len > 0)
        text->str[pos] = interesting[g_rand_int_range (rand, 0, sizeof interesting - 1)];
      break;
    case 1:
      if (text->len > 0)
        text->str[pos] = (char) g_rand_int_range (rand, 0, 256);
      break;
    case 2: g_string_insert_c (text, pos, ' '); break;
    case 3:
      if (text->len > 0)
        g_string_erase (text, pos, 1);
      break;
    case 4: g_string_truncate (text, pos); break;
    case 5:
      if (text->len > 0 && text->str[text->len - 1] == '\n')
        g_string_truncate (text, text->len - 1);
      break;
    case 6: g_string_truncate (text, 0); break;
    case 7: g_string_append (text, "\n"); break;
    case 8:
      {
        /* The same member twice. */
        const char *ts = strstr (text->str, "\"ts\":");

        if (ts != NULL)
          g_string_insert (text, ts - text->str, "\"ts\":\"2024-01-01T00:00:00Z\",");
      }
      break;
    case 9:
      {
        /* A valid but non-canonical spelling. */
        const char *escape = strstr (text->str, "\\n");

        if (escape != NULL)
          {
            gsize at = escape - text->str;

            g_string_erase (text, at, 2);
            g_string_insert (text, at, "\\u000a");
          }
        else
          g_string_insert (text, pos, "\\/");
      }
      break;
    default:
      {
        /* A count or an index one digit longer: another value, or a
         * leading zero. */
        const char *number = strstr (text->str + pos, "\":1");

        if (number == NULL)
          number = strstr (text->str, "\":0");
        if (number != NULL)
          g_string_insert_c (text, number - text->str + 3, '0');
      }
      break;
    }
}
