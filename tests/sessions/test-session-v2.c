/* test-session-v2.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Session schema version 2 (docs/format.md §3.3, §3.4): a version-1 file
 * is raised by appending, never rewritten; version-2 events are refused
 * before the upgrade; unknown event types still fail loudly; grants and
 * the queue fold by supersession; and the fast startup scan accepts
 * exactly the files the full read accepts, with the same summary.
 */

#include <string.h>

#include "natter-jsonl-repo.h"
#include "natter-session-grants-queue.h"
#include "natter-session-index-internal.h"
#include "natter-session-scan.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"
#include "natter-test-fakes.h"

#define TIMEOUT_MS 20000

#define SID "2026-11-30T09-14-03Z-0000001-000"
#define TID "2026-11-30T09-14-03Z-0000002-000"
#define G1  "2026-11-30T09-14-03Z-0000010-000"
#define G2  "2026-11-30T09-14-03Z-0000011-000"
#define Q1  "2026-11-30T09-14-03Z-0000020-000"
#define Q2  "2026-11-30T09-14-03Z-0000021-000"
#define TS  "2026-11-30T09:14:03.100Z"
#define HEAD(type) "{\"type\":\"" type "\",\"sessionId\":\"" SID "\",\"ts\":\"" TS "\""

#define CREATED_V1 HEAD ("session_created") ",\"schemaVersion\":1}"
#define CREATED_V2 HEAD ("session_created") ",\"schemaVersion\":2}"
#define UPGRADED   HEAD ("schema_upgraded") ",\"schemaVersion\":2}"
#define GRANT(id, tool) HEAD ("permission_grant_added") ",\"grantId\":\"" id "\",\"toolId\":\"" tool "\"}"
#define REVOKE(id) HEAD ("permission_grant_removed") ",\"grantId\":\"" id "\"}"
#define OPTIONS ",\"options\":{\"agentId\":\"assistant\",\"autoPermission\":false,\"maxModelCalls\":5}"
#define QUEUE(id, text) HEAD ("message_queued") ",\"queueId\":\"" id "\"," \
  "\"message\":{\"role\":\"user\",\"content\":\"" text "\"}" OPTIONS "}"
#define REPLACE(id, text) HEAD ("queued_message_replaced") ",\"queueId\":\"" id "\"," \
  "\"message\":{\"role\":\"user\",\"content\":\"" text "\"}}"
#define UNQUEUE(id) HEAD ("queued_message_removed") ",\"queueId\":\"" id "\"}"
#define TURN_BODY ",\"turnId\":\"" TID "\",\"sessionSeq\":1,\"agentId\":\"assistant\"," \
  "\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"}"
#define TURN HEAD ("turn_appended") TURN_BODY "}"
#define TURN_CONSUMING(id) HEAD ("turn_appended") TURN_BODY ",\"consumedQueueIds\":[\"" id "\"]}"
#define UNKNOWN HEAD ("conversation_steered") ",\"text\":\"faster\"}"
#define COMPACTED(id) HEAD ("conversation_compacted") ",\"compactionId\":\"" id "\"," \
  "\"summary\":\"So far\",\"firstKeptTurnId\":\"" TID "\"}"

/* Reducing lines */

static GPtrArray *
parse_lines (const char * const *lines)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (guint i = 0; lines[i] != NULL; i++)
    g_ptr_array_add (events, natter_test_json (lines[i]));
  return events;
}

static NatterSessionState *
reduce_lines (const char * const  *lines,
              GError             **error)
{
  g_autoptr(GPtrArray) events = parse_lines (lines);

  return natter_session_reduce (events, error);
}

static void
assert_lines_fail (const char * const *lines,
                   int                 code,
                   const char         *message_part)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionState) state = reduce_lines (lines, &error);

  g_assert_null (state);
  g_assert_error (error, NATTER_STORE_ERROR, code);
  if (message_part != NULL && strstr (error->message, message_part) == NULL)
    g_error ("“%s” does not say “%s”", error->message, message_part);
}

