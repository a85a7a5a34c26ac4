/* test-json-line.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fast strict line read (natter-json-line.c) against the reference it
 * replaced (json-glib's parser, regenerate, compare): same lines
 * accepted, same trees built, same error codes for the rest
 * (docs/runtime.md §2, dsh-session.md). Random but deterministic: every
 * random case comes from one fixed seed.
 */

#include <float.h>
#include <math.h>
#include <string.h>

#include "natter-json-private.h"
#include "natter-test-support.h"

#define SEED 0x6e617474

/* Stricter than json_node_equal(), which treats 1 and 1.0, and 0.0 and
 * -0.0, as equal: same shape, same member order, same value types, same
 * bits, and sealed alike. */
static gboolean
same_tree (JsonNode *a,
           JsonNode *b)
{
  if (JSON_NODE_TYPE (a) != JSON_NODE_TYPE (b) ||
      json_node_is_immutable (a) != json_node_is_immutable (b))
    return FALSE;

  switch (JSON_NODE_TYPE (a))
    {
    case JSON_NODE_OBJECT:
      {
        g_autoptr(GList) names_a = json_object_get_members (json_node_get_object (a));
        g_autoptr(GList) names_b = json_object_get_members (json_node_get_object (b));
        GList *la = names_a, *lb = names_b;

        for (; la != NULL && lb != NULL; la = la->next, lb = lb->next)
          if (strcmp (la->data, lb->data) != 0 ||
              !same_tree (json_object_get_member (json_node_get_object (a), la->data),
                          json_object_get_member (json_node_get_object (b), lb->data)))
            return FALSE;
        return la == NULL && lb == NULL;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *array_a = json_node_get_array (a);
        JsonArray *array_b = json_node_get_array (b);
        guint n = json_array_get_length (array_a);

        if (n != json_array_get_length (array_b))
          return FALSE;
        for (guint i = 0; i < n; i++)
          if (!same_tree (json_array_get_element (array_a, i), json_array_get_element (array_b, i)))
            return FALSE;
        return TRUE;
      }

    case JSON_NODE_VALUE:
      {
        GType type = json_node_get_value_type (a);

        if (type != json_node_get_value_type (b))
          return FALSE;
        if (type == G_TYPE_INT64)
          return json_node_get_int (a) == json_node_get_int (b);
        if (type == G_TYPE_BOOLEAN)
          return json_node_get_boolean (a) == json_node_get_boolean (b);
        if (type == G_TYPE_STRING)
          return g_strcmp0 (json_node_get_string (a), json_node_get_string (b)) == 0;
        if (type == G_TYPE_DOUBLE)
          {
            double da = json_node_get_double (a), db = json_node_get_double (b);

            return memcmp (&da, &db, sizeof da) == 0;
          }
        return FALSE;
      }

    case JSON_NODE_NULL:
    default:
      return TRUE;
    }
}

static guint n_accepted;
static guint n_rejected;

/* The core assertion: the fast parser, the public entry point and the
 * reference agree on @line — accepted with the same tree, or refused
 * (and then with the reference's error code). */
static void
assert_agree (const char *line,
              gsize       length)
{
  g_autoptr(GError) reference_error = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) reference = natter_json_from_line_reference (line, length, &reference_error);
  g_autoptr(JsonNode) fast = natter_json_line_parse (line, length, NULL);
  g_autoptr(JsonNode) node = natter_json_from_line (line, length, &error);

  if ((reference != NULL) != (fast != NULL) ||
      (reference != NULL && (!same_tree (reference, fast) || !same_tree (reference, node) ||
                             !json_node_equal (reference, fast))))
    {
      g_autofree char *copy = g_strndup (line, length);
      g_autofree char *shown = g_strescape (copy, NULL);

      g_test_message ("disagreement on line (%zu bytes): %s; reference says %s",
                      length, shown, reference_error ? reference_error->message : "accept");
      g_test_fail ();
      return;
    }

  if (reference != NULL)
    {
      n_accepted++;
      g_assert_no_error (error);
    }
  else
    {
      n_rejected++;
      g_assert_null (node);
      g_assert_error (error, NATTER_STORE_ERROR, reference_error->code);
    }
}

