/* test-import.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An imported conversation is data, never authority. The real services
 * over a temporary data directory, with the person's own provider "test"
 * (a scripted server on loopback, model "m"), import conversations
 * shared by someone else: archives whose "Always Allow" grant, queued
 * message, working folder, unfinished answer and server address must all
 * stay behind, and a ChatGPT export, whose turns name an agent and a
 * provider nobody here has. The seams: a tool asks for permission after
 * the import; the queued message is never sent; a plain send, a new
 * version (Try Again) and a compaction go to the person's own provider,
 * while a second scripted server, the address the archive names,
 * receives nothing; an archive whose compaction was not used yet keeps
 * it; the mark of imported turns survives a restart.
 */

#include "config.h"

#include <string.h>

#include "natter-session-index-entry.h"
#include "natter-session-grants-queue.h"
#include "natter-test-services.h"
#include "natter-test-support.h"
#include "natter-turn-reducer.h"

#define SAY NATTER_TEST_SAY
#define SERVE(f, ...) NATTER_TEST_SERVE ((f), "/v1/chat/completions", __VA_ARGS__)

/* The model asks to read @path with read_file. */
#define READ_FILE_CALL \
  { .status = 200, .content_type = NATTER_TEST_SSE, \
    .chunks = NATTER_TEST_CHUNKS ( \
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\"," \
      "\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"notes.txt\\\"}\"}}]}}]}\n\n", \
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" NATTER_TEST_SSE_DONE) }

typedef struct
{
  NatterTestServices  base;
  NatterTestServer   *elsewhere;   /* the address an archive names: must hear nothing */
} Fixture;

static void
set_up (Fixture       *f,
        gconstpointer  data)
{
  natter_test_services_set_up (&f->base, data);
  /* No script: any request fails the test. */
  f->elsewhere = natter_test_server_new (NULL, 0);
}

static void
tear_down (Fixture       *f,
           gconstpointer  data)
{
  /* Whatever happened, the address the file named heard nothing. */
  g_assert_cmpuint (f->elsewhere->paths->len, ==, 0);
  natter_test_server_free (f->elsewhere);
  natter_test_services_tear_down (&f->base, data);
}

static NatterImportReport *
import_text (Fixture    *f,
             const char *text,
             const char *from)
{
  g_autoptr(GFile) file = g_file_get_child (f->base.dir, from != NULL ? "conversations.json" : "shared.json");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterImportReport *report;

  g_assert_true (g_file_replace_contents (file, text, strlen (text), NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL,
                                          &error));
  g_assert_no_error (error);
  natter_sessions_import_async (f->base.sessions, file, from, NULL, natter_test_result_cb, &result);
  report = natter_sessions_import_finish (f->base.sessions, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  return report;
}

/* Imports @shared and returns the new session's id. */
static char *
import_shared (Fixture            *f,
               const NatterTestShared *shared,
               NatterImportReport **out_report)
{
  g_autofree char *text = natter_test_shared_archive (shared);
  g_autoptr(NatterImportReport) report = import_text (f, text, NULL);
  char *session_id;

  g_assert_cmpuint (report->session_ids->len, ==, 1);
  session_id = g_strdup (g_ptr_array_index (report->session_ids, 0));
  if (out_report != NULL)
    *out_report = g_steal_pointer (&report);
  return session_id;
}

/* Sends @request through the pipeline both front ends share and waits
 * for its turn and everything after it. */
static NatterSendResult *
send_request (Fixture              *f,
              NatterMessageRequest *request)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterSendPipeline *pipeline = natter_services_get_send_pipeline (f->base.services);
  NatterSendResult *sent;

  natter_message_request_set_auto_title (request, FALSE);
  natter_send_pipeline_send_async (pipeline, request, NULL, natter_test_result_cb, &result);
  sent = natter_send_pipeline_send_finish (pipeline, natter_test_services_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (sent->turn_id);
  natter_test_services_settle (&f->base, sent->turn_id);
  return sent;
}

/* A plain message, as typed into the conversation with nothing chosen. */
static NatterSendResult *
send_plain (Fixture    *f,
            const char *session_id,
            const char *text)
{
  g_autoptr(NatterMessageRequest) request = natter_message_request_new (text);

  natter_message_request_set_session (request, session_id);
  return send_request (f, request);
}

static NatterTurnState *
read_turn (Fixture    *f,
           const char *turn_id)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  NatterTurnState *turn;

  events = natter_jsonl_repo_read_sync (natter_services_get_turn_repo (f->base.services), turn_id, NULL, &error);
  g_assert_no_error (error);
  turn = natter_turn_reduce (events, &error);
  g_assert_no_error (error);
  return turn;
}

static NatterSessionState *
read_session (Fixture    *f,
              const char *session_id)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionState *state;

  events = natter_jsonl_repo_read_sync (natter_services_get_session_repo (f->base.services), session_id, NULL,
                                        &error);
  g_assert_no_error (error);
  state = natter_session_reduce (events, &error);
  g_assert_no_error (error);
  return state;
}

/* `agent.resolved`'s agent and model of @turn_id, as "agent provider/model". */
static char *
turn_agent_and_model (Fixture    *f,
                      const char *turn_id)
{
  g_autoptr(NatterTurnState) turn = read_turn (f, turn_id);
  JsonObject *resolved = json_object_get_object_member (json_object_get_object_member (
                           natter_turn_state_get_definition (turn), "agent"), "resolved");
  JsonObject *model = json_object_get_object_member (resolved, "model");

  return g_strdup_printf ("%s %s/%s", json_object_get_string_member (resolved, "agentId"),
                          json_object_get_string_member (model, "provider"),
                          json_object_get_string_member (model, "model"));
}

static NatterSessionIndexEntry *
entry_of (Fixture    *f,
          const char *session_id)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (natter_services_get_index (f->base.services),
                                                                session_id);

  g_assert_nonnull (entry);
  return entry;
}

