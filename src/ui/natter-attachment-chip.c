/* natter-attachment-chip.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How an attachment looks in the window. In the composer, before it is
 * sent: a chip with a thumbnail (a pasted image) or the icon of its type,
 * its name, its size and a remove button. In a sent message: an image is
 * shown inline, scaled down, decoded from its blob in a worker thread;
 * any other file is a chip that opens the file with the desktop's
 * default application (through the OpenURI portal inside Flatpak). A
 * blob that is missing or damaged says so in place of the attachment.
 */

#define G_LOG_DOMAIN "natter-attachments"

#include "config.h"

#include <errno.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "natter-accessible.h"
#include "natter-attachment-chip.h"
#include "natter-attachment-content.h"
#include "natter-builder-part.h"
#include "natter-plain-text.h"

/* The parts this file builds by id (natter_builder_part()). */
#define PARTS_UI "natter-attachment-view.ui"

/* The largest an inline image is shown, in pixels. */
#define PREVIEW_WIDTH 320
#define PREVIEW_HEIGHT 240

struct _NatterAttachmentChip
{
  GtkWidget   parent_instance;

  char       *name;

  /* Template widgets */
  GtkWidget  *box;
  GtkImage   *icon;
  GtkWidget  *labels;
  GtkLabel   *name_label;
  GtkLabel   *size_label;
  GtkWidget  *remove_button;
};

G_DEFINE_FINAL_TYPE (NatterAttachmentChip, natter_attachment_chip, GTK_TYPE_WIDGET)

enum
{
  REMOVE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void remove_clicked_cb (NatterAttachmentChip *self);

static void
natter_attachment_chip_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), NATTER_TYPE_ATTACHMENT_CHIP);
  G_OBJECT_CLASS (natter_attachment_chip_parent_class)->dispose (object);
}

static void
natter_attachment_chip_finalize (GObject *object)
{
  g_free (NATTER_ATTACHMENT_CHIP (object)->name);
  G_OBJECT_CLASS (natter_attachment_chip_parent_class)->finalize (object);
}

static void
natter_attachment_chip_class_init (NatterAttachmentChipClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_attachment_chip_dispose;
  object_class->finalize = natter_attachment_chip_finalize;

  /**
   * NatterAttachmentChip::remove:
   *
   * The user removed the attachment from the message being written.
   */
  signals[REMOVE] = g_signal_new ("remove", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "natter-attachment-chip");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-attachment-chip.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterAttachmentChip, box);
    gtk_widget_class_bind_template_child (widget_class, NatterAttachmentChip, icon);
  gtk_widget_class_bind_template_child (widget_class, NatterAttachmentChip, labels);
  gtk_widget_class_bind_template_child (widget_class, NatterAttachmentChip, name_label);
  gtk_widget_class_bind_template_child (widget_class, NatterAttachmentChip, size_label);
  gtk_widget_class_bind_template_child (widget_class, NatterAttachmentChip, remove_button);
  gtk_widget_class_bind_template_callback (widget_class, remove_clicked_cb);
}

