/* natter-cli-report.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How the command line prints what the session layer answers: a settled
 * turn and its exit status, the calls a turn waits on, the session list
 * and one session's turns, as text or as JSON.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include <math.h>
#include <string.h>

#include "natter-cli-private.h"
#include "natter-json.h"
#include "natter-provider-error.h"
#include "natter-session-families.h"

static char *
node_to_string (JsonNode *node)
{
  if (node == NULL)
    return g_strdup ("null");
  return natter_json_to_output_text (node, FALSE);
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

      natter_cli_out (run, "waiting: permission %s %s %s\n", natter_turn_tool_call_get_id (call),
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
        natter_cli_out (run, "waiting: question %s %s\n", natter_turn_tool_call_get_id (call),
                        json_object_get_string_member (input, "question"));
      else
        {
          g_autofree char *text = node_to_string (arguments);

          natter_cli_out (run, "waiting: tool %s %s %s\n", natter_turn_tool_call_get_id (call),
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
    natter_cli_out (run, "session %s\n", session_id);
  natter_cli_out (run, "turn %s\n", natter_turn_state_get_turn_id (state));

  switch (status)
    {
    case NATTER_TURN_STATUS_COMPLETED:
      {
        g_autofree char *answer = natter_turn_state_dup_final_text (state);

        natter_cli_out (run, "\n%s\n", answer != NULL ? answer : "");
        if (session_id != NULL && run->session_id == NULL)
          run->session_id = g_strdup (session_id);
        natter_cli_follow_queue (run);
      }
      return;
    case NATTER_TURN_STATUS_SUSPENDED:
      print_waiting (run, state);
      natter_cli_finish (run, 0);
      return;
    case NATTER_TURN_STATUS_FAILED:
      {
        const char *stored = json_object_get_string_member_with_default (terminal, "error", "");
        g_autofree char *error = natter_cli_error_words (run->cmdline, stored);

        /* A conversation that outgrew the context window has a way on:
         * the message again, after a summary, as a new version of it
         * (sending the words again would repeat them after the failed
         * turn). */
        if (session_id != NULL && natter_error_is_context_overflow (stored))
          natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                           natter_cli_tr (run, "The turn failed: %s (the conversation is too long for the model; "
                                          "“natter retry --compact %s” summarizes its earlier turns and sends the "
                                          "message again)"),
                           error, natter_turn_state_get_turn_id (state));
        else if (session_id != NULL)
          natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                           natter_cli_tr (run, "The turn failed: %s (“natter retry %s” sends the message again)"),
                           error, natter_turn_state_get_turn_id (state));
        else
          natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, natter_cli_tr (run, "The turn failed: %s"), error);
      }
      return;
    case NATTER_TURN_STATUS_CANCELLED:
      if (run->cancel_is_success)
        {
          natter_cli_out (run, "cancelled\n");
          natter_cli_finish (run, 0);
        }
      else
        natter_cli_fail_cancelled (run, json_object_get_string_member_with_default (terminal, "reason", NULL));
      return;
    case NATTER_TURN_STATUS_IDLE:
    default:
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                       natter_cli_tr (run, "The turn stopped before it settled; "
                                      "continue it with “natter resume SESSION”"));
      return;
    }
}

static void
report_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterTurnState) state = NULL;
  GError *error = NULL;

  state = natter_sessions_get_turn_reduced_finish (NATTER_SESSIONS (object), result, &error);
  if (state == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  report_turn (run, state);
}

void
natter_cli_report_turn_id (Run *run)
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
      natter_cli_fail_error (run, error);
      return;
    }
  natter_cli_report_turn_id (run);
}

/* Waits until the turn settles, then reports it. */
void
natter_cli_wait_and_report (Run *run)
{
  natter_sessions_wait_for_turn_async (natter_services_get_sessions (run->services), run->turn_id,
                                       g_task_get_cancellable (run->task), report_waited_cb, run);
}

/* Following the queue: a turn the queue made when the reported one
 * completed is reported too (docs/sessions.md §4). */

/* The turn of @state right after @turn_id, or NULL when @turn_id is
 * not there or is the latest. */
static const NatterSessionTurn *
turn_after (NatterSessionState *state,
            const char         *turn_id)
{
  const NatterSessionTurn *turn = natter_session_state_find_turn (state, turn_id);

  /* session_seq counts from 1: it is the index of the turn after. */
  if (turn == NULL || turn->session_seq >= natter_session_state_get_n_turns (state))
    return NULL;
  return natter_session_state_get_turn (state, (guint) turn->session_seq);
}

