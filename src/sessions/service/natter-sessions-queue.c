/* natter-sessions-queue.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Queued messages (docs/sessions.md §4; docs/format.md §3.3,
 * §3.4): queueing, editing and removing under the session lock through
 * the one writer of version-2 events; their promotion and its holds are
 * in natter-sessions-turns.c. sendMessage never queues
 * (docs/sessions.md §9.1); queueing is this separate API. The promotion rule:
 * when a session's latest turn completes, the process that settled it turns the
 * oldest queued message into the next turn
 * (natter_sessions_promote_queue_async() in natter-sessions-turns.c), one turn
 * per message, with the options it was queued with. After a failed, stopped or
 * interrupted turn the queue waits for the person; a suspended turn is not
 * over. A promotion lost to a crash between settling and promoting is done by
 * the next queue or send on the session (the queue is in the log; the
 * turn_appended that consumes a message is one line, so nothing is sent twice).
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-send-options-private.h"
#include "natter-session-grants-queue.h"
#include "natter-session-index-internal.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-private.h"
#include "natter-sessions-queue.h"
#include "natter-turn-schema.h"

static gboolean
check_message (JsonObject  *input,
               GError     **error)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  GError *schema_error = NULL;

  json_node_set_object (node, input);
  if (natter_turn_user_message_validate (node, &schema_error))
    return TRUE;
  g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
               "Not a user message: %s", schema_error->message);
  g_error_free (schema_error);
  return FALSE;
}

/* One operation for queue, replace and remove. */
typedef struct
{
  NatterSessionsOp   base;
  char              *queue_id;
  JsonObject        *input;        /* queue, replace */
  NatterSendOptions *options;      /* queue */
  gboolean           only_if_busy; /* queue */
  char              *result_id;    /* queue: the new id, NULL when the caller sends */
} QueueData;

NATTER_SESSIONS_DEFINE_OP (QueueData, queue_data)

static void
queue_data_clear (QueueData *data)
{
  g_free (data->queue_id);
  g_clear_pointer (&data->input, json_object_unref);
  g_clear_pointer (&data->options, natter_send_options_free);
  g_free (data->result_id);
}

static void
queue_appended_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  QueueData *data = queue_data_get (task);
  NatterSessions *self = data->base.self;

  if (!natter_sessions_op_appended (task, result))
    return;
  natter_sessions_op_publish (task);
  /* A queued message behind a completed turn (or a promotion a crash
   * lost) goes now; behind a running one, when it completes. */
  if (g_task_get_source_tag (task) == natter_sessions_queue_message_async)
    {
      natter_sessions_promote_soon (self, data->base.session_id);
      g_task_return_pointer (task, g_steal_pointer (&data->result_id), g_free);
    }
  else
    g_task_return_boolean (task, TRUE);
}

static void
append_one (GTask    *task,
            JsonNode *event)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  g_ptr_array_add (events, event);
  natter_sessions_op_append_v2_async (task, events, queue_appended_cb);
}

static void
queue_append (GTask *task)
{
  QueueData *data = queue_data_get (task);
  g_autoptr(JsonObject) options = natter_send_options_to_queued_options (data->options);
  g_autofree char *ts = natter_clock_format_ts (data->base.self->clock);

  /* A queued message keeps its agent, model and limits, not generation
   * parameters of its own (docs/format.md §3.3): waiting, it would lose
   * them without a word. It goes with the conversation's, as any. */
  if (!natter_generation_parameters_is_empty (natter_send_options_get_parameters (data->options)))
    {
      natter_sessions_op_return_error (task, g_error_new_literal (NATTER_SESSION_ERROR,
                                                                  NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                                  "A message with generation parameters of its own "
                                                                  "cannot wait in the queue; send it once the answer "
                                                                  "has ended, or keep the parameters for the "
                                                                  "conversation"));
      return;
    }
  data->result_id = natter_id_generator_next (data->base.self->ids);
  append_one (task, natter_session_event_new_message_queued (data->base.session_id, ts, data->result_id,
                                                              data->input, options));
}

/* Whether the queue behind @turn is another device's (it runs there):
 * then the operation is refused, nothing written. */
static gboolean
refuse_elsewhere (GTask           *task,
                  NatterTurnState *turn)
{
  QueueData *data = queue_data_get (task);
  GError *error = natter_sessions_queue_elsewhere_error (data->base.self, turn);

  if (error == NULL)
    return FALSE;
  natter_sessions_op_return_error (task, error);
  return TRUE;
}

