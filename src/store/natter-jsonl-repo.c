/* natter-jsonl-repo.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-jsonl-repo.h"