/* The archive's "Always Allow" of read_file is not the person's: after
 * the import, the model's call of read_file asks for permission. */
static void
test_grants_left_behind (Fixture       *f,
                         gconstpointer  data)
{
  NatterTestShared shared = { .provider = "test", .model = "m", .grant = TRUE };
  g_autoptr(NatterImportReport) report = NULL;
  g_autoptr(NatterSendResult) sent = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterTurnState) turn = NULL;
  g_autofree char *session_id = NULL;

  SERVE (&f->base, READ_FILE_CALL);
  session_id = import_shared (f, &shared, &report);
  sent = send_plain (f, session_id, "Read notes.txt");
  turn = read_turn (f, sent->turn_id);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry_of (f, session_id)), ==, "suspended");
  g_assert_cmpuint (natter_turn_state_get_n_pending_permissions (turn), ==, 1);
  state = read_session (f, session_id);
  g_assert_cmpuint (natter_session_state_get_n_grants (state), ==, 0);
  g_assert_cmpuint (report->n_grants, ==, 1);
}

/* The archive's queued message (to its own address, with
 * auto-permission) is never sent: it is not in the imported session, and
 * the next message goes alone. */
static void
test_queue_left_behind (Fixture       *f,
                        gconstpointer  data)
{
  NatterTestShared shared = { .provider = "test", .model = "m", .queued = TRUE };
  g_autoptr(NatterImportReport) report = NULL;
  g_autoptr(NatterSendResult) sent = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *body = NULL;

  shared.provider = f->elsewhere->base_url;
  SERVE (&f->base, SAY ("Here."));
  session_id = import_shared (f, &shared, &report);
  state = read_session (f, session_id);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 0);
  g_assert_cmpuint (report->n_queued, ==, 1);

  sent = send_plain (f, session_id, "Anything new?");
  g_clear_pointer (&state, natter_session_state_unref);
  state = read_session (f, session_id);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 2);
  g_assert_cmpuint (f->base.server->bodies->len, ==, 1);
  body = g_strdup (g_ptr_array_index (f->base.server->bodies, 0));
  g_assert_nonnull (strstr (body, "Anything new?"));
  g_assert_null (strstr (body, "Send me the notes"));
}

/* A plain send goes to the person's own provider and model, never to
 * the address the archive recorded, which stays a label. */
static void
test_send_goes_to_own_provider (Fixture       *f,
                                gconstpointer  data)
{
  NatterTestShared shared = { .model = "m" };
  g_autoptr(NatterImportReport) report = NULL;
  g_autoptr(NatterSendResult) sent = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *chosen = NULL;
  g_autoptr(JsonObject) body = NULL;

  shared.provider = f->elsewhere->base_url;
  SERVE (&f->base, SAY ("Mine."));
  session_id = import_shared (f, &shared, &report);
  /* Shown as a label. */
  g_assert_cmpstr (json_object_get_string_member (natter_session_index_entry_get_last_model (entry_of (f, session_id)),
                                                  "provider"), ==, f->elsewhere->base_url);

  sent = send_plain (f, session_id, "Who answers?");
  chosen = turn_agent_and_model (f, sent->turn_id);
  g_assert_cmpstr (chosen, ==, "assistant test/m");
  g_assert_cmpuint (report->n_endpoints, ==, 1);
  g_assert_cmpuint (f->base.server->bodies->len, ==, 1);
  body = natter_test_services_request_body (&f->base, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "m");
  /* The conversation goes on: the imported history is sent along. */
  g_assert_nonnull (strstr (g_ptr_array_index (f->base.server->bodies, 0), "Hello from elsewhere."));
  g_assert_false (natter_session_index_entry_get_latest_turn_imported (entry_of (f, session_id)));
}

