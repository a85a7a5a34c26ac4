/* natter-sessions-turns.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The turn-level operations of the session service: send_message
 * (docs/sessions.md §9.1), the promotion of the queue, which sends the
 * oldest queued message once the latest turn completed, and the holds
 * that keep it (docs/sessions.md §4), the external inputs routed to a
 * turn (docs/sessions.md §9.2), stop_turn, wait_for_turn and
 * resume_turn (docs/sessions.md §9.3) with the words kept of the
 * answer a resume would close (docs/format.md §11). Queueing itself,
 * which may promote, is natter-sessions-queue.c, above this file.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-blob-store.h"
#include "natter-runtime-error.h"
#include "natter-send-options-private.h"
#include "natter-session-grants-queue.h"
#include "natter-session-index-internal.h"
#include "natter-session-schema.h"
#include "natter-session-schema-upgrade.h"
#include "natter-store-error.h"
#include "natter-stream-keep.h"
#include "natter-sessions-private.h"
#include "natter-sync-conflict-name.h"
#include "natter-sessions-queue.h"
#include "natter-sessions-settings.h"
#include "natter-turn-reducer.h"

/* send_message (docs/sessions.md §9.1) */

typedef struct
{
  NatterSessionsOp   base;
  JsonObject        *input;
  NatterSendOptions *options;
  char              *turn_id;
  gboolean           history_read;   /* the history the turn continues reads whole */
  JsonArray         *inline_context; /* the context after a compaction, once built */
  GPtrArray         *events;         /* what steps 5–6 append */
  /* Promotion of the queue (below): the queued message
   * this turn is made of; and, for a send that found a promotion lost to
   * a crash, the error to return once that message was sent instead. */
  char              *promoted;
  GError            *after_promotion;
  guint              holds_begun;    /* of the queue, when the promotion was asked */
} SendData;

NATTER_SESSIONS_DEFINE_OP (SendData, send_data)

static void
send_data_clear (SendData *data)
{
  g_clear_pointer (&data->input, json_object_unref);
  g_clear_pointer (&data->options, natter_send_options_free);
  g_free (data->turn_id);
  g_clear_pointer (&data->inline_context, json_array_unref);
  g_clear_pointer (&data->events, g_ptr_array_unref);
  g_free (data->promoted);
  g_clear_error (&data->after_promotion);
}

static JsonNode *
object_node (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return node;
}


static void
send_appended_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SendData *data = send_data_get (task);
  NatterSessions *self = data->base.self;
  GError *error = NULL;

  if (data->promoted != NULL ? !natter_sessions_op_append_v2_finish (task, result, &error)
                              : (!natter_jsonl_repo_append_finish (NATTER_JSONL_REPO (object), result, &error) ||
                                 !natter_sessions_op_apply_appended (&data->base, data->events, &error)))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  /* Write-through in the same path as the append (docs/sessions.md §8.3). The
   * new turn is idle until its advance settles. */
  natter_session_index_update_from_state (self->index, data->base.state,
                                          natter_latest_turn_status_from_turn_status (NATTER_TURN_STATUS_IDLE));
  g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0, data->base.session_id);

  if (natter_sessions_op_fault (task, NATTER_SESSIONS_STEP_APPEND))
    return;

  /* Step 7: the session already references the turn (docs/sessions.md §7). Not
   * tied to the caller's cancellable: the turn is the user's now. */
  natter_sessions_start_advance (self, data->base.session_id, data->turn_id, NULL,
                                 natter_sessions_promote_soon);

  if (natter_sessions_op_fault (task, NATTER_SESSIONS_STEP_ADVANCE))
    return;

  /* Step 8 */
  natter_sessions_op_finish (task);
  if (data->after_promotion != NULL)
    g_task_return_error (task, g_steal_pointer (&data->after_promotion));
  else
    g_task_return_pointer (task, g_strdup (data->turn_id), g_free);
}

/* Steps 5 and 6: the session records the agent and exactly the
 * {provider, model} the runtime resolved for the turn (docs/format.md §3.1). */
static void
send_append (GTask             *task,
             NatterTurnCreated *created)
{
  SendData *data = send_data_get (task);
  NatterSessions *self = data->base.self;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonObject) model = json_object_new ();
  g_autofree char *ts = natter_clock_format_ts (self->clock);
  g_autofree char *title = NULL;

  json_object_set_string_member (model, "provider", natter_turn_created_get_provider (created));
  json_object_set_string_member (model, "model", natter_turn_created_get_model (created));
  events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_ptr_array_add (events, natter_session_event_new_turn_appended (data->base.session_id, ts, data->turn_id,
                                                                   natter_session_state_get_next_session_seq (data->base.state),
                                                                   natter_turn_created_get_agent_id (created),
                                                                   model));
  /* Step 6, in the same append as step 5 so that no crash can separate a
   * first turn from its default title. Never over a title the user set
   * (also a set empty title). */
  if (natter_session_state_get_title (data->base.state) == NULL &&
      (title = natter_derive_session_title (data->input)) != NULL)
    g_ptr_array_add (events, natter_session_event_new_title_changed (data->base.session_id, ts, title));

  data->events = g_ptr_array_ref (events);
  if (data->promoted != NULL)
    {
      const char *consumed[] = { data->promoted, NULL };

      /* The turn and the queued message leaving the queue are one line. */
      natter_session_event_set_consumed_queue_ids (g_ptr_array_index (events, 0), consumed);
      natter_sessions_op_append_v2_async (task, events, send_appended_cb);
      return;
    }
  /* Appends are awaited, not fsynced (docs/sessions.md §6.2). */
  natter_jsonl_repo_append_async (self->session_repo, data->base.session_id, events, NULL,
                                  send_appended_cb, g_object_ref (task));
}

static void
send_turn_created_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SendData *data = send_data_get (task);
  g_autoptr(NatterTurnCreated) created = NULL;
  GError *error = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  if (created == NULL)
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  data->turn_id = g_strdup (natter_turn_created_get_turn_id (created));
  /* Between step 4 and step 5 a crash leaves a benign orphan
   * (docs/sessions.md §7). */
  if (natter_sessions_op_fault (task, NATTER_SESSIONS_STEP_CREATE_TURN))
    return;
  send_append (task, created);
}

static void send_create_turn (GTask *task);

/* Every attachment the history would send was checked whole (or one was
 * not: the message is refused, nothing written; docs/sessions.md §2). */
