/* natter-queue-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The messages queued in the open conversation (docs/sessions.md
 * §4), shown under the running turn as pending bubbles, each with Edit
 * and Remove — or read only, saying why, behind a turn another device
 * runs, whose queue is that device's (docs/format.md §4.5). Read from
 * the session file, and again whenever the session changes: queueing,
 * an edit, a removal and a promotion all do.
 */

#define G_LOG_DOMAIN "natter-queue-view"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-blob-store.h"
#include "natter-queue-view.h"
#include "natter-session-grants-queue.h"
#include "natter-queued-message.h"
#include "natter-sessions-queue.h"

struct _NatterQueueView
{
  GtkWidget       parent_instance;

  NatterSessions *sessions;
  char           *session_id;
  GCancellable   *cancellable;
  GPtrArray      *queue_ids;   /* shown, oldest first */

  /* Template widgets */
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
remove_cb (NatterQueuedMessage *bubble,
           NatterQueueView     *self)
{
  natter_sessions_remove_queued_message_async (self->sessions, self->session_id,
                                               natter_queued_message_get_queue_id (bubble),
                                               self->cancellable, changed_cb, g_object_ref (self));
}

static void
edit_response_cb (AdwMessageDialog *dialog,
                  const char       *response,
                  NatterQueueView  *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (g_object_get_data (G_OBJECT (dialog), "natter-text-view"));
  JsonObject *message = g_object_get_data (G_OBJECT (dialog), "natter-message");
  g_autoptr(GPtrArray) files = natter_message_dup_blob_parts (message);
  GtkTextIter start, end;
  g_autofree char *text = NULL;
  g_autofree char *stripped = NULL;
  g_autoptr(JsonObject) input = NULL;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  stripped = g_strstrip (g_strdup (text));
  /* Without words a message is still one when files go with it, as the
   * composer sends it. */
  if (g_strcmp0 (response, "save") != 0 || (stripped[0] == '\0' && files->len == 0) || self->sessions == NULL)
    return;
  /* Only the words change: the files stay as they were queued. */
  input = natter_user_message_with_words (message, stripped[0] != '\0' ? text : "");
  natter_sessions_replace_queued_message_async (self->sessions, self->session_id,
                                                g_object_get_data (G_OBJECT (dialog), "queue-id"), input,
                                                self->cancellable, changed_cb, g_object_ref (self));
}

/* The dialog's body when files go with the message: it says that they
 * stay. NULL without files: the dialog's own body says enough. */
static char *
edit_body (JsonObject *message)
{
  g_autoptr(GPtrArray) files = natter_message_dup_blob_parts (message);

  if (files->len == 0)
    return NULL;
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "It is sent when the answer before it is complete, with the file "
                                       "attached to it.",
                                       "It is sent when the answer before it is complete, with the %u files "
                                       "attached to it.", files->len), files->len);
}

