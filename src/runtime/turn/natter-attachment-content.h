/* natter-attachment-content.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-blob-store.h"

G_BEGIN_DECLS

/**
 * NATTER_DEFAULT_ATTACHMENT_SIZE_LIMIT:
 *
 * The built-in limit on one message's attachments together, in MB
 * (10⁶ bytes): the default of the `attachment-size-limit` setting.
 */
#define NATTER_DEFAULT_ATTACHMENT_SIZE_LIMIT 20

/**
 * NatterAttachmentKind:
 * @NATTER_ATTACHMENT_KIND_NONE: Natter cannot send this type to a model.
 * @NATTER_ATTACHMENT_KIND_IMAGE: an image a vision model reads (PNG,
 *   JPEG, GIF, WebP), sent as an `image_url` part with a `data:` URL.
 * @NATTER_ATTACHMENT_KIND_TEXT: a text-like file (any text type, JSON, XML,
 *   source code), sent as a text part headed by its name.
 * @NATTER_ATTACHMENT_KIND_PDF: a PDF, sent as its extracted text.
 *
 * How an attachment's bytes reach the model.
 */
typedef enum
{
  NATTER_ATTACHMENT_KIND_NONE,
  NATTER_ATTACHMENT_KIND_IMAGE,
  NATTER_ATTACHMENT_KIND_TEXT,
  NATTER_ATTACHMENT_KIND_PDF,
} NatterAttachmentKind;

NatterAttachmentKind natter_attachment_kind_for_media_type (const char       *media_type);
char                *natter_attachment_pdf_extract_text    (GBytes           *bytes,
                                                            GError          **error);
gboolean             natter_attachment_pdf_check           (GBytes           *bytes,
                                                            GError          **error);
gboolean             natter_attachment_pdf_error_is_locked (const GError     *error);

gboolean             natter_attachments_in_turn            (JsonObject       *input,
                                                            JsonNode         *context);
gboolean             natter_attachments_check_stored       (NatterBlobStore  *blobs,
                                                            JsonObject       *input,
                                                            JsonNode         *context,
                                                            GError          **error);
JsonArray           *natter_attachments_expand_sync        (NatterBlobStore  *blobs,
                                                            JsonArray        *messages,
                                                            GError          **error);
void                 natter_attachments_expand_async       (NatterBlobStore     *blobs,
                                                            JsonObject          *payload,
                                                            GCancellable        *cancellable,
                                                            GAsyncReadyCallback  callback,
                                                            gpointer             user_data);
JsonObject          *natter_attachments_expand_finish      (GAsyncResult        *result,
                                                            GError             **error);

G_END_DECLS
