/* natter-permission-classifier.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-permission-classifier"

#include "natter-permission-classifier.h"

G_DEFINE_INTERFACE (NatterPermissionClassifier, natter_permission_classifier, G_TYPE_OBJECT)

static void
natter_permission_classifier_default_init (NatterPermissionClassifierInterface *iface)
{
}

/**
 * natter_permission_classifier_classify_async:
 * @self: a #NatterPermissionClassifier
 * @calls: (transfer none): `[{toolCallId, toolName, input, request}]`
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once on the caller's main context
 * @user_data: data for @callback
 *
 * Classifies a batch of calls that require permission (docs/runtime.md §7).
 */
void
natter_permission_classifier_classify_async (NatterPermissionClassifier *self,
                                             JsonArray                  *calls,
                                             GCancellable               *cancellable,
                                             GAsyncReadyCallback         callback,
                                             gpointer                    user_data)
{
  g_return_if_fail (NATTER_IS_PERMISSION_CLASSIFIER (self));
  g_return_if_fail (calls != NULL);

  NATTER_PERMISSION_CLASSIFIER_GET_IFACE (self)->classify_async (self, calls, cancellable,
                                                                 callback, user_data);
}

/**
 * natter_permission_classifier_classify_finish:
 * @self: a #NatterPermissionClassifier
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Implements docs/runtime.md §7.
 *
 * Returns: (transfer full) (nullable): `[{toolCallId, decision, reason}]`,
 *   or %NULL with the classifier's error (any domain)
 */
JsonArray *
natter_permission_classifier_classify_finish (NatterPermissionClassifier  *self,
                                              GAsyncResult                *result,
                                              GError                     **error)
{
  g_return_val_if_fail (NATTER_IS_PERMISSION_CLASSIFIER (self), NULL);

  return NATTER_PERMISSION_CLASSIFIER_GET_IFACE (self)->classify_finish (self, result, error);
}

/**
 * natter_permission_classifier_classify_in_async:
 * @self: a #NatterPermissionClassifier
 * @model: (nullable): the turn's live model, for classifiers that ask it
 * @calls: (transfer none): `[{toolCallId, toolName, input, request}]`
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once on the caller's main context
 * @user_data: data for @callback
 *
 * Classifies a batch of calls of a turn whose model is @model
 * (docs/runtime.md §7). Classifiers that do not use the model run as with
 * natter_permission_classifier_classify_async(). Finish with
 * natter_permission_classifier_classify_finish().
 */
void
natter_permission_classifier_classify_in_async (NatterPermissionClassifier *self,
                                                NatterModel                *model,
                                                JsonArray                  *calls,
                                                GCancellable               *cancellable,
                                                GAsyncReadyCallback         callback,
                                                gpointer                    user_data)
{
  NatterPermissionClassifierInterface *iface;

  g_return_if_fail (NATTER_IS_PERMISSION_CLASSIFIER (self));
  g_return_if_fail (model == NULL || NATTER_IS_MODEL (model));
  g_return_if_fail (calls != NULL);

  iface = NATTER_PERMISSION_CLASSIFIER_GET_IFACE (self);
  if (iface->classify_in_async != NULL)
    iface->classify_in_async (self, model, calls, cancellable, callback, user_data);
  else
    iface->classify_async (self, calls, cancellable, callback, user_data);
}
