/* natter-store-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-store-error.h"

G_DEFINE_QUARK (natter-store-error-quark, natter_store_error)
