/* natter-sessions-compaction.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Compaction (docs/sessions.md §5): a conversation that outgrows
 * the model's context window is summarized up to a kept tail of turns.
 * The summary comes from a standalone turn (docs/sessions.md §11) on the
 * conversation's own model; it is recorded as `conversation_compacted` through
 * the one writer of version-2 events; the next turn gets an inline context of
 * the summary and the kept turns' transcripts, which restarts the reference
 * chain. Nothing is deleted.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-builtin-agent-resolver.h"
#include "natter-headless-runner.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-request-composer.h"
#include "natter-session-archive.h"
#include "natter-session-index-internal.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-private.h"

/* The summary may be long: it replaces the whole earlier conversation. */
#define SUMMARY_MAX_TOKENS 2048

#define SUMMARY_PROMPT \
  "Summarize the conversation below so that it can continue from the summary " \
  "alone. Be faithful and complete: keep every decision and its reason, facts, " \
  "names, numbers, dates, file names, paths, commands and code identifiers " \
  "exactly as written, what was tried and how it turned out, and the questions " \
  "that are still open. Write in the language of the conversation. Answer with " \
  "the summary only."

#define SUMMARY_MARK \
  "Summary of the earlier conversation (the messages before this point were " \
  "summarized to fit the context window):"

/* Text of a message's content: a string, or its text parts. */
static void
append_content (GString  *out,
                JsonNode *content)
{
  if (content == NULL || JSON_NODE_HOLDS_NULL (content))
    return;
  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    {
      g_string_append (out, json_node_get_string (content));
      return;
    }
  if (JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *part = json_array_get_element (parts, i);
          JsonObject *object;
          const char *type;

          if (!JSON_NODE_HOLDS_OBJECT (part))
            continue;
          object = json_node_get_object (part);
          type = json_object_get_string_member_with_default (object, "type", "");
          if (g_str_equal (type, "text"))
            g_string_append (out, json_object_get_string_member_with_default (object, "text", ""));
          else if (g_str_equal (type, "tool-call"))
            {
              g_autofree char *arguments = json_object_has_member (object, "arguments")
                ? natter_json_to_text (json_object_get_member (object, "arguments"), FALSE, NULL) : g_strdup ("{}");

              g_string_append_printf (out, "[calls %s %s]",
                                      json_object_get_string_member_with_default (object, "toolName", "a tool"),
                                      arguments);
            }
        }
      return;
    }
  {
    g_autofree char *json = natter_json_to_text (content, FALSE, NULL);

    g_string_append (out, json);
  }
}

/**
 * natter_compaction_request_text:
 * @messages: (transfer none): the transcript to summarize (messages as
 *   the turn runtime keeps them)
 *
 * The user message of the summarizer turn of docs/sessions.md
 * §5: the instruction, then the transcript as plain text, one
 * "Role: text" paragraph per message (tool calls and results included).
 * A summary already in the transcript is quoted like any message. Pure.
 *
 * Returns: (transfer full): the message text
 */
