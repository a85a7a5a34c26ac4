/* natter-composer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The message entry: multi-line, Enter sends and Shift+Enter starts a
 * new line; Send becomes Stop while the turn runs; when the
 * latest turn is suspended or idle, sending is refused before the user
 * tries, with the reason shown — the spec's TurnNotSettledError
 * (docs/sessions.md §9.1 step 2) surfaced ahead of time. Beside
 * Send sits the agent chooser (hidden until it has a store); Tab goes
 * from the text to it, then to Send.
 */

#define G_LOG_DOMAIN "natter-composer"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-agent-chooser.h"
#include "natter-attachment-chip.h"
#include "natter-attachment-intake.h"
#include "natter-composer.h"
#include "natter-plain-text.h"

struct _NatterComposer
{
  GtkWidget           parent_instance;

  gboolean            running;
  char               *blocked_reason;
  char               *note;
  gboolean            can_attach;
  guint64             attachment_limit;  /* bytes; 0: not checked here */
  GPtrArray          *attachments;   /* Pending, in the order added */
  GtkNativeDialog    *chooser;       /* while the file chooser shows */

  /* Template children */
  GtkLabel           *reason_label;
  GtkLabel           *placeholder_label;
  GtkTextView        *text_view;
  GtkTextBuffer      *buffer;
  NatterAgentChooser *agent_chooser;
  GtkButton          *send_button;
  GtkButton          *attach_button;
  GtkFlowBox         *attachments_box;
  GtkButton          *dictate_button;
  GtkWidget          *dictation_box;
  GtkLevelBar        *level_bar;
  GtkLabel           *dictation_label;

  NatterComposerDictation dictation;
  char               *dictation_hint;  /* why dictation cannot start, or NULL */
  GtkTextMark        *dictation_mark;  /* where the words go */
};

/* An attachment of the message being written. */
typedef struct
{
  NatterAttachmentSource *source;
  GtkWidget              *chip;     /* NULL until its file is looked at */
  GCancellable           *check;    /* while it is checked */
  guint64                 size;     /* once checked, in bytes */
} Pending;

static void
pending_free (Pending *pending)
{
  g_cancellable_cancel (pending->check);
  g_clear_object (&pending->check);
  natter_attachment_source_unref (pending->source);
  g_free (pending);
}

G_DEFINE_FINAL_TYPE (NatterComposer, natter_composer, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_RUNNING,
  PROP_BLOCKED_REASON,
  N_PROPS
};

enum
{
  SEND,
  STOP,
  ATTACHMENT_REFUSED,
  TEXT_CHANGED,
  ATTACHMENTS_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
text_changed_cb (NatterComposer *self)
{
  g_signal_emit (self, signals[TEXT_CHANGED], 0);
}

static gboolean
buffer_is_blank (NatterComposer *self)
{
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (self->buffer, &start, &end);
  text = gtk_text_buffer_get_text (self->buffer, &start, &end, FALSE);
  return natter_text_is_blank (text);
}

static void
update_button (NatterComposer *self)
{
  const char *label;

  if (self->running)
    {
      gtk_button_set_icon_name (self->send_button, "media-playback-stop-symbolic");
      label = _("Stop");
      gtk_widget_remove_css_class (GTK_WIDGET (self->send_button), "suggested-action");
      gtk_widget_add_css_class (GTK_WIDGET (self->send_button), "destructive-action");
      gtk_widget_set_sensitive (GTK_WIDGET (self->send_button), TRUE);
    }
  else
    {
      gboolean can_send = self->blocked_reason == NULL &&
                          (!buffer_is_blank (self) || self->attachments->len > 0);

      gtk_button_set_icon_name (self->send_button, "go-up-symbolic");
      label = _("Send");
      gtk_widget_remove_css_class (GTK_WIDGET (self->send_button), "destructive-action");
      /* Only a button that sends is coloured: an insensitive accent
       * button still reads as the thing to press. */
      if (can_send)
        gtk_widget_add_css_class (GTK_WIDGET (self->send_button), "suggested-action");
      else
        gtk_widget_remove_css_class (GTK_WIDGET (self->send_button), "suggested-action");
      gtk_widget_set_sensitive (GTK_WIDGET (self->send_button), can_send);
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->send_button), label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->send_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  /* Why sending is refused, else what a message here does. */
  gtk_label_set_text (self->reason_label, self->blocked_reason != NULL ? self->blocked_reason
                                          : self->note != NULL ? self->note : "");
  gtk_widget_set_visible (GTK_WIDGET (self->reason_label),
                          (self->blocked_reason != NULL || self->note != NULL) && !self->running);
}

/* GtkTextView has no placeholder: a label over the empty field says
 * who the message goes to, and follows the agent chooser. */
static void
update_placeholder (NatterComposer *self)
{
  const char *name = natter_agent_chooser_get_agent_name (self->agent_chooser,
                                                          natter_agent_chooser_get_agent_id (self->agent_chooser));
  g_autofree char *text = NULL;

  /* Translators: the empty message field's placeholder; %s is an agent's
   * name, e.g. "Assistant" */
  text = g_strdup_printf (_("Message %s"), name);
  gtk_label_set_text (self->placeholder_label, text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->text_view),
                                  GTK_ACCESSIBLE_PROPERTY_PLACEHOLDER, text, -1);
  gtk_widget_set_visible (GTK_WIDGET (self->placeholder_label), natter_composer_is_empty (self));
}

