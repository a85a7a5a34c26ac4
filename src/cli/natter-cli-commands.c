/* natter-cli-commands.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The subcommands of the `natter` command line: each starts the session
 * layer operation it names and ends the run through the reporting in
 * natter-cli-report.c.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include <signal.h>

#include "natter-attachment-intake.h"
#include "natter-cli-private.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-plain-text.h"
#include "natter-session-archive.h"
#include "natter-store-error.h"
#include "natter-sync-conflict-name.h"

/* ------------------------------------------------------------------ */
/* ask                                                                 */
/* ------------------------------------------------------------------ */

/* The command's message, with the files of --attach once stored. */
static JsonObject *
user_message (Run *run)
{
  return natter_user_message_new (run->text, run->attachments);
}

static void
attachments_stored_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  run->attachments = natter_attachments_store_finish (result, &error);
  if (run->attachments == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  /* A crash point for the test that kills the command between storing
   * the blobs and writing the turn that references them: what is left
   * on disk must be an orphan blob and nothing else. */
  if (g_getenv ("NATTER_TEST_CRASH_AFTER_BLOBS") != NULL)
    raise (SIGKILL);
  run->after_attachments (run);
}

/* Stores the files of --attach as blobs, then goes on with @next: the
 * blobs are on disk before any turn that references them is written,
 * and a message over the size limit is refused before anything is. */
static void
store_attachments (Run  *run,
                   void (*next) (Run *run))
{
  g_autoptr(GPtrArray) sources = NULL;
  NatterSettings *settings = natter_services_get_settings (run->services);

  if (run->attach == NULL || run->attach[0] == NULL)
    {
      next (run);
      return;
    }
  sources = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);
  for (guint i = 0; run->attach[i] != NULL; i++)
    {
      g_autoptr(GFile) file = g_application_command_line_create_file_for_arg (run->cmdline, run->attach[i]);

      g_ptr_array_add (sources, natter_attachment_source_new_for_file (file));
    }
  run->after_attachments = next;
  natter_attachments_store_async (natter_services_get_blob_store (run->services), sources,
                                  natter_settings_get_attachment_size_limit (settings),
                                  g_task_get_cancellable (run->task), attachments_stored_cb, run);
}

/* The built-in agent on the model the command resolved, with the
 * command's limits. */
static NatterSendOptions *
send_options (Run *run)
{
  NatterSendOptions *options = natter_send_options_new (NATTER_BUILTIN_AGENT_ID);

  natter_send_options_set_model_descriptor (options, run->descriptor);
  natter_send_options_set_auto_permission (options, run->auto_permission ||
                                           natter_services_get_auto_permission (run->services));
  if (run->max_model_calls > 0)
    natter_send_options_set_max_model_calls (options, run->max_model_calls);
  return options;
}

static void
ask_ran_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *answer = NULL;
  GError *error = NULL;

  outcome = natter_headless_runner_run_finish (NATTER_HEADLESS_RUNNER (object), result, NULL, &answer, &error);
  if (outcome == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  switch (outcome->kind)
    {
    case NATTER_TURN_OUTCOME_COMPLETED:
      natter_cli_out (run, "%s\n", answer != NULL ? answer : "");
      natter_cli_finish (run, 0);
      break;
    case NATTER_TURN_OUTCOME_FAILED:
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, "%s",
                       outcome->error != NULL ? outcome->error : natter_cli_tr (run, "The turn failed"));
      break;
    case NATTER_TURN_OUTCOME_CANCELLED:
      natter_cli_fail_cancelled (run, outcome->reason);
      break;
    case NATTER_TURN_OUTCOME_SUSPENDED:
    default:
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, "%s", natter_cli_tr (run, "The turn is waiting for a tool result"));
      break;
    }
}

static void
ask_model_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterSendOptions) options = NULL;
  g_autoptr(JsonObject) input = NULL;
  GError *error = NULL;

  run->descriptor = natter_services_resolve_model_finish (NATTER_SERVICES (object), result, &error);
  if (run->descriptor == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  options = send_options (run);
  input = user_message (run);
  natter_headless_runner_run_async (natter_services_get_headless_runner (run->services), options, NULL, input,
                                    g_task_get_cancellable (run->task), ask_ran_cb, run);
}

/* The provider the command names: --base-url's endpoint or --provider's
 * id (parse() refuses both), or %NULL. */
static const char *
named_provider (Run *run)
{
  return run->base_url != NULL ? run->base_url : run->provider;
}

static void
ask_start (Run *run)
{
  natter_services_resolve_model_async (run->services, named_provider (run), run->model,
                                       g_task_get_cancellable (run->task), ask_model_cb, run);
}

void
natter_cli_command_ask (Run *run)
{
  store_attachments (run, ask_start);
}