static void
send_history_checked_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SendData *data = send_data_get (task);
  GError *error = NULL;

  if (!natter_sessions_check_history_attachments_finish (NATTER_SESSIONS (object), result, &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  data->history_read = TRUE;
  send_create_turn (task);
}

/* The history @history this message continues has been read: its
 * attachments are checked before the turn is made, off the main thread
 * (natter-sessions-history-check.c), when it has any. */
static void
send_check_history (GTask     *task,
                    JsonArray *history)
{
  SendData *data = send_data_get (task);

  if (natter_sessions_history_attachments_need_check (data->base.self, history))
    {
      natter_sessions_check_history_attachments_async (data->base.self, history, data->base.session_id,
                                                       g_task_get_cancellable (task), send_history_checked_cb,
                                                       g_object_ref (task));
      return;
    }
  data->history_read = TRUE;
  send_create_turn (task);
}

/* The history a reference points at must read whole before a turn is
 * made on it: a damaged earlier turn would otherwise fail the new turn
 * (or, worse, shorten what the model receives). The context resolver
 * keeps settled turns' transcripts, so this costs the advance nothing:
 * it finds them read. */
static void
send_history_read_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SendData *data = send_data_get (task);
  g_autoptr(JsonArray) transcript = NULL;
  g_autoptr(GError) error = NULL;

  transcript = natter_context_resolver_materialize_finish (NATTER_CONTEXT_RESOLVER (object), result, &error);
  if (transcript == NULL)
    {
      if (g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
        natter_sessions_op_return_error (task, natter_sessions_arriving_error (g_steal_pointer (&error),
                                                                              data->base.session_id, NULL));
      else if (g_error_matches (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT))
        natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR,
                                                            NATTER_SESSION_ERROR_HISTORY_DAMAGED,
                                                            "The history of session %s cannot be read, so "
                                                            "nothing was sent: %s",
                                                            data->base.session_id, error->message));
      else
        natter_sessions_op_return_error (task, g_steal_pointer (&error));
      return;
    }
  send_check_history (task, transcript);
}

static void
send_compaction_context_cb (GObject      *object,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SendData *data = send_data_get (task);
  GError *error = NULL;

  data->inline_context = natter_sessions_compaction_context_finish (result, &error);
  if (data->inline_context == NULL)
    {
      /* The kept turns are the history this message continues: one that
       * cannot be read refuses it like any other (docs/sessions.md §2). */
      natter_sessions_op_return_error (task, natter_sessions_history_error (error, data->base.session_id, NULL));
      return;
    }
  send_check_history (task, data->inline_context);
}

static void
send_create_turn (GTask *task)
{
  SendData *data = send_data_get (task);
  NatterSessions *self = data->base.self;
  g_autoptr(JsonNode) context = NULL;
  g_autoptr(JsonObject) config = NULL;
  g_autoptr(JsonObject) requested_agent = NULL;
  const char *previous = natter_session_state_get_latest_turn_id (data->base.state);

  if (natter_sessions_op_check_cancelled (task))
    return;

  /* Step 3: `[]` for the first turn, else a reference; a fork's first
   * turn refers to its fork point. */
  if (previous == NULL)
    previous = natter_session_state_get_forked_from_turn_id (data->base.state);
  /* The first turn after a compaction (docs/sessions.md §5): inline, the
   * summary and the kept turns, built from exactly those turn files. */
  if (previous != NULL && data->inline_context == NULL &&
      natter_session_state_get_compaction_pending (data->base.state))
    {
      natter_sessions_compaction_context_async (self, natter_session_state_get_compaction (data->base.state),
                                                previous, send_compaction_context_cb, g_object_ref (task));
      return;
    }
  if (data->inline_context != NULL)
    context = json_node_init_array (json_node_alloc (), data->inline_context);
  else if (previous == NULL)
    {
      context = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (context, json_array_new ());
    }
  else if (!data->history_read)
    {
      natter_context_resolver_materialize_async (natter_turn_runtime_get_context_resolver (self->runtime),
                                                 previous, NULL, send_history_read_cb, g_object_ref (task));
      return;
    }
  else
    {
      JsonObject *reference = json_object_new ();

      json_object_set_string_member (reference, "previousTurnId", previous);
      context = json_node_init_object (json_node_alloc (), reference);
      json_object_unref (reference);
    }

  /* Step 4: the send options land on the turn; a session turn always
   * has a human, and tools resolve relative paths against the session's
   * directory. The generation parameters are the conversation's, under
   * the message's own (docs/sessions.md §15): whoever sends it — the
   * window, the command line, the queue. */
  {
    const NatterGenerationParameters *kept = natter_sessions_get_kept_parameters (self, data->base.session_id);
    g_autoptr(NatterGenerationParameters) parameters = kept != NULL ? natter_generation_parameters_copy (kept)
                                                                    : natter_generation_parameters_new ();
    g_autoptr(NatterSendOptions) options = natter_send_options_copy (data->options);

    const NatterGenerationParameters *own = natter_send_options_get_parameters (data->options);

    natter_generation_parameters_overlay (parameters, own);
    natter_send_options_set_parameters (options, parameters);
    requested_agent = natter_send_options_to_requested_agent (options);
    config = natter_send_options_to_turn_config (options, TRUE, natter_session_state_get_cwd (data->base.state));
    /* The message's own apart too: sent again (Try Again, `natter
     * retry`), it goes with them, over the conversation's of that time. */
    if (!natter_generation_parameters_is_empty (own))
      json_object_set_object_member (config, "messageParameters", natter_generation_parameters_to_object (own));
  }

  natter_turn_runtime_create_turn_async (self->runtime, requested_agent, data->base.session_id, context,
                                         data->input, config, NULL, send_turn_created_cb,
                                         g_object_ref (task));
}

static GError *
not_settled (const char *session_id,
             const char *turn_id,
             const char *status)
{
  return g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
                      "The latest turn %s of session %s is %s; wait for it to settle or stop it",
                      turn_id, session_id, status);
}

static void
send_latest_read (GTask           *task,
                  NatterTurnState *turn)
{
  SendData *data = send_data_get (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->base.state);

  /* Step 2: no implicit queueing, steering or ask-human routing. */
  if (natter_sessions_is_turn_running (data->base.self, latest))
    {
      natter_sessions_op_return_error (task, not_settled (data->base.session_id, latest, "running"));
      return;
    }
  if (natter_turn_state_get_terminal_event (turn) == NULL)
    {
      NatterTurnStatus status = natter_derive_turn_status (turn);
      const char *there = natter_sessions_answering_device (data->base.self, turn);

      /* docs/format.md §4.5: another device is writing the answer; its
       * "idle" is no interruption to wait out or stop here, so say where
       * it runs, as the window's message field does. */
      if (there != NULL)
        natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
                                                            "The answer is being written on another device (“%s”); "
                                                            "a message can be sent here once it has ended", there));
      /* Left by a process that ended: nothing will settle it but a
       * resume or a stop (docs/runtime.md §10), so waiting is no advice. */
      else if (status == NATTER_TURN_STATUS_IDLE)
        natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
                                                            "The latest turn %s of session %s was interrupted; "
                                                            "resume it or stop it before sending another message",
                                                            latest, data->base.session_id));
      else
        natter_sessions_op_return_error (task, not_settled (data->base.session_id, latest,
                                                            natter_turn_status_to_string (status)));
      return;
    }
  if (natter_sessions_op_fault (task, NATTER_SESSIONS_STEP_CHECK_LATEST))
    return;
  {
    JsonObject *terminal = natter_turn_state_get_terminal_event (turn);

    /* A completed turn with messages still queued: the process that
     * settled it stopped before promoting. The oldest goes first, and
     * this message is not sent (the queue is first in line). */
    if (data->promoted == NULL && natter_session_state_get_n_queued (data->base.state) > 0 &&
        g_strcmp0 (json_object_get_string_member_with_default (terminal, "type", NULL), "turn_completed") == 0)
      {
        data->after_promotion = not_settled (data->base.session_id, latest,
                                             "followed by queued messages, the oldest of which is sent now");
        natter_sessions_take_queued (data->base.state, 0, &data->promoted, &data->input, &data->options);
      }
  }
  send_create_turn (task);
}

