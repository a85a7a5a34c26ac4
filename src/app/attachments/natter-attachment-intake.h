/* natter-attachment-intake.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-blob-store.h"

G_BEGIN_DECLS

/**
 * NATTER_ATTACHMENT_ERROR:
 *
 * The error domain of attaching files; codes are #NatterAttachmentError.
 */
#define NATTER_ATTACHMENT_ERROR (natter_attachment_error_quark ())

/**
 * NatterAttachmentError:
 * @NATTER_ATTACHMENT_ERROR_TOO_LARGE: the attachments of one message
 *   weigh more than the `attachment-size-limit` setting allows.
 * @NATTER_ATTACHMENT_ERROR_UNSUPPORTED: a file no model can be sent
 *   (not an image, a text file or a PDF), or text that is not UTF-8.
 * @NATTER_ATTACHMENT_ERROR_UNREADABLE: a file could not be read, or is
 *   not a regular file.
 *
 * Error codes of %NATTER_ATTACHMENT_ERROR.
 */
typedef enum
{
  NATTER_ATTACHMENT_ERROR_TOO_LARGE,
  NATTER_ATTACHMENT_ERROR_UNSUPPORTED,
  NATTER_ATTACHMENT_ERROR_UNREADABLE,
} NatterAttachmentError;

GQuark natter_attachment_error_quark (void);

#define NATTER_TYPE_ATTACHMENT_SOURCE (natter_attachment_source_get_type ())

typedef struct _NatterAttachmentSource NatterAttachmentSource;

GType                   natter_attachment_source_get_type      (void) G_GNUC_CONST;
NatterAttachmentSource *natter_attachment_source_new_for_file  (GFile                  *file);
NatterAttachmentSource *natter_attachment_source_new_for_bytes (GBytes                 *bytes,
                                                                const char             *name,
                                                                const char             *media_type);
NatterAttachmentSource *natter_attachment_source_ref           (NatterAttachmentSource *self);
void                    natter_attachment_source_unref         (NatterAttachmentSource *self);
GFile                  *natter_attachment_source_get_file      (NatterAttachmentSource *self);
GBytes                 *natter_attachment_source_get_bytes     (NatterAttachmentSource *self);
const char             *natter_attachment_source_get_name      (NatterAttachmentSource *self);
const char             *natter_attachment_source_get_media_type (NatterAttachmentSource *self);

void                    natter_attachment_source_check_async   (NatterAttachmentSource *self,
                                                                guint64                 limit,
                                                                GCancellable           *cancellable,
                                                                GAsyncReadyCallback     callback,
                                                                gpointer                user_data);
gboolean                natter_attachment_source_check_finish  (GAsyncResult           *result,
                                                                guint64                *out_size,
                                                                GError                **error);

JsonArray              *natter_attachments_store_sync          (NatterBlobStore        *blobs,
                                                                GPtrArray              *sources,
                                                                guint64                 limit,
                                                                GCancellable           *cancellable,
                                                                GError                **error);
void                    natter_attachments_store_async         (NatterBlobStore        *blobs,
                                                                GPtrArray              *sources,
                                                                guint64                 limit,
                                                                GCancellable           *cancellable,
                                                                GAsyncReadyCallback     callback,
                                                                gpointer                user_data);
JsonArray              *natter_attachments_store_finish        (GAsyncResult           *result,
                                                                GError                **error);
void                    natter_attachments_verify_async        (NatterBlobStore        *blobs,
                                                                JsonArray              *parts,
                                                                GCancellable           *cancellable,
                                                                GAsyncReadyCallback     callback,
                                                                gpointer                user_data);
JsonArray              *natter_attachments_verify_finish       (GAsyncResult           *result);
JsonObject             *natter_user_message_new                (const char             *text,
                                                                JsonArray              *attachments);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterAttachmentSource, natter_attachment_source_unref)

G_END_DECLS