/**
 * natter_composer_send:
 * @self: a composer
 *
 * What Enter and the Send button do: emits #NatterComposer::send with the
 * text unless it is blank or sending is blocked. While a turn runs the
 * button is Stop, but Enter still sends: the window queues the message
 * to go after the running answer.
 *
 * Returns: whether ::send was emitted
 */
gboolean
natter_composer_send (NatterComposer *self)
{
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  g_return_val_if_fail (NATTER_IS_COMPOSER (self), FALSE);

  /* Attachments alone are a message too; while an answer runs, a
   * message is queued. */
  if (self->blocked_reason != NULL || (buffer_is_blank (self) && self->attachments->len == 0))
    return FALSE;
  gtk_text_buffer_get_bounds (self->buffer, &start, &end);
  text = gtk_text_buffer_get_text (self->buffer, &start, &end, FALSE);
  g_signal_emit (self, signals[SEND], 0, text);
  return TRUE;
}

static void
button_clicked_cb (NatterComposer *self)
{
  if (self->running)
    g_signal_emit (self, signals[STOP], 0);
  else
    natter_composer_send (self);
}

static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                NatterComposer        *self)
{
  if (keyval != GDK_KEY_Return && keyval != GDK_KEY_KP_Enter && keyval != GDK_KEY_ISO_Enter)
    return GDK_EVENT_PROPAGATE;
  /* Shift+Enter (and Ctrl+Enter) insert a newline the usual way. */
  if (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK))
    return GDK_EVENT_PROPAGATE;
  natter_composer_send (self);
  /* Enter never inserts a newline, even when sending is refused. */
  return GDK_EVENT_STOP;
}

/* Attachments */

/* The files waiting changed (added, removed, taken): their chips show,
 * and whoever keeps the draft keeps it again. */
static void
update_attachments (NatterComposer *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->attachments_box), self->attachments->len > 0);
  update_button (self);
  g_signal_emit (self, signals[ATTACHMENTS_CHANGED], 0);
}

/* Takes @pending out of the message being written, with its chip. */
static void
remove_pending (NatterComposer *self,
                Pending        *pending)
{
  if (pending->chip != NULL)
    gtk_flow_box_remove (self->attachments_box, gtk_widget_get_parent (pending->chip));
  g_ptr_array_remove (self->attachments, pending);
  update_attachments (self);
}

typedef struct
{
  NatterComposer *self;
  Pending        *pending;   /* valid while its check is not cancelled */
} Check;

static void
checked_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Check *check = user_data;
  g_autoptr(NatterComposer) self = check->self;
  Pending *pending = check->pending;
  g_autoptr(GError) error = NULL;
  guint64 size = 0;
  guint64 total = 0;

  g_free (check);
  if (!natter_attachment_source_check_finish (result, &size, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&pending->check);
  if (error == NULL)
    {
      pending->size = size;
      for (guint i = 0; i < self->attachments->len; i++)
        {
          Pending *other = g_ptr_array_index (self->attachments, i);

          if (other->check == NULL)
            total += other->size;
        }
      /* Each file may be within the limit and all of them not: the one
       * that goes over it is refused now, not the message at send. */
      if (total > self->attachment_limit)
        {
          g_autofree char *whole = g_format_size (total);
          g_autofree char *limit = g_format_size (self->attachment_limit);
          GFile *file = natter_attachment_source_get_file (pending->source);
          g_autofree char *name = file != NULL ? g_file_get_basename (file)
                                               : g_strdup (natter_attachment_source_get_name (pending->source));

          error = g_error_new (NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_TOO_LARGE,
                               /* Translators: a file name, then two sizes, e.g. "20.3 MB" */
                               _("“%s” was not attached: with it, the message’s attachments would weigh %s, "
                                 "more than the %s one message may carry."),
                               name, whole, limit);
        }
    }
  if (error == NULL)
    return;
  /* Refused now, said now: never stored, never dropped silently at send. */
  remove_pending (self, pending);
  g_signal_emit (self, signals[ATTACHMENT_REFUSED], 0, error->message);
}

/* Checks @pending's file as it is attached (its type from its bytes, its
 * size, whether it reads), when the composer knows the limit. */
static void
check_pending (NatterComposer *self,
               Pending        *pending)
{
  Check *check;

  if (self->attachment_limit == 0)
    return;
  check = g_new0 (Check, 1);
  check->self = g_object_ref (self);
  check->pending = pending;
  pending->check = g_cancellable_new ();
  natter_attachment_source_check_async (pending->source, self->attachment_limit, pending->check, checked_cb, check);
}

/* A chip's Remove button had the focus: with the chip gone, GTK would
 * hand it to the next stop, the attach button, where the Space meant
 * for the message opens the file chooser. The message keeps it. */
