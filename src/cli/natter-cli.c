/* natter-cli.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The `natter` command line: one subcommand per session-layer
 * operation, run against the services of whichever process is primary.
 * Everything is printed through the GApplicationCommandLine, so when a
 * second `natter` forwards its command line to a running window, the
 * output still reaches the terminal that typed it. Errors are one line
 * "natter: <message>" on stderr; exit 0 on success, 1 on failure, 2 on a
 * command line that cannot be understood.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-cli.h"
#include "natter-id.h"
#include "natter-turn-reducer.h"

typedef struct _Run Run;

typedef enum
{
  OPT_MODEL      = 1 << 0,   /* --base-url, --model, --max-model-calls */
  OPT_SESSION    = 1 << 1,   /* --session, --auto-permission */
  OPT_JSON       = 1 << 2,   /* --json */
} OptionSet;

typedef struct
{
  const char *name;
  const char *parameters;   /* translatable */
  const char *summary;      /* translatable */
  guint       min_args;
  guint       max_args;     /* G_MAXUINT: the rest is one text joined by spaces */
  OptionSet   options;
  void      (*start) (Run *run);
} Command;

/* The _finish of a sessions operation that returns only success. */
typedef gboolean (*BooleanFinish) (NatterSessions  *sessions,
                                   GAsyncResult    *result,
                                   GError         **error);

struct _Run
{
  GTask                   *task;
  NatterServices          *services;
  GApplicationCommandLine *cmdline;
  const Command           *command;

  /* Options */
  char                    *session_id;
  gboolean                 auto_permission;
  char                    *base_url;
  char                    *model;
  int                      max_model_calls;
  gboolean                 json;
  gboolean                 help;
  GStrv                    args;        /* positional arguments */
  char                    *text;        /* the joined message, for MESSAGE commands */

  /* Progress */
  char                    *turn_id;
  JsonObject              *descriptor;
  gboolean                 cancel_is_success;
  NatterSessionState      *session;
  guint                    next_turn;
  JsonArray                *shown_turns;
  BooleanFinish            boolean_finish; /* for boolean_done_cb() */
};

static void
run_free (Run *run)
{
  g_clear_object (&run->services);
  g_clear_object (&run->cmdline);
  g_free (run->session_id);
  g_free (run->base_url);
  g_free (run->model);
  g_strfreev (run->args);
  g_free (run->text);
  g_free (run->turn_id);
  g_clear_pointer (&run->descriptor, json_object_unref);
  g_clear_pointer (&run->session, natter_session_state_unref);
  g_clear_pointer (&run->shown_turns, json_array_unref);
  g_free (run);
}

/* Output, always through the command line object: it may belong to
 * another process. */

static void G_GNUC_PRINTF (2, 3)
out (Run        *run,
     const char *format,
     ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_application_command_line_print (run->cmdline, "%s", text);
}

/* Ends the run with @status. */
static void
finish (Run *run,
        int  status)
{
  GTask *task = run->task;

  run->task = NULL;
  g_task_return_int (task, status);
  g_object_unref (task);
}

static void G_GNUC_PRINTF (3, 4)
fail (Run        *run,
      int         status,
      const char *format,
      ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_application_command_line_printerr (run->cmdline, "natter: %s\n", text);
  finish (run, status);
}

static void
fail_error (Run    *run,
            GError *error)
{
  fail (run, NATTER_CLI_EXIT_FAILURE, "%s", error->message);
  g_error_free (error);
}

static char *
node_to_string (JsonNode *node)
{
  if (node == NULL)
    return g_strdup ("null");
  return json_to_string (node, FALSE);
}

/* The text of a user message: its string content, or its text parts
 * with attachments named. */
static char *
message_text (JsonObject *message)
{
  JsonNode *content = message != NULL ? json_object_get_member (message, "content") : NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  JsonArray *parts;

  if (content == NULL)
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (content));
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return g_strdup ("");
  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonObject *part = json_array_get_object_element (parts, i);
      const char *type = part != NULL ? json_object_get_string_member_with_default (part, "type", "") : "";

      if (g_str_equal (type, "text"))
        g_string_append (text, json_object_get_string_member_with_default (part, "text", ""));
      else if (g_str_equal (type, "attachment"))
        g_string_append_printf (text, "[%s]", json_object_get_string_member_with_default (part, "filename", ""));
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* ------------------------------------------------------------------ */
/* Reporting a turn                                                    */
/* ------------------------------------------------------------------ */

static const char *
tool_call_status (NatterTurnToolCall *call)
{
  JsonObject *result = natter_turn_tool_call_get_result (call);

  if (result != NULL)
    {
      if (g_strcmp0 (natter_turn_tool_call_get_decision (call), "deny") == 0)
        return "denied";
      return json_object_get_boolean_member_with_default (result, "isError", FALSE) ? "error" : "done";
    }
  if (natter_turn_tool_call_is_awaiting_permission (call))
    return "awaiting-permission";
  if (natter_turn_tool_call_is_awaiting_async_result (call))
    return "awaiting-result";
  return "pending";
}

