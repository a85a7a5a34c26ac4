/* natter-turn-schema.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-turn-schema.h"