static void
chip_remove_cb (NatterAttachmentChip *chip,
                NatterComposer       *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  gboolean had_focus = focus != NULL && (focus == GTK_WIDGET (chip) || gtk_widget_is_ancestor (focus, GTK_WIDGET (chip)));

  for (guint i = 0; i < self->attachments->len; i++)
    {
      Pending *pending = g_ptr_array_index (self->attachments, i);

      if (pending->chip == GTK_WIDGET (chip))
        {
          remove_pending (self, pending);
          break;
        }
    }
  if (had_focus)
    gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

static void
show_chip (NatterComposer *self,
           Pending        *pending,
           GtkWidget      *chip)
{
  int position = 0;

  /* In the order the files were added, whichever was looked at first. */
  for (guint i = 0; i < self->attachments->len && g_ptr_array_index (self->attachments, i) != pending; i++)
    if (((Pending *) g_ptr_array_index (self->attachments, i))->chip != NULL)
      position++;
  pending->chip = chip;
  g_signal_connect (chip, "remove", G_CALLBACK (chip_remove_cb), self);
  gtk_flow_box_insert (self->attachments_box, chip, position);
  update_attachments (self);
}

static void
file_info_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(NatterComposer) self = user_data;
  g_autoptr(GFileInfo) info = g_file_query_info_finish (G_FILE (object), result, NULL);
  g_autofree char *basename = g_file_get_basename (G_FILE (object));
  g_autofree char *media_type = NULL;
  Pending *pending = NULL;

  for (guint i = 0; i < self->attachments->len; i++)
    {
      Pending *candidate = g_ptr_array_index (self->attachments, i);

      if (candidate->chip == NULL && natter_attachment_source_get_file (candidate->source) == G_FILE (object))
        pending = candidate;
    }
  /* Removed meanwhile (cleared by a send, or the composer went away). */
  if (pending == NULL || gtk_widget_get_root (GTK_WIDGET (self)) == NULL)
    return;
  if (info != NULL && g_file_info_get_content_type (info) != NULL)
    media_type = g_content_type_get_mime_type (g_file_info_get_content_type (info));
  /* What the file is and how big it is are checked again when it is
   * read at sending; this is only for the eye. */
  show_chip (self, pending,
             natter_attachment_chip_new (info != NULL ? g_file_info_get_display_name (info) : basename, media_type,
                                         info != NULL ? g_file_info_get_size (info) : -1, NULL, TRUE));
}

/**
 * natter_composer_add_file:
 * @self: a composer
 * @file: a file the user chose, dropped or pasted
 *
 * Adds @file to the attachments of the message being written; its chip
 * shows once its name, type and size are known (asked asynchronously).
 */
void
natter_composer_add_file (NatterComposer *self,
                          GFile          *file)
{
  Pending *pending;

  g_return_if_fail (NATTER_IS_COMPOSER (self));
  g_return_if_fail (G_IS_FILE (file));

  pending = g_new0 (Pending, 1);
  pending->source = natter_attachment_source_new_for_file (file);
  g_ptr_array_add (self->attachments, pending);
  check_pending (self, pending);
  update_attachments (self);
  g_file_query_info_async (natter_attachment_source_get_file (pending->source),
                           G_FILE_ATTRIBUTE_STANDARD_DISPLAY_NAME "," G_FILE_ATTRIBUTE_STANDARD_SIZE ","
                           G_FILE_ATTRIBUTE_STANDARD_CONTENT_TYPE,
                           G_FILE_QUERY_INFO_NONE, G_PRIORITY_DEFAULT, NULL, file_info_cb, g_object_ref (self));
}

static void
add_bytes_source (NatterComposer         *self,
                  NatterAttachmentSource *source,
                  GdkPaintable           *thumbnail)
{
  Pending *pending = g_new0 (Pending, 1);

  pending->source = natter_attachment_source_ref (source);
  g_ptr_array_add (self->attachments, pending);
  check_pending (self, pending);
  show_chip (self, pending,
             natter_attachment_chip_new (natter_attachment_source_get_name (source),
                                         natter_attachment_source_get_media_type (source),
                                         (gint64) g_bytes_get_size (natter_attachment_source_get_bytes (source)),
                                         thumbnail, TRUE));
}

/**
 * natter_composer_add_texture:
 * @self: a composer
 * @texture: a pasted image
 *
 * Adds @texture, encoded as PNG, to the attachments of the message being
 * written, with a thumbnail of it.
 */
void
natter_composer_add_texture (NatterComposer *self,
                             GdkTexture     *texture)
{
  g_autoptr(GBytes) png = NULL;
  g_autoptr(NatterAttachmentSource) source = NULL;

  g_return_if_fail (NATTER_IS_COMPOSER (self));
  g_return_if_fail (GDK_IS_TEXTURE (texture));

  png = gdk_texture_save_to_png_bytes (texture);
  /* Translators: the file name of an image pasted into a message */
  source = natter_attachment_source_new_for_bytes (png, _("Pasted image.png"), "image/png");
  add_bytes_source (self, source, GDK_PAINTABLE (texture));
}

/**
 * natter_composer_set_attachment_limit:
 * @self: a composer
 * @limit: the most one message's attachments may weigh together, in
 *   bytes (the `attachment-size-limit` setting); 0 checks nothing here
 *
 * With a limit, every file is checked as it is attached — whether it
 * reads, whether a model reads its type (decided from its bytes), its
 * size alone and with the others — and one that cannot be sent is
 * refused then (#NatterComposer::attachment-refused), not at send.
 */
void
natter_composer_set_attachment_limit (NatterComposer *self,
                                      guint64         limit)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));
  self->attachment_limit = limit;
}

