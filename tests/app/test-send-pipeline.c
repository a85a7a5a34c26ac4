/* test-send-pipeline.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one way a message becomes a turn (docs/sessions.md §1–§3), over the
 * real services and a scripted server whose request bodies are what the
 * model received: a first message makes its conversation and nothing is
 * left of one that was refused; a failed message tried again, with or
 * without compaction, reaches the model once; a message sent again keeps
 * its files; a damaged history refuses every message.
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "natter-attachment-intake.h"
#include "natter-runtime-error.h"
#include "natter-send-pipeline.h"
#include "natter-session-error.h"
#include "natter-sessions-settings.h"
#include "natter-test-services.h"
#include "natter-test-support.h"

#define SAY NATTER_TEST_SAY
#define SAY_USING NATTER_TEST_SAY_USING
#define BROKEN NATTER_TEST_BROKEN
#define OVERFLOW \
  { .status = 400, .content_type = "application/json", \
    .body = "{\"error\":{\"message\":\"This model's maximum context length is 1000 tokens\"," \
            "\"code\":\"context_length_exceeded\"}}" }

typedef NatterTestServices Fixture;

/* The services over the scripted server, without automatic titles (a
 * title request would take a scripted answer). */
#define SERVE(f, ...) \
  G_STMT_START { \
    g_settings_set_boolean ((f)->gsettings, "auto-title", FALSE); \
    NATTER_TEST_SERVE ((f), NULL, __VA_ARGS__); \
  } G_STMT_END

static NatterSendPipeline *
pipeline (Fixture *f)
{
  return natter_services_get_send_pipeline (f->services);
}

/* Sends @request (taken) and returns what became of it, or NULL with
 * @error. */
static NatterSendResult *
send_request (Fixture               *f,
              NatterMessageRequest  *request,
              GError               **error)
{
  g_autoptr(NatterMessageRequest) owned = request;
  g_autoptr(GAsyncResult) result = NULL;

  natter_send_pipeline_send_async (pipeline (f), owned, NULL, natter_test_result_cb, &result);
  return natter_send_pipeline_send_finish (pipeline (f), natter_test_services_wait_result (&result), error);
}

/* @text to @session_id (NULL: a new conversation); waits for its turn
 * to settle. Returns the result. */
static NatterSendResult *
say (Fixture    *f,
     const char *session_id,
     const char *text)
{
  NatterMessageRequest *request = natter_message_request_new (text);
  g_autoptr(GError) error = NULL;
  NatterSendResult *sent;

  natter_message_request_set_session (request, session_id);
  sent = send_request (f, request, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sent->turn_id);
  natter_test_services_settle (f, sent->turn_id);
  return sent;
}

/* @turn_id's message again, as a new version; waits for its turn. */
static NatterSendResult *
again (Fixture    *f,
       const char *turn_id,
       gboolean    compact_first)
{
  NatterMessageRequest *request = natter_message_request_new_again (turn_id);
  g_autoptr(GError) error = NULL;
  NatterSendResult *sent;

  natter_message_request_set_compact_first (request, compact_first);
  sent = send_request (f, request, &error);
  g_assert_no_error (error);
  g_assert_true (sent->created);
  natter_test_services_settle (f, sent->turn_id);
  return sent;
}

static const char *
status_of (Fixture    *f,
           const char *session_id)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (natter_services_get_index (f->services), session_id);

  g_assert_nonnull (entry);
  return natter_session_index_entry_get_latest_turn_status (entry);
}

/* How many user messages of request @index say exactly @text. */
static guint
times_sent (Fixture    *f,
            guint       index,
            const char *text)
{
  g_autoptr(JsonObject) body = natter_test_services_request_body (f, index);
  JsonArray *messages = json_object_get_array_member (body, "messages");
  guint n = 0;

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      JsonNode *content = json_object_get_member (message, "content");

      if (g_strcmp0 (json_object_get_string_member (message, "role"), "user") != 0)
        continue;
      if (JSON_NODE_HOLDS_VALUE (content) && g_strcmp0 (json_node_get_string (content), text) == 0)
        n++;
      else if (JSON_NODE_HOLDS_ARRAY (content))
        for (guint j = 0; j < json_array_get_length (json_node_get_array (content)); j++)
          {
            JsonObject *part = json_array_get_object_element (json_node_get_array (content), j);

            if (g_strcmp0 (json_object_get_string_member_with_default (part, "text", NULL), text) == 0)
              n++;
          }
    }
  return n;
}