/* The "waiting:" lines of a suspended turn: what it needs from outside. */
static void
print_waiting (Run             *run,
               NatterTurnState *state)
{
  g_autoptr(GPtrArray) permissions = natter_turn_state_get_pending_permissions (state);
  g_autoptr(GPtrArray) asyncs = natter_turn_state_get_pending_async_tools (state);

  for (guint i = 0; i < permissions->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (permissions, i);
      JsonObject *required = natter_turn_tool_call_get_permission_required (call);
      g_autofree char *request = node_to_string (required != NULL
                                                 ? json_object_get_member (required, "request") : NULL);

      out (run, "waiting: permission %s %s %s\n", natter_turn_tool_call_get_id (call),
           natter_turn_tool_call_get_name (call), request);
    }
  for (guint i = 0; i < asyncs->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (asyncs, i);
      JsonNode *arguments = natter_turn_tool_call_get_arguments (call);
      JsonObject *input = arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments)
                          ? json_node_get_object (arguments) : NULL;

      if (g_str_equal (natter_turn_tool_call_get_name (call), "ask_human") && input != NULL &&
          json_object_get_string_member_with_default (input, "question", NULL) != NULL)
        out (run, "waiting: question %s %s\n", natter_turn_tool_call_get_id (call),
             json_object_get_string_member (input, "question"));
      else
        {
          g_autofree char *text = node_to_string (arguments);

          out (run, "waiting: tool %s %s %s\n", natter_turn_tool_call_get_id (call),
               natter_turn_tool_call_get_name (call), text);
        }
    }
}

/* Prints a settled (or resting) turn and ends the run with its status:
 * 0 for completed and suspended, 1 for failed, cancelled and idle. */
static void
report_turn (Run             *run,
             NatterTurnState *state)
{
  NatterTurnStatus status = natter_derive_turn_status (state);
  JsonObject *terminal = natter_turn_state_get_terminal_event (state);
  const char *session_id = json_object_get_string_member_with_default (natter_turn_state_get_definition (state),
                                                                       "sessionId", NULL);

  if (session_id != NULL)
    out (run, "session %s\n", session_id);
  out (run, "turn %s\n", natter_turn_state_get_turn_id (state));

  switch (status)
    {
    case NATTER_TURN_STATUS_COMPLETED:
      {
        g_autofree char *answer = natter_turn_state_dup_final_text (state);

        out (run, "\n%s\n", answer != NULL ? answer : "");
        finish (run, 0);
      }
      return;
    case NATTER_TURN_STATUS_SUSPENDED:
      print_waiting (run, state);
      finish (run, 0);
      return;
    case NATTER_TURN_STATUS_FAILED:
      fail (run, NATTER_CLI_EXIT_FAILURE, _("The turn failed: %s"),
            json_object_get_string_member_with_default (terminal, "error", ""));
      return;
    case NATTER_TURN_STATUS_CANCELLED:
      if (run->cancel_is_success)
        {
          out (run, "cancelled\n");
          finish (run, 0);
        }
      else
        fail (run, NATTER_CLI_EXIT_FAILURE, "%s", _("The turn was cancelled"));
      return;
    case NATTER_TURN_STATUS_IDLE:
    default:
      fail (run, NATTER_CLI_EXIT_FAILURE,
            _("The turn stopped before it settled; continue it with “natter resume SESSION”"));
      return;
    }
}

static void
report_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  GError *error = NULL;

  events = natter_sessions_get_turn_finish (NATTER_SESSIONS (object), result, &error);
  if (events != NULL)
    state = natter_turn_reduce (events, &error);
  if (state == NULL)
    {
      fail_error (run, error);
      return;
    }
  report_turn (run, state);
}

static void
report_turn_id (Run *run)
{
  natter_sessions_get_turn_async (natter_services_get_sessions (run->services), run->turn_id,
                                  g_task_get_cancellable (run->task), report_read_cb, run);
}

static void
report_waited_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!natter_sessions_wait_for_turn_finish (NATTER_SESSIONS (object), result, &error))
    {
      fail_error (run, error);
      return;
    }
  report_turn_id (run);
}

/* Waits until the turn settles, then reports it. */
static void
wait_and_report (Run *run)
{
  natter_sessions_wait_for_turn_async (natter_services_get_sessions (run->services), run->turn_id,
                                       g_task_get_cancellable (run->task), report_waited_cb, run);
}

/* ------------------------------------------------------------------ */
/* ask                                                                 */
/* ------------------------------------------------------------------ */

static JsonObject *
user_message (const char *text)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", "user");
  json_object_set_string_member (message, "content", text);
  return message;
}

/* The built-in agent on the model the command resolved, with the
 * command's limits. */
static NatterSendOptions *
send_options (Run *run)
{
  NatterSendOptions *options = natter_send_options_new (NATTER_BUILTIN_AGENT_ID);

  natter_send_options_set_model (options, json_object_get_string_member (run->descriptor, "provider"),
                                 json_object_get_string_member (run->descriptor, "model"));
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
      fail_error (run, error);
      return;
    }
  switch (outcome->kind)
    {
    case NATTER_TURN_OUTCOME_COMPLETED:
      out (run, "%s\n", answer != NULL ? answer : "");
      finish (run, 0);
      break;
    case NATTER_TURN_OUTCOME_FAILED:
      fail (run, NATTER_CLI_EXIT_FAILURE, "%s", outcome->error != NULL ? outcome->error : _("The turn failed"));
      break;
    case NATTER_TURN_OUTCOME_CANCELLED:
      fail (run, NATTER_CLI_EXIT_FAILURE, "%s", _("The turn was cancelled"));
      break;
    case NATTER_TURN_OUTCOME_SUSPENDED:
    default:
      fail (run, NATTER_CLI_EXIT_FAILURE, "%s", _("The turn is waiting for a tool result"));
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
      fail_error (run, error);
      return;
    }
  options = send_options (run);
  input = user_message (run->text);
  natter_headless_runner_run_async (natter_services_get_headless_runner (run->services), options, NULL, input,
                                    g_task_get_cancellable (run->task), ask_ran_cb, run);
}

