/* natter-window-conversation.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sending the open conversation's messages: what the composer sends, a
 * new version of a message, Try Again and Retry, each with the agent and
 * the model natter-window-choice.c shows as chosen; a first message
 * makes its conversation, which opens. The timeline itself is shown by
 * NatterConversationView.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-send-pipeline.h"
#include "natter-window-private.h"

/* Sending: every message goes through the send pipeline the command
 * line uses too (natter-send-pipeline.c); the window only asks and
 * shows. */

typedef struct
{
  NatterWindow         *self;
  NatterMessageRequest *request;
  char                 *session_id;    /* the open conversation when it was sent: its
                                        * choice key (NATTER_WINDOW_NEW_CHAT_KEY: a new one) */
  char                 *draft_key;     /* that key still, for the draft held while it goes */
  gboolean              restore_draft;
  gboolean              refocus;
  NatterWindowCarriedChoice carried;   /* for a new version */
} SendData;

static void
send_data_free (SendData *data)
{
  g_object_unref (data->self);
  natter_message_request_free (data->request);
  g_free (data->session_id);
  g_free (data->draft_key);
  _natter_window_carried_choice_clear (&data->carried);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SendData, send_data_free)

/* A message that could not go out: its words and files are not lost.
 * Typed ones go back into the draft unless the user has typed something
 * new meanwhile; the error bar offers Retry where sending the same again
 * can succeed. */
static void
send_failed (SendData     *data,
             const GError *error)
{
  NatterWindow *self = data->self;
  const char *text = natter_message_request_get_text (data->request);
  GPtrArray *sources = natter_message_request_get_attachments (data->request);
  const char *heading;

  if (data->restore_draft && text != NULL)
    {
      if (g_strcmp0 (_natter_window_choice_key (self), data->session_id) == 0)
        {
          g_autofree char *draft = natter_composer_dup_text (self->conversation.composer);
          const char *version_of = natter_message_request_get_version_of (data->request);

          if (draft[0] == '\0')
            natter_composer_set_text (self->conversation.composer, text);
          /* An edit's words go back as the edit they were: sent again,
           * they make the new version, never a message after the old. */
          if (draft[0] == '\0' && version_of != NULL && self->versions.editing_turn_id == NULL)
            {
              self->versions.editing_turn_id = g_strdup (version_of);
              natter_conversation_view_set_editing (self->conversation.view, TRUE);
              _natter_window_update_keyboard_actions (self);
            }
        }
      else if (!g_hash_table_contains (self->conversation.drafts, data->session_id))
        g_hash_table_insert (self->conversation.drafts, g_strdup (data->session_id), g_strdup (text));
    }
  if (data->restore_draft && sources->len > 0 && g_strcmp0 (_natter_window_choice_key (self), data->session_id) == 0)
    natter_composer_restore_attachments (self->conversation.composer, sources);
  if (natter_message_request_get_compact_first (data->request))
    heading = _("The conversation could not be compacted");
  else if (natter_message_request_get_version_of (data->request) != NULL)
    heading = _("The new version could not be made");
  else
    heading = _("The message was not sent");
  _natter_window_show_error (self, data->session_id[0] != '\0' ? data->session_id : NULL, heading, error,
                             natter_send_error_can_retry (error) ? data->request : NULL);
  if (natter_message_request_get_provider (data->request) != NULL)
    _natter_window_set_error_provider (self, natter_message_request_get_provider (data->request));
}

static void
send_done (SendData *data)
{
  NatterWindow *self = data->self;

  self->conversation.sending = FALSE;
  /* In the log now, or back in its field. */
  _natter_window_drafts_release (self, data->draft_key);
  _natter_window_update_composer (self);
  /* The composer was insensitive while the message went out, which took
   * its focus: give it back, so the next message is typed at once. */
  if (data->refocus && g_strcmp0 (_natter_window_choice_key (self), data->session_id) == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->conversation.composer));
}

/* The new conversation made for a first message takes over what was
 * chosen for it while it was new. */
static void
adopt_new_chat (NatterWindow *self,
                const char   *session_id)
{
  gpointer key, value;

  /* Stolen, a key is ours to free. */
  if (g_hash_table_steal_extended (self->choice.chosen_models, NATTER_WINDOW_NEW_CHAT_KEY, &key, &value))
    {
      g_free (key);
      g_hash_table_replace (self->choice.chosen_models, g_strdup (session_id), value);
    }
  if (g_hash_table_steal_extended (self->choice.chosen_agents, NATTER_WINDOW_NEW_CHAT_KEY, &key, &value))
    {
      g_free (key);
      g_hash_table_replace (self->choice.chosen_agents, g_strdup (session_id), value);
    }
  g_hash_table_remove (self->conversation.drafts, NATTER_WINDOW_NEW_CHAT_KEY);
  g_hash_table_remove (self->conversation.draft_attachments, NATTER_WINDOW_NEW_CHAT_KEY);
  /* Words still being dictated for it go to it too. */
  _natter_window_voice_rekey (self, NATTER_WINDOW_NEW_CHAT_KEY, session_id);
}

