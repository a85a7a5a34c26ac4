/* natter-sse-parser.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-sse-parser.h"