static void
command_ask (Run *run)
{
  natter_services_resolve_model_async (run->services, run->base_url, run->model,
                                       g_task_get_cancellable (run->task), ask_model_cb, run);
}

/* ------------------------------------------------------------------ */
/* send                                                                */
/* ------------------------------------------------------------------ */

static void
send_sent_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  run->turn_id = natter_sessions_send_message_finish (NATTER_SESSIONS (object), result, &error);
  if (run->turn_id == NULL)
    {
      fail_error (run, error);
      return;
    }
  wait_and_report (run);
}

static void
send_message (Run *run)
{
  g_autoptr(NatterSendOptions) options = send_options (run);
  g_autoptr(JsonObject) input = user_message (run->text);

  natter_sessions_send_message_async (natter_services_get_sessions (run->services), run->session_id,
                                      input, options, g_task_get_cancellable (run->task), send_sent_cb, run);
}

static void
send_created_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  run->session_id = natter_sessions_create_session_finish (NATTER_SESSIONS (object), result, &error);
  if (run->session_id == NULL)
    {
      fail_error (run, error);
      return;
    }
  send_message (run);
}

static void
send_with_model (Run *run)
{
  if (run->session_id != NULL)
    {
      send_message (run);
      return;
    }
  natter_sessions_create_session_async (natter_services_get_sessions (run->services), NULL,
                                        g_application_command_line_get_cwd (run->cmdline), NULL, NULL,
                                        g_task_get_cancellable (run->task), send_created_cb, run);
}

static void
send_model_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  run->descriptor = natter_services_resolve_model_finish (NATTER_SERVICES (object), result, &error);
  if (run->descriptor == NULL)
    {
      fail_error (run, error);
      return;
    }
  send_with_model (run);
}

/* Checks a session id given on the command line against the index:
 * a malformed id and an unknown session are errors before anything is
 * written. */
static NatterSessionIndexEntry *
lookup_session (Run        *run,
                const char *session_id)
{
  NatterSessionIndexEntry *entry;
  GError *error = NULL;

  if (!natter_id_validate (session_id, &error))
    {
      fail_error (run, error);
      return NULL;
    }
  entry = natter_session_index_lookup (natter_services_get_index (run->services), session_id);
  if (entry == NULL)
    {
      fail (run, NATTER_CLI_EXIT_FAILURE, _("No session %s"), session_id);
      return NULL;
    }
  if (natter_session_index_entry_get_error (entry) != NULL)
    {
      fail (run, NATTER_CLI_EXIT_FAILURE, _("Session %s cannot be used: %s"), session_id,
            natter_session_index_entry_get_error (entry));
      return NULL;
    }
  return entry;
}

static void
command_send (Run *run)
{
  JsonObject *last_model = NULL;

  if (run->session_id != NULL)
    {
      NatterSessionIndexEntry *entry = lookup_session (run, run->session_id);

      if (entry == NULL)
        return;
      last_model = natter_session_index_entry_get_last_model (entry);
    }

  /* Without model options a session goes on with the model of its
   * latest turn; a new session gets the configured default. */
  if (run->base_url == NULL && run->model == NULL && last_model != NULL)
    {
      run->descriptor = json_object_ref (last_model);
      send_with_model (run);
      return;
    }
  natter_services_resolve_model_async (run->services, run->base_url, run->model,
                                       g_task_get_cancellable (run->task), send_model_cb, run);
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
      fail_error (run, error);
      return;
    }
  /* The outcome says how this advance ended; the file says everything
   * the turn still waits for. */
  report_turn_id (run);
}

static void
command_permission (Run *run)
{
  run->turn_id = g_strdup (run->args[0]);
  natter_sessions_respond_to_permission_async (natter_services_get_sessions (run->services), run->args[0],
                                               run->args[1], run->command->name[0] == 'a' ? "allow" : "deny",
                                               NULL, g_task_get_cancellable (run->task), input_done_cb, run);
}

static void
command_answer (Run *run)
{
  run->turn_id = g_strdup (run->args[0]);
  natter_sessions_respond_to_ask_human_async (natter_services_get_sessions (run->services), run->args[0],
                                              run->args[1], run->text, g_task_get_cancellable (run->task),
                                              input_done_cb, run);
}

static void
command_deliver (Run *run)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  node = json_from_string (run->text, &error);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (run, NATTER_CLI_EXIT_USAGE,
            _("The result must be a JSON object {\"output\": …, \"isError\": false}: %s"),
            error != NULL ? error->message : _("not an object"));
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
      fail_error (run, error);
      return;
    }
  run->cancel_is_success = TRUE;
  report_turn_id (run);
}

static void
command_stop (Run *run)
{
  run->turn_id = g_strdup (run->args[0]);
  natter_sessions_stop_turn_async (natter_services_get_sessions (run->services), run->args[0],
                                   _("Stopped from the command line"), g_task_get_cancellable (run->task),
                                   stop_done_cb, run);
}

static void
resume_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  run->turn_id = natter_sessions_resume_turn_finish (NATTER_SESSIONS (object), result, &error);
  if (run->turn_id == NULL)
    {
      fail_error (run, error);
      return;
    }
  wait_and_report (run);
}

static void
command_resume (Run *run)
{
  if (lookup_session (run, run->args[0]) == NULL)
    return;
  natter_sessions_resume_turn_async (natter_services_get_sessions (run->services), run->args[0],
                                     g_task_get_cancellable (run->task), resume_done_cb, run);
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
    fail_error (run, error);
  else
    finish (run, 0);
}

