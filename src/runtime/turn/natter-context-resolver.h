/* natter-context-resolver.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define NATTER_TYPE_CONTEXT_RESOLVER (natter_context_resolver_get_type ())

G_DECLARE_INTERFACE (NatterContextResolver, natter_context_resolver, NATTER, CONTEXT_RESOLVER, GObject)

/**
 * NatterContextResolverInterface:
 * @materialize_async: materializes `{previousTurnId}`
 * @materialize_finish: the closed transcript of that turn
 * @forget: (nullable): drops what was kept of a turn whose file changed
 *   under another writer, so that the next materialization reads it
 *
 * Materializes a context reference into the referenced turn's closed
 * transcript (docs/runtime.md §11).
 */
struct _NatterContextResolverInterface
{
  GTypeInterface parent_iface;

  void       (*materialize_async)  (NatterContextResolver  *self,
                                    const char             *previous_turn_id,
                                    GCancellable           *cancellable,
                                    GAsyncReadyCallback     callback,
                                    gpointer                user_data);
  JsonArray *(*materialize_finish) (NatterContextResolver  *self,
                                    GAsyncResult           *result,
                                    GError                **error);
  void       (*forget)             (NatterContextResolver  *self,
                                    const char             *turn_id);
};

void       natter_context_resolver_materialize_async  (NatterContextResolver  *self,
                                                       const char             *previous_turn_id,
                                                       GCancellable           *cancellable,
                                                       GAsyncReadyCallback     callback,
                                                       gpointer                user_data);
JsonArray *natter_context_resolver_materialize_finish (NatterContextResolver  *self,
                                                       GAsyncResult           *result,
                                                       GError                **error);
void       natter_context_resolver_forget             (NatterContextResolver  *self,
                                                       const char             *turn_id);

G_END_DECLS
