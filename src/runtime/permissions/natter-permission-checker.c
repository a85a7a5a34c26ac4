/* natter-permission-checker.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-permission-checker"

#include "natter-permission-checker.h"

G_DEFINE_INTERFACE (NatterPermissionChecker, natter_permission_checker, G_TYPE_OBJECT)

static void
natter_permission_checker_default_init (NatterPermissionCheckerInterface *iface)
{
}

/**
 * natter_permission_checker_check:
 * @self: a #NatterPermissionChecker
 * @tool_descriptor: (transfer none): the snapshot's tool descriptor
 * @input: (transfer none): the parsed tool-call arguments
 * @out_required: (out): whether permission is required
 * @out_request: (out) (transfer full) (optional) (nullable): the request
 *   JSON shown to the human when required
 * @error: return location for a #GError
 *
 * Asks whether a tool call needs permission (docs/runtime.md §7).
 *
 * Returns: %FALSE with the checker's error when it cannot tell; the caller
 *   then treats the call as requiring permission (fail closed)
 */
gboolean
natter_permission_checker_check (NatterPermissionChecker  *self,
                                 JsonObject               *tool_descriptor,
                                 JsonObject               *input,
                                 gboolean                 *out_required,
                                 JsonNode                **out_request,
                                 GError                  **error)
{
  g_autoptr(JsonNode) request = NULL;
  gboolean required = TRUE;
  gboolean ok;

  g_return_val_if_fail (NATTER_IS_PERMISSION_CHECKER (self), FALSE);
  g_return_val_if_fail (out_required != NULL, FALSE);

  ok = NATTER_PERMISSION_CHECKER_GET_IFACE (self)->check (self, tool_descriptor, input,
                                                          &required, &request, error);
  /* Fail closed: an error never means "not required". */
  *out_required = ok ? required : TRUE;
  if (out_request != NULL)
    *out_request = ok && required ? g_steal_pointer (&request) : NULL;
  return ok;
}

/**
 * natter_permission_checker_check_in:
 * @self: a #NatterPermissionChecker
 * @tool_descriptor: (transfer none): the snapshot's tool descriptor
 * @input: (transfer none): the parsed tool-call arguments
 * @cwd: (nullable): the turn's working directory (`config.cwd`)
 * @out_required: (out): whether permission is required
 * @out_request: (out) (transfer full) (optional) (nullable): the request
 *   JSON shown to the human when required
 * @error: return location for a #GError
 *
 * natter_permission_checker_check() for a call in a turn with a working
 * directory (docs/runtime.md §7); checkers without a @check_in ignore
 * @cwd. Fails closed like natter_permission_checker_check().
 *
 * Returns: %FALSE with the checker's error when it cannot tell
 */
gboolean
natter_permission_checker_check_in (NatterPermissionChecker  *self,
                                    JsonObject               *tool_descriptor,
                                    JsonObject               *input,
                                    const char               *cwd,
                                    gboolean                 *out_required,
                                    JsonNode                **out_request,
                                    GError                  **error)
{
  NatterPermissionCheckerInterface *iface;
  g_autoptr(JsonNode) request = NULL;
  gboolean required = TRUE;
  gboolean ok;

  g_return_val_if_fail (NATTER_IS_PERMISSION_CHECKER (self), FALSE);
  g_return_val_if_fail (out_required != NULL, FALSE);

  iface = NATTER_PERMISSION_CHECKER_GET_IFACE (self);
  if (iface->check_in == NULL)
    return natter_permission_checker_check (self, tool_descriptor, input, out_required,
                                            out_request, error);

  ok = iface->check_in (self, tool_descriptor, input, cwd, &required, &request, error);
  *out_required = ok ? required : TRUE;
  if (out_request != NULL)
    *out_request = ok && required ? g_steal_pointer (&request) : NULL;
  return ok;
}
