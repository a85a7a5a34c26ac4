/* natter-keyed-mutex.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-keyed-mutex"

#include "natter-keyed-mutex.h"

/* The in-process lock of docs/runtime.md §2 and docs/sessions.md §6.3
 * (`withLock`): per key, at most one holder and a FIFO of waiting GTasks.
 * Nothing ever blocks a thread; holding a lock across main-loop iterations
 * is the whole point.
 *
 * An entry exists in the table exactly while its key is held, so the table
 * never grows with keys that nobody uses any more. Releasing with waiters
 * transfers ownership at once (the key stays held, so a newcomer cannot
 * barge in front of the queue) and then completes the next waiter's task
 * from an idle source: completing it inside natter_lock_guard_release()
 * would run arbitrary callbacks, which might release again, from inside the
 * caller's release, and a long queue would recurse as deep as it is long.
 *
 * The table is guarded by a GMutex only so that a guard may be released
 * from a worker thread; every task still completes on the main context it
 * was started from. */

struct _NatterLockGuard
{
  NatterKeyedMutex *mutex;
  char             *key;
};

typedef struct
{
  NatterKeyedMutex *mutex;
  char             *key;
  GTask            *task;
  /* Dispatches on the task's context when the waiter's cancellable fires;
   * NULL without a cancellable. */
  GSource          *cancel_source;
} Waiter;

typedef struct
{
  /* Of Waiter*, the head is served next. */
  GQueue waiters;
} Entry;

struct _NatterKeyedMutex
{
  GObject     parent_instance;

  GMutex      lock;
  /* key (owned) → Entry* (owned); present iff the key is held. */
  GHashTable *entries;
};

G_DEFINE_FINAL_TYPE (NatterKeyedMutex, natter_keyed_mutex, G_TYPE_OBJECT)

static void
waiter_free (Waiter *waiter)
{
  if (waiter->cancel_source != NULL)
    {
      g_source_destroy (waiter->cancel_source);
      g_source_unref (waiter->cancel_source);
    }
  g_clear_object (&waiter->task);
  g_free (waiter->key);
  g_free (waiter);
}

static void
entry_free (Entry *entry)
{
  /* Waiting tasks hold a reference to the mutex, so an entry can only die
   * with the mutex once its queue is empty. */
  g_assert (g_queue_is_empty (&entry->waiters));
  g_free (entry);
}

static void
natter_keyed_mutex_finalize (GObject *object)
{
  NatterKeyedMutex *self = (NatterKeyedMutex *) object;

  g_clear_pointer (&self->entries, g_hash_table_unref);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (natter_keyed_mutex_parent_class)->finalize (object);
}

static void
natter_keyed_mutex_class_init (NatterKeyedMutexClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_keyed_mutex_finalize;
}

static void
natter_keyed_mutex_init (NatterKeyedMutex *self)
{
  g_mutex_init (&self->lock);
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal,
                                         g_free, (GDestroyNotify) entry_free);
}

/**
 * natter_keyed_mutex_new:
 *
 * Creates an asynchronous keyed mutex: per key, one holder and a FIFO of
 * waiters. It is the in-process exclusion of docs/runtime.md §2
 * (`with_lock`) and docs/sessions.md §6.3 (`withLock`); see
 * architecture.md, "Execution model".
 *
 * Returns: (transfer full): a new #NatterKeyedMutex
 */
NatterKeyedMutex *
natter_keyed_mutex_new (void)
{
  return g_object_new (NATTER_TYPE_KEYED_MUTEX, NULL);
}

static NatterLockGuard *
lock_guard_new (NatterKeyedMutex *mutex,
                const char       *key)
{
  NatterLockGuard *guard = g_new0 (NatterLockGuard, 1);

  guard->mutex = g_object_ref (mutex);
  guard->key = g_strdup (key);
  return guard;
}

static gboolean
waiter_cancelled_cb (GCancellable *cancellable,
                     gpointer      user_data)
{
  Waiter *waiter = user_data;
  NatterKeyedMutex *self = waiter->mutex;
  gboolean removed = FALSE;

  g_mutex_lock (&self->lock);
  {
    Entry *entry = g_hash_table_lookup (self->entries, waiter->key);

    /* The lock may have been handed to this waiter already; then its task
     * completes with the guard and GTask reports the cancellation. */
    if (entry != NULL)
      removed = g_queue_remove (&entry->waiters, waiter);
  }
  g_mutex_unlock (&self->lock);

  if (removed)
    {
      g_autoptr(GTask) task = g_object_ref (waiter->task);

      /* Frees this source's closure data; the source itself stays alive
       * until this dispatch returns. */
      waiter_free (waiter);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               "Waiting for the lock was cancelled");
    }

  return G_SOURCE_REMOVE;
}

/**
 * natter_keyed_mutex_acquire_async:
 * @self: a #NatterKeyedMutex
 * @key: the key to lock, e.g. a turn or session id
 * @cancellable: (nullable): cancels the wait while queued
 * @callback: called on the current thread-default main context once the
 *   lock is held or the wait failed
 * @user_data: data for @callback
 *
 * Waits for the lock of @key. Waiters of one key are served strictly in
 * the order of their calls; different keys never wait for each other.
 * Cancelling a queued waiter removes it from the queue and completes it
 * with %G_IO_ERROR_CANCELLED. The callback never runs from inside this
 * call.
 */
