/* natter-queue-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The messages queued in the open conversation (docs/sessions.md
 * §4), shown under the running turn as pending bubbles, each with Edit
 * and Remove. Read from the session file, and again whenever the session
 * changes: queueing, an edit, a removal and a promotion all do.
 */

#define G_LOG_DOMAIN "natter-queue-view"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-queue-view.h"
#include "natter-session-grants-queue.h"
#include "natter-sessions-queue.h"

struct _NatterQueueView
{
  GtkWidget       parent_instance;

  NatterSessions *sessions;
  char           *session_id;
  GCancellable   *cancellable;
  GPtrArray      *queue_ids;   /* shown, oldest first */
  GtkWidget      *scroller;    /* holds @list */
  GtkWidget      *list;
};

/* The most the queue takes of the conversation's height, in px: about
 * two and a half bubbles, a third of a phone-sized window (360×740), so
 * that however many messages wait, the timeline and the composer stay
 * on screen; more scroll inside the queue. */
#define QUEUE_MAX_HEIGHT 220

G_DEFINE_FINAL_TYPE (NatterQueueView, natter_queue_view, GTK_TYPE_WIDGET)

static void reload (NatterQueueView *self);

static void
changed_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(NatterQueueView) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (g_task_get_source_tag (G_TASK (result)) == natter_sessions_replace_queued_message_async)
    ok = natter_sessions_replace_queued_message_finish (NATTER_SESSIONS (source), result, &error);
  else
    ok = natter_sessions_remove_queued_message_finish (NATTER_SESSIONS (source), result, &error);
  /* Sent meanwhile: what is on screen is read again. */
  if (!ok && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_debug ("A queued message could not be changed: %s", error->message);
      reload (self);
    }
}

static void
remove_clicked_cb (GtkButton       *button,
                   NatterQueueView *self)
{
  gtk_widget_set_sensitive (GTK_WIDGET (button), FALSE);
  natter_sessions_remove_queued_message_async (self->sessions, self->session_id,
                                               g_object_get_data (G_OBJECT (button), "queue-id"),
                                               self->cancellable, changed_cb, g_object_ref (self));
}

static void
edit_response_cb (AdwMessageDialog *dialog,
                  const char       *response,
                  NatterQueueView  *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (g_object_get_data (G_OBJECT (dialog), "natter-text-view"));
  GtkTextIter start, end;
  g_autofree char *text = NULL;
  g_autofree char *stripped = NULL;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  stripped = g_strstrip (g_strdup (text));
  g_autoptr(JsonObject) input = NULL;

  if (g_strcmp0 (response, "save") != 0 || stripped[0] == '\0' || self->sessions == NULL)
    return;
  input = json_object_new ();
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_replace_queued_message_async (self->sessions, self->session_id,
                                                g_object_get_data (G_OBJECT (dialog), "queue-id"), input,
                                                self->cancellable, changed_cb, g_object_ref (self));
}

static void
edit_clicked_cb (GtkButton       *button,
                 NatterQueueView *self)
{
  GtkWidget *dialog;
  GtkWidget *field = gtk_scrolled_window_new ();
  GtkWidget *view = gtk_text_view_new ();
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, _("Edit Queued Message"),
                                   _("It is sent when the answer before it is complete."));
  /* A message of several lines, edited as it was written: a text field
   * like the composer's, of a fixed height that scrolls. */
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_accepts_tab (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 10);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 10);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)),
                            g_object_get_data (G_OBJECT (button), "text"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Message"), -1);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (field), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_size_request (field, -1, 120);
  gtk_widget_add_css_class (field, "natter-composer-field");
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (field), view);
  g_object_set_data (G_OBJECT (dialog), "natter-text-view", view);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), field);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "save", _("_Save"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "queue-id",
                          g_strdup (g_object_get_data (G_OBJECT (button), "queue-id")), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (edit_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (view);
}

static char *
message_text (JsonObject *message)
{
  JsonNode *content = json_object_get_member (message, "content");

  if (JSON_NODE_HOLDS_VALUE (content))
    return g_strdup (json_node_get_string (content));
  return json_to_string (content, FALSE);
}

static GtkWidget *
button_new (const char      *label,
            const char      *queue_id,
            const char      *text,
            GCallback        callback,
            NatterQueueView *self)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  natter_accessible_plain_mnemonics (button);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  g_object_set_data_full (G_OBJECT (button), "queue-id", g_strdup (queue_id), g_free);
  g_object_set_data_full (G_OBJECT (button), "text", g_strdup (text), g_free);
  g_signal_connect (button, "clicked", callback, self);
  return button;
}