static void
natter_attachment_chip_init (NatterAttachmentChip *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

static void
remove_clicked_cb (NatterAttachmentChip *self)
{
  g_signal_emit (self, signals[REMOVE], 0);
}

/**
 * natter_attachment_chip_new:
 * @name: the file's name
 * @media_type: (nullable): its MIME type, for the icon
 * @size: its size in bytes, or -1 when unknown
 * @thumbnail: (nullable): a picture of it, shown instead of the icon
 * @removable: whether it has a remove button (::remove)
 *
 * Returns: (transfer floating): a new chip
 */
GtkWidget *
natter_attachment_chip_new (const char   *name,
                            const char   *media_type,
                            gint64        size,
                            GdkPaintable *thumbnail,
                            gboolean      removable)
{
  NatterAttachmentChip *self = g_object_new (NATTER_TYPE_ATTACHMENT_CHIP, NULL);
  g_autofree char *size_text = size >= 0 ? g_format_size ((guint64) size) : NULL;
  /* A name is one line, as a title is: a bidi override in it would turn
   * "gnp.txt" into "txt.png", a newline would break the chip. */
  g_autofree char *shown = natter_visible_text (name, NATTER_VISIBLE_KEEP_NONE);

  self->name = g_strdup (name);
  if (thumbnail != NULL)
    {
      /* Made only when there is one: a hidden first child of a box
       * makes GTK 4.8 measure a row of chips wrong (taller for a width
       * than at its minimum). */
      GtkWidget *picture = gtk_picture_new_for_paintable (thumbnail);

      gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
      gtk_picture_set_alternative_text (GTK_PICTURE (picture), shown);
      gtk_widget_set_size_request (picture, 32, 32);
      gtk_widget_set_margin_start (picture, 8);
      gtk_widget_set_valign (picture, GTK_ALIGN_CENTER);
      gtk_box_prepend (GTK_BOX (self->box), picture);
      gtk_widget_set_visible (GTK_WIDGET (self->icon), FALSE);
    }
  else
    {
      g_autofree char *type = media_type != NULL ? g_content_type_from_mime_type (media_type) : NULL;
      g_autoptr(GIcon) gicon = type != NULL ? g_content_type_get_symbolic_icon (type) : NULL;
      g_autofree char *description = type != NULL ? g_content_type_get_description (type) : NULL;

      if (gicon != NULL)
        gtk_image_set_from_gicon (self->icon, gicon);
      /* The icon says the file's type, so it says it to a screen reader
       * too. */
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      description != NULL ? description : _("File"), -1);
    }

  gtk_label_set_text (self->name_label, shown);
  if (size_text != NULL)
    {
      gtk_label_set_text (self->size_label, size_text);
      gtk_widget_set_visible (GTK_WIDGET (self->size_label), TRUE);
    }
  gtk_widget_set_margin_end (self->labels, removable ? 0 : 10);

  if (removable)
    {
      g_autofree char *tooltip = g_strdup_printf (_("Remove “%s”"), shown);

      gtk_widget_set_tooltip_text (self->remove_button, tooltip);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->remove_button), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip, -1);
      gtk_widget_set_visible (self->remove_button, TRUE);
    }
  return GTK_WIDGET (self);
}

/**
 * natter_attachment_chip_get_name:
 * @self: a chip
 *
 * Returns: (transfer none): the attachment's name
 */
const char *
natter_attachment_chip_get_name (NatterAttachmentChip *self)
{
  g_return_val_if_fail (NATTER_IS_ATTACHMENT_CHIP (self), NULL);
  return self->name;
}

/* Sent attachments */

/* The store the view was made with (natter_attachment_view_new()). */
static NatterBlobStore *
blob_store_of (GtkWidget *widget)
{
  return g_object_get_data (G_OBJECT (widget), "natter-blobs");
}

/* Says, in place of @view's image, which file cannot be shown and why:
 * the decoder's own words ("Error reading png") alone name neither. */
static void
show_problem (GtkWidget    *view,
              const GError *error)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new ();
  GtkWidget *label = natter_builder_part (builder, PARTS_UI, "problem_label");
  JsonObject *part = g_object_get_data (G_OBJECT (view), "natter-part");
  g_autofree char *text = NULL;
  g_autofree char *shown = natter_visible_text (json_object_get_string_member_with_default (part, "name", ""),
                                                NATTER_VISIBLE_KEEP_NONE);

  /* Translators: %s is an attached image's file name, then the reason */
  text = g_strdup_printf (_("“%s” cannot be shown: %s"), shown, error->message);
  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_box_append (GTK_BOX (view), label);
}

static void
decode_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  NatterBlobStore *blobs = g_object_get_data (G_OBJECT (task), "natter-blobs");
  g_autoptr(GBytes) bytes = NULL;
  GdkTexture *texture;
  GError *error = NULL;

  bytes = natter_blob_store_read_sync (blobs, task_data, &error);
  texture = bytes != NULL ? gdk_texture_new_from_bytes (bytes, &error) : NULL;
  if (texture == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, texture, g_object_unref);
}