static void
edit_cb (NatterQueuedMessage *bubble,
         NatterQueueView     *self)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/natter/Natter/ui/natter-queue-edit-dialog.ui");
  GtkWidget *dialog = GTK_WIDGET (gtk_builder_get_object (builder, "dialog"));
  GtkWidget *view = GTK_WIDGET (gtk_builder_get_object (builder, "text_view"));
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  JsonObject *message = natter_queued_message_get_message (bubble);
  g_autofree char *body = edit_body (message);

  gtk_window_set_transient_for (GTK_WINDOW (dialog), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL);
  if (body != NULL)
    adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (dialog), body);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), natter_queued_message_get_text (bubble),
                            -1);
  g_object_set_data (G_OBJECT (dialog), "natter-text-view", view);
  g_object_set_data_full (G_OBJECT (dialog), "natter-message", json_object_ref (message),
                          (GDestroyNotify) json_object_unref);
  g_object_set_data_full (G_OBJECT (dialog), "queue-id", g_strdup (natter_queued_message_get_queue_id (bubble)),
                          g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (edit_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (view);
}

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

/* The caption of a queue behind a turn another device runs
 * (docs/format.md §4.5): that device sends the messages as its answer
 * ends, and the session layer refuses every change of them here. */
static char *
elsewhere_caption (NatterSessionIndexEntry *entry)
{
  const char *name = natter_session_index_entry_get_latest_turn_device_name (entry);

  if (name == NULL || name[0] == '\0')
    name = natter_session_index_entry_get_latest_turn_device_id (entry);
  /* Translators: %s is the name of another computer the answer is written on */
  return g_strdup_printf (_("The answer is being written on another device (“%s”); that device sends this message "
                            "when it ends, and it cannot be changed here."), name);
}

/* One pending message: a bubble (the words, plainly, its files, and "Queued")
 * with Edit and Remove under it; read only, with @elsewhere as its
 * caption, when the queue is another device's. */
static GtkWidget *
bubble_new (NatterQueueView                  *self,
            const NatterSessionQueuedMessage *queued,
            const char                       *latest_status,
            const char                       *elsewhere)
{
  GtkWidget *bubble = natter_queued_message_new (queued->queue_id, queued->message,
                                                 elsewhere != NULL ? elsewhere : caption_for_status (latest_status));

  natter_queued_message_set_read_only (NATTER_QUEUED_MESSAGE (bubble), elsewhere != NULL);
  g_signal_connect (bubble, "edit", G_CALLBACK (edit_cb), self);
  g_signal_connect (bubble, "remove", G_CALLBACK (remove_cb), self);
  return bubble;
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
  g_autofree char *elsewhere = NULL;

  state = natter_sessions_get_session_finish (NATTER_SESSIONS (source), result, &error);
  /* Another conversation was opened meanwhile. */
  if (state == NULL || g_strcmp0 (natter_session_state_get_session_id (state), self->session_id) != 0)
    return;
  clear_bubbles (self);
  entry = natter_session_index_lookup (natter_sessions_list_sessions (self->sessions), self->session_id);
  if (entry != NULL)
    latest_status = natter_session_index_entry_get_latest_turn_status (entry);
  /* A turn not running here and not ended, that names another device,
   * runs there. */
  if (entry != NULL && g_strcmp0 (latest_status, "idle") == 0 &&
      !natter_sessions_is_turn_running (self->sessions, natter_session_index_entry_get_latest_turn_id (entry)) &&
      natter_sessions_is_turn_elsewhere (self->sessions, entry))
    elsewhere = elsewhere_caption (entry);
  for (guint i = 0; i < natter_session_state_get_n_queued (state); i++)
    {
      const NatterSessionQueuedMessage *queued = natter_session_state_get_queued (state, i);

      g_ptr_array_add (self->queue_ids, g_strdup (queued->queue_id));
      gtk_box_append (GTK_BOX (self->list), bubble_new (self, queued, latest_status, elsewhere));
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
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_QUEUE_VIEW);
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

static GtkSizeRequestMode
natter_queue_view_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

/* As tall as the bubbles are at the width given, up to QUEUE_MAX_HEIGHT.
 * The scrolled window cannot say so itself: GTK 4.8 measures its child's
 * natural height for no width at all, which at 360 px is lines short of
 * a wrapped caption, and the rest hid in a scroll nothing pointed at. */
static void
natter_queue_view_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  NatterQueueView *self = NATTER_QUEUE_VIEW (widget);

  gtk_widget_measure (self->scroller, orientation, for_size, minimum, natural, NULL, NULL);
  if (orientation == GTK_ORIENTATION_VERTICAL && for_size >= 0)
    {
      int list_natural = 0;

      gtk_widget_measure (self->list, GTK_ORIENTATION_VERTICAL, for_size, NULL, &list_natural, NULL, NULL);
      *natural = MAX (*minimum, MIN (list_natural, QUEUE_MAX_HEIGHT));
    }
}

static void
natter_queue_view_size_allocate (GtkWidget *widget,
                                 int        width,
                                 int        height,
                                 int        baseline)
{
  NatterQueueView *self = NATTER_QUEUE_VIEW (widget);

  gtk_widget_allocate (self->scroller, width, height, baseline, NULL);
}

static void
natter_queue_view_class_init (NatterQueueViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_queue_view_dispose;
  object_class->finalize = natter_queue_view_finalize;
  widget_class->get_request_mode = natter_queue_view_get_request_mode;
  widget_class->measure = natter_queue_view_measure;
  widget_class->size_allocate = natter_queue_view_size_allocate;
  gtk_widget_class_set_css_name (widget_class, "natter-queue-view");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-queue-view.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterQueueView, scroller);
  gtk_widget_class_bind_template_child (widget_class, NatterQueueView, list);
}

static void
natter_queue_view_init (NatterQueueView *self)
{
  self->cancellable = g_cancellable_new ();
  self->queue_ids = g_ptr_array_new_with_free_func (g_free);
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (self->scroller), QUEUE_MAX_HEIGHT);
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