static void
command_title (Run *run)
{
  if (lookup_session (run, run->args[0]) == NULL)
    return;
  run->boolean_finish = natter_sessions_set_title_finish;
  natter_sessions_set_title_async (natter_services_get_sessions (run->services), run->args[0], run->text,
                                   g_task_get_cancellable (run->task), boolean_done_cb, run);
}

static void
command_delete (Run *run)
{
  if (lookup_session (run, run->args[0]) == NULL)
    return;
  run->boolean_finish = natter_sessions_delete_session_finish;
  natter_sessions_delete_session_async (natter_services_get_sessions (run->services), run->args[0],
                                        g_task_get_cancellable (run->task), boolean_done_cb, run);
}

static void
fork_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Run *run = user_data;
  g_autofree char *session_id = NULL;
  GError *error = NULL;

  session_id = natter_sessions_fork_finish (NATTER_SESSIONS (object), result, &error);
  if (session_id == NULL)
    {
      fail_error (run, error);
      return;
    }
  out (run, "session %s\n", session_id);
  finish (run, 0);
}

static void
command_fork (Run *run)
{
  GError *error = NULL;

  if (lookup_session (run, run->args[0]) == NULL)
    return;
  if (!natter_id_validate (run->args[1], &error))
    {
      fail_error (run, error);
      return;
    }
  natter_sessions_fork_async (natter_services_get_sessions (run->services), run->args[0], run->args[1], NULL,
                              g_task_get_cancellable (run->task), fork_done_cb, run);
}

static void
recover_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Run *run = user_data;
  g_autofree char *session_id = NULL;
  GError *error = NULL;

  session_id = natter_sessions_recover_finish (NATTER_SESSIONS (object), result, &error);
  if (session_id == NULL)
    {
      fail_error (run, error);
      return;
    }
  out (run, "session %s\n", session_id);
  finish (run, 0);
}

/* A damaged session cannot be used, so unlike the other commands this
 * one takes an errored index entry. */
static void
command_recover (Run *run)
{
  GError *error = NULL;

  if (!natter_id_validate (run->args[0], &error))
    {
      fail_error (run, error);
      return;
    }
  if (natter_session_index_lookup (natter_services_get_index (run->services), run->args[0]) == NULL)
    {
      fail (run, NATTER_CLI_EXIT_FAILURE, _("No session %s"), run->args[0]);
      return;
    }
  natter_sessions_recover_async (natter_services_get_sessions (run->services), run->args[0],
                                 g_task_get_cancellable (run->task), recover_done_cb, run);
}

/* ------------------------------------------------------------------ */
/* sessions                                                            */
/* ------------------------------------------------------------------ */

static const char *
or_dash (const char *text)
{
  return text != NULL && text[0] != '\0' ? text : "-";
}

static void
command_sessions (Run *run)
{
  GListModel *index = G_LIST_MODEL (natter_services_get_index (run->services));
  guint n = g_list_model_get_n_items (index);

  if (run->json)
    {
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);
      g_autoptr(JsonArray) array = json_array_new ();
      g_autofree char *text = NULL;

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);

          json_array_add_element (array, natter_session_index_entry_to_json (entry));
        }
      json_node_set_array (root, array);
      text = json_to_string (root, TRUE);
      out (run, "%s\n", text);
      finish (run, 0);
      return;
    }

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);
      const char *error = natter_session_index_entry_get_error (entry);

      if (error != NULL)
        out (run, "%s\terror\t%s\t%s\n", natter_session_index_entry_get_session_id (entry),
             or_dash (natter_session_index_entry_get_updated_at (entry)), error);
      else
        out (run, "%s\t%s\t%s\t%s\n", natter_session_index_entry_get_session_id (entry),
             natter_session_index_entry_get_latest_turn_status (entry),
             or_dash (natter_session_index_entry_get_updated_at (entry)),
             or_dash (natter_session_index_entry_get_title (entry)));
    }
  finish (run, 0);
}

/* ------------------------------------------------------------------ */
/* show                                                                */
/* ------------------------------------------------------------------ */

/* One turn reduced for display: input, answer, tool calls, status. */
static JsonObject *
turn_summary (const NatterSessionTurn *turn,
              NatterTurnState         *state)
{
  JsonObject *summary = json_object_new ();
  JsonObject *definition = natter_turn_state_get_definition (state);
  JsonObject *terminal = natter_turn_state_get_terminal_event (state);
  JsonNode *input = json_object_get_member (definition, "input");
  g_autofree char *input_text = message_text (input != NULL && JSON_NODE_HOLDS_OBJECT (input)
                                              ? json_node_get_object (input) : NULL);
  g_autofree char *answer = natter_turn_state_dup_final_text (state);
  NatterTurnStatus status = natter_derive_turn_status (state);
  JsonArray *calls = json_array_new ();

  json_object_set_string_member (summary, "turnId", turn->turn_id);
  json_object_set_int_member (summary, "sessionSeq", turn->session_seq);
  json_object_set_string_member (summary, "agentId", turn->agent_id);
  json_object_set_object_member (summary, "model", json_object_ref (turn->model));
  json_object_set_string_member (summary, "ts", turn->ts);
  json_object_set_string_member (summary, "status", natter_turn_status_to_string (status));
  json_object_set_string_member (summary, "input", input_text);
  if (answer != NULL)
    json_object_set_string_member (summary, "answer", answer);
  else
    json_object_set_null_member (summary, "answer");

  for (guint i = 0; i < natter_turn_state_get_n_tool_calls (state); i++)
    {
      NatterTurnToolCall *call = natter_turn_state_get_tool_call (state, i);
      JsonObject *item = json_object_new ();
      JsonNode *arguments = natter_turn_tool_call_get_arguments (call);
      JsonObject *result = natter_turn_tool_call_get_result (call);

      json_object_set_string_member (item, "toolCallId", natter_turn_tool_call_get_id (call));
      json_object_set_string_member (item, "toolName", natter_turn_tool_call_get_name (call));
      json_object_set_member (item, "arguments", arguments != NULL ? json_node_copy (arguments)
                                                                   : json_node_new (JSON_NODE_NULL));
      json_object_set_string_member (item, "status", tool_call_status (call));
      if (result != NULL)
        json_object_set_object_member (item, "result", json_object_ref (result));
      json_array_add_object_element (calls, item);
    }
  json_object_set_array_member (summary, "toolCalls", calls);

  if (status == NATTER_TURN_STATUS_FAILED)
    json_object_set_string_member (summary, "error",
                                   json_object_get_string_member_with_default (terminal, "error", ""));
  if (status == NATTER_TURN_STATUS_CANCELLED &&
      json_object_get_string_member_with_default (terminal, "reason", NULL) != NULL)
    json_object_set_string_member (summary, "reason", json_object_get_string_member (terminal, "reason"));
  return summary;
}