/* One pending message: a bubble (the message, plainly, and "Queued")
 * with Edit and Remove under it. Everything wraps and the buttons go
 * below the text, so a queued message fits a window 360 px wide. */
/* What happens to the queue given the latest turn's status (a
 * natter_session_index_entry_get_latest_turn_status() string, nullable):
 * only a completed turn lets it go on; after a failed or stopped one it
 * waits until the person's
 * next message is answered (the promotion rule of
 * natter-sessions-queue.c). A running turn's status is "idle". */
static const char *
caption_for_status (const char *latest_status)
{
  if (g_strcmp0 (latest_status, "failed") == 0 || g_strcmp0 (latest_status, "cancelled") == 0)
    return _("Waiting: sent after your next message is answered");
  return _("Queued: sent when the answer above is complete");
}

static GtkWidget *
bubble_new (NatterQueueView                  *self,
            const NatterSessionQueuedMessage *queued,
            const char                       *latest_status)
{
  g_autofree char *text = message_text (queued->message);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *actions = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (text);
  GtkWidget *state = gtk_label_new (caption_for_status (latest_status));

  gtk_widget_set_halign (row, GTK_ALIGN_END);
  gtk_widget_add_css_class (row, "natter-queued-message");
  gtk_label_set_use_markup (GTK_LABEL (label), FALSE);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_label_set_selectable (GTK_LABEL (label), FALSE);
  gtk_label_set_wrap (GTK_LABEL (state), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (state), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (state), 1);
  gtk_label_set_justify (GTK_LABEL (state), GTK_JUSTIFY_RIGHT);
  gtk_widget_add_css_class (state, "caption");
  gtk_widget_add_css_class (state, "dim-label");
  gtk_widget_set_halign (actions, GTK_ALIGN_END);
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (GTK_BOX (row), state);
  gtk_box_append (GTK_BOX (actions), button_new (_("_Edit"), queued->queue_id, text,
                                                 G_CALLBACK (edit_clicked_cb), self));
  gtk_box_append (GTK_BOX (actions), button_new (_("_Remove"), queued->queue_id, text,
                                                 G_CALLBACK (remove_clicked_cb), self));
  gtk_box_append (GTK_BOX (row), actions);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
  return row;
}

static void
clear_bubbles (NatterQueueView *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->list)) != NULL)
    gtk_box_remove (GTK_BOX (self->list), child);
  g_ptr_array_set_size (self->queue_ids, 0);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

static void
session_read_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(NatterQueueView) self = user_data;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionIndexEntry *entry;
  const char *latest_status = NULL;

  state = natter_sessions_get_session_finish (NATTER_SESSIONS (source), result, &error);
  /* Another conversation was opened meanwhile. */
  if (state == NULL || g_strcmp0 (natter_session_state_get_session_id (state), self->session_id) != 0)
    return;
  clear_bubbles (self);
  entry = natter_session_index_lookup (natter_sessions_list_sessions (self->sessions), self->session_id);
  if (entry != NULL)
    latest_status = natter_session_index_entry_get_latest_turn_status (entry);
  for (guint i = 0; i < natter_session_state_get_n_queued (state); i++)
    {
      const NatterSessionQueuedMessage *queued = natter_session_state_get_queued (state, i);

      g_ptr_array_add (self->queue_ids, g_strdup (queued->queue_id));
      gtk_box_append (GTK_BOX (self->list), bubble_new (self, queued, latest_status));
    }
  gtk_widget_set_visible (GTK_WIDGET (self), self->queue_ids->len > 0);
}