/**
 * natter_composer_get_n_attachments:
 * @self: a composer
 *
 * Returns: how many attachments the message being written has
 */
guint
natter_composer_get_n_attachments (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), 0);
  return self->attachments->len;
}

/**
 * natter_composer_take_attachments:
 * @self: a composer
 *
 * Empties the attachments of the message being written and returns
 * them, for sending.
 *
 * Returns: (transfer full) (element-type NatterAttachmentSource): the
 *   attachments, in order
 */
GPtrArray *
natter_composer_take_attachments (NatterComposer *self)
{
  GPtrArray *sources;
  GtkWidget *child;

  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);

  sources = natter_composer_dup_attachments (self);
  g_ptr_array_set_size (self->attachments, 0);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->attachments_box))) != NULL)
    gtk_flow_box_remove (self->attachments_box, child);
  update_attachments (self);
  return sources;
}

/**
 * natter_composer_dup_attachments:
 * @self: a composer
 *
 * The attachments of the message being written, left where they are (to
 * be kept with its draft).
 *
 * Returns: (transfer full) (element-type NatterAttachmentSource): the
 *   attachments, in order
 */
GPtrArray *
natter_composer_dup_attachments (NatterComposer *self)
{
  GPtrArray *sources;

  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);

  sources = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);
  for (guint i = 0; i < self->attachments->len; i++)
    g_ptr_array_add (sources, natter_attachment_source_ref (((Pending *) g_ptr_array_index (self->attachments, i))->source));
  return sources;
}

/**
 * natter_composer_restore_attachments:
 * @self: a composer
 * @sources: (element-type NatterAttachmentSource): what
 *   natter_composer_take_attachments() returned
 *
 * Puts the attachments of a message that could not be sent back, so
 * nothing the user attached is lost.
 */
void
natter_composer_restore_attachments (NatterComposer *self,
                                     GPtrArray      *sources)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));

  for (guint i = 0; i < sources->len; i++)
    {
      NatterAttachmentSource *source = g_ptr_array_index (sources, i);

      if (natter_attachment_source_get_file (source) != NULL)
        natter_composer_add_file (self, natter_attachment_source_get_file (source));
      else
        add_bytes_source (self, source, NULL);
    }
}

/* The drop highlight: the widget files are dropped on shows where they
 * go while they are over it. */
#define DROP_HIGHLIGHT "natter-drop-highlight"

static GdkDragAction
drop_enter_cb (GtkDropTarget  *target,
               double          x,
               double          y,
               NatterComposer *self)
{
  if (!self->can_attach)
    return 0;
  gtk_widget_add_css_class (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (target)), DROP_HIGHLIGHT);
  return GDK_ACTION_COPY;
}

static void
drop_leave_cb (GtkDropTarget  *target,
               NatterComposer *self)
{
  gtk_widget_remove_css_class (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (target)), DROP_HIGHLIGHT);
}

static gboolean
drop_cb (GtkDropTarget  *target,
         const GValue   *value,
         double          x,
         double          y,
         NatterComposer *self)
{
  GSList *files;

  drop_leave_cb (target, self);
  if (!self->can_attach || !G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  for (GSList *l = files; l != NULL; l = l->next)
    natter_composer_add_file (self, l->data);
  g_slist_free (files);
  return files != NULL;
}

/**
 * natter_composer_add_drop_target:
 * @self: a composer
 * @widget: where files may be dropped, e.g. the whole conversation
 *
 * Files dropped on @widget, the composer's text field included, become
 * attachments of the message being written (when attaching is on,
 * natter_composer_set_can_attach()), and @widget is highlighted while
 * they are over it. The target sees drops in the capture phase, before
 * the text field, which would otherwise insert the files' paths as text.
 */
void
natter_composer_add_drop_target (NatterComposer *self,
                                 GtkWidget      *widget)
{
  GtkDropTarget *target;

  g_return_if_fail (NATTER_IS_COMPOSER (self));

  target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (target), GTK_PHASE_CAPTURE);
  g_signal_connect (target, "enter", G_CALLBACK (drop_enter_cb), self);
  g_signal_connect (target, "leave", G_CALLBACK (drop_leave_cb), self);
  g_signal_connect (target, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (target));
}

static void
pasted_files_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(NatterComposer) self = user_data;
  const GValue *value = gdk_clipboard_read_value_finish (GDK_CLIPBOARD (object), result, NULL);

  if (value != NULL && G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    {
      GSList *files = gdk_file_list_get_files (g_value_get_boxed (value));

      for (GSList *l = files; l != NULL; l = l->next)
        natter_composer_add_file (self, l->data);
      g_slist_free (files);
    }
}

static void
pasted_texture_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(NatterComposer) self = user_data;
  g_autoptr(GdkTexture) texture = gdk_clipboard_read_texture_finish (GDK_CLIPBOARD (object), result, NULL);

  if (texture != NULL)
    natter_composer_add_texture (self, texture);
}

/* Ctrl+V of copied files or of an image attaches them; text pastes as
 * text, as always. */
