/* natter-queued-message.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One message waiting in a conversation's queue, as the queue view shows
 * it: a bubble with the message's words, plainly, its files as chips
 * (as the composer showed them), and what it waits for, with
 * Edit and Remove under it — or, read only, without them, when the
 * queue is not this device's to change (its caption says why). The
 * bubble only says what the person asked for, through ::edit and
 * ::remove; the queue view acts on it. Its widgets are declared in
 * natter-queued-message.ui.
 */

#define G_LOG_DOMAIN "natter-queue-view"

#include "config.h"

#include "natter-accessible.h"
#include "natter-attachment-chip.h"
#include "natter-blob-store.h"
#include "natter-queued-message.h"
#include "natter-visible-label.h"

struct _NatterQueuedMessage
{
  GtkBox      parent_instance;

  char       *queue_id;
  char       *text;
  JsonObject *message;

  /* Template widgets */
  GtkLabel   *text_label;
  GtkWidget  *attachments_box;
  GtkLabel   *state_label;
  GtkWidget  *edit_button;
  GtkWidget  *remove_button;
};

G_DEFINE_FINAL_TYPE (NatterQueuedMessage, natter_queued_message, GTK_TYPE_BOX)

enum {
  SIGNAL_EDIT,
  SIGNAL_REMOVE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
edit_clicked_cb (NatterQueuedMessage *self)
{
  g_signal_emit (self, signals[SIGNAL_EDIT], 0);
}

/* Once: the message is on its way out of the queue. */
static void
remove_clicked_cb (NatterQueuedMessage *self)
{
  gtk_widget_set_sensitive (self->remove_button, FALSE);
  g_signal_emit (self, signals[SIGNAL_REMOVE], 0);
}

static void
natter_queued_message_finalize (GObject *object)
{
  NatterQueuedMessage *self = NATTER_QUEUED_MESSAGE (object);

  g_free (self->queue_id);
  g_free (self->text);
  g_clear_pointer (&self->message, json_object_unref);
  G_OBJECT_CLASS (natter_queued_message_parent_class)->finalize (object);
}

static void
natter_queued_message_class_init (NatterQueuedMessageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = natter_queued_message_finalize;

  /**
   * NatterQueuedMessage::edit:
   *
   * The person asked to edit the message.
   */
  signals[SIGNAL_EDIT] = g_signal_new ("edit", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 0);
  /**
   * NatterQueuedMessage::remove:
   *
   * The person asked to take the message out of the queue.
   */
  signals[SIGNAL_REMOVE] = g_signal_new ("remove", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                         NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-queued-message.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterQueuedMessage, text_label);
  gtk_widget_class_bind_template_child (widget_class, NatterQueuedMessage, attachments_box);
  gtk_widget_class_bind_template_child (widget_class, NatterQueuedMessage, state_label);
  gtk_widget_class_bind_template_child (widget_class, NatterQueuedMessage, edit_button);
  gtk_widget_class_bind_template_child (widget_class, NatterQueuedMessage, remove_button);
  gtk_widget_class_bind_template_callback (widget_class, edit_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, remove_clicked_cb);
}

static void
natter_queued_message_init (NatterQueuedMessage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  natter_accessible_plain_mnemonics (GTK_WIDGET (self));
}

/* A chip for each stored file, read only: the files go with the message
 * whatever is edited. */
static void
show_attachments (NatterQueuedMessage *self)
{
  g_autoptr(GPtrArray) parts = natter_message_dup_blob_parts (self->message);

  for (guint i = 0; i < parts->len; i++)
    {
      JsonObject *part = g_ptr_array_index (parts, i);

      gtk_box_append (GTK_BOX (self->attachments_box),
                      natter_attachment_chip_new (json_object_get_string_member_with_default (part, "name", ""),
                                                  json_object_get_string_member_with_default (part, "mediaType",
                                                                                              NULL),
                                                  json_object_get_int_member_with_default (part, "size", -1),
                                                  NULL, FALSE));
    }
  gtk_widget_set_visible (self->attachments_box, parts->len > 0);
}

/**
 * natter_queued_message_new:
 * @queue_id: the message's `queueId`
 * @message: (transfer none): the queued user message (docs/format.md §4.1)
 * @caption: what it waits for
 *
 * Returns: (transfer floating): the bubble
 */
GtkWidget *
natter_queued_message_new (const char *queue_id,
                           JsonObject *message,
                           const char *caption)
{
  NatterQueuedMessage *self = g_object_new (NATTER_TYPE_QUEUED_MESSAGE, NULL);

  self->queue_id = g_strdup (queue_id);
  self->message = json_object_ref (message);
  self->text = natter_user_message_dup_words (message);
  /* A long message shows its beginning; Edit shows the whole. */
  natter_label_set_visible_preview (self->text_label, self->text);
  gtk_widget_set_visible (GTK_WIDGET (self->text_label), self->text[0] != '\0');
  show_attachments (self);
  gtk_label_set_text (self->state_label, caption);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  gtk_label_get_text (self->text_label), -1);
  return GTK_WIDGET (self);
}

/**
 * natter_queued_message_get_message:
 * @self: the bubble
 *
 * Returns: (transfer none): the queued user message, words and files
 */
JsonObject *
natter_queued_message_get_message (NatterQueuedMessage *self)
{
  return self->message;
}

/**
 * natter_queued_message_get_queue_id:
 * @self: the bubble
 *
 * Returns: (transfer none): the message's `queueId`
 */
const char *
natter_queued_message_get_queue_id (NatterQueuedMessage *self)
{
  return self->queue_id;
}

/**
 * natter_queued_message_get_text:
 * @self: the bubble
 *
 * Returns: (transfer none): the message's words as shown, without its
 *   files
 */
const char *
natter_queued_message_get_text (NatterQueuedMessage *self)
{
  return self->text;
}

/**
 * natter_queued_message_get_caption:
 * @self: the bubble
 *
 * Returns: (transfer none): what the message waits for, as shown
 */
const char *
natter_queued_message_get_caption (NatterQueuedMessage *self)
{
  return gtk_label_get_text (self->state_label);
}

/**
 * natter_queued_message_set_read_only:
 * @self: the bubble
 * @read_only: whether the message cannot be changed here
 *
 * A read-only bubble shows the message and its caption without Edit
 * and Remove: the queue behind a turn another device runs is that
 * device's (docs/format.md §4.5), and the caption says so.
 */
void
natter_queued_message_set_read_only (NatterQueuedMessage *self,
                                     gboolean             read_only)
{
  gtk_widget_set_visible (self->edit_button, !read_only);
  gtk_widget_set_visible (self->remove_button, !read_only);
}

/**
 * natter_queued_message_get_read_only:
 * @self: the bubble
 *
 * Returns: whether Edit and Remove are hidden
 */
gboolean
natter_queued_message_get_read_only (NatterQueuedMessage *self)
{
  return !gtk_widget_get_visible (self->edit_button);
}
