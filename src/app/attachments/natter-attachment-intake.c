/* natter-attachment-intake.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How files become attachments of a message, for the window and the
 * command line alike: every file is read and checked (its size against
 * the `attachment-size-limit` setting, its type against what a model can
 * be sent) before the first blob is written, so a refused message leaves
 * nothing on disk. The type is what the bytes are, never what the name
 * says: a file named like an image that holds something else is refused,
 * as are a PDF that cannot be opened and an image that does not decode,
 * when it is attached rather than at every later request. Only then are
 * the blobs stored (natter-blob-store.c),
 * and only after that may the turn that references them be created: a
 * crash in between leaves an orphan blob, which is benign
 * (docs/sessions.md §7).
 */

#define G_LOG_DOMAIN "natter-attachments"

#include "config.h"

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gi18n-lib.h>

#include "natter-attachment-content.h"
#include "natter-attachment-intake.h"
#include "natter-json.h"

G_DEFINE_QUARK (natter-attachment-error-quark, natter_attachment_error)

struct _NatterAttachmentSource
{
  gatomicrefcount  ref_count;
  GFile           *file;         /* nullable */
  GBytes          *bytes;        /* nullable: pasted content */
  char            *name;         /* nullable for a file */
  char            *media_type;   /* nullable for a file */
};

G_DEFINE_BOXED_TYPE (NatterAttachmentSource, natter_attachment_source,
                     natter_attachment_source_ref, natter_attachment_source_unref)

/**
 * natter_attachment_source_new_for_file:
 * @file: a file chosen, dropped or pasted by the user
 *
 * An attachment to be read from @file; its name and type are found when
 * it is read (natter_attachments_store_sync()).
 *
 * Returns: (transfer full): a new source
 */
