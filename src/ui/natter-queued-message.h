/* natter-queued-message.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define NATTER_TYPE_QUEUED_MESSAGE (natter_queued_message_get_type ())

G_DECLARE_FINAL_TYPE (NatterQueuedMessage, natter_queued_message, NATTER, QUEUED_MESSAGE, GtkBox)

GtkWidget  *natter_queued_message_new          (const char          *queue_id,
                                                JsonObject          *message,
                                                const char          *caption);
JsonObject *natter_queued_message_get_message  (NatterQueuedMessage *self);
const char *natter_queued_message_get_queue_id (NatterQueuedMessage *self);
const char *natter_queued_message_get_text     (NatterQueuedMessage *self);
const char *natter_queued_message_get_caption  (NatterQueuedMessage *self);
void        natter_queued_message_set_read_only (NatterQueuedMessage *self,
                                                 gboolean             read_only);
gboolean    natter_queued_message_get_read_only (NatterQueuedMessage *self);

G_END_DECLS