static void
assert_agree_str (const char *line)
{
  assert_agree (line, strlen (line));
}

/* Random values ------------------------------------------------------- */

static const char * const string_pieces[] = {
  "a", "Z", "9", " ", "\"", "\\", "/", "\x7f", "\x1f", "'", "{", "}", "[", "]", ",", ":",
  "u", "\\u0041", "é", "€", "😀", "\xe2\x80\xa8", "ß", "true", "-0", "1e5",
};

static char *
random_string (GRand *rand)
{
  GString *s = g_string_new (NULL);
  guint n = g_rand_int_range (rand, 0, 12);

  for (guint i = 0; i < n; i++)
    {
      if (g_rand_int_range (rand, 0, 4) == 0)
        g_string_append_c (s, (char) g_rand_int_range (rand, 0x01, 0x20));
      else
        g_string_append (s, string_pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (string_pieces))]);
    }
  return g_string_free (s, FALSE);
}

static gint64
random_int (GRand *rand)
{
  switch (g_rand_int_range (rand, 0, 8))
    {
    case 0: return G_MAXINT64;
    case 1: return G_MININT64;
    case 2: return 0;
    case 3: return -1;
    case 4: return g_rand_int_range (rand, -1000, 1000);
    default:
      return (gint64) (((guint64) g_rand_int (rand) << 32) | g_rand_int (rand));
    }
}

static double
random_double (GRand *rand)
{
  switch (g_rand_int_range (rand, 0, 14))
    {
    case 0: return -0.0;
    case 1: return 0.0;
    case 2: return 5e-324;
    case 3: return DBL_MAX;
    case 4: return -DBL_MIN;
    case 5: return 0.1;
    case 6: return g_rand_int_range (rand, -100000, 100000);           /* integral */
    case 7: return pow (10, g_rand_int_range (rand, 14, 18));           /* 1e+17.0 */
    case 8: return g_rand_double_range (rand, -1e-5, 1e-5);
    case 9: return g_rand_double_range (rand, -1e6, 1e6);
    default:
      {
        guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
        double value;

        memcpy (&value, &bits, sizeof value);
        return isfinite (value) ? value : 1.5;
      }
    }
}

static JsonNode *
random_value (GRand *rand,
              guint  depth)
{
  guint kind = g_rand_int_range (rand, 0, depth >= 5 ? 6 : 9);
  JsonNode *node = json_node_alloc ();

  switch (kind)
    {
    case 0: return json_node_init_null (node);
    case 1: return json_node_init_boolean (node, g_rand_boolean (rand));
    case 2: return json_node_init_int (node, random_int (rand));
    case 3: return json_node_init_double (node, random_double (rand));
    case 4:
    case 5:
      {
        g_autofree char *s = random_string (rand);

        return json_node_init_string (node, s);
      }
    case 6:
      {
        JsonArray *array = json_array_new ();
        guint n = g_rand_int_range (rand, 0, 5);

        for (guint i = 0; i < n; i++)
          json_array_add_element (array, random_value (rand, depth + 1));
        json_node_init (node, JSON_NODE_ARRAY);
        json_node_take_array (node, array);
        return node;
      }
    default:
      {
        JsonObject *object = json_object_new ();
        guint n = g_rand_int_range (rand, 0, 6);

        for (guint i = 0; i < n; i++)
          {
            g_autofree char *name = random_string (rand);

            json_object_set_member (object, name, random_value (rand, depth + 1));
          }
        json_node_init (node, JSON_NODE_OBJECT);
        json_node_take_object (node, object);
        return node;
      }
    }
}