NatterAttachmentSource *
natter_attachment_source_new_for_file (GFile *file)
{
  NatterAttachmentSource *self;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  self = g_new0 (NatterAttachmentSource, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->file = g_object_ref (file);
  return self;
}

/**
 * natter_attachment_source_new_for_bytes:
 * @bytes: the content, e.g. a pasted image encoded as PNG
 * @name: the name the attachment is shown and sent with
 * @media_type: its MIME type, e.g. `image/png`
 *
 * Returns: (transfer full): a new source
 */
NatterAttachmentSource *
natter_attachment_source_new_for_bytes (GBytes     *bytes,
                                        const char *name,
                                        const char *media_type)
{
  NatterAttachmentSource *self;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (name != NULL && name[0] != '\0', NULL);
  g_return_val_if_fail (media_type != NULL && media_type[0] != '\0', NULL);

  self = g_new0 (NatterAttachmentSource, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->bytes = g_bytes_ref (bytes);
  self->name = g_strdup (name);
  self->media_type = g_strdup (media_type);
  return self;
}

/**
 * natter_attachment_source_ref:
 * @self: a source
 *
 * Returns: (transfer full): @self
 */
NatterAttachmentSource *
natter_attachment_source_ref (NatterAttachmentSource *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * natter_attachment_source_unref:
 * @self: (transfer full): a source
 */
void
natter_attachment_source_unref (NatterAttachmentSource *self)
{
  g_return_if_fail (self != NULL);
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_clear_object (&self->file);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_free (self->name);
  g_free (self->media_type);
  g_free (self);
}

/**
 * natter_attachment_source_get_file:
 * @self: a source
 *
 * Returns: (transfer none) (nullable): the file, or %NULL for content
 *   given as bytes
 */
GFile *
natter_attachment_source_get_file (NatterAttachmentSource *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->file;
}

/**
 * natter_attachment_source_get_name:
 * @self: a source
 *
 * Returns: (transfer none) (nullable): the name given with bytes, or
 *   %NULL for a file (its name is its basename)
 */
const char *
natter_attachment_source_get_name (NatterAttachmentSource *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->name;
}

/**
 * natter_attachment_source_get_media_type:
 * @self: a source
 *
 * Returns: (transfer none) (nullable): the type given with bytes, or
 *   %NULL for a file (its type is found when it is read)
 */
const char *
natter_attachment_source_get_media_type (NatterAttachmentSource *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->media_type;
}

/**
 * natter_attachment_source_get_bytes:
 * @self: a source
 *
 * Returns: (transfer none) (nullable): the content given as bytes, or
 *   %NULL for a file
 */
GBytes *
natter_attachment_source_get_bytes (NatterAttachmentSource *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->bytes;
}

typedef struct
{
  char   *name;
  char   *media_type;
  GBytes *bytes;
} Loaded;

static void
loaded_free (Loaded *loaded)
{
  g_free (loaded->name);
  g_free (loaded->media_type);
  g_clear_pointer (&loaded->bytes, g_bytes_unref);
  g_free (loaded);
}

/* @total and @limit as the user reads them: rounded, unless rounding
 * makes them look the same ("20.0 MB" over "20.0 MB"), then to the byte. */
static void
format_sizes (guint64   total,
              guint64   limit,
              char    **total_text,
              char    **limit_text)
{
  *total_text = g_format_size (total);
  *limit_text = g_format_size (limit);
  if (g_str_equal (*total_text, *limit_text))
    {
      g_free (*total_text);
      g_free (*limit_text);
      *total_text = g_format_size_full (total, G_FORMAT_SIZE_LONG_FORMAT);
      *limit_text = g_format_size_full (limit, G_FORMAT_SIZE_LONG_FORMAT);
    }
}

/* @name: the one file weighed, or NULL for several. */
static gboolean
too_large (guint64      total,
           guint64      limit,
           const char  *name,
           GError     **error)
{
  g_autofree char *total_text = NULL;
  g_autofree char *limit_text = NULL;

  if (total <= limit)
    return FALSE;
  format_sizes (total, limit, &total_text, &limit_text);
  if (name != NULL)
    g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_TOO_LARGE,
                 _("“%s” weighs %s; one message may carry at most %s"), name, total_text, limit_text);
  else
    g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_TOO_LARGE,
                 _("The attachments weigh %s together; one message may carry at most %s"),
                 total_text, limit_text);
  return TRUE;
}

/* The sizes the file system gives, before anything is read: a message
 * over the limit is refused without reading a byte. */
static gboolean
check_sizes (GPtrArray     *sources,
             guint64        limit,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autofree char *only_name = NULL;
  guint64 total = 0;

  for (guint i = 0; i < sources->len; i++)
    {
      NatterAttachmentSource *source = g_ptr_array_index (sources, i);
      g_autoptr(GFileInfo) info = NULL;
      g_autoptr(GError) local_error = NULL;

      if (source->bytes != NULL)
        {
          total += g_bytes_get_size (source->bytes);
          g_free (only_name);
          only_name = g_strdup (source->name);
          continue;
        }
      info = g_file_query_info (source->file, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                G_FILE_ATTRIBUTE_STANDARD_DISPLAY_NAME, G_FILE_QUERY_INFO_NONE, cancellable,
                                &local_error);
      if (info == NULL)
        {
          g_autofree char *name = g_file_get_parse_name (source->file);

          g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE,
                       _("Could not attach “%s”: %s"), name, local_error->message);
          return FALSE;
        }
      if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
        {
          g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE,
                       _("Could not attach “%s”: it is not a file"), g_file_info_get_display_name (info));
          return FALSE;
        }
      total += (guint64) g_file_info_get_size (info);
      g_free (only_name);
      only_name = g_strdup (g_file_info_get_display_name (info));
    }
  return !too_large (total, limit, sources->len == 1 ? only_name : NULL, error);
}

/* A MIME type's name for people ("PNG image"), in the UI's language. */
static char *
describe (const char *media_type)
{
  g_autofree char *type = g_content_type_from_mime_type (media_type);

  return g_content_type_get_description (type != NULL ? type : media_type);
}

/* The type of an attachment, from its bytes (GIO's sniffing over the
 * shared MIME database). @claimed, what its name or the clipboard says,
 * only refines text: "text/x-python" rather than "text/plain". Refuses
 * what the bytes show no model can read, and a claim the bytes belie (an
 * image or a PDF that is not one), in words that say which. */
