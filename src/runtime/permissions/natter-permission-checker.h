/* natter-permission-checker.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define NATTER_TYPE_PERMISSION_CHECKER (natter_permission_checker_get_type ())

G_DECLARE_INTERFACE (NatterPermissionChecker, natter_permission_checker, NATTER, PERMISSION_CHECKER, GObject)

/**
 * NatterPermissionCheckerInterface:
 * @check: whether one tool call needs permission, and the request JSON
 *   shown to the human if it does
 * @check_in: (nullable): like @check, with the turn's working directory
 *   (`config.cwd`, or %NULL) so the request can name absolute paths; when
 *   set, the runtime calls it instead of @check
 *
 * The permission checker of docs/runtime.md §7. A checker failure makes
 * the runtime fail closed: it records `checkerError` and asks a human if
 * one is available, else denies; it never runs the tool automatically.
 */
struct _NatterPermissionCheckerInterface
{
  GTypeInterface parent_iface;

  gboolean (*check) (NatterPermissionChecker  *self,
                     JsonObject               *tool_descriptor,
                     JsonObject               *input,
                     gboolean                 *out_required,
                     JsonNode                **out_request,
                     GError                  **error);
  gboolean (*check_in) (NatterPermissionChecker  *self,
                        JsonObject               *tool_descriptor,
                        JsonObject               *input,
                        const char               *cwd,
                        gboolean                 *out_required,
                        JsonNode                **out_request,
                        GError                  **error);
};

gboolean natter_permission_checker_check (NatterPermissionChecker  *self,
                                          JsonObject               *tool_descriptor,
                                          JsonObject               *input,
                                          gboolean                 *out_required,
                                          JsonNode                **out_request,
                                          GError                  **error);
gboolean natter_permission_checker_check_in (NatterPermissionChecker  *self,
                                             JsonObject               *tool_descriptor,
                                             JsonObject               *input,
                                             const char               *cwd,
                                             gboolean                 *out_required,
                                             JsonNode                **out_request,
                                             GError                  **error);

G_END_DECLS