static NatterSessionState *
reduce_ok (const char * const *lines)
{
  g_autoptr(GError) error = NULL;
  NatterSessionState *state = reduce_lines (lines, &error);

  g_assert_no_error (error);
  g_assert_nonnull (state);
  return state;
}

static void
test_version_2_event_in_version_1_file_fails (void)
{
  const char *grant[] = { CREATED_V1, GRANT (G1, "read_file"), NULL };
  const char *queue[] = { CREATED_V1, QUEUE (Q1, "next"), NULL };
  const char *upgraded_late[] = { CREATED_V1, GRANT (G1, "read_file"), UPGRADED, NULL };

  assert_lines_fail (grant, NATTER_STORE_ERROR_SCHEMA,
                     "permission_grant_added needs session schema version 2; the file is at version 1");
  assert_lines_fail (queue, NATTER_STORE_ERROR_SCHEMA, "message_queued needs session schema version 2");
  assert_lines_fail (upgraded_late, NATTER_STORE_ERROR_SCHEMA, "the file is at version 1");
}

static void
test_consumed_queue_ids_in_version_1_file_fails (void)
{
  const char *lines[] = { CREATED_V1, TURN_CONSUMING (Q1), NULL };

  assert_lines_fail (lines, NATTER_STORE_ERROR_SCHEMA,
                     "turn_appended with consumedQueueIds needs session schema version 2");
}

static void
test_schema_upgraded_twice_fails (void)
{
  const char *twice[] = { CREATED_V1, UPGRADED, UPGRADED, NULL };
  const char *at_2[] = { CREATED_V2, UPGRADED, NULL };
  const char *to_5[] = { CREATED_V1, HEAD ("schema_upgraded") ",\"schemaVersion\":5}", NULL };
  const char *once[] = { CREATED_V1, UPGRADED, NULL };
  g_autoptr(NatterSessionState) state = NULL;

  assert_lines_fail (twice, NATTER_STORE_ERROR_INVARIANT, "schema_upgraded to version 2 in a file at version 2");
  assert_lines_fail (at_2, NATTER_STORE_ERROR_INVARIANT, "schema_upgraded to version 2 in a file at version 2");
  assert_lines_fail (to_5, NATTER_STORE_ERROR_UNSUPPORTED_VERSION, NULL);

  state = reduce_ok (once);
  g_assert_cmpint (natter_session_state_get_schema_version (state), ==, 2);
}

static void
test_unknown_event_type_still_fails_loudly (void)
{
  const char *in_v1[] = { CREATED_V1, UNKNOWN, NULL };
  const char *in_v2[] = { CREATED_V2, UNKNOWN, NULL };
  const char *after_upgrade[] = { CREATED_V1, UPGRADED, GRANT (G1, "read_file"), UNKNOWN, NULL };
  const char *member[] = { CREATED_V2, HEAD ("permission_grant_added") ",\"grantId\":\"" G1 "\","
                           "\"toolId\":\"read_file\",\"pattern\":\"*\"}", NULL };

  assert_lines_fail (in_v1, NATTER_STORE_ERROR_UNKNOWN_TYPE, "conversation_steered");
  assert_lines_fail (in_v2, NATTER_STORE_ERROR_UNKNOWN_TYPE, "conversation_steered");
  assert_lines_fail (after_upgrade, NATTER_STORE_ERROR_UNKNOWN_TYPE, "conversation_steered");
  /* Version-2 events are closed too. */
  assert_lines_fail (member, NATTER_STORE_ERROR_SCHEMA, "pattern");
}