static void
send_session_read (GTask *task)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  const char *latest;

  if (natter_sessions_op_fault (task, NATTER_SESSIONS_STEP_READ_SESSION))
    return;

  latest = natter_session_state_get_latest_turn_id (data->state);
  if (latest == NULL)
    {
      send_create_turn (task);
      return;
    }
  /* A live advance is "running" whatever the file says. */
  if (natter_sessions_is_turn_running (data->self, latest))
    {
      natter_sessions_op_return_error (task, not_settled (data->session_id, latest, "running"));
      return;
    }
  natter_sessions_op_read_latest (task, send_latest_read);
}

/**
 * natter_sessions_send_message_async:
 * @self: the service
 * @session_id: the session
 * @input: (transfer none): the user message, `{role: "user", content}`
 * @options: (transfer none): the SendMessageConfig of docs/sessions.md §9: the
 *   agent, an optional model override, autoPermission and maxModelCalls
 * @cancellable: (nullable): cancels up to the turn's creation; never the
 *   turn (use natter_sessions_stop_turn_async())
 * @callback: called on the main context once the turn runs
 * @user_data: data for @callback
 *
 * sendMessage of docs/sessions.md §9.1, all under the session lock: (1) read
 * and reduce the session; (2) refuse if the latest turn is not terminal —
 * running (a live advance of this service), suspended or idle; (3) context `[]`
 * for the first turn (a fork's fork point as `{previousTurnId}`), else
 * `{previousTurnId: latest}`; (4) create the turn with the config and
 * `humanAvailable: true`; (5) append `turn_appended` with the next
 * `sessionSeq` and the turn's resolved agent id and `{provider, model}`;
 * (6) in the same append, a `title_changed` from the truncated first
 * message if the session has no title; (7) start the advance, tracked and
 * forwarded (#NatterSessions::turn-event); (8) return the turn id at once.
 * The index entry is updated and #NatterSessions::session-index-changed
 * emitted after step 6 and again when the advance settles.
 */
void
natter_sessions_send_message_async (NatterSessions      *self,
                                    const char          *session_id,
                                    JsonObject          *input,
                                    const NatterSendOptions *options,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SendData *data;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);
  g_return_if_fail (input != NULL);
  g_return_if_fail (options != NULL && natter_send_options_get_agent_id (options) != NULL);

  task = send_data_task_new (self, session_id, cancellable, callback, user_data,
                             natter_sessions_send_message_async);
  data = send_data_get (task);
  data->input = json_object_ref (input);
  data->options = natter_send_options_copy (options);
  natter_sessions_op_lock_and_read (g_steal_pointer (&task), send_session_read);
}

/**
 * natter_sessions_send_message_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new turn's id; or %NULL with
 *   %NATTER_SESSION_ERROR_TURN_NOT_SETTLED, %NATTER_SESSION_ERROR_NOT_FOUND,
 *   %NATTER_SESSION_ERROR_CORRUPT, %NATTER_SESSION_ERROR_INVALID_ARGUMENT,
 *   the runtime's create_turn errors (%NATTER_RUNTIME_ERROR_AGENT, …), a
 *   %NATTER_STORE_ERROR from an append, or %G_IO_ERROR_CANCELLED
 */
char *
natter_sessions_send_message_finish (NatterSessions  *self,
                                     GAsyncResult    *result,
                                     GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_send_message_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Promotion of the queue (docs/format.md §3.4, docs/runtime.md) */

static NatterSendOptions *
options_from_json (JsonObject *object)
{
  NatterSendOptions *options = natter_send_options_new (json_object_get_string_member (object, "agentId"));
  JsonObject *model = json_object_has_member (object, "model") ? json_object_get_object_member (object, "model")
                                                                : NULL;

  if (model != NULL)
    natter_send_options_set_model_descriptor (options, model);
  natter_send_options_set_auto_permission (options, json_object_get_boolean_member (object, "autoPermission"));
  natter_send_options_set_max_model_calls (options,
                                           (guint) json_object_get_int_member_with_default (object, "maxModelCalls", 0));
  return options;
}

/* The pending message @index of @state (0: the oldest), as what a send
 * takes: its id, a copy of its message and its options (replacing what
 * the pointers held). */
void
natter_sessions_take_queued (NatterSessionState  *state,
                             guint                index,
                             char               **out_queue_id,
                             JsonObject         **inout_input,
                             NatterSendOptions  **inout_options)
{
  const NatterSessionQueuedMessage *queued = natter_session_state_get_queued (state, index);
  g_autoptr(JsonNode) message = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) copy = NULL;

  json_node_set_object (message, queued->message);
  copy = json_node_copy (message);
  g_free (*out_queue_id);
  *out_queue_id = g_strdup (queued->queue_id);
  g_clear_pointer (inout_input, json_object_unref);
  *inout_input = json_object_ref (json_node_get_object (copy));
  g_clear_pointer (inout_options, natter_send_options_free);
  *inout_options = options_from_json (queued->options);
}

static void
promoted_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autofree char *turn_id = NULL;
  g_autoptr(GError) error = NULL;

  turn_id = natter_sessions_promote_queue_finish (NATTER_SESSIONS (object), result, &error);
  /* The queue stays in the log: the next queue or send retries. */
  if (error != NULL)
    g_debug ("Could not send a queued message: %s", error->message);
}

/* Starts the promotion of @session_id's queue; what it finds decides
 * whether anything is sent. */
void
natter_sessions_promote_soon (NatterSessions *self,
                              const char     *session_id)
{
  natter_sessions_promote_queue_async (self, session_id, NULL, promoted_cb, NULL);
}

/**
 * natter_sessions_hold_queue:
 * @self: the service
 * @session_id: a session
 *
 * Keeps @session_id's queued messages where they are until
 * natter_sessions_release_queue(): a turn that completes meanwhile
 * promotes nothing, and nor does a promotion already under way, even
 * one whose read of the file ends after the release; the release says
 * whether the queue goes on. The window holds the queue while it asks
 * whether a Stop keeps it. Holds nest; they live in this service only,
 * nothing is written.
 */