static void
follow_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;
  NatterSessions *sessions = NATTER_SESSIONS (object);
  g_autoptr(NatterSessionState) state = NULL;
  const NatterSessionTurn *next;
  GError *error = NULL;

  state = natter_sessions_get_session_finish (sessions, result, &error);
  if (state == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  next = turn_after (state, run->turn_id);
  /* A queued message became the next turn when the reported one
   * completed: it is reported too, after a blank line, so the process
   * stays until it settles instead of leaving it interrupted. That turn
   * may itself have completed and made the next one before the session
   * was read here: the turn right after the reported one is followed,
   * and its report follows the queue on, so the process stays until the
   * last turn the queue made settles. */
  if (next != NULL)
    {
      g_free (run->turn_id);
      run->turn_id = g_strdup (next->turn_id);
      natter_cli_out (run, "\n");
      natter_cli_wait_and_report (run);
      return;
    }
  /* Otherwise nothing was promoted: the flush waited for the promotion
   * the settling began before the turn's waiters heard of it, so a queue
   * still there waits for the person (the turn did not complete). */
  natter_cli_finish (run, 0);
}

static void
follow_read (Run *run)
{
  natter_sessions_get_session_async (natter_services_get_sessions (run->services), run->session_id,
                                     g_task_get_cancellable (run->task), follow_read_cb, run);
}

/* A test point: on a loaded machine the session may be read only after
 * the turn the queue made has settled and made the next one. With
 * NATTER_TEST_FOLLOW_LATE set, the command arranges exactly that: it
 * waits for the turn after the reported one to settle, lets the
 * promotion its settling started run, and only then reads the session
 * as it always does. */

static void
late_flushed_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  natter_sessions_flush_finish (NATTER_SESSIONS (object), result, NULL);
  follow_read (user_data);
}

static void
late_waited_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;

  natter_sessions_wait_for_turn_finish (NATTER_SESSIONS (object), result, NULL);
  natter_sessions_flush_async (NATTER_SESSIONS (object), g_task_get_cancellable (run->task), late_flushed_cb, run);
}

static void
late_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterSessionState) state = NULL;
  const NatterSessionTurn *next = NULL;

  state = natter_sessions_get_session_finish (NATTER_SESSIONS (object), result, NULL);
  if (state != NULL)
    next = turn_after (state, run->turn_id);
  if (next == NULL)
    {
      follow_read (run);
      return;
    }
  natter_sessions_wait_for_turn_async (NATTER_SESSIONS (object), next->turn_id, g_task_get_cancellable (run->task),
                                       late_waited_cb, run);
}

static void
follow_flushed_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_flush_finish (NATTER_SESSIONS (object), result, &error) || run->session_id == NULL)
    {
      natter_cli_finish (run, 0);
      return;
    }
  if (g_getenv ("NATTER_TEST_FOLLOW_LATE") != NULL)
    natter_sessions_get_session_async (NATTER_SESSIONS (object), run->session_id, g_task_get_cancellable (run->task),
                                       late_read_cb, run);
  else
    follow_read (run);
}

/* After a reported turn completed: once the promotion that its settling
 * started has run (flush), follows the turn it made, if any. */
void
natter_cli_follow_queue (Run *run)
{
  natter_sessions_flush_async (natter_services_get_sessions (run->services), g_task_get_cancellable (run->task),
                               follow_flushed_cb, run);
}

/* ------------------------------------------------------------------ */
/* sessions                                                            */
/* ------------------------------------------------------------------ */

static const char *
or_dash (const char *text)
{
  return text != NULL && text[0] != '\0' ? text : "-";
}

/* `--json` output is flushed in pieces of about this size: few writes
 * (each one a D-Bus message when the command runs in the window), and
 * never the whole array in memory. */
#define JSON_FLUSH_SIZE (64 * 1024)

/* Appends one element of the printed array, spelled as the generator
 * spells it inside a pretty array: after "[" or ",", each of its lines
 * indented two more spaces. Every newline of pretty JSON is between
 * tokens (a newline in a string is escaped), so indenting after each
 * keeps the text the same document. */
