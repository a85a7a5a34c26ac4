/* natter-mcp-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-mcp-error.h"

G_DEFINE_QUARK (natter-mcp-error-quark, natter_mcp_error)
