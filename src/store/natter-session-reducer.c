/* natter-session-reducer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-session-reducer.h"