static char *
media_type_from_content (const char    *name,
                         const char    *claimed,
                         const guchar  *data,
                         gsize          length,
                         GError       **error)
{
  g_autofree char *sniffed_type = g_content_type_guess (NULL, data, length, NULL);
  g_autofree char *sniffed = g_content_type_get_mime_type (sniffed_type);
  NatterAttachmentKind kind = natter_attachment_kind_for_media_type (sniffed);
  NatterAttachmentKind claimed_kind = natter_attachment_kind_for_media_type (claimed);
  gboolean is_text = g_utf8_validate_len ((const char *) data, length, NULL);

  /* The bytes begin as an image or a PDF does. */
  if (kind == NATTER_ATTACHMENT_KIND_IMAGE || kind == NATTER_ATTACHMENT_KIND_PDF)
    return g_steal_pointer (&sniffed);

  if (claimed_kind == NATTER_ATTACHMENT_KIND_IMAGE || claimed_kind == NATTER_ATTACHMENT_KIND_PDF)
    {
      g_autofree char *what = describe (claimed);

      if (is_text)
        g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED,
                     _("“%s” is named like a %s, but it holds text"), name, what);
      else
        g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED,
                     _("“%s” is named like a %s, but it is not one and cannot be read"),
                     name, what);
      return NULL;
    }
  if (is_text)
    {
      if (claimed_kind == NATTER_ATTACHMENT_KIND_TEXT)
        return g_strdup (claimed);
      return g_strdup (kind == NATTER_ATTACHMENT_KIND_TEXT ? sniffed : "text/plain");
    }
  if (claimed_kind == NATTER_ATTACHMENT_KIND_TEXT || kind == NATTER_ATTACHMENT_KIND_TEXT)
    {
      g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED,
                   _("“%s” is not UTF-8 text"), name);
      return NULL;
    }
  {
    g_autofree char *what = describe (sniffed != NULL ? sniffed : "application/octet-stream");

    g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED,
                 _("“%s” (%s) cannot be sent to a model; attach images, text files or PDFs"), name, what);
  }
  return NULL;
}

static void
image_size_prepared_cb (GdkPixbufLoader *loader,
                        int              width,
                        int              height,
                        gpointer         user_data)
{
  /* Only whether it decodes matters: no full-size pixels are kept. */
  gdk_pixbuf_loader_set_size (loader, 1, 1);
}

/* Whether an image decodes (gdk-pixbuf, which the window shows it with):
 * a damaged one (cut short, its data corrupt) is refused when attached,
 * rather than sent to every later request of the conversation, each
 * failing on the server's words. A format this system has no decoder
 * for (WebP without its loader) is the model's to read. */
static gboolean
check_image (const char  *name,
             const char  *media_type,
             GBytes      *bytes,
             GError     **error)
{
  g_autoptr(GdkPixbufLoader) loader = gdk_pixbuf_loader_new_with_mime_type (media_type, NULL);
  g_autoptr(GError) local_error = NULL;
  gsize length;
  const guchar *data = g_bytes_get_data (bytes, &length);
  gboolean written;

  if (loader == NULL)
    return TRUE;
  g_signal_connect (loader, "size-prepared", G_CALLBACK (image_size_prepared_cb), NULL);
  written = gdk_pixbuf_loader_write (loader, data, length, &local_error);
  /* Closed either way: a loader must be, and its error is the one kept
   * when the write went well. */
  if (!gdk_pixbuf_loader_close (loader, written ? &local_error : NULL) || !written)
    {
      g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED,
                   _("“%s” is a damaged image that cannot be read (%s)"), name, local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* What would fail the first request that reads the attachment, found now. */
static gboolean
check_readable (const char  *name,
                const char  *media_type,
                GBytes      *bytes,
                GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (natter_attachment_kind_for_media_type (media_type) == NATTER_ATTACHMENT_KIND_IMAGE)
    return check_image (name, media_type, bytes, error);
  if (natter_attachment_kind_for_media_type (media_type) != NATTER_ATTACHMENT_KIND_PDF ||
      natter_attachment_pdf_check (bytes, &local_error))
    return TRUE;
  if (natter_attachment_pdf_error_is_locked (local_error))
    g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED,
                 _("“%s” is a PDF locked with a password; Natter cannot read it"), name);
  else if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    /* Not the file's fault: this system cannot read any PDF. */
    g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED,
                 _("Natter cannot read the PDF “%s” on this system (%s)"), name, local_error->message);
  else
    g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED,
                 _("“%s” is a damaged PDF that cannot be read (%s)"), name, local_error->message);
  return FALSE;
}