/* The model request @index went to. */
static char *
model_of (Fixture *f,
          guint    index)
{
  g_autoptr(JsonObject) body = natter_test_services_request_body (f, index);

  return g_strdup (json_object_get_string_member (body, "model"));
}

#define assert_model(f, index, expected) \
  G_STMT_START { \
    g_autofree char *model_ = model_of ((f), (index)); \
    g_assert_cmpstr (model_, ==, (expected)); \
  } G_STMT_END

static guint
n_session_files (Fixture *f)
{
  g_autoptr(GPtrArray) paths = natter_test_list_files (f->dir, "storage/sessions");

  return paths->len;
}

/* A first message makes its conversation: nothing is written before it. */
static void
test_first_message_makes_conversation (Fixture       *f,
                                       gconstpointer  data)
{
  g_autoptr(NatterSendResult) sent = NULL;

  SERVE (f, SAY ("Hello"));
  g_assert_cmpuint (n_session_files (f), ==, 0);
  sent = say (f, NULL, "Hi");
  g_assert_true (sent->created);
  g_assert_cmpuint (n_session_files (f), ==, 1);
  g_assert_cmpstr (status_of (f, sent->session_id), ==, "completed");
  g_assert_cmpuint (times_sent (f, 0, "Hi"), ==, 1);
}

/* A first message refused once its conversation was made (an agent that
 * does not exist): the conversation goes again; none is left empty. */
static void
test_refused_first_message_leaves_nothing (Fixture       *f,
                                           gconstpointer  data)
{
  NatterMessageRequest *request = natter_message_request_new ("Hi");
  g_autoptr(NatterSendResult) sent = NULL;
  g_autoptr(GError) error = NULL;

  SERVE (f, SAY ("unused"));
  natter_message_request_set_agent (request, "nobody");
  sent = send_request (f, request, &error);
  g_assert_null (sent);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_AGENT);
  g_assert_cmpuint (n_session_files (f), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (natter_services_get_index (f->services))), ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 0);
}

/* A failed message tried again is a new version of it: the model gets
 * it once, however often it is tried, and a message after the new
 * version's answer carries it once too. The failed tries stay where
 * they were. */
static void
test_try_again_after_failure_sends_once (Fixture       *f,
                                         gconstpointer  data)
{
  g_autoptr(NatterSendResult) first = NULL;
  g_autoptr(NatterSendResult) failed = NULL;
  g_autoptr(NatterSendResult) retry1 = NULL;
  g_autoptr(NatterSendResult) retry2 = NULL;
  g_autoptr(NatterSendResult) next = NULL;

  SERVE (f, SAY ("A1"), BROKEN, BROKEN, SAY ("A2"), SAY ("A3"));
  first = say (f, NULL, "Q1");
  failed = say (f, first->session_id, "Q2");
  g_assert_cmpstr (status_of (f, first->session_id), ==, "failed");

  retry1 = again (f, failed->turn_id, FALSE);
  g_assert_cmpstr (status_of (f, retry1->session_id), ==, "failed");
  retry2 = again (f, retry1->turn_id, FALSE);
  g_assert_cmpstr (status_of (f, retry2->session_id), ==, "completed");
  next = say (f, retry2->session_id, "Q3");

  g_assert_cmpuint (f->server->bodies->len, ==, 5);
  for (guint i = 1; i < 5; i++)
    {
      g_assert_cmpuint (times_sent (f, i, "Q1"), ==, 1);
      g_assert_cmpuint (times_sent (f, i, "Q2"), ==, 1);
    }
  g_assert_cmpuint (times_sent (f, 4, "Q3"), ==, 1);
  /* The version before keeps its failed try. */
  g_assert_cmpstr (status_of (f, first->session_id), ==, "failed");
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (
                      natter_session_index_lookup (natter_services_get_index (f->services), first->session_id)), ==, 2);
}

/* A plain message after a failure continues what the person sees: the
 * failed message (once) and the new one. */
static void
test_message_after_failure_carries_it_once (Fixture       *f,
                                            gconstpointer  data)
{
  g_autoptr(NatterSendResult) first = NULL;
  g_autoptr(NatterSendResult) failed = NULL;
  g_autoptr(NatterSendResult) next = NULL;

  SERVE (f, SAY ("A1"), BROKEN, SAY ("A3"));
  first = say (f, NULL, "Q1");
  failed = say (f, first->session_id, "Q2");
  next = say (f, first->session_id, "Q3");
  g_assert_false (next->created);
  g_assert_cmpuint (times_sent (f, 2, "Q2"), ==, 1);
  g_assert_cmpuint (times_sent (f, 2, "Q3"), ==, 1);
}