void
natter_sessions_hold_queue (NatterSessions *self,
                            const char     *session_id)
{
  guint holds;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  holds = GPOINTER_TO_UINT (g_hash_table_lookup (self->held_queues, session_id));
  g_hash_table_insert (self->held_queues, g_strdup (session_id), GUINT_TO_POINTER (holds + 1));
  g_hash_table_insert (self->queue_holds_begun, g_strdup (session_id),
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (self->queue_holds_begun,
                                                                                session_id)) + 1));
}

/**
 * natter_sessions_release_queue:
 * @self: the service
 * @session_id: a session held with natter_sessions_hold_queue()
 * @promote: whether the queue goes on now, as it would have had it not
 *   been held (a completed latest turn sends the oldest message)
 *
 * Ends one hold of @session_id's queue.
 */
void
natter_sessions_release_queue (NatterSessions *self,
                               const char     *session_id,
                               gboolean        promote)
{
  guint holds;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  holds = GPOINTER_TO_UINT (g_hash_table_lookup (self->held_queues, session_id));
  g_return_if_fail (holds > 0);
  if (holds > 1)
    g_hash_table_insert (self->held_queues, g_strdup (session_id), GUINT_TO_POINTER (holds - 1));
  else
    g_hash_table_remove (self->held_queues, session_id);
  if (promote && holds == 1)
    natter_sessions_promote_soon (self, session_id);
}

/**
 * natter_sessions_is_queue_held:
 * @self: the service
 * @session_id: a session
 *
 * Returns: whether natter_sessions_hold_queue() keeps @session_id's queue
 */
gboolean
natter_sessions_is_queue_held (NatterSessions *self,
                               const char     *session_id)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), FALSE);
  return session_id != NULL && g_hash_table_contains (self->held_queues, session_id);
}

static void
promote_nothing (GTask *task)
{
  natter_sessions_op_finish (task);
  g_task_return_pointer (task, NULL, NULL);
}

static void
promote_latest_read (GTask           *task,
                     NatterTurnState *turn)
{
  SendData *data = send_data_get (task);
  JsonObject *terminal = natter_turn_state_get_terminal_event (turn);

  /* Only a completed turn lets the queue go on: after a failure, a stop
   * or an interruption it waits for the person; a suspended turn is not
   * over. A turn another device completed is that device's to go on
   * from (docs/format.md §4.5): it sends what was queued behind it, and
   * a promotion here too would send it twice. */
  if (terminal == NULL ||
      g_strcmp0 (json_object_get_string_member_with_default (terminal, "type", NULL), "turn_completed") != 0 ||
      !natter_device_is_this (natter_turn_runtime_get_device (data->base.self->runtime),
                              natter_turn_state_get_device_id (turn)))
    {
      promote_nothing (task);
      return;
    }
  natter_sessions_take_queued (data->base.state, 0, &data->promoted, &data->input, &data->options);
  send_create_turn (task);
}

static void
promote_session_read (GTask *task)
{
  SendData *data = send_data_get (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->base.state);

  /* Held now, or held since it was asked: the hold's end decides
   * (natter_sessions_release_queue()), even when that came before this
   * read did. */
  if (natter_session_state_get_n_queued (data->base.state) == 0 ||
      natter_sessions_is_queue_held (data->base.self, data->base.session_id) ||
      GPOINTER_TO_UINT (g_hash_table_lookup (data->base.self->queue_holds_begun, data->base.session_id)) !=
        data->holds_begun ||
      (latest != NULL && natter_sessions_is_turn_running (data->base.self, latest)))
    {
      promote_nothing (task);
      return;
    }
  if (latest == NULL)
    {
      natter_sessions_take_queued (data->base.state, 0, &data->promoted, &data->input, &data->options);
      send_create_turn (task);
      return;
    }
  natter_sessions_op_read_latest (task, promote_latest_read);
}

/**
 * natter_sessions_promote_queue_async:
 * @self: the service
 * @session_id: the session
 * @cancellable: (nullable): cancels up to the turn's creation
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * The promotion of queued messages (docs/format.md §3.4), under the
 * session lock: when the session's latest turn completed (or there is
 * none) and messages are queued, the oldest becomes the next turn, with
 * the options it was queued with, its `turn_appended` naming it in
 * `consumedQueueIds`; the advance starts as for a send. The service runs
 * it itself when a turn completes and after queueing; a front end runs it
 * when it opens a conversation, which recovers a promotion a crash lost.
 * When the service saw the session's queue empty at its last read or
 * write under the lock, nothing is read.
 */
void
natter_sessions_promote_queue_async (NatterSessions      *self,
                                     const char          *session_id,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task = send_data_task_new (self, session_id, cancellable, callback, user_data,
                                    natter_sessions_promote_queue_async);

  /* Nothing was queued when the file was last read or written under its
   * lock: no read (and no wait for the lock) to learn it again. Whatever
   * queues a message afterwards promotes it itself. */
  send_data_get (task)->holds_begun = GPOINTER_TO_UINT (g_hash_table_lookup (self->queue_holds_begun, session_id));
  if (natter_sessions_knows_nothing_queued (self, session_id) ||
      /* Held: its release promotes, when it is to. */
      natter_sessions_is_queue_held (self, session_id) ||
      /* Another device's copy holds no queue of this device's (docs/format.md §9). */
      natter_sync_conflict_is_candidate (session_id))
    {
      promote_nothing (task);
      g_object_unref (task);
      return;
    }
  natter_sessions_op_lock_and_read (task, promote_session_read);
}

/**
 * natter_sessions_promote_queue_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new turn's id; %NULL without
 *   an error when nothing was to be promoted; else %NULL with the errors
 *   of natter_sessions_send_message_finish()
 */
char *
natter_sessions_promote_queue_finish (NatterSessions  *self,
                                      GAsyncResult    *result,
                                      GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_promote_queue_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* External inputs (docs/sessions.md §9.2) */

static void
input_waited_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterTurnOutcome *outcome;
  GError *error = NULL;

  outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &error);
  if (outcome == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, outcome, (GDestroyNotify) natter_turn_outcome_unref);
}

/* One advance with one input; the runtime validates and its errors pass
 * through. */
static void
advance_with_input (NatterSessions      *self,
                    const char          *turn_id,
                    JsonObject          *input,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data,
                    gpointer             source_tag)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  NatterTurnExecution *execution;
  const char *session_id = natter_session_index_lookup_session_for_turn (self->index, turn_id);

  g_task_set_source_tag (task, source_tag);
  execution = natter_sessions_start_advance (self, session_id, turn_id, input,
                                             natter_sessions_promote_soon);
  natter_turn_execution_wait_async (execution, cancellable, input_waited_cb, g_steal_pointer (&task));
}