static void
sent_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(SendData) data = user_data;
  NatterWindow *self = data->self;
  g_autoptr(NatterSendResult) sent = NULL;
  g_autoptr(GError) error = NULL;

  sent = natter_send_pipeline_send_finish (NATTER_SEND_PIPELINE (source), result, &error);
  if (sent == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        send_failed (data, error);
      send_done (data);
      return;
    }
  /* The composer takes messages again before another conversation
   * opens: it is where the keyboard goes when the rows it was in go (a
   * Try Again button clicked), and an insensitive one cannot take it. */
  self->conversation.sending = FALSE;
  _natter_window_update_composer (self);
  /* Said once per conversation: the message went with the whole
   * history all the same. */
  if (sent->compaction_error != NULL)
    {
      g_autofree char *why = g_strdup_printf (_("The conversation could not be compacted before sending, so the "
                                                "message went with the whole history: %s"),
                                              sent->compaction_error->message);

      _natter_window_show_notice (self, _("Not compacted"), why);
    }
  if (sent->move_error != NULL)
    {
      g_autofree char *why = g_strdup_printf (_("The messages waiting behind the earlier answer stay with it: %s"),
                                              sent->move_error->message);

      _natter_window_show_notice (self, _("Queue not moved"), why);
    }
  /* A new version goes on with the model and agent of the conversation
   * it was made from, and is shown where it differs. So does the new
   * version a message typed in another device's copy made
   * (docs/format.md §9.1): the message went there. */
  if (sent->created && (natter_message_request_get_version_of (data->request) != NULL ||
                        natter_message_request_get_session (data->request) != NULL))
    {
      _natter_window_carry_choice (self, sent->session_id, &data->carried);
      if (g_strcmp0 (self->conversation.session_id, data->session_id) == 0)
        {
          /* What waits in the message field (the words a recovered
           * copy offered, say) stays there: it goes with the version
           * shown. */
          _natter_window_open_in_place (self, sent->session_id);
          g_free (data->session_id);
          data->session_id = g_strdup (sent->session_id);
        }
    }
  /* A first message made its conversation, which opens where the new
   * one was, its row scrolled into view at the top of the list. */
  else if (sent->created)
    {
      gboolean still_new = self->conversation.new_chat && self->conversation.session_id == NULL;

      adopt_new_chat (self, sent->session_id);
      if (still_new)
        {
          g_autofree char *typed = natter_composer_dup_text (self->conversation.composer);

          /* Words typed while the first message went out are the new
           * conversation's draft now. */
          if (typed[0] != '\0')
            g_hash_table_replace (self->conversation.drafts, g_strdup (sent->session_id), g_steal_pointer (&typed));
          if (natter_composer_get_n_attachments (self->conversation.composer) > 0)
            g_hash_table_replace (self->conversation.draft_attachments, g_strdup (sent->session_id),
                                  natter_composer_take_attachments (self->conversation.composer));
          self->conversation.new_chat = FALSE;
          natter_window_open_session (self, sent->session_id);
          natter_sidebar_scroll_to (self->session_sidebar, sent->session_id);
        }
      g_free (data->session_id);
      data->session_id = g_strdup (sent->session_id);
    }
  send_done (data);
}

/* Takes @request. Sends it from the open conversation, with what the
 * window shows as chosen for it: the agent chooser's agent and the model
 * picked in the header bar. */
static void
send_request (NatterWindow         *self,
              NatterMessageRequest *request,
              gboolean              restore_draft)
{
  SendData *data;

  if (_natter_window_choice_key (self) == NULL || self->pipeline == NULL)
    {
      natter_message_request_free (request);
      return;
    }
  /* A new message answers whatever the last error was about. */
  _natter_window_hide_error (self);

  /* A new conversation's first message makes it (session NULL). */
  natter_message_request_set_session (request, self->conversation.session_id);
  _natter_window_choose_for (self, request);

  data = g_new0 (SendData, 1);
  data->self = g_object_ref (self);
  data->request = request;
  data->session_id = g_strdup (_natter_window_choice_key (self));
  data->draft_key = g_strdup (data->session_id);
  data->restore_draft = restore_draft;
  data->refocus = gtk_widget_get_focus_child (GTK_WIDGET (self->conversation.composer)) != NULL;
  _natter_window_dup_choice (self, &data->carried);

  self->conversation.sending = TRUE;
  natter_conversation_view_stick_to_bottom (self->conversation.view);
  _natter_window_update_composer (self);
  natter_send_pipeline_send_async (self->pipeline, data->request, self->cancellable, sent_cb, data);
}

void
_natter_window_send_text (NatterWindow *self,
                          const char   *text,
                          gboolean      restore_draft)
{
  _natter_window_send_message (self, text, NULL, restore_draft);
}

/* Sends @text with the attachments @sources (nullable, taken). A message
 * typed while the answer has not ended (it runs, or waits for a
 * permission or an answer) waits in the queue (docs/sessions.md
 * §4; the queue view shows it). */