void
natter_keyed_mutex_acquire_async (NatterKeyedMutex    *self,
                                  const char          *key,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Waiter *waiter;

  g_return_if_fail (NATTER_IS_KEYED_MUTEX (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_keyed_mutex_acquire_async);

  if (g_task_return_error_if_cancelled (task))
    return;

  g_mutex_lock (&self->lock);
  {
    Entry *entry = g_hash_table_lookup (self->entries, key);

    if (entry == NULL)
      {
        g_hash_table_insert (self->entries, g_strdup (key), g_new0 (Entry, 1));
        g_mutex_unlock (&self->lock);

        /* GTask defers this to an idle: the task was created in this very
         * main-loop iteration. */
        g_task_return_pointer (task, lock_guard_new (self, key),
                               (GDestroyNotify) natter_lock_guard_release);
        return;
      }

    waiter = g_new0 (Waiter, 1);
    waiter->mutex = self;
    waiter->key = g_strdup (key);
    waiter->task = g_steal_pointer (&task);

    if (cancellable != NULL)
      {
        waiter->cancel_source = g_cancellable_source_new (cancellable);
        g_source_set_callback (waiter->cancel_source,
                               G_SOURCE_FUNC (waiter_cancelled_cb), waiter, NULL);
        g_source_set_priority (waiter->cancel_source, g_task_get_priority (waiter->task));
        g_source_set_static_name (waiter->cancel_source, "[natter] keyed mutex cancel");
        g_source_attach (waiter->cancel_source, g_task_get_context (waiter->task));
      }

    g_queue_push_tail (&entry->waiters, waiter);
  }
  g_mutex_unlock (&self->lock);
}

/**
 * natter_keyed_mutex_acquire_finish:
 * @self: a #NatterKeyedMutex
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_keyed_mutex_acquire_async(). If the result is never
 * finished (or finishing fails because the wait was cancelled after the
 * lock was handed over), the lock is released when @result is freed.
 *
 * Returns: (transfer full) (nullable): the guard that holds the lock; free
 *   it with natter_lock_guard_release(). %NULL with
 *   %G_IO_ERROR_CANCELLED when the wait was cancelled.
 */
NatterLockGuard *
natter_keyed_mutex_acquire_finish (NatterKeyedMutex  *self,
                                   GAsyncResult      *result,
                                   GError           **error)
{
  g_return_val_if_fail (NATTER_IS_KEYED_MUTEX (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        natter_keyed_mutex_acquire_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_keyed_mutex_is_locked:
 * @self: a #NatterKeyedMutex
 * @key: a key
 *
 * Whether @key is held right now (including a lock that is being handed to
 * the next waiter). For assertions and tests.
 *
 * Returns: %TRUE if held
 */
gboolean
natter_keyed_mutex_is_locked (NatterKeyedMutex *self,
                              const char       *key)
{
  gboolean locked;

  g_return_val_if_fail (NATTER_IS_KEYED_MUTEX (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  g_mutex_lock (&self->lock);
  locked = g_hash_table_contains (self->entries, key);
  g_mutex_unlock (&self->lock);

  return locked;
}

static gboolean
hand_over_cb (gpointer user_data)
{
  Waiter *waiter = user_data;
  g_autoptr(GTask) task = g_steal_pointer (&waiter->task);
  NatterLockGuard *guard = lock_guard_new (waiter->mutex, waiter->key);

  waiter_free (waiter);
  /* If the waiter's cancellable fired meanwhile, GTask reports
   * G_IO_ERROR_CANCELLED and frees the guard, which releases the lock. */
  g_task_return_pointer (task, guard, (GDestroyNotify) natter_lock_guard_release);

  return G_SOURCE_REMOVE;
}

/**
 * natter_lock_guard_release:
 * @guard: (transfer full) (nullable): a guard from
 *   natter_keyed_mutex_acquire_finish()
 *
 * Releases the lock and frees @guard. The next waiter of the key, if any,
 * holds the lock from this moment on; its callback runs from an idle
 * source on its main context, never from inside this call. The guard
 * keeps its mutex alive, so it may outlive the caller's reference.
 */
void
natter_lock_guard_release (NatterLockGuard *guard)
{
  NatterKeyedMutex *self;
  Waiter *next = NULL;

  if (guard == NULL)
    return;

  self = guard->mutex;

  g_mutex_lock (&self->lock);
  {
    Entry *entry = g_hash_table_lookup (self->entries, guard->key);

    g_assert (entry != NULL);
    next = g_queue_pop_head (&entry->waiters);
    if (next == NULL)
      g_hash_table_remove (self->entries, guard->key);
  }
  g_mutex_unlock (&self->lock);

  if (next != NULL)
    {
      g_autoptr(GSource) idle = g_idle_source_new ();

      /* No longer cancellable by queue removal: the lock is its own now. */
      if (next->cancel_source != NULL)
        {
          g_source_destroy (next->cancel_source);
          g_clear_pointer (&next->cancel_source, g_source_unref);
        }

      g_source_set_priority (idle, g_task_get_priority (next->task));
      g_source_set_callback (idle, hand_over_cb, next, NULL);
      g_source_set_static_name (idle, "[natter] keyed mutex hand-over");
      g_source_attach (idle, g_task_get_context (next->task));
    }

  g_free (guard->key);
  g_object_unref (guard->mutex);
  g_free (guard);
}
