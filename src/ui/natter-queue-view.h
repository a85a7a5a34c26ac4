/* natter-queue-view.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-sessions.h"

G_BEGIN_DECLS

#define NATTER_TYPE_QUEUE_VIEW (natter_queue_view_get_type ())

G_DECLARE_FINAL_TYPE (NatterQueueView, natter_queue_view, NATTER, QUEUE_VIEW, GtkWidget)

void   natter_queue_view_set_session   (NatterQueueView *self,
                                        NatterSessions  *sessions,
                                        const char      *session_id);
guint  natter_queue_view_get_n_queued  (NatterQueueView *self);
GStrv  natter_queue_view_dup_queue_ids (NatterQueueView *self);

G_END_DECLS