/* ------------------------------------------------------------------ */
/* send                                                                */
/* ------------------------------------------------------------------ */

typedef struct
{
  Run    *run;
  GError *refusal;
} DamagedRetry;

static void
damaged_holder_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  DamagedRetry *retry = user_data;
  Run *run = retry->run;
  GError *refusal = retry->refusal;
  g_auto(GStrv) holders = NULL;

  g_free (retry);
  holders = natter_sessions_find_turn_finish (NATTER_SESSIONS (object), result, NULL);
  /* The pipeline refused before it sent: it found the one conversation
   * that holds the turn. Should it be gone since, the refusal is still
   * told, without the way on. */
  if (holders != NULL && g_strv_length (holders) == 1)
    run->session_id = g_strdup (holders[0]);
  natter_cli_fail_after_promotion (run, refusal);
}

/* A message that was not sent. `retry TURN` without --session names no
 * conversation, but a refusal for damage owes the person the way out
 * that a refused send gives: the conversation is the one holding TURN,
 * found as the pipeline found it. */
static void
fail_message (Run    *run,
              GError *error)
{
  DamagedRetry *retry;

  if (run->session_id != NULL || !g_str_equal (run->command->name, "retry") ||
      !natter_cli_is_damage_refusal (error))
    {
      natter_cli_fail_after_promotion (run, error);
      return;
    }
  retry = g_new0 (DamagedRetry, 1);
  retry->run = run;
  retry->refusal = error;
  natter_sessions_find_turn_async (natter_services_get_sessions (run->services), run->args[0], NULL,
                                   damaged_holder_cb, retry);
}

static void
message_sent_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterSendResult) sent = NULL;
  GError *error = NULL;

  sent = natter_send_pipeline_send_finish (NATTER_SEND_PIPELINE (object), result, &error);
  if (sent == NULL)
    {
      fail_message (run, error);
      return;
    }
  /* On stderr: stdout stays what `send` always printed. A failed
   * compaction cost the message nothing: it went with the whole
   * history. */
  if (sent->compaction_id != NULL)
    g_application_command_line_printerr (run->cmdline,
                                         natter_cli_tr (run, "Compacted the conversation before sending (%s)\n"),
                                         sent->compaction_id);
  else if (sent->compaction_error != NULL)
    g_application_command_line_printerr (run->cmdline,
                                         natter_cli_tr (run, "Could not compact the conversation before sending, "
                                                        "so it is sent whole: %s\n"),
                                         sent->compaction_error->message);
  if (sent->move_error != NULL)
    g_application_command_line_printerr (run->cmdline,
                                         natter_cli_tr (run, "The messages waiting behind the earlier answer stay "
                                                        "with it: %s\n"),
                                         sent->move_error->message);
  else if (sent->n_moved > 0)
    g_application_command_line_printerr (run->cmdline,
                                         natter_cli_ntr (run, "%u queued message now waits behind this answer\n",
                                                         "%u queued messages now wait behind this answer\n",
                                                         sent->n_moved),
                                         sent->n_moved);
  g_free (run->session_id);
  run->session_id = g_strdup (sent->session_id);
  if (sent->queue_id != NULL)
    {
      natter_cli_queued (run, sent->queue_id);
      return;
    }
  run->turn_id = g_strdup (sent->turn_id);
  natter_cli_wait_and_report (run);
}

/* The command's model options: --provider names one of the person's
 * providers by its id, --base-url an endpoint of its own (never both),
 * --model the model (of the default provider without either; the
 * provider's first without it). Without any, the conversation's rules
 * choose. */
static void
request_set_model (Run                  *run,
                   NatterMessageRequest *request)
{
  const char *provider = named_provider (run);

  if (provider != NULL || run->model != NULL)
    natter_message_request_set_model (request, provider, run->model);
}

/* Sends @request through the pipeline both front ends share, and reports
 * what became of it. */
static void
send_request (Run                  *run,
              NatterMessageRequest *request)
{
  request_set_model (run, request);
  natter_message_request_set_auto_permission (request, run->auto_permission);
  if (run->max_model_calls > 0)
    natter_message_request_set_max_model_calls (request, (guint) run->max_model_calls);
  natter_message_request_set_auto_title (request, !run->no_auto_title);
  natter_send_pipeline_send_async (natter_services_get_send_pipeline (run->services), request,
                                   g_task_get_cancellable (run->task), message_sent_cb, run);
}

