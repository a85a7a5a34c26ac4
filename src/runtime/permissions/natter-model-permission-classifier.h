/* natter-model-permission-classifier.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-permission-classifier.h"

G_BEGIN_DECLS

#define NATTER_TYPE_MODEL_PERMISSION_CLASSIFIER (natter_model_permission_classifier_get_type ())

G_DECLARE_FINAL_TYPE (NatterModelPermissionClassifier, natter_model_permission_classifier, NATTER, MODEL_PERMISSION_CLASSIFIER, GObject)

NatterModelPermissionClassifier *natter_model_permission_classifier_new         (void);
JsonObject                      *natter_model_permission_classifier_build_request (JsonArray   *calls);
JsonArray                       *natter_model_permission_classifier_parse_answer  (JsonObject  *message,
                                                                                   JsonArray   *calls,
                                                                                   GError     **error);

G_END_DECLS