/* Compact and Continue: the failed message again, in a new version whose
 * earlier turns are summarized first; the model gets the summary, the
 * turn before the message, and the message once. */
static void
test_compact_and_continue_sends_once (Fixture       *f,
                                      gconstpointer  data)
{
  g_autoptr(NatterSendResult) one = NULL;
  g_autoptr(NatterSendResult) two = NULL;
  g_autoptr(NatterSendResult) three = NULL;
  g_autoptr(NatterSendResult) retry = NULL;
  const char *last;

  SERVE (f, SAY ("A1"), SAY ("A2"), OVERFLOW, SAY ("Plan B was chosen."), SAY ("A3"));
  one = say (f, NULL, "Q1");
  two = say (f, one->session_id, "Q2");
  three = say (f, one->session_id, "Q3 is long");
  g_assert_cmpstr (status_of (f, one->session_id), ==, "failed");

  retry = again (f, three->turn_id, TRUE);
  g_assert_nonnull (retry->compaction_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 5);
  last = g_ptr_array_index (f->server->bodies, 4);
  g_assert_nonnull (strstr (last, "Plan B was chosen."));
  g_assert_null (strstr (last, "\"Q1\""));
  g_assert_cmpuint (times_sent (f, 4, "Q2"), ==, 1);
  g_assert_cmpuint (times_sent (f, 4, "Q3 is long"), ==, 1);
}

/* Sent again, a message keeps its files; with a file whose blob is gone,
 * nothing is sent (another answer without it would answer another
 * question). */
static void
test_again_keeps_attachments (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GFile) file = g_file_get_child (f->dir, "notes.txt");
  g_autoptr(NatterAttachmentSource) source = NULL;
  g_autoptr(NatterSendResult) failed = NULL;
  g_autoptr(NatterSendResult) retry = NULL;
  g_autoptr(NatterSendResult) refused = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) blobs = NULL;
  NatterMessageRequest *request;
  const char *body;

  SERVE (f, BROKEN, SAY ("Read it"));
  g_assert_true (g_file_replace_contents (file, "the secret is 42\n", 17, NULL, FALSE, 0, NULL, NULL, &error));
  g_assert_no_error (error);
  source = natter_attachment_source_new_for_file (file);
  request = natter_message_request_new ("Summarize the file");
  natter_message_request_add_attachment (request, source);
  failed = send_request (f, request, &error);
  g_assert_no_error (error);
  natter_test_services_settle (f, failed->turn_id);
  g_assert_cmpstr (status_of (f, failed->session_id), ==, "failed");

  retry = again (f, failed->turn_id, FALSE);
  body = g_ptr_array_index (f->server->bodies, 1);
  g_assert_nonnull (strstr (body, "the secret is 42"));
  g_assert_cmpuint (times_sent (f, 1, "Summarize the file"), ==, 1);

  /* The blob goes: the message cannot be sent again whole. */
  blobs = natter_test_list_files (f->dir, "storage/blobs");
  g_assert_cmpuint (blobs->len, ==, 1);
  g_assert_cmpint (g_unlink (g_ptr_array_index (blobs, 0)), ==, 0);
  refused = send_request (f, natter_message_request_new_again (retry->turn_id), &error);
  g_assert_null (refused);
  g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
}

/* A message whose files could not be stored is refused whole, with a
 * Retry worth offering; the same request sent again carries the files. */
static void
test_retry_after_storage_failure (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(GFile) file = g_file_get_child (f->dir, "notes.txt");
  g_autoptr(GFile) blobs = g_file_resolve_relative_path (f->dir, "storage/blobs");
  g_autofree char *blobs_path = g_file_get_path (blobs);
  g_autoptr(NatterAttachmentSource) source = NULL;
  g_autoptr(NatterMessageRequest) request = natter_message_request_new ("Summarize the file");
  g_autoptr(NatterSendResult) refused = NULL;
  g_autoptr(NatterSendResult) sent = NULL;
  g_autoptr(GError) error = NULL;

  SERVE (f, SAY ("Read it"));
  g_assert_true (g_file_set_contents (g_file_peek_path (file), "the secret is 42\n", -1, &error));
  natter_test_remove_tree (blobs);
  g_assert_true (g_file_set_contents (blobs_path, "not a folder", -1, &error));
  source = natter_attachment_source_new_for_file (file);
  natter_message_request_add_attachment (request, source);

  refused = send_request (f, natter_message_request_copy (request), &error);
  g_assert_null (refused);
  g_assert_true (natter_send_error_can_retry (error));
  g_clear_error (&error);
  g_assert_cmpuint (n_session_files (f), ==, 0);

  g_assert_cmpint (g_unlink (blobs_path), ==, 0);
  sent = send_request (f, natter_message_request_copy (request), &error);
  g_assert_no_error (error);
  natter_test_services_settle (f, sent->turn_id);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "the secret is 42"));
}

