/* natter-provider-choices.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "natter-settings.h"

G_BEGIN_DECLS

guint natter_provider_choices_collect (NatterSettings *settings,
                                       GPtrArray      *ids,
                                       GPtrArray      *names);
int   natter_provider_choices_find    (GPtrArray      *providers,
                                       const char     *id);

G_END_DECLS