void
natter_cli_command_send (Run *run)
{
  g_autoptr(NatterMessageRequest) request = natter_message_request_new (run->text);

  /* A session that cannot be used is reported before any blob is
   * stored. */
  if (run->session_id != NULL && natter_cli_lookup_session (run, run->session_id) == NULL)
    return;
  /* A queued message this send makes the session send runs to its end
   * before the command does (natter-cli-queue.c). */
  natter_cli_note_latest (run);
  natter_message_request_set_session (request, run->session_id);
  natter_message_request_set_cwd (request, g_application_command_line_get_cwd (run->cmdline));
  natter_message_request_set_queue (request, run->queue);
  /* This message's own parameters; the conversation's apply under them
   * (docs/sessions.md §15). */
  if (natter_cli_has_parameters (run))
    {
      g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();

      if (!natter_cli_read_parameters (run, parameters))
        return;
      /* For one message, `--system ""` is "without the conversation's". */
      if (run->system != NULL && parameters->system_instruction == NULL)
        natter_generation_parameters_remove_system_instruction (parameters);
      natter_message_request_set_parameters (request, parameters);
    }
  for (guint i = 0; run->attach != NULL && run->attach[i] != NULL; i++)
    {
      g_autoptr(GFile) file = g_application_command_line_create_file_for_arg (run->cmdline, run->attach[i]);
      g_autoptr(NatterAttachmentSource) source = natter_attachment_source_new_for_file (file);

      natter_message_request_add_attachment (request, source);
    }
  send_request (run, request);
}

/* natter retry TURN: the message of TURN again, as a new version of it
 * (its words and its attachments; the turn stays, one version away),
 * the way the window's Try Again sends it. --compact summarizes the
 * earlier turns first, as Compact and Continue does. --session says in
 * which conversation, for a turn several hold (a recovered copy, a
 * version that went on from another device's copy: docs/format.md
 * §3.1). */
void
natter_cli_command_retry (Run *run)
{
  g_autoptr(NatterMessageRequest) request = NULL;
  GError *error = NULL;

  if (!natter_id_validate (run->args[0], &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  /* Without --session the conversations that hold the turn are found;
   * more than one is refused (natter_send_pipeline_send_async()). */
  if (run->session_id != NULL && natter_cli_lookup_session (run, run->session_id) == NULL)
    return;
  request = natter_message_request_new_again (run->args[0]);
  natter_message_request_set_session (request, run->session_id);
  natter_message_request_set_compact_first (request, run->compact);
  send_request (run, request);
}

/* ------------------------------------------------------------------ */
/* allow, deny, answer, deliver, stop, resume                          */
/* ------------------------------------------------------------------ */

static void
input_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  Run *run = user_data;
  NatterSessions *sessions = NATTER_SESSIONS (object);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  GError *error = NULL;

  if (g_str_equal (run->command->name, "answer"))
    outcome = natter_sessions_respond_to_ask_human_finish (sessions, result, &error);
  else if (g_str_equal (run->command->name, "deliver"))
    outcome = natter_sessions_deliver_async_tool_result_finish (sessions, result, &error);
  else
    outcome = natter_sessions_respond_to_permission_finish (sessions, result, &error);
  if (outcome == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  /* The outcome says how this advance ended; the file says everything
   * the turn still waits for. */
  natter_cli_report_turn_id (run);
}

void
natter_cli_command_permission (Run *run)
{
  if (run->always)
    {
      natter_cli_command_allow_always (run);
      return;
    }
  run->turn_id = g_strdup (run->args[0]);
  natter_sessions_respond_to_permission_async (natter_services_get_sessions (run->services), run->args[0],
                                               run->args[1], run->command->name[0] == 'a' ? "allow" : "deny",
                                               NULL, g_task_get_cancellable (run->task), input_done_cb, run);
}

void
natter_cli_command_answer (Run *run)
{
  run->turn_id = g_strdup (run->args[0]);
  natter_sessions_respond_to_ask_human_async (natter_services_get_sessions (run->services), run->args[0],
                                              run->args[1], run->text, g_task_get_cancellable (run->task),
                                              input_done_cb, run);
}

void
natter_cli_command_deliver (Run *run)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *node = NULL;

  if (natter_json_parser_load_external (parser, run->text, -1, &error))
    node = json_parser_get_root (parser);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE,
                       natter_cli_tr (run, "The result must be a JSON object {\"output\": …, \"isError\": false}: %s"),
                       error != NULL ? error->message : natter_cli_tr (run, "not an object"));
      return;
    }
  run->turn_id = g_strdup (run->args[0]);
  natter_sessions_deliver_async_tool_result_async (natter_services_get_sessions (run->services), run->args[0],
                                                   run->args[1], json_node_get_object (node),
                                                   g_task_get_cancellable (run->task), input_done_cb, run);
}

static void
stop_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!natter_sessions_stop_turn_finish (NATTER_SESSIONS (object), result, &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  run->cancel_is_success = TRUE;
  natter_cli_report_turn_id (run);
}