static char *
random_line (GRand *rand)
{
  g_autoptr(JsonNode) value = random_value (rand, 0);
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  /* json-glib's own output, unparsable spellings (1e+17.0) included: the
   * readers must agree on those too, whereas natter_json_to_line() would
   * refuse to produce them. */
  json_generator_set_root (generator, value);
  return json_generator_to_data (generator, NULL);
}

/* Tests ----------------------------------------------------------------- */

static void
test_generated_lines (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (SEED);
  guint accepted_before = n_accepted;

  for (guint i = 0; i < 20000; i++)
    {
      g_autofree char *line = random_line (rand);

      g_assert_nonnull (line);
      assert_agree_str (line);
    }
  /* Nearly every generated line reads back; the rest are the doubles the
   * generator spells unparsably (1e+17.0). */
  g_assert_cmpuint (n_accepted - accepted_before, >, 18000);
}

static const char mutation_bytes[] = "\"\\/{}[],: 0123456789-+.eEtfnul\x1f\x7f\x01\t";

static char *
mutate (GRand      *rand,
        const char *line,
        gsize      *length)
{
  GString *s = g_string_new (line);
  gsize at = s->len > 0 ? g_rand_int_range (rand, 0, s->len) : 0;

  switch (g_rand_int_range (rand, 0, 12))
    {
    case 0:
      g_string_insert_c (s, at, ' ');
      break;
    case 1:
      if (s->len > 0)
        s->str[at] = (char) g_rand_int_range (rand, 1, 256);
      break;
    case 2:
      if (s->len > 0)
        s->str[at] = mutation_bytes[g_rand_int_range (rand, 0, sizeof mutation_bytes - 1)];
      break;
    case 3:
      g_string_insert_c (s, at, mutation_bytes[g_rand_int_range (rand, 0, sizeof mutation_bytes - 1)]);
      break;
    case 4:
      if (s->len > 0)
        g_string_erase (s, at, 1);
      break;
    case 5:
      g_string_truncate (s, at);
      break;
    case 6:
      /* More digits, or a zero in front, next to a digit. */
      for (gsize i = at; i < s->len; i++)
        if (g_ascii_isdigit (s->str[i]))
          {
            if (g_rand_boolean (rand))
              g_string_insert_c (s, i, g_rand_boolean (rand) ? '0' : '9');
            else
              g_string_insert (s, i + 1, g_rand_boolean (rand) ? ".0" : "e0");
            break;
          }
      break;
    case 7:
      /* Escape forms: the same byte spelled another way. */
      {
        static const char * const forms[][2] = {
          { "\\n", "\\u000a" }, { "\\u0001", "\\u0001" }, { "\\u001b", "\\u001B" },
          { "\\\"", "\\u0022" }, { "/", "\\/" }, { "é", "\\u00e9" }, { "\\\\", "\\u005c" },
          { "\\u007f", "\x7f" }, { "\x1f", "\\u001f" }, { "\\t", "\t" }, { "😀", "\\ud83d\\ude00" },
        };
        guint f = g_rand_int_range (rand, 0, G_N_ELEMENTS (forms));
        char *hit = strstr (s->str + at, forms[f][0]);

        if (hit == NULL)
          hit = strstr (s->str, forms[f][0]);
        if (hit != NULL)
          {
            gsize pos = hit - s->str;

            g_string_erase (s, pos, strlen (forms[f][0]));
            g_string_insert (s, pos, forms[f][1]);
          }
      }
      break;
    case 8:
      /* Duplicate the first member of the root object. */
      if (s->len > 2 && s->str[0] == '{' && s->str[1] == '"')
        {
          g_autoptr(JsonNode) node = natter_json_from_line_reference (line, -1, NULL);
          JsonObject *object = node ? json_node_get_object (node) : NULL;
          g_autoptr(GList) names = object ? json_object_get_members (object) : NULL;

          if (names != NULL)
            {
              g_autoptr(JsonNode) name = json_node_init_string (json_node_alloc (), names->data);
              g_autofree char *name_line = natter_json_to_line (name, NULL, NULL);
              g_autofree char *value_line =
                natter_json_to_line (json_object_get_member (object, names->data), NULL, NULL);
              g_autofree char *member = g_strconcat (name_line, ":", value_line, ",", NULL);

              g_string_insert (s, 1, member);
            }
        }
      break;
    case 9:
      /* Swap two adjacent bytes. */
      if (at + 1 < s->len)
        {
          char c = s->str[at];

          s->str[at] = s->str[at + 1];
          s->str[at + 1] = c;
        }
      break;
    case 10:
      g_string_append (s, g_rand_boolean (rand) ? "\n" : ",1");
      break;
    default:
      /* Signs and literals. */
      {
        static const char * const swaps[][2] = {
          { ":0", ":-0" }, { ":-", ":" }, { "true", "True" }, { "null", "nul" }, { ".0", "" },
          { ":1", ":+1" }, { "e+", "e" }, { "e-", "E-" }, { "[]", "[,]" }, { "{}", "{,}" },
        };
        guint f = g_rand_int_range (rand, 0, G_N_ELEMENTS (swaps));
        char *hit = strstr (s->str, swaps[f][0]);

        if (hit != NULL)
          {
            gsize pos = hit - s->str;

            g_string_erase (s, pos, strlen (swaps[f][0]));
            g_string_insert (s, pos, swaps[f][1]);
          }
      }
      break;
    }

  *length = s->len;
  return g_string_free (s, FALSE);
}