static Loaded *
load_source (NatterAttachmentSource  *source,
             GCancellable            *cancellable,
             GError                 **error)
{
  Loaded *loaded = g_new0 (Loaded, 1);
  g_autoptr(GError) local_error = NULL;
  g_autofree char *claimed = NULL;
  gsize length;
  const guchar *data;

  if (source->bytes != NULL)
    {
      loaded->bytes = g_bytes_ref (source->bytes);
      loaded->name = g_strdup (source->name);
      claimed = g_strdup (source->media_type);
    }
  else
    {
      char *contents = NULL;
      g_autofree char *type = NULL;

      loaded->name = g_file_get_basename (source->file);
      if (!g_file_load_contents (source->file, cancellable, &contents, &length, NULL, &local_error))
        {
          g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE,
                       _("Could not read “%s”: %s"), loaded->name, local_error->message);
          loaded_free (loaded);
          return NULL;
        }
      loaded->bytes = g_bytes_new_take (contents, length);
      /* The name alone: what it claims, which the content must bear out. */
      type = g_content_type_guess (loaded->name, NULL, 0, NULL);
      claimed = g_content_type_get_mime_type (type);
    }

  data = g_bytes_get_data (loaded->bytes, &length);
  loaded->media_type = media_type_from_content (loaded->name, claimed, data, length, error);
  if (loaded->media_type != NULL &&
      check_readable (loaded->name, loaded->media_type, loaded->bytes, error))
    return loaded;
  loaded_free (loaded);
  return NULL;
}

static void
check_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  NatterAttachmentSource *source = task_data;
  guint64 limit = *(guint64 *) g_object_get_data (G_OBJECT (task), "natter-limit");
  g_autoptr(GPtrArray) sources = g_ptr_array_new ();
  GError *error = NULL;
  Loaded *loaded;
  guint64 size;

  g_ptr_array_add (sources, source);
  if (!check_sizes (sources, limit, cancellable, &error) ||
      (loaded = load_source (source, cancellable, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  size = g_bytes_get_size (loaded->bytes);
  /* It may have grown since it was measured. */
  if (too_large (size, limit, loaded->name, &error))
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_memdup2 (&size, sizeof size), g_free);
  loaded_free (loaded);
}

/**
 * natter_attachment_source_check_async:
 * @self: a file or content the user is attaching
 * @limit: the most one message's attachments may weigh together, in
 *   bytes (natter_settings_get_attachment_size_limit())
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Whether @self can be attached, and if not why, in plain words: the
 * checks natter_attachments_store_sync() makes of each attachment (a
 * readable regular file, not over @limit alone, a type a model reads
 * decided from its bytes, a PDF that opens), without storing anything.
 * For a composer that checks each file as it is attached, not only at
 * send; the sum of several is the store's to check. Reads the file in a
 * worker thread.
 */
void
natter_attachment_source_check_async (NatterAttachmentSource *self,
                                      guint64                 limit,
                                      GCancellable           *cancellable,
                                      GAsyncReadyCallback     callback,
                                      gpointer                user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (self != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_attachment_source_check_async);
  g_task_set_task_data (task, natter_attachment_source_ref (self), (GDestroyNotify) natter_attachment_source_unref);
  g_object_set_data_full (G_OBJECT (task), "natter-limit", g_memdup2 (&limit, sizeof limit), g_free);
  g_task_run_in_thread (task, check_thread);
}

/**
 * natter_attachment_source_check_finish:
 * @result: the #GAsyncResult
 * @out_size: (out) (optional): the attachment's size in bytes, when it
 *   can be attached
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the attachment can be attached; else %FALSE with a
 *   %NATTER_ATTACHMENT_ERROR (TOO_LARGE, UNSUPPORTED, UNREADABLE) whose
 *   message names the file and says why, for the user, or
 *   %G_IO_ERROR_CANCELLED
 */
gboolean
natter_attachment_source_check_finish (GAsyncResult  *result,
                                       guint64       *out_size,
                                       GError       **error)
{
  g_autofree guint64 *size = NULL;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_attachment_source_check_async, FALSE);

  size = g_task_propagate_pointer (G_TASK (result), error);
  if (size == NULL)
    return FALSE;
  if (out_size != NULL)
    *out_size = *size;
  return TRUE;
}