static void
resume_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  run->turn_id = run->here ? natter_sessions_take_over_turn_finish (NATTER_SESSIONS (object), result, &error)
                           : natter_sessions_resume_turn_finish (NATTER_SESSIONS (object), result, &error);
  if (run->turn_id == NULL)
    {
      /* Another device may still be running it: the way on is said,
       * never taken. */
      if (g_error_matches (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_ELSEWHERE))
        {
          g_autofree char *words = natter_cli_error_words (run->cmdline, error->message);

          /* Translators: %s is why; the rest is the way on */
          natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                           natter_cli_tr (run, "%s. Only if that device stopped in the middle of the answer "
                                          "(it was switched off or crashed), continue it here with: "
                                          "natter resume --here %s"),
                           words, run->args[0]);
          g_error_free (error);
          return;
        }
      natter_cli_fail_error (run, error);
      return;
    }
  natter_cli_wait_and_report (run);
}

static void
resume_start (Run *run)
{
  if (run->here)
    natter_sessions_take_over_turn_async (natter_services_get_sessions (run->services), run->args[0],
                                          g_task_get_cancellable (run->task), resume_done_cb, run);
  else
    natter_sessions_resume_turn_async (natter_services_get_sessions (run->services), run->args[0],
                                       g_task_get_cancellable (run->task), resume_done_cb, run);
}

/* Before a resume or a stop closes the call a killed process left open
 * (docs/format.md §11): words it kept that cannot be read are said, as
 * the command goes on without them. The file stays, and the log alone is
 * no place to learn that an answer's beginning is not in the
 * conversation. */
typedef struct
{
  Run   *run;
  void (*then) (Run *run);
  gboolean asks_again;   /* the command asks the model again: resume */
} KeptCheck;

static void
kept_words_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autofree KeptCheck *check = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) partial = natter_sessions_read_kept_words_finish (NATTER_SESSIONS (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      natter_cli_fail_error (check->run, g_steal_pointer (&error));
      return;
    }
  if (error != NULL)
    {
      g_autofree char *words = natter_cli_error_words (check->run->cmdline, error->message);
      /* The file is never written over: the answer asked for again is
       * not kept as it streams while it is there. */
      g_autofree char *said = g_strdup_printf (check->asks_again
                                               /* Translators: %s is why */
                                               ? natter_cli_tr (check->run, "%s. The conversation goes on without "
                                                                "the words that had arrived; the file is left as it "
                                                                "is, so the words of the answer asked for now are not "
                                                                "kept as they come in case this command is killed")
                                               /* Translators: %s is why */
                                               : natter_cli_tr (check->run, "%s. The conversation goes on without "
                                                                "the words that had arrived; the file is left as it "
                                                                "is"),
                                               words);

      g_application_command_line_printerr (check->run->cmdline, "natter: %s\n", said);
    }
  check->then (check->run);
}

static void
kept_state_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  KeptCheck *check = user_data;
  g_autoptr(NatterTurnState) state = natter_turn_runtime_get_turn_state_finish (NATTER_TURN_RUNTIME (object),
                                                                               result, NULL);

  /* A turn that cannot be read is for the command itself to refuse. */
  if (state == NULL || !natter_turn_state_has_open_model_call (state))
    {
      check->then (check->run);
      g_free (check);
      return;
    }
  natter_sessions_read_kept_words_async (natter_services_get_sessions (check->run->services),
                                         natter_turn_state_get_turn_id (state),
                                         natter_turn_state_get_last_model_call_index (state),
                                         g_task_get_cancellable (check->run->task), kept_words_cb, check);
}

static void
check_kept_words (Run         *run,
                  const char  *turn_id,
                  gboolean     asks_again,
                  void       (*then) (Run *run))
{
  KeptCheck *check;

  /* A turn this process runs closes its call with the words it holds. */
  if (natter_sessions_is_turn_running (natter_services_get_sessions (run->services), turn_id))
    {
      then (run);
      return;
    }
  check = g_new0 (KeptCheck, 1);
  check->run = run;
  check->then = then;
  check->asks_again = asks_again;
  natter_turn_runtime_get_turn_state_async (natter_services_get_runtime (run->services), turn_id,
                                            g_task_get_cancellable (run->task), kept_state_cb, check);
}

static void
stop_start (Run *run)
{
  /* The reason is stored in the turn: never in the language of a UI. */
  natter_sessions_stop_turn_async (natter_services_get_sessions (run->services), run->args[0],
                                   "Stopped from the command line", g_task_get_cancellable (run->task),
                                   stop_done_cb, run);
}

void
natter_cli_command_stop (Run *run)
{
  run->turn_id = g_strdup (run->args[0]);
  check_kept_words (run, run->args[0], FALSE, stop_start);
}