static void
test_mutated_lines (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (SEED + 1);
  guint accepted_before = n_accepted, rejected_before = n_rejected;

  for (guint i = 0; i < 5000; i++)
    {
      g_autofree char *line = random_line (rand);
      g_autofree char *current = g_strdup (line);

      /* Up to three mutations stacked, each checked. */
      for (guint m = 0; m < 3; m++)
        {
          gsize length = 0;
          char *next = mutate (rand, current, &length);

          assert_agree (next, length);
          g_free (current);
          current = next;
          if (strlen (current) != length)
            break;
        }
    }
  /* Both outcomes are well exercised. */
  g_assert_cmpuint (n_rejected - rejected_before, >, 5000);
  g_assert_cmpuint (n_accepted - accepted_before, >, 500);
}

static void
test_every_short_line (void)
{
  char line[3];

  /* Every line of one and two bytes, and three bytes over JSON's alphabet. */
  for (guint a = 0; a < 256; a++)
    {
      line[0] = (char) a;
      assert_agree (line, 1);
      for (guint b = 0; b < 256; b++)
        {
          line[1] = (char) b;
          assert_agree (line, 2);
        }
    }
  for (const char *a = mutation_bytes; *a; a++)
    for (const char *b = mutation_bytes; *b; b++)
      for (const char *c = mutation_bytes; *c; c++)
        {
          line[0] = *a;
          line[1] = *b;
          line[2] = *c;
          assert_agree (line, 3);
        }
}

static void
test_every_string_byte_and_escape (void)
{
  for (guint c = 1; c < 256; c++)
    {
      char raw[] = { '"', (char) c, '"', 0 };
      char short_escape[] = { '"', '\\', (char) c, '"', 0 };
      g_autofree char *lower = g_strdup_printf ("\"\\u00%02x\"", c);
      g_autofree char *upper = g_strdup_printf ("\"\\u00%02X\"", c);
      g_autofree char *wide = g_strdup_printf ("\"\\u%04x\"", c << 4);

      assert_agree_str (raw);
      assert_agree_str (short_escape);
      assert_agree_str (lower);
      assert_agree_str (upper);
      assert_agree_str (wide);
    }
  /* The generator's own output for every byte reads back. */
  for (guint c = 1; c < 128; c++)
    {
      char text[] = { 'x', (char) c, 'y', 0 };
      g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), text);
      g_autofree char *line = natter_json_to_line (node, NULL, NULL);
      g_autoptr(JsonNode) back = natter_json_line_parse (line, strlen (line), NULL);

      g_assert_nonnull (back);
      g_assert_cmpstr (json_node_get_string (back), ==, text);
    }
}