/**
 * natter_attachments_store_sync:
 * @blobs: the blob store
 * @sources: (element-type NatterAttachmentSource): what the user attached
 * @limit: the most the attachments may weigh together, in bytes
 *   (natter_settings_get_attachment_size_limit())
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads and checks every attachment, then stores each as a blob
 * (docs/format.md §1). Nothing is written unless every attachment is
 * readable, of a type a model can be sent (image, text, PDF; decided
 * from its bytes, docs/format.md §4.4) and the total is within @limit.
 * Blocks: for worker threads.
 *
 * Returns: (transfer full) (nullable): the content parts to put in the
 *   user message, `{type: "blob", sha256, mediaType, name, size}` in the
 *   order of @sources; or %NULL with %NATTER_ATTACHMENT_ERROR
 *   (TOO_LARGE, UNSUPPORTED, UNREADABLE) or the %NATTER_STORE_ERROR of
 *   natter_blob_store_put_sync()
 */
JsonArray *
natter_attachments_store_sync (NatterBlobStore  *blobs,
                               GPtrArray        *sources,
                               guint64           limit,
                               GCancellable     *cancellable,
                               GError          **error)
{
  g_autoptr(GPtrArray) loaded = g_ptr_array_new_with_free_func ((GDestroyNotify) loaded_free);
  g_autoptr(JsonArray) parts = json_array_new ();
  guint64 total = 0;

  g_return_val_if_fail (NATTER_IS_BLOB_STORE (blobs), NULL);
  g_return_val_if_fail (sources != NULL, NULL);

  if (!check_sizes (sources, limit, cancellable, error))
    return NULL;
  for (guint i = 0; i < sources->len; i++)
    {
      Loaded *one = load_source (g_ptr_array_index (sources, i), cancellable, error);

      if (one == NULL)
        return NULL;
      g_ptr_array_add (loaded, one);
      total += g_bytes_get_size (one->bytes);
    }
  /* A file may have grown since it was measured. */
  if (too_large (total, limit, loaded->len == 1 ? ((Loaded *) g_ptr_array_index (loaded, 0))->name : NULL, error))
    return NULL;

  for (guint i = 0; i < loaded->len; i++)
    {
      Loaded *one = g_ptr_array_index (loaded, i);
      g_autofree char *sha256 = natter_blob_store_put_sync (blobs, one->bytes, error);
      JsonObject *part;

      if (sha256 == NULL)
        return NULL;
      part = json_object_new ();
      json_object_set_string_member (part, "type", NATTER_TURN_BLOB_PART_TYPE);
      json_object_set_string_member (part, "sha256", sha256);
      json_object_set_string_member (part, "mediaType", one->media_type);
      json_object_set_string_member (part, "name", one->name);
      json_object_set_int_member (part, "size", (gint64) g_bytes_get_size (one->bytes));
      json_array_add_object_element (parts, part);
    }
  return g_steal_pointer (&parts);
}

typedef struct
{
  NatterBlobStore *blobs;
  GPtrArray       *sources;
  guint64          limit;
} StoreData;

static void
store_data_free (StoreData *data)
{
  g_object_unref (data->blobs);
  g_ptr_array_unref (data->sources);
  g_free (data);
}

static void
store_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  StoreData *data = task_data;
  GError *error = NULL;
  JsonArray *parts = natter_attachments_store_sync (data->blobs, data->sources, data->limit, cancellable, &error);

  if (parts == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, parts, (GDestroyNotify) json_array_unref);
}

/**
 * natter_attachments_store_async:
 * @blobs: the blob store
 * @sources: (element-type NatterAttachmentSource): what the user attached
 * @limit: the most the attachments may weigh together, in bytes
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * natter_attachments_store_sync() in a worker thread.
 */
