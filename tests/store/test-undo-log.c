/* test-undo-log.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The undo log behind the turn reducer's atomic apply: a rollback puts
 * every kind of mutation back, newest first, and frees what it drops; a
 * commit keeps the mutations and frees the values they replaced.
 */

#include "natter-undo-log-private.h"

typedef struct
{
  int n_freed;
} Tracker;

typedef struct
{
  Tracker *tracker;
  int      value;
} Item;

static Item *
item_new (Tracker *tracker,
          int      value)
{
  Item *item = g_new0 (Item, 1);

  item->tracker = tracker;
  item->value = value;
  return item;
}

static void
item_free (gpointer data)
{
  Item *item = data;

  item->tracker->n_freed++;
  g_free (item);
}

static void
test_rollback_restores_scalars (void)
{
  NatterUndoLog *undo = natter_undo_log_new ();
  int i = 1;
  gint64 i64 = G_GINT64_CONSTANT (1) << 40;

  g_assert_true (natter_undo_log_is_empty (undo));

  natter_undo_log_set_int (undo, &i, 2);
  natter_undo_log_set_int (undo, &i, 3);
  natter_undo_log_set_int64 (undo, &i64, -5);
  g_assert_cmpint (i, ==, 3);
  g_assert_cmpint (i64, ==, -5);
  g_assert_false (natter_undo_log_is_empty (undo));

  /* Backwards: the first old value wins, not the intermediate one. */
  natter_undo_log_rollback (undo);
  g_assert_cmpint (i, ==, 1);
  g_assert_cmpint (i64, ==, G_GINT64_CONSTANT (1) << 40);
  g_assert_true (natter_undo_log_is_empty (undo));

  natter_undo_log_free (undo);
}

static void
test_commit_keeps_scalars (void)
{
  NatterUndoLog *undo = natter_undo_log_new ();
  int i = 1;

  natter_undo_log_set_int (undo, &i, 7);
  natter_undo_log_commit (undo);
  g_assert_true (natter_undo_log_is_empty (undo));
  g_assert_cmpint (i, ==, 7);

  /* A rollback after the commit has nothing to undo. */
  natter_undo_log_rollback (undo);
  g_assert_cmpint (i, ==, 7);

  natter_undo_log_free (undo);
}

static void
test_pointer_ownership (void)
{
  NatterUndoLog *undo = natter_undo_log_new ();
  Tracker tracker = { 0 };
  Item *field = item_new (&tracker, 1);

  /* Rollback frees the new value and puts the old one back. */
  natter_undo_log_set_pointer (undo, (gpointer *) &field, item_new (&tracker, 2), item_free);
  g_assert_cmpint (field->value, ==, 2);
  g_assert_cmpint (tracker.n_freed, ==, 0);
  natter_undo_log_rollback (undo);
  g_assert_cmpint (field->value, ==, 1);
  g_assert_cmpint (tracker.n_freed, ==, 1);

  /* Commit frees the old value and keeps the new one. */
  natter_undo_log_set_pointer (undo, (gpointer *) &field, item_new (&tracker, 3), item_free);
  natter_undo_log_commit (undo);
  g_assert_cmpint (field->value, ==, 3);
  g_assert_cmpint (tracker.n_freed, ==, 2);

  /* A NULL field has nothing to free on commit, and is NULL again on
   * rollback. */
  item_free (field);
  field = NULL;
  natter_undo_log_set_pointer (undo, (gpointer *) &field, item_new (&tracker, 4), item_free);
  natter_undo_log_rollback (undo);
  g_assert_null (field);
  g_assert_cmpint (tracker.n_freed, ==, 4);

  natter_undo_log_free (undo);
}

static void
test_object_references (void)
{
  NatterUndoLog *undo = natter_undo_log_new ();
  g_autoptr(JsonObject) first = json_object_new ();
  g_autoptr(JsonObject) second = json_object_new ();
  JsonObject *field = NULL;

  natter_undo_log_set_object (undo, &field, first);
  natter_undo_log_commit (undo);
  g_assert_true (field == first);

  /* The field holds its own reference: the caller's stays valid after a
   * rollback drops the field's. */
  natter_undo_log_set_object (undo, &field, second);
  g_assert_true (field == second);
  natter_undo_log_rollback (undo);
  g_assert_true (field == first);
  json_object_set_int_member (second, "still", 1);

  g_clear_pointer (&field, json_object_unref);
  natter_undo_log_free (undo);
}

static void
test_append_and_insert (void)
{
  NatterUndoLog *undo = natter_undo_log_new ();
  Tracker tracker = { 0 };
  g_autoptr(GPtrArray) array = g_ptr_array_new_with_free_func (item_free);
  g_autoptr(GHashTable) table = g_hash_table_new (g_str_hash, g_str_equal);
  Item *kept = item_new (&tracker, 1);

  natter_undo_log_append (undo, array, kept);
  natter_undo_log_hash_insert (undo, table, "kept", kept);
  natter_undo_log_commit (undo);

  /* An element appended in the batch and a field set on it afterwards:
   * the field is restored first, then the element goes (and is freed). */
  {
    Item *added = item_new (&tracker, 2);

    natter_undo_log_append (undo, array, added);
    natter_undo_log_hash_insert (undo, table, "added", added);
    natter_undo_log_set_int (undo, &added->value, 20);
    natter_undo_log_set_int (undo, &kept->value, 10);
  }
  g_assert_cmpuint (array->len, ==, 2);
  g_assert_cmpuint (g_hash_table_size (table), ==, 2);

  natter_undo_log_rollback (undo);
  g_assert_cmpuint (array->len, ==, 1);
  g_assert_true (g_ptr_array_index (array, 0) == kept);
  g_assert_cmpint (kept->value, ==, 1);
  g_assert_cmpuint (g_hash_table_size (table), ==, 1);
  g_assert_true (g_hash_table_lookup (table, "kept") == kept);
  g_assert_null (g_hash_table_lookup (table, "added"));
  g_assert_cmpint (tracker.n_freed, ==, 1);

  natter_undo_log_free (undo);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/undo-log/rollback-restores-scalars", test_rollback_restores_scalars);
  g_test_add_func ("/undo-log/commit-keeps-scalars", test_commit_keeps_scalars);
  g_test_add_func ("/undo-log/pointer-ownership", test_pointer_ownership);
  g_test_add_func ("/undo-log/object-references", test_object_references);
  g_test_add_func ("/undo-log/append-and-insert", test_append_and_insert);

  return g_test_run ();
}