static void
paste_clipboard_cb (GtkTextView    *view,
                    NatterComposer *self)
{
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (view));
  GdkContentFormats *formats = gdk_clipboard_get_formats (clipboard);

  if (!self->can_attach)
    return;
  if (gdk_content_formats_contain_gtype (formats, GDK_TYPE_FILE_LIST))
    {
      g_signal_stop_emission_by_name (view, "paste-clipboard");
      gdk_clipboard_read_value_async (clipboard, GDK_TYPE_FILE_LIST, G_PRIORITY_DEFAULT, NULL,
                                      pasted_files_cb, g_object_ref (self));
    }
  else if (gdk_content_formats_contain_gtype (formats, GDK_TYPE_TEXTURE) &&
           !gdk_content_formats_contain_gtype (formats, G_TYPE_STRING))
    {
      g_signal_stop_emission_by_name (view, "paste-clipboard");
      gdk_clipboard_read_texture_async (clipboard, NULL, pasted_texture_cb, g_object_ref (self));
    }
}

static void
chooser_response_cb (GtkNativeDialog *chooser,
                     int              response,
                     NatterComposer  *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (chooser));

      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);

          natter_composer_add_file (self, file);
        }
    }
  gtk_native_dialog_destroy (chooser);
  g_clear_object (&self->chooser);
}

/* The file chooser goes through the portal inside Flatpak, which hands
 * the app exactly the files the user picked: no file-system permission
 * is needed. */
static void
attach_clicked_cb (NatterComposer *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *chooser;

  if (self->chooser != NULL)
    return;
  chooser = gtk_file_chooser_native_new (_("Attach Files"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Attach"), _("_Cancel"));
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (chooser), TRUE);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  self->chooser = GTK_NATIVE_DIALOG (chooser);
  g_signal_connect (chooser, "response", G_CALLBACK (chooser_response_cb), self);
  gtk_native_dialog_show (self->chooser);
}

/**
 * natter_composer_set_can_attach:
 * @self: a composer
 * @can_attach: whether messages may carry attachments (there is a blob
 *   store to keep them)
 *
 * Shows the attach button and lets dropped and pasted files in.
 */
void
natter_composer_set_can_attach (NatterComposer *self,
                                gboolean        can_attach)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));
  self->can_attach = !!can_attach;
  gtk_widget_set_visible (GTK_WIDGET (self->attach_button), self->can_attach);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "composer.attach", self->can_attach);
}

/* Ctrl+O where the message is written: the button's file chooser. */
static void
attach_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  attach_clicked_cb (NATTER_COMPOSER (widget));
}

/* The microphone button and the line above the message while
 * dictating. */
static void
update_dictation (NatterComposer *self)
{
  GtkWidget *button = GTK_WIDGET (self->dictate_button);
  gboolean recording = self->dictation == NATTER_COMPOSER_DICTATION_RECORDING;
  const char *label;
  const char *tooltip;

  switch (self->dictation)
    {
    case NATTER_COMPOSER_DICTATION_RECORDING:
      label = _("Stop Dictation");
      tooltip = label;
      gtk_button_set_icon_name (self->dictate_button, "media-playback-stop-symbolic");
      break;
    case NATTER_COMPOSER_DICTATION_TRANSCRIBING:
      label = _("Cancel Dictation");
      tooltip = label;
      gtk_button_set_icon_name (self->dictate_button, "process-stop-symbolic");
      break;
    case NATTER_COMPOSER_DICTATION_IDLE:
    default:
      label = _("Dictate");
      tooltip = self->dictation_hint != NULL ? self->dictation_hint : label;
      gtk_button_set_icon_name (self->dictate_button, "audio-input-microphone-symbolic");
      break;
    }
  /* Recording, Stop is a filled red button, as a recorder's is: a flat
   * one loses the red fill and keeps the white icon, which is then
   * invisible on a light field. */
  if (recording)
    {
      gtk_widget_remove_css_class (button, "flat");
      gtk_widget_add_css_class (button, "destructive-action");
    }
  else
    {
      gtk_widget_remove_css_class (button, "destructive-action");
      gtk_widget_add_css_class (button, "flat");
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->dictate_button), tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->dictate_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  self->dictation == NATTER_COMPOSER_DICTATION_IDLE && self->dictation_hint != NULL
                                  ? self->dictation_hint : "",
                                  -1);
  gtk_widget_set_visible (self->dictation_box, self->dictation != NATTER_COMPOSER_DICTATION_IDLE);
  gtk_widget_set_visible (GTK_WIDGET (self->level_bar), self->dictation == NATTER_COMPOSER_DICTATION_RECORDING);
  if (self->dictation == NATTER_COMPOSER_DICTATION_TRANSCRIBING)
    gtk_label_set_text (self->dictation_label, _("Making text of the recording…"));
}

/**
 * natter_composer_set_dictation:
 * @self: the composer
 * @dictation: what dictation is doing
 *
 * Shows @dictation: the microphone button becomes Stop while recording
 * and Cancel while the words are made, and a line above the message
 * shows the level and the time. Starting to record marks the cursor:
 * natter_composer_insert_dictation() puts the words there, whatever is
 * typed meanwhile, until the composer is idle again.
 */
