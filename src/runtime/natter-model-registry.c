/* natter-model-registry.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-model-registry"

#include "natter-model-registry.h"
#include "natter-runtime-error.h"

G_DEFINE_INTERFACE (NatterModelRegistry, natter_model_registry, G_TYPE_OBJECT)

static void
natter_model_registry_default_init (NatterModelRegistryInterface *iface)
{
}

/**
 * natter_model_registry_resolve:
 * @self: a #NatterModelRegistry
 * @descriptor: (transfer none): `{provider, model}`
 * @error: return location for a #GError
 *
 * Implements turn-runtime.md §6 step 4 and §12.
 *
 * Returns: (transfer full) (nullable): the model, or %NULL with
 *   %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND when no provider serves it
 */
NatterModel *
natter_model_registry_resolve (NatterModelRegistry  *self,
                               JsonObject           *descriptor,
                               GError              **error)
{
  NatterModel *model;

  g_return_val_if_fail (NATTER_IS_MODEL_REGISTRY (self), NULL);
  g_return_val_if_fail (descriptor != NULL, NULL);

  model = NATTER_MODEL_REGISTRY_GET_IFACE (self)->resolve (self, descriptor, error);
  /* A registry that returns nothing without saying why still must not
   * leave the caller without an error. */
  if (model == NULL && error != NULL && *error == NULL)
    g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND,
                 "No model “%s” from provider “%s”",
                 json_object_get_string_member_with_default (descriptor, "model", ""),
                 json_object_get_string_member_with_default (descriptor, "provider", ""));
  return model;
}