static void
append_json_element (GString  *out,
                     JsonNode *node,
                     gboolean  first)
{
  g_autofree char *text = natter_json_to_output_text (node, TRUE);
  const char *line = text;
  const char *end;

  g_string_append (out, first ? "[\n  " : ",\n  ");
  while ((end = strchr (line, '\n')) != NULL)
    {
      g_string_append_len (out, line, end + 1 - line);
      g_string_append (out, "  ");
      line = end + 1;
    }
  g_string_append (out, line);
}

/* `pinned` (always) and `folder` (the folder's name, when it is in
 * one that exists) of the conversation whose original is @original
 * (docs/sessions.md §16): a version says what its conversation does. */
static void
add_placement (Run        *run,
               JsonObject *object,
               const char *original)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (natter_services_get_index (run->services), original);
  NatterFolder *folder = NULL;

  json_object_set_boolean_member (object, "pinned", entry != NULL && natter_session_index_entry_get_pinned (entry));
  if (entry != NULL)
    folder = natter_folders_lookup (natter_services_get_folders (run->services),
                                    natter_session_index_entry_get_folder_id (entry));
  if (folder != NULL && natter_folder_get_name (folder) != NULL)
    json_object_set_string_member (object, "folder", natter_folder_get_name (folder));
}

/* Prints the session index: one tab-separated line per session, or
 * the entries as a JSON array, written an entry at a time: the array's
 * text is exactly what natter_json_to_text() makes of the whole array,
 * but only one entry's tree and a piece of the text are ever held. Every
 * session is listed; one that is a version of another conversation (an
 * edit or a new try, natter-session-families.c) says which: a fifth
 * column "version of ID" in text, `versionOf` in JSON. A latest turn
 * that another device runs is listed as running there: status
 * `elsewhere` and a last column "on DEVICE" in text,
 * `latestTurnElsewhere: true` beside `latestTurnDevice` in JSON. The JSON also
 * says whether the conversation is pinned and which folder it is in. */
void
natter_cli_print_sessions (Run *run)
{
  GListModel *index = G_LIST_MODEL (natter_services_get_index (run->services));
  g_autoptr(NatterSessionFamilies) families = natter_session_families_new (index);
  guint n = g_list_model_get_n_items (index);
  g_autoptr(GString) json = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);
      const char *id = natter_session_index_entry_get_session_id (entry);
      const char *error = natter_session_index_entry_get_error (entry);
      const char *original = natter_session_families_get_original (families, id);
      gboolean version = g_strcmp0 (original, id) != 0;
      const char *latest = natter_session_index_entry_get_latest_turn_id (entry);
      /* The index is read from the files, where a turn the window is
       * running (a stream that sent nothing yet) looks interrupted; this
       * command runs in the window's process when there is one, and its
       * live advances say running (docs/sessions.md §9.1 step 2). */
      gboolean running = latest != NULL &&
                         natter_sessions_is_turn_running (natter_services_get_sessions (run->services), latest);
      /* A turn another device runs reads `idle` in its file, as one cut
       * short by a crash does: said as the window says it, running
       * there (docs/format.md §4.5). */
      gboolean elsewhere = !running && error == NULL &&
                           natter_sessions_is_turn_elsewhere (natter_services_get_sessions (run->services), entry);

      if (run->json)
        {
          g_autoptr(JsonNode) node = natter_session_index_entry_to_json (entry);

          if (running)
            json_object_set_string_member (json_node_get_object (node), "latestTurnStatus", "running");
          if (elsewhere)
            json_object_set_boolean_member (json_node_get_object (node), "latestTurnElsewhere", TRUE);

          if (version)
            json_object_set_string_member (json_node_get_object (node), "versionOf", original);
          add_placement (run, json_node_get_object (node), original);
          append_json_element (json, node, i == 0);
          if (json->len >= JSON_FLUSH_SIZE)
            {
              natter_cli_out (run, "%s", json->str);
              g_string_truncate (json, 0);
            }
        }
      else if (error != NULL)
        {
          g_autofree char *words = natter_cli_one_line (error);

          natter_cli_out (run, "%s\terror\t%s\t%s\n", id, or_dash (natter_session_index_entry_get_updated_at (entry)),
                          words);
        }
      else
        {
          g_autofree char *title = natter_cli_one_line (or_dash (natter_session_index_entry_get_title (entry)));
          g_autofree char *device = NULL;

          if (elsewhere)
            device = natter_cli_one_line (or_dash (natter_session_index_entry_get_latest_turn_device_name (entry)));
          natter_cli_out (run, "%s\t%s\t%s\t%s%s%s%s%s\n", id,
                          running ? "running"
                          : elsewhere ? "elsewhere" : natter_session_index_entry_get_latest_turn_status (entry),
                          or_dash (natter_session_index_entry_get_updated_at (entry)),
                          title, version ? "\tversion of " : "", version ? original : "",
                          elsewhere ? "\ton " : "", elsewhere ? device : "");
        }
    }
  if (run->json)
    {
      g_string_append (json, n == 0 ? "[]\n" : "\n]\n");
      natter_cli_out (run, "%s", json->str);
    }
}