void
natter_composer_set_dictation (NatterComposer          *self,
                               NatterComposerDictation  dictation)
{
  GtkTextIter cursor;

  g_return_if_fail (NATTER_IS_COMPOSER (self));

  if (self->dictation == NATTER_COMPOSER_DICTATION_IDLE && dictation != NATTER_COMPOSER_DICTATION_IDLE)
    {
      gtk_text_buffer_get_iter_at_mark (self->buffer, &cursor, gtk_text_buffer_get_insert (self->buffer));
      if (self->dictation_mark == NULL)
        self->dictation_mark = gtk_text_buffer_create_mark (self->buffer, NULL, &cursor, TRUE);
      else
        gtk_text_buffer_move_mark (self->buffer, self->dictation_mark, &cursor);
      natter_composer_set_dictation_progress (self, 0.0, 0);
    }
  /* The place is the dictation's: words that come later go to the
   * cursor. */
  if (dictation == NATTER_COMPOSER_DICTATION_IDLE && self->dictation_mark != NULL)
    {
      gtk_text_buffer_delete_mark (self->buffer, self->dictation_mark);
      self->dictation_mark = NULL;
    }
  self->dictation = dictation;
  update_dictation (self);
}

/**
 * natter_composer_get_dictation:
 * @self: the composer
 *
 * Returns: what dictation is doing
 */
NatterComposerDictation
natter_composer_get_dictation (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NATTER_COMPOSER_DICTATION_IDLE);
  return self->dictation;
}

/**
 * natter_composer_set_dictation_progress:
 * @self: the composer
 * @level: how loud the microphone hears, 0 to 1
 * @seconds: how long the recording has run
 */
void
natter_composer_set_dictation_progress (NatterComposer *self,
                                        double          level,
                                        guint           seconds)
{
  g_autofree char *text = NULL;

  g_return_if_fail (NATTER_IS_COMPOSER (self));

  gtk_level_bar_set_value (self->level_bar, CLAMP (level, 0.0, 1.0));
  /* Translators: shown while dictating; %u:%02u is the time recorded, minutes and seconds */
  text = g_strdup_printf (_("Recording %u:%02u"), seconds / 60, seconds % 60);
  gtk_label_set_text (self->dictation_label, text);
}

/**
 * natter_composer_set_dictation_hint:
 * @self: the composer
 * @hint: (nullable): why dictation cannot start and where to change
 *   that, or %NULL when it can
 *
 * The microphone button's tooltip (and accessible description) while
 * dictation is idle.
 */
void
natter_composer_set_dictation_hint (NatterComposer *self,
                                    const char     *hint)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));

  if (g_strcmp0 (self->dictation_hint, hint) == 0)
    return;
  g_free (self->dictation_hint);
  self->dictation_hint = g_strdup (hint);
  update_dictation (self);
}

/**
 * natter_composer_insert_dictation:
 * @self: the composer
 * @text: the words dictated
 *
 * Inserts @text where the cursor was when recording started (at the
 * cursor if no recording marked a place), with a space between it and a
 * word before or after, and leaves the cursor after it. What was typed
 * stays as it is.
 */
void
natter_composer_insert_dictation (NatterComposer *self,
                                  const char     *text)
{
  g_autoptr(GString) words = NULL;
  GtkTextIter at;
  GtkTextIter before;

  g_return_if_fail (NATTER_IS_COMPOSER (self));
  g_return_if_fail (text != NULL);

  if (text[0] == '\0')
    return;
  if (self->dictation_mark != NULL)
    gtk_text_buffer_get_iter_at_mark (self->buffer, &at, self->dictation_mark);
  else
    gtk_text_buffer_get_iter_at_mark (self->buffer, &at, gtk_text_buffer_get_insert (self->buffer));
  words = g_string_new (text);
  before = at;
  if (gtk_text_iter_backward_char (&before) && !g_unichar_isspace (gtk_text_iter_get_char (&before)))
    g_string_prepend_c (words, ' ');
  if (!gtk_text_iter_is_end (&at) && !g_unichar_isspace (gtk_text_iter_get_char (&at)))
    g_string_append_c (words, ' ');
  gtk_text_buffer_begin_user_action (self->buffer);
  gtk_text_buffer_insert (self->buffer, &at, words->str, (int) words->len);
  gtk_text_buffer_end_user_action (self->buffer);
  gtk_text_buffer_place_cursor (self->buffer, &at);
}

static void
natter_composer_dispose (GObject *object)
{
  GtkWidget *child;

  if (NATTER_COMPOSER (object)->chooser != NULL)
    gtk_native_dialog_destroy (NATTER_COMPOSER (object)->chooser);
  g_clear_object (&NATTER_COMPOSER (object)->chooser);
  gtk_widget_dispose_template (GTK_WIDGET (object), NATTER_TYPE_COMPOSER);
  /* Template children without an id are not unparented by
   * gtk_widget_dispose_template(). */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (natter_composer_parent_class)->dispose (object);
}

static void
natter_composer_finalize (GObject *object)
{
  NatterComposer *self = NATTER_COMPOSER (object);

  g_free (self->blocked_reason);
  g_free (self->note);
  g_free (self->dictation_hint);
  g_ptr_array_unref (self->attachments);

  G_OBJECT_CLASS (natter_composer_parent_class)->finalize (object);
}