static void
print_show_text (Run *run)
{
  NatterSessionState *session = run->session;

  out (run, "session %s\n", natter_session_state_get_session_id (session));
  out (run, "title %s\n", or_dash (natter_session_state_get_title (session)));
  out (run, "created %s\n", natter_session_state_get_created_at (session));
  out (run, "updated %s\n", natter_session_state_get_updated_at (session));
  if (natter_session_state_get_parent_session (session) != NULL)
    out (run, "forked-from %s %s\n", natter_session_state_get_parent_session (session),
         or_dash (natter_session_state_get_forked_from_turn_id (session)));

  for (guint i = 0; i < json_array_get_length (run->shown_turns); i++)
    {
      JsonObject *turn = json_array_get_object_element (run->shown_turns, i);
      JsonObject *model = json_object_get_object_member (turn, "model");
      JsonArray *calls = json_object_get_array_member (turn, "toolCalls");

      out (run, "\nturn %s %s %s %s\n", json_object_get_string_member (turn, "turnId"),
           json_object_get_string_member (turn, "status"),
           json_object_get_string_member_with_default (model, "provider", "-"),
           json_object_get_string_member_with_default (model, "model", "-"));
      out (run, "user: %s\n", json_object_get_string_member (turn, "input"));
      for (guint j = 0; j < json_array_get_length (calls); j++)
        {
          JsonObject *call = json_array_get_object_element (calls, j);
          g_autofree char *arguments = node_to_string (json_object_get_member (call, "arguments"));

          out (run, "tool: %s %s %s %s\n", json_object_get_string_member (call, "toolCallId"),
               json_object_get_string_member (call, "toolName"), arguments,
               json_object_get_string_member (call, "status"));
        }
      if (json_object_has_member (turn, "error"))
        out (run, "error: %s\n", json_object_get_string_member (turn, "error"));
      if (!json_object_get_null_member (turn, "answer"))
        out (run, "assistant: %s\n", json_object_get_string_member (turn, "answer"));
    }
}

static void show_next_turn (Run *run);

static void
show_turn_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  GError *error = NULL;

  events = natter_sessions_get_turn_finish (NATTER_SESSIONS (object), result, &error);
  if (events != NULL)
    state = natter_turn_reduce (events, &error);
  if (state == NULL)
    {
      fail_error (run, error);
      return;
    }
  json_array_add_object_element (run->shown_turns,
                                 turn_summary (natter_session_state_get_turn (run->session, run->next_turn),
                                               state));
  run->next_turn++;
  show_next_turn (run);
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
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
      g_autofree char *text = NULL;

      json_object_set_string_member (object, "sessionId", natter_session_state_get_session_id (session));
      if (natter_session_state_get_title (session) != NULL)
        json_object_set_string_member (object, "title", natter_session_state_get_title (session));
      json_object_set_string_member (object, "createdAt", natter_session_state_get_created_at (session));
      json_object_set_string_member (object, "updatedAt", natter_session_state_get_updated_at (session));
      if (natter_session_state_get_cwd (session) != NULL)
        json_object_set_string_member (object, "cwd", natter_session_state_get_cwd (session));
      if (natter_session_state_get_parent_session (session) != NULL)
        json_object_set_string_member (object, "parentSession", natter_session_state_get_parent_session (session));
      json_object_set_array_member (object, "turns", json_array_ref (run->shown_turns));
      json_node_set_object (root, object);
      text = json_to_string (root, TRUE);
      out (run, "%s\n", text);
    }
  else
    print_show_text (run);
  finish (run, 0);
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
      fail_error (run, error);
      return;
    }
  run->shown_turns = json_array_new ();
  show_next_turn (run);
}

static void
command_show (Run *run)
{
  GError *error = NULL;

  if (!natter_id_validate (run->args[0], &error))
    {
      fail_error (run, error);
      return;
    }
  natter_sessions_get_session_async (natter_services_get_sessions (run->services), run->args[0],
                                     g_task_get_cancellable (run->task), show_session_read_cb, run);
}

/* ------------------------------------------------------------------ */
/* The command table and the parsing                                   */
/* ------------------------------------------------------------------ */

#define JOINED G_MAXUINT

static void command_help (Run *run);

