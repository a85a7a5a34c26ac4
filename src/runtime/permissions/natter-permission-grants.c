/* natter-permission-grants.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-permission-grants"

#include "natter-permission-grants.h"

G_DEFINE_INTERFACE (NatterPermissionGrants, natter_permission_grants, G_TYPE_OBJECT)

static void
natter_permission_grants_default_init (NatterPermissionGrantsInterface *iface)
{
}

/**
 * natter_permission_grants_lookup:
 * @self: a #NatterPermissionGrants
 * @session_id: the session the turn belongs to
 * @tool_id: the registry id of the tool called
 *
 * Asks whether the person allowed every call of @tool_id in @session_id
 * (docs/sessions.md §12: grants are blanket per tool, and belong to
 * one session). A view that cannot tell answers %NULL, so the runtime
 * asks the person: a grant is never assumed.
 *
 * Returns: (transfer full) (nullable): the id of the active grant, or
 *   %NULL when there is none
 */
char *
natter_permission_grants_lookup (NatterPermissionGrants *self,
                                 const char             *session_id,
                                 const char             *tool_id)
{
  g_return_val_if_fail (NATTER_IS_PERMISSION_GRANTS (self), NULL);
  g_return_val_if_fail (session_id != NULL && tool_id != NULL, NULL);

  return NATTER_PERMISSION_GRANTS_GET_IFACE (self)->lookup (self, session_id, tool_id);
}