static void
decoded_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GtkWidget) view = user_data;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *picture = g_object_get_data (G_OBJECT (view), "natter-picture");

  texture = g_task_propagate_pointer (G_TASK (result), &error);
  g_object_set_data (G_OBJECT (view), "natter-loaded", GINT_TO_POINTER (TRUE));
  if (texture == NULL)
    {
      gtk_widget_set_visible (picture, FALSE);
      show_problem (view, error);
      return;
    }
  gtk_picture_set_paintable (GTK_PICTURE (picture), GDK_PAINTABLE (texture));
  gtk_widget_set_size_request (picture,
                               MIN (PREVIEW_WIDTH, gdk_texture_get_width (texture)),
                               MIN (PREVIEW_HEIGHT, gdk_texture_get_height (texture)));
}

/* Images are decoded when first shown, once, off the main thread. */
static void
view_map_cb (GtkWidget *view)
{
  JsonObject *part = g_object_get_data (G_OBJECT (view), "natter-part");
  NatterBlobStore *blobs = blob_store_of (view);
  g_autoptr(GTask) task = NULL;

  if (g_object_get_data (G_OBJECT (view), "natter-started") != NULL || blobs == NULL)
    return;
  g_object_set_data (G_OBJECT (view), "natter-started", GINT_TO_POINTER (TRUE));
  task = g_task_new (NULL, NULL, decoded_cb, g_object_ref (view));
  g_task_set_task_data (task, g_strdup (json_object_get_string_member (part, "sha256")), g_free);
  g_object_set_data_full (G_OBJECT (task), "natter-blobs", g_object_ref (blobs), g_object_unref);
  g_task_run_in_thread (task, decode_thread);
}

/* Opening: the blob is copied under its own name into the cache (the
 * default application recognises the file by it), then handed to the
 * desktop. */
static void
copy_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  JsonObject *part = task_data;
  NatterBlobStore *blobs = g_object_get_data (G_OBJECT (task), "natter-blobs");
  const char *sha256 = json_object_get_string_member (part, "sha256");
  g_autofree char *base = g_path_get_basename (json_object_get_string_member (part, "name"));
  g_autofree char *dir = g_build_filename (g_get_user_cache_dir (), "natter", "attachments", sha256, NULL);
  g_autofree char *path = g_build_filename (dir, base, NULL);
  g_autoptr(GBytes) bytes = NULL;
  GError *error = NULL;

  bytes = natter_blob_store_read_sync (blobs, sha256, &error);
  if (bytes == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (g_mkdir_with_parents (dir, 0700) < 0 ||
      !g_file_set_contents_full (path, g_bytes_get_data (bytes, NULL), (gssize) g_bytes_get_size (bytes),
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    {
      if (error == NULL)
        error = g_error_new (G_IO_ERROR, g_io_error_from_errno (errno), _("Could not create %s"), dir);
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_filename_to_uri (path, NULL, NULL), g_free);
}

/* Says in the window why @button's attachment did not open. */
static void
report_not_opened (GtkWidget    *button,
                   const GError *error)
{
  JsonObject *part = g_object_get_data (G_OBJECT (button), "natter-part");
  g_autofree char *heading = NULL;
  g_autofree char *shown = natter_visible_text (json_object_get_string_member_with_default (part, "name", ""),
                                                NATTER_VISIBLE_KEEP_NONE);

  gtk_widget_set_tooltip_text (button, error->message);
  gtk_widget_add_css_class (button, "error");
  /* Translators: %s is the file name of an attachment */
  heading = g_strdup_printf (_("“%s” could not be opened"), shown);
  /* To the window the chip is in, if any (win.report-error). */
  gtk_widget_activate_action (button, "win.report-error", "(ssis)", heading, g_quark_to_string (error->domain),
                              error->code, error->message);
}

static void
launched_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GtkWidget) button = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error))
    report_not_opened (button, error);
}

static void
copied_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GtkWidget) button = user_data;
  g_autofree char *uri = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkAppLaunchContext) context = NULL;

  uri = g_task_propagate_pointer (G_TASK (result), &error);
  if (uri == NULL)
    {
      report_not_opened (button, error);
      return;
    }
  context = gdk_display_get_app_launch_context (gtk_widget_get_display (button));
  g_app_info_launch_default_for_uri_async (uri, G_APP_LAUNCH_CONTEXT (context), NULL, launched_cb,
                                           g_object_ref (button));
}

