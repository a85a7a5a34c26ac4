/* natter-version-switcher.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NATTER_TYPE_VERSION_SWITCHER (natter_version_switcher_get_type ())

G_DECLARE_FINAL_TYPE (NatterVersionSwitcher, natter_version_switcher, NATTER, VERSION_SWITCHER, GtkWidget)

GtkWidget  *natter_version_switcher_new          (void);
void        natter_version_switcher_set_versions (NatterVersionSwitcher *self,
                                                  GPtrArray             *versions,
                                                  const char            *turn_id);
guint       natter_version_switcher_get_position (NatterVersionSwitcher *self);
guint       natter_version_switcher_get_n_versions (NatterVersionSwitcher *self);

G_END_DECLS