typedef enum
{
  ACCEPT = -1,
  MALFORMED = NATTER_STORE_ERROR_MALFORMED,
  NOT_LOSSLESS = NATTER_STORE_ERROR_NOT_LOSSLESS,
} Outcome;

static void
test_edge_cases (void)
{
  static const struct
  {
    const char *line;
    Outcome     outcome;
  } cases[] = {
    { "{}", ACCEPT }, { "[]", ACCEPT }, { "null", ACCEPT }, { "true", ACCEPT }, { "false", ACCEPT },
    { "0", ACCEPT }, { "-1", ACCEPT }, { "\"\"", ACCEPT }, { "{\"\":1}", ACCEPT },
    { "9223372036854775807", ACCEPT }, { "-9223372036854775808", ACCEPT },
    { "9223372036854775808", NOT_LOSSLESS }, { "-9223372036854775809", NOT_LOSSLESS },
    { "18446744073709551616", NOT_LOSSLESS }, { "00", NOT_LOSSLESS }, { "01", NOT_LOSSLESS },
    { "-0", NOT_LOSSLESS }, { "-0.0", ACCEPT }, { "0.0", ACCEPT }, { "1.0", ACCEPT },
    { "1", ACCEPT }, { "1.5", ACCEPT }, { "1.50", NOT_LOSSLESS }, { "1e5", NOT_LOSSLESS },
    { "100000.0", ACCEPT }, { "0.10000000000000001", ACCEPT }, { "0.1", NOT_LOSSLESS },
    { "1.0000000000000001e-05", ACCEPT }, { "1.0000000000000001E-05", NOT_LOSSLESS },
    { "4.9406564584124654e-324", ACCEPT }, { "1.7976931348623157e+308", ACCEPT },
    { "1e+22", NOT_LOSSLESS }, { "1e+22.0", MALFORMED }, { "1e400", NOT_LOSSLESS },
    { "-1e400", NOT_LOSSLESS }, { "1.", NOT_LOSSLESS }, { ".5", NOT_LOSSLESS }, { "1.5e", MALFORMED },
    { "0x10", NOT_LOSSLESS }, { "- 1", NOT_LOSSLESS }, { "-", MALFORMED }, { "+1", MALFORMED },
    { "NaN", MALFORMED }, { "Infinity", MALFORMED }, { "nul", MALFORMED }, { "True", MALFORMED },
    { "", MALFORMED }, { " ", MALFORMED }, { "{} ", NOT_LOSSLESS }, { " {}", NOT_LOSSLESS },
    { "{}{}", NOT_LOSSLESS }, { "[1,]", MALFORMED }, { "{\"a\":1,}", MALFORMED }, { "[1 2]", MALFORMED },
    { "{\"a\":1,\"a\":1}", NOT_LOSSLESS }, { "{\"a\":{\"b\":1,\"b\":2}}", NOT_LOSSLESS },
    { "[{\"a\":1},{\"a\":1}]", ACCEPT }, { "{\"b\":1,\"a\":2}", ACCEPT },
    { "'a'", NOT_LOSSLESS }, { "/*c*/1", NOT_LOSSLESS }, { "{a:1}", MALFORMED },
    { "\"\\/\"", NOT_LOSSLESS }, { "\"/\"", ACCEPT }, { "\"\\u0000\"", NOT_LOSSLESS },
    { "\"\\u00e9\"", NOT_LOSSLESS }, { "\"é\"", ACCEPT }, { "\"\\ud83d\\ude00\"", NOT_LOSSLESS },
    /* U+001F is written escaped; lines of earlier versions hold it raw
     * and still read, but no line spells it both ways. */
    { "\"\x1f\"", ACCEPT }, { "\"\\u001f\"", ACCEPT }, { "\"\\u001e\"", ACCEPT },
    { "\"\\u001F\"", NOT_LOSSLESS }, { "\"\x1f\\u001f\"", NOT_LOSSLESS },
    { "[\"\\u001f\",\"\x1f\"]", NOT_LOSSLESS }, { "{\"\x1f\":\"\\u001f\"}", NOT_LOSSLESS },
    { "{\"\x1f\":\"\x1f\",\"a\":[\"x\x1f\"]}", ACCEPT },
    { "{\"\\u001f\":1,\"\x1f\":1}", NOT_LOSSLESS },
    { "\"\\u001E\"", NOT_LOSSLESS }, { "\"\x7f\"", NOT_LOSSLESS }, { "\"\\u007f\"", ACCEPT },
    { "\"\\u000a\"", NOT_LOSSLESS }, { "\"\\n\"", ACCEPT }, { "\"\n\"", NOT_LOSSLESS },
    { "\"\\x41\"", NOT_LOSSLESS }, { "\"\\'\"", NOT_LOSSLESS }, { "\"abc", MALFORMED },
    { "\"\\", MALFORMED }, { "\"\\u00", MALFORMED }, { "\"\xff\"", MALFORMED },
    { "{\"a\":[1,{\"b\":[null,true,\"x\\\"y\"]}],\"c\":-2.5}", ACCEPT },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = natter_json_from_line (cases[i].line, -1, &error);
      g_autofree char *shown = g_strescape (cases[i].line, NULL);

      g_test_message ("edge case %s", shown);
      if (cases[i].outcome == ACCEPT)
        g_assert_no_error (error);
      else
        g_assert_error (error, NATTER_STORE_ERROR, (int) cases[i].outcome);
      assert_agree_str (cases[i].line);
    }

  /* A NUL inside the given length is never accepted. */
  assert_agree ("\"a\0b\"", 5);
  assert_agree ("[1]\0", 4);
}