/* ------------------------------------------------------------------ */
/* show                                                                */
/* ------------------------------------------------------------------ */

/* Sets @object's `timeToFirstTokenMs` and `tokensPerSecond` (to a tenth)
 * where they are known (≥ 0, > 0). */
static void
set_speed (JsonObject *object,
           gint64      time_to_first_token_ms,
           double      tokens_per_second)
{
  if (time_to_first_token_ms >= 0)
    json_object_set_int_member (object, "timeToFirstTokenMs", time_to_first_token_ms);
  if (tokens_per_second > 0)
    json_object_set_double_member (object, "tokensPerSecond", round (tokens_per_second * 10) / 10);
}

/* The answer's speed figures (docs/format.md §4.2), and each model
 * call's in `modelCalls`: `[{modelCallIndex, timeToFirstTokenMs?,
 * tokensPerSecond?}]`. */
static void
add_speed (JsonObject      *summary,
           NatterTurnState *state)
{
  JsonArray *calls = json_array_new ();
  gint64 time_to_first_token_ms;
  double tokens_per_second;

  natter_turn_state_get_speed (state, &time_to_first_token_ms, &tokens_per_second);
  set_speed (summary, time_to_first_token_ms, tokens_per_second);
  for (guint i = 0; i < natter_turn_state_get_n_model_calls (state); i++)
    {
      NatterTurnModelCall *call = natter_turn_state_get_model_call (state, i);
      JsonObject *item = json_object_new ();

      json_object_set_int_member (item, "modelCallIndex", i);
      set_speed (item, natter_turn_model_call_get_time_to_first_token_ms (call),
                 natter_turn_model_call_get_tokens_per_second (call));
      json_array_add_object_element (calls, item);
    }
  json_object_set_array_member (summary, "modelCalls", calls);
}

/* The words of an answer that ended before it was whole (stopped, or
 * cut off by a failure): what model call @call had received, which its
 * `model_call_failed` keeps and the window shows marked; %NULL when it
 * has none (it ended whole, or nothing had arrived). */
static char *
dup_call_partial (NatterTurnModelCall *call)
{
  JsonObject *partial = call != NULL && natter_turn_model_call_get_message (call) == NULL
                        ? natter_turn_model_call_get_partial (call) : NULL;
  char *text;

  if (partial == NULL)
    return NULL;
  text = natter_json_content_text (json_object_get_member (partial, "content"), "");
  if (text == NULL || text[0] == '\0')
    {
      g_free (text);
      return NULL;
    }
  return text;
}

/* dup_call_partial() of the turn's last model call; sets @out_stopped
 * to whether the person stopped it. */
static char *
dup_partial_answer (NatterTurnState *state,
                    gboolean        *out_stopped)
{
  guint n = natter_turn_state_get_n_model_calls (state);
  NatterTurnModelCall *call = n > 0 ? natter_turn_state_get_model_call (state, n - 1) : NULL;
  char *text = dup_call_partial (call);

  if (text != NULL)
    *out_stopped = natter_turn_model_call_was_stopped (call);
  return text;
}

/**
 * natter_cli_add_partial_answer:
 * @summary: a turn's summary (natter_cli_turn_summary())
 * @text: words of an answer that did not end
 * @end: how it ended: "stopped", "cut-off" or "interrupted"
 *
 * Adds @text to @summary's `partialAnswers`, after those there.
 */
void
natter_cli_add_partial_answer (JsonObject *summary,
                               const char *text,
                               const char *end)
{
  JsonObject *item = json_object_new ();

  if (!json_object_has_member (summary, "partialAnswers"))
    json_object_set_array_member (summary, "partialAnswers", json_array_new ());
  json_object_set_string_member (item, "text", text);
  json_object_set_string_member (item, "end", end);
  json_array_add_object_element (json_object_get_array_member (summary, "partialAnswers"), item);
}

