/* natter-attachment-reuse.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-attachment-intake.h"

G_BEGIN_DECLS

GPtrArray *natter_attachments_load_sync   (NatterBlobStore      *blobs,
                                           GPtrArray            *parts,
                                           GCancellable         *cancellable,
                                           GError              **error);
void       natter_attachments_load_async  (NatterBlobStore      *blobs,
                                           GPtrArray            *parts,
                                           GCancellable         *cancellable,
                                           GAsyncReadyCallback   callback,
                                           gpointer              user_data);
GPtrArray *natter_attachments_load_finish (GAsyncResult         *result,
                                           GError              **error);

G_END_DECLS
