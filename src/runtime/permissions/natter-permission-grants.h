/* natter-permission-grants.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define NATTER_TYPE_PERMISSION_GRANTS (natter_permission_grants_get_type ())

G_DECLARE_INTERFACE (NatterPermissionGrants, natter_permission_grants, NATTER, PERMISSION_GRANTS, GObject)

/**
 * NatterPermissionGrantsInterface:
 * @lookup: the id of the session's active grant for a tool, or %NULL
 *
 * The session-keyed view of permission grants that the runtime consults
 * when the permission checker requires a decision (docs/sessions.md
 * §12). The session layer provides it; the runtime knows nothing of
 * session files.
 */
struct _NatterPermissionGrantsInterface
{
  GTypeInterface parent_iface;

  char *(*lookup) (NatterPermissionGrants *self,
                   const char             *session_id,
                   const char             *tool_id);
};

char *natter_permission_grants_lookup (NatterPermissionGrants *self,
                                       const char             *session_id,
                                       const char             *tool_id);

G_END_DECLS
