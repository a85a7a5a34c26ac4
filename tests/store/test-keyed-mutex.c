/* test-keyed-mutex.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The asynchronous keyed mutex behind `with_lock` (docs/runtime.md §2,
 * docs/sessions.md §6.3, architecture.md "Execution model").
 */

#include "natter-keyed-mutex.h"
#include "natter-test-support.h"

#define TIMEOUT_MS 5000

typedef struct
{
  /* Order in which waiters got the lock (their indexes), and the guards
   * they hold. */
  GArray           *order;
  GPtrArray        *guards;
  GPtrArray        *errors;
  NatterKeyedMutex *mutex;
  /* Release as soon as acquired, so the queue drains by itself. */
  gboolean          release_at_once;
  guint             completed;
} Fixture;

typedef struct
{
  Fixture *fixture;
  guint    index;
} Waiter;

static void
fixture_init (Fixture *f)
{
  f->order = g_array_new (FALSE, FALSE, sizeof (guint));
  f->guards = g_ptr_array_new ();
  f->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  f->mutex = natter_keyed_mutex_new ();
  f->release_at_once = FALSE;
  f->completed = 0;
}

static void
fixture_clear (Fixture *f)
{
  g_assert_cmpuint (f->guards->len, ==, 0);
  g_array_unref (f->order);
  g_ptr_array_unref (f->guards);
  g_ptr_array_unref (f->errors);
  g_assert_finalize_object (f->mutex);
}

static void
acquired_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Waiter *waiter = user_data;
  Fixture *f = waiter->fixture;
  GError *error = NULL;
  NatterLockGuard *guard;

  guard = natter_keyed_mutex_acquire_finish (NATTER_KEYED_MUTEX (source), result, &error);
  if (guard != NULL)
    {
      g_array_append_val (f->order, waiter->index);
      if (f->release_at_once)
        natter_lock_guard_release (guard);
      else
        g_ptr_array_add (f->guards, guard);
    }
  else
    {
      g_ptr_array_add (f->errors, error);
    }

  f->completed++;
  g_free (waiter);
}

static void
acquire (Fixture      *f,
         const char   *key,
         guint         index,
         GCancellable *cancellable)
{
  Waiter *waiter = g_new0 (Waiter, 1);

  waiter->fixture = f;
  waiter->index = index;
  natter_keyed_mutex_acquire_async (f->mutex, key, cancellable, acquired_cb, waiter);
}

static void
release_index (Fixture *f,
               guint    position)
{
  NatterLockGuard *guard = g_ptr_array_steal_index (f->guards, position);

  natter_lock_guard_release (guard);
}

static guint
order_at (Fixture *f,
          guint    i)
{
  return g_array_index (f->order, guint, i);
}

static void
test_fifo_order (void)
{
  Fixture f;

  fixture_init (&f);

  for (guint i = 0; i < 3; i++)
    acquire (&f, "k", i, NULL);

  /* The callback never runs from inside acquire_async. */
  g_assert_cmpuint (f.completed, ==, 0);
  g_assert_true (natter_keyed_mutex_is_locked (f.mutex, "k"));

  natter_test_wait_for_count (&f.completed, 1, TIMEOUT_MS);
  natter_test_drain_main_context ();
  g_assert_cmpuint (f.order->len, ==, 1);
  g_assert_cmpuint (order_at (&f, 0), ==, 0);

  /* A newcomer while the lock is held queues behind the others. */
  acquire (&f, "k", 3, NULL);

  release_index (&f, 0);
  /* Handed over at once: no gap in which a newcomer could barge in. */
  g_assert_true (natter_keyed_mutex_is_locked (f.mutex, "k"));
  natter_test_wait_for_count (&f.completed, 2, TIMEOUT_MS);
  natter_test_drain_main_context ();
  g_assert_cmpuint (f.order->len, ==, 2);
  g_assert_cmpuint (order_at (&f, 1), ==, 1);

  release_index (&f, 0);
  natter_test_wait_for_count (&f.completed, 3, TIMEOUT_MS);
  natter_test_drain_main_context ();
  g_assert_cmpuint (order_at (&f, 2), ==, 2);

  release_index (&f, 0);
  natter_test_wait_for_count (&f.completed, 4, TIMEOUT_MS);
  g_assert_cmpuint (order_at (&f, 3), ==, 3);

  release_index (&f, 0);
  /* The entry of an unheld key is gone. */
  g_assert_false (natter_keyed_mutex_is_locked (f.mutex, "k"));

  fixture_clear (&f);
}

static void
test_keys_independent (void)
{
  Fixture f;

  fixture_init (&f);

  acquire (&f, "a", 0, NULL);
  acquire (&f, "b", 1, NULL);
  acquire (&f, "a", 2, NULL);
  natter_test_wait_for_count (&f.completed, 2, TIMEOUT_MS);
  natter_test_drain_main_context ();

  /* "b" did not wait for "a"; the second "a" waits. */
  g_assert_cmpuint (f.order->len, ==, 2);
  g_assert_cmpuint (order_at (&f, 0), ==, 0);
  g_assert_cmpuint (order_at (&f, 1), ==, 1);
  g_assert_true (natter_keyed_mutex_is_locked (f.mutex, "a"));
  g_assert_true (natter_keyed_mutex_is_locked (f.mutex, "b"));

  /* Releasing "b" frees nothing for "a". */
  release_index (&f, 1);
  natter_test_drain_main_context ();
  g_assert_cmpuint (f.order->len, ==, 2);
  g_assert_false (natter_keyed_mutex_is_locked (f.mutex, "b"));

  release_index (&f, 0);
  natter_test_wait_for_count (&f.completed, 3, TIMEOUT_MS);
  g_assert_cmpuint (order_at (&f, 2), ==, 2);
  release_index (&f, 0);
  g_assert_false (natter_keyed_mutex_is_locked (f.mutex, "a"));

  fixture_clear (&f);
}