/* A byte that makes a line unreadable is named by its place, and a NUL
 * as a NUL (it is no invalid UTF-8 to look for), so that a person who
 * opens the file finds it. */
static void
test_bad_byte_named (void)
{
  g_autoptr(GError) nul = NULL;
  g_autoptr(GError) invalid = NULL;
  g_autoptr(JsonNode) nul_node = natter_json_from_line ("{\"a\":\"b\0c\"}", 12, &nul);
  g_autoptr(JsonNode) invalid_node = natter_json_from_line ("{\"a\":\"b\xff" "c\"}", 12, &invalid);

  g_assert_null (nul_node);
  g_assert_error (nul, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED);
  g_assert_cmpstr (nul->message, ==, "The line holds a NUL byte at byte 8");
  g_assert_null (invalid_node);
  g_assert_error (invalid, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED);
  g_assert_cmpstr (invalid->message, ==, "The line is not valid UTF-8 at byte 8");
}

static GString *
nested_line (guint       depth,
             const char *inner)
{
  GString *line = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (line, i % 2 ? "{\"k\":" : "[");
  g_string_append (line, inner);
  for (guint i = depth; i > 0; i--)
    g_string_append_c (line, (i - 1) % 2 ? '}' : ']');
  return line;
}

static void
test_nesting_cap (void)
{
  g_autoptr(GString) at_cap = nested_line (NATTER_JSON_MAX_DEPTH, "1");
  g_autoptr(GString) past_cap = nested_line (NATTER_JSON_MAX_DEPTH + 1, "1");
  g_autoptr(GString) hostile = g_string_new (NULL);
  g_autoptr(GString) hostile_broken = g_string_new (" ");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  gboolean too_deep = FALSE;

  /* At the cap both paths accept; one past it both refuse as not lossless. */
  assert_agree (at_cap->str, at_cap->len);
  node = natter_json_from_line (at_cap->str, at_cap->len, NULL);
  g_assert_nonnull (node);
  g_assert_true (natter_json_check_lossless (node, NULL));
  g_clear_pointer (&node, json_node_unref);

  assert_agree (past_cap->str, past_cap->len);
  g_assert_null (natter_json_line_parse (past_cap->str, past_cap->len, &too_deep));
  g_assert_true (too_deep);

  /* Far past the cap json-glib's recursive parser would overflow the
   * stack; the read refuses without asking it, canonical or not. */
  for (guint i = 0; i < 200000; i++)
    g_string_append_c (hostile, '[');
  for (guint i = 0; i < 200000; i++)
    g_string_append_c (hostile, ']');
  node = natter_json_from_line (hostile->str, hostile->len, &error);
  g_assert_null (node);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS);
  g_clear_error (&error);

  g_string_append (hostile_broken, hostile->str);
  node = natter_json_from_line (hostile_broken->str, hostile_broken->len, &error);
  g_assert_null (node);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS);
  g_clear_error (&error);

  /* Brackets inside strings do not count. */
  g_assert_cmpuint (natter_json_line_nesting ("[\"[[[\\\"[[\"]", 11), ==, 1);
  g_assert_cmpuint (natter_json_line_nesting (past_cap->str, past_cap->len), ==, NATTER_JSON_MAX_DEPTH + 1);
}

