/* natter-undo-log.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The undo log of the turn reducer: see natter-undo-log-private.h for why
 * it exists.
 */

#define G_LOG_DOMAIN "natter-turn-reducer"

#include "natter-undo-log-private.h"

typedef enum
{
  UNDO_INT,
  UNDO_INT64,
  UNDO_POINTER,
  UNDO_APPEND,
  UNDO_HASH_INSERT,
} UndoKind;

typedef struct
{
  UndoKind       kind;
  gpointer       target;
  union
  {
    int          i;
    gint64       i64;
    gpointer     pointer;
  } old;
  GDestroyNotify destroy;
} UndoEntry;

struct _NatterUndoLog
{
  GArray *entries;               /* UndoEntry, oldest first */
};

/**
 * natter_undo_log_new:
 *
 * Returns: (transfer full): an empty log, for natter_undo_log_free()
 */
NatterUndoLog *
natter_undo_log_new (void)
{
  NatterUndoLog *undo = g_new0 (NatterUndoLog, 1);

  undo->entries = g_array_new (FALSE, FALSE, sizeof (UndoEntry));
  return undo;
}

/**
 * natter_undo_log_free:
 * @undo: (transfer full): an empty log
 *
 * Frees @undo. It must be empty: an uncommitted mutation would otherwise
 * leak the value it replaced.
 */
void
natter_undo_log_free (NatterUndoLog *undo)
{
  g_assert (undo->entries->len == 0);
  g_array_unref (undo->entries);
  g_free (undo);
}

/**
 * natter_undo_log_is_empty:
 * @undo: a log
 *
 * Returns: whether nothing is waiting for a commit or a rollback
 */
gboolean
natter_undo_log_is_empty (NatterUndoLog *undo)
{
  return undo->entries->len == 0;
}

static void
log_entry (NatterUndoLog *undo,
           UndoEntry      entry)
{
  g_array_append_val (undo->entries, entry);
}

/**
 * natter_undo_log_set_int:
 * @undo: a log
 * @target: the field
 * @value: its new value
 *
 * Sets *@target, remembering the old value.
 */
void
natter_undo_log_set_int (NatterUndoLog *undo,
                         int           *target,
                         int            value)
{
  log_entry (undo, (UndoEntry) { .kind = UNDO_INT, .target = target, .old.i = *target });
  *target = value;
}

/**
 * natter_undo_log_set_int64:
 * @undo: a log
 * @target: the field
 * @value: its new value
 *
 * Sets *@target, remembering the old value.
 */
void
natter_undo_log_set_int64 (NatterUndoLog *undo,
                           gint64        *target,
                           gint64         value)
{
  log_entry (undo, (UndoEntry) { .kind = UNDO_INT64, .target = target, .old.i64 = *target });
  *target = value;
}

/**
 * natter_undo_log_set_pointer:
 * @undo: a log
 * @target: the field
 * @value: (transfer full) (nullable): its new value
 * @destroy: frees a value of the field
 *
 * Sets *@target. The old value lives in the log until the commit frees it
 * (or the rollback puts it back and frees @value).
 */
void
natter_undo_log_set_pointer (NatterUndoLog  *undo,
                             gpointer       *target,
                             gpointer        value,
                             GDestroyNotify  destroy)
{
  log_entry (undo, (UndoEntry) {
    .kind = UNDO_POINTER, .target = target, .old.pointer = *target, .destroy = destroy
  });
  *target = value;
}

/**
 * natter_undo_log_set_object:
 * @undo: a log
 * @target: the field
 * @value: (transfer none): its new value; the field takes a reference
 *
 * natter_undo_log_set_pointer() for a #JsonObject field.
 */
void
natter_undo_log_set_object (NatterUndoLog  *undo,
                            JsonObject    **target,
                            JsonObject     *value)
{
  natter_undo_log_set_pointer (undo, (gpointer *) target, json_object_ref (value),
                               (GDestroyNotify) json_object_unref);
}

/**
 * natter_undo_log_append:
 * @undo: a log
 * @array: an array that frees its elements
 * @item: (transfer full): the new last element
 *
 * Appends @item to @array; a rollback removes (and so frees) it again.
 */
void
natter_undo_log_append (NatterUndoLog *undo,
                        GPtrArray     *array,
                        gpointer       item)
{
  g_ptr_array_add (array, item);
  log_entry (undo, (UndoEntry) { .kind = UNDO_APPEND, .target = array });
}

/**
 * natter_undo_log_hash_insert:
 * @undo: a log
 * @table: a table
 * @key: a key not in @table yet
 * @value: its value
 *
 * Inserts @key; a rollback removes it again.
 */
void
natter_undo_log_hash_insert (NatterUndoLog *undo,
                             GHashTable    *table,
                             gpointer       key,
                             gpointer       value)
{
  g_hash_table_insert (table, key, value);
  log_entry (undo, (UndoEntry) { .kind = UNDO_HASH_INSERT, .target = table, .old.pointer = key });
}

/**
 * natter_undo_log_commit:
 * @undo: a log
 *
 * Keeps every mutation since the last commit or rollback, freeing the
 * values they replaced.
 */
void
natter_undo_log_commit (NatterUndoLog *undo)
{
  for (guint i = 0; i < undo->entries->len; i++)
    {
      UndoEntry *entry = &g_array_index (undo->entries, UndoEntry, i);

      if (entry->kind == UNDO_POINTER && entry->old.pointer != NULL)
        entry->destroy (entry->old.pointer);
    }
  g_array_set_size (undo->entries, 0);
}

/**
 * natter_undo_log_rollback:
 * @undo: a log
 *
 * Undoes every mutation since the last commit or rollback. Backwards, so
 * that a field of an entry appended in the same batch is restored before
 * the entry itself goes.
 */
void
natter_undo_log_rollback (NatterUndoLog *undo)
{
  for (guint i = undo->entries->len; i > 0; i--)
    {
      UndoEntry *entry = &g_array_index (undo->entries, UndoEntry, i - 1);

      switch (entry->kind)
        {
        case UNDO_INT:
          *(int *) entry->target = entry->old.i;
          break;
        case UNDO_INT64:
          *(gint64 *) entry->target = entry->old.i64;
          break;
        case UNDO_POINTER:
          {
            gpointer *target = entry->target;

            if (*target != NULL)
              entry->destroy (*target);
            *target = entry->old.pointer;
          }
          break;
        case UNDO_APPEND:
          {
            GPtrArray *array = entry->target;

            g_ptr_array_remove_index (array, array->len - 1);
          }
          break;
        case UNDO_HASH_INSERT:
          g_hash_table_remove (entry->target, entry->old.pointer);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  g_array_set_size (undo->entries, 0);
}