static void
test_grants_fold (void)
{
  const char *lines[] = { CREATED_V2, GRANT (G1, "read_file"), GRANT (G2, "list_directory"), REVOKE (G1), NULL };
  const char *revoked_twice[] = { CREATED_V2, GRANT (G1, "read_file"), REVOKE (G1), REVOKE (G1), NULL };
  const char *reused[] = { CREATED_V2, GRANT (G1, "read_file"), REVOKE (G1), GRANT (G1, "read_file"), NULL };
  const char *never[] = { CREATED_V2, REVOKE (G2), NULL };
  g_autoptr(NatterSessionState) state = reduce_ok (lines);
  const NatterSessionGrant *grant;

  g_assert_cmpuint (natter_session_state_get_n_grants (state), ==, 1);
  grant = natter_session_state_get_grant (state, 0);
  g_assert_cmpstr (grant->grant_id, ==, G2);
  g_assert_cmpstr (grant->tool_id, ==, "list_directory");
  g_assert_cmpstr (grant->ts, ==, TS);
  g_assert_null (natter_session_state_find_grant (state, G1));
  g_assert_null (natter_session_state_find_grant_for_tool (state, "read_file"));
  g_assert_true (natter_session_state_find_grant_for_tool (state, "list_directory") == grant);

  assert_lines_fail (revoked_twice, NATTER_STORE_ERROR_INVARIANT, "not an active grant");
  assert_lines_fail (reused, NATTER_STORE_ERROR_INVARIANT, "used more than once");
  assert_lines_fail (never, NATTER_STORE_ERROR_INVARIANT, "not an active grant");
}

static void
test_queue_by_supersession (void)
{
  const char *lines[] = { CREATED_V2, QUEUE (Q1, "first"), QUEUE (Q2, "second"), REPLACE (Q2, "second, edited"),
                          REPLACE (Q1, "first, edited"), NULL };
  const char *consumed[] = { CREATED_V2, QUEUE (Q1, "first"), QUEUE (Q2, "second"), TURN_CONSUMING (Q1), NULL };
  const char *removed[] = { CREATED_V2, QUEUE (Q1, "first"), UNQUEUE (Q1), NULL };
  const char *replace_removed[] = { CREATED_V2, QUEUE (Q1, "first"), UNQUEUE (Q1), REPLACE (Q1, "x"), NULL };
  const char *consume_twice[] = { CREATED_V2, QUEUE (Q1, "first"), TURN_CONSUMING (Q1),
                                  HEAD ("turn_appended") ",\"turnId\":\"" G2 "\",\"sessionSeq\":2,"
                                  "\"agentId\":\"assistant\",\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"},"
                                  "\"consumedQueueIds\":[\"" Q1 "\"]}", NULL };
  const char *empty[] = { CREATED_V2, HEAD ("turn_appended") TURN_BODY ",\"consumedQueueIds\":[]}", NULL };
  g_autoptr(NatterSessionState) state = reduce_ok (lines);
  g_autoptr(NatterSessionState) after_turn = reduce_ok (consumed);
  g_autoptr(NatterSessionState) after_remove = reduce_ok (removed);
  const NatterSessionQueuedMessage *queued;

  /* An edit keeps the message's place, its options and its time. */
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 2);
  queued = natter_session_state_get_queued (state, 0);
  g_assert_cmpstr (queued->queue_id, ==, Q1);
  g_assert_cmpstr (json_object_get_string_member (queued->message, "content"), ==, "first, edited");
  g_assert_cmpstr (json_object_get_string_member (queued->options, "agentId"), ==, "assistant");
  g_assert_cmpstr (queued->ts, ==, TS);
  g_assert_cmpstr (json_object_get_string_member (natter_session_state_get_queued (state, 1)->message, "content"),
                   ==, "second, edited");

  g_assert_cmpuint (natter_session_state_get_n_queued (after_turn), ==, 1);
  g_assert_cmpstr (natter_session_state_get_queued (after_turn, 0)->queue_id, ==, Q2);
  g_assert_null (natter_session_state_find_queued (after_turn, Q1));
  g_assert_cmpuint (natter_session_state_get_n_turns (after_turn), ==, 1);
  g_assert_cmpuint (natter_session_state_get_n_queued (after_remove), ==, 0);

  assert_lines_fail (replace_removed, NATTER_STORE_ERROR_INVARIANT, "not a pending queued message");
  assert_lines_fail (consume_twice, NATTER_STORE_ERROR_INVARIANT, "not a pending queued message");
  assert_lines_fail (empty, NATTER_STORE_ERROR_SCHEMA, "must not be empty");
}

