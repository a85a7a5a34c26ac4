/* natter-window-queue.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's facet of queued messages (docs/sessions.md §4):
 * the pending bubbles of the open conversation, the promotion a crash
 * may have left undone when a conversation opens, and Stop, which asks
 * whether the queue stays and stops the answer.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-session-grants-queue.h"
#include "natter-sessions-queue.h"
#include "natter-window-private.h"

static void
promoted_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autofree char *turn_id = NULL;
  g_autoptr(GError) error = NULL;

  turn_id = natter_sessions_promote_queue_finish (NATTER_SESSIONS (source), result, &error);
  if (error != NULL)
    g_debug ("The queue could not go on: %s", error->message);
}

static void
queue_read_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autofree char *session_id = user_data;
  g_autoptr(NatterSessionState) state = NULL;

  /* Unreadable: the timeline says why. Nothing queued: nothing to
   * promote, and no need to take the session's lock. */
  state = natter_sessions_get_session_finish (NATTER_SESSIONS (source), result, NULL);
  if (state != NULL && natter_session_state_get_n_queued (state) > 0)
    natter_sessions_promote_queue_async (NATTER_SESSIONS (source), session_id, NULL, promoted_cb, NULL);
}

static void
open_queue_now (NatterWindow *self)
{
  natter_queue_view_set_session (self->conversation.queue_view, self->sessions, self->conversation.session_id);
  natter_sessions_get_session_async (self->sessions, self->conversation.session_id, NULL, queue_read_cb,
                                     g_strdup (self->conversation.session_id));
}

static void
queue_after_paint_cb (GdkFrameClock *clock,
                      NatterWindow  *self)
{
  _natter_window_close_queue (self);
  open_queue_now (self);
}

/* Shows the open conversation's queue; and when its latest turn completed
 * with messages still queued (a crash came between the two), sends the
 * oldest now. Both need the session read again (the queue view and the
 * recovery share that read): in a window on screen it begins after the
 * conversation's first frame, so that it does not compete with drawing
 * it. */
void
_natter_window_open_queue (NatterWindow *self)
{
  GdkFrameClock *clock = NULL;

  _natter_window_close_queue (self);
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  if (clock == NULL)
    {
      open_queue_now (self);
      return;
    }
  self->queue.clock = g_object_ref (clock);
  self->queue.paint_handler = g_signal_connect (clock, "after-paint", G_CALLBACK (queue_after_paint_cb), self);
}

/* Forgets a queue read that has not begun: the conversation is closing. */
void
_natter_window_close_queue (NatterWindow *self)
{
  /* A frame clock disposed with its window's surface has dropped its
   * handlers already. */
  if (self->queue.clock != NULL &&
      g_signal_handler_is_connected (self->queue.clock, self->queue.paint_handler))
    g_signal_handler_disconnect (self->queue.clock, self->queue.paint_handler);
  self->queue.paint_handler = 0;
  g_clear_object (&self->queue.clock);
}

static void
removed_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  /* Sent or removed meanwhile: nothing left to clear. */
  if (!natter_sessions_remove_queued_message_finish (NATTER_SESSIONS (source), result, &error))
    g_debug ("A queued message could not be removed: %s", error->message);
}

static void
stop_turn_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_stop_turn_finish (NATTER_SESSIONS (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error (self, self->conversation.session_id, _("The answer could not be stopped"), error, NULL);
}

/* Stops the open conversation's latest answer; what went wrong goes to
 * the error bar. */
void
_natter_window_stop_latest (NatterWindow *self)
{
  const char *latest = self->conversation.entry != NULL ? natter_session_index_entry_get_latest_turn_id (self->conversation.entry) : NULL;

  if (latest == NULL)
    return;
  natter_sessions_stop_turn_async (self->sessions, latest, NULL, self->cancellable,
                                   stop_turn_cb, g_object_ref (self));
}

/* One "Stop the Answer?" question: the queue it holds until answered. */
typedef struct
{
  GWeakRef        window;
  NatterSessions *sessions;
  char           *session_id;
  char          **queue_ids;
  gboolean        released;
} StopAsk;

static void
stop_ask_release (StopAsk  *ask,
                  gboolean  promote)
{
  if (ask->released)
    return;
  ask->released = TRUE;
  natter_sessions_release_queue (ask->sessions, ask->session_id, promote);
}

/* Closed without an answer (the window went): the queue goes on as if
 * nothing had been asked. */
static void
stop_ask_free (StopAsk *ask)
{
  stop_ask_release (ask, TRUE);
  g_weak_ref_clear (&ask->window);
  g_object_unref (ask->sessions);
  g_free (ask->session_id);
  g_strfreev (ask->queue_ids);
  g_free (ask);
}

static void
stop_response_cb (AdwMessageDialog *dialog,
                  const char       *response,
                  StopAsk          *ask)
{
  g_autoptr(NatterWindow) self = g_weak_ref_get (&ask->window);
  gboolean clear = g_strcmp0 (response, "clear") == 0;
  gboolean stop = clear || g_strcmp0 (response, "keep") == 0;

  if (clear)
    for (guint i = 0; ask->queue_ids[i] != NULL; i++)
      natter_sessions_remove_queued_message_async (ask->sessions, ask->session_id, ask->queue_ids[i], NULL,
                                                   removed_cb, NULL);
  if (stop && self != NULL && g_strcmp0 (ask->session_id, self->conversation.session_id) == 0)
    _natter_window_stop_latest (self);
  /* A stopped answer leaves the queue to the person; Cancel lets it go on,
   * sending the next message if the answer completed meanwhile. */
  stop_ask_release (ask, !stop);
}

/* Stop (the button, Escape): with messages queued, asks whether they
 * stay — a stopped answer does not send them, they wait for the person —
 * or go with it. While it asks the queue is held: an answer that
 * completes meanwhile sends nothing. Asked again, the question already
 * shown comes forward. */
void
_natter_window_composer_stop_cb (NatterWindow *self)
{
  AdwMessageDialog *dialog;
  StopAsk *ask;

  if (natter_queue_view_get_n_queued (self->conversation.queue_view) == 0)
    {
      _natter_window_stop_latest (self);
      return;
    }
  if (self->closing.stop_dialog != NULL)
    {
      gtk_window_present (self->closing.stop_dialog);
      return;
    }
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Stop the Answer?"),
                                                       _("Messages are queued after it. Keep them to send "
                                                         "later, or clear them.")));
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Cancel"),
                                    "clear", _("Stop and C_lear Queue"),
                                    "keep", _("_Stop, Keep Queue"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "clear", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "keep");
  adw_message_dialog_set_close_response (dialog, "cancel");
  ask = g_new0 (StopAsk, 1);
  g_weak_ref_init (&ask->window, self);
  ask->sessions = g_object_ref (self->sessions);
  ask->session_id = g_strdup (self->conversation.session_id);
  ask->queue_ids = natter_queue_view_dup_queue_ids (self->conversation.queue_view);
  natter_sessions_hold_queue (self->sessions, self->conversation.session_id);
  g_object_set_data_full (G_OBJECT (dialog), "natter-stop-ask", ask, (GDestroyNotify) stop_ask_free);
  g_signal_connect (dialog, "response", G_CALLBACK (stop_response_cb), ask);
  self->closing.stop_dialog = GTK_WINDOW (dialog);
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &self->closing.stop_dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}
