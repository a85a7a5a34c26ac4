/* natter-context-resolver.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-context-resolver"

#include "natter-context-resolver.h"

G_DEFINE_INTERFACE (NatterContextResolver, natter_context_resolver, G_TYPE_OBJECT)

static void
natter_context_resolver_default_init (NatterContextResolverInterface *iface)
{
}

/**
 * natter_context_resolver_materialize_async:
 * @self: a #NatterContextResolver
 * @previous_turn_id: the referenced turn
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once on the caller's main context
 * @user_data: data for @callback
 *
 * Materializes the closed transcript of @previous_turn_id
 * (docs/runtime.md §11).
 */
void
natter_context_resolver_materialize_async (NatterContextResolver *self,
                                           const char            *previous_turn_id,
                                           GCancellable          *cancellable,
                                           GAsyncReadyCallback    callback,
                                           gpointer               user_data)
{
  g_return_if_fail (NATTER_IS_CONTEXT_RESOLVER (self));
  g_return_if_fail (previous_turn_id != NULL);

  NATTER_CONTEXT_RESOLVER_GET_IFACE (self)->materialize_async (self, previous_turn_id,
                                                               cancellable, callback, user_data);
}

/**
 * natter_context_resolver_materialize_finish:
 * @self: a #NatterContextResolver
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Implements docs/runtime.md §11.
 *
 * Returns: (transfer full) (nullable): the messages, or %NULL with
 *   %NATTER_RUNTIME_ERROR_CONTEXT (missing, corrupt, cyclic chain)
 */
JsonArray *
natter_context_resolver_materialize_finish (NatterContextResolver  *self,
                                            GAsyncResult           *result,
                                            GError                **error)
{
  g_return_val_if_fail (NATTER_IS_CONTEXT_RESOLVER (self), NULL);

  return NATTER_CONTEXT_RESOLVER_GET_IFACE (self)->materialize_finish (self, result, error);
}

/**
 * natter_context_resolver_forget:
 * @self: a #NatterContextResolver
 * @turn_id: a turn whose file another writer changed
 *
 * Drops whatever @self kept of @turn_id, so that the next
 * materialization through it reads the file again and sees what it now
 * holds — damage included, which then refuses the history
 * (docs/sessions.md §2). A resolver that keeps nothing ignores it.
 */
void
natter_context_resolver_forget (NatterContextResolver *self,
                                const char            *turn_id)
{
  NatterContextResolverInterface *iface;

  g_return_if_fail (NATTER_IS_CONTEXT_RESOLVER (self));
  g_return_if_fail (turn_id != NULL);

  iface = NATTER_CONTEXT_RESOLVER_GET_IFACE (self);
  if (iface->forget != NULL)
    iface->forget (self, turn_id);
}