/* Adds to @summary's `partialAnswers` the words of every call of @state
 * that was stopped or broke off mid-answer, in order, also those an
 * answer asked again came after. */
static void
add_partial_answers (JsonObject      *summary,
                     NatterTurnState *state)
{
  for (guint i = 0; i < natter_turn_state_get_n_model_calls (state); i++)
    {
      NatterTurnModelCall *call = natter_turn_state_get_model_call (state, i);
      g_autofree char *text = dup_call_partial (call);

      if (text != NULL)
        natter_cli_add_partial_answer (summary, text,
                                       natter_turn_model_call_was_stopped (call) ? "stopped" : "cut-off");
    }
}

/* One turn reduced for display: input, answer, tool calls, status,
 * speed, and for one that has not ended, the device that runs it
 * (`device`, with `elsewhere: true` when that is not @here). */
JsonObject *
natter_cli_turn_summary (const NatterSessionTurn *turn,
                         NatterTurnState         *state,
                         NatterDevice            *here)
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
    {
      gboolean stopped = FALSE;
      g_autofree char *partial = dup_partial_answer (state, &stopped);

      json_object_set_null_member (summary, "answer");
      /* Never lose a word: what had arrived is shown, marked as such. */
      if (partial != NULL)
        {
          json_object_set_string_member (summary, "partialAnswer", partial);
          json_object_set_string_member (summary, "partialEnd", stopped ? "stopped" : "cut-off");
        }
    }

  add_partial_answers (summary, state);

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
  add_speed (summary, state);

  if (status == NATTER_TURN_STATUS_FAILED)
    json_object_set_string_member (summary, "error",
                                   json_object_get_string_member_with_default (terminal, "error", ""));
  if (status == NATTER_TURN_STATUS_CANCELLED &&
      json_object_get_string_member_with_default (terminal, "reason", NULL) != NULL)
    json_object_set_string_member (summary, "reason", json_object_get_string_member (terminal, "reason"));
  if (terminal == NULL && natter_turn_state_get_device_id (state) != NULL)
    {
      JsonObject *device = json_object_new ();

      json_object_set_string_member (device, "id", natter_turn_state_get_device_id (state));
      json_object_set_string_member (device, "name", natter_turn_state_get_device_name (state));
      json_object_set_object_member (summary, "device", device);
      if (!natter_device_is_this (here, natter_turn_state_get_device_id (state)))
        json_object_set_boolean_member (summary, "elsewhere", TRUE);
    }
  return summary;
}

/* A turn the session names whose file has not arrived from another
 * device yet (docs/format.md §9.3): what the session says of it, and
 * the status `arriving`. */
JsonObject *
natter_cli_arriving_turn_summary (const NatterSessionTurn *turn)
{
  JsonObject *summary = json_object_new ();

  json_object_set_string_member (summary, "turnId", turn->turn_id);
  json_object_set_int_member (summary, "sessionSeq", turn->session_seq);
  json_object_set_string_member (summary, "agentId", turn->agent_id);
  json_object_set_object_member (summary, "model", json_object_ref (turn->model));
  json_object_set_string_member (summary, "ts", turn->ts);
  json_object_set_string_member (summary, "status", NATTER_LATEST_TURN_STATUS_ARRIVING);
  json_object_set_null_member (summary, "input");
  json_object_set_null_member (summary, "answer");
  json_object_set_array_member (summary, "toolCalls", json_array_new ());
  json_object_set_array_member (summary, "attachments", json_array_new ());
  return summary;
}

/* "attachment:" lines: name, size and type, and what is wrong with a
 * blob that is missing or damaged. */
static void
print_attachments (Run       *run,
                   JsonArray *attachments)
{
  for (guint i = 0; attachments != NULL && i < json_array_get_length (attachments); i++)
    {
      JsonObject *attachment = json_array_get_object_element (attachments, i);
      g_autofree char *size = g_format_size ((guint64) json_object_get_int_member (attachment, "size"));
      /* A name is one field of the line, as a title is. */
      g_autofree char *name = natter_cli_one_line (json_object_get_string_member (attachment, "name"));

      natter_cli_out (run, "attachment: %s %s %s\n", name, size,
                      json_object_get_string_member (attachment, "mediaType"));
      if (json_object_has_member (attachment, "error"))
        natter_cli_out (run, "attachment-error: %s\n", json_object_get_string_member (attachment, "error"));
    }
}

