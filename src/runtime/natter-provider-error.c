/* natter-provider-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-provider-error.h"

G_DEFINE_QUARK (natter-provider-error-quark, natter_provider_error)