static void
queue_latest_read (GTask           *task,
                   NatterTurnState *turn)
{
  QueueData *data = queue_data_get (task);

  if (refuse_elsewhere (task, turn))
    return;
  /* Settled, nothing waiting: the caller sends it as a message. */
  if (data->only_if_busy && natter_session_state_get_n_queued (data->base.state) == 0 &&
      natter_turn_state_get_terminal_event (turn) != NULL)
    {
      natter_sessions_op_finish (task);
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  queue_append (task);
}

static void
queue_session_read (GTask *task)
{
  QueueData *data = queue_data_get (task);
  NatterSessionState *state = data->base.state;
  const char *latest = natter_session_state_get_latest_turn_id (state);

  if (natter_sessions_op_check_cancelled (task))
    return;
  /* A turn not running here is read: it may run on another device. */
  if (latest != NULL && !natter_sessions_is_turn_running (data->base.self, latest))
    {
      natter_sessions_op_read_latest (task, queue_latest_read);
      return;
    }
  if (!data->only_if_busy || latest != NULL || natter_session_state_get_n_queued (state) > 0)
    {
      queue_append (task);
      return;
    }
  natter_sessions_op_finish (task);
  g_task_return_pointer (task, NULL, NULL);
}

/**
 * natter_sessions_queue_message_async:
 * @self: the service
 * @session_id: the session
 * @input: (transfer none): the user message, `{role: "user", content}`
 * @options: (transfer none): the options its turn will be created with
 * @only_if_busy: queue only when the latest turn has not settled (or
 *   messages are already queued); else finish with %NULL so that the
 *   caller sends it with natter_sessions_send_message_async()
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Queues a message (docs/sessions.md §4): appends
 * `message_queued` under the session lock (a version-1 file is raised
 * first, docs/format.md §3.3), updates the index entry, emits
 * #NatterSessions::session-index-changed, and then promotes the queue
 * when the latest turn completed (or there is none). Otherwise the
 * message waits: it becomes a turn when the turns before it complete, in
 * the order queued.
 */
void
natter_sessions_queue_message_async (NatterSessions          *self,
                                     const char              *session_id,
                                     JsonObject              *input,
                                     const NatterSendOptions *options,
                                     gboolean                 only_if_busy,
                                     GCancellable            *cancellable,
                                     GAsyncReadyCallback      callback,
                                     gpointer                 user_data)
{
  GTask *task;
  QueueData *data;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL && input != NULL && options != NULL);
  g_return_if_fail (natter_send_options_get_agent_id (options) != NULL);

  task = queue_data_task_new (self, session_id, cancellable, callback, user_data,
                              natter_sessions_queue_message_async);
  if (!check_message (input, &error))
    {
      natter_sessions_op_return_error (task, error);
      g_object_unref (task);
      return;
    }
  data = queue_data_get (task);
  data->input = json_object_ref (input);
  data->options = natter_send_options_copy (options);
  data->only_if_busy = only_if_busy;
  natter_sessions_op_lock_and_read (task, queue_session_read);
}

/**
 * natter_sessions_queue_message_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the queued message's id; %NULL
 *   without an error when @only_if_busy found the session settled (send
 *   the message instead); else %NULL with
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT (not a user message),
 *   %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_CORRUPT or a
 *   %NATTER_STORE_ERROR from the append
 */
char *
natter_sessions_queue_message_finish (NatterSessions  *self,
                                      GAsyncResult    *result,
                                      GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_queue_message_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
pending_change (GTask *task)
{
  QueueData *data = queue_data_get (task);
  g_autofree char *ts = NULL;

  if (natter_session_state_find_queued (data->base.state, data->queue_id) == NULL)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND,
                                                          "Session %s has no queued message %s (already sent "
                                                          "or removed?)", data->base.session_id, data->queue_id));
      return;
    }
  ts = natter_clock_format_ts (data->base.self->clock);
  if (data->input != NULL)
    append_one (task, natter_session_event_new_queued_message_replaced (data->base.session_id, ts,
                                                                         data->queue_id, data->input));
  else
    append_one (task, natter_session_event_new_queued_message_removed (data->base.session_id, ts,
                                                                        data->queue_id));
}

static void
pending_latest_read (GTask           *task,
                     NatterTurnState *turn)
{
  if (!refuse_elsewhere (task, turn))
    pending_change (task);
}

static void
pending_session_read (GTask *task)
{
  QueueData *data = queue_data_get (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->base.state);

  if (natter_sessions_op_check_cancelled (task))
    return;
  if (latest != NULL && !natter_sessions_is_turn_running (data->base.self, latest))
    natter_sessions_op_read_latest (task, pending_latest_read);
  else
    pending_change (task);
}