void
_natter_window_send_message (NatterWindow *self,
                             const char   *text,
                             GPtrArray    *sources,
                             gboolean      restore_draft)
{
  NatterMessageRequest *request = natter_message_request_new (text);

  for (guint i = 0; sources != NULL && i < sources->len; i++)
    natter_message_request_add_attachment (request, g_ptr_array_index (sources, i));
  g_clear_pointer (&sources, g_ptr_array_unref);
  natter_message_request_set_queue (request, restore_draft && _natter_window_latest_is_unsettled (self));
  send_request (self, request, restore_draft);
}

/**
 * _natter_window_send_version:
 * @self: the window
 * @turn_id: a settled turn of the open conversation (its own or one it
 *   shows from the conversation it branched from)
 * @text: the message's new words
 * @sources: (transfer full) (nullable) (element-type NatterAttachmentSource):
 *   its attachments
 *
 * Makes a new version of @turn_id's message with @text and @sources (an
 * edit): the pipeline branches at the turn before it, with the open
 * conversation's title, and the new version opens.
 */
void
_natter_window_send_version (NatterWindow *self,
                             const char   *turn_id,
                             const char   *text,
                             GPtrArray    *sources)
{
  NatterMessageRequest *request = natter_message_request_new (text);

  for (guint i = 0; sources != NULL && i < sources->len; i++)
    natter_message_request_add_attachment (request, g_ptr_array_index (sources, i));
  g_clear_pointer (&sources, g_ptr_array_unref);
  natter_message_request_set_version_of (request, turn_id);
  send_request (self, request, TRUE);
}

/**
 * _natter_window_send_again:
 * @self: the window
 * @turn_id: a settled turn of the open conversation
 * @compact_first: whether to summarize the earlier turns first
 *
 * Try Again (and, with @compact_first, Compact and Continue): @turn_id's
 * message once more, with its words and attachments as they were sent,
 * as a new version of it. The turn, answered or failed, stays one arrow
 * away, and the history the model receives holds the message once.
 */
void
_natter_window_send_again (NatterWindow *self,
                           const char   *turn_id,
                           gboolean      compact_first)
{
  NatterMessageRequest *request = natter_message_request_new_again (turn_id);

  natter_message_request_set_compact_first (request, compact_first);
  send_request (self, request, FALSE);
}

/**
 * _natter_window_send_request_again:
 * @self: the window
 * @request: (transfer none): a message that was not sent
 *
 * The error bar's Retry: the same message, files included.
 */
void
_natter_window_send_request_again (NatterWindow               *self,
                                   const NatterMessageRequest *request)
{
  send_request (self, natter_message_request_copy (request), TRUE);
}

static void
composer_send_cb (NatterWindow *self,
                  const char   *text)
{
  g_autofree char *editing = g_steal_pointer (&self->versions.editing_turn_id);
  g_autoptr(GPtrArray) sources = natter_composer_take_attachments (self->conversation.composer);

  natter_conversation_view_set_editing (self->conversation.view, FALSE);
  _natter_window_update_keyboard_actions (self);
  /* The words and files stay on disk until they are in the log. */
  if (_natter_window_choice_key (self) != NULL)
    _natter_window_drafts_hold (self, _natter_window_choice_key (self), text, editing, sources);
  natter_composer_set_text (self->conversation.composer, NULL);
  if (_natter_window_choice_key (self) != NULL)
    g_hash_table_remove (self->conversation.drafts, _natter_window_choice_key (self));
  /* What a recovered copy said of the words in its field is past once
   * the person sends from it. */
  if (self->conversation.session_id != NULL &&
      g_hash_table_remove (self->conversation.recovery_notes, self->conversation.session_id))
    _natter_window_update_composer (self);
  /* An edited message is a new version, never a change of the old; the
   * words put aside for the edit come back to the field, and go on with
   * the new version as any draft does. */
  if (editing != NULL)
    {
      g_autofree char *set_aside = _natter_window_take_set_aside (self);

      _natter_window_send_version (self, editing, text, g_steal_pointer (&sources));
      if (set_aside != NULL)
        natter_composer_set_text (self->conversation.composer, set_aside);
    }
  else
    _natter_window_send_message (self, text, g_steal_pointer (&sources), TRUE);
}

/* A file the composer would not attach: said in the error bar, about
 * the conversation being written. */
static void
attachment_refused_cb (NatterWindow *self,
                       const char   *reason)
{
  g_autoptr(GError) error = g_error_new_literal (NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED, reason);

  _natter_window_show_error (self, self->conversation.session_id, _("The file was not attached"), error, NULL);
}

/* Sends what the composer sends. */
void
_natter_window_conversation_init (NatterWindow *self)
{
  g_signal_connect_object (self->conversation.composer, "attachment-refused", G_CALLBACK (attachment_refused_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->conversation.composer, "send", G_CALLBACK (composer_send_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->conversation.composer, "stop", G_CALLBACK (_natter_window_composer_stop_cb), self,
                           G_CONNECT_SWAPPED);
  /* Files dropped anywhere on the conversation are attached. */
  natter_composer_add_drop_target (self->conversation.composer, GTK_WIDGET (self->conversation.view));
}
