/* fuzz-json-line.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Differential libFuzzer target for the strict line read: the input is one
 * line, and the fast canonical parser (natter_json_line_parse()) must
 * accept exactly when the reference path (json-glib's parser, regenerate,
 * compare) accepts, with the same tree; natter_json_from_line() must
 * answer with the reference's error code. Any disagreement aborts.
 *
 * Lines nested deeper than NATTER_JSON_MAX_DEPTH are never given to the
 * reference (json-glib recurses once per level); for those the fast path
 * must refuse and the public read must say NOT_LOSSLESS.
 *
 * Build and run with fuzz/run-fuzz.sh.
 */

#define G_LOG_DOMAIN "natter-fuzz"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "natter-json-private.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Same shape, member order, value types, bits and sealing. */
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
        JsonObject *object_a = json_node_get_object (a);
        JsonObject *object_b = json_node_get_object (b);
        g_autoptr(GList) names_a = json_object_get_members (object_a);
        g_autoptr(GList) names_b = json_object_get_members (object_b);
        GList *la = names_a, *lb = names_b;

        for (; la != NULL && lb != NULL; la = la->next, lb = lb->next)
          if (strcmp (la->data, lb->data) != 0 ||
              !same_tree (json_object_get_member (object_a, la->data),
                          json_object_get_member (object_b, lb->data)))
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

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  /* A warning or critical on any input is a finding, not noise. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *line = (const char *) data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) reference_error = NULL;
  g_autoptr(JsonNode) fast = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) reference = NULL;
  gboolean too_deep = FALSE;

  /* natter_json_from_line() takes -1 for "nul-terminated"; sizes past
   * G_MAXSSIZE cannot happen here. */
  fast = natter_json_line_parse (line, size, &too_deep);
  node = natter_json_from_line (line, size, &error);

  if (too_deep || natter_json_line_nesting (line, size) > NATTER_JSON_MAX_DEPTH)
    {
      if (fast != NULL || node != NULL ||
          !g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_LOSSLESS))
        g_error ("a line nested past the cap was not refused as not lossless");
      return 0;
    }

  reference = natter_json_from_line_reference (line, size, &reference_error);

  if ((fast != NULL) != (reference != NULL))
    g_error ("fast path %s, reference %s: %s", fast ? "accepts" : "refuses",
             reference ? "accepts" : "refuses",
             reference_error ? reference_error->message : "");

  if (reference != NULL)
    {
      if (!same_tree (fast, reference) || node == NULL || !same_tree (node, reference))
        g_error ("fast path and reference build different trees");
      if (error != NULL)
        g_error ("an accepted line set an error");
    }
  else if (node != NULL || error == NULL || error->domain != NATTER_STORE_ERROR ||
           error->code != reference_error->code)
    g_error ("natter_json_from_line and the reference disagree on the error: %s vs %s",
             error ? error->message : "none", reference_error->message);

  return 0;
}