static void
natter_composer_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NatterComposer *self = NATTER_COMPOSER (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;
    case PROP_BLOCKED_REASON:
      g_value_set_string (value, self->blocked_reason);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_composer_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  NatterComposer *self = NATTER_COMPOSER (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      natter_composer_set_running (self, g_value_get_boolean (value));
      break;
    case PROP_BLOCKED_REASON:
      natter_composer_set_blocked_reason (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gboolean
natter_composer_grab_focus (GtkWidget *widget)
{
  return gtk_widget_grab_focus (GTK_WIDGET (NATTER_COMPOSER (widget)->text_view));
}

/* Tab goes through the composer as it reads, left to right: the chips of
 * the attachments, the attach button, the message, the agent chooser,
 * Send, then the microphone at the field's end (which, like an entry's
 * icon, comes after what the row is for). GTK's own order goes by the children's middles from the top, and
 * the buttons sit at the bottom of a message that is taller than they
 * are, so it would put them all after the message. */
static gboolean
natter_composer_focus (GtkWidget        *widget,
                       GtkDirectionType  direction)
{
  NatterComposer *self = NATTER_COMPOSER (widget);
  GtkWidget *stops[] = {
    GTK_WIDGET (self->attachments_box), GTK_WIDGET (self->attach_button), GTK_WIDGET (self->text_view),
    GTK_WIDGET (self->agent_chooser), GTK_WIDGET (self->send_button), GTK_WIDGET (self->dictate_button),
  };
  int n = G_N_ELEMENTS (stops);
  int step = direction == GTK_DIR_TAB_FORWARD ? 1 : -1;
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  int current = -1;

  if (direction != GTK_DIR_TAB_FORWARD && direction != GTK_DIR_TAB_BACKWARD)
    return GTK_WIDGET_CLASS (natter_composer_parent_class)->focus (widget, direction);

  for (int i = 0; i < n && focus != NULL; i++)
    if (focus == stops[i] || gtk_widget_is_ancestor (focus, stops[i]))
      current = i;
  /* Within a stop first (from chip to chip), then on to the next. The
   * message has no children to walk: its text view lets Tab go. */
  if (current >= 0 && gtk_widget_child_focus (stops[current], direction))
    return TRUE;
  for (int i = current >= 0 ? current + step : (step > 0 ? 0 : n - 1); i >= 0 && i < n; i += step)
    if (gtk_widget_get_visible (stops[i]) && gtk_widget_child_focus (stops[i], direction))
      return TRUE;
  return FALSE;
}

static void
natter_composer_class_init (NatterComposerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_composer_dispose;
  object_class->finalize = natter_composer_finalize;
  object_class->get_property = natter_composer_get_property;
  object_class->set_property = natter_composer_set_property;
  widget_class->grab_focus = natter_composer_grab_focus;
  widget_class->focus = natter_composer_focus;

  /**
   * NatterComposer:running:
   *
   * Whether the session's latest turn is processing: the button stops it.
   */
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterComposer:blocked-reason:
   *
   * Why sending is refused right now (a suspended or interrupted turn, a
   * damaged session), shown above the entry; %NULL when it is allowed.
   */
  properties[PROP_BLOCKED_REASON] =
    g_param_spec_string ("blocked-reason", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterComposer::send:
   * @text: the message
   *
   * The user sent a message.
   */
  signals[SEND] = g_signal_new ("send", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterComposer::stop:
   *
   * The user asked to stop the running turn.
   */
  signals[STOP] = g_signal_new ("stop", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * NatterComposer::attachment-refused:
   * @reason: why, in plain words, naming the file
   *
   * A file was not attached: it cannot be read, no model reads its type,
   * or it is over the size limit alone or with the others
   * (natter_composer_set_attachment_limit()).
   */
  signals[ATTACHMENT_REFUSED] = g_signal_new ("attachment-refused", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                              0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterComposer::text-changed:
   *
   * The words in the field changed: typed, dictated, pasted, or set
   * (natter_composer_set_text()). Whoever keeps the draft keeps it again.
   */
  signals[TEXT_CHANGED] = g_signal_new ("text-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * NatterComposer::attachments-changed:
   *
   * The files waiting beside the words changed: attached, removed,
   * refused, or taken to be sent. Whoever keeps the draft keeps it again.
   */
  signals[ATTACHMENTS_CHANGED] = g_signal_new ("attachments-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                               0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (NATTER_TYPE_AGENT_CHOOSER);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-composer.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, reason_label);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, placeholder_label);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, text_view);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, send_button);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, agent_chooser);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, attach_button);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, attachments_box);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, dictate_button);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, dictation_box);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, level_bar);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, dictation_label);
  gtk_widget_class_bind_template_callback (widget_class, button_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, attach_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, update_button);
  gtk_widget_class_install_action (widget_class, "composer.attach", NULL, attach_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "composer.attach", NULL);
  gtk_widget_class_set_css_name (widget_class, "natter-composer");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_composer_init (NatterComposer *self)
{
  GtkEventController *keys;

  self->attachments = g_ptr_array_new_with_free_func ((GDestroyNotify) pending_free);
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "composer.attach", FALSE);
  self->buffer = gtk_text_view_get_buffer (self->text_view);
  g_signal_connect (self->text_view, "paste-clipboard", G_CALLBACK (paste_clipboard_cb), self);
  g_signal_connect_swapped (self->buffer, "changed", G_CALLBACK (update_button), self);
  g_signal_connect_swapped (self->buffer, "changed", G_CALLBACK (update_placeholder), self);
  g_signal_connect_swapped (self->buffer, "changed", G_CALLBACK (text_changed_cb), self);
  g_signal_connect_swapped (self->agent_chooser, "notify::agent-id", G_CALLBACK (update_placeholder), self);
  g_signal_connect_swapped (self->agent_chooser, "agents-changed", G_CALLBACK (update_placeholder), self);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->text_view), keys);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self->text_view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Message"), -1);
  update_dictation (self);
  update_button (self);
  update_placeholder (self);
}

/**
 * natter_composer_new:
 *
 * Returns: (transfer floating): a new composer
 */
GtkWidget *
natter_composer_new (void)
{
  return g_object_new (NATTER_TYPE_COMPOSER, NULL);
}

/**
 * natter_composer_dup_text:
 * @self: a composer
 *
 * Returns: (transfer full): the draft
 */
char *
natter_composer_dup_text (NatterComposer *self)
{
  GtkTextIter start, end;

  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);

  gtk_text_buffer_get_bounds (self->buffer, &start, &end);
  return gtk_text_buffer_get_text (self->buffer, &start, &end, FALSE);
}

/**
 * natter_composer_set_text:
 * @self: a composer
 * @text: (nullable): the draft to show
 */
void
natter_composer_set_text (NatterComposer *self,
                          const char     *text)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));
  gtk_text_buffer_set_text (self->buffer, text != NULL ? text : "", -1);
}

/**
 * natter_composer_is_empty:
 * @self: a composer
 *
 * Whether the field holds no words, without copying them out as
 * natter_composer_dup_text() does: cheap enough to ask at every key
 * press. Attachments do not count.
 *
 * Returns: %TRUE for an empty field
 */
gboolean
natter_composer_is_empty (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), TRUE);
  return gtk_text_buffer_get_char_count (self->buffer) == 0;
}

/**
 * natter_composer_get_running:
 * @self: a composer
 *
 * Returns: whether the open session's latest turn runs, so that Send is
 *   Stop (#NatterComposer:running)
 */
gboolean
natter_composer_get_running (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), FALSE);
  return self->running;
}