static const Command commands[] = {
  { "ask", N_("[MODEL-OPTIONS] MESSAGE"),
    N_("Run a standalone turn and print the answer"), 1, JOINED, OPT_MODEL, command_ask },
  { "send", N_("[--session ID] [--auto-permission] [MODEL-OPTIONS] MESSAGE"),
    N_("Send a message to a session (a new one without --session) and wait until the turn settles"),
    1, JOINED, OPT_MODEL | OPT_SESSION, command_send },
  { "sessions", N_("[--json]"), N_("List the sessions"), 0, 0, OPT_JSON, command_sessions },
  { "show", N_("SESSION [--json]"), N_("Show a session’s turns: inputs, answers, tool calls and status"),
    1, 1, OPT_JSON, command_show },
  { "allow", N_("TURN CALL"), N_("Allow a tool call that waits for permission"), 2, 2, 0, command_permission },
  { "deny", N_("TURN CALL"), N_("Deny a tool call that waits for permission"), 2, 2, 0, command_permission },
  { "answer", N_("TURN CALL TEXT"), N_("Answer a question the model asked"), 3, JOINED, 0, command_answer },
  { "deliver", N_("TURN CALL JSON"), N_("Deliver the result of an asynchronous tool call"), 3, 3, 0,
    command_deliver },
  { "stop", N_("TURN"), N_("Stop a turn"), 1, 1, 0, command_stop },
  { "resume", N_("SESSION"), N_("Resume a session’s interrupted latest turn"), 1, 1, 0, command_resume },
  { "title", N_("SESSION TITLE"), N_("Rename a session"), 2, JOINED, 0, command_title },
  { "delete", N_("SESSION"), N_("Delete a session (its turn files stay)"), 1, 1, 0, command_delete },
  { "fork", N_("SESSION TURN"), N_("Start a new session from a session’s history up to a turn"), 2, 2, 0,
    command_fork },
  { "recover", N_("SESSION"), N_("Copy the readable part of a damaged session to a new session"), 1, 1, 0,
    command_recover },
  { "help", N_("[COMMAND]"), N_("Show this help, or a command’s help"), 0, 1, 0, command_help },
};

static const Command *
find_command (const char *name)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (commands[i].name, name))
      return &commands[i];
  return NULL;
}

/**
 * natter_cli_is_command:
 * @word: (nullable): the first argument of a command line
 *
 * Whether @word names a subcommand, so that `main()` can choose the
 * display-free application before GTK needs a display.
 *
 * Returns: %TRUE for a subcommand of the command line
 */
gboolean
natter_cli_is_command (const char *word)
{
  return find_command (word) != NULL;
}

/**
 * natter_cli_needs_services:
 * @arguments: (array zero-terminated=1): the whole command line, with
 *   the program name first
 *
 * Whether running @arguments touches the data directory. Help and
 * command lines that cannot be understood do not, so they work (and are
 * refused) without taking the single-writer lock.
 *
 * Returns: %TRUE when the command needs #NatterServices
 */
gboolean
natter_cli_needs_services (const char * const *arguments)
{
  const Command *command;

  g_return_val_if_fail (arguments != NULL, FALSE);

  if (arguments[0] == NULL)
    return FALSE;
  command = find_command (arguments[1]);
  if (command == NULL || command->start == command_help)
    return FALSE;
  for (guint i = 2; arguments[i] != NULL; i++)
    {
      if (g_str_equal (arguments[i], "--"))
        break;
      if (g_str_equal (arguments[i], "--help") || g_str_equal (arguments[i], "-h"))
        return FALSE;
    }
  return TRUE;
}

/**
 * natter_cli_dup_summary:
 *
 * The overview of the subcommands, the model options and the
 * environment, as `natter --help` and `natter help` print it.
 *
 * Returns: (transfer full): translated text ending in a newline
 */
char *
natter_cli_dup_summary (void)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "%s\n", _("Commands (headless; forwarded to the running Natter if there is one):"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *usage = g_strdup_printf ("%s %s", commands[i].name, _(commands[i].parameters));

      g_string_append_printf (text, "  natter %s\n      %s\n", usage, _(commands[i].summary));
    }
  g_string_append_printf (text, "\n%s\n", _("Model options:"));
  g_string_append_printf (text, "  --base-url URL         %s\n",
                          _("An OpenAI-compatible endpoint instead of the default provider"));
  g_string_append_printf (text, "  --model NAME           %s\n", _("The model to use"));
  g_string_append_printf (text, "  --max-model-calls N    %s\n", _("The most model calls of the turn"));
  g_string_append_printf (text, "\n%s\n", _("Environment:"));
  g_string_append_printf (text, "  NATTER_API_KEY         %s\n",
                          _("The API key when the Secret Service has none for the provider"));
  g_string_append_printf (text, "  NATTER_DATA_DIR        %s\n", _("The data directory"));
  return g_string_free (text, FALSE);
}

static GOptionContext *option_context_new (Run *run);

static void
command_help (Run *run)
{
  g_autofree char *summary = NULL;

  if (run->args[0] != NULL)
    {
      const Command *command = find_command (run->args[0]);
      g_autoptr(GOptionContext) context = NULL;
      g_autofree char *help = NULL;

      if (command == NULL)
        {
          fail (run, NATTER_CLI_EXIT_USAGE, _("Unknown command “%s”"), run->args[0]);
          return;
        }
      run->command = command;
      context = option_context_new (run);
      help = g_option_context_get_help (context, TRUE, NULL);
      out (run, "%s", help);
      finish (run, 0);
      return;
    }
  summary = natter_cli_dup_summary ();
  out (run, "%s", summary);
  finish (run, 0);
}

