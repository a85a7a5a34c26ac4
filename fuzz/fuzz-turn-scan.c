/* fuzz-turn-scan.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libFuzzer target for the startup scan's tree-free read of a latest turn
 * file (natter-turn-scan.c) against the full read it stands in for
 * (natter_jsonl_repo_read_sync(), natter_turn_reduce(), then
 * natter_derive_turn_status()): whatever the bytes, when the scan decides,
 * the full read accepts the file with the same status and the same words
 * for the search index (natter_turn_scan_contents_text()), and
 * natter_turn_scan_file_sync() gives exactly the full read's status or
 * error. Each container of each line is also listed by the span walker
 * and compared with the tree (natter_json_span_walk() against
 * natter_json_line_parse()).
 *
 * The first input byte is skipped (fuzz-read-reduce.c uses it to pick the
 * file kind), so the seeds in fuzz/corpus/ serve every target.
 *
 * Build and run with fuzz/run-fuzz.sh.
 */

#define G_LOG_DOMAIN "natter-fuzz"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "natter-fuzz-files.h"
#include "natter-json-private.h"
#include "natter-log-read.h"
#include "natter-jsonl-repo.h"
#include "natter-store-error.h"
#include "natter-turn-reducer.h"
#include "natter-turn-scan.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static NatterJsonlRepo *turn_repo;
static char *turn_file;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autoptr(GFile) storage_dir = natter_fuzz_storage_new ("natter-fuzz-turn-scan-XXXXXX");

  turn_repo = natter_turn_repo_new (storage_dir);
  turn_file = natter_fuzz_prepare_file (turn_repo);
  return 0;
}

/* The span walker against the tree on every container of @value, at
 * every depth. */
static void
check_container (const char *text,
                 gsize       length,
                 JsonNode   *value)
{
  NatterJsonMember items[64];
  guint n = 0;
  gboolean walked = natter_json_span_walk (text, length, items, G_N_ELEMENTS (items), &n);
  g_autoptr(GList) names = NULL;
  guint size;

  if (JSON_NODE_HOLDS_OBJECT (value))
    {
      size = json_object_get_size (json_node_get_object (value));
      names = json_object_get_members (json_node_get_object (value));
    }
  else
    size = json_array_get_length (json_node_get_array (value));
  g_assert_cmpint (walked, ==, size <= G_N_ELEMENTS (items));
  if (!walked)
    return;
  g_assert_cmpuint (n, ==, size);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *item;
      g_autoptr(JsonNode) again = NULL;

      if (names != NULL)
        {
          g_autofree char *name = natter_json_span_dup_string (items[i].name, items[i].name_length);

          item = json_object_get_member (json_node_get_object (value), g_list_nth_data (names, i));
          g_assert_cmpstr (name, ==, g_list_nth_data (names, i));
        }
      else
        {
          g_assert_null (items[i].name);
          item = json_array_get_element (json_node_get_array (value), i);
        }
      if (items[i].kind == NATTER_JSON_SPAN_STRING)
        {
          g_autofree char *string = natter_json_span_dup_string (items[i].value, items[i].value_length);

          g_assert_true (JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING);
          g_assert_cmpstr (string, ==, json_node_get_string (item));
          continue;
        }
      /* Any other value's span is its whole canonical text. */
      again = natter_json_line_parse (items[i].value, items[i].value_length, NULL);
      g_assert_nonnull (again);
      g_assert_true (json_node_equal (again, item));
      if (items[i].kind == NATTER_JSON_SPAN_INT)
        g_assert_cmpint (items[i].int_value, ==, json_node_get_int (item));
      if (items[i].kind == NATTER_JSON_SPAN_OBJECT || items[i].kind == NATTER_JSON_SPAN_ARRAY)
        check_container (items[i].value, items[i].value_length, item);
    }
}

/* The span walker against the tree on one line's containers. */
static void
check_line (const char *line,
            gsize       length)
{
  g_autoptr(JsonNode) tree = natter_json_line_parse (line, length, NULL);

  if (tree != NULL && (JSON_NODE_HOLDS_OBJECT (tree) || JSON_NODE_HOLDS_ARRAY (tree)))
    check_container (line, length, tree);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) full_error = NULL;
  g_autoptr(GError) scan_error = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  NatterTurnStatus fast = NATTER_TURN_STATUS_IDLE;
  gboolean fast_imported = FALSE;
  NatterTurnStatus from_file = NATTER_TURN_STATUS_IDLE;
  const char *contents;
  gsize length;

  if (size == 0)
    return 0;
  contents = (const char *) data + 1;
  length = size - 1;

  natter_fuzz_for_each_line (contents, length, check_line);
  natter_fuzz_write (turn_file, contents, length);

  state = natter_turn_reduce_file_sync (turn_repo, NATTER_FUZZ_ID, NULL, NULL, &full_error);

  if (natter_turn_scan_contents (contents, length, NATTER_FUZZ_ID, &fast, &fast_imported))
    {
      if (state == NULL)
        g_printerr ("The scan decides %s, the full read refuses: %s\n", natter_turn_status_to_string (fast),
                    full_error->message);
      g_assert_nonnull (state);
      g_assert_cmpint (fast, ==, natter_derive_turn_status (state));
      g_assert_cmpint (fast_imported, ==, natter_turn_state_is_imported (state));
    }

  /* The search index's words: decided exactly when the status is, and
   * then those of the full read's state. */
  {
    g_autoptr(GString) user = g_string_new (NULL);
    g_autoptr(GString) answer = g_string_new (NULL);

    if (natter_turn_scan_contents_text (contents, length, NATTER_FUZZ_ID, user, answer))
      {
        g_autoptr(GString) full_user = g_string_new (NULL);
        g_autoptr(GString) full_answer = g_string_new (NULL);

        g_assert_nonnull (state);
        natter_turn_text_from_state (state, full_user, full_answer);
        g_assert_cmpstr (user->str, ==, full_user->str);
        g_assert_cmpstr (answer->str, ==, full_answer->str);
      }
    else
      g_assert_cmpuint (user->len + answer->len, ==, 0);
  }

  g_assert_cmpint (natter_turn_scan_file_sync (turn_repo, NATTER_FUZZ_ID, &from_file, NULL, NULL, &scan_error),
                   ==, state != NULL);
  if (state != NULL)
    g_assert_cmpint (from_file, ==, natter_derive_turn_status (state));
  else
    {
      g_assert_nonnull (scan_error);
      g_assert_cmpint (scan_error->code, ==, full_error->code);
      g_assert_cmpstr (scan_error->message, ==, full_error->message);
    }
  return 0;
}