char *
natter_compaction_request_text (JsonArray *messages)
{
  GString *out = g_string_new (SUMMARY_PROMPT);

  g_string_append (out, "\n\n---\n");
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *role = json_object_get_string_member_with_default (message, "role", "");

      if (g_str_equal (role, "user"))
        g_string_append (out, "\nUser: ");
      else if (g_str_equal (role, "assistant"))
        g_string_append (out, "\nAssistant: ");
      else
        g_string_append_printf (out, "\nTool result%s%s: ",
                                json_object_has_member (message, "toolName") ? " of " : "",
                                json_object_get_string_member_with_default (message, "toolName", ""));
      append_content (out, json_object_get_member (message, "content"));
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

/**
 * natter_compaction_summary_message:
 * @compaction: (transfer none): a `conversation_compacted` event
 *
 * The message that stands for the summarized conversation in the inline
 * context of the next turn (docs/format.md "conversation_compacted"): a
 * user message whose text says it is a summary, marked with the
 * `compactionId` member, which the model does not see.
 *
 * Returns: (transfer full): the message
 */
JsonObject *
natter_compaction_summary_message (JsonObject *compaction)
{
  JsonObject *message = json_object_new ();
  g_autofree char *text = g_strdup_printf ("%s\n\n%s", SUMMARY_MARK,
                                           json_object_get_string_member (compaction, "summary"));

  json_object_set_string_member (message, "role", "user");
  json_object_set_string_member (message, "content", text);
  json_object_set_string_member (message, "compactionId", json_object_get_string_member (compaction, "compactionId"));
  return message;
}

/* The inline context of the turn after a compaction */

static void
context_walked_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  JsonObject *compaction = g_task_get_task_data (task);
  g_autoptr(GPtrArray) turns = NULL;
  g_autoptr(JsonArray) context = json_array_new ();
  GError *error = NULL;

  turns = natter_sessions_walk_back_finish (result, NULL, NULL, &error);
  if (turns == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  json_array_add_object_element (context, natter_compaction_summary_message (compaction));
  for (guint i = turns->len; i > 0; i--)
    {
      g_autoptr(JsonArray) segment = natter_build_closed_transcript (g_ptr_array_index (turns, i - 1), NULL, &error);

      if (segment == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      natter_json_array_add_copies (context, segment);
    }
  g_task_return_pointer (task, g_steal_pointer (&context), (GDestroyNotify) json_array_unref);
}

/**
 * natter_sessions_compaction_context_async: (skip)
 * @self: the service
 * @compaction: (transfer none): the pending `conversation_compacted`
 * @latest_turn_id: the conversation's latest turn (its fork point for a
 *   branch without turns of its own)
 * @callback: called with the context
 * @user_data: data for @callback
 *
 * Builds the inline context of the first turn after a compaction
 * (docs/sessions.md §5): the summary message, then the closed transcript of
 * each turn from `firstKeptTurnId` to @latest_turn_id. Reads exactly those turn
 * files.
 */
void
natter_sessions_compaction_context_async (NatterSessions      *self,
                                          JsonObject          *compaction,
                                          const char          *latest_turn_id,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);

  g_task_set_task_data (task, json_object_ref (compaction), (GDestroyNotify) json_object_unref);
  natter_sessions_walk_back_async (self, latest_turn_id, json_object_get_string_member (compaction, "firstKeptTurnId"), 0,
                                   TRUE,
                   context_walked_cb, task);
}

/**
 * natter_sessions_compaction_context_finish: (skip)
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the context messages; or %NULL with
 *   %NATTER_SESSION_ERROR_CORRUPT (the kept turn is not in the history),
 *   a turn file's read error, or %NATTER_RUNTIME_ERROR_CONTEXT
 */
JsonArray *
natter_sessions_compaction_context_finish (GAsyncResult  *result,
                                           GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* compact: summarize all but the last turns and record it */

typedef struct
{
  NatterSessionsOp  base;
  guint             keep;
  char             *latest;       /* the latest turn when the summary was asked for */
  char             *first_kept;
  char             *before;       /* the last summarized turn */
  NatterSendOptions *options;     /* the latest turn's agent and model */
  char             *summary;
  GPtrArray        *events;
  char             *compaction_id;
} CompactData;

NATTER_SESSIONS_DEFINE_OP (CompactData, compact_data)

static void
compact_data_clear (CompactData *data)
{
  g_free (data->latest);
  g_free (data->first_kept);
  g_free (data->before);
  g_clear_pointer (&data->options, natter_send_options_free);
  g_free (data->summary);
  g_clear_pointer (&data->events, g_ptr_array_unref);
  g_free (data->compaction_id);
}

static const char *
timeline_latest (NatterSessionState *state)
{
  const char *latest = natter_session_state_get_latest_turn_id (state);

  return latest != NULL ? latest : natter_session_state_get_forked_from_turn_id (state);
}

static void
compact_appended_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CompactData *data = compact_data_get (task);

  if (!natter_sessions_op_appended (task, result))
    return;
  natter_sessions_op_publish (task);
  g_task_return_pointer (task, g_strdup (data->compaction_id), g_free);
}

/* Under the lock: the conversation must not have moved on while the
 * model summarized it, or the summary would skip a turn. */
static void
compact_session_locked (GTask *task)
{
  CompactData *data = compact_data_get (task);
  g_autofree char *ts = NULL;

  if (g_strcmp0 (timeline_latest (data->base.state), data->latest) != 0)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
                                                          "Session %s changed while it was summarized; compact it again",
                                                          data->base.session_id));
      return;
    }
  ts = natter_clock_format_ts (data->base.self->clock);
  data->compaction_id = natter_id_generator_next (data->base.self->ids);
  data->events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_ptr_array_add (data->events,
                   natter_session_event_new_conversation_compacted (data->base.session_id, ts, data->compaction_id,
                                                                    data->summary, data->first_kept));
  natter_sessions_op_append_v2_async (task, data->events, compact_appended_cb);
}

