/* natter-permission-classifier.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-model.h"

G_BEGIN_DECLS

#define NATTER_TYPE_PERMISSION_CLASSIFIER (natter_permission_classifier_get_type ())

G_DECLARE_INTERFACE (NatterPermissionClassifier, natter_permission_classifier, NATTER, PERMISSION_CLASSIFIER, GObject)

/**
 * NatterPermissionClassifierInterface:
 * @classify_async: classifies a batch of calls
 *   `[{toolCallId, toolName, input, request}]`
 * @classify_finish: `[{toolCallId, decision: allow|deny|defer, reason}]`
 * @classify_in_async: (nullable): like @classify_async, given the turn's
 *   live model; when set, the runtime calls it instead of @classify_async
 *   (its result is read with @classify_finish)
 *
 * The automatic permission classifier of docs/runtime.md §7. Its answer
 * is an opinion: a failure, or a call it does not answer, counts as
 * `defer`.
 */
struct _NatterPermissionClassifierInterface
{
  GTypeInterface parent_iface;

  void       (*classify_async)  (NatterPermissionClassifier  *self,
                                 JsonArray                   *calls,
                                 GCancellable                *cancellable,
                                 GAsyncReadyCallback          callback,
                                 gpointer                     user_data);
  JsonArray *(*classify_finish) (NatterPermissionClassifier  *self,
                                 GAsyncResult                *result,
                                 GError                     **error);
  void       (*classify_in_async) (NatterPermissionClassifier  *self,
                                   NatterModel                 *model,
                                   JsonArray                   *calls,
                                   GCancellable                *cancellable,
                                   GAsyncReadyCallback          callback,
                                   gpointer                     user_data);
};

void       natter_permission_classifier_classify_async  (NatterPermissionClassifier  *self,
                                                         JsonArray                   *calls,
                                                         GCancellable                *cancellable,
                                                         GAsyncReadyCallback          callback,
                                                         gpointer                     user_data);
JsonArray *natter_permission_classifier_classify_finish (NatterPermissionClassifier  *self,
                                                         GAsyncResult                *result,
                                                         GError                     **error);
void       natter_permission_classifier_classify_in_async (NatterPermissionClassifier  *self,
                                                           NatterModel                 *model,
                                                           JsonArray                   *calls,
                                                           GCancellable                *cancellable,
                                                           GAsyncReadyCallback          callback,
                                                           gpointer                     user_data);

G_END_DECLS
