/* natter-attachment-reuse.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The attachments of a sent message made into attachments of a new one:
 * editing a message gives the composer the files the original had, with
 * their names and types, to keep or remove before sending. Their bytes
 * come from the blob store; stored again, they are the same blobs (a
 * blob is named by its content, docs/format.md §1), so the new turn
 * references what the original did.
 */

#define G_LOG_DOMAIN "natter-attachments"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "natter-attachment-reuse.h"

/**
 * natter_attachments_load_sync:
 * @blobs: the blob store
 * @parts: (element-type JsonObject): the `blob` parts of a stored message
 *   (natter_message_dup_blob_parts())
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads every attachment of @parts back into a source for a new message,
 * with the name and media type it was stored with. Reads files: for
 * worker threads only.
 *
 * Returns: (transfer full) (element-type NatterAttachmentSource): the
 *   sources, in order; %NULL with %NATTER_ATTACHMENT_ERROR_UNREADABLE
 *   naming the attachment when a blob is missing or damaged (none is
 *   returned then), or %G_IO_ERROR_CANCELLED
 */
GPtrArray *
natter_attachments_load_sync (NatterBlobStore  *blobs,
                              GPtrArray        *parts,
                              GCancellable     *cancellable,
                              GError          **error)
{
  g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);

  g_return_val_if_fail (NATTER_IS_BLOB_STORE (blobs), NULL);
  g_return_val_if_fail (parts != NULL, NULL);

  for (guint i = 0; i < parts->len; i++)
    {
      JsonObject *part = g_ptr_array_index (parts, i);
      const char *name = json_object_get_string_member_with_default (part, "name", NULL);
      g_autoptr(GError) local_error = NULL;
      g_autoptr(GBytes) bytes = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      bytes = natter_blob_store_read_sync (blobs, json_object_get_string_member (part, "sha256"), &local_error);
      if (bytes == NULL)
        {
          g_set_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE,
                       /* Translators: %s is a file name, then why it could not be read */
                       _("The attachment “%s” could not be read: %s"), name != NULL ? name : "",
                       local_error->message);
          return NULL;
        }
      g_ptr_array_add (sources, natter_attachment_source_new_for_bytes (
                         bytes, name, json_object_get_string_member (part, "mediaType")));
    }
  return g_steal_pointer (&sources);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  NatterBlobStore *blobs = g_object_get_data (G_OBJECT (task), "natter-blobs");
  GError *error = NULL;
  GPtrArray *sources = natter_attachments_load_sync (blobs, task_data, cancellable, &error);

  if (sources == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, sources, (GDestroyNotify) g_ptr_array_unref);
}

/**
 * natter_attachments_load_async:
 * @blobs: the blob store
 * @parts: (element-type JsonObject): the `blob` parts of a stored message
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * natter_attachments_load_sync() in a worker thread.
 */
void
natter_attachments_load_async (NatterBlobStore     *blobs,
                               GPtrArray           *parts,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  GPtrArray *copy;

  g_return_if_fail (NATTER_IS_BLOB_STORE (blobs));
  g_return_if_fail (parts != NULL);

  /* The parts belong to the caller's turn state, shared by reference
   * counts that are not the thread's to touch: it reads its own copy of
   * what it needs. */
  copy = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  for (guint i = 0; i < parts->len; i++)
    {
      JsonObject *part = g_ptr_array_index (parts, i);
      JsonObject *own = json_object_new ();

      json_object_set_string_member (own, "sha256", json_object_get_string_member (part, "sha256"));
      json_object_set_string_member (own, "name", json_object_get_string_member_with_default (part, "name", NULL));
      json_object_set_string_member (own, "mediaType", json_object_get_string_member (part, "mediaType"));
      g_ptr_array_add (copy, own);
    }
  g_task_set_source_tag (task, natter_attachments_load_async);
  g_task_set_task_data (task, copy, (GDestroyNotify) g_ptr_array_unref);
  g_object_set_data_full (G_OBJECT (task), "natter-blobs", g_object_ref (blobs), g_object_unref);
  g_task_run_in_thread (task, load_thread);
}

/**
 * natter_attachments_load_finish:
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable) (element-type NatterAttachmentSource):
 *   the sources, or %NULL with the errors of natter_attachments_load_sync()
 */
GPtrArray *
natter_attachments_load_finish (GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