static void
compact_summarized_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CompactData *data = compact_data_get (task);
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *answer = NULL;
  GError *error = NULL;

  outcome = natter_headless_runner_run_finish (NATTER_HEADLESS_RUNNER (object), result, NULL, &answer, &error);
  if (outcome == NULL)
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  if (outcome->kind != NATTER_TURN_OUTCOME_COMPLETED || answer == NULL || *g_strstrip (answer) == '\0')
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                          "The summary could not be made: %s",
                                                          outcome->error != NULL ? outcome->error
                                                                                 : "the model gave no answer"));
      return;
    }
  data->summary = g_steal_pointer (&answer);
  natter_sessions_op_lock_and_read (g_steal_pointer (&task), compact_session_locked);
}

static void
compact_materialized_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CompactData *data = compact_data_get (task);
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(NatterHeadlessRunner) runner = NULL;
  g_autoptr(JsonObject) input = NULL;
  g_autofree char *text = NULL;
  GError *error = NULL;

  messages = natter_context_resolver_materialize_finish (NATTER_CONTEXT_RESOLVER (object), result, &error);
  if (messages == NULL)
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  text = natter_compaction_request_text (messages);
  input = json_object_new ();
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  runner = natter_headless_runner_new (data->base.self->runtime);
  natter_headless_runner_run_async (runner, data->options, NULL, input, NULL, compact_summarized_cb,
                                    g_steal_pointer (&task));
}

/* The summary's options are complete: the transcript before the kept
 * turns is read, then summarized. */
static void
compact_summarize (GTask *task)
{
  CompactData *data = compact_data_get (task);

  natter_send_options_set_max_model_calls (data->options, 1);
  natter_send_options_set_max_tokens (data->options, SUMMARY_MAX_TOKENS);
  /* The summary is text: offered no tool, the model cannot spend its one
   * call on a tool call instead. */
  natter_send_options_set_no_tools (data->options, TRUE);

  natter_context_resolver_materialize_async (natter_turn_runtime_get_context_resolver (data->base.self->runtime),
                                             data->before, NULL, compact_materialized_cb, task);
}

static void
own_model_resolved_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CompactData *data = compact_data_get (task);
  g_autoptr(JsonObject) model = NULL;
  GError *error = NULL;

  model = natter_provider_registry_resolve_model_finish (NATTER_PROVIDER_REGISTRY (object), result, &error);
  if (model == NULL)
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  natter_send_options_set_model_descriptor (data->options, model);
  compact_summarize (g_steal_pointer (&task));
}

/* The summarizer of a conversation whose latest turn was imported: what
 * that turn names is only a record of where the conversation came from
 * (docs/format.md §7.3), so the person's own model summarizes, through
 * Assistant: the recorded model when it is theirs
 * (natter_provider_registry_offers_model()), else their default. Takes
 * @task. */
