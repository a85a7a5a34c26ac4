/* natter-model-registry.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-model.h"

G_BEGIN_DECLS

#define NATTER_TYPE_MODEL_REGISTRY (natter_model_registry_get_type ())

G_DECLARE_INTERFACE (NatterModelRegistry, natter_model_registry, NATTER, MODEL_REGISTRY, GObject)

/**
 * NatterModelRegistryInterface:
 * @resolve: the live model for a descriptor `{provider, model}`
 * @check: (nullable): whether a provider serves a descriptor, without
 *   making a live model (no key is looked up); %NULL when the registry
 *   cannot tell before resolving
 *
 * Resolves the model descriptor stored in a turn snapshot to a live model
 * (docs/runtime.md §6 step 4, §12). Every advance resolves it again.
 */
struct _NatterModelRegistryInterface
{
  GTypeInterface parent_iface;

  NatterModel *(*resolve) (NatterModelRegistry  *self,
                           JsonObject           *descriptor,
                           GError              **error);
  gboolean     (*check)   (NatterModelRegistry  *self,
                           JsonObject           *descriptor,
                           GError              **error);
};

NatterModel *natter_model_registry_resolve (NatterModelRegistry  *self,
                                            JsonObject           *descriptor,
                                            GError              **error);

gboolean     natter_model_registry_check   (NatterModelRegistry  *self,
                                            JsonObject           *descriptor,
                                            GError              **error);

G_END_DECLS
