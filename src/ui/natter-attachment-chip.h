/* natter-attachment-chip.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "natter-blob-store.h"

G_BEGIN_DECLS

#define NATTER_TYPE_ATTACHMENT_CHIP (natter_attachment_chip_get_type ())

G_DECLARE_FINAL_TYPE (NatterAttachmentChip, natter_attachment_chip, NATTER, ATTACHMENT_CHIP, GtkWidget)

GtkWidget  *natter_attachment_chip_new          (const char           *name,
                                                 const char           *media_type,
                                                 gint64                size,
                                                 GdkPaintable         *thumbnail,
                                                 gboolean              removable);
const char *natter_attachment_chip_get_name     (NatterAttachmentChip *self);

GtkWidget  *natter_attachment_view_new          (JsonObject           *part,
                                                 NatterBlobStore      *blobs);
gboolean    natter_attachment_view_get_loaded   (GtkWidget            *view);

G_END_DECLS