static void
compact_with_own_model (GTask      *task,
                        JsonObject *recorded)
{
  CompactData *data = compact_data_get (task);
  NatterSessions *self = data->base.self;

  data->options = natter_send_options_new (NATTER_BUILTIN_AGENT_ID);
  if (self->own_registry != NULL && natter_provider_registry_offers_model (self->own_registry, recorded))
    natter_send_options_set_model_descriptor (data->options, recorded);
  else if (self->own_provider != NULL && self->own_model != NULL)
    natter_send_options_set_model (data->options, self->own_provider, self->own_model);
  else if (self->own_registry != NULL && self->own_provider != NULL)
    {
      natter_provider_registry_resolve_model_async (self->own_registry, self->own_provider, NULL,
                                                    g_task_get_cancellable (task), own_model_resolved_cb, task);
      return;
    }
  compact_summarize (task);
}

static void
compact_walked_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CompactData *data = compact_data_get (task);
  g_autoptr(GPtrArray) turns = NULL;
  JsonObject *resolved;
  JsonObject *model;
  GError *error = NULL;

  turns = natter_sessions_walk_back_finish (result, NULL, NULL, &error);
  if (turns == NULL)
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  if (natter_turn_state_get_terminal_event (g_ptr_array_index (turns, 0)) == NULL)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
                                                          "The latest turn %s of session %s has not settled; "
                                                          "wait for it or stop it", data->latest,
                                                          data->base.session_id));
      return;
    }
  if (turns->len <= data->keep)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                          "Session %s has no turns before the last %u to summarize",
                                                          data->base.session_id, data->keep));
      return;
    }
  data->first_kept = g_strdup (natter_turn_state_get_turn_id (g_ptr_array_index (turns, data->keep - 1)));
  data->before = g_strdup (natter_turn_state_get_turn_id (g_ptr_array_index (turns, data->keep)));

  /* The summarizer is the conversation's own agent and model. */
  resolved = natter_turn_definition_get_resolved_agent (
    natter_turn_state_get_definition (g_ptr_array_index (turns, 0)));
  model = json_object_get_object_member (resolved, "model");
  if (natter_turn_state_is_imported (g_ptr_array_index (turns, 0)))
    {
      compact_with_own_model (g_steal_pointer (&task), model);
      return;
    }
  data->options = natter_send_options_new (json_object_get_string_member (resolved, "agentId"));
  natter_send_options_set_model_descriptor (data->options, model);
  compact_summarize (g_steal_pointer (&task));
}

static void
compact_read_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CompactData *data = compact_data_get (task);
  g_autoptr(NatterSessionState) state = NULL;
  GError *error = NULL;

  state = natter_sessions_read_session_finish (result, &error);
  if (state == NULL)
    {
      natter_sessions_op_return_error (task, natter_sessions_session_error (error, data->base.session_id));
      return;
    }
  data->latest = g_strdup (timeline_latest (state));
  if (data->latest == NULL)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                          "Session %s has no turns to summarize",
                                                          data->base.session_id));
      return;
    }
  if (natter_sessions_is_turn_running (data->base.self, data->latest))
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
                                                          "The latest turn %s of session %s is running; "
                                                          "wait for it or stop it", data->latest,
                                                          data->base.session_id));
      return;
    }
  natter_sessions_walk_back_async (data->base.self, data->latest, NULL, data->keep + 1, TRUE, compact_walked_cb,
                                   g_steal_pointer (&task));
}

/**
 * natter_sessions_compact_async:
 * @self: the service
 * @session_id: the session
 * @keep: how many of the latest turns stay whole (at least 1; the
 *   command line's default is 2)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Compaction of docs/sessions.md §5: asks the conversation's own
 * agent and model, in a standalone turn (docs/sessions.md §11) that quotes the
 * transcript before the kept turns, for a faithful summary (decisions, facts,
 * names, numbers, file names, code identifiers, open questions); then, under
 * the session lock and only if no turn was added meanwhile, appends
 * `conversation_compacted {compactionId, summary, firstKeptTurnId}`
 * through the version-2 writer (a version-1 file is raised first). The
 * next message gets the summary and the kept turns as its context.
 * Nothing is deleted. The model call runs without the lock.
 */