static NatterTurnOutcome *
outcome_finish (NatterSessions  *self,
                GAsyncResult    *result,
                gpointer         source_tag,
                GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_sessions_respond_to_permission_async:
 * @self: the service
 * @turn_id: the suspended turn
 * @tool_call_id: the call awaiting permission
 * @decision: `allow` or `deny`
 * @metadata: (nullable) (transfer none): recorded with the decision
 * @cancellable: (nullable): cancels the wait, not the advance
 * @callback: called on the main context when the advance settles
 * @user_data: data for @callback
 *
 * respondToPermission of docs/sessions.md §9.2: one advance of @turn_id with a
 * `permission_decision` input.
 */
void
natter_sessions_respond_to_permission_async (NatterSessions      *self,
                                             const char          *turn_id,
                                             const char          *tool_call_id,
                                             const char          *decision,
                                             JsonNode            *metadata,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data)
{
  g_autoptr(JsonObject) input = json_object_new ();

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL && tool_call_id != NULL && decision != NULL);

  json_object_set_string_member (input, "type", "permission_decision");
  json_object_set_string_member (input, "toolCallId", tool_call_id);
  json_object_set_string_member (input, "decision", decision);
  if (metadata != NULL)
    json_object_set_member (input, "metadata", json_node_copy (metadata));
  advance_with_input (self, turn_id, input, cancellable, callback, user_data,
                      natter_sessions_respond_to_permission_async);
}

/**
 * natter_sessions_respond_to_permission_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the advance's outcome; or %NULL
 *   with the runtime's rejection passed through
 *   (%NATTER_RUNTIME_ERROR_INVALID_INPUT for an unknown or resolved call,
 *   %NATTER_RUNTIME_ERROR_TURN_ENDED for a terminal turn,
 *   %NATTER_STORE_ERROR_NOT_FOUND, …)
 */
NatterTurnOutcome *
natter_sessions_respond_to_permission_finish (NatterSessions  *self,
                                              GAsyncResult    *result,
                                              GError         **error)
{
  return outcome_finish (self, result, natter_sessions_respond_to_permission_async, error);
}

/**
 * natter_sessions_respond_to_ask_human_async:
 * @self: the service
 * @turn_id: the suspended turn
 * @tool_call_id: the pending `ask_human` call
 * @answer: the human's answer
 * @cancellable: (nullable): cancels the wait, not the advance
 * @callback: called on the main context when the advance settles
 * @user_data: data for @callback
 *
 * respondToAskHuman of docs/sessions.md §9.2: the dedicated endpoint for the
 * ask-human tool, a thin wrapper over an `async_tool_result` input whose result
 * is `{output: answer, isError: false}`. natter_sessions_send_message_async()
 * never routes here (docs/sessions.md §9.1 step 2).
 */
void
natter_sessions_respond_to_ask_human_async (NatterSessions      *self,
                                            const char          *turn_id,
                                            const char          *tool_call_id,
                                            const char          *answer,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data)
{
  g_autoptr(JsonObject) input = json_object_new ();
  JsonObject *tool_result = json_object_new ();

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL && tool_call_id != NULL && answer != NULL);

  json_object_set_string_member (tool_result, "output", answer);
  json_object_set_boolean_member (tool_result, "isError", FALSE);
  json_object_set_string_member (input, "type", "async_tool_result");
  json_object_set_string_member (input, "toolCallId", tool_call_id);
  json_object_set_object_member (input, "result", tool_result);
  advance_with_input (self, turn_id, input, cancellable, callback, user_data,
                      natter_sessions_respond_to_ask_human_async);
}

/**
 * natter_sessions_respond_to_ask_human_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the advance's outcome; or %NULL
 *   with the runtime's rejection passed through
 */
NatterTurnOutcome *
natter_sessions_respond_to_ask_human_finish (NatterSessions  *self,
                                             GAsyncResult    *result,
                                             GError         **error)
{
  return outcome_finish (self, result, natter_sessions_respond_to_ask_human_async, error);
}

/**
 * natter_sessions_deliver_async_tool_result_async:
 * @self: the service
 * @turn_id: the suspended turn
 * @tool_call_id: the async call
 * @result: (transfer none): ToolResultData `{output, isError}`
 * @cancellable: (nullable): cancels the wait, not the advance
 * @callback: called on the main context when the advance settles
 * @user_data: data for @callback
 *
 * deliverAsyncToolResult of docs/sessions.md §9.2: one advance with an
 * `async_tool_result` input.
 */
void
natter_sessions_deliver_async_tool_result_async (NatterSessions      *self,
                                                 const char          *turn_id,
                                                 const char          *tool_call_id,
                                                 JsonObject          *result,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data)
{
  g_autoptr(JsonObject) input = json_object_new ();

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL && tool_call_id != NULL && result != NULL);

  json_object_set_string_member (input, "type", "async_tool_result");
  json_object_set_string_member (input, "toolCallId", tool_call_id);
  json_object_set_member (input, "result", object_node (result));
  advance_with_input (self, turn_id, input, cancellable, callback, user_data,
                      natter_sessions_deliver_async_tool_result_async);
}

/**
 * natter_sessions_deliver_async_tool_result_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the advance's outcome; or %NULL
 *   with the runtime's rejection passed through
 */
NatterTurnOutcome *
natter_sessions_deliver_async_tool_result_finish (NatterSessions  *self,
                                                  GAsyncResult    *result,
                                                  GError         **error)
{
  return outcome_finish (self, result, natter_sessions_deliver_async_tool_result_async, error);
}

/* stop_turn, wait_for_turn (docs/sessions.md §9.3) */

static void
turn_waiter_free (NatterSessionsTurnWaiter *waiter)
{
  g_object_unref (waiter->task);
  g_free (waiter);
}

/* @task (transfer full) is told once @turn_id has no live advance left;
 * @resting (nullable) is what it does when the last left the turn
 * waiting. */
static void
add_turn_waiter (NatterSessions            *self,
                 const char                *turn_id,
                 GTask                     *task,
                 NatterSessionsRestingFunc  resting)
{
  GPtrArray *waiters = g_hash_table_lookup (self->turn_waiters, turn_id);
  NatterSessionsTurnWaiter *waiter = g_new0 (NatterSessionsTurnWaiter, 1);

  if (waiters == NULL)
    {
      waiters = g_ptr_array_new_with_free_func ((GDestroyNotify) turn_waiter_free);
      g_hash_table_insert (self->turn_waiters, g_strdup (turn_id), waiters);
    }
  waiter->task = task;
  waiter->resting = resting;
  g_ptr_array_add (waiters, waiter);
}