/* A refused event leaves the state as it was, grants and queue included. */
static void
test_apply_stays_atomic (void)
{
  const char *lines[] = { CREATED_V2, GRANT (G1, "read_file"), QUEUE (Q1, "first"), NULL };
  g_autoptr(NatterSessionState) state = reduce_ok (lines);
  g_autoptr(JsonNode) bad_turn = natter_test_json (HEAD ("turn_appended") ",\"turnId\":\"" TID "\","
                                                   "\"sessionSeq\":2,\"agentId\":\"a\","
                                                   "\"model\":{\"provider\":\"p\",\"model\":\"m\"},"
                                                   "\"consumedQueueIds\":[\"" Q1 "\"]}");
  g_autoptr(GError) error = NULL;

  g_assert_false (natter_session_state_apply (state, json_node_get_object (bad_turn), &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 1);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 0);
  g_assert_cmpuint (natter_session_state_get_n_grants (state), ==, 1);
}

/* The fast scan against the full read */

static void
check_scan_agrees (NatterJsonlRepo *repo,
                   const char      *contents,
                   gboolean         expect_valid)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (repo, SID, NULL);
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(NatterSessionScanResult) fast = { 0 };
  gboolean fast_ok;

  g_assert_true (g_mkdir_with_parents (g_file_peek_path (parent), 0700) == 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (file), contents, -1, NULL));
  events = natter_jsonl_repo_read_sync (repo, SID, NULL, &error);
  if (events != NULL)
    state = natter_session_reduce_validated (events, &error);
  fast_ok = natter_session_scan_contents (contents, strlen (contents), SID, &fast);

  g_test_message ("%s", contents);
  g_assert_cmpint (state != NULL, ==, expect_valid);
  g_assert_cmpint (fast_ok, ==, expect_valid);
  if (state == NULL)
    return;
  g_assert_cmpstr (fast.title, ==, natter_session_state_get_title (state));
  g_assert_cmpstr (fast.updated_at, ==, natter_session_state_get_updated_at (state));
  g_assert_cmpstr (fast.created_at, ==, natter_session_state_get_created_at (state));
  g_assert_cmpuint (fast.turn_count, ==, natter_session_state_get_n_turns (state));
  g_assert_cmpstr (fast.latest_turn_id, ==, natter_session_state_get_latest_turn_id (state));
}

