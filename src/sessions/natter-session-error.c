/* natter-session-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-session-error"

#include "natter-session-error.h"

G_DEFINE_QUARK (natter-session-error-quark, natter_session_error)