static void
stop_cancel_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  GError *error = NULL;

  outcome = natter_turn_execution_wait_finish (NATTER_TURN_EXECUTION (object), result, &error);
  /* A cancel that found the turn already terminal lost the race with a
   * settle: the turn is stopped all the same. */
  if (outcome == NULL && g_error_matches (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_TURN_ENDED))
    g_clear_error (&error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* Ends @turn_id with a `cancel` input carrying the stop's reason, and
 * completes @task (transfer full) once that advance has settled. */
static void
stop_with_input (NatterSessions *self,
                 const char     *turn_id,
                 GTask          *task)
{
  g_autoptr(JsonObject) input = json_object_new ();
  const char *reason = g_task_get_task_data (task);
  NatterTurnExecution *execution;

  json_object_set_string_member (input, "type", "cancel");
  if (reason != NULL)
    json_object_set_string_member (input, "reason", reason);
  execution = natter_sessions_start_advance (self, natter_session_index_lookup_session_for_turn (self->index, turn_id),
                                             turn_id, input, natter_sessions_promote_soon);
  natter_turn_execution_wait_async (execution, NULL, stop_cancel_cb, task);
}

/**
 * natter_sessions_stop_turn_async:
 * @self: the service
 * @turn_id: the turn
 * @reason: (nullable): why, in words for a person (stored, not
 *   translated): recorded on the `turn_cancelled` the stop writes
 * @cancellable: (nullable): cancels the wait only
 * @callback: called on the main context once the turn is stopped
 * @user_data: data for @callback
 *
 * stopTurn of docs/sessions.md §9.3. If this service has live advances of
 * @turn_id (one running, others queued on the turn lock), cancels every one of
 * their #GCancellables and completes when all have settled; the queued ones see
 * their cancellation when the lock frees. Should the last of them have
 * settled before its cancellation could be seen, leaving the turn waiting
 * for the person or a tool, the turn is then advanced with a `cancel`
 * input, so that one call ends it either way. Without live advances,
 * advances the turn with a `cancel` input. A cancel that loses the race
 * with a concurrent settle (the turn is terminal when it applies) counts
 * as success.
 */
void
natter_sessions_stop_turn_async (NatterSessions      *self,
                                 const char          *turn_id,
                                 const char          *reason,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GPtrArray *live;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_stop_turn_async);
  g_task_set_task_data (task, g_strdup (reason), g_free);

  live = g_hash_table_lookup (self->live, turn_id);
  if (live != NULL)
    {
      /* A copy: a cancellation may settle an advance synchronously. */
      g_autoptr(GPtrArray) advances = g_ptr_array_copy (live, NULL, NULL);

      /* Should the last of them have settled already when it was
       * cancelled (the stop came between its settling and its
       * untracking: from whoever hears of the settling first, a waiter
       * on the advance or the event hub's processing-end), leaving the
       * turn waiting for a permission, an answer or a tool's result, its
       * cancellable came too late to be seen: the stop goes on with a
       * cancel input, as without a live advance. */
      add_turn_waiter (self, turn_id, g_steal_pointer (&task), stop_with_input);
      for (guint i = 0; i < advances->len; i++)
        {
          NatterSessionsAdvance *advance = g_ptr_array_index (advances, i);

          natter_turn_execution_set_cancel_reason (advance->execution, reason);
          g_cancellable_cancel (advance->cancellable);
        }
      return;
    }
  stop_with_input (self, turn_id, g_steal_pointer (&task));
}

/**
 * natter_sessions_stop_turn_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the turn is stopped (or had already ended); else
 *   %FALSE with the runtime's error (%NATTER_STORE_ERROR_NOT_FOUND,
 *   %NATTER_STORE_ERROR_CORRUPT, %NATTER_RUNTIME_ERROR_ELSEWHERE for a
 *   turn another device runs, …)
 */
gboolean
natter_sessions_stop_turn_finish (NatterSessions  *self,
                                  GAsyncResult    *result,
                                  GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_stop_turn_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* The turns of a session that is being deleted (docs/sessions.md §9.4) */

typedef struct
{
  GPtrArray *turn_ids;  /* still to stop, in order */
  guint      next;
} StopAllData;

static void
stop_all_data_free (StopAllData *data)
{
  g_ptr_array_unref (data->turn_ids);
  g_free (data);
}

/* Errors that say the turn cannot be advanced here by anyone: nothing of
 * it runs in this process, so there is nothing to stop. */
static gboolean
is_inert_turn_error (const GError *error)
{
  return g_error_matches (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_ELSEWHERE) ||
         g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND) ||
         g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
}

static void stop_next (GTask *task);

static void
stopped_one_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!natter_sessions_stop_turn_finish (NATTER_SESSIONS (object), result, &error) &&
      !is_inert_turn_error (error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_clear_error (&error);
  stop_next (g_steal_pointer (&task));
}

static void
stop_next (GTask *task)
{
  NatterSessions *self = g_task_get_source_object (task);
  StopAllData *data = g_task_get_task_data (task);
  const char *turn_id;

  if (data->next == data->turn_ids->len)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  turn_id = g_ptr_array_index (data->turn_ids, data->next++);
  /* Said on the turn, so that whoever waits for its answer (a `natter
   * send` the window runs) learns why it ended. */
  natter_sessions_stop_turn_async (self, turn_id, NATTER_CANCEL_REASON_DELETED, NULL, stopped_one_cb, task);
}

/* The session's turns still under way: every one with a live advance
 * this service started for the session (an advance of a version or a
 * branch names that session, so theirs stay), and a latest turn that
 * has not ended without one (waiting for an answer, or interrupted). */
static GPtrArray *
turns_under_way (NatterSessions *self,
                 const char     *session_id)
{
  GPtrArray *turn_ids = g_ptr_array_new_with_free_func (g_free);
  NatterSessionIndexEntry *entry = natter_session_index_lookup (self->index, session_id);
  GHashTableIter iter;
  const char *turn_id;
  GPtrArray *advances;

  g_hash_table_iter_init (&iter, self->live);
  while (g_hash_table_iter_next (&iter, (gpointer *) &turn_id, (gpointer *) &advances))
    for (guint i = 0; i < advances->len; i++)
      if (g_strcmp0 (((NatterSessionsAdvance *) g_ptr_array_index (advances, i))->session_id, session_id) == 0)
        {
          g_ptr_array_add (turn_ids, g_strdup (turn_id));
          break;
        }
  if (entry != NULL && natter_session_index_entry_get_latest_turn_id (entry) != NULL)
    {
      const char *latest = natter_session_index_entry_get_latest_turn_id (entry);
      const char *status = natter_session_index_entry_get_latest_turn_status (entry);

      if ((g_strcmp0 (status, "suspended") == 0 || g_strcmp0 (status, "idle") == 0) &&
          !g_hash_table_contains (self->live, latest))
        g_ptr_array_add (turn_ids, g_strdup (latest));
    }
  return turn_ids;
}

/* Stops, as natter_sessions_stop_turn_async() does, every turn of
 * @session_id still under way in this process (docs/sessions.md §9.4),
 * one after the other. A turn that cannot be advanced here at all
 * (another device's, damaged or missing) is left as it is; any other
 * error of a stop ends the whole with that error, the turns stopped
 * before it staying stopped. Completes on the main context. */