void
natter_sessions_compact_async (NatterSessions      *self,
                               const char          *session_id,
                               guint                keep,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);
  g_return_if_fail (keep >= 1);

  task = compact_data_task_new (self, session_id, cancellable, callback, user_data, natter_sessions_compact_async);
  compact_data_get (task)->keep = keep;
  /* The summary's model call would be for nothing. */
  if (natter_sessions_op_refuse_write (task))
    {
      g_object_unref (task);
      return;
    }
  natter_sessions_read_session_async (self, session_id, cancellable, compact_read_cb, task);
}

/**
 * natter_sessions_compact_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new compactionId; or %NULL
 *   with %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_CORRUPT,
 *   %NATTER_SESSION_ERROR_TURN_NOT_SETTLED (a turn runs, or one was added
 *   while the summary was made), %NATTER_SESSION_ERROR_INVALID_ARGUMENT
 *   (nothing before the kept turns, or no summary came back) or a store
 *   or runtime error
 */
char *
natter_sessions_compact_finish (NatterSessions  *self,
                                GAsyncResult    *result,
                                GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_compact_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* fork: a branch keeps the compaction of the turns it inherits */

static void
fork_walked_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GPtrArray) turns = NULL;
  JsonObject *compaction = g_task_get_task_data (task);
  gboolean reached = FALSE;
  GError *error = NULL;

  turns = natter_sessions_walk_back_finish (result, NULL, &reached, &error);
  if (turns == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* Reached: the fork point lies at or after the first kept turn, and no
   * turn between them used the summary yet (such a turn's inline context
   * ends the chain), so the branch needs the compaction itself. */
  g_task_return_pointer (task, reached ? json_object_ref (compaction) : NULL,
                         (GDestroyNotify) json_object_unref);
}

/**
 * natter_sessions_fork_compaction_async: (skip)
 * @self: the service
 * @compaction: (transfer none): the parent's last `conversation_compacted`
 * @fork_turn_id: the fork point
 * @callback: called with the verdict
 * @user_data: data for @callback
 *
 * Whether a branch taken at @fork_turn_id inherits @compaction: its
 * history runs through `firstKeptTurnId` without a turn that already
 * used the summary. Reads the turn files from the fork point back.
 */
void
natter_sessions_fork_compaction_async (NatterSessions      *self,
                                       JsonObject          *compaction,
                                       const char          *fork_turn_id,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);

  g_task_set_task_data (task, json_object_ref (compaction), (GDestroyNotify) json_object_unref);
  natter_sessions_walk_back_async (self, fork_turn_id, json_object_get_string_member (compaction, "firstKeptTurnId"),
                                   0, FALSE, fork_walked_cb, task);
}

/**
 * natter_sessions_fork_compaction_finish: (skip)
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the compaction the branch keeps,
 *   or %NULL (with @error unset) when it keeps none; %NULL with a turn
 *   file's read error
 */
JsonObject *
natter_sessions_fork_compaction_finish (GAsyncResult  *result,
                                        GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_sessions_compaction_copy: (skip)
 * @self: the service
 * @session_id: the branch
 * @compaction: (transfer none): the parent's compaction it keeps
 *
 * Returns: (transfer full): the branch's own `conversation_compacted`,
 *   with a new `compactionId` and the parent's summary and first kept turn
 */
JsonNode *
natter_sessions_compaction_copy (NatterSessions *self,
                                 const char     *session_id,
                                 JsonObject     *compaction)
{
  g_autofree char *ts = natter_clock_format_ts (self->clock);
  g_autofree char *id = natter_id_generator_next (self->ids);

  return natter_session_event_new_conversation_compacted (session_id, ts, id,
                                                          json_object_get_string_member (compaction, "summary"),
                                                          json_object_get_string_member (compaction, "firstKeptTurnId"));
}