static void
reload (NatterQueueView *self)
{
  if (self->sessions == NULL || self->session_id == NULL)
    return;
  natter_sessions_get_session_async (self->sessions, self->session_id, self->cancellable,
                                     session_read_cb, g_object_ref (self));
}

static void
session_changed_cb (NatterSessions  *sessions,
                    const char      *session_id,
                    NatterQueueView *self)
{
  if (g_strcmp0 (session_id, self->session_id) == 0)
    reload (self);
}

static void
natter_queue_view_dispose (GObject *object)
{
  NatterQueueView *self = NATTER_QUEUE_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  if (self->sessions != NULL)
    g_signal_handlers_disconnect_by_data (self->sessions, self);
  g_clear_object (&self->sessions);
  self->list = NULL;
  g_clear_pointer (&self->scroller, gtk_widget_unparent);
  G_OBJECT_CLASS (natter_queue_view_parent_class)->dispose (object);
}

static void
natter_queue_view_finalize (GObject *object)
{
  NatterQueueView *self = NATTER_QUEUE_VIEW (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->queue_ids, g_ptr_array_unref);
  g_free (self->session_id);
  G_OBJECT_CLASS (natter_queue_view_parent_class)->finalize (object);
}

static void
natter_queue_view_class_init (NatterQueueViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_queue_view_dispose;
  object_class->finalize = natter_queue_view_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "natter-queue-view");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_queue_view_init (NatterQueueView *self)
{
  self->cancellable = g_cancellable_new ();
  self->queue_ids = g_ptr_array_new_with_free_func (g_free);
  self->list = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (self->list, 12);
  gtk_widget_set_margin_end (self->list, 12);
  gtk_widget_set_margin_top (self->list, 6);
  gtk_widget_set_margin_bottom (self->list, 6);
  /* As tall as the bubbles up to QUEUE_MAX_HEIGHT, then scrolling. */
  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (self->scroller), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (self->scroller), QUEUE_MAX_HEIGHT);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), self->list);
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Queued messages"), -1);
}

/**
 * natter_queue_view_set_session:
 * @self: the view
 * @sessions: (nullable): the session service
 * @session_id: (nullable): the open conversation, or %NULL for none
 *
 * Shows @session_id's queued messages, and follows them through
 * #NatterSessions::session-index-changed until another session is set.
 */
void
natter_queue_view_set_session (NatterQueueView *self,
                               NatterSessions  *sessions,
                               const char      *session_id)
{
  g_return_if_fail (NATTER_IS_QUEUE_VIEW (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  if (self->sessions != NULL)
    g_signal_handlers_disconnect_by_data (self->sessions, self);
  g_set_object (&self->sessions, sessions);
  g_free (self->session_id);
  self->session_id = g_strdup (session_id);
  clear_bubbles (self);
  if (sessions != NULL)
    g_signal_connect (sessions, "session-index-changed", G_CALLBACK (session_changed_cb), self);
  reload (self);
}

/**
 * natter_queue_view_get_n_queued:
 * @self: the view
 *
 * Returns: how many queued messages the view shows
 */
guint
natter_queue_view_get_n_queued (NatterQueueView *self)
{
  g_return_val_if_fail (NATTER_IS_QUEUE_VIEW (self), 0);
  return self->queue_ids->len;
}

/**
 * natter_queue_view_dup_queue_ids:
 * @self: the view
 *
 * Returns: (transfer full): the ids of the messages shown, oldest first
 */
GStrv
natter_queue_view_dup_queue_ids (NatterQueueView *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (NATTER_IS_QUEUE_VIEW (self), NULL);

  for (guint i = 0; i < self->queue_ids->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (self->queue_ids, i));
  return g_strv_builder_end (builder);
}