/**
 * natter_sessions_replace_queued_message_async:
 * @self: the service
 * @session_id: the session
 * @queue_id: a pending queued message
 * @input: (transfer none): its new message
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Edits a queued message that was not sent yet: appends
 * `queued_message_replaced` under the session lock. It keeps its place
 * and its options.
 */
void
natter_sessions_replace_queued_message_async (NatterSessions      *self,
                                              const char          *session_id,
                                              const char          *queue_id,
                                              JsonObject          *input,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data)
{
  GTask *task;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL && queue_id != NULL && input != NULL);

  task = queue_data_task_new (self, session_id, cancellable, callback, user_data,
                              natter_sessions_replace_queued_message_async);
  if (!check_message (input, &error))
    {
      natter_sessions_op_return_error (task, error);
      g_object_unref (task);
      return;
    }
  queue_data_get (task)->queue_id = g_strdup (queue_id);
  queue_data_get (task)->input = json_object_ref (input);
  natter_sessions_op_lock_and_read (task, pending_session_read);
}

/**
 * natter_sessions_replace_queued_message_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success; else %FALSE with
 *   %NATTER_SESSION_ERROR_NOT_FOUND (no such session, or the message was
 *   sent or removed), %NATTER_SESSION_ERROR_INVALID_ARGUMENT,
 *   %NATTER_SESSION_ERROR_CORRUPT or a %NATTER_STORE_ERROR
 */
gboolean
natter_sessions_replace_queued_message_finish (NatterSessions  *self,
                                               GAsyncResult    *result,
                                               GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_replace_queued_message_async,
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * natter_sessions_remove_queued_message_async:
 * @self: the service
 * @session_id: the session
 * @queue_id: a pending queued message
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Cancels a queued message that was not sent yet: appends
 * `queued_message_removed` under the session lock.
 */
void
natter_sessions_remove_queued_message_async (NatterSessions      *self,
                                             const char          *session_id,
                                             const char          *queue_id,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL && queue_id != NULL);

  task = queue_data_task_new (self, session_id, cancellable, callback, user_data,
                              natter_sessions_remove_queued_message_async);
  queue_data_get (task)->queue_id = g_strdup (queue_id);
  natter_sessions_op_lock_and_read (task, pending_session_read);
}

/**
 * natter_sessions_remove_queued_message_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success; else %FALSE as
 *   natter_sessions_replace_queued_message_finish()
 */
gboolean
natter_sessions_remove_queued_message_finish (NatterSessions  *self,
                                              GAsyncResult    *result,
                                              GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_remove_queued_message_async,
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* move_queue (docs/sessions.md §4) */

typedef struct
{
  char              *queue_id;  /* in the session it leaves */
  JsonObject        *input;
  NatterSendOptions *options;
  char              *copy_id;   /* in the session it goes to, once queued there */
} MovedMessage;

static void
moved_message_free (MovedMessage *message)
{
  g_free (message->queue_id);
  g_clear_pointer (&message->input, json_object_unref);
  g_clear_pointer (&message->options, natter_send_options_free);
  g_free (message->copy_id);
  g_free (message);
}

typedef struct
{
  char      *from;
  char      *replaced_turn_id;
  char      *to;
  GPtrArray *messages;  /* MovedMessage */
  guint      next;
  guint      moved;
} MoveData;

static void
move_data_free (MoveData *data)
{
  g_free (data->from);
  g_free (data->replaced_turn_id);
  g_free (data->to);
  g_clear_pointer (&data->messages, g_ptr_array_unref);
  g_free (data);
}

static void move_next (GTask *task);

static MovedMessage *
move_current (GTask *task)
{
  MoveData *data = g_task_get_task_data (task);

  return g_ptr_array_index (data->messages, data->next);
}

static void
copy_removed_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  MoveData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  /* Gone from where it was (sent or removed meanwhile), it goes nowhere
   * else. A copy already sent there cannot be taken back; it is said. */
  if (!natter_sessions_remove_queued_message_finish (NATTER_SESSIONS (object), result, &error))
    g_debug ("A queued message left %s while it moved to %s: %s", data->from, data->to, error->message);
  data->next++;
  move_next (g_steal_pointer (&task));
}

static void
original_removed_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  MoveData *data = g_task_get_task_data (task);
  MovedMessage *message = move_current (task);
  GError *error = NULL;

  if (natter_sessions_remove_queued_message_finish (NATTER_SESSIONS (object), result, &error))
    {
      data->moved++;
      data->next++;
      move_next (g_steal_pointer (&task));
      return;
    }
  if (g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND))
    {
      g_error_free (error);
      natter_sessions_remove_queued_message_async (NATTER_SESSIONS (object), data->to, message->copy_id, NULL,
                                                   copy_removed_cb, g_steal_pointer (&task));
      return;
    }
  /* The message now waits in both: never in neither. */
  g_task_return_error (task, error);
}