void
natter_sessions_stop_session_turns_async (NatterSessions      *self,
                                          const char          *session_id,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);
  StopAllData *data = g_new0 (StopAllData, 1);

  g_task_set_source_tag (task, natter_sessions_stop_session_turns_async);
  data->turn_ids = turns_under_way (self, session_id);
  g_task_set_task_data (task, data, (GDestroyNotify) stop_all_data_free);
  stop_next (task);
}

/* Returns: %TRUE once every turn under way is stopped; else %FALSE with
 * the error of the stop that failed */
gboolean
natter_sessions_stop_session_turns_finish (NatterSessions  *self,
                                           GAsyncResult    *result,
                                           GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * natter_sessions_wait_for_turn_async:
 * @self: the service
 * @turn_id: the turn
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Completes once this service has no live advance of @turn_id (at once if
 * it has none); the index entry is updated by then only for advances that
 * already delivered their outcome. For the CLI ("send and wait") and
 * tests; the UI follows events instead.
 */
void
natter_sessions_wait_for_turn_async (NatterSessions      *self,
                                     const char          *turn_id,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_wait_for_turn_async);
  if (!g_hash_table_contains (self->live, turn_id))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  add_turn_waiter (self, turn_id, g_steal_pointer (&task), NULL);
}

/**
 * natter_sessions_wait_for_turn_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE
 */
gboolean
natter_sessions_wait_for_turn_finish (NatterSessions  *self,
                                      GAsyncResult    *result,
                                      GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_wait_for_turn_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* resume_turn (docs/sessions.md §9.3) */

/* The error of a turn another device runs (docs/format.md §4.5), or
 * %NULL when it runs here. */
static GError *
elsewhere_error (NatterSessions  *self,
                 NatterTurnState *turn)
{
  const char *there = natter_turn_state_get_device_id (turn);
  const char *name = natter_turn_state_get_device_name (turn);

  if (natter_device_is_this (natter_turn_runtime_get_device (self->runtime), there))
    return NULL;
  return g_error_new (NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_ELSEWHERE,
                      "Turn %s runs on another device (“%s”)", natter_turn_state_get_turn_id (turn),
                      name != NULL && name[0] != '\0' ? name : there);
}

/**
 * natter_sessions_answering_device: (skip)
 * @self: the service
 * @turn: a session's latest turn, read
 *
 * docs/format.md §4.5: the one rule by which this device leaves a
 * session to the device that writes its answer. A turn that has not
 * ended, reads `idle` and names another device runs there; that device
 * appends to the session file as the answer ends (the messages queued
 * behind it, a title), so a message, a change of the queue or a new
 * title written here meanwhile would make both devices writers of the
 * file at once, and Syncthing a conflict copy of it (docs/sync.md). A
 * turn that waits for a person runs nowhere.
 *
 * Returns: (transfer none) (nullable): that device, by its name for
 *   people (its id when it has none), or %NULL when the session may be
 *   written here
 */
const char *
natter_sessions_answering_device (NatterSessions  *self,
                                  NatterTurnState *turn)
{
  const char *there = natter_turn_state_get_device_id (turn);
  const char *name = natter_turn_state_get_device_name (turn);

  if (natter_device_is_this (natter_turn_runtime_get_device (self->runtime), there) ||
      natter_turn_state_get_terminal_event (turn) != NULL ||
      natter_derive_turn_status (turn) != NATTER_TURN_STATUS_IDLE)
    return NULL;
  return name != NULL && name[0] != '\0' ? name : there;
}

/**
 * natter_sessions_queue_elsewhere_error: (skip)
 * @self: the service
 * @turn: a session's latest turn, read
 *
 * docs/format.md §4.5: while a turn runs on another device, the
 * messages queued behind it are that device's: it sends them as its
 * answer ends, writing to the session file, and a change of the queue
 * here would be a second writer of that file at the same moment (a
 * conflict copy). A turn that waits for a person runs nowhere and
 * leaves the queue to whoever answers it.
 *
 * Returns: (transfer full) (nullable): %NATTER_RUNTIME_ERROR_ELSEWHERE,
 *   in plain words naming the device, or %NULL when the queue may change
 *   here
 */
GError *
natter_sessions_queue_elsewhere_error (NatterSessions  *self,
                                       NatterTurnState *turn)
{
  const char *there = natter_sessions_answering_device (self, turn);

  if (there == NULL)
    return NULL;
  return g_error_new (NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_ELSEWHERE,
                      "The answer is being written on another device (“%s”); the messages waiting behind it are "
                      "sent or changed there until it ends", there);
}

static void
resume_latest_read (GTask           *task,
                    NatterTurnState *turn)
{
  NatterSessionsOp *data = g_task_get_task_data (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->state);
  gboolean take_over = g_task_get_source_tag (task) == natter_sessions_take_over_turn_async;
  g_autoptr(GError) error = NULL;
  NatterTurnStatus status;

  status = natter_derive_turn_status (turn);
  if (natter_sessions_is_turn_running (data->self, latest) || status != NATTER_TURN_STATUS_IDLE)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                          "The latest turn %s is %s, not idle; only an interrupted "
                                                          "turn can be resumed", latest,
                                                          natter_sessions_is_turn_running (data->self, latest)
                                                          ? "running" : natter_turn_status_to_string (status)));
      return;
    }
  /* Another device's turn may still be running there: only a take-over
   * the person asked for continues it here. */
  if (!take_over && (error = elsewhere_error (data->self, turn)) != NULL)
    {
      natter_sessions_op_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* A turn whose provider was removed would fail before writing
   * anything, and the resume would seem to do nothing: say why. */
  if (!natter_turn_runtime_check_model (data->self->runtime, turn, &error))
    {
      natter_sessions_op_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (take_over)
    {
      natter_sessions_start_take_over (data->self, data->session_id, latest, natter_sessions_promote_soon);
      /* From now on it runs here: the list says so at once. */
      natter_session_index_set_latest_turn_device (data->self->index, data->session_id, NULL, NULL);
    }
  else
    natter_sessions_start_advance (data->self, data->session_id, latest, NULL,
                                   natter_sessions_promote_soon);
  natter_sessions_op_finish (task);
  g_task_return_pointer (task, g_strdup (latest), g_free);
}

static void
resume_session_read (GTask *task)
{
  NatterSessionsOp *data = g_task_get_task_data (task);

  if (natter_session_state_get_latest_turn_id (data->state) == NULL)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                          "Session %s has no turn to resume", data->session_id));
      return;
    }
  natter_sessions_op_read_latest (task, resume_latest_read);
}

/* Starts resume_turn or its take-over (@source_tag tells which:
 * resume_latest_read() reads it back). */
static void
resume_start (NatterSessions      *self,
              const char          *session_id,
              gpointer             source_tag,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  natter_sessions_op_lock_and_read (natter_sessions_op_task_new (self, session_id, sizeof (NatterSessionsOp), NULL,
                                                                 cancellable, callback, user_data, source_tag),
                                    resume_session_read);
}

