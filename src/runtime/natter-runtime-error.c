/* natter-runtime-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-runtime-error.h"

G_DEFINE_QUARK (natter-runtime-error-quark, natter_runtime_error)
