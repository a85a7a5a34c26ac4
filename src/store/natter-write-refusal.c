/* natter-write-refusal.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Why a store (a log repository, the blob store) writes nothing: a
 * process without the data directory's single-writer lock reads and
 * never writes (docs/sessions.md §8.3). Set and lifted from the main
 * thread; asked before every write, from any thread, without a lock. A
 * lifted refusal is kept until the store goes, since a worker may be
 * copying it at that moment.
 */

#include "config.h"

#include "natter-write-refusal.h"

/**
 * natter_write_refusal_set:
 * @self: a store's refusal
 * @reason: (transfer none) (nullable): why the store may not write; %NULL
 *   when it may again
 *
 * From now on natter_write_refusal_check() fails with a copy of @reason
 * (or passes, for %NULL). While one reason holds, another is ignored.
 * Main thread only.
 */
void
natter_write_refusal_set (NatterWriteRefusal *self,
                          const GError       *reason)
{
  GError *copy;

  if (reason == NULL)
    {
      GError *lifted = g_atomic_pointer_exchange (&self->current, NULL);

      if (lifted != NULL)
        self->lifted = g_slist_prepend (self->lifted, lifted);
      return;
    }
  copy = g_error_copy (reason);
  if (!g_atomic_pointer_compare_and_exchange (&self->current, NULL, copy))
    g_error_free (copy);
}

/**
 * natter_write_refusal_get:
 * @self: a store's refusal
 *
 * Returns: (transfer none) (nullable): the reason set, or %NULL when the
 *   store may write; it lives as long as @self
 */
const GError *
natter_write_refusal_get (NatterWriteRefusal *self)
{
  return g_atomic_pointer_get (&self->current);
}

/**
 * natter_write_refusal_check:
 * @self: a store's refusal
 * @error: return location for a #GError
 *
 * Asked before any write, from any thread.
 *
 * Returns: %TRUE when the store may write; else %FALSE with a copy of the
 *   reason set (%NATTER_SESSION_ERROR_LOCKED for a missing lock)
 */
gboolean
natter_write_refusal_check (NatterWriteRefusal  *self,
                            GError             **error)
{
  const GError *refusal = g_atomic_pointer_get (&self->current);

  if (refusal == NULL)
    return TRUE;
  g_propagate_error (error, g_error_copy (refusal));
  return FALSE;
}

/**
 * natter_write_refusal_clear:
 * @self: a store's refusal
 *
 * Frees what @self holds, as its store goes.
 */
void
natter_write_refusal_clear (NatterWriteRefusal *self)
{
  g_clear_error (&self->current);
  g_slist_free_full (g_steal_pointer (&self->lifted), (GDestroyNotify) g_error_free);
}