static void
open_clicked_cb (GtkWidget *button)
{
  JsonObject *part = g_object_get_data (G_OBJECT (button), "natter-part");
  NatterBlobStore *blobs = blob_store_of (button);
  g_autoptr(GTask) task = NULL;

  if (blobs == NULL)
    return;
  task = g_task_new (NULL, NULL, copied_cb, g_object_ref (button));
  g_task_set_task_data (task, json_object_ref (part), (GDestroyNotify) json_object_unref);
  g_object_set_data_full (G_OBJECT (task), "natter-blobs", g_object_ref (blobs), g_object_unref);
  g_task_run_in_thread (task, copy_thread);
}

/**
 * natter_attachment_view_new:
 * @part: (transfer none): a `blob` content part of a sent message
 * @blobs: (nullable) (transfer none): the store to read the attachment
 *   from; without one, an image stays empty and a file does not open
 *
 * How a sent attachment shows (docs/format.md §4.4): an image inline,
 * scaled down to at most 320×240 and decoded off the main thread when
 * first shown; any other file as a chip that opens it with the default
 * application.
 *
 * Returns: (transfer floating): a new widget
 */
GtkWidget *
natter_attachment_view_new (JsonObject      *part,
                            NatterBlobStore *blobs)
{
  const char *name = json_object_get_string_member_with_default (part, "name", "");
  g_autofree char *shown = natter_visible_text (name, NATTER_VISIBLE_KEEP_NONE);
  const char *media_type = json_object_get_string_member_with_default (part, "mediaType", NULL);
  gint64 size = json_object_get_int_member_with_default (part, "size", -1);
  g_autoptr(GtkBuilder) builder = NULL;
  GtkWidget *view;

  g_return_val_if_fail (blobs == NULL || NATTER_IS_BLOB_STORE (blobs), NULL);

  builder = gtk_builder_new ();
  view = natter_builder_part (builder, PARTS_UI, "view");
  g_object_set_data_full (G_OBJECT (view), "natter-part", json_object_ref (part), (GDestroyNotify) json_object_unref);
  if (blobs != NULL)
    g_object_set_data_full (G_OBJECT (view), "natter-blobs", g_object_ref (blobs), g_object_unref);
  if (natter_attachment_kind_for_media_type (media_type) == NATTER_ATTACHMENT_KIND_IMAGE)
    {
      GtkWidget *picture = natter_builder_part (builder, PARTS_UI, "picture");

      gtk_picture_set_alternative_text (GTK_PICTURE (picture), shown);
      gtk_box_append (GTK_BOX (view), picture);
      g_object_set_data (G_OBJECT (view), "natter-picture", picture);
      g_signal_connect (view, "map", G_CALLBACK (view_map_cb), NULL);
    }
  else
    {
      GtkWidget *button = natter_builder_part (builder, PARTS_UI, "open_button");
      g_autofree char *tooltip = g_strdup_printf (_("Open “%s”"), shown);

      gtk_button_set_child (GTK_BUTTON (button), natter_attachment_chip_new (name, media_type, size, NULL, FALSE));
      gtk_widget_set_tooltip_text (button, tooltip);
      gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip, -1);
      g_object_set_data_full (G_OBJECT (button), "natter-part", json_object_ref (part),
                              (GDestroyNotify) json_object_unref);
      if (blobs != NULL)
        g_object_set_data_full (G_OBJECT (button), "natter-blobs", g_object_ref (blobs), g_object_unref);
      g_signal_connect (button, "clicked", G_CALLBACK (open_clicked_cb), NULL);
      gtk_box_append (GTK_BOX (view), button);
      g_object_set_data (G_OBJECT (view), "natter-loaded", GINT_TO_POINTER (TRUE));
    }
  /* The builder's reference goes with it: the caller's is a floating
   * one, as a new widget's. */
  g_object_ref (view);
  g_object_force_floating (G_OBJECT (view));
  return view;
}

/**
 * natter_attachment_view_get_loaded:
 * @view: a widget from natter_attachment_view_new()
 *
 * Returns: whether it shows what it will show: an image decoded (or the
 *   reason it cannot be), or a file chip
 */
gboolean
natter_attachment_view_get_loaded (GtkWidget *view)
{
  g_return_val_if_fail (GTK_IS_WIDGET (view), FALSE);
  return g_object_get_data (G_OBJECT (view), "natter-loaded") != NULL;
}