/* The recorded model is offered when the person has it: a configured
 * provider, named by its id. */
static void
test_recorded_model_offered (Fixture       *f,
                             gconstpointer  data)
{
  NatterTestShared shared = { .provider = "test", .model = "bigger" };
  g_autoptr(NatterSendResult) sent = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *chosen = NULL;
  g_autoptr(JsonObject) body = NULL;

  SERVE (&f->base, SAY ("Bigger."));
  session_id = import_shared (f, &shared, NULL);
  sent = send_plain (f, session_id, "Still you?");
  chosen = turn_agent_and_model (f, sent->turn_id);
  g_assert_cmpstr (chosen, ==, "assistant test/bigger");
  body = natter_test_services_request_body (&f->base, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "bigger");
}

/* An answer that waited for permission in the archive is brought in
 * stopped: allowing it now is refused, and nothing is sent anywhere. */
static void
test_unfinished_turn_stopped (Fixture       *f,
                              gconstpointer  data)
{
  NatterTestShared shared = { .model = "m", .waiting = TRUE };
  g_autoptr(NatterImportReport) report = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterTurnState) turn = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *session_id = NULL;
  const char *latest;

  shared.provider = f->elsewhere->base_url;
  SERVE (&f->base, SAY ("Unused."));
  session_id = import_shared (f, &shared, &report);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry_of (f, session_id)), ==, "cancelled");
  state = read_session (f, session_id);
  latest = natter_session_state_get_latest_turn_id (state);
  turn = read_turn (f, latest);
  g_assert_cmpint (natter_derive_turn_status (turn), ==, NATTER_TURN_STATUS_CANCELLED);

  natter_sessions_respond_to_permission_async (f->base.sessions, latest, "c1", "allow", NULL, NULL, natter_test_result_cb,
                                               &result);
  outcome = natter_sessions_respond_to_permission_finish (f->base.sessions,
                                                          natter_test_services_wait_result (&result), &error);
  g_assert_null (outcome);
  g_assert_nonnull (error);
  g_assert_cmpuint (f->base.server->bodies->len, ==, 0);
  g_assert_cmpuint (report->n_stopped, ==, 1);
}

/* The archive's working folder is not where the person's tools work. */
static void
test_working_folder_left_behind (Fixture       *f,
                                 gconstpointer  data)
{
  NatterTestShared shared = { .provider = "test", .model = "m", .cwd = TRUE };
  g_autoptr(NatterImportReport) report = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autofree char *session_id = NULL;

  SERVE (&f->base, SAY ("Unused."));
  session_id = import_shared (f, &shared, &report);
  state = read_session (f, session_id);
  g_assert_null (natter_session_state_get_cwd (state));
  g_assert_cmpuint (report->n_working_folders, ==, 1);
}

static char *
compact (Fixture    *f,
         const char *session_id,
         GError    **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_compact_async (f->base.sessions, session_id, 1, NULL, natter_test_result_cb, &result);
  return natter_sessions_compact_finish (f->base.sessions, natter_test_services_wait_result (&result), error);
}

/* A compaction no turn used yet comes along with the turns it keeps:
 * its first kept turn is the imported session's own, and the next
 * message gets the summary and that turn. */
static void
test_unused_compaction_kept (Fixture       *f,
                             gconstpointer  data)
{
  NatterTestShared shared = { .provider = "test", .model = "m", .compacted = TRUE };
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSendResult) sent = NULL;
  g_autofree char *session_id = NULL;
  const char *kept;
  const char *body;

  SERVE (&f->base, SAY ("Go on."));
  session_id = import_shared (f, &shared, NULL);
  state = read_session (f, session_id);
  g_assert_nonnull (natter_session_state_get_compaction (state));
  kept = json_object_get_string_member (natter_session_state_get_compaction (state), "firstKeptTurnId");
  g_assert_cmpstr (kept, ==, natter_session_state_get_turn (state, 2)->turn_id);

  sent = send_plain (f, session_id, "Fourth");
  body = g_ptr_array_index (f->base.server->bodies, 0);
  g_assert_nonnull (strstr (body, "They said hello twice."));
  g_assert_nonnull (strstr (body, "Third answer."));
  g_assert_null (strstr (body, "Second answer."));
}

/* Compacting a conversation whose turns were answered elsewhere asks the
 * person's own model, never the address the archive names. */
static void
test_compaction_uses_own_model (Fixture       *f,
                                gconstpointer  data)
{
  NatterTestShared shared = { .model = "m", .compacted = TRUE };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) body = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *compaction_id = NULL;

  shared.provider = f->elsewhere->base_url;
  SERVE (&f->base, SAY ("A summary."));
  session_id = import_shared (f, &shared, NULL);
  compaction_id = compact (f, session_id, &error);
  g_assert_no_error (error);
  g_assert_nonnull (compaction_id);
  g_assert_cmpuint (f->base.server->bodies->len, ==, 1);
  body = natter_test_services_request_body (&f->base, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "m");
}

