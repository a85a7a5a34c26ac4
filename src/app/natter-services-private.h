/* natter-services-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What natter-services.c shares with natter-services-housekeeping.c.
 */

#pragma once

#include "natter-services.h"

G_BEGIN_DECLS

gint64 _natter_services_get_locked_at (NatterServices *self);

G_END_DECLS
