/* fuzz-session-scan.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libFuzzer target for the startup scan's tree-free read of a session
 * file (natter-session-scan.c) against the full read it stands in for
 * (natter_session_reduce_file_sync()):
 * whatever the bytes, both accept or both refuse, an accepted file folds
 * to the same index fields, and a refused one gives the same error. Each
 * line is also given to the span scanner and the tree builder
 * (natter_json_line_scan_object() against natter_json_line_parse()),
 * which must agree on it and on its members.
 *
 * The first input byte is skipped (fuzz-read-reduce.c uses it to pick the
 * file kind), so the seeds in fuzz/corpus/ serve both targets.
 *
 * Build and run with fuzz/run-fuzz.sh.
 */

#define G_LOG_DOMAIN "natter-fuzz"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "natter-json-private.h"
#include "natter-jsonl-repo.h"
#include "natter-log-read.h"
#include "natter-session-reducer.h"
#include "natter-session-scan.h"
#include "natter-store-error.h"

#define FUZZ_ID "2026-11-30T09-14-03Z-0000001-000"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *storage_path;
static NatterJsonlRepo *session_repo;
static char *session_file;

static void
cleanup (void)
{
  g_autofree char *dir = NULL;

  if (session_file == NULL)
    return;
  g_remove (session_file);
  dir = g_path_get_dirname (session_file);
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

  storage_path = g_dir_make_tmp ("natter-fuzz-scan-XXXXXX", &error);
  g_assert_no_error (error);
  storage_dir = g_file_new_for_path (storage_path);
  session_repo = natter_session_repo_new (storage_dir);
  file = natter_jsonl_repo_get_file (session_repo, FUZZ_ID, &error);
  g_assert_no_error (error);
  parent = g_file_get_parent (file);
  if (g_mkdir_with_parents (g_file_peek_path (parent), 0700) != 0)
    g_error ("Cannot create %s", g_file_peek_path (parent));
  session_file = g_file_get_path (file);
  atexit (cleanup);
  return 0;
}

static NatterJsonSpanKind
kind_of (JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT: return NATTER_JSON_SPAN_OBJECT;
    case JSON_NODE_ARRAY: return NATTER_JSON_SPAN_ARRAY;
    case JSON_NODE_NULL: return NATTER_JSON_SPAN_NULL;
    case JSON_NODE_VALUE:
    default:
      break;
    }
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING: return NATTER_JSON_SPAN_STRING;
    case G_TYPE_INT64: return NATTER_JSON_SPAN_INT;
    case G_TYPE_DOUBLE: return NATTER_JSON_SPAN_DOUBLE;
    default: return NATTER_JSON_SPAN_BOOLEAN;
    }
}

/* The span scanner against the tree builder on one line. */
static void
check_line (const char *line,
            gsize       length)
{
  NatterJsonMember members[16];
  g_autoptr(JsonNode) tree = natter_json_line_parse (line, length, NULL);
  JsonObject *object;
  g_autoptr(GList) names = NULL;
  guint n = 0;
  gboolean scanned = natter_json_line_scan_object (line, length, members, G_N_ELEMENTS (members), &n);

  if (tree == NULL || !JSON_NODE_HOLDS_OBJECT (tree))
    {
      g_assert_false (scanned);
      return;
    }
  object = json_node_get_object (tree);
  if (json_object_get_size (object) > G_N_ELEMENTS (members))
    {
      g_assert_false (scanned);
      return;
    }
  g_assert_true (scanned);
  g_assert_cmpuint (n, ==, json_object_get_size (object));

  names = json_object_get_members (object);
  for (guint i = 0; i < n; i++, names = g_list_delete_link (names, names))
    {
      g_autofree char *name = natter_json_span_dup_string (members[i].name, members[i].name_length);
      JsonNode *value = json_object_get_member (object, names->data);

      g_assert_cmpstr (name, ==, names->data);
      g_assert_cmpint (members[i].name_escaped, ==, memchr (members[i].name, '\\', members[i].name_length) != NULL);
      g_assert_cmpint (members[i].kind, ==, kind_of (value));
      if (members[i].kind == NATTER_JSON_SPAN_STRING)
        {
          g_autofree char *text = natter_json_span_dup_string (members[i].value, members[i].value_length);

          g_assert_cmpstr (text, ==, json_node_get_string (value));
        }
      else if (members[i].kind == NATTER_JSON_SPAN_INT)
        g_assert_cmpint (members[i].int_value, ==, json_node_get_int (value));
      else if (members[i].kind == NATTER_JSON_SPAN_OBJECT || members[i].kind == NATTER_JSON_SPAN_ARRAY)
        {
          g_autoptr(JsonNode) again = natter_json_line_parse (members[i].value, members[i].value_length, NULL);

          /* A container's span is its whole canonical text. */
          g_assert_nonnull (again);
          g_assert_true (json_node_equal (again, value));
        }
    }
}