/* One turn of `show`, as text. */
static void
print_show_turn (Run        *run,
                 JsonObject *turn)
{
  JsonObject *model = json_object_get_object_member (turn, "model");
  JsonArray *calls = json_object_get_array_member (turn, "toolCalls");

  natter_cli_out (run, "\nturn %s %s %s %s\n", json_object_get_string_member (turn, "turnId"),
                  json_object_get_string_member (turn, "status"),
                  json_object_get_string_member_with_default (model, "provider", "-"),
                  json_object_get_string_member_with_default (model, "model", "-"));
  if (json_object_get_null_member (turn, "input"))
    {
      natter_cli_out (run, "%s\n", natter_cli_tr (run, "This turn has not arrived from another device yet."));
      return;
    }
  natter_cli_out (run, "user: %s\n", json_object_get_string_member (turn, "input"));
  print_attachments (run, json_object_get_array_member (turn, "attachments"));
  for (guint j = 0; j < json_array_get_length (calls); j++)
    {
      JsonObject *call = json_array_get_object_element (calls, j);
      g_autofree char *arguments = node_to_string (json_object_get_member (call, "arguments"));

      natter_cli_out (run, "tool: %s %s %s %s\n", json_object_get_string_member (call, "toolCallId"),
                      json_object_get_string_member (call, "toolName"), arguments,
                      json_object_get_string_member (call, "status"));
    }
  if (json_object_get_boolean_member_with_default (turn, "elsewhere", FALSE))
    {
      JsonObject *device = json_object_get_object_member (turn, "device");

      /* Translators: %s is the name of another computer */
      natter_cli_out (run, natter_cli_tr (run, "running on another device: %s\n"),
                      json_object_get_string_member (device, "name"));
    }
  if (json_object_has_member (turn, "error"))
    {
      g_autofree char *words = natter_cli_error_words (run->cmdline,
                                                       json_object_get_string_member (turn, "error"));

      natter_cli_out (run, "error: %s\n", words);
    }
  if (json_object_has_member (turn, "partialAnswers"))
    {
      JsonArray *partials = json_object_get_array_member (turn, "partialAnswers");

      for (guint i = 0; i < json_array_get_length (partials); i++)
        {
          JsonObject *partial = json_array_get_object_element (partials, i);
          const char *end = json_object_get_string_member (partial, "end");

          natter_cli_out (run, g_str_equal (end, "stopped") ? "assistant (stopped mid-answer): %s\n"
                               : g_str_equal (end, "interrupted") ? "assistant (interrupted mid-answer): %s\n"
                               : "assistant (cut off mid-answer): %s\n",
                          json_object_get_string_member (partial, "text"));
        }
    }
  if (!json_object_get_null_member (turn, "answer"))
    natter_cli_out (run, "assistant: %s\n", json_object_get_string_member (turn, "answer"));
}

void
natter_cli_print_show_text (Run *run)
{
  NatterSessionState *session = run->session;
  g_autofree char *title = NULL;

  natter_cli_out (run, "session %s\n", natter_session_state_get_session_id (session));
  title = natter_cli_one_line (or_dash (natter_session_state_get_title (session)));
  natter_cli_out (run, "title %s\n", title);
  natter_cli_out (run, "created %s\n", natter_session_state_get_created_at (session));
  natter_cli_out (run, "updated %s\n", natter_session_state_get_updated_at (session));
  if (natter_session_state_get_parent_session (session) != NULL)
    natter_cli_out (run, "forked-from %s %s\n", natter_session_state_get_parent_session (session),
                    or_dash (natter_session_state_get_forked_from_turn_id (session)));

  if (run->inherited_turns != NULL)
    {
      natter_cli_out (run, "\n%s\n", natter_cli_tr (run, "The earlier messages come from a conversation that was deleted:"));
      for (guint i = 0; i < json_array_get_length (run->inherited_turns); i++)
        print_show_turn (run, json_array_get_object_element (run->inherited_turns, i));
    }
  for (guint i = 0; i < json_array_get_length (run->shown_turns); i++)
    print_show_turn (run, json_array_get_object_element (run->shown_turns, i));
}
