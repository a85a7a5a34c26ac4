/* natter-store-error.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NATTER_STORE_ERROR:
 *
 * The error domain of the store layer; codes are #NatterStoreError.
 */
#define NATTER_STORE_ERROR (natter_store_error_quark ())

GQuark natter_store_error_quark (void);

gboolean natter_set_error_false (GError     **error,
                                 GQuark       domain,
                                 int          code,
                                 const char  *format,
                                 ...) G_GNUC_PRINTF (4, 5);

G_END_DECLS
