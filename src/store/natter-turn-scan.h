/* natter-turn-scan.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-jsonl-cursor.h"
#include "natter-jsonl-repo.h"
#include "natter-types.h"

G_BEGIN_DECLS

gboolean natter_turn_scan_contents  (const char        *contents,
                                     gsize              length,
                                     const char        *turn_id,
                                     NatterTurnStatus  *out_status,
                                     gboolean          *out_imported);

gboolean natter_turn_scan_contents_text (const char    *contents,
                                         gsize          length,
                                         const char    *turn_id,
                                         GString       *user_text,
                                         GString       *answer_text);
void     natter_turn_text_from_state    (NatterTurnState *state,
                                         GString         *user_text,
                                         GString         *answer_text);

gboolean natter_turn_scan_file_sync (NatterJsonlRepo   *repo,
                                     const char        *turn_id,
                                     NatterTurnStatus  *out_status,
                                     gboolean          *out_imported,
                                     GCancellable      *cancellable,
                                     GError           **error);
gboolean natter_turn_scan_file_at   (NatterJsonlCursor  *cursor,
                                     const char         *turn_id,
                                     NatterFileIdentity *out_identity,
                                     gboolean           *out_identity_known,
                                     NatterTurnStatus   *out_status,
                                     gboolean           *out_imported,
                                     char              **out_device_id,
                                     char              **out_device_name,
                                     GCancellable       *cancellable,
                                     GError            **error);
gboolean natter_turn_scan_text_at   (NatterJsonlCursor  *cursor,
                                     const char         *turn_id,
                                     NatterFileIdentity *out_identity,
                                     gboolean           *out_identity_known,
                                     GString            *user_text,
                                     GString            *answer_text,
                                     gboolean           *out_ended,
                                     char              **out_previous_turn_id,
                                     GCancellable       *cancellable,
                                     GError            **error);

G_END_DECLS
