/* fuzz-turn-scan.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libFuzzer target for the startup scan's tree-free read of a latest turn
 * file (natter-turn-scan.c) against the full read it stands in for
 * (natter_jsonl_repo_read_sync(), natter_turn_reduce(), then
 * natter_derive_turn_status()): whatever the bytes, when the scan decides,
 * the full read accepts the file with the same status, and
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

#include <glib/gstdio.h>

#include "natter-json-private.h"
#include "natter-log-read.h"
#include "natter-jsonl-repo.h"
#include "natter-store-error.h"
#include "natter-turn-reducer.h"
#include "natter-turn-scan.h"

#define FUZZ_ID "2026-11-30T09-14-03Z-0000001-000"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *storage_path;
static NatterJsonlRepo *turn_repo;
static char *turn_file;

static void
cleanup (void)
{
  g_autofree char *dir = NULL;

  if (turn_file == NULL)
    return;
  g_remove (turn_file);
  dir = g_path_get_dirname (turn_file);
  while (g_str_has_prefix (dir, storage_path) && g_rmdir (dir) == 0)
    {
      char *up = g_path_get_dirname (dir);

      g_free (dir);
      dir = up;
    }
  g_rmdir (storage_path);
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) storage_dir = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFile) parent = NULL;

  g_setenv ("GIO_USE_VFS", "local", TRUE);
  /* A warning or critical on any input is a finding, not noise. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);

  storage_path = g_dir_make_tmp ("natter-fuzz-turn-scan-XXXXXX", &error);
  g_assert_no_error (error);
  storage_dir = g_file_new_for_path (storage_path);
  turn_repo = natter_turn_repo_new (storage_dir);
  file = natter_jsonl_repo_get_file (turn_repo, FUZZ_ID, &error);
  g_assert_no_error (error);
  parent = g_file_get_parent (file);
  if (g_mkdir_with_parents (g_file_peek_path (parent), 0700) != 0)
    g_error ("Cannot create %s", g_file_peek_path (parent));
  turn_file = g_file_get_path (file);
  atexit (cleanup);
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

  for (gsize pos = 0; pos < length;)
    {
      const char *end = memchr (contents + pos, '\n', length - pos);
      gsize line_length = end != NULL ? (gsize) (end - contents) - pos : length - pos;
      g_autoptr(JsonNode) tree = natter_json_line_parse (contents + pos, line_length, NULL);

      if (tree != NULL && (JSON_NODE_HOLDS_OBJECT (tree) || JSON_NODE_HOLDS_ARRAY (tree)))
        check_container (contents + pos, line_length, tree);
      pos += line_length + 1;
    }

  /* GLib 2.74 writes in place without truncating when asked for no
   * consistency, which would leave the tail of a longer earlier input. */
  g_remove (turn_file);
  if (!g_file_set_contents_full (turn_file, contents, (gssize) length,
                                 G_FILE_SET_CONTENTS_NONE, 0600, &full_error))
    g_error ("Cannot write %s: %s", turn_file, full_error->message);

  state = natter_turn_reduce_file_sync (turn_repo, FUZZ_ID, NULL, NULL, &full_error);

  if (natter_turn_scan_contents (contents, length, FUZZ_ID, &fast, &fast_imported))
    {
      if (state == NULL)
        g_printerr ("The scan decides %s, the full read refuses: %s\n", natter_turn_status_to_string (fast),
                    full_error->message);
      g_assert_nonnull (state);
      g_assert_cmpint (fast, ==, natter_derive_turn_status (state));
      g_assert_cmpint (fast_imported, ==, natter_turn_state_is_imported (state));
    }

  g_assert_cmpint (natter_turn_scan_file_sync (turn_repo, FUZZ_ID, &from_file, NULL, NULL, &scan_error),
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