static GOptionContext *
option_context_new (Run *run)
{
  const Command *command = run->command;
  g_autofree char *parameters = g_strdup_printf ("%s %s", command->name, _(command->parameters));
  GOptionContext *context = g_option_context_new (parameters);
  GOptionEntry entries[10];
  guint n = 0;

  memset (entries, 0, sizeof entries);
  entries[n++] = (GOptionEntry) { "help", 'h', 0, G_OPTION_ARG_NONE, &run->help, N_("Show this help"), NULL };
  if (command->options & OPT_SESSION)
    {
      entries[n++] = (GOptionEntry) { "session", 0, 0, G_OPTION_ARG_STRING, &run->session_id,
                                      N_("The session to continue; without it a new session starts"),
                                      N_("ID") };
      entries[n++] = (GOptionEntry) { "auto-permission", 0, 0, G_OPTION_ARG_NONE, &run->auto_permission,
                                      N_("Let the permission classifier decide before asking"), NULL };
    }
  if (command->options & OPT_MODEL)
    {
      entries[n++] = (GOptionEntry) { "base-url", 0, 0, G_OPTION_ARG_STRING, &run->base_url,
                                      N_("An OpenAI-compatible endpoint instead of the default provider"),
                                      N_("URL") };
      entries[n++] = (GOptionEntry) { "model", 0, 0, G_OPTION_ARG_STRING, &run->model,
                                      N_("The model to use"), N_("NAME") };
      entries[n++] = (GOptionEntry) { "max-model-calls", 0, 0, G_OPTION_ARG_INT, &run->max_model_calls,
                                      N_("The most model calls of the turn"), N_("N") };
    }
  if (command->options & OPT_JSON)
    entries[n++] = (GOptionEntry) { "json", 0, 0, G_OPTION_ARG_NONE, &run->json,
                                    N_("Print JSON instead of text"), NULL };
  g_assert (n < G_N_ELEMENTS (entries));

  /* GOption's own --help would exit() the process, which may be the
   * running window's: help is an ordinary option here. */
  g_option_context_set_help_enabled (context, FALSE);
  g_option_context_set_summary (context, _(command->summary));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  return context;
}

static void
usage_error (Run        *run,
             const char *message)
{
  g_application_command_line_printerr (run->cmdline, "natter: %s\n", message);
  if (run->command != NULL)
    g_application_command_line_printerr (run->cmdline, _("Try “natter %s --help”.\n"), run->command->name);
  else
    g_application_command_line_printerr (run->cmdline, "%s\n", _("Try “natter help”."));
  finish (run, NATTER_CLI_EXIT_USAGE);
}

/* Parses the command's options and arguments into @run; on a usage
 * error, reports it and ends the run. */
static gboolean
parse (Run   *run,
       GStrv  arguments)
{
  g_autoptr(GOptionContext) context = option_context_new (run);
  g_autoptr(GError) error = NULL;
  g_autofree char *program = g_strdup_printf ("natter %s", run->command->name);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  guint argc, n_args;
  const Command *command = run->command;

  g_strv_builder_add (builder, program);
  for (guint i = 2; arguments[i] != NULL; i++)
    g_strv_builder_add (builder, arguments[i]);
  argv = g_strv_builder_end (builder);

  if (!g_option_context_parse_strv (context, &argv, &error))
    {
      usage_error (run, error->message);
      return FALSE;
    }
  if (run->help)
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

      out (run, "%s", help);
      finish (run, 0);
      return FALSE;
    }

  argc = g_strv_length (argv);
  /* GOption keeps a "--" that ends the options; it is no argument. */
  n_args = argc - 1;
  if (n_args > 0 && g_str_equal (argv[1], "--"))
    {
      g_free (argv[1]);
      memmove (&argv[1], &argv[2], sizeof (char *) * (argc - 1));
      n_args--;
    }
  if (n_args < command->min_args || n_args > command->max_args)
    {
      usage_error (run, n_args < command->min_args ? _("Missing arguments") : _("Too many arguments"));
      return FALSE;
    }
  if (run->max_model_calls < 0 || (command->options & OPT_MODEL && run->max_model_calls == 0 &&
                                    g_strv_contains ((const char * const *) arguments, "--max-model-calls")))
    {
      usage_error (run, _("--max-model-calls must be at least 1"));
      return FALSE;
    }
  if (run->base_url != NULL && !natter_provider_id_is_endpoint (run->base_url))
    {
      usage_error (run, _("--base-url must be an http:// or https:// URL"));
      return FALSE;
    }

  run->args = g_new0 (char *, n_args + 1);
  for (guint i = 0; i < n_args; i++)
    run->args[i] = g_strdup (argv[i + 1]);
  if (command->max_args == JOINED)
    run->text = g_strjoinv (" ", &run->args[command->min_args - 1]);
  else if (command->min_args == 3)
    run->text = g_strdup (run->args[2]);
  if (run->text != NULL && run->text[0] == '\0')
    {
      usage_error (run, _("The text is empty"));
      return FALSE;
    }
  return TRUE;
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!natter_services_load_finish (NATTER_SERVICES (object), result, &error))
    {
      fail_error (run, error);
      return;
    }
  run->command->start (run);
}

/* Whether @a and @b name the same directory: the same path, or the
 * same inode reached through another path (a symbolic link). */