static void
test_append_refuses_too_deep (void)
{
  g_autoptr(JsonNode) root = json_node_init_int (json_node_alloc (), 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;

  for (guint i = 0; i < NATTER_JSON_MAX_DEPTH + 1; i++)
    {
      JsonArray *array = json_array_new ();
      JsonNode *wrapper = json_node_alloc ();

      json_array_add_element (array, g_steal_pointer (&root));
      json_node_init (wrapper, JSON_NODE_ARRAY);
      json_node_take_array (wrapper, array);
      root = wrapper;

      if (i + 1 == NATTER_JSON_MAX_DEPTH)
        g_assert_true (natter_json_check_lossless (root, NULL));
    }

  line = natter_json_to_line (root, NULL, &error);
  g_assert_null (line);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS);
}

static void
test_tree_is_sealed_and_usable (void)
{
  const char *line = "{\"type\":\"x\",\"n\":3,\"a\":[1,\"s\"],\"o\":{\"k\":null}}";
  g_autoptr(JsonNode) node = natter_json_from_line (line, -1, NULL);
  g_autofree char *again = NULL;
  JsonObject *object;

  g_assert_nonnull (node);
  g_assert_true (json_node_is_immutable (node));
  object = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (object, "type"), ==, "x");
  g_assert_cmpint (json_object_get_int_member (object, "n"), ==, 3);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "a")), ==, 2);
  g_assert_true (json_object_get_null_member (json_object_get_object_member (object, "o"), "k"));
  again = natter_json_to_line (node, NULL, NULL);
  g_assert_cmpstr (again, ==, line);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json-line/generated-lines", test_generated_lines);
  g_test_add_func ("/json-line/mutated-lines", test_mutated_lines);
  g_test_add_func ("/json-line/every-short-line", test_every_short_line);
  g_test_add_func ("/json-line/every-string-byte-and-escape", test_every_string_byte_and_escape);
  g_test_add_func ("/json-line/edge-cases", test_edge_cases);
  g_test_add_func ("/json-line/bad-byte-named", test_bad_byte_named);
  g_test_add_func ("/json-line/nesting-cap", test_nesting_cap);
  g_test_add_func ("/json-line/append-refuses-too-deep", test_append_refuses_too_deep);
  g_test_add_func ("/json-line/tree-is-sealed-and-usable", test_tree_is_sealed_and_usable);

  return g_test_run ();
}