static void
test_cancel_queued_waiter (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCancellable) early = g_cancellable_new ();
  Fixture f;

  fixture_init (&f);

  acquire (&f, "k", 0, NULL);
  acquire (&f, "k", 1, cancellable);
  acquire (&f, "k", 2, NULL);
  natter_test_wait_for_count (&f.completed, 1, TIMEOUT_MS);

  g_cancellable_cancel (cancellable);
  natter_test_wait_for_count (&f.completed, 2, TIMEOUT_MS);
  natter_test_drain_main_context ();

  g_assert_cmpuint (f.errors->len, ==, 1);
  g_assert_error ((GError *) f.errors->pdata[0], G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (f.order->len, ==, 1);

  /* The cancelled waiter left the queue: the next release goes to 2. */
  release_index (&f, 0);
  natter_test_wait_for_count (&f.completed, 3, TIMEOUT_MS);
  g_assert_cmpuint (order_at (&f, 1), ==, 2);

  /* A cancellable that is already cancelled fails at once, even on a
   * queued key, and is never queued. */
  g_cancellable_cancel (early);
  acquire (&f, "k", 3, early);
  natter_test_wait_for_count (&f.completed, 4, TIMEOUT_MS);
  g_assert_cmpuint (f.errors->len, ==, 2);
  g_assert_error ((GError *) f.errors->pdata[1], G_IO_ERROR, G_IO_ERROR_CANCELLED);

  release_index (&f, 0);
  g_assert_false (natter_keyed_mutex_is_locked (f.mutex, "k"));

  fixture_clear (&f);
}

static void
test_cancel_after_hand_over (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Fixture f;

  fixture_init (&f);

  acquire (&f, "k", 0, NULL);
  acquire (&f, "k", 1, cancellable);
  acquire (&f, "k", 2, NULL);
  natter_test_wait_for_count (&f.completed, 1, TIMEOUT_MS);

  /* Handed over to 1, which is cancelled before its callback runs: it
   * reports the cancellation and must not keep the lock. */
  release_index (&f, 0);
  g_cancellable_cancel (cancellable);
  natter_test_wait_for_count (&f.completed, 3, TIMEOUT_MS);

  g_assert_cmpuint (f.errors->len, ==, 1);
  g_assert_error ((GError *) f.errors->pdata[0], G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (f.order->len, ==, 2);
  g_assert_cmpuint (order_at (&f, 1), ==, 2);

  release_index (&f, 0);
  g_assert_false (natter_keyed_mutex_is_locked (f.mutex, "k"));

  fixture_clear (&f);
}

static void
test_guard_outlives_mutex_ref (void)
{
  Fixture f;
  NatterLockGuard *guard;

  fixture_init (&f);
  acquire (&f, "k", 0, NULL);
  natter_test_wait_for_count (&f.completed, 1, TIMEOUT_MS);

  /* The guard keeps the mutex alive after its owner drops it. */
  guard = g_ptr_array_steal_index (f.guards, 0);
  {
    GWeakRef weak;
    NatterKeyedMutex *alive;

    g_weak_ref_init (&weak, f.mutex);
    g_object_unref (f.mutex);
    alive = g_weak_ref_get (&weak);
    g_assert_nonnull (alive);
    g_object_unref (alive);

    natter_lock_guard_release (guard);
    g_assert_null (g_weak_ref_get (&weak));
    g_weak_ref_clear (&weak);
  }

  g_array_unref (f.order);
  g_ptr_array_unref (f.guards);
  g_ptr_array_unref (f.errors);
}

static void
test_many_waiters_in_order (void)
{
  const guint n = 1000;
  Fixture f;

  fixture_init (&f);
  f.release_at_once = TRUE;

  for (guint i = 0; i < n; i++)
    acquire (&f, "k", i, NULL);

  natter_test_wait_for_count (&f.completed, n, TIMEOUT_MS);
  g_assert_cmpuint (f.order->len, ==, n);
  g_assert_cmpuint (f.errors->len, ==, 0);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (order_at (&f, i), ==, i);
  g_assert_false (natter_keyed_mutex_is_locked (f.mutex, "k"));

  fixture_clear (&f);
}

static void
test_autoptr_guard (void)
{
  Fixture f;

  fixture_init (&f);
  acquire (&f, "k", 0, NULL);
  natter_test_wait_for_count (&f.completed, 1, TIMEOUT_MS);

  {
    g_autoptr(NatterLockGuard) guard = g_ptr_array_steal_index (f.guards, 0);

    g_assert_true (natter_keyed_mutex_is_locked (f.mutex, "k"));
  }
  g_assert_false (natter_keyed_mutex_is_locked (f.mutex, "k"));

  /* Releasing NULL is a no-op, like g_free(). */
  natter_lock_guard_release (NULL);

  fixture_clear (&f);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/keyed-mutex/fifo-order", test_fifo_order);
  g_test_add_func ("/keyed-mutex/keys-independent", test_keys_independent);
  g_test_add_func ("/keyed-mutex/cancel-queued-waiter", test_cancel_queued_waiter);
  g_test_add_func ("/keyed-mutex/cancel-after-hand-over", test_cancel_after_hand_over);
  g_test_add_func ("/keyed-mutex/guard-outlives-mutex-ref", test_guard_outlives_mutex_ref);
  g_test_add_func ("/keyed-mutex/many-waiters-in-order", test_many_waiters_in_order);
  g_test_add_func ("/keyed-mutex/autoptr-guard", test_autoptr_guard);

  return g_test_run ();
}