void
natter_cli_command_resume (Run *run)
{
  NatterSessionIndexEntry *entry = natter_cli_lookup_session (run, run->args[0]);
  const char *latest;

  if (entry == NULL)
    return;
  latest = natter_session_index_entry_get_latest_turn_id (entry);
  /* Words are kept only on the device that was answering: one taken
   * over from another has none here. */
  if (run->here || latest == NULL)
    resume_start (run);
  else
    check_kept_words (run, latest, TRUE, resume_start);
}

/* ------------------------------------------------------------------ */
/* title, delete, fork                                                 */
/* ------------------------------------------------------------------ */

/* Ends a command whose operation only succeeds or fails (title, delete):
 * exit 0 and print nothing, or the error. */
static void
boolean_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!run->boolean_finish (NATTER_SESSIONS (object), result, &error))
    natter_cli_fail_error (run, error);
  else
    natter_cli_finish (run, 0);
}

void
natter_cli_command_title (Run *run)
{
  if (natter_cli_lookup_session (run, run->args[0]) == NULL)
    return;
  /* The service refuses it too, in the window's language: this says it
   * in the caller's. */
  if (!natter_session_title_check (run->text, NULL))
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                       natter_cli_tr (run, "A title cannot hold line breaks, tabs or other control characters"));
      return;
    }
  run->boolean_finish = natter_sessions_set_conversation_title_finish;
  natter_sessions_set_conversation_title_async (natter_services_get_sessions (run->services), run->args[0], run->text,
                                                g_task_get_cancellable (run->task), boolean_done_cb, run);
}

/* A deleted conversation's draft goes with it (docs/format.md §10): no
 * window would ever show it again. One that cannot be removed is said,
 * the deletion stands. */
static void
deleted_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;
  g_autoptr(GError) draft_error = NULL;

  if (!natter_sessions_delete_session_finish (NATTER_SESSIONS (object), result, &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  if (!natter_draft_store_save_sync (natter_services_get_draft_store (run->services), run->args[0], NULL, &draft_error))
    {
      g_autofree char *words = natter_cli_error_words (run->cmdline, draft_error->message);
      /* Translators: %s is why */
      g_autofree char *said = g_strdup_printf (natter_cli_tr (run, "The session is deleted, but its draft could "
                                                              "not be removed: %s"),
                                               words);

      g_application_command_line_printerr (run->cmdline, "natter: %s\n", said);
    }
  natter_cli_finish (run, 0);
}

void
natter_cli_command_delete (Run *run)
{
  if (natter_cli_lookup_session (run, run->args[0]) == NULL)
    return;
  natter_sessions_delete_session_async (natter_services_get_sessions (run->services), run->args[0],
                                        g_task_get_cancellable (run->task), deleted_cb, run);
}

/* Fork prints the new session's id. */
static void
forked_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Run *run = user_data;
  g_autofree char *session_id = NULL;
  GError *error = NULL;

  session_id = natter_sessions_fork_finish (NATTER_SESSIONS (object), result, &error);
  if (session_id == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  natter_cli_out (run, "session %s\n", session_id);
  natter_cli_finish (run, 0);
}

void
natter_cli_command_fork (Run *run)
{
  GError *error = NULL;

  if (natter_cli_lookup_session (run, run->args[0]) == NULL)
    return;
  if (!natter_id_validate (run->args[1], &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  natter_sessions_fork_async (natter_services_get_sessions (run->services), run->args[0], run->args[1], NULL,
                              g_task_get_cancellable (run->task), forked_cb, run);
}

/* Says @text on stderr as every human-readable line is said: a control
 * character a file held (a message's words) as its visible stand-in. */
static void
say_on_stderr (Run        *run,
               const char *text)
{
  g_autofree char *visible = natter_visible_text (text, NATTER_VISIBLE_KEEP_NEWLINE | NATTER_VISIBLE_KEEP_TAB);

  g_application_command_line_printerr (run->cmdline, "%s", visible);
}

/* `recover --json`: the copy and what it left out, as README.md
 * "Command line" documents them. */
static JsonObject *
recovered_json (const char                *session_id,
                const NatterSessionDamage *damage)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "sessionId", session_id);
  json_object_set_int_member (object, "turnCount", damage->n_turns);
  if (damage->reason != NULL)
    {
      JsonObject *where = json_object_new ();
      g_autofree char *path = g_file_get_path (damage->file);

      json_object_set_string_member (where, "file", path);
      if (damage->line > 0)
        json_object_set_int_member (where, "line", damage->line);
      json_object_set_string_member (where, "reason", damage->reason);
      json_object_set_object_member (object, "damage", where);
    }
  if (damage->left_out)
    {
      JsonObject *left_out = json_object_new ();

      json_object_set_int_member (left_out, "position", (gint64) damage->n_turns + 1);
      json_object_set_boolean_member (left_out, "readable", damage->message_read);
      if (damage->message != NULL)
        json_object_set_string_member (left_out, "message", damage->message);
      json_object_set_object_member (object, "leftOut", left_out);
    }
  return object;
}

/* The copy is made: its id, and on stderr where the damage it ends
 * before is and the message it left out — its words, to send again, or
 * that they cannot be read — from the report the copy was made by.
 * Nothing is left out without a word. */
static void
recovered_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterSessionDamage) damage = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *text = NULL;
  guint position;
  GError *error = NULL;

  session_id = natter_sessions_recover_finish (NATTER_SESSIONS (object), result, &damage, &error);
  if (session_id == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  if (run->json)
    {
      g_autoptr(JsonObject) json = recovered_json (session_id, damage);

      natter_cli_out_json_object (run, json);
      natter_cli_finish (run, 0);
      return;
    }
  natter_cli_out (run, "session %s\n", session_id);
  if (damage->reason != NULL)
    {
      g_autofree char *path = g_file_get_path (damage->file);
      g_autofree char *where = damage->line > 0 ? g_strdup_printf ("%s:%u", path, damage->line) : g_strdup (path);

      text = g_strdup_printf (natter_cli_tr (run, "The copy ends where the session cannot be read: %s: %s\n"),
                              where, damage->reason);
      say_on_stderr (run, text);
      g_clear_pointer (&text, g_free);
    }
  position = damage->n_turns + 1;
  if (damage->left_out && damage->n_turns == 0)
    say_on_stderr (run, natter_cli_tr (run, "Nothing could be copied: the damage is in the first message. "
                                       "The new session holds no message.\n"));
  if (damage->left_out && damage->message != NULL)
    /* Translators: %u is the message's place in the conversation (1 for
     * the first), %s its words, which may be several lines */
    text = g_strdup_printf (natter_cli_tr (run, "Message %u is not in the copy. Its words, not sent — "
                                           "send them again in the new session if you want them:\n%s\n"),
                            position, damage->message);
  else if (damage->left_out && damage->message_read)
    /* Translators: %u is the message's place in the conversation (1 for the first) */
    text = g_strdup_printf (natter_cli_tr (run, "Message %u is not in the copy. It has no words to send again, "
                                           "only attached files.\n"),
                            position);
  else if (damage->left_out)
    /* Translators: %u is the message's place in the conversation (1 for the first) */
    text = g_strdup_printf (natter_cli_tr (run, "Message %u is not in the copy, and its words cannot be read "
                                           "either.\n"),
                            position);
  if (text != NULL)
    say_on_stderr (run, text);
  natter_cli_finish (run, 0);
}

