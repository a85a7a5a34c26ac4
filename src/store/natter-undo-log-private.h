/* natter-undo-log-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The undo log that makes applying turn events atomic.
 *
 * Every mutation of a #NatterTurnState goes through the log (set a field,
 * append to an array, insert into a hash table). A failed event or batch
 * replays the log backwards; a successful one drops it. A batch therefore
 * costs what it touches, never a copy of the history, so the runtime can
 * use the reducer as its append gate on a turn of any length.
 *
 * Private to the turn reducer: nothing outside src/store/natter-turn-*.c
 * includes this header.
 */

#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _NatterUndoLog NatterUndoLog;

NatterUndoLog *natter_undo_log_new         (void);
void           natter_undo_log_free        (NatterUndoLog   *undo);
gboolean       natter_undo_log_is_empty    (NatterUndoLog   *undo);

void           natter_undo_log_set_int     (NatterUndoLog   *undo,
                                            int             *target,
                                            int              value);
void           natter_undo_log_set_int64   (NatterUndoLog   *undo,
                                            gint64          *target,
                                            gint64           value);
void           natter_undo_log_set_pointer (NatterUndoLog   *undo,
                                            gpointer        *target,
                                            gpointer         value,
                                            GDestroyNotify   destroy);
void           natter_undo_log_set_object  (NatterUndoLog   *undo,
                                            JsonObject     **target,
                                            JsonObject      *value);
void           natter_undo_log_append      (NatterUndoLog   *undo,
                                            GPtrArray       *array,
                                            gpointer         item);
void           natter_undo_log_hash_insert (NatterUndoLog   *undo,
                                            GHashTable      *table,
                                            gpointer         key,
                                            gpointer         value);

void           natter_undo_log_commit      (NatterUndoLog   *undo);
void           natter_undo_log_rollback    (NatterUndoLog   *undo);

G_END_DECLS
