/* natter-keyed-mutex.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-keyed-mutex.h"