/* A damaged session cannot be used, so unlike the other commands this
 * one takes an errored index entry. */
void
natter_cli_command_recover (Run *run)
{
  if (natter_cli_find_session (run, run->args[0]) == NULL)
    return;
  natter_sessions_recover_async (natter_services_get_sessions (run->services), run->args[0],
                                 g_task_get_cancellable (run->task), recovered_cb, run);
}

/* ------------------------------------------------------------------ */
/* sessions                                                            */
/* ------------------------------------------------------------------ */

void
natter_cli_command_sessions (Run *run)
{
  natter_cli_print_sessions (run);
  natter_cli_finish (run, 0);
}

/* ------------------------------------------------------------------ */
/* show                                                                */
/* ------------------------------------------------------------------ */

static void show_next_turn (Run *run);

static JsonArray *
blob_parts (JsonObject *definition)
{
  g_autoptr(GPtrArray) parts = natter_message_dup_blob_parts (json_object_get_object_member (definition, "input"));
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < parts->len; i++)
    json_array_add_object_element (array, json_object_ref (g_ptr_array_index (parts, i)));
  return array;
}

static void
show_attachments_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Run *run = user_data;
  JsonArray *attachments = natter_attachments_verify_finish (result);
  JsonObject *summary = json_array_get_object_element (run->shown_turns,
                                                       json_array_get_length (run->shown_turns) - 1);

  json_object_set_array_member (summary, "attachments", attachments);
  run->next_turn++;
  show_next_turn (run);
}

/* The attachments of the turn just shown, checked, then the next turn. */
static void
show_turn_attachments (Run             *run,
                       NatterTurnState *state)
{
  g_autoptr(JsonArray) parts = blob_parts (natter_turn_state_get_definition (state));
  JsonObject *summary = json_array_get_object_element (run->shown_turns,
                                                       json_array_get_length (run->shown_turns) - 1);

  if (json_array_get_length (parts) == 0)
    {
      json_object_set_array_member (summary, "attachments", json_array_new ());
      run->next_turn++;
      show_next_turn (run);
      return;
    }
  /* Each attachment is checked against its hash; a missing or damaged
   * blob is reported on its turn, the others show as usual. */
  natter_attachments_verify_async (natter_services_get_blob_store (run->services), parts,
                                   g_task_get_cancellable (run->task), show_attachments_cb, run);
}

