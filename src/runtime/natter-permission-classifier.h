/* natter-permission-classifier.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define NATTER_TYPE_PERMISSION_CLASSIFIER (natter_permission_classifier_get_type ())

G_DECLARE_INTERFACE (NatterPermissionClassifier, natter_permission_classifier, NATTER, PERMISSION_CLASSIFIER, GObject)

/**
 * NatterPermissionClassifierInterface:
 * @classify_async: classifies a batch of calls
 *   `[{toolCallId, toolName, input, request}]`
 * @classify_finish: `[{toolCallId, decision: allow|deny|defer, reason}]`
 *
 * The automatic permission classifier of turn-runtime.md §7. Its answer
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
};

void       natter_permission_classifier_classify_async  (NatterPermissionClassifier  *self,
                                                         JsonArray                   *calls,
                                                         GCancellable                *cancellable,
                                                         GAsyncReadyCallback          callback,
                                                         gpointer                     user_data);
JsonArray *natter_permission_classifier_classify_finish (NatterPermissionClassifier  *self,
                                                         GAsyncResult                *result,
                                                         GError                     **error);

G_END_DECLS
