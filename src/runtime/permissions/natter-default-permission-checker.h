/* natter-default-permission-checker.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-permission-checker.h"
#include "natter-tool-registry.h"

G_BEGIN_DECLS

#define NATTER_TYPE_DEFAULT_PERMISSION_CHECKER (natter_default_permission_checker_get_type ())

G_DECLARE_FINAL_TYPE (NatterDefaultPermissionChecker, natter_default_permission_checker, NATTER, DEFAULT_PERMISSION_CHECKER, GObject)

NatterDefaultPermissionChecker *natter_default_permission_checker_new (NatterToolRegistry *tools,
                                                                       const char * const *no_permission_tool_ids);

G_END_DECLS