static char *
resume_finish (NatterSessions  *self,
               GAsyncResult    *result,
               gpointer         source_tag,
               GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_sessions_resume_turn_async:
 * @self: the service
 * @session_id: the session
 * @cancellable: (nullable): cancels up to the advance's start
 * @callback: called on the main context once the advance runs
 * @user_data: data for @callback
 *
 * resumeTurn of docs/sessions.md §9.3: re-enters the latest turn with no input,
 * the turn runtime's recovery entry point, for a turn left `idle` by a crash.
 * Only ever an explicit user action: recovery re-issues interrupted model
 * calls. Like send_message it returns once the advance has started.
 */
void
natter_sessions_resume_turn_async (NatterSessions      *self,
                                   const char          *session_id,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  resume_start (self, session_id, natter_sessions_resume_turn_async, cancellable, callback, user_data);
}

/**
 * natter_sessions_resume_turn_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the resumed turn's id; or %NULL
 *   with %NATTER_SESSION_ERROR_INVALID_ARGUMENT (no turns, or the latest
 *   turn is running, suspended or terminal), %NATTER_RUNTIME_ERROR_ELSEWHERE
 *   (it runs on another device: natter_sessions_take_over_turn_async()
 *   continues it here), %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND
 *   (no provider serves the turn's model any more: it stays as it is),
 *   %NATTER_SESSION_ERROR_NOT_FOUND or %NATTER_SESSION_ERROR_CORRUPT
 */
char *
natter_sessions_resume_turn_finish (NatterSessions  *self,
                                    GAsyncResult    *result,
                                    GError         **error)
{
  return resume_finish (self, result, natter_sessions_resume_turn_async, error);
}

/* The words kept of an interrupted answer (docs/format.md §11) */

typedef struct
{
  NatterStreamKeep *keep;
  char             *turn_id;
  guint             model_call_index;
} KeptRead;

static void
kept_read_free (KeptRead *read)
{
  g_clear_object (&read->keep);
  g_free (read->turn_id);
  g_free (read);
}

static void
kept_read_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  KeptRead *read = task_data;
  GError *error = NULL;
  JsonNode *partial = natter_stream_keep_load_sync (read->keep, read->turn_id, read->model_call_index, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, partial, (GDestroyNotify) json_node_unref);
}

/**
 * natter_sessions_read_kept_words_async:
 * @self: the service
 * @turn_id: a turn of this device left `idle` by a killed process
 * @model_call_index: the `modelCallIndex` of its call left open
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context with what was read
 * @user_data: data for @callback
 *
 * Reads, in a thread, the words that call had streamed when its process
 * was killed, as the process kept them beside the logs (docs/format.md
 * §11): what a resume or a stop of the turn will write into its file as
 * the call's `partial`. A window shows them under the interrupted turn
 * before the person chooses. Reads nothing of the turn's own file.
 */
void
natter_sessions_read_kept_words_async (NatterSessions      *self,
                                       const char          *turn_id,
                                       guint                model_call_index,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  NatterStreamKeep *keep;
  KeptRead *read;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_read_kept_words_async);
  keep = natter_turn_runtime_get_stream_keep (self->runtime);
  if (keep == NULL)
    {
      /* A runtime that keeps no words (a test's, one for a single
       * command) has none to show. */
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  read = g_new0 (KeptRead, 1);
  read->keep = g_object_ref (keep);
  read->turn_id = g_strdup (turn_id);
  read->model_call_index = model_call_index;
  g_task_set_task_data (task, read, (GDestroyNotify) kept_read_free);
  g_task_run_in_thread (task, kept_read_thread);
}

/**
 * natter_sessions_read_kept_words_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the assistant message kept, in
 *   the form of a `model_call_failed.partial`; %NULL without an error
 *   when nothing is kept for that call; %NULL with
 *   %NATTER_STORE_ERROR_CORRUPT for a kept file that cannot be read (it
 *   is left as it is), or a #G_FILE_ERROR
 */
JsonNode *
natter_sessions_read_kept_words_finish (NatterSessions  *self,
                                        GAsyncResult    *result,
                                        GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_read_kept_words_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_sessions_take_over_turn_async:
 * @self: the service
 * @session_id: the session
 * @cancellable: (nullable): cancels up to the advance's start
 * @callback: called on the main context once the advance runs
 * @user_data: data for @callback
 *
 * "Continue Here" (docs/sync.md; docs/format.md §4.5): resumes the
 * latest turn like natter_sessions_resume_turn_async(), also when it
 * runs on another device, which from then on no longer advances it
 * (natter_turn_runtime_take_over_turn()). Only ever an explicit,
 * confirmed request of the person, for a device that stopped in the
 * middle of an answer: were it still running the turn, both would write
 * its file.
 */
void
natter_sessions_take_over_turn_async (NatterSessions      *self,
                                      const char          *session_id,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  resume_start (self, session_id, natter_sessions_take_over_turn_async, cancellable, callback, user_data);
}

/**
 * natter_sessions_take_over_turn_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the turn's id; or %NULL with the
 *   errors of natter_sessions_resume_turn_finish()
 */
char *
natter_sessions_take_over_turn_finish (NatterSessions  *self,
                                       GAsyncResult    *result,
                                       GError         **error)
{
  return resume_finish (self, result, natter_sessions_take_over_turn_async, error);
}

/**
 * natter_sessions_get_device:
 * @self: the service
 *
 * Returns: (transfer none) (nullable): the device this process runs on
 *   (docs/format.md §4.5), %NULL where none is known
 */
NatterDevice *
natter_sessions_get_device (NatterSessions *self)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);
  return natter_turn_runtime_get_device (self->runtime);
}

/**
 * natter_sessions_is_shared:
 * @self: the service
 *
 * Whether a synchroniser shares the data folder, so that a turn file
 * missing or shorter than its conversation says may still be on its way
 * from another device (docs/format.md §9.3). Looks at the disk: for the
 * rare turn that is not whole, not for every one.
 *
 * Returns: %TRUE when one does
 */
gboolean
natter_sessions_is_shared (NatterSessions *self)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), FALSE);
  return self->turn_repo != NULL && natter_jsonl_repo_is_shared (self->turn_repo);
}

/**
 * natter_sessions_is_turn_elsewhere:
 * @self: the service
 * @entry: a session's entry in the index
 *
 * Whether the session's latest turn runs on another device
 * (docs/format.md §4.5): it has not ended, and the device it records is
 * not this one. Such a turn is shown as running there, and never
 * advanced, resumed or stopped here.
 *
 * Returns: %TRUE when it runs elsewhere
 */
gboolean
natter_sessions_is_turn_elsewhere (NatterSessions          *self,
                                   NatterSessionIndexEntry *entry)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), FALSE);
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (entry), FALSE);

  return !natter_device_is_this (natter_turn_runtime_get_device (self->runtime),
                                 natter_session_index_entry_get_latest_turn_device_id (entry));
}
