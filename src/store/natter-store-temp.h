/* natter-store-temp.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

void natter_store_temp_begin       (void);
void natter_store_temp_end         (void);
void natter_store_temp_sweep_begin (void);
void natter_store_temp_sweep_end   (void);

gboolean natter_store_temp_remove_leftovers (GPtrArray  *paths,
                                             guint      *removed,
                                             GError    **error);

G_END_DECLS
