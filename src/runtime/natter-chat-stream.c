/* natter-chat-stream.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-chat-stream.h"