typedef struct
{
  Run             *run;
  NatterTurnState *state;
} KeptShow;

static void
show_kept_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  KeptShow *show = user_data;
  Run *run = show->run;
  g_autoptr(NatterTurnState) state = show->state;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) partial = natter_sessions_read_kept_words_finish (NATTER_SESSIONS (object), result, &error);
  JsonObject *summary = json_array_get_object_element (run->shown_turns,
                                                       json_array_get_length (run->shown_turns) - 1);
  g_autofree char *text = NULL;

  g_free (show);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      natter_cli_fail_error (run, g_steal_pointer (&error));
      return;
    }
  if (error != NULL)
    {
      /* Said, and the rest is shown: the file is left as it is. */
      g_autofree char *words = natter_cli_error_words (run->cmdline, error->message);

      g_application_command_line_printerr (run->cmdline, "natter: %s\n", words);
    }
  if (partial != NULL)
    text = natter_json_content_text (json_object_get_member (json_node_get_object (partial), "content"), "");
  if (text != NULL && text[0] != '\0')
    {
      json_object_set_string_member (summary, "partialAnswer", text);
      json_object_set_string_member (summary, "partialEnd", "interrupted");
      natter_cli_add_partial_answer (summary, text, "interrupted");
    }
  show_turn_attachments (run, state);
}

/* The latest turn of this device that a killed process left mid-answer
 * shows the words it kept of that answer (docs/format.md §11), as the
 * window does before Resume. Returns whether they are being read (the
 * show goes on from there). */
static gboolean
show_kept_words (Run             *run,
                 NatterTurnState *state,
                 JsonObject      *summary)
{
  KeptShow *show;

  if (!natter_turn_state_has_open_model_call (state) ||
      run->next_turn + 1 != natter_session_state_get_n_turns (run->session) ||
      g_strcmp0 (json_object_get_string_member (summary, "status"), "idle") != 0 ||
      json_object_has_member (summary, "elsewhere"))
    return FALSE;
  show = g_new0 (KeptShow, 1);
  show->run = run;
  show->state = natter_turn_state_ref (state);
  natter_sessions_read_kept_words_async (natter_services_get_sessions (run->services),
                                         natter_turn_state_get_turn_id (state),
                                         natter_turn_state_get_last_model_call_index (state),
                                         g_task_get_cancellable (run->task), show_kept_cb, show);
  return TRUE;
}

static void
show_turn_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterTurnState) state = NULL;
  JsonObject *summary;
  GError *error = NULL;

  state = natter_sessions_get_turn_reduced_finish (NATTER_SESSIONS (object), result, &error);
  /* An earlier turn is only gone on from once it has ended: one without
   * its end lost its last lines, or is an older copy on its way. */
  if (state != NULL && run->next_turn + 1 < natter_session_state_get_n_turns (run->session) &&
      natter_turn_state_get_terminal_event (state) == NULL)
    {
      g_clear_pointer (&state, natter_turn_state_unref);
      error = natter_jsonl_repo_end_lost_error (natter_services_get_turn_repo (run->services),
                                                natter_session_state_get_turn (run->session, run->next_turn)->turn_id);
    }
  if (state == NULL && g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
    {
      /* Not damage: the turn is on its way from another device
       * (docs/format.md §9.3), and is shown as such. */
      g_clear_error (&error);
      json_array_add_object_element (run->shown_turns,
                                     natter_cli_arriving_turn_summary (
                                       natter_session_state_get_turn (run->session, run->next_turn)));
      run->next_turn++;
      show_next_turn (run);
      return;
    }
  if (state == NULL)
    {
      natter_cli_fail_turn_error (run, error, natter_session_state_get_session_id (run->session));
      return;
    }
  summary = natter_cli_turn_summary (natter_session_state_get_turn (run->session, run->next_turn), state,
                                     natter_turn_runtime_get_device (natter_services_get_runtime (run->services)));
  /* The file of a turn the window is running (forwarded here, this
   * command runs in its process) reads as interrupted: its live advance
   * says running, as `sessions` says it (docs/sessions.md §9.1 step 2). */
  if (natter_sessions_is_turn_running (natter_services_get_sessions (run->services),
                                      natter_turn_state_get_turn_id (state)))
    json_object_set_string_member (summary, "status", "running");
  json_array_add_object_element (run->shown_turns, summary);
  if (show_kept_words (run, state, summary))
    return;
  show_turn_attachments (run, state);
}

