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
 * Implements docs/runtime.md §6 step 4 and §12.
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

/**
 * natter_model_registry_check:
 * @self: a #NatterModelRegistry
 * @descriptor: (transfer none): `{provider, model}`
 * @error: return location for a #GError
 *
 * Whether a provider serves @descriptor, as far as the registry can tell
 * without a live model (no key is looked up, nothing is sent): a turn is
 * not created for a model that could never be called (docs/runtime.md
 * §5, create_turn). A registry without a check answers %TRUE, and the
 * advance's resolve (natter_model_registry_resolve()) finds out.
 *
 * Returns: %TRUE if the descriptor may be resolved, or %FALSE with
 *   %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND saying which provider is unknown
 */
gboolean
natter_model_registry_check (NatterModelRegistry  *self,
                             JsonObject           *descriptor,
                             GError              **error)
{
  NatterModelRegistryInterface *iface;

  g_return_val_if_fail (NATTER_IS_MODEL_REGISTRY (self), FALSE);
  g_return_val_if_fail (descriptor != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  iface = NATTER_MODEL_REGISTRY_GET_IFACE (self);
  return iface->check == NULL || iface->check (self, descriptor, error);
}
