/* natter-session-schema.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-session-schema.h"