static void
copy_queued_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  MoveData *data = g_task_get_task_data (task);
  MovedMessage *message = move_current (task);
  GError *error = NULL;

  message->copy_id = natter_sessions_queue_message_finish (NATTER_SESSIONS (object), result, &error);
  if (message->copy_id == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  natter_sessions_remove_queued_message_async (NATTER_SESSIONS (object), data->from, message->queue_id, NULL,
                                               original_removed_cb, g_steal_pointer (&task));
}

/* One message at a time, oldest first, so that they wait in the new
 * session in the order they were queued. Each is queued there before it
 * leaves: a crash between the two writes leaves it in both queues, each
 * shown, rather than in neither. */
static void
move_next (GTask *task)
{
  MoveData *data = g_task_get_task_data (task);
  MovedMessage *message;

  if (data->next == data->messages->len)
    {
      g_task_return_int (task, data->moved);
      g_object_unref (task);
      return;
    }
  message = move_current (task);
  natter_sessions_queue_message_async (g_task_get_source_object (task), data->to, message->input, message->options,
                                       FALSE, NULL, copy_queued_cb, task);
}

static void
move_from_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  MoveData *data = g_task_get_task_data (task);
  g_autoptr(NatterSessionState) state = NULL;
  GError *error = NULL;

  state = natter_sessions_get_session_finish (NATTER_SESSIONS (object), result, &error);
  if (state == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  /* Only the answer the queue waited behind hands it on. */
  data->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) moved_message_free);
  if (g_strcmp0 (natter_session_state_get_latest_turn_id (state), data->replaced_turn_id) == 0)
    for (guint i = 0; i < natter_session_state_get_n_queued (state); i++)
      {
        MovedMessage *message = g_new0 (MovedMessage, 1);

        natter_sessions_take_queued (state, i, &message->queue_id, &message->input, &message->options);
        g_ptr_array_add (data->messages, message);
      }
  move_next (task);
}

/**
 * natter_sessions_move_queue_async:
 * @self: the service
 * @from: the session whose latest turn a new version replaced
 * @replaced_turn_id: that turn: the message's turn the new version sends
 *   again or edited
 * @to: the new version
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Hands the queue of @from on to @to (docs/sessions.md §4): the messages
 * typed behind an answer that failed or was stopped wait behind its new
 * try instead. Only when @replaced_turn_id is still @from's latest turn;
 * else nothing is written. Each pending message, oldest first, is queued
 * in @to with its options (`message_queued`), then removed from @from
 * (`queued_message_removed`), each under its session's lock; one that
 * left @from meanwhile is taken out of @to again. When the service knows
 * @from's queue to be empty (natter_sessions_promote_queue_async() reads
 * nothing then either), nothing is read. Not cancellable: once begun,
 * the move ends.
 */
void
natter_sessions_move_queue_async (NatterSessions      *self,
                                  const char          *from,
                                  const char          *replaced_turn_id,
                                  const char          *to,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GTask *task;
  MoveData *data;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (from != NULL && replaced_turn_id != NULL && to != NULL);

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_move_queue_async);
  data = g_new0 (MoveData, 1);
  data->from = g_strdup (from);
  data->replaced_turn_id = g_strdup (replaced_turn_id);
  data->to = g_strdup (to);
  g_task_set_task_data (task, data, (GDestroyNotify) move_data_free);
  /* Most new tries follow an answer nothing was queued behind, and the
   * service saw that when it last read or wrote the file under the lock
   * (as a promotion does): nothing is read then. */
  if (natter_sessions_knows_nothing_queued (self, from))
    {
      g_task_return_int (task, 0);
      g_object_unref (task);
      return;
    }
  natter_sessions_get_session_async (self, from, NULL, move_from_read_cb, task);
}

/**
 * natter_sessions_move_queue_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: how many messages now wait in the new version (0 when
 *   nothing was queued or the turn was no longer the latest); or -1 with
 *   the error of the read (%NATTER_SESSION_ERROR_NOT_FOUND,
 *   %NATTER_SESSION_ERROR_CORRUPT) or of the write that failed, the
 *   messages before it moved and the one it was about waiting in both
 */
gint
natter_sessions_move_queue_finish (NatterSessions  *self,
                                   GAsyncResult    *result,
                                   GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_move_queue_async, -1);

  return (gint) g_task_propagate_int (G_TASK (result), error);
}
