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

#include "natter-fuzz-files.h"
#include "natter-json-private.h"
#include "natter-jsonl-repo.h"
#include "natter-log-read.h"
#include "natter-session-reducer.h"
#include "natter-session-scan.h"
#include "natter-store-error.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static NatterJsonlRepo *session_repo;
static char *session_file;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autoptr(GFile) storage_dir = natter_fuzz_storage_new ("natter-fuzz-scan-XXXXXX");

  session_repo = natter_session_repo_new (storage_dir);
  session_file = natter_fuzz_prepare_file (session_repo);
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

  natter_fuzz_for_each_line (contents, length, check_line);
  natter_fuzz_write (session_file, contents, length);

  state = natter_session_reduce_file_sync (session_repo, NATTER_FUZZ_ID, NULL, NULL, &full_error);

  fast_ok = natter_session_scan_contents (contents, length, NATTER_FUZZ_ID, &fast);
  if (fast_ok != (state != NULL))
    g_printerr ("The scan %s, the full read %s: %s\n", fast_ok ? "accepts" : "refuses",
                state != NULL ? "accepts" : "refuses", full_error != NULL ? full_error->message : "");
  g_assert_cmpint (fast_ok, ==, state != NULL);

  g_assert_cmpint (natter_session_scan_file_sync (session_repo, NATTER_FUZZ_ID, &from_file, NULL, &scan_error),
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