static void
test_scan_agrees_with_full_read (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(NatterJsonlRepo) repo = natter_session_repo_new (dir);
  static const struct { const char *contents; gboolean valid; } files[] = {
    { CREATED_V2 "\n", TRUE },
    { CREATED_V1 "\n" UPGRADED "\n" GRANT (G1, "read_file") "\n" REVOKE (G1) "\n", TRUE },
    { CREATED_V2 "\n" QUEUE (Q1, "a") "\n" REPLACE (Q1, "b") "\n" TURN_CONSUMING (Q1) "\n", TRUE },
    { CREATED_V2 "\n" QUEUE (Q1, "a") "\n" QUEUE (Q2, "b") "\n" UNQUEUE (Q2) "\n", TRUE },
    { CREATED_V2 "\n" "{\"type\":\"title_changed\",\"sessionId\":\"" SID "\",\"ts\":\"2026-11-30T09:14:09Z\","
      "\"title\":\"T\"}\n" GRANT (G1, "x") "\n", TRUE },
    { CREATED_V1 "\n" GRANT (G1, "read_file") "\n", FALSE },
    { CREATED_V1 "\n" TURN_CONSUMING (Q1) "\n", FALSE },
    { CREATED_V1 "\n" UPGRADED "\n" UPGRADED "\n", FALSE },
    { CREATED_V2 "\n" UPGRADED "\n", FALSE },
    { CREATED_V2 "\n" UNKNOWN "\n", FALSE },
    { CREATED_V2 "\n" REVOKE (G1) "\n", FALSE },
    { CREATED_V2 "\n" QUEUE (Q1, "a") "\n" TURN_CONSUMING (Q2) "\n", FALSE },
    { CREATED_V2 "\n" QUEUE (Q1, "a") "\n" QUEUE (Q1, "b") "\n", FALSE },
    { UPGRADED "\n", FALSE },
    { CREATED_V2 "\n" HEAD ("message_queued") ",\"queueId\":\"" Q1 "\",\"message\":{\"role\":\"assistant\","
      "\"content\":\"a\"}" OPTIONS "}\n", FALSE },
    { CREATED_V2 "\n" HEAD ("permission_grant_added") ",\"grantId\":\"" G1 "\",\"toolId\":\"\"}\n", FALSE },
    { CREATED_V2 "\n" "{\"type\":\"permission_grant_added\",\"sessionId\":\"" TID "\",\"ts\":\"" TS "\","
      "\"grantId\":\"" G1 "\",\"toolId\":\"x\"}\n", FALSE },
    { HEAD ("session_created") ",\"schemaVersion\":5}\n", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    check_scan_agrees (repo, files[i].contents, files[i].valid);
  natter_test_remove_tree (dir);
}

/* Through the session service: the one writer */

typedef struct
{
  NatterTestWorld    *w;
  NatterSessionIndex *index;
  NatterSessions     *sessions;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->w = natter_test_world_new ();
  f->index = natter_session_index_new ();
  f->sessions = natter_sessions_new (f->w->session_repo, f->w->turn_repo, f->w->runtime, f->w->hub,
                                     NATTER_CLOCK (f->w->clock), f->w->ids, f->index);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  natter_test_drain_main_context ();
  g_clear_object (&f->sessions);
  g_clear_object (&f->index);
  natter_test_world_free (f->w);
}

static void
append (Fixture    *f,
        const char *session_id,
        GPtrArray  *events)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_append_events_async (f->sessions, session_id, events, NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, TIMEOUT_MS);
  g_assert_true (natter_sessions_append_events_finish (f->sessions, result, &error));
  g_assert_no_error (error);
}

static char *
file_contents (Fixture    *f,
               const char *session_id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->w->session_repo, session_id, NULL);

  return natter_test_read_file (g_file_peek_path (file), NULL);
}

static guint
count (const char *haystack,
       const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

static NatterSessionState *
read_state (Fixture    *f,
            const char *session_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->w->session_repo, session_id, NULL, &error);
  NatterSessionState *state;

  g_assert_no_error (error);
  state = natter_session_reduce_validated (events, &error);
  g_assert_no_error (error);
  return state;
}