static void
assert_same_fields (const NatterSessionScanResult *result,
                    NatterSessionState            *state)
{
  guint n_turns = natter_session_state_get_n_turns (state);

  g_assert_cmpstr (result->title, ==, natter_session_state_get_title (state));
  g_assert_cmpint (result->title_is_explicit, ==, natter_session_state_get_title_is_explicit (state));
  g_assert_cmpstr (result->created_at, ==, natter_session_state_get_created_at (state));
  g_assert_cmpstr (result->updated_at, ==, natter_session_state_get_updated_at (state));
  g_assert_cmpuint (result->turn_count, ==, n_turns);
  g_assert_cmpstr (result->cwd, ==, natter_session_state_get_cwd (state));
  g_assert_cmpstr (result->parent_session, ==, natter_session_state_get_parent_session (state));
  if (n_turns > 0)
    {
      const NatterSessionTurn *last = natter_session_state_get_turn (state, n_turns - 1);

      g_assert_cmpstr (result->last_agent_id, ==, last->agent_id);
      g_assert_cmpstr (result->latest_turn_id, ==, last->turn_id);
      g_assert_true (json_object_equal (result->last_model, last->model));
    }
  else
    g_assert_null (result->last_model);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) full_error = NULL;
  g_autoptr(GError) scan_error = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_auto(NatterSessionScanResult) fast = { 0 };
  g_auto(NatterSessionScanResult) from_file = { 0 };
  const char *contents;
  gsize length;
  gboolean fast_ok;

  if (size == 0)
    return 0;
  contents = (const char *) data + 1;
  length = size - 1;

  for (gsize pos = 0; pos < length;)
    {
      const char *end = memchr (contents + pos, '\n', length - pos);
      gsize line_length = end != NULL ? (gsize) (end - contents) - pos : length - pos;

      check_line (contents + pos, line_length);
      pos += line_length + 1;
    }

  /* GLib 2.74 writes in place without truncating when asked for no
   * consistency, which would leave the tail of a longer earlier input. */
  g_remove (session_file);
  if (!g_file_set_contents_full (session_file, contents, (gssize) length,
                                 G_FILE_SET_CONTENTS_NONE, 0600, &full_error))
    g_error ("Cannot write %s: %s", session_file, full_error->message);

  state = natter_session_reduce_file_sync (session_repo, FUZZ_ID, NULL, NULL, &full_error);

  fast_ok = natter_session_scan_contents (contents, length, FUZZ_ID, &fast);
  if (fast_ok != (state != NULL))
    g_printerr ("The scan %s, the full read %s: %s\n", fast_ok ? "accepts" : "refuses",
                state != NULL ? "accepts" : "refuses", full_error != NULL ? full_error->message : "");
  g_assert_cmpint (fast_ok, ==, state != NULL);

  g_assert_cmpint (natter_session_scan_file_sync (session_repo, FUZZ_ID, &from_file, NULL, &scan_error),
                   ==, state != NULL);
  if (state != NULL)
    {
      assert_same_fields (&fast, state);
      assert_same_fields (&from_file, state);
    }
  else
    {
      g_assert_nonnull (scan_error);
      g_assert_cmpint (scan_error->code, ==, full_error->code);
      g_assert_cmpstr (scan_error->message, ==, full_error->message);
    }
  return 0;
}