/* A damaged earlier turn: every message is refused, naming the file,
 * whether sent, queued or tried again; no turn is made, nothing goes to
 * the model. */
static void
test_damaged_history_refuses (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(NatterSendResult) one = NULL;
  g_autoptr(NatterSendResult) two = NULL;
  g_autoptr(GFile) turn_file = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  NatterMessageRequest *request;

  SERVE (f, SAY ("A1"), SAY ("A2"));
  one = say (f, NULL, "Q1");
  two = say (f, one->session_id, "Q2");
  turn_file = natter_jsonl_repo_get_file (natter_services_get_turn_repo (f->services), one->turn_id, NULL);
  path = g_file_get_path (turn_file);
  natter_test_append_file (path, "{\"type\":\"turn_comp");
  natter_test_services_reload (f);

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(NatterSendResult) refused = NULL;

      request = i < 2 ? natter_message_request_new ("Q3") : natter_message_request_new_again (two->turn_id);
      natter_message_request_set_session (request, one->session_id);
      natter_message_request_set_queue (request, i == 1);
      refused = send_request (f, request, &error);
      g_assert_null (refused);
      g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
      g_assert_nonnull (strstr (error->message, path));
      g_assert_false (natter_send_error_can_retry (error));
      g_clear_error (&error);
    }
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_cmpuint (n_session_files (f), ==, 1);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (
                     natter_session_index_lookup (natter_services_get_index (f->services), one->session_id)), ==,
                   two->turn_id);
}

/* An edit is a new version with the new words, after the turns before
 * the message; the old version is untouched. */
static void
test_edit_is_a_version (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(NatterSendResult) one = NULL;
  g_autoptr(NatterSendResult) two = NULL;
  g_autoptr(NatterSendResult) edited = NULL;
  g_autoptr(GError) error = NULL;
  NatterMessageRequest *request;
  NatterSessionIndexEntry *entry;

  SERVE (f, SAY ("A1"), SAY ("A2"), SAY ("A2 again"));
  one = say (f, NULL, "Q1");
  two = say (f, one->session_id, "Q2");
  request = natter_message_request_new ("Q2, better");
  natter_message_request_set_session (request, one->session_id);
  natter_message_request_set_version_of (request, two->turn_id);
  edited = send_request (f, request, &error);
  g_assert_no_error (error);
  natter_test_services_settle (f, edited->turn_id);

  g_assert_true (edited->created);
  g_assert_cmpstr (edited->session_id, !=, one->session_id);
  entry = natter_session_index_lookup (natter_services_get_index (f->services), edited->session_id);
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, one->session_id);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==,
                   natter_session_index_entry_get_title (
                     natter_session_index_lookup (natter_services_get_index (f->services), one->session_id)));
  g_assert_cmpuint (times_sent (f, 2, "Q1"), ==, 1);
  g_assert_cmpuint (times_sent (f, 2, "Q2"), ==, 0);
  g_assert_cmpuint (times_sent (f, 2, "Q2, better"), ==, 1);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (
                      natter_session_index_lookup (natter_services_get_index (f->services), one->session_id)), ==, 2);
}

/* A branch made on purpose, with no message of its own yet, shows the
 * messages it was made at; the person gives it parameters and a folder,
 * then edits one of those messages there. The new session is a branch
 * too (the branch has no title to make it a version), a conversation of
 * its own that starts where the person made it: with the branch's
 * parameters and folder, which its first message is sent with — for
 * the first message and for a later one alike. */