static void
test_version_1_file_gains_version_2_events_and_reads_back (Fixture       *f,
                                                           gconstpointer  data)
{
  g_autoptr(JsonNode) created = natter_test_json (CREATED_V1);
  g_autoptr(GPtrArray) old_events = natter_test_json_array (TURN, NULL);
  g_autoptr(GPtrArray) grant = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GPtrArray) revoke = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *last = NULL;
  g_auto(NatterSessionScanResult) scanned = { 0 };
  char **lines;

  /* A conversation written by a Natter that knew only version 1. */
  g_assert_true (natter_jsonl_repo_create_sync (f->w->session_repo, SID, created, NULL, &error));
  g_assert_true (natter_jsonl_repo_append_sync (f->w->session_repo, SID, old_events, NULL, &error));
  g_assert_no_error (error);
  before = file_contents (f, SID);

  g_ptr_array_add (grant, natter_session_event_new_grant_added (SID, TS, G1, "read_file"));
  append (f, SID, grant);
  after = file_contents (f, SID);

  /* Nothing that was there changed; the upgrade came first, in the same write. */
  g_assert_true (g_str_has_prefix (after, before));
  lines = g_strsplit (after + strlen (before), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_true (strstr (lines[0], "\"type\":\"schema_upgraded\"") != NULL);
  g_assert_true (strstr (lines[0], "\"schemaVersion\":2") != NULL);
  g_assert_true (strstr (lines[1], "\"type\":\"permission_grant_added\"") != NULL);
  g_assert_cmpstr (lines[2], ==, "");
  g_strfreev (lines);

  state = read_state (f, SID);
  g_assert_cmpint (natter_session_state_get_schema_version (state), ==, 2);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpstr (natter_session_state_find_grant (state, G1)->tool_id, ==, "read_file");
  g_assert_true (natter_session_scan_contents (after, strlen (after), SID, &scanned));

  /* Once raised, it stays raised: no second upgrade. */
  g_ptr_array_add (revoke, natter_session_event_new_grant_removed (SID, TS, G1));
  append (f, SID, revoke);
  last = file_contents (f, SID);
  g_assert_cmpuint (count (last, "schema_upgraded"), ==, 1);
  g_clear_pointer (&state, natter_session_state_unref);
  state = read_state (f, SID);
  g_assert_cmpuint (natter_session_state_get_n_grants (state), ==, 0);
}

/* A new session holds only version-1 events, so it is created at
 * version 1, which every reader of version 1 reads (the reference's
 * included); it is raised by schema_upgraded right before its first
 * version-2 event, like any old file. */
static void
test_new_session_is_created_at_version_1 (Fixture       *f,
                                          gconstpointer  data)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GPtrArray) grant = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *created = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_auto(GStrv) lines = NULL;

  natter_sessions_create_session_async (f->sessions, NULL, NULL, NULL, NULL, NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, TIMEOUT_MS);
  id = natter_sessions_create_session_finish (f->sessions, result, &error);
  g_assert_no_error (error);
  created = file_contents (f, id);
  g_assert_nonnull (strstr (created, "\"schemaVersion\":1}\n"));
  g_assert_cmpuint (count (created, "\n"), ==, 1);
  state = read_state (f, id);
  g_assert_cmpint (natter_session_state_get_schema_version (state), ==, 1);
  g_clear_pointer (&state, natter_session_state_unref);

  g_ptr_array_add (grant, natter_session_event_new_grant_added (id, TS, G1, "read_file"));
  append (f, id, grant);
  contents = file_contents (f, id);
  g_assert_true (g_str_has_prefix (contents, created));
  lines = g_strsplit (contents + strlen (created), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_nonnull (strstr (lines[0], "\"type\":\"schema_upgraded\""));
  g_assert_nonnull (strstr (lines[1], "\"type\":\"permission_grant_added\""));
  state = read_state (f, id);
  g_assert_cmpint (natter_session_state_get_schema_version (state), ==, 2);
  g_assert_cmpuint (natter_session_state_get_n_grants (state), ==, 1);
}

/* Where a file breaks a rule of the order of events, its error says
 * where, as it does for a malformed line (docs/format.md §2): the file and
 * the line, through every read that reports it. */

static void
write_session_file (Fixture    *f,
                    const char *contents)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->w->session_repo, SID, NULL);
  g_autoptr(GFile) parent = g_file_get_parent (file);

  g_assert_true (g_mkdir_with_parents (g_file_peek_path (parent), 0700) == 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (file), contents, -1, NULL));
}

static void
assert_names_line (const char *message,
                   GFile      *file,
                   guint       line,
                   const char *reason)
{
  g_autofree char *where = g_strdup_printf ("%s:%u: ", g_file_peek_path (file), line);

  g_test_message ("%s", message);
  g_assert_true (strstr (message, where) != NULL);
  g_assert_true (strstr (message, reason) != NULL);
}