static void
show_next_turn (Run *run)
{
  NatterSessionState *session = run->session;

  if (run->next_turn < natter_session_state_get_n_turns (session))
    {
      const NatterSessionTurn *turn = natter_session_state_get_turn (session, run->next_turn);

      natter_sessions_get_turn_async (natter_services_get_sessions (run->services), turn->turn_id,
                                      g_task_get_cancellable (run->task), show_turn_read_cb, run);
      return;
    }

  if (run->json)
    {
      g_autoptr(JsonObject) object = json_object_new ();

      json_object_set_string_member (object, "sessionId", natter_session_state_get_session_id (session));
      if (natter_session_state_get_title (session) != NULL)
        json_object_set_string_member (object, "title", natter_session_state_get_title (session));
      json_object_set_string_member (object, "createdAt", natter_session_state_get_created_at (session));
      json_object_set_string_member (object, "updatedAt", natter_session_state_get_updated_at (session));
      if (natter_session_state_get_cwd (session) != NULL)
        json_object_set_string_member (object, "cwd", natter_session_state_get_cwd (session));
      if (natter_session_state_get_parent_session (session) != NULL)
        json_object_set_string_member (object, "parentSession", natter_session_state_get_parent_session (session));
      if (run->inherited_turns != NULL)
        json_object_set_array_member (object, "inheritedTurns", json_array_ref (run->inherited_turns));
      json_object_set_array_member (object, "turns", json_array_ref (run->shown_turns));
      natter_cli_out_json_object (run, object);
    }
  else
    natter_cli_print_show_text (run);
  natter_cli_finish (run, 0);
}

/* The deleted parent's turns, as the turn files keep them: what the
 * model still receives before the session's own turns. */
static void
show_history_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GPtrArray) turns = NULL;
  GError *error = NULL;

  turns = natter_sessions_read_history_finish (NATTER_SESSIONS (object), result, &error);
  if (turns == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  run->inherited_turns = json_array_new ();
  for (guint i = 0; i < turns->len; i++)
    {
      NatterTurnState *state = g_ptr_array_index (turns, i);
      JsonObject *definition = natter_turn_state_get_definition (state);
      JsonObject *agent = natter_turn_definition_get_resolved_agent (definition);
      NatterSessionTurn turn = {
        .turn_id = natter_turn_state_get_turn_id (state),
        .session_seq = i + 1,
        .agent_id = agent != NULL ? json_object_get_string_member_with_default (agent, "agentId", "") : "",
        .model = natter_turn_definition_get_model (definition),
        .ts = json_object_get_string_member_with_default (definition, "ts", ""),
      };
      g_autoptr(JsonObject) empty_model = turn.model == NULL ? json_object_new () : NULL;
      JsonObject *summary;

      if (turn.model == NULL)
        turn.model = empty_model;
      summary = natter_cli_turn_summary (&turn, state,
                                         natter_turn_runtime_get_device (natter_services_get_runtime (run->services)));
      json_object_set_string_member (summary, "sessionId",
                                     json_object_get_string_member_with_default (definition, "sessionId", ""));
      /* Not checked against their hashes: the parent that held them is gone. */
      json_object_set_array_member (summary, "attachments", blob_parts (definition));
      json_array_add_object_element (run->inherited_turns, summary);
    }
  show_next_turn (run);
}

static void
show_parent_read_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterSessionState) parent = NULL;
  g_autoptr(GError) error = NULL;

  parent = natter_sessions_get_session_finish (NATTER_SESSIONS (object), result, &error);
  /* A parent that is there is shown by its own `show`, as forked-from
   * names it; one that was deleted is only in the turn files. */
  if (g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND))
    {
      natter_sessions_read_history_async (NATTER_SESSIONS (object),
                                          natter_session_state_get_forked_from_turn_id (run->session),
                                          g_task_get_cancellable (run->task), show_history_cb, run);
      return;
    }
  show_next_turn (run);
}

static void
show_session_read_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  run->session = natter_sessions_get_session_finish (NATTER_SESSIONS (object), result, &error);
  if (run->session == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  run->shown_turns = json_array_new ();
  if (natter_session_state_get_parent_session (run->session) != NULL &&
      natter_session_state_get_forked_from_turn_id (run->session) != NULL)
    {
      natter_sessions_get_session_async (NATTER_SESSIONS (object), natter_session_state_get_parent_session (run->session),
                                         g_task_get_cancellable (run->task), show_parent_read_cb, run);
      return;
    }
  show_next_turn (run);
}

void
natter_cli_command_show (Run *run)
{
  GError *error = NULL;

  /* An id, or another device's copy of a conversation (docs/format.md §9). */
  if (!natter_store_name_validate (run->args[0], &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  natter_sessions_get_session_async (natter_services_get_sessions (run->services), run->args[0],
                                     g_task_get_cancellable (run->task), show_session_read_cb, run);
}