static void
test_edit_in_new_branch_keeps_its_settings (Fixture       *f,
                                            gconstpointer  data)
{
  g_autoptr(NatterSendResult) one = NULL;
  g_autoptr(NatterSendResult) two = NULL;
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  const char *folder = "2026-11-30T09-14-03Z-0000077-000";
  const char *const edited[] = { "Q1, better", "Q2, better" };

  SERVE (f, SAY ("A1"), SAY ("A2"), SAY ("A1 again"), SAY ("A2 again"));
  one = say (f, NULL, "Q1");
  two = say (f, one->session_id, "Q2");
  parameters->has_temperature = TRUE;
  parameters->temperature = 1.5;
  natter_generation_parameters_set_system_instruction (parameters, "Answer in verse.");
  for (guint i = 0; i < G_N_ELEMENTS (edited); i++)
    {
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(NatterSendResult) sent = NULL;
      g_autofree char *branch = NULL;
      g_autoptr(JsonObject) body = NULL;
      JsonObject *system;
      NatterMessageRequest *request;

      natter_sessions_fork_async (f->sessions, one->session_id, two->turn_id, NULL, NULL, natter_test_result_cb,
                                  &result);
      branch = natter_sessions_fork_finish (f->sessions, natter_test_services_wait_result (&result), &error);
      g_assert_no_error (error);
      g_clear_object (&result);
      natter_sessions_set_parameters_async (f->sessions, branch, parameters, NULL, natter_test_result_cb, &result);
      g_assert_true (natter_sessions_set_parameters_finish (f->sessions, natter_test_services_wait_result (&result),
                                                            &error));
      g_clear_object (&result);
      natter_sessions_set_folder_async (f->sessions, branch, folder, NULL, natter_test_result_cb, &result);
      g_assert_true (natter_sessions_set_folder_finish (f->sessions, natter_test_services_wait_result (&result),
                                                        &error));

      request = natter_message_request_new (edited[i]);
      natter_message_request_set_session (request, branch);
      natter_message_request_set_version_of (request, i == 0 ? one->turn_id : two->turn_id);
      sent = send_request (f, request, &error);
      g_assert_no_error (error);
      natter_test_services_settle (f, sent->turn_id);

      g_assert_true (sent->created);
      g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->sessions,
                                                                                              sent->session_id),
                                                         parameters));
      g_assert_cmpstr (natter_sessions_get_folder_id (f->sessions, sent->session_id), ==, folder);
      body = natter_test_services_request_body (f, 2 + i);
      g_assert_cmpfloat (json_object_get_double_member_with_default (body, "temperature", 0), ==, 1.5);
      system = json_array_get_object_element (json_object_get_array_member (body, "messages"), 0);
      g_assert_nonnull (strstr (json_object_get_string_member (system, "content"), "Answer in verse."));
    }
}

/* The model rule is the pipeline's, whoever sends: a conversation goes
 * on with its last turn's model; a model picked for the message wins; a
 * provider that is not configured makes no turn and no conversation. */
static void
test_model_rule (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(NatterSendResult) one = NULL;
  g_autoptr(NatterSendResult) two = NULL;
  g_autoptr(NatterSendResult) picked = NULL;
  g_autoptr(NatterSendResult) gone = NULL;
  g_autoptr(GError) error = NULL;
  NatterMessageRequest *request;

  SERVE (f, SAY ("A1"), SAY ("A2"), SAY ("A3"));
  one = say (f, NULL, "Q1");
  assert_model (f, 0, "m");

  /* The default changes: the conversation keeps its model. */
  g_settings_set_string (f->gsettings, "default-model", "other");
  two = say (f, one->session_id, "Q2");
  assert_model (f, 1, "m");

  request = natter_message_request_new ("Q3");
  natter_message_request_set_session (request, one->session_id);
  natter_message_request_set_model (request, "test", "picked");
  picked = send_request (f, request, &error);
  g_assert_no_error (error);
  natter_test_services_settle (f, picked->turn_id);
  assert_model (f, 2, "picked");

  request = natter_message_request_new ("Q4");
  natter_message_request_set_model (request, "gone", "m");
  gone = send_request (f, request, &error);
  g_assert_null (gone);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND);
  g_assert_cmpuint (n_session_files (f), ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/send-pipeline/" path, Fixture, NULL, natter_test_services_set_up, func, natter_test_services_tear_down)

  ADD ("first-message-makes-conversation", test_first_message_makes_conversation);
  ADD ("refused-first-message-leaves-nothing", test_refused_first_message_leaves_nothing);
  ADD ("try-again-after-failure-sends-once", test_try_again_after_failure_sends_once);
  ADD ("message-after-failure-carries-it-once", test_message_after_failure_carries_it_once);
  ADD ("compact-and-continue-sends-once", test_compact_and_continue_sends_once);
  ADD ("again-keeps-attachments", test_again_keeps_attachments);
  ADD ("retry-after-storage-failure", test_retry_after_storage_failure);
  ADD ("damaged-history-refuses", test_damaged_history_refuses);
  ADD ("edit-is-a-version", test_edit_is_a_version);
  ADD ("edit-in-new-branch-keeps-its-settings", test_edit_in_new_branch_keeps_its_settings);
  ADD ("model-rule", test_model_rule);

  return g_test_run ();
}