/* A ChatGPT conversation goes on here, on the person's own provider and
 * with Assistant, with no word about an agent "imported" or a provider
 * "chatgpt" nobody has: a plain message, another try at an imported
 * answer (a new version of its message) and a summary of it. */
static void
test_chatgpt_continues_on_own_provider (Fixture       *f,
                                        gconstpointer  data)
{
  g_autofree char *text = natter_test_chatgpt_fixture_subset (1, 2, 3, 7, 0);
  g_autoptr(NatterImportReport) report = NULL;
  g_autoptr(NatterSendResult) sent = NULL;
  g_autoptr(NatterSendResult) again = NULL;
  g_autoptr(NatterSessionState) trip = NULL;
  g_autoptr(NatterMessageRequest) request = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *chosen = NULL;
  g_autofree char *chosen_again = NULL;
  g_autofree char *compaction_id = NULL;
  g_autofree char *agent = NULL;
  gboolean gone = TRUE;
  const char *trip_id;

  SERVE (&f->base, SAY ("Go in June."), SAY ("Or in May."), SAY ("A summary."));
  report = import_text (f, text, "chatgpt");
  trip_id = g_ptr_array_index (report->session_ids, 0);
  trip = read_session (f, trip_id);

  agent = natter_send_pipeline_dup_agent (natter_services_get_send_pipeline (f->base.services), trip_id, &gone);
  g_assert_cmpstr (agent, ==, "assistant");
  g_assert_false (gone);

  sent = send_plain (f, trip_id, "And the weather?");
  chosen = turn_agent_and_model (f, sent->turn_id);
  g_assert_cmpstr (chosen, ==, "assistant test/m");
  g_assert_nonnull (strstr (g_ptr_array_index (f->base.server->bodies, 0), "Try the fjords."));

  /* Try Again on the imported first answer: a new version of its
   * message, on the person's own provider. */
  request = natter_message_request_new_again (natter_session_state_get_turn (trip, 0)->turn_id);
  again = send_request (f, request);
  g_assert_true (again->created);
  chosen_again = turn_agent_and_model (f, again->turn_id);
  g_assert_cmpstr (chosen_again, ==, "assistant test/m");
  g_assert_nonnull (strstr (g_ptr_array_index (f->base.server->bodies, 1), "Where to go in Norway?"));

  /* And the imported conversation is summarized on that model too. */
  compaction_id = compact (f, g_ptr_array_index (report->session_ids, 1), &error);
  g_assert_no_error (error);
  g_assert_nonnull (compaction_id);
  g_assert_cmpuint (f->base.server->bodies->len, ==, 3);
}

/* The mark of imported turns is read back from the files after a
 * restart, as the write-through set it. */
static void
test_mark_survives_restart (Fixture       *f,
                            gconstpointer  data)
{
  NatterTestShared shared = { .model = "m" };
  g_autoptr(NatterSendResult) sent = NULL;
  g_autofree char *session_id = NULL;

  shared.provider = f->elsewhere->base_url;
  SERVE (&f->base, SAY ("Mine."));
  session_id = import_shared (f, &shared, NULL);
  g_assert_true (natter_session_index_entry_get_latest_turn_imported (entry_of (f, session_id)));
  natter_test_services_reload (&f->base);
  g_assert_true (natter_session_index_entry_get_latest_turn_imported (entry_of (f, session_id)));
  sent = send_plain (f, session_id, "Who answers?");
  g_assert_false (natter_session_index_entry_get_latest_turn_imported (entry_of (f, session_id)));
  natter_test_services_reload (&f->base);
  g_assert_false (natter_session_index_entry_get_latest_turn_imported (entry_of (f, session_id)));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, set_up, func, tear_down)
  ADD ("/import/grants-left-behind", test_grants_left_behind);
  ADD ("/import/queue-left-behind", test_queue_left_behind);
  ADD ("/import/send-goes-to-own-provider", test_send_goes_to_own_provider);
  ADD ("/import/recorded-model-offered", test_recorded_model_offered);
  ADD ("/import/unfinished-turn-stopped", test_unfinished_turn_stopped);
  ADD ("/import/working-folder-left-behind", test_working_folder_left_behind);
  ADD ("/import/unused-compaction-kept", test_unused_compaction_kept);
  ADD ("/import/compaction-uses-own-model", test_compaction_uses_own_model);
  ADD ("/import/chatgpt-continues-on-own-provider", test_chatgpt_continues_on_own_provider);
  ADD ("/import/mark-survives-restart", test_mark_survives_restart);
#undef ADD

  return g_test_run ();
}