/**
 * natter_composer_set_running:
 * @self: a composer
 * @running: whether the open session's latest turn runs
 *
 * Turns Send into Stop while @running, so the running turn can be
 * cancelled from where it was sent.
 */
void
natter_composer_set_running (NatterComposer *self,
                             gboolean        running)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));

  running = !!running;
  if (self->running == running)
    return;
  self->running = running;
  update_button (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

/**
 * natter_composer_get_blocked_reason:
 * @self: a composer
 *
 * Returns: (transfer none) (nullable): why sending is refused (the
 *   latest turn is suspended, idle or the session is damaged), or %NULL
 */
const char *
natter_composer_get_blocked_reason (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);
  return self->blocked_reason;
}

/**
 * natter_composer_set_blocked_reason:
 * @self: a composer
 * @reason: (nullable): why sending is refused, shown to the user; %NULL
 *   allows sending
 *
 * Surfaces the spec's TurnNotSettledError (docs/sessions.md §9.1
 * step 2) before the user hits it; the string is copied.
 */
void
natter_composer_set_blocked_reason (NatterComposer *self,
                                    const char     *reason)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));

  if (g_strcmp0 (self->blocked_reason, reason) == 0)
    return;
  g_free (self->blocked_reason);
  self->blocked_reason = g_strdup (reason);
  update_button (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BLOCKED_REASON]);
}

/**
 * natter_composer_get_note:
 * @self: a composer
 *
 * Returns: (transfer none) (nullable): what a message sent here does,
 *   as shown above the entry (natter_composer_set_note()), or %NULL
 */
const char *
natter_composer_get_note (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);
  return self->note;
}

/**
 * natter_composer_set_note:
 * @self: a composer
 * @note: (nullable): a plain sentence on what a message sent here does
 *   (another device's copy goes on as a new version, docs/format.md
 *   §9.1); %NULL for none
 *
 * Shown above the entry where a blocked reason would be, while sending
 * is allowed; it blocks nothing. A blocked reason takes its place while
 * there is one. The string is copied.
 */
void
natter_composer_set_note (NatterComposer *self,
                          const char     *note)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));

  if (g_strcmp0 (self->note, note) == 0)
    return;
  g_free (self->note);
  self->note = g_strdup (note);
  update_button (self);
}

/**
 * natter_composer_get_agent_chooser:
 * @self: a composer
 *
 * The chooser beside Send of the agent the next message goes to (issue
 * 7). It is hidden until the owner gives it a store and shows it.
 *
 * Returns: (transfer none): the chooser
 */
NatterAgentChooser *
natter_composer_get_agent_chooser (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);
  return self->agent_chooser;
}

/**
 * natter_composer_get_placeholder:
 * @self: a composer
 *
 * What the empty message field shows: "Message " and the name of the
 * agent the next message goes to.
 *
 * Returns: (transfer none) (nullable): the placeholder text, or %NULL
 *   while the field holds text (the placeholder is hidden then)
 */
const char *
natter_composer_get_placeholder (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->placeholder_label)))
    return NULL;
  return gtk_label_get_text (self->placeholder_label);
}