static void
test_ordering_errors_name_the_file_and_line (Fixture       *f,
                                             gconstpointer  data)
{
  static const struct { const char *contents; guint line; const char *reason; } files[] = {
    { CREATED_V2 "\n" GRANT (G1, "read_file") "\n" GRANT (G1, "list_directory") "\n", 3, "used more than once" },
    { CREATED_V2 "\n" COMPACTED (G1) "\n" COMPACTED (G1) "\n", 3, "used more than once" },
    { CREATED_V2 "\n" GRANT (G1, "read_file") "\n" REVOKE (G2) "\n", 3, G2 },
    { CREATED_V2 "\n" QUEUE (Q1, "a") "\n" TURN_CONSUMING (Q2) "\n", 3, Q2 },
    { CREATED_V1 "\n" TURN "\n" GRANT (G1, "read_file") "\n", 3, "needs session schema version 2" },
  };
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->w->session_repo, SID, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_auto(NatterSessionScanResult) scanned = { 0 };
      g_autoptr(NatterSessionIndexEntry) entry = NULL;
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(NatterSessionState) state = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *after = NULL;

      write_session_file (f, files[i].contents);

      /* The startup scan and the sidebar's entry. */
      g_assert_false (natter_session_scan_file_sync (f->w->session_repo, SID, &scanned, NULL, &error));
      g_assert_nonnull (error);
      assert_names_line (error->message, file, files[i].line, files[i].reason);
      g_clear_error (&error);
      entry = natter_session_index_fold_one_sync (f->w->session_repo, f->w->turn_repo, SID, NULL);
      assert_names_line (natter_session_index_entry_get_error (entry), file, files[i].line, files[i].reason);

      /* Every operation's read (show, send, export, …). */
      natter_sessions_read_session_async (f->sessions, SID, NULL, natter_test_result_cb, &result);
      natter_test_wait_for_pointer ((gpointer *) &result, TIMEOUT_MS);
      state = natter_sessions_read_session_finish (result, &error);
      g_assert_null (state);
      g_assert_nonnull (error);
      assert_names_line (error->message, file, files[i].line, files[i].reason);

      /* Reported, never repaired. */
      after = file_contents (f, SID);
      g_assert_cmpstr (after, ==, files[i].contents);
    }
}

/* The same for the latest turn's file, which the list reads too. */
static void
test_turn_ordering_error_names_the_file_and_line (Fixture       *f,
                                                  gconstpointer  data)
{
  g_autoptr(JsonNode) created = natter_test_json (
    "{\"type\":\"turn_created\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"schemaVersion\":1,"
    "\"sessionId\":\"" SID "\",\"agent\":{\"requested\":{\"agentId\":\"assistant\"},"
    "\"resolved\":{\"agentId\":\"assistant\",\"systemPrompt\":\"Be brief.\","
    "\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"},\"tools\":[]}},"
    "\"context\":[],\"input\":{\"role\":\"user\",\"content\":\"Hi\"},"
    "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}");
  /* A model call that fails before it was requested. */
  g_autoptr(GPtrArray) out_of_order = natter_test_json_array (
    "{\"type\":\"model_call_failed\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"error\":\"gone\"}", NULL);
  g_autoptr(GFile) turn_file = natter_jsonl_repo_get_file (f->w->turn_repo, TID, NULL);
  g_autoptr(NatterSessionIndexEntry) entry = NULL;
  g_autoptr(GError) error = NULL;

  write_session_file (f, CREATED_V1 "\n" TURN "\n");
  g_assert_true (natter_jsonl_repo_create_sync (f->w->turn_repo, TID, created, NULL, &error));
  g_assert_no_error (error);
  /* Each event is well-formed, so the repository writes it. */
  g_assert_true (natter_jsonl_repo_append_sync (f->w->turn_repo, TID, out_of_order, NULL, &error));
  g_assert_no_error (error);

  entry = natter_session_index_fold_one_sync (f->w->session_repo, f->w->turn_repo, SID, NULL);
  assert_names_line (natter_session_index_entry_get_error (entry), turn_file, 2, "");
}

