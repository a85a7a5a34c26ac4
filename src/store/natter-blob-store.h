/* natter-blob-store.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NATTER_TURN_BLOB_PART_TYPE:
 *
 * The `type` of a user-message content part that references a stored
 * attachment: `{type: "blob", sha256, mediaType, name, size}`
 * (docs/format.md §4.1). Valid only in a turn of schema version 2.
 */
#define NATTER_TURN_BLOB_PART_TYPE "blob"

#define NATTER_TYPE_BLOB_STORE (natter_blob_store_get_type ())

G_DECLARE_FINAL_TYPE (NatterBlobStore, natter_blob_store, NATTER, BLOB_STORE, GObject)

NatterBlobStore *natter_blob_store_new             (GFile            *storage_dir);
void             natter_blob_store_refuse_writes   (NatterBlobStore  *self,
                                                   const GError     *reason);
gboolean         natter_blob_hash_is_valid         (const char       *sha256);
char            *natter_blob_store_dup_path        (NatterBlobStore  *self,
                                                    const char       *sha256);

/* Synchronous: for worker threads only. */
char            *natter_blob_store_put_sync        (NatterBlobStore  *self,
                                                    GBytes           *bytes,
                                                    GError          **error);
GBytes          *natter_blob_store_read_sync       (NatterBlobStore  *self,
                                                    const char       *sha256,
                                                    GError          **error);
gboolean         natter_blob_store_remove_leftover_temp_files_sync (NatterBlobStore  *self,
                                                                    guint            *out_removed,
                                                                    GCancellable     *cancellable,
                                                                    GError          **error);
gboolean         natter_blob_store_check_present   (NatterBlobStore  *self,
                                                    const char       *sha256,
                                                    gint64            size,
                                                    GError          **error);
gboolean         natter_blob_store_check_whole_sync (NatterBlobStore *self,
                                                    const char       *sha256,
                                                    gint64            size,
                                                    GError          **error);

gboolean         natter_blob_part_validate         (JsonObject       *part,
                                                    GError          **error);
GPtrArray       *natter_message_dup_blob_parts     (JsonObject       *message);
gboolean         natter_messages_have_blob_parts   (JsonArray        *messages);
char            *natter_user_message_dup_words     (JsonObject       *message);
JsonObject      *natter_user_message_with_words    (JsonObject       *message,
                                                    const char       *words);
gboolean         natter_turn_created_check_blob_version (JsonObject  *event,
                                                         GError     **error);

G_END_DECLS