static gboolean
same_directory (GFile *a,
                GFile *b)
{
  g_autoptr(GFileInfo) info_a = NULL;
  g_autoptr(GFileInfo) info_b = NULL;
  const char *id_a;
  const char *id_b;

  if (g_file_equal (a, b))
    return TRUE;
  info_a = g_file_query_info (a, G_FILE_ATTRIBUTE_ID_FILE, G_FILE_QUERY_INFO_NONE, NULL, NULL);
  info_b = g_file_query_info (b, G_FILE_ATTRIBUTE_ID_FILE, G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info_a == NULL || info_b == NULL)
    return FALSE;
  id_a = g_file_info_get_attribute_string (info_a, G_FILE_ATTRIBUTE_ID_FILE);
  id_b = g_file_info_get_attribute_string (info_b, G_FILE_ATTRIBUTE_ID_FILE);
  return id_a != NULL && g_strcmp0 (id_a, id_b) == 0;
}

/* A command forwarded by another process must act on the data directory
 * that process was given, never on this one's in its place: it runs here
 * only when both are the same. The other process forwards only when its
 * directory is in use (it runs the command itself otherwise), so a
 * different directory means two Natters on two directories: say so,
 * naming both. */
static gboolean
check_data_dir (Run *run)
{
  GFile *ours = natter_services_get_data_dir (run->services);
  g_autofree char *our_path = g_file_get_parse_name (ours);
  g_autoptr(GFile) theirs = NULL;
  g_autofree char *their_path = NULL;
  const char *given;

  if (!g_application_command_line_get_is_remote (run->cmdline))
    return TRUE;
  given = g_application_command_line_getenv (run->cmdline, NATTER_DATA_DIR_ENV);
  if (given == NULL || given[0] == '\0')
    {
      fail (run, NATTER_CLI_EXIT_FAILURE,
            _("The command did not say which data directory it is for; the running Natter uses %s"),
            our_path);
      return FALSE;
    }
  theirs = g_application_command_line_create_file_for_arg (run->cmdline, given);
  if (same_directory (ours, theirs))
    return TRUE;
  their_path = g_file_get_parse_name (theirs);
  fail (run, NATTER_CLI_EXIT_FAILURE,
        _("The command was given the data directory %s, which another Natter process is using, "
          "and the running Natter uses %s; nothing was done. Run it again when %s is free"),
        their_path, our_path, their_path);
  return FALSE;
}

/**
 * natter_cli_run_async:
 * @services: (nullable): the services to run against; %NULL only when
 *   natter_cli_needs_services() says the command line needs none
 * @cmdline: the command line, local or forwarded from another process;
 *   all output goes through it
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context when the command is done
 * @user_data: data for @callback
 *
 * Runs one `natter` subcommand: parses its options, executes it
 * against @services (loading the index first), waits for a turn to
 * settle where the command starts or continues one, and prints the
 * result. Errors are printed as one "natter: …" line on stderr; the
 * result is the exit status for the command line.
 *
 * A command line forwarded from another process runs only when that
 * process's data directory (its `NATTER_DATA_DIR`, which
 * natter_cli_application_run() always sends) is @services' own;
 * otherwise it fails, naming both directories, and nothing is written.
 */
void
natter_cli_run_async (NatterServices          *services,
                      GApplicationCommandLine *cmdline,
                      GCancellable            *cancellable,
                      GAsyncReadyCallback      callback,
                      gpointer                 user_data)
{
  Run *run;
  g_auto(GStrv) arguments = NULL;
  int argc;

  g_return_if_fail (services == NULL || NATTER_IS_SERVICES (services));
  g_return_if_fail (G_IS_APPLICATION_COMMAND_LINE (cmdline));

  run = g_new0 (Run, 1);
  run->task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (run->task, natter_cli_run_async);
  g_task_set_task_data (run->task, run, (GDestroyNotify) run_free);
  run->services = services != NULL ? g_object_ref (services) : NULL;
  run->cmdline = g_object_ref (cmdline);

  arguments = g_application_command_line_get_arguments (cmdline, &argc);
  if (argc < 2)
    {
      usage_error (run, _("No command given"));
      return;
    }
  run->command = find_command (arguments[1]);
  if (run->command == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Unknown command “%s”"), arguments[1]);

      usage_error (run, message);
      return;
    }
  if (!parse (run, arguments))
    return;
  if (run->command->start == command_help)
    {
      command_help (run);
      return;
    }
  if (run->services == NULL)
    {
      fail (run, NATTER_CLI_EXIT_FAILURE, "%s", _("The data directory is not available"));
      return;
    }
  if (!check_data_dir (run))
    return;
  if (run->command->start == command_ask)
    {
      command_ask (run);
      return;
    }
  natter_services_load_async (run->services, cancellable, loaded_cb, run);
}

/**
 * natter_cli_run_finish:
 * @result: the #GAsyncResult
 *
 * Returns: the exit status: 0 on success, %NATTER_CLI_EXIT_FAILURE,
 *   %NATTER_CLI_EXIT_USAGE
 */
int
natter_cli_run_finish (GAsyncResult *result)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NATTER_CLI_EXIT_FAILURE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_cli_run_async, NATTER_CLI_EXIT_FAILURE);

  return (int) g_task_propagate_int (G_TASK (result), NULL);
}

/**
 * natter_cli_get_commands:
 *
 * The `natter SUBCOMMAND` commands of this file, for the applications
 * that run command lines (natter_command_line_run()).
 *
 * Returns: (transfer none): the commands, valid for the process's life
 */
const NatterCommands *
natter_cli_get_commands (void)
{
  static const NatterCommands cli_commands = {
    natter_cli_needs_services,
    natter_cli_dup_summary,
    natter_cli_run_async,
    natter_cli_run_finish,
  };

  return &cli_commands;
}