/* Writes @lines (a NULL-terminated list of event literals) as the
 * session file of @id, each with @id as its sessionId, as an earlier
 * version of Natter wrote them. */
static void
write_lines (Fixture            *f,
             const char         *id,
             const char * const *lines)
{
  g_autoptr(GPtrArray) events = parse_lines (lines);
  g_autoptr(JsonNode) created = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < events->len; i++)
    json_object_set_string_member (json_node_get_object (g_ptr_array_index (events, i)), "sessionId", id);
  created = g_ptr_array_steal_index (events, 0);
  g_assert_true (natter_jsonl_repo_create_sync (f->w->session_repo, id, created, NULL, &error));
  g_assert_true (natter_jsonl_repo_append_sync (f->w->session_repo, id, events, NULL, &error));
  g_assert_no_error (error);
}

/* Files created at version 2 by earlier Natters still read unchanged,
 * also with only version-1 events. */
static void
test_file_created_at_version_2_reads (Fixture       *f,
                                      gconstpointer  data)
{
  const char *only_v1[] = { CREATED_V2, TURN, NULL };
  const char *with_grant[] = { CREATED_V2, TURN, GRANT (G1, "read_file"), NULL };
  const char *other = "2026-11-30T09-14-03Z-0000003-000";
  g_autoptr(NatterSessionState) state = NULL;

  write_lines (f, SID, only_v1);
  state = read_state (f, SID);
  g_assert_cmpint (natter_session_state_get_schema_version (state), ==, 2);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_clear_pointer (&state, natter_session_state_unref);

  write_lines (f, other, with_grant);
  state = read_state (f, other);
  g_assert_cmpint (natter_session_state_get_schema_version (state), ==, 2);
  g_assert_cmpuint (natter_session_state_get_n_grants (state), ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/session-v2/version-2-event-in-a-version-1-file-fails",
                   test_version_2_event_in_version_1_file_fails);
  g_test_add_func ("/session-v2/consumed-queue-ids-in-a-version-1-file-fails",
                   test_consumed_queue_ids_in_version_1_file_fails);
  g_test_add_func ("/session-v2/schema-upgraded-twice-or-at-2-fails", test_schema_upgraded_twice_fails);
  g_test_add_func ("/session-v2/unknown-event-type-still-fails-loudly", test_unknown_event_type_still_fails_loudly);
  g_test_add_func ("/session-v2/grants-fold", test_grants_fold);
  g_test_add_func ("/session-v2/queue-by-supersession", test_queue_by_supersession);
  g_test_add_func ("/session-v2/apply-stays-atomic", test_apply_stays_atomic);
  g_test_add_func ("/session-v2/scan-agrees-with-full-read", test_scan_agrees_with_full_read);
  g_test_add ("/session-v2/version-1-file-gains-version-2-events-and-reads-back", Fixture, NULL,
              fixture_set_up, test_version_1_file_gains_version_2_events_and_reads_back, fixture_tear_down);
  g_test_add ("/session-v2/new-session-is-created-at-version-1", Fixture, NULL,
              fixture_set_up, test_new_session_is_created_at_version_1, fixture_tear_down);
  g_test_add ("/session-v2/file-created-at-version-2-reads", Fixture, NULL,
              fixture_set_up, test_file_created_at_version_2_reads, fixture_tear_down);
  g_test_add ("/session-v2/ordering-errors-name-the-file-and-line", Fixture, NULL,
              fixture_set_up, test_ordering_errors_name_the_file_and_line, fixture_tear_down);
  g_test_add ("/session-v2/turn-ordering-error-names-the-file-and-line", Fixture, NULL,
              fixture_set_up, test_turn_ordering_error_names_the_file_and_line, fixture_tear_down);

  return g_test_run ();
}
