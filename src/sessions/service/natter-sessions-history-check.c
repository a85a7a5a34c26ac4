/* natter-sessions-history-check.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Before a turn is made on a history, each attachment the history would
 * send is checked whole, off the main thread: there, with its size and
 * bytes that still have their hash. A blob changed in place, even to the
 * same size, would otherwise be found only by the model call, which
 * fails the new turn; every message after it would fail the same way,
 * each leaving a failed turn. Refused before anything is written, the
 * message instead says the history is damaged and where the way out is
 * (docs/sessions.md §2). The blob store remembers which files it hashed
 * as they are, so a conversation with attachments pays the hash once.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-blob-store.h"
#include "natter-session-error.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"

typedef struct
{
  NatterBlobStore *blobs;
  JsonArray       *history;
  char            *session_id;
} CheckData;

static void
check_data_free (CheckData *data)
{
  g_object_unref (data->blobs);
  json_array_unref (data->history);
  g_free (data->session_id);
  g_free (data);
}

/* The error for the first attachment of @history that is not whole, or
 * %NULL. One that has not arrived from another device yet makes the
 * message wait (docs/format.md §9.3); any other is a damaged history. */
static GError *
first_unreadable (NatterBlobStore *blobs,
                  JsonArray       *history,
                  const char      *session_id,
                  GCancellable    *cancellable)
{
  for (guint i = 0; i < json_array_get_length (history) && !g_cancellable_is_cancelled (cancellable); i++)
    {
      JsonNode *node = json_array_get_element (history, i);
      g_autoptr(GPtrArray) parts = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      parts = natter_message_dup_blob_parts (json_node_get_object (node));
      for (guint p = 0; p < parts->len; p++)
        {
          JsonObject *part = g_ptr_array_index (parts, p);
          g_autoptr(GError) error = NULL;

          if (natter_blob_store_check_whole_sync (blobs, json_object_get_string_member (part, "sha256"),
                                                  json_object_get_int_member (part, "size"), &error))
            continue;
          if (g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
            return natter_sessions_arriving_error (g_steal_pointer (&error), session_id, NULL);
          return g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED,
                              "The history of session %s cannot be read, so nothing was sent: "
                              "its attachment “%s” cannot be read: %s", session_id,
                              json_object_get_string_member_with_default (part, "name", ""), error->message);
        }
    }
  return NULL;
}

static void
check_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  CheckData *data = task_data;
  GError *error = first_unreadable (data->blobs, data->history, data->session_id, cancellable);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * natter_sessions_history_attachments_need_check: (skip)
 * @self: the service
 * @history: (transfer none): the messages a turn would continue
 *
 * Returns: whether @history sends attachments that
 *   natter_sessions_check_history_attachments_async() must look at; when
 *   not, a send goes on at once
 */
gboolean
natter_sessions_history_attachments_need_check (NatterSessions *self,
                                                JsonArray      *history)
{
  return natter_turn_runtime_get_blob_store (self->runtime) != NULL && natter_messages_have_blob_parts (history);
}

/**
 * natter_sessions_check_history_attachments_async: (skip)
 * @self: the service
 * @history: (transfer none): the messages a turn would continue; the
 *   check keeps a reference and reads it on a worker thread, so the
 *   caller must not change it meanwhile
 * @session_id: the session whose history it is, for the error
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the calling thread's main context
 * @user_data: for @callback
 *
 * Checks every attachment of @history whole on a worker thread
 * (docs/sessions.md §2): present, of its size, its bytes matching their
 * hash (hashed once per unchanged file).
 */
void
natter_sessions_check_history_attachments_async (NatterSessions      *self,
                                                 JsonArray           *history,
                                                 const char          *session_id,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  CheckData *data = g_new0 (CheckData, 1);

  g_task_set_source_tag (task, natter_sessions_check_history_attachments_async);
  data->blobs = g_object_ref (natter_turn_runtime_get_blob_store (self->runtime));
  data->history = json_array_ref (history);
  data->session_id = g_strdup (session_id);
  g_task_set_task_data (task, data, (GDestroyNotify) check_data_free);
  g_task_run_in_thread (task, check_thread);
}

/**
 * natter_sessions_check_history_attachments_finish: (skip)
 * @self: the service
 * @result: the result
 * @error: return location for a #GError
 *
 * Returns: %TRUE when every attachment is whole; else %FALSE with
 *   %NATTER_SESSION_ERROR_HISTORY_DAMAGED (naming the attachment and its
 *   file), the arriving error of natter_sessions_arriving_error(), or
 *   %G_IO_ERROR_CANCELLED
 */
gboolean
natter_sessions_check_history_attachments_finish (NatterSessions  *self,
                                                  GAsyncResult    *result,
                                                  GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