void
natter_attachments_store_async (NatterBlobStore     *blobs,
                                GPtrArray           *sources,
                                guint64              limit,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  StoreData *data = g_new0 (StoreData, 1);

  g_return_if_fail (NATTER_IS_BLOB_STORE (blobs));
  g_return_if_fail (sources != NULL);

  data->blobs = g_object_ref (blobs);
  data->sources = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);
  for (guint i = 0; i < sources->len; i++)
    g_ptr_array_add (data->sources, natter_attachment_source_ref (g_ptr_array_index (sources, i)));
  data->limit = limit;
  g_task_set_source_tag (task, natter_attachments_store_async);
  g_task_set_task_data (task, data, (GDestroyNotify) store_data_free);
  g_task_run_in_thread (task, store_thread);
}

/**
 * natter_attachments_store_finish:
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the `blob` content parts, or %NULL
 *   with the errors of natter_attachments_store_sync()
 */
JsonArray *
natter_attachments_store_finish (GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_user_message_new:
 * @text: what the user wrote
 * @attachments: (nullable): `blob` content parts
 *   (natter_attachments_store_finish())
 *
 * The user message of a turn (docs/format.md §4.1): `{role: "user",
 * content: @text}` without attachments; with them, `content` is the
 * text part (left out when @text is empty) followed by the attachments.
 *
 * Returns: (transfer full): the message
 */
JsonObject *
natter_user_message_new (const char *text,
                         JsonArray  *attachments)
{
  JsonObject *message = json_object_new ();
  JsonArray *content;

  g_return_val_if_fail (text != NULL, NULL);

  json_object_set_string_member (message, "role", "user");
  if (attachments == NULL || json_array_get_length (attachments) == 0)
    {
      json_object_set_string_member (message, "content", text);
      return message;
    }
  content = json_array_new ();
  if (text[0] != '\0')
    {
      JsonObject *part = json_object_new ();

      json_object_set_string_member (part, "type", "text");
      json_object_set_string_member (part, "text", text);
      json_array_add_object_element (content, part);
    }
  natter_json_array_add_copies (content, attachments);
  json_object_set_array_member (message, "content", content);
  return message;
}

static void
verify_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  JsonArray *parts = task_data;
  NatterBlobStore *blobs = g_object_get_data (G_OBJECT (task), "natter-blobs");
  g_autoptr(JsonArray) out = json_array_new ();

  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonObject *part = json_array_get_object_element (parts, i);
      JsonObject *item = json_object_new ();
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GError) error = NULL;

      json_object_set_string_member (item, "sha256", json_object_get_string_member (part, "sha256"));
      json_object_set_string_member (item, "mediaType", json_object_get_string_member (part, "mediaType"));
      json_object_set_string_member (item, "name", json_object_get_string_member (part, "name"));
      json_object_set_int_member (item, "size", json_object_get_int_member (part, "size"));
      bytes = natter_blob_store_read_sync (blobs, json_object_get_string_member (part, "sha256"), &error);
      if (bytes == NULL)
        json_object_set_string_member (item, "error", error->message);
      json_array_add_object_element (out, item);
    }
  g_task_return_pointer (task, g_steal_pointer (&out), (GDestroyNotify) json_array_unref);
}

/**
 * natter_attachments_verify_async:
 * @blobs: the blob store
 * @parts: (transfer none): the `blob` parts of one message
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Reads every attachment's blob in a worker thread and checks its hash,
 * for a display that says which attachment of which turn is missing or
 * damaged, without failing the others.
 */
void
natter_attachments_verify_async (NatterBlobStore     *blobs,
                                 JsonArray           *parts,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (NATTER_IS_BLOB_STORE (blobs));
  g_return_if_fail (parts != NULL);

  g_task_set_source_tag (task, natter_attachments_verify_async);
  g_task_set_task_data (task, json_array_ref (parts), (GDestroyNotify) json_array_unref);
  g_object_set_data_full (G_OBJECT (task), "natter-blobs", g_object_ref (blobs), g_object_unref);
  g_task_run_in_thread (task, verify_thread);
}

/**
 * natter_attachments_verify_finish:
 * @result: the #GAsyncResult
 *
 * Returns: (transfer full): one `{sha256, mediaType, name, size, error?}`
 *   per part, in order; `error` names the blob's file when it is missing
 *   or no longer matches its hash
 */
JsonArray *
natter_attachments_verify_finish (GAsyncResult *result)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), NULL);
}
