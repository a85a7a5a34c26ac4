/* natter-permissions-list.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-sessions.h"

G_BEGIN_DECLS

#define NATTER_TYPE_PERMISSIONS_LIST (natter_permissions_list_get_type ())

G_DECLARE_FINAL_TYPE (NatterPermissionsList, natter_permissions_list, NATTER, PERMISSIONS_LIST, GtkWidget)

GtkWidget *natter_permissions_list_new          (NatterSessions        *sessions,
                                                 const char            *session_id);
gboolean   natter_permissions_list_is_loaded    (NatterPermissionsList *self);
guint      natter_permissions_list_get_n_grants (NatterPermissionsList *self);
GtkWidget *natter_permissions_dialog_new        (GtkWindow             *parent,
                                                 NatterSessions        *sessions,
                                                 const char            *session_id);

G_END_DECLS
